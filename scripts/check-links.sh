#!/usr/bin/env bash
# Every link of README.md and docs/ to a page (options.md, glossary.md#term,
# #section) must reach a page that exists and, with an anchor, one of its
# headings, as GitHub names their anchors: a glossary term a page links must be
# in the glossary, a section another page points at must exist. Links to
# results/ are the figure markers' (scripts/check-figures.sh); links out of the
# tree (http:, mailto:) are not followed.
#
# Usage: check-links.sh [PAGE...]     (default: README.md and docs/**/*.md)
#        check-links.sh --self-test
# Prints FILE:LINE and the link for each broken one, then "N passed, N failed"
# (a link each); exit status 1 on a failure.
set -uo pipefail

# The anchors of a page's headings, as GitHub makes them: lowercase, punctuation
# but '-' and '_' dropped, spaces as '-' (code blocks' lines are no headings).
anchors() { # page
  awk '/^ *```/ { fenced = !fenced; next } !fenced && /^#+ / { sub(/^#+ */, ""); print }' "$1" |
    tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}

# The links of each page, checked.
check_page_links() { # root page...
  local root=$1 page line target file anchor dir
  shift
  for page in "$@"; do
    dir=$(dirname "$page")
    while IFS=$'\t' read -r line target; do
      file=${target%%#*}
      anchor=${target#"$file"}
      anchor=${anchor#\#}
      [ -n "$file" ] || file=$(basename "$page")
      if [ ! -f "$root/$dir/$file" ]; then
        echo "FAIL $page:$line: links to $file, which does not exist"
        failed=$((failed + 1))
      elif [ -n "$anchor" ] && ! anchors "$root/$dir/$file" | grep -qxF -- "$anchor"; then
        echo "FAIL $page:$line: $file has no section '#$anchor'"
        failed=$((failed + 1))
      else
        passed=$((passed + 1))
      fi
    done < <(awk '/^ *```/ { fenced = !fenced; next } fenced { next } {
      rest = $0
      gsub(/`[^`]*`/, "", rest)
      while (match(rest, /\]\([^) ]*\)/)) {
        target = substr(rest, RSTART + 2, RLENGTH - 3)
        rest = substr(rest, RSTART + RLENGTH)
        if (target ~ /^[a-z]+:/ || target ~ /(^|\/)results\//) continue
        if (target ~ /^#/ || target ~ /\.md(#|$)/) printf "%d\t%s\n", NR, target
      }
    }' "$root/$page")
  done
}

check_pages() { # root page...
  passed=0 failed=0
  check_page_links "$@"
}

self_test() {
  local rc=0
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/docs"
  printf '# Glossary\n### Method*\n### frame anchor\n' >"$tmp/docs/glossary.md"
  printf 'a [Method*](glossary.md#method) at its [anchor](glossary.md#frame-anchor)\n' >"$tmp/docs/terms.md"
  printf 'a [walker](glossary.md#walker)\n' >"$tmp/docs/noterm.md"
  check_pages "$tmp" docs/terms.md >/dev/null
  [ "$failed" -eq 0 ] || { echo "FAIL self-test: links to the glossary's terms refused"; rc=1; }
  check_pages "$tmp" docs/noterm.md >/dev/null
  [ "$failed" -eq 1 ] || { echo "FAIL self-test: a link to a term the glossary lacks passed"; rc=1; }
  printf 'see [it](absent.md) and [that](#nowhere)\n' >"$tmp/docs/deadlinks.md"
  check_pages "$tmp" docs/deadlinks.md >/dev/null
  [ "$failed" -eq 2 ] || { echo "FAIL self-test: a link to a missing page or section passed"; rc=1; }
  self_test_verdict "$rc"
}

cd "$(dirname "$0")/.."
# shellcheck source=scripts/docs/pages.sh
. scripts/docs/pages.sh
pages_check_main "$@"
