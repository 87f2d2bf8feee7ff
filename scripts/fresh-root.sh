#!/usr/bin/env bash
# Runs a command in a fresh Debian minimal root, on a fresh clone of this checkout: what a new user's
# machine has, not what ours has. It proves that README's commands install everything they need.
#
#   scripts/fresh-root.sh [--suite bookworm|bullseye] [--keep DIR] [--no-clone] [--kubectl]
#                         [--copy HOST_PATH:ROOT_PATH]... -- COMMAND [ARG...]
#
#   --suite     the Debian release of the root (default bookworm, Debian 12)
#   --keep DIR  build the root in DIR and keep it afterwards (default: a temporary folder, removed)
#   --no-clone  do not clone the checkout into /src (COMMAND then runs in /)
#   --kubectl   copy the host's kubectl into /usr/local/bin: it is not a Debian package, and README's
#               test command needs it on PATH as the plugin's host
#   --copy      copy a host file or folder into the root before COMMAND runs
#
# The root is `debootstrap --variant=minbase` from the mirror apt uses here; COMMAND runs in it as
# root, as the root of a mount namespace of its own (unshare, pivot_root: a chroot could not make user
# namespaces), with /proc, /sys, /dev and /dev/pts mounted (unmounted afterwards, also on failure)
# and a minimal environment. The clone is of HEAD: uncommitted changes are not in it. Needs root and
# Debian's debootstrap. Exits with COMMAND's exit code.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm keep="" clone=1 kubectl=0
copies=()
while [ $# -gt 0 ]; do
  case "$1" in
    --suite) suite=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --no-clone) clone=0; shift ;;
    --kubectl) kubectl=1; shift ;;
    --copy) copies+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "usage: scripts/fresh-root.sh [--suite S] [--keep DIR] [--no-clone] [--kubectl] [--copy A:B]... -- COMMAND" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "error: no command given (after --)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "error: debootstrap and chroot need root" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "error: debootstrap is missing: run apt-get install -y debootstrap" >&2; exit 2; }

# The mirror apt uses on this machine (deb822 or one-line sources), else Debian's own.
mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\/debian\) .*/\2/p' /etc/apt/sources.list 2>/dev/null | head -n1)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

if [ -n "$keep" ]; then
  root=$(mkdir -p "$keep" && cd "$keep" && pwd)
else
  root=$(mktemp -d /tmp/kpt-fresh-root.XXXXXX)
fi
chmod 755 "$root"  # it is the machine's /: mktemp's 700 would lock every user but root out
mounts=()
cleanup() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
  if [ -z "$keep" ]; then rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT

TIMEFORMAT='%R s'
echo "fresh-root: debootstrap --variant=minbase $suite ($mirror) into $root" >&2
if [ ! -x "$root/bin/sh" ]; then
  time debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 || {
    tail -n 20 "$root.debootstrap.log" >&2
    exit 1
  }
  rm -f "$root.debootstrap.log"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# The machine's name resolves, as Debian's installer writes it into /etc/hosts (debootstrap does not):
# gloo looks its own host name up, and warns into every rank's log when it cannot.
if ! grep -qw "$(hostname)" "$root/etc/hosts" 2>/dev/null; then
  printf '127.0.1.1\t%s\n' "$(hostname)" >>"$root/etc/hosts"
fi
# Debian's security and updates suites, as a freshly installed machine has them.
if [ "$suite" = bookworm ] || [ "$suite" = bullseye ]; then
  sec=$(echo "$mirror" | sed 's|/debian$|/debian-security|')
  printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
    "$mirror" "$suite" "$mirror" "$suite" "$sec" "$suite" >"$root/etc/apt/sources.list"
fi

mount_in() {  # mount_in TYPE-OR-bind SOURCE TARGET
  mkdir -p "$root$3"
  if [ "$1" = bind ]; then mount --bind "$2" "$root$3"; else mount -t "$1" "$2" "$root$3"; fi
  mounts+=("$root$3")
}
mount_in proc proc /proc
mount_in bind /sys /sys
mount_in bind /dev /dev
mount_in bind /dev/pts /dev/pts

workdir=/
if [ "$clone" = 1 ]; then
  rm -rf "$root/src"
  git clone -q "$top" "$root/src"
  echo "fresh-root: cloned $(git -C "$top" rev-parse --short HEAD) into /src" >&2
  workdir=/src
fi
if [ "$kubectl" = 1 ]; then
  host_kubectl=$(command -v kubectl) || { echo "error: --kubectl: no kubectl on this machine's PATH" >&2; exit 2; }
  install -m 0755 "$host_kubectl" "$root/usr/local/bin/kubectl"
fi
for c in "${copies[@]}"; do
  mkdir -p "$root$(dirname "${c#*:}")"
  cp -a "${c%%:*}" "$root${c#*:}"
done

echo "fresh-root: pivot_root $root: $*" >&2
set +e
# The root becomes the root of a mount namespace of its own (pivot_root), not a chroot: the kernel
# refuses user namespaces to a chrooted process, and the local node makes them as on any machine.
time unshare --mount --propagation private -- /bin/sh -c '
  root=$1 term=$2 workdir=$3
  shift 3
  mount --rbind "$root" "$root" && cd "$root" && mkdir -p .host && pivot_root . .host || exit 125
  exec /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="$term" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/sh -c "umount -l /.host && cd \"\$1\" && shift && exec \"\$@\"" sh "$workdir" "$@"
' sh "$root" "${TERM:-dumb}" "$workdir" "$@"
rc=$?
set -e
echo "fresh-root: exit $rc" >&2
exit $rc
