#!/usr/bin/env bats
# README's --help block is the binary's --help, verbatim.
load helpers

@test "README shows the binary's --help verbatim" {
  expected=$(sed -n '/<!-- help:begin -->/,/<!-- help:end -->/p' "$KPT_SOURCE_DIR/README.md" | sed '1,2d;$d' | sed '$d')
  actual=$("$KPT_BIN" --help)
  [ "$expected" = "$actual" ]
}

@test "README's two set-up commands are the first commands it shows" {
  run sed -n '/^```sh$/,/^```$/p' "$KPT_SOURCE_DIR/README.md"
  [ "${lines[1]%%#*}" = "scripts/dev.sh main   " ]
  [ "${lines[2]%%#*}" = "scripts/dev.sh test   " ]
}
