"""What the studies share to build their tables and figures.

A study declares its grid, references and claims; the numbers it prints and the panels it draws
are built from the same few pieces, kept here so that a fix to one is a fix to all of them:

- the scenario a study starts from (`study_scenario`), kept as package data beside this file
  (`scenarios/NAME.toml`; the repository's `examples/` link to the same files);
- per-group statistics over seeds (`aggregate`): mean, 95 % CI half-width, min and max of the
  columns that carry a confidence interval, plain means and totals of the others;
- number formatting for tables (`pct`, `pm`, `mean_pm`, `count`);
- figure pieces: one connection's trace (`conn_trace`), where the error model dropped frames
  (`drop_times`), a column of panels sharing the time axis (`stacked`), receive-rate series
  (`rate_series`), a mean line with its CI band (`mean_band`), a paper's own points
  (`paper_points`) and the common axis finish (`finish`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from tcplab.report.plots import new_figure, rate_from_cumulative
from tcplab.report.stats import mean_ci

# ----------------------------------------------------------------------------------------------
# The scenario a study starts from


def scenario_text(name: str) -> str:
    """The TOML text of `scenarios/NAME.toml`, shipped inside the package."""
    path = resources.files("tcplab.studies") / "scenarios" / f"{name}.toml"
    if not path.is_file():
        have = sorted(
            p.name.removesuffix(".toml")
            for p in (resources.files("tcplab.studies") / "scenarios").iterdir()
            if p.name.endswith(".toml")
        )
        raise ValueError(f"no study scenario named {name!r}; the package has {', '.join(have)}")
    return path.read_text(encoding="utf-8")


def study_scenario(name: str) -> Any:
    """The `Scenario` of `scenarios/NAME.toml`."""
    from tcplab import Scenario

    return Scenario.from_toml(scenario_text(name))


# ----------------------------------------------------------------------------------------------
# Statistics over seeds


def aggregate(
    df: pd.DataFrame,
    by: Sequence[str],
    *,
    ci: Mapping[str, str] | None = None,
    mean: Mapping[str, str] | None = None,
    total: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One row per group of `by` (in order of first appearance; a NaN key is a group too) with
    `runs` and, per entry:

    - `ci={"rt": "response_time_s"}`: `rt_mean`, `rt_ci` (95 % half-width), `rt_min`, `rt_max`
      over the finite values (`tcplab.report.stats.mean_ci`);
    - `mean={"rto": "rto_expirations"}`: `rto_mean`, pandas' mean (NaN skipped);
    - `total={"frames": "frames_sent"}`: `frames_total`, the sum.
    """
    rows: list[dict[str, Any]] = []
    for key, d in df.groupby(list(by), sort=False, dropna=False):
        keys = key if isinstance(key, tuple) else (key,)
        row: dict[str, Any] = dict(zip(by, keys, strict=True))
        row["runs"] = len(d)
        for name, col in (ci or {}).items():
            s = mean_ci(d[col])
            row[f"{name}_mean"] = s.mean
            row[f"{name}_ci"] = s.half_width
            row[f"{name}_min"] = s.min
            row[f"{name}_max"] = s.max
        for name, col in (mean or {}).items():
            row[f"{name}_mean"] = float(pd.to_numeric(d[col]).mean())
        for name, col in (total or {}).items():
            row[f"{name}_total"] = d[col].sum()
        rows.append(row)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------
# Formatting


def pct(p: float) -> str:
    """0.0001 -> '0.01 %'."""
    return f"{p * 100:g} %"


def pm(half: float | None, digits: int = 2) -> str:
    """A CI half-width as '+/-0.12', or '-' where there is none (one seed)."""
    return "-" if half is None or math.isnan(half) else f"+/-{half:.{digits}f}"


def mean_pm(mean: float, half: float, digits: int = 1, sep: str = " +/-") -> str:
    """'12.3 +/-0.4'; the mean alone when the half-width is unknown; '-' for no mean."""
    if not math.isfinite(mean):
        return "-"
    text = f"{mean:.{digits}f}"
    return text if not math.isfinite(half) else f"{text}{sep}{half:.{digits}f}"


def count(v: Any) -> Any:
    """A counter as an int, or NaN where the source does not keep it (None)."""
    return math.nan if v is None else int(v)


# ----------------------------------------------------------------------------------------------
# Figure pieces


def conn_trace(result: Any, conn: int = 0, until: float | None = None) -> pd.DataFrame:
    """The sender's trace rows of one connection (optionally up to `until` seconds)."""
    tr = result.traces["trace"]
    tr = tr[tr["conn"] == conn]
    if until is not None:
        tr = tr[tr["time_s"] <= until]
    return tr


def drop_times(result: Any, kind: str = "drop_error", end: int = 1, until: float | None = None):
    """Times (s) of the event trace's `kind` events recorded at link end `end` (its `end`
    column), optionally up to `until` seconds."""
    ev = result.traces.get("events")
    if ev is None:
        return np.array([])
    t = ev.loc[(ev["kind"] == kind) & (ev["end"] == end), "time_s"].to_numpy(dtype=float)
    return t if until is None else t[t <= until]


def rate_series(
    result: Any, *, bin_s: float = 1.0, t_end: float | None = None, conn: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Receive rate of one connection in bytes/s per `bin_s` bin, from its cumulative bytes."""
    tr = conn_trace(result, conn)
    if t_end is None:
        t_end = float(result.summary.get("sim_time_s") or tr["time_s"].max())
    return rate_from_cumulative(tr["time_s"], tr["bytes_received"], bin_s=bin_s, t_end=t_end)


def stacked(n: int, *, height: float, width: float = 9.0, pad: float = 0.8, **kw: Any):
    """A figure of `n` panels in one column sharing the time axis; (fig, array of axes)."""
    kw.setdefault("sharex", True)
    fig, axes = new_figure(n, 1, figsize=(width, height * n + pad), **kw)
    return fig, np.atleast_1d(axes)


def mean_band(ax: Any, x: Any, mean: Any, half: Any, *, color: str, fmt: str = "-", **kw: Any):
    """A mean line with its 95 % CI as a shaded band (unknown half-widths drawn as none)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(mean, dtype=float)
    h = np.nan_to_num(np.asarray(half, dtype=float))
    ax.plot(x, y, fmt, color=color, **kw)
    ax.fill_between(x, y - h, y + h, color=color, alpha=0.12, lw=0)


def paper_points(ax: Any, points: Iterable[tuple[float, float]], *, color: str, **kw: Any):
    """A paper's own numbers as open diamonds (or `marker=`) over our curves."""
    pts = list(points)
    if not pts:
        return
    xs, ys = zip(*pts, strict=True)
    kw.setdefault("marker", "D")
    kw.setdefault("ms", 7)
    ax.plot(xs, ys, ls="none", mfc="none", color=color, **kw)


def finish(
    ax: Any,
    *,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    logx: bool = False,
    logy: bool = False,
    ybottom: float | None = None,
    xlim: tuple[float, float] | None = None,
    legend: int | None = None,
    grid: str = "major",
    **legend_kw: Any,
) -> None:
    """The axis finish every study figure shares: labels, a left title, scales, a light grid
    ("major", "both", "y" or "none") and a legend of font size `legend` (None: no legend)."""
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title, fontsize=9, loc="left")
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    if ybottom is not None:
        ax.set_ylim(bottom=ybottom)
    if xlim is not None:
        ax.set_xlim(*xlim)
    if grid == "both":
        ax.grid(alpha=0.3, which="both")
    elif grid == "y":
        ax.grid(alpha=0.3, axis="y")
    elif grid == "major":
        ax.grid(alpha=0.3)
    if legend is not None:
        ax.legend(fontsize=legend, **legend_kw)
