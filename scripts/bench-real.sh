#!/usr/bin/env bash
# What fgagent costs real programs from start to end, beside async-profiler: H2 (Debian
# libh2-java) running scripts/bench/h2-work.sql in memory, which allocates about 2 GB, and
# javac compiling the java.management module (330 files) from the running JDK's own src.zip,
# both JIT-heavy from their first second. Fixed work timed end to end: the process's wall
# time and its CPU time (user + system, the JVM's and the profiler's threads together). Modes:
# no profiler; CompiledMethodLoad with a callback that only counts (what a code map filled by the
# JVM's events costs it; fgagent's reads the code heap instead); the CPU sampler with no option given (fgagent's default, event=cpu at 10 ms); alloc=512k
# (fgagent alloc); the JVM's allocation events with a callback that only counts
# (build/event_floor_agent.so, what any JVMTI allocation profiler pays); and async-profiler's
# event=cpu (its default interval, 10 ms) and alloc=512k when ASPROF names its library.
# Interleaved, ROUNDS times; each mode's median (95% interval of the median) and its ratio to no
# profiler's. Also fgagent alloc's own figures: the bytes it estimated over the run's time (the
# program's allocation rate) and its samples per second. A small heap is fixed (-Xms512m
# -Xmx512m). JDK 17 and Temurin 25 when installed. Writes results/real.md.
# Usage: scripts/bench-real.sh [ROUNDS]   (default 15)   Environment: ASPROF=/path/libasyncProfiler.so
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-15}
module=java.management
agent=$(pwd)/build/libfgagent.so
out=results/real.md
sql=$(pwd)/scripts/bench/h2-work.sql
h2=/usr/share/java/h2.jar
[ -f "$h2" ] || { echo "bench-real: $h2 not found (package libh2-java)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s lib build/event_floor_agent.so >/dev/null || exit 1
floor=$(pwd)/build/event_floor_agent.so
# shellcheck source=scripts/bench/stats.sh
. scripts/bench/stats.sh

# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh
bench_jdks bench-real
modes=(none code cpu asprof-cpu floor alloc asprof-alloc)
[ -n "${ASPROF:-}" ] && [ -f "$ASPROF" ] || modes=(none code cpu floor alloc)

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# launch HOME FLAGS...: one run of $program (javac in $src) with FLAGS; its output in $tag.out
launch() {
  local home=$1
  shift
  case $program in
    javac) (cd "$src" && "$home/bin/java" -Xms512m -Xmx512m "$@" -m jdk.compiler/com.sun.tools.javac.Main \
              -nowarn --module-source-path . -m "$module" -d out >"$tag.out" 2>&1 &&
            [ -f out/$module/module-info.class ]) ;;
    h2) "$home/bin/java" -Xms512m -Xmx512m "$@" -cp "$h2" org.h2.tools.RunScript -url jdbc:h2:mem:bench \
          -script "$sql" >"$tag.out" 2>&1 ;;
  esac
}

# run PROGRAM HOME MODE TAG: one run; its wall time in ms appended to the mode's .ms file and
# its CPU time (user + system) to its .cpu file, TAG.ms1 alone
run() {
  local home=$2 mode=$3 flag=()
  program=$1 tag=$4
  case $mode in
    cpu) flag=("-agentpath:$agent=file=$tag.collapsed,log=$tag.log") ;;
    code) flag=("-agentpath:$floor=code") ;;
    floor) flag=("-agentpath:$floor=alloc") ;;
    alloc) flag=("-agentpath:$agent=alloc,file=$tag.collapsed,log=$tag.log") ;;
    asprof-cpu) flag=("-agentpath:$ASPROF=start,event=cpu,collapsed,file=$tag.collapsed") ;;
    asprof-alloc) flag=("-agentpath:$ASPROF=start,alloc=512k,total,collapsed,file=$tag.collapsed") ;;
  esac
  rm -rf "$src/out"
  local t0 t1 rc times
  t0=$(now_ms)
  times=$( { TIMEFORMAT='%3U %3S'; time launch "$home" "${flag[@]}"; } 2>&1 >/dev/null)
  rc=$?
  t1=$(now_ms)
  [ $rc -eq 0 ] || { echo "bench-real: $program $mode failed:" >&2; tail -n 5 "$tag.out" >&2; exit 1; }
  echo $((t1 - t0)) >>"${tag%-*}.ms"
  echo "$times" | awk '{ printf "%d\n", 1000 * ($1 + $2) }' >>"${tag%-*}.cpu"
  echo $((t1 - t0)) >"$tag.ms1"
}

{
  echo "# Real programs from start to end: what fgagent costs them, beside async-profiler"
  echo
  bench_provenance "$(bench_asprof "${ASPROF:-}")"
  echo
  echo "Measured by $(bench_ran bench-real.sh "$rounds")."
  echo "H2 runs scripts/bench/h2-work.sql in memory; javac compiles the $module module from the running"
  echo "JDK's src.zip; both -Xms512m -Xmx512m. Every mode ran $rounds times, interleaved. *wall*: the process's wall"
  echo "time for the run, *CPU*: its user and system time, each the median (95% interval of the median)"
  echo "and its ratio to no profiler's median. *fgagent cpu*: no option but file= (event=cpu, 10 ms);"
  echo "async-profiler's event=cpu at its default interval (10 ms). *the JVM's code events alone*:"
  echo "CompiledMethodLoad with a callback that only counts (what a code map filled by them costs; fgagent"
  echo "and async-profiler read the code cache instead). *the JVM's events alone*:"
  echo "SampledObjectAlloc at 512 KiB with a callback that only counts. fgagent alloc's *rate*: the bytes it"
  echo "estimated over the run's time, and its allocation samples a second (medians of its runs)."
  echo
} >"$out"

for jdk in "${jdks[@]}"; do
  label=${jdk%%=*}
  home=${jdk#*=}
  src=$work/$label-src
  mkdir -p "$src"
  if ! (cd "$src" && unzip -q "$home/lib/src.zip" "$module/*"); then
    echo "bench-real: $home/lib/src.zip has no $module; $label skipped" >&2
    continue
  fi
  for program in h2 javac; do
    run "$program" "$home" none "$work/warm-0"   # the page cache warm for the program and the JDK
    for i in $(seq 1 "$rounds"); do
      for mode in "${modes[@]}"; do
        t=$work/$label-$program-$mode-$i
        run "$program" "$home" "$mode" "$t"
        [ "$mode" = alloc ] || continue
        bytes=$(awk '{ s += $NF } END { printf "%.0f", s }' "$t.collapsed")
        samples=$(awk '$1 == "samples" && $2 == "taken:" { print $3; exit }' "$t.log")
        ms=$(cat "$t.ms1")
        awk -v b="$bytes" -v m="$ms" 'BEGIN { printf "%.3f\n", b / m / 1e6 }' >>"$work/$label-$program-gbs"
        awk -v n="${samples:-0}" -v m="$ms" 'BEGIN { printf "%.0f\n", n * 1000 / m }' >>"$work/$label-$program-sps"
      done
    done
  done
  {
    echo "## $label ($("$home/bin/java" -version 2>&1 | head -n 1))"
    echo
    echo "| mode | H2 wall, ms | ratio | H2 CPU, ms | ratio | javac wall, ms | ratio | javac CPU, ms | ratio |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for mode in "${modes[@]}"; do
      case $mode in
        none) row="| no profiler" ;;
        code) row="| the JVM's code events alone" ;;
        cpu) row="| fgagent cpu" ;;
        asprof-cpu) row="| async-profiler event=cpu" ;;
        floor) row="| the JVM's events alone" ;;
        alloc) row="| fgagent alloc" ;;
        asprof-alloc) row="| async-profiler alloc=512k" ;;
      esac
      for program in h2 javac; do
        for kind in ms cpu; do
          ci=$(median_ci "$work/$label-$program-$mode.$kind" | awk '{ printf "%d (%d .. %d)", $1, $3, $5 }')
          ratio=$(awk -v m="$(median "$work/$label-$program-$mode.$kind")" \
            -v n="$(median "$work/$label-$program-none.$kind")" 'BEGIN { printf "%.3f", m / n }')
          row="$row | $ci | $ratio"
        done
      done
      echo "$row |"
    done
    echo
    for program in h2 javac; do
      echo "fgagent alloc's $program runs: $(median "$work/$label-$program-gbs") GB/s estimated allocated, $(median "$work/$label-$program-sps") samples a second."
    done
    echo
  } >>"$out"
done
bench_load_end >>"$out"
echo "wrote $out"
