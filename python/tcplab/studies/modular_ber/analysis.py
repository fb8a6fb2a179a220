"""From runs to the numbers the tables, figures and claims read: the mean of every (RTT, BER,
pair) cell over seeds, and per (RTT, BER) the best and the worst pair and how far apart they
are."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from .paper import CCS, PAPER


def cell_means(d: pd.DataFrame) -> pd.DataFrame:
    """One row per (RTT, BER, pair) of the runs `d`: mean throughput (B/s) over seeds and
    counters."""
    g = d.groupby(["rtt_ms", "ber_exp", "cc", "lr"], sort=False)
    out = g.agg(
        thr=("throughput_Bps", "mean"),
        thr_sd=("throughput_Bps", "std"),
        completed=("completed", "mean"),
        rto=("rto_expirations", "mean"),
        fast=("fast_retransmits", "mean"),
        retx=("retransmissions", "mean"),
        drops_error=("drops_error", "sum"),
        drops_queue=("drops_queue", "mean"),
        frames=("frames_sent", "sum"),
        runs=("seed", "count"),
    ).reset_index()
    out["per_measured"] = out["drops_error"] / out["frames"].where(out["frames"] > 0)
    return out


def excluded(rtt: int, e: float, cc: str, lr: str) -> bool:
    """Pairs Figures 5-7 leave out (BER 1e-8..1e-7 at 200 and 500 ms)."""
    if e > math.log10(PAPER["claim_c_low_ber_to"]) + 1e-9:
        return False
    return [cc, lr] in PAPER["figure_exclusions"].get(str(rtt), [])


def differences(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per (RTT, BER): the best and the worst pair, (best - worst) / best over all
    pairs (`diff_all`), without the pairs Figures 5-7 exclude (`diff_paper`) and without
    TahoeCC as well (`diff_no_tahoe`), and NewRenoED / SackED - 1 where it is largest in size
    over the congestion controls, with its sign (`nr_vs_sack`: negative when SackED leads)."""
    rows = []
    for (rtt, e), c in cells.groupby(["rtt_ms", "ber_exp"], sort=True):
        thr = {f"{r.cc}+{r.lr}": float(r.thr) for r in c.itertuples()}
        if not thr:
            continue
        best = max(thr, key=thr.__getitem__)
        worst = min(thr, key=thr.__getitem__)
        kept = {k: v for k, v in thr.items() if not excluded(int(rtt), float(e), *k.split("+"))}
        nr_vs_sack = [
            thr[f"{cc}+newreno"] / thr[f"{cc}+sack"] - 1
            for cc in CCS
            if f"{cc}+newreno" in thr and f"{cc}+sack" in thr and thr[f"{cc}+sack"] > 0
        ]
        rows.append(
            {
                "rtt_ms": int(rtt),
                "ber_exp": float(e),
                "best": best,
                "best_thr": thr[best],
                "worst": worst,
                "worst_thr": thr[worst],
                "diff_all": 1 - thr[worst] / thr[best] if thr[best] > 0 else math.nan,
                "diff_paper": spread(list(kept.values())),
                # signed: the NewRenoED / SackED - 1 of largest magnitude over the controls
                "nr_vs_sack": max(nr_vs_sack, key=abs) if nr_vs_sack else math.nan,
                "diff_no_tahoe": spread([v for k, v in kept.items() if not k.startswith("tahoe+")]),
            }
        )
    return pd.DataFrame(rows)


def spread(values: Sequence[float]) -> float:
    """(max - min) / max; NaN when there is nothing to compare."""
    if not values or max(values) <= 0:
        return math.nan
    return 1 - min(values) / max(values)
