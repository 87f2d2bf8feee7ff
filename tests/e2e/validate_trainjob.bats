#!/usr/bin/env bats
# kubectl pytorch validate on Kubeflow Trainer v2 documents: the carried schemas of each release
# (--trainer), the override field each release has, exact findings, --crd with several CRDs.
load helpers

setup() {
  setup_workdir
  T="$KPT_SOURCE_DIR/testdata/trainjob"
  export KUBECACHEDIR="$KPT_WORK/cache"
  export NO_COLOR=1
}
teardown() { teardown_workdir; }

@test "the TrainJob examples validate clean against the newest release" {
  cp "$T/multi-node.yaml" "$T/runtime-patches.yaml" "$T/dataset-init.yaml" "$T/mnist-dp.yaml" .
  run "$KPT_BIN" validate --offline multi-node.yaml runtime-patches.yaml dataset-init.yaml mnist-dp.yaml
  [ "$status" -eq 0 ]
  # Clean files print one summary line; the oldSelf notes (true of every TrainJob) only with -v.
  [ "$output" = "0 errors, 0 warnings in 5 documents (4 files)" ]
  run "$KPT_BIN" validate --offline -v 1 multi-node.yaml runtime-patches.yaml dataset-init.yaml mnist-dp.yaml
  [ "$status" -eq 0 ]
  [ "${lines[-1]}" = "0 errors, 0 warnings, 5 notes in 5 documents (4 files)" ]
}

@test "a job and a runtime without release-specific fields validate clean in every release" {
  cp "$T/multi-node.yaml" "$T/dataset-init.yaml" .
  for release in v2.0.0 v2.0.1 v2.1.0 v2.2.0 v2.2.1 v2.3.0; do
    run "$KPT_BIN" validate --offline --trainer "$release" multi-node.yaml dataset-init.yaml
    echo "$release: $output"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "0 errors, 0 warnings in 3 documents (2 files)" ]
  done
}

@test "runtimePatches is an unknown field before v2.2.0, with its position and the release's schema" {
  cp "$T/runtime-patches.yaml" .
  run "$KPT_BIN" validate --offline -q --trainer v2.1.0 runtime-patches.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "runtime-patches.yaml:29:3: error: spec.runtimePatches: unknown field 'runtimePatches' [schema.unknown-field]" ]
}

@test "an unknown --trainer release exits 2 and lists the known ones" {
  cp "$T/multi-node.yaml" .
  run "$KPT_BIN" validate --offline --trainer v2.9.0 multi-node.yaml
  [ "$status" -eq 2 ]
  [ "$output" = "error: unknown Trainer release 'v2.9.0'; known: v2.0.0, v2.0.1, v2.1.0, v2.2.0, v2.2.1, v2.3.0" ]
}

@test "--crd FILE with several CRDs serves every kind in it" {
  cp "$T/multi-node.yaml" .
  cp "$KPT_BUILD_DIR/schema/carried/trainer-v2.0.0-crds.yaml" crds.yaml
  sed 's/^  runtimeRef:/  podSpecOverrides: [{targetJobs: [{name: node}]}]\n  runtimeRef:/' multi-node.yaml > v20.yaml
  run "$KPT_BIN" validate --offline --crd crds.yaml v20.yaml
  [ "$status" -eq 0 ]
  [ "${lines[-1]}" = "0 errors, 0 warnings in 1 document (1 file)" ]
  run "$KPT_BIN" validate --offline -q v20.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "v20.yaml:10:3: error: spec.podSpecOverrides: unknown field 'podSpecOverrides' [schema.unknown-field]" ]
}

@test "the CRDs' CEL rules are evaluated: a managedBy outside the enum is an error with the rule's message" {
  sed 's/^  runtimeRef:/  managedBy: example.com\/other\n  runtimeRef:/' "$T/multi-node.yaml" > managed.yaml
  run "$KPT_BIN" validate --offline -q managed.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "managed.yaml:10:14: error: spec.managedBy: ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set [schema.cel]" ]
}
