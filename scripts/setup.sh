#!/usr/bin/env bash
# Installs every Debian package slotkv needs to build, test and run. Idempotent: packages already
# present are skipped, so a second run makes no network call. redis-server is for the integration
# suites (checked against real Redis) and the benchmarks (slotkv beside Redis in one run);
# prometheus (the server, /usr/bin/prometheus) for test_prometheus.py, which scrapes /metrics;
# zookeeper (the server, with a JRE) and python3-kazoo for the ZooKeeper-mode suites
# (test_zookeeper*.py start their own ZooKeeper); clang and libclang-rt-14-dev (libFuzzer and
# the sanitizer runtimes for clang) for scripts/fuzz.sh.
set -euo pipefail

packages=(
  g++ cmake ccache pkg-config
  libzstd-dev libxxhash-dev liburing-dev libboost-dev libjemalloc-dev
  prometheus-cpp-dev libcpp-httplib-dev libzookeeper-mt-dev doctest-dev
  liblua5.1-0-dev lua-cjson-dev lua-bitop-dev nettle-dev liblzf-dev
  redis-tools redis-server python3-redis python3-pytest prometheus zookeeper python3-kazoo
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
