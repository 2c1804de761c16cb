#!/usr/bin/env bash
# Runs the unit tests (cmocka binaries in build/tests), every fuzz target
# (build/fuzz_*) over its seed corpus, the output-format checks with real
# readers (tests/tools: go tool pprof, speedscope's schema, headless
# Chromium) and the integration tests (real JVMs, java-test/harness),
# then prints one closing line:
#   N passed, N failed
# Usage: run-tests.sh [unit|fuzz|tools|integration|all] [integration test name filter]
set -uo pipefail
cd "$(dirname "$0")/.."

what=${1:-all}
filter=${2:-}
passed=0
failed=0
skipped=0

run_unit() {
  for t in build/tests/test_*; do
    [ -x "$t" ] || continue
    out=$("$t" 2>&1)
    status=$?
    ok=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
    bad=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
    ok=${ok:-0}
    bad=${bad:-0}
    if [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then
      bad=1   # crashed before cmocka could count
    fi
    passed=$((passed + ok))
    failed=$((failed + bad))
    if [ "$bad" -ne 0 ]; then
      printf '%s\n' "$out"
      echo "FAIL unit $(basename "$t"): $bad failed"
    else
      echo "PASS unit $(basename "$t"): $ok tests"
    fi
  done
}

# Each fuzz target once over every file of its seed corpus, tests/fuzz/corpus/NAME
# (the crashes found so far among them): one test each, failed by any crash,
# leak, sanitizer report, timeout or memory over the limit, or by a target
# whose corpus is missing.
run_fuzz() {
  for f in build/fuzz_*; do
    [ -x "$f" ] || continue
    name=${f#build/fuzz_}
    files=(tests/fuzz/corpus/"$name"/*)
    if [ ! -f "${files[0]}" ]; then
      echo "FAIL fuzz $name: no seed corpus in tests/fuzz/corpus/$name"
      failed=$((failed + 1))
      continue
    fi
    out=$("$f" -timeout=10 -rss_limit_mb=2048 "${files[@]}" 2>&1)
    status=$?
    if [ "$status" -ne 0 ]; then
      printf '%s\n' "$out" | tail -n 40
      echo "FAIL fuzz $name: exit $status over ${#files[@]} corpus files"
      failed=$((failed + 1))
    else
      echo "PASS fuzz $name: ${#files[@]} corpus files"
      passed=$((passed + 1))
    fi
  done
}

# Adds a suite's closing "N passed, N failed[, N skipped]" line from its output file.
add_counts() { # suite output-file
  local line p f s
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1)
  if [ -z "$line" ]; then
    echo "FAIL $1: the suite ended without a result line"
    failed=$((failed + 1))
    return
  fi
  read -r p _ f _ s _ <<<"$(echo "$line" | tr -d ',')"
  passed=$((passed + p))
  failed=$((failed + f))
  skipped=$((skipped + ${s:-0}))
}

run_integration() {
  java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n 1)}
  rm -rf build/it-runs
  out_file=$(mktemp)
  "$java_home/bin/java" -cp build/java-test IntegrationTests build/libfgagent.so build/java-test \
    build/it-runs $filter | tee "$out_file"
  add_counts integration "$out_file"
  rm -f "$out_file"
}

run_tools() {
  out_file=$(mktemp)
  bash tests/tools/run.sh | tee "$out_file"
  add_counts tools "$out_file"
  rm -f "$out_file"
}

# timed SUITE: runs run_SUITE and says how long it took (the suite's budget: docs/testing.md).
timed() {
  local t0=$SECONDS
  "run_$1"
  echo "$1: $((SECONDS - t0)) s"
}

case "$what" in
  unit) run_unit ;;
  fuzz) run_fuzz ;;
  tools) run_tools ;;
  integration) run_integration ;;
  all) timed unit; timed fuzz; timed tools; timed integration ;;
  *) echo "run-tests.sh: unknown suite '$what'; accepted: unit, fuzz, tools, integration, all" >&2; exit 2 ;;
esac

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
