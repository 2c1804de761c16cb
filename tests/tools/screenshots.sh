#!/usr/bin/env bash
# Takes the pictures of docs/img/ from real runs: the bundled demo's CPU flame graph; the flame
# graphs of the modes page (wall clock of ComputeSleep, allocations of AllocSites, lock waits of
# Locks); fgprof diff's page of RegressionWorkload slower against base (two runs a side); and the
# heatmap of Phases (a steady thread, and a spike of a second one between two marks) with the
# spike's flame graph against the quiet second before it.
# Usage: bash tests/tools/screenshots.sh [OUTDIR]   (default docs/img)
# Needs build/libfgagent.so, build/fgprof, build/java-test and the npm readers in build/npm (tests/tools/run.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-docs/img}
work=build/screenshots
rm -rf "$work"
mkdir -p "$work" "$out"
export FG_NPM=${FG_NPM:-$(pwd)/build/npm/node_modules}
java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)}
agent=$(pwd)/build/libfgagent.so

"$java_home/bin/java" "-agentpath:$agent=interval=1ms,file=$work/demo.html" -cp build/java-test Demo 3 >/dev/null 2>&1
"$java_home/bin/java" "-agentpath:$agent=event=wall,threads,file=$work/wall.html" -cp build/java-test ComputeSleep 2 >/dev/null 2>&1
"$java_home/bin/java" "-agentpath:$agent=alloc,file=$work/alloc.html" -cp build/java-test AllocSites 2 40000 >/dev/null 2>&1
"$java_home/bin/java" "-agentpath:$agent=lock,file=$work/lock.html" -cp build/java-test Locks 2 2 2 >/dev/null 2>&1
for i in 1 2; do
  for v in base slower; do
    "$java_home/bin/java" "-agentpath:$agent=interval=250us,kernel=no,file=$work/$v-$i.collapsed" -cp build/java-test \
      RegressionWorkload $v 1500 >/dev/null 2>&1
  done
done
build/fgprof diff --html "$work/diff.html" --base "$work"/base-*.collapsed --new "$work"/slower-*.collapsed >/dev/null || true
"$java_home/bin/java" "-agentpath:$agent=interval=1ms,file=$work/phases.heatmap.html" -cp build/java-test Phases \
  >"$work/phases.out" 2>/dev/null
# mark NAME START_MS END_MS
read -r _ _ s0 s1 < <(grep '^mark spike ' "$work/phases.out")
read -r _ _ q0 q1 < <(grep '^mark quiet1 ' "$work/phases.out")
node tests/tools/screenshots.mjs "$out" "$work/phases.heatmap.html@$s0,$s1,$q0,$q1" "flamegraph.png=$work/demo.html" \
  "wall.png=$work/wall.html" "alloc.png=$work/alloc.html" "lock.png=$work/lock.html" "diff.png=$work/diff.html"
ls -l "$out"/{flamegraph,wall,alloc,lock,diff,heatmap}.png
