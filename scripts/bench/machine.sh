# What the benchmark scripts share about the machine they run on; source it.

# bench_jdks NAME: the array jdks becomes "jdk17=HOME" and, when one is installed,
# "temurin25=HOME"; without it NAME says the run is JDK 17 only.
bench_jdks() {
  jdks=("jdk17=$(ls -d /usr/lib/jvm/java-17-openjdk-* | head -n 1)")
  local t25
  t25=$(ls -d /usr/lib/jvm/temurin-25* 2>/dev/null | head -n 1)
  if [ -n "$t25" ]; then
    jdks+=("temurin25=$t25")
  else
    echo "$1: no Temurin 25 JDK; JDK 17 only"
  fi
}

# The load average when the script began (it sources this file among its first steps), for
# bench_provenance to set beside the load at the end.
bench_load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# bench_ran SCRIPT ARGS: "`scripts/SCRIPT ARGS`", the command a results file says wrote it
# (the host, date and commit are bench_provenance's).
bench_ran() {
  echo "\`scripts/$1${2:+ $2}\`"
}

# bench_asprof FILE: the peer a run beside async-profiler names, "async-profiler VERSION (FILE)",
# the version read from the library (for its converter's jar, from the library built beside it,
# ../lib/ of the jar's folder); "none" when FILE is empty or not a file, as when it was not run.
bench_asprof() {
  local lib=${1:-} version
  [ -n "$lib" ] && [ -f "$lib" ] || { echo none; return; }
  case $lib in *.jar) lib=$(dirname "$lib")/../lib/libasyncProfiler.so ;; esac
  version=$(grep -aoE -m1 'async-profiler [0-9]+\.[0-9]+[-.0-9a-z]*' "$lib" 2>/dev/null | head -n 1 | cut -d' ' -f2)
  echo "async-profiler ${version:-of unknown version} ($1)"
}

# bench_rate SUMMARY...: the rate each fgagent summary says it achieved, one a line ("rate achieved:
# N signals per CPU-second" under clock=auto, "samples" under a single clock); nothing for a summary
# without that line, so a caller can tell a missing rate from a low one.
bench_rate() {
  sed -n 's/.*rate achieved: *\([0-9.]*\) \(signals\|samples\) per CPU-second.*/\1/p' "$@"
}

# bench_load_end: the line a script that writes its header before its runs adds after them.
bench_load_end() {
  echo "Load average (1, 5, 15 min) when the runs ended: $(cut -d' ' -f1-3 /proc/loadavg)."
}

# bench_provenance PEERS: the paragraph every results file has under its title, naming the
# host (cores, CPU model, kernel), the date and time, the load average when the script began
# and now, the commit measured (with "+ changes" when the tree differs from it) and the peers
# run in the same rounds (bench_asprof's answer, or "none" when fgagent ran alone).
bench_provenance() {
  local commit
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  # results/ is left out: the file being written is one of them
  git diff --quiet HEAD -- . ':(exclude)results' 2>/dev/null || commit="$commit + changes"
  echo "Host: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), kernel $(uname -r)."
  echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); load average (1, 5, 15 min) $bench_load_before when the script" \
    "began, $(cut -d' ' -f1-3 /proc/loadavg) when this header was written."
  echo "Commit: $commit. Peers in the same rounds: $1."
}
