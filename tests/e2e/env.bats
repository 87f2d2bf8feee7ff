#!/usr/bin/env bats
# kubectl pytorch env: exact table lines, the json shape and dotenv for a small fixture.
load helpers

setup() {
  setup_workdir
  cat > job.yaml <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: mnist
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: busybox
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: busybox
            env:
            - name: DATA
              value: /data
YAML
}
teardown() { teardown_workdir; }

@test "env prints the v1.9.4 table of the mnist job with differing variables marked" {
  run "$KPT_BIN" env job.yaml
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "style: operator@v1.9.4" ]
  [ "${lines[1]}" = "POD             TYPE    INDEX  RANK  SERVICE" ]
  [ "${lines[2]}" = "mnist-master-0  Master  0      0     mnist-master-0" ]
  [ "${lines[4]}" = "mnist-worker-1  Worker  1      2     mnist-worker-1" ]
  [ "${lines[5]}" = "VARIABLE            mnist-master-0  mnist-worker-0  mnist-worker-1" ]
  [ "${lines[6]}" = "PYTHONUNBUFFERED    1               1               1" ]
  [ "${lines[11]}" = "WORLD_SIZE          3               3               3" ]
  [ "${lines[12]}" = "RANK *              0               1               2" ]
  [ "${lines[16]}" = "DATA *              -               /data           /data" ]
  [ "${lines[17]}" = "* differs between pods" ]
  [[ "$output" == *'note: a bare '"'"'torchrun train.py'"'"' works'* ]]
}

@test "env -o json has the documented shape with the user's env first" {
  run "$KPT_BIN" env job.yaml --style worker-only -o json
  [ "$status" -eq 0 ]
  run /usr/bin/python3 -c '
import json, sys
doc = json.load(open("/dev/stdin"))
assert list(doc) == ["style", "pods"], list(doc)
assert doc["style"] == "worker-only"
for i, pod in enumerate(doc["pods"]):
    assert list(pod) == ["name", "replicaType", "index", "rank", "service", "env"], list(pod)
    assert pod["rank"] == i
print(" ".join(p["name"] for p in doc["pods"]))
print(" ".join(v["name"] + "=" + v["value"] for v in doc["pods"][2]["env"][:5]))
' <<< "$output"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "mnist-master-0 mnist-worker-0 mnist-worker-1" ]
  [ "${lines[1]}" = "DATA=/data PYTHONUNBUFFERED=1 MASTER_ADDR=mnist-master-0 MASTER_PORT=23456 RANK=2" ]
}

@test "env -o dotenv prints one pod's variables for env -i" {
  run "$KPT_BIN" env job.yaml --operator v1.4.0 -o dotenv --pod mnist-worker-0
  [ "$status" -eq 0 ]
  [ "$output" = "DATA=/data
PYTHONUNBUFFERED=0
MASTER_PORT=23456
MASTER_ADDR=mnist-master-0
WORLD_SIZE=3
RANK=1" ]
  run env -i $("$KPT_BIN" env job.yaml --style legacy -o dotenv --pod mnist-worker-1) /bin/sh -c 'echo $RANK/$WORLD_SIZE'
  [ "$output" = "2/3" ]
  # the short replica name, as logs --replica takes it
  run env -i $("$KPT_BIN" env job.yaml --style legacy -o dotenv --pod worker-1) /bin/sh -c 'echo $RANK/$WORLD_SIZE'
  [ "$output" = "2/3" ]
}

@test "env refuses what it cannot do with exit code 2 and one message" {
  run "$KPT_BIN" env job.yaml -o dotenv
  [ "$status" -eq 2 ]
  [ "$output" = "error: -o dotenv needs --pod NAME" ]
  run "$KPT_BIN" env job.yaml --pod nope
  [ "$status" -eq 2 ]
  [ "$output" = "error: no pod 'nope' in job 'mnist' (pods: mnist-master-0, mnist-worker-0, mnist-worker-1)" ]
  run "$KPT_BIN" env job.yaml --operator v1.7.5
  [ "$status" -eq 2 ]
  [[ "$output" == "error: unknown operator release 'v1.7.5' (known: v1.3.0, "* ]]
}

@test "env on the seed's worker-only job with v1.3.0 fails: that release creates no pods" {
  run "$KPT_BIN" env "$KPT_SOURCE_DIR/testdata/mnist-dp.yaml" --operator v1.3.0
  [ "$status" -eq 1 ]
  [ "$output" = "error: operator v1.3.0 creates no pods for a job without a Master replica (it requires one)" ]
}

# env's notes and validate's findings come from one verdict (judge_rendezvous): the same words,
# and never "works" in one where the other says "fails".
one_line() { tr -s ' \n' '  '; }

@test "env and validate agree that an elastic torchrun job without Master rendezvous" {
  run "$KPT_BIN" env --operator v1.9.4 "$KPT_SOURCE_DIR/testdata/env/elastic-c10d.yaml"
  [ "$status" -eq 0 ]
  notes=$(echo "$output" | one_line)
  [[ "$notes" == *"note: the elastic block (PET_RDZV_*) lets 'torch.distributed.run' rendezvous at elastic-mnist-worker-0; init_process_group(\"env://\") works in the processes it starts"* ]]
  [[ "$notes" != *"fix:"* ]]
  [[ "$notes" != *"fails"* ]]
  run "$KPT_BIN" validate --operator v1.9.4 "$KPT_SOURCE_DIR/testdata/env/elastic-c10d.yaml"
  [ "$status" -eq 0 ]
  [ "$output" = "0 errors, 0 warnings in 1 document (1 file)" ]
}

@test "env and validate give the same verdict on nprocPerNode \"2\" with a plain python" {
  job="$KPT_SOURCE_DIR/testdata/env/nproc-python.yaml"
  run "$KPT_BIN" validate --operator v1.9.4 -o json "$job"
  [ "$status" -eq 1 ]
  message=$(echo "$output" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(next(f["message"] for f in d["diagnostics"] if f["rule"]=="lint.nproc-rank-is-node-rank"))')
  [[ "$message" == "nprocPerNode is '2': WORLD_SIZE=4 counts processes (2x2) but RANK is the pod's rank, so 'python train.py' waits"* ]]
  run "$KPT_BIN" env --operator v1.9.4 "$job"
  [ "$status" -eq 0 ]
  notes=$(echo "$output" | one_line)
  [[ "$notes" == *"note: $message note: fix: launch with torchrun"* ]]
  [[ "$notes" != *"works with one process per pod"* ]]
}
