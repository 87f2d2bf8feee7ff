#!/usr/bin/env python3
"""Checks a SARIF log (argv[2]) against the required subset schema (argv[1]) with Debian's
python3-jsonschema, then what a schema cannot say: every ruleIndex names the rule of its ruleId, rule ids
are unique, and a relative artifact URI is relative to %SRCROOT%. Prints "ok" or the problems; exit 1 on any."""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    log = json.load(open(sys.argv[2]))
    problems = [e.message + " at " + "/".join(map(str, e.absolute_path))
                for e in jsonschema.Draft7Validator(schema).iter_errors(log)]
    for run in log.get("runs", []):
        rules = run["tool"]["driver"]["rules"]
        ids = [r["id"] for r in rules]
        if len(ids) != len(set(ids)):
            problems.append("duplicate rule ids")
        for i, result in enumerate(run["results"]):
            index = result.get("ruleIndex", -1)
            if not 0 <= index < len(rules) or rules[index]["id"] != result.get("ruleId"):
                problems.append(f"result {i}: ruleIndex {index} does not name {result.get('ruleId')}")
            for loc in result.get("locations", []):
                art = loc["physicalLocation"]["artifactLocation"]
                if "://" not in art["uri"] and art.get("uriBaseId") != "%SRCROOT%":
                    problems.append(f"result {i}: relative uri {art['uri']} without %SRCROOT%")
    print("\n".join(problems) if problems else "ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
