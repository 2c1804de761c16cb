#!/usr/bin/env bash
# The pages say how things are, not when they changed: git keeps history and
# results/ keeps runs (exempt here). Fails on a date (YYYY-MM-DD) or a commit
# hash (a word of 7 to 40 lowercase hex digits holding a digit and a letter)
# in README.md or any docs/ page. A date followed by T and a time
# (2026-12-06T14:03:10) is an input's syntax, as --from takes it, not a date
# of ours, and passes.
#
# Usage: check-no-history.sh [PAGE...]     (default: README.md and docs/**/*.md)
#        check-no-history.sh --self-test
# Prints FILE:LINE and the word for each, then "N passed, N failed" (a page
# each); exit status 1 on a failure.
set -uo pipefail

# "LINE<TAB>WORD" for each date or hash of one page.
history_words() { # page
  awk '{
    line = $0
    while (match(line, /[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]/)) {
      before = RSTART > 1 ? substr(line, RSTART - 1, 1) : ""
      word = substr(line, RSTART, RLENGTH)
      after = substr(line, RSTART + RLENGTH, 1)
      line = substr(line, RSTART + RLENGTH)
      if (before !~ /[0-9A-Za-z]/ && after !~ /[0-9A-Za-z]/)
        printf "%d\t%s\n", NR, word
    }
    n = split($0, words, /[^0-9A-Za-z]+/)
    for (i = 1; i <= n; i++) {
      w = words[i]
      if (length(w) >= 7 && length(w) <= 40 && w ~ /^[0-9a-f]+$/ && w ~ /[0-9]/ && w ~ /[a-f]/)
        printf "%d\t%s\n", NR, w
    }
  }' "$1"
}

check_pages() { # root page...
  local root=$1 page line word bad
  shift
  passed=0 failed=0
  for page in "$@"; do
    bad=0
    while IFS=$'\t' read -r line word; do
      echo "FAIL $page:$line: '$word' (a date or a commit: history belongs in git and results/)"
      bad=1
    done < <(history_words "$root/$page")
    if [ "$bad" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  done
}

self_test() {
  local rc=0 out
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/docs"
  printf 'From 2.5s to 14:03 or 2026-12-06T14:03:10Z; 1000000 samples, 0x7f3a2b1c, deadbeef.\n' >"$tmp/docs/good.md"
  printf 'Measured on 2026-11-29.\n' >"$tmp/docs/date.md"
  printf 'ok\nSince a1b2c3d the walker is faster.\n' >"$tmp/docs/hash.md"
  check_pages "$tmp" docs/good.md >/dev/null
  [ "$failed" -eq 0 ] || { echo "FAIL self-test: a page with no date or hash refused"; rc=1; }
  out=$(check_pages "$tmp" docs/date.md docs/hash.md; echo "$failed")
  [[ $out == *"docs/date.md:1: '2026-11-29'"*"docs/hash.md:2: 'a1b2c3d'"*$'\n'2 ]] ||
    { echo "FAIL self-test: a date or a hash passed: $out"; rc=1; }
  self_test_verdict "$rc"
}

cd "$(dirname "$0")/.."
# shellcheck source=scripts/docs/pages.sh
. scripts/docs/pages.sh
pages_check_main "$@"
