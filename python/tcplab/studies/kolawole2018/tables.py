"""Statistics over seeds per (variant, algorithm), and the report's tables: Table 1 beside ours,
the queuing delay, the sensitivity grid and our choices."""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

from .._base import TableOut
from .._kit import aggregate, mean_pm
from .paper import ALGORITHMS, CHOICES, MEASURED_LINK, PAPER, SENSITIVITY, TABLE1, TABLE_TIMES

__all__ = ["choices_table", "delay_table", "improvement", "sensitivity_table", "stats", "table1"]

Stats = dict[tuple[str, str], dict[str, Any]]


def improvement(aimd: float, improved: float) -> float:
    """The seed's "difference in packets received" as a % of the improved AIMD's (Table 1's
    last column: 765 / 4,515 = 16.94 %)."""
    return (improved - aimd) / improved * 100 if improved else math.nan


def stats(runs: pd.DataFrame) -> Stats:
    """Per (variant, algorithm) of the main and sensitivity groups: means and 95 % CIs over
    seeds of the throughput at each Table 1 time, the packets offered and delivered, the
    queuing delay and the applications' counts and response times."""
    df = runs[runs["group"] != "zoom"]
    ci: dict[str, str] = {}
    for t in TABLE_TIMES:
        for d in ("both", "ab", "ba"):
            ci[f"tput_{d}_{t}"] = f"tput_{d}_{t}"
        ci[f"offered_{t}"] = f"offered_both_{t}"
        ci[f"received_{t}"] = f"received_both_{t}"
    for k in ("qd_ab_s", "qd_ba_s", "qd20_ab_s", "qd20_ba_s", "page_rt_s", "query_rt_s",
              "file_rt_s", "drops_queue", "drops_aqm", "app_bytes", "waited_ab", "pages", "queries",
              "files", "qd_max_ab_s",
              "http_server_sent", "http_server_received", "db_server_sent",
              "db_server_received"):  # fmt: skip
        ci[k] = k
    a = aggregate(df, ["variant", "algorithm"], ci=ci)
    out: Stats = {}
    for r in a.to_dict("records"):
        out[(str(r["variant"]), str(r["algorithm"]))] = r
    return out


def _pair(st: Stats, variant: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    a, b = (st.get((variant, alg)) for alg, _ in ALGORITHMS)
    return (a, b) if a is not None and b is not None else None


def table1(st: Stats) -> TableOut:
    """Table 1 of the seed beside ours (the `paper` campus): the time-average throughput on the
    measured link, the packets offered to it and delivered over it, and the difference as the
    seed computes it."""
    pair = _pair(st, "paper")
    rows, disp = [], []
    for t, (pa, pi, psent, pri, _pri_pct, pra, _pra_pct, _pdiff, pdiff_pct) in TABLE1.items():
        row: dict[str, Any] = {
            "time_s": t, "paper_aimd_pps": pa, "paper_improved_pps": pi, "paper_sent": psent,
            "paper_received_aimd": pra, "paper_received_improved": pri,
            "paper_difference_pct": pdiff_pct,
        }  # fmt: skip
        if pair is not None:
            a, b = pair
            row.update(
                {
                    "aimd_pps": a[f"tput_both_{t}_mean"],
                    "aimd_pps_ci": a[f"tput_both_{t}_ci"],
                    "improved_pps": b[f"tput_both_{t}_mean"],
                    "improved_pps_ci": b[f"tput_both_{t}_ci"],
                    "aimd_to_users_pps": a[f"tput_ab_{t}_mean"],
                    "improved_to_users_pps": b[f"tput_ab_{t}_mean"],
                    "offered_aimd": a[f"offered_{t}_mean"],
                    "received_aimd": a[f"received_{t}_mean"],
                    "offered_improved": b[f"offered_{t}_mean"],
                    "received_improved": b[f"received_{t}_mean"],
                    "difference_pct": improvement(a[f"received_{t}_mean"], b[f"received_{t}_mean"]),
                }
            )
        rows.append(row)
        g = row.get
        disp.append(
            {
                "time (s)": t,
                "paper AIMD (pkt/s)": f"{pa:.1f}",
                "paper improved (pkt/s)": f"{pi:.1f}",
                "ours AIMD (pkt/s)": mean_pm(g("aimd_pps", math.nan), g("aimd_pps_ci", math.nan)),
                "ours improved (pkt/s)": mean_pm(
                    g("improved_pps", math.nan), g("improved_pps_ci", math.nan)
                ),
                "paper received AIMD / improved / sent": f"{pra:,} / {pri:,} / {psent:,}",
                "ours received AIMD / improved": (
                    f"{g('received_aimd', math.nan):,.0f} / {g('received_improved', math.nan):,.0f}"
                ),
                "ours delivered / offered": (
                    f"{g('received_aimd', math.nan) / g('offered_aimd', math.nan) * 100:.2f} %"
                    if g("offered_aimd")
                    else "-"
                ),
                "paper difference": f"{pdiff_pct:.2f} %",
                "ours difference": f"{g('difference_pct', math.nan):+.3f} %",
            }
        )
    return TableOut(
        "table1",
        "Table 1: throughput (packets/s) and packets received, the seed's and ours",
        pd.DataFrame(rows),
        pd.DataFrame(disp),
        note=(
            f"Ours: link {MEASURED_LINK} (firewall to Router_HQ, which all users' traffic "
            "crosses), both directions, OPNET's time average (packets sent since 0 over t); "
            "mean +/- 95 % CI over seeds. Received: packets delivered over the link by t; "
            "offered: packets that reached its queue. Difference as the seed computes it: "
            "(improved - AIMD) / improved."
        ),
    )


def delay_table(st: Stats) -> TableOut:
    """The queuing delay per packet on the measured link: the seed's figures and ours."""
    rows, disp = [], []
    for variant in SENSITIVITY:
        pair = _pair(st, variant)
        if pair is None:
            continue
        for (alg, cc), s in zip(ALGORITHMS, pair, strict=True):
            paper = PAPER["queue_delay_aimd_s" if alg == "aimd" else "queue_delay_improved_s"]
            row = {
                "variant": variant, "algorithm": alg, "congestion_control": cc,
                "paper_s": paper if variant == "paper" else math.nan,
                "qd20_ab_s": s["qd20_ab_s_mean"], "qd20_ba_s": s["qd20_ba_s_mean"],
                "qd_ab_s": s["qd_ab_s_mean"], "qd_ab_ci": s["qd_ab_s_ci"],
                "qd_max_ab_s": s["qd_max_ab_s_mean"], "drops": s["drops_queue_mean"],
            }  # fmt: skip
            rows.append(row)
            disp.append(
                {
                    "campus": variant,
                    "algorithm": f"{alg} ({cc})",
                    "paper (ms/packet)": f"{paper * 1e3:.2f}" if variant == "paper" else "",
                    "ours, first 20 min, to users (ms)": f"{row['qd20_ab_s'] * 1e3:.4f}",
                    "ours, 30 min, to users (ms)": mean_pm(
                        row["qd_ab_s"] * 1e3, row["qd_ab_ci"] * 1e3, digits=4
                    ),
                    "ours, from users (ms)": f"{row['qd20_ba_s'] * 1e3:.4f}",
                    "largest (ms)": f"{row['qd_max_ab_s'] * 1e3:.2f}",
                    "queue drops (all links)": f"{row['drops']:.1f}",
                }
            )
    return TableOut(
        "queue_delay",
        "Point-to-point queuing delay per packet (Fig. 8)",
        pd.DataFrame(rows),
        pd.DataFrame(disp),
        note=(
            f"Mean queuing delay of the packets sent on {MEASURED_LINK}, weighted by packets; "
            "the seed reports 0.11 ms for AIMD and 0.02 ms for the improved AIMD over 20 "
            "minutes, without saying which direction."
        ),
    )


def sensitivity_table(st: Stats) -> TableOut:
    """Per campus variant: both algorithms' throughput, queuing delay, drops and response
    times, and the throughput difference the seed's way."""
    rows, disp = [], []
    for variant, (users, rate, bulk, aqm, what) in SENSITIVITY.items():
        pair = _pair(st, variant)
        if pair is None:
            continue
        a, b = pair
        row = {
            "variant": variant, "users": users, "core_rate": rate, "bulk": bulk or "",
            "aqm": aqm or "none",
            "aimd_pps": a["tput_both_1800_mean"], "improved_pps": b["tput_both_1800_mean"],
            "difference_pct": improvement(a["tput_both_1800_mean"], b["tput_both_1800_mean"]),
            "aimd_qd_s": a["qd_ab_s_mean"], "improved_qd_s": b["qd_ab_s_mean"],
            "aimd_drops": a["drops_queue_mean"], "improved_drops": b["drops_queue_mean"],
            "aimd_app_bytes": a["app_bytes_mean"], "improved_app_bytes": b["app_bytes_mean"],
            "aimd_page_rt_s": a["page_rt_s_mean"], "improved_page_rt_s": b["page_rt_s_mean"],
            "aimd_file_rt_s": a["file_rt_s_mean"], "improved_file_rt_s": b["file_rt_s_mean"],
        }  # fmt: skip
        rows.append(row)
        disp.append(
            {
                "campus": variant,
                "what": what,
                "throughput AIMD / improved (pkt/s)": (
                    f"{row['aimd_pps']:.2f} / {row['improved_pps']:.2f}"
                ),
                "difference": f"{row['difference_pct']:+.3f} %",
                "bytes delivered to the applications, improved / AIMD": (
                    f"{row['improved_app_bytes'] / row['aimd_app_bytes'] - 1:+.3%}"
                ),
                "queuing delay AIMD / improved (ms)": (
                    f"{row['aimd_qd_s'] * 1e3:.3f} / {row['improved_qd_s'] * 1e3:.3f}"
                ),
                "queue drops AIMD / improved": (
                    f"{row['aimd_drops']:.0f} / {row['improved_drops']:.0f}"
                ),
                "page time AIMD / improved (s)": (
                    f"{row['aimd_page_rt_s']:.3f} / {row['improved_page_rt_s']:.3f}"
                ),
                "file transfer time AIMD / improved (s)": (
                    f"{row['aimd_file_rt_s']:.3f} / {row['improved_file_rt_s']:.3f}"
                ),
            }
        )
    return TableOut(
        "sensitivity",
        "What the seed leaves open: the campus varied",
        pd.DataFrame(rows),
        pd.DataFrame(disp),
        note=(
            "Throughput: time average at 1800 s on the measured link, both directions, "
            "retransmissions included (as OPNET counts them). Queuing "
            "delay: mean per packet towards the users over 30 minutes. Page and FTP times: mean "
            "per completed page or file transfer. Means over seeds."
        ),
    )


def choices_table() -> TableOut:
    """Every value the seed leaves open, and ours."""
    why = {
        "users": "Fig. 3: node_0 .. node_9",
        "link_rate": "'100T' links; Table 1: 'over a 100Mbps link'",
        "access_delay": "ours: a short LAN cable",
        "core_delay": "ours: the seed gives none",
        "queue": "ours: 100 packets drop-tail on every link direction",
        "firewall_delay": "ours: a firewall is a router with a processing delay",
        "profile_start": "ours, after OPNET's default profile start",
        "http": "OPNET 'heavy browsing': a 1000 B page and 5 objects of 500-2000 B every "
        "exponential(60 s), one persistent connection per user",
        "database": "OPNET 'heavy' database transactions",
        "ftp": "OPNET 'high load' FTP: a file every exponential(360 s), half gets and half "
        "puts, each on its own connection",
        "tcp_profile": "ours: RFC 5681/6298 TCP, 1 ms clock",
        "stop_time": "'30 minutes'",
        "link_series": "OPNET's time_average collection",
    }
    rows = [
        {"parameter": k, "value": json.dumps(v) if isinstance(v, dict) else str(v),
         "source": why.get(k, "")}
        for k, v in CHOICES.items()
    ]  # fmt: skip
    df = pd.DataFrame(rows)
    return TableOut("choices", "What the seed leaves open, and our choices", df, df)
