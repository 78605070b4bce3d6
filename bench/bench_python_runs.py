#!/usr/bin/env python3
"""N one-trial experiments (the sugar GRNs at 100, 101, ... Hz) on the default FlyWire-scale
network: as N `flysim run` processes; as one Python process that loads the network once and
calls flysim.run N times (the engine, and on a GPU its context, kept between calls); as one
Python process that calls flysim.screen once (on a GPU, 4 engines at once); and as one
`flysim screen` process. Prints the wall times (whole processes) and their ratios, and
checks that each experiment's spike count agrees between the processes and both Python
ways. Needs numpy only. A measurement, not a test.
    PYTHONPATH=build/python python3 bench/bench_python_runs.py build/flysim [N] [ENGINE]   (ENGINE cpu or cuda)
"""
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON_RUNS = """
import json, sys
import flysim
net = flysim.load_network()
ids = flysim.sugar_ids()
counts = [flysim.run(net, {"sugar": (ids, 100.0 + k)}, trials=1, engine=sys.argv[2]).summary["spikes"] for k in range(int(sys.argv[1]))]
print(json.dumps(counts))
"""

PYTHON_SCREEN = """
import json, sys
import flysim
net = flysim.load_network()
ids = flysim.sugar_ids()
experiments = [(f"r{100 + k}", {"stimulus": {"sugar": (ids, 100.0 + k)}}) for k in range(int(sys.argv[1]))]
res = flysim.screen(net, experiments, trials=1, engine=sys.argv[2])
print(json.dumps([r.summary["spikes"] for r in res.results.values()]))
"""


def main():
    flysim = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    engine = sys.argv[3] if len(sys.argv) > 3 else "cuda"
    with tempfile.TemporaryDirectory() as tmp:
        # The network into the cache first (both sides read it from there).
        subprocess.run([flysim, "run", "--run.duration-ms=1", "--log.level=warn"], check=True, stdout=subprocess.DEVNULL)
        start = time.monotonic()
        counts = []
        for k in range(n):
            summary = Path(tmp) / f"s{k}.json"
            subprocess.run([flysim, "run", f"--engine.kind={engine}", "--run.trials=1", f"--stimulus.rate={100 + k}",
                            "--log.level=warn", f"--output.summary={summary}"], check=True, stdout=subprocess.DEVNULL)
            counts.append(json.loads(summary.read_text())["spikes"])
        processes = time.monotonic() - start
        python, same = {}, True
        for name, script in (("run", PYTHON_RUNS), ("screen", PYTHON_SCREEN)):
            start = time.monotonic()
            out = subprocess.run([sys.executable, "-c", script, str(n), engine], check=True, stdout=subprocess.PIPE,
                                 text=True).stdout
            python[name] = time.monotonic() - start
            same = same and json.loads(out.strip().splitlines()[-1]) == counts
        table = Path(tmp) / "experiments.csv"
        table.write_text("name,rate_hz\n" + "".join(f"r{100 + k},{100 + k}\n" for k in range(n)))
        start = time.monotonic()
        subprocess.run([flysim, "screen", f"--engine.kind={engine}", f"--screen.experiments={table}", "--run.trials=1",
                        "--screen.plot=false", f"--output.dir={tmp}/screen", "--log.level=warn"], check=True,
                       stdout=subprocess.DEVNULL)
        program = time.monotonic() - start
    print(f"# {n} one-trial experiments, engine {engine}, FlyWire-scale network")
    print(f"{n} flysim run processes              {processes:8.2f} s")
    print(f"one Python process, flysim.run x {n}   {python['run']:8.2f} s   ({processes / python['run']:.1f}x faster "
          f"than the processes, {python['run'] / program:.2f}x one flysim screen)")
    print(f"one Python process, flysim.screen     {python['screen']:8.2f} s   ({processes / python['screen']:.1f}x faster "
          f"than the processes, {python['screen'] / program:.2f}x one flysim screen)")
    print(f"one flysim screen process             {program:8.2f} s")
    print("spike counts per experiment:", "identical" if same else "DIFFERENT")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
