#!/usr/bin/env bash
# Overhead benchmark, end to end: fixed work timed by the workload itself (not
# fixed time), each run >= 5 s, every configuration once per round in rotated
# order (interleaved, so the machine's drifting load falls on all alike), the
# ratio of medians against runs without anything, with the spread of the
# per-round ratios. In the same rounds, the floor of each signal mechanism:
# scripts/bench/mechanism_floor.c, an empty handler on fixed C work, and
# `perf record` on the same program as the reference.
# Writes results/overhead.md.
# Two JVM workloads: `Bench 2200 1000` (the demo's order processing, 2200 timed
# batches, about 5 s, after 1000 untimed ones so the JIT has settled) and
# `Bench 120000 20000 mix` (plain integer mixing, steadier: GC and JIT hardly move it).
# JVM_WORK=deep: the same mixing under a hundred recursive frames (what deep stacks cost).
# fgagent's own share: in the same rounds, build/floor_agent.so (scripts/bench/floor_agent.c)
# arms fgagent's mechanism on the same JVM with an empty handler; fgagent's run / the floor's
# run of the same round, their median and its 95% confidence interval.
# Environment: ROUNDS (default 9), FLOOR_WORK (mechanism_floor rounds, default 3200000000: about 5 s),
# JVM_WORK, JVM_MODES, FLOOR_MODES (space-separated; defaults below; JVM_WORK= or FLOOR_MODES= runs none), OUT.
# ASPROF=/path/libasyncProfiler.so adds async-profiler at the same interval to the default JVM
# modes (mode asprof-1ms: event=cpu; its rate is the samples in its collapsed output per CPU-second
# of the process).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh
# shellcheck source=scripts/bench/stats.sh
. scripts/bench/stats.sh

java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)}
rounds=${ROUNDS:-9}
read -r -a workloads <<<"${JVM_WORK-demo mix}"
floor_work=${FLOOR_WORK:-3200000000}
default_modes="none floor-perf-kernel cpu-1ms floor-copy-32k-percpu cpu-1ms-copy cpu-60s itimer-1ms"
[ -n "${ASPROF:-}" ] && [ -f "$ASPROF" ] && default_modes="$default_modes asprof-1ms"
read -r -a jvm_modes <<<"${JVM_MODES:-$default_modes}"
read -r -a floor_modes <<<"${FLOOR_MODES-none perf perf-kernel posix-cpu itimer sampler perf-stack-8k perf-record}"
out=${OUT:-results/overhead.md}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p build
${CC:-gcc} -O2 -Wall -Wextra -pthread -o build/mechanism_floor scripts/bench/mechanism_floor.c
make -s build/floor_agent.so

agent_opts() {
  case "$1" in
    floor-*-percpu) local f=${1#floor-}; echo "${f%-percpu},1000,percpu" ;;
    floor-*) echo "${1#floor-},1000" ;;
    cpu-*-nocstack) local i=${1#cpu-}; echo "event=cpu,interval=${i%-nocstack},cstack=no" ;;
    cpu-*-nokernel) local i=${1#cpu-}; echo "event=cpu,interval=${i%-nokernel},kernel=no" ;;
    cpu-*-sched) local i=${1#cpu-}; echo "event=cpu,interval=${i%-sched},sched" ;;
    cpu-*-copy) local i=${1#cpu-}; echo "event=cpu,interval=${i%-copy},walker=copy" ;;
    cpu-*-vm) local i=${1#cpu-}; echo "event=cpu,interval=${i%-vm},walker=vm" ;;
    cpu-*) echo "event=cpu,interval=${1#cpu-}" ;;
    itimer-*) echo "event=itimer,interval=${1#itimer-}" ;;
    wall-*) echo "event=wall,interval=${1#wall-}" ;;
  esac
}

interval_ns() { # 1ms, 100us, 1s: async-profiler's interval in ns
  case "$1" in
    *ms) echo $((${1%ms} * 1000000)) ;;
    *us) echo $((${1%us} * 1000)) ;;
    *s) echo $((${1%s} * 1000000000)) ;;
    *) echo "$1" ;;
  esac
}

bench_args() { # workload
  case "$1" in
    demo) echo "2200 1000" ;;
    mix) echo "120000 20000 mix" ;;
    deep) echo "120000 20000 deep" ;;
  esac
}

# One JVM run of Bench: appends its work time and achieved rate to the files of family
# jvm-WORKLOAD.
run_jvm() { # workload mode round
  local f=jvm-$1 mode=$2 tag=jvm-$1-$2-$3 args=()
  case "$mode" in
    none) ;;
    floor-*) args+=("-agentpath:$(pwd)/build/floor_agent.so=$(agent_opts "$mode")") ;;
    asprof-*) args+=("-agentpath:$ASPROF=start,event=cpu,interval=$(interval_ns "${mode#asprof-}"),collapsed,file=$work/$tag.collapsed") ;;
    *) args+=("-agentpath:$(pwd)/build/libfgagent.so=$(agent_opts "$mode"),file=$work/$tag.collapsed,log=$work/$tag.log") ;;
  esac
  # shellcheck disable=SC2046
  "$java_home/bin/java" "${args[@]}" -cp build/java-test Bench $(bench_args "$1") >"$work/$tag.out" 2>&1
  sed -n 's/^ELAPSED_NS //p' "$work/$tag.out" >>"$work/$f-$mode.time"
  sed -n 's/^PROCESS_CPU_NS //p' "$work/$tag.out" >>"$work/$f-$mode.cpu"
  [ "$mode" = none ] && return
  if [ "${mode#floor-}" != "$mode" ]; then   # signals per second of the process's CPU
    awk '/^FLOOR_SIGNALS/ {s = $2} /^PROCESS_CPU_NS/ {c = $2} END {print (c > 0 ? s / (c / 1e9) : 0)}' \
      "$work/$tag.out" >>"$work/$f-$mode.rate"
    return
  fi
  if [ "${mode#asprof-}" != "$mode" ]; then   # its samples per second of the process's CPU
    awk -v c="$(sed -n 's/^PROCESS_CPU_NS //p' "$work/$tag.out")" '{n += $NF} END {print (c > 0 ? n / (c / 1e9) : 0)}' \
      "$work/$tag.collapsed" >>"$work/$f-$mode.rate" 2>/dev/null || echo 0 >>"$work/$f-$mode.rate"
    return
  fi
  local rate
  rate=$(bench_rate "$work/$tag.log")
  grep -q 'rate achieved: *not measured' "$work/$tag.log" && rate=0   # no signal in the run (cpu-60s)
  if [ -z "$rate" ]; then   # a summary this script no longer reads: say so rather than print "-"
    echo "bench-overhead: $tag: no 'rate achieved' line in fgagent's summary:" >&2
    tail -n 40 "$work/$tag.log" >&2
    exit 1
  fi
  echo "$rate" >>"$work/$f-$mode.rate"
  sed -n 's/.*fgagent.s own threads* used \([0-9.]*\) s CPU.*/\1/p' "$work/$tag.log" >>"$work/$f-$mode.own"
}

# One mechanism_floor run: its work time, signals per CPU-second, the sampler thread's CPU.
run_floor() { # mode round
  local mode=$1 tag=floor-$1-$2
  if [ "$mode" = perf-record ]; then
    perf record -q -e cpu-clock -c 1000000 -o "$work/$tag.data" -- build/mechanism_floor none 1000 "$floor_work" \
      >"$work/$tag.out" 2>"$work/$tag.err"
    # its samples stand for the signals: rate = samples / the worker's CPU seconds
    sed -i '/^SIGNALS/d' "$work/$tag.out"
    echo "SIGNALS $(perf script -i "$work/$tag.data" 2>/dev/null | wc -l)" >>"$work/$tag.out"
    rm -f "$work/$tag.data"
  else
    build/mechanism_floor "$mode" 1000 "$floor_work" >"$work/$tag.out"
  fi
  sed -n 's/^WORK_NS //p' "$work/$tag.out" >>"$work/floor-$mode.time"
  sed -n 's/^PROCESS_CPU_NS //p' "$work/$tag.out" >>"$work/floor-$mode.cpu"
  awk '/^CPU_NS/ {c = $2} /^SIGNALS/ {s = $2} END {print (c > 0 ? s / (c / 1e9) : 0)}' "$work/$tag.out" \
    >>"$work/floor-$mode.rate"
  sed -n 's/^SAMPLER_CPU_NS //p' "$work/$tag.out" >>"$work/floor-$mode.own"
}


echo "bench-overhead: $rounds rounds; JVM: ${workloads[*]} x ${jvm_modes[*]}; floors: ${floor_modes[*]}"
for round in $(seq 1 "$rounds"); do
  n=${#jvm_modes[@]}
  for w in "${workloads[@]}"; do
    for i in $(seq 0 $((n - 1))); do run_jvm "$w" "${jvm_modes[$(((i + round) % n))]}" "$round"; done
  done
  n=${#floor_modes[@]}
  for i in $(seq 0 $((n - 1))); do run_floor "${floor_modes[$(((i + round) % n))]}" "$round"; done
  echo "  round $round of $rounds done"
done

# Per-round ratios against that round's run with nothing, then: median of the mode's
# times / median of the baseline's, and the per-round ratios' range.
ratio_line() { # family mode
  local f=$1 m=$2
  paste "$work/$f-$m.time" "$work/$f-none.time" | awk '{print $1 / $2}' >"$work/$f-$m.ratios"
  awk -v a="$(median "$work/$f-$m.time")" -v b="$(median "$work/$f-none.time")" \
      -v lo="$(sort -g "$work/$f-$m.ratios" | head -n 1)" -v hi="$(sort -g "$work/$f-$m.ratios" | tail -n 1)" \
      'BEGIN {printf "%.3f | %.3f .. %.3f", a / b, lo, hi}'
}

# The process's CPU time, median against the baseline's: what the machine paid, other cores included.
cpu_ratio() { # family mode
  awk -v a="$(median "$work/$1-$2.cpu")" -v b="$(median "$work/$1-none.cpu")" 'BEGIN {printf "%.3f", a / b}'
}

# fgagent's run / the floor agent's run of the same round, for time and process CPU.
share_line() { # family mode floor-mode
  local f=$1 m=$2 b=$3
  paste "$work/$f-$m.time" "$work/$f-$b.time" | awk '{print $1 / $2}' >"$work/$f-$m-over-$b.time.ratios"
  paste "$work/$f-$m.cpu" "$work/$f-$b.cpu" | awk '{print $1 / $2}' >"$work/$f-$m-over-$b.cpu.ratios"
  echo "$(median_ci "$work/$f-$m-over-$b.time.ratios") | $(median_ci "$work/$f-$m-over-$b.cpu.ratios")"
}

has_mode() { local m; for m in "${jvm_modes[@]}"; do [ "$m" = "$1" ] && return 0; done; return 1; }

mode_label() {
  case "$1" in
    floor-perf) echo "floor agent: perf cpu-clock per thread, SIGPROF to an empty handler" ;;
    floor-perf-kernel) echo "floor agent: perf cpu-clock per thread with the kernel callchain ring, empty handler" ;;
    floor-copy-*-percpu) local k=${1#floor-copy-}; echo "floor agent: perf cpu-clock per thread and CPU copying ${k%-percpu} of stack into a ring per CPU, no signal, a reader thread" ;;
    floor-copy-*) echo "floor agent: perf cpu-clock per thread copying ${1#floor-copy-} of stack into its ring, no signal, a reader thread" ;;
    asprof-*) echo "$(bench_asprof "$ASPROF" | sed 's/ (.*//') \`event=cpu,interval=${1#asprof-}\`" ;;
    *) echo "\`$(agent_opts "$1")\`" ;;
  esac
}

mkdir -p results
{
  echo "# Overhead of fgagent, end to end"
  echo
  bench_provenance "$(bench_asprof "$(case " ${jvm_modes[*]}" in *" asprof-"*) echo "${ASPROF:-}" ;; esac)")"
  echo
  echo "Measured by $(bench_ran bench-overhead.sh) (JVM_WORK=\"${workloads[*]}\""
  echo "JVM_MODES=\"${jvm_modes[*]}\" FLOOR_MODES=\"${floor_modes[*]}\"),"
  echo "$("$java_home/bin/java" -version 2>&1 | head -n 1)."
  echo "Fixed work timed by the workload itself, $rounds rounds, every configuration once per round in"
  echo "rotated order. *Ratio*: median work time / median work time with nothing; *per-round*: the"
  echo "lowest and highest of each round's time / that round's run with nothing. *Process CPU*: the"
  echo "same ratio for the CPU time of the whole process (its other threads, on other cores, included)."
  echo
  for w in "${workloads[@]}"; do
    echo "## fgagent on a JVM: \`Bench $(bench_args "$w")\`"
    echo
    echo "java-test/workloads/Bench.java, one thread: about $(awk '{s+=$1} END {printf "%.1f", s/NR/1e9}' "$work/jvm-$w-none.time") s of timed"
    echo "work after the untimed warm-up (JVM start-up and the JIT's warm-up are out of the ratio; the"
    echo "process CPU column has them)."
    echo
    echo "| configuration | ratio | per-round | process CPU | signals per CPU-second | fgagent's threads' CPU |"
    echo "|---|---|---|---|---|---|"
    for m in "${jvm_modes[@]}"; do
      [ "$m" = none ] && continue
      own=-
      [ -s "$work/jvm-$w-$m.own" ] && own="$(median "$work/jvm-$w-$m.own") s"
      echo "| $(mode_label "$m") | $(ratio_line "jvm-$w" "$m") | $(cpu_ratio "jvm-$w" "$m") | $(median "$work/jvm-$w-$m.rate" | awk '{if ($1 == "nan") print "-"; else printf "%.0f", $1}') | $own |"
    done
    echo
    if has_mode floor-perf-kernel || has_mode floor-perf || has_mode floor-copy-32k-percpu; then
      echo "fgagent's own share: each round's fgagent run / that round's floor agent run (the same"
      echo "mechanism on the same JVM with nothing walked), the median of those ratios and its 95%"
      echo "confidence interval (order statistics of $rounds rounds)."
      echo
      echo "| fgagent / floor | work time | 95% interval | process CPU | 95% interval |"
      echo "|---|---|---|---|---|"
      for pair in cpu-1ms:floor-perf-kernel cpu-1ms-vm:floor-perf-kernel cpu-1ms-nokernel:floor-perf cpu-1ms-copy:floor-copy-32k-percpu; do
        has_mode "${pair%%:*}" && has_mode "${pair#*:}" &&
          echo "| \`$(agent_opts "${pair%%:*}")\` / ${pair#*:} | $(share_line "jvm-$w" "${pair%%:*}" "${pair#*:}") |"
      done
      echo
    fi
  done
  if [ ${#floor_modes[@]} -gt 0 ]; then
    echo "## The floor of each mechanism (an empty handler)"
    echo
    echo "\`build/mechanism_floor MODE 1000 $floor_work\` (scripts/bench/mechanism_floor.c): xorshift on one"
    echo "thread, about $(awk '{s+=$1} END {printf "%.1f", s/NR/1e9}' "$work/floor-none.time") s; 1 ms asked of every mechanism."
    echo
    echo "| mechanism | ratio | per-round | process CPU | signals per CPU-second | sampler thread CPU |"
    echo "|---|---|---|---|---|---|"
    for m in "${floor_modes[@]}"; do
      [ "$m" = none ] && continue
      case "$m" in
        perf) what="perf_events cpu-clock per thread, SIGPROF to it (fgagent's \`event=cpu\`)" ;;
        perf-kernel) what="the same, recording the kernel callchain into a ring the handler reads" ;;
        posix-cpu) what="\`timer_create(CLOCK_THREAD_CPUTIME_ID)\` per thread" ;;
        itimer) what="\`setitimer(ITIMER_PROF)\`" ;;
        sampler) what="a sampler thread: wakes every 1 ms, tgkill()s the worker per 1 ms of its CPU" ;;
        perf-record) what="\`perf record -e cpu-clock -c 1000000\` (reference: no signal, no handler)" ;;
        perf-stack-*) what="no signal: the same counter, the kernel copying the registers and the top ${m#perf-stack-}B of the stack into a ring a reader thread empties (a walk off the copy, as \`perf record --call-graph dwarf\`)" ;;
        *) what=$m ;;
      esac
      rate=$(median "$work/floor-$m.rate" | awk '{printf "%.0f", $1}')
      own=$(median "$work/floor-$m.own" | awk '{if ($1 > 0) printf "%.3f s", $1 / 1e9}')
      echo "| $what | $(ratio_line floor "$m") | $(cpu_ratio floor "$m") | $rate | $own |"
    done
    echo
  fi
  echo "Every run's work time in ns, by round:"
  echo
  for w in "${workloads[@]}"; do
    for m in "${jvm_modes[@]}"; do echo "- JVM $w $m: $(tr '\n' ' ' <"$work/jvm-$w-$m.time")"; done
  done
  for m in "${floor_modes[@]}"; do echo "- floor $m: $(tr '\n' ' ' <"$work/floor-$m.time")"; done
  echo
  echo "Every JVM run's process CPU in ns, by round:"
  echo
  for w in "${workloads[@]}"; do
    for m in "${jvm_modes[@]}"; do echo "- JVM $w $m: $(tr '\n' ' ' <"$work/jvm-$w-$m.cpu")"; done
  done
} >"$out"
cat "$out"
