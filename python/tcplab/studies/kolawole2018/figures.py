"""The study's figures: Figs. 4-9 of the seed redrawn from our runs, and the sensitivity grid."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from tcplab.report.plots import new_figure

from .._kit import finish, mean_band, paper_points, stacked
from .paper import ALGORITHMS, MEASURED_LINK, PAPER, SENSITIVITY, TABLE1, ZOOM_FROM_S, ZOOM_WINDOWS

__all__ = ["fig_apps", "fig_queue_delay", "fig_sensitivity", "fig_throughput", "fig_zoom"]

COLOR = {"aimd": "tab:red", "improved": "tab:blue"}
LABEL = {alg: f"{'AIMD' if alg == 'aimd' else 'improved AIMD'} ({cc})" for alg, cc in ALGORITHMS}


def _series(result: Any, link: str) -> pd.DataFrame:
    ls = result.traces["link_series"]
    return ls[ls["link"] == link]


def fig_zoom(runs: dict[str, Any]) -> Any:
    fig, axes = new_figure(2, 2, figsize=(10, 6.5))
    for ax, w in zip(np.ravel(axes), ZOOM_WINDOWS, strict=True):
        for alg, r in runs.items():
            s = _series(r, f"{MEASURED_LINK}:ab")
            s = s[(s["time_s"] >= ZOOM_FROM_S) & (s["time_s"] < ZOOM_FROM_S + w)]
            ax.step(s["time_s"] - ZOOM_FROM_S, s["mean_queue_delay_s"] * 1e3, where="post",
                    color=COLOR[alg], lw=0.9, label=LABEL[alg])  # fmt: skip
        finish(ax, xlabel="seconds after 100 s", ylabel="queuing delay (ms)",
               title=f"the first {w:g} s", legend=7)  # fmt: skip
    return fig


def fig_apps(runs: dict[str, Any], link: str, label: str) -> Any:
    fig, axes = stacked(2, height=2.6)
    for ax, (d, what) in zip(axes, (("ab", "sent by the server"), ("ba", "received")), strict=True):
        for alg, r in runs.items():
            s = _series(r, f"{link}:{d}")
            t = s["time_s"].to_numpy(dtype=float) + 1
            cum = np.cumsum(s["frames_sent"].to_numpy(dtype=float)) / t
            ax.plot(t / 60, s["packets_per_s"], color=COLOR[alg], lw=0.4, alpha=0.35)
            ax.plot(t / 60, cum, color=COLOR[alg], lw=1.6, label=f"{LABEL[alg]}, time average")
        finish(ax, ylabel="packets/s", title=f"{label} traffic {what}", legend=7)
    axes[-1].set_xlabel("minutes")
    return fig


def fig_queue_delay(runs: dict[str, Any]) -> Any:
    fig, ax = new_figure(1, 1, figsize=(9, 4))
    for alg, r in runs.items():
        s = _series(r, f"{MEASURED_LINK}:ab")
        t = s["time_s"].to_numpy(dtype=float) + 1
        n = s["frames_sent"].to_numpy(dtype=float)
        q = s["mean_queue_delay_s"].to_numpy(dtype=float) * 1e3
        avg = np.cumsum(q * n) / np.maximum(np.cumsum(n), 1)
        ax.plot(t / 60, q, color=COLOR[alg], lw=0.4, alpha=0.35)
        ax.plot(t / 60, avg, color=COLOR[alg], lw=1.8, label=f"{LABEL[alg]}, time average")
    for key, alg in (("queue_delay_aimd_s", "aimd"), ("queue_delay_improved_s", "improved")):
        ax.axhline(PAPER[key] * 1e3, color=COLOR[alg], ls="--", lw=1, label=f"seed, {alg}")
    finish(ax, xlabel="minutes", ylabel="queuing delay per packet (ms)", logy=True, legend=7)
    return fig


def fig_throughput(runs: pd.DataFrame) -> Any:
    df = runs[runs["variant"] == "paper"]
    times = sorted(TABLE1)
    fig, ax = new_figure(1, 1, figsize=(9, 4.2))
    from tcplab.report.stats import mean_ci

    for alg, _ in ALGORITHMS:
        d = df[df["algorithm"] == alg]
        if d.empty:
            continue
        cis = [mean_ci(d[f"tput_both_{t}"]) for t in times]
        mean_band(ax, np.array(times) / 60, [c.mean for c in cis], [c.half_width for c in cis],
                  color=COLOR[alg], fmt="-o", ms=3, label=f"ours, {LABEL[alg]}")  # fmt: skip
        col = 0 if alg == "aimd" else 1
        paper_points(ax, [(t / 60, TABLE1[t][col]) for t in times], color=COLOR[alg],
                     label=f"seed, {alg}")  # fmt: skip
    finish(ax, xlabel="minutes", ylabel="time-average throughput (packets/s)", ybottom=0,
           legend=7)  # fmt: skip
    return fig


def fig_sensitivity(st: dict[tuple[str, str], dict[str, Any]]) -> Any:
    variants = [v for v in SENSITIVITY if all((v, a) in st for a, _ in ALGORITHMS)]
    fig, axes = stacked(2, height=2.8, sharex=False)
    x = np.arange(len(variants))
    for i, (alg, _) in enumerate(ALGORITHMS):
        tp = [st[(v, alg)]["tput_both_1800_mean"] for v in variants]
        qd = [st[(v, alg)]["qd_ab_s_mean"] * 1e3 for v in variants]
        axes[0].bar(x + (i - 0.5) * 0.38, tp, 0.38, color=COLOR[alg], label=LABEL[alg])
        axes[1].bar(x + (i - 0.5) * 0.38, qd, 0.38, color=COLOR[alg], label=LABEL[alg])
    for ax in axes:
        ax.set_xticks(x, variants, fontsize=8)
    finish(axes[0], ylabel="throughput (pkt/s)", legend=7, grid="y")
    finish(axes[1], ylabel="queuing delay (ms)", logy=True, legend=7, grid="y")
    return fig
