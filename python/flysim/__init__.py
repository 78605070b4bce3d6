"""flysim from Python: the fruit-fly brain LIF model (Shiu et al., Nature 2024) run by
flysim's engines in this process.

    import flysim
    net = flysim.load_network()                      # the synthetic FlyWire-scale network
    res = flysim.run(net, stimulus={"sugar": (sugar_ids, 150.0)}, trials=30)
    res.spikes, res.rates, res.summary

The reference model's notebook calls work too: flysim.run_exp(...), flysim.get_rate(...)
and flysim.default_params (philshiu/Drosophila_brain_model: model.py, utils.py).
The spikes of trial k are those of `flysim run` with the same options.
"""
from __future__ import annotations

import importlib.util
import inspect
import json
import logging
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _flysim

__all__ = ["Network", "RunResult", "ScreenResult", "Service", "ServiceError", "load_network", "read_id_list", "run",
           "screen", "run_exp", "get_rate", "default_params", "MN9", "sugar_ids"]

log = logging.getLogger("flysim")

try:
    import pandas as _pd
except ImportError:  # results come back as dicts of numpy arrays
    _pd = None

# The reference model's dataframe columns (model.py's construct_dataframe).
SPIKE_COLUMNS = ("t", "trial", "flywire_id")


def _root_ids(ids: Any, what: str) -> List[int]:
    """Root IDs as a list of Python ints, from any sequence or array of integers."""
    if isinstance(ids, (str, bytes)):
        raise TypeError(f"{what}: root IDs must be a sequence or array of integers, not {type(ids).__name__}")
    try:
        arr = np.asarray(ids)
    except OverflowError:
        raise ValueError(f"{what}: root IDs must fit in 64 bits") from None
    if arr.size == 0:
        return []
    if arr.dtype.kind == "f":
        # A float holds 15-16 digits: a FlyWire ID (18 digits) would change without a word.
        raise ValueError(f"{what}: root IDs must be integers, not floats (a float rounds an 18-digit ID)")
    if arr.dtype.kind not in "iu":
        try:
            arr = arr.astype(np.int64)
        except (TypeError, ValueError, OverflowError) as e:
            raise ValueError(f"{what}: root IDs must be integers ({e})") from None
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{what}: root ID {int(arr.max())} is beyond the 64-bit signed IDs of a network")
    return [int(x) for x in arr.ravel()]


def _whole(value: Any, what: str, low: int, high: int) -> int:
    """`value` as an int in low..high, or a ValueError/TypeError naming `what`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what}={value!r} must be an integer, not {type(value).__name__}")
    if not low <= int(value) <= high:
        raise ValueError(f"{what}={value} must lie in {low}..{high}")
    return int(value)


def _real(value: Any, what: str) -> float:
    """`value` as a float, or a TypeError naming `what`."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what}={value!r} must be a number, not {type(value).__name__}")
    return float(value)


# What the programs accept, checked here before the binding narrows a Python int.
_MAX_TRIALS, _MAX_THREADS, _MAX_SEED = _flysim.MAX_TRIALS, _flysim.MAX_THREADS, int(np.iinfo(np.int64).max)


class Network:
    """A loaded network: its neurons' root IDs in model order, and the engines kept for
    runs on it (one per engine kind, threads, batch, seed and model constants)."""

    def __init__(self, session: "_flysim.NetworkSession") -> None:
        self._session = session
        self._ids: Optional[np.ndarray] = None

    @property
    def ids(self) -> np.ndarray:
        """Root IDs (numpy int64), index = model index."""
        if self._ids is None:
            self._ids = self._session.ids
            self._ids.setflags(write=False)
        return self._ids

    @property
    def description(self) -> str:
        """Where the network came from (file or generator and seed)."""
        return self._session.description

    def index_of(self, root_ids: Any) -> np.ndarray:
        """Model indices (numpy int64) of root IDs, in their order; an unknown ID is a
        ValueError naming it."""
        return self._session.index_of(_root_ids(root_ids, "index_of"))

    def __len__(self) -> int:
        return len(self._session)

    def __repr__(self) -> str:
        return f"<flysim.Network {len(self)} neurons, {self._session.connections} connections: {self.description}>"


def load_network(neurons: Optional[Union[str, os.PathLike]] = None,
                 connectivity: Optional[Union[str, os.PathLike]] = None,
                 format: str = "flywire") -> Network:
    """The network as `flysim run` loads it (its network.* options), through flysim's cache.

    neurons: the neurons file (FlyWire Completeness CSV; for format="edgelist", an
        optional nodes file); None: data/Completeness_783.csv.
    connectivity: the FlyWire connectivity CSV (seven columns) or an edge list; None: the
        synthetic FlyWire-scale network (generated once, then read from the cache).
    format: "flywire" or "edgelist".
    """
    session = _flysim.load_network("" if neurons is None else os.fspath(neurons),
                                   "" if connectivity is None else os.fspath(connectivity),
                                   format, log.info)
    return Network(session)


def read_id_list(path: Union[str, os.PathLike]) -> np.ndarray:
    """Root IDs (numpy int64) of an ID list file: one per line, '#' comments (the files
    of stimulus.ids and stimulus.silence; data/sugar_grn_783.txt is one)."""
    return _flysim.read_id_list(os.fspath(path))


# MN9's root ID: the proboscis motor neuron the sugar experiment reads (screen's default readout).
MN9: int = _flysim.mn9_root_id()


def sugar_ids() -> np.ndarray:
    """The sugar-sensing neurons' root IDs (numpy int64): data/sugar_grn_783.txt, run's
    default stimulus."""
    return read_id_list(_flysim.sugar_ids_file())


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
        setattr(params, key, _real(value, f"model[{key!r}]"))
    return params


def _trial_rates(trial: np.ndarray, flywire_id: np.ndarray, n_trials: int,
                 duration_s: float) -> Tuple[np.ndarray, np.ndarray]:
    """The neurons that spiked (ascending root IDs) and their rate in each trial, Hz
    (shape neurons x n_trials; a trial without spikes counts 0 Hz)."""
    ids, neuron = np.unique(np.asarray(flywire_id, dtype=np.int64), return_inverse=True)
    trial = np.asarray(trial, dtype=np.int64)
    if trial.size and (trial.min() < 0 or trial.max() >= n_trials):
        raise ValueError(f"trial numbers run {trial.min()}..{trial.max()}, outside 0..{n_trials - 1} (n_run={n_trials})")
    counts = np.zeros((ids.size, n_trials))
    np.add.at(counts, (neuron, trial), 1.0)
    return ids, counts / duration_s


def _sd_over_trials(per_trial: np.ndarray) -> np.ndarray:
    """Each row's standard deviation over the trials (ddof=1); NaN for a single trial."""
    return per_trial.std(axis=1, ddof=1) if per_trial.shape[1] > 1 else np.full(per_trial.shape[0], np.nan)


def _table(columns: Dict[str, np.ndarray]):
    """A DataFrame of the columns, or the dict itself without pandas."""
    return _pd.DataFrame(columns) if _pd is not None else columns


class RunResult:
    """The spikes of a run, their rates and a summary.

    spikes: columns t (s), trial, flywire_id, sorted by trial, time, neuron (a pandas
        DataFrame, or a dict of numpy arrays without pandas).
    step: the time step of each spike (numpy int32), t = step * dt.
    rates: flywire_id, mean_rate_hz, sd_hz over the trials (sd with ddof=1), for each
        neuron that spiked; a trial without spikes counts 0 Hz.
    summary: spikes, active_neurons, wall_s, engine (and trials, duration_ms, batch,
        engine_reused).
    """

    def __init__(self, spikes, step: np.ndarray, rates, summary: Dict[str, Any],
                 per_trial: Tuple[np.ndarray, np.ndarray]) -> None:
        self.spikes = spikes
        self.step = step
        self.rates = rates
        self.summary = summary
        self._per_trial = per_trial  # _trial_rates' (ids, rates per trial): screen's tables start from it

    def __repr__(self) -> str:
        return f"<flysim.RunResult {self.summary}>"


def _stimulus_groups(stimulus: Optional[Mapping[str, Tuple[Any, float]]], kicks) -> List[Tuple[str, List[int], float]]:
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
        groups.append((name, _root_ids(ids, f"stimulus[{name!r}]"), _real(rate, f"stimulus[{name!r}] rate")))
    return groups


def run(net: Network,
        stimulus: Optional[Mapping[str, Tuple[Sequence[int], float]]] = None,
        kicks: Optional[Union[str, os.PathLike, Iterable[Tuple[int, int]]]] = None,
        silence: Optional[Sequence[int]] = None,
        silence_mode: str = "outgoing",
        duration_ms: float = 1000,
        trials: int = 30,
        seed: int = 1,
        engine: str = "cpu",
        threads: Optional[int] = None,
        batch: Optional[int] = None,
        model: Optional[Mapping[str, float]] = None) -> RunResult:
    """Runs `trials` trials of `duration_ms` on `net`, each from rest (trial k draws its
    Poisson input from `seed` and k): the spikes of `flysim run` with the same options.

    stimulus: Poisson groups {"name": (root_ids, rate_hz), ...}; the first is the default
        group (stimulus.ids at stimulus.rate), the others stimulus.group.NAME. None: the
        sugar-sensing neurons (data/sugar_grn_783.txt) at 150 Hz, unless kicks are given.
        Every driven neuron has refractory period 0; no neuron in two groups.
    kicks: a kicks CSV (step,neuron_id) or (step, root_id) pairs: at that step the neuron
        gets v += f_poi * w_syn.
    silence: root IDs whose synapses carry no weight: outgoing ones (silence_mode
        "outgoing", the reference's silence()) or incoming too ("both").
    engine: "cpu" (the CPU pool of `threads`, None: all cores) or "cuda".
    batch: trials advanced together (None: what fits); never changes the spikes.
    model: model parameters by LifParams name, e.g. {"w_syn_mV": 0.275, "tau_m_ms": 20}.
    The engine is kept on `net` for the next run with the same engine, threads, batch,
    seed and model.
    """
    if not isinstance(net, Network):
        raise TypeError(f"net must be a flysim.Network (from flysim.load_network()), not {type(net).__name__}")
    args = _run_args(stimulus, kicks, silence, silence_mode, duration_ms, trials, seed, engine, threads, batch, model)
    return _run_result(net, net._session.run(*args), args)


def _run_args(stimulus, kicks, silence, silence_mode, duration_ms, trials, seed, engine, threads, batch, model) -> tuple:
    """run's arguments, checked, as the compiled session's run takes them."""
    groups = _stimulus_groups(stimulus, kicks)
    kicks_file, kick_pairs = "", []
    if isinstance(kicks, (str, os.PathLike)):
        kicks_file = os.fspath(kicks)
    elif kicks is not None:
        try:
            kick_pairs = [(int(step), int(root_id)) for step, root_id in kicks]
        except (TypeError, ValueError):
            raise ValueError("kicks must be a CSV path or (step, root_id) pairs") from None
        for step, root_id in kick_pairs:
            if not 0 <= step < 2**31 or not -2**63 <= root_id < 2**63:
                raise ValueError(f"kicks: ({step}, {root_id}) is not a step 0..2^31-1 and a 64-bit root ID")
    params = _lif_params(model)
    trials = _whole(trials, "trials", 1, _MAX_TRIALS)
    seed = _whole(seed, "seed", 0, _MAX_SEED)
    threads = 0 if threads is None else _whole(threads, "threads", 1, _MAX_THREADS)
    batch = 0 if batch is None else _whole(batch, "batch", 1, _MAX_TRIALS)
    for name, value in (("engine", engine), ("silence_mode", silence_mode)):
        if not isinstance(value, str):
            raise TypeError(f"{name}={value!r} must be a string")
    return (groups, kicks_file, kick_pairs, _root_ids(silence if silence is not None else [], "silence"),
            silence_mode, _real(duration_ms, "duration_ms"), trials, seed, engine, threads, batch, params)


def _run_result(net: Network, out: Dict[str, Any], args: tuple) -> RunResult:
    """The RunResult of one run's spikes (`out`) from its arguments (_run_args)."""
    trials, params = args[6], args[11]
    step, trial = out["step"], out["trial"].astype(np.int64)
    flywire_id = net.ids[out["neuron"]]
    dt_s = params.dt_ms * 1e-3
    spikes = _table({"t": step * dt_s, "trial": trial, "flywire_id": flywire_id})
    ids, per_trial = _trial_rates(trial, flywire_id, int(trials), out["steps_per_trial"] * dt_s)
    rates = _table({"flywire_id": ids, "mean_rate_hz": per_trial.mean(axis=1), "sd_hz": _sd_over_trials(per_trial)})
    summary = {"spikes": int(step.size), "active_neurons": int(ids.size), "wall_s": out["wall_s"],
               "engine": out["engine"], "trials": int(trials), "duration_ms": out["steps_per_trial"] * params.dt_ms,
               "batch": out["batch"], "engine_reused": out["engine_reused"]}
    return RunResult(spikes, step, rates, summary, (ids, per_trial))


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


def screen(net: Network,
           experiments: Union[Mapping[str, Mapping[str, Any]], Sequence[Tuple[str, Mapping[str, Any]]]],
           readouts: Optional[Sequence[int]] = None,
           spikes: bool = False,
           engines: Optional[int] = None,
           **common: Any) -> ScreenResult:
    """Runs every experiment on `net`, the engine kept between them, and returns the
    tables of `flysim screen`.

    experiments: {"name": {run's keyword arguments}, ...} or (name, kwargs) pairs, in the
        order they run; an experiment named "baseline" is what the others' change_hz is
        measured from. Each experiment is `run(net, **common, **kwargs)`: its trial k has
        the spikes of `flysim run` with those options.
    readouts: root IDs reported per experiment (None: MN9, skipped when the network lacks it).
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
    items = list(experiments.items()) if isinstance(experiments, Mapping) else list(experiments)
    if not all(isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Mapping) for item in items):
        raise TypeError("experiments must be {name: {run's keyword arguments}} or (name, kwargs) pairs")
    names = [str(name) for name, _ in items]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"experiment names must be unique; given twice: {', '.join(twice)}")
    if readouts is None:
        readouts = [MN9] if np.isin(MN9, net.ids) else []
    readouts = _root_ids(readouts, "readouts")
    if len(set(readouts)) != len(readouts):
        twice = sorted({r for r in readouts if readouts.count(r) > 1})
        raise ValueError(f"readouts: root ID {twice[0]} is listed twice")
    net.index_of(readouts)
    signature = inspect.signature(run)
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
    if engines is None:
        engines = 4 if run_args and all(args[8] == "cuda" for args in run_args) else 1
    engines = _whole(engines, "engines", 1, 64)
    outs = net._session.run_many(run_args, names, int(engines)) if run_args else []
    results: Dict[str, RunResult] = {}
    rate_rows, readout_rows, spike_parts = [], [], []
    for name, args, out in zip(names, run_args, outs):
        result = _run_result(net, out, args)
        results[name] = result
        n_trials = int(result.summary["trials"])
        duration_s = result.summary["duration_ms"] * 1e-3
        table = result.spikes
        trial, flywire_id = np.asarray(table["trial"]), np.asarray(table["flywire_id"])
        ids, per_trial = result._per_trial
        rate_rows.append((name, ids, n_trials, per_trial.mean(axis=1), _sd_over_trials(per_trial)))
        for root in readouts:
            row = np.asarray([np.count_nonzero((flywire_id == root) & (trial == k)) for k in range(n_trials)]) / duration_s
            rsd = row.std(ddof=1) if n_trials > 1 else float("nan")
            readout_rows.append([name, root, n_trials, row.mean(), rsd, rsd / np.sqrt(n_trials)])
        if spikes:
            spike_parts.append((np.asarray(table["t"]), trial, flywire_id, name))
    base = {r[1]: r[3] for r in readout_rows if r[0] == "baseline"}
    for r in readout_rows:
        r.append(r[3] - base[r[1]] if r[1] in base else float("nan"))
    rates_table = _table({
        "exp_name": np.concatenate([[n] * ids.size for n, ids, *_ in rate_rows]) if rate_rows else np.array([], dtype=object),
        "flywire_id": np.concatenate([ids for _, ids, *_ in rate_rows]) if rate_rows else np.array([], dtype=np.int64),
        "trials": np.concatenate([np.full(ids.size, t) for _, ids, t, *_ in rate_rows]) if rate_rows else np.array([], dtype=np.int64),
        "mean_rate_hz": np.concatenate([m for *_, m, _ in rate_rows]) if rate_rows else np.array([]),
        "sd_hz": np.concatenate([sd for *_, sd in rate_rows]) if rate_rows else np.array([])})
    columns = ["exp_name", "readout_id", "trials", "mean_rate_hz", "sd_hz", "sem_hz", "change_hz"]
    readouts_table = _table({c: np.asarray([r[k] for r in readout_rows], dtype=object if k == 0 else None)
                             for k, c in enumerate(columns)})
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


def get_rate(df, duration, n_run: int, flyid2name: Optional[Mapping[int, str]] = None):
    """The reference's utils.get_rate: per neuron and experiment, the mean rate (Hz) and
    its standard deviation over the n_run trials (numpy's std, ddof=0, as the reference),
    a trial without spikes counting 0 Hz.

    df: spikes with columns trial, flywire_id, exp_name (run_exp's file, read back).
    duration: the trial's length, s (a number, or a Brian2 quantity such as 1000*ms).
    Returns (df_rate, df_std): index flyid, one column per exp_name (and a first column
    'name' from flyid2name when given).
    """
    if _pd is None:
        raise ImportError("flysim.get_rate needs pandas (Debian: apt-get install python3-pandas)")
    missing = [c for c in ("trial", "flywire_id", "exp_name") if c not in df.columns]
    if missing:
        raise ValueError(f"get_rate: df has no column {', '.join(missing)} (columns: {', '.join(map(str, df.columns))})")
    duration_s = _seconds(duration, "duration")
    rows = []
    for exp_name, df_e in df.groupby("exp_name", sort=False):
        ids, per_trial = _trial_rates(df_e["trial"].to_numpy(), df_e["flywire_id"].to_numpy(), int(n_run), duration_s)
        rows.append(_pd.DataFrame({"r": per_trial.mean(axis=1), "std": per_trial.std(axis=1), "flyid": ids,
                                   "exp_name": exp_name}))
    long = _pd.concat(rows) if rows else _pd.DataFrame(columns=["r", "std", "flyid", "exp_name"])
    df_rate = long.pivot_table(columns="exp_name", index="flyid", values="r")
    df_std = long.pivot_table(columns="exp_name", index="flyid", values="std")
    if flyid2name:
        df_rate.insert(loc=0, column="name", value=df_rate.index.map(flyid2name).fillna(""))
        df_std.insert(loc=0, column="name", value=df_rate.index.map(flyid2name).fillna(""))
    return df_rate, df_std


# The reference's parameters (model.py's default_params) as LifParams fields, with the
# SI value of the field's unit: a Brian2 quantity or an SI number divided by it gives the field.
_REFERENCE_PARAMS = {
    "v_0": ("v0_mV", 1e-3), "v_rst": ("v_reset_mV", 1e-3), "v_th": ("v_threshold_mV", 1e-3),
    "t_mbr": ("tau_m_ms", 1e-3), "tau": ("tau_g_ms", 1e-3), "t_rfc": ("t_ref_ms", 1e-3),
    "t_dly": ("delay_ms", 1e-3), "w_syn": ("w_syn_mV", 1e-3), "r_poi": ("r_poi_Hz", 1.0), "f_poi": ("f_poi", 1.0),
}
# The reference's trial length and count, and the rate of neu_exc2.
_REFERENCE_RUN = {"t_run": 1.0, "n_run": 30, "r_poi2": 0.0}
# The reference's equations: flysim's model is that model (docs/MODEL.md); they are not read.
_REFERENCE_EQUATIONS = ("eqs", "eq_th", "eq_rst")


def _seconds(value: Any, what: str) -> float:
    """An SI number from a number or a Brian2 quantity (whose array is in SI units)."""
    try:
        return float(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        raise ValueError(f"{what}={value!r} must be a number (SI units) or a Brian2 quantity") from None


def _default_params() -> Dict[str, Any]:
    """default_params with Brian2 units when brian2 imports, else SI numbers (s, V, Hz)."""
    lif = _flysim.LifParams()
    si = {key: getattr(lif, field) * scale for key, (field, scale) in _REFERENCE_PARAMS.items()}
    si.update(_REFERENCE_RUN)
    try:
        import brian2
    except ImportError:
        return si
    unit_of = {"mV": brian2.volt, "ms": brian2.second, "Hz": brian2.Hz}  # the SI unit of a field's unit
    quantities = dict(si, t_run=si["t_run"] * brian2.second, r_poi2=si["r_poi2"] * brian2.Hz)
    for key, (field, _) in _REFERENCE_PARAMS.items():
        unit = unit_of.get(field.rsplit("_", 1)[-1])
        if unit is not None:
            quantities[key] = si[key] * unit
    return quantities


def __getattr__(name: str) -> Any:
    # default_params imports brian2 (seconds) only when asked for.
    if name == "default_params":
        globals()["default_params"] = _default_params()
        return globals()["default_params"]
    raise AttributeError(f"module 'flysim' has no attribute {name!r}")


def _reference_settings(params: Optional[Mapping[str, Any]]) -> Tuple[Dict[str, float], Dict[str, float]]:
    """(model parameters for run(), t_run/n_run/r_poi/r_poi2 in SI) of a reference params dict."""
    chosen: Dict[str, Any] = dict(_REFERENCE_RUN)
    lif = _flysim.LifParams()
    chosen.update({key: getattr(lif, field) * scale for key, (field, scale) in _REFERENCE_PARAMS.items()})
    for key, value in (params or {}).items():
        if key in _REFERENCE_EQUATIONS:
            continue
        if key not in chosen:
            raise ValueError(f"params[{key!r}] is not a parameter of the reference model "
                             f"(known: {', '.join(sorted(chosen))})")
        chosen[key] = _seconds(value, f"params[{key!r}]")
    model = {field: chosen[key] / scale for key, (field, scale) in _REFERENCE_PARAMS.items() if field != "r_poi_Hz"}
    return model, {k: chosen[k] for k in ("t_run", "n_run", "r_poi", "r_poi2")}


def _parquet_engine() -> Optional[str]:
    """The parquet engine pandas can write with (pyarrow or fastparquet), or None."""
    for name in ("pyarrow", "fastparquet"):
        if importlib.util.find_spec(name) is not None:
            return name
    return None


# Networks run_exp loaded, by (path_comp, path_con): later experiments reuse them and their engines.
_networks: Dict[Tuple[Optional[str], Optional[str]], Network] = {}


def _network_of(path_comp, path_con) -> Network:
    if (path_comp is None) != (path_con is None):
        raise ValueError("path_comp and path_con go together: give both (the Completeness and Connectivity CSVs) "
                         "or neither (the synthetic network)")
    key = (None if path_comp is None else os.fspath(path_comp), None if path_con is None else os.fspath(path_con))
    if key not in _networks:
        _networks[key] = load_network(key[0], key[1])
    return _networks[key]


def run_exp(exp_name: str, neu_exc: Sequence[int], path_res: Union[str, os.PathLike],
            path_comp: Optional[Union[str, os.PathLike]] = None, path_con: Optional[Union[str, os.PathLike]] = None,
            params: Optional[Mapping[str, Any]] = None, neu_slnc: Sequence[int] = [], neu_exc2: Sequence[int] = [],
            n_proc: int = -1, force_overwrite: bool = False, *, seed: int = 1, engine: str = "cpu",
            batch: Optional[int] = None) -> Optional[Path]:
    """The reference's model.run_exp on flysim: n_run trials of t_run with the neurons of
    neu_exc driven at r_poi, those of neu_exc2 at r_poi2 and those of neu_slnc silenced
    (outgoing synapses).

    path_comp, path_con: the Completeness and Connectivity CSVs; None: the synthetic network.
    params: the reference's default_params or a changed copy (Brian2 quantities or SI
        numbers); its equations (eqs, eq_th, eq_rst) are flysim's and not read.
    n_proc: the CPU pool's threads (-1: all cores).
    Writes {path_res}/{exp_name}.parquet (brotli) with columns t (s), trial, flywire_id,
    exp_name when pandas can write parquet, else {exp_name}.csv with the same columns;
    path_res is created when missing;
    an existing file is kept unless force_overwrite. Returns the file written (None when skipped).
    """
    if _pd is None:
        raise ImportError("flysim.run_exp needs pandas (Debian: apt-get install python3-pandas)")
    model, run_settings = _reference_settings(params)
    parquet = _parquet_engine()
    path_save = Path(path_res) / f"{exp_name}.{'parquet' if parquet else 'csv'}"
    if path_save.is_file() and not force_overwrite:
        print(f">>> Skipping experiment {exp_name} because {path_save} exists and force_overwrite = {force_overwrite}")
        return None
    Path(path_res).mkdir(parents=True, exist_ok=True)
    net = _network_of(path_comp, path_con)
    stimulus = {"exc": (neu_exc, run_settings["r_poi"])}
    if len(neu_exc2):
        stimulus["exc2"] = (neu_exc2, run_settings["r_poi2"])
    print(f">>> Experiment:     {exp_name}")
    print(f"    Output file:    {path_save}" + ("" if parquet else " (CSV: pandas has no parquet engine; "
                                                      "pyarrow and fastparquet are not importable)"))
    print(f"    Excited neurons: {len(neu_exc) + len(neu_exc2)}")
    if len(neu_slnc):
        print(f"    Silenced neurons: {len(neu_slnc)}")
    start = time.time()
    res = run(net, stimulus=stimulus, silence=neu_slnc, duration_ms=run_settings["t_run"] * 1e3,
              trials=int(run_settings["n_run"]), seed=seed, engine=engine,
              threads=None if n_proc == -1 else n_proc, batch=batch, model=model)
    print(f"    Elapsed time:   {int(time.time() - start)} s")
    # The reference's row order: by trial, then neuron (Brian2 index), then time.
    spikes = res.spikes
    order = np.lexsort((res.step, net.index_of(spikes["flywire_id"].to_numpy()), spikes["trial"].to_numpy()))
    df = spikes.iloc[order].reset_index(drop=True)
    df["exp_name"] = exp_name
    if parquet:
        log.info("run_exp: writing %s (parquet, %s)", path_save, parquet)
        df.to_parquet(path_save, compression="brotli")
    else:
        log.info("run_exp: writing %s (CSV: neither pyarrow nor fastparquet is importable)", path_save)
        df.to_csv(path_save, index=False)
    return path_save


class ServiceError(RuntimeError):
    """A request `flysim serve`'s control API refused, or one that reached no service.

    status: the HTTP status (400 a bad request, 401 a token, 409 a refused command, ...;
        docs/SERVICE.md), None when nothing answered.
    message: the service's own words (its "error" or "message" field).
    """

    def __init__(self, message: str, status: Optional[int]) -> None:
        super().__init__(message if status is None else f"HTTP {status}: {message}")
        self.message = message
        self.status = status


class Service:
    """A client of a running `flysim serve`'s control API (docs/SERVICE.md).

        svc = flysim.Service("http://127.0.0.1:7460")
        svc.status()["engine"]; svc.stimulus(rate_hz=200); svc.stop()

    url: the service's address (control.bind and control.port).
    token: the token of the service's control.token-file (sent as 'Authorization: Bearer'),
        None when it has none.
    timeout: seconds to wait for an answer (a swap builds an engine; a command is answered
        once it took effect at an epoch boundary).
    Commands return the service's reply: ok, message, and the boundary (trial, step) at which
    the command applied; a refusal is a ServiceError.
    """

    def __init__(self, url: str = "http://127.0.0.1:7460", token: Optional[str] = None, timeout: float = 120.0) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or not parts.netloc:
            raise ValueError(f"url={url!r} must be http://HOST:PORT (the control API speaks plain HTTP)")
        self.url = url.rstrip("/")
        self.timeout = timeout
        self._token = token

    def __repr__(self) -> str:
        return f"<flysim.Service {self.url}{' (token)' if self._token else ''}>"

    def _request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None,
                 query: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        url = self.url + path
        given = {k: v for k, v in (query or {}).items() if v is not None}
        if given:
            url += "?" + urllib.parse.urlencode(given)
        data = None if method == "GET" else json.dumps(body or {}).encode()
        request = urllib.request.Request(url, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self._token:
            request.add_header("Authorization", f"Bearer {self._token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            try:
                answer = json.loads(text)
                message = answer.get("error") or answer.get("message") or text
            except (ValueError, AttributeError):
                message = text or e.reason
            raise ServiceError(f"{method} {path}: {message}", e.code) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise ServiceError(f"{method} {path}: no flysim serve answers at {self.url} ({reason})", None) from None

    def status(self) -> Dict[str, Any]:
        """The run's state (GET /status): state, trial, step, engine, threads, lag, cost, ..."""
        return self._request("GET", "/status")

    def swap(self, engine: str, threads: Optional[int] = None) -> Dict[str, Any]:
        """Moves the run to engine "cpu" (a pool of `threads`; None: engine.threads) or "cuda"."""
        body: Dict[str, Any] = {"engine": engine}
        if threads is not None:
            body["threads"] = int(threads)
        return self._request("POST", "/swap", body)

    def stimulus(self, rate_hz: Optional[float] = None, poisson_ids: Optional[Sequence[int]] = None,
                 kicks: Optional[Iterable[Tuple[int, float]]] = None, group: Optional[str] = None,
                 silence_ids: Optional[Sequence[int]] = None, silence_mode: Optional[str] = None) -> Dict[str, Any]:
        """Changes the stimulus at the next boundary; what is None stays as it is.

        rate_hz, poisson_ids: the Poisson rate and neurons (root IDs) of the default group,
            or of `group` (a new group needs its poisson_ids).
        kicks: (root_id, after_ms) pairs: the neuron gets one kick that many ms after the
            boundary where the command applies.
        silence_ids: the silenced root IDs, replacing the set ([] silences none);
            silence_mode: "outgoing" or "both".
        """
        body: Dict[str, Any] = {}
        if rate_hz is not None:
            body["rate_hz"] = float(rate_hz)
        if poisson_ids is not None:
            body["poisson_ids"] = _root_ids(poisson_ids, "poisson_ids")
        if kicks is not None:
            try:
                body["kicks"] = [{"neuron_id": int(root_id), "after_ms": float(after_ms)} for root_id, after_ms in kicks]
            except (TypeError, ValueError):
                raise ValueError("kicks must be (root_id, after_ms) pairs") from None
        if group is not None:
            body["group"] = str(group)
        if silence_ids is not None:
            body["silence_ids"] = _root_ids(silence_ids, "silence_ids")
        if silence_mode is not None:
            body["silence_mode"] = silence_mode
        return self._request("POST", "/stimulus", body)

    def checkpoint(self) -> Dict[str, Any]:
        """Writes a checkpoint at the next boundary; the reply's "file" names it."""
        return self._request("POST", "/checkpoint")

    def pause(self) -> Dict[str, Any]:
        """Holds the run at the next boundary (status "paused") until resume()."""
        return self._request("POST", "/pause")

    def resume(self) -> Dict[str, Any]:
        """Continues a paused run."""
        return self._request("POST", "/resume")

    def stop(self) -> Dict[str, Any]:
        """Ends the run at the next boundary (the service then exits)."""
        return self._request("POST", "/stop")

    def spikes(self, since: Optional[int] = None, neurons: Optional[int] = None) -> Dict[str, Any]:
        """The live raster (GET /spikes): the top `neurons` (default 64) and their spike
        counts per 20 ms bin from position `since` (the previous answer's "next")."""
        return self._request("GET", "/spikes", query={"since": since, "neurons": neurons})

    def rates(self, since: Optional[int] = None) -> Dict[str, Any]:
        """Population and readout rates per bin (GET /rates) from position `since`."""
        return self._request("GET", "/rates", query={"since": since})

    def top(self, neurons: Optional[int] = None) -> Dict[str, Any]:
        """The top `neurons` responders over the window (GET /top; default 10)."""
        return self._request("GET", "/top", query={"neurons": neurons})
