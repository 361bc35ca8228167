#!/usr/bin/env bash
# Big collections: per-op rates of slotkv-server on a collection of N members against one of M
# members, the time a DEL of a big collection takes and how long other clients wait meanwhile,
# peak RSS and disk. Also run as `scripts/bench.sh --big-collections ...`.
#
#   scripts/bench-big-collections.sh [--members N] [--small M] [--ops K] [--clients C]
#                                    [--extra "server args"] [--skip-build] [--server redis]
#
# Defaults: N = 10000000, M = 1000, K = 20000 ops per measured op, C = 8 clients. One
# slotkv-server (--workers 2, data under a mktemp dir in /tmp, plus --extra), built first
# unless --skip-build; --server redis runs /usr/bin/redis-server (memory only) instead, for
# comparison. The work is done by scripts/big-collections-probe.py:
#   1. builds zset bigz (ZADD bigz i m:<i>), hash bigh (HSET bigh f:<i> v:<i>) and list bigl
#      (RPUSH bigl e:<i>; the order of the batches varies) of N members, then smallz, smallh,
#      smalll of M members: commands of 1000 members, pipelines of 10 commands, C connections
#      in parallel (members/s printed); the sizes are checked after each build;
#   2. disk = du -sm of the data dir after the build;
#   3. ops/s of ZADD of a new member (random score), ZRANK of a random member, ZRANGE key r r+9
#      (r random in the middle half), HSET of a random field (half of them new), HGET of a
#      random field, LPUSH, LINDEX at a random index in the middle half: K ops on the small
#      collection, then K on the big one, from C connections each sending one command at a
#      time; ratio = big / small, one table row per op;
#   4. DEL of bigz, bigh, bigl, each timed from the client (round trip, ms), while another
#      connection PINGs every 1 ms from just before the DEL until 10 s after it (p99 ms);
#   5. peak RSS = VmHWM of the server at the end (MB).
# The last line is
#   RESULT big_op_ratio_min=X big_del_ms_max=Y big_ping_p99_ms=Z big_rss_mb=R big_disk_mb=D
# (the lowest big/small ratio, the slowest DEL, the worst PING p99 of the three DEL windows).
set -euo pipefail
cd "$(dirname "$0")/.."

members=10000000 small=1000 ops=20000 clients=8 extra='' server=slotkv skip_build=0
while [ $# -gt 0 ]; do
  case $1 in
    --big-collections) shift; continue ;;
    --skip-build) skip_build=1; shift; continue ;;
    --members) members=$2 ;;
    --small) small=$2 ;;
    --ops) ops=$2 ;;
    --clients) clients=$2 ;;
    --extra) extra=$2 ;;
    --server) server=$2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done
[[ $server =~ ^(slotkv|redis)$ ]] || { echo "--server wants slotkv or redis" >&2; exit 2; }
read -ra extra_args <<<"$extra"

. scripts/lib.sh
if [ "$server" = slotkv ] && [ "$skip_build" = 0 ]; then
  build_release slotkv-server
fi

bench_workdir big
port=$(free_port)
mkdir -p "$work/$server"
if [ "$server" = slotkv ]; then
  build/release/net/slotkv-server --port "$port" --http-port 0 --bind 127.0.0.1 \
    --dir "$work/slotkv" --workers 2 "${extra_args[@]}" >"$work/server.log" 2>&1 &
else
  /usr/bin/redis-server --port "$port" --bind 127.0.0.1 --dir "$work/redis" --save '' \
    --appendonly no "${extra_args[@]}" >"$work/server.log" 2>&1 &
fi
pids+=($!)
wait_ready "$port" || { cat "$work/server.log" >&2; exit 1; }

echo "$server: $members members (small: $small), $ops ops per op, $clients clients" >&2
/usr/bin/python3 scripts/big-collections-probe.py --port "$port" --pid "${pids[0]}" \
  --dir "$work/$server" --members "$members" --small "$small" --ops "$ops" --clients "$clients"
