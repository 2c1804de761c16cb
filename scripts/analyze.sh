#!/usr/bin/env bash
# gcc -fanalyzer over every C source; fails on any warning that
# scripts/analyzer-triage.txt does not list with its reason. Prints
#   N passed, N failed
# where a "test" is one source file.
set -uo pipefail
cd "$(dirname "$0")/.."
java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n 1)}
triage=scripts/analyzer-triage.txt
make -s build/gen/flamegraph_template.c >/dev/null
found=$(mktemp)
trap 'rm -f "$found"' EXIT
passed=0 failed=0
for f in agent/*.c agent/*/*.c agent/*/*/*.c cli/collapsed_reader.c cli/jfr_reader.c cli/profile_input.c cli/profile_filter.c cli/compare/*.c build/gen/flamegraph_template.c; do
  out=$(gcc -std=c11 -D_GNU_SOURCE -O2 -fanalyzer -Iinclude -Iagent \
        -I"$java_home/include" -I"$java_home/include/linux" -c "$f" -o /dev/null 2>&1)
  # "FILE:LINE:COL: warning: MESSAGE" -> "FILE | MESSAGE"
  new=$(printf '%s\n' "$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning: \(.*\)$/\1 | \2/p')
  bad=""
  while IFS= read -r w; do
    [ -n "$w" ] || continue
    listed=$(grep -cF -- "$w |" "$triage")
    seen=$(grep -cxF -- "$w" "$found")
    printf '%s\n' "$w" >>"$found"
    if [ "$seen" -ge "$listed" ]; then
      bad="$bad$w"$'\n'
    fi
  done <<<"$new"
  if [ -n "$bad" ]; then
    printf '%s\n' "$out" | grep -A12 'warning:'
    printf 'FAIL analyze %s: warnings not in %s:\n%s' "$f" "$triage" "$bad"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
