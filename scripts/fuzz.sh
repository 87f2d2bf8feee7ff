#!/usr/bin/env bash
# Runs every libFuzzer target of a KPT_FUZZ=ON build for a bounded time, two at a time, and prints
# one line per target: executions, coverage (libFuzzer's edge counter "cov" out of the edges
# instrumented in the binary) and features, or the input of a finding.
#
#   scripts/fuzz.sh [BUILD_DIR] [SECONDS_PER_TARGET] [TARGET...]
#
# Each target starts from tests/fuzz/corpus/NAME (seeds and the inputs of past findings); new
# inputs go to BUILD_DIR/fuzz-work/NAME/corpus, findings (crash-*, timeout-*, oom-*) to
# BUILD_DIR/fuzz-work/NAME/. A finding fails the script: add the input to tests/fuzz/corpus/NAME/ as
# regression-<what> with the fix, and a test of the behaviour next to the code.
set -euo pipefail
cd "$(dirname "$0")/.."

root=$(pwd)
build_dir=$(realpath -m "${1:-build-asan}")
seconds=${2:-60}
shift $(( $# > 2 ? 2 : $# ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(apiserver_request cel crd kubeconfig manifest_reader patch schema_binary selectors structural watch_stream)
fi
jobs=${KPT_FUZZ_JOBS:-2}
# A fixed seed by default, so that a finding in CI replays from the same commit; KPT_FUZZ_SEED=0
# lets libFuzzer pick one (a longer local hunt), any other value fixes another.
seed=${KPT_FUZZ_SEED:-1}
seed_flag=()
[ "$seed" != 0 ] && seed_flag=(-seed="$seed")

# The dictionaries each target reads (libFuzzer takes one file: they are concatenated).
dicts_for() {
  case "$1" in
    manifest_reader | structural | kubeconfig) echo yaml ;;
    crd) echo "yaml json" ;;
    apiserver_request) echo "http json yaml" ;;
    patch | watch_stream) echo json ;;
    selectors) echo http ;;
    cel) echo "cel yaml" ;;
    *) echo "" ;;
  esac
}

# Inputs past this many bytes are not generated (the targets also ignore anything over 256 KiB).
max_len_for() {
  case "$1" in
    schema_binary) echo 65536 ;;
    structural | crd | manifest_reader) echo 16384 ;;
    *) echo 8192 ;;
  esac
}

run_one() {
  local name=$1 work=$build_dir/fuzz-work/$1
  local bin=$build_dir/tests/fuzz/fuzz_$name
  mkdir -p "$work/corpus"
  local dict=$work/dict
  : >"$dict"
  for d in $(dicts_for "$name"); do cat "$root/tests/fuzz/dict/$d.dict" >>"$dict"; done
  local dict_flag=()
  [ -s "$dict" ] && dict_flag=(-dict="$dict")
  (cd "$work" && "$bin" corpus "$root/tests/fuzz/corpus/$name" \
    "${dict_flag[@]}" "${seed_flag[@]}" -max_total_time="$seconds" -max_len="$(max_len_for "$name")" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -close_fd_mask=1) >"$work/log" 2>&1
}

summary() {
  local name=$1 status=$2 log=$build_dir/fuzz-work/$1/log
  local execs cov ft edges
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  edges=$(sed -n 's/.*Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log" | head -1)
  if [ "$status" -eq 0 ]; then
    printf '%-18s ok       %10s execs  cov %6s of %6s edges  ft %6s\n' "$name" "${execs:-?}" "${cov:-?}" "${edges:-?}" "${ft:-?}"
  else
    printf '%-18s FINDING  see %s\n' "$name" "$log"
    grep -E 'ERROR: |SUMMARY: |Test unit written to|fuzz property failed' "$log" | head -5 | sed 's/^/    /'
    # The input itself, so that a finding on a CI machine can be replayed from its log alone.
    local artifact
    artifact=$(ls -t "$build_dir/fuzz-work/$name"/crash-* "$build_dir/fuzz-work/$name"/timeout-* \
      "$build_dir/fuzz-work/$name"/oom-* 2>/dev/null | head -1 || true)
    if [ -n "$artifact" ]; then
      echo "    input ($(stat -c %s "$artifact") bytes, base64):"
      head -c 4096 "$artifact" | base64 -w 100 | sed 's/^/      /'
    fi
  fi
}

failed=0
pids=()
names=()
for name in "${targets[@]}"; do
  [ -x "$build_dir/tests/fuzz/fuzz_$name" ] || { echo "no fuzz target $build_dir/tests/fuzz/fuzz_$name (configure with -DKPT_FUZZ=ON)" >&2; exit 2; }
  run_one "$name" &
  pids+=($!)
  names+=("$name")
  if [ ${#pids[@]} -ge "$jobs" ]; then
    status=0; wait "${pids[0]}" || status=$?
    summary "${names[0]}" "$status"; [ "$status" -eq 0 ] || failed=1
    pids=("${pids[@]:1}"); names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do
  status=0; wait "${pids[$i]}" || status=$?
  summary "${names[$i]}" "$status"; [ "$status" -eq 0 ] || failed=1
done
exit $failed
