#!/usr/bin/env bash
# How long the local cluster takes to stop (`local down`, the cluster up and idle for a second
# before) and a trivial two-worker `run --local` from no cluster to exit, RUNS times each.
# Prints min / median / max in milliseconds. Usage: bench_local.sh KUBECTL_PYTORCH [RUNS]
set -euo pipefail
bin=$(realpath "$1")
runs=${2:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/kpt-bench-local.XXXXXX")
trap 'HOME="$work/home" XDG_STATE_HOME="$work/state" "$bin" local down --force >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
export HOME="$work/home" XDG_STATE_HOME="$work/state"
mkdir -p "$HOME"
cd "$work"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

summary() {  # name, then the figures
  local name=$1
  shift
  printf '%s\n' "$@" | sort -n | awk -v name="$name" '
    { v[NR] = $1 }
    END { printf "%-34s min %5d ms  median %5d ms  max %5d ms  (%d runs)\n", name, v[1], v[int((NR + 1) / 2)], v[NR], NR }'
}

cat > job.yaml <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: trivial
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: local
            command: ["true"]
YAML

down=()
for _ in $(seq "$runs"); do
  "$bin" local up >/dev/null 2>&1
  sleep 1
  start=$(now_ms)
  "$bin" local down >/dev/null
  down+=($(($(now_ms) - start)))
done
summary "local down (idle cluster)" "${down[@]}"

run=()
for _ in $(seq "$runs"); do
  start=$(now_ms)
  "$bin" run --local job.yaml >/dev/null 2>&1
  run+=($(($(now_ms) - start)))
done
summary "run --local, 2 workers of 'true'" "${run[@]}"
