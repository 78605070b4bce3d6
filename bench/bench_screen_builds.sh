#!/usr/bin/env bash
# Two or more builds of flysim on the same screen (bench/bench_screen.sh), alternated
# round by round so that drift on a shared machine falls on all of them alike; then
# their rates.csv and readouts.csv compared with the first build's (cmp). A
# measurement, not a test.
#   ENGINE=cuda N=300 bench/bench_screen_builds.sh BASE/flysim NEW/flysim
#   ROUNDS=3 NET=tests/data/net2000 N=20 bench/bench_screen_builds.sh A/flysim B/flysim
# Every variable of bench_screen.sh passes through (ENGINE, N, TRIALS, NET, PERDEV, ...).
set -uo pipefail
(( $# >= 2 )) || { echo "usage: bench_screen_builds.sh BUILD_A/flysim BUILD_B/flysim [MORE...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench_lib.sh"  # check
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
  for ((b = 1; b <= $#; b++)); do
    build=${!b}
    if ! KEEP="$work/files_${b}_$r" bash "$here/bench/bench_screen.sh" "$build" > "$work/out_${b}_$r.txt" 2>&1; then
      echo "round $r, $build: the screen failed:" >&2; tail -5 "$work/out_${b}_$r.txt" >&2; status=1; continue
    fi
    echo "round $r  $build  $(tail -1 "$work/out_${b}_$r.txt")"
  done
done
for ((b = 2; b <= $#; b++)); do
  for f in rates.csv readouts.csv; do check "$f of $1 and ${!b}" "$work/files_1_1/$f" "$work/files_${b}_1/$f"; done
done
exit $status
