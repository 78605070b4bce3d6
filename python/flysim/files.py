"""flysim's CSV tables and run_exp's files read back into pandas as they were written:
experiment names as text, numbers to the last bit."""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Iterable, Union

from ._tables import _pd

log = logging.getLogger("flysim")

# Columns of flysim's tables (docs/OUTPUTS.md) that pandas would otherwise guess wrong.
_TEXT = ("exp_name",)  # "NA" or a root ID as a name stay text
_REAL = ("t", "t_ms", "rate_hz", "mean_rate_hz", "sd_hz", "sem_hz", "change_hz", "stimulus_rate_hz")
_WHOLE = ("trial", "step", "flywire_id", "readout_id", "neuron_id", "index", "spikes", "trials")  # int64, empty too

PathLike = Union[str, "os.PathLike[str]"]


def _pandas():
    if _pd is None:
        raise ImportError("reading flysim's tables into DataFrames needs pandas (Debian: python3-pandas)")
    return _pd


def read_csv(path: PathLike):
    """One of flysim's CSV tables (flysim screen's rates.csv, readouts.csv, spikes.csv;
    flysim sweep's sweep.csv, trials.csv; flysim run's outputs; run_exp's CSV) as a
    DataFrame holding exactly what was written: exp_name as text (pandas' own read_csv
    would turn the name "NA" into NaN and a root ID used as a name into a number), the
    numbers with float_precision="round_trip" (the files hold each double's shortest
    exact form), real columns as float64 even where every value is whole, and an empty
    sd_hz, sem_hz or change_hz as NaN; IDs, trials and counts as int64, empty tables too."""
    pd = _pandas()
    header = list(pd.read_csv(path, nrows=0).columns)
    dtype = {c: str for c in header if c in _TEXT}
    dtype.update({c: "float64" for c in header if c in _REAL})
    dtype.update({c: "int64" for c in header if c in _WHOLE})
    table = pd.read_csv(path, dtype=dtype, keep_default_na=False, na_values={c: [""] for c in header if c in _REAL},
                        float_precision="round_trip")
    if table.empty:  # a header alone: text columns as object and a RangeIndex, as flysim.screen's empty tables
        table = table.astype({c: object for c in header if c in _TEXT}).reset_index(drop=True)
    return table


def _run_exp_file(f: Path) -> Path:
    """The run_exp file to read for `f`: `f` itself, or for a .parquet that does not
    exist the .csv of the same stem that run_exp writes in its place without a parquet
    engine (with a warning); neither existing is a FileNotFoundError naming both."""
    if f.suffix != ".parquet" or f.exists():
        return f
    csv = f.with_suffix(".csv")
    if not csv.is_file():
        raise FileNotFoundError(f"load_exps: {f} is not a file (it does not exist), nor is {csv}, "
                                "the CSV run_exp writes in its place without a parquet engine")
    log.warning("load_exps: %s does not exist; reading %s instead, the CSV run_exp writes in its place "
                "when pandas has no parquet engine (neither pyarrow nor fastparquet importable)", f, csv)
    return csv


def load_exps(paths: Union[PathLike, Iterable[PathLike]]):
    """The reference's utils.load_exps: the spikes of run_exp's files (.parquet, or the
    .csv that run_exp writes without a parquet engine) as one DataFrame, t as float,
    the files' rows one after another (their own index, as the reference's pd.concat).
    A .parquet that does not exist is read from its .csv when that exists (a warning
    on the flysim logger says so): a notebook written for parquet reads run_exp's CSV."""
    pd = _pandas()
    files = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if not files:
        raise ValueError("load_exps: no files given")
    frames = []
    for f in files:
        f = _run_exp_file(Path(f))
        if not f.is_file():
            raise FileNotFoundError(f"load_exps: {f} is not a file" + ("" if f.exists() else " (it does not exist)"))
        if f.suffix == ".parquet":
            df = pd.read_parquet(f)
            df["t"] = df["t"].astype(float)
        elif f.suffix == ".csv":
            df = read_csv(f)
        else:
            raise ValueError(f"load_exps: {f} is neither .parquet nor .csv (run_exp's files)")
        frames.append(df)
    return pd.concat(frames)
