#!/usr/bin/env bats
# Jobs side by side on the local node: each job in a network namespace of its own, so jobs that
# all use the operator's default port (MASTER_PORT 23456) run at the same time; Debian's python
# client drives two of them. With --pod-network host, pods share the host's network and such
# jobs run one after the other, as before.
bats_require_minimum_version 1.5.0
load helpers

setup_file() { start_file_cluster jobs; }
teardown_file() { stop_file_cluster; }
setup() { setup_workdir; }
teardown() {
  [ ! -d "$KPT_WORK/host-state" ] || "$KPT_BIN" local down --force --grace 1s --state-dir "$KPT_WORK/host-state" >/dev/null 2>&1 || true
  teardown_workdir
}

# A PyTorchJob of two workers running side_by_side.py with JOB=$1.
torch_job() {
  cat <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: $1}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: python:3.11
            command: [/usr/bin/python3, $KPT_SOURCE_DIR/tests/e2e/local_jobs/side_by_side.py, $KPT_WORK, "4"]
            env: [{name: JOB, value: $1}]
YAML
}

@test "local up says how pods run: each job in a network namespace of its own" {
  run grep "^pods: " "$KPT_FILE_DIR/up.log"
  [ "$output" = "pods: each job in a network namespace of its own (loopback, and the API server through the node), so jobs bind the same ports side by side; each pod in a PID namespace of its own" ]
}

@test "four two-worker jobs of the default port run at the same time, each its own process group of ranks" {
  for j in ja jb jc jd; do torch_job $j | kubectl apply -f - >/dev/null; done
  for j in ja jb jc jd; do
    kubectl wait --for=condition=Succeeded "pytorchjob/$j" --timeout=240s >/dev/null
  done
  for j in ja jb jc jd; do
    for r in 0 1; do
      [ "$(kubectl logs "$j-worker-$r")" = "$j rank $r of 2 via $j-worker-0:23456 pgid-is-pid=True sum 3" ]
    done
  done
  kubectl delete pytorchjob ja jb jc jd --wait=false >/dev/null
}

@test "Debian's python client creates two jobs and reads both pods' logs" {
  run timeout 120 /usr/bin/python3 "$KPT_SOURCE_DIR/tests/e2e/local_jobs/python_client.py" "$KUBECONFIG"
  [ "$status" -eq 0 ]
  [ "$output" = $'py-a-worker-0 rank 0 via py-a-worker-0:23456\npy-b-worker-0 rank 0 via py-b-worker-0:23456' ]
  kubectl delete pytorchjob py-a py-b --wait=false >/dev/null
}

@test "with --pod-network host, a second job of the same port waits Unschedulable, then runs" {
  export KUBECONFIG="$KPT_WORK/host.yaml"
  state="$KPT_WORK/host-state"
  run "$KPT_BIN" local up --pod-network host --state-dir "$state" --kubeconfig-out "$KUBECONFIG"
  [ "$status" -eq 0 ]
  [[ "$output" == *"pods: on the host's network, so jobs that declare the same port run one after the other; each pod in a PID namespace of its own"* ]]
  [[ "$output" == *"Stop it with: kubectl pytorch local down --state-dir $state"* ]]
  kubectl apply -f "$KPT_SOURCE_DIR/testdata/run/sleeper.yaml" >/dev/null
  wait_created pod/sleeper-worker-0
  kubectl wait --for=jsonpath='{.status.phase}'=Running pod/sleeper-worker-0 --timeout=60s >/dev/null
  kubectl apply -f "$KPT_SOURCE_DIR/testdata/run/hello.yaml" >/dev/null
  wait_created pod/hello-worker-0 pod/hello-worker-1
  kubectl wait --for=condition=PodScheduled=False pod/hello-worker-0 pod/hello-worker-1 --timeout=60s >/dev/null
  run kubectl get pod hello-worker-1 -o jsonpath='{.status.conditions[0].reason}|{.status.conditions[0].message}|{.spec.nodeName}'
  [ "$output" = "Unschedulable|0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports. (local node: port 23456 is held by pod default/sleeper-worker-0 of another job; local pods share the host's network, so this pod starts when it ends)|" ]
  kubectl delete pytorchjob sleeper --wait=false >/dev/null
  kubectl wait --for=condition=Succeeded pytorchjob/hello --timeout=120s >/dev/null
  [ "$(kubectl logs hello-worker-1)" = "hello from rank 1 of 2 via hello-worker-0:23456" ]
  "$KPT_BIN" local down --force --state-dir "$state" >/dev/null
}
