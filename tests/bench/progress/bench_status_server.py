#!/usr/bin/env python3
"""How long the local cluster's status server takes per progress update, as a trainer sends them.

  KUBECONFIG=~/.kube/kubectl-pytorch-local.yaml tests/bench/progress/bench_status_server.py [N]

Needs a local cluster (`kubectl pytorch local up`) and kubectl. It runs a TrainJob whose node sleeps,
reads the server's URL from the node's env and the CA from the job's ConfigMap, gets a token for the
job's audience (a TokenRequest, as the node does), then sends N updates (default 200) one after
the other, each TLS-verified on a new connection as urllib makes them, and prints the percentiles.
The TrainJob is deleted at the end."""
import base64
import datetime
import json
import ssl
import subprocess
import sys
import time
import urllib.request

JOB = "bench-status-server"


def kubectl(*args, stdin=None):
    return subprocess.run(["kubectl", *args], input=stdin, check=True, capture_output=True, text=True).stdout


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    kubectl("apply", "-f", "-", stdin=json.dumps({
        "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": JOB},
        "spec": {"runtimeRef": {"name": "torch-distributed"},
                 "trainer": {"numNodes": 1, "image": "python:3.11", "command": ["sleep", "120"]}}}))
    try:
        url = ""
        for _ in range(100):
            env = kubectl("get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=" + JOB, "-o",
                          "jsonpath={.items[0].spec.containers[0].env[?(@.name=='KUBEFLOW_TRAINER_SERVER_URL')].value}")
            if env:
                url = env
                break
            time.sleep(0.2)
        ca = kubectl("get", "configmap", JOB + "-tls-config", "-o", "jsonpath={.data.ca\\.crt}")
        config = json.loads(kubectl("config", "view", "--raw", "-o", "json"))
        cluster = config["clusters"][0]["cluster"]
        admin = config["users"][0]["user"]["token"]
        server_ca = base64.b64decode(cluster["certificate-authority-data"]).decode()
        audience = url.split("/apis/", 1)[1]
        request = urllib.request.Request(
            cluster["server"] + "/api/v1/namespaces/default/serviceaccounts/default/token",
            data=json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                             "spec": {"audiences": [audience], "expirationSeconds": 3600}}).encode(),
            method="POST", headers={"Authorization": "Bearer " + admin, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, context=ssl.create_default_context(cadata=server_ca)) as answer:
            token = json.load(answer)["status"]["token"]
        context = ssl.create_default_context(cadata=ca)
        took = []
        for i in range(n):
            body = json.dumps({"trainerStatus": {
                "lastUpdatedTime": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                "progressPercentage": i * 100 // n, "estimatedRemainingSeconds": n - i,
                "metrics": [{"name": "loss", "value": str(1.0 / (i + 1))}]}}).encode()
            post = urllib.request.Request(url, data=body, method="POST",
                                          headers={"Authorization": "Bearer " + token})
            start = time.perf_counter()
            with urllib.request.urlopen(post, context=context, timeout=5) as answer:
                answer.read()
            took.append((time.perf_counter() - start) * 1000)
        took.sort()
        pick = lambda q: took[min(len(took) - 1, int(q * len(took)))]
        print(f"{n} updates: p50 {pick(0.5):.1f} ms, p90 {pick(0.9):.1f} ms, p99 {pick(0.99):.1f} ms, "
              f"max {took[-1]:.1f} ms")
    finally:
        kubectl("delete", "trainjob", JOB, "--wait=false")


if __name__ == "__main__":
    main()
