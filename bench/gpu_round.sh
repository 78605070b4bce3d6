#!/usr/bin/env bash
# One round on the GPU machine (docs/GPU-RESULTS.md). Build here first:
#   cmake -S . -B build-cuda -DFLYSIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90-real && cmake --build build-cuda -j2
#   ../shared/tools/bundle .device build-cuda/flysim build-cuda/tests/flysim_tests
# then, on the GPU machine, from the checkout with .device carried: bash bench/gpu_round.sh
# It runs the CUDA tests, checks that runs which swap engines or restore checkpoints
# across engines give byte-identical output to plain CPU and CUDA runs on the
# FlyWire-scale network, and benchmarks both engines.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
export FLYSIM_TEST_DATA_DIR=$here/tests/data FLYSIM_DATA_DIR=$here/data
flysim() { "$here/.device/run" flysim "$@"; }
work=$(mktemp -d)
status=0
check() {  # check NAME FILE_A FILE_B
  if cmp -s "$2" "$3"; then echo "identical: $1"; else echo "DIFFERENT: $1"; status=1; fi
}

echo "== doctor"; flysim doctor --engine.kind=cuda || status=1
echo "== CUDA tests"; "$here/.device/run" flysim_tests --gtest_filter='CudaEngine.*' --gtest_brief=1 || status=1

echo "== engine identity through the app (FlyWire-scale synthetic network, default stimulus, 2 trials x 500 ms)"
common=(--run.duration-ms=500 --run.trials=2 --log.level=warn)
flysim run "${common[@]}" --engine.kind=cpu --engine.threads=2 --output.spikes="$work/cpu.csv" --output.rates="$work/cpu_rates.csv" | grep -E "spikes  |wall time"
FLY_LIF_CUDA=1 flysim run "${common[@]}" --output.spikes="$work/cuda.csv" --output.rates="$work/cuda_rates.csv" | grep -E "spikes  |wall time|engine"
check "cpu vs cuda spikes" "$work/cpu.csv" "$work/cuda.csv"
check "cpu vs cuda rates" "$work/cpu_rates.csv" "$work/cuda_rates.csv"
flysim run "${common[@]}" --engine.kind=cpu --run.swap-at=100:cuda,300:cpu,600:cuda,800:cuda \
  --output.spikes="$work/swap.csv" --output.rates="$work/swap_rates.csv" | grep -E "swap  "
check "cpu->cuda->cpu->cuda->cuda swaps" "$work/cpu.csv" "$work/swap.csv"
check "swap rates" "$work/cpu_rates.csv" "$work/swap_rates.csv"
flysim run "${common[@]}" --engine.kind=cpu --checkpoint.every-ms=400 --checkpoint.dir="$work/ck" --checkpoint.keep=5 > /dev/null
ckpt=$(ls "$work"/ck/*.ckpt | sed -n 2p)
echo "restoring $ckpt on cuda"
FLY_LIF_CUDA=1 flysim run --restore="$ckpt" --log.level=warn --output.spikes="$work/restored.csv" --output.rates="$work/restored_rates.csv" > /dev/null
info=$(flysim checkpoint inspect "$ckpt")
t=$(awk '/^  trial /{print $2}' <<< "$info")
s=$(awk '/^  step /{print $2}' <<< "$info")
{ head -1 "$work/cpu.csv"; awk -F, -v t="$t" -v s="$s" 'NR > 1 && ($1 > t || ($1 == t && $2 >= s))' "$work/cpu.csv"; } > "$work/cpu_tail.csv"
check "cpu checkpoint restored on cuda (spikes from trial $t step $s)" "$work/cpu_tail.csv" "$work/restored.csv"
check "cpu checkpoint restored on cuda (rates)" "$work/cpu_rates.csv" "$work/restored_rates.csv"
echo "== swap time, FlyWire-scale state"
flysim run --run.duration-ms=200 --engine.kind=cpu --run.swap-at=100:cuda --log.level=warn | grep -E "swap  "
flysim run --run.duration-ms=200 --engine.kind=cuda --run.swap-at=100:cpu --log.level=warn | grep -E "swap  "

echo "== benchmark"
printf '#!/usr/bin/env bash\nexec "%s/.device/run" flysim "$@"\n' "$here" > "$work/flysim"
chmod +x "$work/flysim"
ENGINES="cpu cuda" bash "$here/bench/bench.sh" "$work/flysim" 1 2 16
rm -rf "$work"
exit $status
