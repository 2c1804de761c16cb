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

# bench_ran SCRIPT ROUNDS: a results file's first words, "`scripts/SCRIPT ROUNDS` on DATE,
# N cores (CPU model),"
bench_ran() {
  echo "\`scripts/$1 $2\` on $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
}

# bench_provenance PEERS: the line every results file has under its title, naming
# the host (cores, CPU model, kernel), the commit measured (with "+ changes" when
# the tree differs from it) and the peers run in the same rounds ("none").
bench_provenance() {
  local commit
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  # results/ is left out: the file being written is one of them
  git diff --quiet HEAD -- . ':(exclude)results' 2>/dev/null || commit="$commit + changes"
  echo "Host: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), kernel $(uname -r)." \
    "Commit: $commit. Peers in the same rounds: $1."
}
