#!/usr/bin/env bash
# What the live page costs the simulation (issue 12). A measurement, not a test.
# An unpaced run of the dense scenario (every 10th neuron Poisson-driven at 50 Hz, about
# 840,000 spikes per simulated second) on the FlyWire-scale network, three ways, one after
# another in each round:
#   run     flysim run: no control API, no activity window;
#   serve   flysim serve --run.pace=off: the API and the page's window on, nobody looking;
#   page    the same with the page's polling (bench/page_poller.py, at page.js's rates).
# Prints the median wall s per simulated s of each, and whether the spike files of every
# run are identical (they must be: the window only counts what the recorder is given).
#   bench/bench_page.sh BUILD/flysim
#   REPEAT=5 ...          rounds (default 3)
#   DURATION_MS=2000 ...  simulated per run (default 1000)
#   SCENARIO=default ...  the canonical experiment (21 sugar GRNs at 150 Hz) instead
#   THREADS=2 ...         CPU pool threads (default 2)
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

# Wall s per simulated s from a summary on stdin.
wall_of() { sed -n 's/.*s, \([0-9.]*\) wall s per simulated s.*/\1/p'; }

# flysim serve ARGS... with the page's polling for as long as it runs; sets `wall`.
serve_with_page() {
  "$flysim" serve "$@" > "$work/serve.out" &
  serve_pid=$!
  until port=$(sed -n 's|.*control API on http://[^:]*:\([0-9]*\).*|\1|p' "$work/serve.out") && [[ -n $port ]]; do
    kill -0 "$serve_pid" || { echo "flysim serve ended before its control API was up" >&2; exit 1; }
    sleep 0.05
  done
  python3 "$here/bench/page_poller.py" "$port" > "$work/poller.out" &
  local poller=$!
  wait "$serve_pid"
  serve_pid=
  wait "$poller"
  wall=$(wall_of < "$work/serve.out")
  poller_line=$(cat "$work/poller.out")
}

echo "# flysim page benchmark, scenario ${SCENARIO:-dense}, ${THREADS:-2} threads, ${DURATION_MS:-1000} ms simulated per run, $(machine_line)"
"$flysim" run --run.duration-ms=1 --log.level=warn > /dev/null  # the network, generated and cached once
run_walls=() serve_walls=() page_walls=()
for ((r = 0; r < ${REPEAT:-3}; ++r)); do
  run_walls+=("$("$flysim" run "${args[@]}" --output.spikes="$work/run-$r.csv" | wall_of)")
  serve_walls+=("$("$flysim" serve "${args[@]}" "${serve_args[@]}" --output.spikes="$work/serve-$r.csv" | wall_of)")
  serve_with_page "${args[@]}" "${serve_args[@]}" --output.spikes="$work/page-$r.csv"
  page_walls+=("$wall")
  echo "round $((r + 1)): run ${run_walls[-1]}, serve ${serve_walls[-1]}, serve + page ${page_walls[-1]} wall s per simulated s; $poller_line"
done
echo "run (no page, no window):   $(printf '%s\n' "${run_walls[@]}" | median) wall s per simulated s (median)"
echo "serve, nobody looking:      $(printf '%s\n' "${serve_walls[@]}" | median)"
echo "serve, the page polling:    $(printf '%s\n' "${page_walls[@]}" | median)"
spikes=$(($(wc -l < "$work/run-0.csv") - 1))
if [[ $(sha256sum "$work"/*.csv | awk '{print $1}' | sort -u | wc -l) == 1 ]]; then
  echo "spikes: identical in all $((3 * ${REPEAT:-3})) runs ($spikes spikes each)"
else
  echo "spikes: DIFFER between runs" && sha256sum "$work"/*.csv && exit 1
fi
