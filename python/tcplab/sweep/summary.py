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
    xlabel: str | None = None,
    ylabel: str | None = None,
    unit: str | None = None,
    title: str | None = None,
    formats: Sequence[str] = ("png", "svg"),
) -> dict[str, Path]:
    """Draw the mean of `y` over seeds against `x` (one line per `hue` value) with its 95 %
    CI as a band (`tcplab.report.sweepfig.plot_means`: axes labelled with what they hold, in
    readable units; `unit` for y, `xlabel`, `ylabel`, `title` to replace them); write `out`
    in each of `formats` (its suffix, .png, .svg or .pdf, is one of them). Any other grid path
    that varies must be fixed with `where` (a DuckDB condition), so that no line averages
    different runs."""
    from tcplab.report.plots import save_figure
    from tcplab.report.sweepfig import check_columns, plot_means

    query = "SELECT * FROM runs" + (f" WHERE {where}" if where else "")
    df = st.sql(query)
    if df.empty:
        raise _bad("--where", where, "no rows match", "a condition some rows meet")
    check_columns(df, x=x, y=y, hue=hue, grid_paths=st.grid_paths, where=where, store=str(st.path))
    target = Path(out)
    suffix = target.suffix.lower().lstrip(".")
    name = target.name[: -len(target.suffix)] if suffix in ("png", "svg", "pdf") else target.name
    if not name:
        raise _bad("--out", str(out), "no file name", "a path such as plots/p.png")
    fig = plot_means(df, x=x, y=y, hue=hue, logx=logx, logy=logy, xlabel=xlabel,
                     ylabel=ylabel, unit=unit, title=title)  # fmt: skip
    wanted = [*formats, *([suffix] if suffix == "pdf" and suffix not in formats else [])]
    return save_figure(fig, target.parent, name, formats=wanted)
