#!/usr/bin/env bash
# Replication benchmark: slotkv master + replica beside redis-server master + replica, all
# started by this script in the same run. Also run as `scripts/bench.sh --replication ...`.
#
#   scripts/bench-replication.sh [--requests R] [--clients C] [--rounds K] [--sync-keys N]
#
# Defaults: 200000 requests, 50 clients, 3 rounds, 10000000 keys for the full sync.
#   1. SET throughput (redis-benchmark -t set -r 100000 -d 200) of each master alone (its
#      replica detached with REPLICAOF NO ONE) and with its replica linked, alternating, K
#      rounds; medians. Both masters: appendfsync everysec (redis: appendonly yes), 2 slotkv
#      workers per node. While the with-replica runs load the masters, scripts/repl-lag-probe.py
#      measures the delay until a write shows on the replica (p99 over the rounds).
#   2. Full sync, slotkv then redis-server: N keys of 200 pseudo-random bytes
#      (scripts/gen-scale-load.py | redis-cli --pipe) loaded into a fresh master (slotkv nodes
#      sized for them: --key-estimate N), then REPLICAOF on a fresh replica; the time
#      from REPLICAOF until master_link_status:up, and keys/s and MB/s of values (N * 200 bytes
#      / that time). scripts/ping-probe.py PINGs the master meanwhile: p99 and max.
#
# Prints a table, then
#   RESULT set_with_replica_ratio=A vs_redis_ratio=B full_sync_mb_s=C redis_full_sync_mb_s=R
#          lag_p99_ms=D ping_p99_during_sync_ms=E
# A = slotkv SET rps with its replica / without; B = slotkv with replica / redis with replica.
# Targets (issue 21): A >= 0.8, B >= 0.8, C >= 100.
set -euo pipefail
cd "$(dirname "$0")/.."

requests=200000 clients=50 rounds=3 sync_keys=10000000
while [ $# -gt 0 ]; do
  case $1 in
    --replication) shift; continue ;;
    --requests) requests=$2 ;;
    --clients) clients=$2 ;;
    --rounds) rounds=$2 ;;
    --sync-keys) sync_keys=$2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done

. scripts/lib.sh
build_release slotkv-server

bench_workdir repl
step() { echo "[${SECONDS}s] $*" >&2; }

# start_node <name> <kind: slotkv|redis> [slotkv options...]: sets node_port; the pid joins
# pids (so not in a subshell: cleanup must see it).
start_node() {
  local port
  port=$(free_port)
  mkdir -p "$work/$1"
  if [ "$2" = redis ]; then
    redis-server --port "$port" --dir "$work/$1" --save '' --appendonly yes \
      --appendfsync everysec --repl-diskless-sync-delay 0 --bind 127.0.0.1 \
      >"$work/$1.log" 2>&1 &
  else
    build/release/net/slotkv-server --port "$port" --dir "$work/$1" --workers 2 \
      --http-port 0 --bind 127.0.0.1 "${@:3}" >"$work/$1.log" 2>&1 &
  fi
  pids+=($!)
  wait_ready "$port" || { cat "$work/$1.log" >&2; exit 1; }
  node_port=$port
}
# link <replica port> <master port>: REPLICAOF, then waits (120 s at most) for the link.
link() {
  redis-cli -p "$1" replicaof 127.0.0.1 "$2" >/dev/null
  for _ in $(seq 1200); do
    [ "$(info "$1" replication master_link_status)" = up ] && return 0
    sleep 0.1
  done
  echo "replica $1 never linked to $2" >&2
  exit 1
}
set_rps() {
  redis-benchmark -p "$1" -t set -n "$requests" -c "$clients" -r 100000 -d 200 --csv -q \
    2>/dev/null | awk -F'","' 'NR > 1 {v = $2} END {print v}'
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

declare -A alone with
for kind in slotkv redis; do
  start_node "$kind-master" "$kind"
  m=$node_port
  start_node "$kind-replica" "$kind"
  r=$node_port
  alone[$kind]='' with[$kind]=''
  for round in $(seq "$rounds"); do
    redis-cli -p "$r" replicaof no one >/dev/null
    sleep 0.5
    step "$kind round $round: SET without a replica"
    alone[$kind]+=" $(set_rps "$m")"
    link "$r" "$m"
    step "$kind round $round: SET with its replica"
    if [ "$kind" = slotkv ]; then
      python3 scripts/repl-lag-probe.py --master "$m" --replica "$r" >"$work/lag.$round" &
      probe=$!
    fi
    with[$kind]+=" $(set_rps "$m")"
    if [ "$kind" = slotkv ]; then
      kill -TERM "$probe"
      wait "$probe" || true
    fi
  done
done
lag_p99=$(for f in "$work"/lag.*; do awk '{print $3}' "$f"; done | median)

# full_sync <kind>: loads sync_keys keys into a fresh master of kind, links a fresh replica of
# the same kind to it while scripts/ping-probe.py PINGs the master, and sets sync_s[kind],
# ping_p99[kind] and ping_max[kind]; both nodes are stopped afterwards.
declare -A sync_s ping_p99 ping_max
full_sync() {
  step "$1: full sync of $sync_keys keys"
  local opts=() m r probe start end
  [ "$1" = slotkv ] && opts=(--key-estimate "$sync_keys")
  start_node "$1-sync-master" "$1" "${opts[@]}"
  m=$node_port
  start_node "$1-sync-replica" "$1" "${opts[@]}"
  r=$node_port
  local nodes=("${pids[@]: -2}")
  python3 scripts/gen-scale-load.py --keys "$sync_keys" | redis-cli -p "$m" --pipe >/dev/null
  python3 scripts/ping-probe.py --port "$m" >"$work/ping.$1" &
  probe=$!
  start=$(date +%s.%N)
  link "$r" "$m"
  end=$(date +%s.%N)
  kill -TERM "$probe"
  wait "$probe" || true
  if [ "$(redis-cli -p "$r" dbsize)" != "$sync_keys" ]; then
    echo "$1 replica DBSIZE differs" >&2
    exit 1
  fi
  sync_s[$1]=$(calc '%.2f' "$end - $start")
  read -r _ _ "ping_p99[$1]" "ping_max[$1]" <"$work/ping.$1"
  # SIGKILL: a redis replica refuses SIGTERM while it writes its first AOF after a sync.
  kill -9 "${nodes[@]}"
  wait "${nodes[@]}" 2>/dev/null || true
}
full_sync slotkv
full_sync redis
mb_s() { calc '%.1f' "$sync_keys * 200 / 1e6 / ${sync_s[$1]}"; }
sync_mb_s=$(mb_s slotkv)

s_alone=$(median <<<"${alone[slotkv]}") s_with=$(median <<<"${with[slotkv]}")
r_alone=$(median <<<"${alone[redis]}") r_with=$(median <<<"${with[redis]}")
printf '| SET rps (median of %s) | alone | with its replica | with/alone |\n|---|---|---|---|\n' \
  "$rounds"
printf '| slotkv | %s | %s | %s |\n' "$s_alone" "$s_with" "$(calc '%.2f' "$s_with / $s_alone")"
printf '| redis-server | %s | %s | %s |\n' "$r_alone" "$r_with" "$(calc '%.2f' "$r_with / $r_alone")"
echo "slotkv runs alone:${alone[slotkv]} with:${with[slotkv]}; redis alone:${alone[redis]} with:${with[redis]}"
echo "replica lag (write on master -> visible on replica) p99 per round: $(cat "$work"/lag.* | awk '{printf "%s ", $3}')ms"
for kind in slotkv redis; do
  keys_s=$(calc '%.0f' "$sync_keys / ${sync_s[$kind]}")
  echo "$kind full sync: $sync_keys keys in ${sync_s[$kind]}s = $keys_s keys/s," \
    "$(mb_s "$kind") MB/s of values; master PING during it p99 ${ping_p99[$kind]} ms," \
    "max ${ping_max[$kind]} ms"
done
echo "RESULT set_with_replica_ratio=$(calc '%.2f' "$s_with / $s_alone")" \
  "vs_redis_ratio=$(calc '%.2f' "$s_with / $r_with") full_sync_mb_s=$sync_mb_s" \
  "redis_full_sync_mb_s=$(mb_s redis) lag_p99_ms=$lag_p99" \
  "ping_p99_during_sync_ms=${ping_p99[slotkv]}"
