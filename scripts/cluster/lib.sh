# What the cluster scripts (galera.sh, etcd.sh, pg-standby.sh) share, sourced by each: their
# private directory and its marker, stopping a server by its PID, and the cluster file's JSON.
# Not run on its own. The sourcing script sets DIR (its directory), MARKER (the file that says
# it made DIR) and log() (a message to stderr with its name) before calling any of these.

# Removes DIR after running "$@" (which stops every server living in it), only if this script
# made DIR (its MARKER is there): DIR comes from the environment and could name anything.
cluster_remove() {
  [ -e "$DIR" ] || return 0
  if [ ! -f "$DIR/$MARKER" ]; then
    log "$DIR exists but was not made by this script: not touching it"; exit 1
  fi
  "$@"
  rm -rf "$DIR"
}

# A new, marked DIR, after removing the last one with "$@" as in cluster_remove: a run that
# died leaves its servers and files behind, and `start` starts afresh.
cluster_fresh_dir() {
  cluster_remove "$@"
  mkdir -p "$DIR"
  touch "$DIR/$MARKER"
}

# stop_pid NAME PIDFILE SECONDS: ends the process whose PID the file holds (none: nothing to
# do). SIGCONT first (a paused process cannot act on SIGTERM), SIGTERM, up to SECONDS for it to
# exit cleanly, then SIGKILL.
stop_pid() {
  local name=$1 pidfile=$2 pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  [ -n "$pid" ] || return 0
  log "stopping $name (pid $pid)"
  kill -CONT "$pid" 2>/dev/null || true
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 $(($3 * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

# JSON string of a shell command (only quotes and backslashes need escaping in these).
json_str() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }

# node_json NAME URL TARGET START: one node object of a cluster file (docs/distributed.md).
# TARGET is what kill, pause and resume signal, as shell text evaluated when the command runs
# (`$(cat DIR/n1/etcd.pid)`: a restarted server has a new PID); START is its start command.
node_json() {
  printf '    {"name": "%s", "url": "%s",\n' "$1" "$2"
  printf '     "kill": %s, "start": %s,\n' "$(json_str "kill -9 $3")" "$(json_str "$4")"
  printf '     "pause": %s, "resume": %s}' "$(json_str "kill -STOP $3")" "$(json_str "kill -CONT $3")"
}

# write_nodes_file NAME PIDFILE URL_FN: DIR/cluster.json of cluster NAME with the nodes n1..n3
# of NODES, node I at the URL `URL_FN I`, started by DIR/nI/start.sh, its PID in DIR/nI/PIDFILE.
write_nodes_file() {
  local i sep=""
  {
    echo '{'
    echo "  \"name\": \"$1\","
    echo '  "nodes": ['
    for i in "${NODES[@]}"; do
      printf '%s' "$sep"
      node_json "n$i" "$("$3" "$i")" "\$(cat $DIR/n$i/$2)" "$DIR/n$i/start.sh"
      sep=$',\n'
    done
    echo
    echo '  ]'
    echo '}'
  } >"$DIR/cluster.json"
}

# Seconds since BEGAN (a `date +%s.%N`), to one decimal.
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
