#!/usr/bin/python3
"""The reference model (docs/MODEL.md) in Brian2 C++ standalone, one thread: the network of
a FlyWire connectivity CSV driven by timed kicks (a `step,neuron_id` CSV, as flysim's
stimulus.kicks) and, optionally, by Poisson input over several trials, with optionally
silenced neurons.

    brian2_run.py NEURONS.csv CONNECTIVITY.csv KICKS.csv SPIKES_OUT.csv BUILD_DIR [DURATION_MS]
                  [--silence=IDS --silence-mode=outgoing|both]
                  [--poisson=IDS --rate=HZ [--poisson2=IDS --rate2=HZ] --trials=N --seed=S --rates=RATES_OUT.csv]

KICKS.csv may be `-`: no kicks. ID lists are root IDs, one per line ('#' starts a comment).

Kicks alone (one trial) write every spike as `step,neuron_id`; with --poisson or --trials
the spikes are `trial,step,neuron_id`. Sorted either way. Prints the loop time of the run
(Brian2's own clock around the simulation loop, without code generation, compilation or
loading) as `brian2_loop_s <seconds>` and the spike count as `brian2_spikes <n>`.

- --silence: the reference's `syn.w[i == n] = 0` for each listed neuron (mode outgoing);
  mode both also sets the weight of every synapse onto a listed neuron to 0 (flysim's
  stimulus.silence-mode=both). Silenced neurons still receive input, spike and are recorded.
- --poisson / --poisson2: the reference's neu_exc at r_poi and neu_exc2 at r_poi2: each
  listed neuron gets an independent Bernoulli(rate * dt) event per step of weight
  f_poi * w_syn on v (PoissonInput(N=1, target_var='v')) and refractory period 0, also at
  0 Hz. The draws are Brian2's (seed --seed), not flysim's.
- --trials: independent trials, each from rest. They are run at once as disjoint copies of
  the network in one NeuronGroup (one code generation and compilation); each group's
  neurons of all trials form one contiguous subgroup, so that one PoissonInput per group
  draws for every one of them, independently per neuron and step, as one PoissonInput
  per neuron would.
- --rates: per-neuron mean rate over the trials, `neuron_id,spikes,rate_hz` for every
  neuron that spiked, highest rate first (ties by ID), as flysim's output.rates.

Debian's python3-brian (2.5.1). The model is Shiu et al.'s with docs/MODEL.md's discard rule
written out: synaptic input and kicks to a refractory neuron (one that spiked this step
included) are dropped, `int(not_refractory_post)`. Poisson events are not conditional, as in
the reference: they only reach neurons of refractory period 0, for which a dropped event
and one wiped by the reset of the step's spike are the same."""
import argparse

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


def read_id_list(path, index_of, what):
    """Network indices of a root-ID list, one per line, '#' comments; sorted, unique."""
    out = set()
    with open(path) as f:
        for line in f:
            text = line.split("#")[0].strip()
            if not text:
                continue
            if int(text) not in index_of:
                raise SystemExit(f"brian2_run: {what} {path}: neuron {text} is not in the network")
            out.add(index_of[int(text)])
    return np.array(sorted(out), dtype=np.int64)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("neurons_csv")
    p.add_argument("connectivity_csv")
    p.add_argument("kicks_csv", help="kicks CSV step,neuron_id, or - for none")
    p.add_argument("spikes_out")
    p.add_argument("build_dir")
    p.add_argument("duration_ms", nargs="?", type=float, default=1000.0)
    p.add_argument("--silence", help="root IDs of silenced neurons")
    p.add_argument("--silence-mode", choices=("outgoing", "both"), default="outgoing")
    p.add_argument("--poisson", help="root IDs driven at --rate (the reference's neu_exc)")
    p.add_argument("--rate", type=float, default=150.0, help="Hz (r_poi)")
    p.add_argument("--poisson2", help="root IDs driven at --rate2 (the reference's neu_exc2)")
    p.add_argument("--rate2", type=float, default=0.0, help="Hz (r_poi2)")
    p.add_argument("--trials", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rates", help="per-neuron mean rates CSV neuron_id,spikes,rate_hz")
    a = p.parse_args()
    if a.poisson2 and not a.poisson:
        p.error("--poisson2 needs --poisson")
    if a.trials < 1:
        p.error("--trials must be at least 1")
    return a


def main():
    a = parse_args()
    with open(a.neurons_csv) as f:
        f.readline()
        ids = np.array([int(line.split(",")[0]) for line in f if line.strip()], dtype=np.int64)
    n = len(ids)
    index_of = {int(x): k for k, x in enumerate(ids)}
    connections = read_numeric_csv(a.connectivity_csv, 7)
    pre, post, signed = connections[:, 2], connections[:, 3], connections[:, 6]
    if a.kicks_csv == "-":
        kick_steps = kick_neurons = np.zeros(0, dtype=np.int64)
    else:
        kick_table = read_numeric_csv(a.kicks_csv, 2)
        kick_steps = kick_table[:, 0]
        kick_neurons = np.array([index_of[int(x)] for x in kick_table[:, 1]], dtype=np.int64)
    silenced = read_id_list(a.silence, index_of, "--silence") if a.silence else np.zeros(0, dtype=np.int64)
    group1 = read_id_list(a.poisson, index_of, "--poisson") if a.poisson else np.zeros(0, dtype=np.int64)
    group2 = read_id_list(a.poisson2, index_of, "--poisson2") if a.poisson2 else np.zeros(0, dtype=np.int64)
    if np.intersect1d(group1, group2).size:
        raise SystemExit("brian2_run: a neuron is in both --poisson and --poisson2")
    trials = a.trials
    with_trials = bool(a.poisson) or trials > 1

    # Brian2 index of (trial t, neuron k): group 1's neurons of every trial first, then
    # group 2's, then the rest; within a block trial by trial, each in network order.
    # Kicks alone, one trial: the network's own order.
    klass = np.full(n, 2, dtype=np.int64)
    klass[group1] = 0
    klass[group2] = 1
    counts = np.bincount(klass, minlength=3)
    block_start = np.concatenate(([0], np.cumsum(counts)[:-1])) * trials
    rank = np.zeros(n, dtype=np.int64)
    for c in range(3):
        members = np.flatnonzero(klass == c)
        rank[members] = np.arange(len(members))
    position = np.array([block_start[klass] + t * counts[klass] + rank for t in range(trials)])  # [trial, neuron]
    trial_of = np.empty(n * trials, dtype=np.int64)
    neuron_of = np.empty(n * trials, dtype=np.int64)
    for t in range(trials):
        trial_of[position[t]] = t
        neuron_of[position[t]] = np.arange(n)

    from brian2 import (Network, NeuronGroup, PoissonInput, Synapses, SpikeGeneratorGroup, SpikeMonitor, defaultclock,
                        device, ms, mV, Hz, prefs, seed, set_device)

    set_device("cpp_standalone", directory=a.build_dir, build_on_run=False)
    prefs.devices.cpp_standalone.openmp_threads = 0
    defaultclock.dt = 0.1 * ms
    seed(a.seed)
    params = dict(v_0=-52 * mV, v_rst=-52 * mV, v_th=-45 * mV, t_mbr=20 * ms, tau=5 * ms, t_ref=2.2 * ms,
                  w_syn=0.275 * mV, f_poi=250)
    eqs = """
    dv/dt = (v_0 - v + g) / t_mbr : volt (unless refractory)
    dg/dt = -g / tau              : volt (unless refractory)
    rfc                           : second
    """
    neu = NeuronGroup(n * trials, eqs, method="linear", threshold="v > v_th", reset="v = v_rst; g = 0*mV",
                      refractory="rfc", namespace=params, name="neurons")
    neu.v = params["v_0"]
    neu.g = 0 * mV
    rfc = np.full(n * trials, float(params["t_ref"] / ms))
    rfc[: trials * (counts[0] + counts[1])] = 0.0  # driven neurons, also at 0 Hz
    neu.rfc = rfc * ms
    syn = Synapses(neu, neu, "w : volt", on_pre="g += w * int(not_refractory_post)", delay=1.8 * ms,
                   name="synapses")
    syn.connect(i=position[:, pre].ravel().astype(np.int32), j=position[:, post].ravel().astype(np.int32))
    weight = signed.astype(np.float64)
    if silenced.size:
        mute = np.zeros(n, dtype=bool)
        mute[silenced] = True
        weight = np.where(mute[pre], 0.0, weight)  # the reference's syn.w[i == n] = 0
        if a.silence_mode == "both":
            weight = np.where(mute[post], 0.0, weight)
    syn.w = np.tile(weight, trials) * params["w_syn"]
    # Kicks, in every trial: one generator neuron per kick target, fired at the kick's
    # steps, delay 0 (delivered in the same step's synapse slot, as a Poisson event).
    targets = np.unique(kick_neurons)
    generator_index = np.searchsorted(targets, kick_neurons)
    gen = SpikeGeneratorGroup(max(len(targets), 1), generator_index.astype(np.int32), kick_steps * defaultclock.dt,
                              name="kick_times")
    kicks = Synapses(gen, neu, on_pre="v += f_poi * w_syn * int(not_refractory_post)", namespace=params,
                     name="kicks")
    if len(targets):
        kicks.connect(i=np.tile(np.arange(len(targets), dtype=np.int32), trials),
                      j=position[:, targets].ravel().astype(np.int32))
    inputs = []
    start = 0
    for size, rate in ((counts[0], a.rate), (counts[1], a.rate2)):
        if size and rate > 0:
            inputs.append(PoissonInput(neu[start:start + size * trials], "v", N=1, rate=rate * Hz,
                                       weight=params["f_poi"] * params["w_syn"]))
        start += size * trials
    monitor = SpikeMonitor(neu, name="spikes")
    # An explicit network: run()'s magic would miss the inputs in their list, and would
    # resolve names in this function's locals.
    Network(neu, syn, gen, kicks, monitor, *inputs).run(a.duration_ms * ms, namespace={})
    device.build(directory=a.build_dir, compile=True, run=True, debug=False)

    where = np.asarray(monitor.i, dtype=np.int64)
    steps = np.rint(np.asarray(monitor.t / defaultclock.dt)).astype(np.int64)
    trial, neuron = trial_of[where], neuron_of[where]
    order = np.lexsort((neuron, steps, trial))
    with open(a.spikes_out, "w") as f:
        f.write("trial,step,neuron_id\n" if with_trials else "step,neuron_id\n")
        for k in order:
            f.write(f"{trial[k]},{steps[k]},{ids[neuron[k]]}\n" if with_trials else f"{steps[k]},{ids[neuron[k]]}\n")
    if a.rates:
        spikes = np.bincount(neuron, minlength=n)
        rate_hz = spikes / (trials * a.duration_ms / 1000.0)
        with open(a.rates, "w") as f:
            f.write("neuron_id,spikes,rate_hz\n")
            for k in sorted(np.flatnonzero(spikes), key=lambda k: (-spikes[k], ids[k])):
                f.write(f"{ids[k]},{spikes[k]},{rate_hz[k]:.6f}\n")
    print(f"brian2_loop_s {device._last_run_time:.4f}")
    print(f"brian2_spikes {len(order)}")


if __name__ == "__main__":
    main()
