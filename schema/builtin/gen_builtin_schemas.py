#!/usr/bin/env python3
"""Writes the schemas the embedded API server validates its built-in kinds with.

Input: the Kubernetes v1.13 swagger 2.0 definitions shipped by Debian's golang-k8s-kube-openapi-dev
(types, formats and required lists), and k8s_go_types.json (extract_go_types.py: the Go types of a
current release), which is the overlay: the fields and definitions Kubernetes added after v1.13, and
what a definition is called now (batch/v1 CronJob was batch/v1beta1 in v1.13). A field only the
swagger has (removed since) stays, accepting anything, so that no client is refused for sending it.

The output is a JSON list of {group, version, kind, schema} (kpt_schema_compile --openapi-set
compiles it), each schema with every definition inlined, as the real server's typed decoder sees
the object:
  - the object's `metadata` is the whole ObjectMeta (the server checks names and labels itself),
    and so is a pod template's;
  - `status` accepts fields it does not know (only controllers write it, and they may be newer);
  - quantities take any string matching the quantity pattern, or a number;
  - required lists are the swagger's, adjusted to what the real validation requires (REQUIRED),
    and a required string must not be empty (minLength 1), as the validation's len() == 0 checks;
  - a few rules of the real validation that depend on other fields are CEL rules whose message is
    the field error's text ("Required value").
Descriptions are dropped; the output is deterministic (sorted keys, compact).

Usage: gen_builtin_schemas.py --swagger swagger.json --go-types k8s_go_types.json --out kinds.json
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "carried"))
from gen_carried_schema import QUANTITY_PATTERN, load_swagger_definitions  # noqa: E402

CORE = "io.k8s.api.core.v1."
META = "io.k8s.apimachinery.pkg.apis.meta.v1."

# Definitions whose v1.13 swagger name differs from the current one.
ALIASES = {
    "io.k8s.api.batch.v1.CronJob": "io.k8s.api.batch.v1beta1.CronJob",
    "io.k8s.api.batch.v1.CronJobSpec": "io.k8s.api.batch.v1beta1.CronJobSpec",
    "io.k8s.api.batch.v1.CronJobStatus": "io.k8s.api.batch.v1beta1.CronJobStatus",
    "io.k8s.api.batch.v1.JobTemplateSpec": "io.k8s.api.batch.v1beta1.JobTemplateSpec",
    "io.k8s.api.coordination.v1.Lease": "io.k8s.api.coordination.v1beta1.Lease",
    "io.k8s.api.coordination.v1.LeaseSpec": "io.k8s.api.coordination.v1beta1.LeaseSpec",
    "io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration":
        "io.k8s.api.admissionregistration.v1beta1.ValidatingWebhookConfiguration",
    "io.k8s.api.admissionregistration.v1.ValidatingWebhook": "io.k8s.api.admissionregistration.v1beta1.Webhook",
    "io.k8s.api.admissionregistration.v1.RuleWithOperations":
        "io.k8s.api.admissionregistration.v1beta1.RuleWithOperations",
    "io.k8s.api.admissionregistration.v1.ServiceReference":
        "io.k8s.api.admissionregistration.v1beta1.ServiceReference",
    "io.k8s.api.admissionregistration.v1.WebhookClientConfig":
        "io.k8s.api.admissionregistration.v1beta1.WebhookClientConfig",
    CORE + "LifecycleHandler": CORE + "Handler",
    "io.k8s.api.policy.v1.PodDisruptionBudget": "io.k8s.api.policy.v1beta1.PodDisruptionBudget",
    "io.k8s.api.policy.v1.PodDisruptionBudgetSpec": "io.k8s.api.policy.v1beta1.PodDisruptionBudgetSpec",
    "io.k8s.api.policy.v1.PodDisruptionBudgetStatus": "io.k8s.api.policy.v1beta1.PodDisruptionBudgetStatus",
    "io.k8s.api.scheduling.v1.PriorityClass": "io.k8s.api.scheduling.v1beta1.PriorityClass",
}
# Packages whose v1.13 definitions are those of a beta version with the same fields (autoscaling/v2
# is v2beta2 promoted). networking.k8s.io/v1 Ingress is not one: its backend changed shape since
# extensions/v1beta1, so it has no swagger definition and its required fields are in REQUIRED.
PACKAGE_ALIASES = {
    "io.k8s.api.autoscaling.v2.": "io.k8s.api.autoscaling.v2beta2.",
}

# Required fields where the real validation differs from the v1.13 swagger's lists: these are
# "Required value" there (an empty string too), and no others.
REQUIRED = {
    CORE + "Container": ["image", "name"],
    CORE + "EphemeralContainer": ["image", "name"],
    CORE + "Event": [],                      # involvedObject is checked field by field
    CORE + "HTTPHeader": ["name"],           # the value may be empty
    CORE + "ProjectedVolumeSource": [],      # sources became optional
    "io.k8s.api.admissionregistration.v1.ValidatingWebhook": ["name"],  # one of url or service
    "io.k8s.api.admissionregistration.v1.WebhookClientConfig": [],       # caBundle became optional
    META + "OwnerReference": [],             # the server checks them with ObjectMeta
    "io.k8s.api.rbac.v1.ClusterRole": [],    # an aggregated role has its rules filled in
    "io.k8s.api.rbac.v1.Role": [],           # no rules: a role that grants nothing
    # pkg/apis/networking/validation: a path's type and backend, a rule's paths, a service
    # backend's name and port are required.
    "io.k8s.api.networking.v1.HTTPIngressRuleValue": ["paths"],
    "io.k8s.api.networking.v1.HTTPIngressPath": ["backend", "pathType"],
    "io.k8s.api.networking.v1.IngressServiceBackend": ["name", "port"],
}

# Rules of the real validation (k8s.io/kubernetes pkg/apis/*/validation) that depend on other
# fields. Keyed by definition; each rule's message is the field error's body.
RULES = {
    # ValidatePodDisruptionBudgetSpec: an Invalid value on spec.
    "io.k8s.api.policy.v1.PodDisruptionBudget": [{
        "rule": "!has(self.spec) || !has(self.spec.minAvailable) || !has(self.spec.maxUnavailable)",
        "message": "minAvailable and maxUnavailable cannot be both set",
        "fieldPath": ".spec",
    }],
    # ValidateService: ports are required unless the Service is headless or an ExternalName.
    CORE + "Service": [{
        "rule": "has(self.spec) && ((has(self.spec.type) && self.spec.type == 'ExternalName') || "
                "(has(self.spec.clusterIP) && self.spec.clusterIP == 'None') || "
                "(has(self.spec.ports) && size(self.spec.ports) > 0))",
        "message": "Required value",
        "fieldPath": ".spec.ports",
    }],
}

SCALARS = {
    "string": {"type": "string"},
    "bool": {"type": "boolean"},
    "int32": {"type": "integer", "format": "int32"},
    "int64": {"type": "integer", "format": "int64"},
    "int": {"type": "integer", "format": "int64"},
    "float32": {"type": "number"},
    "float64": {"type": "number"},
    # A quantity decodes from a string or a number (k8s.io/apimachinery resource.Quantity.UnmarshalJSON).
    "$quantity": {"pattern": QUANTITY_PATTERN},
    "$intorstring": {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True},
    "$time": {"type": "string"},
    "$duration": {"type": "string"},
    "$raw": {"x-kubernetes-preserve-unknown-fields": True},
}


class Generator:
    def __init__(self, swagger, go_types):
        self.swagger = swagger
        self.go = go_types["structs"]
        self.kinds = go_types["kinds"]

    def swagger_definition(self, name):
        for new, old in PACKAGE_ALIASES.items():
            if name.startswith(new):
                name = old + name[len(new):]
        return self.swagger.get(ALIASES.get(name, name))

    def shape(self, shape, lenient, stack):
        if shape.startswith("[]"):
            return {"type": "array", "items": self.shape(shape[2:], lenient, stack)}
        if shape.startswith("map[]"):
            return {"type": "object", "additionalProperties": self.shape(shape[5:], lenient, stack)}
        if shape.startswith("@"):
            return self.struct(shape[1:], lenient, stack)
        return dict(SCALARS[shape])

    def struct(self, name, lenient, stack=()):
        if name in stack:
            raise SystemExit("recursive definition: " + " -> ".join(stack + (name,)))
        stack = stack + (name,)
        fields = self.go[name]["fields"]
        old = self.swagger_definition(name) or {}
        old_props = old.get("properties", {})
        props = {}
        for field, (_, shape) in fields.items():
            props[field] = self.field(name, field, shape, old_props.get(field), lenient, stack)
        for field in old_props:
            props.setdefault(field, {"x-kubernetes-preserve-unknown-fields": True})  # removed since v1.13
        out = {"type": "object", "properties": props}
        if lenient:
            out["x-kubernetes-preserve-unknown-fields"] = True
            return out
        required = REQUIRED.get(name, old.get("required", []))
        if required:
            out["required"] = sorted(required)
            for field in required:
                if props[field].get("type") == "string":
                    props[field]["minLength"] = 1
        if name in RULES:
            out["x-kubernetes-validations"] = RULES[name]
        return out

    def field(self, owner, field, shape, old, lenient, stack):
        lenient = lenient or (field == "status" and owner in self.kinds.values())
        out = self.shape(shape, lenient, stack)
        if old is not None and "format" in old and out.get("format") not in (None, old["format"]):
            # The swagger's format where the current type agrees in kind (int32 vs int64 never changed).
            raise SystemExit(f"{owner}.{field}: format {old['format']} in the swagger, {out['format']} now")
        return out

    def patch_keys(self, name, prefix, out, stack=()):
        """The strategic-merge-patch strategies of the lists under struct `name`, as
        {"spec.containers.env": {"key": "name", "strategy": "merge"}} (a list's items are transparent
        in the path), from the swagger's x-kubernetes-patch-* extensions: the lists v1.13 did not
        have are replaced whole by a patch, as atomic lists are."""
        if name in stack:
            return
        stack = stack + (name,)
        old_props = (self.swagger_definition(name) or {}).get("properties", {})
        for field, (_, shape) in sorted(self.go[name]["fields"].items()):
            path = prefix + field
            old = old_props.get(field, {})
            if "x-kubernetes-patch-strategy" in old:
                entry = {"strategy": old["x-kubernetes-patch-strategy"]}
                if "x-kubernetes-patch-merge-key" in old:
                    entry["key"] = old["x-kubernetes-patch-merge-key"]
                out[path] = entry
            while shape.startswith("[]") or shape.startswith("map[]"):
                shape = shape[2:] if shape.startswith("[]") else shape[5:]
            if shape.startswith("@"):
                self.patch_keys(shape[1:], path + ".", out, stack)

    def kind(self, api_version, kind):
        group, _, version = api_version.rpartition("/")
        schema = self.struct(self.kinds[api_version + "/" + kind], False)
        return {"group": group, "version": version, "kind": kind, "schema": schema}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swagger", required=True)
    parser.add_argument("--go-types", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--patch-keys-out", help="also write each kind's strategic-merge-patch list keys")
    args = parser.parse_args(argv)
    swagger = load_swagger_definitions(args.swagger, "gen_builtin_schemas")
    if swagger is None:
        return 1
    with open(args.go_types, encoding="utf-8") as f:
        go_types = json.load(f)
    gen = Generator(swagger, go_types)
    kinds = []
    for key in sorted(go_types["kinds"]):
        api_version, _, kind = key.rpartition("/")
        kinds.append(gen.kind(api_version, kind))
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(json.dumps(kinds, sort_keys=True, separators=(",", ":")) + "\n")
    if args.patch_keys_out:
        keys = {}
        for key in sorted(go_types["kinds"]):
            keys[key] = {}
            gen.patch_keys(go_types["kinds"][key], "", keys[key])
        with open(args.patch_keys_out, "w", encoding="utf-8") as f:
            f.write(json.dumps(keys, sort_keys=True, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
