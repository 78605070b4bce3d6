#!/usr/bin/env bash
# What the live page costs the simulation. A measurement, not a test.
# An unpaced run of the dense scenario (every 10th neuron Poisson-driven at 50 Hz, about
# 840,000 spikes per simulated second) on the FlyWire-scale network, three ways, one after
# another in each round:
#   run     flysim run: no control API, no activity window;
#   serve   flysim serve --run.pace=off: the API and the page's window on, nobody looking;
#   page    the same with the page's polling (bench/page_poller.py, at page.js's rates).
# Prints the median wall s and host CPU s (the whole process) per simulated s of each, and
# whether the spike files of every run are identical (they must be: the window only counts
# what the recorder is given). On a shared machine the CPU figure is the steadier one.
#   bench/bench_page.sh BUILD/flysim
#   REPEAT=5 ...          rounds (default 3)
#   DURATION_MS=2000 ...  simulated per run (default 1000)
#   SCENARIO=default ...  the canonical experiment (21 sugar GRNs at 150 Hz) instead
#   THREADS=2 ...         CPU pool threads (default 2)
#   PACE=0.2 WINDOW=20    the paced part: simulated s per wall s (default realtime), seconds measured
set -euo pipefail
flysim=${1:?usage: bench_page.sh PATH/TO/flysim}
here=$(cd "$(dirname "$0")/.." && pwd)
data=${FLYSIM_DATA_DIR:-$here/data}
source "$here/bench/bench_lib.sh"
work=$(mktemp -d)
serve_pid=
trap '[[ -n $serve_pid ]] && kill "$serve_pid" 2> /dev/null; rm -rf "$work"' EXIT
args=(--engine.threads="${THREADS:-2}" --run.duration-ms="${DURATION_MS:-1000}" --log.level=warn)
if [[ ${SCENARIO:-dense} == dense ]]; then
  write_dense_ids "$data" "$work/dense_ids.txt"
  args+=(--stimulus.ids="$work/dense_ids.txt" --stimulus.rate=50)
fi
serve_args=(--run.pace=off --control.port=0 --output.journal="$work/journal.jsonl")

# flysim serve ARGS... with the page's polling for as long as it runs.
serve_with_page() {
  rm -f "$work/serve.out"  # the last round's port must not be read for this one's
  "$flysim" serve "$@" > "$work/serve.out" &
  serve_pid=$!
  until port=$(sed -n 's|.*control API on http://[^:]*:\([0-9]*\).*|\1|p' "$work/serve.out" 2> /dev/null) && [[ -n $port ]]; do
    kill -0 "$serve_pid" || { echo "flysim serve ended before its control API was up" >&2; exit 1; }
    sleep 0.05
  done
  python3 "$here/bench/page_poller.py" "$port" > "$work/poller.out" &
  local poller=$!
  wait "$serve_pid"
  serve_pid=
  wait "$poller"
}

# Appends the last run's summary to the figures of `way` (run, serve, page).
declare -A walls cpus
note() {  # note WAY
  local wall cpu
  wall=$(summary_field wall_s_per_simulated_s '{:.4f}')
  cpu=$(cpu_per_sim)
  walls[$1]+="$wall " cpus[$1]+="$cpu "
  line+=" $1 $wall ($cpu cpu),"
}

echo "# flysim page benchmark, scenario ${SCENARIO:-dense}, ${THREADS:-2} threads, ${DURATION_MS:-1000} ms simulated per run, $(machine_line)"
"$flysim" run --run.duration-ms=1 --log.level=warn > /dev/null  # the network, generated and cached once
for ((r = 0; r < ${REPEAT:-3}; ++r)); do
  line="round $((r + 1)):"
  "$flysim" run "${args[@]}" --output.spikes="$work/run-$r.csv" --output.summary="$(summary_file)" > /dev/null && note run
  "$flysim" serve "${args[@]}" "${serve_args[@]}" --output.spikes="$work/serve-$r.csv" --output.summary="$(summary_file)" \
    > /dev/null && note serve
  serve_with_page "${args[@]}" "${serve_args[@]}" --output.spikes="$work/page-$r.csv" --output.summary="$(summary_file)" && note page
  echo "$line wall s (cpu s) per simulated s; $(cat "$work/poller.out")"
done
echo "load average (1, 5, 15 min) at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "medians, wall s per simulated s and host cpu s per simulated s:"
for way in run serve page; do
  case $way in
    run) what="flysim run (no page, no window)" ;;
    serve) what="flysim serve, nobody looking" ;;
    page) what="flysim serve, the page polling" ;;
  esac
  printf '  %-32s %8s wall  %8s cpu\n' "$what" "$(tr ' ' '\n' <<< "${walls[$way]}" | grep . | median)" \
    "$(tr ' ' '\n' <<< "${cpus[$way]}" | grep . | median)"
done
spikes=$(($(wc -l < "$work/run-0.csv") - 1))
if [[ $(sha256sum "$work"/*.csv | awk '{print $1}' | sort -u | wc -l) == 1 ]]; then
  echo "spikes: identical in all $((3 * ${REPEAT:-3})) runs ($spikes spikes each)"
else
  echo "spikes: DIFFER between runs" && sha256sum "$work"/*.csv && exit 1
fi

# Host cores of a paced service (the whole process, utime + stime of /proc/PID/stat) over
# WINDOW seconds after a 3 s warm-up, without and with the page's polling: what the page
# costs when the engine leaves cores free (PACE must be one the engine holds here).
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }
echo "== host cores at pace=${PACE:-realtime} over ${WINDOW:-20} s, without and with the page polling"
for polling in no yes; do
  rm -f "$work/serve.out"
  "$flysim" serve "${args[@]/--run.duration-ms=*/--run.duration-ms=forever}" --run.pace="${PACE:-realtime}" --control.port=0 \
    --output.journal="$work/journal.jsonl" > "$work/serve.out" 2> "$work/serve.err" &
  serve_pid=$!
  until port=$(sed -n 's|.*control API on http://[^:]*:\([0-9]*\).*|\1|p' "$work/serve.out" 2> /dev/null) && [[ -n $port ]]; do
    sleep 0.05
  done
  [[ $polling == yes ]] && python3 "$here/bench/page_poller.py" "$port" > "$work/poller.out" &
  sleep 3
  before=$(cpu_seconds "$serve_pid") start=$(date +%s.%N)
  sleep "${WINDOW:-20}"
  after=$(cpu_seconds "$serve_pid") end=$(date +%s.%N)
  lag=$(curl -s "localhost:$port/status" | json_field lag_ms)
  curl -s -X POST "localhost:$port/stop" -d '' > /dev/null
  wait "$serve_pid"
  serve_pid=
  wait
  awk -v a="$before" -v b="$after" -v s="$start" -v e="$end" -v p="$polling" -v lag="$lag" \
    'BEGIN {printf "  page polling %-3s %.3f host cores (%.2f cpu s over %.1f wall s), lag %.1f ms\n", p, (b - a) / (e - s), b - a, e - s, lag}'
  [[ $polling == yes ]] && echo "  $(cat "$work/poller.out")"
done
