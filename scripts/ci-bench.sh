#!/usr/bin/env bash
# The CI regression gate. Runs each benchmark N times under fgagent, keeps the
# profiles and summaries under RESULTS/LABEL/BENCH/, and with --baseline compares
# them to that label's runs with fgprof diff: a Markdown report, a JSON verdict
# and a differential flame graph per benchmark.
#
# Usage: scripts/ci-bench.sh --label NEW [--baseline BASE] [--runs N] [--interval 250us]
#                            [--results DIR] [--bench 'NAME=MAINCLASS ARGS...']...
#   --bench    a java-test workload to run; repeatable. Default:
#              'checkout=RegressionWorkload base 4000'
#   --results  where labels live (default: results)
# Kernel frames are left out (kernel=no): the scheduler's and page faults'
# frames follow the machine's load, not the code, and a system call's time
# stays on the native frame that made it.
# Also recorded per run: wall time and fgagent's own cost (handler time per stack
# walk), so that a change that makes the profiler itself slower is caught too:
# it counts as a regression when the median handler time grew by half and by
# over 2 us.
# Exit status: 0 no regression, 1 a regression (code or profiler), 2 an error.
set -uo pipefail
cd "$(dirname "$0")/.."

label="" baseline="" runs=5 interval=250us results=results
benches=()
while [ $# -gt 0 ]; do
  case "$1" in
    --label) label=${2:-}; shift 2 ;;
    --baseline) baseline=${2:-}; shift 2 ;;
    --runs) runs=${2:-}; shift 2 ;;
    --interval) interval=${2:-}; shift 2 ;;
    --results) results=${2:-}; shift 2 ;;
    --bench) benches+=("${2:-}"); shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ci-bench: unknown argument '$1'; accepted: --label, --baseline, --runs, --interval, --results, --bench" >&2; exit 2 ;;
  esac
done
[ -n "$label" ] || { echo "ci-bench: --label NAME is required" >&2; exit 2; }
case "$runs" in ''|*[!0-9]*|0) echo "ci-bench: --runs '$runs' is not valid; accepted: a whole number from 1" >&2; exit 2 ;; esac
[ ${#benches[@]} -gt 0 ] || benches=("checkout=RegressionWorkload base 4000")
java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)}
for need in build/libfgagent.so build/fgprof build/java-test; do
  [ -e "$need" ] || { echo "ci-bench: $need is missing; run make first" >&2; exit 2; }
done

median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print "nan"; else print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# Runs one benchmark RUNS times into RESULTS/LABEL/NAME.
run_bench() { # name main args...
  local name=$1 dir="$results/$label/$1"
  shift
  rm -rf "$dir"
  mkdir -p "$dir"
  printf 'run\twall_ns\tsamples\thandler_us\tdrainer_s\n' >"$dir/runs.tsv"
  for i in $(seq 1 "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    if ! "$java_home/bin/java" "-agentpath:$(pwd)/build/libfgagent.so=interval=$interval,kernel=no,file=$dir/run-$i.collapsed,log=$dir/run-$i.summary" \
         -cp build/java-test "$@" >"$dir/run-$i.out" 2>&1; then
      echo "ci-bench: $name run $i failed; see $dir/run-$i.out" >&2
      return 2
    fi
    t1=$(date +%s%N)
    printf '%s\t%s\t%s\t%s\t%s\n' "$i" "$((t1 - t0))" \
      "$(sed -n 's/^ *samples stored: *\([0-9]*\).*/\1/p' "$dir/run-$i.summary")" \
      "$(sed -n 's/^ *handler time: *\([0-9.]*\) us.*/\1/p' "$dir/run-$i.summary")" \
      "$(sed -n 's/.*own threads* used \([0-9.]*\) s CPU.*/\1/p' "$dir/run-$i.summary")" >>"$dir/runs.tsv"
  done
  echo "ci-bench: $label/$name: $runs runs"
}

column() { # file column-number -> median
  awk -F'\t' -v c="$2" 'NR > 1 && $c != "" { print $c }' "$1" | median
}

status=0
report=$results/$label/report.md
mkdir -p "$results/$label"
{
  echo "# Benchmark report: $label"
  echo
  echo "$runs runs per benchmark at interval=$interval, $(date -u '+%Y-%m-%d %H:%M UTC')."
  [ -n "$baseline" ] && echo "Compared with \`$baseline\` by \`fgprof diff\` (Welch's t-test over the runs' self shares)."
} >"$report"

for spec in "${benches[@]}"; do
  name=${spec%%=*}
  read -r -a command <<<"${spec#*=}"
  if [ "$name" = "$spec" ] || [ ${#command[@]} -eq 0 ]; then
    echo "ci-bench: --bench '$spec' is not valid; accepted: NAME=MAINCLASS ARGS..." >&2
    exit 2
  fi
  run_bench "$name" "${command[@]}" || exit 2
  dir=$results/$label/$name
  {
    echo
    echo "## $name: \`${command[*]}\`"
    echo
    echo "| | wall time (median) | samples per run | handler per walk | drainer CPU |"
    echo "|---|---|---|---|---|"
    printf '| %s | %.3f s | %s | %s us | %s s |\n' "$label" "$(awk -v v="$(column "$dir/runs.tsv" 2)" 'BEGIN{print v/1e9}')" \
      "$(column "$dir/runs.tsv" 3)" "$(column "$dir/runs.tsv" 4)" "$(column "$dir/runs.tsv" 5)"
  } >>"$report"
  [ -n "$baseline" ] || continue

  base=$results/$baseline/$name
  if [ ! -d "$base" ]; then
    echo "ci-bench: no baseline runs in $base" >&2
    exit 2
  fi
  printf '| %s | %.3f s | %s | %s us | %s s |\n' "$baseline" "$(awk -v v="$(column "$base/runs.tsv" 2)" 'BEGIN{print v/1e9}')" \
    "$(column "$base/runs.tsv" 3)" "$(column "$base/runs.tsv" 4)" "$(column "$base/runs.tsv" 5)" >>"$report"
  build/fgprof diff --base "$base"/run-*.collapsed --new "$dir"/run-*.collapsed --html "$dir/diff.html" \
    --title "$name: $baseline -> $label" >"$dir/diff.txt"
  verdict=$?
  build/fgprof diff --json --base "$base"/run-*.collapsed --new "$dir"/run-*.collapsed >"$dir/diff.json"
  [ $verdict -le 1 ] || { echo "ci-bench: fgprof diff failed for $name" >&2; exit 2; }
  [ $verdict -eq 1 ] && status=1
  # the profiler's own cost
  profiler=$(awk -v b="$(column "$base/runs.tsv" 4)" -v n="$(column "$dir/runs.tsv" 4)" \
    'BEGIN { if (b != "nan" && n != "nan" && n > b * 1.5 && n - b > 2) print "slower"; else print "same" }')
  [ "$profiler" = slower ] && status=1
  {
    echo
    echo "Profiler's own cost: $profiler (handler time per walk, median: $(column "$base/runs.tsv" 4) us -> $(column "$dir/runs.tsv" 4) us)."
    echo
    echo '```'
    cat "$dir/diff.txt"
    echo '```'
    echo
    echo "Differential flame graph: \`$dir/diff.html\`; verdict for machines: \`$dir/diff.json\`."
  } >>"$report"
done

cat "$report"
exit $status
