"""Chaos for the controller: `kubectl-pytorch controller` is killed with SIGKILL at random points, and
restarted each time, while JOBS PyTorchJobs and TrainJobs are created, run and (some) deleted on the
embedded API server. This script is the cluster's kubelet: it runs each pod through Running to the exit code its
template's annotation names, and finishes pods the controller deletes; and Volcano: it admits each PodGroup
(phase Inqueue) a moment after the controller creates it, which is when the controller makes the gang's pods.
At the end, with the controller left alone, every job must reach its right end state with exactly its Pods
and Services, each gang job's PodGroup made once and deleted at its end, nothing orphaned, no pod or service
created twice, every re-creation counted once, and the controller's writes per job bounded.

    controller_chaos.py KPT_BIN WORK_DIR [--jobs N] [--seed S] [--kills K]

Seeded (KPT_CHAOS_SEED or --seed, default 1): the workload, the kill points and the kubelet's timings
replay. Prints one summary line and, on failure, one line per problem; exits 1 on failure.
"""
import argparse
import collections
import heapq
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time

import yaml
from kubernetes import client, config, watch

NS = "default"
PYTORCHJOBS = ("kubeflow.org", "v1", "pytorchjobs")
TRAINJOBS = ("trainer.kubeflow.org", "v1alpha1", "trainjobs")
PODGROUPS = ("scheduling.volcano.sh", "v1beta1", "podgroups")
PODGROUP_CRD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "controller",
                            "podgroup-crd-volcano.yaml")
EXIT_ANNOTATION = "chaos.kubectl-pytorch.dev/exit-codes"
JOB_LABEL = "training.kubeflow.org/job-name"
RECREATIONS = "kubectl-pytorch.dev/recreations"
OWNER_KINDS = ("PyTorchJob", "TrainJob")
TRAINJOB_NODES = 2

# name -> (replicas {type: count}, restartPolicy, exit codes per replica type and incarnation, end state)
KINDS = {
    "master-worker": ({"Master": 1, "Worker": 1}, "Never", {"Master": "0", "Worker": "0"}, "Succeeded"),
    "worker-only": ({"Worker": 2}, "Never", {"Worker": "0"}, "Succeeded"),
    "retried": ({"Worker": 2}, "ExitCode", {"Worker": "137,0"}, "Succeeded"),
    "failing": ({"Master": 1, "Worker": 1}, "Never", {"Master": "1", "Worker": "0"}, "Failed"),
    # runPolicy.schedulingPolicy: a Volcano PodGroup owned by the job, its pods made once Volcano admits it.
    "gang": ({"Master": 1, "Worker": 1}, "Never", {"Master": "0", "Worker": "0"}, "Succeeded"),
    # A TrainJob on torch-distributed: its pods (named <job>-node-0-<i>-<random>) belong to it directly.
    "trainjob": ({"node": TRAINJOB_NODES}, None, {}, "Complete"),
}
WEIGHTS = [("master-worker", 25), ("worker-only", 15), ("retried", 15), ("failing", 10), ("gang", 10),
           ("trainjob", 25)]


def resource_of(kind):
    return TRAINJOBS if kind == "trainjob" else PYTORCHJOBS


def job_manifest(name, kind):
    if kind == "trainjob":
        return {"apiVersion": "/".join(TRAINJOBS[:2]), "kind": "TrainJob",
                "metadata": {"name": name, "labels": {"chaos-kind": kind}},
                "spec": {"runtimeRef": {"name": "torch-distributed"},
                         "trainer": {"numNodes": TRAINJOB_NODES, "command": ["torchrun", "train.py"]}}}
    replicas, policy, exits, _ = KINDS[kind]
    specs = {}
    for rtype, count in replicas.items():
        specs[rtype] = {
            "replicas": count,
            "restartPolicy": policy,
            "template": {
                "metadata": {"annotations": {EXIT_ANNOTATION: exits[rtype]}},
                "spec": {"containers": [{"name": "pytorch", "image": "example.org/chaos:1",
                                         "command": ["python3", "-c", "pass"]}]},
            },
        }
    run_policy = {"backoffLimit": 3}
    if kind == "gang":
        run_policy["schedulingPolicy"] = {"minAvailable": sum(replicas.values())}
    return {"apiVersion": "/".join(PYTORCHJOBS[:2]), "kind": "PyTorchJob",
            "metadata": {"name": name, "labels": {"chaos-kind": kind}},
            "spec": {"runPolicy": run_policy, "pytorchReplicaSpecs": specs}}


def expected_pods(name, kind):
    """Pod names, or for a TrainJob the names without their random suffix."""
    if kind == "trainjob":
        return {f"{name}-node-0-{i}" for i in range(TRAINJOB_NODES)}
    replicas = KINDS[kind][0]
    return {f"{name}-{rtype.lower()}-{i}" for rtype, n in replicas.items() for i in range(n)}


def expected_services(name, kind):
    return {name} if kind == "trainjob" else expected_pods(name, kind)


def pod_key(pod_name, kind):
    """A TrainJob pod's name without the random suffix its Job-style name ends in."""
    return pod_name.rsplit("-", 1)[0] if kind == "trainjob" else pod_name


Owner = collections.namedtuple("Owner", "kind name uid")


def owner_job(meta):
    """The owning PyTorchJob or TrainJob of a typed object's metadata or a custom object's dict."""
    refs = meta.get("ownerReferences") if isinstance(meta, dict) else meta.owner_references
    for o in refs or []:
        o = Owner(o["kind"], o["name"], o["uid"]) if isinstance(o, dict) else Owner(o.kind, o.name, o.uid)
        if o.kind in OWNER_KINDS:
            return o
    return None


class Kubelet:
    """Runs pods: Pending -> Running -> Succeeded/Failed with the exit code of the pod's incarnation,
    and removes pods the controller deletes (no node would, with the API server alone)."""

    def __init__(self, core, rng):
        self.core, self.rng = core, rng
        self.queue, self.lock = [], threading.Lock()
        self.incarnations = collections.Counter()  # pod name -> pods of that name started
        self.seen_uids = set()
        self.stop = threading.Event()
        self.errors = []

    def at(self, delay, action):
        with self.lock:
            heapq.heappush(self.queue, (time.monotonic() + delay, id(action), action))

    def on_pod(self, kind, pod):
        meta = pod.metadata
        if kind == "DELETED":
            return
        if meta.deletion_timestamp:
            self.at(0, lambda: self.delete(meta.name, meta.uid))
            return
        if meta.uid in self.seen_uids:
            return
        self.seen_uids.add(meta.uid)
        codes = (meta.annotations or {}).get(EXIT_ANNOTATION, "0").split(",")
        incarnation = self.incarnations[meta.name]
        self.incarnations[meta.name] += 1
        code = int(codes[min(incarnation, len(codes) - 1)])
        run_after = self.rng.uniform(0.05, 0.4)
        self.at(run_after, lambda: self.set_phase(meta.name, meta.uid, "Running", None))
        self.at(run_after + self.rng.uniform(0.1, 1.2), lambda: self.set_phase(meta.name, meta.uid, None, code))

    def set_phase(self, name, uid, phase, code):
        try:
            pod = self.core.read_namespaced_pod(name, NS)
        except client.ApiException as e:
            if e.status != 404:
                self.errors.append(f"kubelet: read {name}: {e.status}")
            return
        if pod.metadata.uid != uid or pod.metadata.deletion_timestamp:
            return
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        if code is None:
            state = {"running": {"startedAt": now}}
        else:
            phase = "Succeeded" if code == 0 else "Failed"
            state = {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error",
                                    "startedAt": now, "finishedAt": now}}
        status = {"phase": phase, "containerStatuses": [
            {"name": "pytorch", "ready": code is None, "restartCount": 0, "image": "example.org/chaos:1",
             "imageID": "", "state": state}]}
        try:
            self.core.patch_namespaced_pod_status(name, NS, {"status": status})
        except client.ApiException as e:
            if e.status not in (404, 409):
                self.errors.append(f"kubelet: status of {name}: {e.status}")

    def delete(self, name, uid):
        try:
            self.core.delete_namespaced_pod(name, NS, grace_period_seconds=0,
                                            body=client.V1DeleteOptions(preconditions={"uid": uid}))
        except client.ApiException as e:
            if e.status not in (404, 409):
                self.errors.append(f"kubelet: delete {name}: {e.status}")

    def run(self):
        while not self.stop.is_set():
            with self.lock:
                due = self.queue and self.queue[0][0] <= time.monotonic()
                action = heapq.heappop(self.queue)[2] if due else None
            if action:
                action()
            else:
                time.sleep(0.01)


class Volcano:
    """Admits each new PodGroup after a short while, as the Volcano scheduler moves it to Inqueue."""

    def __init__(self, custom, kubelet, rng):
        self.custom, self.kubelet, self.rng = custom, kubelet, rng
        self.seen_uids = set()

    def on_pod_group(self, kind, obj):
        meta = obj["metadata"]
        if kind != "ADDED" or meta["uid"] in self.seen_uids:
            return
        self.seen_uids.add(meta["uid"])
        name = meta["name"]
        self.kubelet.at(self.rng.uniform(0.05, 0.5), lambda: self.admit(name))

    def admit(self, name):
        try:
            self.custom.patch_namespaced_custom_object_status(
                PODGROUPS[0], PODGROUPS[1], NS, PODGROUPS[2], name, {"status": {"phase": "Inqueue"}})
        except client.ApiException as e:
            if e.status != 404:
                self.kubelet.errors.append(f"volcano: admit {name}: {e.status}")


class Observer:
    """Counts what reaches the API server, from watches: creates of each Pod and Service name, and the
    controller's writes per job (status changes, pod and service creates and deletes, Events)."""

    def __init__(self):
        self.added = collections.Counter()  # (resource, name or pod key, owning job) -> ADDED events
        self.writes = collections.Counter()  # job -> writes the controller made for it
        self.by_kind = collections.defaultdict(collections.Counter)  # job -> {what: writes}
        self.lock = threading.Lock()

    def record(self, resource, kind, obj):
        meta = obj["metadata"] if isinstance(obj, dict) else obj.metadata
        name = meta["name"] if isinstance(meta, dict) else meta.name
        with self.lock:
            if resource in ("pytorchjobs", "trainjobs"):
                if kind == "MODIFIED":
                    self.writes[name] += 1
                    self.by_kind[name]["status"] += 1
                return
            if resource == "events":
                involved = obj.involved_object
                if involved and involved.kind in OWNER_KINDS and kind == "ADDED":
                    self.writes[involved.name] += 1
                    self.by_kind[involved.name]["event " + (obj.reason or "")] += 1
                return
            owner = owner_job(meta)
            if kind == "ADDED":
                key = pod_key(name, "trainjob" if owner and owner.kind == "TrainJob" else "")
                self.added[(resource, key if resource == "pods" else name, owner.name if owner else "")] += 1
                if owner:
                    self.writes[owner.name] += 1
                    self.by_kind[owner.name][resource] += 1


def watch_forever(stop, list_fn, on_event, errors, **kwargs):
    version = None
    while not stop.is_set():
        w = watch.Watch()
        try:
            for ev in w.stream(list_fn, resource_version=version, timeout_seconds=5, **kwargs):
                obj = ev["object"]
                meta = obj["metadata"] if isinstance(obj, dict) else obj.metadata
                version = meta["resourceVersion"] if isinstance(meta, dict) else meta.resource_version
                on_event(ev["type"], obj)
                if stop.is_set():
                    break
        except client.ApiException as e:
            if e.status == 410:
                version = None  # too old: a relist, which replays ADDED for live objects
                errors.append("a watch expired (410): counts may repeat")
            else:
                time.sleep(0.2)
        except Exception:  # the stream was cut: resume from the last version
            time.sleep(0.1)


class Controller:
    def __init__(self, binary, kubeconfig, log_path):
        self.argv = [binary, "controller", "--kubeconfig", kubeconfig, "--metrics-addr", "127.0.0.1:0",
                     "--resync", "30s"]
        self.log = open(log_path, "ab")
        self.proc = None
        self.starts = 0

    def start(self):
        self.proc = subprocess.Popen(self.argv, stdout=self.log, stderr=subprocess.STDOUT)
        self.starts += 1

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None


def condition(job):
    for c in job.get("status", {}).get("conditions", []) or []:
        if c.get("type") in ("Succeeded", "Failed", "Complete") and c.get("status") == "True":
            return c["type"]
    return None


def delete_job(custom, name, kind):
    r = resource_of(kind)
    custom.delete_namespaced_custom_object(r[0], r[1], NS, r[2], name)


def list_jobs(custom):
    items = []
    for r in (PYTORCHJOBS, TRAINJOBS):
        items += custom.list_namespaced_custom_object(r[0], r[1], NS, r[2])["items"]
    return items


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("work")
    p.add_argument("--jobs", type=int, default=200)
    p.add_argument("--kills", type=int, default=20)
    p.add_argument("--seed", type=int, default=int(os.environ.get("KPT_CHAOS_SEED", "1")))
    p.add_argument("--settle", type=float, default=120.0, help="seconds allowed to converge after the last kill")
    args = p.parse_args()
    rng = random.Random(args.seed)
    shutil.rmtree(args.work, ignore_errors=True)  # a run starts from an empty store
    os.makedirs(args.work)
    kubeconfig = os.path.join(args.work, "kubeconfig.yaml")
    state = os.path.join(args.work, "state")
    env = dict(os.environ, HOME=args.work)
    subprocess.run([args.binary, "local", "up", "--server-only", "--state-dir", state, "--kubeconfig-out",
                    kubeconfig], check=True, env=env, stdout=subprocess.DEVNULL)
    controller = Controller(args.binary, kubeconfig, os.path.join(args.work, "controller.log"))
    stop = threading.Event()
    problems = []
    try:
        config.load_kube_config(config_file=kubeconfig)
        core, custom = client.CoreV1Api(), client.CustomObjectsApi()
        ext = client.ApiextensionsV1Api()
        manifests = subprocess.run([args.binary, "controller", "manifests", "--trainer"], check=True,
                                   capture_output=True, text=True).stdout
        docs = [d for d in yaml.safe_load_all(manifests) if d]
        with open(PODGROUP_CRD) as f:
            docs.append(yaml.safe_load(f))  # the gang scheduler's CRD: gang jobs get a PodGroup
        for doc in docs:
            if doc["kind"] == "CustomResourceDefinition":
                ext.create_custom_resource_definition(doc)
        for resource in (PYTORCHJOBS, TRAINJOBS, PODGROUPS):  # a CRD is served once it is Established
            for _ in range(100):
                try:
                    custom.list_namespaced_custom_object(resource[0], resource[1], NS, resource[2])
                    break
                except client.ApiException:
                    time.sleep(0.1)
        for doc in docs:
            if doc["kind"] == "ClusterTrainingRuntime" and doc["metadata"]["name"] == "torch-distributed":
                custom.create_cluster_custom_object("trainer.kubeflow.org", "v1alpha1", "clustertrainingruntimes", doc)

        kubelet = Kubelet(core, random.Random(rng.random()))
        volcano = Volcano(custom, kubelet, random.Random(rng.random()))
        observer = Observer()
        watch_errors = []
        threads = [
            threading.Thread(target=kubelet.run, daemon=True),
            threading.Thread(target=watch_forever, daemon=True, args=(
                stop, core.list_namespaced_pod,
                lambda k, o: (kubelet.on_pod(k, o), observer.record("pods", k, o)), watch_errors), kwargs={"namespace": NS}),
            threading.Thread(target=watch_forever, daemon=True, args=(
                stop, core.list_namespaced_service, lambda k, o: observer.record("services", k, o), watch_errors),
                kwargs={"namespace": NS}),
            threading.Thread(target=watch_forever, daemon=True, args=(
                stop, core.list_namespaced_event, lambda k, o: observer.record("events", k, o), watch_errors),
                kwargs={"namespace": NS}),
            threading.Thread(target=watch_forever, daemon=True, args=(
                stop, core.list_namespaced_config_map, lambda k, o: observer.record("configmaps", k, o),
                watch_errors), kwargs={"namespace": NS}),
        ] + [
            threading.Thread(target=watch_forever, daemon=True, args=(
                stop, custom.list_namespaced_custom_object,
                lambda k, o, plural=r[2]: observer.record(plural, k, o), watch_errors),
                kwargs={"group": r[0], "version": r[1], "namespace": NS, "plural": r[2]})
            for r in (PYTORCHJOBS, TRAINJOBS)
        ] + [
            threading.Thread(target=watch_forever, daemon=True, args=(
                stop, custom.list_namespaced_custom_object,
                lambda k, o: (volcano.on_pod_group(k, o), observer.record("podgroups", k, o)), watch_errors),
                kwargs={"group": PODGROUPS[0], "version": PODGROUPS[1], "namespace": NS, "plural": PODGROUPS[2]})
        ]
        for t in threads:
            t.start()

        kinds = [k for k, w in WEIGHTS for _ in range(w)]
        jobs = {f"chaos-{i}": rng.choice(kinds) for i in range(args.jobs)}
        doomed = set(rng.sample(sorted(jobs), args.jobs // 10))
        controller.start()
        names = sorted(jobs, key=lambda n: int(n.split("-")[1]))
        kill_points = sorted(rng.sample(range(1, args.jobs + 1), min(args.kills, args.jobs)))
        deletes = []
        for i, name in enumerate(names, 1):
            r = resource_of(jobs[name])
            custom.create_namespaced_custom_object(r[0], r[1], NS, r[2], job_manifest(name, jobs[name]))
            if name in doomed:
                deletes.append((time.monotonic() + rng.uniform(0.0, 2.0), name))
            for when, victim in [d for d in deletes if d[0] <= time.monotonic()]:
                delete_job(custom, victim, jobs[victim])
                deletes.remove((when, victim))
            while kill_points and kill_points[0] == i:
                kill_points.pop(0)
                time.sleep(rng.uniform(0.0, 0.3))  # a kill in the middle of a burst of work
                controller.kill()
                if rng.random() < 0.3:
                    time.sleep(rng.uniform(0.1, 1.0))  # down for a while: work piles up
                controller.start()
            time.sleep(rng.uniform(0.0, 0.02))
        for _, victim in deletes:
            delete_job(custom, victim, jobs[victim])

        deadline = time.monotonic() + args.settle
        while time.monotonic() < deadline:
            listed = list_jobs(custom)
            done = all(condition(j) == KINDS[jobs[j["metadata"]["name"]]][3] for j in listed)
            gone = not any(j["metadata"]["name"] in doomed for j in listed)
            if done and gone and len(listed) == len(jobs) - len(doomed):
                break
            if not controller.alive():
                problems.append(f"the controller exited by itself (rc {controller.proc.returncode})")
                break
            time.sleep(0.5)
        time.sleep(2)  # the garbage collector and the last writes

        listed = {j["metadata"]["name"]: j for j in list_jobs(custom)}
        uids = {n: j["metadata"]["uid"] for n, j in listed.items()}
        pods = core.list_namespaced_pod(NS).items
        services = [x for x in core.list_namespaced_service(NS).items if x.metadata.name != "kubernetes"]
        configmaps = [x for x in core.list_namespaced_config_map(NS).items if owner_job(x.metadata)]
        pod_groups = custom.list_namespaced_custom_object(PODGROUPS[0], PODGROUPS[1], NS, PODGROUPS[2])["items"]
        never_made = collections.Counter()
        for name, kind in sorted(jobs.items()):
            if name in doomed:
                if name in listed:
                    problems.append(f"{name}: deleted, but still there")
                continue
            if name not in listed:
                problems.append(f"{name}: missing")
                continue
            got = condition(listed[name])
            recorded = int((listed[name]["metadata"].get("annotations") or {}).get(RECREATIONS, "0"))
            starts = {k: n for k, n in kubelet.incarnations.items() if pod_key(k, kind) in expected_pods(name, kind)}
            if got != KINDS[kind][3]:
                problems.append(f"{name} ({kind}): ended {got}, expected {KINDS[kind][3]}; pods started "
                                f"{dict(sorted(starts.items()))}, re-creations recorded {recorded}, conditions "
                                f"{[(c.get('type'), c.get('message')) for c in (listed[name].get('status') or {}).get('conditions') or []]}")
            # Every re-creation is counted once against backoffLimit, however often the controller died
            # between counting it and deleting the failed pod.
            if kind != "trainjob" and recorded != sum(starts.values()) - len(starts):
                problems.append(f"{name} ({kind}): {recorded} re-creations recorded, pods started "
                                f"{dict(sorted(starts.items()))}")
            want = expected_pods(name, kind)
            mine = [x for x in pods if (owner_job(x.metadata) or x.metadata).name == name]
            have_pods = {pod_key(x.metadata.name, kind) for x in mine}
            if len(have_pods) != len(mine):
                problems.append(f"{name}: two pods for one replica: {sorted(x.metadata.name for x in mine)}")
            have_services = {x.metadata.name for x in services if (owner_job(x.metadata) or x.metadata).name == name}
            if kind == "trainjob" and {x.metadata.name for x in configmaps if owner_job(x.metadata).name == name} != {
                    f"{name}-runtime-snapshot"}:
                problems.append(f"{name}: no runtime snapshot ConfigMap")
            # A gang job's PodGroup is made once, before its pods, and deleted when the job ends.
            if kind == "gang" and observer.added[("podgroups", name, name)] != 1:
                problems.append(f"{name}: PodGroup created {observer.added[('podgroups', name, name)]} times")
            if any(pg["metadata"]["name"] == name for pg in pod_groups):
                problems.append(f"{name} ({kind}, {got}): its PodGroup is still there")
            # A job whose master ends before a kill-interrupted reconcile made its worker is finished
            # (the operator's rule: the master decides), so that worker is never made; anything else
            # missing was made and lost.
            for resource, have, want in (("pods", have_pods, want), ("services", have_services,
                                                                       expected_services(name, kind))):
                extra = have - want
                lost = {n for n in want - have
                        if observer.added[(resource, n, name)] > 0 or "master" in n or kind == "trainjob"}
                if extra or lost:
                    problems.append(f"{name} ({kind}, {got}): {resource} {sorted(have)}, expected "
                                    f"{sorted(want)}; writes {dict(sorted(observer.by_kind[name].items()))}")
                unmade = len(want - have - lost)
                if unmade:
                    never_made[resource] += unmade
        for x in list(pods) + list(services) + list(configmaps):
            owner = owner_job(x.metadata)
            if not owner or uids.get(owner.name) != owner.uid:
                problems.append(f"{x.kind or type(x).__name__} {x.metadata.name}: orphaned")
        for pg in pod_groups:
            owner = owner_job(pg["metadata"])
            if not owner or uids.get(owner.name) != owner.uid:
                problems.append(f"PodGroup {pg['metadata']['name']}: orphaned")
        incarnations = kubelet.incarnations
        for (resource, key, job), n in sorted(observer.added.items()):
            if job in doomed:
                continue
            # A PyTorchJob pod is made again only after the kubelet failed it (retried); a TrainJob's
            # replica, a Service, a ConfigMap and a PodGroup once.
            allowed = incarnations[key] if resource == "pods" and jobs.get(job) != "trainjob" else 1
            if n > max(allowed, 1):
                problems.append(f"{resource} {key}: created {n} times, {allowed} expected")
        writes = [observer.writes[n] for n in listed]
        # Each pod incarnation costs the controller at most its create, its delete (a retry), a status
        # write for each of its two phase changes and their Events; a Service its create and Event; the
        # job its Created/Running/end conditions and Events. A restart may re-write what it had not yet
        # seen written, never more: two per controller start. A gang job adds its PodGroup's create and
        # delete and their Events. A write loop goes far past this.
        for name in listed:
            want = expected_pods(name, jobs[name])
            started = sum(n for k, n in incarnations.items() if pod_key(k, jobs[name]) in want)
            bound = 6 * started + 2 * len(expected_pods(name, jobs[name])) + 8 + 2 * controller.starts + (
                4 if jobs[name] == "gang" else 0)
            if observer.writes[name] > bound:
                problems.append(f"{name}: {observer.writes[name]} writes, bound {bound}: "
                                f"{dict(sorted(observer.by_kind[name].items()))}")
        problems += kubelet.errors + [e for e in watch_errors if "410" in e]
        print(f"seed {args.seed}: {len(jobs)} jobs ({len(doomed)} deleted), controller started "
              f"{controller.starts} times (SIGKILL {controller.starts - 1}), writes per job min "
              f"{min(writes) if writes else 0} median {sorted(writes)[len(writes) // 2] if writes else 0} "
              f"max {max(writes) if writes else 0}, {sum(1 for k in jobs.values() if k == 'gang')} gang jobs, "
              f"{never_made['pods']} pods and {never_made['services']} services "
              f"never needed (their job ended first), {len(problems)} problems")
    finally:
        stop.set()
        controller.kill()
        subprocess.run([args.binary, "local", "down", "--force", "--state-dir", state], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for p_ in problems[:50]:
        print(p_)
    if problems:  # kept for reading: the next run starts by clearing WORK
        kept = f"{args.work.rstrip('/')}-failed-seed{args.seed}-{int(time.time())}"
        try:
            shutil.copytree(args.work, kept, ignore=shutil.ignore_patterns("*.sock"), dirs_exist_ok=True)
            print(f"controller and API server logs kept in {kept}")
        except OSError as e:
            print(f"could not keep the logs: {e}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
