#!/usr/bin/env bash
# The sanitizer build: a second build with clang 14, AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer's coverage instrumentation (build-asan/) of the fuzz
# targets, and so of every library they link (util, yaml, model, schema, cel, kube, controller,
# apiserver), then
#   1. every fuzz target replaying its committed corpus (seeds and past findings), and
#   2. every fuzz target fuzzing for SECONDS (scripts/fuzz.sh, two at a time).
#
#   scripts/sanitize.sh [SECONDS_PER_TARGET] [--unit]   (default 20; KPT_ASAN_DIR overrides build-asan)
#
# KPT_FUZZ_TARGETS="manifest_reader crd ..." limits the build and the runs to those targets (and
# the libraries they link). --unit also builds and runs the unit_tests binary under the sanitizers. .ci/run does not call
# this script yet: the build was measured past the room CI has left (README, Development).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-20}
with_unit=0
[ "${2:-}" = --unit ] && with_unit=1
build_dir=${KPT_ASAN_DIR:-build-asan}

fuzz_targets=(apiserver_request cel crd kubeconfig manifest_reader patch schema_binary selectors structural
  watch_stream)
if [ -n "${KPT_FUZZ_TARGETS:-}" ]; then read -r -a fuzz_targets <<<"$KPT_FUZZ_TARGETS"; fi

# -O1 -g1: the level the sanitizers are usually run at, with line tables for their stacks.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DKPT_WERROR=ON -DKPT_SANITIZE=ON -DKPT_FUZZ=ON -DKPT_BENCHMARKS=OFF -DKPT_IMAGE=OFF >/dev/null

targets=()
[ "$with_unit" -eq 1 ] && targets+=(unit_tests)
for t in "${fuzz_targets[@]}"; do targets+=("fuzz_$t"); done
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"

# Leaks are reported too; a finding names its stack (symbolized by llvm-symbolizer when present).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
tests=()
for t in "${fuzz_targets[@]}"; do tests+=("fuzz\\.$t"); done
pattern="^($(IFS='|'; echo "${tests[*]}"))\$"
[ "$with_unit" -eq 1 ] && ctest --test-dir "$build_dir" --output-on-failure -j 2 -L unit
ctest --test-dir "$build_dir" --output-on-failure -j 2 -R "$pattern"
scripts/fuzz.sh "$build_dir" "$seconds" "${fuzz_targets[@]}"
