"""flysim.run: trials of one experiment on a loaded network, as tables."""
from __future__ import annotations

import logging
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _flysim
from ._tables import _rate_stats, _table, _trial_rates
from ._values import _MAX_SEED, _MAX_THREADS, _MAX_TRIALS, RootIds, _kick_pairs, _real, _root_ids, _whole
from .network import Network, _indices_of, sugar_ids

log = logging.getLogger("flysim")


def _lif_params(model: Optional[Mapping[str, float]]) -> "_flysim.LifParams":
    params = _flysim.LifParams()
    if model is not None and not isinstance(model, Mapping):
        raise TypeError(f"model must be a dict of parameters by name, not {type(model).__name__}")
    for key, value in (model or {}).items():
        if not isinstance(key, str):
            raise TypeError(f"model: parameter names are strings, not {key!r}")
        if key == "r_poi_Hz":
            raise ValueError("model['r_poi_Hz']: give the Poisson rate with each stimulus group instead")
        if key.startswith("_") or not hasattr(params, key):
            known = ", ".join(k for k in dir(params) if not k.startswith("_") and k != "r_poi_Hz")
            raise ValueError(f"model[{key!r}] is not a model parameter (known: {known})")
        unit = next((u for u in ("ms", "mV", "Hz") if key.endswith("_" + u)), None)  # the name's unit
        setattr(params, key, _real(value, f"model[{key!r}]", unit))
    return params


class RunResult:
    """The spikes of a run, their rates and a summary.

    spikes: columns t (s), trial, flywire_id, sorted by trial, time, neuron (a pandas
        DataFrame, or a dict of numpy arrays without pandas).
    step: the time step of each spike (numpy int32), t = step * dt.
    rates: flywire_id, mean_rate_hz, sd_hz over the trials (sd with ddof=1), for each
        neuron that spiked; a trial without spikes counts 0 Hz.
    summary: spikes, active_neurons, wall_s, engine (and trials, duration_ms, batch,
        engine_reused).
    rates_of(root_ids): the rates of those neurons, silent ones at 0 Hz.
    """

    def __init__(self, spike_columns: Dict[str, np.ndarray], step: np.ndarray, rate_columns: Dict[str, np.ndarray],
                 summary: Dict[str, Any], per_trial: Tuple[np.ndarray, np.ndarray], net: Network) -> None:
        # The tables are made on first use: a screen of many short experiments reads the columns.
        self._spike_columns, self._rate_columns = spike_columns, rate_columns
        self._spikes = self._rates = None
        self.step = step
        self.summary = summary
        self._per_trial = per_trial  # _trial_rates' (ids, rates per trial): screen's tables start from it
        self._net = net

    @property
    def spikes(self):
        if self._spikes is None:
            self._spikes = _table(self._spike_columns)
        return self._spikes

    @property
    def rates(self):
        if self._rates is None:
            self._rates = _table(self._rate_columns)
        return self._rates

    def _rates_per_trial(self, root_ids: Sequence[int]) -> np.ndarray:
        """The rates (Hz) of `root_ids` in each trial, a row each in their order; 0 Hz in
        every trial for a neuron that never spiked."""
        ids, per_trial = self._per_trial
        wanted = np.asarray(root_ids, dtype=np.int64)
        out = np.zeros((wanted.size, per_trial.shape[1]))
        at = np.searchsorted(ids, wanted)
        found = at < ids.size
        found[found] = ids[at[found]] == wanted[found]
        out[found] = per_trial[at[found]]
        return out

    def rates_of(self, root_ids: Any):
        """flywire_id, trials, mean_rate_hz, sd_hz, sem_hz of the given neurons in their
        order (one ID such as flysim.MN9, IDs, or an ID list file's path), a neuron that
        never spiked at 0 Hz (rates lists only those that spiked); sd and sem with ddof=1,
        NaN for one trial, as flysim screen's readouts.csv. A root ID not in the network
        is an InputError."""
        roots = _root_ids(root_ids, "rates_of")
        _indices_of(self._net, roots, "rates_of")
        per_trial = self._rates_per_trial(roots)
        mean, sd, sem = _rate_stats(per_trial)
        return _table({"flywire_id": np.asarray(roots, dtype=np.int64), "trials": np.full(len(roots), per_trial.shape[1]),
                       "mean_rate_hz": mean, "sd_hz": sd, "sem_hz": sem})

    def __repr__(self) -> str:
        return f"<flysim.RunResult {self.summary}>"


def _stimulus_groups(stimulus: Optional[Mapping[str, Tuple[RootIds, float]]],
                     kicks) -> List[Tuple[str, List[int], float]]:
    if stimulus is None:
        if kicks is not None:  # as `flysim run`: stimulus.ids applies only without kicks
            return []
        return [("sugar", _root_ids(sugar_ids(), "sugar"),
                 _flysim.LifParams().r_poi_Hz)]
    if not isinstance(stimulus, Mapping):
        raise TypeError(f"stimulus must be a dict {{name: (root_ids, rate_hz)}}, not {type(stimulus).__name__}")
    groups = []
    for name, value in stimulus.items():
        if not isinstance(name, str):
            raise TypeError(f"stimulus group names are strings, not {name!r}")
        try:
            ids, rate = value
        except (TypeError, ValueError):
            raise ValueError(f"stimulus[{name!r}] must be a pair (root_ids, rate_hz)") from None
        roots = _root_ids(ids, f"stimulus[{name!r}]")
        if not roots:  # as flysim run refuses an empty ID list: a group of no neurons drives nothing
            raise ValueError(f"stimulus[{name!r}]: no root IDs (an empty list drives nothing; leave the group out)")
        groups.append((name, roots, _real(rate, f"stimulus[{name!r}] rate", "Hz")))
    return groups


def run(net: Network,
        stimulus: Optional[Mapping[str, Tuple[RootIds, float]]] = None,
        kicks: Optional[Union[str, os.PathLike, Iterable[Tuple[int, int]]]] = None,
        silence: Optional[RootIds] = None,
        silence_mode: str = "outgoing",
        duration_ms: float = 1000,
        trials: int = 30,
        seed: int = 1,
        engine: str = "cpu",
        threads: Optional[int] = None,
        batch: Optional[Union[int, str]] = None,
        model: Optional[Mapping[str, float]] = None) -> RunResult:
    """Runs `trials` trials of `duration_ms` on `net`, each from rest (trial k draws its
    Poisson input from `seed` and k): the spikes of `flysim run` with the same options.

    Root IDs (stimulus, silence) are integers or the path (str or os.PathLike) of an ID
    list file, one per line with '#' comments (flysim.read_id_list); a missing file is a
    FileNotFoundError naming it.

    stimulus: Poisson groups {"name": (root_ids, rate_hz), ...}; the first is the default
        group (stimulus.ids at stimulus.rate), the others stimulus.group.NAME. None: the
        sugar-sensing neurons (data/sugar_grn_783.txt) at 150 Hz, unless kicks are given.
        Every driven neuron has refractory period 0; no neuron in two groups.
    kicks: a kicks CSV (step,neuron_id), (step, root_id) pairs of integers, or a DataFrame
        with the CSV's columns step and neuron_id: at that step the neuron gets
        v += f_poi * w_syn.
    silence: root IDs whose synapses carry no weight: outgoing ones (silence_mode
        "outgoing", the reference's silence()) or incoming too ("both").
    duration_ms: each trial's length, at least one step of dt; one that is not a whole
        number of steps is rounded up, as Brian2's run() does.
    trials: 1..1,000,000; seed: 0..2^63-1 (as flysim run's run.trials and run.seed).
    engine: "cpu" (the CPU pool of `threads`, 1..1024; None: all cores) or "cuda".
    batch: trials advanced together (None or "auto", as the CLI's run.batch: what fits); never changes the spikes.
    model: model parameters by LifParams name, e.g. {"w_syn_mV": 0.275, "tau_m_ms": 20}.
    The engine is kept on `net` for the next run with the same engine, threads, batch,
    seed and model. Returns a RunResult: spikes, step, rates and summary (its docstring).
    """
    if not isinstance(net, Network):
        raise TypeError(f"net must be a flysim.Network (from flysim.load_network()), not {type(net).__name__}")
    args = _run_args(stimulus, kicks, silence, silence_mode, duration_ms, trials, seed, engine, threads, batch, model)
    _check_kicked(net, args, "kicks")
    if stimulus is None and kicks is None:
        _indices_of(net, args[0][0][1], "the default stimulus (FlyWire 783's sugar neurons; for another network give "
                                        "stimulus={name: (root_ids, rate_hz)}, or stimulus={} for none)")
    out = net._session.run(*args)
    if out["late_kicks"]:
        log.warning("kicks: %d kicks at step %d or later fall after the end of a trial (%d steps) and do nothing",
                    out["late_kicks"], out["steps_per_trial"], out["steps_per_trial"])
    return _run_result(net, out, args)


def _check_kicked(net: Network, args: tuple, what: str) -> None:
    """The root IDs of run's (step, root_id) kicks (_run_args' args[2]) are in `net`."""
    if args[2]:
        _indices_of(net, [root_id for _, root_id in args[2]], what)


def _run_args(stimulus, kicks, silence, silence_mode, duration_ms, trials, seed, engine, threads, batch, model) -> tuple:
    """run's arguments, checked, as the compiled session's run takes them."""
    groups = _stimulus_groups(stimulus, kicks)
    kicks_file, kick_pairs = "", []
    if isinstance(kicks, (str, os.PathLike)):
        kicks_file = os.fspath(kicks)
        if not os.path.exists(kicks_file):
            raise FileNotFoundError(f"kicks: the kicks file {kicks_file} does not exist (a CSV 'step,neuron_id'; "
                                    "or give (step, root_id) pairs)")
    elif kicks is not None:
        kick_pairs = _kick_pairs(kicks)
    params = _lif_params(model)
    trials = _whole(trials, "trials", 1, _MAX_TRIALS)
    seed = _whole(seed, "seed", 0, _MAX_SEED)
    threads = 0 if threads is None else _whole(threads, "threads", 1, _MAX_THREADS)
    batch = 0 if batch is None or (isinstance(batch, str) and batch == "auto") else _whole(batch, "batch", 1, _MAX_TRIALS)
    for name, value in (("engine", engine), ("silence_mode", silence_mode)):
        if not isinstance(value, str):
            raise TypeError(f"{name}={value!r} must be a string")
    return (groups, kicks_file, kick_pairs, _root_ids(silence if silence is not None else [], "silence"),
            silence_mode, _real(duration_ms, "duration_ms", "ms"), trials, seed, engine, threads, batch, params)


def _run_result(net: Network, out: Dict[str, Any], args: tuple) -> RunResult:
    """The RunResult of one run's spikes (`out`) from its arguments (_run_args)."""
    trials, params = args[6], args[11]
    step, trial = out["step"], out["trial"].astype(np.int64)
    flywire_id = net.ids[out["neuron"]]
    spikes = {"t": out["t"], "trial": trial, "flywire_id": flywire_id}
    ids, per_trial = _trial_rates(trial, flywire_id, int(trials), out["trial_s"])
    mean, sd, _ = _rate_stats(per_trial)
    rates = {"flywire_id": ids, "mean_rate_hz": mean, "sd_hz": sd}
    summary = {"spikes": int(step.size), "active_neurons": int(ids.size), "wall_s": out["wall_s"],
               "engine": out["engine"], "trials": int(trials), "duration_ms": out["trial_ms"],
               "batch": out["batch"], "engine_reused": out["engine_reused"]}
    return RunResult(spikes, step, rates, summary, (ids, per_trial), net)
