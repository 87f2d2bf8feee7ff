#!/usr/bin/env bats
# `kubectl pytorch local up` and the REAL kubectl against the embedded API server.
load helpers

setup() {
  setup_workdir
  # Only the API server: these tests drive it alone, with no controller or node acting on objects.
  start_api_server
}

teardown() {
  stop_api_server
  teardown_workdir
}

job_manifest() {
  cat <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: $1
  labels:
    team: ml
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: python:3.11
YAML
}

@test "local up prints the state directory and how to use the kubeconfig, which is private" {
  [[ "${UP_OUTPUT}" == *"state directory: $STATE"* ]]
  [[ "${UP_OUTPUT}" == *"export KUBECONFIG=$KUBECONFIG"* ]]
  [[ "${UP_OUTPUT}" == *"kubectl get pods"* ]]
  [ "$(stat -c %a "$KUBECONFIG")" = 600 ]
  [ "$(stat -c %a "$STATE/token")" = 600 ]
  ! grep -q "$(cat "$STATE/token")" <<<"$UP_OUTPUT"
}

@test "local up twice reports the running server, and local down stops it" {
  run "$KPT_BIN" local up --server-only --state-dir "$STATE" --kubeconfig-out "$KUBECONFIG"
  [ "$status" -eq 0 ]
  [[ "$output" == *"the local API server is already up (pid $(cat "$STATE/apiserver.pid"))"* ]]
  run "$KPT_BIN" local status --state-dir "$STATE"
  [ "$status" -eq 0 ]
  [[ "$output" == "running (pid "* ]]
  pid=$(cat "$STATE/apiserver.pid")
  run "$KPT_BIN" local down --state-dir "$STATE"
  [ "$status" -eq 0 ]
  [ "$output" = "the local API server (pid $pid) is stopped" ]
  [ ! -e "$STATE/apiserver.pid" ]
  ! kill -0 "$pid" 2>/dev/null
  run "$KPT_BIN" local status --state-dir "$STATE"
  [ "$status" -eq 1 ]
  [ "$output" = "not running (state directory $STATE)" ]
}

@test "kubectl rejects requests without the token" {
  run kubectl get pods --token=wrong
  [ "$status" -ne 0 ]
  [[ "$output" == *"error: You must be logged in to the server"* ]]
}

@test "kubectl creates a CRD and then creates, gets, applies and deletes a PyTorchJob" {
  run kubectl create -f "$KPT_SOURCE_DIR/testdata/crds/pytorchjob-small.yaml"
  [ "$status" -eq 0 ]
  [ "$output" = "customresourcedefinition.apiextensions.k8s.io/pytorchjobs.kubeflow.org created" ]
  job_manifest mnist > job.yaml
  run kubectl create -f job.yaml
  [ "$status" -eq 0 ]
  [ "$output" = "pytorchjob.kubeflow.org/mnist created" ]
  run kubectl get pytorchjobs
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" =~ ^NAME\ +STATE\ +AGE$ ]]
  [[ "${lines[1]}" =~ ^mnist\ +[0-9]+s$ ]]
  run kubectl get pytorchjob mnist -o json
  [ "$status" -eq 0 ]
  [ "$(jq -r '.spec.pytorchReplicaSpecs.Worker.replicas' <<<"$output")" = 2 ]
  [ "$(jq -r '.metadata.namespace' <<<"$output")" = default ]
  run kubectl get pytorchjob mnist -o yaml
  [ "$status" -eq 0 ]
  [[ "$output" == *"kind: PyTorchJob"* ]]
  sed -i 's/replicas: 2/replicas: 3/' job.yaml
  run kubectl apply --server-side -f job.yaml
  [ "$status" -eq 0 ]
  [ "$output" = "pytorchjob.kubeflow.org/mnist serverside-applied" ]
  [ "$(kubectl get pytorchjob mnist -o jsonpath='{.spec.pytorchReplicaSpecs.Worker.replicas}')" = 3 ]
  job_manifest second > second.yaml
  run kubectl apply --server-side -f second.yaml
  [ "$status" -eq 0 ]
  [ "$output" = "pytorchjob.kubeflow.org/second serverside-applied" ]
  run kubectl delete pytorchjob mnist
  [ "$status" -eq 0 ]
  [ "$output" = 'pytorchjob.kubeflow.org "mnist" deleted' ]
  run kubectl get pytorchjobs -o name
  [ "$output" = "pytorchjob.kubeflow.org/second" ]
}

@test "kubectl reports schema errors and unknown fields of a custom resource" {
  kubectl create -f "$KPT_SOURCE_DIR/testdata/crds/pytorchjob-small.yaml" >/dev/null
  job_manifest bad | sed 's/replicas: 2/replicas: two/' > bad.yaml
  run kubectl create -f bad.yaml
  [ "$status" -ne 0 ]
  [[ "$output" == *'The PyTorchJob "bad" is invalid: spec.pytorchReplicaSpecs.Worker.replicas'* ]]
  job_manifest typo | sed 's/restartPolicy:/restartPolicyy:/' > typo.yaml
  run kubectl create -f typo.yaml
  [ "$status" -ne 0 ]
  [[ "$output" == *"restartPolicyy"* ]]
  run kubectl create --validate=warn -f typo.yaml
  [ "$status" -eq 0 ]
  [[ "$output" == *"Warning: unknown field"*"restartPolicyy"* ]]
}

@test "kubectl explain reads the CRD's schema through /openapi/v3" {
  kubectl create -f "$KPT_SOURCE_DIR/testdata/crds/pytorchjob-small.yaml" >/dev/null
  run kubectl explain pytorchjob.spec
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" =~ ^GROUP:\ +kubeflow.org$ ]]
  [[ "$output" == *"pytorchReplicaSpecs"*"-required-"* ]]
  [[ "$output" == *"runPolicy"* ]]
}

@test "kubectl wait sees a condition set through the status subresource" {
  kubectl create -f "$KPT_SOURCE_DIR/testdata/crds/pytorchjob-small.yaml" >/dev/null
  job_manifest mnist | kubectl create -f - >/dev/null
  kubectl patch pytorchjob mnist --subresource=status --type=merge \
    -p '{"status":{"conditions":[{"type":"Succeeded","status":"True","reason":"JobSucceeded"}]}}' >/dev/null
  run kubectl wait --for=condition=Succeeded pytorchjob/mnist --timeout=20s
  [ "$status" -eq 0 ]
  [ "$output" = "pytorchjob.kubeflow.org/mnist condition met" ]
  run kubectl get pytorchjobs
  [[ "${lines[1]}" =~ ^mnist\ +Succeeded\ + ]]
}

@test "kubectl get -w streams changes until its timeout" {
  kubectl create -f "$KPT_SOURCE_DIR/testdata/crds/pytorchjob-small.yaml" >/dev/null
  job_manifest first | kubectl create -f - >/dev/null
  ( sleep 1; job_manifest second | kubectl create -f - >/dev/null ) &
  run timeout 4 kubectl get pytorchjobs -w
  wait
  [ "$status" -eq 124 ]
  [[ "${lines[0]}" =~ ^NAME\ +STATE\ +AGE$ ]]
  [[ "${lines[1]}" =~ ^first\  ]]
  [[ "${lines[2]}" =~ ^second\  ]]
  [ "${#lines[@]}" -eq 3 ]
}

@test "label selectors choose pods and services" {
  for n in a b; do
    kubectl run "web-$n" --image=nginx --labels=app=web,idx=$n >/dev/null
  done
  kubectl run db --image=postgres --labels=app=db >/dev/null
  # Services from manifests: kubectl's 'create service' sends protobuf, which this server does not decode.
  for svc in web db; do
    cat > "svc-$svc.yaml" <<YAML
apiVersion: v1
kind: Service
metadata:
  name: $svc
  labels:
    app: $svc
spec:
  selector:
    app: $svc
  ports:
  - port: 80
    protocol: TCP
YAML
    kubectl create -f "svc-$svc.yaml" >/dev/null
  done
  kubectl label service web app.kubernetes.io/name=web >/dev/null
  run kubectl get pods -l app=web -o name
  [ "$status" -eq 0 ]
  [ "$output" = $'pod/web-a\npod/web-b' ]
  run kubectl get pods -l 'app in (db),!idx' -o name
  [ "$output" = "pod/db" ]
  run kubectl get pods
  [[ "${lines[0]}" =~ ^NAME\ +READY\ +STATUS\ +RESTARTS\ +AGE$ ]]
  [[ "${lines[1]}" =~ ^db\ +0/1\ +Pending\ +0\ +[0-9]+s$ ]]
  run kubectl get svc -l app.kubernetes.io/name=web
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" =~ ^NAME\ +TYPE\ +CLUSTER-IP\ +EXTERNAL-IP\ +PORT\(S\)\ +AGE$ ]]
  [[ "${lines[1]}" =~ ^web\ +ClusterIP\  ]]
  [ "${#lines[@]}" -eq 2 ]
}

@test "kubectl creates the large generated PyTorchJob CRD" {
  schema="${KPT_BUILD_DIR:-}/schema/carried/pytorchjob_v1.schema.json"
  [ -f "$schema" ]  # built with the binary: its absence is a failure, not a skip
  python3 - "$schema" > big-crd.json <<'PY'
import json, sys
schema = json.load(open(sys.argv[1]))
print(json.dumps({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "pytorchjobs.kubeflow.org"},
  "spec": {"group": "kubeflow.org", "scope": "Namespaced",
           "names": {"kind": "PyTorchJob", "listKind": "PyTorchJobList", "plural": "pytorchjobs", "singular": "pytorchjob"},
           "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                         "schema": {"openAPIV3Schema": schema}}]}}))
PY
  run kubectl create -f big-crd.json
  [ "$status" -eq 0 ]
  job_manifest mnist | kubectl create -f - >/dev/null
  run kubectl get pytorchjob mnist -o name
  [ "$output" = "pytorchjob.kubeflow.org/mnist" ]
}

@test "kubectl api-resources, auth can-i and logs work as on a cluster without nodes" {
  run kubectl api-resources -o name
  [ "$status" -eq 0 ]
  [[ "$output" == *$'\npods\n'* ]]
  [[ "$output" == *"customresourcedefinitions.apiextensions.k8s.io"* ]]
  run kubectl auth can-i create pods
  [ "$status" -eq 0 ]
  [ "$output" = "yes" ]
  kubectl run x --image=busybox >/dev/null
  run kubectl logs x
  [ "$status" -eq 1 ]
  [ "$output" = "Error from server (BadRequest): no logs for pod 'x': no node runs pods on this server" ]
}

@test "built-in kinds are validated as the real API server validates them" {
  run kubectl create configmap settings --from-literal=mode=fast
  [ "$status" -eq 0 ]
  [ "$output" = "configmap/settings created" ]
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  k: 1\n' > cm.yaml
  run --separate-stderr kubectl apply -f cm.yaml
  [ "$status" -eq 1 ]
  [ "$stderr" = 'Error from server (BadRequest): error when creating "cm.yaml": ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string' ]
  printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: main\n' > pod.yaml
  run --separate-stderr kubectl apply -f pod.yaml
  [ "$status" -eq 1 ]
  [ "$stderr" = 'The Pod "p" is invalid: spec.containers[0].image: Required value' ]
  run --separate-stderr kubectl create namespace Team-A
  [ "$status" -eq 1 ]
  [ "$stderr" = "The Namespace \"Team-A\" is invalid: metadata.name: Invalid value: \"Team-A\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')" ]
  printf 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n    portt: 8080\n' > svc.yaml
  run --separate-stderr kubectl apply -f svc.yaml
  [ "$status" -eq 1 ]
  [ "$stderr" = 'Error from server (BadRequest): error when creating "svc.yaml": Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.ports[0].portt"' ]
  run --separate-stderr kubectl apply --validate=warn -f svc.yaml
  [ "$status" -eq 0 ]
  [ "$stderr" = 'Warning: unknown field "spec.ports[0].portt"' ]
  [ "$(kubectl get svc web -o jsonpath='{.spec.ports[0]}')" = '{"port":80}' ]
}

@test "DeleteOptions in a protobuf body are honoured as JSON ones" {
  kubectl create configmap owner >/dev/null
  uid=$(kubectl get configmap owner -o jsonpath='{.metadata.uid}')
  kubectl create -f - >/dev/null <<YAML
apiVersion: v1
kind: ConfigMap
metadata:
  name: dependent
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: owner, uid: "$uid"}
YAML
  server=$(kubectl config view --raw -o jsonpath='{.clusters[0].cluster.server}')
  kubectl config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d > ca.crt
  (umask 077 && printf 'Authorization: Bearer %s\n' "$(kubectl config view --raw -o jsonpath='{.users[0].user.token}')" > auth)
  delete() {
    curl -sS --cacert ca.crt -H @auth -H 'Content-Type: application/vnd.kubernetes.protobuf' -X DELETE \
      --data-binary "@$1" -w '\n%{http_code}' "$server/api/v1/namespaces/default/configmaps/owner"
  }
  # Malformed: the magic, then bytes that are not a runtime.Unknown.
  printf 'k8s\000\377\377' > malformed.pb
  run delete malformed.pb
  [ "${lines[1]}" = 400 ]
  [[ "${lines[0]}" == *'"message":"the protobuf body is not a valid Kubernetes object: the runtime.Unknown envelope does not parse"'* ]]
  kubectl get configmap owner >/dev/null
  # "k8s\0", then runtime.Unknown{typeMeta{apiVersion "v1", kind "DeleteOptions"},
  # raw: DeleteOptions{propagationPolicy (field 4) "Orphan"}}.
  printf 'k8s\000\x0a\x13\x0a\x02v1\x12\x0dDeleteOptions\x12\x08\x22\x06Orphan' > orphan.pb
  run delete orphan.pb
  [ "${lines[1]}" = 200 ]
  run kubectl get configmap owner
  [ "$status" -eq 1 ]
  run kubectl get configmap dependent -o jsonpath='{.metadata.ownerReferences}'
  [ "$status" -eq 0 ]
  [ "$output" = "" ]
}
