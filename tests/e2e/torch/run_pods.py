"""Runs one local process per replica pod of a PyTorchJob, each with exactly the env that
`kubectl-pytorch env FILE --style S -o json` computes for that pod.

Usage: run_pods.py KPT_BIN JOB_FILE STYLE TIMEOUT_SECONDS SCRIPT [SCRIPT_ARGS...]
SCRIPT_ARGS may use {rank} (the pod's position, rank 0 first) and {world} (the number of pods).

Each process starts from an empty environment (`env -i`) plus PATH and the pod's env. The pods'
Service names resolve to loopback through nss_wrapper (LD_PRELOAD=libnss_wrapper.so with
NSS_WRAPPER_HOSTS listing every name for both 127.0.0.1 and ::1: torch 1.13's c10d store asks for
IPv6 first and retries forever on a name with only an IPv4 entry). No /etc/hosts change, no privileges.
Prints every process's output prefixed by its pod name; exits 0 only when all processes exit 0,
124 when the time bound is hit (all processes are then killed).
"""
import json
import os
import subprocess
import sys
import time

NSS_WRAPPER = "/usr/lib/x86_64-linux-gnu/libnss_wrapper.so"


def main() -> int:
    kpt, job_file, style, timeout, script = sys.argv[1:6]
    script_args = sys.argv[6:]
    plan = json.loads(subprocess.run([kpt, "env", job_file, "--style", style, "-o", "json"], check=True,
                                     capture_output=True, text=True, timeout=10).stdout)
    pods = plan["pods"]
    workdir = os.getcwd()  # the calling test's own temporary directory
    hosts = os.path.join(workdir, "hosts")
    with open(hosts, "w", encoding="utf-8") as f:
        for pod in pods:
            f.write(f"127.0.0.1 {pod['service']}\n::1 {pod['service']}\n")
    procs = []
    for position, pod in enumerate(pods):
        env = {"PATH": "/usr/bin:/bin", "LD_PRELOAD": NSS_WRAPPER, "NSS_WRAPPER_HOSTS": hosts}
        for var in pod["env"]:  # pod-spec order: a later entry of the same name wins, as in Kubernetes
            env[var["name"]] = var["value"]
        args = [a.format(rank=position, world=len(pods)) for a in script_args]
        log = open(os.path.join(workdir, pod["name"] + ".log"), "w+", encoding="utf-8")
        procs.append((pod["name"], log, subprocess.Popen(["/usr/bin/python3", script, *args], env=env, stdout=log,
                                                         stderr=subprocess.STDOUT, cwd=workdir)))
    deadline = time.monotonic() + float(timeout)
    timed_out = False
    for _, _, proc in procs:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
            break
    if timed_out:
        for _, _, proc in procs:
            proc.kill()
            proc.wait()
    ok = not timed_out
    for name, log, proc in procs:
        log.seek(0)
        for line in log.read().splitlines():
            print(f"{name}: {line}")
        print(f"{name}: exit {proc.returncode}")
        ok = ok and proc.returncode == 0
        log.close()
    if timed_out:
        print(f"timed out after {timeout} s")
        return 124
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
