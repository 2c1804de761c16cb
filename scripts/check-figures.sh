#!/usr/bin/env bash
# Holds every figure quoted in the pages to the results file it came from.
# A figure marker is a markdown link whose target is a file under results/
# (results/X.md from the root, ../results/X.md from docs/, an #anchor allowed)
# and whose text holds a digit: [1.8% of the CPU](../results/real.md). Its
# text must occur verbatim in that file, so a rerun that changes the figure
# fails here until the page is updated. A link whose text holds no digit
# (["real.md"](results/real.md)) only has to point at a file that exists. Links
# between pages: scripts/check-links.sh.
#
# Usage: check-figures.sh [PAGE...]     (default: README.md and docs/**/*.md)
#        check-figures.sh --self-test   (a good and a bad marker in a temp tree)
#        check-figures.sh --results     (each results/*.md's header names its
#                                        host, date, commit and peers?)
# Prints one line for each wrong marker, FILE:LINE, the figure and the results
# file, then "N passed, N failed"; exit status 1 on a failure.
set -uo pipefail

# The markers of one page, "LINE<TAB>TEXT<TAB>TARGET" a line; a link's text holds
# no ']' and its target no ')' or space (what our pages write). Code (``` blocks,
# `spans`) holds no link.
markers() { # page
  awk '/^ *```/ { fenced = !fenced; next } fenced { next } {
    rest = $0
    gsub(/`[^`]*`/, "", rest)
    while (match(rest, /\[[^]]*\]\([^) ]*\)/)) {
      link = substr(rest, RSTART, RLENGTH)
      rest = substr(rest, RSTART + RLENGTH)
      mid = index(link, "](")
      text = substr(link, 2, mid - 2)
      target = substr(link, mid + 2, length(link) - mid - 2)
      if (target ~ /^(\.\.\/)*results\/[^#]+(#.*)?$/)
        printf "%d\t%s\t%s\n", NR, text, target
    }
  }' "$1"
}

check_pages() { # root page...
  local root=$1 page line text target file dir
  shift
  passed=0 failed=0
  for page in "$@"; do
    dir=$(dirname "$page")
    while IFS=$'\t' read -r line text target; do
      file=${target%%#*}
      if [ ! -f "$root/$dir/$file" ]; then
        echo "FAIL $page:$line: [$text] links to $file, which does not exist"
        failed=$((failed + 1))
      elif [[ $text =~ [0-9] ]] && ! grep -qP -- "(?<![0-9.])\\Q$text\\E(?![0-9]|\\.[0-9])" "$root/$dir/$file"; then
        echo "FAIL $page:$line: figure '$text' is not in $file"
        failed=$((failed + 1))
      else
        passed=$((passed + 1))
      fi
    done < <(markers "$root/$page")
  done
}

self_test() {
  local rc=0
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/docs" "$tmp/results"
  printf '| mode | cost |\n|---|---|\n| cpu | 1.8%% |\n' >"$tmp/results/real.md"
  printf 'It costs [1.8%%](../results/real.md#x), see [real.md](../results/real.md), `[9](../results/no.md)`.\n' >"$tmp/docs/good.md"
  printf 'It costs [1.8%%](results/real.md).\n' >"$tmp/README.md"
  printf 'ok [1.8%%](../results/real.md)\nIt costs [2.1%%](../results/real.md).\n' >"$tmp/docs/bad.md"
  printf 'It costs [1.8%%](../results/gone.md).\n' >"$tmp/docs/gone.md"
  printf 'It costs [1.8%%](../results/part.md), [2.0](../results/part.md).\n' >"$tmp/docs/part.md"
  printf 'cpu 11.8%%, wall 2.05\n' >"$tmp/results/part.md"
  printf 'It costs [1.8%%](results/real.md) from docs/.\n' >"$tmp/docs/wrongdir.md"
  check_pages "$tmp" docs/good.md README.md >/dev/null
  [ "$passed" -eq 3 ] && [ "$failed" -eq 0 ] || { echo "FAIL self-test: good markers refused ($passed passed, $failed failed)"; rc=1; }
  local out
  out=$(check_pages "$tmp" docs/bad.md; echo "$failed")
  [[ $out == *"docs/bad.md:2: figure '2.1%' is not in ../results/real.md"*$'\n'1 ]] ||
    { echo "FAIL self-test: a figure not in its results file passed: $out"; rc=1; }
  check_pages "$tmp" docs/gone.md >/dev/null
  [ "$failed" -eq 1 ] || { echo "FAIL self-test: a marker to a missing results file passed"; rc=1; }
  check_pages "$tmp" docs/part.md >/dev/null
  [ "$failed" -eq 2 ] || { echo "FAIL self-test: a figure matched inside a longer number ($failed failed of 2)"; rc=1; }
  check_pages "$tmp" docs/wrongdir.md >/dev/null
  [ "$failed" -eq 1 ] || { echo "FAIL self-test: a marker with a wrong relative path passed"; rc=1; }
  # --results: a header naming all four passes, one lacking the commit fails, text past the first table is no header
  printf '# Named\n\nHost: 2 cores. Date: 2026-01-02. Commit: 0123abc. Peers in the same rounds: none.\n\n| a |\n' \
    >"$tmp/results/real.md"
  printf '# Half\n\nHost: 2 cores, 2026-01-02, peers: none.\n\n| a |\n\nCommit: 0123abc\n' >"$tmp/results/part.md"
  out=$(cd "$tmp" && results_headers; echo "$passed $failed")
  [[ $out == *"results/part.md: its header does not name its commit"*$'\n'"1 1" ]] ||
    { echo "FAIL self-test: --results did not tell a full header from one without its commit: $out"; rc=1; }
  self_test_verdict "$rc"
}

# What the header of each results file (the lines before its first table or
# heading past the title) leaves out of: the host (cores, CPU), the date, the
# commit measured and the peers run in the same rounds ("peers: none" when alone).
results_headers() {
  local f missing
  passed=0 failed=0
  for f in results/*.md; do
    missing=$(awk 'NR > 1 && (/^\|/ || /^#/) { exit } { head = head "\n" $0 }
      END {
        if (head !~ /[0-9] cores|[Hh]ost:/) printf " host"
        if (head !~ /[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]/) printf " date"
        if (head !~ /([Cc]ommit:?|fgagent|at)[ \n]+[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]/) printf " commit"
        if (head !~ /[Pp]eers?[ :]|async-profiler|asprof/) printf " peers"
      }' "$f")
    if [ -n "$missing" ]; then
      echo "FAIL $f: its header does not name its$missing"
      failed=$((failed + 1))
    else
      passed=$((passed + 1))
    fi
  done
}

cd "$(dirname "$0")/.."
# shellcheck source=scripts/docs/pages.sh
. scripts/docs/pages.sh
if [ "${1:-}" = --results ]; then
  results_headers
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
fi
pages_check_main "$@"
