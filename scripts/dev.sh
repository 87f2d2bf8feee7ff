#!/usr/bin/env bash
# One entry point for README's two set-up commands:
#   scripts/dev.sh main   install Debian dependencies, build, run the main job
#   scripts/dev.sh test   install Debian dependencies, build, run every test
# Idempotent: apt-get installs only what is missing; the build is incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-main}
build_dir=${KPT_BUILD_DIR:-build}

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

# kubectl itself is expected on PATH (the plugin's host); python3-torch runs the main job on the real
# Fashion-MNIST images of dataset-fashion-mnist.
packages=(cmake ninja-build g++ pkg-config git ca-certificates ccache clang-format
  libyaml-dev libcurl4-openssl-dev libcli11-dev libfmt-dev libgtest-dev libgmock-dev
  nlohmann-json3-dev libcpp-httplib-dev libspdlog-dev libbenchmark-dev libssl-dev zlib1g-dev libsqlite3-dev
  golang-k8s-kube-openapi-dev python3 openssl libnss-wrapper python3-torch dataset-fashion-mnist
  protobuf-compiler libprotobuf-dev)
if [ "$mode" = test ]; then
  # The differential tests' oracles (valijson, yaml-cpp), the sanitizer stage's clang, lld and
  # llvm-symbolizer (scripts/sanitize.sh), and the image suite's second reader and registry.
  packages+=(bats python3-jsonschema python3-yaml util-linux procps python3-kubernetes hyperfine
    libvalijson-dev libyaml-cpp-dev clang-14 libclang-rt-14-dev lld-14 llvm-14 skopeo docker-registry
    binutils curl)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "$mode" = test ]; then
  # Formatting first: a tree that is not clang-formatted fails in seconds, not after the build.
  scripts/format.sh --check
fi

cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPT_WERROR=ON >/dev/null
if [ "$mode" = main ]; then
  cmake --build "$build_dir" -j "$(nproc)" --target kubectl-pytorch
else
  cmake --build "$build_dir" -j "$(nproc)"
fi

case "$mode" in
  main)
    # The main job: the corrected seed trains with DDP on two workers on Fashion-MNIST, run as local
    # processes by the embedded cluster (started for the run, stopped after it).
    "$build_dir/bin/kubectl-pytorch" run --local testdata/mnist-dp/mnist-dp.yaml
    ;;
  test)
    ctest --test-dir "$build_dir" --output-on-failure -j 2
    ;;
  *)
    echo "usage: scripts/dev.sh main|test" >&2
    exit 2
    ;;
esac
