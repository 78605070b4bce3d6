# Shared by the benchmark scripts (sourced, not run): the dense stimulus, the header
# line, and timed runs that read flysim's JSON summary (output.summary).

# The dense stimulus: every 10th root ID of the neuron list (13,864 neurons), into $2.
write_dense_ids() {  # write_dense_ids DATA_DIR FILE
  awk -F, 'NR > 1 && (NR - 2) % 10 == 0 { print $1 }' "$1/Completeness_783.csv" > "$2"
}

# "2026-12-02T15:12Z, 16 cores, CPU model"
machine_line() {
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
}

# A field of the JSON on stdin ("a.b" for a nested one, "a.0" for a list's first item),
# printed with a Python format ("{:.4f}"; default "{}"); a list, one item per line; an
# object, as JSON.
json_field() {  # json_field KEY [FORMAT] < JSON
  python3 -c 'import json, sys
value = json.load(sys.stdin)
for key in sys.argv[1].split("."): value = value[int(key)] if isinstance(value, list) else value[key]
for item in value if isinstance(value, list) else [value]:
    print((sys.argv[2] or "{}").format(json.dumps(item) if isinstance(item, dict) else item))' "$1" "${2:-}"
}

# Where the runs write their JSON summary (output.summary): in the caller's $work.
summary_file() { echo "${work:?bench_lib.sh needs a work folder in $work}/summary.json"; }
# A field of the last run's summary.
summary_field() { json_field "$1" "${2:-}" < "$(summary_file)"; }  # summary_field KEY [FORMAT]

# Runs `FLYSIM ${COMMAND:-run} ARGS...` ${REPEAT:-1} times. Leaves the last run's summary
# in $(summary_file) and sets `wall` to the median wall s per simulated s ("median
# [fastest]" when repeated).
timed_runs() {  # timed_runs FLYSIM ARGS...
  local flysim=$1 walls=() r
  shift
  for ((r = 0; r < ${REPEAT:-1}; ++r)); do
    "$flysim" "${COMMAND:-run}" "$@" --output.summary="$(summary_file)" > /dev/null
    walls+=("$(summary_field wall_s_per_simulated_s '{:.4f}')")
  done
  wall=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR] = $1} END {m = a[int((NR + 1) / 2)]; print (NR > 1 ? m " [" a[1] "]" : m)}')
}

# "KEY value, KEY value" of the last run's summary, for a round's log (a list's items
# joined by "; ").
summary_show() {  # summary_show KEY...
  local key line="  "
  for key; do
    [[ $line != "  " ]] && line+=", "
    line+="$key $(summary_field "$key" | paste -sd ';' - | sed 's/;/; /g')"
  done
  echo "$line"
}

# Fields of the last run's summary, as the text summary prints them.
cpu_per_sim() { summary_field cpu_s_per_simulated_s '{:.4f}'; }
peak_mib() { summary_field peak_memory_mib '{:.0f}'; }

# Median of the numbers on stdin.
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# On the GPU machine: FILE becomes a wrapper that execs the bundled flysim of checkout
# ROOT (.device/run); exec keeps the process ID, so /proc reads its CPU time as for a
# plain binary.
write_device_wrapper() {  # write_device_wrapper ROOT FILE
  printf '#!/bin/sh\nexec "%s/.device/run" flysim "$@"\n' "$1" > "$2"
  chmod +x "$2"
}

# Compares two output files byte for byte and says so; status=1 when they differ.
check() {  # check NAME FILE_A FILE_B
  if cmp -s "$2" "$3"; then echo "identical: $1"; else echo "DIFFERENT: $1"; status=1; fi
}
