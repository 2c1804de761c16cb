#!/usr/bin/env bash
# What alloc and lock cost and how true they are, with async-profiler in the same rounds when
# ASPROF names its library. Cost: fixed work timed by the workload's own clock, with no
# profiler, with fgagent and with async-profiler, interleaved, ROUNDS times, the ratio of each
# mode's median to no profiler's (and the median's 95% interval from order statistics):
#   an allocation-heavy run (AllocSites: one thread, 34 GB) at alloc=512k (one thread: two on two
#   cores compete with G1's workers and spread the times over 20%, one over 3-4%);
#   a contended one (LockWork: 4 threads on a monitor, 4 on a ReentrantLock) at lock=10us.
# The floor, in the same rounds: build/event_floor_agent.so turns on the same JVM events with
# callbacks that only count (scripts/bench/event_floor_agent.c), what any JVMTI profiler pays.
# Truth, in the same rounds: each allocation site's share of the bytes profiled against the
# bytes the workload counted, and the estimated total against them (AllocSites); the monitor's
# share of the lock waits against the JVM's own accounting, ThreadMXBean's blocked and waited
# times (Locks: 3 threads on a monitor, 2 on a ReentrantLock, 3 s).
# JDK 17 and Temurin 25 when installed; fixed heap (-Xms1g -Xmx1g -XX:+AlwaysPreTouch).
# Writes results/alloc-lock.md.
# Usage: scripts/bench-alloc-lock.sh [ROUNDS]   (default 15)   Environment: ASPROF=/path/libasyncProfiler.so
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-15}
agent=$(pwd)/build/libfgagent.so
classes=$(pwd)/build/java-test
out=results/alloc-lock.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s lib java build/event_floor_agent.so >/dev/null
floor=$(pwd)/build/event_floor_agent.so
# shellcheck source=scripts/bench/stats.sh
. scripts/bench/stats.sh

# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh
bench_jdks bench-alloc-lock
modes=(none floor fgagent)
[ -n "${ASPROF:-}" ] && [ -f "$ASPROF" ] && modes+=(asprof)
heap=(-Xms1g -Xmx1g -XX:+AlwaysPreTouch)

# run JAVA MODE EVENT TAG ARGS...: one run (EVENT alloc or lock); stdout in TAG.out, profile in TAG.collapsed
run() {
  local java=$1 mode=$2 event=$3 tag=$4
  shift 4
  local flag=()
  case $mode:$event in
    floor:alloc) flag=("-agentpath:$floor=alloc") ;;
    floor:lock) flag=("-agentpath:$floor=lock") ;;
    fgagent:alloc) flag=("-agentpath:$agent=alloc,file=$tag.collapsed,log=$tag.log") ;;
    fgagent:lock) flag=("-agentpath:$agent=lock,file=$tag.collapsed,log=$tag.log") ;;
    asprof:alloc) flag=("-agentpath:$ASPROF=start,alloc=512k,total,collapsed,file=$tag.collapsed") ;;
    asprof:lock) flag=("-agentpath:$ASPROF=start,lock=10us,total,collapsed,file=$tag.collapsed") ;;
  esac
  "$java" "${heap[@]}" "${flag[@]}" -cp "$classes" "$@" >"$tag.out" 2>"$tag.err"
}

value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
# bytes FILE FRAME: the bytes (or ns) of the stacks through FRAME in a collapsed file
through() { awk -v f="$2" '{ n = $NF; if (index(";" $0, ";" f ";")) s += n } END { printf "%.0f\n", s }' "$1"; }

{
  echo "# alloc and lock: their cost and their truth, beside async-profiler"
  echo
  bench_provenance "$(bench_asprof "${ASPROF:-}")"
  echo
  echo "$(bench_ran bench-alloc-lock.sh "$rounds"). Every mode ran"
  echo "$rounds times, interleaved, with -Xms1g -Xmx1g -XX:+AlwaysPreTouch. *cost*: the workload's own time for its"
  echo "fixed work, the median (95% interval of the median) and its ratio to no profiler's median."
  echo "*sites*: each allocation site's share of the bytes profiled (the workload's counted shares"
  echo "in the header), the median of the runs; *bytes*: the bytes estimated over the bytes counted."
  echo "*monitor share*: the monitor's share of the lock waits profiled, against the JVM's own"
  echo "(ThreadMXBean: blocked time on the monitor, waited time on the ReentrantLock) in the same run."
  echo
} >"$out"

for jdk in "${jdks[@]}"; do
  label=${jdk%%=*}
  java=${jdk#*=}/bin/java
  for i in $(seq 1 "$rounds"); do
    for mode in "${modes[@]}"; do
      t=$work/$label-$mode-$i
      run "$java" "$mode" alloc "$t-alloc" AllocSites 1 4800000
      value WORK_MS "$t-alloc.out" >>"$work/$label-$mode-alloc.ms"
      run "$java" "$mode" lock "$t-lock" LockWork 4 80000
      value WORK_MS "$t-lock.out" >>"$work/$label-$mode-lock.ms"
      [ "$mode" = none ] || [ "$mode" = floor ] && continue
      run "$java" "$mode" alloc "$t-sites" AllocSites 2 300000
      counted=$(awk '$1 == "SITE" { s += $3 } END { printf "%.0f", s }' "$t-sites.out")
      all=0
      for site in siteBytes siteInts siteLongs; do
        b=$(through "$t-sites.collapsed" "AllocSites.$site")
        echo "$b" >"$t-$site"
        all=$((all + b))
      done
      for site in siteBytes siteInts siteLongs; do
        awk -v b="$(cat "$t-$site")" -v a="$all" 'BEGIN { if (a) printf "%.2f\n", 100 * b / a }' >>"$work/$label-$mode-$site.pct"
      done
      awk -v a="$all" -v c="$counted" 'BEGIN { if (c) printf "%.4f\n", a / c }' >>"$work/$label-$mode-bytes.ratio"
      run "$java" "$mode" lock "$t-locks" Locks 3 2 3
      m=$(through "$t-locks.collapsed" Locks.onMonitor)
      l=$(through "$t-locks.collapsed" Locks.onLock)
      jb=$(value MONITOR_BLOCKED_NS "$t-locks.out")
      jw=$(value LOCK_WAITED_NS "$t-locks.out")
      awk -v m="$m" -v l="$l" -v b="$jb" -v w="$jw" 'BEGIN { if (m + l > 0 && b + w > 0) printf("%.2f %.2f\n", 100 * m / (m + l), 100 * b / (b + w)) }' \
        >>"$work/$label-$mode-monitor.pct"
    done
  done
  read -r -a site_truth <<<"$(awk '$1 == "SITE" { v[$2] = $3; s += $3 } END { printf "%.1f %.1f %.1f", 100 * v["siteBytes"] / s, 100 * v["siteInts"] / s, 100 * v["siteLongs"] / s }' "$work/$label-fgagent-1-sites.out")"
  {
    echo "## $label ($("$java" -version 2>&1 | head -n 1))"
    echo
    echo "| mode | alloc=512k cost, ms | ratio | lock=10us cost, ms | ratio | sites (${site_truth[0]} / ${site_truth[1]} / ${site_truth[2]}% counted) | bytes | monitor share (profile vs JVM) |"
    echo "|---|---|---|---|---|---|---|---|"
    for mode in "${modes[@]}"; do
      a=$(median_ci "$work/$label-$mode-alloc.ms" | awk '{ printf "%d (%d .. %d)", $1, $3, $5 }')
      l=$(median_ci "$work/$label-$mode-lock.ms" | awk '{ printf "%d (%d .. %d)", $1, $3, $5 }')
      ra=$(awk -v m="$(median "$work/$label-$mode-alloc.ms")" -v n="$(median "$work/$label-none-alloc.ms")" 'BEGIN { printf "%.3f", m / n }')
      rl=$(awk -v m="$(median "$work/$label-$mode-lock.ms")" -v n="$(median "$work/$label-none-lock.ms")" 'BEGIN { printf "%.3f", m / n }')
      if [ "$mode" = none ]; then
        echo "| no profiler | $a | 1 | $l | 1 | - | - | - |"
        continue
      fi
      if [ "$mode" = floor ]; then   # the JVM's own reporting, callbacks that only count
        echo "| the JVM's events alone | $a | $ra | $l | $rl | - | - | - |"
        continue
      fi
      sites=$(for s in siteBytes siteInts siteLongs; do printf '%.1f / ' "$(median "$work/$label-$mode-$s.pct")"; done)
      mon=$(awk '{ p[NR] = $1; j[NR] = $2 } END { for (i = 1; i <= NR; i++) printf("%s%.1f vs %.1f", (i > 1 ? ", " : ""), p[i], j[i]) }' "$work/$label-$mode-monitor.pct")
      echo "| $mode | $a | $ra | $l | $rl | ${sites% / }% | $(median "$work/$label-$mode-bytes.ratio") | $mon |"
    done
    echo
  } >>"$out"
done
bench_load_end >>"$out"
echo "wrote $out"
