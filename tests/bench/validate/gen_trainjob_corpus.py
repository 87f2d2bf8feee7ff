#!/usr/bin/env python3
"""Generates the TrainJob corpus of the `validate` benchmark: realistic Kubeflow Trainer v2.3.0
TrainJobs on the torch-distributed runtime (trainer image, command, env, numNodes, numProcPerNode,
resourcesPerNode, labels, annotations, runtimePatches), a fifth of them broken with one known mistake.

Usage: gen_trainjob_corpus.py OUT_DIR [--jobs N] [--seed S]

Writes OUT_DIR/corpus/*.yaml and OUT_DIR/expected.json as gen_corpus.py does for PyTorchJobs.
"""

import random
import sys

from gen_corpus import DATASETS, IMAGES, index_of, parse_args, q, replace_once, write_corpus

# What each mistake is, and who rejects it for real on a v2.3.0 cluster.
MISTAKES = [
    "unknown-field",            # trainer.numNode (schema)
    "v2.1-field",               # spec.podTemplateOverrides, gone since v2.2 (schema)
    "wrong-type",               # numNodes: "4" (schema)
    "bad-quantity",             # memory: 64GB (schema pattern)
    "deadline-zero",            # activeDeadlineSeconds: 0 (schema minimum 1)
    "duplicate-env-name",       # two trainer.env entries named NCCL_DEBUG (list-map key)
    "bad-job-name",             # Train_... (CEL rule on metadata.name)
    "managed-by",               # managedBy: kueue.x-k8s.io/kueue (CEL rule)
    "reserved-env",             # PET_NNODES in trainer.env (validating webhook)
    "patch-unknown-container",  # runtimePatches naming container pytorch, not node (webhook)
    "patch-env-node",           # runtimePatches giving container node env (webhook)
    "runtime-not-found",        # runtimeRef.name torch-distibuted (webhook: runtime must exist)
    "num-nodes-zero",           # numNodes: 0 (admitted: no node pod runs; our lint only)
]

TEAMS = ["vision", "nlp", "speech", "research"]


def runtime_patch(rng):
    """A platform team's patch: JobSet labels, scheduling and volumes for the node pods."""
    return [
        "  runtimePatches:",
        "  - manager: platform.acme.io/ml-defaults",
        "    trainingRuntimeSpec:",
        "      template:",
        "        metadata:",
        "          labels:",
        f"            team: {rng.choice(TEAMS)}",
        "        spec:",
        "          replicatedJobs:",
        "          - name: node",
        "            template:",
        "              spec:",
        "                template:",
        "                  metadata:",
        "                    annotations:",
        '                      sidecar.istio.io/inject: "false"',
        "                  spec:",
        "                    serviceAccountName: trainer",
        "                    nodeSelector:",
        f"                      node.kubernetes.io/instance-type: "
        f"{rng.choice(['p4d.24xlarge', 'a2-highgpu-8g', 'g5.12xlarge'])}",
        "                    tolerations:",
        "                    - key: nvidia.com/gpu",
        "                      operator: Exists",
        "                      effect: NoSchedule",
        "                    volumes:",
        "                    - name: data",
        "                      persistentVolumeClaim:",
        f"                        claimName: {rng.choice(DATASETS)}-pvc",
        "                        readOnly: true",
        "                    - name: dshm",
        "                      emptyDir:",
        "                        medium: Memory",
        "                        sizeLimit: 8Gi",
        "                    containers:",
        "                    - name: node",
        "                      volumeMounts:",
        "                      - name: data",
        "                        mountPath: /data",
        "                        readOnly: true",
        "                      - name: dshm",
        "                        mountPath: /dev/shm",
    ]


def job(rng, index):
    dataset = rng.choice(DATASETS)
    name = f"train-{dataset}-{index:05d}"
    gpus = rng.choice([0, 1, 2, 4, 8])
    cpu = rng.choice(["4", "8", "16", "3500m"])
    mem = rng.choice(["16Gi", "32Gi", "64Gi", "48G"])
    image = rng.choice(IMAGES).format(v=f"{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}")
    lines = [
        "apiVersion: trainer.kubeflow.org/v1alpha1",
        "kind: TrainJob",
        "metadata:",
        f"  name: {name}",
        "  namespace: ml",
        "  labels:",
        f"    app.kubernetes.io/name: {name}",
        f"    owner: {rng.choice(['alice', 'bob', 'carol', 'dave'])}",
        f"    kueue.x-k8s.io/queue-name: {rng.choice(TEAMS)}",
        "  annotations:",
        f"    acme.io/experiment: {q(f'exp-{rng.randint(1, 999)}')}",
        "spec:",
        "  runtimeRef:",
        "    name: torch-distributed",
    ]
    if rng.random() < 0.5:
        lines += ["    apiGroup: trainer.kubeflow.org", "    kind: ClusterTrainingRuntime"]
    broken = index % 5 == 4  # write_corpus breaks it: give it every field a mistake may need
    if rng.random() < 0.6 or broken:
        lines.append(f"  activeDeadlineSeconds: {rng.choice([3600, 86400, 259200])}")
    if rng.random() < 0.3 or broken:
        lines.append("  managedBy: trainer.kubeflow.org/trainjob-controller")
    lines += ["  trainer:", f"    image: {image}"]
    args = [f"--dataset={dataset}", f"--epochs={rng.randint(1, 90)}", "--checkpoint-dir=/checkpoints"]
    if rng.random() < 0.5:
        lines += ['    command: ["torchrun", "train.py"]', f"    args: [{', '.join(q(a) for a in args)}]"]
    else:
        lines += [f"    command: [{', '.join(q(a) for a in ['torchrun', 'train.py'] + args)}]"]
    lines.append(f"    numNodes: {rng.randint(1, 16)}")
    if gpus:
        lines.append(f"    numProcPerNode: {gpus}")
    lines += [
        "    resourcesPerNode:",
        "      requests:",
        f"        cpu: {q(cpu)}",
        f"        memory: {mem}",
        "      limits:",
        f"        memory: {mem}",
    ]
    if gpus:
        lines.append(f"        nvidia.com/gpu: {gpus}")
    lines += [
        "    env:",
        "    - name: PYTHONUNBUFFERED",
        '      value: "1"',
        "    - name: NCCL_DEBUG",
        "      value: INFO",
        "    - name: HF_TOKEN",
        "      valueFrom:",
        "        secretKeyRef:",
        "          name: huggingface",
        "          key: token",
    ]
    if rng.random() < 0.7 or broken:
        lines += runtime_patch(rng)
    return lines


def break_job(lines, mistake):
    trainer = index_of(lines, "  trainer:")
    if mistake == "unknown-field":
        replace_once(lines, "numNodes:", "numNode:", trainer)
    elif mistake == "v2.1-field":
        lines[index_of(lines, "  runtimePatches:"):] = [
            "  podTemplateOverrides:",
            "  - targetJobs:",
            "    - name: node",
            "    spec:",
            "      serviceAccountName: trainer",
        ]
    elif mistake == "wrong-type":
        i = index_of(lines, "numNodes: ", trainer)
        lines[i] = lines[i].replace("numNodes: ", 'numNodes: "') + '"'
    elif mistake == "bad-quantity":
        i = index_of(lines, "memory: ", trainer)
        lines[i] = lines[i].split("memory:")[0] + "memory: 64GB"
    elif mistake == "deadline-zero":
        i = index_of(lines, "activeDeadlineSeconds:")
        lines[i] = "  activeDeadlineSeconds: 0"
    elif mistake == "duplicate-env-name":
        i = index_of(lines, "    env:", trainer)
        lines[i + 1:i + 1] = ["    - name: NCCL_DEBUG", "      value: WARN"]
    elif mistake == "bad-job-name":
        replace_once(lines, "  name: train-", "  name: Train_")
    elif mistake == "managed-by":
        lines[index_of(lines, "managedBy:")] = "  managedBy: kueue.x-k8s.io/kueue"
    elif mistake == "reserved-env":
        i = index_of(lines, "    env:", trainer)
        lines[i + 1:i + 1] = ["    - name: PET_NNODES", '      value: "2"']
    elif mistake == "patch-unknown-container":
        replace_once(lines, "- name: node", "- name: pytorch", index_of(lines, "containers:"))
    elif mistake == "patch-env-node":
        i = index_of(lines, "- name: node", index_of(lines, "containers:"))
        lines[i + 1:i + 1] = [
            "                      env:",
            "                      - name: NCCL_SOCKET_IFNAME",
            "                        value: eth0",
        ]
    elif mistake == "runtime-not-found":
        replace_once(lines, "name: torch-distributed", "name: torch-distibuted")
    elif mistake == "num-nodes-zero":
        i = index_of(lines, "numNodes: ", trainer)
        lines[i] = "    numNodes: 0"
    else:
        raise AssertionError(mistake)


def main(argv):
    args = parse_args(argv, __doc__)
    write_corpus(args.out, args.jobs, random.Random(args.seed), job, break_job, MISTAKES, prefix="trainjobs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
