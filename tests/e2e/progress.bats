#!/usr/bin/env bats
# Progress on the local cluster (docs/progress.md): Trainer's progress protocol served by our
# controller (a trainer posting as Trainer's clients do, from tests/e2e/progress/trainer_client.py),
# and progress read from rank 0's log for a job that only prints "Epoch i/N"; in kubectl, status,
# status -o json, status -w and run.
bats_require_minimum_version 1.5.0
load helpers

CLIENT="$BATS_TEST_DIRNAME/progress/trainer_client.py"
EPOCHS="$BATS_TEST_DIRNAME/progress/epochs.py"

setup_file() { start_file_cluster progress; }

teardown_file() { stop_file_cluster; }

setup() { setup_workdir; }
teardown() { teardown_workdir; }

# write_trainjob NAME ARGS...: a one-node TrainJob of the torch-distributed runtime running ARGS.
write_trainjob() {
  local name=$1
  shift
  local args=""
  for a in "$@"; do args+="\"$a\", "; done
  cat >"$name.yaml" <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: $name
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 1
    image: python:3.11
    command: [${args%, }]
YAML
}

# write_pytorchjob NAME ARGS...: a one-worker PyTorchJob running ARGS.
write_pytorchjob() {
  local name=$1
  shift
  local args=""
  for a in "$@"; do args+="\"$a\", "; done
  cat >"$name.yaml" <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: $name
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: python:3.11
            command: [${args%, }]
YAML
}

json_field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

@test "a TrainJob's node posts progress as Trainer's clients do: kubectl, status and status -o json show it" {
  write_trainjob posts python3 "$CLIENT" 42
  run --separate-stderr timeout 120 "$KPT_BIN" run --local posts.yaml
  [ "$status" -eq 0 ]
  [[ "$output" == *"[node-0 r0] update: 200"* ]]
  [[ "$stderr" == *"progress: 42%, loss=0.123, accuracy=0.95 (from trainerStatus)"* ]]
  run kubectl get trainjob posts -o jsonpath='{.status.trainerStatus.progressPercentage}'
  [ "$output" = 42 ]
  run kubectl get trainjob posts -o jsonpath='{.status.trainerStatus.metrics[0].name}={.status.trainerStatus.metrics[0].value}'
  [ "$output" = "loss=0.123" ]
  # The local CRD's printer column (the schema is the real one's).
  run kubectl get trainjob posts
  [[ "${lines[0]}" == "NAME "*"STATE "*"PROGRESS % "*"AGE" ]]
  [[ "${lines[1]}" == "posts "*"Complete "*"42 "* ]]
  run --separate-stderr "$KPT_BIN" status trainjob/posts
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "trainjob posts (default): Complete" ]
  [[ "${lines[3]}" == "  progress: 42%, ETA "*", loss=0.123, accuracy=0.95 (from trainerStatus)" ]]
  run --separate-stderr "$KPT_BIN" status -o json trainjob/posts
  [ "$(echo "$output" | json_field 'd["progress"]["percent"], d["progress"]["source"], d["progress"]["metrics"][0]')" = \
    "42 trainerStatus {'name': 'loss', 'value': '0.123'}" ]
  [ "$(echo "$output" | json_field 'd["startTime"] is not None and d["finishTime"] is not None, d["durationSeconds"] >= 0')" = "True True" ]
  run --separate-stderr "$KPT_BIN" status
  [[ "$output" == *"trainjob/posts "*"Complete "*"42%   "* ]]
}

@test "a wrong token and a malformed body get Trainer's answers" {
  write_trainjob refused python3 "$CLIENT" 10
  run --separate-stderr timeout 120 "$KPT_BIN" run --local refused.yaml
  [ "$status" -eq 0 ]
  [[ "$output" == *'[node-0 r0] wrong token: 403 {"metadata":{},"status":"Failure","message":"Forbidden","reason":"Forbidden","code":403}'* ]]
  [[ "$output" == *'[node-0 r0] malformed body: 422 {"metadata":{},"status":"Failure","message":"Invalid payload","reason":"Invalid","code":422}'* ]]
  # The CA and the token are files of the pod; the env points at them.
  pod=$(kubectl get pods -l jobset.sigs.k8s.io/jobset-name=refused -o jsonpath='{.items[0].metadata.name}')
  run kubectl get pod "$pod" -o jsonpath='{.spec.volumes[?(@.name=="kubeflow-trainer-token")].projected.sources[0].serviceAccountToken.audience}'
  [ "$output" = "trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/refused/status" ]
  run kubectl get configmap refused-tls-config -o jsonpath='{.metadata.ownerReferences[0].kind}'
  [ "$output" = TrainJob ]
}

@test "a PyTorchJob posts progress too: our annotation, and kubectl's column" {
  write_pytorchjob pyposts python3 "$CLIENT" 64
  run --separate-stderr timeout 120 "$KPT_BIN" run --local pyposts.yaml
  [ "$status" -eq 0 ]
  [[ "$output" == *"[worker-0 r0] update: 200"* ]]
  run kubectl get pytorchjob pyposts -o jsonpath='{.metadata.annotations.kubectl-pytorch\.kubeflow\.org/progress-percentage}'
  [ "$output" = 64 ]
  run kubectl get pytorchjob pyposts
  [[ "${lines[0]}" == "NAME "*"STATE "*"PROGRESS % "*"AGE" ]]
  [[ "${lines[1]}" == "pyposts "*"Succeeded "*"64 "* ]]
  run --separate-stderr "$KPT_BIN" status pyposts -o json
  [ "$(echo "$output" | json_field 'd["progress"]["percent"], d["progress"]["source"]')" = "64 trainerStatus" ]
}

@test "a PyTorchJob that only prints Epoch i/N shows a percentage and an ETA in status while it runs" {
  write_pytorchjob epochs python3 "$EPOCHS" 6 1.5
  "$KPT_BIN" run --local --detach epochs.yaml >/dev/null 2>&1
  line=""
  for _ in $(seq 1 60); do
    line=$("$KPT_BIN" status epochs --local 2>/dev/null | grep '^  progress: ' || true)
    if [[ "$line" == *"epoch 2/6"* || "$line" == *"epoch 3/6"* || "$line" == *"epoch 4/6"* ]]; then break; fi
    sleep 0.5
  done
  [[ "$line" =~ ^"  progress: "[0-9]+"%, epoch "[2-4]"/6, ETA "[0-9]+s" (from rank 0's log)"$ ]]
  run --separate-stderr "$KPT_BIN" status epochs --local -o wide
  [[ "${lines[4]}" == "POD "*"LAST OUTPUT   MESSAGE" ]]
  [[ "${lines[5]}" =~ ^"epochs-worker-0   0      Running   0          -                Worker   0       "[0-9]+s" ago"$ ]]
  run --separate-stderr "$KPT_BIN" status --local
  [[ "${lines[0]}" == "NAME "*"STATE "*"PROGRESS "*"ETA "*"DURATION "*"RESTARTS "*"AGE" ]]
  [[ "$output" =~ "pytorchjob/epochs"\ +Running\ +[0-9]+%\ +[0-9]+s\ + ]]
  # When it ends: the duration it ran for and its last count.
  kubectl wait --for=jsonpath='{.status.conditions[-1:].type}'=Succeeded pytorchjob/epochs --timeout=60s >/dev/null
  run --separate-stderr "$KPT_BIN" status epochs --local
  [[ "${lines[2]}" =~ ^"  ran for: "[0-9]+s", restarts: 0"$ ]]
  [ "${lines[3]}" = "  progress: 100%, epoch 6/6, ETA 0s (from rank 0's log)" ]
}

@test "status -w piped: a line per change until the job ends" {
  write_pytorchjob watched python3 "$EPOCHS" 3 1
  "$KPT_BIN" run --local --detach watched.yaml >/dev/null 2>&1
  run --separate-stderr timeout 90 "$KPT_BIN" status watched -w
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -ge 2 ]
  [[ "${lines[-1]}" =~ ^[0-9T:-]+Z" pytorchjob/watched Succeeded 100%, epoch 3/3, ETA 0s (from rank 0's log) duration "[0-9]+s" restarts 0"$ ]]
  [[ "$output" == *"pytorchjob/watched Running"* ]]
}

@test "run --progress reads a pattern of the user's, and refuses one it cannot use" {
  write_pytorchjob custom sh -c 'for i in 1 2 3 4; do echo done $i of 4; done'
  run --separate-stderr timeout 120 "$KPT_BIN" run --local --progress 'done (?P<current>\d+) of (?P<total>\d+)' custom.yaml
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"progress: 100%, 4/4 (from rank 0's log)"* ]]
  run --separate-stderr "$KPT_BIN" run --local --progress 'step (\d+)' custom.yaml
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: --progress: the pattern needs two groups, the count done and the total (or named current and total), or a group named percent" ]
}
