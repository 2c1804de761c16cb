#!/usr/bin/env bash
# The sampler at scale and on every kind of thread (java-test/workloads/Scale.java): many live
# threads, threads ending together, threads starting, threads hopping CPUs, pairs of threads
# handing a token back and forth, virtual threads, a class retransformed every 100 ms by a java
# agent. Each case runs with no profiler, with fgagent's default (clock=auto), with clock=perf
# and walker=copy asked for, and with async-profiler when
# ASPROF names its library, interleaved, ROUNDS times, at interval=1ms, on JDK 17 and Temurin 25
# when installed. Per run: the workload's own time for the part a profiler can slow, the samples
# of its worker threads over their own CPU time / 1 ms (the rate achieved), the share of those
# samples with a failure frame, and fgagent's summary's lost samples. Writes results/scale.md.
# Usage: scripts/bench-scale.sh [ROUNDS]   (default 3)   Environment: ASPROF=/path/libasyncProfiler.so
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
agent=$(pwd)/build/libfgagent.so
classes=$(pwd)/build/java-test
hoplib=$(pwd)/build/java-test-jni/libfghop.so
out=results/scale.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s lib java >/dev/null

# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh
bench_jdks bench-scale
modes=(none default perf copy)
[ -n "${ASPROF:-}" ] && [ -f "$ASPROF" ] && modes+=(asprof)

# name|time key|threads whose samples count (a regex on the thread frame)|JVM flags and arguments
cases=(
  "1000 live threads, a little work and 5 ms sleeps|LIVE_MS|scale-|Scale live 1000 100"
  "3000 threads ending at once|END_MS|scale-|Scale end 3000"
  "600 threads started beside 4 busy ones|START_MS|scale-|Scale start 600 4"
  "200 threads changing CPU every 0.5 ms, 20 ms of CPU each|HOP_MS|scale-|Scale hop 200 20 $hoplib"
  "2 pairs of threads handing a token back and forth 100 000 times|HANDOFF_MS|scale-|Scale handoff 2 100000"
  "1000 virtual threads, compute and 1 ms sleeps|VT_MS|ForkJoinPool|Scale vt 1000 10"
  "a hot class retransformed every 100 ms|HOT_MS|scale-|-javaagent:$classes/retransformer.jar Scale hot 3000"
)

# run JAVA MODE TAG ARGS...: one run; its stdout in TAG.out, profile in TAG.collapsed, summary in TAG.log
run() {
  local java=$1 mode=$2 tag=$3
  shift 3
  local flag=()
  case $mode in
    default) flag=("-agentpath:$agent=interval=1ms,threads,file=$tag.collapsed,log=$tag.log") ;;
    perf) flag=("-agentpath:$agent=interval=1ms,clock=perf,threads,file=$tag.collapsed,log=$tag.log") ;;
    copy) flag=("-agentpath:$agent=interval=1ms,walker=copy,threads,file=$tag.collapsed,log=$tag.log") ;;
    asprof) flag=("-agentpath:$ASPROF=start,event=cpu,interval=1000000,threads,collapsed,file=$tag.collapsed") ;;
  esac
  "$java" "${flag[@]}" -cp "$classes" "$@" >"$tag.out" 2>"$tag.err"
}

# samples KIND FILE REGEX: the samples of the threads matching REGEX in a collapsed file with
# thread frames; KIND all, or failed (a failure frame in the stack)
samples() {
  awk -v kind="$1" -v re="$3" '
    { n = $NF; stack = substr($0, 1, length($0) - length(n) - 1)
      split(stack, f, ";"); if (f[1] !~ "^\\[" re) next
      if (kind == "failed" && stack !~ /\[(no_Java_frame|no_class_load|GC_active|unknown_not_Java|not_walkable_not_Java|unknown_Java|not_walkable_Java|unknown_state|thread_exit|deopt|safepoint|unknown_tick|unknown)\]/) next
      s += n }
    END { print s + 0 }' "$2"
}

value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
# shellcheck source=scripts/bench/stats.sh
. scripts/bench/stats.sh   # median FILE: "nan" when it holds none

{
  echo "# The sampler at scale: many threads, ending, starting, hopping CPUs, handing off, virtual, retransformed"
  echo
  bench_provenance "$(bench_asprof "$([[ " ${modes[*]} " == *" asprof "* ]] && echo "$ASPROF")")"
  echo
  echo "$(bench_ran bench-scale.sh "$rounds"), interval 1 ms. Each case ran $rounds times in each mode,"
  echo "the modes interleaved. *time*: the workload's own clock for the part a profiler can slow (the"
  echo "median, and its ratio to no profiler's median); *rate*: the worker threads' samples over their own"
  echo "CPU time / 1 ms (for virtual threads, the carriers' samples per 1 ms of the process's CPU is not"
  echo "measured: *-*); *failed*: the share of those threads' samples with a failure frame; *lost*:"
  echo "fgagent's summary's lost samples over those it took. Each cell gives the median, then the runs."
  echo
} >"$out"

for jdk in "${jdks[@]}"; do
  label=${jdk%%=*}
  java=${jdk#*=}/bin/java
  for c in "${cases[@]}"; do
    IFS='|' read -r name key threads cmd <<<"$c"
    read -r -a args <<<"$cmd"
    if [ "$key" = VT_MS ] && ! "$java" -cp "$classes" Scale vt 1 1 >/dev/null 2>&1; then
      echo "| $label | $name | no virtual threads in this JDK |" >>"$work/rows"
      continue
    fi
    for r in $(seq "$rounds"); do
      for m in "${modes[@]}"; do
        tag=$work/$label-$key-$m-$r
        run "$java" "$m" "$tag" "${args[@]}" || echo "bench-scale: $label $key $m run $r exited $?" >&2
      done
    done
    for m in "${modes[@]}"; do
      times=() rates=() fails=() losts=()
      for r in $(seq "$rounds"); do
        tag=$work/$label-$key-$m-$r
        times+=("$(value "$key" "$tag.out")")
        [ "$m" = none ] && continue
        cpu=$(value CPU_NS "$tag.out")
        all=$(samples all "$tag.collapsed" "$threads" 2>/dev/null || echo 0)
        bad=$(samples failed "$tag.collapsed" "$threads" 2>/dev/null || echo 0)
        if [ "${cpu:-0}" -gt 0 ]; then rates+=("$(awk -v s="$all" -v c="$cpu" 'BEGIN {printf "%.3f", s / (c / 1e6)}')"); else rates+=("-"); fi
        fails+=("$(awk -v b="$bad" -v a="$all" 'BEGIN {printf "%.1f%%", a ? 100 * b / a : 0}')")
        if [ -f "$tag.log" ]; then
          losts+=("$(awk '/signals taken:/ {t = $3} /samples lost:/ {l = $3} END {printf "%.1f%%", t ? 100 * l / t : 0}' "$tag.log")")
        else
          losts+=("-")
        fi
      done
      tmed=$(printf '%s\n' "${times[@]}" | grep -v '^$' | median /dev/stdin)
      [ "$m" = none ] && base=$tmed
      ratio=$(awk -v t="${tmed:-0}" -v b="${base:-0}" 'BEGIN {if (b > 0) printf "%.2fx", t / b; else print "-"}')
      med() { printf '%s\n' "$@" | tr -d '%' | grep -v '^-$' | median /dev/stdin | sed 's/^nan$/-/'; }
      if [ "$m" = none ]; then
        echo "| $label | $name | none | $tmed ms (${times[*]}) | | | |" >>"$work/rows"
      else
        echo "| $label | $name | $m | $tmed ms, $ratio (${times[*]}) | $(med "${rates[@]}") (${rates[*]}) | $(med "${fails[@]}")% (${fails[*]}) | $(med "${losts[@]}")% (${losts[*]}) |" >>"$work/rows"
      fi
    done
  done
done

{
  echo "| JDK | case | profiler | time | rate | failed | lost |"
  echo "|---|---|---|---|---|---|---|"
  cat "$work/rows"
  echo
  echo "*default* is fgagent with no clock= nor walker= given (clock=auto: a POSIX CPU timer a thread, a"
  echo "perf_events counter for those running 1 ms or more between context switches); *perf* is clock=perf (a"
  echo "counter every thread, the default before); *asprof* is async-profiler (${ASPROF:-not run})."
  echo
  bench_load_end
} >>"$out"
echo "bench-scale: wrote $out"
