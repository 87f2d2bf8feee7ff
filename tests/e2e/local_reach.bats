#!/usr/bin/env bats
# The local cluster is easy to reach: with no kubeconfig set, commands use it and say so once
# (or say how to start it); `local up --merge-kubeconfig` adds its context to ~/.kube/config as
# kind and k3d do; every hint names the state directory it applies to.
bats_require_minimum_version 1.5.0
load helpers

setup() {
  setup_workdir
  export HOME="$KPT_WORK/home" XDG_STATE_HOME="$KPT_WORK/xdg"
  mkdir -p "$HOME"
  unset KUBECONFIG
}
teardown() {
  "$KPT_BIN" local down --force >/dev/null 2>&1 || true
  [ -z "${OTHER:-}" ] || "$KPT_BIN" local down --force --state-dir "$OTHER" >/dev/null 2>&1 || true
  teardown_workdir
}

@test "with no kubeconfig, a command says how to reach the local cluster, then uses it once it is up" {
  run --separate-stderr "$KPT_BIN" status
  [ "$status" -eq 2 ]
  [ "$stderr" = "error: invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable (no kubeconfig is set; for the local cluster, start it with 'kubectl pytorch local up', or use --local where the command has it)" ]
  "$KPT_BIN" local up --server-only >/dev/null 2>&1
  run --separate-stderr "$KPT_BIN" status
  [ "$status" -eq 0 ]
  [ "$stderr" = "note: no kubeconfig is set: using the local cluster (state directory $XDG_STATE_HOME/kubectl-pytorch)
No PyTorchJobs or TrainJobs found in namespace default." ]
  # A kubeconfig of the user's own is never passed over.
  printf 'apiVersion: v1\nkind: Config\n' >"$HOME/.kube/config"
  run --separate-stderr "$KPT_BIN" status
  [ "$status" -eq 2 ]
  [[ "$stderr" != *"note: no kubeconfig is set"* ]]
}

@test "local up --merge-kubeconfig adds the kubectl-pytorch-local context to ~/.kube/config and keeps the rest" {
  mkdir -p "$HOME/.kube"
  cat >"$HOME/.kube/config" <<'YAML'
apiVersion: v1
kind: Config
clusters: [{name: prod, cluster: {server: "https://prod.example:6443"}}]
users: [{name: me, user: {token: t}}]
contexts: [{name: prod, context: {cluster: prod, user: me}}]
current-context: prod
YAML
  run "$KPT_BIN" local up --server-only --merge-kubeconfig
  [ "$status" -eq 0 ]
  [[ "$output" == *"context kubectl-pytorch-local added to $HOME/.kube/config and made current"* ]]
  [[ "$output" == *"  kubectl --context kubectl-pytorch-local get pods"* ]]
  [ "$(kubectl config current-context)" = kubectl-pytorch-local ]
  [ "$(kubectl config get-contexts -o name | sort | tr '\n' ' ')" = "kubectl-pytorch-local prod " ]
  run kubectl get configmaps -o name
  [ "$status" -eq 0 ]
  [ "$(stat -c %a "$HOME/.kube/config")" = 600 ]
}

@test "hints name the state directory they apply to" {
  OTHER="$KPT_WORK/other"
  run "$KPT_BIN" local up --server-only --state-dir "$OTHER" --kubeconfig-out "$KPT_WORK/other.yaml"
  [ "$status" -eq 0 ]
  [[ "$output" == *"Stop it with: kubectl pytorch local down --state-dir $OTHER"* ]]
  run "$KPT_BIN" local down --state-dir "$OTHER"
  [ "$status" -eq 0 ]
  run "$KPT_BIN" local down --state-dir "$OTHER"
  [ "$output" = "the local API server is not running (state directory $OTHER)" ]
}
