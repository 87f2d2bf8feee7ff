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
