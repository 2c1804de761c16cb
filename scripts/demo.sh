#!/usr/bin/env bash
# Profiles the bundled demo workload (java-test/workloads/Demo.java) at 1 ms
# and writes every output format into demo-output/.
set -euo pipefail
cd "$(dirname "$0")/.."

java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)}
out=$(pwd)/demo-output
rm -rf "$out"
mkdir -p "$out"

echo "fgagent demo: profiling the order-processing demo for 5 s at interval=1ms ..."
"$java_home/bin/java" \
  "-agentpath:$(pwd)/build/libfgagent.so=interval=1ms,threads,file=$out/flamegraph.html,file=$out/profile.txt,file=$out/profile.collapsed,file=$out/profile.pb.gz,file=$out/profile.speedscope.json,file=$out/profile.jfr,log=$out/summary.txt" \
  -cp build/java-test Demo 5 >"$out/demo-stdout.txt" 2>"$out/demo-stderr.txt"

cat "$out/summary.txt"
echo
echo "fgagent demo: hottest stacks (samples, thread, last three frames):"
# The count is the last field; thread names may hold spaces.
awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";");
       tail = f[k]; if (k > 2) tail = f[k-1] ";" tail; if (k > 3) tail = f[k-2] ";" tail;
       printf "%8d  %s  ...%s\n", n, f[1], tail }' "$out/profile.collapsed" | sort -rn | awk 'NR <= 5' 
echo
echo "fgagent demo: outputs written to $out/"
echo "  flamegraph.html          interactive flame graph: open it in a browser"
echo "  profile.txt              call graph, ftrace function_graph style"
echo "  profile.collapsed        collapsed stacks (flamegraph.pl, fgprof convert, ...)"
echo "  profile.pb.gz            pprof: go tool pprof -top $out/profile.pb.gz"
echo "  profile.speedscope.json  speedscope"
echo "  profile.jfr              JDK Flight Recorder (jfr print, JDK Mission Control)"
echo "  summary.txt              what happened to every sample"
