# Type hints of the flysim package (python/flysim/__init__.py has the docstrings).
import os
from pathlib import Path
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

PathLike = Union[str, os.PathLike]

class Network:
    @property
    def ids(self) -> np.ndarray: ...
    @property
    def description(self) -> str: ...
    def index_of(self, root_ids: Sequence[int] | np.ndarray) -> np.ndarray: ...
    def __len__(self) -> int: ...

class RunResult:
    spikes: Any  # pandas.DataFrame (t, trial, flywire_id), or a dict of numpy arrays
    step: np.ndarray
    rates: Any  # pandas.DataFrame (flywire_id, mean_rate_hz, sd_hz), or a dict of numpy arrays
    summary: Dict[str, Any]

default_params: Dict[str, Any]

def load_network(neurons: Optional[PathLike] = ..., connectivity: Optional[PathLike] = ...,
                 format: str = ...) -> Network: ...
def read_id_list(path: PathLike) -> np.ndarray: ...
def run(net: Network, stimulus: Optional[Mapping[str, Tuple[Sequence[int], float]]] = ...,
        kicks: Optional[Union[PathLike, Iterable[Tuple[int, int]]]] = ..., silence: Optional[Sequence[int]] = ...,
        silence_mode: str = ..., duration_ms: float = ..., trials: int = ..., seed: int = ..., engine: str = ...,
        threads: Optional[int] = ..., batch: Optional[int] = ...,
        model: Optional[Mapping[str, float]] = ...) -> RunResult: ...
def get_rate(df: Any, duration: Any, n_run: int, flyid2name: Optional[Mapping[int, str]] = ...) -> Tuple[Any, Any]: ...
def run_exp(exp_name: str, neu_exc: Sequence[int], path_res: PathLike, path_comp: Optional[PathLike] = ...,
            path_con: Optional[PathLike] = ..., params: Optional[Mapping[str, Any]] = ..., neu_slnc: Sequence[int] = ...,
            neu_exc2: Sequence[int] = ..., n_proc: int = ..., force_overwrite: bool = ..., *, seed: int = ...,
            engine: str = ..., batch: Optional[int] = ...) -> Optional[Path]: ...


class ScreenResult:
    rates: Any  # pandas.DataFrame (exp_name, flywire_id, trials, mean_rate_hz, sd_hz)
    readouts: Any  # pandas.DataFrame (exp_name, readout_id, trials, mean_rate_hz, sd_hz, sem_hz, change_hz)
    spikes: Any  # pandas.DataFrame (t, trial, flywire_id, exp_name), or None
    results: Dict[str, RunResult]

def screen(net: Network, experiments: Union[Mapping[str, Mapping[str, Any]], Sequence[Tuple[str, Mapping[str, Any]]]],
           readouts: Optional[Sequence[int]] = ..., spikes: bool = ..., **common: Any) -> ScreenResult: ...
