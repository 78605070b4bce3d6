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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The dense stimulus: every 10th root ID of the neuron list (13,864 neurons).
awk -F, 'NR > 1 && (NR - 2) % 10 == 0 { print $1 }' "$data/Completeness_783.csv" > "$work/dense_ids.txt"

echo "# flysim benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
# Load (and, the first time, generate and cache) the network once, outside the timings.
"$flysim" run --run.duration-ms=1 --log.level=warn > /dev/null
printf "%-9s %-6s %-8s %18s %14s %10s %8s %8s\n" scenario engine threads "wall_s/sim_s" "cpu_s/sim_s" "peak_MiB" spikes active
for engine in "${engines[@]}"; do
  for t in "${threads[@]}"; do
    for scenario in default dense; do
      args=(--engine.kind="$engine" --engine.threads="$t" --log.level=warn)
      [[ $scenario == dense ]] && args+=(--stimulus.ids="$work/dense_ids.txt" --stimulus.rate=50)
      walls=()
      for ((r = 0; r < ${REPEAT:-1}; ++r)); do
        out=$("$flysim" run "${args[@]}")
        walls+=("$(sed -n 's/.*s, \([0-9.]*\) wall s per simulated s.*/\1/p' <<< "$out")")
      done
      wall=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR] = $1} END {m = a[int((NR + 1) / 2)]; print (NR > 1 ? m " [" a[1] "]" : m)}')
      cpu=$(sed -n 's/.*s, \([0-9.]*\) cpu s per simulated s.*/\1/p' <<< "$out")
      mem=$(sed -n 's/.*memory *\([0-9]*\) MiB peak.*/\1/p' <<< "$out")
      read -r spikes active < <(sed -n 's/.*spikes *\([0-9]*\) from \([0-9]*\) active.*/\1 \2/p' <<< "$out")
      printf "%-9s %-6s %-8s %18s %14s %10s %8s %8s\n" "$scenario" "$engine" "$t" "$wall" "$cpu" "$mem" "$spikes" "$active"
    done
  done
done
