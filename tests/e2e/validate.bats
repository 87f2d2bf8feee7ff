#!/usr/bin/env bats
# kubectl pytorch validate: exact findings for the seed, goldens for -o json / junit,
# stdin, directories, exit codes 0/1/2, colour rules and hostile input.
load helpers

setup() {
  setup_workdir
  V="$KPT_SOURCE_DIR/testdata/validate"
  cp "$KPT_SOURCE_DIR/testdata/mnist-dp.yaml" mnist-dp.yaml
  export KUBECACHEDIR="$KPT_WORK/cache"
  unset NO_COLOR
}
teardown() { teardown_workdir; }

@test "the seed example gives its findings with carets and hints and exits 1" {
  run "$KPT_BIN" validate mnist-dp.yaml
  [ "$status" -eq 1 ]
  expected=$(cat "$V/seed.txt")
  [ "$output" = "$expected" ]
}

@test "-o json prints the documented shape (golden)" {
  run "$KPT_BIN" validate -o json mnist-dp.yaml
  [ "$status" -eq 1 ]
  [ "$output" = "$(cat "$V/seed.json")" ]
}

@test "-o junit prints one suite per file, a case per document and one failure per failed case (golden)" {
  run "$KPT_BIN" validate -o junit mnist-dp.yaml
  [ "$status" -eq 1 ]
  [ "$output" = "$(cat "$V/seed.junit.xml")" ]
}

@test "a valid job exits 0 with a clean summary" {
  cp "$V/valid.yaml" "$V/valid.json" .
  run "$KPT_BIN" validate valid.yaml valid.json
  [ "$status" -eq 0 ]
  [ "$output" = "0 errors, 0 warnings in 2 documents (2 files)" ]
}

@test "stdin is read for -" {
  run sh -c "'$KPT_BIN' validate -q - < mnist-dp.yaml"
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "<stdin>:6:3: error: spec.cleanPodPolicy: unknown field 'cleanPodPolicy' (it belongs in spec.runPolicy) [lint.misplaced-field]" ]
}

@test "a directory is walked recursively for .yaml .yml .json, in order" {
  cp -r "$V/dir" jobs
  run "$KPT_BIN" validate jobs
  [ "$status" -eq 0 ]
  [ "$output" = "0 errors, 0 warnings in 2 documents (2 files)" ]
}

@test "files are validated in parallel with the same output as one at a time" {
  cp "$V"/*.yaml .
  run "$KPT_BIN" validate -j 1 -o json .
  one="$output"
  run "$KPT_BIN" validate -j 2 -o json .
  [ "$output" = "$one" ]
}

@test "built-in kinds beside the job are checked strictly; kinds no schema serves are named with the reason" {
  run "$KPT_BIN" validate "$V/with-configmap.yaml"
  [ "$status" -eq 0 ]
  [ "$output" = "0 errors, 0 warnings in 2 documents (1 file)" ]
  cat > other.yaml <<'EOF'
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - port: "http"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: two
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: pg
spec:
  minMember: 2
EOF
  run "$KPT_BIN" validate other.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "other.yaml:7:11: error: spec.ports[0].port: expected integer, got string 'http' [schema.type]" ]
  [ "${lines[3]}" = "other.yaml:14:13: error: spec.replicas: expected integer, got string 'two' [schema.type]" ]
  [ "${lines[6]}" = "not checked: other.yaml:24: PodGroup 'pg': no schema for scheduling.volcano.sh/v1beta1 PodGroup: --crd FILE with its CRD checks it" ]
  [ "${lines[7]}" = "2 errors, 0 warnings in 2 documents (1 file); 1 document not checked" ]
  [ "${#lines[@]}" -eq 8 ]
}

@test "a kind typo in a group we know is an error with the closest kind" {
  printf 'apiVersion: kubeflow.org/v1\nkind: PytorchJob\nmetadata:\n  name: a\n' > typo.yaml
  run "$KPT_BIN" validate -q typo.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "typo.yaml:2:7: error: kind: unknown kind 'PytorchJob' in group kubeflow.org: did you mean 'PyTorchJob'? [manifest.unknown-kind]" ]
  printf 'apiVersion: trainer.kubeflow.org/v1alpha1\nkind: Trainjob\nmetadata:\n  name: a\n' > typo2.yaml
  run "$KPT_BIN" validate -q typo2.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "typo2.yaml:2:7: error: kind: unknown kind 'Trainjob' in group trainer.kubeflow.org: did you mean 'TrainJob'? [manifest.unknown-kind]" ]
}

@test "--fail-on warning makes warnings fail the run" {
  sed 's#repo/small:0.1#repo/small#' "$V/with-configmap.yaml" > unpinned.yaml
  run "$KPT_BIN" validate unpinned.yaml
  [ "$status" -eq 0 ]
  [ "${lines[-1]}" = "0 errors, 1 warning in 2 documents (1 file)" ]
  run "$KPT_BIN" validate --fail-on warning unpinned.yaml
  [ "$status" -eq 1 ]
  run "$KPT_BIN" validate --fail-on warning "$V/with-configmap.yaml"
  [ "$status" -eq 0 ]
  run "$KPT_BIN" validate --fail-on note unpinned.yaml
  [ "$status" -eq 2 ]
}

@test "the operator's rules give the webhook's messages" {
  cp "$V/broken-operator.yaml" .
  run "$KPT_BIN" validate -q broken-operator.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "broken-operator.yaml:9:17: error: spec.pytorchReplicaSpecs.Master.replicas: rejected by the operator v1.9.4 webhook: spec.pytorchReplicaSpecs[Master].replicas: Forbidden: must be 1 [operator.master-replicas]" ]
  [[ "$output" == *"spec.pytorchReplicaSpecs[Chief]: Unsupported value: \"Chief\": supported values: \"Master\", \"Worker\" [operator.replica-type]"* ]]
  [[ "$output" == *"must have at least one container with name pytorch [operator.no-pytorch-container]"* ]]
}

@test "--operator v1.6.0 reports nprocPerNode as unknown to that release" {
  cp "$V/nproc.yaml" .
  run "$KPT_BIN" validate --operator v1.6.0 -q nproc.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "nproc.yaml:6:3: error: spec.nprocPerNode: field 'spec.nprocPerNode' is not known to operator v1.6.0 (added in v1.7.0) [release.unknown-field]" ]
  run "$KPT_BIN" validate --operator v1.9.4 nproc.yaml
  [ "$status" -eq 0 ]
}

@test "--strict=false and --no-strict make unknown fields warnings" {
  for flag in --strict=false --no-strict; do
    run "$KPT_BIN" validate "$flag" --disable lint.worker-only-no-master-env mnist-dp.yaml
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "mnist-dp.yaml:6:3: warning: spec.cleanPodPolicy: "* ]]
    [ "${lines[${#lines[@]}-1]}" = "0 errors, 3 warnings in 1 document (1 file)" ]
  done
}

@test "--disable turns a lint off and rejects unknown ids" {
  run "$KPT_BIN" validate --disable lint.image-placeholder -q mnist-dp.yaml
  [[ "$output" != *"lint.image-placeholder"* ]]
  run "$KPT_BIN" validate --disable lint.nope mnist-dp.yaml
  [ "$status" -eq 2 ]
  [[ "$output" == "error: --disable: unknown rule 'lint.nope'; lint rules: lint.clean-pod-policy-none, lint.image-placeholder, "* ]]
  run "$KPT_BIN" validate --disable nope mnist-dp.yaml
  [ "$status" -eq 2 ]
  [ "$output" = "error: --disable: unknown rule 'nope'; rule groups: input, internal, lint, manifest, operator, release, schema, server, trainer, yaml (each finding shows its rule in [brackets])" ]
}

@test "--crd validates against that CRD, compiles it once into the cache, and refuses unserved versions" {
  cp "$V/crd-minimal.yaml" "$V/job-v2.yaml" "$V/valid.yaml" .
  run "$KPT_BIN" validate --crd crd-minimal.yaml valid.yaml
  [ "$status" -eq 0 ]
  [ "$(ls "$KUBECACHEDIR/kubectl-pytorch" | wc -l)" -eq 1 ]
  run "$KPT_BIN" validate --crd crd-minimal.yaml -q job-v2.yaml
  [ "$status" -eq 1 ]
  [ "$output" = "job-v2.yaml:1:13: error: apiVersion: apiVersion 'kubeflow.org/v2' of kind 'PyTorchJob' is not served by CRD file 'crd-minimal.yaml' (served: kubeflow.org/v1) [schema.api-version]
apiVersion: kubeflow.org/v2
            ^
  hint: use apiVersion: kubeflow.org/v1" ]
}

@test "--crd evaluates the CRD's x-kubernetes-validations rules and sets transition rules aside on create" {
  cp "$V/crd-cel.yaml" "$V/cel-job.yaml" .
  run "$KPT_BIN" validate --crd crd-cel.yaml -q cel-job.yaml
  [ "$status" -eq 1 ]
  [ "$output" = "cel-job.yaml:8:5: error: spec.runPolicy: failed rule: !has(self.backoffLimit) || self.backoffLimit <= 10 [schema.cel]
    cleanPodPolicy: None
    ^
cel-job.yaml:12:17: error: spec.pytorchReplicaSpecs.Worker.replicas: at most 8 replicas of each type [schema.cel]
      replicas: 16
                ^" ]
  run "$KPT_BIN" validate --offline --crd crd-cel.yaml -v 1 cel-job.yaml
  [ "${lines[0]}" = "cel-job.yaml:2:1: note: 1 transition rule (oldSelf) not evaluated on create: spec.runPolicy.cleanPodPolicy: 'self == oldSelf' [schema.cel-transition]" ]
  [ "${lines[${#lines[@]}-1]}" = "2 errors, 2 warnings, 1 note in 1 document (1 file)" ]
}

@test "usage and I/O errors exit 2 with a message on stderr" {
  run "$KPT_BIN" validate no-such.yaml
  [ "$status" -eq 2 ]
  [[ "$output" == "no-such.yaml: error: reading 'no-such.yaml': No such file or directory [input.unreadable]"* ]]
  run "$KPT_BIN" validate -o xml mnist-dp.yaml
  [ "$status" -eq 2 ]
  run "$KPT_BIN" validate --operator v1.2.0 mnist-dp.yaml
  [ "$status" -eq 2 ]
  [[ "$output" == "error: unknown operator release 'v1.2.0'; known: v1.3.0, "* ]]
  run "$KPT_BIN" validate --crd missing-crd.yaml mnist-dp.yaml
  [ "$status" -eq 2 ]
  [ "$output" = "error: reading CRD 'missing-crd.yaml': no such file" ]
  run "$KPT_BIN" validate
  [ "$status" -eq 2 ]
}

@test "a missing file is a finding on its path, the others are validated, and validate exits 2" {
  cp "$V/valid.yaml" .
  run "$KPT_BIN" validate no-such.yaml valid.yaml
  [ "$status" -eq 2 ]
  [ "$output" = "no-such.yaml: error: reading 'no-such.yaml': No such file or directory [input.unreadable]
1 error, 0 warnings in 1 document (2 files)" ]
}

@test "a List (kubectl get -o yaml) is expanded and its items validated; an empty input says so" {
  {
    printf 'apiVersion: v1\nkind: List\nitems:\n'
    sed -n '/^apiVersion:/,$p' mnist-dp.yaml | sed 's/^/  /; 1s/^  /- /'
  } >list.yaml
  run "$KPT_BIN" validate -q list.yaml
  [ "$status" -eq 1 ]
  [[ "$output" == *"list.yaml:"*"[lint.worker-only-no-master-env]"* ]]
  : >empty.yaml
  run "$KPT_BIN" validate empty.yaml
  [ "$status" -eq 0 ]
  [ "$output" = "empty.yaml: warning: holds no documents: nothing to validate [input.empty]
0 errors, 1 warning in 0 documents (1 file)" ]
}

# TERM is set: a terminal that says it is dumb (TERM=dumb, as some CI runners set) gets no colour.
@test "colour only on a terminal and never with NO_COLOR" {
  run script -qec "env TERM=xterm '$KPT_BIN' validate -q mnist-dp.yaml" /dev/null
  [[ "$output" == *$'\033[1;31merror:'* ]]
  run script -qec "env TERM=xterm NO_COLOR=1 '$KPT_BIN' validate -q mnist-dp.yaml" /dev/null
  [[ "$output" != *$'\033['* ]]
  run script -qec "env TERM=dumb '$KPT_BIN' validate -q mnist-dp.yaml" /dev/null
  [[ "$output" != *$'\033['* ]]
  run "$KPT_BIN" validate -q mnist-dp.yaml
  [[ "$output" != *$'\033['* ]]
}

@test "NO_COLOR set but empty leaves colour on (no-color.org)" {
  run script -qec "env TERM=xterm NO_COLOR= '$KPT_BIN' validate -q mnist-dp.yaml" /dev/null
  [[ "$output" == *$'\033[1;31merror:'* ]]
}

@test "a billion-laughs document is refused quickly with a finding" {
  cp "$V/billion-laughs.yaml" .
  # The bound is the timeout (124 if hit): expansion is counted before copying, not after.
  run timeout 10 "$KPT_BIN" validate -q billion-laughs.yaml
  [ "$status" -eq 1 ]
  [[ "$output" == "billion-laughs.yaml:"*"[yaml.too-many-nodes]"* ]]
}

@test "kubectl pytorch validate runs through the real kubectl" {
  PATH=$(plugin_path) run kubectl pytorch validate -q mnist-dp.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "mnist-dp.yaml:6:3: error: spec.cleanPodPolicy: unknown field 'cleanPodPolicy' (it belongs in spec.runPolicy) [lint.misplaced-field]" ]
}

@test "every 'run --image' example of run --help builds a job validate accepts for that target" {
  export KUBECONFIG="$KPT_WORK/no-kubeconfig.yaml"  # no cluster: the Training Operator v1.9.4, Trainer's newest
  examples=$("$KPT_BIN" run --help | sed -n 's/^ *kubectl pytorch run \(--image .*\)$/\1/p' | sed 's/ *#.*$//')
  [ "$(printf '%s\n' "$examples" | grep -c .)" -ge 2 ]
  n=0
  while IFS= read -r example; do
    n=$((n + 1))
    # shellcheck disable=SC2086 # the example's words, as a shell splits them
    set -- ${example//IMG/busybox:1.36}
    "$KPT_BIN" run --dry-run client --name "example-$n" "$@" > "example-$n.yaml" 2> "example-$n.err" ||
      { echo "run $example: $(cat "example-$n.err")"; return 1; }
    run "$KPT_BIN" validate --offline "example-$n.yaml"
    [ "$status" -eq 0 ] || { echo "run $example: $output"; return 1; }
    [ "$output" = "0 errors, 0 warnings in 1 document (1 file)" ] || { echo "run $example: $output"; return 1; }
  done <<< "$examples"
}

@test "README's validate example prints the findings README shows" {
  shown=$(sed -n '/^\$ kubectl pytorch validate -q testdata\/mnist-dp.yaml$/,/^\$ echo/p' "$KPT_SOURCE_DIR/README.md" |
    grep '^testdata/mnist-dp.yaml:')
  [ -n "$shown" ]
  cd "$KPT_SOURCE_DIR"
  run "$KPT_BIN" validate -q testdata/mnist-dp.yaml
  [ "$status" -eq 1 ]
  while IFS= read -r line; do
    [[ "$output" == *"$line"* ]] || { echo "README shows '$line', validate does not print it"; return 1; }
  done <<< "$shown"
}
