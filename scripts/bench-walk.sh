#!/usr/bin/env bash
# The handler's cost by stack depth, on the agent's own walker without a JVM:
# build/bench_walk times fg_walk_stack (walker=vm) and fg_trace_table_put on a
# synthetic stack of compiled frames (tests/bench/bench_walk.c), hot and with
# the caches evicted between walks, at 3 to 501 Java frames, every frame the
# same method (recursion) or each another; then both again with the thread's
# last walk kept (walk_cache.h: the stack does not change, so the walk goes
# on from the kept one at its first caller); median of RUNS runs (default 5).
# Writes results/walk.md, keeping what follows its "<!-- notes -->" line.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh

runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
fig() { # kind physical key
  for r in $(seq "$runs"); do awk -v k="$3" '$1 == k {print $2}' "$work/$1.$2.$r"; done | median
}

depths="1 10 50 250"
for r in $(seq "$runs"); do
  for k in recursive distinct; do
    for d in $depths; do build/bench_walk "$d" "$k" 20000 >"$work/$k.$d.$r"; done
  done
done

notes=$(sed -n '/^<!-- notes -->$/,$p' results/walk.md 2>/dev/null || true)   # written by hand, kept
{
  echo "# The walk's cost by stack depth"
  echo
  bench_provenance "none"
  echo
  echo "Written by $(bench_ran bench-walk.sh)."
  echo
  echo "build/bench_walk PHYSICAL KIND: fgagent's own walker (walker=vm, fg_walk_stack) over a compiled"
  echo "leaf interrupted in its body under PHYSICAL compiled frames that each inlined a callee (two Java"
  echo "frames a frame), 2000 methods in the code map, a debug record every 16 bytes; then"
  echo "fg_trace_table_put of the frames, the stack already in the table. *recursive*: every caller is"
  echo "the same method returning to the same pc (C2's code for a recursive method); *distinct*: each"
  echo "caller is another method. *hot*: the same walk 20 000 times; *cold*: 8 MB written between walks, as"
  echo "an application's work between two samples evicts the walker's tables. Median of $runs runs, ns"
  echo "per walk. The signal's delivery, the clock reads and the ring's store come on top (the agent's"
  echo "summary times the whole handler: 0.9 us a walk on a shallow stack of a JVM)."
  echo
  echo "*kept*: the same walks with the thread's last walk kept (walk_cache.h), as the handler"
  echo "does them: the walk checks the words the kept walk read and copies its frames from the first"
  echo "caller on, and the table hashes only the frames before them; *kept* columns are walk and"
  echo "table together."
  echo
  echo "| stack | Java frames | walk, hot | table, hot | walk, cold | table, cold | cold, per frame | kept, hot | kept, cold |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for k in recursive distinct; do
    for d in $depths; do
      wc=$(fig "$k" "$d" walk_cold_ns)
      pc=$(fig "$k" "$d" put_cold_ns)
      awk -v k="$k" -v f="$(fig "$k" "$d" frames)" -v wh="$(fig "$k" "$d" walk_hot_ns)" \
        -v ph="$(fig "$k" "$d" put_hot_ns)" -v wc="$wc" -v pc="$pc" \
        -v kh="$(fig "$k" "$d" walk_kept_hot_ns)" -v kph="$(fig "$k" "$d" put_kept_hot_ns)" \
        -v kc="$(fig "$k" "$d" walk_kept_cold_ns)" -v kpc="$(fig "$k" "$d" put_kept_cold_ns)" \
        'BEGIN {printf "| %s | %d | %d | %d | %d | %d | %.1f | %d | %d |\n", k, f, wh, ph, wc, pc, (wc + pc) / f,
                kh + kph, kc + kpc}'
    done
  done
  if [ -n "$notes" ]; then
    echo
    echo "$notes"
  fi
} >results/walk.md.new
mv results/walk.md.new results/walk.md
cat results/walk.md
