"""A sweep's figure: the mean over seeds of one column against another, one line per value
of a third, with its Student-t 95 % confidence interval as a band (`tcplab plot STORE`,
`tcplab.sweep.summary.plot_store`).

`check_columns` says what is wrong with a request in one line naming the option (a column
that does not exist, with the nearest names; a y column of text; a grid path that varies
and is neither drawn nor fixed); `plot_means` draws from a store's rows (one per run), with
each axis labelled by what it holds and in a readable unit (`tcplab.report.labels`).
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from tcplab import errors as _errors

from .labels import axis, quantity
from .plots import COLUMN_IN, PALETTE, new_figure, styled
from .stats import mean_ci

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["check_columns", "plot_means", "seeds_note"]

_bad = _errors._invalid
# Columns of a store that are not results to plot.
_NOT_RESULTS = frozenset({"run_id", "error", "tcplab_version", "scenario", "stopped_by"})


def _numeric(s: pd.Series) -> pd.Series:
    """The column as numbers (booleans as 0/1), NaN where a value is not one."""
    if s.dtype == bool:
        return s.astype(float)
    return pd.to_numeric(s, errors="coerce")


def _is_numeric(s: pd.Series) -> bool:
    """Whether every value present is a number."""
    present = s.dropna()
    return len(present) > 0 and bool(_numeric(present).notna().all())


def _nearest(
    name: str, columns: Sequence[str], *, numeric: Sequence[str], store: str = "DIR"
) -> tuple[str, str]:
    """(" (did you mean 'X'?)" or "", a short list of columns to choose from)."""
    close = difflib.get_close_matches(name, columns, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    # The columns of the same owner (apps.ftp., links.wan.ab., ...), else the closest names.
    parts = name.split(".")
    pool: list[str] = []
    for keep in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:keep]) + "."
        pool = [c for c in numeric if c.startswith(prefix)]
        if pool:
            break
    if not pool:
        pool = difflib.get_close_matches(name, numeric, n=8, cutoff=0.0)
    shown = pool[:8]
    more = len(columns) - len(shown)
    listed = ", ".join(shown)
    if more > 0:
        listed += f" ({more} more: tcplab results {store} --sql 'DESCRIBE runs' lists them)"
    return hint, listed


def check_columns(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    hue: str | None,
    grid_paths: Sequence[str],
    where: str | None,
    store: str = "DIR",
) -> None:
    """Raise InvalidValueError (or MissingFieldError) naming the option when the rows `df`
    cannot give the figure asked for: a column that does not exist (with the nearest names),
    a y column that holds no numbers, or a grid path that takes several values and is neither
    --x nor --hue (the lines would average different runs)."""
    columns = [str(c) for c in df.columns]
    numeric = [
        c for c in columns if c not in _NOT_RESULTS and c not in grid_paths and _is_numeric(df[c])
    ]
    for option, col in (("--x", x), ("--y", y), ("--hue", hue)):
        if col is not None and col not in df.columns:
            pool = numeric if option == "--y" else [*grid_paths, *numeric]
            hint, listed = _nearest(col, columns, numeric=pool, store=store)
            raise _bad(option, col, f"no such column{hint}", listed)
    if not _is_numeric(df[y]):
        present = df[y].dropna()
        if present.empty:
            raise _bad("--y", y, "the column has no value in these rows", "a column with numbers")
        sample = ", ".join(repr(v) for v in pd.unique(present.astype(str))[:3])
        hint, listed = _nearest(y, columns, numeric=numeric, store=store)
        raise _bad("--y", y, f"a text column ({sample}): the y axis needs numbers", listed)
    varying = [
        p
        for p in grid_paths
        if p in df.columns and p not in (x, hue) and df[p].astype(str).nunique(dropna=False) > 1
    ]
    if varying:
        p = varying[0]
        vals = ", ".join(map(repr, _ordered(pd.unique(df[p].map(_key)))[:6]))
        why = f"grid path {p} varies ({vals}) and is neither --x nor --hue"
        fix = f'--where "\\"{p}\\" = ..." to keep one value'
        if hue is None:
            raise _errors._make(
                _errors.MissingFieldError,
                f"--hue: missing: {why}; give --hue {p} for a line per value, or {fix}",
                field="--hue",
                allowed=f"--hue {p}",
            )
        raise _bad("--where", where, why, fix)


def _key(v: Any) -> Any:
    """A value as a group key: numbers as they are, tables and lists as their JSON text."""
    if isinstance(v, dict | list):
        return json.dumps(v, sort_keys=True)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return v


def _natural(text: str) -> list[Any]:
    """A sort key that orders the numbers inside a text by value ("5Mbps" before "10Mbps")."""
    return [(0, float(t), "") if re.fullmatch(r"\d+(\.\d+)?", t) else (1, 0.0, t)
            for t in re.findall(r"\d+(?:\.\d+)?|\D+", text)]  # fmt: skip


def _ordered(values: Any) -> list[Any]:
    vals = list(values)
    if all(isinstance(v, int | float | np.integer | np.floating) for v in vals):
        return sorted(vals)
    return sorted(vals, key=lambda v: _natural(str(v)))


def seeds_note(counts: Sequence[int]) -> str:
    """What the band of a figure is, from the number of seeds behind each point."""
    counts = [int(n) for n in counts if n > 0]
    if not counts:
        return "no values"
    hi = max(counts)
    if hi < 2:
        return "1 seed: no confidence interval"
    lo = min(n for n in counts if n >= 2)
    over = f"{hi} seeds" if lo == hi else f"{lo} to {hi} seeds"
    note = f"mean and 95 % CI over {over}"
    ones = sum(1 for n in counts if n < 2)
    if ones:
        note += f"; 1 seed (no band) at {ones} point" + ("s" if ones > 1 else "")
    return note


def _value_text(v: Any, ax: Any) -> str:
    if isinstance(v, int | float | np.integer | np.floating):
        shown = f"{float(v) * ax.factor:g}"
        return f"{shown} {ax.unit}".strip() if ax.unit else shown
    return str(v)


def _plain_log_ticks(which: Any) -> None:
    """Label a log axis that spans ordinary numbers (0.001 to 100000) as plain numbers
    ("2000", not "2 x 10^3"), with 2 and 5 times each power of ten labelled too when it spans
    less than two decades; wider spans and others keep matplotlib's powers of ten."""
    from matplotlib.ticker import FuncFormatter, LogFormatterSciNotation

    sci = LogFormatterSciNotation()
    sci.set_axis(which)

    def plain(lo: float, hi: float) -> bool:
        return 0 < lo and 1e-3 <= lo and hi < 1e5

    def major(v: float, pos: int | None) -> str:
        lo, hi = sorted(which.get_view_interval())
        return f"{v:g}" if plain(lo, hi) else sci(v, pos)

    def minor(v: float, pos: int | None) -> str:
        lo, hi = sorted(which.get_view_interval())
        if not plain(lo, hi):
            return sci(v, pos)
        lead = round(v / 10 ** math.floor(math.log10(v) + 1e-9), 6)
        return f"{v:g}" if hi / lo <= 100 and lead in (2.0, 5.0) else ""

    which.set_major_formatter(FuncFormatter(major))
    which.set_minor_formatter(FuncFormatter(minor))


@styled
def plot_means(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    hue: str | None = None,
    logx: bool = False,
    logy: bool = False,
    xlabel: str | None = None,
    ylabel: str | None = None,
    unit: str | None = None,
    title: str | None = None,
    width: float = COLUMN_IN,
) -> Figure:
    """The mean of `y` over the rows of each value of `x` (and of `hue`: one line each),
    with the 95 % CI as a band where at least 2 seeds give a value. Text values of `x` are
    categories in natural order; numbers are drawn in the unit `axis` chooses (`unit` for y).
    `xlabel`, `ylabel` replace the quantity's name (the unit stays); `title` replaces the
    note on seeds ("" for none)."""
    d = df.assign(_x=df[x].map(_key), _y=_numeric(df[y]))
    d["_h"] = d[hue].map(_key) if hue else ""
    categorical = not _is_numeric(df[x])
    xs_order = _ordered(pd.unique(d["_x"]))
    groups = _ordered(pd.unique(d["_h"]))
    yaxis = axis(y, d["_y"], unit=unit, label=ylabel, field="--unit")
    xaxis = axis(x, None if categorical else _numeric(df[x]), label=xlabel, text=categorical)
    hue_axis = axis(hue, _numeric(df[hue])) if hue and _is_numeric(df[hue]) else None
    fig, ax = new_figure(figsize=(width, width * 0.72))
    counts: list[int] = []
    dropped = 0
    for i, h in enumerate(groups):
        mine = d[d["_h"] == h]
        pts = []
        for xv in xs_order:
            s = mean_ci(mine.loc[mine["_x"] == xv, "_y"])
            if s.n == 0:
                continue
            pos = float(xs_order.index(xv)) if categorical else float(xv) * xaxis.factor
            if logx and pos <= 0:
                dropped += 1
                continue
            pts.append((pos, s.mean, s.half_width, s.n))
            counts.append(s.n)
        if not pts:
            continue
        px, mean, half, n = (np.array(v, dtype=float) for v in zip(*pts, strict=True))
        color = PALETTE[i % len(PALETTE)]
        label = None
        if hue:
            label = _value_text(h, hue_axis) if hue_axis else str(h)
        ax.plot(px, mean * yaxis.factor, marker="o", ms=3.5, color=color, label=label)
        band = n >= 2
        if band.any():
            lo = np.where(band, mean - half, np.nan) * yaxis.factor
            hi = np.where(band, mean + half, np.nan) * yaxis.factor
            ax.fill_between(px, lo, hi, where=band, color=color, alpha=0.2, linewidth=0)
    if categorical:
        ax.set_xticks(range(len(xs_order)), [str(v) for v in xs_order])
        if max((len(str(v)) for v in xs_order), default=0) * len(xs_order) > 40:
            ax.tick_params(axis="x", labelrotation=30)
    if logx:
        ax.set_xscale("log")
        _plain_log_ticks(ax.xaxis)
    if logy:
        ax.set_yscale("log")
        _plain_log_ticks(ax.yaxis)
    ax.set_xlabel(xaxis.text)
    ax.set_ylabel(yaxis.text)
    note = seeds_note(counts)
    if dropped:
        note += f"; {dropped} point{'s' if dropped > 1 else ''} at x <= 0 not on the log axis"
    if title is None:
        ax.set_title(note, loc="left")
    elif title:
        ax.set_title(title, loc="left")
    if hue:
        ax.legend(title=quantity(hue).label)
    ax.grid(True)
    return fig
