#!/usr/bin/env bash
# What nativemem costs beside async-profiler's nativemem, in the same rounds. Fixed work timed by
# the workload's own clocks, its thread's CPU time (what other processes on a busy machine do not
# add to; the hooks run on that thread) and the wall time (DeflateChurn: 40000 Deflaters made, used on 4 KB and ended, some
# 270 KB in five or six mallocs each through zlib's import slots: 10.6 GB), with no profiler,
# with fgagent's nativemem at its default rate (a sample about every 512 KiB a thread
# allocates), with async-profiler's nativemem at its default (every call) and at 512k; each
# writing a .jfr. Interleaved, ROUNDS times; the ratio of each mode's median to no profiler's,
# and the median's 95% interval from order statistics. JDK 17 and Temurin 25 when installed.
# Writes results/nativemem.md.
# Usage: scripts/bench-nativemem.sh [ROUNDS]   (default 15)
#        Environment: ASPROF=/path/libasyncProfiler.so (default /tmp/ap-src/build/lib/libasyncProfiler.so)
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-15}
agent=$(pwd)/build/libfgagent.so
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

# run JAVA MODE TAG: one run; its WORK_CPU_MS and WORK_MS on one line
run() {
  local java=$1 mode=$2 tag=$3 flag=()
  case $mode in
    fgagent) flag=("-agentpath:$agent=nativemem,file=$tag.jfr,log=$tag.log") ;;
    asprof) flag=("-agentpath:$asprof=start,nativemem,file=$tag.jfr") ;;
    asprof512k) flag=("-agentpath:$asprof=start,nativemem=512k,file=$tag.jfr") ;;
  esac
  "$java" -Xms256m -Xmx256m "${flag[@]}" -cp "$classes" DeflateChurn "$iterations" >"$tag.out" 2>"$tag.err"
  awk '$1 == "WORK_CPU_MS" { c = $2 } $1 == "WORK_MS" { w = $2 } END { if (c != "" && w != "") print c, w }' "$tag.out"
}

{
  echo "# nativemem: its cost beside async-profiler's"
  echo
  bench_ran bench-nativemem.sh "$rounds"
  echo "kernel $(uname -r), fgagent $(git rev-parse --short HEAD)$([ -f "$asprof" ] && echo ", async-profiler from $asprof")."
  echo "DeflateChurn $iterations (a new Deflater a 4 KB block: some 270 KB in five or six mallocs each, 10.6 GB in"
  echo "all), every mode $rounds times, interleaved, each writing a .jfr. *CPU ms*: the loop's thread's CPU time"
  echo "for its fixed work (where the hooks run), *wall ms*: its wall time, each the median (95% interval of the"
  echo "median); *ratio*: to no profiler's median. *samples*: fgagent's summary, the median run's."
  echo
} >"$out"

for jdk in "${jdks[@]}"; do
  label=${jdk%%=*}
  java=${jdk#*=}/bin/java
  for i in $(seq 1 "$rounds"); do
    # each round in another order, so that no mode always follows the same one
    for k in $(seq 0 $((${#modes[@]} - 1))); do
      mode=${modes[$(((k + i) % ${#modes[@]}))]}
      t=$work/$label-$mode-$i
      read -r cpu wall <<<"$(run "$java" "$mode" "$t")"
      [ -n "$cpu" ] && echo "$cpu" >>"$work/$label-$mode.cpu" && echo "$wall" >>"$work/$label-$mode.ms"
      [ "$mode" = fgagent ] && awk '/^nativemem:/ { on = 1 } on && $1 == "samples" { print $3; exit }' "$t.log" \
        >>"$work/$label-samples"
    done
  done
  {
    echo "## $label ($("$java" -version 2>&1 | head -n 1))"
    echo
    echo "| mode | CPU ms | ratio | wall ms | ratio |"
    echo "|---|---|---|---|---|"
    for mode in "${modes[@]}"; do
      ci=""
      for kind in cpu ms; do
        c=$(median_ci "$work/$label-$mode.$kind" | awk -F'|' '{ split($2, r, " .. "); printf "%d (%d .. %d)", $1, r[1], r[2] }')
        ratio=$(awk -v m="$(median "$work/$label-$mode.$kind")" -v n="$(median "$work/$label-none.$kind")" \
          'BEGIN { printf "%.3f", m / n }')
        ci="$ci | $c | $ratio"
      done
      case $mode in
        none) name="no profiler" ;;
        fgagent) name="fgagent nativemem (512k default), $(median "$work/$label-samples") samples" ;;
        asprof) name="async-profiler nativemem (its default: every call)" ;;
        asprof512k) name="async-profiler nativemem=512k" ;;
      esac
      echo "| $name$ci |"
    done
    echo
  } >>"$out"
done
cat "$out"
