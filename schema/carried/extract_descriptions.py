#!/usr/bin/env python3
"""Extracts the field descriptions of upstream CustomResourceDefinitions into a compact data file.

The descriptions of Kubeflow's CRDs are the Go doc comments of their API types (public API
documentation), which controller-gen copies into every schema node. Our carried schemas are
generated without them (gen_carried_schema.py, gen_trainer_crds.py); this keeps them as data, so
`controller manifests` ships CRDs that `kubectl explain` can document without the generated schemas
or the compiled validators growing.

Output: {"texts": [...], "nodes": [[text, {child: node}], ...], "crds": {crd name: node}}. A node is a
schema position: its description (an index into texts, -1 for none) and its children, keyed by
property name, "*" for additionalProperties and "[]" for items. Equal subtrees (a pod template met
in several places) are stored once, so the file grows with the distinct types, not with their uses.

Usage: extract_descriptions.py --out descriptions.json CRD.yaml...   (run by hand on a new release;
the upstream files are kubeflow/trainer's manifests/base/crds/*.yaml at the carried tags)
"""

import argparse
import json
import sys

import yaml


class Table:
    def __init__(self):
        self.texts, self.text_ids = [], {}
        self.nodes, self.node_ids = [], {}

    def text(self, value):
        if value not in self.text_ids:
            self.text_ids[value] = len(self.texts)
            self.texts.append(value)
        return self.text_ids[value]

    def node(self, schema):
        """The id of `schema`'s description tree, or None when nothing below it has a description."""
        if not isinstance(schema, dict):
            return None
        children = {}
        for key, child in sorted((schema.get("properties") or {}).items()):
            children[key] = self.node(child)
        if isinstance(schema.get("additionalProperties"), dict):
            children["*"] = self.node(schema["additionalProperties"])
        if isinstance(schema.get("items"), dict):
            children["[]"] = self.node(schema["items"])
        children = {k: v for k, v in children.items() if v is not None}
        text = self.text(schema["description"]) if "description" in schema else -1
        if text == -1 and not children:
            return None
        key = json.dumps([text, children], sort_keys=True)
        if key not in self.node_ids:
            self.node_ids[key] = len(self.nodes)
            self.nodes.append([text, children])
        return self.node_ids[key]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("crds", nargs="+")
    args = parser.parse_args(argv)
    table = Table()
    roots = {}
    for path in args.crds:
        with open(path, encoding="utf-8") as f:
            crd = yaml.safe_load(f)
        for version in crd["spec"]["versions"]:
            root = table.node(version["schema"]["openAPIV3Schema"])
            if root is not None:
                roots[crd["metadata"]["name"] + "/" + version["name"]] = root
    out = {"crds": roots, "nodes": table.nodes, "texts": table.texts}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
