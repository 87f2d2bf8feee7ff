#!/usr/bin/env bats
# A crash of the local server (kill -9, as an OOM kill does) leaves nothing running: the pods'
# processes die with the node, a node that starts again ends what its process ledger names, and
# the pods then follow their restartPolicy as after a node reboot.
bats_require_minimum_version 1.5.0
load helpers

setup() {
  setup_workdir
  export HOME="$KPT_WORK/home" XDG_STATE_HOME="$KPT_WORK/xdg"
  mkdir -p "$HOME"
  STATE="$XDG_STATE_HOME/kubectl-pytorch"
  export KUBECONFIG="$HOME/.kube/kubectl-pytorch-local.yaml"
}
teardown() {
  "$KPT_BIN" local down --force --grace 1s >/dev/null 2>&1 || true
  teardown_workdir
}

up() { "$KPT_BIN" local up >>"$KPT_WORK/up.log" 2>&1; }
gone() {
  for _ in $(seq 100); do pgrep -f "$1" >/dev/null || return 0; sleep 0.1; done
  echo "still running: $1" >&3
  return 1
}

@test "kill -9 of the server during a job, then local up: nothing old is left and the job succeeds" {
  up
  kubectl apply -f - >/dev/null <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: crashed}
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
            command: [sh, -c, 'if [ -e $KPT_WORK/ran-\$RANK ]; then echo "rank \$RANK again"; exit 0; fi; touch $KPT_WORK/ran-\$RANK; setsid sleep 600.301 & exec sleep 600.302']
YAML
  wait_created pod/crashed-worker-0 pod/crashed-worker-1
  kubectl wait --for=jsonpath='{.status.phase}'=Running pod/crashed-worker-0 pod/crashed-worker-1 --timeout=60s >/dev/null
  for _ in $(seq 100); do [ "$(pgrep -fc 'sleep 600.30[12]')" = 4 ] && break; sleep 0.1; done
  [ "$(pgrep -fc 'sleep 600.30[12]')" = 4 ]
  kill -9 "$(cat "$STATE/apiserver.pid")"
  up
  gone "sleep 600.30[12]"
  kubectl wait --for=condition=Succeeded pytorchjob/crashed --timeout=90s >/dev/null
  for r in 0 1; do
    run kubectl get pod "crashed-worker-$r" -o jsonpath='{.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].lastState.terminated.reason}'
    [ "$output" = "1 ContainerStatusUnknown" ]
    [ "$(kubectl logs "crashed-worker-$r")" = "rank $r again" ]
  done
}

@test "a node that starts ends the processes its ledger names, and only those" {
  up
  "$KPT_BIN" local down >/dev/null
  setsid sleep 600.303 </dev/null >/dev/null 2>&1 &
  left=$!
  sleep 600.304 </dev/null >/dev/null 2>&1 &
  other=$!
  sleep 0.2
  # As an earlier node would have left it: the pid and its start time (field 22 of its stat).
  start=$(sed 's/.*) //' "/proc/$left/stat" | cut -d' ' -f20)
  echo "$left $start" >"$STATE/node.pids"
  up
  grep -q "ended 1 process(es) that an earlier node left running" "$STATE/apiserver.log"
  gone "sleep 600.303"
  kill -0 "$other"
  kill "$other"
}
