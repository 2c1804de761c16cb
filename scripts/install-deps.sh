#!/usr/bin/env bash
# Installs the Debian packages fgagent needs to build and test, and nothing else.
# Idempotent: packages already present are left alone and apt is not touched.
set -euo pipefail

# golang-go: `go tool pprof` validates the pprof output; chromium: the flame graph is
# tested in a real headless browser; nodejs: speedscope's schema check; clang and its
# runtime: the readers' libFuzzer targets; protobuf-compiler: protoc --decode_raw checks the .otlp output;
# libc6-dbg: libc's internal functions (start_thread, ...) named from its debug file.
# libjemalloc2, libtcmalloc-minimal4: nativemem is tested under another allocator (LD_PRELOAD).
# zlib1g-dev: zlib's header for the heatmap's deflate (the library itself is loaded at run time).
packages=(gcc libc6-dev make openjdk-17-jdk-headless libcmocka-dev golang-go chromium nodejs clang libclang-rt-14-dev protobuf-compiler
          libc6-dbg libjemalloc2 libtcmalloc-minimal4 zlib1g-dev)
# `install-deps.sh bench` adds what only the benchmarks need: the JDK's own sources,
# which the javac benchmark compiles, H2, which the walker benchmark runs, and the
# tools the benchmark scripts call.
if [ "${1:-}" = bench ]; then
  packages+=(openjdk-17-source libh2-java unzip time bc)
fi

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$pkg")
done

# Debian's nodejs comes without npm; other builds of nodejs bring their own and
# conflict with Debian's npm package, so ask for it only when there is none.
if ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing Debian packages: ${missing[*]}; run as root or install them with apt-get" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
