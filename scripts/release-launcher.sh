#!/bin/sh
# kubectl-pytorch of the release archive (scripts/release.sh installs this file as `kubectl-pytorch`).
# The program in libexec/ runs on the glibc, libcurl and other libraries in lib/, never the system's:
# it is started through the archive's own dynamic loader, which --library-path points at lib/. That
# path is the loader's argument, not LD_LIBRARY_PATH, so the processes the program starts (the pods of
# `run --local`, kubectl credential plugins) run on the system's libraries as usual. --argv0 names
# this launcher, so the program starts itself again (`local serve`) through it.
self=$(readlink -f -- "$0") || exit 127
root=${self%/*}
exec "$root/lib/ld-linux-x86-64.so.2" --library-path "$root/lib" --argv0 "$self" \
  "$root/libexec/kubectl-pytorch" "$@"
