#!/usr/bin/env bash
# The `validate` benchmark: on a generated PyTorchJob corpus and a generated Trainer v2.3.0 TrainJob
# corpus, one run times `kubectl-pytorch validate --offline -o json DIR`, kubeconform (when given) on
# the same CRDs converted with its own openapi2jsonschema.py, and, for PyTorchJobs, Debian's
# python3-jsonschema (Draft 7, same generated schema JSON); counts which mistake kinds each caught;
# times one small file validated cold. Prints a Markdown report for BENCHMARKS.md.
#
# Usage: tests/bench/validate/bench_validate.sh [BUILD_DIR]     (default: build)
#   or:  cmake --build BUILD_DIR --target bench_validate
#   env KPT_BIN (default BUILD_DIR/bin/kubectl-pytorch), JOBS=1250 (jobs per corpus; PYTORCHJOB_JOBS
#       and TRAINJOB_JOBS set one corpus each: issue 29's targets are 5000 and 1250), RUNS=50 (cold runs),
#       REPEAT=7 (timed runs of kubectl-pytorch and kubeconform on each corpus), PY_REPEAT=3 (of
#       python3-jsonschema; all alternate, so a busy moment hits each; each figure is the median),
#       KEEP=1 (keep the work directory),
#       KUBECONFORM (a kubeconform binary) and OPENAPI2JSONSCHEMA (the scripts/openapi2jsonschema.py of
#       its source, run with Debian's python3-yaml on the CRDs `controller manifests --trainer` prints);
#       without both, kubeconform's rows are left out. Nothing here fetches or builds kubeconform, and
#       it is pointed at the converted schemas only (no network).
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

python3 "$here/gen_corpus.py" "$work/pytorchjob" --jobs "${PYTORCHJOB_JOBS:-$jobs}"
python3 "$here/gen_trainjob_corpus.py" "$work/trainjob" --jobs "${TRAINJOB_JOBS:-$jobs}"

kc=""
kc_note="not measured (KUBECONFORM and OPENAPI2JSONSCHEMA not given)"
if [ -n "${KUBECONFORM:-}" ] && [ -n "${OPENAPI2JSONSCHEMA:-}" ]; then
  [ -x "$KUBECONFORM" ] || { echo "bench_validate: KUBECONFORM '$KUBECONFORM' is not executable" >&2; exit 2; }
  [ -f "$OPENAPI2JSONSCHEMA" ] || { echo "bench_validate: no OPENAPI2JSONSCHEMA '$OPENAPI2JSONSCHEMA'" >&2; exit 2; }
  # The PyTorchJob CRD (our carried schema) and Trainer v2.3.0's TrainJob, TrainingRuntime and
  # ClusterTrainingRuntime CRDs, converted the way kubeconform's README says, into files named
  # {kind}_{version}.json (its default FILENAME_FORMAT); DENY_ROOT_ADDITIONAL_PROPERTIES makes an
  # unknown top-level field an error too, as -strict users want.
  mkdir "$work/schemas"
  "$kpt" controller manifests --trainer >"$work/crds.yaml"
  (cd "$work/schemas" && DENY_ROOT_ADDITIONAL_PROPERTIES=1 /usr/bin/python3 "$OPENAPI2JSONSCHEMA" "$work/crds.yaml" >/dev/null)
  for f in pytorchjob_v1 trainjob_v1alpha1; do
    [ -s "$work/schemas/$f.json" ] || { echo "bench_validate: openapi2jsonschema wrote no $f.json" >&2; exit 1; }
  done
  kc="$KUBECONFORM"
  kc_note="$("$kc" -v) ($KUBECONFORM), schemas from $(basename "$OPENAPI2JSONSCHEMA")"
else
  echo "bench_validate: KUBECONFORM and OPENAPI2JSONSCHEMA not both given: kubeconform's rows are skipped" >&2
fi

now() { date +%s.%N; }

# timed RC TIMES OUT CMD...: runs CMD with stdout in OUT, fails unless it exits RC, appends its wall time.
timed() {
  local want=$1 times=$2 out=$3 rc=0 t0 t1
  shift 3
  t0=$(now)
  "$@" >"$out" 2>"$work/stderr" || rc=$?
  t1=$(now)
  if [ "$rc" -ne "$want" ]; then
    echo "bench_validate: expected exit $want from $1, got $rc" >&2
    head -20 "$work/stderr" >&2
    exit 1
  fi
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >>"$times"
}

# Every validator in turn on each corpus, REPEAT times (python3-jsonschema, the slowest by far, on the
# PyTorchJob corpus in the first PY_REPEAT rounds only). Exit 1: each corpus has findings.
repeat=${REPEAT:-7}
py_repeat=${PY_REPEAT:-3}
read -r l1 l5 l15 _ </proc/loadavg
load_before="$l1 $l5 $l15"
for i in $(seq "$repeat"); do
  for c in pytorchjob trainjob; do
    timed 1 "$work/$c/kpt.times" "$work/$c/kpt.json" "$kpt" validate --offline -o json "$work/$c/corpus"
    if [ -n "$kc" ]; then
      timed 1 "$work/$c/kc.times" "$work/$c/kc.json" "$kc" -strict -n 2 -output json -summary \
        -schema-location "$work/schemas/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json" "$work/$c/corpus"
    fi
  done
  if [ "$i" -le "$py_repeat" ]; then
    timed 0 "$work/pytorchjob/py.times" /dev/null \
      /usr/bin/python3 "$here/jsonschema_validate.py" "$schema" "$work/pytorchjob/corpus" "$work/pytorchjob/py.json"
  fi
done
read -r l1 l5 l15 _ </proc/loadavg
load_after="$l1 $l5 $l15"

# One small file, cold (process start included).
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
# cold NAME CMD: times CMD, a new process each run, into NAME.json (hyperfine) or NAME.txt (a loop).
cold() {
  local name=$1 cmd=$2
  if command -v hyperfine >/dev/null; then
    hyperfine --style none --warmup 3 --runs "$runs" -i --export-json "$work/$name.json" "$cmd" >/dev/null 2>&1
    cold_tool="hyperfine --warmup 3 --runs $runs"
  else
    : >"$work/$name.txt"
    for _ in $(seq "$runs"); do
      s=$(now); $cmd >/dev/null 2>&1 || true; e=$(now)
      echo "$s $e" >>"$work/$name.txt"
    done
    cold_tool="a loop of $runs runs"
  fi
}
cold cold "$kpt validate --offline $work/small.yaml"
cold cold-version "$kpt version"

rss=""
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$work/rss.txt" "$kpt" validate --offline -o json "$work/pytorchjob/corpus" >/dev/null 2>&1 || true
  rss=$(tail -1 "$work/rss.txt")
fi

python3 "$here/summarise.py" --work "$work" --cold-tool "$cold_tool" --kpt-rss-kb "$rss" \
  --kpt-version "$("$kpt" version 2>/dev/null | head -1)" --kubeconform "$kc_note" --load "$load_before" "$load_after"
