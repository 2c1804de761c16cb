#!/usr/bin/env bash
# The output formats, checked by the tools people read them with: go tool pprof,
# speedscope's own schema, a headless Chromium; and fgprof's errors. Ends with
# "N passed, N failed". Needs build/fgprof, build/libfgagent.so, build/java-test.
set -uo pipefail
cd "$(dirname "$0")/../.."

work=build/tools-tests
rm -rf "$work"
mkdir -p "$work"
export FG_NPM=$(pwd)/build/npm/node_modules
export PPROF_TMPDIR=$work
java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)}
passed=0
failed=0

check() { # name command...
  local name=$1 t0=$SECONDS
  shift
  if "$@" >"$work/$name.log" 2>&1; then
    echo "PASS tools $name ($((SECONDS - t0)) s)"
    passed=$((passed + 1))
  else
    echo "FAIL tools $name ($((SECONDS - t0)) s)"
    sed 's/^/    /' "$work/$name.log" | tail -n 25
    failed=$((failed + 1))
  fi
}

# The npm readers, pinned in tests/tools/package.json, installed once into build/npm.
if [ ! -d "$FG_NPM/playwright-core" ] || [ ! -d "$FG_NPM/speedscope" ] || [ ! -d "$FG_NPM/ajv" ]; then
  mkdir -p build/npm
  cp tests/tools/package.json build/npm/package.json
  (cd build/npm && npm install --no-package-lock --no-audit --no-fund --loglevel=error) >"$work/npm.log" 2>&1 ||
    { echo "FAIL tools npm_install"; tail -n 20 "$work/npm.log"; failed=$((failed + 1)); }
fi

# A fixture with known figures: 1310 samples, Main.hot in 800 of them.
cat >"$work/in.collapsed" <<'STACKS'
[main tid=1];Main.main;Main.work;Main.hot 600
[main tid=1];Main.main;Main.cold 300
[main tid=1];Main.main 100
[main tid=1];Main.main;</script><img src=x onerror=window.pwned=1>.x 10
[worker tid=2];Worker.run;Main.hot 200
[worker tid=2];[GC_active] 50
[GC Thread#0 tid=3];[GC Thread#0] 50
STACKS
sed 's/^\[[^]]*\];//' "$work/in.collapsed" >"$work/merged.collapsed"

pprof_top() {
  build/fgprof convert --interval 1ms "$work/in.collapsed" "$work/out.pb.gz" || return 1
  go tool pprof -sample_index=samples -top "$work/out.pb.gz" >"$work/top.txt" 2>&1 || { cat "$work/top.txt"; return 1; }
  cat "$work/top.txt"
  # flat and cum of Main.hot (a leaf: 800 both), cum of Main.main (1010)
  grep -Eq '^ +800 +[0-9.]+% +[0-9.]+% +800 +[0-9.]+% +Main\.hot$' "$work/top.txt" &&
    grep -Eq ' 1010 +[0-9.]+% +Main\.main$' "$work/top.txt" &&
    go tool pprof -top "$work/out.pb.gz" 2>/dev/null | grep -Eq '^ +0\.80s .*Main\.hot$' &&  # 800 x 1 ms
    # with no interval there is no time: pprof opens on the sample counts
    build/fgprof convert "$work/in.collapsed" "$work/counts.pb.gz" &&
    go tool pprof -top "$work/counts.pb.gz" 2>/dev/null | grep -Eq '^ +800 .*Main\.hot$'
}

pprof_traces() {
  build/fgprof convert --interval 1ms "$work/in.collapsed" "$work/out.pb.gz" || return 1
  go tool pprof -sample_index=samples -traces "$work/out.pb.gz" >"$work/traces.txt" 2>&1 || return 1
  cat "$work/traces.txt"
  # the 600-sample stack, leaf first, under its thread label
  awk '/thread: +main tid=1/ { t = 1 } t && /^ +600 +Main\.hot$/ { getline a; getline b;
       if (a ~ /^ +Main\.work$/ && b ~ /^ +Main\.main$/) found = 1 } /^-+\+/ { t = 0 } END { exit !found }' "$work/traces.txt"
}

speedscope_schema() {
  build/fgprof convert --interval 1ms "$work/in.collapsed" "$work/threads.speedscope.json" &&
    build/fgprof convert "$work/merged.collapsed" "$work/merged.speedscope.json" &&
    node tests/tools/validate-speedscope.mjs "$work/threads.speedscope.json" "$work/merged.speedscope.json" &&
    grep -q '"name":"main tid=1"' "$work/threads.speedscope.json"
}

flamegraph_in_browser() {
  build/fgprof convert --title 'fixture' "$work/in.collapsed" "$work/out.html" &&
    node tests/tools/flamegraph-browser.mjs "$work/out.html" interact
}

# fgprof's errors: exit 2, one clear line with file and line, nothing half-written.
cli_errors() {
  local out=$work/never.html rc
  printf 'a;b 1\nc;d 2\nno count here\n' >"$work/bad.collapsed"
  build/fgprof convert "$work/bad.collapsed" "$out" 2>"$work/err.txt"; rc=$?
  cat "$work/err.txt"
  [ $rc -eq 2 ] && grep -q "bad.collapsed:3: the sample count is not a whole number" "$work/err.txt" && [ ! -e "$out" ] &&
    [ -z "$(ls "$work" | grep 'never.html.tmp')" ] || return 1
  : >"$work/empty.collapsed"
  build/fgprof convert "$work/empty.collapsed" "$out" 2>"$work/err.txt"; rc=$?
  cat "$work/err.txt"
  [ $rc -eq 2 ] && grep -q "empty.collapsed: the file is empty" "$work/err.txt" || return 1
  build/fgprof convert "$work/in.collapsed" "$work/out.svg" 2>"$work/err.txt"; rc=$?
  cat "$work/err.txt"
  [ $rc -eq 2 ] && grep -q "unknown output extension; accepted: .collapsed" "$work/err.txt" || return 1
  build/fgprof convert --include '(' "$work/in.collapsed" "$out" 2>"$work/err.txt"; rc=$?
  [ $rc -eq 2 ] && grep -q "is not a valid POSIX extended regular expression" "$work/err.txt" || return 1
  build/fgprof convert "$work/missing.collapsed" "$out" 2>"$work/err.txt"; rc=$?
  [ $rc -eq 2 ] && grep -q "missing.collapsed: cannot open" "$work/err.txt" || return 1
  # totals a JSON reader cannot hold exactly, and times past 64 bits, are refused, not wrapped
  printf 'a;b 9007199254740000\nc;d 9007199254740000\n' >"$work/huge.collapsed"
  build/fgprof convert "$work/huge.collapsed" "$work/huge.speedscope.json" 2>"$work/err.txt"; rc=$?
  cat "$work/err.txt"
  [ $rc -eq 2 ] && grep -q "huge.collapsed:2: the sample counts add up past 2^53" "$work/err.txt" &&
    [ ! -e "$work/huge.speedscope.json" ] || return 1
  printf 'a;b 5000000000000\n' >"$work/long.collapsed"
  build/fgprof convert --interval 10s "$work/long.collapsed" "$work/long.speedscope.json" 2>"$work/err.txt"; rc=$?
  cat "$work/err.txt"
  [ $rc -eq 2 ] && grep -q "5000000000000 samples x --interval 10000000000 ns is past 2^63 ns" "$work/err.txt" &&
    [ ! -e "$work/long.speedscope.json" ] || return 1
  # a .jfr writes a CPU sample's count as that many events: a claim past its input's size is refused at once
  printf 'a;b 9007199254740000\n' >"$work/claim.collapsed"
  timeout 10 build/fgprof convert "$work/claim.collapsed" "$work/claim.jfr" 2>"$work/err.txt"; rc=$?
  cat "$work/err.txt"
  [ $rc -eq 2 ] && grep -q "claim.jfr: 9007199254740000 events .*past the 4194640 a .jfr from 21 bytes" "$work/err.txt" &&
    [ ! -e "$work/claim.jfr" ] || return 1
  printf 'a;b 4194000\n' >"$work/many.collapsed"
  build/fgprof convert "$work/many.collapsed" "$work/many.jfr" || return 1
  build/fgprof convert --interval 18446744073709551s "$work/in.collapsed" "$out" 2>"$work/err.txt"; rc=$?
  [ $rc -eq 2 ] && grep -q "at most 2^63 ns" "$work/err.txt" || return 1
  build/fgprof --help | grep -q "Usage: fgprof convert" || return 1
  # -h is help, except as an option's value: a flame graph titled "-h"
  build/fgprof convert --title x -h | grep -q "^fgprof convert \[OPTIONS\] IN OUT" || return 1
  build/fgprof convert --title -h "$work/in.collapsed" "$work/h.html" && grep -q "<title>-h" "$work/h.html"
}

cli_filters() {
  build/fgprof convert --include 'Main\.hot' --exclude '^Worker' --reverse "$work/in.collapsed" "$work/f.collapsed" &&
    cat "$work/f.collapsed" && [ "$(cat "$work/f.collapsed")" = "[main tid=1];Main.hot;Main.work;Main.main 600" ]
}

# The agent writes the three formats itself, from a real JVM.
agent_formats() {
  "$java_home/bin/java" "-agentpath:$(pwd)/build/libfgagent.so=interval=1ms,threads,file=$work/agent.html,file=$work/agent.pb.gz,file=$work/agent.speedscope.json" \
    -cp build/java-test HotMethods 1 || return 1
  go tool pprof -top "$work/agent.pb.gz" >"$work/agent-top.txt" 2>&1 || { cat "$work/agent-top.txt"; return 1; }
  grep -q 'HotMethods.alpha' "$work/agent-top.txt" || { echo "no HotMethods.alpha in:"; head -n 30 "$work/agent-top.txt"; return 1; }
  node tests/tools/validate-speedscope.mjs "$work/agent.speedscope.json" &&
    node tests/tools/flamegraph-browser.mjs "$work/agent.html" smoke HotMethods.alpha
}

# The JFR file read by the JDK's own jfr tool (both JDKs when Temurin 25 is there):
# every sample an event, the top frames' counts as in the fixture.
jfr_tool() {
  build/fgprof convert "$work/in.collapsed" "$work/out.jfr" || return 1
  printf '[t\303\251 tid=1];Deopt.main;\266\177;a\355\240\275\355\270\200 3\n' >"$work/jfr-utf8.collapsed"
  build/fgprof convert "$work/jfr-utf8.collapsed" "$work/bad-utf8.jfr" || return 1
  local jdk jfr
  for jdk in "$java_home" /usr/lib/jvm/temurin-25-jdk-amd64; do
    jfr=$jdk/bin/jfr
    [ -x "$jfr" ] || { echo "no $jfr: skipped"; continue; }
    "$jfr" summary "$work/out.jfr" >"$work/jfr-summary.txt" || return 1
    grep -Eq '^ jdk\.ExecutionSample +1310 ' "$work/jfr-summary.txt" || { cat "$work/jfr-summary.txt"; return 1; }
    # the leaf of each event (jfr print lists it first): Main.hot on 800, Main.cold on 300
    "$jfr" print --events jdk.ExecutionSample --stack-depth 1 "$work/out.jfr" >"$work/jfr-print.txt" || return 1
    local hot cold workers
    hot=$(grep -c '^    Main\.hot()$' "$work/jfr-print.txt")
    cold=$(grep -c '^    Main\.cold()$' "$work/jfr-print.txt")
    workers=$(grep -c 'sampledThread = "worker" (osThreadId = 2)' "$work/jfr-print.txt")
    echo "$jdk: Main.hot $hot, Main.cold $cold, worker $workers"
    [ "$hot" -eq 800 ] && [ "$cold" -eq 300 ] && [ "$workers" -eq 250 ] || return 1
    "$jfr" print "$work/bad-utf8.jfr" >/dev/null || return 1
  done
}

# Collapsed stacks with bytes that are not UTF-8 (a pointer's bytes, a cut
# character, the JVM's surrogate pairs): every output decodes as strict UTF-8.
convert_invalid_utf8() {
  printf '[t\303\251 tid=1];Deopt.main;\266\177;java/lang/Integer.parseInt 3\n[renamed-304-\303\251\344 tid=2];a\355\240\275\355\270\200 2\n' \
    >"$work/bad-utf8.collapsed"
  local ext
  for ext in html speedscope.json collapsed txt; do
    build/fgprof convert "$work/bad-utf8.collapsed" "$work/bad-utf8.$ext" || return 1
    node -e 'new TextDecoder("utf-8", {fatal: true}).decode(require("fs").readFileSync(process.argv[1]))' \
      "$work/bad-utf8.$ext" || { echo "$ext: not valid UTF-8"; return 1; }
  done
  grep -q $'a\360\237\230\200' "$work/bad-utf8.collapsed" || { echo "the surrogate pair was not joined"; return 1; }
}

# A class whose very name is an HTML injection, profiled by the agent: the name
# must reach the flame graph as text, never as markup.
agent_hostile_class_name() {
  "$java_home/bin/java" "-agentpath:$(pwd)/build/libfgagent.so=interval=1ms,file=$work/evil.html,file=$work/evil.heatmap.html,file=$work/evil.jfr" \
    -cp build/java-test EvilNames 1 | grep -q '^LOADED Evil<<' || return 1
  node tests/tools/flamegraph-browser.mjs "$work/evil.html" smoke 'Evil<</script><img src=x onerror=pwned=1>.spin' || return 1
  # the heatmap pages (the agent's, and fgprof's with a hostile title): names stay text there too
  node tests/tools/heatmap-browser.mjs "$work/evil.heatmap.html" smoke || return 1
  build/fgprof heatmap --title '</title><script>window.pwned=1</script><img src=x>' "$work/evil.jfr" "$work/evil2.heatmap.html" &&
    node tests/tools/heatmap-browser.mjs "$work/evil2.heatmap.html" smoke
}

# The heatmap of a recording with a known spike (Phases: anomaly() runs only between two marks of
# the workload's own clock): the page written by the agent and by fgprof heatmap both name anomaly()
# first when the spike's range is compared with a quiet one, and no frame grown for two quiet ranges
# of the steady thread (its thread filter);
# the JDK's own recording of the same run gives its GC pauses on the same timeline.
heatmap_anomaly() {
  "$java_home/bin/java" "-agentpath:$(pwd)/build/libfgagent.so=interval=1ms,file=$work/phases.jfr,file=$work/agent.heatmap.html" \
    -XX:StartFlightRecording=filename=$work/phases-jdk.jfr -cp build/java-test Phases >"$work/phases.out" 2>"$work/phases.err" ||
    { cat "$work/phases.err"; return 1; }
  cat "$work/phases.out"
  local spike quiet1 quiet2 page first rows
  spike=$(awk '$1 == "mark" && $2 == "spike" { printf "%.0f %.0f\n", $3 + 50, $4 - 50 }' "$work/phases.out")
  quiet1=$(awk '$1 == "mark" && $2 == "quiet1" { printf "%.0f %.0f\n", $3 + 50, $4 - 50 }' "$work/phases.out")
  quiet2=$(awk '$1 == "mark" && $2 == "quiet2" { printf "%.0f %.0f\n", $3 + 50, $4 - 50 }' "$work/phases.out")
  [ -n "$spike" ] && [ -n "$quiet1" ] && [ -n "$quiet2" ] || { echo "the workload printed no marks"; return 1; }
  build/fgprof heatmap "$work/phases.jfr" "$work/fgprof.heatmap.html" || return 1
  # the whole recording's flame graph on the page holds every sample the collapsed output does
  local want got
  build/fgprof convert --event cpu "$work/phases.jfr" "$work/phases.collapsed" || return 1
  want=$(awk '{ n += $NF } END { print n }' "$work/phases.collapsed")
  got=$(node tests/tools/heatmap-browser.mjs "$work/fgprof.heatmap.html" range 0 99999999999999 | sed -n 's/.*TOTAL //p')
  echo "whole range on the page: $got samples; collapsed: $want"
  [ "$got" = "$want" ] || return 1
  for page in "$work/agent.heatmap.html" "$work/fgprof.heatmap.html"; do
    node tests/tools/heatmap-browser.mjs "$page" smoke || return 1
    # shellcheck disable=SC2086
    node tests/tools/heatmap-browser.mjs "$page" diff $spike $quiet1 >"$work/hm-diff.txt" || return 1
    first=$(grep -m1 '^CHANGE' "$work/hm-diff.txt")
    echo "$page: spike against quiet1: $first"
    [[ $first =~ ^CHANGE\ (grew|new)\ [0-9.]+\ Phases\.anomaly$ ]] || { cat "$work/hm-diff.txt"; return 1; }
    # shellcheck disable=SC2086
    # the steady thread alone: the threads beside it (the JIT early on, GC) take more or less of a
    # range as the machine is loaded, a true change of the whole profile; steady() is all it runs
    node tests/tools/heatmap-browser.mjs "$page" diff $quiet2 $quiet1 steady >"$work/hm-quiet.txt" || return 1
    rows=$(grep -Ec '^CHANGE (grew|new) ' "$work/hm-quiet.txt")
    echo "$page: quiet2 against quiet1 on the steady thread: $rows frames grew"
    [ "$rows" = 0 ] || { cat "$work/hm-quiet.txt"; return 1; }
    # a thread filter and a search: their sums by squares and cell by cell are every matching
    # sample's (the page checks against its samples decoded one by one), the search's hits are
    # anomaly()'s samples in the collapsed output
    node tests/tools/heatmap-browser.mjs "$page" narrow steady "" >"$work/hm-narrow.txt" || { cat "$work/hm-narrow.txt"; return 1; }
    cat "$work/hm-narrow.txt"
    node tests/tools/heatmap-browser.mjs "$page" narrow "" 'Phases\.anomaly' >"$work/hm-narrow.txt" ||
      { cat "$work/hm-narrow.txt"; return 1; }
    cat "$work/hm-narrow.txt"
    want=$(awk '/Phases\.anomaly/ { n += $NF } END { print n + 0 }' "$work/phases.collapsed")
    [ "$page" != "$work/fgprof.heatmap.html" ] || grep -q " HITS $want " "$work/hm-narrow.txt" ||
      { echo "anomaly() in the collapsed output: $want samples"; return 1; }
  done
  # every event of a session on one page, each event's whole range as its collapsed total
  "$java_home/bin/java" "-agentpath:$(pwd)/build/libfgagent.so=event=cpu,interval=1ms,alloc=64k,lock=0,file=$work/multi.jfr,file=$work/multi.heatmap.html" \
    -cp build/java-test Locks 2 2 2 alloc >"$work/multi.out" 2>&1 || { tail "$work/multi.out"; return 1; }
  local event
  for event in cpu alloc lock; do
    build/fgprof convert --event "$event" "$work/multi.jfr" "$work/multi-$event.collapsed" || return 1
    want=$(awk '{ n += $NF } END { printf "%.0f", n }' "$work/multi-$event.collapsed")
    # samples stored without a time (a full ring's overflow slots) are in the flame graph, not on the map
    node tests/tools/heatmap-browser.mjs "$work/multi.heatmap.html" range 0 99999999999999 "$event" >"$work/multi-range.txt" || return 1
    got=$(sed -n 's/.* UNTIMED \([0-9]*\) TOTAL \([0-9]*\)/\1 + \2/p' "$work/multi-range.txt")
    echo "$event: whole range on the agent's page $got untimed + timed, collapsed $want"
    [ -n "$want" ] && [ "$want" != 0 ] && [ -n "$got" ] && [ $((got)) = "$want" ] || return 1
  done
  # a session with no timed sample: the page loads and says so
  "$java_home/bin/java" "-agentpath:$(pwd)/build/libfgagent.so=alloc,file=$work/empty.heatmap.html" -cp build/java-test Hello \
    >"$work/empty.out" 2>&1 || { tail "$work/empty.out"; return 1; }
  node tests/tools/heatmap-browser.mjs "$work/empty.heatmap.html" empty || return 1
  build/fgprof heatmap "$work/phases-jdk.jfr" "$work/jdk.heatmap.html" || return 1
  node tests/tools/heatmap-browser.mjs "$work/jdk.heatmap.html" smoke >"$work/hm-jdk.txt" || return 1
  cat "$work/hm-jdk.txt"
  grep -Eq 'MARKS [1-9]' "$work/hm-jdk.txt" || { echo "no GC pause of the JDK's recording on the page"; return 1; }
}

# fgprof diff on made-up runs: exit 0 same, 1 slower, 2 bad input; JSON; the differential page.
diff_cli() {
  local i rc
  for i in 1 2 3; do
    printf 'main;hot %d\nmain;cold %d\nmain;other %d\n' $((300 + i)) $((300 - i)) 400 >"$work/base-$i.collapsed"
    printf 'main;hot %d\nmain;cold %d\nmain;other %d\n' $((301 - i)) $((299 + i)) 400 >"$work/same-$i.collapsed"
    printf 'main;hot %d\nmain;cold %d\nmain;other %d\n' $((360 + 2 * i)) $((300 - i)) 400 >"$work/slow-$i.collapsed"
  done
  build/fgprof diff --base "$work"/base-*.collapsed --new "$work"/same-*.collapsed; rc=$?
  [ $rc -eq 0 ] || { echo "same runs: exit $rc, not 0"; return 1; }
  build/fgprof diff --json --base "$work"/base-*.collapsed --new "$work"/slow-*.collapsed >"$work/diff.json"; rc=$?
  cat "$work/diff.json"
  [ $rc -eq 1 ] && grep -q '"verdict":"regression"' "$work/diff.json" &&
    grep -q '{"name":"hot","status":"slower"' "$work/diff.json" || { echo "slower runs: exit $rc"; return 1; }
  build/fgprof diff --html "$work/diff.html" --base "$work"/base-*.collapsed --new "$work"/slow-*.collapsed >/dev/null
  [ $? -eq 1 ] && node tests/tools/flamegraph-browser.mjs "$work/diff.html" diff hot || return 1
  printf 'a;b 1\nc;d 2\nno count here\n' >"$work/diff-bad.collapsed"
  : >"$work/diff-empty.collapsed"
  build/fgprof diff "$work/base-1.collapsed" "$work/diff-bad.collapsed" 2>"$work/err.txt"; rc=$?
  cat "$work/err.txt"
  [ $rc -eq 2 ] && grep -q "diff-bad.collapsed:3:" "$work/err.txt" || return 1
  build/fgprof diff "$work/diff-empty.collapsed" "$work/base-1.collapsed" 2>"$work/err.txt"; rc=$?
  [ $rc -eq 2 ] && grep -q "the file is empty" "$work/err.txt" || return 1
  build/fgprof diff --threshold lots "$work/base-1.collapsed" "$work/base-2.collapsed" 2>"$work/err.txt"; rc=$?
  [ $rc -eq 2 ] && grep -q "threshold takes a percentage" "$work/err.txt"
}

# The collapsed reader and every writer under libFuzzer, ASan and UBSan, for a
# fixed number of inputs from the seed corpus (new inputs go to a scratch dir).
fuzz_collapsed_reader() {
  make -s build/fuzz_collapsed_reader || return 1
  mkdir -p "$work/fuzz-corpus"
  build/fuzz_collapsed_reader -runs=50000 -max_len=4096 -seed=1 "$work/fuzz-corpus" tests/fuzz/corpus/collapsed_reader 2>&1 | tail -n 3
  return "${PIPESTATUS[0]}"
}

# The context-switch decoder under libFuzzer, ASan and UBSan, 1 000 000 inputs.
fuzz_switch_decoder() {
  make -s build/fuzz_switch_decoder || return 1
  mkdir -p "$work/fuzz-switch-corpus"
  build/fuzz_switch_decoder -runs=1000000 -max_len=2048 -seed=1 "$work/fuzz-switch-corpus" tests/fuzz/corpus/switch_decoder 2>&1 | tail -n 3
  return "${PIPESTATUS[0]}"
}

# gcc -fanalyzer finds nothing that scripts/analyzer-triage.txt does not explain.
analyzer_clean() {
  bash scripts/analyze.sh | tail -n 20
  return "${PIPESTATUS[0]}"
}

# The docs' pictures (docs/img; `make screenshots` writes them there) taken again from real runs
# into the suite's folder: each page loads without a console error, the heatmap's spike range
# holds samples, and no picture is a blank page.
docs_screenshots() {
  bash tests/tools/screenshots.sh "$work/img" || return 1
  for f in flamegraph wall alloc lock diff heatmap; do
    size=$(stat -c %s "$work/img/$f.png")
    [ "$size" -gt 8000 ] || { echo "$f.png is $size bytes: a blank page?"; return 1; }
  done
}

# README.md's commands run as written (scripts/readme-commands.sh), and its shape.
# The figures of README.md and docs/ agree with results/ (scripts/check-figures.sh).

# The whole gate once, with real JVMs: A/A quiet, +20% named, -20% an improvement.
regression_gate() {
  PAIRS=1 RUNS=5 bash scripts/regression-evidence.sh --check
}

check heatmap_anomaly heatmap_anomaly
check pprof_top pprof_top
check pprof_traces pprof_traces
check speedscope_schema speedscope_schema
check flamegraph_in_browser flamegraph_in_browser
check cli_errors cli_errors
check cli_filters cli_filters
check convert_invalid_utf8 convert_invalid_utf8
check agent_formats agent_formats
check jfr_tool jfr_tool
check agent_hostile_class_name agent_hostile_class_name
check diff_cli diff_cli
check fuzz_collapsed_reader fuzz_collapsed_reader
check fuzz_switch_decoder fuzz_switch_decoder
check analyzer_clean analyzer_clean
check regression_gate regression_gate
check readme_commands bash scripts/readme-commands.sh
check docs_screenshots docs_screenshots
# Every figure in README.md and docs/ is in the results file its marker links to.
check figures_self_test bash scripts/check-figures.sh --self-test
check figures bash scripts/check-figures.sh
# Each results file's header names its host, date, commit and the peers run in the same rounds.
check results_headers bash scripts/check-figures.sh --results
# Links between the pages reach a page and a section that exist (glossary terms too).
check links_self_test bash scripts/check-links.sh --self-test
check links bash scripts/check-links.sh
# README.md and docs/ hold no date and no commit hash: history is git's and results/'s.
check no_history_self_test bash scripts/check-no-history.sh --self-test
check no_history bash scripts/check-no-history.sh
# fgprof's options: each command's parser, its --help and its section of docs/fgprof.1 agree.
check man_page_self_test bash scripts/check-man-page.sh --self-test
check man_page bash scripts/check-man-page.sh
# The user's pages together are no longer than async-profiler's user docs.
check page_budget_self_test bash scripts/check-page-budget.sh --self-test
check page_budget bash scripts/check-page-budget.sh
# async-profiler's converter, where one is given (FG_AP_CONVERTER=.../jfr-converter.jar): each event's total the same
if [ -n "${FG_AP_CONVERTER:-}" ]; then
  check ap_converter_totals bash tests/tools/ap-converter-totals.sh
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
