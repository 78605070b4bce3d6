#!/usr/bin/env bash
# Two flysim builds on the scenarios of bench.sh, interleaved run by run (A, B, A, B...)
# so that a shared machine's drift hits both alike: median wall s per simulated s of
# each [fastest], the ratio A/B of the medians, CPU s per simulated s, peak memory, and
# whether both gave the same spikes (byte for byte). A measurement, not a test.
#   bench/bench_compare.sh OLD/flysim NEW/flysim [threads...]   (default threads: 1 2)
#   REPEAT=5 SCENARIOS="default dense" bench/bench_compare.sh ...
set -euo pipefail
old=${1:?usage: bench_compare.sh OLD/flysim NEW/flysim [threads...]}
new=${2:?usage: bench_compare.sh OLD/flysim NEW/flysim [threads...]}
shift 2
threads=("${@:-1}")
(($# == 0)) && threads=(1 2)
here=$(cd "$(dirname "$0")/.." && pwd)
data=${FLYSIM_DATA_DIR:-$here/data}
source "$here/bench/bench_lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
write_dense_ids "$data" "$work/dense_ids.txt"

echo "# flysim A=$old against B=$new, $(machine_line)"
"$new" run --run.duration-ms=1 --log.level=warn > /dev/null  # the network cached, outside the timings
printf "%-9s %-8s %20s %20s %8s %12s %12s %9s %9s %s\n" scenario threads "A wall_s/sim_s" "B wall_s/sim_s" "A/B" \
  "A cpu_s/sim_s" "B cpu_s/sim_s" "A MiB" "B MiB" spikes
for t in "${threads[@]}"; do
  for scenario in ${SCENARIOS:-default dense}; do
    args=(--engine.threads="$t" --log.level=warn)
    [[ $scenario == dense ]] && args+=(--stimulus.ids="$work/dense_ids.txt" --stimulus.rate=50)
    declare -A walls=() cpus=() mibs=()
    for ((r = 0; r < ${REPEAT:-3}; ++r)); do
      for side in A B; do
        binary=$old
        [[ $side == B ]] && binary=$new
        "$binary" run "${args[@]}" --output.summary="$(summary_file)" --output.spikes="$work/spikes_$side.csv" > /dev/null
        walls[$side]+=" $(summary_field wall_s_per_simulated_s '{:.4f}')"
        cpus[$side]+=" $(summary_field cpu_s_per_simulated_s '{:.4f}')"
        mibs[$side]+=" $(summary_field peak_memory_mib '{:.0f}')"
      done
    done
    stats() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {printf "%.4f [%.4f]", a[int((NR + 1) / 2)], a[1]}'; }
    a=$(stats <<< "${walls[A]}")
    b=$(stats <<< "${walls[B]}")
    same=$(cmp -s "$work/spikes_A.csv" "$work/spikes_B.csv" && echo identical || echo DIFFERENT)
    printf "%-9s %-8s %20s %20s %8s %12s %12s %9s %9s %s\n" "$scenario" "$t" "$a" "$b" \
      "$(awk -v x="${a%% *}" -v y="${b%% *}" 'BEGIN {printf "%.2f", x / y}')" \
      "$(median <<< "$(tr ' ' '\n' <<< "${cpus[A]}" | grep .)")" "$(median <<< "$(tr ' ' '\n' <<< "${cpus[B]}" | grep .)")" \
      "$(tr ' ' '\n' <<< "${mibs[A]}" | grep . | sort -g | tail -1)" "$(tr ' ' '\n' <<< "${mibs[B]}" | grep . | sort -g | tail -1)" "$same"
  done
done
