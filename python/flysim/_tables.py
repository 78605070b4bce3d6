"""Result tables: pandas DataFrames when pandas imports, else dicts of numpy arrays; and
the rates per neuron and trial that every table of rates starts from."""
from __future__ import annotations

from typing import Dict, Tuple

import numpy as np

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


def _sd_over_trials(per_trial: np.ndarray) -> np.ndarray:
    """Each row's standard deviation over the trials (ddof=1); NaN for a single trial."""
    return per_trial.std(axis=1, ddof=1) if per_trial.shape[1] > 1 else np.full(per_trial.shape[0], np.nan)


def _table(columns: Dict[str, np.ndarray]):
    """A DataFrame of the columns, or the dict itself without pandas."""
    return _pd.DataFrame(columns) if _pd is not None else columns
