#!/usr/bin/env bats
# The local cluster's objects live in SQLite in the state directory: they survive `local down`
# then `local up` and a kill -9 of the server; pods that ran are reconciled as after a node
# restart; `local reset` wipes them. Checked with the real kubectl and python3-kubernetes.
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
  "$KPT_BIN" local down --force --grace 2s >/dev/null 2>&1 || true
  teardown_workdir
}

up() { "$KPT_BIN" local up "$@" >>"$KPT_WORK/up.log" 2>&1; }
# kubectl create configmap sends protobuf, which the server does not decode: apply YAML instead.
configmap() {
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {a: "%s"}\n' "$1" "${2:-}" |
    kubectl apply -f - >/dev/null
}

@test "objects survive local down then local up" {
  up --server-only
  configmap kept 1
  configmap gone 2
  kubectl delete configmap gone >/dev/null
  rv=$(kubectl get configmap kept -o jsonpath='{.metadata.resourceVersion}')
  "$KPT_BIN" local down >/dev/null
  up --server-only
  run kubectl get configmaps -o jsonpath='{range .items[*]}{.metadata.name}={.data.a}@{.metadata.resourceVersion} {end}'
  [ "$status" -eq 0 ]
  [ "$output" = "kept=1@$rv " ]
  # Resource versions go on from where they were.
  configmap next
  next=$(kubectl get configmap next -o jsonpath='{.metadata.resourceVersion}')
  [ "$next" -gt "$rv" ]
}

@test "kill -9 of the server during a burst of writes loses nothing acknowledged" {
  up --server-only
  for round in 1 2; do
    /usr/bin/python3 "$KPT_SOURCE_DIR/tests/e2e/local_store/burst.py" "$KUBECONFIG" "$KPT_WORK/acked" "r$round" 20 &
    burst=$!
    # Kill at a random point once writes flow (the client's import takes a while on a busy machine).
    for _ in $(seq 200); do
      [ "$(cat "$KPT_WORK/acked" 2>/dev/null | wc -l)" -ge $((round * 5)) ] && break
      sleep 0.05
    done
    sleep "0.$((RANDOM % 4 + 1))"
    kill -9 "$(cat "$STATE/apiserver.pid")"
    wait "$burst"
    up --server-only
  done
  [ "$(wc -l <"$KPT_WORK/acked")" -gt 10 ]
  kubectl get configmaps -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | sort >"$KPT_WORK/stored"
  run comm -23 <(sort "$KPT_WORK/acked") "$KPT_WORK/stored"
  [ "$status" -eq 0 ]
  [ "$output" = "" ]
}

@test "after a restart a running pod restarts by restartPolicy Always, and Never fails it" {
  up
  for policy in Always Never; do
    kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: sleeper-${policy,,}}
spec:
  restartPolicy: $policy
  containers: [{name: main, image: local, command: [sleep, "60"]}]
YAML
  done
  for pod in sleeper-always sleeper-never; do
    kubectl wait --for=jsonpath='{.status.phase}'=Running "pod/$pod" --timeout=30s >/dev/null
  done
  "$KPT_BIN" local down --force >/dev/null
  up
  kubectl wait --for=jsonpath='{.status.phase}'=Failed pod/sleeper-never --timeout=30s >/dev/null
  run kubectl get pod sleeper-never -o jsonpath='{.status.containerStatuses[0].state.terminated.reason}'
  [ "$output" = "ContainerStatusUnknown" ]
  kubectl wait --for=jsonpath='{.status.containerStatuses[0].restartCount}'=1 pod/sleeper-always --timeout=30s >/dev/null
  run kubectl get pod sleeper-always -o jsonpath='{.status.phase} {.status.containerStatuses[0].lastState.terminated.reason}'
  [ "$output" = "Running ContainerStatusUnknown" ]
}

@test "local reset stops the cluster and removes every object" {
  up --server-only
  configmap doomed
  run "$KPT_BIN" local reset
  [ "$status" -eq 0 ]
  [[ "$output" == *"is stopped"* ]]
  [[ "$output" == *"the local cluster's objects and logs are removed (state directory $STATE)"* ]]
  up --server-only
  run kubectl get configmaps -o name
  [ "$status" -eq 0 ]
  [ "$output" = "" ]
}

@test "Events expire --event-ttl after their last write, also while the server is down" {
  event() {
    printf 'apiVersion: v1\nkind: Event\nmetadata: {name: %s}\ninvolvedObject: {kind: Pod, name: p, namespace: default}\nreason: Started\ntype: Normal\n' "$1" |
      kubectl create -f - >/dev/null
  }
  up --server-only --event-ttl 2s
  event early
  configmap kept 1
  "$KPT_BIN" local down >/dev/null
  sleep 3
  up --server-only
  run kubectl get events,configmaps -o name
  [ "$output" = "configmap/kept" ]
  "$KPT_BIN" local down >/dev/null
  up --server-only --event-ttl 2s
  event live
  [ "$(kubectl get events -o name)" = "event/live" ]
  sleep 5
  run kubectl get events -o name
  [ "$status" -eq 0 ]
  [ "$output" = "" ]
  run "$KPT_BIN" local up --event-ttl 10
  [ "$status" -eq 0 ]
  run "$KPT_BIN" local up --event-ttl soon
  [ "$status" -eq 2 ]
  [[ "$output" == *"error: --event-ttl: 'soon' is not a duration of 1s or more"* ]]
}
