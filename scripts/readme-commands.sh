#!/usr/bin/env bash
# Runs every command of README.md as written: each ```sh block, in order, in the
# repository's root, as one bash script that stops at the first failing command
# (the indented `make` and `make test` blocks are what runs this, not run again).
# Also holds the README to its shape: at most 300 lines, no table row over 220
# characters, at most five figures in "Why fgagent". Prints "N passed, N failed"; exit status 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0 failed=0
lines=$(wc -l < README.md)
long=$(awk 'length($0) > 220 && /^\|/' README.md | wc -l)
# "Why fgagent" is short: at most five figures, each a marker into results/ (check-figures.sh)
figures=$(awk '/^## / { on = ($0 == "## Why fgagent") } on' README.md | grep -oE '\[[^]]*[0-9][^]]*\]\(results/' | wc -l)
grep -qx '## Why fgagent' README.md || figures="no 'Why fgagent' section:"
if [ "$lines" -le 300 ] && [ "$long" -eq 0 ] && [[ $figures =~ ^[0-9]+$ ]] && [ "$figures" -le 5 ]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL README.md: $lines lines (at most 300), $long table rows over 220 characters, $figures figures in 'Why fgagent' (at most 5)"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk -v dir="$work" '
  /^```sh$/ { n++; file = sprintf("%s/block-%02d.sh", dir, n); inblock = 1; next }
  /^```$/ && inblock { inblock = 0; close(file); next }
  inblock { print > file }' README.md
for b in "$work"/block-*.sh; do
  [ -e "$b" ] || { echo "FAIL README.md has no \`\`\`sh block"; failed=$((failed + 1)); break; }
  if timeout 300 bash -e "$b" >"$b.out" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL README command block $(basename "$b" .sh):"
    sed 's/^/  | /' "$b"
    tail -n 15 "$b.out" | sed 's/^/  > /'
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
