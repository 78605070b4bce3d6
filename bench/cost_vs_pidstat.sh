#!/usr/bin/env bash
# flysim cost against pidstat -t (docs/COST.md): a paced service, and over the same
# WINDOW seconds `pidstat -t -p PID WINDOW 1` and `flysim cost --window=WINDOW`, side by
# side per thread and per role. Both read utime + stime of /proc/PID/task/*/stat.
#   bench/cost_vs_pidstat.sh BUILD/flysim [WINDOW_S]      (default 30)
#   NETWORK="--network.neurons=... ..."   (default: the FlyWire-scale synthetic network)
#   ARGS="--engine.threads=2 ..."        more options of flysim serve
set -euo pipefail
flysim=$(realpath "${1:?usage: cost_vs_pidstat.sh PATH/TO/flysim [WINDOW_S]}")
window=${2:-30}
source "$(dirname "$0")/bench_lib.sh"  # json_field
command -v pidstat > /dev/null || { echo "pidstat is missing: apt-get install sysstat (scripts/setup.sh does)" >&2; exit 1; }
work=$(mktemp -d)
serve_pid=
trap '[[ -n $serve_pid ]] && kill "$serve_pid" 2> /dev/null; rm -rf "$work"' EXIT
# shellcheck disable=SC2206
extra=(${NETWORK:-} ${ARGS:-})
"$flysim" serve "${extra[@]}" --control.port=0 --output.journal="$work/journal.jsonl" --log.level=warn > "$work/serve.out" &
serve_pid=$!
until port=$(sed -n 's|.*control API on http://[^:]*:\([0-9]*\).*|\1|p' "$work/serve.out") && [[ -n $port ]]; do
  kill -0 "$serve_pid" || { echo "flysim serve ended before its control API was up" >&2; exit 1; }
  sleep 0.2
done
sleep 5  # past the start-up
engine=$("$flysim" ctl status --json --control.port="$port" | json_field engine)
echo "# flysim cost vs pidstat -t, ${window} s, $(nproc) CPUs, $engine"
LC_ALL=C pidstat -t -p "$serve_pid" "$window" 1 > "$work/pidstat.txt" &
pidstat_pid=$!
"$flysim" cost --url="http://127.0.0.1:$port" --window="$window" --threads=true > "$work/cost.txt"
wait "$pidstat_pid"
echo "== pidstat -t -p PID $window 1: the Average lines as cores (%CPU / 100), busiest first"
awk '/^Average/ && $3 == "-" {sub(/^\|__/, "", $11); printf "%8s  %-16s %8.3f\n", $4, $11, $9 / 100}
     /^Average/ && $4 == "-" {printf "%8s  %-16s %8.3f  (process)\n", $3, $11, $9 / 100}' "$work/pidstat.txt" | sort -k3 -g -r
echo "== flysim cost --window=$window --threads=true"
cat "$work/cost.txt"
"$flysim" ctl stop --control.port="$port" > /dev/null
wait "$serve_pid"
serve_pid=
