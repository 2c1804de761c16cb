#!/usr/bin/env bash
# Sample storage: (1) the agent's storage code on 1 000 000 samples over
# 100 000 distinct stacks (build/bench_storage: the handler's store, the
# drainer's turn into the profile beside its former way, the HTML flame
# graph), median of 3; (2) the agent's memory with 1000 live Java threads,
# sleeping and working (ManyThreads), RSS with and without the agent at
# default options (interval=1ms), RUNS interleaved runs each on JDK 17 with a
# fixed, pre-touched 64 MB heap so that the JVM's own memory holds still.
# Writes results/storage.md.
# Environment: RUNS (default 3), THREADS (default 1000), REST_MS (a working thread's rest, default 200).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh

runs=${RUNS:-3}
threads=${THREADS:-1000}
# a working thread's rest between units of Work.mix: at 20 ms 1000 threads kept two cores full, the
# run queue reached hundreds on a shared machine and a run with the agent took minutes (the
# benchmark passed 400 s); at 200 ms they ask for a tenth as much
rest=${REST_MS:-200}
agent=$(pwd)/build/libfgagent.so
java=$(ls -d /usr/lib/jvm/java-17-openjdk-*/bin/java | head -n 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# (1) the storage code
for r in $(seq 3); do build/bench_storage 100000 1000000 "$work/p.html" >"$work/bench.$r"; done
fig() { for r in 1 2 3; do awk -v k="$1" '$1 == k {print $2}' "$work/bench.$r"; done | median; }
echo "bench-storage: store $(fig store_ns_per_sample) ns, drain $(fig drain_ns_per_sample) ns (former $(fig drain_former_ns_per_sample) ns), html $(fig html_ms) ms"

# (2) memory at $threads threads: RSS_KB printed by the workload itself
rss() { # mode agent(0/1)
  local a=()
  [ "$2" = 1 ] && a=("-agentpath:$agent=interval=1ms,file=$work/m.collapsed,log=$work/m.log")
  "$java" -Xms64m -Xmx64m -XX:+AlwaysPreTouch "${a[@]}" -cp build/java-test ManyThreads "$threads" "$1" 3 "$rest" 2>/dev/null |
    sed -n 's/.*RSS_KB \([0-9]*\).*/\1/p'
}
declare -A with without
for mode in sleep work; do
  for r in $(seq "$runs"); do
    without[$mode]+="$(rss "$mode" 0) "
    with[$mode]+="$(rss "$mode" 1) "
  done
  echo "bench-storage: $mode: without ${without[$mode]}KB, with ${with[$mode]}KB"
done
samples=$(sed -n 's/^ *samples stored: *\([0-9]*\).*/\1/p' "$work/m.log")
stacks=$(sed -n 's/^ *stack storage: *\([0-9]*\) distinct stacks in \([0-9.]*\) MB.*/\1 stacks, \2 MB/p' "$work/m.log")

{
  echo "# Sample storage"
  echo
  bench_provenance "none"
  echo
  echo "Written by $(bench_ran bench-storage.sh)."
  echo
  echo "## The storage code, without a JVM"
  echo
  echo "build/bench_storage: 1 000 000 samples over 100 000 distinct stacks of 10 to 40 frames, each"
  echo "stack drawn as often as the others (median of 3 runs). *store*: fg_trace_table_put, what the"
  echo "signal handler does after its walk; *drain*: fg_trace_account + fg_trace_stack +"
  echo "fg_profile_count, what the drainer does per sample; *former drain*: every frame named and the"
  echo "whole stack hashed into the profile, as the drainer did before the trace table (same run)."
  echo
  echo "| figure | value |"
  echo "|---|---|"
  echo "| store, per sample | $(fig store_ns_per_sample) ns |"
  echo "| trace table for 100 000 stacks | $(fig table_bytes) MB |"
  echo "| drain, per sample | $(fig drain_ns_per_sample) ns |"
  echo "| former drain, per sample | $(fig drain_former_ns_per_sample) ns |"
  echo "| HTML flame graph of the profile | $(fig html_ms) ms |"
  echo "| drain of 1M samples + HTML | $(fig drain_and_html_ms) ms |"
  echo
  echo "## Memory with $threads live Java threads"
  echo
  echo "ManyThreads $threads sleep|work 3 $rest on JDK 17 (-Xms64m -Xmx64m -XX:+AlwaysPreTouch): the workload"
  echo "reads its own VmRSS while every thread is alive. *work*: each thread runs Work.mix, then rests"
  echo "$rest ms, in a loop (1000 threads resting 20 ms keep 2 cores full and starve the JVM itself). With the agent:"
  echo "default options, interval=1ms. $runs runs each, interleaved; medians; the per-thread figure"
  echo "divides the whole difference (fixed costs included: the native symbol tables, the trace table's"
  echo "first index and chunk) by the thread count."
  echo
  echo "| threads | without agent (MB) | with agent (MB) | agent (MB) | per thread (KB) |"
  echo "|---|---|---|---|---|"
  for mode in sleep work; do
    a=$(echo "${without[$mode]}" | tr ' ' '\n' | grep . | median)
    b=$(echo "${with[$mode]}" | tr ' ' '\n' | grep . | median)
    awk -v m="$mode" -v a="$a" -v b="$b" -v n="$threads" \
      'BEGIN {printf "| %d %s | %.1f | %.1f | %.1f | %.1f |\n", n, m, a/1024, b/1024, (b-a)/1024, (b-a)/n}'
  done
  echo
  echo "Runs (KB): sleep without ${without[sleep]}/ with ${with[sleep]}; work without ${without[work]}/ with ${with[work]}."
  echo "The last run with the agent stored $samples samples in ${stacks:-?}."
} >results/storage.md
cat results/storage.md
