#!/usr/bin/python3
"""The reference model (docs/MODEL.md) in Brian2 C++ standalone, one thread:
the network of a FlyWire connectivity CSV driven by timed kicks (a `step,neuron_id` CSV,
as flysim's stimulus.kicks). Writes every spike as `step,neuron_id` (sorted) and prints
the loop time of the run (Brian2's own clock around the simulation loop, without code
generation, compilation or loading) as `brian2_loop_s <seconds>`.

    brian2_run.py NEURONS.csv CONNECTIVITY.csv KICKS.csv SPIKES_OUT.csv BUILD_DIR [DURATION_MS]

Debian's python3-brian (2.5.1). The model is Shiu et al.'s with docs/MODEL.md's discard rule
written out: synaptic input and kicks to a refractory neuron (one that spiked this step
included) are dropped, `int(not_refractory_post)`."""
import os
import sys

import numpy as np


def read_numeric_csv(path, width):
    """A CSV of integers with a header line, as an int64 array of `width` columns (read in
    chunks and parsed by numpy: FlyWire's 15 million rows in seconds, without pandas)."""
    parts = []
    with open(path, "rb") as f:
        f.readline()
        rest = b""
        while True:
            chunk = f.read(1 << 26)
            if not chunk:
                break
            chunk = rest + chunk
            cut = chunk.rfind(b"\n") + 1
            rest = chunk[cut:]
            parts.append(np.fromstring(chunk[:cut].replace(b"\n", b","), dtype=np.int64, sep=","))
        if rest.strip():
            parts.append(np.fromstring(rest, dtype=np.int64, sep=","))
    return np.concatenate(parts).reshape(-1, width) if parts else np.zeros((0, width), dtype=np.int64)


def main():
    neurons_csv, connectivity_csv, kicks_csv, spikes_out, build_dir = sys.argv[1:6]
    duration_ms = float(sys.argv[6]) if len(sys.argv) > 6 else 1000.0

    with open(neurons_csv) as f:
        f.readline()
        ids = np.array([int(line.split(",")[0]) for line in f if line.strip()], dtype=np.int64)
    index_of = {int(x): k for k, x in enumerate(ids)}
    connections = read_numeric_csv(connectivity_csv, 7)
    pre, post, signed = connections[:, 2], connections[:, 3], connections[:, 6]
    kick_table = read_numeric_csv(kicks_csv, 2)
    kick_steps, kick_ids = kick_table[:, 0], kick_table[:, 1]
    kick_neurons = np.array([index_of[int(x)] for x in kick_ids], dtype=np.int64)

    from brian2 import (NeuronGroup, Synapses, SpikeGeneratorGroup, SpikeMonitor, defaultclock, device, ms, mV,
                        prefs, run, set_device)

    set_device("cpp_standalone", directory=build_dir, build_on_run=False)
    prefs.devices.cpp_standalone.openmp_threads = 0
    defaultclock.dt = 0.1 * ms
    params = dict(v_0=-52 * mV, v_rst=-52 * mV, v_th=-45 * mV, t_mbr=20 * ms, tau=5 * ms, t_ref=2.2 * ms,
                  w_syn=0.275 * mV, f_poi=250)
    eqs = """
    dv/dt = (v_0 - v + g) / t_mbr : volt (unless refractory)
    dg/dt = -g / tau              : volt (unless refractory)
    rfc                           : second
    """
    neu = NeuronGroup(len(ids), eqs, method="linear", threshold="v > v_th", reset="v = v_rst; g = 0*mV",
                      refractory="rfc", namespace=params, name="neurons")
    neu.v = params["v_0"]
    neu.g = 0 * mV
    neu.rfc = params["t_ref"]
    syn = Synapses(neu, neu, "w : volt", on_pre="g += w * int(not_refractory_post)", delay=1.8 * ms,
                   name="synapses")
    syn.connect(i=pre.astype(np.int32), j=post.astype(np.int32))
    syn.w = signed * params["w_syn"]
    # Kicks: one generator neuron per kick target, fired at the kick's steps, delay 0
    # (delivered in the same step's synapse slot, as a Poisson event).
    targets = np.unique(kick_neurons)
    generator_index = np.searchsorted(targets, kick_neurons)
    gen = SpikeGeneratorGroup(max(len(targets), 1), generator_index.astype(np.int32), kick_steps * defaultclock.dt,
                              name="kick_times")
    kicks = Synapses(gen, neu, on_pre="v += f_poi * w_syn * int(not_refractory_post)", namespace=params,
                     name="kicks")
    if len(targets):
        kicks.connect(i=np.arange(len(targets), dtype=np.int32), j=targets.astype(np.int32))
    monitor = SpikeMonitor(neu, name="spikes")
    run(duration_ms * ms)
    device.build(directory=build_dir, compile=True, run=True, debug=False)

    steps = np.rint(np.asarray(monitor.t / defaultclock.dt)).astype(np.int64)
    order = np.lexsort((np.asarray(monitor.i), steps))
    with open(spikes_out, "w") as f:
        f.write("step,neuron_id\n")
        for k in order:
            f.write(f"{steps[k]},{ids[monitor.i[k]]}\n")
    print(f"brian2_loop_s {device._last_run_time:.4f}")
    print(f"brian2_spikes {len(order)}")


if __name__ == "__main__":
    main()
