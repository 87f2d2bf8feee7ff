#!/usr/bin/env bash
# The server's memory and time for six `kubectl logs --tail=1 --limit-bytes=10` at once on a
# 200 MiB pod log (written once by the pod, 1 MiB at a time), on a fresh local cluster.
# Prints the time and the server process's peak RSS before and after (issue 33: the server read
# whole logs, and six such requests took it to gigabytes).
# Usage: bench_log_tail.sh KUBECTL_PYTORCH
set -euo pipefail
bin=$(realpath "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/kpt-bench-log-tail.XXXXXX")
trap '"$bin" local down --state-dir "$work/state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
export HOME="$work/home" KUBECONFIG="$work/kubeconfig.yaml"
mkdir -p "$HOME"
"$bin" local up --state-dir "$work/state" --kubeconfig-out "$KUBECONFIG" >/dev/null 2>&1
pid=$(cat "$work/state/apiserver.pid")
kubectl create -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: big-log}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: python:3.11
    command: [python3, -c, "import sys\nw = sys.stdout.buffer.write\nblock = (b'x' * 1023 + b'\\n') * 1024\nfor _ in range(200): w(block)\nw(b'the last line\\n')"]
YAML
kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/big-log --timeout=120s >/dev/null
peak() { awk '$1 == "VmHWM:" {print $2}' "/proc/$pid/status"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
before=$(peak)
start=$(now_ms)
for _ in 1 2 3 4 5 6; do kubectl logs big-log --tail=1 --limit-bytes=10 >/dev/null & done
wait
echo "6 x tailLines=1&limitBytes=10 on a 200 MiB log: $(($(now_ms) - start)) ms, server peak RSS ${before} -> $(peak) KiB"
