#!/usr/bin/env bats
# The release (scripts/release.sh): the archive holds the program, glibc's loader and every library
# it loads, and runs from them, `run --local` included; the krew manifest is the committed template
# with the archive's version and checksum. (scripts/release-check.sh runs the archive where none of
# our libraries are installed: a Debian 11 root; it needs root and a minute of debootstrap.)
bats_require_minimum_version 1.5.0
load helpers

setup_file() {
  export OUT="$BATS_FILE_TMPDIR/out"
  "$KPT_SOURCE_DIR/scripts/release.sh" --build-dir "$KPT_BUILD_DIR" --no-build "$OUT" >"$BATS_FILE_TMPDIR/archive"
  ARCHIVE=$(cat "$BATS_FILE_TMPDIR/archive")
  VERSION=$("$KPT_BIN" version | sed -n '1s/^kubectl-pytorch //p')
  export ARCHIVE VERSION
}
setup() { setup_workdir; }
teardown() {
  [ -z "${STATE:-}" ] || "$KPT_WORK/bin/kubectl-pytorch" local down --state-dir "$STATE" >/dev/null 2>&1 || true
  teardown_workdir
}

# The archive unpacked in $KPT_WORK/store and linked as $KPT_WORK/bin/kubectl-pytorch, as krew does.
install_archive() {
  mkdir -p "$KPT_WORK/store" "$KPT_WORK/bin"
  tar -xzf "$ARCHIVE" -C "$KPT_WORK/store"
  ln -s "$KPT_WORK/store/kubectl-pytorch" "$KPT_WORK/bin/kubectl-pytorch"
}

@test "the committed manifest is a template for linux/amd64 that, filled in, passes krew's checks" {
  [ "$(grep -v '^#' "$KPT_SOURCE_DIR/krew-manifest.yaml" | grep -c '@VERSION@\|@SHA256@')" = 3 ]
  [ "$(grep -c 'arch:' "$KPT_SOURCE_DIR/krew-manifest.yaml")" = 1 ]
  grep -q '^        arch: amd64$' "$KPT_SOURCE_DIR/krew-manifest.yaml"
  sed -e 's/@VERSION@/v1.2.3/g' -e "s/@SHA256@/$(printf '0%.0s' {1..64})/" "$KPT_SOURCE_DIR/krew-manifest.yaml" >filled.yaml
  run python3 "$KPT_SOURCE_DIR/tests/e2e/krew_check.py" filled.yaml
  [ "$status" -eq 0 ]
  [ "$output" = "" ]
}

@test "release.sh's manifest is the template with the binary's version and the archive's sha256" {
  [ "$ARCHIVE" = "$OUT/kubectl-pytorch_${VERSION}_linux_amd64.tar.gz" ]
  sum=$(sha256sum "$ARCHIVE" | cut -d' ' -f1)
  diff <(sed -e '/^#/d' -e "s/@VERSION@/$VERSION/g" -e "s/@SHA256@/$sum/" "$KPT_SOURCE_DIR/krew-manifest.yaml") \
    "$OUT/krew-manifest.yaml"
  run python3 "$KPT_SOURCE_DIR/tests/e2e/krew_check.py" "$OUT/krew-manifest.yaml" "$ARCHIVE"
  [ "$status" -eq 0 ]
  [ "$output" = "" ]
}

@test "the checker catches a checksum that does not match" {
  sed 's/sha256: "[0-9a-f]\{64\}"/sha256: "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"/' \
    "$OUT/krew-manifest.yaml" >wrong.yaml
  run python3 "$KPT_SOURCE_DIR/tests/e2e/krew_check.py" wrong.yaml "$ARCHIVE"
  [ "$status" -eq 1 ]
  [[ "$output" == "sha256 ffff"*"does not match the archive"* ]]
}

@test "the archive holds the launcher, the stripped program, the loader, the libraries and their licenses" {
  run tar -tzf "$ARCHIVE"
  for f in ./kubectl-pytorch ./kubectl_complete-pytorch ./LICENSE ./libexec/kubectl-pytorch \
    ./lib/ld-linux-x86-64.so.2 ./lib/libc.so.6 ./lib/libcurl.so.4 ./lib/libstdc++.so.6 \
    ./share/kubectl-pytorch/debian-packages ./share/doc/libc6/copyright ./share/doc/libcurl4/copyright; do
    [[ $'\n'"$output"$'\n' == *$'\n'"$f"$'\n'* ]] || { echo "missing $f"; false; }
  done
  install_archive
  run readelf -S "$KPT_WORK/store/libexec/kubectl-pytorch"
  [ "$status" -eq 0 ]
  [[ "$output" != *".symtab"* && "$output" != *".debug_info"* ]]
  # Every Debian package listed has its copyright in the archive.
  while read -r package version; do
    [ -n "$version" ] && [ -f "$KPT_WORK/store/share/doc/$package/copyright" ] || { echo "$package"; false; }
  done <"$KPT_WORK/store/share/kubectl-pytorch/debian-packages"
}

@test "through krew's symlink the program runs on the archive's loader and libraries only" {
  install_archive
  run "$KPT_WORK/bin/kubectl-pytorch" version
  [ "$status" -eq 0 ]
  [ "$output" = "$("$KPT_BIN" version)" ]
  # The loader says where each library comes from: lib/ of the archive, for every one.
  run "$KPT_WORK/store/lib/ld-linux-x86-64.so.2" --library-path "$KPT_WORK/store/lib" --list \
    "$KPT_WORK/store/libexec/kubectl-pytorch"
  [ "$status" -eq 0 ]
  [ "$(grep -c ' => ' <<<"$output")" -gt 20 ]
  [ -z "$(grep ' => ' <<<"$output" | grep -v " => $KPT_WORK/store/lib/" || true)" ]
  PATH="$KPT_WORK/bin:$PATH" run kubectl pytorch validate "$KPT_SOURCE_DIR/testdata/validate/valid.yaml"
  [ "$status" -eq 0 ]
}

@test "run --local from the archive: the server starts through the launcher, pods run on the system's libc" {
  install_archive
  export HOME="$KPT_WORK/home" XDG_STATE_HOME="$KPT_WORK/xdg"
  mkdir -p "$HOME"
  STATE="$KPT_WORK/state"
  run "$KPT_WORK/bin/kubectl-pytorch" local up --state-dir "$STATE" --kubeconfig-out "$KPT_WORK/kubeconfig.yaml"
  [ "$status" -eq 0 ]
  # `local serve` was started again through the launcher (--argv0), so on the archive's loader.
  pid=$(cat "$STATE/apiserver.pid")
  [ "$(readlink "/proc/$pid/exe")" = "$KPT_WORK/store/lib/ld-linux-x86-64.so.2" ]
  [[ "$(tr '\0' ' ' <"/proc/$pid/cmdline")" == *"--argv0 $KPT_WORK/store/kubectl-pytorch $KPT_WORK/store/libexec/kubectl-pytorch local serve "* ]]
  "$KPT_WORK/bin/kubectl-pytorch" local down --state-dir "$STATE" >/dev/null
  # run --local starts its own server, controller and node from the default state directory.
  STATE="$XDG_STATE_HOME/kubectl-pytorch"
  run --separate-stderr timeout 120 "$KPT_WORK/bin/kubectl-pytorch" run --local "$KPT_SOURCE_DIR/testdata/release/ranks.yaml"
  [ "$status" -eq 0 ]
  [[ "$stderr" == *"starting the local cluster"* && "$stderr" == *"pytorchjob ranks succeeded in "* ]]
  for rank in 0 1; do
    [[ "$output" == *"[worker-$rank r$rank] rank $rank of 2, rendezvous at ranks-worker-0:23456"* ]]
    [[ "$output" == *"[worker-$rank r$rank] LD_LIBRARY_PATH: none"* ]]
    line=$(grep "^\[worker-$rank r$rank\] libc: " <<<"$output")
    [[ "$line" == *"libc: /"* && "$line" != *"$KPT_WORK"* ]] || { echo "$line"; false; }
  done
}

@test "the archive is reproducible: a second release.sh gives the same checksum" {
  "$KPT_SOURCE_DIR/scripts/release.sh" --build-dir "$KPT_BUILD_DIR" --no-build "$KPT_WORK/again" >/dev/null 2>&1
  [ "$(sha256sum <"$KPT_WORK/again/$(basename "$ARCHIVE")")" = "$(sha256sum <"$ARCHIVE")" ]
  cmp "$KPT_WORK/again/krew-manifest.yaml" "$OUT/krew-manifest.yaml"
}
