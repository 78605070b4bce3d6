#!/usr/bin/env bash
# flysim plasticity benchmark: the dense scenario (every 10th neuron Poisson-
# driven at 50 Hz) with every excitatory connection plastic, wall seconds per simulated
# second for each shard count, beside the same run without plasticity. A measurement,
# not a test.
#   bench/bench_plasticity.sh BUILD/flysim [shards...]   (default shards: 1 2 4)
#   ENGINES="cpu cuda" ...     engines to measure (default cpu)
#   THREADS=2 ...              engine.threads of the CPU engine (default: all cores)
#   DURATION_MS=1000 ...       simulated time per run
#   REPEAT=3 ...               each figure the median of 3 runs, the fastest in brackets
set -euo pipefail
flysim=${1:?usage: bench_plasticity.sh PATH/TO/flysim [shards...]}
shift
shards=("${@:-1}")
(($# == 0)) && shards=(1 2 4)
engines=(${ENGINES:-cpu})
threads=${THREADS:-$(nproc)}
duration=${DURATION_MS:-1000}
here=$(cd "$(dirname "$0")/.." && pwd)
data=${FLYSIM_DATA_DIR:-$here/data}
source "$here/bench/bench_lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
write_dense_ids "$data" "$work/dense_ids.txt"

echo "# flysim plasticity benchmark, $(machine_line)"
echo "# dense scenario, ${duration} ms simulated, every excitatory connection plastic, engine.threads=$threads"
"$flysim" run --run.duration-ms=1 --log.level=warn > /dev/null
printf "%-6s %-7s %18s %12s %10s %9s %16s\n" engine shards "wall_s/sim_s" "cpu_s/sim_s" "peak_MiB" spikes "weight_changes"
for engine in "${engines[@]}"; do
  for s in off "${shards[@]}"; do
    args=(--engine.kind="$engine" --engine.threads="$threads" --run.duration-ms="$duration" --log.level=warn
          --stimulus.ids="$work/dense_ids.txt" --stimulus.rate=50)
    [[ $s != off ]] && args+=(--plasticity.enabled=true --plasticity.shards="$s")
    timed_runs "$flysim" "${args[@]}"
    cpu=$(cpu_per_sim)
    mem=$(peak_mib)
    spikes=$(summary_field spikes)
    changes=-
    [[ $s != off ]] && changes=$(summary_field plasticity.weight_changes)
    printf "%-6s %-7s %18s %12s %10s %9s %16s\n" "$engine" "$s" "$wall" "$cpu" "$mem" "$spikes" "$changes"
  done
done
