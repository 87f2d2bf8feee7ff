#!/usr/bin/python3
"""The comparison validator of the `validate` benchmark: Debian's python3-jsonschema (Draft 7)
with the same generated openAPIV3Schema JSON, over the same corpus, one process.

Usage: jsonschema_validate.py SCHEMA.json CORPUS_DIR OUT.json
Writes {"files": {name: [error messages]}, "seconds": {"parse": s, "validate": s}, "jobs": n}.
YAML is read with PyYAML's libyaml loader (CSafeLoader), the fastest reader Debian ships for it.
"""

import json
import os
import sys
import time

import jsonschema
import yaml


def main(argv):
    schema_path, corpus, out_path = argv
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft7Validator(schema)
    names = sorted(n for n in os.listdir(corpus) if n.endswith((".yaml", ".yml", ".json")))
    parse_s = validate_s = 0.0
    jobs = 0
    results = {}
    for name in names:
        t0 = time.perf_counter()
        with open(os.path.join(corpus, name), encoding="utf-8") as f:
            docs = [d for d in yaml.load_all(f, Loader=yaml.CSafeLoader) if d is not None]
        t1 = time.perf_counter()
        errors = []
        for doc in docs:
            jobs += 1
            errors += [f"{'.'.join(str(p) for p in e.absolute_path)}: {e.message}"
                       for e in validator.iter_errors(doc)]
        validate_s += time.perf_counter() - t1
        parse_s += t1 - t0
        results[name] = errors
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"files": results, "seconds": {"parse": parse_s, "validate": validate_s}, "jobs": jobs}, f,
                  indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
