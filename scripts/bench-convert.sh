#!/usr/bin/env bash
# Conversion speed: a deterministic profile of 100 000 unique stacks (10 to 40
# frames, 3000 method names) converted by fgprof to every format and, when
# ASPROF_CONVERTER names async-profiler's jfr-converter.jar, by it to the two
# formats it writes from collapsed text (HTML, collapsed), in the same rounds:
# each round runs every conversion once, async-profiler's right after fgprof's of
# the same output, 5 rounds; medians, and the median of the rounds' ratios. Then
# the flame graph's load-and-draw time in headless Chromium (median of 3).
# Writes results/convert.md.
# Environment: STACKS (default 100000), ASPROF_CONVERTER=/path/jfr-converter.jar.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh

stacks=${STACKS:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export FG_NPM=$(pwd)/build/npm/node_modules

awk -v n="$stacks" 'BEGIN {
  srand(42);
  for (i = 0; i < n; i++) {
    depth = 10 + int(rand() * 31); line = "java/lang/Thread.run";
    for (d = 1; d < depth; d++) line = line ";com/acme/C" int(rand() * 300) ".m" int(rand() * 10);
    print line ";com/acme/Leaf" i ".run " (1 + int(rand() * 100));
  }
}' >"$work/in.collapsed"

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

time_ms() { # command...
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}

java=$(ls -d /usr/lib/jvm/java-17-openjdk-*/bin/java | head -n 1)
asprof=${ASPROF_CONVERTER:-}
[ -f "$asprof" ] || asprof=""
# a conversion is TOOL:EXT; async-profiler's reads collapsed text into HTML or collapsed only
convs=(fgprof:html asprof:html fgprof:collapsed asprof:collapsed fgprof:pb.gz fgprof:speedscope.json fgprof:txt)
[ -n "$asprof" ] || convs=(fgprof:html fgprof:collapsed fgprof:pb.gz fgprof:speedscope.json fgprof:txt)
convert() { # TOOL EXT
  case $1 in
    fgprof) build/fgprof convert "$work/in.collapsed" "$work/$1.$2" ;;
    asprof) "$java" -jar "$asprof" "$work/in.collapsed" "$work/$1.$2" ;;
  esac
}
echo "bench-convert: $stacks stacks, $(wc -c <"$work/in.collapsed") bytes of collapsed input, ${convs[*]}"
declare -A times ms size
for r in 1 2 3 4 5; do
  for c in "${convs[@]}"; do times[$c]+="$(time_ms convert "${c%%:*}" "${c#*:}") "; done
done
for c in "${convs[@]}"; do
  ms[$c]=$(tr ' ' '\n' <<<"${times[$c]}" | grep . | median)
  size[$c]=$(wc -c <"$work/${c%%:*}.${c#*:}")
  echo "  $c: ${ms[$c]} ms (${times[$c]}), ${size[$c]} bytes"
done
load=$(for r in 1 2 3; do node tests/tools/flamegraph-browser.mjs "$work/fgprof.html" time | sed -n 's/^LOAD_MS //p'; done | median)
echo "  browser load and first draw: $load ms"

mkdir -p results
{
  echo "# Conversion speed"
  echo
  bench_provenance "$(bench_asprof "$asprof")"
  echo
  echo "Measured by $(bench_ran bench-convert.sh)."
  echo "Input: $stacks unique stacks of 10 to 40 frames ($(wc -c <"$work/in.collapsed") bytes of collapsed text),"
  echo "generated with a fixed seed. Times are the whole converting process (read, parse, aggregate, write;"
  echo "for async-profiler's jfr-converter.jar, the JVM's start too), the median of 5 rounds, each round"
  echo "running every conversion once, async-profiler's right after fgprof's of the same output; *runs*:"
  echo "each round's. *ratio*: the median of the rounds' async-profiler time over fgprof's for the same"
  echo "output (async-profiler converts collapsed text to HTML and collapsed only)."
  echo
  echo "| converter | output | time | ratio | runs (ms) | size |"
  echo "|---|---|---|---|---|---|"
  for c in "${convs[@]}"; do
    tool=${c%%:*} ext=${c#*:} ratio=-
    # each round's async-profiler time over its fgprof time for the same output, their median
    [ "$tool" = asprof ] && ratio=$(paste -d' ' <(tr ' ' '\n' <<<"${times[$c]}" | grep .) \
      <(tr ' ' '\n' <<<"${times[fgprof:$ext]}" | grep .) | awk '{ print $1 / $2 }' | median | awk '{ printf "%.2fx", $1 }')
    echo "| $([ "$tool" = asprof ] && echo "async-profiler" || echo fgprof) | .$ext | ${ms[$c]} ms | $ratio | ${times[$c]% } | ${size[$c]} bytes |"
  done
  echo
  echo "The flame graph opened in headless Chromium (1400x900): $load ms from navigation to the first"
  echo "complete draw (median of 3; includes starting the page, parsing the embedded data and laying out"
  echo "every frame)."
} >results/convert.md
cat results/convert.md
