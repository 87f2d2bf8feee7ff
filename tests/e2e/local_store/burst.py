"""Creates ConfigMaps as fast as the API server takes them, with Debian's python3-kubernetes,
and appends each name to ACKED only once the server has acknowledged it (201). Runs until the
server goes away (the test kills it) or the time limit passes."""
import sys
import time

from kubernetes import client, config

kubeconfig, acked_path, prefix, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
config.load_kube_config(config_file=kubeconfig)
api = client.CoreV1Api()
deadline = time.monotonic() + seconds
with open(acked_path, "a", encoding="utf-8") as acked:
    i = 0
    while time.monotonic() < deadline:
        name = f"{prefix}-{i}"
        body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name), data={"i": str(i)})
        try:
            api.create_namespaced_config_map("default", body, _request_timeout=5)
        except Exception:  # the server was killed: what was acknowledged is in the file
            break
        acked.write(name + "\n")
        acked.flush()
        i += 1
