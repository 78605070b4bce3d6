# Shared by the benchmark scripts (sourced, not run): the dense stimulus, the header
# line, and timed runs that parse flysim's summary.

# The dense stimulus: every 10th root ID of the neuron list (13,864 neurons), into $2.
write_dense_ids() {  # write_dense_ids DATA_DIR FILE
  awk -F, 'NR > 1 && (NR - 2) % 10 == 0 { print $1 }' "$1/Completeness_783.csv" > "$2"
}

# "2026-12-02T15:12Z, 16 cores, CPU model"
machine_line() {
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
}

# Runs `FLYSIM ${COMMAND:-run} ARGS...` ${REPEAT:-1} times. Sets `out` to the last run's
# summary and `wall` to the median wall s per simulated s ("median [fastest]" when repeated).
timed_runs() {  # timed_runs FLYSIM ARGS...
  local flysim=$1 walls=() r
  shift
  for ((r = 0; r < ${REPEAT:-1}; ++r)); do
    out=$("$flysim" "${COMMAND:-run}" "$@")
    walls+=("$(sed -n 's/.*s, \([0-9.]*\) wall s per simulated s.*/\1/p' <<< "$out")")
  done
  wall=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR] = $1} END {m = a[int((NR + 1) / 2)]; print (NR > 1 ? m " [" a[1] "]" : m)}')
}

# Fields of the summary in `out`.
cpu_per_sim() { sed -n 's/.*s, \([0-9.]*\) cpu s per simulated s.*/\1/p' <<< "$out"; }
peak_mib() { sed -n 's/.*memory *\([0-9]*\) MiB peak.*/\1/p' <<< "$out"; }

# Median of the numbers on stdin.
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
