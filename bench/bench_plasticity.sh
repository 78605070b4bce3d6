#!/usr/bin/env bash
# flysim plasticity benchmark (issue 5): the dense scenario (every 10th neuron Poisson-
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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk -F, 'NR > 1 && (NR - 2) % 10 == 0 { print $1 }' "$data/Completeness_783.csv" > "$work/dense_ids.txt"

echo "# flysim plasticity benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# dense scenario, ${duration} ms simulated, every excitatory connection plastic, engine.threads=$threads"
"$flysim" run --run.duration-ms=1 --log.level=warn > /dev/null
printf "%-6s %-7s %18s %12s %10s %9s %16s\n" engine shards "wall_s/sim_s" "cpu_s/sim_s" "peak_MiB" spikes "weight_changes"
for engine in "${engines[@]}"; do
  for s in off "${shards[@]}"; do
    args=(--engine.kind="$engine" --engine.threads="$threads" --run.duration-ms="$duration" --log.level=warn
          --stimulus.ids="$work/dense_ids.txt" --stimulus.rate=50)
    [[ $s != off ]] && args+=(--plasticity.enabled=true --plasticity.shards="$s")
    walls=()
    for ((r = 0; r < ${REPEAT:-1}; ++r)); do
      out=$("$flysim" run "${args[@]}")
      walls+=("$(sed -n 's/.*s, \([0-9.]*\) wall s per simulated s.*/\1/p' <<< "$out")")
    done
    wall=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR] = $1} END {m = a[int((NR + 1) / 2)]; print (NR > 1 ? m " [" a[1] "]" : m)}')
    cpu=$(sed -n 's/.*s, \([0-9.]*\) cpu s per simulated s.*/\1/p' <<< "$out")
    mem=$(sed -n 's/.*memory *\([0-9]*\) MiB peak.*/\1/p' <<< "$out")
    spikes=$(sed -n 's/.*spikes *\([0-9]*\) from.*/\1/p' <<< "$out")
    changes=$(sed -n 's/.*shard(s), \([0-9]*\) weight changes.*/\1/p' <<< "$out")
    printf "%-6s %-7s %18s %12s %10s %9s %16s\n" "$engine" "$s" "$wall" "$cpu" "$mem" "$spikes" "${changes:--}"
  done
done
