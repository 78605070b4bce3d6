"""Checks of the values Python hands to flysim: each wrong one raises an error naming the
argument, before the compiled part narrows or rounds it."""
from __future__ import annotations

from typing import Any, List

import numpy as np

from . import _flysim


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
