#!/usr/bin/env bats
# Shell completion as users reach it: through the real kubectl, whose plugin completion runs
# kubectl_complete-pytorch from PATH, and through the scripts of `completion bash|zsh|fish`.
bats_require_minimum_version 1.5.0
load helpers

setup() {
  setup_workdir
  PATH=$(plugin_path)
  export PATH
  printf '#!/bin/sh\nexec kubectl-pytorch __complete "$@"\n' > "$KPT_WORK/bin/kubectl_complete-pytorch"
  chmod +x "$KPT_WORK/bin/kubectl_complete-pytorch"
  export HOME="$KPT_WORK/home"
  mkdir -p "$HOME"
  export KUBECONFIG="$KPT_WORK/no-such-kubeconfig.yaml"
}
teardown() {
  if [ -n "${STATE:-}" ]; then stop_api_server; fi
  teardown_workdir
}

# complete ARGS...: what the real kubectl answers for `kubectl ARGS<TAB>`, stderr left out.
complete() { kubectl __complete "$@" 2>/dev/null; }

@test "kubectl completes the plugin's commands, with their descriptions" {
  run complete pytorch st
  [ "$status" -eq 0 ]
  [ "$output" = "$(printf 'status\tShow a job'"'"'s state and every replica'"'"'s phase, rank and exit code, or list the jobs\n:4')" ]
}

@test "kubectl completes a command's flags and the values of -o, --operator and --style" {
  run complete pytorch logs --rep
  [ "$output" = "$(printf -- '--replica\tOnly this replica, e.g. worker-1, master-0 or node-1\n:4')" ]
  run complete pytorch status -o ''
  [ "$output" = "$(printf 'table\nwide\njson\nyaml\nname\n:4')" ]
  run complete pytorch validate --operator v1.9.
  [ "$output" = "$(printf 'v1.9.0\nv1.9.1\nv1.9.2\nv1.9.3\nv1.9.4\n:4')" ]
  run complete pytorch env job.yaml --style tor
  [ "$output" = "$(printf 'torchrun\n:4')" ]
}

@test "a file argument leaves file names to the shell; no kubeconfig completes no job, silently" {
  run complete pytorch validate ''
  [ "$output" = ":0" ]
  run --separate-stderr kubectl __complete pytorch status ''
  [ "$status" -eq 0 ]
  [[ "$output" != *error* ]]
  [ "${lines[0]}" = ":4" ]
}

@test "job names and --context values come from the cluster and the kubeconfig" {
  start_api_server
  kubectl create -f "$KPT_SOURCE_DIR/testdata/crds/pytorchjob-small.yaml" >/dev/null
  cat > job.yaml <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: mnist, namespace: default}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers: [{name: pytorch, image: python:3.11, command: [python3, -c, "print(1)"]}]
YAML
  kubectl apply -f job.yaml
  run complete pytorch status ''
  [ "$output" = "$(printf 'mnist\n:4')" ]
  run complete pytorch logs m
  [ "$output" = "$(printf 'mnist\n:4')" ]
  context=$(kubectl config current-context)
  run complete pytorch status --context ''
  [ "$output" = "$(printf '%s\n:4' "$context")" ]
}

@test "the bash script of 'completion bash' completes through __complete" {
  run "$KPT_BIN" completion bash
  [ "$status" -eq 0 ]
  source <("$KPT_BIN" completion bash)
  COMP_WORDS=(kubectl-pytorch status -o '')
  COMP_CWORD=3
  _kubectl_pytorch
  [ "${COMPREPLY[*]}" = "table wide json yaml name" ]
  COMP_WORDS=(kubectl-pytorch lo)
  COMP_CWORD=1
  _kubectl_pytorch
  [ "${COMPREPLY[*]}" = "logs local" ]
}

@test "completion names the shells it has scripts for" {
  run "$KPT_BIN" completion tcsh
  [ "$status" -eq 2 ]
  [ "$output" = "error: completion takes one of bash, zsh or fish (or nothing, for how to set it up)" ]
  run "$KPT_BIN" completion zsh
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "#compdef kubectl-pytorch" ]
  run "$KPT_BIN" completion fish
  [ "$status" -eq 0 ]
  [[ "$output" == *"complete -c kubectl-pytorch -f -a '(__kubectl_pytorch_complete)'"* ]]
}
