#!/usr/bin/env bash
# Stream writes against large consumer-group PELs: per-op latency (median of single round
# trips) of XACK, XADD, XCLAIM and XPENDING on a stream whose group has P pending entries, for
# each P, on slotkv-server and on redis-server started in the same run (appendonly everysec).
#
#   scripts/bench-stream-pel.sh [--sizes P1,P2,...] [--ops K] [--rounds R] [--skip-build]
#
# Defaults: sizes 1000,20000,100000; K = 300 ops of each kind per size (scripts/
# stream-pel-probe.py); R = 3 rounds, each on fresh servers; the table shows the median of the
# rounds. The last line is
#   RESULT pel_xack_ratio=X pel_xadd_ratio=Y pel_xclaim_ratio=Z xack_vs_redis=W
# where the pel_*_ratio are slotkv's latency at the largest size over its latency at the
# smallest (the target is <= 2) and xack_vs_redis is slotkv's XACK latency at the largest size
# over redis-server's.
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=1000,20000,100000 ops=300 rounds=3 skip_build=0
while [ $# -gt 0 ]; do
  case $1 in
    --skip-build) skip_build=1; shift; continue ;;
    --sizes) sizes=$2 ;;
    --ops) ops=$2 ;;
    --rounds) rounds=$2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done

. scripts/lib.sh
[ "$skip_build" = 1 ] || build_release slotkv-server
bench_workdir pel

for round in $(seq "$rounds"); do
  for server in slotkv redis; do
    port=$(free_port)
    mkdir -p "$work/$server-$round"
    if [ "$server" = slotkv ]; then
      build/release/net/slotkv-server --port "$port" --http-port 0 --bind 127.0.0.1 \
        --dir "$work/$server-$round" --workers 2 >"$work/$server.log" 2>&1 &
    else
      /usr/bin/redis-server --port "$port" --bind 127.0.0.1 --dir "$work/$server-$round" \
        --save '' --appendonly yes --appendfsync everysec >"$work/$server.log" 2>&1 &
    fi
    pid=$!
    pids+=("$pid")
    wait_ready "$port" || { cat "$work/$server.log" >&2; exit 1; }
    /usr/bin/python3 scripts/stream-pel-probe.py "$port" "$sizes" "$ops" |
      sed "s/^/$server /" >>"$work/figures"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
  done
done

# The median over rounds of column k for server s and size p: med <s> <p> <k>.
med() { awk -v s="$1" -v p="$2" '$1 == s && $2 == p' "$work/figures" | median_of "$3"; }
first=${sizes%%,*} last=${sizes##*,}
printf '%-8s %8s %9s %9s %10s %11s\n' server pel xack_ms xadd_ms xclaim_ms xpending_ms
for server in slotkv redis; do
  for p in ${sizes//,/ }; do
    printf '%-8s %8s %9s %9s %10s %11s\n' "$server" "$p" "$(med $server "$p" 3)" \
      "$(med $server "$p" 4)" "$(med $server "$p" 5)" "$(med $server "$p" 6)"
  done
done
ratio() { calc '%.2f' "$(med slotkv "$last" "$1") / $(med slotkv "$first" "$1")"; }
echo "RESULT pel_xack_ratio=$(ratio 3) pel_xadd_ratio=$(ratio 4) pel_xclaim_ratio=$(ratio 5)" \
  "xack_vs_redis=$(calc '%.2f' "$(med slotkv "$last" 3) / $(med redis "$last" 3)")"
