#!/usr/bin/env python3
"""Writes the carried openAPIV3Schema of PyTorchJob kubeflow.org/v1 (newest field set, operator v1.9.4).

Input: the Kubernetes v1.13 swagger 2.0 definitions shipped by Debian's golang-k8s-kube-openapi-dev.
The pod template is built from them the way controller-gen builds a CRD (every $ref inlined,
IntOrString and Quantity as x-kubernetes-int-or-string, list-type map keys, int32/int64 formats,
required lists), plus a hand-written overlay of the pod and container fields Kubernetes added after
v1.13, up to what the v1.9.4 CRD carries. The PyTorchJob spec and status are written here from the
operator facts. Descriptions are dropped; the output is deterministic (sorted keys, compact).

Usage: gen_carried_schema.py --swagger swagger.json --out pytorchjob_v1.schema.json
"""

import argparse
import copy
import json
import sys

CORE = "io.k8s.api.core.v1."
META = "io.k8s.apimachinery.pkg.apis.meta.v1."
HPA = "io.k8s.api.autoscaling.v2beta2."

QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
                    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")


# ---------------------------------------------------------------------------------------------
# Small builders for the hand-written parts (swagger-shaped, so one converter handles both).

def ref(name):
    return {"$ref": "#/definitions/" + name}


def s():
    return {"type": "string"}


def b():
    return {"type": "boolean"}


def i32():
    return {"type": "integer", "format": "int32"}


def i64():
    return {"type": "integer", "format": "int64"}


def arr(items):
    return {"type": "array", "items": items}


def smap(values=None):
    return {"type": "object", "additionalProperties": values or s()}


def obj(props, required=None):
    out = {"type": "object", "properties": props}
    if required:
        out["required"] = sorted(required)
    return out


# ---------------------------------------------------------------------------------------------
# Overlay: Kubernetes types added after v1.13 (new definitions) and fields added to old ones.

NEW_DEFINITIONS = {
    CORE + "GRPCAction": obj({"port": i32(), "service": dict(s(), default="")}, ["port"]),
    CORE + "SleepAction": obj({"seconds": i64()}, ["seconds"]),
    CORE + "SeccompProfile": obj({"localhostProfile": s(), "type": s()}, ["type"]),
    CORE + "AppArmorProfile": obj({"localhostProfile": s(), "type": s()}, ["type"]),
    CORE + "WindowsSecurityContextOptions": obj({
        "gmsaCredentialSpec": s(), "gmsaCredentialSpecName": s(), "hostProcess": b(),
        "runAsUserName": s()}),
    CORE + "ContainerResizePolicy": obj({"resourceName": s(), "restartPolicy": s()},
                                        ["resourceName", "restartPolicy"]),
    CORE + "ContainerRestartRuleOnExitCodes": obj({"operator": s(), "values": arr(i32())},
                                                  ["operator"]),
    CORE + "ContainerRestartRule": obj({
        "action": s(), "exitCodes": ref(CORE + "ContainerRestartRuleOnExitCodes")}, ["action"]),
    CORE + "ResourceClaim": obj({"name": s(), "request": s()}, ["name"]),
    CORE + "FileKeySelector": obj({
        "key": s(), "optional": dict(b(), default=False), "path": s(), "volumeName": s()},
        ["key", "path", "volumeName"]),
    CORE + "TopologySpreadConstraint": obj({
        "labelSelector": ref(META + "LabelSelector"), "matchLabelKeys": arr(s()),
        "maxSkew": i32(), "minDomains": i32(), "nodeAffinityPolicy": s(), "nodeTaintsPolicy": s(),
        "topologyKey": s(), "whenUnsatisfiable": s()},
        ["maxSkew", "topologyKey", "whenUnsatisfiable"]),
    CORE + "PodSchedulingGate": obj({"name": s()}, ["name"]),
    CORE + "PodResourceClaim": obj({
        "name": s(), "resourceClaimName": s(), "resourceClaimTemplateName": s()}, ["name"]),
    CORE + "PodOS": obj({"name": s()}, ["name"]),
    CORE + "CSIVolumeSource": obj({
        "driver": s(), "fsType": s(), "nodePublishSecretRef": ref(CORE + "LocalObjectReference"),
        "readOnly": b(), "volumeAttributes": smap()}, ["driver"]),
    CORE + "PersistentVolumeClaimTemplate": obj({
        "metadata": {"$template_metadata": True},
        "spec": ref(CORE + "PersistentVolumeClaimSpec")}, ["spec"]),
    CORE + "EphemeralVolumeSource": obj({
        "volumeClaimTemplate": ref(CORE + "PersistentVolumeClaimTemplate")}),
    CORE + "ImageVolumeSource": obj({"pullPolicy": s(), "reference": s()}),
    CORE + "TypedObjectReference": obj({
        "apiGroup": s(), "kind": s(), "name": s(), "namespace": s()}, ["kind", "name"]),
    CORE + "ClusterTrustBundleProjection": obj({
        "labelSelector": ref(META + "LabelSelector"), "name": s(), "optional": b(), "path": s(),
        "signerName": s()}, ["path"]),
    CORE + "VolumeResourceRequirements": obj({
        "limits": {"type": "object", "additionalProperties": ref("quantity")},
        "requests": {"type": "object", "additionalProperties": ref("quantity")}}),
    CORE + "PodCertificateProjection": obj({
        "certificateChainPath": s(), "credentialBundlePath": s(), "keyPath": s(), "keyType": s(),
        "maxExpirationSeconds": i32(), "signerName": s(), "userAnnotations": smap()},
        ["keyType", "signerName"]),
    CORE + "PodSchedulingGroup": obj({"podGroupName": s()}),
    HPA + "ContainerResourceMetricSource": obj({
        "container": s(), "name": s(), "target": ref(HPA + "MetricTarget")},
        ["container", "name", "target"]),
}

# Fields whose type or required list a newer Kubernetes changed.
REPLACED_FIELDS = {
    (CORE + "PersistentVolumeClaimSpec", "resources"): ref(CORE + "VolumeResourceRequirements"),
}
REQUIRED_OVERRIDES = {
    CORE + "HostAlias": ["ip"],
    CORE + "ProjectedVolumeSource": [],
}

# Fields that a newer Kubernetes added to types the v1.13 swagger already has.
CONTAINER_ADDITIONS = {
    "resizePolicy": arr(ref(CORE + "ContainerResizePolicy")),
    "restartPolicy": s(),  # sidecar init containers (k8s 1.28)
    "restartPolicyRules": arr(ref(CORE + "ContainerRestartRule")),  # k8s 1.34
    "startupProbe": ref(CORE + "Probe"),
}

ADDED_FIELDS = {
    CORE + "Container": CONTAINER_ADDITIONS,
    CORE + "Probe": {"grpc": ref(CORE + "GRPCAction"), "terminationGracePeriodSeconds": i64()},
    CORE + "Handler": {"sleep": ref(CORE + "SleepAction")},
    CORE + "Lifecycle": {"stopSignal": s()},
    CORE + "ResourceRequirements": {"claims": arr(ref(CORE + "ResourceClaim"))},
    CORE + "EnvVarSource": {"fileKeyRef": ref(CORE + "FileKeySelector")},
    CORE + "VolumeMount": {"recursiveReadOnly": s(), "subPathExpr": s()},
    CORE + "SecurityContext": {
        "appArmorProfile": ref(CORE + "AppArmorProfile"),
        "seccompProfile": ref(CORE + "SeccompProfile"),
        "windowsOptions": ref(CORE + "WindowsSecurityContextOptions")},
    CORE + "PodSecurityContext": {
        "appArmorProfile": ref(CORE + "AppArmorProfile"), "fsGroupChangePolicy": s(),
        "seLinuxChangePolicy": s(), "seccompProfile": ref(CORE + "SeccompProfile"),
        "supplementalGroupsPolicy": s(),
        "windowsOptions": ref(CORE + "WindowsSecurityContextOptions")},
    CORE + "PodSpec": {
        "ephemeralContainers": arr(ref(CORE + "EphemeralContainer")),
        "hostUsers": b(),
        "hostnameOverride": s(),
        "os": ref(CORE + "PodOS"),
        "overhead": {"type": "object", "additionalProperties": ref("quantity")},
        "preemptionPolicy": s(),
        "resourceClaims": arr(ref(CORE + "PodResourceClaim")),
        "resources": ref(CORE + "ResourceRequirements"),
        "schedulingGates": arr(ref(CORE + "PodSchedulingGate")),
        "schedulingGroup": ref(CORE + "PodSchedulingGroup"),
        "setHostnameAsFQDN": b(),
        "topologySpreadConstraints": arr(ref(CORE + "TopologySpreadConstraint"))},
    CORE + "Volume": {
        "csi": ref(CORE + "CSIVolumeSource"), "ephemeral": ref(CORE + "EphemeralVolumeSource"),
        "image": ref(CORE + "ImageVolumeSource")},
    CORE + "VolumeProjection": {
        "clusterTrustBundle": ref(CORE + "ClusterTrustBundleProjection"),
        "podCertificate": ref(CORE + "PodCertificateProjection")},
    CORE + "QuobyteVolumeSource": {"tenant": s()},
    CORE + "PodAffinityTerm": {
        "matchLabelKeys": arr(s()), "mismatchLabelKeys": arr(s()),
        "namespaceSelector": ref(META + "LabelSelector")},
    CORE + "PersistentVolumeClaimSpec": {
        "dataSourceRef": ref(CORE + "TypedObjectReference"), "volumeAttributesClassName": s()},
    HPA + "MetricSpec": {"containerResource": ref(HPA + "ContainerResourceMetricSource")},
}

# x-kubernetes-list-type map keys, by (definition, property), where the v1.9.4 CRD has them.
LIST_MAP_KEYS = {
    (CORE + "PodSpec", "containers"): ["name"],
    (CORE + "PodSpec", "initContainers"): ["name"],
    (CORE + "PodSpec", "ephemeralContainers"): ["name"],
    (CORE + "PodSpec", "volumes"): ["name"],
    (CORE + "PodSpec", "hostAliases"): ["ip"],
    (CORE + "PodSpec", "imagePullSecrets"): ["name"],
    (CORE + "PodSpec", "topologySpreadConstraints"): ["topologyKey", "whenUnsatisfiable"],
    (CORE + "PodSpec", "schedulingGates"): ["name"],
    (CORE + "PodSpec", "resourceClaims"): ["name"],
    (CORE + "Container", "ports"): ["containerPort", "protocol"],
    (CORE + "Container", "env"): ["name"],
    (CORE + "Container", "volumeMounts"): ["mountPath"],
    (CORE + "Container", "volumeDevices"): ["devicePath"],
    (CORE + "ResourceRequirements", "claims"): ["name"],
}
for _field in ("ports", "env", "volumeMounts", "volumeDevices"):
    LIST_MAP_KEYS[(CORE + "EphemeralContainer", _field)] = LIST_MAP_KEYS[(CORE + "Container", _field)]
LIST_SETS = {(CORE + "ContainerRestartRuleOnExitCodes", "values")}

# Defaults the CRD carries (list-map keys need them; named references default to "").
DEFAULTS = {
    (CORE + "ContainerPort", "protocol"): "TCP",
    (CORE + "LocalObjectReference", "name"): "",
    (CORE + "ConfigMapKeySelector", "name"): "",
    (CORE + "SecretKeySelector", "name"): "",
    (CORE + "ConfigMapEnvSource", "name"): "",
    (CORE + "SecretEnvSource", "name"): "",
    (CORE + "ConfigMapVolumeSource", "name"): "",
    (CORE + "ConfigMapProjection", "name"): "",
    (CORE + "SecretProjection", "name"): "",
    (CORE + "AzureDiskVolumeSource", "fsType"): "ext4",
    (CORE + "AzureDiskVolumeSource", "readOnly"): False,
    (CORE + "ISCSIVolumeSource", "iscsiInterface"): "default",
    (CORE + "RBDVolumeSource", "keyring"): "/etc/ceph/keyring",
    (CORE + "RBDVolumeSource", "pool"): "rbd",
    (CORE + "RBDVolumeSource", "user"): "admin",
    (CORE + "ScaleIOVolumeSource", "fsType"): "xfs",
    (CORE + "ScaleIOVolumeSource", "storageMode"): "ThinProvisioned",
}

# Maps the CRD marks atomic (selectors, nodeSelector).
ATOMIC_MAPS = {META + "LabelSelector", CORE + "LocalObjectReference"}


def ephemeral_container(container):
    """EphemeralContainer: a Container plus targetContainerName (k8s 1.16+)."""
    out = copy.deepcopy(container)
    out["properties"]["targetContainerName"] = s()
    return out


def with_overlay(definitions):
    defs = copy.deepcopy(definitions)
    for name, definition in NEW_DEFINITIONS.items():
        if name in defs:
            raise SystemExit(f"overlay defines '{name}', which the swagger already has")
        defs[name] = copy.deepcopy(definition)
    for name, fields in ADDED_FIELDS.items():
        props = defs[name].setdefault("properties", {})
        for field, schema in fields.items():
            if field in props:
                raise SystemExit(f"overlay adds '{name}.{field}', which the swagger already has")
            props[field] = copy.deepcopy(schema)
    for (name, field), schema in REPLACED_FIELDS.items():
        defs[name]["properties"][field] = copy.deepcopy(schema)
    for name, required in REQUIRED_OVERRIDES.items():
        defs[name]["required"] = list(required)
    defs[CORE + "EphemeralContainer"] = ephemeral_container(defs[CORE + "Container"])
    return defs


# ---------------------------------------------------------------------------------------------
# Conversion as controller-gen does it.

def int_or_string(pattern=None):
    out = {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}
    if pattern:
        out["pattern"] = pattern
    return out


def template_metadata():
    # controller-gen's embedded ObjectMeta for templates: only these five fields.
    return obj({"annotations": smap(), "finalizers": arr(s()), "labels": smap(), "name": s(),
                "namespace": s()})


SPECIAL_REFS = {
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": lambda: int_or_string(),
    "io.k8s.apimachinery.pkg.api.resource.Quantity": lambda: int_or_string(QUANTITY_PATTERN),
    "quantity": lambda: int_or_string(QUANTITY_PATTERN),
    META + "Time": lambda: {"type": "string", "format": "date-time"},
    META + "MicroTime": lambda: {"type": "string", "format": "date-time"},
    META + "ObjectMeta": template_metadata,
}

KEPT_FORMATS = {"int32", "int64", "date-time"}


class Converter:
    def __init__(self, definitions):
        self.defs = definitions

    def definition(self, name, stack=()):
        if name in SPECIAL_REFS:
            return SPECIAL_REFS[name]()
        if name in stack:
            raise SystemExit("recursive definition: " + " -> ".join(stack + (name,)))
        if name not in self.defs:
            raise SystemExit(f"unknown definition '{name}'")
        return self.schema(self.defs[name], name, stack + (name,))

    def schema(self, node, owner, stack):
        if "$template_metadata" in node:
            return template_metadata()
        if "$ref" in node:
            return self.definition(node["$ref"].rsplit("/", 1)[-1], stack)
        out = {}
        kind = node.get("type")
        if kind is None and "properties" in node:
            kind = "object"
        if kind == "string" and node.get("format") == "int-or-string":
            return int_or_string()
        if kind:
            out["type"] = kind
        if node.get("format") in KEPT_FORMATS:
            out["format"] = node["format"]
        for key in ("enum", "default", "pattern", "minimum", "maximum", "minLength", "maxLength"):
            if key in node:
                out[key] = node[key]
        if "properties" in node:
            props = {}
            for field, sub in node["properties"].items():
                converted = self.schema(sub, owner, stack)
                if (owner, field) in DEFAULTS:
                    converted["default"] = DEFAULTS[(owner, field)]
                if (owner, field) in LIST_MAP_KEYS:
                    converted["x-kubernetes-list-type"] = "map"
                    converted["x-kubernetes-list-map-keys"] = LIST_MAP_KEYS[(owner, field)]
                if (owner, field) in LIST_SETS:
                    converted["x-kubernetes-list-type"] = "set"
                if owner == CORE + "PodSpec" and field == "nodeSelector":
                    converted["x-kubernetes-map-type"] = "atomic"
                props[field] = converted
            out["properties"] = props
            if owner in ATOMIC_MAPS:
                out["x-kubernetes-map-type"] = "atomic"
        if node.get("required"):
            out["required"] = sorted(node["required"])
        if "items" in node:
            out["items"] = self.schema(node["items"], owner, stack)
        if isinstance(node.get("additionalProperties"), dict):
            out["additionalProperties"] = self.schema(node["additionalProperties"], owner, stack)
        return out


# ---------------------------------------------------------------------------------------------
# PyTorchJob spec and status as kubeflow/trainer v1.9.4 defines them
# (pkg/apis/kubeflow.org/v1/{pytorch,common}_types.go, manifests/base/crds/kubeflow.org_pytorchjobs.yaml).

def pytorchjob(conv):
    label_selector = conv.definition(META + "LabelSelector")
    run_policy = obj({
        "activeDeadlineSeconds": i64(),
        "backoffLimit": i32(),
        "cleanPodPolicy": s(),
        "managedBy": s(),
        "schedulingPolicy": obj({
            "minAvailable": i32(),
            "minResources": {"type": "object", "additionalProperties": int_or_string(QUANTITY_PATTERN)},
            "priorityClass": s(),
            "queue": dict(s(), **{"x-kubernetes-validations": [{
                "message": "spec.runPolicy.schedulingPolicy.queue is immutable",
                "rule": "self == oldSelf"}]}),
            "scheduleTimeoutSeconds": i32(),
        }),
        "suspend": dict(b(), default=False),
        "ttlSecondsAfterFinished": i32(),
    })
    elastic_policy = obj({
        "maxReplicas": i32(),
        "maxRestarts": i32(),
        "metrics": arr(conv.definition(HPA + "MetricSpec")),
        "minReplicas": i32(),
        "nProcPerNode": i32(),
        "rdzvBackend": s(),
        "rdzvConf": arr(obj({"key": s(), "value": s()})),
        "rdzvHost": s(),
        "rdzvId": s(),
        "rdzvPort": i32(),
        "standalone": b(),
    })
    replica_spec = obj({
        "replicas": i32(),
        "restartPolicy": s(),
        "template": conv.definition(CORE + "PodTemplateSpec"),
    })
    spec = obj({
        "elasticPolicy": elastic_policy,
        "nprocPerNode": s(),
        "pytorchReplicaSpecs": {"type": "object", "additionalProperties": replica_spec},
        "runPolicy": run_policy,
    }, ["pytorchReplicaSpecs"])
    condition = obj({
        "lastTransitionTime": {"type": "string", "format": "date-time"},
        "lastUpdateTime": {"type": "string", "format": "date-time"},
        "message": s(), "reason": s(), "status": s(), "type": s(),
    }, ["status", "type"])
    replica_status = obj({
        "active": i32(), "failed": i32(), "labelSelector": label_selector, "selector": s(),
        "succeeded": i32(),
    })
    status = obj({
        "completionTime": {"type": "string", "format": "date-time"},
        "conditions": arr(condition),
        "lastReconcileTime": {"type": "string", "format": "date-time"},
        "replicaStatuses": {"type": "object", "additionalProperties": replica_status},
        "startTime": {"type": "string", "format": "date-time"},
    })
    return obj({
        "apiVersion": s(), "kind": s(), "metadata": {"type": "object"}, "spec": spec,
        "status": status,
    })


def load_swagger_definitions(path, tool):
    """The swagger file's definitions, or None after saying on stderr how to install it."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)["definitions"]
    except OSError as e:
        print(f"{tool}: reading '{path}': {e.strerror}\n"
              "  install it with: apt-get install -y golang-k8s-kube-openapi-dev", file=sys.stderr)
        return None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swagger", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    definitions = load_swagger_definitions(args.swagger, "gen_carried_schema")
    if definitions is None:
        return 1
    conv = Converter(with_overlay(definitions))
    text = json.dumps(pytorchjob(conv), sort_keys=True, separators=(",", ":"))
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
