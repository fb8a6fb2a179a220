"""The figures: the sender's window over time (NetSim's Figures 1-5 and 1-8), the throughput
per second (Figures 1-4 and 1-7) and the average throughputs side by side."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from tcplab.report.plots import PALETTE, new_figure

from .._kit import conn_trace, finish, rate_series, stacked
from .paper import ACK_POLICIES, ACK_TEXT, BERS, NETSIM, PAPER, case_key

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tcplab import Result

    from .._base import StudyResult

__all__ = ["fig_cwnd", "fig_summary", "fig_throughput"]


def fig_cwnd(runs: dict[str, Result], ber: float) -> Figure:
    """Per ACK policy, cwnd and the usable window min(cwnd, rwnd) over the run."""
    fig, axes = stacked(len(runs), height=2.4, pad=0.6)
    rwnd = PAPER["window_bytes"] / 1024
    top = 2.0 * rwnd
    for i, (ax, (policy, r)) in enumerate(zip(axes, runs.items(), strict=True)):
        tr = conn_trace(r)
        t = tr["time_s"].to_numpy(dtype=float)
        cwnd = tr["cwnd"].to_numpy(dtype=float) / 1024
        ax.step(t, cwnd, where="post", color=PALETTE[i], lw=0.6, alpha=0.35, label="cwnd")
        ax.step(
            t, np.minimum(cwnd, rwnd), where="post", color=PALETTE[i], lw=1.1,
            label="usable window min(cwnd, rwnd)",
        )  # fmt: skip
        ax.axhline(rwnd, color="#555555", ls="--", lw=0.8)
        ax.set_ylim(0, top)
        peak = float(cwnd.max()) if len(cwnd) else 0.0
        title = f"BER {ber:g}, {ACK_TEXT[policy]}"
        if peak > top:
            title += f"; cwnd peaks at {peak:,.0f} KiB in slow start (off the axis)"
        finish(ax, ylabel="window (KiB)", title=title, legend=7, loc="upper right")
    finish(axes[-1], xlabel="time (s)", xlim=(0, PAPER["sim_time_s"]), grid="none")
    return fig


def fig_throughput(traced: dict[str, Result]) -> Figure:
    """Throughput per 1 s of every traced case, with NetSim's averages and the seed's figures."""
    fig, ax = new_figure(figsize=(9, 4.8))
    styles = {"ack-every": "-", "delayed-ack": "--"}
    colors = {0.0: PALETTE[0], 1e-7: PALETTE[3]}
    for ber in BERS:
        for policy, _ in ACK_POLICIES:
            r = traced.get(case_key(ber, policy))
            if r is None:
                continue
            t, rate = rate_series(r, bin_s=1.0, t_end=PAPER["sim_time_s"])
            ax.step(
                t, rate * 8 / 1e6, where="post", ls=styles[policy], color=colors[ber], lw=1,
                label=f"ours, BER {ber:g}, {ACK_TEXT[policy]}",
            )  # fmt: skip
        ax.axhline(NETSIM[ber][2], color=colors[ber], ls=":", lw=1.2)
    ax.axhline(PAPER["window_limit_Mbps"], color="#555555", ls="--", lw=0.8)
    ax.axhline(PAPER["mathis_Mbps"], color="#999999", ls="--", lw=0.8)
    ax.text(1, PAPER["window_limit_Mbps"], "window limit 5.24", fontsize=7, va="bottom")
    ax.text(1, PAPER["mathis_Mbps"], "Mathis 4.12", fontsize=7, va="bottom")
    finish(
        ax,
        xlabel="time (s)",
        ylabel="throughput (Mbps, 1 s bins)",
        xlim=(0, PAPER["sim_time_s"]),
        ybottom=0,
        legend=7,
        loc="lower right",
    )
    return fig


def fig_summary(res: StudyResult) -> Figure:
    """The main table's throughputs as bars (with our 95 % CIs), per source and BER."""
    fig, ax = new_figure(figsize=(9, 4.8))
    data = res.table("main").data
    labels = [f"{r.source}\n{r.ack_policy}" for r in data.itertuples()]
    x = np.arange(len(data))
    w = 0.38
    for j, (col, ber) in enumerate((("ber0_Mbps", 0.0), ("ber1e-7_Mbps", 1e-7))):
        y = pd.to_numeric(data[col], errors="coerce").to_numpy(dtype=float)
        ci_col = "ber0_ci_Mbps" if ber == 0 else "ber1e-7_ci_Mbps"
        ci = np.nan_to_num(pd.to_numeric(data[ci_col], errors="coerce").to_numpy(dtype=float))
        ax.bar(x + (j - 0.5) * w, np.nan_to_num(y), w, yerr=ci, capsize=3,
               color=PALETTE[0 if ber == 0 else 3], label=f"BER {ber:g}")  # fmt: skip
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=6)
    finish(ax, ylabel="throughput (Mbps)", grid="y", legend=8)
    return fig
