#!/usr/bin/env bash
# Conversion speed: a deterministic profile of 100 000 unique stacks (10 to 40
# frames, 3000 method names) converted by fgprof to every format, and the
# flame graph's load-and-draw time in headless Chromium. Medians of 5 runs
# (3 for the browser). Writes results/convert.md.
# Environment: STACKS (default 100000).
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

echo "bench-convert: $stacks stacks, $(wc -c <"$work/in.collapsed") bytes of collapsed input"
declare -A ms size
for ext in html pb.gz speedscope.json collapsed txt; do
  ms[$ext]=$(for r in 1 2 3 4 5; do time_ms build/fgprof convert "$work/in.collapsed" "$work/out.$ext"; done | median)
  size[$ext]=$(wc -c <"$work/out.$ext")
  echo "  .$ext: ${ms[$ext]} ms, ${size[$ext]} bytes"
done
load=$(for r in 1 2 3; do node tests/tools/flamegraph-browser.mjs "$work/out.html" time | sed -n 's/^LOAD_MS //p'; done | median)
echo "  browser load and first draw: $load ms"

mkdir -p results
{
  echo "# Conversion speed"
  echo
  bench_provenance "none"
  echo
  echo "Measured by \`scripts/bench-convert.sh\` on $(date -u +%Y-%m-%d), $(nproc) cores (a shared machine)."
  echo "Input: $stacks unique stacks of 10 to 40 frames ($(wc -c <"$work/in.collapsed") bytes of collapsed text),"
  echo "generated with a fixed seed. Times are the whole \`fgprof convert\` process (read, parse, aggregate, write),"
  echo "median of 5 runs."
  echo
  echo "| output | time | size |"
  echo "|---|---|---|"
  for ext in html pb.gz speedscope.json collapsed txt; do
    echo "| .$ext | ${ms[$ext]} ms | ${size[$ext]} bytes |"
  done
  echo
  echo "The flame graph opened in headless Chromium (1400x900): $load ms from navigation to the first"
  echo "complete draw (median of 3; includes starting the page, parsing the embedded data and laying out"
  echo "every frame)."
} >results/convert.md
cat results/convert.md
