#!/usr/bin/env bats
# kubectl pytorch convert: a PyTorchJob becomes a TrainJob that validates clean and whose pods get
# the rendezvous of the operator's torchrun style; the per-field report goes to stderr.
bats_require_minimum_version 1.5.0
load helpers

setup() {
  setup_workdir
  export NO_COLOR=1
  cat >job.yaml <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: mnist
spec:
  nprocPerNode: "2"
  runPolicy:
    cleanPodPolicy: All
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: busybox
            command: [python, mnist.py]
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: busybox
            command: [python, mnist.py]
YAML
}
teardown() { teardown_workdir; }

@test "the converted TrainJob validates clean, and its env matches the torchrun style's rendezvous" {
  run --separate-stderr "$KPT_BIN" convert job.yaml
  [ "$status" -eq 0 ]
  printf '%s\n' "$output" >trainjob.yaml
  [[ "$stderr" == *"changed: spec.pytorchReplicaSpecs.Worker.template.spec.containers[pytorch].command: 'python ...' becomes 'torchrun ...'"* ]]
  [[ "$stderr" == *"no equivalent: spec.runPolicy.cleanPodPolicy: JobSet keeps finished pods until its ttlSecondsAfterFinished (runtime)"* ]]
  run "$KPT_BIN" validate --offline trainjob.yaml
  [ "$status" -eq 0 ]
  run --separate-stderr "$KPT_BIN" env trainjob.yaml -o dotenv --pod mnist-node-0-1
  [ "$status" -eq 0 ]
  [[ "$output" == *$'PET_NNODES=2\nPET_NPROC_PER_NODE=2\nPET_NODE_RANK=1\n'* ]]
  run --separate-stderr "$KPT_BIN" env job.yaml --style torchrun -o dotenv --pod mnist-worker-0
  [[ "$output" == *"PET_NNODES=2"* && "$output" == *"PET_NPROC_PER_NODE=2"* && "$output" == *"PET_NODE_RANK=1"* ]]
}

@test "a file without one PyTorchJob is a usage error: exit 2" {
  run --separate-stderr "$KPT_BIN" convert "$KPT_SOURCE_DIR/testdata/trainjob/multi-node.yaml"
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: '$KPT_SOURCE_DIR/testdata/trainjob/multi-node.yaml' holds 0 PyTorchJobs: pass a file with one" ]
}

@test "the guide's example: its misplaced fields have no equivalent, and the YAML ends with a newline" {
  run --separate-stderr "$KPT_BIN" convert "$KPT_SOURCE_DIR/testdata/mnist-dp.yaml"
  [ "$status" -eq 0 ]
  [ "${lines[-1]}" = "    numNodes: 2" ]
  [[ "$stderr" == *"no equivalent: spec.cleanPodPolicy: not a field the conversion knows; left out"* ]]
}
