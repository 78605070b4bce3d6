#!/usr/bin/env python3
"""The sugar experiment from Python: MN9's rate when the sugar-sensing neurons fire, how it
grows with their Poisson rate, and which upstream neurons it needs (silencing each in turn).
Draws sugar_mn9.png.

    PYTHONPATH=build/python /usr/bin/python3 examples/sugar_mn9.py [--small] [--out FILE]

The default: the synthetic FlyWire-scale network, data/sugar_grn_783.txt and MN9.
--small: tests/data/net2000 (2000 neurons), its stimulated neurons, and as readout the
neuron that responds most without being driven (net2000 has no MN9): seconds on a laptop.
"""
import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: write the file only
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import flysim  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RATES_HZ = [25, 50, 100, 150, 200]  # the dose-response sweep
SILENCED = 5  # responders silenced one at a time


def readout_rate(result, root_id):
    """(mean, sd) of the neuron's rate over the trials of a RunResult, Hz (0 when silent)."""
    row = result.rates_of(root_id).iloc[0]
    return float(row["mean_rate_hz"]), float(row["sd_hz"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="tests/data/net2000: runs in seconds")
    parser.add_argument("--out", default="sugar_mn9.png", help="the picture (default: sugar_mn9.png)")
    parser.add_argument("--trials", type=int, default=None, help="trials per experiment (default: 10, --small 8)")
    args = parser.parse_args()

    if args.small:
        net_dir = ROOT / "tests" / "data" / "net2000"
        net = flysim.load_network(net_dir / "neurons.csv", net_dir / "connectivity.csv")
        sugar = flysim.read_id_list(net_dir / "stimulated.txt")
    else:
        net = flysim.load_network()
        sugar = flysim.sugar_ids()
    trials = args.trials or (8 if args.small else 10)
    common = {"trials": trials, "duration_ms": 1000}
    print(f"{net!r}: {len(sugar)} sugar neurons, {trials} trials of 1 s per experiment")

    # The sugar experiment: the sugar neurons at 150 Hz.
    sugar_run = flysim.run(net, stimulus={"sugar": (sugar, 150.0)}, **common)
    rates = sugar_run.rates.sort_values("mean_rate_hz", ascending=False)
    responders = rates[~rates["flywire_id"].isin(sugar)]["flywire_id"].tolist()
    # The readout's name in the text and the picture; its root ID goes in the title.
    readout, name = (responders[0], "readout") if args.small else (flysim.MN9, "MN9")
    mean, sd = readout_rate(sugar_run, readout)
    print(f"sugar at 150 Hz: {name} fires at {mean:.1f} ± {sd:.1f} Hz ({sugar_run.summary['wall_s']:.1f} s)")

    # Dose response: one run per sugar rate, on the engine kept on `net`.
    dose = [readout_rate(flysim.run(net, stimulus={"sugar": (sugar, rate)}, **common), readout) for rate in RATES_HZ]
    for rate, (m, s) in zip(RATES_HZ, dose):
        print(f"  sugar at {rate:3d} Hz: {name} {m:6.1f} ± {s:.1f} Hz")

    # Silencing screen: the strongest other responders one at a time, and half the sugar
    # neurons (their outgoing synapses) for comparison.
    candidates = [i for i in responders if i != readout][:SILENCED]
    experiments = {"baseline": {}}
    experiments.update({str(i): {"silence": [i]} for i in candidates})
    experiments[f"{len(sugar) // 2} of the sugar neurons"] = {"silence": sugar[:len(sugar) // 2]}
    screen = flysim.screen(net, experiments, readouts=[readout], stimulus={"sugar": (sugar, 150.0)}, **common)
    table = screen.readouts[screen.readouts["exp_name"] != "baseline"]
    for _, row in table.iterrows():
        print(f"  silencing {row['exp_name']}: {name} changes by {row['change_hz']:+.1f} Hz")

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [1, 1.3]})
    means, sds = np.array(dose).T
    left.errorbar(RATES_HZ, means, yerr=sds, marker="o", capsize=3)
    left.set_xlabel("sugar neurons' Poisson rate (Hz)")
    left.set_ylabel(f"{name} rate (Hz), mean ± sd")
    left.set_title("dose response")
    left.set_ylim(bottom=0)
    left.grid(alpha=0.3)
    change, sem = table["change_hz"].astype(float).to_numpy(), table["sem_hz"].astype(float).to_numpy()
    positions = np.arange(len(table))
    right.barh(positions, change, xerr=sem, capsize=3, color=np.where(change < 0, "tab:red", "tab:green"))
    right.set_yticks(positions, [str(n) for n in table["exp_name"]], fontsize=8)
    right.invert_yaxis()
    right.axvline(0, color="black", linewidth=0.8)
    right.set_xlabel(f"change in {name} rate (Hz), ± s.e.m.")
    right.set_title(f"silencing at 150 Hz (baseline {screen.readouts['mean_rate_hz'].iloc[0]:.1f} Hz)")
    right.grid(axis="x", alpha=0.3)
    fig.suptitle(f"Sugar → {name} ({readout}): {len(net)} neurons, {trials} trials of 1 s per point")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
