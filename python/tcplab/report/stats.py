"""Summary statistics over seeds: mean, Student-t 95 % confidence interval, range."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

__all__ = ["MeanCI", "mean_ci", "t_quantile_975"]

# Two-sided 95 % quantiles t_{0.975, df} of Student's t distribution for df = 1..30
# (standard tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
_Z975 = 1.959963984540054


def t_quantile_975(df: int) -> float:
    """t_{0.975} with `df` degrees of freedom: the table above for df <= 30, else the
    Cornish-Fisher expansion around the normal quantile (error < 1e-4 for df > 30)."""
    if df < 1:
        raise ValueError(f"df must be at least 1, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z, v = _Z975, float(df)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
    )


class MeanCI(NamedTuple):
    """Mean of `n` finite values, the half-width of its 95 % CI (NaN for n < 2), min, max."""

    mean: float
    half_width: float
    lo: float
    hi: float
    min: float
    max: float
    n: int


def mean_ci(values: Iterable[float | None]) -> MeanCI:
    """Mean and Student-t 95 % confidence interval of the finite values (None/NaN skipped)."""
    x = np.array([np.nan if v is None else float(v) for v in values], dtype=float)
    x = x[np.isfinite(x)]
    n = len(x)
    if n == 0:
        nan = math.nan
        return MeanCI(nan, nan, nan, nan, nan, nan, 0)
    mean = float(x.mean())
    half = math.nan if n < 2 else t_quantile_975(n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return MeanCI(mean, half, mean - half, mean + half, float(x.min()), float(x.max()), n)
