#!/usr/bin/env bats
# env JOBNAME --local --live: the env our controller gave the pods of a job run on the embedded
# cluster, compared with what each style expects.
bats_require_minimum_version 1.5.0
load helpers

setup_file() {
  export KPT_FILE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kpt-envlive.XXXXXX")
  export HOME="$KPT_FILE_DIR/home" XDG_STATE_HOME="$KPT_FILE_DIR/state"
  mkdir -p "$HOME"
  "$KPT_BIN" local up >"$KPT_FILE_DIR/up.log" 2>&1
  timeout 120 "$KPT_BIN" run --local "$KPT_SOURCE_DIR/testdata/run/hello.yaml" >"$KPT_FILE_DIR/run.log" 2>&1
}

teardown_file() {
  "$KPT_BIN" local down --force --grace 2s >/dev/null 2>&1 || true
  rm -rf "$KPT_FILE_DIR"
}

setup() { setup_workdir; }
teardown() { teardown_workdir; }

@test "the pods our controller made match the worker-only style: exit 0" {
  run --separate-stderr "$KPT_BIN" env hello --local --live
  [ "$status" -eq 0 ]
  [ "$output" = $'style: worker-only\npod hello-worker-0: env matches\npod hello-worker-1: env matches' ]
}

@test "compared with the legacy style, the missing torchrun vars are named: exit 1" {
  run --separate-stderr "$KPT_BIN" env hello --local --live --style legacy
  [ "$status" -eq 1 ]
  [[ "$output" == *"pod hello-worker-1: extra 'PET_NODE_RANK' = '1'"* ]]
  [[ "$output" != *"env matches"* ]]
}

@test "compared with operator v1.9.4, the worker-only job's RANK is named as extra: exit 1" {
  run --separate-stderr "$KPT_BIN" env hello --local --live --operator v1.9.4
  [ "$status" -eq 1 ]
  [[ "$output" == *"pod hello-worker-0: extra 'RANK' = '0'"* ]]
}

@test "env JOBNAME --local without --live shows the table from the cluster's job" {
  run --separate-stderr "$KPT_BIN" env hello --local --style worker-only
  [ "$status" -eq 0 ]
  [[ "$output" == *"hello-worker-1  Worker  1      1     hello-worker-1"* ]]
}

@test "a job that is not in the cluster: exit 1 and the API's message" {
  run --separate-stderr "$KPT_BIN" env nosuch --local --live
  [ "$status" -eq 1 ]
  [ "$stderr" = "error: pytorchjobs.kubeflow.org \"nosuch\" not found" ]
}
