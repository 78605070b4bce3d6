#!/usr/bin/env python3
"""Draws bench/watch.sh's samples: resident memory, lag, host cores per role and spikes per
second against time, one panel each, so that drift is seen at a glance.
    python3 bench/plot_watch.py watch.csv watch.png [TITLE]"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write the file only
import matplotlib.pyplot as plt  # noqa: E402

ROLES = ["simloop", "engine", "gpu", "plasticity", "recorder", "checkpointer", "http", "caf", "main", "other"]


def main(source, target, title):
    rows = list(csv.DictReader(open(source)))
    if not rows:
        sys.exit(f"{source}: no samples")
    t = [float(r["t_s"]) / 60 for r in rows]
    column = lambda name: [float(r[name]) for r in rows]  # noqa: E731
    fig, axes = plt.subplots(4, 1, figsize=(9, 11), sharex=True)
    axes[0].plot(t, column("rss_mib"))
    axes[0].set_ylabel("resident memory, MiB")
    for name in ("lag_ms", "lag_p99_ms", "lag_max_ms"):
        axes[1].plot(t, column(name), label=name.replace("_ms", ""))
    axes[1].set_ylabel("lag behind the pace, ms")
    axes[1].legend(loc="upper right")
    axes[2].plot(t, column("process_cores"), label="process", color="black")
    for role in ROLES:
        values = column(role)
        if max(values) > 0.001:
            axes[2].plot(t, values, label=role)
    axes[2].set_ylabel("host cores")
    axes[2].legend(loc="upper right", ncol=3, fontsize="small")
    axes[3].plot(t, column("spikes_per_s"))
    axes[3].set_ylabel("spikes per simulated s")
    axes[3].set_xlabel("wall time, minutes")
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(target, dpi=100)
    print(f"plot: {target}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "flysim watch")
