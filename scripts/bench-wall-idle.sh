#!/usr/bin/env bash
# What event=wall costs on threads that do nothing: THREADS threads parked
# (then sleeping) for SECONDS under event=wall at 10 ms. Reports the threads
# signalled, the idle samples counted without a signal, and the CPU time of
# fgagent's own threads (the wall sampler and the drainer), against the
# same run without the agent. Writes results/wall-idle.md.
# Environment: THREADS (default 200), SECONDS_IDLE (default 30).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh
bash scripts/install-deps.sh bench
java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)}
threads=${THREADS:-200}
seconds=${SECONDS_IDLE:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows=()
for how in park sleep; do
  /usr/bin/time -f "%U %S" -o "$work/$how.time" "$java_home/bin/java" \
    "-agentpath:$(pwd)/build/libfgagent.so=event=wall,interval=10ms,wallthreads=1000,file=$work/$how.collapsed,log=$work/$how.log" \
    -cp build/java-test Parked "$threads" "$seconds" "$how" >/dev/null
  /usr/bin/time -f "%U %S" -o "$work/$how-none.time" "$java_home/bin/java" -cp build/java-test Parked "$threads" \
    "$seconds" "$how" >/dev/null
  signals=$(sed -n 's/.*wall sampling: *\([0-9]*\) threads signalled.*/\1/p' "$work/$how.log")
  repeats=$(sed -n 's/.* \([0-9]*\) idle threads counted again.*/\1/p' "$work/$how.log")
  own=$(sed -n "s/.*fgagent's own threads* used \([0-9.]*\) s CPU.*/\1/p" "$work/$how.log")
  cpu=$(awk '{print $1 + $2}' "$work/$how.time")
  none=$(awk '{print $1 + $2}' "$work/$how-none.time")
  row="| $how | $threads | $seconds s | $signals | $repeats | $own s | $cpu s | $none s |"
  echo "$row"
  rows+=("$row")
done
{
  echo "# event=wall on idle threads"
  echo
  bench_provenance "none"
  echo
  echo "Written by $(bench_ran bench-wall-idle.sh). $threads threads parked"
  echo "(\`LockSupport.parkNanos\`) or sleeping (\`Thread.sleep\`) for $seconds s, \`event=wall,interval=10ms,wallthreads=1000\`"
  echo "(every thread every tick). *signalled*: samples taken by signalling the thread (its stack walked);"
  echo "*idle repeats*: samples of a thread that had done nothing since its last signal but run the handler, counted without waking it;"
  echo "*fgagent CPU*: the wall sampler's and the drainer's CPU time; *process CPU*: user + system"
  echo "time of the whole JVM, with and without the agent."
  echo
  echo "| idle in | threads | for | signalled | idle repeats | fgagent CPU | process CPU with agent | without |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >results/wall-idle.md
echo "bench-wall-idle: wrote results/wall-idle.md"
