#!/usr/bin/env bash
# fgprof convert against async-profiler's own converter on async-profiler's
# recordings (tests/fuzz/corpus/jfr_reader/ap45-*.jfr, or the files given):
# each event's total must be the same. cpu: samples (jfrconv --cpu; where a
# recording has no jdk.ExecutionSample, --wall: fgprof reads its wall
# samples then); wall: fgprof's --event wall against --wall; alloc, lock,
# live: bytes and nanoseconds (--total).
# Needs FG_AP_CONVERTER=path/to/jfr-converter.jar (async-profiler's
# `make jar/jfr-converter.jar`, or javac over its src/converter).
# Usage: ap-converter-totals.sh [REC.jfr...]
set -uo pipefail
cd "$(dirname "$0")/../.."
jar=${FG_AP_CONVERTER:?set FG_AP_CONVERTER to async-profiler\'s jfr-converter.jar}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
total() { awk '{ s += $NF } END { printf "%.0f\n", s }' "$1"; }
bad=0
recs=("$@")
[ ${#recs[@]} -gt 0 ] || recs=(tests/fuzz/corpus/jfr_reader/ap45-*.jfr)
for rec in "${recs[@]}"; do
  line="$(basename "$rec"):"
  for event in cpu wall alloc lock live; do
    if ! build/fgprof convert --event "$event" "$rec" "$work/fg.collapsed" 2>/dev/null; then
      : >"$work/fg.collapsed"
    fi
    case $event in
      cpu) modes=("--cpu" "--wall") ;;
      wall) modes=("--wall") ;;
      *) modes=("--$event --total") ;;
    esac
    want=0
    for m in "${modes[@]}"; do
      # shellcheck disable=SC2086
      java -jar "$jar" $m -o collapsed "$rec" "$work/ap.collapsed" >/dev/null 2>&1 || { echo "$rec: jfrconv $m failed"; bad=1; }
      want=$(total "$work/ap.collapsed")
      [ "$want" -eq 0 ] || break
    done
    got=$(total "$work/fg.collapsed")
    line+=" $event $got/$want"
    [ "$got" -eq "$want" ] || bad=1
  done
  echo "$line"
done
[ $bad -eq 0 ] && echo "every total is async-profiler's converter's" || echo "MISMATCH: fgprof/jfrconv totals differ"
exit $bad
