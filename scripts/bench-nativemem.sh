#!/usr/bin/env bash
# What nativemem costs beside async-profiler's nativemem, in the same rounds, on two programs.
# DeflateChurn: fixed work timed by the workload's own clocks, its thread's CPU time (what other
# processes on a busy machine do not add to; the hooks run on that thread) and the wall time
# (40000 Deflaters made, used on 4 KB and ended, some 270 KB in five or six mallocs each through
# zlib's import slots: 10.6 GB). H2 (Debian libh2-java) running scripts/bench/h2-work.sql in
# memory (as scripts/bench-real.sh: the JDK's own zip, NIO and JIT mallocs, about 1 GB in 100 000
# calls), timed from start to end: the process's wall time and its CPU time (user + system, every
# thread's). Modes: no profiler, fgagent's nativemem at its default rate (a sample about every
# 512 KiB a thread allocates), async-profiler's nativemem at its default (every call) and at
# 512k; each writing a .jfr. Interleaved (each round in another order), ROUNDS times for
# DeflateChurn and H2_ROUNDS for H2; the ratio of each mode's median to no profiler's, the
# median's 95% interval from order statistics, and the runs' min and max. JDK 17 and Temurin 25
# when installed. Writes results/nativemem.md.
# Usage: scripts/bench-nativemem.sh [ROUNDS [H2_ROUNDS]]   (default 15 and 5)
#        Environment: ASPROF=/path/libasyncProfiler.so (default /tmp/ap-src/build/lib/libasyncProfiler.so),
#        AGENT=/path/libfgagent.so (default build/'s: a copy lets the build go on meanwhile)
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-15}
h2_rounds=${2:-5}
agent=${AGENT:-$(pwd)/build/libfgagent.so}
h2=/usr/share/java/h2.jar
sql=$(pwd)/scripts/bench/h2-work.sql
classes=$(pwd)/build/java-test
asprof=${ASPROF:-/tmp/ap-src/build/lib/libasyncProfiler.so}
out=results/nativemem.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s lib java >/dev/null
# shellcheck source=scripts/bench/stats.sh
. scripts/bench/stats.sh
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh
bench_jdks bench-nativemem
modes=(none fgagent)
[ -f "$asprof" ] && modes+=(asprof asprof512k)
iterations=40000

# flags MODE TAG: the mode's agent flag (none for no profiler)
flags() {
  case $1 in
    fgagent) echo "-agentpath:$agent=nativemem,file=$2.jfr,log=$2.log" ;;
    asprof) echo "-agentpath:$asprof=start,nativemem,file=$2.jfr" ;;
    asprof512k) echo "-agentpath:$asprof=start,nativemem=512k,file=$2.jfr" ;;
  esac
}

# run JAVA MODE TAG: one DeflateChurn run; its WORK_CPU_MS and WORK_MS on one line
run() {
  local java=$1 mode=$2 tag=$3 flag
  flag=$(flags "$mode" "$tag")
  "$java" -Xms256m -Xmx256m ${flag:+"$flag"} -cp "$classes" DeflateChurn "$iterations" >"$tag.out" 2>"$tag.err"
  awk '$1 == "WORK_CPU_MS" { c = $2 } $1 == "WORK_MS" { w = $2 } END { if (c != "" && w != "") print c, w }' "$tag.out"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# run_h2 JAVA MODE TAG: one H2 run from start to end; its CPU ms (user + system) and wall ms on one line
run_h2() {
  local java=$1 mode=$2 tag=$3 flag t0 t1 times rc
  flag=$(flags "$mode" "$tag")
  t0=$(now_ms)
  times=$( { TIMEFORMAT='%3U %3S'; time "$java" -Xms512m -Xmx512m ${flag:+"$flag"} -cp "$h2" org.h2.tools.RunScript \
    -url jdbc:h2:mem:bench -script "$sql" >"$tag.out" 2>"$tag.err"; } 2>&1)
  rc=$?
  t1=$(now_ms)
  [ $rc -eq 0 ] || { echo "bench-nativemem: H2 under $mode failed:" >&2; tail -n 5 "$tag.err" >&2; return; }
  echo "$times" | awk -v w=$((t1 - t0)) '{ printf "%d %d\n", 1000 * ($1 + $2), w }'
}

# table LABEL PROGRAM: each mode's medians, intervals, spreads and ratios
table() {
  local label=$1 program=$2 ci name
  echo "| mode | CPU ms | ratio | CPU min .. max | wall ms | ratio | wall min .. max |"
  echo "|---|---|---|---|---|---|---|"
  for mode in "${modes[@]}"; do
    ci=""
    for kind in cpu ms; do
      f=$work/$label-$program-$mode.$kind
      [ -s "$f" ] || { ci="$ci | - | - | -"; continue; }
      c=$(median_ci "$f" | awk -F'|' '{ split($2, r, " .. "); printf "%d (%d .. %d)", $1, r[1], r[2] }')
      ratio=$(awk -v m="$(median "$f")" -v n="$(median "$work/$label-$program-none.$kind")" \
        'BEGIN { printf "%.3f", m / n }')
      spread=$(sort -g "$f" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%d .. %d", lo, hi }')
      ci="$ci | $c | $ratio | $spread"
    done
    case $mode in
      none) name="no profiler" ;;
      fgagent) name="fgagent nativemem (512k default), $(median "$work/$label-$program-samples") samples" ;;
      asprof) name="async-profiler nativemem (its default: every call)" ;;
      asprof512k) name="async-profiler nativemem=512k" ;;
    esac
    echo "| $name$ci |"
  done
  echo
}

# derived LABEL: a bound on what fgagent's hooks cost H2, from DeflateChurn's measured cost. Its CPU
# median over no profiler's, E, is a*calls + b*samples (a: a call's count, b: a sample's walk), so a <=
# E/calls and b <= E/samples (E taken at the far ends of the two medians' 95% intervals, so that noise
# does not make it small), and H2's cost <= E * (H2's calls / DeflateChurn's + H2's samples /
# DeflateChurn's), the medians of fgagent's runs; beside the H2 rounds' own spread
derived() {
  local d=$work/$1
  # the excess at its largest the medians' 95% intervals allow: fgagent's upper end over no profiler's lower end
  awk -v fc="$(median_ci "$d-deflate-fgagent.cpu" | awk -F'|' '{ split($2, r, " .. "); print r[2] }')" \
    -v nc="$(median_ci "$d-deflate-none.cpu" | awk -F'|' '{ split($2, r, " .. "); print r[1] }')" \
    -v ds="$(median "$d-deflate-samples")" -v hs="$(median "$d-h2-samples")" \
    -v dc="$(median "$d-deflate-calls")" -v hcalls="$(median "$d-h2-calls")" \
    -v hc="$(median "$d-h2-none.cpu")" -v lo="$(sort -g "$d-h2-none.cpu" | head -n 1)" \
    -v hi="$(sort -g "$d-h2-none.cpu" | tail -n 1)" 'BEGIN {
      e = fc - nc; if (e < 0) e = 0
      bound = ds > 0 && dc > 0 ? e * (hcalls / dc + hs / ds) : 0
      printf "Bound, derived: DeflateChurn'"'"'s CPU over no profiler'"'"'s (the 95%% intervals'"'"' far ends), %d ms for %d calls and %d samples, makes H2'"'"'s\n", e, dc, ds
      printf "%d calls and %d samples cost at most %.1f ms, %.2f%% of its CPU; its no-profiler runs alone spread %.1f%%\n", \
        hcalls, hs, bound, 100 * bound / hc, 100 * (hi - lo) / hc
      printf "(min .. max over the median).\n\n"
    }'
}

# rounds_of LABEL JAVA PROGRAM ROUNDS: the program's runs, every mode a round, interleaved
rounds_of() {
  local label=$1 java=$2 program=$3 n=$4 i k mode t cpu wall
  for i in $(seq 1 "$n"); do
    # each round in another order, so that no mode always follows the same one
    for k in $(seq 0 $((${#modes[@]} - 1))); do
      mode=${modes[$(((k + i) % ${#modes[@]}))]}
      t=$work/$label-$program-$mode-$i
      if [ "$program" = h2 ]; then
        read -r cpu wall <<<"$(run_h2 "$java" "$mode" "$t")"
      else
        read -r cpu wall <<<"$(run "$java" "$mode" "$t")"
      fi
      [ -n "$cpu" ] && echo "$cpu" >>"$work/$label-$program-$mode.cpu" && echo "$wall" >>"$work/$label-$program-$mode.ms"
      if [ "$mode" = fgagent ]; then
        awk '/^nativemem:/ { on = 1 } on && $1 == "samples" { print $3; exit }' "$t.log" >>"$work/$label-$program-samples"
        awk '/^nativemem:/ { on = 1 } on && $1 == "estimated:" { for (i = 2; i < NF; i++) if ($i == "calls") { print $(i - 1); exit } }' \
          "$t.log" >>"$work/$label-$program-calls"
      fi
    done
  done
}

{
  echo "# nativemem: its cost beside async-profiler's"
  echo
  bench_provenance "$(bench_asprof "$asprof")"
  echo
  echo "Measured by $(bench_ran bench-nativemem.sh "$rounds $h2_rounds")."
  echo "DeflateChurn $iterations (a new Deflater a 4 KB block: some 270 KB in five or six mallocs each, 10.6 GB in"
  echo "all), every mode $rounds times, interleaved, each writing a .jfr. *CPU ms*: the loop's thread's CPU time"
  echo "for its fixed work (where the hooks run), *wall ms*: its wall time, each the median (95% interval of the"
  echo "median) and the runs' min .. max; *ratio*: to no profiler's median. *samples*: fgagent's summary, the median run's."
  [ -f "$h2" ] && echo "H2 runs scripts/bench/h2-work.sql in memory (-Xms512m -Xmx512m), every mode $h2_rounds times, interleaved;" \
    && echo "*CPU ms*: the process's user and system time, *wall ms*: its wall time, from start to end. With a" \
    && echo "handful of rounds on a loaded machine the 95% interval of the median is the runs' whole spread."
  echo
} >"$out"

[ -f "$h2" ] || echo "bench-nativemem: $h2 not found (package libh2-java): DeflateChurn only" >&2
for jdk in "${jdks[@]}"; do
  label=${jdk%%=*}
  java=${jdk#*=}/bin/java
  rounds_of "$label" "$java" deflate "$rounds"
  if [ -f "$h2" ]; then
    run_h2 "$java" none "$work/warm" >/dev/null   # the page cache warm for H2 and the JDK
    rounds_of "$label" "$java" h2 "$h2_rounds"
  fi
  {
    echo "## $label ($("$java" -version 2>&1 | head -n 1))"
    echo
    echo "### DeflateChurn"
    echo
    table "$label" deflate
    if [ -f "$h2" ]; then
      echo "### H2"
      echo
      table "$label" h2
      derived "$label"
    fi
  } >>"$out"
done
bench_load_end >>"$out"
cat "$out"
