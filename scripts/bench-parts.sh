#!/usr/bin/env bash
# Where the handler's time goes, part by part: build/libfgagent-parts.so
# (agent/sampling/signal/handler_parts.h: the time stamp counter read between the
# parts of every walk) profiles `Bench KIND` at event=cpu,interval=1ms for
# each work kind, ROUNDS times (default 3) in turn; each run's summary gives
# each part's cycles a walked signal in two arms of signals drawn at random.
# With the same code in both arms, their difference is the run's resolution.
# Writes results/handler-parts.md, keeping what follows its "<!-- notes -->" line.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh

rounds=${ROUNDS:-3}
java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)}
lib=${FGAGENT_PARTS:-build/libfgagent-parts.so}
out=${OUT:-results/handler-parts.md}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

batches() { # kind: about 6 s of work
  case $1 in demo) echo 60 ;; *) echo 110000 ;; esac
}

for r in $(seq "$rounds"); do
  for kind in mix deep demo; do
    "$java_home/bin/java" -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
      "-agentpath:$lib=event=cpu,interval=1ms,file=$work/p.collapsed,log=$work/$kind.$r.log" \
      -cp build/java-test Bench "$(batches "$kind")" 2000 "$kind" >"$work/$kind.$r.out" 2>"$work/$kind.$r.err"
    if ! grep -q "handler parts:" "$work/$kind.$r.log"; then
      echo "bench-parts: $lib wrote no handler parts for $kind (not built with FG_HANDLER_PARTS?)" >&2
      exit 1
    fi
    echo "$kind round $r: $(awk '$1 == "total" {print $2, $3}' "$work/$kind.$r.log") cycles a signal in the two arms"
  done
done

notes=$(sed -n '/^<!-- notes -->$/,$p' "$out" 2>/dev/null || true)   # written by hand, kept
{
  echo "# Where the handler's time goes"
  echo
  bench_provenance "none"
  echo
  echo "Written by $(bench_ran bench-parts.sh), $("$java_home/bin/java" -version 2>&1 | head -n 1)."
  echo
  echo "build/libfgagent-parts.so (the agent built with FG_HANDLER_PARTS) profiles \`Bench KIND\`"
  echo "(java-test/workloads/Bench.java) at \`event=cpu,interval=1ms\`, about 6 s of work after warm-up;"
  echo "the kinds in turn, rounds: $rounds. Each column: one run's cycles a walked signal (the time stamp"
  echo "counter; the summary gives its rate in ns) in each part of the handler, in two arms of signals"
  echo "drawn at random: the same code in both, so their difference is what one run resolves. The"
  echo "kernel's signal delivery, before and after the handler, is not in these (it is the floor's,"
  echo "results/overhead-paired.md). *mix*: integer mixing, 3 frames; *deep*: the same under 100"
  echo "recursive frames; *demo*: the demo's order processing (about 14 Java frames, allocation, GC threads)."
  for kind in mix deep demo; do
    echo
    echo "## $kind"
    echo
    header="| part |"
    rule="|---|"
    for r in $(seq "$rounds"); do header="$header round $r, arm 0 | arm 1 |"; rule="$rule---|---|"; done
    echo "$header"
    echo "$rule"
    for part in "period change" "before the walk" "kernel frames" "walk, Java" "walk, no Java" "trace table" "ring" "after" "total"; do
      row="| $part |"
      for r in $(seq "$rounds"); do
        row="$row $(awk -v p="$part" '{line=$0; sub(/^ +/, "", line)} index(line, p " ") == 1 {n = split(substr(line, length(p) + 1), f, " "); print f[1] " | " f[2]}' "$work/$kind.$r.log") |"
      done
      echo "$row"
    done
    echo
    echo "Signals counted in the two arms, signals left out (over a million cycles: switched out), samples a"
    echo "CPU-second: $(for r in $(seq "$rounds"); do
      printf '%s; ' "$(sed -n 's/.*random, \([0-9]*\) and \([0-9]*\):.*/\1 + \2/p' "$work/$kind.$r.log"), $(sed -n 's/.*left out: *\([0-9]*\) and \([0-9]*\) signals.*/\1 + \2/p' "$work/$kind.$r.log"), $(bench_rate "$work/$kind.$r.log")"
    done | sed 's/; $//')."
  done
  if [ -n "$notes" ]; then
    echo
    echo "$notes"
  fi
} >"$out"
echo "bench-parts: wrote $out"
