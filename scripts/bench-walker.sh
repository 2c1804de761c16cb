#!/usr/bin/env bash
# The walkers side by side on real programs nobody here wrote: javac compiling
# the java.xml module (Debian's openjdk-17-source) and H2 running a SQL script
# of inserts, joins, group-bys, sorts, updates and deletes (Debian's
# libh2-java, scripts/bench/h2-work.sql), on JDK 17 and on Temurin 25 when it
# is installed, at interval=1ms with walker=asgct and walker=vm in interleaved
# runs. For each run: failure frames ([unknown_Java], [not_walkable_*],
# [unknown_not_Java], ...) among all samples and among the application
# threads' (every thread but the JIT compiler, GC and VM threads), the stacks
# the vm walker read itself, and the handler's time per walk. Then one run per
# program and JDK with walker=vm,verify: the Java caller->callee edges that
# the callers' bytecode can make. Writes results/walker.md.
# Environment: RUNS (per walker, default 2), WALKERS (default "asgct vm copy", and asprof when
# ASPROF names async-profiler's library: its cpu event at the same interval, in the same rounds;
# walker=copy walks the kernel's copy of each sample's stack on the engine's thread: its
# *handler* column is that walk).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh

bash scripts/install-deps.sh bench
runs=${RUNS:-2}
read -r -a walkers <<<"${WALKERS:-asgct vm copy${ASPROF:+ asprof}}"
agent=$(pwd)/build/libfgagent.so
sql=$(pwd)/scripts/bench/h2-work.sql
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jdk17=$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)
jdks=("$jdk17")
temurin=$(ls -d /usr/lib/jvm/temurin-25-jdk-* 2>/dev/null | head -n 1 || true)
if [ -n "$temurin" ]; then jdks+=("$temurin"); else echo "bench-walker: no Temurin 25 JDK, JDK 17 only"; fi
(cd "$work" && unzip -q "$jdk17/lib/src.zip" 'java.xml/*')

# run JDK PROGRAM TAG OPTIONS: one profiled run, its collapsed stacks and summary in $work/TAG.*
run() {
  local java=$1/bin/java program=$2 tag=$3 opts=$4
  local agentarg="-agentpath:$agent=interval=1ms,threads,file=$work/$tag.collapsed,log=$work/$tag.log,$opts"
  [ "$opts" = walker=asprof ] && agentarg="-agentpath:$ASPROF=start,event=cpu,interval=1000000,threads,collapsed,file=$work/$tag.collapsed"
  : >"$work/$tag.log"
  rm -rf "$work/out"
  case $program in
    javac) (cd "$work" && "$java" "$agentarg" -m jdk.compiler/com.sun.tools.javac.Main -nowarn \
              --module-source-path . -m java.xml -d out >/dev/null 2>&1) || true ;;
    h2) "$java" "$agentarg" -cp /usr/share/java/h2.jar org.h2.tools.RunScript -url jdbc:h2:mem:bench \
          -script "$sql" >/dev/null 2>&1 || true ;;
  esac
}

# The JVM's own threads, by name: everything else is the application's.
vm_threads='^\[(C[12] CompilerThread|GC Thread|G1 |VM Thread|VM Periodic|Service Thread|Monitor Deflation|Signal Dispatcher|Common-Cleaner|Reference Handler|Finalizer|Notification Thread|Sweeper|Attach Listener|JVMCI|ZThread|Shenandoah)'

# row PROGRAM JDK WALKER RUN TAG
row() {
  local log=$work/$5.log
  local handler walks own java
  handler=$(sed -n 's/.*\(handler\|walk\) time: *\([0-9.]*\) us per stack walk.*/\2/p' "$log")
  own=$(sed -n 's/.*its own walk read \([0-9]*\).*/\1/p' "$log")
  java=$(sed -n 's/^ *Java stacks: *\([0-9]*\).*/\1/p' "$log")
  awk -v prog="$1" -v jdk="$2" -v walker="$3" -v run="$4" -v handler="${handler:-0}" -v own="${own:-0}" \
      -v java="${java:-0}" -v vmt="$vm_threads" '
    { c = $NF; line = $0; sub(/ [0-9]+$/, "", line); n = split(line, f, ";")
      failed = 0
      for (i = 2; i <= n; i++) if (f[i] ~ /^\[(unknown|not_walkable|no_class_load|gc_active|unknown_state|thread_exit|deopt|safepoint)/) failed = 1
      all += c; if (failed) fail += c
      if (f[1] !~ vmt) { app += c; if (failed) appfail += c } }
    END { printf "| %s | %s | %s | %d | %d | %.2f%% | %d | %.2f%% | %s | %s |\n", prog, jdk, walker, run, all,
            all ? 100 * fail / all : 0, app, app ? 100 * appfail / app : 0,
            walker == "vm" && java ? sprintf("%.1f%%", 100 * own / java) : "-",
            walker == "asprof" ? "-" : sprintf("%.2f us", handler) }' "$work/$5.collapsed"
}

rows=()
edges=()
for jdk in "${jdks[@]}"; do
  name=$("$jdk/bin/java" -version 2>&1 | head -n 1 | sed 's/.*version "\([^"]*\)".*/\1/')
  for program in javac h2; do
    for r in $(seq 1 "$runs"); do
      for walker in "${walkers[@]}"; do
        tag=$program-$walker-$r
        run "$jdk" "$program" "$tag" "walker=$walker"
        rows+=("$(row "$program" "$name" "$walker" "$r" "$tag")")
        echo "${rows[-1]}"
      done
    done
    for walker in "${walkers[@]}"; do
      [ "$walker" = asgct ] || [ "$walker" = asprof ] && continue
      tag=$program-verify-$walker
      run "$jdk" "$program" "$tag" "walker=$walker,verify"
      line=$(grep -E 'verify:' "$work/$tag.log" | sed 's/^ *//')
      wrong=$(grep -E 'wrong edges:' "$work/$tag.log" | sed 's/^ *//')
      edges+=("- $program on $name, walker=$walker: $line; $wrong")
      echo "${edges[-1]}"
    done
  done
done

out=results/walker.md
{
  echo "# The walkers on real programs: $(printf 'walker=%s ' "${walkers[@]}")"
  echo
  bench_provenance "$(bench_asprof "$([[ " ${walkers[*]} " == *" asprof "* ]] && echo "${ASPROF:-}")")"
  echo
  echo "Written by $(bench_ran bench-walker.sh), $runs runs per walker, interleaved, interval=1ms,"
  echo "event=cpu, default options otherwise (native frames, recovery). javac compiles java.xml (the JDK's"
  echo "src.zip); H2 (Debian libh2-java) runs scripts/bench/h2-work.sql in memory. *failed* counts samples"
  echo "with a failure frame ([unknown_Java], [not_walkable_Java], [unknown_not_Java], ...); *app* is every"
  echo "thread but the JVM's own (JIT compilers, GC, VM threads). *vm read* is the share of Java stacks"
  echo "fgagent's walker read itself; AsyncGetCallTrace (with fgagent's recovery) took the rest. *handler*"
  echo "is the handler's time per walk, native frames included (walker=copy: the engine thread's walk of a"
  echo "stack copy, no handler, no AsyncGetCallTrace). *asprof*: async-profiler (${ASPROF:-not run}), its"
  echo "defaults for event=cpu at the same interval, in the same rounds."
  echo
  echo "| program | JDK | walker | run | samples | failed | app samples | app failed | vm read | handler |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Edges checked with verify (one run each):"
  echo
  printf '%s\n' "${edges[@]}"
} >"$out"
echo "bench-walker: wrote $out"
