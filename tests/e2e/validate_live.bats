#!/usr/bin/env bats
# validate and env with a reachable cluster (the embedded API server): the installed CRD is the schema,
# the detected release the default, --offline asks nothing, --server-dry-run adds the server's verdict.
bats_require_minimum_version 1.5.0
load helpers

setup() {
  setup_workdir
  start_api_server
  cat >job.yaml <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: big
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: busybox:1.36
    Worker:
      replicas: 8
      template:
        spec:
          containers:
          - name: pytorch
            image: busybox:1.36
YAML
}

teardown() {
  stop_api_server
  teardown_workdir
}

install() {
  kubectl create --validate=false -f "$KPT_SOURCE_DIR/testdata/doctor/$1.json" >/dev/null
}

@test "the cluster's CRD is the schema: its limit on replicas applies, and only there" {
  install tight-crd
  run --separate-stderr "$KPT_BIN" validate -q job.yaml
  [ "$status" -eq 1 ]
  [ "$stderr" = "using operator release v1.9.4 detected in the cluster" ]
  [ "${lines[0]}" = "job.yaml:15:17: error: spec.pytorchReplicaSpecs.Worker.replicas: invalid value '8': should be less than or equal to 4 [schema.maximum]" ]
  run --separate-stderr "$KPT_BIN" validate --offline job.yaml
  [ "$status" -eq 0 ]
  [ "$stderr" = "" ]
}

@test "the compiled CRD is cached: the second run reads it from the cache" {
  install tight-crd
  run --separate-stderr "$KPT_BIN" validate job.yaml -v 1
  [[ "$stderr" == *"schema: the CRD 'pytorchjobs.kubeflow.org' in the cluster, compiled into '$HOME/.kube/cache/kubectl-pytorch/"* ]]
  run --separate-stderr "$KPT_BIN" validate job.yaml -v 1
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"schema: the CRD 'pytorchjobs.kubeflow.org' in the cluster, from the cache '$HOME/.kube/cache/kubectl-pytorch/"* ]]
}

@test "--offline makes no request at all" {
  install v1.7.0
  run --separate-stderr "$KPT_BIN" validate --offline job.yaml -v 6
  [ "$status" -eq 0 ]
  [ "$stderr" = "" ]
}

@test "no kubeconfig: no request, the carried schemas and v1.9.4" {
  KUBECONFIG="$KPT_WORK/none.yaml" run --separate-stderr "$KPT_BIN" validate job.yaml
  [ "$status" -eq 0 ]
  [ "$stderr" = "" ]
}

@test "the detected release is validate's default: a v1.9 field on a v1.7.0 cluster is an error" {
  install v1.7.0
  sed -i 's/^spec:/spec:\n  runPolicy:\n    managedBy: kueue.x-k8s.io\/multikueue/' job.yaml
  run --separate-stderr "$KPT_BIN" validate -q job.yaml
  [ "$status" -eq 1 ]
  [ "$stderr" = "using operator release v1.7.0 detected in the cluster" ]
  [[ "$output" == *"field 'spec.runPolicy.managedBy' is not known to operator v1.7.0 (added in v1.9.0) [release.unknown-field]"* ]]
  run --separate-stderr "$KPT_BIN" validate -q --operator v1.9.4 job.yaml
  [ "$stderr" = "" ]
  [[ "$output" != *"release.unknown-field"* ]]
}

@test "env models the detected release by default" {
  install v1.5.0
  run --separate-stderr "$KPT_BIN" env job.yaml -o json
  [ "$status" -eq 0 ]
  [ "$stderr" = "using operator release v1.5.0 detected in the cluster" ]
  [[ "$output" == *'"style": "operator@v1.5.0"'* ]]
  run --separate-stderr "$KPT_BIN" env job.yaml -o json --offline
  [[ "$output" == *'"style": "operator@v1.9.4"'* ]]
}

@test "an unreachable cluster: a warning and the defaults" {
  run --separate-stderr "$KPT_BIN" validate job.yaml --server https://127.0.0.1:1 --insecure-skip-tls-verify
  [ "$status" -eq 0 ]
  [ "$stderr" = "warning: cannot reach the cluster at 'https://127.0.0.1:1': using operator release v1.9.4" ]
}

@test "an unreachable cluster with --operator given: the warning names the carried schemas" {
  run --separate-stderr "$KPT_BIN" validate job.yaml --operator v1.7.0 --server https://127.0.0.1:1 --insecure-skip-tls-verify
  [ "$status" -eq 0 ]
  [ "$stderr" = "warning: cannot reach the cluster at 'https://127.0.0.1:1': using the carried schemas" ]
}

@test "run checks a file for the same target as validate: the detected release and the cluster's CRD" {
  install v1.7.0
  sed -i 's/^spec:/spec:\n  runPolicy:\n    managedBy: kueue.x-k8s.io\/multikueue/' job.yaml
  run --separate-stderr "$KPT_BIN" validate -q job.yaml
  [ "$status" -eq 1 ]
  finding="${lines[0]}"
  [[ "$finding" == *"[release.unknown-field]" ]]
  run --separate-stderr "$KPT_BIN" run --dry-run client job.yaml
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"using operator release v1.7.0 detected in the cluster"* ]]
  [[ "$stderr" == *"$finding"* ]]
  [[ "$stderr" == *"the manifest has errors; fix them or run with --force"* ]]
}

@test "run checks against the cluster's CRD as validate does" {
  install tight-crd
  run --separate-stderr "$KPT_BIN" run --dry-run client job.yaml
  [ "$status" -ne 0 ]
  [[ "$stderr" == *"job.yaml:15:17: error: spec.pytorchReplicaSpecs.Worker.replicas: invalid value '8': should be less than or equal to 4 [schema.maximum]"* ]]
}

@test "run --image --workers builds a job validate accepts for the operator: a Master and a Worker" {
  run --separate-stderr "$KPT_BIN" run --dry-run client --image busybox:1.36 --workers 2 --name built -- python train.py
  [ "$status" -eq 0 ]
  echo "$output" > built.yaml
  [[ "$output" == *"Master:"* ]]
  [[ "$output" == *"Worker:"* ]]
  run --separate-stderr "$KPT_BIN" validate built.yaml
  [ "$status" -eq 0 ]
  [ "$output" = "0 errors, 0 warnings in 1 document (1 file)" ]
}

@test "--server-dry-run adds what only the server knows: the namespace does not exist" {
  install v1.9.4
  sed -i 's/^  name: big/  name: big\n  namespace: nosuch/' job.yaml
  run --separate-stderr "$KPT_BIN" validate --server-dry-run job.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "job.yaml:1:1: error: the server rejects it: namespaces \"nosuch\" not found [server.dry-run]" ]
  echo '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "nosuch"}}' >ns.json
  kubectl create --validate=false -f ns.json >/dev/null
  run --separate-stderr "$KPT_BIN" validate --server-dry-run job.yaml
  [ "$status" -eq 0 ]
  run kubectl get pytorchjobs -A -o name
  [ "$output" = "" ]
}

@test "--server-dry-run sends every document: a TrainJob and a ConfigMap in a namespace that does not exist" {
  install trainer-v2
  cat > all.yaml <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: nosuch
data:
  epochs: "3"
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: tj
  namespace: nosuch
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    image: pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime
    command: [torchrun, train.py]
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
YAML
  run --separate-stderr "$KPT_BIN" validate --server-dry-run -q all.yaml
  [ "$status" -eq 1 ]
  [[ "$output" == *'all.yaml:1:1: error: the server rejects it: namespaces "nosuch" not found [server.dry-run]'* ]]
  [[ "$output" == *'all.yaml:8:1: error: the server rejects it: namespaces "nosuch" not found [server.dry-run]'* ]]
  [[ "$output" == *"all.yaml:23:1: error: kind: the server does not serve kind 'Widget' in 'example.com/v1': install its CRD before this document [server.dry-run]"* ]]
  run kubectl get configmaps,trainjobs -A -o name
  [[ "$output" != *"settings"* ]]
}

@test "--server-dry-run says nothing twice: the server's cause on a field already found is dropped" {
  install v1.9.4
  sed -i 's/replicas: 8/replicas: "eight"/' job.yaml
  run --separate-stderr "$KPT_BIN" validate --server-dry-run -q job.yaml
  [ "$status" -eq 1 ]
  [[ "$output" == *"[schema.type]"* ]]
  [[ "$output" != *"server.dry-run"* ]]
}

@test "--server-dry-run needs a cluster: with --offline or without one, exit 2" {
  run --separate-stderr "$KPT_BIN" validate --server-dry-run --offline job.yaml
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: --server-dry-run needs the cluster: drop --offline" ]
  KUBECONFIG="$KPT_WORK/none.yaml" run --separate-stderr "$KPT_BIN" validate --server-dry-run job.yaml
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: --server-dry-run needs a reachable cluster: no kubeconfig" ]
}
