#!/usr/bin/env bash
# Engine benchmark: ./scripts/bench-engine.sh --keys N --value-size V --slots S [--fsync P]
#                   [--cache-mb M] [--threads T]
# Builds Release, loads N keys with V-byte values into S slots on T threads (default one per
# core, at most S; each owns its slots as a server worker does), persists them, and reads them
# back hot (Zipf reads of a hot set within the cache budget of M MiB, default 256: from the
# value cache), warm (uniform reads after a reopen: from the OS page cache) and cold (uniform
# reads after a reopen with the page cache dropped: from the disk); see
# bench/engine_bench.cc. Ends with one line:
# RESULT puts_per_s=… hot_gets_per_s=… warm_gets_per_s=… cold_gets_per_s=… write_amp=…
#        space_amp=… peak_rss_mb=…
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
build_release engine_bench
dir=${SLOTKV_BENCH_DIR:-./data/bench-engine}
trap 'rm -rf "$dir"' EXIT
./build/release/bench/engine_bench --dir "$dir" "$@"
