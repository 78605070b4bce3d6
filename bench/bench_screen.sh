#!/usr/bin/env bash
# flysim screen: N silence-each experiments (plus the baseline) x TRIALS trials x DURATION
# ms on one engine, the network loaded once. Prints the wall time and trial-seconds
# (simulated seconds) per wall second. A measurement, not a test.
#   bench/bench_screen.sh BUILD/flysim                        (the default FlyWire-scale network)
#   NET=tests/data/net2000 N=20 bench/bench_screen.sh BUILD/flysim
#   ENGINE=cuda N=100 TRIALS=30 BATCH=auto bench/bench_screen.sh BUILD/flysim   (on the GPU machine)
#   ENGINE=cuda PERDEV=6 N=300 bench/bench_screen.sh BUILD/flysim   (six engines on the device: engine.per-device; DEVICES=0,1 engine.cuda-devices)
#   KEEP=DIR keeps the screen's files in DIR (to cmp two runs).
set -euo pipefail
flysim=${1:?usage: bench_screen.sh PATH/TO/flysim}
engine=${ENGINE:-cpu}
threads=${THREADS:-$(nproc)}
n=${N:-4}
trials=${TRIALS:-30}
duration=${DURATION:-1000}
batch=${BATCH:-auto}
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench_lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

net=()
ids="$here/data/sugar_grn_783.txt"
if [[ -n "${NET:-}" ]]; then
  net=(--network.neurons="$NET/neurons.csv" --network.connectivity="$NET/connectivity.csv" --stimulus.ids="$NET/stimulated.txt")
  ids="$NET/stimulated.txt"
fi
neurons="$here/data/Completeness_783.csv"
[[ -n "${NET:-}" ]] && neurons="$NET/neurons.csv"
# The neurons to silence: the first N root IDs of the stimulus list, then of the network's neurons.
# (head closes the pipe early: the writers' SIGPIPE is expected, not a failure.)
{ grep -v '^#' "$ids"; tail -n +2 "$neurons" | cut -d, -f1; } | awk '!seen[$0]++' | head -n "$n" > "$work/each.txt" || true
echo "# flysim screen, $(machine_line), engine $engine${DEVICES:+ on devices $DEVICES}, $threads threads, batch $batch"
echo "# $(wc -l < "$work/each.txt") silence-each experiments + baseline x $trials trials x $duration ms${NET:+ on $NET}"
# Load (and, the first time, generate and cache) the network outside the timing.
"$flysim" run "${net[@]}" --run.duration-ms=1 --log.level=warn > /dev/null
start=$(date +%s.%N)
"$flysim" screen "${net[@]}" --screen.silence-each="$work/each.txt" --screen.baseline=true --screen.plot=false \
  --run.trials="$trials" --run.duration-ms="$duration" --run.batch="$batch" --engine.kind="$engine" \
  --engine.threads="$threads" ${DEVICES:+--engine.cuda-devices="$DEVICES"} ${PERDEV:+--engine.per-device="$PERDEV"} --output.dir="${KEEP:-$work/screen}" \
  --log.level=warn | tee "$work/out.txt"
end=$(date +%s.%N)
experiments=$(($(wc -l < "$work/each.txt") + 1))
awk -v s="$start" -v e="$end" -v x="$experiments" -v t="$trials" -v d="$duration" 'BEGIN {
  wall = e - s; sim = x * t * d / 1000
  printf "wall %.2f s (the process, network from the cache included); %.0f trial-seconds; %.2f trial-s per wall s\n", wall, sim, sim / wall }'
