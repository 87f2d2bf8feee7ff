#!/usr/bin/env bats
# Deletion with propagation on the whole local cluster (API server, controller, node), driven by
# the real kubectl and by a client that is not ours, Debian's python3-kubernetes: what a job
# leaves behind after it is deleted, however early and however it is deleted.
bats_require_minimum_version 1.5.0
load helpers

setup_file() { start_file_cluster gc; }

teardown_file() { stop_file_cluster; }

setup() { setup_workdir; }
teardown() { teardown_workdir; }

# A two-worker job whose pods sleep, so they are still running when it is deleted.
job_manifest() {
  cat <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: $1
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: busybox
            command: ["sleep", "60"]
YAML
}

# Applies job $1 and waits for its first pod to run.
start_job() {
  job_manifest "$1" | kubectl apply -f - >/dev/null
  kubectl wait --for=condition=Ready "pod/$1-worker-0" --timeout=30s >/dev/null
}

# What is left of job $1: its pods and services, by the operator's job-name label.
leftovers() {
  kubectl get pods,services -l "training.kubeflow.org/job-name=$1" -o name
}

# Waits up to 15 s for job $1 and everything it owned to be gone; then checks that nothing comes
# back for another 2 s (a stale controller cache would re-create a pod here).
converges_to_nothing() {
  local i
  for i in $(seq 150); do
    if ! kubectl get pytorchjob "$1" >/dev/null 2>&1 && [ -z "$(leftovers "$1")" ]; then break; fi
    sleep 0.1
  done
  sleep 2
  run kubectl get pytorchjob "$1"
  [ "$status" -ne 0 ]
  [ -z "$(leftovers "$1")" ]
}

# Creates job $1 with python3-kubernetes and deletes it after $2 seconds with a DeleteOptions body
# asking for Foreground propagation.
python_create_and_delete() {
  job_manifest "$1" > job.yaml
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys, time, yaml
from kubernetes import client, config
config.load_kube_config()
api = client.CustomObjectsApi()
name, delay = sys.argv[1], float(sys.argv[2])
api.create_namespaced_custom_object("kubeflow.org", "v1", "default", "pytorchjobs",
                                    yaml.safe_load(open("job.yaml")))
time.sleep(delay)
api.delete_namespaced_custom_object("kubeflow.org", "v1", "default", "pytorchjobs", name,
                                    body=client.V1DeleteOptions(propagation_policy="Foreground"))
PY
}

@test "a job deleted by python3-kubernetes right after its creation, with Foreground, leaves no pod or service" {
  python_create_and_delete early 0
  converges_to_nothing early
}

@test "a job deleted with Foreground while its pods run leaves none, and none is re-created" {
  python_create_and_delete running 1.5
  converges_to_nothing running
}

@test "kubectl delete --cascade=foreground returns once the job's pods and services are gone" {
  start_job fg
  run kubectl delete pytorchjob fg --cascade=foreground
  [ "$status" -eq 0 ]
  [ "$output" = 'pytorchjob.kubeflow.org "fg" deleted' ]
  [ -z "$(leftovers fg)" ]
  converges_to_nothing fg
}

@test "kubectl delete --cascade=orphan keeps the pods and services, without their owner reference" {
  start_job orph
  run kubectl delete pytorchjob orph --cascade=orphan
  [ "$status" -eq 0 ]
  sleep 1
  run kubectl get pod orph-worker-0 -o 'jsonpath={.metadata.ownerReferences}'
  [ "$status" -eq 0 ]
  [ "$output" = "" ]
  run kubectl get service orph-worker-0 -o name
  [ "$output" = "service/orph-worker-0" ]
  kubectl delete pods,services -l training.kubeflow.org/job-name=orph >/dev/null
}
