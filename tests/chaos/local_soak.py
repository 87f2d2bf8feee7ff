"""A bounded soak of the whole local cluster (`kubectl-pytorch local up`: API server, controller and node in
one `local serve` process), loopback only. For SECONDS, at the same time:

- the real kubectl creates, labels, lists and deletes ConfigMaps, and watches them (`get -w`), killed and
  restarted every few seconds;
- python3-kubernetes does the same with its own names, and two watchers follow every ConfigMap, their
  streams cut by the server (`timeoutSeconds`) and by the client (the connection closed after a few events),
  each time resumed from the last resourceVersion (a relist on 410);
- PyTorchJobs run one after another through the embedded controller and node, each deleted when it succeeds.

The server's RSS, open file descriptors and threads are sampled every second. Its watch history (bounded,
but the largest thing it holds: 10,000 changes with their objects by default) is cut to 1,000 changes
(`--watch-history`), so that it fills during the warm-up and what follows measures everything else. At the
end the soak checks: every job succeeded and its pods went with it; each watcher's picture (names, resourceVersions, data) equals
a final list and what the writers left, with resourceVersions strictly increasing; RSS, fds and threads
after warm-up are flat; and the store, after `local down` and `local up`, still holds the same ConfigMaps.

    local_soak.py KPT_BIN WORK_DIR [--seconds N] [--seed S]

Prints a summary line and, on failure, one line per problem; exits 1 on failure.
"""
import argparse
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

from kubernetes import client, config, watch

NS = "default"
SOAK_LABEL = "soak.kubectl-pytorch.dev/writer"
LIVE = 20  # each writer keeps at most this many of its ConfigMaps


class Sampler(threading.Thread):
    """RSS (KiB), open fds and threads of one process, once a second."""

    def __init__(self, pid, stop):
        super().__init__(daemon=True)
        self.pid, self.stop, self.samples = pid, stop, []

    def sample(self):
        fields = {}
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields[key] = value.split()
        fds = len(os.listdir(f"/proc/{self.pid}/fd"))
        return time.monotonic(), int(fields["VmRSS"][0]), fds, int(fields["Threads"][0])

    def run(self):
        while not self.stop.wait(1.0):
            try:
                self.samples.append(self.sample())
            except OSError:
                return


class Writer(threading.Thread):
    """Creates, relabels, lists and deletes ConfigMaps; `live` is what it left (name -> data)."""

    def __init__(self, name, stop, problems, step):
        super().__init__(daemon=True)
        self.prefix, self.stop, self.problems, self.step = f"soak-{name}-", stop, problems, step
        self.live, self.operations = {}, 0

    def run(self):
        i = 0
        while not self.stop.is_set():
            name = f"{self.prefix}{i}"
            try:
                self.step(self, i, name)
            except Exception as e:  # noqa: BLE001 - every failure is a finding, named
                self.problems.append(f"{self.prefix}: step {i}: {type(e).__name__}: {str(e)[:300]}")
                return
            i += 1


def kubectl(kubeconfig, *argv, check=True):
    r = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, *argv], capture_output=True, text=True,
                       timeout=60)
    if check and r.returncode != 0:
        raise RuntimeError(f"kubectl {' '.join(argv)}: rc {r.returncode}: {r.stderr.strip()[:300]}")
    return r.stdout


def kubectl_step(kubeconfig):
    def step(w, i, name):
        kubectl(kubeconfig, "create", "configmap", name, f"--from-literal=i={i}")
        kubectl(kubeconfig, "label", "configmap", name, f"{SOAK_LABEL}=kubectl")
        w.live[name] = {"i": str(i)}
        if i % 3 == 0:
            kubectl(kubeconfig, "patch", "configmap", name, "--type=merge", "-p", '{"data":{"patched":"yes"}}')
            w.live[name]["patched"] = "yes"
        if len(w.live) > LIVE:
            old = min(w.live, key=lambda n: int(n.rsplit("-", 1)[1]))
            kubectl(kubeconfig, "delete", "configmap", old, "--wait=false")
            del w.live[old]
        if i % 5 == 0:
            listed = set(kubectl(kubeconfig, "get", "configmaps", "-l", f"{SOAK_LABEL}=kubectl", "-o",
                                 "name").split())
            want = {f"configmap/{n}" for n in w.live}
            if listed != want:
                w.problems.append(f"kubectl list at step {i}: {sorted(listed ^ want)[:5]} differ")
        w.operations += 4
    return step


def python_step(core):
    def step(w, i, name):
        body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels={SOAK_LABEL: "python"}),
                                  data={"i": str(i)})
        core.create_namespaced_config_map(NS, body)
        w.live[name] = {"i": str(i)}
        if i % 2 == 0:
            core.patch_namespaced_config_map(name, NS, {"data": {"i": str(i), "round": "2"}})
            w.live[name]["round"] = "2"
        if len(w.live) > LIVE:
            old = min(w.live, key=lambda n: int(n.rsplit("-", 1)[1]))
            core.delete_namespaced_config_map(old, NS)
            del w.live[old]
        if i % 5 == 0:
            listed = {c.metadata.name for c in
                      core.list_namespaced_config_map(NS, label_selector=f"{SOAK_LABEL}=python").items}
            if listed != set(w.live):
                w.problems.append(f"python list at step {i}: {sorted(listed ^ set(w.live))[:5]} differ")
        w.operations += 4
    return step


class Watcher(threading.Thread):
    """Follows every ConfigMap through cut streams; `state` is its picture (name -> (rv, data))."""

    def __init__(self, index, core, rng, stop, problems):
        super().__init__(daemon=True)
        self.index, self.core, self.rng, self.stop, self.problems = index, core, rng, stop, problems
        self.state, self.version, self.events, self.cuts, self.relists = {}, None, 0, 0, 0
        self.last_rv = 0
        self.lock = threading.Lock()

    def relist(self):
        listed = self.core.list_namespaced_config_map(NS)
        with self.lock:
            self.state = {c.metadata.name: (c.metadata.resource_version, c.data or {}) for c in listed.items}
            self.version = listed.metadata.resource_version
            self.last_rv = int(self.version)
        self.relists += 1

    def apply(self, kind, obj):
        meta = obj["metadata"]
        rv = int(meta["resourceVersion"])
        if kind == "BOOKMARK":
            self.version = meta["resourceVersion"]
            return
        if rv <= self.last_rv:
            self.problems.append(f"watcher {self.index}: {kind} {meta['name']} at resourceVersion {rv}, "
                                 f"not after {self.last_rv}")
        self.last_rv = max(self.last_rv, rv)
        self.version = meta["resourceVersion"]
        self.events += 1
        with self.lock:
            if kind == "DELETED":
                self.state.pop(meta["name"], None)
            else:
                self.state[meta["name"]] = (meta["resourceVersion"], obj.get("data") or {})

    def follow(self):
        w = watch.Watch()
        budget = self.rng.randint(1, 40)  # events before the client cuts the stream itself
        for ev in w.stream(self.core.list_namespaced_config_map, NS, resource_version=self.version,
                           timeout_seconds=self.rng.randint(1, 4), allow_watch_bookmarks=True):
            self.apply(ev["type"], ev["raw_object"])
            budget -= 1
            if budget == 0 or self.stop.is_set():
                w.stop()
                self.cuts += 1
                return False
        self.cuts += 1
        return True

    def run(self):
        self.relist()
        while not self.stop.is_set():
            self.step()

    def step(self):
        """One stream; True when it ended as the server ends streams (timeoutSeconds)."""
        try:
            return self.follow()
        except client.ApiException as e:
            if e.status == 410:
                self.relist()
            else:
                self.problems.append(f"watcher {self.index}: {e.status} {e.reason}")
                time.sleep(0.5)
        except Exception:  # noqa: BLE001 - a cut connection: resume from the last version
            time.sleep(0.05)
        return False


def kubectl_watches(kubeconfig, stop, counts):
    """`kubectl get -w`, killed after 1-3 s and started again: cuts the server sees from a real client."""
    rng = random.Random(7)
    while not stop.is_set():
        p = subprocess.Popen(["kubectl", "--kubeconfig", kubeconfig, "get", "configmaps", "-w",
                              "--output-watch-events", "-o", "name"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
        timer = threading.Timer(rng.uniform(1, 3), p.kill)
        timer.start()
        counts["lines"] += sum(1 for _ in p.stdout)
        p.wait()
        timer.cancel()
        counts["restarts"] += 1


JOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {name}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: example.org/soak:1
            command: ["python3", "-c", "import os; assert os.environ['RANK'] == '0'"]
"""


def run_jobs(kubeconfig, custom, core, stop, problems, done):
    n = 0
    while not stop.is_set():
        name = f"soak-job-{n}"
        subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "apply", "-f", "-"], input=JOB.format(name=name),
                       text=True, check=True, capture_output=True)
        deadline = time.monotonic() + 120
        state = None
        while time.monotonic() < deadline and state is None:
            job = custom.get_namespaced_custom_object("kubeflow.org", "v1", NS, "pytorchjobs", name)
            for c in job.get("status", {}).get("conditions") or []:
                if c["type"] in ("Succeeded", "Failed") and c["status"] == "True":
                    state = c["type"]
            time.sleep(0.2)
        if state != "Succeeded":
            problems.append(f"{name}: ended {state or 'not at all in 120 s'}")
            return
        custom.delete_namespaced_custom_object("kubeflow.org", "v1", NS, "pytorchjobs", name)
        deadline = time.monotonic() + 60
        while core.list_namespaced_pod(NS, label_selector=f"training.kubeflow.org/job-name={name}").items:
            if time.monotonic() > deadline:
                problems.append(f"{name}: pods still there 60 s after the job was deleted")
                return
            time.sleep(0.2)
        done.append(name)
        n += 1


def flat(samples, warmup_until, problems):
    """After warm-up: the last quarter's median against the first quarter's highest value."""
    steady = [s for s in samples if s[0] >= warmup_until]
    if len(steady) < 8:
        problems.append(f"only {len(steady)} samples after warm-up: run longer")
        return ""
    q = max(2, len(steady) // 4)
    first, last = steady[:q], steady[-q:]
    report = []
    for index, what, slack in ((1, "RSS KiB", lambda b: b * 0.15 + 8192), (2, "fds", lambda b: 16),
                               (3, "threads", lambda b: 8)):
        base = max(s[index] for s in first)
        end = statistics.median(s[index] for s in last)
        report.append(f"{what} {base}->{end:g}")
        if end > base + slack(base):
            problems.append(f"{what} grew from {base} (after warm-up) to {end:g} (last quarter's median)")
    return ", ".join(report)


def local(binary, env, *argv):
    subprocess.run([binary, "local", *argv], check=True, env=env, stdout=subprocess.DEVNULL)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("work")
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--watch-history", type=int, default=1000,
                   help="the server's --watch-history: bounded, but the largest thing it holds")
    p.add_argument("--seed", type=int, default=int(os.environ.get("KPT_SOAK_SEED", "1")))
    args = p.parse_args()
    rng = random.Random(args.seed)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    kubeconfig = os.path.join(args.work, "kubeconfig.yaml")
    state = os.path.join(args.work, "state")
    env = dict(os.environ, HOME=args.work)
    up = ["up", "--state-dir", state, "--kubeconfig-out", kubeconfig, "--watch-history", str(args.watch_history)]
    local(args.binary, env, *up)
    problems = []
    stop = threading.Event()
    try:
        with open(os.path.join(state, "apiserver.pid")) as f:
            pid = int(f.read().strip())
        config.load_kube_config(config_file=kubeconfig)
        core, custom = client.CoreV1Api(), client.CustomObjectsApi()
        sampler = Sampler(pid, stop)
        writers = [Writer("kubectl", stop, problems, kubectl_step(kubeconfig)),
                   Writer("python", stop, problems, python_step(core))]
        watchers = [Watcher(i, core, random.Random(rng.random()), stop, problems) for i in range(2)]
        jobs_done, kubectl_watch = [], {"lines": 0, "restarts": 0}
        threads = [sampler, *writers, *watchers,
                   threading.Thread(target=run_jobs, args=(kubeconfig, custom, core, stop, problems, jobs_done),
                                    daemon=True),
                   threading.Thread(target=kubectl_watches, args=(kubeconfig, stop, kubectl_watch), daemon=True)]
        started = time.monotonic()
        for t in threads:
            t.start()
        stop.wait(args.seconds)
        stop.set()
        for t in threads:
            t.join(timeout=130)
            if t.is_alive():
                problems.append(f"{t.name} did not stop")

        # Nothing lost: each watcher catches up with a final list and must agree with it and the writers.
        final = core.list_namespaced_config_map(NS)
        final_state = {c.metadata.name: (c.metadata.resource_version, c.data or {}) for c in final.items}
        for w in watchers:
            deadline = time.monotonic() + 30
            w.stop = threading.Event()
            # The writers have stopped: a stream that ends (timeoutSeconds) with no event means caught up.
            while time.monotonic() < deadline:
                before = w.events
                if w.step() and w.events == before:
                    break
            if w.state != final_state:
                differ = sorted(n for n in set(w.state) | set(final_state) if w.state.get(n) != final_state.get(n))[:5]
                problems.append(f"watcher {w.index}'s picture differs from the final list at {differ}")
        left = {n: d for w in writers for n, d in w.live.items()}
        listed = {n: d for n, (_, d) in final_state.items() if n.startswith("soak-")}
        if listed != left:
            differ = sorted(n for n in set(left) | set(listed) if left.get(n) != listed.get(n))[:5]
            problems.append(f"the store and the writers disagree at {differ}")
        if not jobs_done:
            problems.append("no job ran to the end")
        if kubectl_watch["lines"] == 0:
            problems.append("kubectl get -w printed nothing")
        resources = flat(sampler.samples, started + min(15.0, args.seconds / 4), problems)
        with open(os.path.join(args.work, "samples.csv"), "w") as f:
            f.write("seconds,rss_kib,fds,threads\n")
            for t, rss, fds, threads_ in sampler.samples:
                f.write(f"{t - started:.1f},{rss},{fds},{threads_}\n")
        stored = {"events": len(core.list_event_for_all_namespaces().items),
                  "pods": len(core.list_pod_for_all_namespaces().items),
                  "configmaps": len(final.items)}

        # Durable: a restarted cluster holds the same objects.
        local(args.binary, env, "down", "--force", "--state-dir", state)
        local(args.binary, env, *up)
        config.load_kube_config(config_file=kubeconfig)
        again = client.CoreV1Api().list_namespaced_config_map(NS)
        again_state = {c.metadata.name: (c.metadata.resource_version, c.data or {}) for c in again.items}
        if again_state != final_state:
            differ = sorted(n for n in set(again_state) | set(final_state)
                            if again_state.get(n) != final_state.get(n))[:5]
            problems.append(f"after local down and up the store differs at {differ}")

        operations = sum(w.operations for w in writers)
        print(f"seed {args.seed}: {args.seconds:g} s, {operations} writes and lists, {len(jobs_done)} jobs, "
              f"watch events {[w.events for w in watchers]} over {[w.cuts for w in watchers]} cut streams "
              f"({[w.relists - 1 for w in watchers]} relists), kubectl get -w restarted "
              f"{kubectl_watch['restarts']} times; {resources}; stored at the end {stored}; "
              f"{len(problems)} problems")
    finally:
        stop.set()
        subprocess.run([args.binary, "local", "down", "--force", "--state-dir", state], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for p_ in problems[:50]:
        print(p_)
    return 1 if problems else 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    sys.exit(main())
