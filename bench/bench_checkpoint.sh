#!/usr/bin/env bash
# Checkpoint save and load at FlyWire scale, through the flysim program: the
# FlyWire-scale synthetic network (138,639 neurons), the default stimulus, against a
# limit of one second each (checkpoint/README.md). A measurement, not a test: the tests
# check that a checkpoint round-trips, not how fast.
#   bench/bench_checkpoint.sh BUILD/flysim
#   REPEAT=5 bench/bench_checkpoint.sh ...     (median of 5 runs [fastest]; default 3)
# save: the wall time (JSON summary) of a 3.6 ms run that writes one checkpoint at
#   1.8 ms, less that of the same run without it. The run ends only once the file is
#   on disk, so the difference is the checkpoint's cost to a run: the engine's export,
#   the snapshot and the write, fsync included.
# load: `flysim checkpoint inspect FILE`, timed whole (process start included): reads
#   the file, verifies its checksums and decodes the snapshot, as a restore does.
# plastic: the same with every excitatory connection plastic (their learned weights and
#   the traces travel in the file too).
set -euo pipefail
flysim=${1:?usage: bench_checkpoint.sh PATH/TO/flysim}
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench_lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repeat=${REPEAT:-3}
limit=1

now() { date +%s.%N; }
# "median [fastest]" of the numbers on stdin, in seconds to 3 decimals.
median_fastest() { sort -g | awk '{a[NR] = $1} END {printf "%.3f [%.3f]", a[int((NR + 1) / 2)], a[1]}'; }
over() { awk -v m="${2%% *}" -v l="$limit" -v what="$1" 'BEGIN {if (m > l) printf "  %s OVER THE LIMIT", what}'; }

echo "# flysim checkpoint benchmark, $(machine_line)"
echo "# FlyWire-scale synthetic network, one checkpoint at 1.8 ms of 3.6; median of $repeat [fastest]; limit $limit s each"
# Load (and, the first time, generate and cache) the network once, outside the timings.
"$flysim" run --run.duration-ms=1 --log.level=warn > /dev/null
printf "%-9s %9s %18s %18s\n" scenario file_MB save_s load_s
for scenario in default plastic; do
  args=(--run.duration-ms=3.6 --log.level=warn)
  [[ $scenario == plastic ]] && args+=(--plasticity.enabled=true --plasticity.period-ms=1.8)
  saves=() loads=()
  for ((r = 0; r < repeat; ++r)); do
    rm -rf "$work/ckpt"
    "$flysim" run "${args[@]}" --output.summary="$(summary_file)" > /dev/null
    without=$(summary_field wall_s)
    "$flysim" run "${args[@]}" --checkpoint.every-ms=1.8 --checkpoint.dir="$work/ckpt" \
      --output.summary="$(summary_file)" > /dev/null
    with=$(summary_field wall_s)
    file=$(summary_field checkpoints.0)
    saves+=("$(awk -v a="$with" -v b="$without" 'BEGIN {print a - b}')")
    start=$(now)
    "$flysim" checkpoint inspect "$file" > /dev/null
    loads+=("$(awk -v s="$start" -v e="$(now)" 'BEGIN {print e - s}')")
  done
  save=$(printf '%s\n' "${saves[@]}" | median_fastest)
  load=$(printf '%s\n' "${loads[@]}" | median_fastest)
  mb=$(awk -v b="$(stat -c %s "$file")" 'BEGIN {printf "%.1f", b / 1e6}')
  printf "%-9s %9s %18s %18s%s%s\n" "$scenario" "$mb" "$save" "$load" "$(over save "$save")" "$(over load "$load")"
done
