#!/usr/bin/env bash
# One round on the GPU machine that compares builds of flysim bundled in .device
# (bench/gpu_round.sh says how): each candidate's CUDA tests (flysim_gpu_tests_NAME
# beside flysim_NAME, flysim_gpu_tests beside flysim), the screen alternated
# (bench/bench_screen_builds.sh, files compared with the first build's), the fastest
# candidate through bench/gpu_round.sh (BENCH=0), then ncu of the epoch's kernels for
# the first build and the fastest. A measurement, not a test.
#   bash bench/gpu_builds_round.sh flysim_base flysim flysim_warp
#   N=300 ROUNDS=2 LIMIT=540 ...   (LIMIT: seconds the whole round may take; later parts are left out)
set -uo pipefail
(( $# >= 2 )) || { echo "usage: gpu_builds_round.sh BASE_NAME NAME [NAME...] (names of .device/run)" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
export FLYSIM_DATA_DIR=$here/data FLYSIM_TEST_DATA_DIR=$here/tests/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)
left() { echo $(( ${LIMIT:-540} - ($(date +%s) - t0) )); }
paths=()
for name in "$@"; do
  printf '#!/usr/bin/env bash\nexec "%s/.device/run" %s "$@"\n' "$here" "$name" > "$work/$name"
  chmod +x "$work/$name"
  paths+=("$work/$name")
done
status=0
for name in "${@:2}"; do
  tests=${name/flysim/flysim_gpu_tests}
  echo "== CUDA tests of $name ($tests)"
  timeout 150 "$here/.device/run" "$tests" --gtest_brief=1 2>&1 | tail -3
  (( PIPESTATUS[0] == 0 )) || status=1
done
echo "== the screen, alternated (at $(( $(date +%s) - t0 )) s)"
ENGINE=cuda N=${N:-300} TRIALS=${TRIALS:-30} bash "$here/bench/bench_screen_builds.sh" "${paths[@]}" | tee "$work/screens.txt"
(( PIPESTATUS[0] == 0 )) || status=1
# The fastest candidate by the sum of its rounds' figures (the last number but four of each line).
best=$(awk -v base="$work/$1" '$1 == "round" && $3 != base {sum[$3] += $(NF-4)} END {for (b in sum) if (sum[b] > top) {top = sum[b]; name = b}; print name}' "$work/screens.txt")
best=$(basename "${best:-$2}")
echo "== bench/gpu_round.sh with $best (at $(( $(date +%s) - t0 )) s)"
if [[ $best != flysim ]]; then
  cp "$here/.device/bin/$best" "$here/.device/bin/flysim"
  cp "$here/.device/bin/${best/flysim/flysim_gpu_tests}" "$here/.device/bin/flysim_gpu_tests"
fi
BENCH=0 timeout "$(left)" bash "$here/bench/gpu_round.sh" > "$work/gpu_round.log" 2>&1 || status=1
grep -c "^identical" "$work/gpu_round.log" | sed 's/$/ identical/'
grep -E "PASSED|FAILED|DIFFERENT" "$work/gpu_round.log"
for name in "$1" "$best"; do
  (( $(left) > 30 )) || break
  echo "== ncu, $name: mean us, DRAM MB read, written per launch (60 launches of each kernel)"
  timeout 45 /usr/local/cuda/bin/ncu --target-processes all -k regex:"sort_paths|stepwise|scatter_last" --launch-skip 200 \
    --launch-count 60 --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv \
    "$here/.device/run" "$name" run --engine.kind=cuda --run.trials=30 --run.batch=30 --run.duration-ms=300 \
    --log.level=warn 2>/dev/null |
    awk -F'","' 'NF >= 15 && $1 != "\"ID" {k = $5; sub(/\(.*/, "", k); v = $NF; gsub(/[",]/, "", v); s[k, $(NF-2)] += v; n[k, $(NF-2)]++; ks[k] = 1}
      END {for (k in ks) printf "%-28s %9.1f %9.1f %9.1f\n", k, s[k, "gpu__time_duration.sum"] / n[k, "gpu__time_duration.sum"] / 1000,
        s[k, "dram__bytes_read.sum"] / n[k, "dram__bytes_read.sum"] / 1e6, s[k, "dram__bytes_write.sum"] / n[k, "dram__bytes_write.sum"] / 1e6}'
done
echo "round done in $(( $(date +%s) - t0 )) s, status $status"
exit $status
