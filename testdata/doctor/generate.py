#!/usr/bin/env python3
"""Writes the doctor fixtures: small PyTorchJob CRDs shaped only to trigger the release probes of
schema/crd_fingerprint.cpp (not copies of the real CRDs), plus Deployments and webhooks that
mimic each release's install. Run from this folder: python3 generate.py"""
import json, os

GEN = {(1, 3): "v0.6.0", (1, 4): "v0.6.0", (1, 5): "v0.6.0", (1, 6): "v0.10.0", (1, 7): "v0.12.0",
       (1, 8): "v0.14.0", (1, 9): "v0.16.5"}


def obj(props=None, **extra):
    o = {"type": "object"}
    if props is not None:
        o["properties"] = props
    o.update(extra)
    return o


def crd(release, replicas_max=None):
    mi, pa = release
    at = lambda m, p=0: (mi, pa) >= (m, p)
    container = {"name": {"type": "string"}, "image": {"type": "string"},
                 "command": {"type": "array", "items": {"type": "string"}},
                 "livenessProbe": obj({"grpc": obj({"port": {"type": "integer"}})} if at(5) else {})}
    if at(9, 4):
        container["restartPolicyRules"] = {"type": "array", "items": obj(x_kubernetes_preserve_unknown_fields=True)}
    template = obj({"metadata": obj(x_kubernetes_preserve_unknown_fields=True),
                    "spec": obj({"containers": {"type": "array", "items": obj(container, required=["name"])}},
                                x_kubernetes_preserve_unknown_fields=True)})
    replica = obj({"replicas": {"type": "integer", "format": "int32"}, "restartPolicy": {"type": "string"},
                   "template": template})
    if replicas_max is not None:
        replica["properties"]["replicas"]["maximum"] = replicas_max
    scheduling = {"minAvailable": {"type": "integer"}, "queue": {"type": "string"}, "priorityClass": {"type": "string"}}
    if at(6):
        scheduling["scheduleTimeoutSeconds"] = {"type": "integer"}
    if at(8):
        scheduling["queue"]["x-kubernetes-validations"] = [{"rule": "self == oldSelf", "message": "queue is immutable"}]
    run_policy = {"cleanPodPolicy": {"type": "string"}, "ttlSecondsAfterFinished": {"type": "integer"},
                  "activeDeadlineSeconds": {"type": "integer"}, "backoffLimit": {"type": "integer"},
                  "schedulingPolicy": obj(scheduling)}
    if at(7):
        run_policy["suspend"] = {"type": "boolean", "default": False}
    if at(9):
        run_policy["managedBy"] = {"type": "string"}
    spec = {"runPolicy": obj(run_policy), "pytorchReplicaSpecs": obj(additionalProperties=replica)}
    if at(4):
        spec["elasticPolicy"] = obj({"minReplicas": {"type": "integer"}, "maxReplicas": {"type": "integer"}})
    if at(7):
        spec["nprocPerNode"] = {"type": "string"}
    schema = obj({"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": obj(),
                  "spec": obj(spec, required=["pytorchReplicaSpecs"]),
                  "status": obj(x_kubernetes_preserve_unknown_fields=True)})
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "pytorchjobs.kubeflow.org",
                         "annotations": {"controller-gen.kubebuilder.io/version": GEN[(1, mi)]}},
            "spec": {"group": "kubeflow.org", "scope": "Namespaced",
                     "names": {"kind": "PyTorchJob", "listKind": "PyTorchJobList", "plural": "pytorchjobs",
                               "singular": "pytorchjob"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "subresources": {"status": {}}, "schema": {"openAPIV3Schema": schema}}]}}


def fix_keys(o):
    if isinstance(o, dict):
        return {k.replace("x_kubernetes_", "x-kubernetes-").replace("_", "-") if k.startswith("x_") else k: fix_keys(v)
                for k, v in o.items()}
    if isinstance(o, list):
        return [fix_keys(v) for v in o]
    return o


def deployment(ns, name, image, labels):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns, "labels": labels},
            "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": name if name != "kubeflow-trainer-controller-manager" else "manager",
                                                           "image": image}]}}}}


def operator(image):
    return deployment("kubeflow", "training-operator", image, {"control-plane": "kubeflow-training-operator"})


WEBHOOK = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
           "metadata": {"name": "validator.training-operator.kubeflow.org"}, "webhooks": []}
NS = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in ("kubeflow", "kubeflow-system")]


def simple_crd(plural, group, kind):
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{group}"},
            "spec": {"group": group, "scope": "Namespaced",
                     "names": {"kind": kind, "plural": plural, "singular": kind.lower()},
                     "versions": [{"name": "v1alpha1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": {"type": "object",
                                                                  "x-kubernetes-preserve-unknown-fields": True}}}]}}


INSTALLS = {
    "v1.5.0": [crd((5, 0)), operator("kubeflow/training-operator:v1-e1434f6")],
    "v1.7.0": [crd((7, 0)), operator("kubeflow/training-operator:v1-855e096")],
    "v1.8.1": [crd((8, 1)), operator("kubeflow/training-operator:v1-04f9f13"), WEBHOOK],
    "v1.9.4": [crd((9, 4)), operator("ghcr.io/kubeflow/training-v1/training-operator:v1-93c5489"), WEBHOOK],
    "v1.9.1-untagged": [crd((9, 1)), operator("kubeflow/training-operator"), WEBHOOK],
    "disagree": [crd((5, 0)), operator("ghcr.io/kubeflow/training-v1/training-operator:v1-93c5489"), WEBHOOK],
    "trainer-v2": [simple_crd("trainjobs", "trainer.kubeflow.org", "TrainJob"),
                   simple_crd("podgroups", "scheduling.volcano.sh", "PodGroup"),
                   simple_crd("workloads", "kueue.x-k8s.io", "Workload"),
                   deployment("kubeflow-system", "kubeflow-trainer-controller-manager",
                              "ghcr.io/kubeflow/trainer/trainer-controller-manager:v2.1.0",
                              {"app.kubernetes.io/name": "trainer", "app.kubernetes.io/component": "manager"})],
    "tight-crd": [crd((9, 4), replicas_max=4)],
}

for name, objs in INSTALLS.items():
    with open(f"{name}.json", "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": NS + [fix_keys(o) for o in objs]}, f, indent=1)
        f.write("\n")
