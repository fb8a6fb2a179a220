"""Per-grid-point summaries of a store (mean and 95 % CI over seeds) and their plots; the
kept per-run tables of a store drawn across runs (`plot_series`).

Grid points are sorted, and drawn along x, by their number in SI units where the grid path is
a quantity (the column ``<path>.si``: "1Mbps" < "5Mbps" < "10Mbps"), else by value; a value
that is a table or a list is its JSON text.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab import errors as _errors
from tcplab.report.stats import mean_ci

from .store import Store

__all__ = ["DEFAULT_METRICS", "summarize", "store_summary", "plot_store", "plot_series"]

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


def _hashable(df: pd.DataFrame, cols: Sequence[str]) -> pd.DataFrame:
    """`df` with the values of `cols` that cannot be grouped by (tables, lists) as JSON text."""
    import json

    out = df
    for c in cols:
        if out[c].map(lambda v: isinstance(v, dict | list | tuple)).any():
            out = out.copy() if out is df else out
            out[c] = out[c].map(
                lambda v: (
                    json.dumps(v, sort_keys=True, default=str)
                    if isinstance(v, dict | list | tuple)
                    else v
                )
            )
    return out


def _sort_keys(df: pd.DataFrame, by: Sequence[str]) -> list[str]:
    """The columns that order `by`: each grid path's SI number where it has one."""
    return [f"{b}.si" if f"{b}.si" in df.columns else b for b in by]


def summarize(df: pd.DataFrame, by: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """One row per combination of `by`: ``n`` (rows), then for each metric its mean over the
    rows (``<metric>``) and the half-width of its Student-t 95 % CI (``<metric>.ci95``).
    A grid path's SI number (``<path>.si``) comes along beside it, and orders the rows."""
    by = [b for b in by if b in df.columns]
    with_si = [c for b in by for c in (b, f"{b}.si") if c in df.columns]
    df = _hashable(df, with_si)
    rows: list[dict[str, Any]] = []
    groups = df.groupby(by, sort=False, dropna=False) if by else [((), df)]
    for key, d in groups:
        key = key if isinstance(key, tuple) else (key,)
        row: dict[str, Any] = dict(zip(by, key, strict=True))
        for b in by:
            if f"{b}.si" in d.columns:
                row[f"{b}.si"] = d[f"{b}.si"].iloc[0]
        row = {c: row[c] for c in with_si}
        row["n"] = len(d)
        for m in metrics:
            s = mean_ci(pd.to_numeric(d[m], errors="coerce"))
            row[m] = s.mean
            row[f"{m}.ci95"] = s.half_width
        rows.append(row)
    out = pd.DataFrame.from_records(rows)
    if not by or out.empty:
        return out
    keys = _sort_keys(out, by)
    return out.sort_values(keys, kind="stable", key=_order).reset_index(drop=True)


def _order(col: pd.Series) -> pd.Series:
    """Numbers as numbers, anything else by its text (mixed columns sort without error)."""
    num = pd.to_numeric(col, errors="coerce")
    if num.notna().all():
        return num
    return col.map(lambda v: (0, float(v), "") if _is_num(v) else (1, 0.0, str(v)))


def _is_num(v: Any) -> bool:
    try:
        return not isinstance(v, bool) and v == v and isinstance(float(v), float)
    except (TypeError, ValueError):
        return False


def store_summary(st: Store, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """The default view of `tcplab results`: per grid point, the mean and 95 % CI over seeds
    of the response times, throughputs and retransmission counters."""
    df = st.df()
    by = [p for p in st.grid_paths if p in df.columns]
    cols = _metric_columns(df, metrics or DEFAULT_METRICS)
    return summarize(df, by, cols)


def where_clause(st: Store, where: str | None) -> str:
    """``SELECT * FROM runs`` with the condition `where`: one SQL expression (checked), so
    that ``--where`` can add no statement of its own."""
    query = "SELECT * FROM runs" + (f" WHERE ({where})" if where else "")
    if where is not None:
        if not where.strip():
            raise _bad("--where", where, "empty", 'a condition such as "seed" <= 5')
        st.one_select(query, option="--where")
    return query


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

    df = st.sql(where_clause(st, where), option="--where")
    if df.empty:
        raise _bad("--where", where, "no rows match", "a condition some rows meet")
    df = _hashable(df, [p for p in st.grid_paths if p in df.columns])
    # A quantity given with units ("10Mbps") is plotted by its number in SI units.
    df = df.assign(**{c: df[f"{c}.si"] for c in (x, hue) if c and f"{c}.si" in df.columns})
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


#: The most lines `plot_series` draws in one figure.
MAX_SERIES_LINES = 40
#: The columns that say which line a row of a kept table belongs to.
_SERIES_KEYS = ("conn", "end", "node", "link", "app")


def plot_series(
    st: Store,
    *,
    series: str,
    where: str | None = None,
    hue: str | None = None,
    logy: bool = False,
    out: str | Path,
) -> dict[str, Path]:
    """Draw the column `series` of a kept per-run table (`tcplab sweep --keep`) over time,
    one line per run (and connection, link or application) of the runs `where` selects;
    write `out` as .png and .svg."""
    from tcplab.report.plots import PALETTE, new_figure, save_figure

    kept = st.keep
    if not kept:
        raise _bad(
            "--series",
            series,
            f"the store {st.path} keeps no per-run tables",
            "a store made with tcplab sweep --keep trace,link_series,app_series,queues",
        )
    con = st._connect()
    try:
        owners = []
        for name in kept:
            cols = [r[0] for r in con.execute(f'DESCRIBE "{name}"').fetchall()]
            if series in cols and series not in ("run_id", "time_s"):
                owners.append((name, cols))
        if not owners:
            allowed = sorted(
                {
                    c
                    for name in kept
                    for (c, *_r) in con.execute(f'DESCRIBE "{name}"').fetchall()
                    if c not in ("run_id", "time_s", *_SERIES_KEYS)
                }
            )
            raise _bad("--series", series, "no kept table has this column", ", ".join(allowed))
        table, cols = owners[0]
    finally:
        con.close()
    runs = st.sql(where_clause(st, where), option="--where")
    if runs.empty:
        raise _bad("--where", where, "no rows match", "a condition some rows meet")
    if hue is not None and hue not in runs.columns:
        raise _bad("--hue", hue, "no such column", ", ".join(st.grid_paths) or "a grid path")
    keys = [k for k in _SERIES_KEYS if k in cols]
    ids = ", ".join("'" + str(r).replace("'", "''") + "'" for r in runs["run_id"])
    key_cols = "".join(f', "{k}"' for k in keys)
    data = st.sql(
        f'SELECT run_id, time_s{key_cols}, "{series}" FROM "{table}" '
        f"WHERE run_id IN ({ids}) ORDER BY run_id{key_cols}, time_s"
    )
    lines = data.groupby(["run_id", *keys], sort=False) if len(data) else []
    n_lines = len(lines) if len(data) else 0
    if n_lines == 0:
        raise _bad("--where", where, f"the runs it selects have no {table} rows", "other runs")
    if n_lines > MAX_SERIES_LINES:
        raise _bad(
            "--where",
            where,
            f"it selects {len(runs)} runs, {n_lines} lines of {series}; a figure draws at "
            f"most {MAX_SERIES_LINES}",
            'a narrower condition, such as "seed" = 1 AND "<grid path>" = ...',
        )
    varying = [p for p in st.grid_paths if p in runs.columns and runs[p].nunique() > 1]
    info = runs.set_index("run_id")
    colours: dict[Any, str] = {}
    fig, ax = new_figure(figsize=(7.0, 4.2))
    for key, d in lines:
        key = key if isinstance(key, tuple) else (key,)
        run = info.loc[key[0]]
        parts = [f"{p}={run[p]}" for p in varying] + [f"seed {run['seed']}"]
        parts += [f"{k} {v}" for k, v in zip(keys, key[1:], strict=True)]
        group = run[hue] if hue else key
        colour = colours.setdefault(group, PALETTE[len(colours) % len(PALETTE)])
        ax.step(d["time_s"], d[series], where="post", color=colour, linewidth=1.0,
                label=", ".join(str(p) for p in parts))  # fmt: skip
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("time_s")
    ax.set_ylabel(series)
    ax.set_title(f"{table}.{series}, {n_lines} lines", fontsize=10)
    if n_lines <= 12:
        ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    target = Path(out)
    suffix = target.suffix.lower().lstrip(".")
    name = target.name[: -len(target.suffix)] if suffix in ("png", "svg", "pdf") else target.name
    if not name:
        raise _bad("--out", str(out), "no file name", "a path such as plots/cwnd.png")
    return save_figure(
        fig, target.parent, name, formats=("png", "svg", *([suffix] if suffix == "pdf" else []))
    )
