#!/usr/bin/env bats
# The local API server against hostile local clients (issue 33): slow, idle, flooding and
# interrupted clients, most of them without the token, and requests nested to the JSON depth
# limit, with the real kubectl as the user who must still be served. The server, controller and
# node share one process: none of this may freeze it, grow its memory without bound or crash it.
# Loopback only; every step is bounded, each test well under a minute.
bats_require_minimum_version 1.5.0
load helpers

HOSTILE="$BATS_TEST_DIRNAME/hostile_clients.py"

setup() { setup_workdir; }

teardown() {
  if [ -n "${ATTACKER:-}" ]; then kill "$ATTACKER" 2>/dev/null || true; fi
  if [ -n "${KUBECTL_WATCHES:-}" ]; then kill $KUBECTL_WATCHES 2>/dev/null || true; fi
  stop_api_server
  teardown_workdir
}

# The whole local cluster (server, controller, node) in the test dir, as start_api_server starts
# the server alone.
start_cluster() {
  export HOME="$KPT_WORK/home"
  mkdir -p "$HOME"
  STATE="$KPT_WORK/state"
  export KUBECONFIG="$KPT_WORK/kubeconfig.yaml"
  UP_OUTPUT=$("$KPT_BIN" local up --state-dir "$STATE" --kubeconfig-out "$KUBECONFIG" 2>&1) ||
    { echo "$UP_OUTPUT" >&3; return 1; }
}

server_pid() { cat "$STATE/apiserver.pid"; }
server_port() { cat "$STATE/apiserver.port"; }
# A field of /proc/PID/status (Threads, VmRSS, VmHWM; memory in KiB).
proc_field() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
millis() { date +%s%3N; }

@test "100 slow heads and 100 idle connects without the token: kubectl get ns answers within a second" {
  start_api_server
  kubectl get ns >/dev/null  # discovery is cached, as on a user's second command
  pid=$(server_pid)
  threads_before=$(proc_field "$pid" Threads)
  : >hold.out
  python3 "$HOSTILE" hold "$(server_port)" --idle 100 --slow 100 --every 2 --for 12 >hold.out &
  ATTACKER=$!
  for _ in $(seq 100); do grep -q holding hold.out && break; sleep 0.1; done
  grep -q holding hold.out
  worst=0
  for _ in $(seq 10); do
    start=$(millis)
    kubectl get ns >/dev/null
    took=$(($(millis) - start))
    if [ "$took" -gt "$worst" ]; then worst=$took; fi
    sleep 0.5
  done
  threads_during=$(proc_field "$pid" Threads)
  wait "$ATTACKER"
  ATTACKER=
  echo "# slowest kubectl get ns under 200 idle and slow connections: ${worst} ms;" \
    "server threads ${threads_before} -> ${threads_during}" >&3
  [ "$worst" -lt 1000 ]
  [ "$threads_during" -lt $((threads_before + 10)) ]
}

@test "a head that never ends is cut at the header timeout (32 s), however often a line comes" {
  start_api_server
  run timeout 60 python3 "$HOSTILE" hold "$(server_port)" --idle 10 --slow 10 --every 5 --for 36
  [ "$status" -eq 0 ]
  [ "${lines[-1]}" = "closed by the server: 20" ]
  kubectl get ns >/dev/null
}

@test "64 MiB of headers are refused with 431 and the server's memory hardly grows" {
  start_api_server
  kubectl get ns >/dev/null
  pid=$(server_pid)
  before=$(proc_field "$pid" VmHWM)
  run timeout 60 python3 "$HOSTILE" headers "$(server_port)" --bytes $((64 << 20))
  [ "$status" -eq 0 ]
  read -r code sent <<<"$output"
  after=$(proc_field "$pid" VmHWM)
  echo "# 64 MiB of headers: 431 after $((sent >> 10)) KiB sent; server peak RSS ${before} -> ${after} KiB" >&3
  [ "$code" = 431 ]
  [ $((after - before)) -lt 8192 ]
  kubectl get ns >/dev/null
}

@test "100 interrupted watches free their threads within 5 s" {
  start_api_server
  kubectl get ns >/dev/null
  pid=$(server_pid)
  before=$(proc_field "$pid" Threads)
  mkfifo control
  python3 "$HOSTILE" watches "$(server_port)" "$(cat "$STATE/token")" --count 95 <control >watches.out &
  ATTACKER=$!
  exec 7>control
  for _ in $(seq 5); do
    kubectl get configmaps --watch >/dev/null 2>&1 &
    KUBECTL_WATCHES="$KUBECTL_WATCHES $!"
  done
  for _ in $(seq 300); do
    [ "$(proc_field "$pid" Threads)" -ge $((before + 100)) ] && grep -q open watches.out && break
    sleep 0.1
  done
  during=$(proc_field "$pid" Threads)
  [ "$during" -ge $((before + 100)) ]
  start=$(millis)
  kill -INT $KUBECTL_WATCHES  # as Ctrl-C
  exec 7>&-                   # the other 95 close their sockets at once
  until [ "$(proc_field "$pid" Threads)" -le $((before + 4)) ] || [ $(($(millis) - start)) -gt 10000 ]; do
    sleep 0.1
  done
  took=$(($(millis) - start))
  after=$(proc_field "$pid" Threads)
  echo "# 100 interrupted watches: server threads ${before} -> ${during} -> ${after} in ${took} ms" >&3
  [ "$took" -lt 5000 ]
  wait "$ATTACKER"
  ATTACKER=
}

@test "requests nested to the JSON depth limit never take down the cluster's one process" {
  start_cluster
  pid=$(server_pid)
  kubectl create configmap deep --from-literal=k=v >/dev/null
  kubectl create -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: deep}
spec:
  restartPolicy: Never
  containers: [{name: main, image: busybox, command: [sleep, "30"]}]
YAML
  run timeout 300 python3 "$HOSTILE" deep "$(server_port)" "$(cat "$STATE/token")"
  [ "$status" -eq 0 ]
  echo "$output" | sed 's/^/# /' >&3
  [ "${#lines[@]}" -eq 10 ]
  for line in "${lines[@]}"; do
    code=${line%% *}
    [ "$code" -ge 200 ] && [ "$code" -lt 500 ]
  done
  [ "${lines[-1]}" = "400 one-level-too-deep" ]
  sleep 3  # what the controller and node watch has reached them
  kill -0 "$pid"
  run kubectl get ns
  [ "$status" -eq 0 ]
  [ "$(kubectl get configmap deep -o jsonpath='{.data.k}')" = v ]
}

@test "tailLines=1 on a 200 MB log reads only its end: the server's memory stays flat" {
  start_cluster
  pid=$(server_pid)
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
  run kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/big-log --timeout=120s
  [ "$status" -eq 0 ]
  log=$(ls "$STATE"/logs/default_big-log_*/main/0.log)
  [ "$(stat -c %s "$log")" -gt $((200 << 20)) ]
  [ "$(stat -c %a "$log")" = 600 ]
  [ "$(stat -c %a "$(dirname "$log")")" = 700 ]
  before=$(proc_field "$pid" VmHWM)
  start=$(millis)
  for i in 1 2 3 4 5 6; do kubectl logs big-log --tail=1 >"tail$i.out" & done
  kubectl logs big-log --tail=1 --limit-bytes=10 >limited.out
  wait
  took=$(($(millis) - start))
  after=$(proc_field "$pid" VmHWM)
  echo "# 7 tails of a $(($(stat -c %s "$log") >> 20)) MiB log in ${took} ms: server peak RSS ${before} -> ${after} KiB" >&3
  for i in 1 2 3 4 5 6; do [ "$(cat "tail$i.out")" = "the last line" ]; done
  [ "$(cat limited.out)" = "the last l" ]
  [ $((after - before)) -lt 16384 ]
}

@test "requests without the token get rate-limited, escaped log lines, and the state files are private" {
  start_api_server
  start=$(millis)
  run timeout 60 python3 "$HOSTILE" flood "$(server_port)" --count 300 --path '/api/v1/x%0aGET%20/forged%20200'
  seconds=$((($(millis) - start) / 1000 + 1))
  [ "$status" -eq 0 ]
  [ "$output" = "401:300" ]
  kubectl get ns >/dev/null  # logged, after the note of what the rate limit left out
  # At most the burst (20) and 5 a second of them, plus kubectl's and local up's own requests.
  logged=$(wc -l <"$STATE/access.log")
  echo "# 300 requests without the token in ${seconds} s: ${logged} access log lines" >&3
  [ "$logged" -lt $((20 + 5 * seconds + 20)) ]
  grep -qF 'GET /api/v1/x\x0aGET /forged 200 401' "$STATE/access.log"
  ! grep -q '^GET /forged' "$STATE/access.log"
  grep -qE '^\([0-9]+ requests without the token not logged: rate limit\)$' "$STATE/access.log"
  grep -q '^GET /api/v1/namespaces 200$' "$STATE/access.log"
  for f in objects.db access.log apiserver.log token apiserver.key; do
    [ "$(stat -c %a "$STATE/$f")" = 600 ] || { echo "$f is $(stat -c %a "$STATE/$f")"; false; }
  done
}

@test "pods/log query parameters are parsed as kube-apiserver parses them" {
  start_api_server
  kubectl create -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: main, image: busybox}]
YAML
  run kubectl get --raw "/api/v1/namespaces/default/pods/p/log?tailLines=abc"
  [ "$status" -ne 0 ]
  [[ "$output" == *'strconv.ParseInt: parsing "abc": invalid syntax'* ]]
  run kubectl get --raw "/api/v1/namespaces/default/pods/p/log?limitBytes=0"
  [ "$status" -ne 0 ]
  [[ "$output" == *'PodLogOptions "p" is invalid: limitBytes: Invalid value: 0: must be greater than 0'* ]]
  run kubectl get --raw "/api/v1/namespaces/default/configmaps?limit=ten"
  [ "$status" -ne 0 ]
  [[ "$output" == *'strconv.ParseInt: parsing "ten": invalid syntax'* ]]
}
