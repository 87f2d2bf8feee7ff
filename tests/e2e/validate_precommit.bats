#!/usr/bin/env bats
# The repository's .pre-commit-hooks.yaml run by Debian's pre-commit, offline: a project whose
# .pre-commit-config.yaml names a local clone of the hooks (repo: path, rev: commit) fails a commit of a
# broken PyTorchJob with validate's file:line:col message and passes a clean one.
load helpers

setup() {
  setup_workdir
  command -v pre-commit >/dev/null || { echo "pre-commit is missing: apt-get install -y pre-commit" >&3; return 1; }
  export PATH="$(plugin_path)"
  export HOME="$KPT_WORK/home" PRE_COMMIT_HOME="$KPT_WORK/pre-commit-cache" KUBECACHEDIR="$KPT_WORK/cache"
  export KUBECONFIG="$KPT_WORK/no-kubeconfig"
  export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
  export GIT_CONFIG_NOSYSTEM=1
  mkdir -p "$HOME"
  # The hooks as this checkout has them (committed or not), in a repository of their own: pre-commit
  # clones `repo:` at `rev:`, here from a local path, so nothing is fetched from the network.
  git init -q hooks
  cp "$KPT_SOURCE_DIR/.pre-commit-hooks.yaml" hooks/
  git -C hooks add .pre-commit-hooks.yaml
  git -C hooks commit -q -m hooks
  rev=$(git -C hooks rev-parse HEAD)
  git init -q project
  cd project
  printf 'repos:\n- repo: %s\n  rev: %s\n  hooks:\n  - id: kubectl-pytorch-validate\n' "$KPT_WORK/hooks" "$rev" \
    > .pre-commit-config.yaml
  git add .pre-commit-config.yaml
  git commit -q --no-verify -m config
  pre-commit install >/dev/null
}
teardown() { teardown_workdir; }

@test "a commit of a broken PyTorchJob fails with validate's file:line:col message" {
  mkdir -p jobs
  cp "$KPT_SOURCE_DIR/testdata/mnist-dp.yaml" jobs/job.yaml
  git add jobs/job.yaml
  run git commit -m broken
  [ "$status" -ne 0 ]
  [[ "$output" == *"kubectl-pytorch validate"*"Failed"* ]]
  [[ "$output" == *"jobs/job.yaml:6:3: error: spec.cleanPodPolicy: unknown field 'cleanPodPolicy' (it belongs in spec.runPolicy) [lint.misplaced-field]"* ]]
  [[ "$output" == *"3 errors, 1 warning in 1 document (1 file)"* ]]
  [ "$(git rev-list --count HEAD)" -eq 1 ]
}

@test "a clean commit passes; workflows and Helm chart files are not passed to the hook" {
  mkdir -p jobs .github/workflows chart/templates
  cp "$KPT_SOURCE_DIR/testdata/validate/valid.yaml" jobs/job.yaml
  echo 'on: push' > .github/workflows/ci.yml
  printf 'apiVersion: v2\nname: chart\nversion: 0.1.0\n' > chart/Chart.yaml
  echo 'replicas: 2' > chart/values.yaml
  printf 'kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n' > chart/templates/cm.yaml
  git add -A
  run git commit -m clean
  [ "$status" -eq 0 ]
  [[ "$output" == *"kubectl-pytorch validate"*"Passed"* ]]
  [ "$(git rev-list --count HEAD)" -eq 2 ]
}

@test "the hook runs --offline: a kubeconfig naming an unreachable cluster does not slow or change it" {
  printf 'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://192.0.2.1:6443\ncontexts:\n- name: c\n  context:\n    cluster: c\ncurrent-context: c\n' \
    > "$KPT_WORK/kubeconfig"
  export KUBECONFIG="$KPT_WORK/kubeconfig"
  cp "$KPT_SOURCE_DIR/testdata/validate/valid.yaml" job.yaml
  git add job.yaml
  run timeout 60 git commit -m offline
  [ "$status" -eq 0 ]
  [[ "$output" != *"cannot reach"* ]]
}
