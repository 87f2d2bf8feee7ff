#!/usr/bin/env bats
# The real kubectl against the whole local cluster (API server, controller, node): exec into a
# running pod, env from Secrets and ConfigMaps, the `create` subcommands (protobuf bodies), and
# the tables kubectl prints.
bats_require_minimum_version 1.5.0
load helpers

setup_file() {
  export KPT_FILE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kpt-kubectl.XXXXXX")
  export HOME="$KPT_FILE_DIR/home" XDG_STATE_HOME="$KPT_FILE_DIR/state"
  mkdir -p "$HOME" "$KPT_FILE_DIR/pods"
  (cd "$KPT_FILE_DIR/pods" && "$KPT_BIN" local up >"$KPT_FILE_DIR/up.log" 2>&1)
  export KUBECONFIG="$HOME/.kube/kubectl-pytorch-local.yaml"
  kubectl create secret generic creds --from-literal=password=s3cret >/dev/null
  kubectl create configmap settings --from-literal=mode=fast --from-literal=level=2 >/dev/null
  kubectl apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: sleeper
  labels:
    app: sleeper
spec:
  containers:
  - name: main
    image: busybox
    command: ["sleep", "600"]
    env:
    - name: FROM_SECRET
      valueFrom:
        secretKeyRef: {name: creds, key: password}
    - name: FROM_CM
      valueFrom:
        configMapKeyRef: {name: settings, key: mode}
    envFrom:
    - prefix: CM_
      configMapRef: {name: settings}
YAML
  kubectl wait --for=condition=Ready pod/sleeper --timeout=60s >/dev/null
}

teardown_file() {
  "$KPT_BIN" local down --force --grace 2s >/dev/null 2>&1 || true
  rm -rf "$KPT_FILE_DIR"
}

setup() { setup_workdir; }
teardown() { teardown_workdir; }

@test "kubectl exec runs in the pod's env, from Secrets and ConfigMaps too, where local up started" {
  run --separate-stderr kubectl exec sleeper -- sh -c 'echo "$FROM_SECRET $FROM_CM $CM_mode $CM_level $HOSTNAME"; pwd'
  [ "$status" -eq 0 ]
  [ "$output" = "s3cret fast fast 2 sleeper
$KPT_FILE_DIR/pods" ]
}

@test "kubectl exec returns the command's exit code and its stderr" {
  run --separate-stderr kubectl exec sleeper -- sh -c 'echo oops >&2; exit 3'
  [ "$status" -eq 3 ]
  [ "$stderr" = "oops
command terminated with exit code 3" ]
}

@test "kubectl exec -i passes stdin through to the command" {
  run --separate-stderr kubectl exec -i sleeper -- sh -c 'tr a-z A-Z'  <<<"hello exec"
  [ "$status" -eq 0 ]
  [ "$output" = "HELLO EXEC" ]
}

@test "kubectl exec -it gives the command a terminal" {
  run --separate-stderr script -qec "kubectl exec -it sleeper -- sh -c 'test -t 0 && echo tty'" /dev/null </dev/null
  [ "$status" -eq 0 ]
  [[ "$output" == *"tty"* ]]
}

@test "kubectl exec into a missing container is a clear error" {
  run --separate-stderr kubectl exec sleeper -c nosuch -- true
  [ "$status" -eq 1 ]
  [ "$stderr" = "Error from server (BadRequest): container nosuch is not valid for pod sleeper" ]
}

@test "the create subcommands send protobuf and the objects are stored" {
  run kubectl create namespace team-a
  [ "$output" = "namespace/team-a created" ]
  run kubectl -n team-a create configmap cm1 --from-literal=k=v
  [ "$output" = "configmap/cm1 created" ]
  run kubectl -n team-a create secret generic s1 --from-literal=user=admin
  [ "$output" = "secret/s1 created" ]
  [ "$(kubectl -n team-a get secret s1 -o jsonpath='{.data.user}')" = "YWRtaW4=" ]
  [ "$(kubectl -n team-a get secret s1 -o jsonpath='{.type}')" = "Opaque" ]
  run kubectl -n team-a create serviceaccount robot
  [ "$output" = "serviceaccount/robot created" ]
  run kubectl -n team-a create deployment web --image=nginx --replicas=2
  [ "$output" = "deployment.apps/web created" ]
  [ "$(kubectl -n team-a get deployment web -o jsonpath='{.spec.replicas}')" = 2 ]
  run kubectl -n team-a create job once --image=busybox -- echo hi
  [ "$output" = "job.batch/once created" ]
  [ "$(kubectl -n team-a get job once -o jsonpath='{.spec.template.spec.containers[0].command}')" = '["echo","hi"]' ]
  run kubectl -n team-a create service clusterip web --tcp=80:8080
  [ "$output" = "service/web created" ]
  [ "$(kubectl -n team-a get svc web -o jsonpath='{.spec.ports[0].targetPort}')" = 8080 ]
  run kubectl -n team-a get configmap,secret,serviceaccount,deployment,job,service -o name
  [ "$output" = "configmap/cm1
secret/s1
serviceaccount/robot
deployment.apps/web
job.batch/once
service/web" ]
}

@test "get pods -o wide and get events print kubectl's columns" {
  run kubectl get pods sleeper -o wide
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" =~ ^NAME\ +READY\ +STATUS\ +RESTARTS\ +AGE\ +IP\ +NODE\ +NOMINATED\ NODE\ +READINESS\ GATES$ ]]
  [[ "${lines[1]}" =~ ^sleeper\ +1/1\ +Running\ +0\ +[0-9a-z]+\ +127.0.0.1\ +[^[:space:]]+\ +\<none\>\ +\<none\>$ ]]
  kubectl create -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Event
metadata:
  name: sleeper.1
involvedObject:
  kind: Pod
  name: sleeper
  namespace: default
type: Normal
reason: Started
message: Started container main
count: 1
lastTimestamp: "2026-01-01T00:00:00Z"
YAML
  run kubectl get events
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" =~ ^LAST\ SEEN\ +TYPE\ +REASON\ +OBJECT\ +MESSAGE$ ]]
  [[ "${lines[1]}" =~ \ +Normal\ +Started\ +pod/sleeper\ +Started\ container\ main$ ]]
}

@test "kubectl apply changes a pod where a real server lets it, merging its lists by key, and is refused elsewhere" {
  pod() {
    cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: applied}
spec:
  containers:
  - name: main
    image: $1
    command: ["sleep", "$2"]
    env: [{name: A, value: "1"}]
YAML
  }
  pod busybox:1 600 | kubectl apply -f - >/dev/null
  run kubectl apply -f - < <(pod busybox:2 600)
  [ "$status" -eq 0 ]
  [ "$output" = "pod/applied configured" ]
  run kubectl get pod applied -o jsonpath='{.spec.containers[0].image} {.spec.containers[0].command[1]} {.spec.containers[0].env[0].name}'
  [ "$output" = "busybox:2 600 A" ]
  run kubectl apply -f - < <(pod busybox:2 700)
  [ "$status" -eq 1 ]
  [[ "$output" == 'The Pod "applied" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,'* ]]
  [[ "$output" == *"changed: spec.containers[0].command[1]"* ]]
  kubectl delete pod applied --wait=false >/dev/null
}

@test "kubectl set image patches one container of a Deployment and keeps the others' fields" {
  kubectl create deployment web --image=nginx:1 >/dev/null
  kubectl patch deployment web --patch '{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox","command":["sleep","1"]}]}}}}' >/dev/null
  run kubectl set image deployment/web nginx=nginx:2
  [ "$status" -eq 0 ]
  run kubectl get deployment web -o jsonpath='{range .spec.template.spec.containers[*]}{.name}={.image} {.command}{"\n"}{end}'
  [ "$output" = 'nginx=nginx:2 
side=busybox ["sleep","1"]' ]
  kubectl delete deployment web >/dev/null
}
