"""Checks a krew plugin manifest the way krew's validator does, and that the archive of
this machine's platform matches its sha256 and holds the bin and a LICENSE.

    krew_check.py MANIFEST [ARCHIVE]
Exits 1 with one line per problem.
"""
import hashlib
import re
import sys
import tarfile

import yaml

PLATFORMS = {("linux", a) for a in ("386", "amd64", "arm", "arm64", "ppc64le")} | \
            {("darwin", a) for a in ("386", "amd64", "arm64")} | \
            {("windows", a) for a in ("386", "amd64", "arm64")}


def problems(manifest, archive):
    out = []
    if manifest.get("apiVersion") != "krew.googlecontainertools.github.com/v1alpha2":
        out.append("apiVersion must be krew.googlecontainertools.github.com/v1alpha2")
    if manifest.get("kind") != "Plugin":
        out.append("kind must be Plugin")
    name = manifest.get("metadata", {}).get("name", "")
    if not re.fullmatch(r"[\w-]+", name):
        out.append(f"metadata.name {name!r} must match ^[\\w-]+$")
    spec = manifest.get("spec", {})
    if not re.fullmatch(r"v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?", str(spec.get("version", ""))):
        out.append(f"spec.version {spec.get('version')!r} must be a v-prefixed semver")
    short = spec.get("shortDescription", "")
    if not short or "\n" in short or len(short) > 50:
        out.append("spec.shortDescription must be one line of at most 50 characters")
    seen = set()
    platforms = spec.get("platforms") or []
    if not platforms:
        out.append("spec.platforms must not be empty")
    for i, p in enumerate(platforms):
        labels = (p.get("selector") or {}).get("matchLabels") or {}
        if not labels or set(labels) - {"os", "arch"}:
            out.append(f"platforms[{i}].selector must use only os and arch")
        pair = (labels.get("os"), labels.get("arch"))
        if pair not in PLATFORMS:
            out.append(f"platforms[{i}] {pair} is not a platform krew supports")
        if pair in seen:
            out.append(f"platforms[{i}] {pair} overlaps another entry")
        seen.add(pair)
        if not re.fullmatch(r"[a-f0-9]{64}", str(p.get("sha256", ""))):
            out.append(f"platforms[{i}].sha256 must be 64 lowercase hex digits")
        if not str(p.get("uri", "")).endswith((".tar.gz", ".zip")):
            out.append(f"platforms[{i}].uri must name a .tar.gz or .zip archive")
        if spec.get("version") not in str(p.get("uri", "")):
            out.append(f"platforms[{i}].uri does not carry the version {spec.get('version')}")
        if not p.get("bin"):
            out.append(f"platforms[{i}].bin is required")
        for f in p.get("files") or []:
            if not f.get("from") or not f.get("to"):
                out.append(f"platforms[{i}].files entries need from and to")
    if archive:
        digest = hashlib.sha256(open(archive, "rb").read()).hexdigest()
        mine = [p for p in platforms if p.get("uri", "").endswith("/" + archive.split("/")[-1])]
        if len(mine) != 1:
            out.append(f"no platform entry names {archive.split('/')[-1]}")
        elif mine[0]["sha256"] != digest:
            out.append(f"sha256 {mine[0]['sha256']} does not match the archive ({digest})")
        else:
            with tarfile.open(archive) as tar:
                names = {n.lstrip("./") for n in tar.getnames()}
            if mine[0]["bin"] not in names:
                out.append(f"bin {mine[0]['bin']} is not in the archive")
            if not any(n.lower() in ("license", "license.txt", "license.md") for n in names):
                out.append("no LICENSE file in the archive")
    return out


def main():
    manifest = yaml.safe_load(open(sys.argv[1]))
    found = problems(manifest, sys.argv[2] if len(sys.argv) > 2 else None)
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
