#!/usr/bin/env bash
# Evidence for the regression gate: PAIRS comparisons each of
#   A/A  base runs vs base runs        (any "regression" is a false positive)
#   A/B  base runs vs transform +20%   (must be a regression naming transform)
#   A/C  base runs vs transform -20%   (must be an improvement naming it, no regression)
# through scripts/ci-bench.sh, RUNS runs a side. Writes results/regression-gate.md
# (or only checks, with --check: exit 1 unless every comparison came out right).
# Environment: PAIRS (20), RUNS (5, ci-bench's default), REQUESTS (4000, about 1.5 s a run).
set -uo pipefail
cd "$(dirname "$0")/.."

pairs=${PAIRS:-20} runs=${RUNS:-5} requests=${REQUESTS:-4000}
check_only=0
[ "${1:-}" = "--check" ] && check_only=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bench() { # label variant [baseline]
  local args=(--label "$1" --runs "$runs" --results "$work" --bench "checkout=RegressionWorkload $2 $requests")
  [ -n "${3:-}" ] && args+=(--baseline "$3")
  bash scripts/ci-bench.sh "${args[@]}" >"$work/$1.log" 2>&1
}

verdict() { sed -n 's/.*"verdict":"\([a-z_]*\)".*/\1/p' "$work/$1/checkout/diff.json"; }
# the frames the diff calls slower (or faster), by name
named() { grep -o "{\"name\":\"[^\"]*\",\"status\":\"$2\"" "$work/$1/checkout/diff.json" | sed 's/{"name":"\([^"]*\)".*/\1/' | tr '\n' ' '; }

aa_false=0 aa_improvement=0 ab_hit=0 ac_hit=0 ac_false=0 errors=0
rows=()
for i in $(seq 1 "$pairs"); do
  bench "a$i" base || errors=$((errors + 1))
  bench "aa$i" base "a$i"; rc_aa=$?
  bench "ab$i" slower "a$i"; rc_ab=$?
  bench "ac$i" faster "a$i"; rc_ac=$?
  [ $rc_aa -le 1 ] && [ $rc_ab -le 1 ] && [ $rc_ac -le 1 ] || { errors=$((errors + 1)); continue; }
  v_aa=$(verdict "aa$i") v_ab=$(verdict "ab$i") v_ac=$(verdict "ac$i")
  [ "$v_aa" = regression ] && aa_false=$((aa_false + 1))
  [ "$v_aa" = improvement ] && aa_improvement=$((aa_improvement + 1))
  [ "$v_ab" = regression ] && named "ab$i" slower | grep -q 'RegressionWorkload.transform' && ab_hit=$((ab_hit + 1))
  [ "$v_ac" = improvement ] && named "ac$i" faster | grep -q 'RegressionWorkload.transform' && ac_hit=$((ac_hit + 1))
  [ "$v_ac" = regression ] && ac_false=$((ac_false + 1))
  rows+=("| $i | $v_aa $(named "aa$i" slower) | $v_ab: $(named "ab$i" slower) | $v_ac: $(named "ac$i" faster) |")
  echo "pair $i: A/A $v_aa, A/B $v_ab, A/C $v_ac"
done

summary="A/A false regressions: $aa_false of $pairs (false improvements: $aa_improvement); A/B slower detected naming transform: $ab_hit of $pairs; A/C faster reported as an improvement naming transform: $ac_hit of $pairs (as a regression: $ac_false); errors: $errors"
echo "$summary"
if [ $check_only -eq 1 ]; then
  [ $errors -eq 0 ] && [ $aa_false -eq 0 ] && [ $ab_hit -eq "$pairs" ] && [ $ac_hit -eq "$pairs" ]
  exit $?
fi

mkdir -p results
{
  echo "# Regression gate: measured false-positive and detection rates"
  echo
  echo "Measured by \`scripts/regression-evidence.sh\` on $(date -u +%Y-%m-%d), $(nproc) cores (a shared machine),"
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
} >results/regression-gate.md
cat results/regression-gate.md
