#!/usr/bin/env python3
"""Draws flysim sweep's dose-response curve: each readout neuron's mean rate against the
stimulus rate, with the standard error of the mean as error bars, from DIR/sweep.csv.
    python3 scripts/plot_sweep.py sweep.csv sweep.png sweep.svg [TITLE]"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write the files only
import matplotlib.pyplot as plt  # noqa: E402


def main(source, targets, title):
    rows = list(csv.DictReader(open(source)))
    if not rows:
        sys.exit(f"{source}: no rows")
    fig, ax = plt.subplots(figsize=(7, 5))
    for readout in dict.fromkeys(r["readout_id"] for r in rows):
        mine = [r for r in rows if r["readout_id"] == readout]
        ax.errorbar([float(r["stimulus_rate_hz"]) for r in mine], [float(r["mean_rate_hz"]) for r in mine],
                    yerr=[float(r["sem_hz"] or 0) for r in mine], marker="o", capsize=3,
                    label=f"{readout} ({mine[0]['trials']} trials)")
    ax.set_xlabel("stimulus rate, Hz")
    ax.set_ylabel("readout rate, Hz (mean ± s.e.m.)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    for target in targets:
        fig.savefig(target)


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:4], sys.argv[4] if len(sys.argv) == 5 else "flysim sweep")
