#!/usr/bin/env bash
# Batched trials on the GPU machine. Build here first:
#   make build JOBS=2 CUDA_ARCHS=90-real
#   copy build/flysim and build/tests/gpu/flysim_gpu_tests with their shared libraries into .device/
#   (.device/run NAME ARGS runs one of them)
# then, on the GPU machine, from the checkout with .device carried:
#   bash bench/gpu_batch_round.sh            (BENCH=0 skips the benchmark)
# It runs the CUDA tests (batches included), checks on the FlyWire-scale network that the
# spike files of CPU and CUDA runs are the same bytes at any run.batch, that a CUDA
# checkpoint in the middle of a batch restores on the CPU and that swaps in the middle of
# a batch change nothing; then bench/bench_trials.sh with ENGINE=cuda.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
export FLYSIM_TEST_DATA_DIR=$here/tests/data FLYSIM_DATA_DIR=$here/data
work=$(mktemp -d)
source "$here/bench/bench_lib.sh"
write_device_wrapper "$here" "$work/flysim"
flysim() { "$work/flysim" "$@"; }
status=0

echo "== CUDA tests"; "$here/.device/run" flysim_gpu_tests --gtest_brief=1 || status=1

echo "== batches through the app (FlyWire-scale synthetic network, default stimulus, 10 trials x 500 ms)"
common=(--run.duration-ms=500 --run.trials=10 --log.level=warn)
flysim run "${common[@]}" --engine.kind=cpu --engine.threads=4 --run.batch=1 --output.spikes="$work/cpu1.csv" | grep -E "wall time"
for b in 1 3 10; do
  flysim run "${common[@]}" --engine.kind=cuda --run.batch=$b --output.spikes="$work/cuda$b.csv" | grep -E "wall time|engine"
  check "cpu batch 1 vs cuda batch $b" "$work/cpu1.csv" "$work/cuda$b.csv"
done
flysim run "${common[@]}" --engine.kind=cpu --engine.threads=4 --run.batch=4 --output.spikes="$work/cpu4.csv" > /dev/null
check "cpu batch 1 vs cpu batch 4" "$work/cpu1.csv" "$work/cpu4.csv"
flysim run "${common[@]}" --engine.kind=cuda --run.batch=4 --run.swap-at=300:cpu,700:cuda,1200:cuda \
  --output.spikes="$work/swap.csv" | grep -E "swap  "
check "cuda->cpu->cuda->cuda swaps in the middle of batches of 4" "$work/cpu1.csv" "$work/swap.csv"
flysim run "${common[@]}" --engine.kind=cuda --run.batch=4 --checkpoint.every-ms=300 --checkpoint.keep=10 \
  --checkpoint.dir="$work/ck" > /dev/null
ckpt=$work/ck/flysim-trial0004-step000004014.ckpt
echo "restoring $ckpt (trials 4..7, on cuda) on the cpu"
flysim run --restore="$ckpt" --engine.kind=cpu --engine.threads=4 --log.level=warn --output.spikes="$work/restored.csv" > /dev/null
{ head -1 "$work/cpu1.csv"; awk -F, 'NR > 1 && ($1 >= 8 || ($1 >= 4 && $2 >= 4014))' "$work/cpu1.csv"; } > "$work/cpu_tail.csv"
check "cuda batch checkpoint restored on cpu" "$work/cpu_tail.csv" "$work/restored.csv"

if [[ ${BENCH:-1} != 0 ]]; then
  echo "== benchmark"
  ENGINE=cuda REPEAT=${REPEAT:-3} bash "$here/bench/bench_trials.sh" "$work/flysim"
  ENGINE=cpu THREADS=$(nproc) TRIALS="1 8 30" REPEAT=1 SWEEP_RATES=50,100,150,200 SWEEP_TRIALS=30 \
    bash "$here/bench/bench_trials.sh" "$work/flysim"
fi
rm -rf "$work"
echo "== $([[ $status == 0 ]] && echo PASS || echo FAIL)"
exit $status
