"""The study's tables: best and worst pair per RTT and BER, throughput per RTT (Figures 1-3 as
numbers) and what happens inside the recovery phases of the traced runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._base import TableOut
from . import mechanisms as mech
from .paper import RTTS_MS, exp_text, pair_name, paper_per


def summary_table(diff: pd.DataFrame, *, stop_time: str, error_model: str) -> TableOut:
    """Best and worst pair per RTT and BER, from `analysis.differences`."""
    rows = []
    for r in diff.itertuples():
        rows.append(
            {
                "rtt_ms": r.rtt_ms,
                "ber": 10.0**r.ber_exp,
                "paper_per": paper_per(10.0**r.ber_exp),
                "best": pair_name(*r.best.split("+")),
                "best_kBps": r.best_thr / 1e3,
                "worst": pair_name(*r.worst.split("+")),
                "worst_kBps": r.worst_thr / 1e3,
                "diff_all": r.diff_all,
                "diff_paper": r.diff_paper,
                "nr_vs_sack": r.nr_vs_sack,
            }
        )
    data = pd.DataFrame(rows)
    display = pd.DataFrame(
        {
            "RTT ms": data["rtt_ms"],
            "BER": [exp_text(e) for e in diff["ber_exp"]],
            "PER": [f"{p:.3g}" for p in data["paper_per"]],
            "best pair": data["best"],
            "best kB/s": data["best_kBps"].round(2),
            "worst pair": data["worst"],
            "worst kB/s": data["worst_kBps"].round(2),
            "best-worst %": (100 * data["diff_all"]).round(1),
            "Figs 5-7 %": (100 * data["diff_paper"]).round(1),
            "NewRenoED vs SackED %": (100 * data["nr_vs_sack"]).round(1),
        }
    )
    return TableOut(
        "summary",
        "Best and worst pair per RTT and BER (mean throughput over seeds)",
        data,
        display,
        note=(
            "best-worst % = (best - worst) / best over all nine pairs; 'Figs 5-7 %' leaves "
            "out the pairs the paper's Figures 5-7 leave out (RenoCC + NewRenoED at 200 and "
            "500 ms and NewRenoCC + NewRenoED at 500 ms, BER 1e-8..1e-7); 'NewRenoED vs "
            "SackED %' is NewRenoED / SackED - 1 where it is largest in size over the three "
            "congestion controls, with its sign (negative: SackED ahead). Throughput = "
            "delivered bytes / elapsed time (file size / transfer time "
            f"when the transfer finished before {stop_time}). PER: "
            + (
                "the paper's 1 - (1 - BER)^(8 x 536), used as the data direction's PER."
                if error_model == "per"
                else "the paper's formula for reference; the runs use our frame-length BER "
                "model (8 x 576 exposed bits per data packet)."
            )
        ),
    )


def rtt_table(
    cells: pd.DataFrame, rtt: int, *, combos: Sequence[tuple[str, str]], stop_time: str
) -> TableOut:
    """Mean throughput of every pair at one RTT, one row per BER."""
    c = cells[cells["rtt_ms"] == rtt]
    piv = c.pivot_table(index="ber_exp", columns=["cc", "lr"], values="thr", sort=False)
    piv = piv.sort_index()
    data = pd.DataFrame({"ber": [10.0**e for e in piv.index]})
    display = pd.DataFrame({"BER": [exp_text(e) for e in piv.index]})
    for cc, lr in combos:
        if (cc, lr) in piv.columns:
            col = piv[(cc, lr)].to_numpy(dtype=float) / 1e3
            data[f"{cc}+{lr}"] = col
            display[pair_name(cc, lr)] = np.round(col, 2)
    comp = c.groupby("ber_exp")["completed"].mean().reindex(piv.index)
    data["completed_share"] = comp.to_numpy(dtype=float)
    display["finished %"] = np.round(100 * comp.to_numpy(dtype=float), 0)
    return TableOut(
        f"throughput_{rtt}ms",
        f"Throughput in kB/s, RTT {rtt} ms (Figure {1 + RTTS_MS.index(rtt)})"
        if rtt in RTTS_MS
        else f"Throughput in kB/s, RTT {rtt} ms",
        data,
        display,
        note="Mean over seeds; 'finished %' is the share of runs (all pairs) whose 10 MB "
        f"arrived before {stop_time}.",
    )


def mechanisms_table(rows: Sequence[dict[str, Any]]) -> TableOut:
    """The recovery phases of the traced runs (`mechanisms.mechanism_rows`)."""
    return TableOut(
        "mechanisms",
        "Inside the recovery phases (first seed of each traced case)",
        pd.DataFrame(rows),
        mech.table_frame(rows, pair_name),
        "A phase runs from a fast retransmit to the ACK that ends it (the error "
        "detection's rule) or a timeout; lengths in round trips of the path; 'new "
        "segments' are first transmissions above the recovery point sent inside "
        "phases; 'received twice' counts the receiver's duplicate segments "
        "(TahoeCC's go-back-N resends data it holds).",
    )
