#!/usr/bin/env bats
# validate as a CI step: -o sarif (checked against SARIF 2.1.0's requirements, and a golden), -o github
# (workflow commands with GitHub's escaping), directory walks with --include/--exclude and the default
# skips, --disable for any rule, --crd never hiding PyTorchJobs, --stdin-filename and Helm's # Source:,
# and -o json's document fields and target.
load helpers

setup() {
  setup_workdir
  V="$KPT_SOURCE_DIR/testdata/validate"
  CI="$KPT_SOURCE_DIR/tests/e2e/validate_ci"
  cp "$KPT_SOURCE_DIR/testdata/mnist-dp.yaml" mnist-dp.yaml
  export KUBECACHEDIR="$KPT_WORK/cache"
  export KUBECONFIG="$KPT_WORK/no-kubeconfig"
  unset NO_COLOR
}
teardown() { teardown_workdir; }

# The SARIF of the seed example with the build's version replaced, so the golden holds across commits.
seed_sarif() {
  "$KPT_BIN" validate --offline -o sarif mnist-dp.yaml | sed 's/^\(          "version": \)".*",$/\1"VERSION",/'
}

@test "-o sarif of the seed example is the golden" {
  run seed_sarif
  [ "$status" -eq 0 ]
  [ "$output" = "$(cat "$V/seed.sarif")" ]
}

@test "-o sarif meets SARIF 2.1.0's requirements and exits as text does" {
  run "$KPT_BIN" validate --offline -o sarif mnist-dp.yaml
  [ "$status" -eq 1 ]
  echo "$output" > out.sarif
  run python3 "$CI/check_sarif.py" "$CI/sarif-2.1.0-required.schema.json" out.sarif
  [ "$output" = "ok" ]
  [ "$status" -eq 0 ]
  # The check can fail: a result without a location and a wrong ruleIndex are caught.
  python3 -c '
import json; d = json.load(open("out.sarif")); r = d["runs"][0]["results"]
del r[0]["locations"]; r[1]["ruleIndex"] = 0; json.dump(d, open("bad.sarif", "w"))'
  run python3 "$CI/check_sarif.py" "$CI/sarif-2.1.0-required.schema.json" bad.sarif
  [ "$status" -eq 1 ]
  [[ "$output" == *"'locations' is a required property at runs/0/results/0"* ]]
  [[ "$output" == *"result 1: ruleIndex 0 does not name lint.misplaced-field"* ]]
}

@test "-o sarif names stdin by --stdin-filename and a file in a folder relative to %SRCROOT%" {
  mkdir -p "jobs dir"
  cp mnist-dp.yaml "jobs dir/a.yaml"
  run "$KPT_BIN" validate --offline -o sarif "./jobs dir/a.yaml"
  [[ "$output" == *'"uri": "jobs%20dir/a.yaml",'* ]]
  run "$KPT_BIN" validate --offline -o sarif --stdin-filename deploy/job.yaml - < mnist-dp.yaml
  [[ "$output" == *'"uri": "deploy/job.yaml",'* ]]
  [[ "$output" != *stdin* ]]
}

@test "-o github prints one workflow command per finding" {
  run "$KPT_BIN" validate --offline -o github mnist-dp.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "::error file=mnist-dp.yaml,line=6,col=3,title=lint.misplaced-field::spec.cleanPodPolicy: unknown field 'cleanPodPolicy' (it belongs in spec.runPolicy)%0Ahint: move it to spec.runPolicy.cleanPodPolicy" ]
  [ "${lines[2]}" = "::warning file=mnist-dp.yaml,line=15,col=20,title=lint.image-placeholder::spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].image: image 'YOUR-IMAGE' looks like a placeholder%0Ahint: replace it with the image that holds your training code, pinned by a version tag or digest" ]
  [ "${lines[4]}" = "3 errors, 1 warning in 1 document (1 file)" ]
  [ "${#lines[@]}" -eq 5 ]
  # Every line is a workflow command as documented: ::error file=F,line=L,col=C,title=T::MESSAGE
  for i in 0 1 2 3; do
    [[ "${lines[$i]}" =~ ^::(error|warning|notice)\ file=[^,:]+,line=[0-9]+,col=[0-9]+,title=[^,:]+::.+$ ]]
  done
}

@test "-o github escapes hostile file names and messages so each finding stays one command" {
  name=$'evil,line=1:%\n::error file=x::y.yaml'
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "a\\r\\n::error::b"\ndata: 5\n' > "$name"
  run "$KPT_BIN" validate --offline -o github -q "$name"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 2 ]
  [[ "${lines[0]}" == "::error file=evil%2Cline=1%3A%25%0A%3A%3Aerror file=x%3A%3Ay.yaml,line=4,col=9,title=metadata.name::metadata.name: invalid value 'a%0D%0A::error::b': a lowercase RFC 1123 subdomain "* ]]
  [ "${lines[1]}" = "::error file=evil%2Cline=1%3A%25%0A%3A%3Aerror file=x%3A%3Ay.yaml,line=5,col=7,title=schema.type::data: expected object, got integer '5'" ]
}

@test "a repository folder: hidden paths and Helm charts skipped (saying so), --include and --exclude" {
  mkdir -p repo/.github/workflows repo/chart/templates repo/jobs/old repo/.git
  echo 'on: push' > repo/.github/workflows/ci.yml
  echo 'core: {}' > repo/.git/x.yaml
  echo 'repos: []' > repo/.pre-commit-config.yaml
  printf 'apiVersion: v2\nname: chart\nversion: 0.1.0\n' > repo/chart/Chart.yaml
  echo 'replicas: 2' > repo/chart/values.yaml
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n' > repo/chart/templates/cm.yaml
  cp "$V/valid.yaml" repo/jobs/a.yaml
  cp mnist-dp.yaml repo/jobs/old/broken.yaml
  run "$KPT_BIN" validate --offline -q repo
  [ "$status" -eq 1 ]
  run "$KPT_BIN" validate --offline --exclude old repo
  [ "$status" -eq 0 ]
  [ "$output" = "note: skipped 3 files of the Helm chart 'repo/chart' (templates are not manifests until rendered): helm template repo/chart | kubectl pytorch validate -
0 errors, 0 warnings in 1 document (1 file)" ]
  run "$KPT_BIN" validate --offline --include 'jobs/old/**' repo
  [ "$status" -eq 1 ]
  [[ "$output" == *"in 1 document (1 file)" ]]
  [[ "$output" == *"repo/jobs/old/broken.yaml:6:3: error"* ]]
}

@test "--disable takes any rule id, and an unknown one is a usage error with the closest id" {
  printf 'apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n  - port: "http"\n' > svc.yaml
  run "$KPT_BIN" validate --offline svc.yaml
  [ "$status" -eq 1 ]
  run "$KPT_BIN" validate --offline --disable schema.type svc.yaml
  [ "$status" -eq 0 ]
  [ "$output" = "0 errors, 0 warnings in 1 document (1 file)" ]
  printf 'a: [\n' > bad.yaml
  run "$KPT_BIN" validate --offline --disable yaml.syntax bad.yaml
  [ "$status" -eq 0 ]
  run "$KPT_BIN" validate --offline --disable schema.typ svc.yaml
  [ "$status" -eq 2 ]
  [[ "$output" == *"--disable: unknown rule 'schema.typ'; did you mean 'schema.type'?"* ]]
}

@test "--crd without the PyTorchJob CRD still checks PyTorchJobs against the carried schema" {
  run "$KPT_BIN" validate --offline --crd "$KPT_SOURCE_DIR/testdata/controller/podgroup-crd-volcano.yaml" mnist-dp.yaml
  [ "$status" -eq 1 ]
  [[ "$output" == *"note: '$KPT_SOURCE_DIR/testdata/controller/podgroup-crd-volcano.yaml' has no PyTorchJob CRD: PyTorchJobs are checked against carried v1.9.4"* ]]
  [[ "$output" == *"3 errors, 1 warning in 1 document (1 file)" ]]
  [[ "$output" != *"not checked"* ]]
}

@test "helm template output on stdin: findings name the chart's files at the template's lines" {
  printf -- '---\n# Source: app/templates/svc.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n  - port: "http"\n---\n# Source: app/templates/job.yaml\n' > rendered.yaml
  cat mnist-dp.yaml >> rendered.yaml
  run "$KPT_BIN" validate --offline -q - < rendered.yaml
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "app/templates/svc.yaml:7:11: error: spec.ports[0].port: expected integer, got string 'http' [schema.type]" ]
  [[ "$output" == *"app/templates/job.yaml:6:3: error: spec.cleanPodPolicy"* ]]
}

@test "-o json gives each finding its document index, kind, name and namespace, and the target" {
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: team-a\nspec:\n  ports:\n  - port: "http"\n' > two.yaml
  run "$KPT_BIN" validate --offline -o json --disable lint.image-unpinned two.yaml
  [ "$status" -eq 1 ]
  echo "$output" > out.json
  run python3 -c '
import json; d = json.load(open("out.json")); f = d["diagnostics"][0]
print(f["document_index"], f["kind"], f["name"], f["namespace"], f["rule"])
t = d["target"]; print(t["cluster"] == "", t["operator"], t["disabled"])
print([s["kinds"] for s in t["schemas"]])'
  [ "${lines[0]}" = "1 Service web team-a schema.type" ]
  [ "${lines[1]}" = "True v1.9.4 ['lint.image-unpinned']" ]
  [ "${lines[2]}" = "['PyTorchJob', 'TrainJob, TrainingRuntime, ClusterTrainingRuntime', 'built-in kinds']" ]
}
