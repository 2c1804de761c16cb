#!/usr/bin/env bash
# Stress: programs that once hung or crawled under the profiler, each run
# without the agent and with it, interleaved, on JDK 17 and (when installed)
# Temurin 25. A profiled run must finish within 2x the median unprofiled time
# of the same program; the summary's handler share and back-off are recorded.
# Writes results/stress.md. Usage: scripts/stress.sh [ROUNDS]   (default 3)
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
agent=$(pwd)/build/libfgagent.so
classes=build/java-test
out=results/stress.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh
bench_jdks stress

# name|agent options|main class and arguments
cases=(
  "hello at the smallest interval|interval=200us|Hello"
  "8000-frame recursion catching StackOverflowError|interval=1ms|StackOverflowStorm 8000 200000"
  "JNI-heavy loop|interval=1ms|JniLoop 3"
  "JNI-heavy loop, -Xcomp|interval=1ms|-Xcomp JniLoop 3"
  "class-loading storm|interval=200us|ClassLoadStorm 5000"
  "100 000 virtual threads|interval=200us|VirtualThreads 100000"
  "thread churn|interval=200us|ThreadChurn 5000 8"
  "deep stack, costly walks|interval=200us,depth=8192|DeepRecursion 6000 3"
  "deoptimization storm|interval=200us|DeoptStorm 300"
  "GC storm, Serial|interval=1ms|-Xmx64m -XX:+UseSerialGC GcStorm 2 3"
  "GC storm, Parallel|interval=1ms|-Xmx64m -XX:+UseParallelGC GcStorm 2 3"
  "GC storm, G1|interval=1ms|-Xmx64m -XX:+UseG1GC GcStorm 2 3"
  "GC storm, ZGC|interval=1ms|-Xmx64m -XX:+UseZGC GcStorm 2 3"
  "GC storm, Shenandoah|interval=1ms|-Xmx64m -XX:+UseShenandoahGC GcStorm 2 3"
)

ms_now() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2] + a[NR/2+1]) / 2)}'; }

failed=0
{
  echo "# Stress: no hang, bounded cost"
  echo
  bench_provenance "none"
  echo
  echo "$(bench_ran stress.sh "$rounds"). Each program runs $rounds times"
  echo "without the agent and $rounds times with it, interleaved; a profiled run must finish within 2x the"
  echo "median unprofiled wall time (JVM start included). *handler share* is the summary's: time in the"
  echo "signal handler over the CPU sampled; *skipped* the signals the back-off skipped (their time"
  echo "credited to the thread's next sample)."
  echo
  echo "| JDK | program | options | unprofiled (median) | profiled (each run) | worst ratio | handler share | skipped | verdict |"
  echo "|---|---|---|---|---|---|---|---|---|"
} >"$out"

for jdk in "${jdks[@]}"; do
  label=${jdk%%=*}
  java=${jdk#*=}/bin/java
  for c in "${cases[@]}"; do
    IFS='|' read -r name opts cmd <<<"$c"
    if [ "$cmd" != "${cmd#VirtualThreads}" ] && ! "$java" -cp "$classes" VirtualThreads 1 >/dev/null 2>&1; then
      echo "| $label | $name | \`$opts\` | - | - | - | - | - | no virtual threads in this JDK |" >>"$out"
      continue
    fi
    plain=() prof=() shares=() skips=()
    for r in $(seq "$rounds"); do
      s=$(ms_now)
      timeout 300 "$java" -cp "$classes" $cmd >/dev/null 2>&1
      plain+=($(($(ms_now) - s)))
      s=$(ms_now)
      timeout 300 "$java" "-agentpath:$agent=$opts,file=$work/p.collapsed" -cp "$classes" $cmd >/dev/null 2>"$work/err"
      rc=$?
      e=$(($(ms_now) - s))
      [ $rc -eq 124 ] && e="timeout"
      prof+=("$e")
      shares+=("$(sed -n 's/.*in all, \([0-9.]*\)% of the CPU sampled.*/\1/p' "$work/err")")
      skips+=("$(sed -n 's/^  back-off: *\([0-9]*\) signals skipped.*/\1/p' "$work/err")")
      grep -q 'accounting:.*: OK' "$work/err" || prof[-1]="${prof[-1]} (no accounting)"
    done
    base=$(printf '%s\n' "${plain[@]}" | median)
    worst=0 verdict=ok
    for e in "${prof[@]}"; do
      case $e in
        *[!0-9]*) verdict=FAIL; worst=inf ;;
        *) [ "$worst" != inf ] && worst=$(awk -v a="$e" -v b="$base" -v w="$worst" 'BEGIN {r = a / b; print (r > w ? r : w)}') ;;
      esac
    done
    [ "$worst" != inf ] && awk -v w="$worst" 'BEGIN {exit !(w > 2)}' && verdict=FAIL
    [ $verdict = FAIL ] && failed=$((failed + 1))
    line="| $label | $name | \`$opts\` | ${base} ms | $(printf '%s ' "${prof[@]}" | sed 's/ $//; s/ / \/ /g') ms | $(printf '%.2f' "$worst" 2>/dev/null || echo "$worst") | $(printf '%s%% ' "${shares[@]}" | sed 's/ $//') | $(printf '%s ' "${skips[@]}" | sed 's/ $//') | $verdict |"
    echo "$line" >>"$out"
    echo "$line"
  done
done
echo >>"$out"
echo "$failed program(s) over 2x." >>"$out"
bench_load_end >>"$out"
echo "stress: wrote $out"
[ "$failed" -eq 0 ]
