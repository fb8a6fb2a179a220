"""Per-grid-point summaries of a store (mean and 95 % CI over seeds) and their plots."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab import errors as _errors
from tcplab.report.stats import mean_ci

from .store import Store

__all__ = ["DEFAULT_METRICS", "summarize", "store_summary", "plot_store"]

#: The columns `tcplab results` summarizes by default (glob patterns over column names).
DEFAULT_METRICS = (
    "apps.*.response_time_s",
    "apps.*.throughput_Bps",
    "connections.*.*.retransmissions",
    "connections.*.*.rto_expirations",
)


_bad = _errors._invalid


def _metric_columns(df: pd.DataFrame, patterns: Sequence[str]) -> list[str]:
    cols: list[str] = []
    for pat in patterns:
        for c in df.columns:
            if c in cols or not fnmatch.fnmatchcase(c, pat):
                continue
            x = pd.to_numeric(df[c], errors="coerce")
            if x.notna().any() and not (x.fillna(0) == 0).all():
                cols.append(c)
    return cols


def summarize(df: pd.DataFrame, by: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """One row per combination of `by`: ``n`` (rows), then for each metric its mean over the
    rows (``<metric>``) and the half-width of its Student-t 95 % CI (``<metric>.ci95``)."""
    by = [b for b in by if b in df.columns]
    rows: list[dict[str, Any]] = []
    groups = df.groupby(by, sort=False, dropna=False) if by else [((), df)]
    for key, d in groups:
        key = key if isinstance(key, tuple) else (key,)
        row: dict[str, Any] = dict(zip(by, key, strict=True))
        row["n"] = len(d)
        for m in metrics:
            s = mean_ci(pd.to_numeric(d[m], errors="coerce"))
            row[m] = s.mean
            row[f"{m}.ci95"] = s.half_width
        rows.append(row)
    out = pd.DataFrame.from_records(rows)
    return out.sort_values(by, kind="stable").reset_index(drop=True) if by else out


def store_summary(st: Store, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """The default view of `tcplab results`: per grid point, the mean and 95 % CI over seeds
    of the response times, throughputs and retransmission counters."""
    df = st.df()
    by = [p for p in st.grid_paths if p in df.columns]
    cols = _metric_columns(df, metrics or DEFAULT_METRICS)
    return summarize(df, by, cols)


def plot_store(
    st: Store,
    *,
    x: str,
    y: str,
    hue: str | None = None,
    logx: bool = False,
    logy: bool = False,
    where: str | None = None,
    out: str | Path,
) -> dict[str, Path]:
    """Draw the mean of `y` over seeds against `x` (one line per `hue` value) with its 95 %
    CI as a band; write `out` as .png and .svg. Any other grid path that varies must be
    fixed with `where` (a DuckDB condition), so that no line averages different runs."""
    from tcplab.report.plots import PALETTE, new_figure, save_figure

    query = "SELECT * FROM runs" + (f" WHERE {where}" if where else "")
    df = st.sql(query)
    if df.empty:
        raise _bad("--where", where, "no rows match", "a condition some rows meet")
    for name, col in (("--x", x), ("--y", y), ("--hue", hue)):
        if col is not None and col not in df.columns:
            raise _bad(name, col, "no such column", ", ".join(sorted(map(str, df.columns))))
    varying = [
        p
        for p in st.grid_paths
        if p in df.columns and p not in (x, hue) and df[p].nunique(dropna=False) > 1
    ]
    if varying:
        p = varying[0]
        vals = ", ".join(map(repr, sorted(df[p].dropna().unique().tolist())[:6]))
        raise _bad(
            "--where",
            where,
            f"grid path {p} varies ({vals}) and is neither --x nor --hue",
            f'--hue {p}, or --where "\\"{p}\\" = ..." to fix it',
        )
    by = [x] + ([hue] if hue else [])
    summ = summarize(df, by, [y])
    fig, ax = new_figure(figsize=(7.0, 4.2))
    groups = summ.groupby(hue, sort=True) if hue else [(None, summ)]
    for i, (h, d) in enumerate(groups):
        d = d.sort_values(x)
        xs = pd.to_numeric(d[x], errors="coerce")
        if xs.isna().any():  # text on the x axis: categories in order
            xs = pd.Series(range(len(d)), index=d.index)
            ax.set_xticks(list(xs), [str(v) for v in d[x]])
        colour = PALETTE[i % len(PALETTE)]
        mean, ci = d[y].astype(float), d[f"{y}.ci95"].astype(float).fillna(0.0)
        ax.plot(xs, mean, marker="o", color=colour, label=None if h is None else f"{hue}={h}")
        ax.fill_between(xs, mean - ci, mean + ci, color=colour, alpha=0.2, linewidth=0)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    seeds = int(summ["n"].max()) if len(summ) else 0
    ax.set_title(f"mean and 95 % CI over {seeds} seeds", fontsize=10)
    if hue:
        ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    target = Path(out)
    name = target.name[: -len(target.suffix)] if target.suffix in (".png", ".svg") else target.name
    if not name:
        raise _bad("--out", str(out), "no file name", "a path such as plots/p.png")
    return save_figure(fig, target.parent, name)
