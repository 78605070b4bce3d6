"""flysim.screen: many experiments on a loaded network, the tables of `flysim screen`."""
from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Iterator
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _flysim
from ._tables import _rate_stats, _table
from ._values import RootIds, _flag, _root_ids, _whole
from .network import MN9, Network, _indices_of
from .runs import RunResult, _check_kicked, _run_args, _run_result, run

log = logging.getLogger("flysim")

# The least time between two progress lines of a screen (and its last line, always).
_PROGRESS_EVERY_S = 5.0


def _progress_logger(total: int):
    """progress(done) for run_many: an INFO line on the flysim logger at most every
    _PROGRESS_EVERY_S, and when the last experiment is done, as flysim screen logs them."""
    started = last = time.monotonic()

    def progress(done: int) -> None:
        nonlocal last
        now = time.monotonic()
        if done < total and now - last < _PROGRESS_EVERY_S:
            return
        last = now
        left = (now - started) / done * (total - done)
        log.info("screen: %d of %d experiments done in %.1f s%s", done, total, now - started,
                 f", about {left:.0f} s left" if done < total else "")
    return progress


class ScreenResult:
    """The tables of `flysim screen` (docs/OUTPUTS.md), one row per experiment and neuron.

    rates: exp_name, flywire_id, trials, mean_rate_hz, sd_hz (every neuron that spiked in
        any trial of the experiment; sd with ddof=1; trials without spikes count 0 Hz).
    readouts: exp_name, readout_id, trials, mean_rate_hz, sd_hz, sem_hz, change_hz
        (the mean minus the experiment "baseline"'s, when there is one; else NaN).
    spikes: t (s), trial, flywire_id, exp_name: the reference's schema (when asked for).
    results: each experiment's RunResult, by name.
    """

    def __init__(self, rates, readouts, spikes, results: Dict[str, RunResult]) -> None:
        self.rates = rates
        self.readouts = readouts
        self.spikes = spikes
        self.results = results

    def __repr__(self) -> str:
        return f"<flysim.ScreenResult {len(self.results)} experiments>"


def _reusable(value: Any) -> Any:
    """`value` with every iterator in it (a stimulus group's IDs, silence=iter(...)) read
    into a list: an argument shared by the experiments is read by each of them."""
    if isinstance(value, Iterator):
        return list(value)
    if isinstance(value, Mapping):
        return {k: _reusable(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_reusable(v) for v in value)
    return value


def screen(net: Network,
           experiments: Union[Mapping[str, Mapping[str, Any]], Sequence[Tuple[str, Mapping[str, Any]]]],
           readouts: Optional[RootIds] = None,
           spikes: bool = False,
           engines: Optional[int] = None,
           **common: Any) -> ScreenResult:
    """Runs every experiment on `net`, the engine kept between them, and returns the
    tables of `flysim screen`.

    experiments: {"name": {run's keyword arguments}, ...} or (name, kwargs) pairs, in the
        order they run; an experiment named "baseline" is what the others' change_hz is
        measured from. Each experiment is `run(net, **common, **kwargs)`: its trial k has
        the spikes of `flysim run` with those options.
    readouts: root IDs reported per experiment (integers, or an ID list file's path, as
        run's), in ascending order as flysim screen's file (None: MN9, skipped when the
        network lacks it).
    spikes: also return every spike (t, trial, flywire_id, exp_name).
    engines: engines running experiments at once, each taking the next one not yet taken
        (flysim screen's engine.per-device): None is 4 with engine="cuda", 1 on the CPU
        (whose one engine has every thread). Which engine ran an experiment changes no
        spike. Experiments that differ in more than their stimulus run one at a time.
    common: run's keyword arguments shared by every experiment (trials, duration_ms, seed,
        engine, threads, batch, model, ...); an experiment's own win.
    """
    if not isinstance(net, Network):
        raise TypeError(f"net must be a flysim.Network (from flysim.load_network()), not {type(net).__name__}")
    spikes = _flag(spikes, "spikes")
    items = list(experiments.items()) if isinstance(experiments, Mapping) else list(experiments)
    if not all(isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Mapping) for item in items):
        raise TypeError("experiments must be {name: {run's keyword arguments}} or (name, kwargs) pairs")
    names = [str(name) for name, _ in items]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"experiment names must be unique; given twice: {', '.join(twice)}")
    if readouts is None:
        readouts = [MN9] if np.isin(MN9, net.ids) else []
        if not readouts:
            log.warning("screen: the default readout (MN9, %d) is not in this network: the readouts table is empty; "
                        "name the neurons to read with readouts=[...]", MN9)
    readouts = _root_ids(readouts, "readouts")
    if len(set(readouts)) != len(readouts):
        twice = sorted({r for r in readouts if readouts.count(r) > 1})
        raise ValueError(f"readouts: root ID {twice[0]} is listed twice")
    _indices_of(net, readouts, "readouts")  # an unknown ID named by its place in the caller's list
    readouts = sorted(readouts)  # flysim screen's order: by root ID
    common = {key: _reusable(value) for key, value in common.items()}
    signature = inspect.signature(run)
    unknown = sorted(set(common) - set(signature.parameters) | ({"net"} & set(common)))
    if unknown:
        raise TypeError(f"screen() got an unexpected keyword argument {unknown[0]!r} (the arguments shared by every "
                        f"experiment are run's: {', '.join(p for p in signature.parameters if p != 'net')})")
    run_args = []
    for name, kwargs in zip(names, (kw for _, kw in items)):
        try:
            bound = signature.bind(net, **{**common, **dict(kwargs)})
        except TypeError as e:
            raise TypeError(f"experiment {name!r}: {e}") from None
        bound.apply_defaults()
        a = bound.arguments
        run_args.append(_run_args(a["stimulus"], a["kicks"], a["silence"], a["silence_mode"], a["duration_ms"], a["trials"],
                                  a["seed"], a["engine"], a["threads"], a["batch"], a["model"]))
        _check_kicked(net, run_args[-1], f"experiment {name!r}: kicks")
    if engines is None:
        engines = _flysim.SCREEN_ENGINES if run_args and all(args[8] == "cuda" for args in run_args) else 1
    engines = _whole(engines, "engines", 1, _flysim.MAX_ENGINES)
    log.info("screen: %d experiments on %d engine(s)", len(run_args), engines)
    outs = net._session.run_many(run_args, names, int(engines), _progress_logger(len(run_args))) if run_args else []
    results: Dict[str, RunResult] = {}
    rate_rows, readout_rows, spike_parts = [], [], []
    for name, args, out in zip(names, run_args, outs):
        result = _run_result(net, out, args)
        results[name] = result
        n_trials = int(result.summary["trials"])
        columns = result._spike_columns
        trial, flywire_id = columns["trial"], columns["flywire_id"]
        ids, per_trial = result._per_trial
        mean, sd, _ = _rate_stats(per_trial)
        rate_rows.append((name, ids, n_trials, mean, sd))
        for root, m, s, e in zip(readouts, *_rate_stats(result._rates_per_trial(readouts))):
            readout_rows.append([name, root, n_trials, m, s, e])
        if spikes:
            spike_parts.append((columns["t"], trial, flywire_id, name))
    base = {r[1]: r[3] for r in readout_rows if r[0] == "baseline"}
    for r in readout_rows:
        r.append(r[3] - base[r[1]] if r[1] in base else float("nan"))
    def column(parts, dtype):
        """The parts joined as one column of `dtype`, empty tables included."""
        return np.concatenate([np.asarray(p, dtype=dtype) for p in parts]) if parts else np.array([], dtype=dtype)

    rates_table = _table({
        "exp_name": column([np.full(ids.size, n, dtype=object) for n, ids, *_ in rate_rows], object),
        "flywire_id": column([ids for _, ids, *_ in rate_rows], np.int64),
        "trials": column([np.full(ids.size, t) for _, ids, t, *_ in rate_rows], np.int64),
        "mean_rate_hz": column([m for *_, m, _ in rate_rows], np.float64),
        "sd_hz": column([sd for *_, sd in rate_rows], np.float64)})
    readout_types = {"exp_name": object, "readout_id": np.int64, "trials": np.int64, "mean_rate_hz": np.float64,
                     "sd_hz": np.float64, "sem_hz": np.float64, "change_hz": np.float64}
    readouts_table = _table({c: np.asarray([r[k] for r in readout_rows], dtype=t)
                             for k, (c, t) in enumerate(readout_types.items())})
    spikes_table = None
    if spikes and not spike_parts:
        spikes_table = _table({"t": np.array([]), "trial": np.array([], dtype=np.int64),
                               "flywire_id": np.array([], dtype=np.int64), "exp_name": np.array([], dtype=object)})
    elif spikes:
        spikes_table = _table({
            "t": np.concatenate([p[0] for p in spike_parts]), "trial": np.concatenate([p[1] for p in spike_parts]),
            "flywire_id": np.concatenate([p[2] for p in spike_parts]),
            "exp_name": np.concatenate([np.full(p[0].size, p[3], dtype=object) for p in spike_parts])})
    return ScreenResult(rates_table, readouts_table, spikes_table, results)
