# Shared by the bats suites. Each test works in its own temporary directory,
# kept on failure with a note of where it is.
setup_workdir() {
  KPT_WORK=$(mktemp -d "${TMPDIR:-/tmp}/kpt-e2e.XXXXXX")
  cd "$KPT_WORK"
}
teardown_workdir() {
  if [ "${BATS_TEST_COMPLETED:-}" = 1 ]; then
    rm -rf "$KPT_WORK"
  else
    echo "# kept test directory: $KPT_WORK" >&3
  fi
}
# A PATH on which the real kubectl finds our binary as a plugin.
plugin_path() {
  mkdir -p "$KPT_WORK/bin"
  ln -sf "$KPT_BIN" "$KPT_WORK/bin/kubectl-pytorch"
  echo "$KPT_WORK/bin:$PATH"
}
# The embedded API server alone (no controller, no node), in the test dir: HOME (kubectl's caches),
# KUBECONFIG and STATE point there; its `local up` output is in UP_OUTPUT. A failed start fails the test.
start_api_server() {
  export HOME="$KPT_WORK/home"
  mkdir -p "$HOME"
  STATE="$KPT_WORK/state"
  export KUBECONFIG="$KPT_WORK/kubeconfig.yaml"
  UP_OUTPUT=$("$KPT_BIN" local up --server-only --state-dir "$STATE" --kubeconfig-out "$KUBECONFIG" 2>&1) ||
    { echo "$UP_OUTPUT" >&3; return 1; }
}
stop_api_server() {
  "$KPT_BIN" local down --force --state-dir "$STATE" >/dev/null 2>&1 || true
}
# The whole local cluster (server, controller, node) for a suite, from setup_file: HOME, its state
# and KUBECONFIG in a fresh KPT_FILE_DIR named after $1; `local up`'s output in up.log there.
start_file_cluster() {
  export KPT_FILE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kpt-$1.XXXXXX")
  export HOME="$KPT_FILE_DIR/home" XDG_STATE_HOME="$KPT_FILE_DIR/state"
  mkdir -p "$HOME"
  "$KPT_BIN" local up >"$KPT_FILE_DIR/up.log" 2>&1
  export KUBECONFIG="$HOME/.kube/kubectl-pytorch-local.yaml"
}
# From teardown_file: stops the suite's cluster and removes KPT_FILE_DIR.
stop_file_cluster() {
  "$KPT_BIN" local down --force --grace 2s >/dev/null 2>&1 || true
  rm -rf "$KPT_FILE_DIR"
}
# Waits (at most 30 s) until each object exists: `kubectl wait` fails at once on one that a
# controller has not created yet.
wait_created() {
  for obj in "$@"; do
    for _ in $(seq 300); do kubectl get "$obj" >/dev/null 2>&1 && break; sleep 0.1; done
  done
}
