#!/usr/bin/env bash
# Cold reads: GET and MGET throughput and latency of slotkv-server when the data is on disk only
# (not in slotkv's caches nor in the OS page cache), with reads through the workers' io_uring
# (--io-uring yes: a GET or MGET that misses waits for a fetch while the worker serves other
# clients) against plain waiting reads (--io-uring no). Also run as
# `scripts/bench.sh --cold-reads`.
#
#   scripts/bench-cold-reads.sh [--keys N] [--requests R] [--clients C] [--rounds K]
#
# Defaults: 4000000 keys (key:%012d, 200-byte values, ~1 GB on disk), 100000 GETs per run at
# -c 50 over random keys, 2 rounds. The server runs with --workers 2 --maxmemory-cache 32mb.
# Each run restarts the server (its caches start empty) and drops its data files from the OS
# page cache (posix_fadvise DONTNEED, after fsync), so each GET reads a bucket page and a chunk
# record from the disk; then the files are dropped again and R / 10 MGETs of 10 random keys run
# at the same -c. Modes alternate (yes, no, yes, no, ...); medians are reported. The last line
# is `RESULT cold_get_ratio_uring_vs_wait=X cold_p999_ms_uring=Y cold_p999_ms_wait=Z
# cold_mget_ratio_uring_vs_wait=W cold_mget_p999_ms_uring=U cold_mget_p999_ms_wait=V`.
set -euo pipefail
cd "$(dirname "$0")/.."

keys=4000000 requests=100000 clients=50 rounds=2
while [ $# -gt 0 ]; do
  case $1 in
    --keys) keys=$2 ;;
    --requests) requests=$2 ;;
    --clients) clients=$2 ;;
    --rounds) rounds=$2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done
. scripts/lib.sh
step() { echo "[${SECONDS}s] $*" >&2; }

build_release slotkv-server
server=build/release/net/slotkv-server

work=$(mktemp -d /tmp/slotkv-bench-cold-XXXXXX)
pid=''
stop_server() {
  [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
  pid=''
}
trap 'stop_server; rm -rf "$work"' EXIT
port=$(free_port)
start_server() {
  "$server" --port "$port" --http-port 0 --dir "$work/data" --workers 2 --maxmemory-cache 32mb \
    --key-estimate "$keys" --io-uring "$1" >>"$work/server.log" 2>&1 &
  pid=$!
  wait_ready "$port" || { cat "$work/server.log" >&2; exit 1; }
}
evict() {
  python3 - "$work/data" <<'PY'
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for name in files:
        fd = os.open(os.path.join(root, name), os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
PY
}

step "loading $keys keys"
start_server yes
reply=$(python3 scripts/gen-scale-load.py --keys "$keys" | redis-cli -p "$port" --pipe 2>&1 || true)
grep -q "errors: 0, replies: $keys\$" <<<"$reply" || { echo "load failed: $reply" >&2; exit 1; }
redis-cli -p "$port" save >/dev/null
stop_server

declare -A runs
mget=(MGET)
for _ in $(seq 10); do mget+=(key:__rand_int__); done
echo "| mode | round | GET rps | p50 ms | p99 ms | p99.9 ms | MGET(10) rps | p50 ms | p99 ms | p99.9 ms | read waits | async reads |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for round in $(seq "$rounds"); do
  for mode in yes no; do
    start_server "$mode"
    evict
    figures=$(bench_figures "$port" get "$keys" "$clients" "$requests")
    [ -n "$figures" ] || { echo "redis-benchmark gave no figures" >&2; exit 1; }
    runs[$mode]+="$figures"$'\n'
    evict
    mget_figures=$(command_figures "$port" "$keys" "$clients" $((requests / 10)) "${mget[@]}")
    [ -n "$mget_figures" ] || { echo "redis-benchmark MGET gave no figures" >&2; exit 1; }
    runs[mget_$mode]+="$mget_figures"$'\n'
    echo "| io-uring $mode | $round | ${figures// / | } | ${mget_figures// / | } | $(info "$port" stats slotkv_read_waits) | $(info "$port" stats slotkv_async_reads) |"
    stop_server
  done
done
# Median of column k over the runs of a mode.
median() { median_of "$2" <<<"${runs[$1]}"; }
echo "(keys=$keys requests=$requests clients=$clients; --workers 2 --maxmemory-cache 32mb; data dropped from the page cache before each run; medians below)"
echo "RESULT cold_get_ratio_uring_vs_wait=$(calc '%.3f' "$(median yes 1) / $(median no 1)")" \
  "cold_p999_ms_uring=$(median yes 4) cold_p999_ms_wait=$(median no 4)" \
  "cold_mget_ratio_uring_vs_wait=$(calc '%.3f' "$(median mget_yes 1) / $(median mget_no 1)")" \
  "cold_mget_p999_ms_uring=$(median mget_yes 4) cold_mget_p999_ms_wait=$(median mget_no 4)"
