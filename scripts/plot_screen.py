#!/usr/bin/env python3
"""Draws flysim screen's picture from DIR/readouts.csv: for a rate grid (experiments named
r<rate>_r2=<rate2>) a heat map of each readout's mean rate over rates x rates2; otherwise a
bar chart per readout of its change from the baseline (or its mean, without a baseline) per
experiment, with the experiment's s.e.m. over its trials as error bars (trial k of every
experiment has the same seed as the baseline's: the runs are paired, not independent).
    python3 scripts/plot_screen.py readouts.csv screen.png [TITLE]"""
import csv
import re
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write the file only
import matplotlib.pyplot as plt  # noqa: E402

GRID = re.compile(r"^r([-+0-9.eE]+)_r2=([-+0-9.eE]+)$")


def heat_map(ax, fig, rows, readout):
    cells = {}
    for r in rows:
        m = GRID.match(r["exp_name"])
        cells[(float(m.group(1)), float(m.group(2)))] = float(r["mean_rate_hz"])
    xs, ys = sorted({k[0] for k in cells}), sorted({k[1] for k in cells})
    grid = [[cells.get((x, y), float("nan")) for x in xs] for y in ys]
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    low, high = image.get_clim()
    ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
    ax.set_yticks(range(len(ys)), [f"{y:g}" for y in ys])
    ax.set_xlabel("stimulus rate (rate_hz), Hz")
    ax.set_ylabel("excite2 rate (rate2_hz), Hz")
    for j, y in enumerate(ys):
        for i, x in enumerate(xs):
            if (x, y) in cells:
                bright = cells[(x, y)] > low + 0.6 * (high - low)  # viridis turns yellow: dark text there
                ax.text(i, j, f"{cells[(x, y)]:.0f}", ha="center", va="center", color="k" if bright else "w", fontsize=8)
    fig.colorbar(image, ax=ax, label="readout mean rate, Hz")


def bars(ax, rows, readout):
    change = all(r["change_hz"] != "" for r in rows)
    shown = [r for r in rows if not (change and r["exp_name"] == "baseline")]
    values = [float(r["change_hz"] if change else r["mean_rate_hz"]) for r in shown]
    colors = ["tab:red" if v < 0 else "tab:blue" for v in values] if change else "tab:blue"
    base = next(r for r in rows if r["exp_name"] == "baseline") if change else None
    ax.bar(range(len(shown)), values, yerr=[float(r["sem_hz"] or 0) for r in shown], capsize=2, color=colors)
    names = [r["exp_name"] for r in shown]
    # Many bars or long names (root IDs) are written slanted, so that they do not overlap.
    slanted = len(shown) > 6 or max((len(n) for n in names), default=0) * len(shown) > 60
    ax.set_xticks(range(len(shown)), names, rotation=60 if slanted else 0, ha="right" if slanted else "center",
                  rotation_mode="anchor" if slanted else "default", fontsize=8 if len(shown) > 20 else 9)
    ax.axhline(0, color="k", linewidth=0.8)
    if change:
        ax.set_ylabel(f"change from baseline ({float(base['mean_rate_hz']):.1f} Hz), Hz")
    else:
        ax.set_ylabel("mean rate, Hz")
    ax.grid(axis="y", alpha=0.3)
    if any(float(r["sem_hz"] or 0) > 0 for r in shown):
        ax.text(0.99, 0.02, "error bars: s.e.m. over the experiment's trials", transform=ax.transAxes, ha="right",
                va="bottom", fontsize=7, color="0.4")


def main(source, target, title):
    rows = list(csv.DictReader(open(source)))
    if not rows:
        sys.exit(f"{source}: no readout rows (no readout neuron in the network?)")
    readouts = list(dict.fromkeys(r["readout_id"] for r in rows))
    experiments = list(dict.fromkeys(r["exp_name"] for r in rows if r["exp_name"] != "baseline"))
    grid = bool(experiments) and all(GRID.match(e) for e in experiments)
    width = 7 if grid else min(18, max(7, 0.35 * len(experiments) + 2))
    fig, axes = plt.subplots(len(readouts), 1, figsize=(width, 4.5 * len(readouts)), squeeze=False)
    for ax, readout in zip(axes[:, 0], readouts):
        mine = [r for r in rows if r["readout_id"] == readout]
        if grid:
            heat_map(ax, fig, [r for r in mine if r["exp_name"] != "baseline"], readout)
        else:
            bars(ax, mine, readout)
        ax.set_title(f"{title}\nreadout {readout}", fontsize=10)
    fig.tight_layout()
    fig.savefig(target, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else "flysim screen")
