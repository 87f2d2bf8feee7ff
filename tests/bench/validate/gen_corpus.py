#!/usr/bin/env python3
"""Generates the `validate` benchmark corpus: realistic PyTorchJobs (Master + Workers, full pod
templates with resources, env, volumes, probes), a fifth of them broken with one known mistake.

Usage: gen_corpus.py OUT_DIR [--jobs N] [--seed S]

Writes OUT_DIR/corpus/*.yaml: clean jobs two to a file (multi-document YAML); each broken job
alone in a file named after its mistake. OUT_DIR/expected.json maps every file to "clean" or its
mistake kind, and counts files and jobs. Deterministic for a given seed. Python 3 standard library only.
"""

import argparse
import json
import os
import random
import sys

MISTAKES = [
    "unknown-field",            # a misspelled container field
    "wrong-type",               # containerPort: "http"
    "int32-overflow",           # replicas past 2^31-1
    "bad-quantity",             # memory: 16GB
    "duplicate-container-port", # two ports, same containerPort and protocol
    "duplicate-container-name", # two containers named the same
    "replica-type-chief",       # replica type Chief (TFJob's word)
    "no-pytorch-container",     # the main container is not named pytorch
    "bad-job-name",             # not a DNS-1035 label
    "bad-label-value",          # label value with a space
    "unknown-top-level-field",  # a field beside spec
]

IMAGES = ["registry.example.com/ml/trainer:{v}", "ghcr.io/acme/resnet-train:{v}", "nvcr.io/acme/bert:{v}"]
DATASETS = ["imagenet", "coco", "wikitext", "librispeech", "cifar100"]


def q(value):
    """A YAML double-quoted scalar."""
    return json.dumps(value)


def container(rng, name, gpus, port):
    image = rng.choice(IMAGES).format(v=f"{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}")
    cpu = rng.choice(["4", "8", "16", "3500m"])
    mem = rng.choice(["16Gi", "32Gi", "64Gi", "48G"])
    dataset = rng.choice(DATASETS)
    lines = [
        f"- name: {name}",
        f"  image: {image}",
        "  imagePullPolicy: IfNotPresent",
        '  command: ["torchrun"]',
        f'  args: ["--nproc-per-node={max(gpus, 1)}", "train.py", "--dataset={dataset}", '
        f'"--epochs={rng.randint(1, 90)}"]',
        "  workingDir: /workspace",
        "  env:",
        "  - name: PYTHONUNBUFFERED",
        '    value: "1"',
        "  - name: NCCL_DEBUG",
        "    value: INFO",
        "  - name: DATASET",
        f"    value: {dataset}",
        "  - name: POD_NAME",
        "    valueFrom:",
        "      fieldRef:",
        "        fieldPath: metadata.name",
        "  - name: WANDB_API_KEY",
        "    valueFrom:",
        "      secretKeyRef:",
        "        name: wandb",
        "        key: api-key",
        "        optional: true",
        "  ports:",
        f"  - containerPort: {port}",
        "    name: pytorchjob-port",
        "    protocol: TCP",
        "  - containerPort: 9090",
        "    name: metrics",
        "  resources:",
        "    requests:",
        f"      cpu: {q(cpu)}",
        f"      memory: {mem}",
        "    limits:",
        f"      cpu: {q(cpu)}",
        f"      memory: {mem}",
    ]
    if gpus:
        lines.append(f"      nvidia.com/gpu: {gpus}")
    lines += [
        "  volumeMounts:",
        "  - name: data",
        "    mountPath: /data",
        "    readOnly: true",
        "  - name: dshm",
        "    mountPath: /dev/shm",
        "  - name: checkpoints",
        "    mountPath: /checkpoints",
        "  livenessProbe:",
        "    exec:",
        '      command: ["cat", "/tmp/healthy"]',
        f"    initialDelaySeconds: {rng.randint(10, 120)}",
        "    periodSeconds: 30",
        "  readinessProbe:",
        "    tcpSocket:",
        f"      port: {port}",
        "    periodSeconds: 10",
        "  securityContext:",
        "    allowPrivilegeEscalation: false",
        "    capabilities:",
        '      drop: ["ALL"]',
    ]
    return lines


def pod_template(rng, role, gpus):
    port = 23456
    lines = [
        "metadata:",
        "  labels:",
        f"    team: {rng.choice(['vision', 'nlp', 'speech', 'research'])}",
        f"    role: {role.lower()}",
        "  annotations:",
        '    sidecar.istio.io/inject: "false"',
        "spec:",
        "  serviceAccountName: trainer",
        "  priorityClassName: batch-high",
        "  nodeSelector:",
        f"    node.kubernetes.io/instance-type: {rng.choice(['p4d.24xlarge', 'a2-highgpu-8g', 'g5.12xlarge'])}",
        "  tolerations:",
        "  - key: nvidia.com/gpu",
        "    operator: Exists",
        "    effect: NoSchedule",
        "  imagePullSecrets:",
        "  - name: registry-creds",
        "  initContainers:",
        "  - name: fetch-data",
        "    image: registry.example.com/tools/fetch:2.1.0",
        '    command: ["sh", "-c", "fetch --to /data"]',
        "    volumeMounts:",
        "    - name: data",
        "      mountPath: /data",
        "  containers:",
    ]
    lines += ["  " + line for line in container(rng, "pytorch", gpus, port)]
    lines += [
        "  volumes:",
        "  - name: data",
        "    persistentVolumeClaim:",
        f"      claimName: {rng.choice(DATASETS)}-pvc",
        "      readOnly: true",
        "  - name: dshm",
        "    emptyDir:",
        "      medium: Memory",
        "      sizeLimit: 8Gi",
        "  - name: checkpoints",
        "    nfs:",
        "      server: nfs.storage.svc",
        "      path: /exports/checkpoints",
    ]
    return lines


def job(rng, index):
    name = f"train-{rng.choice(DATASETS)}-{index:05d}"
    gpus = rng.choice([0, 1, 2, 4, 8])
    workers = rng.randint(1, 16)
    lines = [
        "apiVersion: kubeflow.org/v1",
        "kind: PyTorchJob",
        "metadata:",
        f"  name: {name}",
        "  namespace: ml",
        "  labels:",
        f"    app.kubernetes.io/name: {name}",
        f"    owner: {rng.choice(['alice', 'bob', 'carol', 'dave'])}",
        "spec:",
        "  runPolicy:",
        "    cleanPodPolicy: Running",
        f"    backoffLimit: {rng.randint(0, 6)}",
        f"    ttlSecondsAfterFinished: {rng.choice([3600, 86400])}",
        "  pytorchReplicaSpecs:",
    ]
    for role, replicas in (("Master", 1), ("Worker", workers)):
        lines += [
            f"    {role}:",
            f"      replicas: {replicas}",
            "      restartPolicy: OnFailure",
            "      template:",
        ]
        lines += ["        " + line for line in pod_template(rng, role, gpus)]
    return lines


def replace_once(lines, old, new, start=0):
    for i in range(start, len(lines)):
        if old in lines[i]:
            lines[i] = lines[i].replace(old, new, 1)
            return i
    raise AssertionError(f"'{old}' not in job")


def index_of(lines, text, start=0):
    for i in range(start, len(lines)):
        if text in lines[i]:
            return i
    raise AssertionError(f"'{text}' not in job")


def break_job(lines, mistake):
    worker = index_of(lines, "    Worker:")
    if mistake == "unknown-field":
        replace_once(lines, "imagePullPolicy:", "imagePullPolcy:", worker)
    elif mistake == "wrong-type":
        replace_once(lines, "containerPort: 9090", 'containerPort: "http"', worker)
    elif mistake == "int32-overflow":
        replace_once(lines, "      replicas: ", "      replicas: 3000000000  # ", worker)
    elif mistake == "bad-quantity":
        i = index_of(lines, "memory: ", worker)
        lines[i] = lines[i].split("memory:")[0] + "memory: 16GB"
    elif mistake == "duplicate-container-port":
        replace_once(lines, "containerPort: 9090", "containerPort: 23456", worker)
    elif mistake == "duplicate-container-name":
        i = index_of(lines, "  containers:", worker)
        indent = lines[i].split("containers:")[0]
        lines[i + 1:i + 1] = [indent + "- name: pytorch", indent + "  image: busybox:1.36"]
    elif mistake == "replica-type-chief":
        lines[worker] = "    Chief:"
    elif mistake == "no-pytorch-container":
        for i in range(len(lines)):
            lines[i] = lines[i].replace("- name: pytorch", "- name: trainer")
    elif mistake == "bad-job-name":
        i = index_of(lines, "  name: train-")
        lines[i] = lines[i].replace("train-", "Train_", 1)
    elif mistake == "bad-label-value":
        replace_once(lines, "    owner: ", "    owner: team ")
    elif mistake == "unknown-top-level-field":
        lines.insert(index_of(lines, "spec:"), "labels:\n  team: ml")
    else:
        raise AssertionError(mistake)


def write_corpus(out, jobs, rng, make_job, break_job, mistakes, prefix="jobs"):
    """Writes OUT/corpus/*.yaml and OUT/expected.json: jobs from make_job(rng, index) (a list of
    lines), clean ones two to a file, every fifth broken by break_job(lines, kind) alone in a file,
    the mistake kinds in turn."""
    corpus = os.path.join(out, "corpus")
    os.makedirs(corpus, exist_ok=True)
    expected = {"files": {}, "jobs": 0, "broken_jobs": 0}
    pending = []

    def flush():
        if not pending:
            return
        name = f"{prefix}-{len(expected['files']):05d}.yaml"
        with open(os.path.join(corpus, name), "w", encoding="utf-8") as f:
            f.write("---\n".join("\n".join(doc) + "\n" for doc in pending))
        expected["files"][name] = "clean"
        pending.clear()

    for index in range(jobs):
        lines = make_job(rng, index)
        expected["jobs"] += 1
        if index % 5 == 4:  # a fifth broken, the mistakes in turn
            mistake = mistakes[(index // 5) % len(mistakes)]
            break_job(lines, mistake)
            name = f"broken-{len(expected['files']):05d}-{mistake}.yaml"
            with open(os.path.join(corpus, name), "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            expected["files"][name] = mistake
            expected["broken_jobs"] += 1
        else:
            pending.append(lines)
            if len(pending) == 2:
                flush()
    flush()
    expected["mistakes"] = mistakes
    with open(os.path.join(out, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
    print(f"{len(expected['files'])} files, {expected['jobs']} jobs, {expected['broken_jobs']} broken "
          f"in {corpus}", file=sys.stderr)


def parse_args(argv, doc):
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--jobs", type=int, default=1250)
    parser.add_argument("--seed", type=int, default=2)
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv, __doc__)
    write_corpus(args.out, args.jobs, random.Random(args.seed), job, break_job, MISTAKES)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
