"""The reference model's calls (philshiu/Drosophila_brain_model: model.py's run_exp and
default_params, utils.py's get_rate) on flysim, so that a reference notebook switches by
changing its import."""
from __future__ import annotations

import importlib.util
import logging
import os
import time
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Tuple, Union

import numpy as np

from . import _flysim
from ._tables import _pd, _trial_rates
from .network import Network, _indices_of, load_network
from ._values import _MAX_THREADS, _MAX_TRIALS, RootIds, _quantity_in, _root_ids, _whole
from .runs import _run_args, run

log = logging.getLogger("flysim")


def get_rate(df, t_run=None, n_run: Optional[int] = None, flyid2name: Optional[Mapping[int, str]] = None, *,
             duration=None):
    """The reference's utils.get_rate: per neuron and experiment, the mean rate (Hz) and
    its standard deviation over the n_run trials (numpy's std, ddof=0, as the reference),
    a trial without spikes counting 0 Hz.

    df: spikes with columns trial, flywire_id, exp_name (run_exp's file, read back).
    t_run: the trial's length, s (a number, or a Brian2 quantity such as 1000*ms);
        `duration=` is another name for it.
    Returns (df_rate, df_std): index flyid, one column per exp_name (and a first column
    'name' from flyid2name when given).
    """
    if _pd is None:
        raise ImportError("flysim.get_rate needs pandas (Debian: apt-get install python3-pandas)")
    missing = [c for c in ("trial", "flywire_id", "exp_name") if c not in df.columns]
    if missing:
        raise ValueError(f"get_rate: df has no column {', '.join(missing)} (columns: {', '.join(map(str, df.columns))})")
    if duration is not None:
        if t_run is not None:
            raise TypeError("get_rate: give t_run or duration (its other name), not both")
        t_run = duration
    if t_run is None or n_run is None:
        raise TypeError("get_rate needs t_run (the trial's length, s) and n_run (the number of trials)")
    duration_s = _positive(_si(t_run, "t_run", "second"), "t_run")
    n_run = _whole(n_run, "n_run", 1, _MAX_TRIALS)
    rows = []
    for exp_name, df_e in df.groupby("exp_name", sort=False):
        ids, per_trial = _trial_rates(df_e["trial"].to_numpy(), df_e["flywire_id"].to_numpy(), n_run, duration_s)
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
# Each parameter's physical dimension, by the name of its SI unit: a Brian2 quantity of
# another dimension (r_poi=150*mV) is refused rather than read as an SI number.
_DIMENSIONS = {"v_0": "volt", "v_rst": "volt", "v_th": "volt", "w_syn": "volt", "t_mbr": "second", "tau": "second",
               "t_rfc": "second", "t_dly": "second", "t_run": "second", "r_poi": "hertz", "r_poi2": "hertz", "f_poi": "1"}
_DIMENSION_WORDS = {"volt": "a potential, e.g. -52*mV", "second": "a time, e.g. 1000*ms", "hertz": "a rate, e.g. 150*Hz",
                    "1": "a number without units"}
# The reference's trial length and count, and the rate of neu_exc2.
_REFERENCE_RUN = {"t_run": 1.0, "n_run": 30, "r_poi2": 0.0}
# The reference's equations: flysim's model is that model (docs/MODEL.md); they are not read.
_REFERENCE_EQUATIONS = ("eqs", "eq_th", "eq_rst")


def _si(value: Any, what: str, dimension: str) -> float:
    """An SI number from a number (taken as SI) or a Brian2 quantity of `dimension` (the
    name of its SI unit, "1" for none); a quantity of another dimension is a ValueError."""
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise TypeError(f"{what}={value!r} must be a number (SI units) or a Brian2 quantity, not {type(value).__name__}")
    quantity = _quantity_in(value, what, dimension, _DIMENSION_WORDS[dimension])
    try:
        number = quantity if quantity is not None else float(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        raise TypeError(f"{what}={value!r} must be a number (SI units) or a Brian2 quantity") from None
    if not np.isfinite(number):
        raise ValueError(f"{what}={value!r} must be finite")
    return number


def _positive(value: float, what: str) -> float:
    if not value > 0:
        raise ValueError(f"{what}={value} must be above 0")
    return value


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


# A plain t_run from this many seconds on is warned about: likely meant in ms.
_LONG_TRIAL_S = 60.0
# A plain number from this SI magnitude on is refused for the model's potentials and
# times: -52 or 0.275 meant in mV, 5 meant in ms (t_run, which may be long, is warned about).
_PLAIN_SLIP = {"volt": (0.1, "V", "potential", "mV"), "second": (1.0, "s", "time", "ms")}


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
        if key == "n_run":
            chosen[key] = _whole(value, "params['n_run']", 1, _MAX_TRIALS)
        else:
            chosen[key] = _si(value, f"params[{key!r}]", _DIMENSIONS[key])
            _refuse_unit_slip(key, value, chosen[key])
            # A plain number is SI: t_run=300 meant as ms runs trials of five minutes.
            if key == "t_run" and not hasattr(value, "dim") and chosen[key] >= _LONG_TRIAL_S:
                log.warning("params['t_run']=%g is a plain number, read in seconds (SI): each trial lasts %g s; "
                            "give 300*ms (brian2) or 0.3 for 300 ms", chosen[key], chosen[key])
    _positive(chosen["t_run"], "params['t_run'] (s)")
    for key in ("r_poi", "r_poi2"):
        if not chosen[key] >= 0:
            raise ValueError(f"params[{key!r}]={chosen[key]} Hz must be 0 or more")
    model = {field: chosen[key] / scale for key, (field, scale) in _REFERENCE_PARAMS.items() if field != "r_poi_Hz"}
    return model, {k: chosen[k] for k in ("t_run", "n_run", "r_poi", "r_poi2")}


def _refuse_unit_slip(key: str, value: Any, si: float) -> None:
    """A plain number for a potential or a time (not t_run) that no model means in SI."""
    if key == "t_run" or hasattr(value, "dim") or _DIMENSIONS[key] not in _PLAIN_SLIP:
        return
    limit, si_unit, kind, unit = _PLAIN_SLIP[_DIMENSIONS[key]]
    if abs(si) >= limit:
        raise ValueError(f"params[{key!r}]={value!r} is a plain number, read in SI units: {si * 1e3:g} {unit}. Give "
                         f"{value!r}*{unit} (brian2) or {si * 1e-3:g} for {value!r} {unit}; a plain {kind} of {limit:g} "
                         f"{si_unit} or more is refused as a unit slip")


def _parquet_engine() -> Optional[str]:
    """The parquet engine pandas can write with (pyarrow or fastparquet), or None."""
    for name in ("pyarrow", "fastparquet"):
        if importlib.util.find_spec(name) is not None:
            return name
    return None


# Networks run_exp loaded, by their files' absolute paths, each with the files' stamps
# (size, time of change, inode) when loaded: later experiments on the same files reuse it
# and its engines; a file edited or replaced since loads anew, and the old one is dropped.
_networks: Dict[Tuple[Optional[str], Optional[str]], Tuple[Tuple[Any, ...], Network]] = {}


def _file_stamp(path: Optional[str]) -> Tuple[Any, ...]:
    if path is None:
        return ()
    try:
        stat = os.stat(path)
    except OSError:
        return ()  # load_network names the file it cannot read
    return (stat.st_size, stat.st_mtime_ns, stat.st_ino)


def _network_of(path_comp, path_con) -> Network:
    if (path_comp is None) != (path_con is None):
        raise ValueError("path_comp and path_con go together: give both (the Completeness and Connectivity CSVs) "
                         "or neither (the synthetic network)")
    key = tuple(None if p is None else os.path.abspath(os.fspath(p)) for p in (path_comp, path_con))
    stamp = (_file_stamp(key[0]), _file_stamp(key[1]))
    if key not in _networks or _networks[key][0] != stamp:
        _networks.pop(key, None)
        _networks[key] = (stamp, load_network(key[0], key[1]))
    return _networks[key][1]


def run_exp(exp_name: str, neu_exc: RootIds, path_res: Union[str, os.PathLike],
            path_comp: Optional[Union[str, os.PathLike]] = None, path_con: Optional[Union[str, os.PathLike]] = None,
            params: Optional[Mapping[str, Any]] = None, neu_slnc: RootIds = [], neu_exc2: RootIds = [],
            n_proc: int = -1, force_overwrite: bool = False, *, seed: int = 1, engine: str = "cpu",
            batch: Optional[Union[int, str]] = None) -> Path:
    """The reference's model.run_exp on flysim: n_run trials of t_run with the neurons of
    neu_exc driven at r_poi, those of neu_exc2 at r_poi2 and those of neu_slnc silenced
    (outgoing synapses).

    neu_exc, neu_exc2, neu_slnc: root IDs, or the path of an ID list file (one per line,
        '#' comments; flysim.read_id_list).
    path_comp, path_con: the Completeness and Connectivity CSVs; None: the synthetic network.
    params: the reference's default_params or a changed copy (Brian2 quantities or SI
        numbers); its equations (eqs, eq_th, eq_rst) are flysim's and not read.
    n_proc: the CPU pool's threads (-1: all cores).
    seed, engine, batch (keyword-only, beyond the reference): run()'s: trial k draws its
        Poisson input from seed and k; engine "cpu" or "cuda"; batch never changes a spike.
    Writes {path_res}/{exp_name}.parquet (brotli) with columns t (s), trial, flywire_id,
    exp_name when pandas can write parquet, else {exp_name}.csv with the same columns;
    path_res is created when missing;
    an existing file is kept unless force_overwrite. Returns the file written, or the
    existing one when kept (as the reference does, it then says so and runs nothing).
    """
    if _pd is None:
        raise ImportError("flysim.run_exp needs pandas (Debian: apt-get install python3-pandas)")
    if not isinstance(exp_name, str):
        raise TypeError(f"exp_name={exp_name!r} must be a str (the name of the file in path_res), "
                        f"not {type(exp_name).__name__}")
    if exp_name in ("", ".", "..") or any(
            sep and sep in exp_name for sep in ("/", os.sep, os.altsep)):
        raise ValueError(f"exp_name={exp_name!r} must name a file in path_res: not empty, without a path separator")
    threads = None if n_proc == -1 else _whole(n_proc, "n_proc", 1, _MAX_THREADS)
    model, run_settings = _reference_settings(params)
    neu_exc, neu_exc2, neu_slnc = (_root_ids(neu_exc, "neu_exc"), _root_ids(neu_exc2, "neu_exc2"),
                                   _root_ids(neu_slnc, "neu_slnc"))
    if os.path.exists(path_res) and not os.path.isdir(path_res):
        raise ValueError(f"path_res={os.fspath(path_res)!r} is a file, not a folder")
    parquet = _parquet_engine()
    path_save = Path(path_res) / f"{exp_name}.{'parquet' if parquet else 'csv'}"
    if path_save.is_file() and not force_overwrite:
        print(f">>> Skipping experiment {exp_name} because {path_save} exists and force_overwrite = {force_overwrite}")
        return path_save
    Path(path_res).mkdir(parents=True, exist_ok=True)
    net = _network_of(path_comp, path_con)
    for ids, what in ((neu_exc, "neu_exc"), (neu_exc2, "neu_exc2"), (neu_slnc, "neu_slnc")):
        _indices_of(net, ids, what)  # an unknown ID named by argument, before the banner
    if len(neu_exc) == 0:
        raise ValueError("neu_exc: no root IDs (the experiment would drive nothing)")
    both = sorted(set(neu_exc) & set(neu_exc2))
    if both:
        raise ValueError(f"neu_exc and neu_exc2 both list root ID {both[0]}: flysim drives a neuron from one Poisson "
                         "group (the reference's two PoissonInputs would drive it from both)")
    stimulus = {"exc": (neu_exc, run_settings["r_poi"])}
    if len(neu_exc2):
        stimulus["exc2"] = (neu_exc2, run_settings["r_poi2"])
        if run_settings["r_poi2"] == 0:
            log.warning("run_exp: neu_exc2 is driven at r_poi2 = 0 Hz (params has no r_poi2, or it is 0): "
                        "its %d neurons get no Poisson input", len(neu_exc2))
    run_args = dict(stimulus=stimulus, kicks=None, silence=neu_slnc, silence_mode="outgoing",
                    duration_ms=run_settings["t_run"] * 1e3, trials=run_settings["n_run"], seed=seed, engine=engine,
                    threads=threads, batch=batch, model=model)
    # Everything run checks (seed, engine, batch, IDs in two groups or twice), before the banner.
    net._session.check(_run_args(**run_args))
    print(f">>> Experiment:     {exp_name}")
    print(f"    Output file:    {path_save}" + ("" if parquet else " (CSV: pandas has no parquet engine; "
                                                      "pyarrow and fastparquet are not importable)"))
    print(f"    Excited neurons: {len(neu_exc) + len(neu_exc2)}")
    if len(neu_slnc):
        print(f"    Silenced neurons: {len(neu_slnc)}")
    start = time.time()
    res = run(net, **run_args)
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
