#!/usr/bin/env bats
# Oracle: what our kubeconfig loader resolves (config-resolve) must equal what the real kubectl
# resolves on the same files and flags: `kubectl config view --minify --flatten -o json` for the
# context, cluster, user, namespace, server, CA, TLS fields and auth kind; the URL kubectl would
# call (`get --raw -v=6` against a closed port) for server overrides; and the error for bad input.

load helpers

setup() {
  # The oracle is the real kubectl: without it the suite fails rather than passing on nothing.
  command -v kubectl >/dev/null || { echo "kubectl is not on PATH: the oracle tests need the real kubectl" >&3; return 1; }
  setup_workdir
  export HOME="$KPT_WORK/home"
  mkdir -p "$HOME" certs tokens bin
  unset KUBECONFIG
  cp -r "$KPT_SOURCE_DIR"/testdata/kubeconfig/. .
  local k='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'
  openssl req -x509 $k -keyout certs/ca-key.pem -out certs/ca.pem -days 1 -subj /CN=oracle-ca 2>/dev/null
  openssl req -x509 $k -keyout certs/client-key.pem -out certs/client.pem -days 1 -subj /CN=alice 2>/dev/null
  sed -i "s|@CA_DATA@|$(base64 -w0 certs/ca.pem)|" ca-data.yaml
  echo "file-token" > tokens/token
}

teardown() { teardown_workdir; }

# compare_view ARGS...: every resolved field against kubectl config view.
compare_view() {
  "$KPT_BIN" config-resolve "$@" > ours.json
  kubectl config view --minify --flatten -o json "$@" > theirs.json
  python3 - <<'PY'
import json, sys
ours = json.load(open("ours.json"))
k = json.load(open("theirs.json"))
ctx = k["contexts"][0]["context"]
cl = k["clusters"][0]["cluster"]
user = k["users"][0]["user"] if k.get("users") else {}
def kind(u):
    if u.get("token"): return "token"
    if u.get("tokenFile"): return "tokenFile"
    if u.get("exec"): return "exec"
    if u.get("username") or u.get("password"): return "basic"
    if u.get("client-certificate") or u.get("client-certificate-data"): return "clientCertificate"
    return "none"
theirs = {
    "context": k["current-context"], "cluster": ctx["cluster"], "user": ctx.get("user", ""),
    "namespace": ctx.get("namespace") or "default", "server": cl["server"],
    "certificateAuthorityData": cl.get("certificate-authority-data", ""),
    "insecureSkipTlsVerify": cl.get("insecure-skip-tls-verify", False),
    "tlsServerName": cl.get("tls-server-name", ""), "authKind": kind(user),
}
diff = {f: (ours.get(f), v) for f, v in theirs.items() if ours.get(f) != v}
if diff:
    print("ours != kubectl:", json.dumps(diff, indent=1))
    sys.exit(1)
PY
}

# compare_server ARGS...: the server our loader resolves equals the one kubectl calls.
compare_server() {
  local ours theirs
  ours=$("$KPT_BIN" config-resolve "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["server"])')
  theirs=$(kubectl get --raw /kpt-oracle -v=6 --request-timeout=2s "$@" 2>&1 | grep -o 'https\?://[^ "]*/kpt-oracle' | head -1)
  [ "${theirs%/kpt-oracle}" = "$ours" ] || { echo "ours '$ours' != kubectl '${theirs%/kpt-oracle}'"; return 1; }
}

# compare_error ARGS...: both fail, with the same message (kubectl's capital/prefix normalised).
compare_error() {
  local ours theirs
  ! ours=$("$KPT_BIN" config-resolve "$@" 2>&1) || { echo "ours succeeded"; return 1; }
  ! theirs=$(kubectl get pods --request-timeout=2s "$@" 2>&1) || { echo "kubectl succeeded"; return 1; }
  ours=${ours#error: }
  theirs=${theirs#error: }
  theirs=${theirs/#Error in configuration: /error in configuration: }
  [ "$ours" = "$theirs" ] || { printf 'ours:    %s\nkubectl: %s\n' "$ours" "$theirs"; return 1; }
}

@test "a single file with a relative CA path resolves as kubectl resolves it" {
  compare_view --kubeconfig basic.yaml
}

@test "the current context of a multi-context file uses basic auth" {
  compare_view --kubeconfig multi-context.yaml
}

@test "--context picks another context with client certificate files and insecure TLS" {
  compare_view --kubeconfig multi-context.yaml --context beta
}

@test "certificate-authority-data, tls-server-name and a relative tokenFile" {
  compare_view --kubeconfig ca-data.yaml
}

@test "an exec user is recognised" {
  compare_view --kubeconfig exec-user.yaml
}

@test "paths in a file in a subfolder resolve against that subfolder" {
  compare_view --kubeconfig sub/relative.yaml
}

@test "a context without namespace falls back to default" {
  compare_view --kubeconfig no-namespace.yaml
}

@test "a KUBECONFIG list takes current-context and conflicting names from the first file" {
  KUBECONFIG=first.yaml:second.yaml compare_view
}

@test "reversing the KUBECONFIG list reverses which file wins" {
  KUBECONFIG=second.yaml:first.yaml compare_view
}

@test "--context with a KUBECONFIG list mixes entries from both files" {
  KUBECONFIG=first.yaml:second.yaml compare_view --context only-second
}

@test "missing files in KUBECONFIG are skipped" {
  KUBECONFIG=missing.yaml:sub/relative.yaml compare_view
}

@test "--kubeconfig wins over KUBECONFIG" {
  KUBECONFIG=second.yaml compare_view --kubeconfig first.yaml
}

@test "--server overrides the kubeconfig's server" {
  compare_server --kubeconfig basic.yaml --server https://127.0.0.2:9
}

@test "--cluster changes the server" {
  compare_server --kubeconfig multi-context.yaml --cluster beta-cluster
}

@test "the server of a KUBECONFIG list is the first file's" {
  KUBECONFIG=second.yaml:first.yaml compare_server --context shared
}

@test "a current-context naming no context fails as in kubectl" {
  compare_error --kubeconfig missing-context.yaml
}

@test "an unknown --context fails as in kubectl" {
  compare_error --kubeconfig basic.yaml --context nope
}

@test "an unknown --user fails as in kubectl" {
  compare_error --kubeconfig basic.yaml --user nope
}

@test "two authentication methods for one user fail as in kubectl" {
  compare_error --kubeconfig two-methods.yaml
}

@test "a missing --kubeconfig file fails as in kubectl" {
  compare_error --kubeconfig does-not-exist.yaml
}
