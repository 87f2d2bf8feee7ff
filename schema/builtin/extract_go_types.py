#!/usr/bin/env python3
"""Writes k8s_go_types.json: the Go types of the built-in kinds the embedded API server serves, and
of those validate also checks.

A development tool, not part of the build: run it by hand against checkouts of kubernetes/api and
kubernetes/apimachinery at one release, and commit its output. The build reads that output (the
fields Kubernetes added after the v1.13 swagger, and the Go type of every field, which the real API
server's decode errors name: "json: cannot unmarshal number into Go struct field ConfigMap.data of
type string").

For every struct reachable from the served kinds, each JSON field is listed as [display, shape]:
  display  the field's type as Go's reflect prints it in a decode error, pointers removed
           ("int32", "[]v1.Container", "v1.ResourceList", "map[string][]uint8")
  shape    its structure for the generator and for walking a field path:
           "[]" SHAPE | "map[]" SHAPE | "@" DEFINITION | a scalar (string, int32, int64, bool,
           float64) | "$quantity" | "$intorstring" | "$time" | "$duration" | "$raw" (any JSON)
Definitions are named as in the Kubernetes OpenAPI ("io.k8s.api.core.v1.Container").

Usage: extract_go_types.py --api DIR --apimachinery DIR --release v0.36.3 --out k8s_go_types.json
(DIR: a checkout, or a bare git directory read at --release with `git show`).
"""

import argparse
import json
import os
import re
import subprocess
import sys

# The served kinds: (group/version as the API spells it, kind, Go package path).
KINDS = [
    ("v1", "ConfigMap", "k8s.io/api/core/v1"),
    ("v1", "Secret", "k8s.io/api/core/v1"),
    ("v1", "Namespace", "k8s.io/api/core/v1"),
    ("v1", "Service", "k8s.io/api/core/v1"),
    ("v1", "ServiceAccount", "k8s.io/api/core/v1"),
    ("v1", "Pod", "k8s.io/api/core/v1"),
    ("v1", "Event", "k8s.io/api/core/v1"),
    ("batch/v1", "Job", "k8s.io/api/batch/v1"),
    ("batch/v1", "CronJob", "k8s.io/api/batch/v1"),
    ("apps/v1", "Deployment", "k8s.io/api/apps/v1"),
    ("coordination.k8s.io/v1", "Lease", "k8s.io/api/coordination/v1"),
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration",
     "k8s.io/api/admissionregistration/v1"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole", "k8s.io/api/rbac/v1"),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "k8s.io/api/rbac/v1"),
    ("rbac.authorization.k8s.io/v1", "Role", "k8s.io/api/rbac/v1"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", "k8s.io/api/rbac/v1"),
    ("policy/v1", "PodDisruptionBudget", "k8s.io/api/policy/v1"),
    # Not served by the embedded API server: kinds a job's file carries beside the job, which
    # validate checks with the same schemas.
    ("v1", "PersistentVolumeClaim", "k8s.io/api/core/v1"),
    ("v1", "ResourceQuota", "k8s.io/api/core/v1"),
    ("v1", "LimitRange", "k8s.io/api/core/v1"),
    ("apps/v1", "StatefulSet", "k8s.io/api/apps/v1"),
    ("networking.k8s.io/v1", "NetworkPolicy", "k8s.io/api/networking/v1"),
    ("networking.k8s.io/v1", "Ingress", "k8s.io/api/networking/v1"),
    ("autoscaling/v2", "HorizontalPodAutoscaler", "k8s.io/api/autoscaling/v2"),
    ("scheduling.k8s.io/v1", "PriorityClass", "k8s.io/api/scheduling/v1"),
]

# Go packages read, and the file holding their types (relative to the repository root).
PACKAGES = {
    "k8s.io/api/core/v1": ("api", "core/v1/types.go"),
    "k8s.io/api/batch/v1": ("api", "batch/v1/types.go"),
    "k8s.io/api/apps/v1": ("api", "apps/v1/types.go"),
    "k8s.io/api/coordination/v1": ("api", "coordination/v1/types.go"),
    "k8s.io/api/admissionregistration/v1": ("api", "admissionregistration/v1/types.go"),
    "k8s.io/api/rbac/v1": ("api", "rbac/v1/types.go"),
    "k8s.io/api/policy/v1": ("api", "policy/v1/types.go"),
    "k8s.io/api/networking/v1": ("api", "networking/v1/types.go"),
    "k8s.io/api/autoscaling/v2": ("api", "autoscaling/v2/types.go"),
    "k8s.io/api/scheduling/v1": ("api", "scheduling/v1/types.go"),
    "k8s.io/apimachinery/pkg/apis/meta/v1": ("apimachinery", "pkg/apis/meta/v1/types.go"),
    "k8s.io/apimachinery/pkg/apis/meta/v1#time": ("apimachinery", "pkg/apis/meta/v1/time.go"),
}

# Types with their own UnmarshalJSON: their decode errors are not Go's usual ones.
SPECIAL = {
    "k8s.io/apimachinery/pkg/api/resource.Quantity": "$quantity",
    "k8s.io/apimachinery/pkg/util/intstr.IntOrString": "$intorstring",
    "k8s.io/apimachinery/pkg/apis/meta/v1.Time": "$time",
    "k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime": "$time",
    "k8s.io/apimachinery/pkg/apis/meta/v1.Duration": "$duration",
    "k8s.io/apimachinery/pkg/runtime.RawExtension": "$raw",
    "k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1": "$raw",
}
SCALARS = {"string", "bool", "int", "int32", "int64", "float32", "float64", "byte", "uint8"}


def definition_name(package, name):
    return "io." + package.replace("/", ".").replace("k8s.io.", "k8s.", 1) + "." + name


def short_package(package):
    return package.rsplit("/", 1)[-1]


class GoPackage:
    """The struct and named types of one Go file, with its imports."""

    def __init__(self, path, text):
        self.path = path
        self.imports = {}
        self.structs = {}
        self.named = {}
        self.parse(text)

    def parse(self, text):
        for alias, target in re.findall(r'^\s*(\w+)?\s*"(k8s\.io/[^"]+)"', text, re.M):
            self.imports[alias or target.rsplit("/", 1)[-1]] = target
        for m in re.finditer(r"^type (\w+) struct \{\n(.*?)^\}", text, re.M | re.S):
            self.structs[m.group(1)] = self.fields(m.group(2))
        for m in re.finditer(r"^type (\w+) ([^\s{]+)\s*$", text, re.M):
            self.named[m.group(1)] = m.group(2)

    @staticmethod
    def fields(body):
        out = []
        for line in body.splitlines():
            m = re.match(r"^\t(\w+)\s+([^\s`]+)\s+`[^`]*json:\"([^\"]*)\"", line)
            if m:
                out.append((m.group(1), m.group(2), m.group(3)))
                continue
            m = re.match(r"^\t([\w.]+)\s+`[^`]*json:\"([^\"]*)\"", line)  # embedded
            if m:
                out.append((None, m.group(1), m.group(2)))
        return out


class Extractor:
    def __init__(self, packages):
        self.packages = packages
        self.out = {}

    def resolve(self, package, name):
        """(package path, type name) of a possibly qualified Go identifier used in `package`."""
        if "." in name:
            alias, ident = name.split(".", 1)
            return self.packages_by_alias(package, alias), ident
        return package, name

    def packages_by_alias(self, package, alias):
        return self.packages[package].imports[alias]

    def lookup(self, package, ident):
        for key in (package, package + "#time"):
            pkg = self.packages.get(key)
            if pkg and (ident in pkg.structs or ident in pkg.named):
                return pkg
        return None

    def type_of(self, package, go):
        """(display, shape) of a Go type expression written in `package`."""
        if go.startswith("*"):
            return self.type_of(package, go[1:])
        if go.startswith("[]"):
            if go == "[]byte":
                return "[]uint8", "string"  # base64 text in JSON
            display, shape = self.type_of(package, go[2:])
            return "[]" + display, "[]" + shape
        if go.startswith("map["):
            key, value = go[4:].split("]", 1)
            key_display, _ = self.type_of(package, key)
            display, shape = self.type_of(package, value)
            return "map[" + key_display + "]" + display, "map[]" + shape
        if go in SCALARS:
            return ("uint8" if go == "byte" else go), go
        pkg_path, ident = self.resolve(package, go)
        display = short_package(pkg_path) + "." + ident
        special = SPECIAL.get(pkg_path + "." + ident)
        if special:
            return display, special
        if pkg_path == "k8s.io/apimachinery/pkg/types":
            return display, "string"  # UID, NamespacedName's parts
        pkg = self.lookup(pkg_path, ident)
        if pkg is None:
            raise SystemExit(f"unknown Go type {pkg_path}.{ident}")
        if ident in pkg.structs:
            self.struct(pkg_path, ident)
            return display, "@" + definition_name(pkg_path, ident)
        _, shape = self.type_of(pkg_path, pkg.named[ident])
        return display, shape

    def struct_fields(self, package, ident):
        """A struct's JSON fields, those of inlined embedded structs included."""
        pkg = self.lookup(package, ident)
        fields = {}
        for name, go, tag in pkg.structs[ident]:
            json_name = tag.split(",")[0]
            if json_name == "-":
                continue
            if json_name == "":  # an embedded struct whose fields are the enclosing object's
                inner_pkg, inner = self.resolve(package, go.lstrip("*"))
                if inner_pkg == "k8s.io/apimachinery/pkg/apis/meta/v1" and inner == "TypeMeta":
                    fields["apiVersion"] = ["string", "string"]
                    fields["kind"] = ["string", "string"]
                    continue
                fields.update(self.struct_fields(inner_pkg, inner))
                continue
            fields[json_name] = list(self.type_of(package, go))  # named, or embedded with a name
        return fields

    def struct(self, package, ident):
        key = definition_name(package, ident)
        if key in self.out:
            return key
        self.out[key] = None  # cycles (JSONSchemaProps has none here, but be safe)
        self.out[key] = {"name": ident, "fields": self.struct_fields(package, ident)}
        return key


def read(repo, release, relpath):
    if os.path.isdir(os.path.join(repo, ".git")) or not os.path.isdir(os.path.join(repo, "objects")):
        with open(os.path.join(repo, relpath), encoding="utf-8") as f:
            return f.read()
    return subprocess.run(["git", "--git-dir", repo, "show", f"{release}:{relpath}"], check=True,
                          capture_output=True, text=True).stdout


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", required=True)
    parser.add_argument("--apimachinery", required=True)
    parser.add_argument("--release", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    roots = {"api": args.api, "apimachinery": args.apimachinery}
    packages = {}
    for path, (repo, rel) in PACKAGES.items():
        packages[path] = GoPackage(path.split("#")[0], read(roots[repo], args.release, rel))
    # time.go holds Time; it imports nothing the types need, so it shares meta/v1's imports.
    packages["k8s.io/apimachinery/pkg/apis/meta/v1#time"].imports = \
        packages["k8s.io/apimachinery/pkg/apis/meta/v1"].imports
    ex = Extractor(packages)
    kinds = {}
    for api_version, kind, package in KINDS:
        kinds[api_version + "/" + kind] = ex.struct(package, kind)
    doc = {"release": args.release, "kinds": kinds, "structs": dict(sorted(ex.out.items()))}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, sort_keys=True, indent=0, separators=(",", ":"))
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
