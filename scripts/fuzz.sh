#!/usr/bin/env bash
# Builds the libFuzzer targets of test/fuzz (clang, ASan + UBSan) in build/fuzz and runs each for
# N seconds, two at a time, starting from the committed seeds in test/fuzz/corpus/<target>/.
# The seeds are read only: what a run finds goes to a temporary corpus (kept with --keep DIR).
# Exits non-zero when a target crashes, fails a check, leaks, times out or runs out of memory,
# printing the input libFuzzer saved and the command that replays it.
#   ./scripts/fuzz.sh                       every target for 20 s (what scripts/test.sh runs)
#   ./scripts/fuzz.sh --seconds 600         longer, on demand (or SLOTKV_FUZZ_SECONDS=600)
#   ./scripts/fuzz.sh --target wal_log      one target (names: the table below)
#   ./scripts/fuzz.sh --keep /tmp/corpus    keep the grown corpora in /tmp/corpus/<target>
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${SLOTKV_FUZZ_SECONDS:-20}
only=""
keep=""
parallel=2  # CI has two cores
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --target) only=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "fuzz: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# name, -max_len, extra libFuzzer flags. wal_log's stderr is closed: replay logs every torn tail
# it cuts, megabytes a minute (libFuzzer's own output and sanitizer reports still show; run the
# reproducer to see the rest).
targets=(
  "resp_parser 4096"
  "wal_log 8192 -close_fd_mask=2"
  "bucket_page 4097"
  "chunk_record 4096"
  "segment_table 4100"
  "config 4096"
  "dict_frame 16384"
  "paged_root 4096"
  "value_delta 8192"
  "rdb_object 16384"
  "hll 16384"
  "acl_rules 1024"
)
selected=()
for t in "${targets[@]}"; do
  [ -z "$only" ] || [ "${t%% *}" = "$only" ] && selected+=("$t")
done
if [ ${#selected[@]} -eq 0 ]; then
  echo "fuzz: no target '$only'; targets: $(printf '%s ' "${targets[@]%% *}")" >&2
  exit 2
fi

build=build/fuzz
start=$(date +%s)
CC=clang CXX=clang++ cmake -S . -B "$build" -DSLOTKV_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j"${SLOTKV_JOBS:-2}" -- --no-print-directory >/dev/null
echo "fuzz: built $build in $(($(date +%s) - start)) s; ${#selected[@]} target(s), $seconds s each"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work=${keep:-$tmp/corpus}
mkdir -p "$build/logs"

stat() {  # log, libFuzzer final stat name
  awk -v k="stat::$2:" '$1 == k {print $2}' "$1"
}

run_target() {  # name max_len extra-flags...
  local name=$1 max_len=$2
  shift 2
  local bin=$build/test/fuzz/${name}_fuzz log=$build/logs/$name.log
  local artifacts=$build/artifacts/$name
  rm -rf "$artifacts"
  mkdir -p "$artifacts" "$work/$name"
  local rc=0
  # The outer timeout only catches a target stuck outside libFuzzer's own clock.
  timeout -k 10 $((seconds + 120)) "$bin" -max_total_time="$seconds" -max_len="$max_len" \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/" "$@" \
    "$work/$name" "test/fuzz/corpus/$name" >"$log" 2>&1 || rc=$?
  local runs rate cov
  runs=$(stat "$log" number_of_executed_units)
  rate=$(stat "$log" average_exec_per_sec)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1 || true)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz: $name ok: ${runs:-?} runs, ${rate:-?}/s, ${cov:-no coverage line}"
    return 0
  fi
  {
    echo "fuzz: $name FAILED (exit $rc); log $log; last lines:"
    tail -n 40 "$log" | sed 's/^/  | /'
    local found=0
    for input in "$artifacts"/*; do
      [ -e "$input" ] || continue
      found=1
      echo "fuzz: $name: input $input"
      echo "fuzz: reproduce: $bin $input"
    done
    [ "$found" = 1 ] || echo "fuzz: reproduce: $bin -max_len=$max_len $* test/fuzz/corpus/$name"
  } >&2
  return 1
}

for t in "${selected[@]}"; do
  # Two at a time: wait for a slot before starting the next.
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  # shellcheck disable=SC2086 # the entry splits into name, max_len and flags
  { run_target $t && echo ok >"$tmp/${t%% *}.status"; } &
done
wait
failed=0
for t in "${selected[@]}"; do
  [ -e "$tmp/${t%% *}.status" ] || failed=1
done
echo "fuzz: done in $(($(date +%s) - start)) s"
exit $failed
