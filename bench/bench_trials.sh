#!/usr/bin/env bash
# Batched trials: aggregate simulated seconds per wall second of the canonical
# experiment (21 sugar GRNs at 150 Hz, 1 s per trial) for 1, 8, 30 and 100 trials, in
# batches (run.batch=auto) and one trial after another (run.batch=1); then the wall time
# of a dose-response sweep. A measurement, not a test; each figure is the median of
# REPEAT runs, the fastest in brackets.
#   bench/bench_trials.sh BUILD/flysim
#   ENGINE=cuda bench/bench_trials.sh BUILD/flysim        (on the GPU machine)
#   TRIALS="1 8 30" REPEAT=3 THREADS=2 SWEEP_RATES=10:200:10 SWEEP_TRIALS=30 bench/bench_trials.sh ...
set -euo pipefail
flysim=${1:?usage: bench_trials.sh PATH/TO/flysim}
engine=${ENGINE:-cpu}
threads=${THREADS:-$(nproc)}
trials=(${TRIALS:-1 8 30 100})
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench_lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# flysim batched trials, $(machine_line), engine $engine, $threads threads, REPEAT=${REPEAT:-1}"
# Load (and, the first time, generate and cache) the network once, outside the timings.
"$flysim" run --run.duration-ms=1 --log.level=warn > /dev/null
common=(--engine.kind="$engine" --engine.threads="$threads" --log.level=warn)
printf "%-7s %-7s %22s %22s %8s\n" trials batch "sim_s/wall_s batched" "sim_s/wall_s 1-by-1" speedup
for n in "${trials[@]}"; do
  timed_runs "$flysim" "${common[@]}" --run.trials="$n" --run.batch=auto
  batched=$wall
  batch=$(summary_field engine | sed -n 's/.*batches of \([0-9]*\) trials.*/\1/p')
  timed_runs "$flysim" "${common[@]}" --run.trials="$n" --run.batch=1
  alone=$wall
  # wall s per simulated s -> simulated s per wall s (the median and the fastest alike)
  invert() { awk '{ for (i = 1; i <= NF; ++i) { gsub(/[\[\]]/, "", $i); printf (i > 1 ? " [%.2f]" : "%.2f"), 1 / $i } }' <<< "$1"; }
  printf "%-7s %-7s %22s %22s %7.2fx\n" "$n" "${batch:-1}" "$(invert "$batched")" "$(invert "$alone")" \
    "$(awk -v a="${alone%% *}" -v b="${batched%% *}" 'BEGIN { print a / b }')"
done

# A single run as a process, end to end (start, the network from the cache, one trial,
# the summary): what N single runs cost N times over.
walls=()
for ((r = 0; r < ${REPEAT:-1}; ++r)); do
  start=$(date +%s.%N)
  "$flysim" run "${common[@]}" > /dev/null
  walls+=("$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')")
done
echo "one flysim run process of 1 trial, end to end: $(printf '%s\n' "${walls[@]}" | median) s wall (median of ${#walls[@]})"

rates=${SWEEP_RATES:-10:200:10}
sweep_trials=${SWEEP_TRIALS:-30}
walls=()
for ((r = 0; r < ${REPEAT:-1}; ++r)); do
  out=$("$flysim" sweep "${common[@]}" --sweep.rates="$rates" --run.trials="$sweep_trials" --sweep.plot=false \
        --output.dir="$work/sweep")
  walls+=("$(sed -n 's/.* in \([0-9.]*\) s wall.*/\1/p' <<< "$out")")
done
echo "sweep --sweep.rates=$rates --run.trials=$sweep_trials: $(printf '%s\n' "${walls[@]}" | median) s wall (median of ${#walls[@]})"
echo "$out"
