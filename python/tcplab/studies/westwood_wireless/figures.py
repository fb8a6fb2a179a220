"""The figures: throughput over time at the standard point (Figure 3) and the sweeps (Figures
4-6) with the paper's numbers as markers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from tcplab.report.plots import PALETTE, new_figure, rate_from_cumulative

from .._kit import conn_trace, finish, mean_band, paper_points, stacked
from .paper import LABELS, PAPER, SETUPS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tcplab import Result

__all__ = ["SWEEP_FIGURES", "fig_sweep", "fig_time", "paper_points_of"]

_COLOR = {"reno": PALETTE[3], "sack": PALETTE[1], "westwood": PALETTE[0]}
_STYLE = {"stated": "-", "inferred": "--"}

#: The sweeps' figures: (sweep, figure name, caption, the paper's figure, x label).
SWEEP_FIGURES: tuple[tuple[str, str, str, str, str], ...] = (
    ("per", "fig04_per", "Throughput vs packet error rate", "Figure 4", "PER"),
    (
        "speed",
        "fig05_speed",
        "Throughput vs bottleneck (wireless) speed at 5 % PER",
        "Figure 5",
        "bottleneck speed (Mbit/s)",
    ),
    (
        "delay",
        "fig06_delay",
        "Throughput vs two-way propagation time of the wireless hop at 0.05 % PER",
        "Figure 6",
        "two-way propagation time (ms)",
    ),
)


def fig_time(
    traced: dict[tuple[str, str], Result], setups: Sequence[str], variants: Sequence[str]
) -> Figure:
    """Per setup, each variant's throughput per 1 s (thin) and since the start (thick), with
    the paper's Figure 3 averages dotted."""
    fig, axes = stacked(len(setups), height=3.2, pad=0.6)
    for ax, setup in zip(axes, setups, strict=True):
        for v in variants:
            r = traced.get((setup, v))
            if r is None:
                continue
            tr = conn_trace(r)
            t = tr["time_s"].to_numpy(dtype=float)
            rx = tr["bytes_received"].to_numpy(dtype=float)
            end = float(r.summary.get("sim_time_s") or (t.max() if len(t) else 1.0))
            tb, rate = rate_from_cumulative(t, rx, bin_s=1.0, t_end=end)
            ax.step(tb, rate * 8 / 1e6, where="post", lw=0.6, alpha=0.45, color=_COLOR[v])
            keep = t > 0.5
            ax.plot(t[keep], rx[keep] * 8 / t[keep] / 1e6, lw=1.8, color=_COLOR[v], label=LABELS[v])
            paper = PAPER["fig3_per5"].get(v)
            if paper is not None:
                ax.axhline(paper, color=_COLOR[v], ls=":", lw=1)
        ax.set_ylim(0, 2.1)
        finish(
            ax,
            ylabel="throughput (Mbit/s)",
            title=f"{setup}: wired hop {SETUPS[setup]:g} ms one way",
            legend=8,
            loc="upper right",
        )
    axes[-1].set_xlabel("time (s)")
    return fig


def paper_points_of(sweep: str) -> dict[str, list[tuple[float, float]]]:
    """The paper's numbers for a sweep, per variant: (x, Mbit/s)."""
    if sweep == "per":
        return {
            "reno": [(0.0, 1.0), (0.1, 0.2)],
            "sack": [(0.0, 1.0), (0.1, 0.2)],
            "westwood": [(0.0, 1.0), (0.08, 1.0), (0.1, 0.9)],
        }
    if sweep == "speed":
        return {k: [(2.0, x)] for k, x in PAPER["fig5_2mbps"].items()}
    return {}


def fig_sweep(
    m: pd.DataFrame, sweep: str, xlabel: str, setups: Sequence[str], variants: Sequence[str]
) -> Figure:
    """One sweep: mean throughput and its 95 % CI per setup and variant; the paper's numbers."""
    fig, ax = new_figure(figsize=(8.5, 5))
    d = m[m["sweep"] == sweep]
    scale = 100.0 if sweep == "per" else 1.0
    for setup in setups:
        for v in variants:
            e = d[(d["setup"] == setup) & (d["variant"] == v)].sort_values("x")
            if e.empty:
                continue
            mean_band(
                ax,
                e["x"].to_numpy(dtype=float) * scale,
                e["mbps"],
                e["ci"],
                color=_COLOR[v],
                fmt=_STYLE.get(setup, "-"),
                marker=".",
                label=f"{LABELS[v]} ({setup})",
            )
    for v, pts in paper_points_of(sweep).items():
        if v in variants:
            paper_points(
                ax, [(x * scale, y) for x, y in pts], color=_COLOR[v], label=f"paper: {LABELS[v]}"
            )
    finish(
        ax,
        xlabel=xlabel + (" (%)" if sweep == "per" else ""),
        ylabel="throughput (Mbit/s)",
        ybottom=0,
        legend=7,
        ncol=2,
    )
    return fig
