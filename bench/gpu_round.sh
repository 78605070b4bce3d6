#!/usr/bin/env bash
# One round on the GPU machine (docs/GPU-RESULTS.md). Build here first:
#   cmake -S . -B build-cuda -DFLYSIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90-real && cmake --build build-cuda -j2
#   copy build-cuda/flysim and build-cuda/tests/gpu/flysim_gpu_tests with their shared libraries into .device/
#   (.device/run NAME ARGS runs one of them)
# then, on the GPU machine, from the checkout with .device carried: bash bench/gpu_round.sh
# It runs the CUDA tests, checks that runs which swap engines or restore checkpoints
# across engines give byte-identical output to plain CPU and CUDA runs on the
# FlyWire-scale network, and benchmarks both engines (BENCH=0: not).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
export FLYSIM_TEST_DATA_DIR=$here/tests/data FLYSIM_DATA_DIR=$here/data
flysim() { "$here/.device/run" flysim "$@"; }
work=$(mktemp -d)
status=0
source "$here/bench/bench_lib.sh"  # check, write_dense_ids, summary_file, summary_field, summary_show

echo "== doctor"; flysim doctor --engine.kind=cuda || status=1
echo "== CUDA tests"; "$here/.device/run" flysim_gpu_tests --gtest_brief=1 || status=1

echo "== engine identity through the app (FlyWire-scale synthetic network, default stimulus, 2 trials x 500 ms)"
common=(--run.duration-ms=500 --run.trials=2 --log.level=warn)
flysim run "${common[@]}" --engine.kind=cpu --engine.threads=2 --output.spikes="$work/cpu.csv" --output.rates="$work/cpu_rates.csv" \
  --output.summary="$(summary_file)" > /dev/null
summary_show spikes active_neurons wall_s_per_simulated_s engine
FLY_LIF_CUDA=1 flysim run "${common[@]}" --output.spikes="$work/cuda.csv" --output.rates="$work/cuda_rates.csv" \
  --output.summary="$(summary_file)" > /dev/null
summary_show spikes active_neurons wall_s_per_simulated_s engine
check "cpu vs cuda spikes" "$work/cpu.csv" "$work/cuda.csv"
check "cpu vs cuda rates" "$work/cpu_rates.csv" "$work/cuda_rates.csv"
flysim run "${common[@]}" --engine.kind=cpu --run.swap-at=100:cuda,300:cpu,600:cuda,800:cuda \
  --output.spikes="$work/swap.csv" --output.rates="$work/swap_rates.csv" --output.summary="$(summary_file)" > /dev/null
summary_show swaps
check "cpu->cuda->cpu->cuda->cuda swaps" "$work/cpu.csv" "$work/swap.csv"
check "swap rates" "$work/cpu_rates.csv" "$work/swap_rates.csv"
flysim run "${common[@]}" --engine.kind=cpu --checkpoint.every-ms=400 --checkpoint.dir="$work/ck" --checkpoint.keep=5 \
  --output.summary="$(summary_file)" > /dev/null
ckpt=$(summary_field checkpoints.1)
echo "restoring $ckpt on cuda"
FLY_LIF_CUDA=1 flysim run --restore="$ckpt" --log.level=warn --output.spikes="$work/restored.csv" --output.rates="$work/restored_rates.csv" > /dev/null
info=$(flysim checkpoint inspect "$ckpt")
t=$(awk '/^  trial /{print $2}' <<< "$info")
s=$(awk '/^  step /{print $2}' <<< "$info")
{ head -1 "$work/cpu.csv"; awk -F, -v t="$t" -v s="$s" 'NR > 1 && ($1 > t || ($1 == t && $2 >= s))' "$work/cpu.csv"; } > "$work/cpu_tail.csv"
check "cpu checkpoint restored on cuda (spikes from trial $t step $s)" "$work/cpu_tail.csv" "$work/restored.csv"
check "cpu checkpoint restored on cuda (rates)" "$work/cpu_rates.csv" "$work/restored_rates.csv"
echo "== groups and silencing through the app: cpu == cuda, one trial and a batch of 4"
awk -F, 'NR > 1 && NR <= 31 {print $1}' "$work/cpu_rates.csv" > "$work/silenced.txt"
awk -F, 'NR > 1 && NR % 997 == 0 {print $1}' "$here/data/Completeness_783.csv" | head -40 > "$work/group2.txt"
cond=(--stimulus.silence="$work/silenced.txt" --stimulus.group.second.ids="$work/group2.txt" --stimulus.group.second.rate=90)
for mode in outgoing both; do
  flysim run --run.duration-ms=500 --log.level=warn --run.trials=4 --run.batch=1 "${cond[@]}" --stimulus.silence-mode=$mode --engine.kind=cpu --engine.threads=2 \
    --output.spikes="$work/sil_cpu_$mode.csv" > /dev/null
  FLY_LIF_CUDA=1 flysim run --run.duration-ms=500 --log.level=warn --run.trials=4 --run.batch=4 "${cond[@]}" --stimulus.silence-mode=$mode \
    --output.spikes="$work/sil_cuda_$mode.csv" > /dev/null
  check "silenced ($mode) + second group: cpu one by one vs cuda batch of 4" "$work/sil_cpu_$mode.csv" "$work/sil_cuda_$mode.csv"
done
echo "== a run's batches over several engines (engine.per-device, engine.cuda-devices): the spikes of one engine"
FLY_LIF_CUDA=1 flysim run --run.duration-ms=300 --log.level=warn --run.trials=10 --run.batch=10 \
  --output.spikes="$work/group_one.csv" --output.rates="$work/group_one_rates.csv" > /dev/null
FLY_LIF_CUDA=1 flysim run --run.duration-ms=300 --log.level=warn --run.trials=10 --engine.per-device=3 \
  --output.spikes="$work/group_three.csv" --output.rates="$work/group_three_rates.csv" --output.summary="$(summary_file)" > /dev/null
summary_show engine wall_s_per_simulated_s
check "10 trials: one engine vs 3 engines on the device (spikes)" "$work/group_one.csv" "$work/group_three.csv"
check "10 trials: one engine vs 3 engines on the device (rates)" "$work/group_one_rates.csv" "$work/group_three_rates.csv"
FLY_LIF_CUDA=1 flysim run --run.duration-ms=300 --log.level=warn --run.trials=10 --engine.cuda-devices=0,0 --run.batch=2 \
  --output.spikes="$work/group_two.csv" > /dev/null
check "10 trials: one engine vs engine.cuda-devices=0,0 in batches of 2 each" "$work/group_one.csv" "$work/group_two.csv"
FLY_LIF_CUDA=1 flysim run --run.duration-ms=300 --log.level=warn --run.trials=10 --engine.per-device=2 --engine.fault-after-epochs=40 \
  --output.spikes="$work/group_fallback.csv" --output.summary="$(summary_file)" > /dev/null
summary_show swaps engine
check "10 trials: 2 engines, the first failing (fallback to the CPU pool)" "$work/group_one.csv" "$work/group_fallback.csv"
echo "== flysim screen: cpu == cuda, byte for byte (silence-each + baseline + a second group, 4 trials x 300 ms)"
awk -F, 'NR > 1 && NR <= 6 {print $1}' "$work/cpu_rates.csv" > "$work/each.txt"
for engine in cpu cuda; do
  flysim screen --screen.silence-each="$work/each.txt" --screen.baseline=true --screen.plot=false --screen.spikes=true \
    --stimulus.group.second.ids="$work/group2.txt" --stimulus.group.second.rate=90 --run.trials=4 --run.duration-ms=300 \
    --engine.kind=$engine --log.level=warn --output.dir="$work/screen_$engine" > /dev/null
done
for f in rates.csv readouts.csv spikes.csv; do check "screen $f: cpu vs cuda" "$work/screen_cpu/$f" "$work/screen_cuda/$f"; done
echo "== a stopped CUDA run keeps the prefix of the CPU run (SIGTERM after 5 s)"
FLY_LIF_CUDA=1 "$here/.device/run" flysim run --run.duration-ms=1000000 --log.level=warn --output.spikes="$work/stopped.csv" \
  --output.summary="$(summary_file)" > /dev/null & stopped_pid=$!
sleep 5; kill -TERM "$stopped_pid"; wait "$stopped_pid"; echo "exit code $? (143 expected)"; summary_show status stopped_at
awk -F, 'NR == 1 || $1 == 0' "$work/cpu.csv" > "$work/cpu_trial0.csv"
head -n "$(wc -l < "$work/cpu_trial0.csv")" "$work/stopped.csv" > "$work/stopped_head.csv"
check "stopped cuda run: first 500 ms equal the cpu run's trial 0" "$work/cpu_trial0.csv" "$work/stopped_head.csv"
echo "== swap time, FlyWire-scale state"
flysim run --run.duration-ms=200 --engine.kind=cpu --run.swap-at=100:cuda --log.level=warn --output.summary="$(summary_file)" > /dev/null
summary_show swaps
flysim run --run.duration-ms=200 --engine.kind=cuda --run.swap-at=100:cpu --log.level=warn --output.summary="$(summary_file)" > /dev/null
summary_show swaps

echo "== dense activity: every 10th neuron Poisson-driven at 50 Hz, cpu (every neuron listed, swept block by block) vs cuda"
write_dense_ids "$FLYSIM_DATA_DIR" "$work/dense_ids.txt"
dense=(--stimulus.ids="$work/dense_ids.txt" --stimulus.rate=50 --run.duration-ms=300 --run.trials=2 --log.level=warn)
for t in 1 16; do
  flysim run "${dense[@]}" --engine.kind=cpu --engine.threads=$t --output.spikes="$work/dense_cpu$t.csv" \
    --output.rates="$work/dense_cpu${t}_rates.csv" --output.summary="$(summary_file)" > /dev/null
  summary_show spikes wall_s_per_simulated_s engine
done
flysim run "${dense[@]}" --engine.kind=cuda --output.spikes="$work/dense_cuda.csv" --output.rates="$work/dense_cuda_rates.csv" \
  --output.summary="$(summary_file)" > /dev/null
summary_show spikes wall_s_per_simulated_s engine
check "dense: cpu 1 thread vs 16 threads spikes" "$work/dense_cpu1.csv" "$work/dense_cpu16.csv"
check "dense: cpu vs cuda spikes" "$work/dense_cpu16.csv" "$work/dense_cuda.csv"
check "dense: cpu vs cuda rates" "$work/dense_cpu16_rates.csv" "$work/dense_cuda_rates.csv"

echo "== plasticity through the app (FlyWire-scale, every excitatory connection plastic)"
write_dense_ids "$FLYSIM_DATA_DIR" "$work/dense_ids.txt"
dense=(--stimulus.ids="$work/dense_ids.txt" --stimulus.rate=50 --run.duration-ms=300 --log.level=warn
       --plasticity.enabled=true --plasticity.period-ms=3.6)
flysim run "${dense[@]}" --engine.kind=cpu --engine.threads=16 --plasticity.shards=1 --output.spikes="$work/p_cpu.csv" \
  --plasticity.weights-out="$work/p_cpu_w.csv" --output.summary="$(summary_file)" > /dev/null
summary_show spikes plasticity.shards plasticity.weight_changes plasticity.updates wall_s_per_simulated_s
FLY_LIF_CUDA=1 flysim run "${dense[@]}" --plasticity.shards=4 --output.spikes="$work/p_cuda.csv" \
  --plasticity.weights-out="$work/p_cuda_w.csv" --output.summary="$(summary_file)" > /dev/null
summary_show spikes plasticity.shards plasticity.weight_changes plasticity.updates wall_s_per_simulated_s
check "dense plastic: cpu (1 shard) vs cuda (4 shards) spikes" "$work/p_cpu.csv" "$work/p_cuda.csv"
check "dense plastic: cpu (1 shard) vs cuda (4 shards) learned weights" "$work/p_cpu_w.csv" "$work/p_cuda_w.csv"
rm -f "$work/p_cuda_w.csv"
FLY_LIF_CUDA=1 flysim run "${dense[@]}" --plasticity.shards=16 --output.spikes="$work/p_cuda16.csv" \
  --plasticity.weights-out="$work/p_cuda16_w.csv" --output.summary="$(summary_file)" > /dev/null
summary_show plasticity.shards plasticity.weight_changes plasticity.updates
check "dense plastic: cpu (1 shard) vs cuda (16 shards) spikes" "$work/p_cpu.csv" "$work/p_cuda16.csv"
check "dense plastic: cpu (1 shard) vs cuda (16 shards) learned weights" "$work/p_cpu_w.csv" "$work/p_cuda16_w.csv"
rm -f "$work/p_cuda16_w.csv"
flysim run "${dense[@]}" --engine.kind=cpu --engine.threads=16 --plasticity.shards=2 --run.swap-at=50:cuda,150:cpu,200:cuda \
  --checkpoint.every-ms=100 --checkpoint.dir="$work/pck" --checkpoint.keep=5 \
  --output.spikes="$work/p_swap.csv" --plasticity.weights-out="$work/p_swap_w.csv" --output.summary="$(summary_file)" > /dev/null
summary_show swaps
check "dense plastic: swaps cpu->cuda->cpu->cuda spikes" "$work/p_cpu.csv" "$work/p_swap.csv"
check "dense plastic: swaps learned weights" "$work/p_cpu_w.csv" "$work/p_swap_w.csv"
rm -f "$work/p_swap_w.csv"
pckpt=$(summary_field checkpoints.0)
pstep=$(flysim checkpoint inspect "$pckpt" | awk '/^  step /{print $2}')
echo "restoring $pckpt (written during the swapping run) on cuda with 3 shards"
FLY_LIF_CUDA=1 flysim run --restore="$pckpt" --log.level=warn --plasticity.enabled=true --plasticity.period-ms=3.6 \
  --plasticity.shards=3 --output.spikes="$work/p_restored.csv" --plasticity.weights-out="$work/p_restored_w.csv" > /dev/null
{ head -1 "$work/p_cpu.csv"; awk -F, -v s="$pstep" 'NR > 1 && $2 >= s' "$work/p_cpu.csv"; } > "$work/p_cpu_tail.csv"
check "dense plastic: checkpoint restored on cuda with 3 shards (spikes from step $pstep)" "$work/p_cpu_tail.csv" "$work/p_restored.csv"
check "dense plastic: checkpoint restored on cuda with 3 shards (learned weights)" "$work/p_cpu_w.csv" "$work/p_restored_w.csv"
rm -f "$work"/p_*_w.csv
strong=(--stimulus.ids="$work/dense_ids.txt" --stimulus.rate=50 --run.duration-ms=200 --log.level=warn
        --plasticity.enabled=true --plasticity.period-ms=1.8 --plasticity.a-plus=30000 --plasticity.a-minus=20000)
flysim run "${strong[@]}" --engine.kind=cpu --engine.threads=16 --plasticity.shards=1 --output.spikes="$work/s_cpu.csv" \
  --plasticity.weights-out="$work/s_cpu_w.csv" --output.summary="$(summary_file)" > /dev/null
summary_show plasticity.shards plasticity.weight_changes plasticity.updates
FLY_LIF_CUDA=1 flysim run "${strong[@]}" --plasticity.shards=8 --output.spikes="$work/s_cuda.csv" \
  --plasticity.weights-out="$work/s_cuda_w.csv" --output.summary="$(summary_file)" > /dev/null
summary_show plasticity.shards plasticity.weight_changes plasticity.updates
check "dense, period of one cell, strong rule: cpu (1 shard) vs cuda (8 shards) spikes" "$work/s_cpu.csv" "$work/s_cuda.csv"
check "dense, period of one cell, strong rule: cpu (1 shard) vs cuda (8 shards) learned weights" "$work/s_cpu_w.csv" "$work/s_cuda_w.csv"
rm -f "$work"/s_*_w.csv

# BENCH=0: the checks only (a round that measures by other scripts).
[[ ${BENCH:-1} == 0 ]] && { rm -rf "$work"; exit $status; }
echo "== benchmark"
printf '#!/usr/bin/env bash\nexec "%s/.device/run" flysim "$@"\n' "$here" > "$work/flysim"
chmod +x "$work/flysim"
ENGINES="cpu cuda" bash "$here/bench/bench.sh" "$work/flysim" 1 2 16
echo "== plasticity benchmark"
ENGINES="cuda cpu" THREADS=16 bash "$here/bench/bench_plasticity.sh" "$work/flysim" 1 2 4
rm -rf "$work"
exit $status
