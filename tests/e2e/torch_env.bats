#!/usr/bin/env bats
# Proof with real PyTorch: one local /usr/bin/python3 process per replica pod, each with exactly
# the env `kubectl-pytorch env FILE --style S -o json` computes, must form a gloo process group through
# init_method="env://" and agree on an all_reduce. Service names resolve to loopback via nss_wrapper (see
# torch/run_pods.py). Each case is bounded (60 s wall, 30 s process-group timeout); unloaded it takes
# a few seconds, mostly `import torch`. Needs Debian's python3-torch and libnss-wrapper; KPT_TORCH_E2E=skip skips the suite.
load helpers

TORCH_DIR="$BATS_TEST_DIRNAME/torch"

setup() {
  if [ "${KPT_TORCH_E2E:-}" = skip ]; then skip "KPT_TORCH_E2E=skip"; fi
  setup_workdir
}
teardown() { teardown_workdir; }

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# write_job NAME MASTERS WORKERS PORT [NPROC_PER_NODE]: job.yaml with the given replicas, every pytorch
# container exposing pytorchjob-port PORT (so each test has its own rendezvous port).
write_job() {
  local name=$1 masters=$2 workers=$3 port=$4 nproc=${5:-}
  {
    printf 'apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: %s\nspec:\n' "$name"
    [ -n "$nproc" ] && printf '  nprocPerNode: "%s"\n' "$nproc"
    printf '  pytorchReplicaSpecs:\n'
    for type in Master Worker; do
      local n=$masters
      [ "$type" = Worker ] && n=$workers
      [ "$n" -gt 0 ] || continue
      printf '    %s:\n      replicas: %s\n      template:\n        spec:\n          containers:\n' "$type" "$n"
      printf '          - name: pytorch\n            image: python:3.11\n'
      printf '            ports:\n            - name: pytorchjob-port\n              containerPort: %s\n' "$port"
    done
  } > job.yaml
}

# all_reduce STYLE: runs every pod of job.yaml and asserts each one reported its rank.
all_reduce() {
  run /usr/bin/python3 "$TORCH_DIR/run_pods.py" "$KPT_BIN" job.yaml "$1" 60 "$TORCH_DIR/allreduce.py" \
    '{rank}' '{world}' 30
  echo "$output"
  [ "$status" -eq 0 ]
  local world=$2
  for ((r = 0; r < world; r++)); do
    [[ "$output" == *"rank $r/$world ok: all_reduce=$((world * (world + 1) / 2))"* ]]
  done
}

@test "worker-only style: a 2-worker job without Master forms a process group" {
  write_job wo2 0 2 "$(free_port)"
  all_reduce worker-only 2
}

@test "worker-only style: Master plus 2 Workers form a process group" {
  write_job mw3 1 2 "$(free_port)"
  all_reduce worker-only 3
}

@test "legacy style: Master plus 3 Workers form a process group" {
  write_job lg4 1 3 "$(free_port)"
  all_reduce legacy 4
}

@test "legacy style: a 3-worker job without Master forms a process group" {
  write_job lgw3 0 3 "$(free_port)"
  all_reduce legacy 3
}

@test "torchrun style: Master plus 1 Worker form a process group" {
  write_job tr2 1 1 "$(free_port)"
  all_reduce torchrun 2
}

@test "torchrun style: a 4-worker job without Master forms a process group" {
  write_job trw4 0 4 "$(free_port)"
  all_reduce torchrun 4
}

@test "operator v1.9.4: a Master job forms a process group with one process per pod" {
  write_job op3 1 2 "$(free_port)"
  all_reduce operator@v1.9.4 3
}

@test "torchrun's own parser resolves nnodes, node rank, nproc-per-node and the endpoint from PET_* alone" {
  local port
  port=$(free_port)
  for style in torchrun worker-only operator@v1.9.4; do
    write_job tp 1 2 "$port" 2
    run /usr/bin/python3 "$TORCH_DIR/run_pods.py" "$KPT_BIN" job.yaml "$style" 60 "$TORCH_DIR/torchrun_parse.py"
    echo "$style: $output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "tp-master-0: 3 3 2 0 tp-master-0:$port static" ]
    [ "${lines[2]}" = "tp-worker-0: 3 3 2 1 tp-master-0:$port static" ]
    [ "${lines[4]}" = "tp-worker-1: 3 3 2 2 tp-master-0:$port static" ]
  done
  write_job tpw 0 2 "$port" 1
  run /usr/bin/python3 "$TORCH_DIR/run_pods.py" "$KPT_BIN" job.yaml worker-only 60 "$TORCH_DIR/torchrun_parse.py"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "tpw-worker-0: 2 2 1 0 tpw-worker-0:$port static" ]
  [ "${lines[2]}" = "tpw-worker-1: 2 2 1 1 tpw-worker-0:$port static" ]
}

@test "operator v1.9.4 with the seed's worker-only job: no process group, MASTER_ADDR is missing" {
  run /usr/bin/python3 "$TORCH_DIR/run_pods.py" "$KPT_BIN" "$KPT_SOURCE_DIR/testdata/mnist-dp.yaml" \
    operator@v1.9.4 60 "$TORCH_DIR/allreduce.py" '{rank}' '{world}' 5
  echo "$output"
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "mnist-dp-worker-0: error: missing env for init_method='env://': MASTER_ADDR MASTER_PORT RANK WORLD_SIZE" ]
  [[ "${lines[1]}" == "mnist-dp-worker-0: error: init_process_group failed: "*"RANK expected, but not set"* ]]
  [ "${lines[2]}" = "mnist-dp-worker-0: exit 1" ]
  [[ "$output" == *"mnist-dp-worker-1: exit 1"* ]]
}
