#!/usr/bin/env bash
# The user's pages together stay no longer than async-profiler's user docs:
# a newcomer reads ours instead of theirs, not on top of them. The user's pages
# are those the README's "For users:" paragraph links (docs/*.md); a word is a
# whitespace-separated token holding a letter or a digit (a table's pipes and a
# list's dashes are not words), code blocks included, counted the same way for
# both.
#
# The budget is async-profiler 4.5's docs/*.md (its 15 topic pages) counted so:
# 10290 words. To count a peer's pages again: check-page-budget.sh --count DIR/*.md
#
# Usage: check-page-budget.sh               (the README's user pages)
#        check-page-budget.sh --count FILE...
#        check-page-budget.sh --self-test
# Prints each page's words and the total against the budget, then
# "N passed, N failed"; exit status 1 over the budget.
set -uo pipefail

budget=${PAGE_BUDGET:-10290}

words() { # file...
  cat "$@" | grep -oE '[^[:space:]]+' | grep -c '[[:alnum:]]'
}

# The docs/ pages the README's "For users:" paragraph links, one a line.
user_pages() { # root
  awk '/^For users:/ { on = 1 } on && /^$/ { exit } on' "$1/README.md" |
    grep -oE '\]\(docs/[^)#]+\.md' | sed 's/^](//' | awk '!seen[$0]++'
}

check() { # root
  local root=$1 page n total=0 pages
  pages=$(user_pages "$root")
  if [ -z "$pages" ]; then
    echo "FAIL $root/README.md: no 'For users:' paragraph linking docs/ pages"
    return 1
  fi
  for page in $pages; do
    if [ ! -f "$root/$page" ]; then
      echo "FAIL README.md links $page, which does not exist"
      return 1
    fi
    n=$(words "$root/$page")
    total=$((total + n))
    printf '%6d %s\n' "$n" "$page"
  done
  if [ "$total" -gt "$budget" ]; then
    echo "FAIL the user's pages hold $total words, over the budget of $budget (async-profiler's user docs)"
    return 1
  fi
  echo "the user's pages hold $total words, within the budget of $budget"
}

self_test() {
  local rc=0
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/docs"
  printf '# x\n\nFor users: [a](docs/a.md),\n[b](docs/b.md#x).\n\nFor contributors: [c](docs/c.md).\n' >"$tmp/README.md"
  printf 'one two | three\n\n| --- | - |\n' >"$tmp/docs/a.md"
  printf 'four five\n' >"$tmp/docs/b.md"
  printf 'not counted not counted not counted\n' >"$tmp/docs/c.md"
  budget=5 check "$tmp" >/dev/null || { echo "FAIL self-test: 5 words refused at a budget of 5"; rc=1; }
  budget=4 check "$tmp" >/dev/null && { echo "FAIL self-test: 5 words passed a budget of 4"; rc=1; }
  rm "$tmp/docs/b.md"
  budget=100 check "$tmp" >/dev/null && { echo "FAIL self-test: a missing user page passed"; rc=1; }
  self_test_verdict "$rc"
}

case "${1:-}" in
  --count)   # the files as given, from where it was run
    shift
    [ $# -gt 0 ] || { echo "check-page-budget.sh: --count takes the pages to count" >&2; exit 2; }
    words "$@"
    exit ;;
esac
cd "$(dirname "$0")/.."
# shellcheck source=scripts/docs/pages.sh
. scripts/docs/pages.sh
[ "${1:-}" = --self-test ] && { self_test; exit; }
check .
self_test_verdict $?
