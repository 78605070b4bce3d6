#!/usr/bin/env bash
# flysim where most of the brain fires, against Brian2 and on the GPU. A measurement, not a
# test.
# 1. CPU: every 10th neuron of the FlyWire list (13,864) kicked at 50 Hz, timed kicks drawn
#    once so both get the same input: Brian2 2.5.1 C++ standalone (one thread) and flysim's
#    CPU pool (one thread, two) on the synthetic FlyWire-scale network, spikes compared
#    (bench/bench_brian2.sh with these kicks).
# 2. GPU, where the CUDA engine runs: the same neurons Poisson-driven at 50 Hz, one trial
#    and 30 in one batch, and part 1's kicks, each per simulated second.
#   bench/bench_dense.sh BUILD/flysim
#   REPEAT=5 BRIAN_REPEAT=3 bench/bench_dense.sh ...   (medians; defaults 3 and 1)
#   CPU=0 or GPU=0 leaves a part out; WORK=DIR keeps the network CSV and Brian2's build.
set -euo pipefail
flysim=${1:?usage: bench_dense.sh PATH/TO/flysim}
flysim=$(cd "$(dirname "$flysim")" && pwd)/$(basename "$flysim")
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench_lib.sh"
work=${WORK:-${HOME:-/tmp}/.cache/flysim/dense-bench}
mkdir -p "$work"
work=$(cd "$work" && pwd)
write_dense_ids "${FLYSIM_DATA_DIR:-$here/data}" "$work/dense_ids.txt"

echo "# flysim dense benchmark, $(machine_line)"
if [[ ${CPU:-1} != 0 ]]; then
  echo "## CPU: dense timed kicks (every 10th neuron at 50 Hz), Brian2 against flysim"
  KICK_IDS="$work/dense_ids.txt" STIMULUS_RATE=50 REPEAT=${REPEAT:-3} WORK="$work/brian2" \
    bash "$here/bench/bench_brian2.sh" "$flysim"
fi

if [[ ${GPU:-1} != 0 ]]; then
  if ! "$flysim" doctor --engine.kind=cuda > /dev/null 2>&1; then
    echo "## GPU: skipped (flysim doctor --engine.kind=cuda finds no usable CUDA device)"
    exit 0
  fi
  echo "## GPU: dense Poisson (every 10th neuron at 50 Hz) and dense kicks, CUDA engine"
  common=(--engine.kind=cuda --run.duration-ms=1000 --log.level=warn)
  printf "%-44s %14s %10s\n" "scenario" "wall_s/sim_s" "spikes"
  for trials in 1 30; do
    REPEAT=${REPEAT:-3} timed_runs "$flysim" "${common[@]}" --stimulus.ids="$work/dense_ids.txt" --stimulus.rate=50 \
      --run.trials="$trials" --run.batch="$trials"
    printf "%-44s %14s %10s\n" "dense Poisson, $trials trial(s) in one batch" "$wall" "$(summary_field spikes)"
  done
  kicks=$work/brian2/kicks.csv
  if [[ -s $kicks ]]; then
    REPEAT=${REPEAT:-3} timed_runs "$flysim" "${common[@]}" --stimulus.kicks="$kicks"
    printf "%-44s %14s %10s\n" "dense kicks (as the CPU part), 1 trial" "$wall" "$(summary_field spikes)"
  else
    echo "dense kicks: skipped (the CPU part writes them; run it once with CPU=1)"
  fi
fi
