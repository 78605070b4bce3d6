"""Checks of the values Python hands to flysim: each wrong one raises an error naming the
argument, before the compiled part narrows or rounds it; and the ID list files that root
IDs may be given as."""
from __future__ import annotations

import os
from collections.abc import Iterator, KeysView
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _flysim

# Root IDs as the functions take them: integers, or a file of them (read_id_list).
RootIds = Union[Sequence[int], np.ndarray, str, "os.PathLike[str]"]


def read_id_list(path: Union[str, "os.PathLike[str]"]) -> np.ndarray:
    """Root IDs (numpy int64) of an ID list file: one per line, '#' comments (the files
    of stimulus.ids and stimulus.silence; data/sugar_grn_783.txt is one)."""
    return _flysim.read_id_list(os.fspath(path))


def _id_file(path: Union[str, "os.PathLike[str]"], what: str) -> np.ndarray:
    """The root IDs of the ID list file `path` given as argument `what`: a missing file
    is a FileNotFoundError naming it, a line that is no ID an InputError naming `what`."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"{what}: the ID list file {os.fspath(path)} does not exist (a str or path names "
                                "a file of root IDs, one per line; give the IDs themselves as integers)")
    try:
        return read_id_list(path)
    except _flysim.InputError as e:
        raise _flysim.InputError(f"{what}: {e}") from None


def _root_ids(ids: Any, what: str) -> List[int]:
    """Root IDs as a list of Python ints, from one integer, any sequence or array of
    integers, or a str or os.PathLike naming an ID list file (read_id_list)."""
    if isinstance(ids, (str, os.PathLike)):
        ids = _id_file(ids, what)
    elif isinstance(ids, bytes):
        raise TypeError(f"{what}: root IDs must be integers or the path of an ID list file (str or os.PathLike), "
                        "not bytes")
    if isinstance(ids, (set, frozenset, KeysView)):
        try:
            ids = sorted(ids)  # an order of their own, so an error names the same item every time
        except TypeError:
            raise TypeError(f"{what}: root IDs must be integers (the set mixes types)") from None
    elif isinstance(ids, Iterator):
        ids = list(ids)
    try:
        arr = np.asarray(ids)
    except OverflowError:
        raise ValueError(f"{what}: root IDs must fit in 64 bits") from None
    if arr.ndim > 1 and arr.size > 0 and sum(n > 1 for n in arr.shape) > 1:
        raise ValueError(f"{what}: root IDs must be one list (or one column), not an array of shape {arr.shape}")
    if arr.size == 0:
        return []
    if arr.dtype.kind == "b":
        raise TypeError(f"{what}: root IDs must be integers, not booleans (for a mask over the network's neurons, "
                        "give net.ids[mask])")
    if arr.dtype.kind == "f":
        # A float holds 15-16 digits: a FlyWire ID (18 digits) would change without a word.
        raise TypeError(f"{what}: root IDs must be integers, not floats (a float rounds an 18-digit ID)")
    if arr.dtype.kind not in "iu":
        try:
            arr = arr.astype(np.int64)
        except (TypeError, ValueError, OverflowError) as e:
            raise ValueError(f"{what}: root IDs must be integers ({e})") from None
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{what}: root ID {int(arr.max())} is beyond the 64-bit signed IDs of a network")
    return [int(x) for x in arr.ravel()]


def _flag(value: Any, what: str) -> bool:
    """`value` as a bool, or a TypeError naming `what`: 0, 1 or "yes" are not taken for one."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what}={value!r} must be True or False, not {type(value).__name__}")
    return bool(value)


def _whole(value: Any, what: str, low: int, high: int) -> int:
    """`value` as an int in low..high, or a ValueError/TypeError naming `what`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what}={value!r} must be an integer, not {type(value).__name__}")
    if not low <= int(value) <= high:
        raise ValueError(f"{what}={value} must lie in {low}..{high}")
    return int(value)


def _quantity_in(value: Any, what: str, unit: str, expected: str) -> Optional[float]:
    """A Brian2 quantity `value` as a float in `unit` ("ms", "mV", "Hz", the SI "volt",
    "second", "hertz", or "1": dimensionless); None when `value` is not a quantity. A
    quantity of another dimension is a ValueError naming `what` and saying what is
    `expected`; an array is a TypeError."""
    if not (hasattr(value, "dim") and hasattr(value, "in_unit")):
        return None
    import brian2  # a quantity was given, so brian2 is imported already
    scale = {"ms": brian2.ms, "mV": brian2.mV, "Hz": brian2.Hz, "volt": brian2.volt, "second": brian2.second,
             "hertz": brian2.Hz, "1": 1}[unit]
    if not brian2.have_same_dimensions(value, scale):
        raise ValueError(f"{what}={value!r} has dimensions {brian2.get_dimensions(value)}, where {expected} is expected")
    if np.ndim(value) != 0:
        raise TypeError(f"{what}={value!r} must be one number")
    return float(value / scale)


def _real(value: Any, what: str, unit: Optional[str] = None) -> float:
    """`value` as a float in `unit` ("ms", "mV", "Hz"; None: a plain number), or an error
    naming `what`. A Brian2 quantity is taken in `unit` when it has that unit's dimension
    (None: dimensionless), and is a ValueError otherwise."""
    quantity = _quantity_in(value, what, unit or "1", f"a quantity in {unit}" if unit else "a plain number")
    if quantity is not None:
        return quantity
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what}={value!r} must be a number{' in ' + unit if unit else ''}, not {type(value).__name__}")
    return float(value)


# What the programs accept, checked here before the binding narrows a Python int.
_MAX_TRIALS, _MAX_THREADS, _MAX_SEED = _flysim.MAX_TRIALS, _flysim.MAX_THREADS, int(np.iinfo(np.int64).max)


def _integer_column(values: np.ndarray, what: str, name: str) -> np.ndarray:
    """A column of kicks as int64, or an error naming it: floats are refused, not cut."""
    if values.dtype.kind == "f":
        raise TypeError(f"{what}: {name} must be integers, not floats"
                        + (" (a float rounds an 18-digit ID)" if name == "root IDs" else ""))
    if values.dtype.kind == "u" and values.size and int(values.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{what}: {name} must fit 64-bit signed integers, not {int(values.max())}")
    try:
        return values.astype(np.int64)
    except (TypeError, ValueError, OverflowError) as e:
        raise ValueError(f"{what}: {name} must be integers ({e})") from None


def _kick_pairs(kicks: Any, what: str = "kicks") -> List[Tuple[int, int]]:
    """(step, root_id) pairs from such pairs or from a DataFrame with the kicks CSV's
    columns step and neuron_id; each step 0..2^31-1, each ID a 64-bit integer."""
    columns = getattr(kicks, "columns", None)
    if columns is not None:
        missing = [c for c in ("step", "neuron_id") if c not in columns]
        if missing:
            raise ValueError(f"{what}: a table of kicks has the kicks CSV's columns step and neuron_id; "
                             f"it lacks {', '.join(missing)} (columns: {', '.join(map(str, columns))})")
        steps, ids = np.asarray(kicks["step"]), np.asarray(kicks["neuron_id"])
    else:
        if isinstance(kicks, (str, bytes)):
            raise TypeError(f"{what} must be a CSV path, (step, root_id) pairs or a DataFrame, not a {type(kicks).__name__}")
        try:
            pairs = [tuple(pair) for pair in kicks]
        except TypeError:
            raise TypeError(f"{what} must be a CSV path, (step, root_id) pairs or a DataFrame "
                            f"(step, neuron_id), not {type(kicks).__name__}") from None
        for k, pair in enumerate(pairs):
            if len(pair) != 2:
                raise ValueError(f"{what}: item {k} is {pair!r}, not a pair (step, root_id)")
        steps = np.asarray([p[0] for p in pairs], dtype=object if pairs else np.int64)
        ids = np.asarray([p[1] for p in pairs], dtype=object if pairs else np.int64)
        for k, (step, root_id) in enumerate(pairs):
            for value, name in ((step, "step"), (root_id, "root ID")):
                if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                    raise TypeError(f"{what}: item {k}: {name} {value!r} must be an integer, not {type(value).__name__}"
                                    + (" (a float rounds an 18-digit ID)" if name == "root ID" and isinstance(value, float)
                                       else ""))
    steps = _integer_column(steps, what, "steps")
    ids = _integer_column(ids, what, "root IDs")
    outside = np.flatnonzero((steps < 0) | (steps >= 2**31))
    if outside.size:
        k = int(outside[0])
        raise ValueError(f"{what}: item {k}: step {int(steps[k])} is not a step 0..2^31-1")
    return list(zip(steps.tolist(), ids.tolist()))
