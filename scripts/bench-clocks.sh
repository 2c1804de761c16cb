#!/usr/bin/env bash
# What each of event=cpu's clocks costs a thread at every context switch (scripts/bench/switch_cost.c):
# two threads on one CPU pass a byte back and forth, each with the clock, 20 000 rounds a run, the
# clocks interleaved, ROUNDS runs each. A perf_events counter's hrtimer is cancelled at each switch
# out and started again at each switch in; a POSIX CPU timer is looked at only at the kernel's tick.
# Writes results/clocks.md.
# Usage: scripts/bench-clocks.sh [ROUNDS]   (default 15)
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-15}
out=results/clocks.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s build/switch_cost >/dev/null || exit 1
# shellcheck source=scripts/bench/stats.sh
. scripts/bench/stats.sh
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh
clocks=(none perf-1000000 perf-10000000 perf-100000000 posix-1000000)
for ((r = 1; r <= rounds; r++)); do
  for c in "${clocks[@]}"; do
    build/switch_cost "$c" 20000 >>"$work/$c" || { echo "bench-clocks: $c failed" >&2; exit 1; }
  done
done
none=$(median "$work/none")
{
  echo "# What a thread's clock costs at each context switch"
  echo
  bench_provenance "none"
  echo
  echo "$(bench_ran bench-clocks.sh "$rounds")$(grep -q hypervisor /proc/cpuinfo && echo ', a virtual machine'). Two threads pinned to one CPU pass a byte"
  echo "back and forth over pipes, 20 000 rounds a run (two context switches a round), each thread with"
  echo "the clock named; the clocks interleaved, $rounds runs each. *round*: the median time of a round"
  echo "(and the runs' range); *a switch*: what the clock adds to each context switch, half the"
  echo "round's difference from no clock."
  echo
  echo "| clock | round | a switch |"
  echo "|---|---|---|"
  for c in "${clocks[@]}"; do
    m=$(median "$work/$c")
    range=$(sort -g "$work/$c" | awk 'NR==1{lo=$1} {hi=$1} END{printf "%.2f-%.2f", lo, hi}')
    case $c in
      none) name="none" ;;
      perf-*) name="perf_events cpu-clock counter, period $(awk -v p="${c#perf-}" 'BEGIN{printf "%g ms", p/1e6}') (clock=perf)" ;;
      posix-*) name="POSIX CPU timer, interval $(awk -v p="${c#posix-}" 'BEGIN{printf "%g ms", p/1e6}') (clock=auto, clock=posix)" ;;
    esac
    echo "| $name | $(printf '%.2f' "$m") us ($range) | $(awk -v m="$m" -v n="$none" 'BEGIN{printf "%+.2f us", (m-n)/2}') |"
  done
  echo
  echo "The counter's hrtimer reprograms the CPU's timer when it is the next to expire, which a"
  echo "short period makes likely; on a virtual machine that is a trap to the hypervisor. So a thread"
  echo "that switches often pays most at the intervals profilers use. clock=auto keeps such threads"
  echo "on a POSIX timer (sampling/cputimer/clock_choice.h)."
} >"$out"
cat "$out"
