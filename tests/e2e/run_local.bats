#!/usr/bin/env bats
# run --local end to end: the embedded API server, our controller and the local node,
# driven by the built binary and checked with the real kubectl.
bats_require_minimum_version 1.5.0
load helpers

setup_file() { start_file_cluster run; }

teardown_file() { stop_file_cluster; }

setup() { setup_workdir; }
teardown() { teardown_workdir; }

@test "a job that succeeds: exit 0 and every rank's lines, prefixed" {
  run --separate-stderr timeout 120 "$KPT_BIN" run --local "$KPT_SOURCE_DIR/testdata/run/hello.yaml"
  [ "$status" -eq 0 ]
  [[ "$output" == *"[worker-0 r0] hello from rank 0 of 2 via hello-worker-0:23456"* ]]
  [[ "$output" == *"[worker-1 r1] hello from rank 1 of 2 via hello-worker-0:23456"* ]]
  [[ "$stderr" == *"pytorchjob.kubeflow.org/hello created"* ]]
  [[ "$stderr" == *"pytorchjob hello succeeded in "* ]]
}

@test "the real kubectl sees the job's Services and Pods by the guide's labels" {
  timeout 120 "$KPT_BIN" run --local "$KPT_SOURCE_DIR/testdata/run/hello.yaml" >/dev/null 2>&1
  run kubectl get svc -l app.kubernetes.io/name=hello -o name
  [ "$status" -eq 0 ]
  [ "$output" = $'service/hello-worker-0\nservice/hello-worker-1' ]
  run kubectl get pods -l app.kubernetes.io/name=hello -o jsonpath='{.items[*].status.phase}'
  [ "$output" = "Succeeded Succeeded" ]
  run kubectl logs hello-worker-1
  [ "$status" -eq 0 ]
  [ "$output" = "hello from rank 1 of 2 via hello-worker-0:23456" ]
}

@test "a re-run of a finished job runs it again" {
  timeout 120 "$KPT_BIN" run --local "$KPT_SOURCE_DIR/testdata/run/hello.yaml" >/dev/null 2>&1
  run --separate-stderr timeout 120 "$KPT_BIN" run --local "$KPT_SOURCE_DIR/testdata/run/hello.yaml"
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"pytorchjob hello had finished: replacing it"* ]]
  [[ "$output" == *"[worker-0 r0] hello from rank 0 of 2"* ]]
}

@test "rank 0 exits 3: run exits 3, the job is Failed and the summary names the replica" {
  run --separate-stderr timeout 120 "$KPT_BIN" run --local "$KPT_SOURCE_DIR/testdata/run/rank0-fails.yaml"
  [ "$status" -eq 3 ]
  [[ "$output" == *"[worker-0 r0] rank 0 gives up"* ]]
  [[ "$stderr" == *"pytorchjob rank0-fails failed after "*"rank0-fails-worker-0 (rank 0) exited with code 3"* ]]
  run kubectl get pytorchjob rank0-fails -o jsonpath='{.status.conditions[-1:].type}'
  [ "$output" = "Failed" ]
}

@test "a command that is not there: a clear message and exit 1, not a hang" {
  run --separate-stderr timeout 60 "$KPT_BIN" run --local --rm "$KPT_SOURCE_DIR/testdata/run/no-command.yaml"
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"error: no-command-worker-0 cannot start its command: exec: \"no-such-command-kpt\": executable file not found in \$PATH"* ]]
}

@test "--timeout: exit 124 and the job keeps running" {
  run --separate-stderr timeout 60 "$KPT_BIN" run --local --timeout 3s "$KPT_SOURCE_DIR/testdata/run/sleeper.yaml"
  [ "$status" -eq 124 ]
  [[ "$stderr" == *"error: timed out after 3s: the job keeps running"* ]]
  run kubectl get pytorchjob sleeper -o name
  [ "$output" = "pytorchjob.kubeflow.org/sleeper" ]
  kubectl delete pytorchjob sleeper --wait=false >/dev/null
}

@test "Ctrl-C detaches: exit 130 and how to follow again" {
  "$KPT_BIN" run --local "$KPT_SOURCE_DIR/testdata/run/sleeper.yaml" >"$KPT_WORK/out" 2>"$KPT_WORK/err" &
  pid=$!
  for _ in $(seq 100); do grep -q "started" "$KPT_WORK/out" 2>/dev/null && break; sleep 0.2; done
  kill -INT "$pid"
  status=0
  wait "$pid" || status=$?
  [ "$status" -eq 130 ]
  grep -q "interrupted: the job keeps running" "$KPT_WORK/err"
  grep -qF "follow again: kubectl pytorch logs sleeper -f --local -n default" "$KPT_WORK/err"
  grep -qF "delete it:    kubectl delete pytorchjob sleeper --kubeconfig $HOME/.kube/kubectl-pytorch-local.yaml -n default" "$KPT_WORK/err"
  # the hint works when pasted, without the KUBECONFIG this test exports
  hint=$(sed -n 's/^  delete it: *//p' "$KPT_WORK/err")
  run env -u KUBECONFIG sh -c "$hint --wait=false"
  [ "$status" -eq 0 ]
  [ "$output" = 'pytorchjob.kubeflow.org "sleeper" deleted' ]
}

@test "re-running a changed job while it runs is refused; --replace recreates it" {
  kubectl delete pytorchjob sleeper --ignore-not-found --wait=true >/dev/null
  "$KPT_BIN" run --local --detach "$KPT_SOURCE_DIR/testdata/run/sleeper.yaml" >/dev/null 2>&1
  sed 's/exec sleep 300/exec sleep 301/' "$KPT_SOURCE_DIR/testdata/run/sleeper.yaml" >"$KPT_WORK/changed.yaml"
  run --separate-stderr "$KPT_BIN" run --local --detach "$KPT_WORK/changed.yaml"
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"error: pytorchjob 'sleeper' is running and the manifest changes its spec, which its pods would not get; run with --replace to delete and recreate it"* ]]
  # the same manifest again changes nothing: no refusal
  run --separate-stderr "$KPT_BIN" run --local --detach "$KPT_SOURCE_DIR/testdata/run/sleeper.yaml"
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"pytorchjob.kubeflow.org/sleeper configured"* ]]
  run --separate-stderr timeout 90 "$KPT_BIN" run --local --detach --replace "$KPT_WORK/changed.yaml"
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"pytorchjob sleeper is running with another spec: replacing it (--replace)"* ]]
  run kubectl get pytorchjob sleeper -o jsonpath='{.spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].command[2]}'
  [ "$output" = "echo started; exec sleep 301" ]
  kubectl delete pytorchjob sleeper --wait=false >/dev/null
}

@test "--detach prints the job's name on stdout, -o name its resource name" {
  run --separate-stderr "$KPT_BIN" run --local --detach "$KPT_SOURCE_DIR/testdata/run/hello.yaml"
  [ "$status" -eq 0 ]
  [ "$output" = "hello" ]
  [[ "$stderr" == *"follow it with: kubectl pytorch logs hello -f --local -n default"* ]]
  run --separate-stderr "$KPT_BIN" run --local --detach -o name "$KPT_SOURCE_DIR/testdata/run/hello.yaml"
  [ "$status" -eq 0 ]
  [ "$output" = "pytorchjob.kubeflow.org/hello" ]
  timeout 120 "$KPT_BIN" logs hello -f --local >/dev/null 2>&1
}

@test "--rm deletes the job when it ends" {
  run timeout 120 "$KPT_BIN" run --local --rm "$KPT_SOURCE_DIR/testdata/run/hello.yaml"
  [ "$status" -eq 0 ]
  run kubectl get pytorchjob hello
  [ "$status" -ne 0 ]
  [[ "$output" == *"NotFound"* || "$output" == *"not found"* ]]
}

@test "status and logs reach a finished job" {
  timeout 120 "$KPT_BIN" run --local "$KPT_SOURCE_DIR/testdata/run/hello.yaml" >/dev/null 2>&1
  run "$KPT_BIN" status hello --local -o json
  [ "$status" -eq 0 ]
  [ "$(echo "$output" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["state"], [r["phase"] for r in d["replicas"]])')" = "Succeeded ['Succeeded', 'Succeeded']" ]
  # -o yaml is -o json as YAML, as kubectl's is.
  json=$("$KPT_BIN" status hello --local -o json | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))')
  yaml=$("$KPT_BIN" status hello --local -o yaml | python3 -c 'import json,sys,yaml; print(json.dumps(yaml.safe_load(sys.stdin), sort_keys=True))')
  [ "$json" = "$yaml" ]
  run "$KPT_BIN" status hello --local -o name
  [ "$output" = "pytorchjob.kubeflow.org/hello" ]
  # The list: every job of the namespace (earlier tests' among them), each as KIND.GROUP/NAME.
  run "$KPT_BIN" status --local -o name
  [[ "$output" == *"pytorchjob.kubeflow.org/hello"* ]]
  [ -z "$(echo "$output" | grep -v '^\(pytorchjob.kubeflow.org\|trainjob.trainer.kubeflow.org\)/')" ]
  run --separate-stderr "$KPT_BIN" status hello --local -o wide
  [[ "${lines[2]}" =~ ^"  ran for: "[0-9]+s", restarts: 0"$ ]]
  [ "${lines[3]}" = "POD              RANK   PHASE       RESTARTS   EXIT   WAITING   TYPE     INDEX   LAST OUTPUT   MESSAGE" ]
  # LAST OUTPUT: when its log last grew (the local node stamps each line as it sees the log grow).
  [[ "${lines[4]}" =~ ^"hello-worker-0   0      Succeeded   0          0                Worker   0       "[0-9]+s" ago"$ ]]
  run --separate-stderr "$KPT_BIN" status --local -o wide
  [[ "${lines[0]}" == "NAME "*"STATE "*"AGE "*"PODS   MESSAGE" ]]
  [[ "$output" == *"pytorchjob/hello "*"Succeeded   "*"2      PyTorchJob hello is successfully completed."* ]]
  run "$KPT_BIN" logs hello --local --replica worker-1
  [ "$status" -eq 0 ]
  [ "$output" = "[worker-1 r1] hello from rank 1 of 2 via hello-worker-0:23456" ]
}

@test "logs -f --tail N shows the last N lines of each log written before the follow" {
  cat > counter.yaml <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: counter
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: python:3.11
            command: ["sh", "-c", "for i in 1 2 3 4 5; do echo line $i; done"]
YAML
  timeout 120 "$KPT_BIN" run --local counter.yaml >/dev/null 2>&1
  run --separate-stderr timeout 60 "$KPT_BIN" logs counter -f --tail 2 --local
  [ "$status" -eq 0 ]
  [ "$output" = $'[worker-0 r0] line 4\n[worker-0 r0] line 5' ]
  run --separate-stderr timeout 60 "$KPT_BIN" logs counter -f --local
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 5 ]
}

@test "--dry-run=client prints the job that --image builds" {
  run "$KPT_BIN" run --image python:3.11 --workers 3 --name demo --dry-run=client -- python3 train.py
  [ "$status" -eq 0 ]
  [[ "$output" == *"kind: PyTorchJob"* ]]
  [[ "$output" == *"replicas: 3"* ]]
  [[ "$output" == *"- train.py"* ]]
}

@test "two jobs on one master port run side by side, each in its own network" {
  kubectl delete pytorchjob sleeper hello --ignore-not-found --wait=true >/dev/null
  "$KPT_BIN" run --local --detach "$KPT_SOURCE_DIR/testdata/run/sleeper.yaml" >/dev/null 2>&1
  kubectl wait --for=jsonpath='{.status.phase}'=Running pod/sleeper-worker-0 --timeout=60s >/dev/null
  # sleeper's rank 0 holds 23456 in its job's network; hello's rank 0 binds it in its own.
  run --separate-stderr timeout 120 "$KPT_BIN" run --local "$KPT_SOURCE_DIR/testdata/run/hello.yaml"
  [ "$status" -eq 0 ]
  [[ "$output" == *"[worker-1 r1] hello from rank 1 of 2 via hello-worker-0:23456"* ]]
  run kubectl get pod sleeper-worker-0 -o jsonpath='{.status.phase}'
  [ "$output" = "Running" ]
  kubectl delete pytorchjob sleeper --wait=false >/dev/null
}

@test "doctor, validate and env see our controller on the local cluster: the seed validates and env is worker-only" {
  run "$KPT_BIN" doctor
  [ "$status" -eq 0 ]
  [[ "$output" == *"verdict: kubectl-pytorch's controller (the local cluster), env style worker-only"* ]]
  run --separate-stderr "$KPT_BIN" validate "$KPT_SOURCE_DIR/testdata/mnist-dp/mnist-dp.yaml"
  [ "$status" -eq 0 ]
  [ "$stderr" = "using kubectl-pytorch's controller (the local cluster), env style worker-only, detected in the cluster" ]
  run --separate-stderr "$KPT_BIN" env "$KPT_SOURCE_DIR/testdata/mnist-dp/mnist-dp.yaml" -o dotenv --pod worker-1
  [ "$status" -eq 0 ]
  [[ "$output" == *"MASTER_ADDR=mnist-dp-worker-0"* ]]
  [[ "$output" == *"RANK=1"* ]]
}
