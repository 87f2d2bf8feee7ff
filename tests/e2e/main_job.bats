#!/usr/bin/env bats
# The main job: the corrected seed trains with DDP on two local workers on the real Fashion-MNIST
# (Debian's dataset-fashion-mnist), the loss falling and the test accuracy printed, with the cluster
# started for the run and stopped after it.
bats_require_minimum_version 1.5.0
load helpers

setup() {
  setup_workdir
  export HOME="$KPT_WORK/home" XDG_STATE_HOME="$KPT_WORK/state"
  mkdir -p "$HOME"
}
teardown() {
  "$KPT_BIN" local down --force --grace 2s >/dev/null 2>&1 || true
  teardown_workdir
}

@test "mnist-dp trains on Fashion-MNIST on two local workers and exits 0; the local cluster is stopped after" {
  run --separate-stderr timeout 300 "$KPT_BIN" run --local "$KPT_SOURCE_DIR/testdata/mnist-dp/mnist-dp.yaml"
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"starting the local cluster"* ]]
  [[ "$stderr" == *"stopped the local cluster"* ]]
  for r in 0 1; do
    [[ "$output" == *"[worker-$r r$r] rank $r/2: 30000 of 60000 Fashion-MNIST training images per epoch"* ]]
    [[ "$output" == *"[worker-$r r$r] rank $r epoch 3/3 loss "* ]]
  done
  # The loss falls: rank 0's last epoch is below its first.
  first=$(echo "$output" | sed -n 's/^\[worker-0 r0\] rank 0 epoch 1\/3 loss \([0-9.]*\).*/\1/p')
  last=$(echo "$output" | sed -n 's/^\[worker-0 r0\] rank 0 epoch 3\/3 loss \([0-9.]*\).*/\1/p')
  python3 -c "import sys; sys.exit(0 if float('$last') < float('$first') else 1)"
  # Every test image is counted once, and the small CNN learns the set (published small-CNN
  # baselines are 87-92%; this one reaches about 88% in three epochs).
  accuracy=$(echo "$output" | sed -n 's/^\[worker-0 r0\] test accuracy \([0-9.]*\)% ([0-9]*\/10000 test images).*/\1/p')
  [ -n "$accuracy" ]
  python3 -c "import sys; sys.exit(0 if float('$accuracy') >= 80 else 1)"
  run "$KPT_BIN" local status
  [[ "$output" == *"not running"* ]]
}

@test "the seed's script says which data it lacks and how to get it, exit 2" {
  mkdir data
  run --separate-stderr env MASTER_ADDR=localhost MASTER_PORT=1 RANK=0 WORLD_SIZE=1 DATA_DIR="$PWD/data" \
    /usr/bin/python3 "$KPT_SOURCE_DIR/testdata/mnist-dp/mnist.py"
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: Fashion-MNIST: reading '$PWD/data/train-images-idx3-ubyte.gz': No such file or directory (install Debian's dataset-fashion-mnist, or set DATA_DIR to a folder with its four IDX files)" ]
  printf 'not idx' | gzip >data/train-images-idx3-ubyte.gz
  run --separate-stderr env MASTER_ADDR=localhost MASTER_PORT=1 RANK=0 WORLD_SIZE=1 DATA_DIR="$PWD/data" \
    /usr/bin/python3 "$KPT_SOURCE_DIR/testdata/mnist-dp/mnist.py"
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: Fashion-MNIST: '$PWD/data/train-images-idx3-ubyte.gz' is not an IDX file with 3 dimension(s) (install Debian's dataset-fashion-mnist, or set DATA_DIR to a folder with its four IDX files)" ]
}
