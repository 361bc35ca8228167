#!/usr/bin/env bash
# Installs what is missing and builds Release. The RESP server is not there yet (see README):
# until it lands this runs the engine benchmark on 1M keys of 200 bytes in 4 slots, data
# under ./data.
set -euo pipefail
cd "$(dirname "$0")/.."
SLOTKV_BENCH_DIR=./data/run-bench exec ./scripts/bench-engine.sh --keys 1000000 --value-size 200 --slots 4
