"""Input checking and result shaping shared by the analytic models.

Every public model function accepts Python scalars, sequences or numpy arrays and
broadcasts them against each other.  These helpers turn an argument into a float
array, check its range and raise a ``ValueError`` that names the argument, the
offending value and what is allowed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["as_array", "finish"]


def _describe(lo: float | None, hi: float | None, lo_open: bool, hi_open: bool) -> str:
    parts = []
    if lo is not None:
        parts.append(f"{'>' if lo_open else '>='} {lo:g}")
    if hi is not None:
        parts.append(f"{'<' if hi_open else '<='} {hi:g}")
    return " and ".join(parts) if parts else "any number"


def as_array(
    name: str,
    value: Any,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
    finite: bool = True,
    unit: str = "",
) -> np.ndarray:
    """Return ``value`` as a float array after checking it lies in the allowed range.

    ``lo``/``hi`` are the bounds, ``lo_open``/``hi_open`` make them strict and
    ``finite=False`` lets ``+inf`` through (e.g. an unlimited receive window).
    NaN is always rejected.
    """
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    allowed = _describe(lo, hi, lo_open, hi_open)
    if unit:
        allowed = f"{allowed} {unit}".strip()
    if not finite:
        allowed += " (inf allowed)"
    bad = np.isnan(arr)
    if finite:
        bad |= np.isinf(arr)
    with np.errstate(invalid="ignore"):
        if lo is not None:
            bad |= (arr <= lo) if lo_open else (arr < lo)
        if hi is not None:
            bad |= (arr >= hi) if hi_open else (arr > hi)
    if bad.any():
        first = float(arr[bad].flat[0])
        raise ValueError(f"{name} must be {allowed}, got {first!r}")
    return arr


def finish(result: np.ndarray) -> np.ndarray | np.float64:
    """Return a 0-d result as a numpy float (a ``float`` subclass), arrays unchanged."""
    result = np.asarray(result, dtype=float)
    if result.ndim == 0:
        return np.float64(result[()])
    return result
