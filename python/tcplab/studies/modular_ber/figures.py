"""The study's figures: throughput per RTT (the paper's Figures 1-3), the window of TCP NewReno
(Figure 4), the best-worst difference (Figures 5-7) and one recovery phase up close (our
Figure 8)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from tcplab.report.plots import PALETTE, new_figure

from .._base import FigureSpec, StudyResult
from .._kit import conn_trace, drop_times, finish, stacked
from . import mechanisms as mech
from .paper import MSS, RTTS_MS, case_key, exp_text, pair_name

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tcplab import Result

_LR_COLOR = {"dupack": PALETTE[3], "newreno": PALETTE[0], "sack": PALETTE[1]}
_CC_STYLE = {"tahoe": ":", "reno": "--", "newreno": "-"}
_CC_MARK = {"tahoe": "v", "reno": "s", "newreno": "o"}


# ----------------------------------------------------------------------------------------------
# Which figures a run draws


def figure_specs(
    res: StudyResult,
    *,
    rtts: Sequence[int],
    combos: Sequence[tuple[str, str]],
    fig4_exponent: float | None,
) -> Iterable[FigureSpec]:
    """Figures 1-3 per RTT, Figure 4 where it was traced, Figures 5-7 per RTT and Figure 8."""
    cells = pd.DataFrame(res.extra.get("cells", []))
    diff = pd.DataFrame(res.extra.get("differences", []))
    if cells.empty:
        return
    for i, rtt in enumerate(rtts):
        fig_no = RTTS_MS.index(rtt) + 1 if rtt in RTTS_MS else i + 1
        yield FigureSpec(
            f"fig{fig_no:02d}_throughput_rtt{rtt}",
            f"Throughput (kB/s, mean over {len(res.seeds)} seeds) vs BER, RTT {rtt} ms; "
            "colour: error detection, line style: congestion control",
            lambda rtt=rtt: fig_throughput(cells, rtt, combos),
            f"Figure {fig_no}",
        )
    traced = {
        rtt: res.traced.get(case_key(rtt, fig4_exponent, "newreno", "newreno"))
        for rtt in rtts
        if fig4_exponent is not None
    }
    traced = {k: v for k, v in traced.items() if v is not None and "trace" in v.traces}
    if traced:
        yield FigureSpec(
            "fig04_cwnd_newreno",
            f"cwnd of TCP NewReno (NewRenoCC + NewRenoED) at BER "
            f"{exp_text(fig4_exponent or 0)} (seed {res.seeds[0]}); shaded: recovery "
            "phases (fast retransmit to the ACK of the recovery point: the long transient "
            "after slow start, then the second that repairs the losses sent during it, "
            "section 3.2); ticks: data packets lost to errors (red) and to the queue (grey)",
            lambda: fig_cwnd(traced),
            "Figure 4",
        )
    if not diff.empty:
        for rtt in rtts:
            fig_no = RTTS_MS.index(rtt) + 5 if rtt in RTTS_MS else 0
            yield FigureSpec(
                f"fig{fig_no:02d}_difference_rtt{rtt}",
                f"Difference between the best and the worst pair, (best - worst) / best, "
                f"RTT {rtt} ms: all nine pairs, and without the pairs Figures 5-7 exclude",
                lambda rtt=rtt: fig_difference(diff, rtt),
                f"Figure {fig_no}",
            )
    spec = mechanism_figure(res)
    if spec is not None:
        yield spec


def mechanism_figure(res: StudyResult) -> FigureSpec | None:
    """Figure 8: the longest recovery phase of RenoCC + NewRenoED and of NewRenoCC +
    NewRenoED at the longest traced RTT, BER 1e-8."""
    rtts = sorted({m["rtt_ms"] for m in res.extra.get("mechanisms", [])})
    if not rtts:
        return None
    rtt = rtts[-1]
    titles = [
        (case_key(rtt, -8.0, cc, lr), f"{pair_name(cc, lr)}, RTT {rtt} ms, BER 1e-8")
        for cc, lr in (("reno", "newreno"), ("newreno", "newreno"))
        if case_key(rtt, -8.0, cc, lr) in res.traced
    ]
    if not titles:
        return None
    return FigureSpec(
        "fig08_recovery_phase",
        "The longest recovery phase (shaded) of RenoCC + NewRenoED and of NewRenoCC + "
        f"NewRenoED at RTT {rtt} ms, BER 1e-8 (first seed): first transmissions (dots), "
        "retransmissions (crosses), the cumulative ACK (line) and the recovery point "
        "(dotted); each title counts the phase's retransmissions and the new segments sent "
        "inside it (table 'mechanisms' has every phase).",
        lambda: mech.fig_phase(res.traced, titles),
        "section 3.1",
    )


# ----------------------------------------------------------------------------------------------
# The figures


def fig_throughput(cells: pd.DataFrame, rtt: int, combos: Sequence[tuple[str, str]]) -> Figure:
    """Figures 1-3: mean throughput of every pair against the BER at one RTT."""
    fig, ax = new_figure(figsize=(8.5, 5))
    c = cells[cells["rtt_ms"] == rtt]
    for cc, lr in combos:
        d = c[(c["cc"] == cc) & (c["lr"] == lr)].sort_values("ber_exp")
        if d.empty:
            continue
        ax.plot(
            10.0 ** d["ber_exp"], d["thr"] / 1e3, _CC_STYLE.get(cc, "-"),
            marker=_CC_MARK.get(cc, "."), ms=3.5, lw=1.2, color=_LR_COLOR.get(lr, "#555555"),
            label=pair_name(cc, lr),
        )  # fmt: skip
    ax.set_title(f"RTT {rtt} ms", fontsize=10, loc="left")
    finish(
        ax,
        xlabel="BER",
        ylabel="throughput (kB/s)",
        logx=True,
        ybottom=0,
        grid="both",
        legend=7,
        ncol=3,
    )
    return fig


def fig_cwnd(traced: dict[int, Result]) -> Figure:
    """Figure 4: cwnd and ssthresh of one traced run per RTT, recovery phases shaded, losses
    ticked."""
    fig, axes = stacked(len(traced), height=2.4, pad=0.6, sharex=False)
    for ax, (rtt, r) in zip(axes, sorted(traced.items()), strict=True):
        tr = conn_trace(r)
        t = tr["time_s"].to_numpy(dtype=float)
        ax.step(t, tr["cwnd"].to_numpy(dtype=float) / MSS, where="post", lw=0.9,
                color=PALETTE[0], label="cwnd")  # fmt: skip
        ss = np.minimum(tr["ssthresh"].to_numpy(dtype=float) / MSS, 1e4)
        ax.step(t, ss, where="post", lw=0.8, ls="--", color=PALETTE[2], label="ssthresh")
        ev = r.traces.get("events")
        if ev is not None and len(ev):
            fr = ev[ev["kind"] == "fast_retransmit"].sort_values("time_s")
            ends = ev[ev["kind"].isin(["recovery_exit", "rto"])].sort_values("time_s")
            for t0 in fr["time_s"]:
                after = ends[ends["time_s"] > t0]["time_s"]
                t1 = float(after.iloc[0]) if len(after) else float(t.max())
                ax.axvspan(t0, t1, color="#E8E8F4", zorder=0)
            for kind, color in (("drop_error", "#CC0000"), ("drop_queue", "#777777")):
                x = drop_times(r, kind, end=0)
                if len(x):
                    ax.plot(x, np.zeros(len(x)), "|", color=color, ms=7)
        top = float(np.nanmax(tr["cwnd"].to_numpy(dtype=float))) / MSS if len(tr) else 1
        ax.set_ylim(-0.03 * top, top * 1.08)
        finish(
            ax,
            ylabel="segments",
            title=f"RTT {rtt} ms",
            xlim=(0, float(t.max()) if len(t) else 1),
            legend=7,
            loc="upper right",
        )
    axes[-1].set_xlabel("time (s)")
    return fig


def fig_difference(diff: pd.DataFrame, rtt: int) -> Figure:
    """Figures 5-7: (best - worst) / best against the BER at one RTT, with and without the
    pairs the paper leaves out."""
    fig, ax = new_figure(figsize=(8, 4))
    d = diff[diff["rtt_ms"] == rtt].sort_values("ber_exp")
    x = 10.0 ** d["ber_exp"]
    ax.plot(x, 100 * d["diff_paper"], "-o", ms=4, color=PALETTE[0],
            label="without the pairs Figures 5-7 exclude")  # fmt: skip
    ax.plot(x, 100 * d["diff_all"], ":", marker=".", color=PALETTE[3], label="all nine pairs")
    ax.axhline(10, color="#555555", ls="--", lw=0.8)
    ax.text(x.min(), 10, " 10 %", fontsize=7, va="bottom")
    ax.set_title(f"RTT {rtt} ms", fontsize=10, loc="left")
    finish(
        ax,
        xlabel="BER",
        ylabel="(best - worst) / best (%)",
        logx=True,
        ybottom=0,
        grid="both",
        legend=8,
    )
    return fig
