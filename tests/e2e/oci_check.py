"""Checks an OCI image layout the way a registry and a runtime read it: every blob is named by its
sha256 and has the size its descriptor says, the layer's diff_id is the digest of the uncompressed tar,
and the config is what the controller's Deployment relies on.

    oci_check.py LAYOUT VERSION [EXTRACT_DIR]
Exits 1 with one line per problem; with EXTRACT_DIR, unpacks the layer there (no absolute or ..
names, no device files).
"""
import gzip
import hashlib
import json
import os
import sys
import tarfile

MANIFEST = "application/vnd.oci.image.manifest.v1+json"
CONFIG = "application/vnd.oci.image.config.v1+json"
LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"


def read_blob(layout, descriptor, out):
    algo, _, hexdigest = descriptor.get("digest", "").partition(":")
    path = os.path.join(layout, "blobs", algo, hexdigest)
    if algo != "sha256" or not os.path.isfile(path):
        out.append(f"blob {descriptor.get('digest')} is missing")
        return b""
    with open(path, "rb") as f:
        data = f.read()
    if hashlib.sha256(data).hexdigest() != hexdigest:
        out.append(f"blob {hexdigest} does not hash to its name")
    if len(data) != descriptor.get("size"):
        out.append(f"blob {hexdigest} is {len(data)} bytes, its descriptor says {descriptor.get('size')}")
    return data


def problems(layout, version, extract):
    out = []
    with open(os.path.join(layout, "oci-layout")) as f:
        if json.load(f).get("imageLayoutVersion") != "1.0.0":
            out.append("oci-layout: imageLayoutVersion is not 1.0.0")
    with open(os.path.join(layout, "index.json")) as f:
        index = json.load(f)
    entries = index.get("manifests", [])
    if len(entries) != 1 or entries[0].get("mediaType") != MANIFEST:
        return out + ["index.json must name exactly one image manifest"]
    if entries[0].get("annotations", {}).get("org.opencontainers.image.ref.name") != version:
        out.append(f"index.json: the manifest is not tagged {version}")
    manifest = json.loads(read_blob(layout, entries[0], out) or b"{}")
    if manifest.get("config", {}).get("mediaType") != CONFIG:
        out.append("manifest: config mediaType is not the OCI image config")
    layers = manifest.get("layers", [])
    if len(layers) != 1 or layers[0].get("mediaType") != LAYER:
        return out + ["manifest: expected one gzip layer"]
    config = json.loads(read_blob(layout, manifest["config"], out) or b"{}")
    layer = read_blob(layout, layers[0], out)
    tar_bytes = gzip.decompress(layer)
    diff_id = "sha256:" + hashlib.sha256(tar_bytes).hexdigest()
    if config.get("rootfs", {}).get("diff_ids") != [diff_id]:
        out.append("config: rootfs.diff_ids is not the uncompressed layer's digest")
    c = config.get("config", {})
    if c.get("User") != "65532:65532":
        out.append(f"config: User is {c.get('User')!r}, not the non-root 65532:65532")
    if c.get("Entrypoint") != ["/usr/local/bin/kubectl-pytorch"] or c.get("Cmd") != ["controller"]:
        out.append(f"config: Entrypoint/Cmd are {c.get('Entrypoint')} {c.get('Cmd')}")
    labels = c.get("Labels", {})
    if labels.get("org.opencontainers.image.version") != version:
        out.append(f"config: version label is {labels.get('org.opencontainers.image.version')!r}")
    if len(labels.get("org.opencontainers.image.revision", "")) != 40:
        out.append("config: the revision label is not a commit id")
    if extract:
        import io
        with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
            for member in tar.getmembers():
                if member.name.startswith("/") or ".." in member.name.split("/"):
                    out.append(f"layer: unsafe name {member.name}")
                if not (member.isfile() or member.isdir() or member.issym()):
                    out.append(f"layer: {member.name} is neither file, directory nor symlink")
                if member.mtime != tar.getmembers()[0].mtime:
                    out.append(f"layer: {member.name} has its own mtime")
            if not out:
                tar.extractall(extract)
    return out


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    found = problems(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None)
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
