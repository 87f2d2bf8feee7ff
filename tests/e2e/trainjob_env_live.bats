#!/usr/bin/env bats
# env --live for a TrainJob on the local cluster: the pods our controller made for JobSet, matched by
# hostname, against the Trainer model; the job named in the cluster rather than in a file; doctor's
# Trainer rows on the same cluster.
bats_require_minimum_version 1.5.0
load helpers

setup_file() {
  start_file_cluster trainjob-env
  cat >"$KPT_FILE_DIR/sleepy.yaml" <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: sleepy
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    numProcPerNode: 1
    image: busybox
    command: [sh, -c, "sleep 600"]
    env:
      - name: TEAM
        value: ml
YAML
  kubectl apply -f "$KPT_FILE_DIR/sleepy.yaml" >/dev/null
  for _ in $(seq 1 120); do
    [ "$(kubectl get pods -l jobset.sigs.k8s.io/jobset-name=sleepy -o name | wc -l)" -eq 2 ] && break
    sleep 0.5
  done
}

teardown_file() { stop_file_cluster; }

setup() { setup_workdir; }
teardown() { teardown_workdir; }

@test "the running pods' env matches the model for the file: exit 0" {
  run --separate-stderr "$KPT_BIN" env "$KPT_FILE_DIR/sleepy.yaml" --local --live
  [ "$status" -eq 0 ]
  [ "$output" = $'pod sleepy-node-0-0: env matches\npod sleepy-node-0-1: env matches' ]
}

@test "the TrainJob named in the cluster, with its runtime from the cluster" {
  run --separate-stderr "$KPT_BIN" env sleepy --local
  [ "$status" -eq 0 ]
  [ "${lines[1]}" = "runtime: ClusterTrainingRuntime/torch-distributed from the cluster, framework torch" ]
  [[ "$output" == *"TEAM                    ml                      ml"* ]]
}

@test "a file whose spec differs from what runs: the difference is named, exit 1" {
  sed 's/numProcPerNode: 1/numProcPerNode: 2/' "$KPT_FILE_DIR/sleepy.yaml" >other.yaml
  run --separate-stderr "$KPT_BIN" env other.yaml --local --live --pod sleepy-node-0-1
  [ "$status" -eq 1 ]
  [ "$output" = "pod sleepy-node-0-1: 'PET_NPROC_PER_NODE' is '1', expected '2'" ]
}

@test "doctor lists Trainer's release, JobSet and the installed runtimes; env defaults to that release" {
  run --separate-stderr "$KPT_BIN" doctor
  [ "$status" -eq 0 ]
  [[ "$output" =~ $'\n'"trainer release "\ +"v2.3.0 "\ +"image unknown, CRD fingerprint v2.3.0"$'\n' ]]
  [[ "$output" =~ $'\n'"runtime torch-distributed "\ +"torch "\ +"numNodes 1"$'\n' ]]
  run --separate-stderr "$KPT_BIN" doctor -o json
  [ "$status" -eq 0 ]
  run python3 -c '
import json, sys
t = json.load(open("/dev/stdin"))["trainerV2"]
names = [r["name"] for r in t["clusterTrainingRuntimes"]["items"]]
assert t["release"] == "v2.3.0" and t["agreement"] == "crd", t
assert "torch-distributed" in names, names
' <<<"$output"
  [ "$status" -eq 0 ]
  run --separate-stderr "$KPT_BIN" env "$KPT_FILE_DIR/sleepy.yaml"
  [ "$status" -eq 0 ]
  [ "$stderr" = "using Trainer release v2.3.0 detected in the cluster" ]
  [ "${lines[0]}" = "trainjob: default/sleepy (Trainer v2.3.0)" ]
}
