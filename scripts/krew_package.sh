#!/usr/bin/env bash
# Makes the krew archive for this machine's architecture and writes its sha256 into a copy
# of krew-manifest.yaml (or, with --in-place, into the manifest at the top of the tree).
#   scripts/krew_package.sh BINARY OUT_DIR [--in-place]
# The archive is reproducible: sorted names, fixed mtime and owner, gzip without a timestamp.
set -euo pipefail
bin=$1 out=$2 in_place=${3:-}
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^  version: \(v[0-9][0-9.]*\)$/\1/p' "$top/krew-manifest.yaml")
case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "error: unsupported architecture '$(uname -m)'" >&2; exit 2 ;;
esac
name="kubectl-pytorch_${version}_linux_${arch}"
stage="$out/$name"
rm -rf "$stage" && mkdir -p "$stage"
cp "$bin" "$stage/kubectl-pytorch"
strip "$stage/kubectl-pytorch" 2>/dev/null || true
cp "$top/scripts/kubectl_complete-pytorch" "$top/LICENSE" "$stage/"
chmod 0755 "$stage/kubectl-pytorch" "$stage/kubectl_complete-pytorch"
chmod 0644 "$stage/LICENSE"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$stage" -cf - . | gzip -n -9 > "$out/$name.tar.gz"
sum=$(sha256sum "$out/$name.tar.gz" | cut -d' ' -f1)
manifest="$out/krew-manifest.yaml"
[ "$in_place" = --in-place ] && manifest="$top/krew-manifest.yaml"
[ "$manifest" = "$top/krew-manifest.yaml" ] || cp "$top/krew-manifest.yaml" "$manifest"
# The sha256 line follows the uri line of this architecture's platform entry.
awk -v arch="$arch" -v sum="$sum" '
  /uri: .*_linux_/ { mine = ($0 ~ "_linux_" arch "\\.tar\\.gz$") }
  /^    sha256: / && mine { print "    sha256: \"" sum "\""; mine = 0; next }
  { print }' "$manifest" > "$manifest.tmp" && mv "$manifest.tmp" "$manifest"
echo "$out/$name.tar.gz"
echo "sha256 $sum written to $manifest" >&2
