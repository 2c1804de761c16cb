#!/usr/bin/env bash
# make test on a quiet machine, then ROUNDS times beside two CPU-bound shell
# loops (what a shared CI runner looks like), each in a clean clone of HEAD.
# Records each round's closing line, its failures, and the figures of the
# tests that compare the profile with the workload's own measurement.
# Writes results/busy-machine.md.
# Environment: ROUNDS (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh

rounds=${ROUNDS:-3}
work=$(mktemp -d)
# readable by all, as a CI checkout is: the attach tests start processes as another user that load
# the clone's classes (mktemp's 0700 left them "Could not find or load main class")
chmod 755 "$work"
loops=()
stop_loops() { [ ${#loops[@]} -eq 0 ] || kill "${loops[@]}" 2>/dev/null || true; loops=(); }
trap 'stop_loops; rm -rf "$work"' EXIT
git clone -q . "$work/clone"

round() { # name busy(0/1)
  if [ "$2" = 1 ]; then
    sh -c 'while :; do :; done' & loops+=($!)
    sh -c 'while :; do :; done' & loops+=($!)
  fi
  (cd "$work/clone" && git clean -qfdx && make test) >"$work/$1.log" 2>&1 || true
  stop_loops
  local closing
  closing=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/$1.log" | tail -n 1)
  echo "| $1 | ${closing:-no closing line} | $(grep -E '^FAIL' "$work/$1.log" | sed 's/ (.*//; s/^FAIL //' | paste -sd ';' - | sed 's/;/; /g') |"
}

figures() { # log: the lines that set the profile against the workload's own figures, and every failure
  grep -B0 -A1 -E '^    (contenders:|half off-CPU:|HotMethods.alpha truth|taken [0-9]+, stored [0-9]+, refused|session [12])' "$1" |
    grep -vE '^--$' | sed 's/^ *//'
  grep -E '^FAIL' "$1" || true
}

rows=("$(round quiet 0)")
echo "${rows[0]}"
for i in $(seq "$rounds"); do
  rows+=("$(round "busy-$i" 1)")
  echo "${rows[-1]}"
done

{
  echo "# make test on a busy machine"
  echo
  bench_provenance "none"
  echo
  echo "Written by $(bench_ran busy-machine.sh)."
  echo "Each round runs \`make test\` in a clean clone; *busy* rounds beside two CPU-bound shell loops"
  echo "(\`sh -c 'while :; do :; done'\` twice), as on a shared CI runner."
  echo
  echo "| round | closing line | failed |"
  echo "|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "## The tests that set the profile against the workload's own figures"
  echo
  echo "Each compares the profile with what the workload measured about itself in the same run, with the"
  echo "same definition on both sides: *contenders* (event=wall): samples queued at the monitor"
  echo "against the time the JVM's thread contention monitoring counted them blocked; *half / spin*"
  echo "(event=wall, sched): samples not \`[state=running]\` against 1 - CPU time / wall time;"
  echo "*HotMethods*: each method's share of samples against its share of the thread's CPU time;"
  echo "*memlimit*: the known stack's samples against its phases' share of the thread's life."
  for f in quiet $(seq -f 'busy-%g' "$rounds"); do
    echo
    echo "### $f"
    echo
    echo '```'
    figures "$work/$f.log"
    echo '```'
  done
} >results/busy-machine.md
echo "busy-machine: wrote results/busy-machine.md"
