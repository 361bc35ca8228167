#!/usr/bin/env bash
# Installs what is missing, builds Release and starts slotkv-server in the foreground on
# 127.0.0.1:7379 with its data under ./data (no ZooKeeper needed). Extra arguments are passed
# to the server as `--option value` pairs, e.g. `./scripts/run.sh --appendfsync always`.
# Ctrl-C (SIGINT) persists every slot and exits.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"${SLOTKV_JOBS:-2}" --target slotkv-server
exec build/release/net/slotkv-server --bind 127.0.0.1 --port 7379 --dir ./data "$@"
