#!/usr/bin/env bash
# The heatmap page at a day's scale, beside async-profiler's: a made-up JFR recording of a busy
# service (build/gen_day_jfr: HOURS hours, 8 threads sampled every 10 ms, an anomaly every hour)
# and a real one (the Demo workload under fgagent for MINUTES minutes at 10 ms), each made into a
# heatmap page by fgprof heatmap and by async-profiler's converter (jfr-converter.jar -o heatmap,
# when ASPROF_CONVERTER names it). For each: the recording's size and samples, the page's size,
# the converter's wall time and peak memory, and, in headless Chromium (tests/tools/heatmap-browser.mjs
# time), how long our page takes from open to drawn and to draw a 1-minute range's and the whole
# recording's flame graph. Also: what the day's page is made of (its head and its columns, as
# text and inflated) and gen_day_jfr's lower bound on what any lossless page of it carries.
# Writes results/heatmap.md.
# Usage: scripts/bench-heatmap.sh [HOURS] [MINUTES]   (default 24 10)
#        Environment: ASPROF_CONVERTER=/path/jfr-converter.jar
#                     REAL_JFR=/path/real.jfr: a recording made as the real row's (the Demo
#                     workload under fgagent at interval=10ms for MINUTES minutes) to use instead
#                     of recording one, which takes MINUTES minutes of wall time
set -uo pipefail
cd "$(dirname "$0")/.."
hours=${1:-24}
minutes=${2:-10}
out=results/heatmap.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s lib cli java build/gen_day_jfr >/dev/null || exit 1
export FG_NPM=$(pwd)/build/npm/node_modules
[ -d "$FG_NPM/playwright-core" ] || { echo "bench-heatmap: run tests/tools/run.sh once to install playwright-core" >&2; exit 1; }
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh
java_home=$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)

# measure NAME CMD...: wall seconds and peak RSS (MB) of CMD into $work/NAME.time
measure() {
  local name=$1
  shift
  /usr/bin/time -f '%e %M' -o "$work/$name.time" "$@" >"$work/$name.log" 2>&1 || { cat "$work/$name.log"; return 1; }
}
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1048576 }'; }

row() { # LABEL JFR
  local label=$1 jfr=$2 samples fg_s fg_mb ap="" times
  measure "$label-fg" build/fgprof heatmap "$jfr" "$work/$label.heatmap.html" || return 1
  samples=$(grep -o '"samples":[0-9]*' "$work/$label.heatmap.html" | head -n 1 | cut -d: -f2)   # the page's timed samples
  read -r fg_s fg_mb <"$work/$label-fg.time"
  times=$(node tests/tools/heatmap-browser.mjs "$work/$label.heatmap.html" time) || { echo "$times"; return 1; }
  local load range whole
  load=$(sed -n 's/.*LOAD_MS \([0-9.]*\).*/\1/p' <<<"$times")
  range=$(sed -n 's/.* RANGE_MS \([0-9.]*\).*/\1/p' <<<"$times")
  whole=$(sed -n 's/.* WHOLE_MS \([0-9.]*\).*/\1/p' <<<"$times")
  if [ -n "${ASPROF_CONVERTER:-}" ] && [ -f "$ASPROF_CONVERTER" ]; then
    if measure "$label-ap" "$java_home/bin/java" -Xmx8g -jar "$ASPROF_CONVERTER" -o heatmap "$jfr" "$work/$label-ap.html"; then
      local ap_s ap_mb
      read -r ap_s ap_mb <"$work/$label-ap.time"
      ap="$(mb "$work/$label-ap.html") MB in ${ap_s} s, $((ap_mb / 1024)) MB peak"
    else
      ap="failed: $(tail -n 1 "$work/$label-ap.log")"
    fi
  fi
  echo "| $label | $(mb "$jfr") MB | ${samples:-?} | $(mb "$work/$label.heatmap.html") MB in ${fg_s} s, $((fg_mb / 1024)) MB peak | ${load} ms | ${range} ms | ${whole} ms | ${ap:-not run} |"
}

rows=()
./build/gen_day_jfr "$hours" 8 "$work/day.jfr" >"$work/day.gen" || exit 1
rows+=("$(row day "$work/day.jfr")")
sizes=$(node tests/tools/heatmap-browser.mjs "$work/day.heatmap.html" sizes) || { echo "$sizes"; exit 1; }
real=$work/real.jfr
if [ -n "${REAL_JFR:-}" ]; then
  real=$REAL_JFR
else
  "$java_home/bin/java" "-agentpath:$(pwd)/build/libfgagent.so=interval=10ms,file=$real" \
    -cp build/java-test Demo "$((minutes * 60))" >"$work/real.out" 2>&1 || { tail "$work/real.out"; exit 1; }
fi
rows+=("$(row real "$real")")
mib() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1048576 }'; }
field() { sed -n "s/.* $1 \([0-9]*\).*/\1/p" <<<" $sizes"; }
bound=$(sed -n 's/.* at least \([0-9]*\) bits.*/\1/p' "$work/day.gen")

{
  echo "# Heatmap pages of a day and of a real run"
  echo
  bench_provenance "$(bench_asprof "${ASPROF_CONVERTER:-}")"
  echo
  echo "Measured by $(bench_ran bench-heatmap.sh "$hours $minutes")."
  echo
  echo "- day: \`build/gen_day_jfr $hours 8\`, a made-up busy service, 8 threads at 10 ms, an anomaly every hour."
  echo "- real: the Demo workload under fgagent (\`interval=10ms\`) for $minutes minutes${REAL_JFR:+ (recorded before the run, $(basename "$REAL_JFR"))}."
  echo "- Page open is headless Chromium from \`goto\` to the heatmap drawn; range is a 1-minute range's flame"
  echo "  graph, whole the whole recording's (tests/tools/heatmap-browser.mjs time)."
  echo
  echo "| recording | JFR | samples | fgprof heatmap | page open | 1-min range | whole range | async-profiler heatmap |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "The day's page: its head (frames, stacks, threads, marks, 200 ms totals, column sums) $(mib "$(field HEAD_TEXT)") MB as"
  echo "text, $(mib "$(field HEAD_RAW)") MB inflated; its $(field COLUMNS) columns' samples $(mib "$(field COLUMNS_TEXT)") MB as text, $(mib "$(field COLUMNS_DEFLATED)") MB deflated,"
  echo "$(mib "$(field COLUMNS_RAW)") MB inflated; the page's script and header $(mib "$(field REST)") MB."
  echo "What any lossless page of it must carry (gen_day_jfr: the information of its draws, less a bit for each"
  echo "cell whose samples' order or slot a page need not keep): $(sed -n 2p "$work/day.gen"); as 7-bit text"
  echo "$(awk -v b="$bound" 'BEGIN { printf "%.1f", b / 8 * 8 / 7 / 1048576 }') MB. The columns deflated are $(awk -v b="$bound" -v c="$(field COLUMNS_DEFLATED)" 'BEGIN { printf "%.2f", c * 8 / b }') times the bound."
} >"$out"
cat "$out"
