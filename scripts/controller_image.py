#!/usr/bin/env python3
"""The in-cluster controller's OCI image, built with no container runtime and no registry.

    scripts/controller_image.py build BINARY OUT_DIR [--repository R] [--tag T] [--revision REV] [--epoch S]
                                     [--static-libraries FILE]
    scripts/controller_image.py push OUT_DIR DESTINATION [skopeo options...]

`build` writes OUT_DIR/oci (an OCI image layout: one layer, one config, one manifest, tagged),
OUT_DIR/reference (REPOSITORY:TAG@sha256:DIGEST) and OUT_DIR/deploy/*.yaml (what `controller manifests`
prints, with the image pinned by that digest). The layer holds the stripped binary, the Debian shared
libraries `ldd` says it loads (each one traced to its package with dpkg, whose copyright file and version
go in too; so do those of the static archives linked in, listed in the build's static-libraries.txt,
BUILD/static-libraries.txt for BUILD/bin/kubectl-pytorch unless --static-libraries names another), CA certificates and a passwd naming the non-root user 65532. Every byte is a function of
the binary, the libraries and the arguments: names sorted, owners and mtimes fixed (--epoch, default
the commit time), gzip without a timestamp, JSON with sorted keys. So two builds give one digest.

`push` copies the layout to DESTINATION (docker://registry/repo:tag, or any skopeo transport) with
skopeo, keeping the digest.

Exit codes: 0 done, 1 a tool failed or a library is not from a Debian package, 2 bad arguments.
"""

import argparse
import datetime
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

ARCHES = {"x86_64": "amd64", "aarch64": "arm64"}
USER = 65532
BIN_PATH = "usr/local/bin/kubectl-pytorch"
SOURCE_URL = "https://example.org/kubectl-pytorch"
MAX_SYMLINK_HOPS = 40


class Failure(Exception):
    pass


def run(argv, **kwargs):
    try:
        return subprocess.run(argv, check=True, capture_output=True, text=True, **kwargs).stdout
    except FileNotFoundError as e:
        raise Failure(f"{argv[0]} is not installed") from e
    except OSError as e:
        raise Failure(f"{argv[0]}: {e.strerror}") from e
    except subprocess.CalledProcessError as e:
        raise Failure(f"{' '.join(argv)} failed: {e.stderr.strip()}") from e


class Tree:
    """The image's file system: path (no leading slash) -> entry, filled from host paths so that
    every symlink on the way (merged /usr: /lib -> usr/lib, /lib64/ld-linux...) is kept as a symlink."""

    def __init__(self):
        self.entries = {}

    def directory(self, path, mode=0o755, owner=0):
        path = path.strip("/")
        if not path:
            return
        self.directory(os.path.dirname(path))
        self.entries.setdefault(path, ("dir", mode, owner, None))

    def data(self, path, content, mode=0o644):
        path = path.strip("/")
        self.directory(os.path.dirname(path))
        self.entries[path] = ("file", mode, 0, content)

    def host_path(self, host):
        """Adds a host file under its own path with each symlink met while resolving it; returns the
        resolved host path."""
        pending = [c for c in host.split("/") if c]
        resolved = ""
        hops = 0
        while pending:
            part = pending.pop(0)
            current = resolved + "/" + part
            if os.path.islink(current):
                hops += 1
                if hops > MAX_SYMLINK_HOPS:
                    raise Failure(f"{host}: too many symlinks")
                target = os.readlink(current)
                self.directory(os.path.dirname(current))
                self.entries[current.strip("/")] = ("symlink", 0o777, 0, target)
                base = "" if target.startswith("/") else resolved
                pending = [c for c in (base + "/" + target).split("/") if c] + pending
                resolved = ""
                continue
            if part == "..":
                resolved = os.path.dirname(resolved)
                continue
            if part == ".":
                continue
            resolved = current
        if os.path.isdir(resolved):
            self.directory(resolved)
        else:
            with open(resolved, "rb") as f:
                mode = 0o755 if os.access(resolved, os.X_OK) else 0o644
                self.data(resolved, f.read(), mode)
        return resolved

    def layer(self, epoch):
        """The uncompressed tar, parents before children, in byte order of names."""
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for path in sorted(self.entries):
                kind, mode, owner, content = self.entries[path]
                info = tarfile.TarInfo(path)
                info.mtime = epoch
                info.mode = mode
                info.uid = info.gid = owner
                info.uname = info.gname = ""
                if kind == "dir":
                    info.type = tarfile.DIRTYPE
                    tar.addfile(info)
                elif kind == "symlink":
                    info.type = tarfile.SYMTYPE
                    info.linkname = content
                    tar.addfile(info)
                else:
                    info.size = len(content)
                    tar.addfile(info, io.BytesIO(content))
        return out.getvalue()


def shared_libraries(binary):
    """The paths ldd resolves for BINARY, the dynamic loader included (the vDSO has no file)."""
    paths = []
    for line in run(["ldd", binary]).splitlines():
        line = line.strip()
        if "not found" in line:
            raise Failure(f"{binary}: {line}")
        m = re.match(r"^\S+ => (/\S+) \(0x[0-9a-f]+\)$", line) or re.match(r"^(/\S+) \(0x[0-9a-f]+\)$", line)
        if m:
            paths.append(m.group(1))
    if not paths:
        raise Failure(f"{binary}: ldd lists no shared libraries (a static binary needs no image builder)")
    return paths


def static_archives(binary, listed):
    """The static archives linked into BINARY, from its build's static-libraries.txt (none without one)."""
    path = listed or os.path.join(os.path.dirname(os.path.dirname(binary)), "static-libraries.txt")
    if not os.path.isfile(path):
        if listed:
            raise Failure(f"{listed}: no such file")
        return []
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


def owning_package(path, resolved):
    """dpkg's package for a library; merged /usr means dpkg may know it by its /lib or /usr/lib name."""
    candidates = [path, resolved]
    for p in (path, resolved):
        if p.startswith("/usr/"):
            candidates.append(p[4:])
        else:
            candidates.append("/usr" + p)
    for c in candidates:
        try:
            out = run(["dpkg-query", "-S", c])
        except Failure:
            continue
        return out.split(":", 1)[0].split(",")[0].strip()
    raise Failure(f"{path} is not from a Debian package (dpkg -S knows none of {', '.join(candidates)})")


def package_version(package):
    return run(["dpkg-query", "-W", "-f=${Version}", package]).strip()


def strip_copy(binary):
    """The binary without debug sections: a fraction of the size, and no build paths in the image."""
    stripped = binary + ".image-stripped"
    shutil.copyfile(binary, stripped)
    try:
        run(["strip", "--strip-unneeded", stripped])
        with open(stripped, "rb") as f:
            return f.read()
    finally:
        os.unlink(stripped)


def blob(layout, content):
    digest = hashlib.sha256(content).hexdigest()
    path = os.path.join(layout, "blobs", "sha256", digest)
    with open(path, "wb") as f:
        f.write(content)
    return {"digest": "sha256:" + digest, "size": len(content)}


def canonical_json(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def commit_epoch(source_dir):
    try:
        return int(run(["git", "-C", source_dir, "log", "-1", "--format=%ct"]).strip())
    except (Failure, ValueError):
        return 0


def commit_revision(source_dir):
    try:
        return run(["git", "-C", source_dir, "rev-parse", "HEAD"]).strip()
    except Failure:
        return "unknown"


def build(args):
    source_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        raise Failure(f"{args.binary}: not an executable file")
    arch = ARCHES.get(os.uname().machine)
    if not arch:
        raise Failure(f"unsupported architecture '{os.uname().machine}'")
    version = json.loads(run([binary, "version", "-o", "json"]))["clientVersion"]["gitVersion"]
    tag = args.tag or version
    epoch = args.epoch if args.epoch is not None else commit_epoch(source_dir)
    revision = args.revision or commit_revision(source_dir)
    created = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    tree = Tree()
    tree.data(BIN_PATH, strip_copy(binary), 0o755)
    packages = {}
    for lib in shared_libraries(binary):
        resolved = tree.host_path(lib)
        package = owning_package(lib, resolved).split(":")[0]
        packages[package] = package_version(package)
    # A static archive's code is in the binary: its package's copyright goes in as a shared library's does.
    for archive in static_archives(binary, args.static_libraries):
        package = owning_package(archive, os.path.realpath(archive)).split(":")[0]
        packages[package] = package_version(package)
    for package in ["ca-certificates"]:
        if os.path.exists("/etc/ssl/certs/ca-certificates.crt"):
            tree.host_path("/etc/ssl/certs/ca-certificates.crt")
            packages[package] = package_version(package)
    for package in sorted(packages):
        copyright_file = f"/usr/share/doc/{package}/copyright"
        if os.path.lexists(copyright_file):
            tree.host_path(copyright_file)
    with open(os.path.join(source_dir, "LICENSE"), "rb") as f:
        tree.data("usr/share/doc/kubectl-pytorch/copyright", f.read())
    manifest_of_packages = "".join(f"{p} {v}\n" for p, v in sorted(packages.items()))
    tree.data("usr/share/kubectl-pytorch/debian-packages", manifest_of_packages.encode())
    tree.data("etc/passwd", f"root:x:0:0:root:/root:/usr/sbin/nologin\n"
              f"nonroot:x:{USER}:{USER}:nonroot:/home/nonroot:/usr/sbin/nologin\n".encode())
    tree.data("etc/group", f"root:x:0:\nnonroot:x:{USER}:\n".encode())
    tree.data("etc/nsswitch.conf", b"hosts: files dns\n")
    tree.directory("home/nonroot", 0o700, USER)
    tree.directory("tmp", 0o1777)

    layer_tar = tree.layer(epoch)
    compressed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=compressed, mtime=0, compresslevel=9) as gz:
        gz.write(layer_tar)

    out = os.path.abspath(args.out)
    layout = os.path.join(out, "oci")
    shutil.rmtree(layout, ignore_errors=True)
    os.makedirs(os.path.join(layout, "blobs", "sha256"))
    labels = {
        "org.opencontainers.image.title": "kubectl-pytorch-controller",
        "org.opencontainers.image.description": "kubectl pytorch controller: reconciles PyTorchJobs and TrainJobs",
        "org.opencontainers.image.version": version,
        "org.opencontainers.image.revision": revision,
        "org.opencontainers.image.created": created,
        "org.opencontainers.image.source": SOURCE_URL,
        "org.opencontainers.image.licenses": "MIT",
    }
    layer = dict(blob(layout, compressed.getvalue()), mediaType="application/vnd.oci.image.layer.v1.tar+gzip")
    config = {
        "architecture": arch,
        "os": "linux",
        "created": created,
        "config": {
            "User": f"{USER}:{USER}",
            "Entrypoint": ["/" + BIN_PATH],
            "Cmd": ["controller"],
            "Env": ["PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/nonroot"],
            "WorkingDir": "/",
            "ExposedPorts": {"8080/tcp": {}},
            "Labels": labels,
        },
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(layer_tar).hexdigest()]},
        "history": [{"created": created, "created_by": "scripts/controller_image.py build"}],
    }
    config_blob = dict(blob(layout, canonical_json(config)), mediaType="application/vnd.oci.image.config.v1+json")
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": config_blob,
        "layers": [layer],
        "annotations": {"org.opencontainers.image.version": version, "org.opencontainers.image.created": created},
    }
    manifest_blob = blob(layout, canonical_json(manifest))
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [dict(manifest_blob, mediaType=manifest["mediaType"],
                           platform={"architecture": arch, "os": "linux"},
                           annotations={"org.opencontainers.image.ref.name": tag})],
    }
    with open(os.path.join(layout, "index.json"), "wb") as f:
        f.write(canonical_json(index))
    with open(os.path.join(layout, "oci-layout"), "wb") as f:
        f.write(canonical_json({"imageLayoutVersion": "1.0.0"}))

    reference = f"{args.repository}:{tag}@{manifest_blob['digest']}"
    with open(os.path.join(out, "reference"), "w") as f:
        f.write(reference + "\n")
    deploy = os.path.join(out, "deploy")
    os.makedirs(deploy, exist_ok=True)
    for name, extra in [("kubectl-pytorch-controller.yaml", []), ("kubectl-pytorch-controller-trainer.yaml", ["--trainer"])]:
        text = run([binary, "controller", "manifests", "--image", reference] + extra)
        with open(os.path.join(deploy, name), "w") as f:
            f.write(text)
    print(reference)
    print(f"{layout}: {len(tree.entries)} files, layer {layer['size']} bytes, {len(packages)} Debian packages",
          file=sys.stderr)


def push(args):
    layout = os.path.join(os.path.abspath(args.out), "oci")
    with open(os.path.join(layout, "index.json")) as f:
        tag = json.load(f)["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"]
    argv = ["skopeo", "copy", "--preserve-digests"] + args.skopeo + [f"oci:{layout}:{tag}", args.destination]
    subprocess.run(argv, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="write the OCI image layout, its reference and digest-pinned manifests")
    b.add_argument("binary")
    b.add_argument("out")
    b.add_argument("--repository", default="ghcr.io/kubectl-pytorch/kubectl-pytorch")
    b.add_argument("--tag", help="default: the binary's version")
    b.add_argument("--revision", help="default: git rev-parse HEAD")
    b.add_argument("--epoch", type=int, help="mtimes and 'created', seconds; default: the commit time")
    b.add_argument("--static-libraries", help="the build's list of static archives linked in "
                   "(default: static-libraries.txt of the binary's build directory, if there is one)")
    p = sub.add_parser("push", help="copy the layout to a registry with skopeo, digest kept")
    p.add_argument("out")
    p.add_argument("destination", help="e.g. docker://registry.example:5000/kubectl-pytorch:v0.1.0")
    p.add_argument("skopeo", nargs=argparse.REMAINDER, help="further skopeo copy options, e.g. --dest-tls-verify=false")
    args = parser.parse_args()
    try:
        build(args) if args.command == "build" else push(args)
    except Failure as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"error: {' '.join(e.cmd)} exited with {e.returncode}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
