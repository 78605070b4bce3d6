#!/usr/bin/env bash
# A long watch of a paced service: flysim serve at real time for DURATION
# seconds with periodic checkpoints, swaps and stimulus changes through the control API;
# every SAMPLE_S seconds a CSV row of resident memory, lag, host cores per role and spikes
# per second; at the end the journal is replayed unpaced and its spikes compared with the
# live ones byte for byte (cmp), and the samples are drawn (bench/plot_watch.py).
#   bench/watch.sh BUILD/flysim [DURATION_S]     (or DURATION=... in the environment; default 180)
#   ENGINE=cuda ...        start on the GPU and swap cuda <-> cpu (default: cpu, swaps between thread counts)
#   OUT=DIR ...            where the CSV, PNG, logs and spike files go (default: watch-YYYYmmdd-HHMMSS)
#   SAMPLE_S=10 ...        seconds between samples
#   CHECKPOINT_MS=30000 ... simulated ms between checkpoints
#   NETWORK="--network.neurons=... --network.connectivity=..." (default: the FlyWire-scale synthetic network)
#   THREADS=2 ...          engine.threads of the CPU pool
# Exit code: 0 when the replay's spikes are identical, 1 otherwise.
set -euo pipefail
flysim=$(realpath "${1:?usage: watch.sh PATH/TO/flysim [DURATION_S]}")
duration=${2:-${DURATION:-180}}
engine=${ENGINE:-cpu}
sample_s=${SAMPLE_S:-10}
threads=${THREADS:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench_lib.sh"
out=$(realpath -m "${OUT:-watch-$(date +%Y%m%d-%H%M%S)}")
mkdir -p "$out"
serve_pid=
trap '[[ -n $serve_pid ]] && kill "$serve_pid" 2> /dev/null || true' EXIT

# shellcheck disable=SC2206
network=(${NETWORK:-})
"$flysim" serve "${network[@]}" --engine.kind="$engine" --engine.threads="$threads" --control.port=0 \
  --output.spikes="$out/live.csv" --output.journal="$out/journal.jsonl" --checkpoint.dir="$out/ckpt" \
  --checkpoint.every-ms="${CHECKPOINT_MS:-30000}" > "$out/serve.out" 2> "$out/serve.err" &
serve_pid=$!
until port=$(sed -n 's|.*control API on http://[^:]*:\([0-9]*\).*|\1|p' "$out/serve.out" 2> /dev/null) && [[ -n $port ]]; do
  kill -0 "$serve_pid" 2> /dev/null || { echo "watch: flysim serve ended before its control API was up:" >&2; cat "$out/serve.err" >&2; exit 1; }
  sleep 0.2
done
ctl() { "$flysim" ctl "$@" --control.port="$port" >> "$out/ctl.log" 2>&1 || echo "watch: ctl $* failed (see ctl.log)" >&2; }
echo "# flysim watch: engine $engine, $duration s, $(machine_line)" | tee "$out/watch.txt"
echo "watch: service on port $port, pid $serve_pid, outputs in $out"

# What happens when (fractions of the duration): stimulus changes and swaps.
if [[ $engine == cuda ]]; then
  swaps=("swap cpu --threads=$threads" "swap cuda" "swap cpu --threads=1" "swap cuda")
else
  swaps=("swap cpu --threads=1" "swap cpu --threads=$threads" "swap cpu --threads=1" "swap cpu --threads=$threads")
fi
actions=("0.15:stimulus --rate=200" "0.25:${swaps[0]}" "0.40:stimulus --rate=120" "0.50:${swaps[1]}"
         "0.60:stimulus --rate=150" "0.70:${swaps[2]}" "0.85:${swaps[3]}")

roles="simloop engine gpu plasticity recorder checkpointer http caf main other"
echo "t_s,rss_mib,lag_ms,lag_p99_ms,lag_max_ms,spikes_per_s,process_cores,$(tr ' ' , <<< "$roles"),running_engine" > "$out/watch.csv"
# One CSV row from the status JSON on stdin, with resident memory $1 (MiB) and time $2.
sample_row() {
  python3 -c '
import json, sys
s = json.load(sys.stdin)
roles = {r["role"]: r["cores"] for r in s["cost"]["roles"]}
cols = [sys.argv[2], sys.argv[1], s["lag_ms"], s["lag_p99_ms"], s["lag_max_ms"], s["spikes_per_simulated_s"],
        s["cost"]["process_cores"]] + [roles.get(r, 0) for r in sys.argv[3].split()] + ["\"" + s["engine"] + "\""]
print(",".join(str(c) for c in cols))' "$1" "$2" "$roles"
}

start=$(date +%s.%N)
next_action=0
for ((t = sample_s; t <= duration; t += sample_s)); do
  # Sleep to the next sample time (measured from the start, so the rows do not drift).
  sleep "$(awk -v s="$start" -v t="$t" -v now="$(date +%s.%N)" 'BEGIN {d = s + t - now; print (d > 0 ? d : 0)}')"
  while ((next_action < ${#actions[@]})); do
    at=${actions[next_action]%%:*}
    awk -v at="$at" -v t="$t" -v d="$duration" 'BEGIN {exit !(t >= at * d)}' || break
    # shellcheck disable=SC2086
    ctl ${actions[next_action]#*:}
    echo "watch: t=${t}s: ${actions[next_action]#*:}"
    next_action=$((next_action + 1))
  done
  rss_kib=$(awk '/^VmRSS/ {print $2}' "/proc/$serve_pid/status")
  curl -s "localhost:$port/status" | sample_row "$(awk -v k="$rss_kib" 'BEGIN {print k / 1024}')" "$t" >> "$out/watch.csv"
  tail -1 "$out/watch.csv"
done

ctl stop
wait "$serve_pid"
serve_pid=
"$flysim" run --replay="$out/journal.jsonl" --output.spikes="$out/replay.csv" > "$out/replay.out" 2> "$out/replay.err"
if cmp -s "$out/live.csv" "$out/replay.csv"; then
  verdict="identical"
else
  verdict="DIFFERENT"
fi
# The python that has Debian's python3-matplotlib (a python3 earlier in PATH may lack it).
plot_python=python3
python3 -c 'import matplotlib' 2> /dev/null || plot_python=/usr/bin/python3
"$plot_python" "$here/bench/plot_watch.py" "$out/watch.csv" "$out/watch.png" "flysim watch, engine $engine, $duration s" ||
  echo "watch: no picture (python3-matplotlib missing? scripts/setup.sh installs it)" >&2
python3 - "$out/watch.csv" "$verdict" "$(wc -l < "$out/live.csv")" << 'EOF_PY' | tee -a "$out/watch.txt"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rss = [float(r["rss_mib"]) for r in rows]
# Growth from the first sample after the first minute (the caches have filled by then).
base = next((float(r["rss_mib"]) for r in rows if float(r["t_s"]) >= 60), rss[0])
print(f"samples: {len(rows)}; resident memory {rss[0]:.0f} -> {rss[-1]:.0f} MiB, growth after the first minute "
      f"{100 * (rss[-1] - base) / base:+.2f}%")
print(f"lag: max of the windows' maxima {max(float(r['lag_max_ms']) for r in rows):.1f} ms, "
      f"largest p99 {max(float(r['lag_p99_ms']) for r in rows):.1f} ms")
print(f"host cores (process): mean {sum(float(r['process_cores']) for r in rows) / len(rows):.3f}")
print(f"replayed spikes: {sys.argv[2]} ({int(sys.argv[3]) - 1} spikes)")
EOF_PY
grep -E "^  (lag|swap|checkpoints)" "$out/serve.out" | tee -a "$out/watch.txt"
[[ $verdict == identical ]]
