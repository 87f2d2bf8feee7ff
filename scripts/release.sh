#!/usr/bin/env bash
# The release archive, which runs on any x86-64 Linux with none of our libraries, and its krew manifest.
#
#   scripts/release.sh [--build-dir DIR [--no-build]] OUT_DIR
#
# Writes OUT_DIR/kubectl-pytorch_<version>_linux_amd64.tar.gz (<version>: what the binary's `version`
# says, git's) and OUT_DIR/krew-manifest.yaml: the committed krew-manifest.yaml, a template, with the
# version and the archive's sha256 filled in. Prints the archive's path; its size goes to stderr.
#
# The binary: by default build-release/ is configured (Release, KPT_PORTABLE=ON) and built. It
# compiles as `scripts/dev.sh main` does, so ccache serves that build's objects; only the link
# differs (cmake/Release.cmake). --build-dir packages DIR's kubectl-pytorch instead (built first,
# unless --no-build); a build without KPT_PORTABLE gives a larger archive that works the same.
#
# The archive:
#   kubectl-pytorch            the launcher krew links (scripts/release-launcher.sh)
#   libexec/kubectl-pytorch    the program, stripped
#   lib/                       glibc's loader and every shared library the program loads, from this
#                              machine's Debian packages
#   share/doc/PACKAGE/copyright, share/kubectl-pytorch/debian-packages
#                              the license and version of each Debian package in lib/ or linked in
#   kubectl_complete-pytorch, LICENSE
# Reproducible: sorted names, mtime 0, owner 0, gzip without a timestamp.
# Exit codes: 0 written, 1 a step failed, 2 bad arguments.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build="" no_build=0 out=""
usage() { echo "usage: scripts/release.sh [--build-dir DIR [--no-build]] OUT_DIR" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
    --no-build) no_build=1; shift ;;
    -*) usage ;;
    *) [ -z "$out" ] || usage; out=$1; shift ;;
  esac
done
[ -n "$out" ] || usage
[ "$no_build" = 0 ] || [ -n "$build" ] || usage
fail() { echo "error: $*" >&2; exit 1; }

case "$(uname -m)" in
  x86_64) arch=amd64 loader=ld-linux-x86-64.so.2 ;;
  *) fail "release archives are built for linux/amd64 only, not '$(uname -m)'" ;;
esac

if [ -z "$build" ]; then
  build=$top/build-release
  cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKPT_PORTABLE=ON >/dev/null
fi
if [ "$no_build" = 0 ]; then
  echo "== building kubectl-pytorch in $build" >&2
  cmake --build "$build" -j "$(nproc)" --target kubectl-pytorch >&2
fi
bin=$build/bin/kubectl-pytorch
[ -x "$bin" ] || fail "no binary at '$bin'"
static_list=$build/static-libraries.txt
[ -f "$static_list" ] || echo "note: $build is not a KPT_PORTABLE build: every library goes in as a shared one" >&2

version=$("$bin" version | sed -n '1s/^kubectl-pytorch \(v[0-9][^ ]*\)$/\1/p')
[ -n "$version" ] || fail "'$bin version' names no version"
name="kubectl-pytorch_${version}_linux_${arch}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$out/$name
rm -rf "$stage"
mkdir -p "$stage/lib" "$stage/libexec" "$stage/share/doc" "$stage/share/kubectl-pytorch"

install -m 0755 "$top/scripts/release-launcher.sh" "$stage/kubectl-pytorch"
install -m 0755 "$top/scripts/kubectl_complete-pytorch" "$stage/kubectl_complete-pytorch"
install -m 0644 "$top/LICENSE" "$stage/LICENSE"
strip --strip-unneeded -o "$stage/libexec/kubectl-pytorch" "$bin"
chmod 0755 "$stage/libexec/kubectl-pytorch"

# Every library ldd resolves (the loader too), under the name the program asks for.
libraries=()
while read -r line; do
  case "$line" in
    *"not found"*) fail "$bin: $line" ;;
    *" => /"*) soname=${line%% => *} path=${line#* => } ;;
    /*) path=$line soname=${line%% *}; soname=${soname##*/} ;;
    *) continue ;;  # the vDSO has no file
  esac
  path=${path%% (0x*}
  install -m 0644 "$(readlink -f "$path")" "$stage/lib/$soname"
  libraries+=("$path")
done < <(ldd "$bin")
[ -f "$stage/lib/$loader" ] || fail "$bin does not load $loader"
chmod 0755 "$stage/lib/$loader"

# The loader, asked where each library comes from, must name lib/ for every one: nothing of the
# system's copies is read.
outside=$("$stage/lib/$loader" --library-path "$stage/lib" --list "$stage/libexec/kubectl-pytorch" |
  awk -v lib="$stage/lib/" '$2 == "=>" && index($3, lib) != 1 { print $1 " => " $3 }')
[ -z "$outside" ] || fail "libraries from outside the bundle: $outside"

# Each bundled library's and static archive's Debian package, traced as controller_image.py traces
# the image's, with its version and copyright.
static=()
[ -f "$static_list" ] && mapfile -t static <"$static_list"
python3 - "$top/scripts" "${libraries[@]}" "${static[@]}" >"$stage/share/kubectl-pytorch/debian-packages" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[1])
import controller_image
packages = {}
for path in sys.argv[2:]:
    package = controller_image.owning_package(path, os.path.realpath(path)).split(":")[0]
    packages[package] = controller_image.package_version(package)
for package in sorted(packages):
    print(package, packages[package])
EOF
while read -r package _; do
  copyright=/usr/share/doc/$package/copyright
  [ -f "$copyright" ] || fail "the Debian package $package has no $copyright"
  install -D -m 0644 "$copyright" "$stage/share/doc/$package/copyright"
done <"$stage/share/kubectl-pytorch/debian-packages"

# The launcher runs the program through the bundle: a last check that the whole works here.
[ "$("$stage/kubectl-pytorch" version | head -n1)" = "kubectl-pytorch $version" ] ||
  fail "the staged launcher does not run the program"

archive=$out/$name.tar.gz
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$stage" -cf - . | gzip -n -9 >"$archive"
sum=$(sha256sum "$archive" | cut -d' ' -f1)
# The committed manifest is the template: its comment lines go, its two placeholders are filled.
sed -e '/^#/d' -e "s/@VERSION@/$version/g" -e "s/@SHA256@/$sum/g" "$top/krew-manifest.yaml" >"$out/krew-manifest.yaml"
! grep -q '@[A-Z0-9]*@' "$out/krew-manifest.yaml" || fail "krew-manifest.yaml has a placeholder release.sh does not fill"
rm -rf "$stage"

echo "$archive"
echo "$name.tar.gz: $(wc -c <"$archive") bytes, ${#libraries[@]} shared libraries, sha256 $sum" \
  "(written into $out/krew-manifest.yaml)" >&2
