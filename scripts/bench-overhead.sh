#!/usr/bin/env bash
# Overhead benchmark: the fixed-work Bench workload without the agent and with
# it at several intervals, runs interleaved (the machine is shared and noisy:
# each round runs every mode once, in a rotating order), medians compared
# within this one run. Writes results/overhead.md.
# Environment: ROUNDS (default 7), BATCHES (work per run, default 1000: about 3.5 s).
set -euo pipefail
cd "$(dirname "$0")/.."

java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)}
rounds=${ROUNDS:-7}
batches=${BATCHES:-1000}
modes=(none cpu-10ms cpu-1ms cpu-100us itimer-1ms)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

agent_opts() {
  case "$1" in
    none) echo "" ;;
    cpu-*) echo "event=cpu,interval=${1#cpu-}" ;;
    itimer-*) echo "event=itimer,interval=${1#itimer-}" ;;
  esac
}

run_one() { # mode round
  local mode=$1 round=$2 opts args=()
  opts=$(agent_opts "$mode")
  if [ -n "$opts" ]; then
    args+=("-agentpath:$(pwd)/build/libfgagent.so=$opts,file=$work/$mode-$round.collapsed,log=$work/$mode-$round.log")
  fi
  "$java_home/bin/java" "${args[@]}" -cp build/java-test Bench "$batches" >"$work/$mode-$round.out" 2>&1
  sed -n 's/^ELAPSED_NS //p' "$work/$mode-$round.out" >>"$work/$mode.elapsed"
  if [ -n "$opts" ]; then
    sed -n 's/.*rate achieved: *\([0-9.]*\) samples per CPU-second.*/\1/p' "$work/$mode-$round.log" >>"$work/$mode.rate"
    sed -n 's/.*fgagent.s own thread used \([0-9.]*\) s CPU.*/\1/p' "$work/$mode-$round.log" >>"$work/$mode.drainer"
    sed -n 's/.*handler time: *\([0-9.]*\) us per stack walk.*/\1/p' "$work/$mode-$round.log" >>"$work/$mode.handler"
  fi
}

median() { sort -g "$1" | awk '{v[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
best() { sort -g "$1" | head -n 1; }

echo "bench-overhead: $rounds rounds x ${#modes[@]} modes, Bench $batches batches each"
for round in $(seq 1 "$rounds"); do
  n=${#modes[@]}
  for i in $(seq 0 $((n - 1))); do
    mode=${modes[$(((i + round) % n))]}
    run_one "$mode" "$round"
  done
  echo "  round $round done"
done

base=$(median "$work/none.elapsed")
base_best=$(best "$work/none.elapsed")
mkdir -p results
{
  echo "# Overhead of fgagent"
  echo
  echo "Measured by \`scripts/bench-overhead.sh\` on $(date -u +%Y-%m-%d), $(nproc) cores, $("$java_home/bin/java" -version 2>&1 | head -n 1)."
  echo "Workload: \`Bench $batches\` (java-test/workloads/Bench.java), one thread, fixed work; the time is"
  echo "the work's own (System.nanoTime around it, JVM start-up excluded). $rounds interleaved rounds."
  echo "Medians, and the best run of each mode (the one least disturbed by the machine's other load)."
  echo
  echo "| mode | median work time | overhead (medians) | best work time | overhead (best runs) | samples per CPU-second | achieved interval | cost per sample (medians / best) | handler per walk | drainer CPU |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for mode in "${modes[@]}"; do
    m=$(median "$work/$mode.elapsed")
    mb=$(best "$work/$mode.elapsed")
    if [ "$mode" = none ]; then
      awk -v m="$m" -v mb="$mb" 'BEGIN { printf "| no agent | %.3f s | - | %.3f s | - | - | - | - | - | - |\n", m/1e9, mb/1e9 }'
      continue
    fi
    r=$(median "$work/$mode.rate")
    d=$(median "$work/$mode.drainer")
    h=$(median "$work/$mode.handler")
    awk -v mode="$mode" -v m="$m" -v b="$base" -v mb="$mb" -v bb="$base_best" -v r="$r" -v d="$d" -v h="$h" 'BEGIN {
      printf "| %s | %.3f s | %+.2f%% | %.3f s | %+.2f%% | %.0f | %.3f ms | %.1f us / %.1f us | %.1f us | %.3f s |\n",
        mode, m/1e9, (m/b-1)*100, mb/1e9, (mb/bb-1)*100, r, 1000/r, (m-b)/1e3/(r*m/1e9), (mb-bb)/1e3/(r*mb/1e9), h, d }'
  done
  echo
  echo "Cost per sample = (work time - no-agent work time) / samples taken in the work time; with few"
  echo "samples (10 ms) the noise swamps it, so read it from the 100 us row, where the samples are many:"
  echo "the overhead at 1 ms is about that cost x 1000 per second."
  echo "Handler per walk is fgagent's own measurement (the summary's \"handler time\", median over runs):"
  echo "AsyncGetCallTrace plus the store, wall-clock, so it includes any preemption inside the handler;"
  echo "the kernel's signal delivery is not in it."
  echo "The machine is shared: compare rows of one run, not figures across runs."
  echo
  echo "Every run's figures (work time in ns):"
  echo
  for mode in "${modes[@]}"; do
    echo "- $mode: $(tr '\n' ' ' <"$work/$mode.elapsed")"
  done
} >results/overhead.md
cat results/overhead.md
