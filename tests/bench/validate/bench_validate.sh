#!/usr/bin/env bash
# The `validate` benchmark: one run times `kubectl-pytorch validate -o json DIR` and Debian's
# python3-jsonschema (Draft 7, same generated schema JSON, same corpus), counts which mistake kinds
# each caught, and times one small file validated cold. Prints a Markdown report for BENCHMARKS.md.
#
# Usage: tests/bench/validate/bench_validate.sh [BUILD_DIR]     (default: build)
#   or:  cmake --build BUILD_DIR --target bench_validate
#   env KPT_BIN (default BUILD_DIR/bin/kubectl-pytorch), JOBS=1250 (corpus size), RUNS=50 (cold runs),
#       REPEAT=7 (timed corpus runs of kubectl-pytorch), PY_REPEAT=3 (of python3-jsonschema; the two
#       alternate, so a busy moment hits both; each figure is the median), KEEP=1 (keep the work directory)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
kpt=${KPT_BIN:-$build/bin/kubectl-pytorch}
schema="$build/schema/carried/pytorchjob_v1.schema.json"
jobs=${JOBS:-1250}
runs=${RUNS:-50}
for f in "$kpt" "$schema"; do
  [ -e "$f" ] || { echo "bench_validate: missing '$f' (build kubectl-pytorch and kpt_carried_schema_json)" >&2; exit 2; }
done
/usr/bin/python3 -c 'import jsonschema, yaml' 2>/dev/null ||
  { echo "bench_validate: needs apt-get install -y python3-jsonschema python3-yaml" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/kpt-bench-validate.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "bench_validate: work directory $work" >&2; else trap 'rm -rf "$work"' EXIT; fi

python3 "$here/gen_corpus.py" "$work" --jobs "$jobs"

now() { date +%s.%N; }

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

# 1. kubectl-pytorch, every core (validate's default -j), and 2. python3-jsonschema, one process
# (Debian's interpreter and package, not a virtualenv's), alternating.
repeat=${REPEAT:-7}
py_repeat=${PY_REPEAT:-3}
: >"$work/kpt.times"
: >"$work/py.times"
for i in $(seq "$repeat"); do
  t0=$(now)
  rc=0
  "$kpt" validate --offline -o json "$work/corpus" >"$work/kpt.json" 2>"$work/kpt.err" || rc=$?
  t1=$(now)
  if [ "$rc" -ne 1 ]; then
    echo "bench_validate: expected exit 1 (findings) from kubectl-pytorch, got $rc" >&2
    head -20 "$work/kpt.err" >&2
    exit 1
  fi
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >>"$work/kpt.times"
  if [ "$i" -le "$py_repeat" ]; then
    t2=$(now)
    /usr/bin/python3 "$here/jsonschema_validate.py" "$schema" "$work/corpus" "$work/py.json"
    t3=$(now)
    awk -v a="$t2" -v b="$t3" 'BEGIN { print b - a }' >>"$work/py.times"
  fi
done
kpt_median=$(median <"$work/kpt.times")
py_median=$(median <"$work/py.times")

# 3. One small file, cold (process start included).
cat >"$work/small.yaml" <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: small
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example.com/mnist:1.0
            command: ["python", "mnist.py"]
            resources:
              limits: {cpu: "2", memory: 4Gi}
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example.com/mnist:1.0
            command: ["python", "mnist.py"]
YAML
cold_cmd="$kpt validate --offline $work/small.yaml"
if command -v hyperfine >/dev/null; then
  hyperfine --style none --warmup 3 --runs "$runs" -i --export-json "$work/cold.json" "$cold_cmd" >/dev/null 2>&1
  cold_tool="hyperfine --warmup 3 --runs $runs"
else
  : >"$work/cold.txt"
  for _ in $(seq "$runs"); do
    s=$(now); $cold_cmd >/dev/null 2>&1 || true; e=$(now)
    echo "$s $e" >>"$work/cold.txt"
  done
  cold_tool="a loop of $runs runs"
fi

rss=""
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$work/rss.txt" "$kpt" validate --offline -o json "$work/corpus" >/dev/null 2>&1 || true
  rss=$(tail -1 "$work/rss.txt")
fi

python3 "$here/summarise.py" --work "$work" --kpt-span 0 "$kpt_median" --py-span 0 "$py_median" \
  --runs "$(wc -l <"$work/kpt.times")" "$(wc -l <"$work/py.times")" --cold-tool "$cold_tool" --kpt-rss-kb "$rss" \
  --kpt-version "$("$kpt" version 2>/dev/null | head -1)"
