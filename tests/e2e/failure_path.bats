#!/usr/bin/env bats
# The failure path on the local cluster, with real Python scripts (testdata/failures): run's last
# lines name the rank that failed first and why, diagnose says the same in text and JSON; a crash
# loop ends the follow, --stall-timeout names silent ranks, logs reads restarts and filters lines.
# Needs Debian's python3-torch and libnss-wrapper; KPT_TORCH_E2E=skip skips the torch cases.
bats_require_minimum_version 1.5.0
load helpers

FAIL="$KPT_SOURCE_DIR/testdata/failures"

setup_file() { start_file_cluster failure-path; }

teardown_file() { stop_file_cluster; }

setup() { setup_workdir; }
# The jobs that keep running (a crash loop, a hang) hold the master port every local job binds:
# gone, pods and all, before the next test.
teardown() {
  kubectl delete pytorchjob fail-syntax fail-hang --ignore-not-found --cascade=foreground --wait=true >/dev/null 2>&1 || true
  teardown_workdir
}

needs_torch() {
  if [ "${KPT_TORCH_E2E:-}" = skip ]; then skip "KPT_TORCH_E2E=skip"; fi
}

# json_field JSON EXPR: a Python expression over the document `d`, printed.
json_field() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print($2)" "$1"; }

@test "an exception on rank 1: run ends naming rank 1 and its exception; diagnose says the same" {
  needs_torch
  run --separate-stderr timeout 120 "$KPT_BIN" run --local "$FAIL/fail-exception.yaml"
  [ "$status" -eq 1 ]
  [[ "$output" == *"[worker-1 r1] RuntimeError: loss is NaN at step 3"* ]]
  tail=$(echo "$stderr" | tail -n 8)
  [[ "$tail" == *$'pytorchjob fail-exception failed: worker-1 (rank 1) failed first\n  exit:       exited with code 1, at '* ]]
  [[ "$tail" == *$'\n  exception:  RuntimeError: loss is NaN at step 3 (train.py:36)\n  class:      Python exception\n  then:       worker-0 (rank 0)'*': lost a peer (connection closed or reset)'* ]]
  [[ "$tail" == *$'\n  next step:  fix the error at train.py:36\n  its log:    kubectl pytorch logs fail-exception --rank 1 --local -n default\n'* ]]
  [[ "$(echo "$stderr" | tail -n 1)" == "pytorchjob fail-exception failed after "*"s: fail-exception-worker-1 (rank 1) exited with code 1, the first of 2 failed ranks; PyTorchJob fail-exception is failed because 1 Worker replica(s) failed." ]]
  run --separate-stderr "$KPT_BIN" diagnose fail-exception --local
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "pytorchjob fail-exception failed: worker-1 (rank 1) failed first" ]
  [ "${lines[2]}" = "  exception:  RuntimeError: loss is NaN at step 3 (train.py:36)" ]
  [ "${lines[3]}" = "  class:      Python exception" ]
  run --separate-stderr "$KPT_BIN" why fail-exception --local -o json
  [ "$status" -eq 0 ]
  [ "$(json_field "$output" 'd["verdict"], d["rootCause"]["rank"], d["rootCause"]["class"], d["rootCause"]["exception"]["where"]')" = "failed 1 exception train.py:36" ]
  [ "$(json_field "$output" 'd["following"][0]["role"], d["following"][0]["class"], d["following"][0]["collateral"]')" = "worker-0 peer-lost True" ]
}

@test "a SIGKILLed rank: 137 decoded, the rank killed first named, its peer's loss collateral" {
  needs_torch
  run --separate-stderr timeout 120 "$KPT_BIN" run --local "$FAIL/fail-sigkill.yaml"
  [ "$status" -eq 1 ]
  tail=$(echo "$stderr" | tail -n 8)
  [[ "$tail" == *$'pytorchjob fail-sigkill failed: worker-1 (rank 1) failed first\n  exit:       killed (SIGKILL): often the out-of-memory killer (exit code 137), at '* ]]
  [[ "$tail" == *$'\n  last line:  rank 1 step 3\n  class:      killed\n'* ]]
  [[ "$(echo "$stderr" | tail -n 1)" == *"fail-sigkill-worker-1 (rank 1) killed (SIGKILL): often the out-of-memory killer (exit code 137), the first of 2 failed ranks;"* ]]
  run --separate-stderr "$KPT_BIN" diagnose fail-sigkill --local -o json
  [ "$status" -eq 0 ]
  [ "$(json_field "$output" 'd["rootCause"]["role"], d["rootCause"]["exitCode"], d["rootCause"]["signal"], d["class"]')" = "worker-1 137 9 killed" ]
  [ "$(json_field "$output" 'd["following"][0]["class"], "by peer" in d["following"][0]["exception"]["line"]')" = "peer-lost True" ]
}

@test "a missing module: the class and the module to install" {
  needs_torch
  run --separate-stderr timeout 120 "$KPT_BIN" run --local "$FAIL/fail-import.yaml"
  [ "$status" -eq 1 ]
  tail=$(echo "$stderr" | tail -n 8)
  [[ "$tail" == *$'\n  exception:  ModuleNotFoundError: No module named \'kpt_no_such_module\' (train.py:29)\n  class:      missing Python module\n'* ]]
  [[ "$tail" == *$'\n  next step:  install \'kpt_no_such_module\' where the pods run (the image; with --local this machine\'s python3), or fix the import\n'* ]]
  run --separate-stderr "$KPT_BIN" diagnose fail-import --local
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == "pytorchjob fail-import failed: worker-"?" (rank "?") failed first" ]]
  [[ "$output" == *"  also:       worker-"?" (rank "?")"*": the same failure"* ]]
  run --separate-stderr "$KPT_BIN" diagnose fail-import --local -o json
  [ "$(json_field "$output" 'd["class"], d["rootCause"]["exception"]["type"]')" = "missing-module ModuleNotFoundError" ]
}

@test "a SyntaxError under OnFailure without backoffLimit: run stops after three identical failures" {
  needs_torch
  run --separate-stderr "$KPT_BIN" validate --offline "$FAIL/fail-syntax.yaml"
  [[ "$output" == *"warning: spec.pytorchReplicaSpecs.Worker.restartPolicy: restartPolicy 'OnFailure' restarts a failing pod again and again while spec.runPolicy.backoffLimit is not set"*"[lint.no-backoff-limit]"* ]]
  run --separate-stderr timeout 120 "$KPT_BIN" run --local "$FAIL/fail-syntax.yaml"
  [ "$status" -eq 1 ]
  [[ "$output" == *$'--- worker-0 attempt 2 ---\n'* ]]
  [[ "$stderr" == *$'\nerror: pytorchjob fail-syntax is in a crash loop: worker-'?' (rank '?$') failed the same way 3 times\n'* ]]
  [[ "$stderr" == *$'\n  exception:  SyntaxError: \'(\' was never closed (syntax_error.py:4)\n'* ]]
  [[ "$stderr" == *$'\n  next step:  fix the error at syntax_error.py:4; then set spec.runPolicy.backoffLimit so that the job fails instead of restarting forever\n'* ]]
  [[ "$stderr" == *$'\nthe job keeps restarting\n  follow again: kubectl pytorch logs fail-syntax -f --local -n default\n'* ]]
  run --separate-stderr "$KPT_BIN" diagnose fail-syntax --local -o json
  [ "$status" -eq 0 ]
  [ "$(json_field "$output" 'd["verdict"], d["rootCause"]["exception"]["line"], d["repeats"] >= 3')" = "crash-loop SyntaxError: '(' was never closed True" ]
  # logs: the run before the current one of a restarted rank, under its attempt's separator.
  run --separate-stderr "$KPT_BIN" logs fail-syntax --local --rank 0 --previous
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == "--- worker-0 attempt "?" ---" ]]
  [ "${lines[4]}" = "[worker-0 r0] SyntaxError: '(' was never closed" ]
}

# The user's path on a cluster of `local up`, without --local: the pods run in the manifest's folder,
# and a job that fails under OnFailure with a backoffLimit ends on its first failure, named from the
# failed run's log though the pods go on restarting in place (cleanPodPolicy None).
@test "run on the local cluster's kubeconfig: pods run in the manifest's folder; the failed run, not the restarts after it" {
  needs_torch
  mkdir job && cp "$FAIL/train.py" job/
  sed -e 's/name: fail-exception/name: fail-onfailure/' -e 's/restartPolicy: Never/restartPolicy: OnFailure/' \
    -e 's/cleanPodPolicy: None/cleanPodPolicy: None\n    backoffLimit: 1/' "$FAIL/fail-exception.yaml" >job/job.yaml
  run --separate-stderr timeout 120 "$KPT_BIN" run job/job.yaml
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"note: the local cluster ignores container images: each container's command runs as a local process in '$KPT_WORK/job'"* ]]
  [[ "$output" == *"[worker-1 r1] RuntimeError: loss is NaN at step 3"* ]]
  [[ "$output" != *"attempt 3 ---"* ]]
  tail=$(echo "$stderr" | tail -n 10)
  [[ "$tail" == *$'pytorchjob fail-onfailure failed: worker-1 (rank 1) failed first (after 1 restart)\n'* ]]
  [[ "$tail" == *$'\n  exception:  RuntimeError: loss is NaN at step 3 (train.py:36)\n'* ]]
  kubectl delete pytorchjob fail-onfailure --cascade=foreground --wait=true >/dev/null
}

@test "a hang: --stall-timeout names the silent ranks and their last lines; the job keeps running" {
  needs_torch
  run --separate-stderr timeout 120 "$KPT_BIN" run --local --stall-timeout 8s "$FAIL/fail-hang.yaml"
  [ "$status" -eq 1 ]
  [[ "$output" == *"[worker-1 r1] rank 1 step 3"* ]]
  [[ "$stderr" == *$'\nerror: pytorchjob fail-hang is running, but '*' printed nothing for '*$'s\n'* ]]
  [[ "$stderr" == *$'\n  silent:     worker-1 (rank 1) '*$'s ago: last line \'rank 1 step 3\'\n'* ]]
  [[ "$stderr" == *$'\nthe job keeps running\n'* ]]
  run --separate-stderr "$KPT_BIN" diagnose fail-hang --local --silence 5s -o json
  [ "$status" -eq 0 ]
  [ "$(json_field "$output" 'd["verdict"], [(r["role"], r["silent"], r["lastLine"]) for r in d["ranks"]]')" = "stalled [('worker-0', True, 'rank 0 step 3'), ('worker-1', True, 'rank 1 step 3')]" ]
}

# Node 1's rank 3 raises; node 1's torchrun then waits for its other worker while node 0's workers
# lose their peers and node 0 exits first. When the Job gives up (backoffLimit 0) it deletes the
# pods still running, so which node's pod is left to be seen first is a race: the verdict names a
# node and the exception of a worker of it, never torchrun's ChildFailedError.
@test "a TrainJob node fails under torchrun: a node and its worker's exception, not torchrun's" {
  needs_torch
  run --separate-stderr timeout 150 "$KPT_BIN" run --local "$FAIL/fail-trainjob.yaml"
  [ "$status" -eq 1 ]
  tail=$(echo "$stderr" | tail -n 8)
  [[ "$tail" == *$'trainjob fail-trainjob failed: node-'?' (rank '?$') failed first\n'* ]]
  [[ "$tail" == *$'\n  exception:  RuntimeError: '*' (train.py:'* ]]
  [[ "$tail" != *"ChildFailedError"* ]]
  [[ "$tail" == *"  its log:    kubectl pytorch logs trainjob/fail-trainjob --rank "?" --local -n default"* ]]
  run --separate-stderr "$KPT_BIN" diagnose trainjob/fail-trainjob --local -o json
  [ "$status" -eq 0 ]
  [ "$(json_field "$output" 'd["kind"], d["verdict"], d["rootCause"]["role"].startswith("node-"), d["rootCause"]["exception"]["line"].startswith("RuntimeError: ")')" = "trainjob failed True True" ]
}

# One node of two workers, whose rank 1 kills itself: torchrun exits 1 with a ChildFailedError that
# says only that a worker failed, and its report's root cause may be rank 0, which lost its peer in
# the same second; the verdict is rank 1's SIGKILL from that report, and rank 1's last line. (One node:
# with two, the Job's backoffLimit 0 deletes whichever node's pod has not failed yet.)
@test "a TrainJob whose torchrun worker is SIGKILLed: the worker's signal, not torchrun's ChildFailedError" {
  needs_torch
  cp "$FAIL/train.py" .
  sed -e 's/name: fail-trainjob/name: kill-trainjob/' -e 's/value: exception/value: sigkill/' \
    -e 's/numNodes: 2/numNodes: 1/' -e 's/value: "3"/value: "1"/' "$FAIL/fail-trainjob.yaml" >kill-trainjob.yaml
  [ "$(grep -c 'numNodes: 1' kill-trainjob.yaml)" -eq 2 ]
  run --separate-stderr timeout 150 "$KPT_BIN" run --local kill-trainjob.yaml
  [ "$status" -eq 1 ]
  tail=$(echo "$stderr" | tail -n 10)
  [[ "$tail" == *"torchrun's worker of global rank 1 (local rank 1) was killed (SIGKILL): often the out-of-memory killer (exit code -9)"* ]]
  [[ "$tail" == *$'\n  last line:  rank 1 step 3\n'* ]]
  [[ "$tail" == *$'\n  class:      killed\n'* ]]
  [[ "$tail" != *"ChildFailedError"* ]]
  [[ "$tail" != *"left behind"* ]]
}

@test "a rank that prints its first line after a long silent start loses no line" {
  cat >slow.yaml <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: slow-start
spec:
  runPolicy:
    backoffLimit: 0
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: python:3.11
            command: ["sh", "-c", "sleep 8; echo first line of rank $RANK; echo last line of rank $RANK"]
YAML
  run --separate-stderr timeout 60 "$KPT_BIN" run --local slow.yaml
  [ "$status" -eq 0 ]
  for r in 0 1; do
    [ "$(echo "$output" | grep -c "^\[worker-$r r$r\] first line of rank $r$")" -eq 1 ]
    [ "$(echo "$output" | grep -c "^\[worker-$r r$r\] last line of rank $r$")" -eq 1 ]
  done
}

@test "logs: --rank, --include and --exclude as stern's, --timestamps and --since as kubectl's" {
  needs_torch
  kubectl get pytorchjob fail-exception >/dev/null 2>&1 || timeout 120 "$KPT_BIN" run --local "$FAIL/fail-exception.yaml" >/dev/null 2>&1 || true
  run --separate-stderr "$KPT_BIN" logs fail-exception --local --rank 1 -i 'step [12]$'
  [ "$status" -eq 0 ]
  [ "$output" = $'[worker-1 r1] rank 1 step 1\n[worker-1 r1] rank 1 step 2' ]
  run --separate-stderr "$KPT_BIN" logs fail-exception --local --rank 0 -e '^ ' -e 'step'
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 2 ]
  [ "${lines[0]}" = "[worker-0 r0] Traceback (most recent call last):" ]
  [[ "${lines[1]}" == "[worker-0 r0] RuntimeError: "*"Connection closed by peer"* ]]
  run --separate-stderr "$KPT_BIN" logs fail-exception --local --rank 3
  [ "$status" -eq 1 ]
  [ "$stderr" = "error: pytorchjob 'fail-exception' has no rank 3" ]
  run --separate-stderr "$KPT_BIN" logs fail-exception --local --rank 1 -i '('
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: invalid --include '(': error parsing regexp: missing closing ): \`(\`" ]
  run --separate-stderr "$KPT_BIN" logs fail-exception --local --rank 1 --timestamps --since 1h
  [ "$status" -eq 0 ]
  # The local node stamps each line as it is written (issue 33): the lines come with their time.
  [[ "${lines[0]}" =~ ^\[worker-1\ r1\]\ 20[0-9-]+T[0-9:.]+Z\ rank\ 1\ step\ 1$ ]]
  [ -z "$stderr" ]
  run --separate-stderr "$KPT_BIN" logs fail-exception --local -f --previous
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: --previous shows an ended run: it takes no -f" ]
}

@test "run --image sets a backoffLimit and says which" {
  run --separate-stderr "$KPT_BIN" run --image python:3.11 --workers 2 --name built --dry-run=client -- python3 train.py
  [ "$status" -eq 0 ]
  # The note ends stderr; before it, run may name the target it checked the job for.
  [ "${stderr##*$'\n'}" = "note: --image sets spec.runPolicy.backoffLimit 3: the job fails after that many restarts instead of restarting forever" ]
  [[ "$output" == *"backoffLimit: 3"* ]]
}
