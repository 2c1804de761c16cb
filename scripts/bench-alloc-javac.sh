#!/usr/bin/env bash
# What alloc=512k costs a real allocation-heavy program, beside async-profiler: javac compiling
# the java.management module (330 files) from the running JDK's own src.zip, fixed work timed
# end to end (the process's wall time), with no profiler, with the JVM's allocation events and
# a callback that only counts (build/event_floor_agent.so, what any JVMTI profiler pays), with
# fgagent alloc and with async-profiler alloc=512k when ASPROF names its library. Interleaved,
# ROUNDS times; each mode's median (95% interval of the median) and its ratio to no profiler's.
# Also fgagent's own figures of its runs: the bytes it estimated over the run's time (the
# program's allocation rate) and its samples per second. A small heap is fixed (-Xms512m
# -Xmx512m). JDK 17 and Temurin 25 when installed. Writes results/alloc-javac.md.
# Usage: scripts/bench-alloc-javac.sh [ROUNDS]   (default 11)   Environment: ASPROF=/path/libasyncProfiler.so
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-11}
module=java.management
agent=$(pwd)/build/libfgagent.so
out=results/alloc-javac.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s lib build/event_floor_agent.so >/dev/null || exit 1
floor=$(pwd)/build/event_floor_agent.so
# shellcheck source=scripts/bench/stats.sh
. scripts/bench/stats.sh

jdks=("jdk17=$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)")
t25=$(ls -d /usr/lib/jvm/temurin-25* 2>/dev/null | head -n 1)
[ -n "$t25" ] && jdks+=("temurin25=$t25") || echo "bench-alloc-javac: no Temurin 25 JDK; JDK 17 only"
modes=(none floor fgagent)
[ -n "${ASPROF:-}" ] && [ -f "$ASPROF" ] && modes+=(asprof)

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# run HOME MODE TAG: one compile in $work/HOME's sources; its wall time in ms appended to TAG.ms
run() {
  local home=$1 mode=$2 tag=$3 flag=()
  case $mode in
    floor) flag=("-agentpath:$floor=alloc") ;;
    fgagent) flag=("-agentpath:$agent=alloc,file=$tag.collapsed,log=$tag.log") ;;
    asprof) flag=("-agentpath:$ASPROF=start,alloc=512k,total,collapsed,file=$tag.collapsed") ;;
  esac
  rm -rf "$src/out"
  local t0 t1
  t0=$(now_ms)
  (cd "$src" && "$home/bin/java" -Xms512m -Xmx512m "${flag[@]}" -m jdk.compiler/com.sun.tools.javac.Main -nowarn \
    --module-source-path . -m "$module" -d out >"$tag.out" 2>&1)
  local rc=$?
  t1=$(now_ms)
  [ $rc -eq 0 ] && [ -f "$src/out/$module/module-info.class" ] || { echo "bench-alloc-javac: $mode failed:" >&2; tail -n 5 "$tag.out" >&2; exit 1; }
  echo $((t1 - t0)) >>"${tag%-*}.ms"
  echo $((t1 - t0)) >"$tag.ms1"
}

{
  echo "# alloc on javac: what it costs a real allocation-heavy program, beside async-profiler"
  echo
  echo "\`scripts/bench-alloc-javac.sh $rounds\` on $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "kernel $(uname -r), fgagent $(git rev-parse --short HEAD)$([ -n "${ASPROF:-}" ] && echo ", async-profiler from $ASPROF")."
  echo "javac compiles the $module module from the running JDK's src.zip (-Xms512m -Xmx512m); every"
  echo "mode ran $rounds times, interleaved. *time*: the process's wall time for the compile, the median"
  echo "(95% interval of the median) and its ratio to no profiler's median. *the JVM's events alone*:"
  echo "SampledObjectAlloc at 512 KiB with a callback that only counts. fgagent's *rate*: the bytes it"
  echo "estimated over the run's time, and its allocation samples a second (medians of its runs)."
  echo
} >"$out"

for jdk in "${jdks[@]}"; do
  label=${jdk%%=*}
  home=${jdk#*=}
  src=$work/$label-src
  mkdir -p "$src"
  if ! (cd "$src" && unzip -q "$home/lib/src.zip" "$module/*"); then
    echo "bench-alloc-javac: $home/lib/src.zip has no $module; $label skipped" >&2
    continue
  fi
  run "$home" none "$work/warm-0"   # the page cache warm for the sources and the JDK
  for i in $(seq 1 "$rounds"); do
    for mode in "${modes[@]}"; do
      run "$home" "$mode" "$work/$label-$mode-$i"
      if [ "$mode" = fgagent ]; then
        t=$work/$label-$mode-$i
        bytes=$(awk '{ s += $NF } END { printf "%.0f", s }' "$t.collapsed")
        samples=$(awk '$1 == "samples" && $2 == "taken:" { print $3; exit }' "$t.log")
        ms=$(cat "$t.ms1")
        awk -v b="$bytes" -v m="$ms" 'BEGIN { printf "%.3f\n", b / m / 1e6 }' >>"$work/$label-gbs"
        [ -n "$samples" ] && awk -v n="$samples" -v m="$ms" 'BEGIN { printf "%.0f\n", n * 1000 / m }' >>"$work/$label-sps"
      fi
    done
  done
  {
    echo "## $label ($("$home/bin/java" -version 2>&1 | head -n 1))"
    echo
    echo "| mode | time, ms | ratio |"
    echo "|---|---|---|"
    none=$(median "$work/$label-none.ms")
    for mode in "${modes[@]}"; do
      ci=$(median_ci "$work/$label-$mode.ms" | awk '{ printf "%d (%d .. %d)", $1, $3, $5 }')
      ratio=$(awk -v m="$(median "$work/$label-$mode.ms")" -v n="$none" 'BEGIN { printf "%.3f", m / n }')
      case $mode in
        none) name="no profiler" ;;
        floor) name="the JVM's events alone" ;;
        fgagent) name="fgagent alloc" ;;
        asprof) name="async-profiler alloc=512k" ;;
      esac
      echo "| $name | $ci | $ratio |"
    done
    echo
    echo "fgagent's rate: $(median "$work/$label-gbs") GB/s estimated allocated, $( [ -s "$work/$label-sps" ] && median "$work/$label-sps" || echo "?") samples a second."
    echo
  } >>"$out"
done
echo "wrote $out"
