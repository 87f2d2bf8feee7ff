#!/usr/bin/env bats
# The krew manifest is valid as krew checks it, and the packaging writes the archive's checksum.
load helpers

setup() { setup_workdir; }
teardown() { teardown_workdir; }

@test "the committed krew manifest passes krew's field checks" {
  run python3 "$KPT_SOURCE_DIR/tests/e2e/krew_check.py" "$KPT_SOURCE_DIR/krew-manifest.yaml"
  [ "$status" -eq 0 ]
  [ "$output" = "" ]
}

@test "packaging writes the archive's sha256 and the archive holds bin, shim and LICENSE" {
  run "$KPT_SOURCE_DIR/scripts/krew_package.sh" "$KPT_BIN" "$KPT_WORK/out"
  [ "$status" -eq 0 ]
  archive=$(ls "$KPT_WORK"/out/*.tar.gz)
  run python3 "$KPT_SOURCE_DIR/tests/e2e/krew_check.py" "$KPT_WORK/out/krew-manifest.yaml" "$archive"
  [ "$status" -eq 0 ]
  [ "$output" = "" ]
  run tar tzf "$archive"
  [[ "$output" == *"./kubectl_complete-pytorch"* ]]
}

@test "the checker catches a checksum that does not match" {
  "$KPT_SOURCE_DIR/scripts/krew_package.sh" "$KPT_BIN" "$KPT_WORK/out"
  archive=$(ls "$KPT_WORK"/out/*.tar.gz)
  sed -i '0,/sha256: "[0-9a-f]\{64\}"/s//sha256: "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"/' "$KPT_WORK/out/krew-manifest.yaml"
  run python3 "$KPT_SOURCE_DIR/tests/e2e/krew_check.py" "$KPT_WORK/out/krew-manifest.yaml" "$archive"
  [ "$status" -eq 1 ]
  [[ "$output" == "sha256 ffff"*"does not match the archive"* ]]
}

@test "packaging is reproducible: two runs give the same checksum" {
  "$KPT_SOURCE_DIR/scripts/krew_package.sh" "$KPT_BIN" "$KPT_WORK/a"
  "$KPT_SOURCE_DIR/scripts/krew_package.sh" "$KPT_BIN" "$KPT_WORK/b"
  [ "$(sha256sum < "$KPT_WORK"/a/*.tar.gz)" = "$(sha256sum < "$KPT_WORK"/b/*.tar.gz)" ]
}
