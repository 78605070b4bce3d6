#!/usr/bin/env bash
# The Brian2 fixtures of tests/cli/reference_silence_test.cpp, made by bench/brian2_run.py
# (Brian2 2.5.1 C++ standalone, Debian's python3-brian) on this folder's network:
#   silenced.txt                           the 20 neurons silenced: of brian_kicks.csv's
#                                          busiest, the 15 not kicked and the 5 kicked
#   brian_kicks_silenced_outgoing.csv      kicks.csv, silenced.txt outgoing (step,neuron_id)
#   brian_kicks_silenced_both.csv          the same, outgoing and incoming
#   exc2.txt                               the 20 busiest kicked neurons of brian_kicks.csv
#                                          not in stimulated.txt: the second Poisson group
#   silenced_poisson.txt                   the 10 lowest IDs of stimulated.txt: driven, so
#                                          they spike, and reach no one (silencing the
#                                          responders of this sparse network would change
#                                          few rates)
#   brian_poisson_rates.csv                stimulated.txt at 150 Hz, exc2.txt at 60 Hz,
#                                          silenced_poisson.txt outgoing, 30 trials x 1 s from rest,
#                                          Brian2's seed 1: per-neuron mean rates
#                                          (neuron_id,spikes,rate_hz; neurons that spiked)
#   bash tests/data/net2000/make_brian_fixtures.sh        (WORK=DIR keeps Brian2's builds; default a temporary folder)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run=$(cd "$here/../../../bench" && pwd)/brian2_run.py
python=/usr/bin/python3  # Debian's, where python3-brian installs brian2
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"

"$python" - "$here" <<'PY'
import collections, sys
here = sys.argv[1]
rows = lambda name: [line.strip().split(",") for line in open(f"{here}/{name}").readlines()[1:] if line.strip()]
kicked = {r[1] for r in rows("kicks.csv")}
stimulated = {line.strip() for line in open(f"{here}/stimulated.txt") if line.strip()}
counts = collections.Counter(r[1] for r in rows("brian_kicks.csv"))
ranked = sorted(counts, key=lambda i: (-counts[i], int(i)))  # busiest first, ties by ID
silenced = [i for i in ranked if i not in kicked][:15] + [i for i in ranked if i in kicked][:5]
exc2 = [i for i in ranked if i in kicked and i not in stimulated][:20]
silenced_poisson = sorted(stimulated, key=int)[:10]
for name, ids in (("silenced.txt", silenced), ("exc2.txt", exc2), ("silenced_poisson.txt", silenced_poisson)):
    with open(f"{here}/{name}", "w") as f:
        f.writelines(f"{i}\n" for i in sorted(ids, key=int))
PY

net=("$here/neurons.csv" "$here/connectivity.csv")
for mode in outgoing both; do
  "$python" "$run" "${net[@]}" "$here/kicks.csv" "$here/brian_kicks_silenced_$mode.csv" "$work/kicks_$mode" 1000 \
    --silence="$here/silenced.txt" --silence-mode=$mode
done
"$python" "$run" "${net[@]}" - "$work/poisson_spikes.csv" "$work/poisson" 1000 \
  --poisson="$here/stimulated.txt" --rate=150 --poisson2="$here/exc2.txt" --rate2=60 \
  --silence="$here/silenced_poisson.txt" --silence-mode=outgoing --trials=30 --seed=1 --rates="$here/brian_poisson_rates.csv"
