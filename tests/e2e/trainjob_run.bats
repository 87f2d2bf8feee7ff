#!/usr/bin/env bats
# `run`, `logs` and `status` on TrainJobs, on the local cluster with real torchrun: every node
# followed with [node-<i> r<i>] prefixes (torchrun's own [default<local rank>]: prefix kept inside),
# the job's verdict as the exit code, hints that name trainjob/NAME.
# Needs Debian's python3-torch and libnss-wrapper; KPT_TORCH_E2E=skip skips the torch cases.
bats_require_minimum_version 1.5.0
load helpers

TORCH_DIR="$BATS_TEST_DIRNAME/torch"

setup_file() { start_file_cluster trainjob-run; }

teardown_file() { stop_file_cluster; }

setup() { setup_workdir; }
teardown() { teardown_workdir; }

needs_torch() {
  if [ "${KPT_TORCH_E2E:-}" = skip ]; then skip "KPT_TORCH_E2E=skip"; fi
}

# write_allreduce NAME NODES PROCS: torchrun runs torchrun_allreduce.py from the manifest's folder
# (a relative path: the folder reaches the pods through run --local's runtime patch).
write_allreduce() {
  cp "$TORCH_DIR/torchrun_allreduce.py" .
  cat >"$1.yaml" <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: $1
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: $2
    numProcPerNode: $3
    command: [torchrun, torchrun_allreduce.py, "$(($2 * $3))"]
YAML
}

# A namespaced runtime whose Job gives up at the first failure (the default runtime's Job retries
# six times, with back-off), beside a TrainJob of it whose node 0 exits 3.
write_rank0_fails() {
  cat >rank0.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: no-retries
  labels:
    trainer.kubeflow.org/framework: torch
spec:
  mlPolicy:
    numNodes: 1
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
            backoffLimit: 0
            template:
              spec:
                restartPolicy: Never
                containers:
                - name: node
                  image: pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime
                  command: [/bin/false]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: rank0
spec:
  runtimeRef:
    name: no-retries
    kind: TrainingRuntime
  trainer:
    numNodes: 2
    command:
    - sh
    - -c
    - 'if [ "$JOB_COMPLETION_INDEX" = 0 ]; then echo "node 0 gives up"; exit 3; fi; sleep 30'
YAML
}

@test "run --local: 2 nodes x 2 processes all-reduce under torchrun, every node followed, exit 0" {
  needs_torch
  write_allreduce ar 2 2
  run --separate-stderr timeout 180 "$KPT_BIN" run --local ar.yaml
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"trainjob.trainer.kubeflow.org/ar created"* ]]
  [[ "$stderr" == *"trainjob ar succeeded in "*"(2 nodes, "* ]]
  [[ "$output" == *"[node-0 r0] [default0]:rank 0/4 local 0 node 0 ok: all_reduce=10"* ]]
  [[ "$output" == *"[node-0 r0] [default1]:rank 1/4 local 1 node 0 ok: all_reduce=10"* ]]
  [[ "$output" == *"[node-1 r1] [default0]:rank 2/4 local 0 node 1 ok: all_reduce=10"* ]]
  [[ "$output" == *"[node-1 r1] [default1]:rank 3/4 local 1 node 1 ok: all_reduce=10"* ]]
}

@test "status and logs find a TrainJob by name; status lists it among the jobs" {
  needs_torch
  write_allreduce st 1 2
  timeout 180 "$KPT_BIN" run --local st.yaml >/dev/null 2>&1
  run --separate-stderr "$KPT_BIN" status st
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "trainjob st (default): Complete" ]
  [ "${lines[1]}" = "  jobset completed successfully" ]
  [[ "${lines[2]}" =~ ^"  ran for: "[0-9]+s", restarts: 0"$ ]]
  [ "${lines[3]}" = "POD                 RANK   PHASE       RESTARTS   EXIT   WAITING" ]
  [[ "${lines[4]}" == "st-node-0-0-"?????"   0      Succeeded   0          0" ]]
  run --separate-stderr "$KPT_BIN" status trainjob/st -o json
  [ "$status" -eq 0 ]
  [ "$(echo "$output" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["kind"], d["succeeded"], d["replicas"][0]["rank"])')" = "trainjob True 0" ]
  run --separate-stderr "$KPT_BIN" status
  [ "$status" -eq 0 ]
  [[ "$output" == *"trainjob/st"*"Complete"* ]]
  run --separate-stderr "$KPT_BIN" status st -o name
  [ "$output" = "trainjob.trainer.kubeflow.org/st" ]
  run --separate-stderr "$KPT_BIN" status -o wide
  [[ "$output" == *"trainjob/st "*"Complete   "*"1      jobset completed successfully"* ]]
  run --separate-stderr "$KPT_BIN" logs st --replica node-0
  [ "$status" -eq 0 ]
  [[ "$output" == *"[node-0 r0] [default1]:rank 1/2 local 1 node 0 ok: all_reduce=3"* ]]
  run --separate-stderr "$KPT_BIN" logs st --replica node-5
  [ "$status" -eq 1 ]
  [ "$stderr" = "error: trainjob 'st' has no replica 'node-5'" ]
}

@test "node 0 exits 3 on a runtime of the same file: the runtime is applied, run exits 3 with the node named" {
  write_rank0_fails
  run --separate-stderr timeout 120 "$KPT_BIN" run --local rank0.yaml
  [ "$status" -eq 3 ]
  [[ "$stderr" == *"trainingruntime.trainer.kubeflow.org/no-retries applied"* ]]
  [[ "$output" == *"[node-0 r0] node 0 gives up"* ]]
  [[ "$stderr" == *"trainjob rank0 failed after "*"rank0-node-0-0-"*" (rank 0) exited with code 3"* ]]
  run kubectl get trainjob rank0 -o jsonpath='{.status.conditions[?(@.type=="Failed")].status}'
  [ "$output" = "True" ]
}

@test "run --image --nodes --nproc-per-node builds a TrainJob on torch-distributed" {
  needs_torch
  cp "$TORCH_DIR/torchrun_allreduce.py" .
  run --separate-stderr "$KPT_BIN" run --dry-run client --image img --nodes 2 --nproc-per-node 2 --name built -- \
    torchrun torchrun_allreduce.py 4
  [ "$status" -eq 0 ]
  [[ "$output" == *"kind: TrainJob"* ]]
  [[ "$output" == *"numNodes: 2"* ]]
  [[ "$output" == *"numProcPerNode: 2"* ]]
  run --separate-stderr timeout 180 "$KPT_BIN" run --local --image img --nodes 2 --nproc-per-node 2 --name built -- \
    torchrun torchrun_allreduce.py 4
  [ "$status" -eq 0 ]
  [[ "$output" == *"[node-1 r1] [default1]:rank 3/4 local 1 node 1 ok: all_reduce=10"* ]]
  run --separate-stderr "$KPT_BIN" run --image img --nodes 2 --workers 2 -- true
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: --workers builds a PyTorchJob and --nodes a TrainJob: give one" ]
}

@test "the seed as a TrainJob trains with run --local on part of Fashion-MNIST, the loss falling" {
  needs_torch
  # Two epochs on a sixth of the training set keep the test short; main_job.bats runs the whole seed.
  sed 's/^      - name: PYTHONUNBUFFERED$/      - name: EPOCHS\n        value: "2"\n      - name: SAMPLES\n        value: "10000"\n&/' \
    "$KPT_SOURCE_DIR/testdata/trainjob/mnist-dp.yaml" >mnist-dp.yaml
  grep -q 'value: "10000"' mnist-dp.yaml
  run --separate-stderr timeout 300 "$KPT_BIN" run --local --workdir "$KPT_SOURCE_DIR/testdata/mnist-dp" mnist-dp.yaml
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"trainjob mnist-dp succeeded in "* ]]
  first=$(echo "$output" | sed -n 's/^\[node-0 r0\] .*rank 0 epoch 1\/2 loss \([0-9.]*\).*/\1/p')
  last=$(echo "$output" | sed -n 's/^\[node-0 r0\] .*rank 0 epoch 2\/2 loss \([0-9.]*\).*/\1/p')
  [ -n "$first" ] && [ -n "$last" ]
  python3 -c "import sys; sys.exit(0 if float('$last') < float('$first') else 1)"
  [[ "$output" == *"[node-1 r1] "*"rank 1 epoch 2/2 loss "* ]]
  [[ "$output" == *"[node-0 r0] "*"rank 0/2: 5000 of 10000 Fashion-MNIST training images per epoch"* ]]
  [[ "$output" == *"[node-0 r0] "*"test accuracy "*"% ("*"/10000 test images)"* ]]
}

@test "Trainer's multi-node example runs on the local cluster (torch 1.13 spells --no-python --no_python)" {
  needs_torch
  sed 's/--no-python/--no_python/' "$KPT_SOURCE_DIR/testdata/trainjob/multi-node.yaml" >multi-node.yaml
  run --separate-stderr timeout 180 "$KPT_BIN" run --local multi-node.yaml
  [ "$status" -eq 0 ]
  [[ "$output" == *"[node-0 r0] "*"rank 0 of 2"* ]]
  [[ "$output" == *"[node-1 r1] "*"rank 1 of 2"* ]]
}

@test "the same 2 x 2 job run --local as a worker-only PyTorchJob and as a TrainJob: the same world size and ranks" {
  needs_torch
  cp "$TORCH_DIR/torchrun_allreduce.py" .
  cat >pytorchjob.yaml <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: same
spec:
  nprocPerNode: "2"
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime
            command: [torchrun, torchrun_allreduce.py, "4"]
YAML
  ranks() { sed -n 's/.*\(rank [0-9]\/[0-9] local [0-9] node [0-9]\) ok.*/\1/p' | sort; }
  run --separate-stderr timeout 180 "$KPT_BIN" run --local --rm pytorchjob.yaml
  [ "$status" -eq 0 ]
  from_pytorchjob=$(echo "$output" | ranks)
  write_allreduce same 2 2
  run --separate-stderr timeout 180 "$KPT_BIN" run --local --rm same.yaml
  [ "$status" -eq 0 ]
  from_trainjob=$(echo "$output" | ranks)
  [ "$from_pytorchjob" = $'rank 0/4 local 0 node 0\nrank 1/4 local 1 node 0\nrank 2/4 local 0 node 1\nrank 3/4 local 1 node 1' ]
  [ "$from_trainjob" = "$from_pytorchjob" ]
}

@test "--timeout on a TrainJob: exit 124, it keeps running, and the hints name trainjob/NAME" {
  cat >sleepy.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: sleepy
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 1
    command: [sleep, "60"]
YAML
  run --separate-stderr timeout 60 "$KPT_BIN" run --local --timeout 3s sleepy.yaml
  [ "$status" -eq 124 ]
  [[ "$stderr" == *"follow again: kubectl pytorch logs trainjob/sleepy -f --local -n default"* ]]
  [[ "$stderr" == *"delete it:    kubectl delete trainjob sleepy --kubeconfig "*" -n default"* ]]
  run kubectl get pods -l jobset.sigs.k8s.io/jobset-name=sleepy -o jsonpath='{.items[*].status.phase}'
  [ "$output" = "Running" ]
  kubectl delete trainjob sleepy >/dev/null
}

@test "a TrainJob MultiKueue manages gets no pods here: reported after the pending timeout, not a hang" {
  cat >orphan.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: orphan
spec:
  managedBy: kueue.x-k8s.io/multikueue
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 1
    command: [sleep, "1"]
YAML
  run --separate-stderr timeout 60 "$KPT_BIN" run --local --rm --pending-timeout 2s orphan.yaml
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"error: trainjob 'orphan' has no pods after 2s: it is managed by kueue.x-k8s.io/multikueue (spec.managedBy), which runs it elsewhere"* ]]
}
