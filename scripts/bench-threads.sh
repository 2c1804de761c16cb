#!/usr/bin/env bash
# A JVM that lives for months, in minutes: MonthsOfThreads starts and ends
# THREADS threads (default 100 000), 64 at a time, every 200th computing
# 25 ms, beside a thread computing all along ("steady") and one that stays
# on a POSIX timer ("ticking"), under interval=1ms,loop=1s (a summary a
# second), once per clock: posix (a timer every thread) and perf (a counter
# every thread); CLOCKS="posix perf auto" adds the default, which moves
# threads from one to the other. On JDK 17 and Temurin 25.
# For each run, the first third of its whole 1-second intervals against the
# last: the handler's time a stack walk, the resident memory and descriptors
# of the process (the workload's own look, every 250 ms past its first 2 s;
# a fixed heap), fgagent's stack storage (distinct stacks and MB) and the
# threads on each clock. The integration test
# threads_by_the_hundred_thousand_leave_no_trace holds the same bounds on
# what 20 s reach; this runs the whole count. Writes results/threads.md.
# Environment: THREADS (default 100000), LIMIT_S (a run's most, default 900),
# CLOCKS (default "posix perf"), JDKS (java homes; default JDK 17 and
# Temurin 25 where installed).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh
threads=${THREADS:-100000}
limit=${LIMIT_S:-900}
clocks=${CLOCKS:-posix perf}
if [ -z "${JDKS:-}" ]; then
  JDKS=""
  for home in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64; do
    [ -x "$home/bin/java" ] && JDKS="$JDKS $home"
  done
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows=()
for home in $JDKS; do
  version=$("$home/bin/java" -version 2>&1 | sed -n '1s/.*version "\([^"]*\)".*/\1/p')
  for clock in $clocks; do
    run="$work/$(basename "$home")-$clock"
    mkdir -p "$run"
    echo "bench-threads: JDK $version, clock=$clock, $threads threads" >&2
    "$home/bin/java" "-agentpath:$(pwd)/build/libfgagent.so=clock=$clock,interval=1ms,loop=1s,log=$run/s-%n.log,file=$run/p.collapsed" \
      -Xms96m -Xmx96m -XX:+AlwaysPreTouch -cp build/java-test MonthsOfThreads "$threads" 64 200 25 "$limit" \
      >"$run/stdout.log" 2>"$run/stderr.log"
    started=$(sed -n 's/^STARTED \([0-9]*\) in \([0-9]*\) ms$/\1 \2/p' "$run/stdout.log")
    # one line an interval (its successor written: whole ones), the first left out (the JVM's start)
    : >"$run/intervals"
    for ((n = 2; ; n++)); do
      [ -f "$run/s-$((n + 1)).log" ] || break
      grep -q '^  signals taken:     0$' "$run/s-$n.log" && continue   # an interval the drainer ended at once
      awk '/handler time:/ {w = $3} /stack storage:/ {s = $3; m = $7}
           /clocks:/ {t = $0; sub(/.*at the end /, "", t); split(t, c, " "); timers = c[1]; counters = c[8]}
           END {print w, s, m, timers + 0, counters + 0}' "$run/s-$n.log" >>"$run/intervals"
    done
    awk '$1 == "WATCH" && $2 >= 2000 {print $3, $4}' "$run/stdout.log" >"$run/looks"
    # the first third's mean and the last third's of each column, and the last interval's clocks
    thirds() {
      awk -v cols="$2" 'BEGIN {k = split(cols, c, " ")} {for (i = 1; i <= k; i++) v[NR, i] = $c[i]; n = NR}
        END {t = int(n / 3); if (t < 1) {print "n/a"; exit}
             for (i = 1; i <= k; i++) {a = b = 0; for (j = 1; j <= t; j++) {a += v[j, i]; b += v[n - t + j, i]}
               printf "%s%.6g %.6g", (i > 1 ? " " : ""), a / t, b / t}
             printf " %d\n", n}' "$1"
    }
    read -r w0 w1 s0 s1 m0 m1 nint < <(thirds "$run/intervals" "1 2 3")
    read -r f0 f1 r0 r1 nlook < <(thirds "$run/looks" "1 2")
    read -r timers counters < <(tail -n 1 "$run/intervals" | awk '{print $4, $5}')
    # distinct stacks added in each third of the intervals (the storage is the session's)
    added=$(awk '{v[NR] = $2} END {t = int(NR / 3); printf "+%d, +%d, +%d", v[t] - v[1], v[NR - t] - v[t], v[NR] - v[NR - t]}' \
      "$run/intervals")
    if [ -z "$started" ]; then
      echo "bench-threads: the workload did not finish:" >&2
      tail -n 20 "$run/stdout.log" "$run/stderr.log" >&2
      exit 1
    fi
    set -- $started
    row=$(awk -v v="$version" -v c="$clock" -v t="$1" -v ms="$2" -v n="$nint" -v w0="$w0" -v w1="$w1" -v r0="$r0" \
      -v r1="$r1" -v f0="$f0" -v f1="$f1" -v s0="$s0" -v s1="$s1" -v m0="$m0" -v m1="$m1" -v k="$timers / $counters" -v a="$added" \
      'BEGIN {printf "| %s | %s | %d in %.0f s | %d | %.2f → %.2f us (%.2fx) | %.1f → %.1f MB | %.0f → %.0f | %.0f → %.0f (%s) | %.1f → %.1f MB | %s |",
              v, c, t, ms / 1000, n, w0, w1, w1 / w0, r0 / 1024, r1 / 1024, f0, f1, s0, s1, a, m0, m1, k}')
    echo "$row" >&2
    rows+=("$row")
    grep -q "^fgagent: .*error\|SIGSEGV\|hs_err" "$run/stderr.log" && { echo "bench-threads: the run failed:" >&2; tail -n 20 "$run/stderr.log" >&2; exit 1; }
  done
done
{
  echo "# A JVM that lives for months: 100 000 threads"
  echo
  bench_provenance "none"
  echo
  echo "Written by $(bench_ran bench-threads.sh) (\`make bench-threads\`)."
  echo
  echo "\`MonthsOfThreads $threads 64 200 25 $limit\`: $threads threads started and ended, 64 at a time, every 200th"
  echo "computing 25 ms, beside a thread computing all along and one computing 0.2 ms between sleeps of 0.1 ms;"
  echo "\`-Xms96m -Xmx96m -XX:+AlwaysPreTouch\`, agent options \`clock=CLOCK,interval=1ms,loop=1s\` (a summary a"
  echo "second). Each figure is the mean over the first third of the run → the last third: *walk*, the"
  echo "handler's time a stack walk (the summaries' *handler time*, over the whole 1-second intervals but the"
  echo "first); *RSS* and *fds*, the process's resident memory and descriptors (the workload's own look every"
  echo "250 ms past its first 2 s); *stacks* and *storage*, fgagent's stack storage, kept once for the whole"
  echo "session (in brackets the distinct stacks added in each third, from its first interval on: new stacks come from the long tail of"
  echo "kernel and native paths, such as thread creation's, and come slower as the run goes on); *timer /"
  echo "counter*, the threads on a POSIX timer and on a perf_events counter at the last interval's end."
  echo
  echo "| JDK | clock | threads started | intervals | walk | RSS | fds | stacks | storage | timer / counter |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >results/threads.md
echo "bench-threads: wrote results/threads.md"
