#!/usr/bin/env bash
# flysim screen over local worker nodes: the same N-experiment screen (silence-each of
# the network's first N neurons, TRIALS trials of DURATION ms) on this process alone (one
# engine thread) and on 1, 2, 3 ... `flysim worker` processes of one engine thread each
# (WORKERS="1 2 3"), the files compared with the local run's. A measurement, not a test.
#   bench/bench_workers.sh BUILD/flysim                      (net2000, 600 experiments x 10 trials x 1 s)
#   N=100 TRIALS=30 WORKERS="1 2" bench/bench_workers.sh BUILD/flysim
set -euo pipefail
flysim=$(cd "$(dirname "${1:?usage: bench_workers.sh PATH/TO/flysim}")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench_lib.sh"
n=${N:-600}
trials=${TRIALS:-10}
duration=${DURATION:-1000}
net=${NET:-$here/tests/data/net2000}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2> /dev/null; rm -rf "$work"' EXIT
tail -n +2 "$net/neurons.csv" | cut -d, -f1 | head -n "$n" > "$work/each.txt"
args=(--network.neurons="$net/neurons.csv" --network.connectivity="$net/connectivity.csv" --stimulus.ids="$net/stimulated.txt"
      --screen.silence-each="$work/each.txt" --run.trials="$trials" --run.duration-ms="$duration" --screen.plot=false
      --screen.readouts="$(grep -v '^#' "$net/stimulated.txt" | head -1)" --engine.threads=1 --log.level=warn)
echo "# flysim screen over local workers, $(machine_line)"
echo "# $(wc -l < "$work/each.txt") silence-each experiments x $trials trials x $duration ms on $(basename "$net"), one engine thread per process"
printf "%-34s %8s %16s %s\n" "where" "wall_s" "trial-s/wall_s" "files"
screen() {  # screen NAME DIR ARGS...: one screen into DIR, its wall time, throughput and files against the local run's
  local name=$1 dir=$2 start end files=reference
  shift 2
  start=$(date +%s.%N)
  "$flysim" screen "${args[@]}" "$@" --output.dir="$dir" > /dev/null
  end=$(date +%s.%N)
  if [[ $dir != "$work/local" ]]; then
    cmp -s "$work/local/rates.csv" "$dir/rates.csv" && cmp -s "$work/local/readouts.csv" "$dir/readouts.csv" && files=identical || files=DIFFERENT
  fi
  awk -v s="$start" -v e="$end" -v x="$n" -v t="$trials" -v d="$duration" -v name="$name" -v f="$files" \
    'BEGIN { w = e - s; printf "%-34s %8.2f %16.1f %s\n", name, w, x * t * d / 1000 / w, f }'
}
screen "this process, 1 engine" "$work/local"
for w in ${WORKERS:-1 2 3}; do
  kill "${pids[@]}" 2> /dev/null || true
  pids=()
  nodes=""
  for ((k = 0; k < w; ++k)); do
    "$flysim" worker --port=0 --engine.threads=1 --log.level=warn > "$work/w$k.out" &
    pids+=($!)
  done
  for ((k = 0; k < w; ++k)); do
    until grep -q serving "$work/w$k.out" 2> /dev/null; do sleep 0.1; done
    nodes+="${nodes:+,}127.0.0.1:$(sed 's/.*://' "$work/w$k.out")"
  done
  screen "$w worker(s), 1 engine each" "$work/remote$w" --screen.nodes="$nodes"
done
