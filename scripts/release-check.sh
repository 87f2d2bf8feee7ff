#!/usr/bin/env bash
# Proves that the release archive runs where none of our libraries are: a Debian 11 (bullseye,
# glibc 2.31) minbase root with nothing installed, made by scripts/fresh-root.sh. In it the archive is
# unpacked and linked onto PATH as krew links it, and the checks run: `version` (and -o json),
# `validate` of a valid and of a broken manifest, and a two-worker `run --local` of testdata/release/ranks.yaml (sh only:
# the root has no python), whose ranks must print their lines and run on the root's own libc.
#
#   scripts/release-check.sh [--keep DIR] [ARCHIVE]
#
# Without ARCHIVE, scripts/release.sh makes one first (into a temporary folder). --keep builds the
# root in DIR and keeps it, so that a second check skips debootstrap (the check puts only the
# archive's folder, a link to it and the local cluster's state into the root, and replaces them
# each time). Needs root and Debian's debootstrap. Exits 0 when every check passed, 1 otherwise,
# 2 on bad arguments.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
keep=()
if [ "${1:-}" = --keep ]; then
  [ $# -ge 2 ] || { echo "usage: scripts/release-check.sh [--keep DIR] [ARCHIVE]" >&2; exit 2; }
  keep=(--keep "$2")
  shift 2
fi
[ $# -le 1 ] || { echo "usage: scripts/release-check.sh [--keep DIR] [ARCHIVE]" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "error: debootstrap and chroot need root" >&2; exit 2; }
TIMEFORMAT='%R s'
work=$(mktemp -d /tmp/kpt-release-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ $# -eq 1 ]; then
  archive=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  [ -f "$archive" ] || { echo "error: no archive '$1'" >&2; exit 2; }
else
  echo "== scripts/release.sh $work/out" >&2
  time archive=$("$top/scripts/release.sh" "$work/out")
fi

# What runs inside the root, as root, with a minimal environment (bash: Essential in Debian).
cat >"$work/check.sh" <<'EOF'
set -eu
TIMEFORMAT='%R s'
step() { echo; echo "== $*"; }
step "the root: Debian $(cat /etc/debian_version), $(ldd --version | head -n1)"
for lib in libcurl.so.4 libssl.so.3 libyaml-0.so.2 libprotobuf.so.32 libsqlite3.so.0 libfmt.so.9 libcpp-httplib.so.0.11; do
  if ls /lib/*/"$lib" /usr/lib/*/"$lib" >/dev/null 2>&1; then echo "the root has $lib: not a fair check"; exit 1; fi
done
echo "none of libcurl, libssl 3, libyaml, libprotobuf, libsqlite3, libfmt, libcpp-httplib is installed"
rm -rf /opt/kubectl-pytorch /root/.local/state/kubectl-pytorch
mkdir -p /opt/kubectl-pytorch
tar -xzf /tmp/kubectl-pytorch.tar.gz -C /opt/kubectl-pytorch
ln -sf /opt/kubectl-pytorch/kubectl-pytorch /usr/local/bin/kubectl-pytorch
echo "unpacked into /opt/kubectl-pytorch, linked as /usr/local/bin/kubectl-pytorch (as krew links its bin)"

step "kubectl-pytorch version"
time kubectl-pytorch version
kubectl-pytorch version -o json

step "kubectl-pytorch validate /tmp/valid.yaml /tmp/ranks.yaml (no cluster: the carried schemas)"
time kubectl-pytorch validate /tmp/valid.yaml /tmp/ranks.yaml

step "kubectl-pytorch validate /tmp/seed.yaml (README's broken seed: findings and exit 1)"
rc=0
kubectl-pytorch validate /tmp/seed.yaml || rc=$?
[ "$rc" -eq 1 ] || { echo "validate exited $rc, not 1"; exit 1; }

step "kubectl-pytorch run --local /tmp/ranks.yaml"
time kubectl-pytorch run --local /tmp/ranks.yaml >/tmp/run.out 2>/tmp/run.err || {
  cat /tmp/run.err /tmp/run.out; echo "run --local failed"; exit 1; }
cat /tmp/run.err /tmp/run.out
for rank in 0 1; do
  grep -qx "\[worker-$rank r$rank\] rank $rank of 2, rendezvous at ranks-worker-0:23456" /tmp/run.out ||
    { echo "rank $rank printed no line"; exit 1; }
  grep -qx "\[worker-$rank r$rank\] libc: /[a-z/_0-9-]*/libc-2\.31\.so" /tmp/run.out ||
    { echo "rank $rank did not run on the root's libc"; exit 1; }
  grep -qx "\[worker-$rank r$rank\] LD_LIBRARY_PATH: none" /tmp/run.out ||
    { echo "rank $rank got a library path"; exit 1; }
done
grep -q "the local node resolves no Service names" /tmp/run.err ||
  { echo "the node did not say that Service names do not resolve"; exit 1; }
step "release check passed"
EOF

echo "== a Debian 11 minbase root: $(basename "$archive")" >&2
"$top/scripts/fresh-root.sh" --suite bullseye --no-clone "${keep[@]}" \
  --copy "$archive:/tmp/kubectl-pytorch.tar.gz" \
  --copy "$top/testdata/validate/valid.yaml:/tmp/valid.yaml" \
  --copy "$top/testdata/mnist-dp.yaml:/tmp/seed.yaml" \
  --copy "$top/testdata/release/ranks.yaml:/tmp/ranks.yaml" \
  --copy "$work/check.sh:/tmp/check.sh" \
  -- bash /tmp/check.sh
