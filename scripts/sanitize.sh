#!/usr/bin/env bash
# The sanitizer stage of CI (.ci/run calls it after scripts/dev.sh test): a second build of the
# tree with clang 14, AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's coverage
# instrumentation (build-asan/), then under the sanitizers
#   1. every unit, integration and differential test, and every fuzz target replaying its
#      committed corpus (seeds and past findings): ctest -L 'unit|integration|differential|fuzz';
#   2. every fuzz target fuzzing for SECONDS (scripts/fuzz.sh, two at a time).
# The bats e2e suites are not run here: they are run by scripts/dev.sh test on the normal build.
#
#   scripts/sanitize.sh [SECONDS_PER_TARGET] [--quick]   (default 20; KPT_ASAN_DIR overrides build-asan)
#
# .ci/run runs it whole. --quick builds the fuzz targets and the differential tests alone, and the
# libraries they link (all but local/ and plugin/), and runs those: a faster check while working on
# a parser. KPT_FUZZ_TARGETS="manifest_reader crd ..." limits the fuzz targets. Each stage prints its wall and CPU
# seconds (README, "Fuzzing, sanitizers and CI's budget", records them).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-20}
quick=0
[ "${2:-}" = --quick ] && quick=1
build_dir=${KPT_ASAN_DIR:-build-asan}
TIMEFORMAT='%R s wall, %U+%S s CPU'

fuzz_targets=(apiserver_request cel crd kubeconfig manifest_reader patch schema_binary selectors structural
  watch_stream)
if [ -n "${KPT_FUZZ_TARGETS:-}" ]; then read -r -a fuzz_targets <<<"$KPT_FUZZ_TARGETS"; fi

# -O1 with line tables only: the sanitizers' usual level, with file:line in their stacks, at a
# fraction of the compile time and object size of -g. lld links the large instrumented binaries.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld \
  -DKPT_WERROR=ON -DKPT_TESTS=ON -DKPT_SANITIZE=ON -DKPT_FUZZ=ON -DKPT_BENCHMARKS=OFF >/dev/null

targets=(differential_tests)
for t in "${fuzz_targets[@]}"; do targets+=("fuzz_$t"); done
[ "$quick" -eq 1 ] || targets=(all)
echo "== sanitizer build (${targets[*]})"
time cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"

# Leaks are reported too; a finding names its stack (symbolized by llvm-symbolizer, llvm-14).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ "$quick" -eq 1 ]; then
  tests=()
  for t in "${fuzz_targets[@]}"; do tests+=("fuzz\\.$t"); done
  echo "== differential tests and fuzz-corpus replay under the sanitizers"
  # Each yaml-cpp parse is a fork, slow from an ASan process: 4 mutations per fixture, not 12.
  time env KPT_DIFF_MUTATIONS=${KPT_DIFF_MUTATIONS:-4} ctest --test-dir "$build_dir" --output-on-failure -j 2 \
    --timeout 600 -L '^differential$'
  time ctest --test-dir "$build_dir" --output-on-failure -j 2 -R "^($(IFS='|'; echo "${tests[*]}"))\$"
else
  # --timeout: a test without its own TIMEOUT cannot hang the stage.
  echo "== unit, integration, differential and fuzz-corpus tests under the sanitizers"
  time ctest --test-dir "$build_dir" --output-on-failure -j 2 --timeout 600 -L '^(unit|integration|differential|fuzz)$'
fi
echo "== fuzzing, $seconds s per target"
time scripts/fuzz.sh "$build_dir" "$seconds" "${fuzz_targets[@]}"
