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

@test "kubectl pytorch version runs the plugin through kubectl" {
  PATH=$(plugin_path) run kubectl pytorch version
  [ "$status" -eq 0 ]
  [[ "$output" =~ ^kubectl-pytorch\ v[0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "version -o json and -o yaml name the client version as kubectl version does" {
  PATH=$(plugin_path) run kubectl pytorch version -o json
  [ "$status" -eq 0 ]
  version=$(printf '%s' "$output" | python3 -c 'import json, sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])')
  [[ "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]
  run "$KPT_BIN" version -o yaml
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "clientVersion:" ]
  [[ "${lines[1]}" == *"gitVersion: $version"* ]]
}

@test "help names the program as kubectl pytorch and lists exit codes" {
  PATH=$(plugin_path) run kubectl pytorch --help
  [ "$status" -eq 0 ]
  [[ "${lines[1]}" == "Usage: kubectl pytorch [OPTIONS] SUBCOMMAND" ]]
  [[ "$output" == *"124  run: --timeout reached"* ]]
}

@test "every command's help states its own exit codes once (124 and 130 only for run and logs), no parser artefacts" {
  commands=(validate env doctor run logs status convert completion version controller "controller manifests"
    local "local up" "local down" "local reset" "local status")
  for c in "${commands[@]}"; do
    # shellcheck disable=SC2086 # the words of a subcommand
    run "$KPT_BIN" $c --help
    [ "$status" -eq 0 ] || { echo "$c: rc $status"; false; }
    count=$(grep -c '^Exit code' <<<"$output" || true)
    [ "$count" -eq 1 ] || { echo "$c: $count exit-code sections"; false; }
    [[ "$output" != *"124  run: --timeout reached"* ]] || { echo "$c shows the whole table"; false; }
    # No parser artefacts: CLI11's range and negated-flag decorations.
    [[ "$output" != *":UINT in ["* && "$output" != *":INT in ["* && "$output" != *"{false}"* ]] ||
      { echo "$c: parser artefacts in its help"; false; }
    case "$c" in
      run) [[ "$output" == *"124 --timeout"* && "$output" == *"130 interrupted"* ]] ;;
      logs) [[ "$output" == *"130 interrupted"* && "$output" != *"124"* ]] ;;
      *) [[ "$output" != *"130 interrupted"* ]] || { echo "$c names 130"; false; } ;;
    esac
  done
}

@test "an unknown command is a usage error with exit code 2" {
  run "$KPT_BIN" no-such-command
  [ "$status" -eq 2 ]
  [[ "$output" == *"error:"* ]]
}

@test "run on a file with a PyTorchJob and a TrainJob says it takes one, and exits 2 before connecting" {
  { cat "$KPT_SOURCE_DIR/testdata/trainjob/mnist-dp.yaml"; echo ---; cat "$KPT_SOURCE_DIR/testdata/run/hello.yaml"; } >two.yaml
  run --separate-stderr "$KPT_BIN" run --local --force two.yaml
  [ "$status" -eq 2 ]
  [[ "$stderr" == *"error: 'two.yaml' holds 2 PyTorchJobs and TrainJobs; run takes exactly one" ]]
}
