#!/usr/bin/env bats
# The binary is a kubectl plugin: the real kubectl finds it and runs it.
bats_require_minimum_version 1.5.0
load helpers

setup() { setup_workdir; }
teardown() { teardown_workdir; }

@test "kubectl plugin list finds kubectl-pytorch" {
  PATH=$(plugin_path) run kubectl plugin list --name-only
  [ "$status" -eq 0 ]
  [[ "$output" == *"kubectl-pytorch"* ]]
}

@test "kubectl pytorch version runs the plugin through kubectl: git's version, then the commit" {
  PATH=$(plugin_path) run kubectl pytorch version
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 2 ]
  [[ "${lines[0]}" =~ ^kubectl-pytorch\ v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]
  [[ "${lines[1]}" =~ ^commit\ [0-9a-f]{40}( with uncommitted changes)?$ ]]
}

@test "version -o json and -o yaml name the git version, commit and tree state as kubectl version does" {
  PATH=$(plugin_path) run kubectl pytorch version -o json
  [ "$status" -eq 0 ]
  read -r version commit state < <(printf '%s' "$output" | python3 -c 'import json, sys
v = json.load(sys.stdin)["clientVersion"]
print(v["gitVersion"], v["gitCommit"], v["gitTreeState"])')
  [ "kubectl-pytorch $version" = "$("$KPT_BIN" version | head -n1)" ]
  [[ "$commit" =~ ^[0-9a-f]{40}$ ]]
  [[ "$state" == clean || ( "$state" == dirty && "$version" == *-dirty ) ]]
  run "$KPT_BIN" version -o yaml
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "clientVersion:" ]
  [[ "$output" == *"gitVersion: $version"* && "$output" == *"gitCommit: $commit"* ]]
  [[ "$output" == *"gitTreeState: $state"* ]]
}

@test "help names the program as kubectl pytorch and lists exit codes" {
  PATH=$(plugin_path) run kubectl pytorch --help
  [ "$status" -eq 0 ]
  [[ "${lines[1]}" == "Usage: kubectl pytorch [OPTIONS] SUBCOMMAND" ]]
  [[ "$output" == *"124  run: --timeout reached"* ]]
}

@test "every command's help has examples and states its own exit codes once (124 and 130 only for run and logs), no parser artefacts" {
  commands=(validate env doctor run logs diagnose status convert completion version controller "controller manifests"
    local "local up" "local down" "local reset" "local status")
  for c in "${commands[@]}"; do
    # shellcheck disable=SC2086 # the words of a subcommand
    run "$KPT_BIN" $c --help
    [ "$status" -eq 0 ] || { echo "$c: rc $status"; false; }
    count=$(grep -c '^Exit code' <<<"$output" || true)
    [ "$count" -eq 1 ] || { echo "$c: $count exit-code sections"; false; }
    [[ "$output" == *$'\nExamples:\n  kubectl pytorch '* ]] || { echo "$c: no Examples section"; false; }
    [[ "$output" != *"124  run: --timeout reached"* ]] || { echo "$c shows the whole table"; false; }
    # No parser artefacts: CLI11's range and negated-flag decorations.
    [[ "$output" != *":UINT in ["* && "$output" != *":INT in ["* && "$output" != *"{false}"* &&
      "$output" != *"TEXT:{"* ]] ||
      { echo "$c: parser artefacts in its help"; false; }
    case "$c" in
      run) [[ "$output" == *"124 --timeout"* && "$output" == *"130 interrupted"* ]] ;;
      logs) [[ "$output" == *"130 interrupted"* && "$output" != *"124"* ]] ;;
      *) [[ "$output" != *"130 interrupted"* ]] || { echo "$c names 130"; false; } ;;
    esac
  done
}

@test "an unknown command is a usage error with exit code 2, and a close one is suggested as cobra does" {
  run --separate-stderr "$KPT_BIN" no-such-command
  [ "$status" -eq 2 ]
  [ "$stderr" = "$(printf 'error: unknown command "no-such-command" for "kubectl pytorch"\n\nRun '"'"'kubectl pytorch --help'"'"' for usage.')" ]
  PATH=$(plugin_path) run --separate-stderr kubectl pytorch stauts
  [ "$status" -eq 2 ]
  [ "$stderr" = "$(printf 'error: unknown command "stauts" for "kubectl pytorch"\n\nDid you mean this?\n\tstatus\n\nRun '"'"'kubectl pytorch --help'"'"' for usage.')" ]
  run --separate-stderr "$KPT_BIN" local dwon
  [ "$status" -eq 2 ]
  [[ "$stderr" == *'unknown command "dwon" for "kubectl pytorch local"'*"Did you mean this?"*"down"* ]]
}

@test "help [command] prints the page --help prints" {
  [ "$("$KPT_BIN" help)" = "$("$KPT_BIN" --help)" ]
  [ "$("$KPT_BIN" help status)" = "$("$KPT_BIN" status --help)" ]
  [ "$("$KPT_BIN" help local up)" = "$("$KPT_BIN" local up --help)" ]
  run --separate-stderr "$KPT_BIN" help stauts
  [ "$status" -eq 2 ]
  [[ "$stderr" == *'unknown command "stauts"'*"status"* ]]
}

@test "flags parse as kubectl's pflag parses them: -n=NS, -v=N, --flag=value, --flag value, -A=false" {
  cat >kc.yaml <<'YAML'
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: def}}]
current-context: x
users: [{name: u, user: {token: abc}}]
YAML
  for args in "-n=other" "-n other" "--namespace=other" "--namespace other" "-nother"; do
    run --separate-stderr "$KPT_BIN" config-resolve --kubeconfig kc.yaml $args
    [ "$status" -eq 0 ]
    [[ "$output" == *'"namespace": "other"'* ]] || { echo "$args: $output"; false; }
  done
  run --separate-stderr "$KPT_BIN" config-resolve --kubeconfig=kc.yaml -v=6 --insecure-skip-tls-verify=true
  [ "$status" -eq 0 ]
  [[ "$output" == *'"insecureSkipTlsVerify": true'* ]]
  # A flag given -X=value is set through its long name, not taken as a positional argument.
  run --separate-stderr "$KPT_BIN" status -A=false --kubeconfig kc.yaml --request-timeout=1s
  [ "$status" -eq 1 ]
  [[ "$stderr" == *"/apis/kubeflow.org/v1/namespaces/def/pytorchjobs?"* ]]
  # After --, nothing is rewritten: it is the command of run --image.
  run --separate-stderr "$KPT_BIN" run --image img --workers 1 --dry-run=client -o json -- python -n=1
  [ "$status" -eq 0 ]
  [[ "$output" == *'"-n=1"'* ]]
}

@test "--color always colours a finding, never and NO_COLOR (when not empty) keep it plain" {
  printf 'apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: c}\nspec: {bogus: 1}\n' >bad.yaml
  run "$KPT_BIN" --color always validate --offline -q bad.yaml
  [ "$status" -eq 1 ]
  [[ "$output" == *$'\033['* ]]
  run "$KPT_BIN" validate --offline -q bad.yaml --color never
  [[ "$output" != *$'\033['* ]]
  run env NO_COLOR=1 "$KPT_BIN" validate --offline -q bad.yaml
  [[ "$output" != *$'\033['* ]]
  run "$KPT_BIN" --color sometimes version
  [ "$status" -eq 2 ]
}

@test "-o yaml is -o json as YAML for validate and env" {
  for c in "validate --offline $KPT_SOURCE_DIR/testdata/mnist-dp/mnist-dp.yaml" \
    "env --offline $KPT_SOURCE_DIR/testdata/mnist-dp/mnist-dp.yaml" \
    "env --offline $KPT_SOURCE_DIR/testdata/trainjob/mnist-dp.yaml"; do
    json=$("$KPT_BIN" $c -o json | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))')
    yaml=$("$KPT_BIN" $c -o yaml | python3 -c 'import json,sys,yaml; print(json.dumps(yaml.safe_load(sys.stdin), sort_keys=True))')
    [ -n "$json" ] && [ "$json" = "$yaml" ] || { echo "$c differs"; false; }
  done
}

@test "run on a file with a PyTorchJob and a TrainJob says it takes one, and exits 2 before connecting" {
  { cat "$KPT_SOURCE_DIR/testdata/trainjob/mnist-dp.yaml"; echo ---; cat "$KPT_SOURCE_DIR/testdata/run/hello.yaml"; } >two.yaml
  run --separate-stderr "$KPT_BIN" run --local --force two.yaml
  [ "$status" -eq 2 ]
  [[ "$stderr" == *"error: 'two.yaml' holds 2 PyTorchJobs and TrainJobs; run takes exactly one" ]]
}
