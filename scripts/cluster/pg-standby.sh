#!/usr/bin/env bash
# Starts or stops a PostgreSQL primary with one streaming hot standby on loopback, for the
# distributed tests (issue 24): reads on the standby may be stale, so SI holds but strict SI
# may not. No systemd: each server runs from a private directory on a private port, listening
# on 127.0.0.1 only; `stop` stops them by PID and deletes the directory.
#
#   eval "$(scripts/cluster/pg-standby.sh start)"   # prints `export POLYSI_PG_STANDBY_CLUSTER=DIR/cluster.json`
#   scripts/cluster/pg-standby.sh stop
#
# DIR/cluster.json is the cluster file of docs/distributed.md (schema/cluster.schema.json): the
# primary is the one node, the standby the one replica (writes there fail with SQLSTATE 25006).
# pg_ctl starts each postmaster in its own session, so kill/pause/resume signal the whole
# process group (postmaster and backends): a paused server answers nothing, a killed one
# leaves no backend behind. start = DIR/NAME/start.sh, the command that started it.
#
# Environment: POLYSI_CLUSTER_DIR (default ${TMPDIR:-/tmp}/polysi-cluster-pg-standby-$UID),
# POLYSI_PG_PRIMARY_PORT (default 25441), POLYSI_PG_STANDBY_PORT (default 25442), PG_BIN
# (default: the newest /usr/lib/postgresql/*/bin). Run as root, the servers run as `postgres`.
# Tuned for tests (fsync off). Everything except the export line goes to stderr.
set -euo pipefail

DIR=${POLYSI_CLUSTER_DIR:-${TMPDIR:-/tmp}/polysi-cluster-pg-standby-$(id -u)}
PRIMARY_PORT=${POLYSI_PG_PRIMARY_PORT:-25441}
STANDBY_PORT=${POLYSI_PG_STANDBY_PORT:-25442}
PG_BIN=${PG_BIN:-$(dirname "$(compgen -G '/usr/lib/postgresql/*/bin/initdb' | sort -V | tail -n 1)")}
MARKER=.polysi-cluster-pg-standby
DB_USER=polysi
DB_PASSWORD=polysi-test-pw
DB_NAME=polysi

log() { echo "pg-standby: $*" >&2; }
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
pg_user() { if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pid_of() { head -n 1 "$DIR/$1/postmaster.pid" 2>/dev/null || true; }

stop_server() {
  local name=$1 pid
  pid=$(pid_of "$name")
  [ -n "$pid" ] || return 0
  log "stopping $name (pid $pid)"
  kill -CONT -- "-$pid" 2>/dev/null || true   # a paused server cannot act on the stop
  as_pg "$PG_BIN/pg_ctl" -D "$DIR/$name" -m immediate -w -t 20 stop >/dev/null 2>&1 || true
  kill -9 -- "-$pid" 2>/dev/null || true
}

stop_servers() { stop_server standby; stop_server primary; }
stop_all() { cluster_remove stop_servers; }

# DIR/NAME/start.sh: starts the server on PORT and waits until it accepts connections.
write_start() {
  local name=$1 port=$2 runner=""
  [ "$(id -u)" = 0 ] && runner="runuser -u postgres -- "
  cat >"$DIR/$name.start.sh" <<SH
#!/bin/sh
# Starts the PostgreSQL $name of $DIR (made by scripts/cluster/pg-standby.sh) and waits for it.
# Just after a kill -9 the old postmaster may not be reaped yet, and the new one refuses its
# postmaster.pid: so a few tries, a second apart.
for try in 1 2 3 4 5; do
  ${runner}$PG_BIN/pg_ctl -D $DIR/$name -l $DIR/$name.log -w -t 60 \\
    -o "-p $port -k $DIR/$name -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c deadlock_timeout=50ms" \\
    start >/dev/null 2>&1 && exit 0
  sleep 1
done
echo "pg-standby: $name did not start (see $DIR/$name.log)" >&2
exit 1
SH
  chmod 755 "$DIR/$name.start.sh"
}

start_server() {
  "$DIR/$1.start.sh" || { tail -n 40 "$DIR/$1.log" >&2; exit 1; }
}

# One node object of the cluster file: the signals go to the postmaster's process group.
pg_node_json() {
  node_json "$2" "postgres://$DB_USER:$DB_PASSWORD@127.0.0.1:$3/$DB_NAME" "-\$(head -n 1 $DIR/$1/postmaster.pid)" "$DIR/$1.start.sh"
  echo
}

case "${1:-}" in
  start)
    [ -x "$PG_BIN/initdb" ] || { log "no PostgreSQL at $PG_BIN (set PG_BIN)"; exit 1; }
    began=$(date +%s.%N)
    cluster_fresh_dir stop_servers
    mkdir -p "$DIR/primary"
    chmod 755 "$DIR"
    chown "$(pg_user)" "$DIR" "$DIR/primary"
    printf '%s\n' "$DB_PASSWORD" >"$DIR/pw"
    chown "$(pg_user)" "$DIR/pw"
    # Password over TCP, trust on the socket (pg_basebackup below replicates over the socket).
    as_pg "$PG_BIN/initdb" -D "$DIR/primary" -U postgres --auth-local=trust \
      --auth-host=scram-sha-256 --pwfile="$DIR/pw" >"$DIR/initdb.log" 2>&1 \
      || { cat "$DIR/initdb.log" >&2; exit 1; }
    write_start primary "$PRIMARY_PORT"
    write_start standby "$STANDBY_PORT"
    chown "$(pg_user)" "$DIR"/*.start.sh
    # wal_level=replica and hot_standby=on are PostgreSQL 15's defaults; said again in case.
    printf 'wal_level = replica\nhot_standby = on\n' >>"$DIR/primary/postgresql.conf"
    start_server primary
    as_pg "$PG_BIN/psql" -h "$DIR/primary" -p "$PRIMARY_PORT" -U postgres -d postgres -qAt \
      -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE USER $DB_USER PASSWORD '$DB_PASSWORD';
CREATE DATABASE $DB_NAME OWNER $DB_USER;
GRANT pg_signal_backend TO $DB_USER;
SQL
    log "primary ready on 127.0.0.1:$PRIMARY_PORT"
    # -R writes standby.signal and primary_conninfo; -X stream copies the WAL it needs.
    as_pg "$PG_BIN/pg_basebackup" -h "$DIR/primary" -p "$PRIMARY_PORT" -U postgres \
      -D "$DIR/standby" -R -X stream -c fast >"$DIR/basebackup.log" 2>&1 \
      || { cat "$DIR/basebackup.log" >&2; exit 1; }
    start_server standby
    # The standby serves reads once it has replayed to a consistent point: wait for our database.
    for _ in $(seq 1 300); do
      as_pg "$PG_BIN/psql" -h "$DIR/standby" -p "$STANDBY_PORT" -U postgres -d "$DB_NAME" -qAt \
        -c 'SELECT pg_is_in_recovery()' 2>/dev/null | grep -q t && break
      sleep 0.1
    done
    as_pg "$PG_BIN/psql" -h "$DIR/standby" -p "$STANDBY_PORT" -U postgres -d "$DB_NAME" -qAt \
      -c 'SELECT pg_is_in_recovery()' 2>/dev/null | grep -q t \
      || { log "the standby did not come up in recovery"; tail -n 40 "$DIR/standby.log" >&2; exit 1; }
    log "standby streaming on 127.0.0.1:$STANDBY_PORT"
    {
      echo '{'
      echo '  "name": "pg-standby",'
      echo '  "nodes": ['
      pg_node_json primary primary "$PRIMARY_PORT"
      echo '  ],'
      echo '  "replicas": ['
      pg_node_json standby standby "$STANDBY_PORT"
      echo '  ]'
      echo '}'
    } >"$DIR/cluster.json"
    log "primary and standby up in $(seconds_since "$began") s; cluster file $DIR/cluster.json"
    echo "export POLYSI_PG_STANDBY_CLUSTER=$DIR/cluster.json"
    ;;
  stop)
    stop_all
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
