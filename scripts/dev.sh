#!/usr/bin/env bash
# One entry point for README's two set-up commands:
#   scripts/dev.sh main        install the Debian packages, build the binary, run the main job
#   scripts/dev.sh test        install the Debian packages, build everything, run every test
# and for the checks around them:
#   scripts/dev.sh configure   install the build packages only and configure main's build (CI runs
#                              it in a fresh Debian root: scripts/fresh-root.sh -- scripts/dev.sh configure)
#   scripts/dev.sh packages build|main|test   print a package list (the one source of them)
# Idempotent: apt-get installs only what is missing; the build is incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-main}

# What configure and the build of the binary need. kubectl itself is expected on PATH (the plugin's
# host; it is not a Debian package).
build_packages=(cmake ninja-build g++ pkg-config git ca-certificates ccache python3
  libyaml-dev libcurl4-openssl-dev libcli11-dev libfmt-dev nlohmann-json3-dev libcpp-httplib-dev
  libssl-dev zlib1g-dev libsqlite3-dev protobuf-compiler libprotobuf-dev golang-k8s-kube-openapi-dev libre2-dev)
# What the main job needs to run: name resolution for local pods, PyTorch, and the real
# Fashion-MNIST images of dataset-fashion-mnist.
run_packages=(libnss-wrapper python3-torch dataset-fashion-mnist)
# What only the tests need: GoogleTest and Google Benchmark, bats, the format check, the
# differential tests' oracles (valijson, yaml-cpp), the sanitizer stage's clang, lld and
# llvm-symbolizer (scripts/sanitize.sh), the second client, the image suite's reader and registry,
# debootstrap for the fresh-root check, the Prometheus text-format parser the controller's
# /metrics is checked with, pre-commit, which runs .pre-commit-hooks.yaml in e2e.validate_precommit, and
# jq, which e2e.apiserver and e2e.controller_local read kubectl's JSON with.
test_packages=(libgtest-dev libgmock-dev libbenchmark-dev clang-format bats python3-jsonschema python3-yaml
  util-linux procps python3-kubernetes hyperfine libvalijson-dev libyaml-cpp-dev clang-14 libclang-rt-14-dev
  lld-14 llvm-14 skopeo docker-registry binutils curl debootstrap python3-prometheus-client pre-commit jq)

case "$mode" in
  configure) packages=("${build_packages[@]}") ;;
  main) packages=("${build_packages[@]}" "${run_packages[@]}") ;;
  test) packages=("${build_packages[@]}" "${run_packages[@]}" "${test_packages[@]}") ;;
  packages)
    case "${2:-}" in
      build) echo "${build_packages[*]}" ;;
      main) echo "${build_packages[*]} ${run_packages[*]}" ;;
      test) echo "${build_packages[*]} ${run_packages[*]} ${test_packages[*]}" ;;
      *) echo "usage: scripts/dev.sh packages build|main|test" >&2; exit 2 ;;
    esac
    exit 0
    ;;
  *)
    echo "usage: scripts/dev.sh main|test|configure|packages LIST" >&2
    exit 2
    ;;
esac

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

TIMEFORMAT='%R s wall, %U+%S s CPU'
case "$mode" in
  configure)
    cmake -S . -B "${KPT_BUILD_DIR:-build}" -G Ninja -DCMAKE_BUILD_TYPE=Release
    ;;
  main)
    # Release: the binary a user runs, and the quickest build of it. The tests build elsewhere.
    build_dir=${KPT_BUILD_DIR:-build-main}
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    echo "== building kubectl-pytorch in $build_dir" >&2
    time cmake --build "$build_dir" -j "$(nproc)" --target kubectl-pytorch
    # The main job: the corrected seed trains with DDP on two workers on Fashion-MNIST, run as local
    # processes by the embedded cluster (started for the run, stopped after it).
    "$build_dir/bin/kubectl-pytorch" run --local testdata/mnist-dp/mnist-dp.yaml
    ;;
  test)
    # Formatting first: a tree that is not clang-formatted fails in seconds, not after the build.
    scripts/format.sh --check
    build_dir=${KPT_BUILD_DIR:-build}
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPT_WERROR=ON -DKPT_TESTS=ON \
      -DKPT_BENCHMARKS=ON >/dev/null
    echo "== building everything in $build_dir" >&2
    time cmake --build "$build_dir" -j "$(nproc)"
    time ctest --test-dir "$build_dir" --output-on-failure -j 2
    ;;
esac
