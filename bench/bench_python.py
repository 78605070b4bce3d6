#!/usr/bin/env python3
"""N one-second experiments (stimulus rates 100, 101, ... Hz, TRIALS trials each) on net2000
as one `flysim screen` process and as one Python process calling flysim.screen on one
loaded network. Prints both wall times (the whole process: start, network from the cache,
the experiments, the tables) and their ratio, and checks that the readouts agree.
A measurement, not a test.
    PYTHONPATH=build/python /usr/bin/python3 bench/bench_python.py build/flysim [N] [TRIALS] [REPEATS]
"""
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
NET = ROOT / "tests" / "data" / "net2000"

PYTHON_SCREEN = """
import sys, time
import flysim
net = flysim.load_network(sys.argv[1] + "/neurons.csv", sys.argv[1] + "/connectivity.csv")
ids = flysim.read_id_list(sys.argv[1] + "/stimulated.txt")
n, trials = int(sys.argv[2]), int(sys.argv[3])
experiments = {f"r{100 + k}": {"stimulus": {"s": (ids, 100.0 + k)}} for k in range(n)}
start = time.monotonic()
res = flysim.screen(net, experiments, readouts=[int(ids[5])], trials=trials, duration_ms=1000)
print(time.monotonic() - start)
res.readouts.to_csv(sys.argv[4], index=False)
"""


def timed(args, fresh=None):
    """(wall seconds of the process, its stdout); `fresh`, a folder, is removed first (a screen's output folder)."""
    if fresh is not None:
        shutil.rmtree(fresh, ignore_errors=True)
    start = time.monotonic()
    out = subprocess.run(args, check=True, stdout=subprocess.PIPE, text=True).stdout
    return time.monotonic() - start, out


def main():
    flysim = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build" / "flysim")
    n, trials, repeats = (int(a) for a in (sys.argv[2:] + ["50", "1", "3"][len(sys.argv) - 2:])[:3])
    ids = [int(x) for x in (NET / "stimulated.txt").read_text().split() if x.strip() and not x.startswith("#")]
    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "experiments.csv"
        table.write_text("name,rate_hz\n" + "".join(f"r{100 + k},{100 + k}\n" for k in range(n)))
        program = [flysim, "screen", f"--network.neurons={NET / 'neurons.csv'}",
                   f"--network.connectivity={NET / 'connectivity.csv'}", f"--stimulus.ids={NET / 'stimulated.txt'}",
                   f"--screen.experiments={table}", f"--run.trials={trials}", "--run.duration-ms=1000",
                   f"--screen.readouts={ids[5]}", "--screen.plot=false", f"--output.dir={tmp}/out", "--log.level=warn"]
        python = [sys.executable, "-c", PYTHON_SCREEN, str(NET), str(n), str(trials), f"{tmp}/py_readouts.csv"]
        timed(program, f"{tmp}/out")  # the network into the cache
        walls = {"flysim screen": [], "flysim.screen (Python)": [], "the flysim.screen call alone": []}
        for _ in range(repeats):  # alternated, the best of each
            walls["flysim screen"].append(timed(program, f"{tmp}/out")[0])
            wall, out = timed(python)
            walls["flysim.screen (Python)"].append(wall)
            walls["the flysim.screen call alone"].append(float(out))
        cli = pd.read_csv(f"{tmp}/out/readouts.csv")
        py = pd.read_csv(f"{tmp}/py_readouts.csv")
        # The program prints 6 significant digits; Python keeps the doubles.
        same = len(cli) == len(py) and bool(((cli["mean_rate_hz"] - py["mean_rate_hz"]).abs()
                                             <= 5e-6 * py["mean_rate_hz"].abs().clip(lower=1)).all())
    best = {k: min(v) for k, v in walls.items()}
    for k, v in walls.items():
        print(f"{k:30s} best {best[k]:.2f} s of {', '.join(f'{w:.2f}' for w in v)}")
    print(f"{n} experiments x {trials} trials x 1 s; Python / program: {best['flysim.screen (Python)'] / best['flysim screen']:.2f}x; "
          f"same readouts: {same}")


if __name__ == "__main__":
    main()
