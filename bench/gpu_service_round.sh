#!/usr/bin/env bash
# The service on the GPU machine: the real CUDA engine failing mid-run falls
# back to the CPU without changing a spike, a live swap to CUDA and back through the
# control API replays byte for byte, and the service's costs on CUDA (bench_service.sh).
# Build and bundle here first (bench/gpu_round.sh says how), then on the GPU machine,
# from the checkout with .device carried:  bash bench/gpu_service_round.sh
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
export FLYSIM_TEST_DATA_DIR=$here/tests/data FLYSIM_DATA_DIR=$here/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$here/bench/bench_lib.sh"
# bench_service.sh takes a binary path: the wrapper.
write_device_wrapper "$here" "$work/flysim"
flysim() { "$work/flysim" "$@"; }
status=0

echo "== the CUDA engine fails after 300 epochs (about 0.54 s) of a 2 s run and falls back to the CPU"
common=(--run.duration-ms=2000 --log.level=warn)
flysim run "${common[@]}" --engine.kind=cuda --output.spikes="$work/plain.csv" | grep -E "spikes  |engine"
flysim run "${common[@]}" --engine.kind=cuda --engine.fault-after-epochs=300 --engine.fallback-every-ms=250 \
  --output.spikes="$work/fallback.csv" 2> "$work/fallback.err" | grep -E "spikes  |engine|fallback"
grep -m3 -iE "fail|fall" "$work/fallback.err"
check "cuda run vs cuda run that failed and fell back to the cpu" "$work/plain.csv" "$work/fallback.csv"

echo "== live swaps through the control API on a paced service: cpu -> cuda -> cpu -> cuda, then replay"
flysim serve --log.level=warn --engine.kind=cpu --engine.threads=4 --control.port=0 --run.pace=2 \
  --output.spikes="$work/live.csv" --output.journal="$work/journal.jsonl" > "$work/serve.out" &
pid=$!
until port=$(sed -n 's|.*control API on http://[^:]*:\([0-9]*\).*|\1|p' "$work/serve.out") && [[ -n $port ]]; do sleep 0.2; done
ctl() { flysim ctl --control.port="$port" "$@"; }
sleep 1; ctl swap cuda
sleep 1; ctl swap cpu --threads=8
sleep 1; ctl stimulus --rate=200
sleep 1; ctl swap cuda
sleep 1; ctl status | head -20
ctl stop; wait "$pid"
flysim run --log.level=warn --replay="$work/journal.jsonl" --output.spikes="$work/replayed.csv" | grep -E "spikes  |swap"
check "live swaps: served vs replayed" "$work/live.csv" "$work/replayed.csv"

echo "== service costs on the CUDA engine"
REPEAT=${REPEAT:-3} WINDOW=${WINDOW:-20} REQUESTS=${REQUESTS:-200} bash "$here/bench/bench_service.sh" "$work/flysim" cuda || status=1
exit $status
