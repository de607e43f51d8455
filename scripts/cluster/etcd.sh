#!/usr/bin/env bash
# Starts or stops a 3-member etcd cluster on loopback, for the distributed tests (issue 24) and
# for `polysi run --db etcd://...`. No systemd: each member runs from a private directory on
# private ports, listening on 127.0.0.1 only; `stop` stops them by PID and deletes the directory.
#
#   eval "$(scripts/cluster/etcd.sh start)"   # prints `export POLYSI_ETCD_CLUSTER=DIR/cluster.json`
#   scripts/cluster/etcd.sh stop
#
# DIR/cluster.json is the cluster file of docs/distributed.md (schema/cluster.schema.json): each
# member's URL (etcd://127.0.0.1:PORT) and the commands that kill (kill -9 PID), start
# (DIR/nI/start.sh: the same command that started it; a member with data rejoins), pause
# (kill -STOP) and resume (kill -CONT) it.
#
# Environment (member I = 1, 2, 3 uses BASE+I): POLYSI_CLUSTER_DIR (default
# ${TMPDIR:-/tmp}/polysi-cluster-etcd-$UID), POLYSI_ETCD_CLIENT_PORT (client ports, default
# base 22370), POLYSI_ETCD_PEER_PORT (peer ports, default base 22380). Needs Debian's
# etcd-server (3.4). Everything except the export line goes to stderr.
# The default ports are below 32768, out of Linux's ephemeral range (32768-60999): there any
# outgoing connection (a test's database client) can hold the port, and a member then fails to bind.
set -euo pipefail

DIR=${POLYSI_CLUSTER_DIR:-${TMPDIR:-/tmp}/polysi-cluster-etcd-$(id -u)}
CLIENT_BASE=${POLYSI_ETCD_CLIENT_PORT:-22370}
PEER_BASE=${POLYSI_ETCD_PEER_PORT:-22380}
ETCD=${ETCD_BIN:-$(command -v etcd || true)}
ETCDCTL=${ETCDCTL_BIN:-$(command -v etcdctl || true)}
NODES=(1 2 3)
MARKER=.polysi-cluster-etcd

log() { echo "etcd: $*" >&2; }
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stop_members() { local i; for i in "${NODES[@]}"; do stop_pid "n$i" "$DIR/n$i/etcd.pid" 5; done; }
stop_all() { cluster_remove stop_members; }

# DIR/nI/start.sh: starts member I in the background, records its PID, waits until it is healthy
# (which needs a quorum: at `start` the three are started before any is waited for).
write_node() {
  local i=$1 d=$DIR/n$1 initial="" j
  for j in "${NODES[@]}"; do initial+="${initial:+,}n$j=http://127.0.0.1:$((PEER_BASE + j))"; done
  mkdir -p "$d"
  cat >"$d/start.sh" <<SH
#!/bin/sh
# Starts etcd member n$i of $DIR (made by scripts/cluster/etcd.sh); with --no-wait, returns at once.
$ETCD --name n$i --data-dir $d/data \\
  --listen-client-urls http://127.0.0.1:$((CLIENT_BASE + i)) --advertise-client-urls http://127.0.0.1:$((CLIENT_BASE + i)) \\
  --listen-peer-urls http://127.0.0.1:$((PEER_BASE + i)) --initial-advertise-peer-urls http://127.0.0.1:$((PEER_BASE + i)) \\
  --initial-cluster $initial --initial-cluster-token polysi-etcd --initial-cluster-state new \\
  >>$d/etcd.log 2>&1 </dev/null &
echo \$! >$d/etcd.pid
[ "\${1:-}" = --no-wait ] && exit 0
i=0
while [ \$i -lt 600 ]; do
  ETCDCTL_API=3 $ETCDCTL --endpoints=http://127.0.0.1:$((CLIENT_BASE + i)) --command-timeout=1s endpoint health >/dev/null 2>&1 && exit 0
  i=\$((i + 1)); sleep 0.1
done
echo "etcd: n$i is not healthy after 60 s (see $d/etcd.log)" >&2
exit 1
SH
  chmod 755 "$d/start.sh"
}

member_url() { echo "etcd://127.0.0.1:$((CLIENT_BASE + $1))"; }

case "${1:-}" in
  start)
    [ -n "$ETCD" ] && [ -n "$ETCDCTL" ] || { log "no etcd/etcdctl (apt-get install -y --no-install-recommends etcd-server etcd-client)"; exit 1; }
    began=$(date +%s.%N)
    cluster_fresh_dir stop_members
    for i in "${NODES[@]}"; do write_node "$i"; done
    for i in "${NODES[@]}"; do "$DIR/n$i/start.sh" --no-wait; done
    endpoints=""
    for i in "${NODES[@]}"; do endpoints+="${endpoints:+,}http://127.0.0.1:$((CLIENT_BASE + i))"; done
    for _ in $(seq 1 600); do
      ETCDCTL_API=3 "$ETCDCTL" --endpoints="$endpoints" --command-timeout=1s endpoint health >/dev/null 2>&1 && break
      # A member that exited (a port in use, a bad flag) will not come back: say so now, not in 60 s.
      for i in "${NODES[@]}"; do
        kill -0 "$(cat "$DIR/n$i/etcd.pid")" 2>/dev/null && continue
        log "n$i exited (client port $((CLIENT_BASE + i)), peer port $((PEER_BASE + i))); its log:"
        tail -n 20 "$DIR/n$i/etcd.log" >&2
        stop_all
        exit 1
      done
      sleep 0.1
    done
    ETCDCTL_API=3 "$ETCDCTL" --endpoints="$endpoints" --command-timeout=2s endpoint health >&2 \
      || { log "the members are not all healthy"; for i in "${NODES[@]}"; do tail -n 20 "$DIR/n$i/etcd.log" >&2; done; exit 1; }
    write_nodes_file etcd etcd.pid member_url
    log "3 members healthy in $(seconds_since "$began") s; cluster file $DIR/cluster.json"
    echo "export POLYSI_ETCD_CLUSTER=$DIR/cluster.json"
    ;;
  stop)
    stop_all
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
