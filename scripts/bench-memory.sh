#!/usr/bin/env bash
# Memory, disk and GET throughput of slotkv-server beside redis-server on the same data, both
# started by this script in the same run (issue 5).
#
#   scripts/bench-memory.sh [--keys N] [--requests R] [--clients C] [--seed S] [--workers W]
#                           [--key-estimate K]
#
# Defaults: 200000 keys (a few minutes on 2 cores), 200000 GET requests per run, 50 clients,
# seed 1, 2 workers, --key-estimate N = --keys: slotkv is configured for the data set it is
# about to hold, as an operator would (bucket files are sized for key-estimate keys; with
# slotkv's own default of 16000000, 10M keys would take ~0.3x the raw value bytes in buckets
# instead of ~0.18x).
# --keys 10000000 (the issue's figure) works too: the generator streams, holding nothing.
#
# scripts/gen-memory-load.py streams N `SET <prefix>:<id> <value>` commands (JSON-like values of
# 200-500 bytes over 20 key prefixes: user, session, order, ...; deterministic from --seed),
# loaded with redis-cli --pipe into each server in turn. redis-server runs memory only
# (--save '' --appendonly no), as a cache would; slotkv keeps everything on disk with its
# default cache budget (maxmemory-cache), compressing values of 64 bytes or more
# (--compress-min-bytes 64) when the build has that option.
#
# Figures, after the load (and SAVE on slotkv, which writes every WAL group to bucket/chunk files):
#   RSS            VmRSS of each process (/proc/<pid>/status)
#   disk bytes     slotkv INFO persistence slotkv_disk_bytes; disk_ratio = disk / raw value bytes
#   compression    slotkv_compression_ratio (raw/stored bytes of values written); 1.0 when absent
#   GET rps        redis-benchmark -n R -c C -r K GET user:__rand_int__ (__rand_int__ is 12 digits,
#                  so keys carry 12-digit ids) at three slotkv cache states:
#                  ~0%   maxmemory-cache 1mb (the minimum), K = every user:* key
#                  ~100% the starting budget, K keys that fill at most half of its value cache
#                        (a warm-up run of 5 requests per key, at least R, then the measured
#                        one); warm_get_ratio = slotkv / redis rps
#                  ~50%  the same K keys, with a budget whose value cache holds half the bytes
#                        the hot set took there (one warm-up run, then the measured one)
#                  run in that order (0, 100, 50), the table shows them as 0, 50, 100.
#                  Each row shows the value/bucket/chunk cache hit ratios slotkv measured over that
#                  run (hits / lookups; the bucket and chunk caches only see value-cache misses).
#                  "Cold" is slotkv's caches only: the OS page cache is left as it is. redis-server
#                  runs the same command at every row (it always serves from memory).
#
# Prints one Markdown table, then
#   RESULT rss_ratio=... disk_ratio=... compression_ratio=... warm_get_ratio=...
# (rss and warm_get: slotkv / redis; disk: slotkv disk bytes / raw value bytes).
# Targets: rss_ratio <= 0.10, disk_ratio <= 0.50, warm_get_ratio >= 0.80.
set -euo pipefail
cd "$(dirname "$0")/.."

keys=200000 requests=200000 clients=50 seed=1 workers=2 key_estimate=
while [ $# -gt 0 ]; do
  case $1 in
    --keys) keys=$2 ;;
    --requests) requests=$2 ;;
    --clients) clients=$2 ;;
    --seed) seed=$2 ;;
    --workers) workers=$2 ;;
    --key-estimate) key_estimate=$2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done
[ "$keys" -ge 20 ] || { echo "--keys must be at least 20" >&2; exit 2; }

. scripts/lib.sh
build_release slotkv-server
server=build/release/net/slotkv-server

bench_workdir memory
rss_bytes() { awk '/^VmRSS:/ {print $2 * 1024}' "/proc/$1/status"; }
mib() { calc '%.1f MiB' "$1 / 1048576"; }

extra_args=(--key-estimate "${key_estimate:-$keys}")
help=$("$server" --help 2>&1 || true)
if grep -q -- '--compress-min-bytes' <<<"$help"; then
  extra_args+=(--compress-min-bytes 64)
fi

redis_port=$(free_port)
mkdir -p "$work/redis" "$work/slotkv"
redis-server --port "$redis_port" --dir "$work/redis" --save '' --appendonly no \
  --bind 127.0.0.1 >"$work/redis.log" 2>&1 &
redis_pid=$!
pids+=("$redis_pid")
slotkv_port=$(free_port)
"$server" --port "$slotkv_port" --http-port 0 --dir "$work/slotkv" --workers "$workers" \
  "${extra_args[@]}" >"$work/slotkv.log" 2>&1 &
slotkv_pid=$!
pids+=("$slotkv_pid")
wait_ready "$redis_port" && wait_ready "$slotkv_port" || { cat "$work"/*.log; exit 1; }
budget=$(info "$slotkv_port" memory slotkv_maxmemory_cache)

# Streams the commands into one server; prints the seconds it took. Fails unless every reply
# came back without an error.
load() {
  local start end out
  start=$(date +%s.%N)
  out=$(python3 scripts/gen-memory-load.py --keys "$keys" --seed "$seed" --stats "$work/stats" |
        redis-cli -p "$1" --pipe 2>&1)
  end=$(date +%s.%N)
  if ! grep -q "errors: 0, replies: $keys" <<<"$out"; then
    echo "loading port $1 failed: $out" >&2
    exit 1
  fi
  calc '%.1f' "$end - $start"
}
step() { echo "[${SECONDS}s] $*" >&2; }
step "loading $keys keys into redis-server, then slotkv"
redis_load_s=$(load "$redis_port")
slotkv_load_s=$(load "$slotkv_port")
step "SAVE on slotkv"
redis-cli -p "$slotkv_port" save >/dev/null
value_bytes=$(sed -n 's/.*value_bytes=\([0-9]*\).*/\1/p' "$work/stats")
key_bytes=$(sed -n 's/.*key_bytes=\([0-9]*\).*/\1/p' "$work/stats")
for p in "$redis_port" "$slotkv_port"; do
  n=$(redis-cli -p "$p" dbsize)
  [ "$n" = "$keys" ] || { echo "port $p has $n keys, not $keys" >&2; exit 1; }
done

redis_rss=$(rss_bytes "$redis_pid")
slotkv_rss=$(rss_bytes "$slotkv_pid")
redis_used=$(info "$redis_port" memory used_memory)
slotkv_cache=$(info "$slotkv_port" memory slotkv_cache_bytes)
disk=$(info "$slotkv_port" persistence slotkv_disk_bytes)
wal=$(info "$slotkv_port" persistence slotkv_wal_bytes)
dir_bytes=$(du -sB1 "$work/slotkv" | cut -f1)
compression=$(info "$slotkv_port" persistence slotkv_compression_ratio)
compression=$(calc "%.2f" "${compression:-1.0}")
rss_ratio=$(calc '%.3f' "$slotkv_rss / $redis_rss")
disk_ratio=$(calc '%.3f' "$disk / $value_bytes")

# GET phases over user:<id>, ids 0..user_ids-1 (key i of the generator is user:<i/20> for i%20=0).
user_ids=$(( (keys + 19) / 20 ))
avg=$(( value_bytes / keys ))
charge=$(( avg + 17 + 96 ))  # a value-cache entry: key, value and slotkv's per-entry overhead
# Warm: a hot set filling at most half of the value cache (2/5 of the budget).
warm_range=$(( budget / 5 * 2 / 2 / charge ))
[ "$warm_range" -gt "$user_ids" ] && warm_range=$user_ids

# Sets maxmemory-cache and waits until the slots have adopted it (at their periodic commit).
set_budget() {
  redis-cli -p "$slotkv_port" config set maxmemory-cache "$1" >/dev/null
  for _ in $(seq 50); do
    [ "$(info "$slotkv_port" memory slotkv_cache_bytes)" -le "$1" ] && break
    sleep 0.1
  done
  sleep 1.5  # one more commit period: every slot has its new share
}
# requests/s of GET user:__rand_int__ over ids 0..$2-1 ($3 requests).
get_rps() {
  redis-benchmark -p "$1" -n "$3" -c "$clients" -r "$2" --csv -q GET 'user:__rand_int__' \
    2>/dev/null | awk -F'","' 'NR > 1 {v = $2} END {print v}'
}
cache_counts() {
  redis-cli -p "$slotkv_port" info stats | tr -d '\r' | awk -F: '
    /^slotkv_(value|bucket|chunk)_cache_(hits|misses):/ {v[$1] = $2}
    END {for (c in v) printf "%s=%s ", c, v[c]}'
}
# value/bucket/chunk hit ratios between two cache_counts snapshots.
hit_ratios() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    n = split(a, x, " "); for (i = 1; i <= n; i++) {split(x[i], kv, "="); before[kv[1]] = kv[2]}
    n = split(b, x, " "); for (i = 1; i <= n; i++) {split(x[i], kv, "="); after[kv[1]] = kv[2]}
    split("value bucket chunk", names, " ")
    for (j = 1; j <= 3; j++) {
      h = after["slotkv_" names[j] "_cache_hits"] - before["slotkv_" names[j] "_cache_hits"]
      m = after["slotkv_" names[j] "_cache_misses"] - before["slotkv_" names[j] "_cache_misses"]
      printf "%s%s", (j > 1 ? " / " : ""), (h + m > 0 ? sprintf("%.2f", h / (h + m)) : "-")
    }
  }'
}
# One phase: prints "redis_rps slotkv_rps hit_ratios" after an optional slotkv warm-up run.
phase() {
  local range=$1 warmup=$2 r s before after
  [ "$warmup" -gt 0 ] && get_rps "$slotkv_port" "$range" "$warmup" >/dev/null
  r=$(get_rps "$redis_port" "$range" "$requests")
  before=$(cache_counts)
  s=$(get_rps "$slotkv_port" "$range" "$requests")
  after=$(cache_counts)
  echo "$r $s $(hit_ratios "$before" "$after")"
}
# Stops the run when a redis-benchmark run gave no figure.
check_rps() {
  for v in "$@"; do
    [ -n "$v" ] && [ "$(calc '%d' "($v > 0)")" = 1 ] || { echo "redis-benchmark failed" >&2; exit 1; }
  done
}

step "GET at ~0% slotkv cache hits"
set_budget 1048576
read -r cold_r cold_s cold_hits <<<"$(phase "$user_ids" 0)"
check_rps "$cold_r" "$cold_s"
# The 1mb budget left the caches almost empty: after the warm runs the value cache holds about
# the hot set alone, as slotkv charges it (compressed or not), so the ~50% budget gives the value
# cache (2/5 of the budget) half of that.
step "GET at ~100% slotkv cache hits"
set_budget "$budget"
# The warm-up run makes 5 requests per key (at least --requests): random ids then miss
# about e^-5 < 1% of the range.
warm_up=$(( 5 * warm_range > requests ? 5 * warm_range : requests ))
read -r warm_r warm_s warm_hits <<<"$(phase "$warm_range" "$warm_up")"
check_rps "$warm_r" "$warm_s"
hot_bytes=$(info "$slotkv_port" memory slotkv_value_cache_bytes)
slotkv_rss_warm=$(rss_bytes "$slotkv_pid")
redis_rss_warm=$(rss_bytes "$redis_pid")
half_budget=$(( hot_bytes / 2 * 5 / 2 ))
[ "$half_budget" -lt 1048576 ] && half_budget=1048576
step "GET at ~50% slotkv cache hits"
set_budget "$half_budget"
read -r half_r half_s half_hits <<<"$(phase "$warm_range" $(( requests / 2 )))"
check_rps "$half_r" "$half_s"
warm_get_ratio=$(calc '%.2f' "$warm_s / $warm_r")
ratio() { calc '%.2f' "$1 / $2"; }
yes_no() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN {
  print ((op == "<=" ? v <= t : v >= t) ? "yes" : "no") }'; }

cat <<EOF
| figure | redis-server | slotkv | slotkv/redis or /raw | target | met |
|---|---|---|---|---|---|
| keys loaded (20 prefixes) | $keys | $keys | | | |
| raw value bytes (keys: $(mib "$key_bytes")) | $(mib "$value_bytes") | | | | |
| load time, redis-cli --pipe (generator-bound) | ${redis_load_s} s | ${slotkv_load_s} s | $(ratio "$slotkv_load_s" "$redis_load_s") | | |
| RSS after load (VmRSS) | $(mib "$redis_rss") | $(mib "$slotkv_rss") | $rss_ratio | <= 0.10 | $(yes_no "$rss_ratio" 0.10 "<=") |
| redis used_memory / slotkv cache bytes (budget $(mib "$budget")) | $(mib "$redis_used") | $(mib "$slotkv_cache") | | | |
| disk bytes after SAVE (slotkv_disk_bytes) | memory only | $(mib "$disk") | $disk_ratio of raw | <= 0.50 | $(yes_no "$disk_ratio" 0.50 "<=") |
| of which WAL (slotkv_wal_bytes) | | $(mib "$wal") | | | |
| data dir, du | memory only | $(mib "$dir_bytes") | $(calc '%.3f' "$dir_bytes / $value_bytes") of raw | | |
| compression ratio of values written (raw/stored) | | $compression | | | |
| GET rps ~0% hit: cache 1mb, ${user_ids} keys (hits value/bucket/chunk: $cold_hits) | $cold_r | $cold_s | $(ratio "$cold_s" "$cold_r") | | |
| GET rps ~50% hit: cache $(mib "$half_budget"), ${warm_range} keys (hits $half_hits) | $half_r | $half_s | $(ratio "$half_s" "$half_r") | | |
| GET rps ~100% hit: cache $(mib "$budget"), ${warm_range} keys (hits $warm_hits) | $warm_r | $warm_s | $warm_get_ratio | >= 0.80 | $(yes_no "$warm_get_ratio" 0.80 ">=") |
| RSS after the ~100% GET runs | $(mib "$redis_rss_warm") | $(mib "$slotkv_rss_warm") | $(ratio "$slotkv_rss_warm" "$redis_rss_warm") | | |
EOF
echo "(keys=$keys seed=$seed requests=$requests clients=$clients, slotkv workers=$workers${extra_args[*]:+ ${extra_args[*]}}; redis-server memory only)"
echo "RESULT rss_ratio=$rss_ratio disk_ratio=$disk_ratio compression_ratio=$compression warm_get_ratio=$warm_get_ratio"
