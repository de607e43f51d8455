#!/usr/bin/env bash
# Starts or stops a 3-node MariaDB Galera cluster on loopback, for the distributed tests
# (issue 24) and for trying `polysi run` against a real multi-master database. No systemd:
# each node is a `mariadbd --defaults-file=DIR/nI/my.cnf` run from a private directory on
# private ports, listening on 127.0.0.1 only; `stop` stops them by PID and deletes the directory.
#
#   eval "$(scripts/cluster/galera.sh start)"   # prints `export POLYSI_GALERA_CLUSTER=DIR/cluster.json`
#   scripts/cluster/galera.sh stop
#
# DIR/cluster.json is the cluster file of docs/distributed.md (schema/cluster.schema.json):
# each node's URL and the shell commands that kill (kill -9 PID), start (DIR/nI/start.sh: the
# command that started it, without --wsrep-new-cluster, so a restarted node rejoins), pause
# (kill -STOP) and resume (kill -CONT) it.
#
# Environment (node I = 1, 2, 3 uses BASE+I):
#   POLYSI_CLUSTER_DIR       default ${TMPDIR:-/tmp}/polysi-cluster-galera-$UID
#   POLYSI_GALERA_PORT       SQL ports BASE+I, default base 24000 (24001-24003)
#   POLYSI_GALERA_GCOMM_PORT group communication, default base 24010
#   POLYSI_GALERA_IST_PORT   incremental state transfer, default base 24020
#   POLYSI_GALERA_SST_PORT   rsync state snapshot transfer, default base 24030
# Needs Debian's mariadb-server, galera-4 and rsync. Run as root, the nodes run as `mysql`.
# The servers are tuned for tests, not durability. Everything except the export line goes to
# stderr. Start takes about 10-15 s here (docs/distributed.md has the measured figure).
set -euo pipefail

DIR=${POLYSI_CLUSTER_DIR:-${TMPDIR:-/tmp}/polysi-cluster-galera-$(id -u)}
SQL_BASE=${POLYSI_GALERA_PORT:-24000}
GCOMM_BASE=${POLYSI_GALERA_GCOMM_PORT:-24010}
IST_BASE=${POLYSI_GALERA_IST_PORT:-24020}
SST_BASE=${POLYSI_GALERA_SST_PORT:-24030}
PROVIDER=${GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}
NODES=(1 2 3)
MARKER=.polysi-cluster-galera
DB_USER=polysi
DB_PASSWORD=polysi-test-pw
DB_NAME=polysi

log() { echo "galera: $*" >&2; }
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
my_user() { if [ "$(id -u)" = 0 ]; then echo mysql; else id -un; fi; }
sock() { echo "$DIR/n$1/mysqld.sock"; }
admin() { local i=$1; shift; mariadb --no-defaults --socket="$(sock "$i")" -uroot "$@"; }

# The node's wsrep_local_state_comment ('Synced' when it serves), or nothing when it is down.
node_state() {
  admin "$1" -N -B -e "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | cut -f2
}

stop_node() { stop_pid "n$1" "$DIR/n$1/mysqld.pid" 10; }
# The later nodes first, so that the first one is the last to leave (a clean shutdown).
stop_nodes() { local i; for i in 3 2 1; do stop_node "$i"; done; }
stop_all() { cluster_remove stop_nodes; }

write_node() {
  local i=$1 d=$DIR/n$1 cluster="" j
  for j in "${NODES[@]}"; do cluster+="${cluster:+,}127.0.0.1:$((GCOMM_BASE + j))"; done
  mkdir -p "$d/data"
  cat >"$d/my.cnf" <<CNF
[mariadbd]
datadir=$d/data
socket=$d/mysqld.sock
pid-file=$d/mysqld.pid
log-error=$d/server.log
port=$((SQL_BASE + i))
bind-address=127.0.0.1
max-connections=200
skip-name-resolve
innodb-buffer-pool-size=64M
innodb-log-file-size=16M
innodb-flush-log-at-trx-commit=0
innodb-doublewrite=0
innodb-autoinc-lock-mode=2
binlog-format=ROW
default-storage-engine=InnoDB
wsrep-on=ON
wsrep-provider=$PROVIDER
wsrep-cluster-name=polysi-galera
wsrep-cluster-address=gcomm://$cluster
wsrep-node-name=n$i
wsrep-node-address=127.0.0.1:$((GCOMM_BASE + i))
wsrep-sst-method=rsync
wsrep-sst-receive-address=127.0.0.1:$((SST_BASE + i))
wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:$((GCOMM_BASE + i));ist.recv_addr=127.0.0.1:$((IST_BASE + i));gcache.size=32M
CNF
  # start.sh: starts the node (rejoining the running cluster) and waits until it is Synced.
  # The bootstrap of the first node passes --wsrep-new-cluster to it once, at `start`.
  cat >"$d/start.sh" <<SH
#!/bin/sh
# Starts Galera node n$i of $DIR (made by scripts/cluster/galera.sh) and waits until it serves.
set -e
# As root, mariadbd drops to the mysql user itself: no runuser parent, which a pause fault
# (kill -STOP of the server) would leave stopped behind it.
mariadbd --defaults-file=$d/my.cnf$( [ "$(id -u)" = 0 ] && echo " --user=$(my_user)" ) "\$@" >/dev/null 2>&1 </dev/null &
i=0
while [ \$i -lt 600 ]; do
  s=\$(mariadb --no-defaults --socket=$d/mysqld.sock -uroot -N -B -e "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | cut -f2)
  [ "\$s" = Synced ] && exit 0
  i=\$((i + 1)); sleep 0.1
done
echo "galera: n$i did not reach Synced in 60 s (see $d/server.log)" >&2
exit 1
SH
  chmod 755 "$d/start.sh"
  chown -R "$(my_user)" "$d"
}

init_node() {
  local i=$1 d=$DIR/n$1
  # Every node gets its own system tables; SST (rsync) replaces a joiner's data with the donor's.
  mariadb-install-db --user="$(my_user)" --datadir="$d/data" --skip-test-db \
    --auth-root-authentication-method=socket >"$d/install.log" 2>&1 \
    || { cat "$d/install.log" >&2; exit 1; }
}

start_node() {
  local i=$1
  shift
  "$DIR/n$i/start.sh" "$@" || { tail -n 40 "$DIR/n$i/server.log" >&2; exit 1; }
  log "n$i Synced on 127.0.0.1:$((SQL_BASE + i))"
}

node_url() { echo "mysql://$DB_USER:$DB_PASSWORD@127.0.0.1:$((SQL_BASE + $1))/$DB_NAME"; }

case "${1:-}" in
  start)
    command -v mariadbd >/dev/null || { log "no mariadbd (apt-get install -y --no-install-recommends mariadb-server galera-4 rsync)"; exit 1; }
    [ -f "$PROVIDER" ] || { log "no Galera provider at $PROVIDER (apt-get install -y --no-install-recommends galera-4 rsync)"; exit 1; }
    command -v rsync >/dev/null || { log "no rsync (the state transfer needs it: apt-get install -y rsync)"; exit 1; }
    began=$(date +%s.%N)
    cluster_fresh_dir stop_nodes
    chmod 755 "$DIR"
    for i in "${NODES[@]}"; do write_node "$i"; done
    # A joiner whose data is at the group's position needs no state transfer, and an rsync SST
    # takes 15 s or more on a busy machine: so n1 is made once (system tables, the test user,
    # cleanly shut down so grastate.dat holds its position) and copied to n2 and n3 while all
    # are down; then n1 bootstraps the cluster and the others join at once, in parallel.
    init_node 1
    start_node 1 --wsrep-new-cluster
    admin 1 <<SQL
CREATE DATABASE $DB_NAME;
CREATE USER '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL ON $DB_NAME.* TO '$DB_USER'@'127.0.0.1';
GRANT CONNECTION ADMIN, PROCESS ON *.* TO '$DB_USER'@'127.0.0.1';
SQL
    stop_node 1
    grep -q '^seqno: *[0-9]' "$DIR/n1/data/grastate.dat" \
      || { log "n1 did not record its position on shutdown"; cat "$DIR/n1/data/grastate.dat" >&2; exit 1; }
    for i in 2 3; do
      cp -a "$DIR/n1/data/." "$DIR/n$i/data/"
      rm -f "$DIR/n$i/data/gvwstate.dat"
      # Only n1 may bootstrap: a copy that says it may would let a restarted node found its own cluster.
      sed -i 's/^safe_to_bootstrap: *1/safe_to_bootstrap: 0/' "$DIR/n$i/data/grastate.dat"
    done
    start_node 1 --wsrep-new-cluster
    start_node 2 & j2=$!
    start_node 3 & j3=$!
    wait "$j2" && wait "$j3" || { log "a joiner failed to start"; exit 1; }
    size=$(admin 1 -N -B -e "SHOW STATUS LIKE 'wsrep_cluster_size'" | cut -f2)
    [ "$size" = 3 ] || { log "cluster size is $size, expected 3"; exit 1; }
    write_nodes_file galera mysqld.pid node_url
    log "3 nodes Synced in $(seconds_since "$began") s; cluster file $DIR/cluster.json"
    echo "export POLYSI_GALERA_CLUSTER=$DIR/cluster.json"
    ;;
  stop)
    stop_all
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
