#!/usr/bin/env bats
# validate on TrainJobs and their runtimes: Trainer's webhook rules per release with their own
# messages, each at file:line:col with a rule id, and a TrainJob checked against the runtime it names
# (same input, another input of the run, or the ones the release ships).
load helpers

setup() {
  setup_workdir
  T="$KPT_SOURCE_DIR/testdata/trainjob"
  export KUBECACHEDIR="$KPT_WORK/cache"
  export NO_COLOR=1
}
teardown() { teardown_workdir; }

@test "a TrainJob naming a runtime that is nowhere is the webhook's denial, exit 1" {
  cat >job.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: lost
spec:
  runtimeRef:
    name: my-runtime
YAML
  run "$KPT_BIN" validate --offline -q job.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "job.yaml:7:5: error: spec.runtimeRef: clustertrainingruntimes.trainer.kubeflow.org \"my-runtime\" not found: specified clusterTrainingRuntime must be created before the TrainJob is created [trainer.runtime-ref]" ]
}

@test "the runtime may be in another file of the same run" {
  cat >runtime.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: my-runtime
spec:
  mlPolicy:
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: busybox
                      command: [torchrun, train.py]
YAML
  cat >job.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: found
spec:
  runtimeRef:
    name: my-runtime
  trainer:
    env:
      - name: PET_NNODES
        value: "4"
YAML
  run "$KPT_BIN" validate --offline -q runtime.yaml job.yaml
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 4 ]
  [ "${lines[0]}" = "job.yaml:10:9: error: spec.trainer.env: must not have reserved envs, invalid envs configured: [PET_NNODES] [trainer.reserved-env]" ]
  [ "${lines[1]}" = "      - name: PET_NNODES" ]
  [ "${lines[3]}" = "  hint: Trainer sets these from numNodes, numProcPerNode and the JobSet; drop them" ]
}

@test "a patch naming a job the runtime lacks: an error from v2.2.0 on, with the path of the entry" {
  sed 's/              - name: node$/              - name: trainer/' "$T/runtime-patches.yaml" >patched.yaml
  run "$KPT_BIN" validate --offline -q -o json patched.yaml
  [ "$status" -eq 1 ]
  run /usr/bin/python3 -c '
import json, sys
doc = json.load(open("/dev/stdin"))
found = [(d["line"], d["column"], d["rule"]) for d in doc["diagnostics"] if d["severity"] != "info"]
assert found == [(42, 23, "trainer.patch-job")], found
' <<<"$output"
  [ "$status" -eq 0 ]
  run "$KPT_BIN" validate --offline -q --trainer v2.2.0 patched.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "patched.yaml:42:23: error: spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].name: must not have replicated job that doesn't exist in the runtime job template [trainer.patch-job]" ]
}

@test "a runtime's trainer job must run once with a node container" {
  cat >runtime.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: two
spec:
  template:
    spec:
      replicatedJobs:
        - name: node
          replicas: 2
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: trainer
                      image: busybox
YAML
  run "$KPT_BIN" validate --offline -q runtime.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "runtime.yaml:10:21: error: spec.template.spec.replicatedJobs[0].replicas: always must be 1 [trainer.runtime-replicas]" ]
  [ "${lines[4]}" = "runtime.yaml:19:21: error: spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers: must contain the required container for the ancestor: trainer [trainer.runtime-container]" ]
}

@test "lints: a name JobSet rejects after admission and a torch command without torchrun" {
  cat >job.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: a-very-long-trainjob-name-that-passes-the-crd-limit
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    command: [python, train.py]
YAML
  run "$KPT_BIN" validate --offline -q job.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "job.yaml:4:9: error: metadata.name: name 'a-very-long-trainjob-name-that-passes-the-crd-limit' has 51 characters: the TrainJob CRD allows 63, but JobSet's webhook allows at most 48 here (the pod names of 'node' would exceed 63), so the JobSet is rejected and the TrainJob gets no condition, only a Warning event [lint.trainjob-name-length]" ]
  [ "${lines[3]}" = "  hint: use a name of at most 48 characters" ]
  run "$KPT_BIN" validate --offline job.yaml
  [ "$status" -eq 1 ]
  [[ "$output" == *"job.yaml:9:14: warning: spec.trainer.command: the torch runtime runs 'python train.py' without torchrun: Trainer sets only PET_* variables, so RANK, LOCAL_RANK and WORLD_SIZE are unset and init_process_group(\"env://\") fails [lint.trainjob-no-torchrun]"* ]]
  run "$KPT_BIN" validate --offline --disable lint.trainjob-name-length --disable lint.trainjob-no-torchrun job.yaml
  [ "$status" -eq 0 ]
  [ "$output" = "0 errors, 0 warnings in 1 document (1 file)" ]
}
