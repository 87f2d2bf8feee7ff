#!/usr/bin/env bats
# doctor against the embedded API server loaded with objects that mimic each release's install
# (testdata/doctor/*.json, written by testdata/doctor/generate.py).
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

install() {
  kubectl create --validate=false -f "$KPT_SOURCE_DIR/testdata/doctor/$1.json" >/dev/null
}

# The verdict's "kind release" from -o json.
verdict() {
  "$KPT_BIN" doctor -o json | python3 -c \
    'import json,sys; v=json.load(sys.stdin)["verdict"]; print(v["kind"], v["release"], v["envStyle"])'
}

@test "each release's install is detected, image and CRD agreeing" {
  for release in v1.5.0 v1.7.0 v1.8.1 v1.9.4; do
    kubectl delete crd pytorchjobs.kubeflow.org --ignore-not-found >/dev/null
    kubectl delete deployment -n kubeflow training-operator --ignore-not-found >/dev/null
    kubectl delete validatingwebhookconfiguration validator.training-operator.kubeflow.org --ignore-not-found >/dev/null
    kubectl delete namespace kubeflow kubeflow-system --ignore-not-found >/dev/null
    install "$release"
    run verdict
    echo "$release: $output"
    [ "$status" -eq 0 ]
    [ "$output" = "agree $release operator@$release" ]
  done
}

@test "the table names the deployment, the CRD's evidence, the env style and the verdict" {
  install v1.7.0
  run --separate-stderr "$KPT_BIN" doctor
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "CHECK                            STATUS           DETAIL" ]
  [[ "$output" == *$'\n'"operator deployment              found            kubeflow/training-operator, image kubeflow/training-operator:v1-855e096 -> v1.7.0"$'\n'* ]]
  [[ "$output" == *$'\n'"pytorchjob CRD                   found            served v1; controller-gen v0.12.0 (v1.7.0); schema v1.7.0"$'\n'* ]]
  [[ "$output" == *$'\n'"validating webhook               not installed    validator.training-operator.kubeflow.org"$'\n'* ]]
  [[ "$output" == *$'\n'"env style                        operator@v1.7.0  "* ]]
  [[ "$output" == *$'\n'"create pytorchjobs.kubeflow.org  allowed          in namespace 'default'"$'\n'* ]]
  [ "${lines[${#lines[@]}-1]}" = "verdict: operator v1.7.0: the image and the CRD agree" ]
  [[ "$output" != *$'\033'* ]]
}

@test "v1.9.1's untagged image is v1.9.1 within the CRD's v1.9.0-v1.9.3 range, with a note" {
  install v1.9.1-untagged
  run --separate-stderr "$KPT_BIN" doctor
  [ "$status" -eq 0 ]
  [[ "$output" == *"note: the operator image has no tag: v1.9.1's manifests deploy it so (#2583)"* ]]
  [ "${lines[${#lines[@]}-1]}" = "verdict: operator v1.9.1: the image and the CRD agree" ]
}

@test "a new image with an old CRD: the verdict says they disagree and which is older" {
  install disagree
  run verdict
  [ "$output" = "disagree v1.9.4 operator@v1.9.4" ]
  run --separate-stderr "$KPT_BIN" doctor
  [ "${lines[${#lines[@]}-1]}" = "verdict: the image says v1.9.4 but the CRD says v1.5.0: the CRD was not upgraded with the operator; using v1.9.4" ]
}

@test "a Trainer v2 install with Volcano and Kueue: no v1 operator, the add-ons found" {
  install trainer-v2
  # -o yaml is the same report as -o json.
  json=$("$KPT_BIN" doctor -o json | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))')
  yaml=$("$KPT_BIN" doctor -o yaml | python3 -c 'import json,sys,yaml; print(json.dumps(yaml.safe_load(sys.stdin), sort_keys=True))')
  [ -n "$json" ] && [ "$json" = "$yaml" ]
  run --separate-stderr "$KPT_BIN" doctor -o json
  [ "$status" -eq 0 ]
  run python3 -c '
import json,sys
r=json.load(open(sys.argv[1]))
print(r["trainerV2"]["crd"], r["trainerV2"]["version"], r["trainerV2"]["deployment"]["namespace"],
      r["gangScheduling"]["volcano"], r["gangScheduling"]["schedulerPlugins"], r["gangScheduling"]["kueue"],
      r["operator"]["state"], r["crd"]["state"], r["verdict"]["kind"], r["verdict"]["release"])
print(r["verdict"]["summary"])' <(echo "$output")
  [ "${lines[0]}" = "True v2.1.0 kubeflow-system True False True notInstalled notInstalled unknown None" ]
  [ "${lines[1]}" = "no Training Operator v1; Kubeflow Trainer v2 is installed (TrainJob, not PyTorchJob)" ]
}

@test "nothing installed: the report is produced, exit 0" {
  run --separate-stderr "$KPT_BIN" doctor
  [ "$status" -eq 0 ]
  [[ "$output" == *$'\n'"operator deployment              not installed"$'\n'* ]]
  [[ "$output" == *$'\n'"trainer v2                       not installed"$'\n'* ]]
  [ "${lines[${#lines[@]}-1]}" = "verdict: no Training Operator v1 found" ]
}

@test "the json keys are stable" {
  install v1.8.1
  run --separate-stderr "$KPT_BIN" doctor -o json
  [ "$status" -eq 0 ]
  run python3 -c '
import json,sys
r=json.load(open(sys.argv[1]))
print(" ".join(sorted(r)))
print(" ".join(sorted(r["operator"])), "|", " ".join(sorted(r["crd"])), "|", " ".join(sorted(r["verdict"])))
print(r["crd"]["controllerGenReleases"], r["crd"]["fingerprintReleases"], r["operator"]["imageReleases"], r["webhook"]["state"])' <(echo "$output")
  [ "${lines[0]}" = "controller crd gangScheduling jobPods namespace operator permissions problems server trainerV2 verdict webhook" ]
  [ "${lines[1]}" = "image imageKind imageReleases imageTag name namespace state | controllerGen controllerGenReleases fingerprintReleases resourceVersion servedVersions state | candidates envStyle kind notes release summary" ]
  [ "${lines[2]}" = "['v1.8.0', 'v1.8.1'] ['v1.8.0', 'v1.8.1'] ['v1.8.1'] found" ]
}

@test "an unreachable cluster: exit 1 and the server is named" {
  run --separate-stderr "$KPT_BIN" doctor --server https://127.0.0.1:1 --insecure-skip-tls-verify --request-timeout 2s
  [ "$status" -eq 1 ]
  [[ "$stderr" == "error: cannot reach the cluster at 'https://127.0.0.1:1': "* ]]
}

@test "a bad output format is a usage error: exit 2" {
  run --separate-stderr "$KPT_BIN" doctor -o xml
  [ "$status" -eq 2 ]
}

@test "no usable kubeconfig is a set-up error: exit 2, named as kubectl names it" {
  run --separate-stderr env KUBECONFIG="$KPT_WORK/missing.yaml" "$KPT_BIN" doctor
  [ "$status" -eq 2 ]
  [[ "$stderr" == "error: "* ]]
}

@test "version --cluster prints the client version, then doctor's report; -o json is the report alone" {
  install v1.7.0
  run --separate-stderr "$KPT_BIN" version --cluster
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "$("$KPT_BIN" version | head -n1)" ]
  [ "${lines[1]}" = "$("$KPT_BIN" version | sed -n 2p)" ]
  [ "${lines[${#lines[@]}-1]}" = "verdict: operator v1.7.0: the image and the CRD agree" ]
  run --separate-stderr "$KPT_BIN" version --cluster -o json
  [ "$status" -eq 0 ]
  [ "$(echo "$output" | python3 -c 'import json,sys; print(json.load(sys.stdin)["verdict"]["release"])')" = "v1.7.0" ]
}

@test "job pods labelled by an older release: a row and a note, the verdict unchanged" {
  install v1.7.0
  kubectl create -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: old-job-master-0
  labels:
    group-name: kubeflow.org
    job-name: old-job
    training.kubeflow.org/operator-name: pytorchjob-controller
    training.kubeflow.org/job-name: old-job
    training.kubeflow.org/replica-type: master
spec:
  containers:
  - name: pytorch
    image: example/train:1
YAML
  run --separate-stderr "$KPT_BIN" doctor
  [ "$status" -eq 0 ]
  [[ "$output" == *$'\n'"job pods                         found            1 pod labelled as by v1.4.0-v1.5.0"$'\n'* ]]
  [[ "$output" == *$'\n'"note: pods of existing jobs carry the labels of v1.4.0-v1.5.0, not of v1.7.0: another release made them (before an"$'\n'"      upgrade?)"$'\n'* ]]
  [ "${lines[${#lines[@]}-1]}" = "verdict: operator v1.7.0: the image and the CRD agree" ]
  run --separate-stderr "$KPT_BIN" doctor -o json
  [ "$(echo "$output" | python3 -c 'import json,sys; p=json.load(sys.stdin)["jobPods"]; print(p["state"], p["pods"], p["labelReleases"])')" = "found 1 ['v1.4.0', 'v1.5.0']" ]
}
