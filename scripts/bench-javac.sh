#!/usr/bin/env bash
# Unattributed samples on real code: javac compiling the java.xml module
# (1857 files, from the JDK's own src.zip, Debian's openjdk-17-source) at
# interval=1ms, with raw AsyncGetCallTrace (walker=asgct,recover=no,cstack=no),
# with its recovery (walker=asgct,cstack=no), and with the defaults (fgagent's
# own walker, recovery and native frames). For each run: the share of samples that are failure
# frames ([unknown_Java], [not_walkable_*], [unknown_not_Java]) among all
# samples and among the main thread's, and the handler's time as a share of
# the CPU time sampled. Writes results/javac-unattributed.md.
# Environment: RUNS (per mode, default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh

bash scripts/install-deps.sh bench
java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)}
src_zip=$java_home/lib/src.zip
runs=${RUNS:-3}
agent=$(pwd)/build/libfgagent.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -f "$src_zip" ] || { echo "bench-javac: $src_zip not found (package openjdk-17-source)" >&2; exit 1; }
(cd "$work" && unzip -q "$src_zip" 'java.xml/*')
files=$(find "$work/java.xml" -name '*.java' | wc -l)

declare -A opts=([raw]="walker=asgct,recover=no,cstack=no" [recover]="walker=asgct,cstack=no" [default]="")
modes=(raw recover default)
out=results/javac-unattributed.md
rows=()
echo "bench-javac: $files files, ${#modes[@]} modes x $runs runs"
for round in $(seq 1 "$runs"); do
  for mode in "${modes[@]}"; do
    tag=$mode-$round
    rm -rf "$work/out"
    o=${opts[$mode]}
    start=$(date +%s.%N)
    (cd "$work" && "$java_home/bin/java" \
      "-agentpath:$agent=interval=1ms,threads,file=$work/$tag.collapsed,log=$work/$tag.log${o:+,$o}" \
      -m jdk.compiler/com.sun.tools.javac.Main -nowarn --module-source-path . -m java.xml -d out >/dev/null 2>&1) || true
    end=$(date +%s.%N)
    log=$work/$tag.log
    stored=$(sed -n 's/^ *samples stored: *\([0-9]*\).*/\1/p' "$log")
    # the summary's handler time as a share of the CPU sampled
    handler=$(sed -n 's/.*s in all, \([0-9.]*\)% of the CPU sampled.*/\1/p' "$log")
    failed=$(awk '/^ +\[(unknown_Java|not_walkable_Java|not_walkable_not_Java|unknown_not_Java)\]/ {n += $2} END {print n + 0}' "$log")
    recovered=$(sed -n 's/^ *recovered: *\([0-9]*\).*/\1/p' "$log")
    ok=$(sed -n 's/.*accounting:.*: \([A-Z]*\)$/\1/p' "$log")
    # bare: failure frames after which no Java frame was recovered (the method itself unknown)
    read -r main mainfail bare < <(awk '
      function java(f) { return f !~ /^\[/ && f !~ /::/ && f !~ /\.so/ && (f ~ /\// || f ~ /^[A-Za-z_$][A-Za-z0-9_$]*\.[A-Za-z0-9_$<>]+$/) }
      { c = $NF; line = $0; sub(/ [0-9]+$/, "", line); n = split(line, f, ";")
        failed = f[2] ~ /^\[(unknown|not_walkable)_/
        if (failed) { known = 0; for (i = 3; i <= n; i++) if (java(f[i])) known = 1; if (!known) b += c }
        if (f[1] ~ /^\[main tid=/) { m += c; if (failed) mf += c } }
      END {print m + 0, mf + 0, b + 0}' "$work/$tag.collapsed")
    row=$(awk -v mode="$mode" -v run="$round" -v wall="$start" -v wend="$end" -v stored="$stored" -v failed="$failed" \
      -v main="$main" -v mainfail="$mainfail" -v bare="$bare" -v recovered="${recovered:-0}" -v handler="${handler:--}" \
      -v ok="$ok" 'BEGIN {
        printf "| %s | %d | %.1f | %d | %d | %.2f%% | %.2f%% | %.2f%% | %d | %s%% | %s |", mode, run, wend - wall, stored,
          failed, 100 * failed / stored, main ? 100 * mainfail / main : 0, 100 * bare / stored, recovered,
          handler, ok }')
    echo "$row"
    rows+=("$row")
  done
done

{
  echo "# Unattributed samples: javac compiling java.xml"
  echo
  bench_provenance "none"
  echo
  echo "Written by $(bench_ran bench-javac.sh). JDK: $("$java_home/bin/java" -version 2>&1 | head -n 1)."
  echo "javac (\`-m java.xml\`, $files files from the JDK's src.zip) at interval=1ms, event=cpu, $runs runs per mode,"
  echo "modes interleaved. *failed* counts the failure frames [unknown_Java], [not_walkable_Java],"
  echo "[not_walkable_not_Java] and [unknown_not_Java]; *main* is the same share among the main thread's"
  echo "samples (javac's own work; the rest are JIT compiler and GC threads). *no method* counts the failure"
  echo "frames after which not even the method is known (recovery keeps the compiled method the pc is in"
  echo "under the marker when the stack beyond it is lost). *handler* is the time spent in"
  echo "fgagent's signal handler as a share of the CPU time sampled, the summary's (the kernel's signal"
  echo "delivery comes on top)."
  echo
  echo "- raw: \`walker=asgct,recover=no,cstack=no\`, AsyncGetCallTrace alone"
  echo "- recover: \`walker=asgct,cstack=no\`, with the walker's recovery"
  echo "- default: fgagent's own walker (walker=vm), recovery and native frames"
  echo
  echo "| mode | run | wall s | samples | failed | failed share | main thread failed | no method | recovered | handler | accounting |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}" | sort -s -t'|' -k2,2
} >"$out"
echo "bench-javac: wrote $out"
