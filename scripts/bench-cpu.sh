#!/usr/bin/env bash
# Server CPU per request: the microseconds of CPU (utime + stime from /proc/<pid>/stat) that
# slotkv-server and redis-server spend per request of a redis-benchmark test. On this shared
# 2-core machine a throughput ratio moves by 10-20% from run to run, because the benchmark
# client, the server and other tenants share the cores; the server's own CPU per request moves
# much less, so a change to the request path is judged by it.
#
#   scripts/bench-cpu.sh [--tests get,set] [--pipelines 1,16] [--rounds 3] [--requests N]
#                        [--clients C] [--keyspace K] [--value-size V] [--workers W]
#   (or scripts/bench.sh --cpu ...)
#
# Each round starts a fresh server per test and pipeline depth, slotkv and redis in turn
# (redis-server with appendonly yes + appendfsync everysec, slotkv's default durability), fills
# the keyspace with a 300k-request SET at -P 16 (else a GET reads missing keys), then runs the
# test: -n N at -P 1 (200k by default), 5 N at deeper pipelines. Prints the median over the
# rounds, and `RESULT <test>_p<P>_cpu_us=<slotkv> <test>_p<P>_cpu_ratio=<slotkv/redis> ...`.
set -euo pipefail
cd "$(dirname "$0")/.."

tests=get,set pipelines=1,16 rounds=3 requests=200000 clients=50 keyspace=100000 value_size=200
workers=2
while [ $# -gt 0 ]; do
  case $1 in
    --cpu) shift; continue ;;
    --tests) tests=$2 ;;
    --pipelines) pipelines=$2 ;;
    --rounds) rounds=$2 ;;
    --requests) requests=$2 ;;
    --clients) clients=$2 ;;
    --keyspace) keyspace=$2 ;;
    --value-size) value_size=$2 ;;
    --workers) workers=$2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done

. scripts/lib.sh
build_release slotkv-server
bench_workdir cpu
ticks=$(getconf CLK_TCK)

# CPU ticks (utime + stime) of a process so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# One measurement: cpu_us <server> <test> <pipeline> <requests> prints us of CPU per request.
cpu_us() {
  local server=$1 test=$2 pipeline=$3 n=$4 port dir pid before after
  port=$(free_port)
  dir=$(mktemp -d "$work/$server.XXXX")
  if [ "$server" = redis ]; then
    redis-server --port "$port" --dir "$dir" --save '' --appendonly yes --appendfsync everysec \
      --bind 127.0.0.1 >"$dir/log" 2>&1 &
  else
    build/release/net/slotkv-server --port "$port" --dir "$dir" --workers "$workers" \
      --http-port 0 >"$dir/log" 2>&1 &
  fi
  pid=$!
  pids+=("$pid")
  wait_ready "$port" || { cat "$dir/log" >&2; exit 1; }
  redis-benchmark -p "$port" -t set -n 300000 -c "$clients" -P 16 -r "$keyspace" \
    -d "$value_size" -q >/dev/null 2>&1
  before=$(cpu_ticks "$pid")
  redis-benchmark -p "$port" -t "$test" -n "$n" -c "$clients" -P "$pipeline" -r "$keyspace" \
    -d "$value_size" -q >/dev/null 2>&1
  after=$(cpu_ticks "$pid")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
  calc '%.2f' "($after - $before) / $ticks * 1e6 / $n"
}

printf '| test | pipeline | redis-server us/req | slotkv us/req | slotkv/redis | slotkv rounds |\n'
printf '|---|---|---|---|---|---|\n'
result="RESULT"
for t in ${tests//,/ }; do
  for p in ${pipelines//,/ }; do
    n=$requests
    [ "$p" -gt 1 ] && n=$((requests * 5))
    s_all="" r_all=""
    for _ in $(seq "$rounds"); do
      s_all="$s_all $(cpu_us slotkv "$t" "$p" "$n")"
      r_all="$r_all $(cpu_us redis "$t" "$p" "$n")"
    done
    s=$(printf '%s\n' $s_all | median_of 1)
    r=$(printf '%s\n' $r_all | median_of 1)
    ratio=$(calc '%.2f' "($r > 0 ? $s / $r : 0)")
    printf '| %s | %s | %s | %s | %s | %s |\n' "$t" "$p" "$r" "$s" "$ratio" "${s_all# }"
    result="$result ${t}_p${p}_cpu_us=$s ${t}_p${p}_cpu_ratio=$ratio"
  done
done
echo "(median of $rounds rounds; requests=$requests at -P 1, 5x deeper; clients=$clients" \
  "keyspace=$keyspace value=${value_size}B, slotkv workers=$workers)"
echo "$result"
