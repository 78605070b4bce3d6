#!/usr/bin/env bash
# The long fuzz run: the test suite's deterministic mutation fuzzers (tests/fuzz) with many more
# cases and several seeds. Usage: bash bench/fuzz.sh [BUILD_DIR] [CASES_PER_PARSER] [SEEDS]
# (defaults: build, 50000, 3). A finding fails the run and keeps its input in /tmp
# (the failure message names the file).
set -euo pipefail
build=${1:-build}
cases=${2:-50000}
seeds=${3:-3}
tests="$build/tests/fuzz/flysim_fuzz_tests"
[[ -x $tests ]] || { echo "fuzz: $tests not found; build first (make build)" >&2; exit 2; }
for seed in $(seq 1 "$seeds"); do
  echo "fuzz: seed $seed, $cases cases per parser"
  start=$(date +%s)
  FLYSIM_FUZZ_ITERATIONS=$cases FLYSIM_FUZZ_SEED=$seed "$tests" --gtest_brief=1
  echo "fuzz: seed $seed passed in $(( $(date +%s) - start )) s"
done
