#!/usr/bin/env python3
"""Writes the carried CRDs of Kubeflow Trainer v2 for one release: TrainJob, TrainingRuntime and
ClusterTrainingRuntime (trainer.kubeflow.org/v1alpha1), as three CustomResourceDefinition documents.

The Kubernetes types come from Debian's kube-openapi swagger through gen_carried_schema.py's converter
(controller-gen's rules), trimmed to the Kubernetes release the Trainer release was built against.
The Trainer and JobSet types are written here from the Go types of each tag
(kubeflow/trainer pkg/apis/trainer/v1alpha1/{trainjob,trainingruntime}_types.go at v2.0.0 ... v2.3.0;
kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go at the JobSet release each tag pulls:
v0.8.2, v0.10.1, v0.11.1, v0.12.0), with their kubebuilder markers: defaults, bounds, list types and
the x-kubernetes-validations (CEL) rules, which the structural validator evaluates. Descriptions are
dropped; the output is deterministic.

Usage: gen_trainer_crds.py --swagger swagger.json --release v2.3.0 --out trainer-v2.3.0-crds.yaml
"""

import argparse
import copy
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_carried_schema as k8s  # noqa: E402
from gen_carried_schema import CORE, arr, b, i32, i64, obj, s, smap  # noqa: E402

BATCH = "io.k8s.api.batch.v1."
HPA = "io.k8s.api.autoscaling.v2beta2."

# Release -> (schema generation, Kubernetes minor of its k8s.io/api, JobSet minor). v2.0.1 and
# v2.2.1 changed no API type (their CRDs are byte-identical to v2.0.0's and v2.2.0's).
RELEASES = {
    "v2.0.0": (0, 32, 8),
    "v2.0.1": (0, 32, 8),
    "v2.1.0": (1, 34, 10),
    "v2.2.0": (2, 35, 11),
    "v2.2.1": (2, 35, 11),
    "v2.3.0": (3, 36, 12),
}

IMMUTABLE = "field is immutable"


def cel(rule, message):
    return {"rule": rule, "message": message}


def rules(node, *validations):
    out = dict(node)
    out["x-kubernetes-validations"] = list(out.get("x-kubernetes-validations", [])) + list(validations)
    return out


def imm(node, message=IMMUTABLE):
    return rules(node, cel("self == oldSelf", message))


def list_map(items, *keys, max_items=None):
    out = {"type": "array", "items": items, "x-kubernetes-list-type": "map",
           "x-kubernetes-list-map-keys": list(keys)}
    if max_items is not None:
        out["maxItems"] = max_items
    return out


def atomic(items, max_items=None):
    out = {"type": "array", "items": items, "x-kubernetes-list-type": "atomic"}
    if max_items is not None:
        out["maxItems"] = max_items
    return out


def bounded(node, **bounds):
    out = dict(node)
    for key, value in bounds.items():
        if value is not None:
            out[{"min_length": "minLength", "max_length": "maxLength", "minimum": "minimum",
                 "maximum": "maximum", "min_items": "minItems", "max_items": "maxItems",
                 "min_properties": "minProperties"}[key]] = value
    return out


def with_default(node, value):
    return dict(node, default=value)


def empty_object():
    """A Go struct with no fields: controller-gen writes only the type."""
    return {"type": "object"}


def int_or_string():
    return {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}


# ---------------------------------------------------------------------------------------------
# Kubernetes types the v1.13 swagger lacks, and the fields each Kubernetes release added after
# the one a Trainer release was built against (k8s.io/api v0.32 for v2.0, v0.34 v2.1, v0.35 v2.2,
# v0.36 v2.3).

# Fields of gen_carried_schema's overlay (the newest field set) by the Kubernetes minor that added them.
K8S_FIELD_SINCE = {
    (CORE + "Container", "restartPolicyRules"): 34,
    (CORE + "EnvVarSource", "fileKeyRef"): 34,
    (CORE + "Lifecycle", "stopSignal"): 33,
    (CORE + "PodSpec", "hostnameOverride"): 34,
    (CORE + "PodSpec", "schedulingGroup"): 36,
    (CORE + "VolumeProjection", "podCertificate"): 34,
    (CORE + "PodCertificateProjection", "userAnnotations"): 35,
}

# Fields a Kubernetes minor had and a later one replaced: (definition, field) -> (first, last, schema).
K8S_FIELD_BETWEEN = {
    # The alpha workload reference of Kubernetes 1.35, replaced by schedulingGroup in 1.36.
    (CORE + "PodSpec", "workloadRef"): (35, 35, obj({"name": s(), "podGroup": s(), "podGroupReplicaKey": s()},
                                                    ["name", "podGroup"])),
}


def metav1_condition():
    """metav1.Condition with its OpenAPI markers (k8s.io/apimachinery pkg/apis/meta/v1/types.go)."""
    return obj({
        "lastTransitionTime": {"type": "string", "format": "date-time"},
        "message": bounded(s(), max_length=32768),
        "observedGeneration": bounded(i64(), minimum=0),
        "reason": dict(bounded(s(), min_length=1, max_length=1024),
                       pattern="^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"),
        "status": dict(s(), enum=["True", "False", "Unknown"]),
        "type": dict(bounded(s(), max_length=316),
                     pattern=r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                             r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"),
    }, ["lastTransitionTime", "message", "reason", "status", "type"])


def batch_definitions():
    """batch/v1 types behind the JobSpec fields added after Kubernetes v1.13 (all present by v1.32)."""
    return {
        BATCH + "PodFailurePolicyOnExitCodesRequirement": obj(
            {"containerName": s(), "operator": s(), "values": arr(i32())}, ["operator", "values"]),
        BATCH + "PodFailurePolicyOnPodConditionsPattern": obj({"status": s(), "type": s()}, ["type"]),
        BATCH + "PodFailurePolicyRule": obj({
            "action": s(),
            "onExitCodes": k8s.ref(BATCH + "PodFailurePolicyOnExitCodesRequirement"),
            "onPodConditions": arr(k8s.ref(BATCH + "PodFailurePolicyOnPodConditionsPattern"))}, ["action"]),
        BATCH + "SuccessPolicyRule": obj({"succeededCount": i32(), "succeededIndexes": s()}),
    }


BATCH_JOB_FIELDS = {
    "backoffLimitPerIndex": i32(),
    "completionMode": s(),
    "managedBy": s(),
    "maxFailedIndexes": i32(),
    "podFailurePolicy": obj({"rules": arr(k8s.ref(BATCH + "PodFailurePolicyRule"))}, ["rules"]),
    "podReplacementPolicy": s(),
    "successPolicy": obj({"rules": arr(k8s.ref(BATCH + "SuccessPolicyRule"))}, ["rules"]),
    "suspend": b(),
}
k8s.LIST_SETS.add((BATCH + "PodFailurePolicyOnExitCodesRequirement", "values"))
k8s.LIST_MAP_KEYS[(CORE + "PersistentVolumeClaimStatusFull", "conditions")] = ["type"]


def pvc_definitions():
    """PersistentVolumeClaim with its status (JobSet volumeClaimPolicies templates)."""
    quantity_map = {"type": "object", "additionalProperties": k8s.ref("quantity")}
    condition = obj({
        "lastProbeTime": {"type": "string", "format": "date-time"},
        "lastTransitionTime": {"type": "string", "format": "date-time"},
        "message": s(), "reason": s(), "status": s(), "type": s()}, ["status", "type"])
    status = obj({
        "accessModes": arr(s()),
        "allocatedResourceStatuses": smap(),
        "allocatedResources": quantity_map,
        "capacity": quantity_map,
        "conditions": arr(condition),
        "currentVolumeAttributesClassName": s(),
        "modifyVolumeStatus": obj({"status": s(), "targetVolumeAttributesClassName": s()}, ["status"]),
        "phase": s(),
    })
    return {
        CORE + "PersistentVolumeClaimStatusFull": status,
        CORE + "PersistentVolumeClaimFull": obj({
            "apiVersion": s(), "kind": s(), "metadata": {"$template_metadata": True},
            "spec": k8s.ref(CORE + "PersistentVolumeClaimSpec"),
            "status": k8s.ref(CORE + "PersistentVolumeClaimStatusFull")}),
    }


def kubernetes_definitions(swagger_definitions, kube_minor):
    defs = k8s.with_overlay(swagger_definitions)
    for (name, field), since in K8S_FIELD_SINCE.items():
        if kube_minor < since:
            del defs[name]["properties"][field]
            if name == CORE + "Container":
                del defs[CORE + "EphemeralContainer"]["properties"][field]
    for (name, field), (first, last, schema) in K8S_FIELD_BETWEEN.items():
        if first <= kube_minor <= last:
            defs[name]["properties"][field] = copy.deepcopy(schema)
    job = defs[BATCH + "JobSpec"]
    job["properties"].update(copy.deepcopy(BATCH_JOB_FIELDS))
    defs.update(batch_definitions())
    if kube_minor < 35:  # Kubernetes 1.35 made the condition status optional
        defs[BATCH + "PodFailurePolicyOnPodConditionsPattern"]["required"] = ["status", "type"]
    defs.update(pvc_definitions())
    return defs


# ---------------------------------------------------------------------------------------------
# JobSet v1alpha2 JobSetSpec (kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go).

def jobset_spec(conv, js_minor):
    job_template = conv.definition("io.k8s.api.batch.v1beta1.JobTemplateSpec")
    job_template["properties"]["spec"] = conv.definition(BATCH + "JobSpec")
    replicated_job = {
        "name": s(),
        "template": job_template,
        "replicas": with_default(i32(), 1),
        "dependsOn": imm(list_map(obj({"name": s(), "status": dict(s(), enum=["Ready", "Complete"])},
                                      ["name", "status"]), "name", max_items=1 if js_minor < 10 else 5),
                         "Value is immutable"),
    }
    if js_minor >= 10:
        replicated_job["groupName"] = with_default(s(), "default")
    actions = ["FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts"]
    if js_minor >= 12:
        actions += ["RestartJob", "RestartJobAndIgnoreMaxRestarts"]
    rule = {
        "name": s(),
        "action": dict(s(), enum=actions),
        "onJobFailureReasons": arr(s()),
        "targetReplicatedJobs": atomic(s()),
    }
    if js_minor >= 10:
        rule["onJobFailureMessagePatterns"] = arr(s())
    strategies = ["Recreate", "BlockingRecreate"] + (["InPlaceRestart"] if js_minor >= 11 else [])
    spec = {
        "replicatedJobs": list_map(obj(replicated_job, ["name", "template"]), "name"),
        "network": imm(obj({"enableDNSHostnames": b(), "subdomain": s(), "publishNotReadyAddresses": b()}),
                       "Value is immutable"),
        "successPolicy": imm(obj({"operator": dict(s(), enum=["All", "Any"]),
                                  "targetReplicatedJobs": atomic(s())}, ["operator"]), "Value is immutable"),
        "failurePolicy": imm(obj({
            "maxRestarts": i32(),
            "restartStrategy": with_default(dict(s(), enum=strategies), "Recreate"),
            "rules": arr(obj(rule, ["action", "name"]))}), "Value is immutable"),
        "startupPolicy": imm(obj({"startupPolicyOrder": dict(s(), enum=["AnyOrder", "InOrder"])},
                                 ["startupPolicyOrder"]), "Value is immutable"),
        "suspend": b(),
        "coordinator": obj({"replicatedJob": s(), "jobIndex": {"type": "integer"},
                            "podIndex": {"type": "integer"}}, ["replicatedJob"]),
        "managedBy": s(),
        "ttlSecondsAfterFinished": bounded(i32(), minimum=0),
    }
    if js_minor >= 11:
        policy = rules(obj({
            "templates": atomic(conv.definition(CORE + "PersistentVolumeClaimFull"), 50),
            "retentionPolicy": obj({"whenDeleted": with_default(dict(s(), enum=["Delete", "Retain"]),
                                                                "Delete")}),
        }), cel("self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)",
                "namespace cannot be set for VolumeClaimPolicies templates"))
        spec["volumeClaimPolicies"] = imm(atomic(policy, 50), "Value is immutable")
    return rules(obj(spec), cel(
        "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
        "self.replicatedJobs.exists(x, has(x.dependsOn)))",
        "StartupPolicy and DependsOn APIs are mutually exclusive"))


# ---------------------------------------------------------------------------------------------
# TrainingRuntimeSpec (kubeflow/trainer pkg/apis/trainer/v1alpha1/trainingruntime_types.go).

def ml_policy(conv, gen):
    mpi_impl = dict(s(), enum=["OpenMPI"] if gen == 0 else ["OpenMPI", ""])
    mpi = obj({
        "numProcPerNode": with_default(i32(), 1),
        "mpiImplementation": with_default(mpi_impl, "OpenMPI"),
        "sshAuthMountPath": with_default(bounded(s(), max_length=4096 if gen >= 2 else None), "/root/.ssh"),
        "runLauncherAsNode": with_default(b(), False),
    })
    props = {"numNodes": i32(), "mpi": mpi}
    if gen <= 1:
        props["torch"] = obj({
            "numProcPerNode": rules(with_default(int_or_string(), "auto"), cel(
                "self > 0 || self in ['auto', 'cpu', 'gpu']",
                "NumProcPerNode must be equal to auto, cpu, gpu, or int value")),
            "elasticPolicy": obj({
                "maxRestarts": i32(), "minNodes": i32(), "maxNodes": i32(),
                "metrics": atomic(conv.definition(HPA + "MetricSpec"))}),
        })
        return rules(obj(props),
                     cel("!(has(self.numNodes) && (has(self.torch) && has(self.torch.elasticPolicy)))",
                         "numNodes should not be set if torch.elasticPolicy is configured"),
                     cel("!(has(self.torch) && has(self.mpi))", "Only one of the policy can be configured"))
    torch = {}
    if gen >= 3:
        target = obj({
            "jobName": bounded(s(), min_length=1, max_length=253),
            "containerNames": rules(
                dict(bounded(arr(bounded(s(), max_length=63)), min_items=1, max_items=8),
                     **{"x-kubernetes-list-type": "set"}),
                cel("!self.exists(c, c == 'node')",
                    "containerNames must not include the main node container because PET_* envs are "
                    "always injected into it")),
        }, ["containerNames", "jobName"])
        torch["envInjection"] = obj({"targets": list_map(target, "jobName", max_items=16)})
    props.update({
        "torch": obj(torch) if torch else empty_object(),
        "jax": empty_object(),
        "xgboost": empty_object(),
        "flux": obj({"numProcPerNode": rules(with_default(i32(), 1), cel(
            "self >= 1", "NumProcPerNode in fluxPolicy must be >= 1"))}),
    })
    return rules(obj(props), cel(
        "[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)]"
        ".filter(x, x).size() <= 1", "Only one of the policy can be configured"))


def pod_group_policy(gen):
    props = {"coscheduling": obj({"scheduleTimeoutSeconds": with_default(i32(), 60)})}
    if gen >= 1:
        # volcano.sh/apis pkg/apis/scheduling/v1beta1 NetworkTopologySpec.
        props["volcano"] = obj({"networkTopology": obj({
            "mode": with_default(dict(s(), enum=["hard", "soft"]), "hard"),
            "highestTierAllowed": with_default({"type": "integer"}, 1),
        })})
    return obj(props)


def training_runtime_spec(conv, gen, js_minor):
    template = obj({"metadata": k8s.template_metadata(), "spec": jobset_spec(conv, js_minor)})
    spec = obj({
        "mlPolicy": ml_policy(conv, gen),
        "podGroupPolicy": pod_group_policy(gen),
        "template": bounded(template, min_properties=1) if gen >= 1 else template,
    }, None if gen >= 1 else ["template"])
    return bounded(spec, min_properties=1) if gen >= 1 else spec


def runtime_root(conv, gen, js_minor):
    return obj({"apiVersion": s(), "kind": s(), "metadata": {"type": "object"},
                "spec": training_runtime_spec(conv, gen, js_minor)})


# ---------------------------------------------------------------------------------------------
# TrainJob (kubeflow/trainer pkg/apis/trainer/v1alpha1/trainjob_types.go).

def env_list(conv, gen):
    return list_map(conv.definition(CORE + "EnvVar"), "name", max_items=128 if gen >= 2 else None)


def initializer(conv, gen):
    storage_uri = bounded(s(), max_length=2048 if gen >= 2 else None)
    if gen >= 3:
        storage_uri = rules(storage_uri, cel("self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')",
                                             "storageUri may be empty, or it must be a valid URI (scheme://...)"))
    part = obj({"storageUri": storage_uri, "env": env_list(conv, gen),
                "secretRef": conv.definition(CORE + "LocalObjectReference")})
    return obj({"dataset": part, "model": copy.deepcopy(part)})


def trainer(conv, gen):
    item_limit = {2: 65536, 3: 1048576}.get(gen)
    strings = atomic(bounded(s(), max_length=item_limit), 128 if gen >= 2 else None)
    return obj({
        "image": bounded(s(), max_length=500 if gen >= 2 else None),
        "command": strings,
        "args": copy.deepcopy(strings),
        "env": env_list(conv, gen),
        "numNodes": i32(),
        "resourcesPerNode": conv.definition(CORE + "ResourceRequirements"),
        "numProcPerNode": int_or_string() if gen <= 1 else i32(),
    })


def container_override(conv, gen):
    name = bounded(s(), min_length=1 if gen >= 1 else None, max_length=253 if gen >= 2 else None)
    limit = 128 if gen >= 2 else None
    props = {"name": name, "env": env_list(conv, gen),
             "volumeMounts": list_map(conv.definition(CORE + "VolumeMount"), "name", max_items=limit)}
    if gen >= 2:
        props["securityContext"] = conv.definition(CORE + "SecurityContext")
    return obj(props, ["name"])


def pod_overrides(conv, gen):
    """v2.0 podSpecOverrides[] / v2.1 podTemplateOverrides[]."""
    target = obj({"name": bounded(s(), min_length=1 if gen >= 1 else None)}, ["name"])
    spec = {
        "serviceAccountName": s(),
        "nodeSelector": smap(),
        "tolerations": atomic(conv.definition(CORE + "Toleration")),
        "volumes": list_map(conv.definition(CORE + "Volume"), "name"),
        "initContainers": list_map(container_override(conv, gen), "name"),
        "containers": list_map(container_override(conv, gen), "name"),
        "schedulingGates": list_map(conv.definition(CORE + "PodSchedulingGate"), "name"),
    }
    if gen == 0:
        return atomic(obj(dict(spec, targetJobs=atomic(target)), ["targetJobs"]))
    spec["affinity"] = conv.definition(CORE + "Affinity")
    spec["imagePullSecrets"] = list_map(conv.definition(CORE + "LocalObjectReference"), "name")
    return atomic(obj({"targetJobs": atomic(target), "metadata": k8s.template_metadata(),
                       "spec": obj(spec)}, ["targetJobs"]))


def runtime_patches(conv, gen):
    """v2.2+ runtimePatches[] keyed by manager."""
    pod_spec = {
        "serviceAccountName": imm(bounded(s(), max_length=253)),
        "volumes": imm(list_map(conv.definition(CORE + "Volume"), "name", max_items=128)),
        "initContainers": imm(list_map(container_override(conv, gen), "name", max_items=64)),
        "containers": imm(list_map(container_override(conv, gen), "name", max_items=64)),
        "imagePullSecrets": imm(list_map(conv.definition(CORE + "LocalObjectReference"), "name", max_items=64)),
        "securityContext": imm(conv.definition(CORE + "PodSecurityContext")),
        "nodeSelector": smap(),
        "affinity": conv.definition(CORE + "Affinity"),
        "tolerations": atomic(conv.definition(CORE + "Toleration"), 128),
        "schedulingGates": list_map(conv.definition(CORE + "PodSchedulingGate"), "name", max_items=16),
    }
    if gen >= 3:
        pod_spec["terminationGracePeriodSeconds"] = imm(bounded(i64(), minimum=0))
    meta = k8s.template_metadata
    pod = obj({"metadata": meta(), "spec": obj(pod_spec)})
    job = obj({"metadata": meta(), "spec": obj({"template": pod})})
    replicated_job = obj({"name": bounded(s(), min_length=1, max_length=253), "template": job}, ["name"])
    jobset = obj({"replicatedJobs": list_map(replicated_job, "name", max_items=100)})
    patch = obj({
        "manager": imm(bounded(s(), min_length=1, max_length=253)),
        "time": {"type": "string", "format": "date-time"},
        "trainingRuntimeSpec": obj({"template": obj({"metadata": meta(), "spec": jobset})}),
    }, ["manager"])
    return list_map(patch, "manager", max_items=16)


def trainjob_spec(conv, gen):
    ref_limit = 253 if gen >= 2 else None
    runtime_ref = obj({
        "name": bounded(s(), min_length=1 if gen >= 1 else None, max_length=ref_limit),
        "apiGroup": with_default(bounded(s(), max_length=ref_limit), "trainer.kubeflow.org"),
        "kind": with_default(bounded(s(), max_length=ref_limit), "ClusterTrainingRuntime"),
    }, ["name"])
    spec = {
        "runtimeRef": imm(runtime_ref, IMMUTABLE if gen >= 2 else "runtimeRef is immutable"),
        "initializer": initializer(conv, gen),
        "trainer": trainer(conv, gen),
        "suspend": with_default(b(), False),
        "managedBy": with_default(bounded(s(), max_length=ref_limit), "trainer.kubeflow.org/trainjob-controller"),
    }
    spec["managedBy"] = imm(rules(spec["managedBy"], cel(
        "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']",
        "ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set")),
        IMMUTABLE if gen >= 2 else "ManagedBy value is immutable")
    if gen <= 1:
        spec["labels"] = smap()
        spec["annotations"] = smap()
        spec["podSpecOverrides" if gen == 0 else "podTemplateOverrides"] = pod_overrides(conv, gen)
    else:
        spec["initializer"] = imm(spec["initializer"])
        spec["trainer"] = imm(spec["trainer"])
        spec["runtimePatches"] = runtime_patches(conv, gen)
        spec["activeDeadlineSeconds"] = imm(bounded(i64(), minimum=1))
    return obj(spec, ["runtimeRef"])


def trainjob_status(gen):
    count = bounded(i32(), minimum=0 if gen >= 1 else None)
    job_status = obj({"name": bounded(s(), min_length=1 if gen >= 1 else None,
                                      max_length=253 if gen >= 2 else None),
                      "ready": count, "succeeded": count, "failed": count, "active": count,
                      "suspended": count},
                     ["active", "failed", "name", "ready", "succeeded", "suspended"])
    props = {
        "conditions": list_map(metav1_condition(), "type", max_items=8 if gen >= 2 else None),
        "jobsStatus": list_map(job_status, "name", max_items=100 if gen >= 2 else None),
    }
    if gen >= 2:
        metric = obj({"name": bounded(s(), min_length=1, max_length=64),
                      "value": bounded(s(), min_length=1, max_length=64)}, ["name", "value"])
        props["trainerStatus"] = rules(obj({
            "progressPercentage": bounded(i32(), minimum=0, maximum=100),
            "estimatedRemainingSeconds": bounded(i32(), minimum=0),
            "metrics": atomic(metric, 256),
            "lastUpdatedTime": {"type": "string", "format": "date-time"},
        }), cel("has(self.lastUpdatedTime)", "lastUpdatedTime is required when trainerStatus is present"))
    status = obj(props)
    return bounded(status, min_properties=1) if gen >= 1 else status


def trainjob_root(conv, gen):
    root = obj({"apiVersion": s(), "kind": s(), "metadata": {"type": "object"},
                "spec": trainjob_spec(conv, gen), "status": trainjob_status(gen)})
    if gen >= 1:
        root = rules(root,
                     cel("self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
                         "metadata.name must match RFC 1035 DNS label format"),
                     cel("size(self.metadata.name) <= 63", "metadata.name must be no more than 63 characters"))
    return root


# ---------------------------------------------------------------------------------------------

def crd(kind, plural, scope, schema, release, status):
    version = {"name": "v1alpha1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}
    if status:
        version["subresources"] = {"status": {}}
        # As the real CRD: State is the type of the last condition, whatever its status.
        version["additionalPrinterColumns"] = [
            {"jsonPath": ".status.conditions[-1:].type", "name": "State", "type": "string"},
            {"jsonPath": ".metadata.creationTimestamp", "name": "Age", "type": "date"},
        ]
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": plural + ".trainer.kubeflow.org",
                     "annotations": {"kubectl-pytorch/carried-release": release}},
        "spec": {"group": "trainer.kubeflow.org",
                 "names": {"kind": kind, "listKind": kind + "List", "plural": plural,
                           "singular": kind.lower()},
                 "scope": scope, "versions": [version]},
    }


def trainer_crds(swagger_definitions, release):
    gen, kube_minor, js_minor = RELEASES[release]
    conv = k8s.Converter(kubernetes_definitions(swagger_definitions, kube_minor))
    return [
        crd("TrainJob", "trainjobs", "Namespaced", trainjob_root(conv, gen), release, True),
        crd("TrainingRuntime", "trainingruntimes", "Namespaced", runtime_root(conv, gen, js_minor), release,
            False),
        crd("ClusterTrainingRuntime", "clustertrainingruntimes", "Cluster", runtime_root(conv, gen, js_minor),
            release, False),
    ]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swagger", required=True)
    parser.add_argument("--release", required=True, choices=sorted(RELEASES))
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    definitions = k8s.load_swagger_definitions(args.swagger, "gen_trainer_crds")
    if definitions is None:
        return 1
    docs = trainer_crds(definitions, args.release)
    # JSON documents are YAML flow mappings: one file, three documents.
    text = "".join("---\n" + json.dumps(d, sort_keys=True, separators=(",", ":")) + "\n" for d in docs)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
