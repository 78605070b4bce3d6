"""Result tables: pandas DataFrames when pandas imports, else dicts of numpy arrays; and
the rates per neuron and trial that every table of rates starts from."""
from __future__ import annotations

from typing import Dict, Tuple

import numpy as np

from . import _flysim

try:
    import pandas as _pd
except ImportError:  # results come back as dicts of numpy arrays
    _pd = None


def _trial_rates(trial: np.ndarray, flywire_id: np.ndarray, n_trials: int,
                 duration_s: float) -> Tuple[np.ndarray, np.ndarray]:
    """The neurons that spiked (ascending root IDs) and their rate in each trial, Hz
    (shape neurons x n_trials; a trial without spikes counts 0 Hz)."""
    ids, neuron = np.unique(np.asarray(flywire_id, dtype=np.int64), return_inverse=True)
    trial = np.asarray(trial, dtype=np.int64)
    if trial.size and (trial.min() < 0 or trial.max() >= n_trials):
        raise ValueError(f"trial numbers run {trial.min()}..{trial.max()}, outside 0..{n_trials - 1} (n_run={n_trials})")
    counts = np.bincount(neuron * n_trials + trial, minlength=ids.size * n_trials).reshape(ids.size, n_trials)
    return ids, counts / duration_s


def _rate_stats(per_trial: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's mean, sd (ddof=1) and sem over the trials, the numbers of the program's
    tables to the last bit (one formula, model/rate_stats.hpp); sd and sem NaN for one trial."""
    return _flysim.rate_stats(np.ascontiguousarray(per_trial, dtype=np.float64))


def _table(columns: Dict[str, np.ndarray]):
    """A DataFrame of the columns, or the dict itself without pandas."""
    return _pd.DataFrame(columns) if _pd is not None else columns
