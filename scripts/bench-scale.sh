#!/usr/bin/env bash
# Scale benchmark: slotkv-server GET/SET throughput, latency, memory and disk as the key count
# grows, with redis-server beside it where redis fits in memory. Also run as
# `scripts/bench.sh --scale ...`.
#
#   scripts/bench-scale.sh --scale 1000000,10000000,50000000 [--requests R] [--clients C]
#                          [--out DIR]
#
# Defaults: 200000 requests per redis-benchmark run, 50 clients, --out bench-results/scale.
# The sizes run in ascending order, one after the other, in one run of this script. Per size N:
#   1. a fresh slotkv-server (--workers 2 --maxmemory-cache 256mb --key-estimate N, at least
#      1024, its minimum) with its data dir under a mktemp dir in /tmp;
#   2. N distinct keys key:%012d (0..N-1), 200-byte values, loaded by
#      scripts/gen-scale-load.py | redis-cli --pipe (must answer `errors: 0, replies: N`, then
#      DBSIZE must be N); load keys/s = N / wall time of the pipe; meanwhile
#      scripts/ping-probe.py PINGs every 10 ms on another connection: its p99 and max round
#      trip show how long other clients wait behind a bulk load;
#   3. redis-benchmark -c C -n R -r N -d 200 -t get, then -t set: random keys over the whole
#      range (key:__rand_int__ is key:%012d, so every GET hits; the GET hit ratio, from INFO
#      keyspace_hits/keyspace_misses around the GET run, shows it). GET runs first, on the
#      loaded values; SET overwrites random keys with 200-byte values. Throughput is the
#      "throughput summary" line; p50/p99/p99.9 come from the "Latency by percentile
#      distribution" block, each the latency of the smallest listed percentile >= 50, 99,
#      99.9 (that block lists 99.219%, 99.902%, ...: slightly pessimistic figures);
#   4. SAVE, then disk = du -sB1 of the data dir; peak RSS = VmHWM (load and both runs), RSS
#      after the runs = VmRSS, from /proc/<pid>/status;
#   5. redis-server (memory only: --save '' --appendonly no) gets the same load and the same
#      runs, started after slotkv stopped, only when N * 350 bytes < MemAvailable / 2;
#      otherwise its columns show "–". Its RSS is its VmHWM too;
#   6. each server is stopped and its data removed before the next one starts (50M keys take
#      ~15 GB of disk).
#
# Outputs in --out: scale.md (one Markdown table, also printed), scale.dat (the plotted
# figures), throughput.png (SET and GET rps against key count, log x) and rss.png (peak RSS
# against key count), drawn by gnuplot (gnuplot-nox installed with apt-get when missing).
# Progress goes to stderr. The last line on stdout is
#   RESULT get_ratio_largest_vs_smallest=X get_p999_ms_largest=Y rss_ratio_largest_vs_smallest=Z
#          set_ratio_1m_vs_redis=A get_ratio_1m_vs_redis=B ping_load_p99_ratio_vs_redis=C
#          ping_load_max_ms=D get_p999_ratio_largest_vs_redis_smallest=E
# (slotkv GET rps at the largest size / at the smallest; GET p99.9 ms at the largest; peak RSS
# at the largest / at the smallest; slotkv SET and GET rps / redis-server's at the smallest
# size, named for 1M, the smallest of the issue's run; the largest ratio of slotkv's PING p99
# during the load to redis-server's over the sizes redis ran; slotkv's largest PING max during
# a load; slotkv GET p99.9 at the largest size / redis-server's at the smallest). A figure
# redis-server did not run for is "-".
# Targets (issue 24): set and get ratios vs redis >= 1.0; PING p99 ratio <= 2, max <= 25 ms;
# p99.9 ratio <= 2; GET at 50M >= 0.5x GET at 1M (get_ratio >= 0.5); RSS at 50M <= 2x RSS at
# 1M (rss_ratio <= 2).
set -euo pipefail
cd "$(dirname "$0")/.."

sizes='' requests=200000 clients=50 out=bench-results/scale
while [ $# -gt 0 ]; do
  case $1 in
    --scale) sizes=$2 ;;
    --requests) requests=$2 ;;
    --clients) clients=$2 ;;
    --out) out=$2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done
[[ $sizes =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "--scale wants N1,N2,... (positive)" >&2; exit 2; }
mapfile -t sizes < <(tr , '\n' <<<"$sizes" | sort -n -u)

step() { echo "[${SECONDS}s] $*" >&2; }
install_gnuplot() {
  command -v gnuplot >/dev/null && return 0
  local sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  step "installing gnuplot-nox"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null
}
install_gnuplot
. scripts/lib.sh
build_release slotkv-server
server=build/release/net/slotkv-server
mkdir -p "$out"

work=$(mktemp -d /tmp/slotkv-bench-scale-XXXXXX)
pids=()
stop_servers() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
cleanup() {
  stop_servers
  rm -rf "$work"
}
trap cleanup EXIT

# Whether N keys at 350 bytes each take less than half of MemAvailable.
redis_fits() { awk -v n="$1" '/^MemAvailable:/ {exit !(n * 350 < $2 * 1024 / 2)}' /proc/meminfo; }

# Starts a server (slotkv or redis) for N keys with its data in $work/<kind>; sets port and pid.
start_server() {
  local kind=$1 n=$2
  port=$(free_port)
  mkdir -p "$work/$kind"
  if [ "$kind" = slotkv ]; then
    "$server" --port "$port" --http-port 0 --dir "$work/slotkv" --workers 2 \
      --maxmemory-cache 256mb --key-estimate $(( n > 1024 ? n : 1024 )) >"$work/slotkv.log" 2>&1 &
  else
    redis-server --port "$port" --dir "$work/redis" --save '' --appendonly no \
      --bind 127.0.0.1 >"$work/redis.log" 2>&1 &
  fi
  pid=$!
  pids+=("$pid")
  wait_ready "$port" || { cat "$work/$kind.log" >&2; exit 1; }
}
# Loads N keys into a port; prints "keys/s ping_p99_ms ping_max_ms", the PING figures from
# scripts/ping-probe.py on another connection during the load (how long other clients wait).
# Fails unless every reply came back without an error and DBSIZE is N.
load() {
  local port=$1 n=$2 start end reply keys probe
  python3 scripts/ping-probe.py --port "$port" >"$work/probe.out" &
  probe=$!
  start=$(date +%s.%N)
  reply=$(python3 scripts/gen-scale-load.py --keys "$n" | redis-cli -p "$port" --pipe 2>&1 || true)
  end=$(date +%s.%N)
  kill "$probe"
  wait "$probe" || { echo "ping-probe failed" >&2; exit 1; }
  grep -q "errors: 0, replies: $n\$" <<<"$reply" || { echo "loading port $port failed: $reply" >&2; exit 1; }
  keys=$(redis-cli -p "$port" dbsize)
  [ "$keys" = "$n" ] || { echo "port $port has $keys keys, not $n" >&2; exit 1; }
  echo "$(calc '%.0f' "$n / ($end - $start)") $(awk '{print $3, $4}' "$work/probe.out")"
}
# One redis-benchmark test (get or set) over N keys: prints "rps p50 p99 p99.9" (ms).
bench() {
  local figures
  figures=$(bench_figures "$1" "$2" "$3" "$clients" "$requests")
  [ -n "$figures" ] || { echo "redis-benchmark -t $2 on port $1 gave no figures" >&2; exit 1; }
  echo "$figures"
}
keyspace() { echo "$(info "$1" stats keyspace_hits) $(info "$1" stats keyspace_misses)"; }

# Per size, one row of figures: row[<name>] (slotkv_*, redis_*; redis_* are "–" when skipped).
declare -A row
measure_slotkv() {
  local n=$1 before after figures
  step "N=$n: slotkv-server, loading $n keys"
  start_server slotkv "$n"
  figures=$(load "$port" "$n")
  read -r 'row[load]' 'row[ping_p99]' 'row[ping_max]' <<<"$figures"
  step "N=$n: slotkv loaded at ${row[load]} keys/s; GET run"
  before=$(keyspace "$port")
  figures=$(bench "$port" get "$n")
  read -r 'row[get]' 'row[get_p50]' 'row[get_p99]' 'row[get_p999]' <<<"$figures"
  after=$(keyspace "$port")
  row[hits]=$(awk -v a="$before" -v b="$after" 'BEGIN {
    split(a, x, " "); split(b, y, " "); h = y[1] - x[1]; m = y[2] - x[2]
    printf "%.3f", (h + m > 0 ? h / (h + m) : 0) }')
  step "N=$n: slotkv SET run"
  figures=$(bench "$port" set "$n")
  read -r 'row[set]' _ _ 'row[set_p999]' <<<"$figures"
  step "N=$n: slotkv SAVE"
  redis-cli -p "$port" save >/dev/null
  row[disk]=$(du -sB1 "$work/slotkv" | awk '{printf "%.1f", $1 / 1048576}')
  row[peak]=$(rss_mib "$pid" VmHWM)
  row[rss]=$(rss_mib "$pid" VmRSS)
  stop_servers
  rm -rf "$work/slotkv"
}
measure_redis() {
  local n=$1 figures
  row[redis_get]=– row[redis_get_p999]=– row[redis_set]=– row[redis_rss]=–
  row[redis_ping_p99]=– row[redis_ping_max]=–
  if ! redis_fits "$n"; then
    step "N=$n: redis-server skipped (N * 350 B >= MemAvailable / 2)"
    return 0
  fi
  step "N=$n: redis-server, loading $n keys"
  start_server redis "$n"
  figures=$(load "$port" "$n")
  read -r _ 'row[redis_ping_p99]' 'row[redis_ping_max]' <<<"$figures"
  step "N=$n: redis GET and SET runs"
  figures=$(bench "$port" get "$n")
  read -r 'row[redis_get]' _ _ 'row[redis_get_p999]' <<<"$figures"
  figures=$(bench "$port" set "$n")
  read -r 'row[redis_set]' _ <<<"$figures"
  row[redis_rss]=$(rss_mib "$pid" VmHWM)
  stop_servers
  rm -rf "$work/redis"
}

# a / b with 3 decimals, or "-" when either is not a number (redis-server did not run).
ratio() {
  [[ $1 =~ ^[0-9.]+$ && $2 =~ ^[0-9.]+$ ]] && calc_true "$2 > 0" || { echo -; return; }
  calc '%.3f' "$1 / $2"
}
calc_true() { awk "BEGIN {exit !($1)}"; }
ping_vs_redis=- ping_max=0

table=$out/scale.md
data=$out/scale.dat
{
  echo "| keys | slotkv SET rps | slotkv GET rps | GET p50 ms | GET p99 ms | GET p99.9 ms | SET p99.9 ms | slotkv peak RSS MiB | RSS after MiB | disk MiB | GET hit ratio | load keys/s | PING during load p99 / max ms | redis GET rps | redis GET p99.9 ms | redis SET rps | redis peak RSS MiB | redis PING during load p99 / max ms |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$table"
echo "# keys slotkv_set slotkv_get slotkv_peak_rss_mib redis_set redis_get redis_peak_rss_mib" >"$data"
for n in "${sizes[@]}"; do
  measure_slotkv "$n"
  measure_redis "$n"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s | %s | %s / %s |\n' \
    "$n" "${row[set]}" "${row[get]}" "${row[get_p50]}" "${row[get_p99]}" "${row[get_p999]}" \
    "${row[set_p999]}" "${row[peak]}" "${row[rss]}" "${row[disk]}" "${row[hits]}" "${row[load]}" \
    "${row[ping_p99]}" "${row[ping_max]}" "${row[redis_get]}" "${row[redis_get_p999]}" \
    "${row[redis_set]}" "${row[redis_rss]}" "${row[redis_ping_p99]}" "${row[redis_ping_max]}" >>"$table"
  echo "$n ${row[set]} ${row[get]} ${row[peak]} ${row[redis_set]/–/-} ${row[redis_get]/–/-} ${row[redis_rss]/–/-}" >>"$data"
  if [ "$n" = "${sizes[0]}" ]; then
    first_get=${row[get]} first_peak=${row[peak]}
    set_vs_redis=$(ratio "${row[set]}" "${row[redis_set]}")
    get_vs_redis=$(ratio "${row[get]}" "${row[redis_get]}")
    first_redis_p999=${row[redis_get_p999]}
  fi
  r=$(ratio "${row[ping_p99]}" "${row[redis_ping_p99]}")
  if [ "$r" != - ] && { [ "$ping_vs_redis" = - ] || calc_true "$r > $ping_vs_redis"; }; then
    ping_vs_redis=$r
  fi
  calc_true "${row[ping_max]} > $ping_max" && ping_max=${row[ping_max]}
done
echo "(requests=$requests clients=$clients value=200B; slotkv --workers 2 --maxmemory-cache 256mb --key-estimate N; redis-server memory only, run where N * 350 B < MemAvailable / 2; GET before SET)" >>"$table"

step "plotting"
terminal=png
gnuplot -e 'set terminal' 2>&1 | grep -qw pngcairo && terminal=pngcairo
plot() {  # plot <file> <title> <y label> <series: "column:title" ...>
  local file=$1 title=$2 ylabel=$3 series=() s
  shift 3
  for s in "$@"; do series+=("'$data' using 1:${s%%:*} with linespoints title '${s#*:}'"); done
  gnuplot <<EOF
set terminal $terminal size 900,560
set output '$out/$file'
set title '$title'
set datafile missing '-'
set logscale x
set xlabel 'keys'
set ylabel '$ylabel'
set format x '%.0s%c'
set yrange [0:*]
set key outside top center horizontal
set grid
plot $(IFS=,; echo "${series[*]}")
EOF
}
plot throughput.png "throughput at -c $clients, random keys over all N" 'requests/s' \
  '2:slotkv SET' '3:slotkv GET' '5:redis SET' '6:redis GET'
plot rss.png 'peak RSS (VmHWM)' 'MiB' '4:slotkv' '7:redis-server (memory only)'

cat "$table"
echo "RESULT get_ratio_largest_vs_smallest=$(calc '%.3f' "${row[get]} / $first_get")" \
  "get_p999_ms_largest=$(calc '%.3f' "${row[get_p999]}")" \
  "rss_ratio_largest_vs_smallest=$(calc '%.3f' "${row[peak]} / $first_peak")" \
  "set_ratio_1m_vs_redis=$set_vs_redis get_ratio_1m_vs_redis=$get_vs_redis" \
  "ping_load_p99_ratio_vs_redis=$ping_vs_redis ping_load_max_ms=$ping_max" \
  "get_p999_ratio_largest_vs_redis_smallest=$(ratio "${row[get_p999]}" "$first_redis_p999")"
