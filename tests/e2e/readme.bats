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

@test "every relative link in README, ARCHITECTURE and docs/ names a file that exists" {
  cd "$KPT_SOURCE_DIR"
  missing=""
  for doc in README.md ARCHITECTURE.md docs/*.md; do
    dir=$(dirname "$doc")
    # [text](target) links that are not URLs or anchors; a #fragment is cut off.
    for target in $(grep -o '](\([^)#:]*\)\(#[^)]*\)\?)' "$doc" | sed 's/^](\([^)#]*\).*/\1/'); do
      [ -e "$dir/$target" ] || missing="$missing $doc:$target"
    done
  done
  [ -z "$missing" ] || { echo "links to missing files:$missing"; return 1; }
}

@test "README's tables render: every row has its header's number of cells" {
  run python3 - "$KPT_SOURCE_DIR/README.md" <<'PY'
import re, sys
cells = lambda line: len(re.split(r'(?<!\\)\|', line.strip())) - 2
header = None
for n, line in enumerate(open(sys.argv[1]), 1):
    if not line.startswith('|'):
        header = None
        continue
    if not line.rstrip().endswith('|'):
        print(f"README.md:{n}: the row does not end with '|'")
        sys.exit(1)
    if header is None:
        header = cells(line)
    elif cells(line) != header:
        print(f"README.md:{n}: {cells(line)} cells, the header has {header}")
        sys.exit(1)
PY
  [ "$status" -eq 0 ] || { echo "$output"; return 1; }
}
