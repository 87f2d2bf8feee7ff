#!/usr/bin/env bats
# The in-cluster controller as a platform team runs it, on the local cluster: each `controller
# manifests` variant applied in one `kubectl apply --server-side`, one owner per job (the local
# cluster's controller holds the Lease, the guard stops ours beside it or beside a stand-in Training
# Operator or Trainer), /metrics read by Prometheus' own text-format parser, and `doctor --check`.
bats_require_minimum_version 1.5.0
load helpers

setup() { setup_workdir; }
teardown() {
  for pid in ${CONTROLLER_PID:-} ${PROXY_PID:-}; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  stop_api_server
  if [ -n "${KPT_FILE_DIR:-}" ]; then
    "$KPT_BIN" local down --force --grace 2s >/dev/null 2>&1 || true
    rm -rf "$KPT_FILE_DIR"
  fi
  teardown_workdir
}

# A free TCP port on 127.0.0.1 for the controller's /metrics.
free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits (at most 30 s) until the controller's log has the text.
wait_log() {
  for _ in $(seq 300); do grep -qF "$1" "$KPT_WORK/controller.log" 2>/dev/null && return 0; sleep 0.1; done
  cat "$KPT_WORK/controller.log" >&3
  return 1
}

# A Deployment stand-in (stored only: nothing runs) with these labels, replicas and ready replicas.
stand_in() {  # namespace name labels-json replicas
  kubectl create namespace "$1" >/dev/null 2>&1 || true
  kubectl apply --server-side -f - >/dev/null <<EOF
{"apiVersion": "apps/v1", "kind": "Deployment",
 "metadata": {"name": "$2", "namespace": "$1", "labels": $3},
 "spec": {"replicas": $4, "selector": {"matchLabels": {"app": "$2"}},
          "template": {"metadata": {"labels": {"app": "$2"}},
                       "spec": {"containers": [{"name": "manager", "image": "example.org/$2:v1"}]}}}}
EOF
}

# kubectl proxy in front of the API server, answering 403 on the paths the regexp matches (as the API
# server would where the RBAC grants nothing); $KPT_WORK/proxied.yaml is a kubeconfig for it.
start_proxy() {
  local pport
  pport=$(free_port)
  kubectl proxy --port "$pport" --reject-paths "$1" >"$KPT_WORK/proxy.log" 2>&1 &
  PROXY_PID=$!
  printf '%s\n' 'apiVersion: v1' 'kind: Config' \
    "clusters: [{name: proxied, cluster: {server: \"http://127.0.0.1:$pport\"}}]" \
    'users: [{name: proxied, user: {}}]' \
    'contexts: [{name: proxied, context: {cluster: proxied, user: proxied}}]' \
    'current-context: proxied' >"$KPT_WORK/proxied.yaml"
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$pport/version" >/dev/null && return 0; sleep 0.1; done
  return 1
}

job() {
  kubectl apply -f - >/dev/null <<EOF
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: $1
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: example.org/trainer:1
            command: ["python3", "-c", "pass"]
EOF
}

@test "every manifests variant applies in one kubectl apply --server-side on the local cluster" {
  start_api_server
  kubectl create namespace team-a >/dev/null
  for variant in "" "--trainer" "--via-jobset" "-n team-a" "-n team-a --skip-crds --trainer"; do
    # shellcheck disable=SC2086
    run --separate-stderr bash -c "'$KPT_BIN' controller manifests $variant | kubectl apply --server-side -f -"
    [ "$status" -eq 0 ] || { echo "variant '$variant': $output $stderr" >&3; return 1; }
  done
  run --separate-stderr bash -c "'$KPT_BIN' controller manifests --runtimes | kubectl apply --server-side -f -"
  [ "$status" -eq 0 ]
  kubectl get clustertrainingruntime torch-distributed >/dev/null
  run kubectl get role kubectl-pytorch-controller -n team-a -o jsonpath='{.rules[0].resources}'
  [ "$output" = '["pytorchjobs"]' ]
  run kubectl get pdb kubectl-pytorch-controller -n kubectl-pytorch -o jsonpath='{.spec.minAvailable}'
  [ "$output" = 1 ]
  run kubectl get deployment kubectl-pytorch-controller -n kubectl-pytorch \
    -o jsonpath='{.spec.template.spec.securityContext.seccompProfile.type}'
  [ "$output" = RuntimeDefault ]
}

@test "with the plain manifests' RBAC on a cluster serving TrainJobs, PyTorchJobs reconcile and health names the fix" {
  start_api_server
  "$KPT_BIN" controller manifests --trainer | kubectl apply --server-side -f - >/dev/null
  # The in-cluster replicas are not running here (else the guard would see another instance).
  kubectl patch deployment kubectl-pytorch-controller -n kubectl-pytorch -p '{"spec": {"replicas": 0}}' >/dev/null
  # The plain manifests grant nothing on trainer.kubeflow.org: kubectl proxy answers 403 there, as
  # the API server would to the controller's ServiceAccount.
  run bash -c "'$KPT_BIN' controller manifests | grep -c trainer.kubeflow.org"
  [ "$output" = 0 ]
  start_proxy '^/apis/trainer\.kubeflow\.org/v1alpha1/.*trainjobs'
  port=$(free_port)
  KUBECONFIG="$KPT_WORK/proxied.yaml" "$KPT_BIN" controller --no-leader-elect --metrics-addr "127.0.0.1:$port" \
    >"$KPT_WORK/controller.log" 2>&1 &
  CONTROLLER_PID=$!
  wait_log 'reconciling pytorchjobs'
  wait_log "trainjobs not reconciled: the controller may not list trainjobs.trainer.kubeflow.org"
  grep -qF "grant it the rules of 'kubectl pytorch controller manifests --trainer', or run it with --kinds pytorchjobs" \
    "$KPT_WORK/controller.log"
  job plain-rbac
  wait_created pod/plain-rbac-worker-0 pod/plain-rbac-worker-1
  run curl -s -w '\n%{http_code}' "http://127.0.0.1:$port/readyz"
  [ "${lines[0]}" = ok ]
  [ "${lines[1]}" = "pytorchjobs: reconciling" ]
  [[ "${lines[2]}" == "trainjobs: not reconciled (forbidden): the controller may not list trainjobs.trainer.kubeflow.org"* ]]
  [ "${lines[3]}" = 200 ]
  run curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz"
  [ "$output" = 200 ]
}

@test "a controller that cannot read Deployments reconciles nothing and says why (fails closed)" {
  start_api_server
  "$KPT_BIN" controller manifests | kubectl apply --server-side -f - >/dev/null
  start_proxy '^/apis/apps/v1/.*deployments'
  run --separate-stderr env KUBECONFIG="$KPT_WORK/proxied.yaml" "$KPT_BIN" controller --no-leader-elect --metrics-addr 0
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"refusing to reconcile pytorchjobs: cannot tell whether another controller reconciles these jobs, so none is reconciled: listing Deployments failed ("*"): grant list on deployments.apps (the manifests' ClusterRole does), or pass --skip-controller-check"* ]]
}

@test "manifests warns about a CRD another installer put in the cluster, and --skip-crds leaves it" {
  start_api_server
  "$KPT_BIN" controller manifests | /usr/bin/python3 -c '
import sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    if d and d["kind"] == "CustomResourceDefinition":
        d["metadata"]["labels"] = {"app.kubernetes.io/name": "training-operator"}
        print("---"); print(yaml.safe_dump(d))' | kubectl apply --server-side -f - >/dev/null
  run --separate-stderr "$KPT_BIN" controller manifests
  [ "$status" -eq 0 ]
  [ "$stderr" = "warning: the cluster has the CRD 'pytorchjobs.kubeflow.org' from another installer; applying these manifests replaces it (and its descriptions): print them with --skip-crds to keep it" ]
  run --separate-stderr "$KPT_BIN" controller manifests --skip-crds
  [ "$status" -eq 0 ]
  [ -z "$stderr" ]
  [[ "$output" != *CustomResourceDefinition* ]]
}

@test "the local cluster's controller holds the Lease: ours stands by beside it, and without a Lease refuses" {
  start_file_cluster controller-local
  for _ in $(seq 100); do
    holder=$(kubectl get lease kubectl-pytorch-controller -n default -o jsonpath='{.spec.holderIdentity}' 2>/dev/null) && [ -n "$holder" ] && break
    sleep 0.1
  done
  [ "$holder" = kubectl-pytorch-local-cluster ]
  "$KPT_BIN" controller --metrics-addr 0 >"$KPT_WORK/controller.log" 2>&1 &
  CONTROLLER_PID=$!
  wait_log 'standing by: the lease is held holder=kubectl-pytorch-local-cluster'
  job standby
  wait_created pod/standby-worker-0 pod/standby-worker-1
  sleep 1
  # Only the local cluster's controller wrote the Events: one SuccessfulCreatePod per pod.
  run bash -c "kubectl get events --field-selector involvedObject.name=standby,reason=SuccessfulCreatePod -o name | wc -l"
  [ "$output" -eq 2 ]
  ! grep -q 'reconciling pytorchjobs' "$KPT_WORK/controller.log"
  kill "$CONTROLLER_PID"; wait "$CONTROLLER_PID" || true; CONTROLLER_PID=
  run --separate-stderr "$KPT_BIN" controller --no-leader-elect --metrics-addr 0
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"refusing to reconcile pytorchjobs: another kubectl-pytorch controller (the local cluster's own controller) reconciles these jobs under the lease 'default/kubectl-pytorch-controller'"* ]]
}

@test "beside a stand-in Trainer the controller reconciles PyTorchJobs only, and a stand-in operator stops it" {
  start_api_server
  "$KPT_BIN" controller manifests --trainer | kubectl apply --server-side -f - >/dev/null
  kubectl patch deployment kubectl-pytorch-controller -n kubectl-pytorch -p '{"spec": {"replicas": 0}}' >/dev/null
  stand_in kubeflow-system kubeflow-trainer-controller-manager \
    '{"app.kubernetes.io/name": "trainer", "app.kubernetes.io/component": "manager"}' 1
  port=$(free_port)
  "$KPT_BIN" controller --no-leader-elect --metrics-addr "127.0.0.1:$port" >"$KPT_WORK/controller.log" 2>&1 &
  CONTROLLER_PID=$!
  wait_log 'reconciling pytorchjobs'
  wait_log "trainjobs not reconciled: Kubeflow Trainer's controller runs (Deployment 'kubeflow-system/kubeflow-trainer-controller-manager')"
  run curl -s "http://127.0.0.1:$port/readyz"
  [ "${lines[0]}" = ok ]
  [ "${lines[1]}" = "pytorchjobs: reconciling" ]
  [[ "${lines[2]}" == "trainjobs: not reconciled (blocked): Kubeflow Trainer's controller runs"* ]]
  job beside-trainer
  wait_created pod/beside-trainer-worker-0
  # /metrics as Prometheus reads it: its own text-format parser, every family typed.
  curl -s "http://127.0.0.1:$port/metrics" >"$KPT_WORK/metrics.txt"
  run /usr/bin/python3 - "$KPT_WORK/metrics.txt" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
families = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
for name in ["controller_runtime_reconcile", "controller_runtime_reconcile_time_seconds",
             "workqueue_depth", "rest_client_requests", "leader_election_master_status",
             "kpt_controller_build_info", "process_resident_memory_bytes", "kpt_controller_jobs_created",
             "kpt_controller_kind_state"]:
    assert name in families, name
    assert families[name].type != "unknown", name
created = [s for s in families["kpt_controller_jobs_created"].samples
           if s.labels.get("kind") == "PyTorchJob" and s.labels.get("job_namespace") == "default"]
assert created and created[0].value == 1, created
states = {s.labels["kind"]: s.labels["state"] for s in families["kpt_controller_kind_state"].samples if s.value == 1}
assert states == {"pytorchjobs": "reconciling", "trainjobs": "blocked"}, states
print("parsed", len(families), "families")
PY
  [ "$status" -eq 0 ] || { echo "$output" >&3; return 1; }
  kill "$CONTROLLER_PID"; wait "$CONTROLLER_PID" || true; CONTROLLER_PID=
  stand_in kubeflow training-operator '{"control-plane": "kubeflow-training-operator"}' 1
  run --separate-stderr "$KPT_BIN" controller --no-leader-elect --metrics-addr 0
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"refusing to reconcile pytorchjobs: a Training Operator runs (Deployment 'kubeflow/training-operator')"* ]]
}

@test "doctor --check fails on a controller Deployment with 0/2 ready replicas and passes on none" {
  start_api_server
  run "$KPT_BIN" doctor --check
  [ "$status" -eq 0 ]
  stand_in kubectl-pytorch kubectl-pytorch-controller '{"app.kubernetes.io/name": "kubectl-pytorch-controller"}' 2
  run --separate-stderr "$KPT_BIN" doctor --check
  [ "$status" -eq 1 ]
  [[ "$output" == *"the controller Deployment 'kubectl-pytorch/kubectl-pytorch-controller' has 0/2 ready replicas"* ]]
  [ "$stderr" = "doctor: 2 problems found" ]
  run "$KPT_BIN" doctor -o json
  [ "$status" -eq 0 ]
  run jq -r '.controller.deployment.available, .controller.deployment.ready, .problems[0]' <<<"$output"
  [ "${lines[0]}" = false ]
  [ "${lines[1]}" = 0 ]
}
