#!/usr/bin/env bash
# fgagent's own cost above its mechanism's floor, paired inside one JVM:
# java-test/workloads/PairedBench.java times blocks of the same fixed work with
# nothing, with the floor agent (scripts/bench/floor_agent.c: the same perf
# counter per thread and kernel callchain ring, an empty handler) and with
# fgagent, each switched on and off through the JVM's attach mechanism, every
# mode once a round in a shuffled order, each block after a full collection (see
# PairedBench). Each round's fgagent block / its floor
# block is fgagent's share; the median of those ratios and its 95% confidence
# interval (order statistics) are reported for the work's wall time and its
# thread's CPU time. Separate JVMs differ by more than that on work that
# allocates and calls widely (demo); blocks of one JVM share its compiled code.
# Blocks are short (0.04-0.1 s: this machine's speed drifts by 10-20% over tens
# of seconds, and a round's blocks should see the same speed), each after three
# times its work untimed in its mode (fgagent's start replays the compiled
# methods and its drainer's first pass reads the symbol tables).
# Environment: PAIRED_WORK (default "demo mix deep"), ROUNDS (default 300),
# FG_OPTIONS (default event=cpu,interval=1ms), FLOOR_OPTIONS (default
# perf-kernel,1000, the default walker=vm's mechanism: SIGPROF to an empty handler
# with the callchain ring; copy-32k,1000,percpu is walker=copy's, counters that copy
# 32 KB of stack into a ring per CPU, no signal; ,lines=N makes its handler read N cold lines, ,spin=CYCLES wait that long,
# ,jitter change its counter's period as fgagent does), FGAGENT (default build/libfgagent.so:
# another build's library compares it), FGAGENT2 (a second build: each round also times a block
# with it, and a line compares it with FGAGENT's), FLOOR2_OPTIONS (a second floor in the same rounds,
# e.g. copy-8k,1000: no signal, the kernel copying each sample's stack for a walk off the thread;
# lines compare it with nothing and fgagent with it), JAVA_HOME, OUT (results/overhead-paired.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh
# shellcheck source=scripts/bench/stats.sh
. scripts/bench/stats.sh

java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)}
rounds=${ROUNDS:-300}
read -r -a workloads <<<"${PAIRED_WORK:-demo mix deep}"
fg_options=${FG_OPTIONS:-event=cpu,interval=1ms}
floor_options=${FLOOR_OPTIONS:-perf-kernel,1000}
fgagent=$(realpath "${FGAGENT:-build/libfgagent.so}")
out=${OUT:-results/overhead-paired.md}
fgagent2=${FGAGENT2:+$(realpath "$FGAGENT2")}
floor2_options=${FLOOR2_OPTIONS:-}
modes=(none floor fgagent ${fgagent2:+fgagent2} ${floor2_options:+floor2})
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make -s build/floor_agent.so build/java-test/.built
# PairedBench's optional arguments: the second build, the second floor (the same library at
# another path, which the JVM loads apart with its own options)
extra_args=()
[ -n "$fgagent2" ] && extra_args+=("$fgagent2")
if [ -n "$floor2_options" ]; then
  cp build/floor_agent.so "$work/floor_agent2.so"
  [ -z "$fgagent2" ] && extra_args+=(-)
  extra_args+=("$work/floor_agent2.so" "$floor2_options")
fi

# Units of work a block (about 0.1 s of mixing, 0.04-0.06 s of the demo here; the output gives
# the median), untimed ones before each block (three times as many) and
# before the first (JIT warm-up).
block_units() { case "$1" in demo) echo 18 ;; *) echo 2200 ;; esac; }
warmup_units() { case "$1" in demo) echo 1000 ;; *) echo 20000 ;; esac; }

# Each summary's time a walk, us: the handler's, or walker=copy's engine thread's.
handler_us() { sed -n 's/.*\(handler\|walk\) time: *\([0-9.]*\) us per stack walk.*/\2/p' "$@"; }
# Each summary's CPU of fgagent's own threads (drainer, unwind refresher, walker=copy's engine)
# per 100 s of CPU sampled.
own_cpu_pct() {
  for f in "$@"; do
    own=$(sed -n "s/.*fgagent's own threads used \([0-9.]*\) s CPU.*/\1/p" "$f")
    sampled=$(sed -n 's/.*(\([0-9.]*\) s of CPU sampled).*/\1/p' "$f")
    [ -n "$own" ] && [ -n "$sampled" ] && awk -v o="$own" -v s="$sampled" 'BEGIN { if (s > 0) printf "%.2f\n", 100 * o / s }'
  done
}
# What a floor agent's options mean (scripts/bench/floor_agent.c).
floor_words() {
  local kb=${1#copy-}
  kb=${kb%%,*}
  case "$1" in
    copy-*,*percpu*) echo -n "the same perf cpu-clock counters, one per thread and CPU, copying $kb of stack into a ring per CPU at each sample, no signal; a reader thread empties the rings every 10 ms"
      case "$1" in *jitter*) echo " and varies each counter's period as the engine does" ;; *) echo ;; esac ;;
    copy-*) echo "the same per-thread perf cpu-clock counter copying $kb of stack into its ring at each sample, no signal; a reader thread empties the rings every 10 ms" ;;
    perf-kernel*) echo "the same per-thread perf cpu-clock counter with the kernel callchain ring, an empty handler" ;;
    *) echo "the same per-thread perf cpu-clock counter, an empty handler" ;;
  esac
}

for w in "${workloads[@]}"; do
  echo "bench-paired: $w, $rounds rounds"
  mkdir -p "$work/$w"
  "$java_home/bin/java" -Djdk.attach.allowAttachSelf=true -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
    -cp build/java-test PairedBench "$w" "$(block_units "$w")" "$((3 * $(block_units "$w")))" "$rounds" \
    "$(warmup_units "$w")" "$fgagent" "$fg_options" "$(pwd)/build/floor_agent.so" "$floor_options" "$work/$w" \
    "${extra_args[@]}" >"$work/$w.out" 2>"$work/$w.err"
  for m in "${modes[@]}"; do
    awk -v m="$m" '$1 == "BLOCK" && $3 == m {print $4}' "$work/$w.out" >"$work/$w-$m.time"
    awk -v m="$m" '$1 == "BLOCK" && $3 == m {print $5}' "$work/$w.out" >"$work/$w-$m.cpu"
  done
  if [ "$(wc -l <"$work/$w-fgagent.time")" -ne "$rounds" ]; then
    echo "bench-paired: $w: $(wc -l <"$work/$w-fgagent.time") of $rounds rounds ran; stderr:" >&2
    tail -n 20 "$work/$w.err" >&2
    exit 1
  fi
  bench_rate "$work/$w"/fg-*.log >"$work/$w.rate"
  if [ ! -s "$work/$w.rate" ]; then   # a summary this script no longer reads: say so rather than print nothing
    echo "bench-paired: $w: no 'rate achieved' line in fgagent's summaries ($work/$w/fg-*.log)" >&2
    exit 1
  fi
  handler_us "$work/$w"/fg-*.log >"$work/$w.walk"
  own_cpu_pct "$work/$w"/fg-*.log >"$work/$w.own"
  if [ -n "$fgagent2" ]; then
    handler_us "$work/$w"/fg2-*.log >"$work/$w.walk2"
  fi
done

# Per-round ratios of mode a's blocks to mode b's, for what (time, cpu).
ratios() { # workload a b what
  paste "$work/$1-$2.$4" "$work/$1-$3.$4" | awk '{print $1 / $2}' >"$work/$1-$2-$3.$4.ratios"
  median_ci "$work/$1-$2-$3.$4.ratios"
}

mkdir -p results
{
  echo "# fgagent's own cost above its mechanism, paired in one JVM"
  echo
  bench_provenance "none"
  echo
  echo "Measured by $(bench_ran bench-paired.sh),"
  echo "$("$java_home/bin/java" -version 2>&1 | head -n 1); fgagent \`$fg_options\` ($fgagent), the floor agent"
  echo "\`$floor_options\` ($(floor_words "$floor_options")). \`PairedBench KIND\` times short blocks of fixed work on one thread of one"
  echo "JVM, each after three times its work untimed in its mode, with nothing, the floor agent and fgagent"
  echo "switched on and off between blocks through the attach mechanism, every mode once a round in an"
  echo "order shuffled for the round, each block after a full collection, $rounds rounds. Each cell: the median of the $rounds per-round ratios and its 95%"
  echo "confidence interval (order statistics). *Work time*: the block's wall time; *thread CPU*: its"
  echo "thread's CPU time (the handler and the signal's delivery included; the drainer, and walker=copy's"
  echo "engine that walks the stack copies, run on the other core: their CPU is the *own threads* column,"
  echo "fgagent's threads' CPU per 100 s of CPU sampled, from its summaries)."
  echo
  echo "| work | fgagent / floor, work time | 95% interval | thread CPU | 95% interval | floor / none, work time | 95% interval | fgagent / none, work time | 95% interval | samples per CPU-second | walk's own timing, us | own threads, % |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  for w in "${workloads[@]}"; do
    echo "| $w | $(ratios "$w" fgagent floor time) | $(ratios "$w" fgagent floor cpu) | $(ratios "$w" floor none time) | $(ratios "$w" fgagent none time) | $(median "$work/$w.rate" | awk '{printf "%.0f", $1}') | $(median "$work/$w.walk") | $(median "$work/$w.own") |"
  done
  echo
  for w in "${workloads[@]}"; do
    sed -n 's/^FLOOR_TOUCH_CYCLES \([0-9]*\)$/\1/p' "$work/$w.err" >"$work/$w.touch"   # lines=N only
    touch_line=""
    if [ -s "$work/$w.touch" ]; then
      touch_line="; the floor handler's reads of its lines, $(median "$work/$w.touch") cycles a signal (median of the rounds)"
    fi
    echo "$w: floor / none, thread CPU $(ratios "$w" floor none cpu)$touch_line."
    if [ -n "$fgagent2" ]; then
      echo "$w: fgagent2 ($fgagent2) / fgagent, work time $(ratios "$w" fgagent2 fgagent time), thread CPU"
      echo "$(ratios "$w" fgagent2 fgagent cpu); fgagent2's handler, $(median "$work/$w.walk2") us a walk."
    fi
    if [ -n "$floor2_options" ]; then
      echo "$w: the second floor \`$floor2_options\` / none, work time $(ratios "$w" floor2 none time), thread CPU"
      echo "$(ratios "$w" floor2 none cpu); fgagent / the second floor, work time $(ratios "$w" fgagent floor2 time)."
    fi
  done
  echo
  echo -n "A block's work time, the median of nothing's blocks:"
  for w in "${workloads[@]}"; do echo -n " $w $(median "$work/$w-none.time" | awk '{printf "%.3f", $1 / 1e9}') s"; done
  echo "."
  echo
  echo "Kinds (java-test/workloads/Bench.java): *demo*, the demo's order processing (parsing, regular"
  echo "expressions, maps, sorting, strings: allocation and calls all over the JDK) with integer mixing;"
  echo "*mix*, integer mixing alone (a shallow stack); *deep*, the mixing under a hundred recursive frames."
  echo
  echo "Every block's work time in ns, by round:"
  echo
  for w in "${workloads[@]}"; do
    for m in "${modes[@]}"; do echo "- $w $m: $(tr '\n' ' ' <"$work/$w-$m.time")"; done
  done
} >"$out"
cat "$out"
