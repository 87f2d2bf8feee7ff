#!/usr/bin/env bats
# What real kubectl reads from /openapi/v2 on the local cluster, and the CRDs' descriptions through
# both OpenAPI versions: client-side validation of a List (kubectl validates its items against the
# v2 definitions), client-side apply's patch, diff, edit and `explain --output plaintext-openapiv2`;
# every `controller manifests` variant applied with validation on; `kubectl explain` after the
# manifests shows Kubeflow's field documentation.
bats_require_minimum_version 1.5.0
load helpers

setup() {
  setup_workdir
  start_api_server
}
teardown() {
  stop_api_server
  teardown_workdir
}

# The documents on stdin as one v1 List (what `kubectl get -o yaml` writes): kubectl validates a
# List's items on the client, against /openapi/v2.
as_list() {
  /usr/bin/python3 -c '
import sys, yaml
items = [d for d in yaml.safe_load_all(sys.stdin) if d]
print(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))'
}
export -f as_list

job() {  # name extra-spec-line
  cat <<EOF
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: $1
  namespace: default
spec:
  ${2:-}
  pytorchReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: example.org/trainer:1
EOF
}

@test "kubectl explain shows Kubeflow's field descriptions once the manifests are applied, through v3 and v2" {
  "$KPT_BIN" controller manifests --trainer | kubectl apply --server-side -f - >/dev/null
  run --separate-stderr kubectl explain pytorchjob.spec.pytorchReplicaSpecs
  [ "$status" -eq 0 ]
  [[ "$output" == *"A map of PyTorchReplicaType (type) to ReplicaSpec (value). Specifies the"* ]]
  run --separate-stderr kubectl explain pytorchjob.spec.pytorchReplicaSpecs.template.spec.containers.image
  [[ "$output" == *"Container image name."* ]]
  run --separate-stderr kubectl explain trainjob.spec.runtimeRef
  [ "$status" -eq 0 ]
  [[ "$output" == *"runtimeRef is the reference to the training runtime."* ]]
  run --separate-stderr kubectl explain pytorchjob.spec.runPolicy --output plaintext-openapiv2
  [ "$status" -eq 0 ] || { echo "$stderr" >&3; return 1; }
  [[ "$output" == *"RunPolicy encapsulates various runtime policies of the distributed"* ]]
}

@test "every manifests variant applies with client-side validation on, as a List too" {
  kubectl create namespace team-a >/dev/null
  for variant in "" "--trainer" "--via-jobset" "-n team-a" "-n team-a --skip-crds --trainer"; do
    # shellcheck disable=SC2086
    run --separate-stderr bash -c "'$KPT_BIN' controller manifests $variant | kubectl apply --server-side --validate=strict -f -"
    [ "$status" -eq 0 ] || { echo "variant '$variant': $stderr" >&3; return 1; }
    # shellcheck disable=SC2086
    run --separate-stderr bash -c "'$KPT_BIN' controller manifests $variant | as_list | kubectl apply --server-side --validate=strict -f -"
    [ "$status" -eq 0 ] || { echo "variant '$variant' as a List: $stderr" >&3; return 1; }
  done
  # The runtimes are custom kinds: validated on the client against their v2 definitions.
  run --separate-stderr bash -c "'$KPT_BIN' controller manifests --runtimes | as_list | kubectl apply --server-side --validate=strict -f -"
  [ "$status" -eq 0 ] || { echo "$stderr" >&3; return 1; }
}

@test "the kubectl commands that read /openapi/v2 pass, and its definitions validate" {
  "$KPT_BIN" controller manifests | kubectl apply --server-side -f - >/dev/null
  # Client-side validation of a List, then client-side apply's patch of the same job.
  job a | as_list >a.yaml
  run --separate-stderr kubectl apply -f a.yaml
  [ "$status" -eq 0 ] || { echo "$stderr" >&3; return 1; }
  job a "runPolicy: {backoffLimit: 2}" | as_list >a2.yaml
  run --separate-stderr kubectl apply -f a2.yaml
  [ "$status" -eq 0 ] || { echo "$stderr" >&3; return 1; }
  [ "$(kubectl get pytorchjob a -o jsonpath='{.spec.runPolicy.backoffLimit}')" = 2 ]
  job a "runPolicy: {backoffLimit: 3}" >a3.yaml
  run --separate-stderr kubectl diff -f a3.yaml
  [ "$status" -eq 1 ] || { echo "$stderr" >&3; return 1; }
  [[ "$output" == *"backoffLimit: 3"* ]]
  run --separate-stderr env EDITOR="sed -i s/backoffLimit:\ 2/backoffLimit:\ 4/" kubectl edit pytorchjob a
  [ "$status" -eq 0 ] || { echo "$stderr" >&3; return 1; }
  [ "$(kubectl get pytorchjob a -o jsonpath='{.spec.runPolicy.backoffLimit}')" = 4 ]
  # The definitions are the CRD's: kubectl itself refuses an unknown field in a List's item.
  job b "bogus: 1" | as_list >b.yaml
  run --separate-stderr kubectl apply -f b.yaml
  [ "$status" -eq 1 ]
  [[ "$stderr" == *'unknown field "bogus" in org.kubeflow.v1.PyTorchJob.spec'* ]]
  run kubectl get pytorchjob b
  [ "$status" -ne 0 ]
  # As JSON for a client that does not ask for protobuf.
  run --separate-stderr kubectl get --raw /openapi/v2
  [[ "$output" == *'"swagger":"2.0"'* ]]
}
