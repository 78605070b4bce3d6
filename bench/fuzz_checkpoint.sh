#!/usr/bin/env bash
# A long run of the checkpoint mutation fuzzer (tests/checkpoint_fuzz_test.cpp):
#   bench/fuzz_checkpoint.sh [ITERATIONS] [SEED]
# ITERATIONS random mutations per pass (default 1,000,000; the test suite runs 20,000),
# after the fixed ones; SEED picks other mutations (default: the suite's seed). Builds
# the tests without CUDA into ${BUILD:-build} if needed. Exit status 0: every mutated
# file was refused with one input_error line or read back as saved.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
if [[ ! -x $build/tests/flysim_tests ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j"$(nproc)" --target flysim_tests
fi
env FLYSIM_FUZZ_ITERATIONS="${1:-1000000}" ${2:+FLYSIM_FUZZ_SEED="$2"} \
  "$build/tests/flysim_tests" --gtest_filter='CheckpointFuzz.*'
