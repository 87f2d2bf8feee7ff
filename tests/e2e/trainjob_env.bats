#!/usr/bin/env bats
# kubectl pytorch env on TrainJobs, offline: every node pod, its env in pod order, the master and
# the notes, per Trainer release, in table, json and dotenv form.
bats_require_minimum_version 1.5.0
load helpers

setup() { setup_workdir; }
teardown() { teardown_workdir; }

TESTDATA="$KPT_SOURCE_DIR/testdata/trainjob"

@test "the worked example: two node pods, hostnames, PET_* in pod order and the torchrun note" {
  run --separate-stderr "$KPT_BIN" env "$TESTDATA/multi-node.yaml"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "trainjob: default/multi-node-example (Trainer v2.3.0)" ]
  [ "${lines[1]}" = "runtime: ClusterTrainingRuntime/torch-distributed shipped with Trainer v2.3.0, framework torch" ]
  [ "${lines[2]}" = "master: multi-node-example-node-0-0.multi-node-example:29500" ]
  [ "${lines[3]}" = "POD                                HOSTNAME                     NODE RANK  SERVICE" ]
  [ "${lines[4]}" = "multi-node-example-node-0-0-xxxxx  multi-node-example-node-0-0  0          multi-node-example" ]
  [ "${lines[5]}" = "multi-node-example-node-0-1-xxxxx  multi-node-example-node-0-1  1          multi-node-example" ]
  [ "${lines[7]}" = "PET_NNODES              2                                               2" ]
  [ "${lines[8]}" = "PET_NPROC_PER_NODE      1                                               1" ]
  [ "${lines[9]}" = "PET_NODE_RANK *         0                                               1" ]
  [ "${lines[12]}" = "JOB_COMPLETION_INDEX *  0                                               1" ]
  # Notes wrap at 120 columns under their first word.
  [ "${lines[14]}" = "note: torchrun, not Trainer, sets RANK, LOCAL_RANK and WORLD_SIZE for each process it starts, from these PET_*" ]
  [ "${lines[15]}" = "      variables; a plain \`python train.py\` sees none of them" ]
  [ "${lines[16]}" = "note: world size = PET_NNODES x PET_NPROC_PER_NODE = 2 x 1 = 2" ]
  for line in "${lines[@]}"; do [ "${#line}" -le 120 ]; done
}

@test "each release's PET_NPROC_PER_NODE for the runtime-patches example (cpu requests 2, limits 4)" {
  for pair in v2.0.0:4 v2.0.1:4 v2.1.0:2 v2.2.0:2 v2.2.1:2 v2.3.0:2; do
    run --separate-stderr "$KPT_BIN" env "$TESTDATA/runtime-patches.yaml" --trainer "${pair%%:*}" \
      -o dotenv --pod runtime-patches-example-node-0-1
    [ "$status" -eq 0 ]
    [ "$output" = "CUSTOM_VAR=custom-value
PYTHONUNBUFFERED=1
PET_NNODES=2
PET_NPROC_PER_NODE=${pair##*:}
PET_NODE_RANK=1
PET_MASTER_ADDR=runtime-patches-example-node-0-0.runtime-patches-example
PET_MASTER_PORT=29500
JOB_COMPLETION_INDEX=1" ]
  done
}

@test "v2.0.0 passes auto through when the TrainJob declares no resources, and says what it becomes" {
  run --separate-stderr "$KPT_BIN" env "$TESTDATA/multi-node.yaml" --trainer v2.0.0
  [ "$status" -eq 0 ]
  [ "${lines[8]}" = "PET_NPROC_PER_NODE      auto                                            auto" ]
  [[ "$output" == *"note: PET_NPROC_PER_NODE=auto: torchrun starts one process per visible GPU, or one per CPU core of the host when it sees"$'\n'"      none (release v2.0.0 passes auto through without resourcesPerNode)"* ]]
}

@test "a TrainingRuntime in the same file, and one given with -f, is the runtime used" {
  run --separate-stderr "$KPT_BIN" env "$TESTDATA/dataset-init.yaml" -o json
  [ "$status" -eq 0 ]
  run /usr/bin/python3 -c '
import json, sys
doc = json.load(open("/dev/stdin"))
assert list(doc) == ["kind", "name", "trainer", "runtime", "framework", "masterAddr", "masterPort", "pods", "notes"], list(doc)
assert doc["runtime"] == {"kind": "TrainingRuntime", "name": "torch-with-dataset-init", "from": "from the input"}, doc["runtime"]
assert [p["hostname"] for p in doc["pods"]] == ["multi-step-node-0-0", "multi-step-node-0-1"]
assert list(doc["pods"][0]) == ["name", "generateName", "hostname", "subdomain", "index", "env"]
' <<<"$output"
  [ "$status" -eq 0 ]

  cat >runtime.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: my-torch
spec:
  mlPolicy:
    numNodes: 3
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
                      env:
                        - name: FROM_RUNTIME
                          value: "yes"
                      resources:
                        requests:
                          cpu: 1500m
YAML
  cat >job.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: mine
spec:
  runtimeRef:
    name: my-torch
  trainer:
    command: [torchrun, train.py]
YAML
  run --separate-stderr "$KPT_BIN" env job.yaml -f runtime.yaml -o dotenv --pod mine-node-0-2
  [ "$status" -eq 0 ]
  [ "$output" = "FROM_RUNTIME=yes
PET_NNODES=3
PET_NPROC_PER_NODE=2
PET_NODE_RANK=2
PET_MASTER_ADDR=mine-node-0-0.mine
PET_MASTER_PORT=29500
JOB_COMPLETION_INDEX=2" ]
}

@test "a runtime that is nowhere: the controller's message, exit 1" {
  cat >job.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: lost
spec:
  runtimeRef:
    name: nosuch
YAML
  run --separate-stderr "$KPT_BIN" env job.yaml
  [ "$status" -eq 1 ]
  [ "$stderr" = "error: TrainJob 'lost': not found ClusterTrainingRuntime specified in TrainJob: clustertrainingruntimes.trainer.kubeflow.org \"nosuch\" not found" ]
}

@test "flags of the other generation, an unknown release and an unknown pod are usage errors: exit 2" {
  run --separate-stderr "$KPT_BIN" env "$TESTDATA/multi-node.yaml" --operator v1.9.4
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: --operator and --style are for PyTorchJobs; a TrainJob takes --trainer vX.Y.Z" ]
  run --separate-stderr "$KPT_BIN" env "$TESTDATA/multi-node.yaml" --trainer v2.9.0
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: unknown Trainer release 'v2.9.0'; known: v2.0.0, v2.0.1, v2.1.0, v2.2.0, v2.2.1, v2.3.0" ]
  run --separate-stderr "$KPT_BIN" env "$TESTDATA/multi-node.yaml" -o dotenv --pod nope
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: no pod 'nope' in TrainJob 'multi-node-example' (hostnames: multi-node-example-node-0-0, multi-node-example-node-0-1)" ]
  run --separate-stderr "$KPT_BIN" env "$KPT_SOURCE_DIR/testdata/mnist-dp.yaml" --trainer v2.3.0
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: --trainer and -f are for TrainJobs; a PyTorchJob takes --operator or --style" ]
}
