#!/usr/bin/env bats
# The controller's OCI image (scripts/controller_image.py): a valid layout, reproducible, complete
# (the binary runs from the image's own libraries), and the in-cluster path real: the image's
# controller, on a read-only root as user 65532 with a service account's token and CA, reconciles a
# PyTorchJob on the embedded API server. Pushed with skopeo to a registry on loopback, digest kept.
load helpers

setup_file() {
  export IMAGE_DIR="$BATS_FILE_TMPDIR/image"
  "$KPT_SOURCE_DIR/scripts/controller_image.py" build "$KPT_BIN" "$IMAGE_DIR" >"$BATS_FILE_TMPDIR/ref"
  VERSION=$("$KPT_BIN" version -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])')
  export VERSION
}
setup() { setup_workdir; }
teardown() {
  [ -z "${CONTROLLER_PID:-}" ] || kill "$CONTROLLER_PID" 2>/dev/null || true
  [ -z "${REGISTRY_PID:-}" ] || kill "$REGISTRY_PID" 2>/dev/null || true
  [ -z "${STATE:-}" ] || stop_api_server
  teardown_workdir
}

# The layer unpacked into $KPT_WORK/rootfs.
unpack() {
  run python3 "$KPT_SOURCE_DIR/tests/e2e/oci_check.py" "$IMAGE_DIR/oci" "$VERSION" "$KPT_WORK/rootfs"
  [ "$status" -eq 0 ] || { echo "$output"; return 1; }
}
need_root() { [ "$(id -u)" -eq 0 ] || skip "chroot and mount namespaces need root"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

@test "the layout is what registries and runtimes read: digests, sizes, diff_id, user, entrypoint, labels" {
  run python3 "$KPT_SOURCE_DIR/tests/e2e/oci_check.py" "$IMAGE_DIR/oci" "$VERSION"
  [ "$status" -eq 0 ]
  [ "$output" = "" ]
  ref=$(cat "$BATS_FILE_TMPDIR/ref")
  [[ "$ref" =~ ^ghcr.io/kubectl-pytorch/kubectl-pytorch:${VERSION}@sha256:[0-9a-f]{64}$ ]]
  [ "$(cat "$IMAGE_DIR/reference")" = "$ref" ]
  # skopeo, a reader we did not write, agrees on the digest.
  run skopeo inspect "oci:$IMAGE_DIR/oci:$VERSION"
  [ "$status" -eq 0 ]
  [[ "$output" == *"\"Digest\": \"${ref#*@}\""* ]]
  [[ "$output" == *"\"org.opencontainers.image.version\": \"$VERSION\""* ]]
}

@test "the digest-pinned manifests are what 'controller manifests --image REF@DIGEST' prints" {
  ref=$(cat "$BATS_FILE_TMPDIR/ref")
  diff <("$KPT_BIN" controller manifests --image "$ref") "$IMAGE_DIR/deploy/kubectl-pytorch-controller.yaml"
  diff <("$KPT_BIN" controller manifests --image "$ref" --trainer) \
    "$IMAGE_DIR/deploy/kubectl-pytorch-controller-trainer.yaml"
  grep -qx "        image: $ref" "$IMAGE_DIR/deploy/kubectl-pytorch-controller.yaml"
}

@test "the image is reproducible: a second build gives the same digest" {
  "$KPT_SOURCE_DIR/scripts/controller_image.py" build "$KPT_BIN" "$KPT_WORK/again" >/dev/null
  [ "$(cat "$KPT_WORK/again/reference")" = "$(cat "$IMAGE_DIR/reference")" ]
  diff -r "$KPT_WORK/again/oci" "$IMAGE_DIR/oci"
}

@test "the layer holds the binary, each library it loads with its Debian package and copyright" {
  unpack
  [ -x "$KPT_WORK/rootfs/usr/local/bin/kubectl-pytorch" ]
  [ -L "$KPT_WORK/rootfs/lib64" ]
  packages="$KPT_WORK/rootfs/usr/share/kubectl-pytorch/debian-packages"
  # SQLite and libyaml are shared objects, or (KPT_STATIC_DEPS, the default) static archives of their -dev
  # packages: either way their package and its copyright are in the image.
  sqlite=libsqlite3-0 yaml=libyaml-0-2
  if [ -f "$KPT_BUILD_DIR/static-libraries.txt" ]; then sqlite=libsqlite3-dev yaml=libyaml-dev; fi
  for p in libc6 libstdc++6 libcurl4 libssl3 $sqlite $yaml ca-certificates; do
    grep -q "^$p " "$packages" || { echo "no $p in $packages"; return 1; }
    [ -e "$KPT_WORK/rootfs/usr/share/doc/$p/copyright" ] || { echo "no copyright for $p"; return 1; }
  done
  # Each package's version is the one installed here.
  while read -r p v; do [ "$(dpkg-query -W -f='${Version}' "$p")" = "$v" ]; done <"$packages"
  grep -q "^nonroot:x:65532:65532:" "$KPT_WORK/rootfs/etc/passwd"
  # No debug sections: the stripped binary carries no build paths.
  ! readelf -S "$KPT_WORK/rootfs/usr/local/bin/kubectl-pytorch" | grep -q '\.debug_info'
}

@test "in a chroot of the image, as user 65532, the binary runs from the image's own libraries" {
  need_root
  unpack
  run chroot --userspec=65532:65532 "$KPT_WORK/rootfs" /usr/local/bin/kubectl-pytorch controller --help
  [ "$status" -eq 0 ]
  [[ "$output" == "Run the lightweight controller: PyTorchJobs and TrainJobs"* ]]
}

@test "in-cluster: the image's controller, read-only root, service account token and CA, makes a job's pods" {
  need_root
  unshare -m true 2>/dev/null || skip "no mount namespaces here"
  unpack
  start_api_server
  export KUBECONFIG
  "$KPT_BIN" controller manifests | python3 -c '
import sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    if d and d["kind"] == "CustomResourceDefinition": print("---"); print(yaml.safe_dump(d))' | kubectl apply -f - >/dev/null
  # What the kubelet mounts for a pod's service account.
  sa="$KPT_WORK/rootfs/var/run/secrets/kubernetes.io/serviceaccount"
  mkdir -p "$sa"
  kubectl config view --raw -o jsonpath='{.users[0].user.token}' >"$sa/token"
  kubectl config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d >"$sa/ca.crt"
  echo default >"$sa/namespace"
  server=$(kubectl config view --raw -o jsonpath='{.clusters[0].cluster.server}')
  port=${server##*:}
  root="$KPT_WORK/rootfs"
  unshare -m sh -c "mount --bind '$root' '$root' && mount -o remount,bind,ro '$root' &&
    exec env -i KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$port \
      $(command -v chroot) --userspec=65532:65532 '$root' /usr/local/bin/kubectl-pytorch controller \
      --metrics-addr 127.0.0.1:0" >"$KPT_WORK/controller.log" 2>&1 &
  CONTROLLER_PID=$!
  cat >job.yaml <<'EOF'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: from-image
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: example.org/trainer:1
            command: ["python3", "-c", "pass"]
EOF
  kubectl apply -f job.yaml >/dev/null
  for _ in $(seq 1 150); do
    n=$(kubectl get pods -l training.kubeflow.org/job-name=from-image -o name 2>/dev/null | wc -l)
    [ "$n" -eq 2 ] && break
    sleep 0.2
  done
  [ "$n" -eq 2 ] || { cat "$KPT_WORK/controller.log"; return 1; }
  run kubectl get service from-image-worker-0 -o jsonpath='{.spec.clusterIP}'
  [ "$output" = None ]
  # The root really was read-only, and nothing the controller did needed it writable.
  ! grep -qi "read-only file system" "$KPT_WORK/controller.log"
}

@test "push copies the image to a registry with skopeo and keeps its digest" {
  command -v docker-registry >/dev/null || skip "docker-registry is not installed"
  port=$(free_port)
  mkdir -p "$KPT_WORK/registry"
  printf 'version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: 127.0.0.1:%s\n' \
    "$KPT_WORK/registry" "$port" >registry.yml
  docker-registry serve registry.yml >registry.log 2>&1 &
  REGISTRY_PID=$!
  for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$port/v2/" >/dev/null && break; sleep 0.1; done
  run "$KPT_SOURCE_DIR/scripts/controller_image.py" push "$IMAGE_DIR" \
    "docker://127.0.0.1:$port/kubectl-pytorch:$VERSION" --dest-tls-verify=false
  [ "$status" -eq 0 ]
  digest=$(cut -d@ -f2 "$IMAGE_DIR/reference")
  run curl -sfI -H "Accept: application/vnd.oci.image.manifest.v1+json" \
    "http://127.0.0.1:$port/v2/kubectl-pytorch/manifests/$VERSION"
  [ "$status" -eq 0 ]
  [[ "$output" == *"Docker-Content-Digest: $digest"* ]]
}

@test "a bad binary is refused with exit 1 and the reason" {
  printf 'not an elf' >fake && chmod +x fake
  run "$KPT_SOURCE_DIR/scripts/controller_image.py" build ./fake out
  [ "$status" -eq 1 ]
  [[ "$output" == "error: "* ]]
  run "$KPT_SOURCE_DIR/scripts/controller_image.py" build ./missing out
  [ "$status" -eq 1 ]
  [ "$output" = "error: ./missing: not an executable file" ]
}
