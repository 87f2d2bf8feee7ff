"""Debian's python3-kubernetes against the local cluster: creates two PyTorchJobs of the same
(default) port, waits for their pods to succeed, and prints each pod's log.

Usage: python_client.py KUBECONFIG
"""
import sys
import time

from kubernetes import client, config

config.load_kube_config(config_file=sys.argv[1])
jobs_api = client.CustomObjectsApi()
core = client.CoreV1Api()


def job(name):
    container = {"name": "pytorch", "image": "python:3.11",
                 "command": ["sh", "-c", 'echo "$HOSTNAME rank $RANK via $MASTER_ADDR:$MASTER_PORT"']}
    return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": name},
            "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 1, "restartPolicy": "OnFailure",
                                                        "template": {"spec": {"containers": [container]}}}}}}


for name in ("py-a", "py-b"):
    jobs_api.create_namespaced_custom_object("kubeflow.org", "v1", "default", "pytorchjobs", job(name))
pods = [f"{name}-worker-0" for name in ("py-a", "py-b")]
deadline = time.monotonic() + 90
while time.monotonic() < deadline:
    phases = []
    for pod in pods:
        try:
            phases.append(core.read_namespaced_pod(pod, "default").status.phase)
        except client.exceptions.ApiException:
            phases.append(None)
    if all(p == "Succeeded" for p in phases):
        break
    time.sleep(0.2)
for pod in pods:
    print(core.read_namespaced_pod_log(pod, "default").strip())
