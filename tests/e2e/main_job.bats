#!/usr/bin/env bats
# The main job: the corrected seed trains with DDP on two local workers, the loss falling,
# with the cluster started for the run and stopped after it.
bats_require_minimum_version 1.5.0
load helpers

setup() {
  setup_workdir
  export HOME="$KPT_WORK/home" XDG_STATE_HOME="$KPT_WORK/state"
  mkdir -p "$HOME"
}
teardown() {
  "$KPT_BIN" local down >/dev/null 2>&1 || true
  teardown_workdir
}

@test "mnist-dp trains on two local workers and exits 0; the local cluster is stopped after" {
  run --separate-stderr timeout 300 "$KPT_BIN" run --local "$KPT_SOURCE_DIR/testdata/mnist-dp/mnist-dp.yaml"
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"starting the local cluster"* ]]
  [[ "$stderr" == *"stopped the local cluster"* ]]
  for r in 0 1; do
    [[ "$output" == *"[worker-$r r$r] rank $r epoch 5/5 loss "* ]]
  done
  # The loss falls: rank 0's last epoch is below its first.
  first=$(echo "$output" | sed -n 's/^\[worker-0 r0\] rank 0 epoch 1\/5 loss \([0-9.]*\).*/\1/p')
  last=$(echo "$output" | sed -n 's/^\[worker-0 r0\] rank 0 epoch 5\/5 loss \([0-9.]*\).*/\1/p')
  python3 -c "import sys; sys.exit(0 if float('$last') < float('$first') else 1)"
  run "$KPT_BIN" local status
  [[ "$output" == *"not running"* ]]
}
