#!/usr/bin/env bats
# The version a build records (cmake/BuildInfo.cmake, run at every build): git describe of a tag, the
# project's version and the commit when no tag exists, -dirty for uncommitted changes, and `archive`
# when the tree has no git history. Run here on small git repositories made for each case.
bats_require_minimum_version 1.5.0
load helpers

setup() {
  setup_workdir
  export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
}
teardown() { teardown_workdir; }

# The generated definition for the source tree $1, as the build writes it.
build_info() {
  cmake -D SOURCE_DIR="$1" -D OUTPUT="$KPT_WORK/build_info.cpp" -D PROJECT_VERSION=0.1.0 \
    -P "$KPT_SOURCE_DIR/cmake/BuildInfo.cmake"
  grep -o 'return {.*};' "$KPT_WORK/build_info.cpp"
}

new_repo() {
  git init -q "$1"
  echo a >"$1/a"
  git -C "$1" add a
  git -C "$1" commit -q -m first
}

@test "a tree without git history says so: the project's version, no commit, state archive" {
  mkdir src
  run build_info "$KPT_WORK/src"
  [ "$status" -eq 0 ]
  [ "$output" = 'return {"v0.1.0", "", "archive"};' ]
}

@test "no release tag yet: the project's version and the commit; -dirty for uncommitted changes" {
  new_repo src
  commit=$(git -C src rev-parse HEAD)
  run build_info "$KPT_WORK/src"
  [ "$output" = "return {\"v0.1.0-g${commit:0:12}\", \"$commit\", \"clean\"};" ]
  echo b >src/a
  run build_info "$KPT_WORK/src"
  [ "$output" = "return {\"v0.1.0-g${commit:0:12}-dirty\", \"$commit\", \"dirty\"};" ]
}

@test "a release tag: its name on the tagged commit, git describe's form after it" {
  new_repo src
  git -C src tag -a v0.2.0 -m v0.2.0
  commit=$(git -C src rev-parse HEAD)
  run build_info "$KPT_WORK/src"
  [ "$output" = "return {\"v0.2.0\", \"$commit\", \"clean\"};" ]
  git -C src commit -q --allow-empty -m second
  commit=$(git -C src rev-parse HEAD)
  run build_info "$KPT_WORK/src"
  [ "$output" = "return {\"v0.2.0-1-g${commit:0:12}\", \"$commit\", \"clean\"};" ]
}

@test "the file is written only when its text changes, so a build on the same commit compiles nothing" {
  new_repo src
  build_info "$KPT_WORK/src" >/dev/null
  touch -d '2000-01-01' build_info.cpp
  build_info "$KPT_WORK/src" >/dev/null
  [ "$(stat -c %Y build_info.cpp)" = "$(date -d '2000-01-01' +%s)" ]
  git -C src commit -q --allow-empty -m second
  build_info "$KPT_WORK/src" >/dev/null
  [ "$(stat -c %Y build_info.cpp)" != "$(date -d '2000-01-01' +%s)" ]
}

@test "the binary's version is this checkout's commit" {
  run "$KPT_BIN" version -o json
  [ "$status" -eq 0 ]
  commit=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["clientVersion"]["gitCommit"])' <<<"$output")
  [ "$commit" = "$(git -C "$KPT_SOURCE_DIR" rev-parse HEAD)" ] ||
    { echo "built from $commit, the checkout is at $(git -C "$KPT_SOURCE_DIR" rev-parse HEAD): rebuild"; false; }
}

@test "a tree inside another checkout has no history of its own: archive" {
  new_repo outer
  mkdir outer/src
  run build_info "$KPT_WORK/outer/src"
  [ "$output" = 'return {"v0.1.0", "", "archive"};' ]
}
