#!/usr/bin/env bats
# Kubeflow Trainer v2 TrainJobs on the local cluster, with real torchrun and the real kubectl: the
# Trainer CRDs and default runtimes are served, our controller makes JobSet's pods and headless
# Service, `<job>-node-0-0.<job>` resolves, and torchrun's workers form one gloo group.
# Needs Debian's python3-torch and libnss-wrapper; KPT_TORCH_E2E=skip skips the torch cases.
bats_require_minimum_version 1.5.0
load helpers

TORCH_DIR="$BATS_TEST_DIRNAME/torch"

setup_file() { start_file_cluster trainjob; }

teardown_file() { stop_file_cluster; }

setup() { setup_workdir; }
teardown() { teardown_workdir; }

needs_torch() {
  if [ "${KPT_TORCH_E2E:-}" = skip ]; then skip "KPT_TORCH_E2E=skip"; fi
}

# write_trainjob NAME NODES PROCS: a TrainJob of the torch-distributed runtime whose torchrun runs
# torchrun_allreduce.py, expecting NODES x PROCS processes.
write_trainjob() {
  cat >trainjob.yaml <<YAML
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
    image: pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime
    command: [torchrun, $TORCH_DIR/torchrun_allreduce.py, "$(($2 * $3))"]
YAML
}

# wait_state NAME: the TrainJob's State column once it is Complete or Failed (60 s at most).
wait_state() {
  local state=""
  for _ in $(seq 1 120); do
    state=$(kubectl get trainjob "$1" -o jsonpath='{.status.conditions[-1:].type}')
    if [ "$state" = Complete ] || [ "$state" = Failed ]; then break; fi
    sleep 0.5
  done
  echo "$state"
}

@test "the local cluster serves the Trainer CRDs and Trainer's default runtimes" {
  run kubectl get crd trainjobs.trainer.kubeflow.org trainingruntimes.trainer.kubeflow.org \
    clustertrainingruntimes.trainer.kubeflow.org -o name
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 3 ]
  run kubectl get clustertrainingruntime torch-distributed -o jsonpath='{.metadata.labels.trainer\.kubeflow\.org/framework}'
  [ "$status" -eq 0 ]
  [ "$output" = torch ]
}

@test "a TrainJob the CRD's CEL rules reject is refused by the server" {
  cat >bad.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: bad
spec:
  runtimeRef:
    name: torch-distributed
  managedBy: example.com/other
YAML
  run --separate-stderr kubectl apply -f bad.yaml
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set"* ]]
}

@test "the server fills in the CRD's defaults, as the real API server does" {
  cat >defaults.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: defaults
spec:
  suspend: true
  runtimeRef:
    name: torch-distributed
YAML
  kubectl apply -f defaults.yaml >/dev/null
  run kubectl get trainjob defaults -o jsonpath='{.spec.managedBy} {.spec.runtimeRef.apiGroup} {.spec.runtimeRef.kind}'
  [ "$status" -eq 0 ]
  [ "$output" = "trainer.kubeflow.org/trainjob-controller trainer.kubeflow.org ClusterTrainingRuntime" ]
  # Applying the same manifest again changes nothing: the defaults are no change.
  run kubectl apply -f defaults.yaml
  [ "$output" = "trainjob.trainer.kubeflow.org/defaults unchanged" ]
  kubectl delete trainjob defaults >/dev/null
}

@test "2 nodes x 2 processes: torchrun forms a gloo group of 4 that all-reduces, and the job completes" {
  needs_torch
  write_trainjob ar 2 2
  run kubectl apply -f trainjob.yaml
  [ "$status" -eq 0 ]
  [ "$(wait_state ar)" = Complete ]
  run kubectl get pods -l jobset.sigs.k8s.io/jobset-name=ar \
    -o jsonpath='{range .items[*]}{.spec.hostname}.{.spec.subdomain} {.status.phase}{"\n"}{end}'
  [ "$output" = $'ar-node-0-0.ar Succeeded\nar-node-0-1.ar Succeeded' ]
  node0=$(kubectl get pods -l jobset.sigs.k8s.io/jobset-name=ar,batch.kubernetes.io/job-completion-index=0 -o name)
  node1=$(kubectl get pods -l jobset.sigs.k8s.io/jobset-name=ar,batch.kubernetes.io/job-completion-index=1 -o name)
  run kubectl logs "$node0"
  [[ "$output" == *"rank 0/4 local 0 node 0 ok: all_reduce=10"* ]]
  [[ "$output" == *"rank 1/4 local 1 node 0 ok: all_reduce=10"* ]]
  run kubectl logs "$node1"
  [[ "$output" == *"rank 2/4 local 0 node 1 ok: all_reduce=10"* ]]
  [[ "$output" == *"rank 3/4 local 1 node 1 ok: all_reduce=10"* ]]
  run kubectl get trainjobs ar
  [[ "${lines[1]}" =~ ^ar\ +Complete\ + ]]
  run kubectl describe trainjob ar
  [[ "$output" == *"Reason:                AllJobsCompleted"* ]]
  [[ "$output" == *"Message:               jobset completed successfully"* ]]
}

@test "pods get JobSet's hostname, the PET_* env of Trainer's torch plugin, and resolve node 0" {
  cat >sleeper.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: sleepy
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    image: busybox
    command: [sleep, "600"]
YAML
  kubectl apply -f sleeper.yaml >/dev/null
  kubectl wait --for=condition=Ready pod -l jobset.sigs.k8s.io/jobset-name=sleepy --timeout=60s >/dev/null
  pod=$(kubectl get pods -l jobset.sigs.k8s.io/jobset-name=sleepy,batch.kubernetes.io/job-completion-index=1 -o name)
  run kubectl exec "$pod" -- sh -c 'echo $HOSTNAME $PET_NNODES $PET_NPROC_PER_NODE $PET_NODE_RANK $PET_MASTER_ADDR:$PET_MASTER_PORT'
  [ "$status" -eq 0 ]
  [ "$output" = "sleepy-node-0-1 2 1 1 sleepy-node-0-0.sleepy:29500" ]
  run kubectl exec "$pod" -- getent hosts sleepy-node-0-0.sleepy.default.svc.cluster.local
  [ "$status" -eq 0 ]
  [[ "$output" == "127.0.0.1 "* || "$output" == "::1 "* ]]
  # Deleting the TrainJob takes its pods and headless Service with it.
  kubectl delete trainjob sleepy >/dev/null
  for _ in $(seq 1 40); do
    [ -z "$(kubectl get pods,svc -l jobset.sigs.k8s.io/jobset-name=sleepy -o name)" ] && \
      ! kubectl get svc sleepy >/dev/null 2>&1 && break
    sleep 0.25
  done
  run kubectl get pods -l jobset.sigs.k8s.io/jobset-name=sleepy -o name
  [ "$output" = "" ]
  run kubectl get svc sleepy
  [ "$status" -eq 1 ]
}
