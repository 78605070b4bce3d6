#!/usr/bin/env bash
# What the service costs (pacing, the control API, host cores), on the FlyWire-scale default
# experiment. A measurement, not a test.
#   bench/bench_service.sh BUILD/flysim [ENGINE]      (ENGINE: cpu, the default, or cuda)
#   REPEAT=5 ...      pairs of runs for the API on/off comparison (default 3)
#   WINDOW=30 ...     seconds over which host cores are measured (default 20)
#   REQUESTS=200 ...  status requests timed (default 200)
#   PACE_BATCH_MS=50 ...  run.pace-batch-ms of the paced service in 3 (default 10)
#   THREADS=2 ...     engine.threads of the CPU engine (default: the option's default)
#   SECTIONS="3" ...  which of the three parts to run (default "1 2 3")
# 1. An unpaced 1 s run as `flysim run` (no control API) and as `flysim serve
#    --run.pace=off` (control API and journal on), alternated: median wall s per simulated s.
# 2. Status latency: GET /status, one after another, while an unpaced service runs the
#    engine flat out: median, 99th percentile and slowest.
# 3. Host cores at pace=realtime: the whole process's CPU time (utime + stime of
#    /proc/PID/stat, every thread) over a fixed window after a warm-up, per wall second.
set -euo pipefail
flysim=${1:?usage: bench_service.sh PATH/TO/flysim [cpu|cuda]}
engine=${2:-cpu}
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench_lib.sh"
work=$(mktemp -d)
serve_pid=
trap '[[ -n $serve_pid ]] && kill "$serve_pid" 2> /dev/null; rm -rf "$work"' EXIT
common=(--engine.kind="$engine" --log.level=warn ${THREADS:+--engine.threads="$THREADS"})
sections=" ${SECTIONS:-1 2 3} "

# Starts `flysim serve ARGS...` in the background; sets serve_pid and port.
start_service() {
  "$flysim" serve "${common[@]}" --control.port=0 --output.journal="$work/journal.jsonl" "$@" > "$work/serve.out" &
  serve_pid=$!
  until port=$(sed -n 's|.*control API on http://[^:]*:\([0-9]*\).*|\1|p' "$work/serve.out") && [[ -n $port ]]; do
    kill -0 "$serve_pid" || { echo "flysim serve ended before its control API was up" >&2; exit 1; }
    sleep 0.2
  done
}
stop_service() {
  curl -s -X POST "localhost:$port/stop" > /dev/null
  wait "$serve_pid"
  serve_pid=
}
# CPU seconds (user + system) the process has used so far.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }

echo "# flysim service benchmark, engine $engine, $(machine_line)"
"$flysim" run "${common[@]}" --run.duration-ms=1 > /dev/null  # the network, generated and cached once

if [[ $sections == *" 1 "* ]]; then
  echo "== 1. unpaced 1 s run, control API off (run) and on (serve --run.pace=off), ${REPEAT:-3} pairs alternated"
  off=() on=()
  for ((r = 0; r < ${REPEAT:-3}; ++r)); do
    REPEAT=1 timed_runs "$flysim" "${common[@]}"
    off+=("$wall")
    REPEAT=1 COMMAND=serve timed_runs "$flysim" "${common[@]}" --run.pace=off --run.duration-ms=1000 --control.port=0 \
      --output.journal="$work/journal.jsonl"
    on+=("$wall")
  done
  echo "API off: $(printf '%s\n' "${off[@]}" | median) wall s per simulated s (runs: ${off[*]})"
  echo "API on:  $(printf '%s\n' "${on[@]}" | median) wall s per simulated s (runs: ${on[*]})"
fi

if [[ $sections == *" 2 "* ]]; then
  echo "== 2. status latency while the engine runs unpaced, ${REQUESTS:-200} requests"
  start_service --run.pace=off --run.duration-ms=forever
  until curl -s "localhost:$port/status" | grep -q '"simulated_s":[1-9]'; do sleep 0.2; done  # past the start-up
  for ((i = 0; i < ${REQUESTS:-200}; ++i)); do
    curl -s -o /dev/null -w '%{time_total}\n' "localhost:$port/status"
  done | sort -g | awk '{a[NR] = $1 * 1e3} END {printf "median %.2f ms, p99 %.2f ms, slowest %.2f ms\n", a[int((NR + 1) / 2)], a[int(NR * 0.99 + 0.5)], a[NR]}'
  stop_service
fi

if [[ $sections == *" 3 "* ]]; then
  echo "== 3. host cores at pace=realtime, run.pace-batch-ms=${PACE_BATCH_MS:-10}, over ${WINDOW:-20} s after a 5 s warm-up"
  start_service --run.pace=realtime --run.duration-ms=forever --run.pace-batch-ms="${PACE_BATCH_MS:-10}"
  sleep 5
  before=$(cpu_seconds "$serve_pid")
  start=$(date +%s.%N)
  # The window itself: flysim cost reads the service's per-thread counters at its two ends
  # (two status requests) and prints the cores per role.
  "$flysim" cost --url="http://127.0.0.1:$port" --window="${WINDOW:-20}"
  after=$(cpu_seconds "$serve_pid")
  end=$(date +%s.%N)
  status=$(curl -s "localhost:$port/status")
  echo "$status" | tr ',' '\n' | grep -E '"(engine|lag_ms|lag_p99_ms|lag_max_ms|host_cores|wall_per_simulated)"' | tr '\n' ' '
  echo
  awk -v a="$before" -v b="$after" -v s="$start" -v e="$end" 'BEGIN {printf "whole process: %.3f host cores (%.2f cpu s over %.1f wall s)\n", (b - a) / (e - s), b - a, e - s}'
  stop_service
fi
