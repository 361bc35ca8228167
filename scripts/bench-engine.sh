#!/usr/bin/env bash
# Engine benchmark: ./scripts/bench-engine.sh --keys N --value-size V --slots S [--fsync P]
# Builds Release, loads N keys with V-byte values into S slots (one thread), reads them back
# warm and cold, and ends with one line:
# RESULT puts_per_s=… warm_gets_per_s=… cold_gets_per_s=… write_amp=… space_amp=… peak_rss_mb=…
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
build_release engine_bench
dir=${SLOTKV_BENCH_DIR:-./data/bench-engine}
trap 'rm -rf "$dir"' EXIT
./build/release/bench/engine_bench --dir "$dir" "$@"
