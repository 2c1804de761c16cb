#!/usr/bin/env bash
# Evidence for the regression gate: PAIRS comparisons each of
#   A/A  base runs vs base runs        (any "regression" is a false positive)
#   A/B  base runs vs transform +20%   (must be a regression naming transform)
#   A/C  base runs vs transform -20%   (must be an improvement naming it, no regression)
# on RegressionWorkload, and on CallPathWorkload (nine steps sharing one helper)
#   P/P  base runs vs base runs        (a false positive, as A/A)
#   P/Q  base runs vs price 1.6x       (must be a regression on a call path through price;
#                                       no frame's own share moves enough to show it)
# with RUNS runs a side, and P/P and P/Q again with one run a side, through
# scripts/ci-bench.sh. Writes results/regression-gate.md (or only checks, with
# --check: exit 1 unless every comparison came out right).
# Environment: PAIRS (20), RUNS (5, ci-bench's default), REQUESTS (4000, about
# 1.5 s a run), PATH_REQUESTS (5000, about as long).
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench/machine.sh
. scripts/bench/machine.sh

pairs=${PAIRS:-20} runs=${RUNS:-5} requests=${REQUESTS:-4000} path_requests=${PATH_REQUESTS:-5000}
check_only=0
[ "${1:-}" = "--check" ] && check_only=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bench() { # label variant [baseline]
  local args=(--label "$1" --runs "$runs" --results "$work" --bench "checkout=RegressionWorkload $2 $requests")
  [ -n "${3:-}" ] && args+=(--baseline "$3")
  bash scripts/ci-bench.sh "${args[@]}" >"$work/$1.log" 2>&1
}

path_bench() { # label variant runs [baseline]
  local args=(--label "$1" --runs "$3" --results "$work" --bench "paths=CallPathWorkload $2 $path_requests")
  [ -n "${4:-}" ] && args+=(--baseline "$4")
  bash scripts/ci-bench.sh "${args[@]}" >"$work/$1.log" 2>&1
}

json() { # label
  if [ -e "$work/$1/checkout/diff.json" ]; then cat "$work/$1/checkout/diff.json"; else cat "$work/$1/paths/diff.json"; fi
}
verdict() { json "$1" | sed -n 's/.*"verdict":"\([a-z_]*\)".*/\1/p'; }
# the frames the diff calls slower (or faster), by name
named() { json "$1" | grep -o "{\"name\":\"[^\"]*\",\"status\":\"$2\"" | sed 's/{"name":"\([^"]*\)".*/\1/' | tr '\n' ' '; }
# the call paths it calls slower: their frames joined by ">"
paths() { json "$1" | grep -o "{\"path\":\[[^]]*\],\"status\":\"$2\"" | sed 's/{"path":\[\(.*\)\],.*/\1/; s/","/>/g; s/"//g' | tr '\n' ' '; }
# one comparison's cell: the verdict, the frames and paths called slower
cell() { echo "$(verdict "$1") $(named "$1" slower) $(paths "$1" slower)"; }

aa_false=0 aa_improvement=0 ab_hit=0 ac_hit=0 ac_false=0 errors=0
pp_false=0 pq_hit=0 pp1_false=0 pq1_hit=0
rows=() path_rows=() wrong=()
# --check: each comparison that came out wrong ("label baseline regex"), shown
# at the end: its verdict and first frames, and both sides' runs (wall time,
# samples, handler time, and the share of the samples whose stack matches
# regex), so that a failure says what the runs measured
wrong() { wrong+=("$1 $2 $3"); }
show_wrong() {
  local entry label base regex side f
  for entry in "${wrong[@]}"; do
    read -r label base regex <<<"$entry"
    echo "--- $label against $base:"
    sed -n '/^verdict/,$p' "$work/$label"/*/diff.txt 2>/dev/null | head -n 9
    for side in "$base" "$label"; do
      echo "$side's runs (wall_ns, samples, handler_us, drainer_s; % of samples on $regex):"
      cat "$work/$side"/*/runs.tsv 2>/dev/null
      for f in "$work/$side"/*/run-*.collapsed; do
        awk -v re="$regex" '{ n = $NF; all += n; if ($0 ~ re) hit += n }
          END { printf "%.2f ", all ? 100 * hit / all : 0 }' "$f"
      done
      echo
    done
  done
}

for i in $(seq 1 "$pairs"); do
  bench "a$i" base || errors=$((errors + 1))
  bench "aa$i" base "a$i"; rc_aa=$?
  bench "ab$i" slower "a$i"; rc_ab=$?
  bench "ac$i" faster "a$i"; rc_ac=$?
  [ $rc_aa -le 1 ] && [ $rc_ab -le 1 ] && [ $rc_ac -le 1 ] || { errors=$((errors + 1)); continue; }
  v_aa=$(verdict "aa$i") v_ab=$(verdict "ab$i") v_ac=$(verdict "ac$i")
  [ "$v_aa" = regression ] && aa_false=$((aa_false + 1)) && wrong "aa$i" "a$i" "transform [0-9]+$"
  [ "$v_aa" = improvement ] && aa_improvement=$((aa_improvement + 1))
  if [ "$v_ab" = regression ] && named "ab$i" slower | grep -q 'RegressionWorkload.transform'; then
    ab_hit=$((ab_hit + 1))
  else
    wrong "ab$i" "a$i" "transform [0-9]+$"
  fi
  if [ "$v_ac" = improvement ] && named "ac$i" faster | grep -q 'RegressionWorkload.transform'; then
    ac_hit=$((ac_hit + 1))
  else
    wrong "ac$i" "a$i" "transform [0-9]+$"
  fi
  [ "$v_ac" = regression ] && ac_false=$((ac_false + 1))
  rows+=("| $i | $(cell "aa$i") | $v_ab: $(named "ab$i" slower) | $v_ac: $(named "ac$i" faster) |")
  echo "pair $i: A/A $v_aa, A/B $v_ab, A/C $v_ac"

  path_bench "p$i" base "$runs" || errors=$((errors + 1))
  path_bench "pp$i" base "$runs" "p$i"; rc_pp=$?
  path_bench "pq$i" slower "$runs" "p$i"; rc_pq=$?
  path_bench "p1_$i" base 1 || errors=$((errors + 1))
  path_bench "pp1_$i" base 1 "p1_$i"; rc_pp1=$?
  path_bench "pq1_$i" slower 1 "p1_$i"; rc_pq1=$?
  [ $rc_pp -le 1 ] && [ $rc_pq -le 1 ] && [ $rc_pp1 -le 1 ] && [ $rc_pq1 -le 1 ] || { errors=$((errors + 1)); continue; }
  [ "$(verdict "pp$i")" = regression ] && pp_false=$((pp_false + 1)) && wrong "pp$i" "p$i" "CallPathWorkload.price;"
  [ "$(verdict "pp1_$i")" = regression ] && pp1_false=$((pp1_false + 1))
  if [ "$(verdict "pq$i")" = regression ] && paths "pq$i" slower | grep -q 'CallPathWorkload.price'; then
    pq_hit=$((pq_hit + 1))
  else
    wrong "pq$i" "p$i" "CallPathWorkload.price;"
  fi
  [ "$(verdict "pq1_$i")" = regression ] && paths "pq1_$i" slower | grep -q 'CallPathWorkload.price' && pq1_hit=$((pq1_hit + 1))
  path_rows+=("| $i | $(cell "pp$i") | $(cell "pq$i") | $(cell "pp1_$i") | $(cell "pq1_$i") |")
  echo "pair $i: P/P $(verdict "pp$i"), P/Q $(verdict "pq$i"); one run a side: P/P $(verdict "pp1_$i"), P/Q $(verdict "pq1_$i")"
done

summary="A/A false regressions: $aa_false of $pairs (false improvements: $aa_improvement); A/B slower detected naming transform: $ab_hit of $pairs; A/C faster reported as an improvement naming transform: $ac_hit of $pairs (as a regression: $ac_false); call path: P/P false regressions $pp_false, P/Q detected through price $pq_hit of $pairs ($runs runs a side), one run a side $pp1_false and $pq1_hit; errors: $errors"
echo "$summary"
if [ $check_only -eq 1 ]; then
  show_wrong
  [ $errors -eq 0 ] && [ $aa_false -eq 0 ] && [ $ab_hit -eq "$pairs" ] && [ $ac_hit -eq "$pairs" ] &&
    [ $pp_false -eq 0 ] && [ $pq_hit -eq "$pairs" ]
  exit $?
fi

mkdir -p results
{
  echo "# Regression gate: measured false-positive and detection rates"
  echo
  bench_provenance "none"
  echo
  echo "Measured by $(bench_ran regression-evidence.sh),"
  echo "$("${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)}/bin/java" -version 2>&1 | head -n 1)."
  echo "Workload: \`RegressionWorkload VARIANT $requests\` (java-test/workloads): parse / transform / render,"
  echo "about 40 / 20 / 40 % of the CPU; the *slower* variant gives transform 20% more work, *faster* 20% less."
  echo "Each comparison is \`scripts/ci-bench.sh\` with $runs runs a side at interval=250us (about 6000 samples"
  echo "a run), judged by \`fgprof diff\` with its defaults: Welch's t-test over the runs' self shares,"
  echo "a change counts at 10% relative and 0.5 points absolute with p < 0.01."
  echo
  echo "| comparison | goal | result |"
  echo "|---|---|---|"
  echo "| A/A: base vs base, $pairs pairs | no false regression in at least $((pairs * 19 / 20)) | $((pairs - aa_false)) of $pairs without a false regression ($aa_improvement reported a false improvement) |"
  echo "| A/B: base vs transform +20%, $pairs pairs | regression naming transform in at least $((pairs * 19 / 20)) | $ab_hit of $pairs |"
  echo "| A/C: base vs transform -20%, $pairs pairs | an improvement, not a regression | improvement naming transform in $ac_hit of $pairs; reported as a regression in $ac_false |"
  echo
  echo "Runs that failed to run or compare: $errors."
  echo
  echo "| pair | A/A verdict | A/B verdict: frames called slower | A/C verdict: frames called faster |"
  echo "|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "## A regression inside a call path"
  echo
  echo "Workload: \`CallPathWorkload VARIANT $path_requests\`: nine request steps, each spending its time in one"
  echo "shared helper, \`hash()\`; the *slower* variant has \`price()\` ask it for 1.6 times the work, so the"
  echo "path main > price > hash goes from about 11% to about 16% of the samples while \`hash()\`'s self share"
  echo "(about 97%) and every other frame's barely move: judged by self shares alone it is no change."
  echo "\`fgprof diff\` also tests each call path's total share (same test, same thresholds) and reports"
  echo "the deepest path along each change. P/P: base against base (a regression is a false positive);"
  echo "P/Q: base against slower (detected when the verdict is a regression on a path through price)."
  echo
  echo "| comparison | goal | result |"
  echo "|---|---|---|"
  echo "| P/P, $runs runs a side, $pairs pairs | no false regression in at least $((pairs * 19 / 20)) | $((pairs - pp_false)) of $pairs without a false regression |"
  echo "| P/Q, $runs runs a side, $pairs pairs | regression on a path through price in at least $((pairs * 19 / 20)) | $pq_hit of $pairs |"
  echo "| P/P, one run a side, $pairs pairs | (two-proportion z-test: sampling noise only) | $((pairs - pp1_false)) of $pairs without a false regression |"
  echo "| P/Q, one run a side, $pairs pairs | regression on a path through price in at least $((pairs * 19 / 20)) | $pq1_hit of $pairs |"
  echo
  echo "| pair | P/P ($runs a side): verdict, frames and paths called slower | P/Q ($runs a side) | P/P (1 a side) | P/Q (1 a side) |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${path_rows[@]}"
} >results/regression-gate.md
cat results/regression-gate.md
