# Helpers shared by the benchmark scripts (sourced, not run).

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# Waits up to 10 s for PING to answer on a port.
wait_ready() { for _ in $(seq 100); do redis-cli -p "$1" ping >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
# One field of INFO <section> (empty when absent): info <port> <section> <field>.
info() { redis-cli -p "$1" info "$2" | tr -d '\r' | awk -F: -v k="$3" '$1 == k {print $2}'; }
# A /proc/<pid>/status field (VmHWM, VmRSS) in MiB: rss_mib <pid> <field>.
rss_mib() { awk -v f="$2:" '$1 == f {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }
# Median of column k of the lines on stdin (the mean of the middle two for an even count):
# median_of <k>.
median_of() {
  sort -g -k"$1","$1" | awk -v k="$1" 'NF {v[n++] = $k}
    END {print (n % 2 ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2)}'
}
# calc <printf format> <awk expression>
calc() { awk "BEGIN {printf \"$1\", $2}"; }
# One redis-benchmark test over random keys: bench_figures <port> <test> <keyspace> <clients>
# <requests> prints "rps p50 p99 p99.9" (ms). The percentiles are those of the smallest listed
# percentile >= 50, 99, 99.9 (redis-benchmark lists 99.219%, 99.902%, ...). Empty on failure.
bench_figures() {
  redis-benchmark -p "$1" -c "$4" -n "$5" -r "$3" -d 200 -t "$2" | benchmark_figures
}
# The same for a command of one's own (__rand_int__ in it is a random number below keyspace):
# command_figures <port> <keyspace> <clients> <requests> <command> [args...]
command_figures() {
  local port=$1 keyspace=$2 clients=$3 requests=$4
  shift 4
  redis-benchmark -p "$port" -c "$clients" -n "$requests" -r "$keyspace" "$@" | benchmark_figures
}
# redis-benchmark's output (stdin) -> "rps p50 p99 p99.9".
benchmark_figures() {
  tr '\r' '\n' | awk '
      /^Latency by percentile distribution/ {block = 1; next}
      block && !/<=/ {block = 0}
      block {
        p = $1; sub(/%$/, "", p); p += 0
        if (p50 == "" && p >= 50) p50 = $3
        if (p99 == "" && p >= 99) p99 = $3
        if (p999 == "" && p >= 99.9) p999 = $3
      }
      /throughput summary:/ {rps = $3}
      END {if (rps != "" && p999 != "") print rps, p50, p99, p999}' || true
}
# Installs what is missing and builds the given targets of the Release tree, quietly.
build_release() {
  ./scripts/setup.sh
  cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/release -j"${SLOTKV_JOBS:-2}" --target "$@" >/dev/null
}
# A benchmark's scratch space: bench_workdir <name> makes $work (/tmp/slotkv-bench-<name>-XXXXXX)
# and an empty $pids; on exit every pid in pids is killed and $work removed.
bench_workdir() {
  work=$(mktemp -d "/tmp/slotkv-bench-$1-XXXXXX")
  pids=()
  trap bench_cleanup EXIT
}
bench_cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
