"""Our runs' statistics per case, and the two tables: throughput from NetSim, the seed's
formulas, the models with our inputs and our runs (`main`), and our runs' counters (`runs`)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from tcplab import models

from .._base import TableOut
from .._kit import aggregate, mean_pm
from .paper import ACK_POLICIES, ACK_TEXT, BERS, NETSIM, PAPER, STEADY_FROM_S
from .paper import mbps as _mbps

__all__ = ["main_table", "run_stats", "runs_table"]

Stats = dict[tuple[float, str], dict[str, Any]]


def run_stats(runs: pd.DataFrame) -> Stats:
    """Per (BER, ACK policy): seeds, throughput mean / 95 % CI half-width / min / max, the
    steady-state throughput's mean, the counters' means and the measured data-frame loss."""
    a = aggregate(
        runs,
        ["ber", "variant"],
        ci={"thr": "throughput_Bps", "steady": "steady_Bps"},
        mean={
            "retx": "retransmissions",
            "fast": "fast_retransmits",
            "rto": "rto_expirations",
            "srtt": "srtt_s",
            "ack_drops": "ack_frames_dropped",
            "backlog": "max_backlog_bytes",
        },
        total={"dropped": "data_frames_dropped", "sent": "data_frames_sent"},
    )
    stats: Stats = {}
    for r in a.to_dict("records"):
        sent = r["sent_total"]
        stats[(float(r["ber"]), str(r["variant"]))] = {
            "runs": r["runs"],
            "thr_mean": r["thr_mean"],
            "thr_ci": r["thr_ci"],
            "thr_min": r["thr_min"],
            "thr_max": r["thr_max"],
            "steady_mean": r["steady_mean"],
            "retx_mean": r["retx_mean"],
            "fast_mean": r["fast_mean"],
            "rto_mean": r["rto_mean"],
            "srtt_mean": r["srtt_mean"],
            "per_measured": float(r["dropped_total"] / sent) if sent else math.nan,
            "ack_drops_mean": r["ack_drops_mean"],
            "backlog_mean": r["backlog_mean"],
        }
    return stats


def _policies_of(rows: list[tuple[Any, ...]]) -> list[str | None]:
    """The ACK policy key of each main-table row (None where the row has none)."""
    back = {text: key for key, text in ACK_TEXT.items()}
    return [back.get(r[1]) for r in rows]


def main_table(stats: Stats, inputs: dict, evals: dict, tcp_choice: str | None) -> TableOut:
    """NetSim, the seed's formulas, the models with our inputs and ours, at both BERs."""
    x0 = inputs[(1e-7, "ack-every")]
    rows: list[tuple[str, str, float | None, float | None, str]] = []
    paper_win = float(models.window_limit(PAPER["window_bytes"], PAPER["rtt_s"]))
    paper_mathis = float(models.mathis_throughput(PAPER["mss"], PAPER["rtt_s"], PAPER["per"]))
    rows.append(
        (
            "NetSim (Figures 1-3, 1-6)",
            "simulated, ACK policy not stated",
            NETSIM[0.0][2],
            NETSIM[1e-7][2],
            "packets received x 1460 B x 8 / 100 s",
        )
    )
    rows.append(
        (
            "seed: window limit",
            "either",
            _mbps(paper_win),
            None,
            "65535 B x 8 / 100 ms (printed 5.24)",
        )
    )
    rows.append(
        (
            "seed: Mathis",
            "every segment (b = 1)",
            None,
            _mbps(paper_mathis),
            "sqrt(3 / (2 x 1.2e-3)) x 1460 B x 8 / 100 ms (printed 4.12)",
        )
    )
    rtt = x0.rtt_s
    for label, key, policy, note in (
        (
            "model: window limit",
            "window",
            "ack-every",
            f"rwnd 65535 B / RTT {rtt * 1e3:.2f} ms",
        ),
        ("model: Mathis b = 1", "mathis_b1", "ack-every", "our RTT and p"),
        ("model: Mathis b = 2", "mathis_b2", "delayed-ack", "our RTT and p"),
        ("model: PFTK full b = 1", "pftk_full", "ack-every", "goodput, Wmax 44.9 segments"),
        ("model: PFTK full b = 2", "pftk_full", "delayed-ack", "goodput, Wmax 44.9 segments"),
        ("model: PFTK approx b = 1", "pftk_approx", "ack-every", "goodput"),
        ("model: PFTK approx b = 2", "pftk_approx", "delayed-ack", "goodput"),
    ):
        vals = [evals[(ber, policy)][key] for ber in BERS]
        rows.append(
            (
                label,
                ACK_TEXT[policy] if "window" not in key else "either",
                *[None if not math.isfinite(v) else _mbps(v) for v in vals],
                note,
            )
        )
    for policy, _ in ACK_POLICIES:
        cells = []
        for ber in BERS:
            s = stats.get((ber, policy))
            cells.append(None if s is None else _mbps(s["thr_mean"]))
        n = max((stats[(b, policy)]["runs"] for b in BERS if (b, policy) in stats), default=0)
        rows.append(
            (
                f"ours ({tcp_choice or 'tcp'})",
                ACK_TEXT[policy],
                *cells,
                f"delivered / 100 s; mean of {n} seeds at BER 1e-7 (1 at BER 0)",
            )
        )
    data = pd.DataFrame(rows, columns=["source", "ack_policy", "ber0_Mbps", "ber1e-7_Mbps", "note"])
    # 95 % CI half-widths of our rows (NaN elsewhere and for a single seed)
    for ber, col in ((0.0, "ber0_ci_Mbps"), (1e-7, "ber1e-7_ci_Mbps")):
        data[col] = [
            _mbps(stats[(ber, pol)]["thr_ci"])
            if src.startswith("ours") and (ber, pol) in stats
            else math.nan
            for src, pol in zip(data["source"], _policies_of(rows), strict=True)
        ]

    def cell(v: float | None, ci: float) -> str:
        return "-" if v is None else mean_pm(v, ci, digits=3, sep=" ±")

    disp = pd.DataFrame(
        [
            (src, pol, cell(a, ca), cell(b, cb), note)
            for (src, pol, a, b, note), ca, cb in zip(
                rows, data["ber0_ci_Mbps"], data["ber1e-7_ci_Mbps"], strict=True
            )
        ],
        columns=["source", "ACK policy", "BER 0 (Mbps)", "BER 1e-7 (Mbps)", "note"],
    )
    note = (
        f"Our model inputs come from the scenario (tcplab model --scenario): RTT "
        f"{rtt * 1e3:.3f} ms = 100.4 ms of propagation + serialisation of a 1538-byte frame "
        "on 3 hops + an 84-byte ACK on 3 hops; p = "
        f"{x0.p:.4g} for a 1518-byte exposed frame at BER 1e-7 (the seed: 1.2e-3 for 1500 "
        "bytes); rwnd 65,535 B = 44.9 segments. PFTK uses T0 = "
        f"{x0.rto_s:g} s. Mbps = 10^6 bit/s."
    )
    return TableOut("main", "Throughput: NetSim, the formulas and ours", data, disp, note)


def runs_table(stats: Stats) -> TableOut:
    """Our runs per case: throughput, steady-state throughput, SRTT and the loss counters."""
    rows, disp = [], []
    for (ber, policy), s in stats.items():
        rows.append({"ber": ber, "ack_policy": policy, **s})
        disp.append(
            (
                f"{ber:g}",
                ACK_TEXT[policy],
                s["runs"],
                f"{_mbps(s['thr_mean']):.3f}"
                + ("" if math.isnan(s["thr_ci"]) else f" ±{_mbps(s['thr_ci']):.3f}"),
                f"{_mbps(s['steady_mean']):.3f}",
                f"{s['srtt_mean'] * 1e3:.1f}",
                f"{s['retx_mean']:.1f}",
                f"{s['fast_mean']:.1f}",
                f"{s['rto_mean']:.1f}",
                "-" if math.isnan(s["per_measured"]) else f"{s['per_measured']:.3g}",
                f"{s['ack_drops_mean']:.1f}",
            )
        )
    cols = [
        "BER",
        "ACK policy",
        "seeds",
        "throughput Mbps (95% CI)",
        f"steady {STEADY_FROM_S:g}-100 s Mbps",
        "SRTT ms",
        "retx",
        "fast retx",
        "RTOs",
        "data PER measured",
        "ACKs lost",
    ]
    return TableOut(
        "runs",
        "Our runs: throughput and loss counters per case (means over seeds)",
        pd.DataFrame(rows),
        pd.DataFrame(disp, columns=cols),
        "Counters of the sender (the source); 'data PER measured' = data frames lost on the "
        "backbone / data frames sent on it; SRTT at the end of the run.",
    )
