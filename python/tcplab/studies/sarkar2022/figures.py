"""The study's figures: the paper's Figures 2-8 and 10 drawn from our traces, Figure 6 and
Table 9 against the paper's numbers, and the sensitivity and testbed response times."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from tcplab.report.plots import PALETTE, new_figure
from tcplab.report.stats import mean_ci
from tcplab.report.timeseq import LossWindow, plot_ladder, plot_time_sequence

from .._base import FigureSpec, StudyResult
from .._kit import conn_trace, drop_times, finish, paper_points, pct, rate_series, stacked
from .paper import FILE_SIZE, MSS, PDROPS, RIVERBED_OFFSET_S, TABLE4, TABLE8, TEXT, Variant
from .traced import PAPER_REGROWTH_SEGMENTS, loss_window, main_key

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tcplab import Result


def figure_specs(res: StudyResult, variants: Sequence[Variant]) -> Iterator[FigureSpec]:
    """The paper's figures drawn from our traces and tables, and ours (Table 9, sensitivity,
    testbed)."""
    traced = {p: res.traced.get(main_key(p)) for p in PDROPS}
    traced = {p: r for p, r in traced.items() if r is not None and "trace" in r.traces}
    seed = res.seeds[0]
    if traced:
        yield FigureSpec(
            "fig02_cwnd",
            f"Congestion window of the server over the whole run, per pdrop (seed {seed}); "
            "red ticks: frames lost on the link; dashed: the receiver's window (8760 B)",
            lambda: _fig_cwnd(traced, None),
            "Figure 2",
        )
        yield FigureSpec(
            "fig03_cwnd_80s",
            f"Congestion window over the first 80 s (seed {seed})",
            lambda: _fig_cwnd(traced, 80.0),
            "Figure 3",
        )
        yield FigureSpec(
            "fig04_ack",
            f"The client's ACK number over time (seed {seed})",
            lambda: _fig_ack(traced, None),
            "Figure 4",
        )
        yield FigureSpec(
            "fig05_ack_80s",
            f"The client's ACK number over the first 80 s (seed {seed})",
            lambda: _fig_ack(traced, 80.0),
            "Figure 5",
        )
    yield FigureSpec(
        "fig06_throughput",
        "Average FTP throughput (file size / response time) per pdrop: ours (mean, 95 % CI "
        "over seeds) and the paper's",
        lambda: _fig_throughput(res),
        "Figure 6",
    )
    if traced:
        yield FigureSpec(
            "fig07_traffic",
            f"Traffic received by the client per second (seed {seed})",
            lambda: _fig_traffic(traced, None),
            "Figure 7",
        )
        yield FigureSpec(
            "fig08_traffic_80s",
            f"Traffic received by the client per second, first 80 s (seed {seed})",
            lambda: _fig_traffic(traced, 80.0),
            "Figure 8",
        )
    window = loss_window(res.traced)
    if window is not None:
        yield FigureSpec(
            "fig10_exchange",
            f"The first loss at pdrop 1 % and its recovery (seed {seed}), from the per-packet "
            "log: ladder diagram (left, time downwards) and time-sequence diagram at the "
            "server (right); duplicate ACKs numbered {n}",
            lambda: _fig_exchange(window),
            "Figure 10",
        )
    yield FigureSpec(
        "fig_table9_cwnd_growth",
        "cwnd per RTT in congestion avoidance: Table 9, the model and our simulation",
        lambda: _fig_table9(res),
        "Table 9",
    )
    if any(t.name == "sensitivity" for t in res.tables):
        yield FigureSpec(
            "fig_sensitivity",
            "Response time per pdrop for each TCP variant (mean over seeds) against the "
            "paper's Riverbed (less 10 s) and testbed results",
            lambda: _fig_sensitivity(res, variants),
            "Tables 4 and 8",
        )

    if res.extra.get("regrowth_curves"):
        yield FigureSpec(
            "fig_regrowth",
            "The window after a fast retransmit at pdrop 1 %: the testbed's as section 5.2 "
            "reads its capture (15 RTTs at three segments, then alternately four and five) "
            "against Linux's reno on our simulator and on our testbed, and the riverbed "
            f"profile (first recovery followed by {len(PAPER_REGROWTH_SEGMENTS)} loss-free "
            f"RTTs, seed {res.seeds[0]}; usable window min(cwnd, rwnd))",
            lambda: _fig_regrowth(res),
            "Section 5.2",
        )
    if any(t.name == "testbed" for t in res.tables):
        yield FigureSpec(
            "fig_testbed",
            "Response time per pdrop on our Linux testbed (reno, 8760-byte window; as shipped "
            "and classic), the paper's testbed (Table 8) and our simulator (riverbed); an "
            "open triangle marks a run capped at the time budget",
            lambda: _fig_testbed(res),
            "Table 8",
        )


def _colors() -> dict[float, str]:
    return dict(zip(PDROPS, PALETTE, strict=False))


def _fig_cwnd(traced: dict[float, Result], xmax: float | None) -> Figure:
    fig, axes = stacked(len(traced), height=1.7)
    colors = _colors()
    for ax, (p, r) in zip(axes, traced.items(), strict=True):
        tr = conn_trace(r, until=xmax)
        t, cw = tr["time_s"].to_numpy(), tr["cwnd"].to_numpy(dtype=float)
        ax.step(t, cw, where="post", color=colors[p], lw=1)
        ax.axhline(TEXT["rwnd_bytes"], color="#555555", ls="--", lw=0.8)
        drops = drop_times(r, until=xmax)
        if len(drops):
            ax.plot(drops, np.full(len(drops), 1500.0), "|", color="#CC0000", ms=8)
        finish(ax, ylabel="cwnd (B)", title=f"pdrop = {pct(p)}", logy=True)
    finish(axes[-1], xlabel="time (s)", xlim=None if xmax is None else (0, xmax), grid="none")
    return fig


def _fig_ack(traced: dict[float, Result], xmax: float | None) -> Figure:
    fig, ax = new_figure(figsize=(8, 4.5))
    colors = _colors()
    for p, r in traced.items():
        tr = conn_trace(r, until=xmax)
        t, ack = tr["time_s"].to_numpy(), tr["ack"].to_numpy(dtype=float)
        ax.step(t, ack / 1e6, where="post", color=colors[p], label=f"pdrop {pct(p)}", lw=1.2)
    finish(
        ax,
        xlabel="time (s)",
        ylabel="ACK number sent by the client (MB)",
        xlim=None if xmax is None else (0, xmax),
        legend=8,
    )
    return fig


def _fig_throughput(res: StudyResult) -> Figure:
    fig, ax = new_figure(figsize=(8, 4.5))
    x = np.arange(len(PDROPS))
    d = res.group("main")
    means, errs = [], []
    for p in PDROPS:
        ci = mean_ci(d.loc[d["pdrop"] == p, "throughput_Bps"])
        means.append(ci.mean / 1e3)
        errs.append(0.0 if math.isnan(ci.half_width) else ci.half_width / 1e3)
    ax.bar(x, means, 0.55, yerr=errs, color=PALETTE[0], alpha=0.8, capsize=4, label="ours")
    ax.plot(
        x,
        [FILE_SIZE / TABLE4[p][0] / 1e3 for p in PDROPS],
        "v",
        color="#D55E00",
        ms=8,
        label="Riverbed (Table 4)",
    )
    ax.plot(
        x,
        [FILE_SIZE / (TABLE4[p][0] - RIVERBED_OFFSET_S) / 1e3 for p in PDROPS],
        "^",
        color="#E69F00",
        ms=8,
        label="Riverbed, less 10 s",
    )
    paper_points(
        ax,
        zip(x, [FILE_SIZE / TABLE8[p][0] / 1e3 for p in PDROPS], strict=True),
        color="#000000",
        marker="o",
        ms=7,
        label="testbed (Table 8)",
    )
    ax.set_xticks(x, [pct(p) for p in PDROPS])
    fig.legend(loc="outside lower center", ncol=4, fontsize=8)
    finish(ax, xlabel="pdrop", ylabel="average throughput (kB/s)", logy=True, grid="y")
    return fig


def _fig_traffic(traced: dict[float, Result], xmax: float | None) -> Figure:
    fig, axes = stacked(len(traced), height=1.6, sharey=True)
    colors = _colors()
    t_end = max(float(r.traces["trace"]["time_s"].max()) for r in traced.values()) + 1.0
    if xmax is not None:
        t_end = xmax
    for ax, (p, r) in zip(axes, traced.items(), strict=True):
        t, rate = rate_series(r, bin_s=1.0, t_end=t_end)
        ax.step(t, rate / 1e3, where="post", color=colors[p], lw=1)
        finish(ax, ylabel="kB/s", title=f"pdrop = {pct(p)}", ybottom=0)
    finish(axes[-1], xlabel="time (s)", xlim=(0, t_end), grid="none")
    return fig


def _fig_exchange(window: LossWindow) -> Figure:
    fig, (a, b) = new_figure(1, 2, figsize=(13, 9), gridspec_kw={"width_ratios": [1.2, 1]})
    plot_ladder(a, window, mss=MSS)
    plot_time_sequence(b, window, mss=MSS)
    return fig


def _fig_table9(res: StudyResult) -> Figure:
    fig, ax = new_figure(figsize=(7, 4))
    t9 = res.table("table9").data
    ax.plot(t9["rtt"], t9["paper_cwnd"], "s", color="#D55E00", label="paper (Table 9)")
    ax.plot(t9["rtt"], t9["model_cwnd"], "-", color=PALETTE[0], label="model, 1 ACK per RTT")
    if t9["ours_cwnd"].notna().any():
        ax.step(t9["rtt"], t9["ours_cwnd"], where="post", color=PALETTE[1], label="ours")
    ax.axhline(TEXT["rwnd_bytes"], color="#555555", ls="--", lw=0.8, label="rwnd")
    finish(ax, xlabel="RTTs since the end of fast recovery", ylabel="cwnd (B)", legend=8)
    return fig


def _fig_regrowth(res: StudyResult) -> Figure:
    fig, ax = new_figure(figsize=(8, 4.2))
    k = np.arange(len(PAPER_REGROWTH_SEGMENTS))
    ax.step(k, PAPER_REGROWTH_SEGMENTS, where="post", color="#000000", lw=2,
            label="paper's testbed (section 5.2)")  # fmt: skip
    labels = {"riverbed": "ours: riverbed profile", "linux": "ours: linux model (simulator)",
              "testbed": "ours: Linux on our testbed"}  # fmt: skip
    for (name, curve), color in zip(res.extra["regrowth_curves"].items(), PALETTE, strict=False):
        ax.step(np.arange(len(curve)), curve, where="post", color=color, lw=1.2,
                label=labels.get(name, name))  # fmt: skip
    ax.axhline(TEXT["rwnd_bytes"] / MSS, color="#555555", ls="--", lw=0.8, label="rwnd")
    finish(ax, xlabel="RTTs since the end of fast recovery", ylabel="window (segments)",
           legend=8, ybottom=0)  # fmt: skip
    return fig


def _fig_testbed(res: StudyResult) -> Figure:
    fig, ax = new_figure(figsize=(8, 4.5))
    x = np.arange(len(PDROPS))
    t = res.table("testbed").data
    budget = float(res.options.get("testbed_budget_s", math.nan))
    paper_points(
        ax,
        zip(x, [TABLE8[p][0] for p in PDROPS], strict=True),
        color="#000000",
        marker="o",
        ms=9,
        label="paper: Linux testbed (T8)",
    )
    ax.plot(x, t["ours_sim_rt_mean_s"], "s-", color=PALETTE[0], lw=1, label="ours: simulator")
    for (mode, marker), color in zip((("linux", "^"), ("classic", "v")), PALETTE[2:], strict=False):
        y = t[f"{mode}_rt_mean_s"].to_numpy(dtype=float)
        ax.plot(x, y, marker + "-", color=color, lw=1, label=f"ours: testbed, {mode}")
        capped = (t[f"{mode}_capped"] > 0).to_numpy() & np.isnan(y)
        if capped.any():
            ax.plot(x[capped], np.full(capped.sum(), budget), marker, color=color, mfc="none",
                    ms=10)  # fmt: skip
    ax.set_xticks(x, [pct(p) for p in PDROPS])
    finish(ax, xlabel="pdrop", ylabel="response time (s)", logy=True, legend=8)
    return fig


def _fig_sensitivity(res: StudyResult, variants: Sequence[Variant]) -> Figure:
    fig, ax = new_figure(figsize=(9, 5.5))
    x = np.arange(len(PDROPS))
    data = res.table("sensitivity").data
    styles = ["-", "--", "-.", ":"]
    for i, row in enumerate(data.to_dict("records")):
        ys = [row[f"rt_mean_{pct(p)}"] for p in PDROPS]
        ax.plot(
            x,
            ys,
            styles[(i // len(PALETTE)) % len(styles)],
            marker=".",
            color=PALETTE[i % len(PALETTE)],
            lw=2.2 if row["variant"] == "riverbed" else 1.1,
            label=row["variant"],
        )
    ax.plot(
        x,
        [TABLE4[p][0] - RIVERBED_OFFSET_S for p in PDROPS],
        "v",
        color="#D55E00",
        ms=10,
        label="paper: Riverbed - 10 s",
    )
    paper_points(
        ax,
        zip(x, [TABLE8[p][0] for p in PDROPS], strict=True),
        color="#000000",
        marker="o",
        ms=9,
        label="paper: testbed",
    )
    ax.set_xticks(x, [pct(p) for p in PDROPS])
    finish(ax, xlabel="pdrop", ylabel="response time (s)", logy=True, legend=7, ncol=2)
    return fig
