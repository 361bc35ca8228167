#!/usr/bin/env bash
# Throughput of slotkv-server beside redis-server, both started by this script in the same run,
# measured with redis-benchmark (random keys over --keyspace, 50 clients by default).
# Redis runs with appendonly yes + appendfsync everysec: the same durability as slotkv's default.
#
#   scripts/bench.sh [--requests N] [--clients C] [--pipeline P] [--keyspace K] [--value-size V]
#                    [--tests set,get,incr,mset,lpush,lpop,sadd,hset,zadd,lrange_100,pfadd,geoadd,
#                             xadd,multi]
#                    [--workers W] [--rounds K]
#
# Not in the default list: multi is a transaction, MULTI / SET key:<r> / INCR counter:<r> /
# EXEC, sent as one round trip per operation by bench/resp_bench (redis-benchmark repeats one
# command), its rate counting transactions; publish is PUBLISH bench <value> with one
# subscriber (redis-cli) reading every message; evalsha runs EVALSHA of
# "return redis.call('set', KEYS[1], ARGV[1])" on key:<r>, loaded with SCRIPT LOAD first (a
# script that cannot fail on what the other tests leave in the keys).
#
# pfadd and geoadd have no redis-benchmark test of their own: pfadd is PFADD hll <r> (random
# elements over --keyspace into one HyperLogLog, dense after the first few thousand), geoadd is
# GEOADD geo <lon> <lat> m:<r> (one sorted set growing like zadd's; one position for all);
# xadd is XADD stream * field <r> (one stream growing by every request, paged past
# paged-collection-threshold entries).
#
# The collection tests of redis-benchmark (lpush lpop sadd hset zadd lrange_*) work on ONE key
# that grows (members random over --keyspace; lists grow by every request); slotkv pages every
# collection above paged-collection-threshold members, so they run --requests like the others.
#
# Each test runs K rounds (1 by default) on the same two servers, redis-server then slotkv in each
# round. Prints one table row per test (the median requests/s of each server, the median of the
# rounds' ratios, and each round's ratio: this machine's noise moves a lone ratio by +-20%), then
# `RESULT <test>_ratio=... ...` (slotkv / redis, those medians) so a script can check them.
#
#   scripts/bench.sh --scale N1,N2,... [--requests R] [--clients C] [--out DIR]
# runs the scale benchmark instead (scripts/bench-scale.sh: GET/SET throughput and latency, RSS
# and disk of slotkv as the key count grows, redis-server beside it where it fits in memory).
#
#   scripts/bench.sh --replication [--requests R] [--clients C] [--rounds K] [--sync-keys N]
# runs the replication benchmark (scripts/bench-replication.sh: SET with and without a replica
# beside redis-server with its replica, full-sync rate, replica lag).
#
#   scripts/bench.sh --cold-reads [--keys N] [--requests R] [--clients C] [--rounds K]
# runs the cold-read benchmark (scripts/bench-cold-reads.sh: GETs of data on disk only, with the
# io_uring fetches against waiting reads). --cold-reads comes first.
#
#   scripts/bench.sh --big-collections [--members N] [--small M] [--ops K] [--clients C]
#                    [--extra "server args"] [--skip-build]
# runs the big-collection benchmark (scripts/bench-big-collections.sh: ZSET, HASH and LIST
# op rates at N members against M, DEL time of the big ones with PING p99 meanwhile, RSS, disk).
#
#   scripts/bench.sh --cpu [--tests get,set] [--pipelines 1,16] [--rounds 3] [--requests N]
# runs the CPU benchmark (scripts/bench-cpu.sh: microseconds of server CPU per request of
# slotkv-server and redis-server, medians of alternating rounds: steadier than throughput here).
set -euo pipefail
cd "$(dirname "$0")/.."

requests=200000 clients=50 pipeline=1 keyspace=100000 value_size=200
tests=set,get,incr,mset,lpush,lpop,sadd,hset,zadd,lrange_100,pfadd,geoadd,xadd
workers=2 rounds=1
for arg in "$@"; do
  [ "$arg" = --scale ] && exec scripts/bench-scale.sh "$@"
  [ "$arg" = --cpu ] && exec scripts/bench-cpu.sh "$@"
  [ "$arg" = --replication ] && exec scripts/bench-replication.sh "$@"
  [ "$arg" = --big-collections ] && exec scripts/bench-big-collections.sh "$@"
  if [ "$arg" = --cold-reads ]; then
    shift
    exec scripts/bench-cold-reads.sh "$@"
  fi
done
while [ $# -gt 0 ]; do
  case $1 in
    --requests) requests=$2 ;;
    --clients) clients=$2 ;;
    --pipeline) pipeline=$2 ;;
    --keyspace) keyspace=$2 ;;
    --value-size) value_size=$2 ;;
    --tests) tests=$2 ;;
    --workers) workers=$2 ;;
    --rounds) rounds=$2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done

. scripts/lib.sh
build_release slotkv-server resp_bench

bench_workdir run

redis_port=$(free_port)
mkdir -p "$work/redis" "$work/slotkv"
redis-server --port "$redis_port" --dir "$work/redis" --save '' --appendonly yes \
  --appendfsync everysec --bind 127.0.0.1 >"$work/redis.log" 2>&1 &
pids+=($!)
slotkv_port=$(free_port)
build/release/net/slotkv-server --port "$slotkv_port" --dir "$work/slotkv" --workers "$workers" \
  >"$work/slotkv.log" 2>&1 &
pids+=($!)
wait_ready "$redis_port" && wait_ready "$slotkv_port" || { cat "$work"/*.log; exit 1; }

# requests/s of one redis-benchmark test against a port (from its CSV output; the last row, as
# lrange_* first runs the LPUSH that fills its list).
rps() {
  local n=$requests
  if [ "$2" = publish ]; then
    redis-cli -p "$1" SUBSCRIBE bench >/dev/null &
    local sub=$!
    sleep 0.3
    redis-benchmark -p "$1" -n "$n" -c "$clients" -P "$pipeline" -d "$value_size" --csv -q \
      PUBLISH bench __rand_int__ 2>/dev/null | awk -F'","' 'NR > 1 {v = $2} END {print v}'
    kill "$sub" 2>/dev/null
    wait "$sub" 2>/dev/null || true
    return
  fi
  if [ "$2" = evalsha ]; then
    local sha
    sha=$(redis-cli -p "$1" SCRIPT LOAD "return redis.call('set', KEYS[1], ARGV[1])")
    redis-benchmark -p "$1" -n "$n" -c "$clients" -P "$pipeline" -r "$keyspace" --csv -q \
      EVALSHA "$sha" 1 key:__rand_int__ v 2>/dev/null | awk -F'","' 'NR > 1 {v = $2} END {print v}'
    return
  fi
  if [ "$2" = pfadd ] || [ "$2" = geoadd ] || [ "$2" = xadd ]; then
    local cmd=(PFADD hll __rand_int__)
    [ "$2" = geoadd ] && cmd=(GEOADD geo 13.361389 38.115556 m:__rand_int__)
    [ "$2" = xadd ] && cmd=(XADD stream '*' field __rand_int__)
    redis-benchmark -p "$1" -n "$n" -c "$clients" -P "$pipeline" -r "$keyspace" --csv -q \
      "${cmd[@]}" 2>/dev/null | awk -F'","' 'NR > 1 {v = $2} END {print v}'
    return
  fi
  if [ "$2" = multi ]; then
    build/release/bench/resp_bench --port "$1" --clients "$clients" --requests "$n" \
      --keyspace "$keyspace" --value-size "$value_size" \
      --op 'MULTI;SET key:__rand_int__ __value__;INCR counter:__rand_int__;EXEC' |
      sed -n 's/^RESULT ops_per_s=\([0-9]*\).*/\1/p'
    return
  fi
  redis-benchmark -p "$1" -t "$2" -n "$n" -c "$clients" -P "$pipeline" -r "$keyspace" \
    -d "$value_size" --csv -q 2>/dev/null | awk -F'","' 'NR > 1 {v = $2} END {print v}'
}

printf '| test | redis-server rps | slotkv rps | slotkv/redis | rounds |\n|---|---|---|---|---|\n'
result="RESULT"
for t in ${tests//,/ }; do
  rounds_out=""
  for _ in $(seq "$rounds"); do
    r=$(rps "$redis_port" "$t")
    s=$(rps "$slotkv_port" "$t")
    rounds_out="$rounds_out$r $s $(calc '%.2f' "(${r:-0} > 0 ? ${s:-0} / $r : 0)")"$'\n'
  done
  r=$(printf '%s' "$rounds_out" | median_of 1)
  s=$(printf '%s' "$rounds_out" | median_of 2)
  ratio=$(printf '%s' "$rounds_out" | median_of 3)
  each=$(printf '%s' "$rounds_out" | awk '{printf "%s%s", sep, $3; sep = " "}')
  printf '| %s | %s | %s | %s | %s |\n' "$t" "$r" "$s" "$ratio" "$each"
  result="$result ${t}_ratio=$ratio"
done
echo "(requests=$requests clients=$clients pipeline=$pipeline keyspace=$keyspace" \
  "value=${value_size}B, slotkv workers=$workers, median of $rounds rounds)"
echo "$result"
