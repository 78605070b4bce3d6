#!/usr/bin/env bash
# flysim against the reference simulator, side by side on one network and one input:
# Brian2 2.5.1 C++ standalone (Debian's python3-brian, one thread) and flysim's CPU
# engine (one thread, and two) on the synthetic FlyWire-scale network, written out as
# FlyWire CSV, driven by timed kicks to the 21 sugar GRNs, or to the root IDs of KICK_IDS
# (a Poisson draw at STIMULUS_RATE Hz made once, here, so both get exactly the same input). Prints each
# one's loop time per simulated second, the ratio, and how many spikes are identical
# (same neuron, same step). A measurement, not a test.
#   bench/bench_brian2.sh BUILD/flysim
#   REPEAT=5 BRIAN_REPEAT=3 bench/bench_brian2.sh ...   (medians; default REPEAT=3, BRIAN_REPEAT=1)
#   KICK_IDS=FILE                                        (root IDs to kick; default the sugar GRNs)
#   DURATION_MS=1000 STIMULUS_RATE=150 WORK=DIR          (WORK keeps the 15-million-row CSV
#                                                         and Brian2's build between runs)
#   SILENCE=IDS SILENCE_MODE=outgoing|both               (both silence these root IDs: the
#                                                         reference's syn.w[i == n] = 0, or
#                                                         incoming synapses too)
set -euo pipefail
flysim=${1:?usage: bench_brian2.sh PATH/TO/flysim}
flysim=$(cd "$(dirname "$flysim")" && pwd)/$(basename "$flysim")
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench_lib.sh"
duration_ms=${DURATION_MS:-1000}
rate=${STIMULUS_RATE:-150}
kick_ids=${KICK_IDS:-$here/data/sugar_grn_783.txt}
python=/usr/bin/python3  # Debian's, where python3-brian installs brian2
work=${WORK:-${HOME:-/tmp}/.cache/flysim/brian2-bench}
mkdir -p "$work"
work=$(cd "$work" && pwd)
silence_mode=${SILENCE_MODE:-outgoing}
flysim_silence=() brian_silence=()
if [[ -n ${SILENCE:-} ]]; then
  silence=$(cd "$(dirname "$SILENCE")" && pwd)/$(basename "$SILENCE")
  flysim_silence=(--stimulus.silence="$silence" --stimulus.silence-mode="$silence_mode")
  brian_silence=(--silence="$silence" --silence-mode="$silence_mode")
fi
"$python" -c 'import brian2' 2> /dev/null || { echo "bench_brian2: Brian2 is missing (apt-get install python3-brian)" >&2; exit 1; }

echo "# flysim vs Brian2 C++ standalone, $(machine_line)"
# The network as FlyWire CSV, written once (flysim generate: the synthetic network).
if [[ ! -s $work/connectivity.csv ]]; then
  echo "# writing the synthetic FlyWire-scale network as CSV into $work (once)"
  "$flysim" generate --output.neurons="$work/neurons.csv" --output.connectivity="$work/connectivity.csv" --log.level=warn > /dev/null
fi
# The input: each neuron of KICK_IDS kicked at each step with probability rate*dt (seed 1).
"$python" - "$kick_ids" "$work/kicks.csv" "$duration_ms" "$rate" <<'EOF'
import sys
import numpy as np
ids_file, out, duration_ms, rate = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
ids = [int(line.split("#")[0]) for line in open(ids_file) if line.split("#")[0].strip()]
steps = int(round(duration_ms / 0.1))
draws = np.random.default_rng(1).random((steps, len(ids))) < rate * 1e-4
order = np.argsort(ids)
with open(out, "w") as f:
    f.write("step,neuron_id\n")
    for step in range(steps):
        for k in order:
            if draws[step, k]:
                f.write(f"{step},{ids[k]}\n")
EOF
echo "# input: $(($(wc -l < "$work/kicks.csv") - 1)) kicks to the $(grep -c '^[0-9]' "$kick_ids") neurons of $(basename "$kick_ids") over $duration_ms ms (${rate} Hz draws)"
[[ -n ${SILENCE:-} ]] && echo "# silenced ($silence_mode): $(grep -c '[0-9]' "$silence") neurons of $SILENCE"

# flysim on the same CSV network (the first load parses it and caches it).
flysim_args=(--network.connectivity="$work/connectivity.csv" --network.neurons="$work/neurons.csv"
             --stimulus.kicks="$work/kicks.csv" "${flysim_silence[@]}" --log.level=warn)
"$flysim" run "${flysim_args[@]}" --run.duration-ms=1 > /dev/null 2>&1
flysim_args+=(--run.duration-ms="$duration_ms")
declare -A flysim_wall
for t in 1 2; do
  timed_runs "$flysim" "${flysim_args[@]}" --engine.threads="$t" --output.spikes="$work/flysim_spikes.csv"
  flysim_wall[$t]=$wall
done
flysim_spikes=$(summary_field spikes)
flysim_active=$(summary_field active_neurons)

# Brian2: code generation and compilation are not timed; its loop time is its own
# clock around the simulation loop.
brian_walls=()
for ((r = 0; r < ${BRIAN_REPEAT:-1}; ++r)); do
  out=$("$python" "$here/bench/brian2_run.py" "$work/neurons.csv" "$work/connectivity.csv" "$work/kicks.csv" \
        "$work/brian_spikes.csv" "$work/brian_build" "$duration_ms" "${brian_silence[@]}" 2> "$work/brian_stderr.txt")
  brian_walls+=("$(awk -v d="$duration_ms" '/^brian2_loop_s/ {printf "%.4f", $2 / (d / 1000)}' <<< "$out")")
done
brian=$(printf '%s\n' "${brian_walls[@]}" | median)
brian_spikes=$(awk '/^brian2_spikes/ {print $2}' <<< "$out")

# Spikes identical (same neuron, same step): flysim writes trial,step,t_ms,neuron_id.
same=$(comm -12 <(tail -n +2 "$work/flysim_spikes.csv" | awk -F, '{print $2 "," $4}' | sort) \
                <(tail -n +2 "$work/brian_spikes.csv" | sort) | wc -l)

median_of() { awk '{print $1}' <<< "$1"; }
printf "%-34s %14s %10s\n" "simulator" "wall_s/sim_s" "spikes"
printf "%-34s %14s %10s\n" "Brian2 2.5.1 C++ standalone, 1 thread" "$brian" "$brian_spikes"
printf "%-34s %14s %10s\n" "flysim cpu pool, 1 thread" "${flysim_wall[1]}" "$flysim_spikes"
printf "%-34s %14s %10s\n" "flysim cpu pool, 2 threads" "${flysim_wall[2]}" "$flysim_spikes"
awk -v b="$brian" -v f1="$(median_of "${flysim_wall[1]}")" -v f2="$(median_of "${flysim_wall[2]}")" \
  'BEGIN {printf "ratio Brian2 / flysim: %.1fx (1 thread each), %.1fx (flysim on 2 threads)\n", b / f1, b / f2}'
awk -v s="$same" -v f="$flysim_spikes" -v b="$brian_spikes" -v a="$flysim_active" \
  'BEGIN {printf "identical spikes: %d of %d (flysim) / %d (Brian2): %.3f%%; %s active neurons\n", s, f, b, 100 * s / (b > f ? b : f), a}'
