#!/usr/bin/env bash
# Starts or stops the throw-away PostgreSQL 15 and MariaDB servers that the database tests
# (test/db/) and `npm run bench:db` run against. No systemd: each server runs from a private
# directory on a private port, listening on 127.0.0.1 only, and everything it wrote is deleted
# on `stop`.
#
#   eval "$(scripts/test-databases.sh start)"   # prints `export POLYSI_PG_URL=... POLYSI_MYSQL_URL=...`
#   scripts/test-databases.sh stop              # stops both servers and removes their directory
#
# Environment: POLYSI_DB_DIR (default ${TMPDIR:-/tmp}/polysi-test-databases-$UID),
# POLYSI_PG_PORT (default 25432), POLYSI_MYSQL_PORT (default 23306), PG_BIN (default
# /usr/lib/postgresql/15/bin). Run as root (CI, these machines), the servers run as the
# `postgres` and `mysql` system users; run as anyone else, as that user.
#
# The servers are tuned for tests, not for durability (fsync off, no binary log): the data
# lives for one test run. Everything except the two export lines goes to stderr.
set -euo pipefail

DIR=${POLYSI_DB_DIR:-${TMPDIR:-/tmp}/polysi-test-databases-$(id -u)}
PG_PORT=${POLYSI_PG_PORT:-25432}
MY_PORT=${POLYSI_MYSQL_PORT:-23306}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
# The test user's password: deliberately not empty, so that the tests can check it never
# appears in a message, and that a wrong one is refused.
DB_USER=polysi
DB_PASSWORD=polysi-test-pw
DB_NAME=polysi

log() { echo "test-databases: $*" >&2; }

# Runs a command as the given system user when we are root (initdb and mariadbd refuse root).
as_user() {
  local user=$1; shift
  if [ "$(id -u)" = 0 ]; then runuser -u "$user" -- "$@"; else "$@"; fi
}

pg_user() { if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi; }
my_user() { if [ "$(id -u)" = 0 ]; then echo mysql; else id -un; fi; }

stop_pg() {
  if [ -f "$DIR/pg/postmaster.pid" ]; then
    log "stopping PostgreSQL ($DIR/pg)"
    as_user "$(pg_user)" "$PG_BIN/pg_ctl" -D "$DIR/pg" -m immediate -w stop >/dev/null 2>&1 || true
  fi
}

stop_mysql() {
  if [ -f "$DIR/mysql/mysqld.pid" ]; then
    local pid
    pid=$(cat "$DIR/mysql/mysqld.pid")
    log "stopping MariaDB (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
}

stop_all() {
  [ -e "$DIR" ] || return 0
  # Only ever delete a directory this script made (POLYSI_DB_DIR could name anything).
  if [ ! -f "$DIR/.polysi-test-databases" ]; then
    log "$DIR exists but was not made by this script: not touching it"; exit 1
  fi
  stop_pg
  stop_mysql
  rm -rf "$DIR"
}

start_pg() {
  [ -x "$PG_BIN/initdb" ] || { log "no PostgreSQL at $PG_BIN (set PG_BIN)"; exit 1; }
  mkdir -p "$DIR/pg"
  chown "$(pg_user)" "$DIR/pg"
  printf '%s\n' "$DB_PASSWORD" >"$DIR/pg.pw"
  chown "$(pg_user)" "$DIR/pg.pw"
  # Password authentication over TCP (so a wrong password is refused), trust on the socket.
  as_user "$(pg_user)" "$PG_BIN/initdb" -D "$DIR/pg" -U postgres --auth-local=trust \
    --auth-host=scram-sha-256 --pwfile="$DIR/pg.pw" >"$DIR/pg-initdb.log" 2>&1 \
    || { cat "$DIR/pg-initdb.log" >&2; exit 1; }
  as_user "$(pg_user)" "$PG_BIN/pg_ctl" -D "$DIR/pg" -l "$DIR/pg/server.log" -w -t 60 \
    -o "-p $PG_PORT -k $DIR/pg -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c deadlock_timeout=50ms" \
    start >/dev/null || { cat "$DIR/pg/server.log" >&2; exit 1; }
  as_user "$(pg_user)" "$PG_BIN/psql" -h "$DIR/pg" -p "$PG_PORT" -U postgres -d postgres -qAt \
    -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE USER $DB_USER PASSWORD '$DB_PASSWORD';
CREATE DATABASE $DB_NAME OWNER $DB_USER;
-- pg_terminate_backend of another session's backend (the "connection killed" test).
GRANT pg_signal_backend TO $DB_USER;
SQL
  log "PostgreSQL ready on 127.0.0.1:$PG_PORT"
}

start_mysql() {
  command -v mariadbd >/dev/null || { log "no mariadbd (apt-get install -y --no-install-recommends mariadb-server)"; exit 1; }
  mkdir -p "$DIR/mysql"
  chown "$(my_user)" "$DIR/mysql"
  mariadb-install-db --user="$(my_user)" --datadir="$DIR/mysql" --skip-test-db \
    --auth-root-authentication-method=socket >"$DIR/mysql-install.log" 2>&1 \
    || { cat "$DIR/mysql-install.log" >&2; exit 1; }
  # --no-defaults: nothing from /etc/mysql (Debian's config points at the system datadir).
  as_user "$(my_user)" mariadbd --no-defaults --datadir="$DIR/mysql" --socket="$DIR/mysql/mysqld.sock" \
    --port="$MY_PORT" --bind-address=127.0.0.1 --pid-file="$DIR/mysql/mysqld.pid" \
    --log-error="$DIR/mysql/server.log" --skip-log-bin --innodb-flush-log-at-trx-commit=0 \
    --innodb-doublewrite=0 --max-connections=200 >/dev/null 2>&1 &
  for _ in $(seq 1 300); do
    mariadb-admin --no-defaults --socket="$DIR/mysql/mysqld.sock" -uroot ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  mariadb-admin --no-defaults --socket="$DIR/mysql/mysqld.sock" -uroot ping >/dev/null 2>&1 \
    || { log "MariaDB did not start"; cat "$DIR/mysql/server.log" >&2; exit 1; }
  mariadb --no-defaults --socket="$DIR/mysql/mysqld.sock" -uroot <<SQL
CREATE DATABASE $DB_NAME;
CREATE USER '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL ON $DB_NAME.* TO '$DB_USER'@'127.0.0.1';
-- KILL of another session's connection and the processlist (the "connection killed" test).
GRANT CONNECTION ADMIN, PROCESS ON *.* TO '$DB_USER'@'127.0.0.1';
SQL
  log "MariaDB ready on 127.0.0.1:$MY_PORT"
}

case "${1:-}" in
  start)
    stop_all   # a previous run that died leaves its servers and files: start afresh
    mkdir -p "$DIR"
    touch "$DIR/.polysi-test-databases"
    chmod 755 "$DIR"
    start_pg
    start_mysql
    echo "export POLYSI_DB_DIR=$DIR"
    echo "export POLYSI_PG_URL=postgres://$DB_USER:$DB_PASSWORD@127.0.0.1:$PG_PORT/$DB_NAME"
    echo "export POLYSI_MYSQL_URL=mysql://$DB_USER:$DB_PASSWORD@127.0.0.1:$MY_PORT/$DB_NAME"
    ;;
  stop)
    stop_all
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
