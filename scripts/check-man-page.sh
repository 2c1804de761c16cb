#!/usr/bin/env bash
# Holds fgprof's three descriptions of its options to one another: for each
# command, the options its parser accepts (the list its "unknown option" error
# gives), the "  --NAME" lines of `fgprof COMMAND --help`, and the tagged
# entries (.TP) of its section (.SS "fgprof COMMAND") in docs/fgprof.1 must be
# the same set; and the commands `fgprof --help` shows, those fgprof accepts
# (its "unknown command" error) and the man page's sections too.
#
# Usage: check-man-page.sh [FGPROF [MANPAGE]]   (build/fgprof, docs/fgprof.1)
#        check-man-page.sh --self-test          (a man page missing a flag fails)
# Prints what differs, then "N passed, N failed" (one a command, and one for the
# list of commands); exit status 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/docs/pages.sh
. scripts/docs/pages.sh

# The option names in standard input, one a line, sorted, --help left out.
flags() { grep -oE -- '--[a-z][a-z-]*' | grep -vx -- '--help' | sort -u; }

# The man page's text of one command's section: \- as -, fonts dropped.
man_section() { # man command
  sed 's/\\-/-/g; s/\\f[BIRP]//g' "$1" |
    awk -v cmd="$2" '/^\.S[SH]/ { on = ($0 ~ "^\\.SS \"?fgprof " cmd "\"?$") ; next } on'
}

# The option names of a man section's .TP tags (the line after each .TP).
man_flags() { # man command
  man_section "$1" "$2" | awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }' | flags
}

help_flags() { # fgprof command
  "$1" "$2" --help | grep -E '^  --[a-z]' | awk '{ print $1 }' | flags
}

parser_flags() { # fgprof command
  "$1" "$2" --no-such-option 2>&1 >/dev/null | sed 's/--no-such-option//g' | flags
}

same() { # what a-name a-list b-name b-list
  local only
  only=$(comm -23 <(echo "$3") <(echo "$5") | tr '\n' ' ')
  [ -n "${only// /}" ] && echo "FAIL $1: in $2, not in $4: $only"
  only=$(comm -13 <(echo "$3") <(echo "$5") | tr '\n' ' ')
  [ -n "${only// /}" ] && echo "FAIL $1: in $4, not in $2: $only"
  return 0
}

check() { # fgprof man
  local fgprof=$1 man=$2 cmd out help_cmds accepted man_cmds
  passed=0 failed=0
  help_cmds=$("$fgprof" --help | sed -nE 's/^(Usage:)? +fgprof ([a-z]+) .*/\2/p' | sort -u)
  accepted=$("$fgprof" no-such-command 2>&1 >/dev/null | sed -n 's/.*accepted commands: //p' | head -n 1 |
    tr -d ' ' | tr ',' '\n' | grep -v -- '^--' | sort -u)
  man_cmds=$(sed -nE 's/^\.SS "?fgprof ([a-z]+)"?$/\1/p' "$man" | sort -u)
  out=$(same commands "fgprof --help" "$help_cmds" "fgprof's accepted commands" "$accepted"
        same commands "fgprof --help" "$help_cmds" "$man" "$man_cmds")
  if [ -z "$help_cmds" ] || [ -n "$out" ]; then
    echo "${out:-FAIL commands: fgprof --help shows none}"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
  for cmd in $help_cmds; do
    out=$(same "$cmd" "fgprof $cmd --help" "$(help_flags "$fgprof" "$cmd")" "the parser's accepted options" \
            "$(parser_flags "$fgprof" "$cmd")"
          same "$cmd" "fgprof $cmd --help" "$(help_flags "$fgprof" "$cmd")" "$man" "$(man_flags "$man" "$cmd")")
    "$fgprof" "$cmd" --help >/dev/null 2>&1 || out="$out${out:+$'\n'}FAIL $cmd: fgprof $cmd --help exits $?"
    if [ -z "$(help_flags "$fgprof" "$cmd")" ] && [ -n "$(parser_flags "$fgprof" "$cmd")" ]; then
      out="$out${out:+$'\n'}FAIL $cmd: fgprof $cmd --help lists no option"
    fi
    if [ -n "$out" ]; then
      echo "$out"
      failed=$((failed + 1))
    else
      passed=$((passed + 1))
    fi
  done
}

if [ "${1:-}" = --self-test ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  rc=0
  # diff's --alpha entry taken out of a copy of the man page
  awk '/^\.TP$/ { held = $0; next } held { if ($0 !~ /alpha/) print held; held = "" ; if ($0 ~ /alpha/) { skip = 1; next } }
       skip && /^\.(TP|SS|SH)/ { skip = 0 } !skip' docs/fgprof.1 >"$tmp/fgprof.1"
  check build/fgprof docs/fgprof.1 >/dev/null
  [ "$failed" -eq 0 ] || { echo "FAIL self-test: the real man page fails"; rc=1; }
  out=$(check build/fgprof "$tmp/fgprof.1")
  [[ $out == *"FAIL diff: in fgprof diff --help, not in $tmp/fgprof.1: --alpha"* ]] ||
    { echo "FAIL self-test: a man page without diff's --alpha passed: $out"; rc=1; }
  self_test_verdict "$rc"
  exit
fi

check "${1:-build/fgprof}" "${2:-docs/fgprof.1}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
