#!/usr/bin/env bash
# flysim benchmark: wall seconds per simulated second and peak memory of the default
# experiment (21 sugar GRNs at 150 Hz) and of a dense one (every 10th neuron Poisson-
# driven at 50 Hz), 1 s simulated, at each thread count. A measurement, not a test.
#   bench/bench.sh BUILD/flysim [threads...]      (default threads: 1 2)
#   ENGINES="cpu cuda" bench/bench.sh ...          (cuda: where a GPU is there)
#   REPEAT=5 bench/bench.sh ...                    (each figure the median of 5 runs, and
#                                                   the fastest in brackets: shared machines are noisy)
set -euo pipefail
flysim=${1:?usage: bench.sh PATH/TO/flysim [threads...]}
shift
threads=("${@:-1}")
(($# == 0)) && threads=(1 2)
engines=(${ENGINES:-cpu})
here=$(cd "$(dirname "$0")/.." && pwd)
data=${FLYSIM_DATA_DIR:-$here/data}
source "$here/bench/bench_lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
write_dense_ids "$data" "$work/dense_ids.txt"

echo "# flysim benchmark, $(machine_line)"
# The synthetic FlyWire-scale network generated anew (no cache) and run for 1 ms: its
# time limit (30 s, generation and loading) is checked here, not in the tests.
start=$(date +%s.%N)
"$flysim" run --run.duration-ms=1 --network.cache=false --log.level=warn > /dev/null
awk -v s="$start" -v e="$(date +%s.%N)" -v limit=30 \
  'BEGIN {printf "# synthetic network generated and run for 1 ms in %.1f s (limit %d s)%s\n", e - s, limit, (e - s > limit ? ": OVER THE LIMIT" : "")}'
# Load (and, the first time, generate and cache) the network once, outside the timings.
"$flysim" run --run.duration-ms=1 --log.level=warn > /dev/null
printf "%-9s %-6s %-8s %18s %14s %10s %8s %8s\n" scenario engine threads "wall_s/sim_s" "cpu_s/sim_s" "peak_MiB" spikes active
for engine in "${engines[@]}"; do
  for t in "${threads[@]}"; do
    for scenario in default dense; do
      args=(--engine.kind="$engine" --engine.threads="$t" --log.level=warn)
      [[ $scenario == dense ]] && args+=(--stimulus.ids="$work/dense_ids.txt" --stimulus.rate=50)
      timed_runs "$flysim" "${args[@]}"
      cpu=$(cpu_per_sim)
      mem=$(peak_mib)
      spikes=$(summary_field spikes)
      active=$(summary_field active_neurons)
      printf "%-9s %-6s %-8s %18s %14s %10s %8s %8s\n" "$scenario" "$engine" "$t" "$wall" "$cpu" "$mem" "$spikes" "$active"
    done
  done
done
