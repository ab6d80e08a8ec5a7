#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs every test: core (Catch2), render (xvfb), CLI,
# the same core suite under AddressSanitizer + UndefinedBehaviorSanitizer, every libFuzzer entry for
# SHARDSCOPE_FUZZ_SECONDS (30 by default) each, and one smoke run of each benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/install-deps.sh

echo "== build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"

echo "== tests"
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== sanitizers (ASan + UBSan): core and its tests"
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DSHARDSCOPE_SANITIZE=ON -DSHARDSCOPE_GUI=OFF -DSHARDSCOPE_BENCH=OFF >/dev/null
cmake --build build-sanitize -j"$jobs" --target shardscope_tests shardscope_fuzz_tests
# The random-scenario fuzz runs its first 1,000 cases here (all 3,000 above): one of the later ones, an operator recipe
# of 100,000 layers, takes 100 s to replay unsanitized and over 25 min under ASan.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 SHARDSCOPE_FUZZ_CASES=1000 \
  ctest --test-dir build-sanitize --output-on-failure -j"$jobs"

echo "== fuzzing (libFuzzer, clang): each entry from its seeds for ${SHARDSCOPE_FUZZ_SECONDS:-30} s"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARDSCOPE_LIBFUZZER=ON -DSHARDSCOPE_GUI=OFF \
  -DSHARDSCOPE_BENCH=OFF >/dev/null
cmake --build build-fuzz -j"$jobs" --target fuzz_entries
fuzz/run.sh build-fuzz "${SHARDSCOPE_FUZZ_SECONDS:-30}"

if [ -x build/shardscope_bench ]; then
  echo "== benchmarks: one smoke run each (targets are in docs/performance.md, not asserted here)"
  xvfb-run -a -s "-screen 0 1920x1080x24 -noreset" build/shardscope_bench --benchmark_min_time=0 --benchmark_repetitions=1 >/dev/null
  echo "benchmarks ran"
fi
