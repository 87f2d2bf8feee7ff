#!/usr/bin/env bats
# The local node runs pods as a kubelet runs containers: default signal state, SIGTERM then
# SIGKILL after the grace period (on deletion, activeDeadlineSeconds and `local down`), nothing
# of a pod left once it ends (setsid'd children and kubectl exec'd commands included), names and
# securityContext checked. Driven with the real kubectl; processes checked on the host's /proc.
bats_require_minimum_version 1.5.0
load helpers

setup_file() { start_file_cluster node; }
teardown_file() { stop_file_cluster; }
setup() { setup_workdir; }
teardown() {
  [ ! -d "$KPT_WORK/user/state" ] || "$KPT_BIN" local down --force --state-dir "$KPT_WORK/user/state" >/dev/null 2>&1 || true
  teardown_workdir
}

# A pod from a command line: pod NAME [extra spec YAML lines] -- COMMAND...
pod() {
  local name=$1 extra=$2
  shift 3
  local args=""
  for a in "$@"; do args+="$(printf '%s' "$a" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))'), "; done
  kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $name}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
$extra
  containers: [{name: main, image: local, command: [${args%, }]}]
YAML
}
# The host pids of processes whose command line is exactly $1.
pids_of() { pgrep -fx "$1" || true; }
# Waits (at most 10 s) until no process has exactly the command line $1.
gone() {
  for _ in $(seq 100); do [ -z "$(pids_of "$1")" ] && return 0; sleep 0.1; done
  echo "still running: $1 ($(pids_of "$1"))" >&3
  return 1
}
# Waits (at most 10 s) for a file.
appears() {
  for _ in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done
  return 1
}
ready() { kubectl wait --for=condition=Ready "pod/$1" --timeout=30s >/dev/null; }
# A python script that writes $1 when SIGTERM comes, as a training script checkpoints on preemption.
HANDLER='import signal, sys, time
def stop(*_):
    open(sys.argv[1], "w").write("checkpointed\n")
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
print("ready", flush=True)
time.sleep(600)'

@test "a pod's process starts with no signal blocked or ignored" {
  pod sigstate "" -- sleep 600.101
  ready sigstate
  pid=$(pids_of "sleep 600.101")
  [ -n "$pid" ]
  run grep -E '^Sig(Blk|Ign):' "/proc/$pid/status"
  [ "$output" = $'SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000' ]
  kubectl delete pod sigstate --wait=false >/dev/null
  gone "sleep 600.101"
}

@test "kubectl delete pod: the SIGTERM handler runs and writes its file" {
  pod deleted "" -- /usr/bin/python3 -c "$HANDLER" "$KPT_WORK/term-delete"
  ready deleted
  for _ in $(seq 100); do [ "$(kubectl logs deleted 2>/dev/null)" = ready ] && break; sleep 0.1; done
  kubectl delete pod deleted --wait=false >/dev/null
  appears "$KPT_WORK/term-delete"
  [ "$(cat "$KPT_WORK/term-delete")" = checkpointed ]
}

@test "activeDeadlineSeconds: the handler runs and the pod fails with DeadlineExceeded" {
  pod deadline "  activeDeadlineSeconds: 2" -- /usr/bin/python3 -c "$HANDLER" "$KPT_WORK/term-deadline"
  kubectl wait --for=jsonpath='{.status.phase}'=Failed pod/deadline --timeout=30s >/dev/null
  run kubectl get pod deadline -o jsonpath='{.status.reason}|{.status.message}'
  [ "$output" = "DeadlineExceeded|Pod was active on the node longer than the specified deadline" ]
  appears "$KPT_WORK/term-deadline"
  kubectl wait --for=jsonpath='{.status.containerStatuses[0].state.terminated.exitCode}'=0 pod/deadline --timeout=20s >/dev/null
  kubectl delete pod deadline --wait=false >/dev/null
}

@test "a setsid child and a kubectl exec'd command end with their pod" {
  pod escapes "" -- sh -c 'setsid sleep 600.102 & exec sleep 600.103'
  ready escapes
  kubectl exec escapes -- sh -c 'setsid sleep 600.104 </dev/null >/dev/null 2>&1 &'
  kubectl exec escapes -- sleep 600.105 &
  exec_client=$!
  for _ in $(seq 100); do [ -n "$(pids_of "sleep 600.105")" ] && break; sleep 0.1; done
  [ -n "$(pids_of "sleep 600.102")" ]
  [ -n "$(pids_of "sleep 600.105")" ]
  kubectl delete pod escapes --wait=false >/dev/null
  for p in 600.102 600.103 600.104 600.105; do gone "sleep $p"; done
  wait "$exec_client" || true
}

@test "a pod gets no descriptor of the server but its three streams" {
  pod fds "" -- sh -c 'ls /proc/self/fd'
  kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/fds --timeout=30s >/dev/null
  run kubectl logs fds
  [ "$output" = $'0\n1\n2\n3' ]
  kubectl delete pod fds --wait=false >/dev/null
}

@test "a container named ../x is refused" {
  run kubectl apply -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: dotdot}
spec:
  containers: [{name: ../x, image: local, command: [sh, -c, 'echo escaped']}]
YAML
  [ "$status" -ne 0 ]
  [[ "$output" == *'spec.containers[0].name: Invalid value: "../x": a lowercase RFC 1123 label must consist of lower case alphanumeric characters'* ]]
  [ ! -e "$XDG_STATE_HOME/kubectl-pytorch/logs/0.log" ]
  run kubectl get pod dotdot
  [ "$status" -ne 0 ]
}

@test "runAsNonRoot never runs as root; runAsUser is honoured by a root node" {
  pod nonroot "  securityContext: {runAsNonRoot: true}" -- id -u
  if [ "$(id -u)" = 0 ]; then
    kubectl wait --for=jsonpath='{.status.containerStatuses[0].state.waiting.reason}'=CreateContainerConfigError pod/nonroot --timeout=30s >/dev/null
    run kubectl get pod nonroot -o jsonpath='{.status.containerStatuses[0].state.waiting.message}'
    [ "$output" = "container has runAsNonRoot and image will run as root (pod: \"nonroot_default($(kubectl get pod nonroot -o jsonpath='{.metadata.uid}'))\", container: main)" ]
    run kubectl get events --field-selector involvedObject.name=nonroot -o jsonpath='{.items[*].reason}'
    [[ "$output" == *Failed* ]]
    pod runas "  securityContext: {runAsNonRoot: true, runAsUser: 65534}" -- id -u
    kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/runas --timeout=30s >/dev/null
    [ "$(kubectl logs runas)" = 65534 ]
    kubectl delete pod runas --wait=false >/dev/null
  else
    kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/nonroot --timeout=30s >/dev/null
    [ "$(kubectl logs nonroot)" = "$(id -u)" ]
  fi
  kubectl delete pod nonroot --wait=false >/dev/null
}

@test "what the node cannot honour is a Warning Event that kubectl describe shows" {
  pod unhonoured "  volumes: [{name: data, hostPath: {path: /srv/data}}]" -- true
  kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/unhonoured --timeout=30s >/dev/null
  run kubectl describe pod unhonoured
  [[ "$output" == *"Warning  NotEnforced"*"volume 'data' (hostPath '/srv/data') is not mounted"* ]]
  kubectl delete pod unhonoured --wait=false >/dev/null
}

@test "a pod in its job's network reaches the API server at the kubeconfig's address" {
  grep -q "each job in a network namespace of its own" "$KPT_FILE_DIR/up.log"
  pod apicall "" -- kubectl --kubeconfig "$KUBECONFIG" get pod apicall -o 'jsonpath={.metadata.name}'
  kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/apicall --timeout=60s >/dev/null
  [ "$(kubectl logs apicall)" = apicall ]
  kubectl delete pod apicall --wait=false >/dev/null
}

@test "a node that is not root: its pods run as its user, in namespaces of a user namespace, the same way" {
  # As root (CI), the node runs as nobody; a suite that is not root runs it as itself.
  as=()
  dir="$KPT_WORK/user"
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then
    as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    chmod 755 "$KPT_WORK"
    chown 65534:65534 "$dir"
  fi
  user=(env -i PATH=/usr/bin:/bin HOME="$dir" "${as[@]}" "$KPT_BIN")
  run "${user[@]}" local up --state-dir "$dir/state" --kubeconfig-out "$dir/kubeconfig"
  [ "$status" -eq 0 ]
  [[ "$output" == *"pods: each job in a network namespace of its own"*"each pod in a PID namespace of its own"* ]]
  k=(kubectl --kubeconfig "$dir/kubeconfig")
  "${k[@]}" apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: unprivileged}
spec:
  terminationGracePeriodSeconds: 5
  containers: [{name: main, image: local, command: [sh, -c, 'setsid sleep 600.107 & id -u; grep SigBlk /proc/self/status; exec sleep 600.108']}]
YAML
  "${k[@]}" wait --for=condition=Ready pod/unprivileged --timeout=30s >/dev/null
  for _ in $(seq 100); do [ "$("${k[@]}" logs unprivileged | wc -l)" = 2 ] && break; sleep 0.1; done
  [ "$("${k[@]}" logs unprivileged)" = "$([ "$(id -u)" = 0 ] && echo 65534 || id -u)"$'
SigBlk:	0000000000000000' ]
  [ -n "$(pids_of "sleep 600.107")" ]
  "${k[@]}" delete pod unprivileged --wait=false >/dev/null
  gone "sleep 600.107"
  gone "sleep 600.108"
  "${user[@]}" local down --force --state-dir "$dir/state" >/dev/null
}

@test "local down names what runs and stops nothing without --force; with it, SIGTERM reaches every pod" {
  pod lastone "" -- sh -c 'setsid sleep 600.106 & exec /usr/bin/python3 -c "$0" "$1"' "$HANDLER" "$KPT_WORK/term-down"
  ready lastone
  for _ in $(seq 100); do [ "$(kubectl logs lastone 2>/dev/null)" = ready ] && break; sleep 0.1; done
  run --separate-stderr "$KPT_BIN" local down
  [ "$status" -eq 1 ]
  [ "$stderr" = "error: the local cluster (state directory $XDG_STATE_HOME/kubectl-pytorch) runs:
  pod default/lastone
to stop them too: kubectl pytorch local down --force" ]
  kubectl get pod lastone >/dev/null
  run "$KPT_BIN" local down --force --grace 3s
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "stopping (SIGTERM, then SIGKILL after 3s):" ]
  [ "${lines[1]}" = "  pod default/lastone" ]
  [[ "${lines[2]}" == "the local API server (pid "*") is stopped" ]]
  [ "$(cat "$KPT_WORK/term-down")" = checkpointed ]
  gone "sleep 600.106"
}
