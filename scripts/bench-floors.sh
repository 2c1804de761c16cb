#!/usr/bin/env bash
# The floor of each way perf_events samples a thread at 1 ms of its CPU, paired in
# one process (scripts/bench/floors_paired.c): SIGPROF to an empty handler, with and
# without the kernel callchain ring (what fgagent's event=cpu stands on), and no
# signal at all: a sample record into a ring (perf record), with 2, 8 or 32 KB of
# the stack copied into it (what a profiler walking off the thread stands on).
# Environment: ROUNDS (default 200), BLOCK (work a block, default 100000000: about
# 0.17 s here), RUNS (default 2), OUT (default results/floors-paired.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh

rounds=${ROUNDS:-200}
block=${BLOCK:-100000000}
runs=${RUNS:-2}
out=${OUT:-results/floors-paired.md}
mkdir -p build results
${CC:-gcc} -O2 -Wall -Wextra -pthread -o build/floors_paired scripts/bench/floors_paired.c -lm

label() {
  case "$1" in
    signal) echo "SIGPROF to an empty handler (fgagent's \`event=cpu,kernel=no\`)" ;;
    signal+kernel) echo "the same, the kernel callchain into a one-page ring the handler empties (fgagent's \`event=cpu\`)" ;;
    record) echo "no signal: a sample record (ip, thread, time, kernel callchain) into a ring a reader thread empties (\`perf record\`)" ;;
    copy-*) echo "no signal: the same record with the user registers and the top ${1#copy-}B of the stack (\`perf record --call-graph dwarf\`)" ;;
  esac
}

results=()
for run in $(seq 1 "$runs"); do
  echo "bench-floors: run $run of $runs, $rounds rounds"
  results+=("$(build/floors_paired "$rounds" "$block" 1000)")
done

{
  echo "# The floor of each perf_events sampling mechanism, paired in one process"
  echo
  bench_provenance "none"
  echo
  echo "Measured by $(bench_ran bench-floors.sh)."
  echo "\`build/floors_paired $rounds $block 1000\` (scripts/bench/floors_paired.c): integer mixing on one"
  echo "thread in blocks of fixed work, each block under one mechanism (its counter enabled for the"
  echo "block alone), every mechanism and nothing once a round in a shuffled order, $rounds rounds, 1 ms"
  echo "of the thread's CPU asked of each. Each cell: the median of the per-round ratios of the"
  echo "mechanism's block to the round's block with nothing, and its 95% confidence interval (order"
  echo "statistics); $runs runs one after the other."
  echo
  echo -n "| mechanism |"
  for run in $(seq 1 "$runs"); do echo -n " run $run | 95% interval |"; done
  echo " samples a second |"
  echo -n "|---|"
  for run in $(seq 1 "$runs"); do echo -n "---|---|"; done
  echo "---|"
  for m in signal signal+kernel record copy-2k copy-8k copy-32k; do
    echo -n "| $(label "$m") |"
    for r in "${results[@]}"; do
      echo -n "$(awk -v m="$m" '$1 == "FLOOR" && $2 == m {printf " %s | %s-%s |", $3, $4, $5}' <<<"$r")"
    done
    echo " $(awk -v m="$m" '$1 == "FLOOR" && $2 == m {print $6}' <<<"${results[0]}") |"
  done
  echo
  for r in "${results[@]}"; do
    echo "- $(head -n 1 <<<"$r"); records lost for want of ring room: $(awk '$1 == "LOST" {print $2}' <<<"$r")"
  done
} >"$out"
cat "$out"
