"""Figure 3's statements judged over seeds: C1 (slow start), C4 (after slow start), C2 and C3
(what a time-out does). Every run of the "time" sweep records its trace and event log
(`Case.trace_all`); `run_metrics` reduces one run to a few numbers (the study's per-run
columns), and the findings compare the variants seed by seed, with a 95 % confidence interval
of the paired differences, where the study used to read one seed's one-second bins."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from tcplab.report.plots import rate_from_cumulative
from tcplab.report.stats import mean_ci

from .._base import Finding
from .._kit import conn_trace
from .paper import LABELS, PACKET, PAPER

__all__ = ["COLUMNS", "QUOTES", "figure3", "run_metrics", "seeds_of", "timeouts"]

#: The per-run columns `run_metrics` adds (NaN for runs without a trace).
COLUMNS = (
    "ts_first10_mbps", "ts_rest_mbps", "ts_rest_cv", "to_n", "to_after_mbps", "to_drop_mbps",
    "to_cwnd_one", "to_ssthresh_pkts",
)  # fmt: skip

_SHORT = {v: k.removeprefix("TCP ") for v, k in LABELS.items()}
QUOTES = {
    "C1": "Figure 3: 'during the slow start phase (first 10s) ... TCPWestwood exhibits a very "
    "high throughput, in excess of .45Mbps as against TCPReno and TCPSACK that recorded "
    "throughput of about .35 and .38Mbps'",
    "C2": "Figure 3: 'at time 3.5s, there were losses traceable to time-out ... reducing "
    "throughput to about 0.4 and 1.5 respectively' (Reno, SACK)",
    "C3": "Figure 3: Westwood's bandwidth estimate 'caused the throughput to only reduced by "
    "0.05Mbps'",
    "C4": "Figure 3: 'TCPWestwood exhibiting the highest and most regular throughput of approx. "
    "0.5Mbps all through the transmission phases'",
}


def _series(result: Any) -> tuple[np.ndarray, np.ndarray]:
    tr = conn_trace(result)
    t = tr["time_s"].to_numpy(dtype=float)
    rx = tr["bytes_received"].to_numpy(dtype=float)
    end = float(result.summary.get("sim_time_s") or (t.max() if len(t) else 1.0))
    return rate_from_cumulative(t, rx, bin_s=1.0, t_end=end)


def _timeouts(result: Any) -> pd.DataFrame:
    """Every retransmission time-out of the sender's data on connection 0 that leaves a whole
    second before the run ends: its time, the throughput (Mbit/s) delivered in the second
    before the stall that led to it and in the second after it, and cwnd and ssthresh
    (packets) in the first trace row at or after it."""
    tr = conn_trace(result)
    end = int(tr["end"].iloc[0]) if len(tr) else 0
    t = tr["time_s"].to_numpy(dtype=float)
    got = tr["bytes_received"].to_numpy(dtype=float)
    stop = float(result.summary.get("sim_time_s") or (t[-1] if len(t) else 0.0))
    ev = result.traces["events"]
    mine = (ev["conn"] == 0) & (ev["end"] == end) & (ev["kind"] == "rto")
    at = ev.loc[mine & (ev["detail"] != "SYN"), "time_s"]

    def delivered(x: float) -> float:
        i = int(np.searchsorted(t, x, side="right")) - 1
        return float(got[i]) if i >= 0 else 0.0

    rows = []
    for x in at.to_numpy(dtype=float):
        k = int(np.searchsorted(t, x, side="left"))
        if x + 1.0 > stop or k >= len(t):
            continue  # no whole second after it, or no trace row from it on
        i = int(np.searchsorted(t, x, side="right")) - 1
        j = i
        while j > 0 and got[j - 1] == got[i]:
            j -= 1
        stall = float(t[j]) if i >= 0 else x  # the last delivery before the time-out
        rows.append({
            "time_s": x,
            "before_mbps": (delivered(stall) - delivered(stall - 1.0)) * 8 / 1e6,
            "after_mbps": (delivered(x + 1.0) - delivered(x)) * 8 / 1e6,
            "cwnd": float(tr["cwnd"].iloc[k]) / PACKET,
            "ssthresh": float(tr["ssthresh"].iloc[k]) / PACKET,
        })  # fmt: skip
    return pd.DataFrame(rows, columns=["time_s", "before_mbps", "after_mbps", "cwnd", "ssthresh"])


def run_metrics(result: Any) -> dict[str, float]:
    """The Figure 3 numbers of one run with a trace and an event log: the mean of the first
    ten 1-s bins and of the rest (and the rest's coefficient of variation), and over its
    time-outs the mean throughput in the second after, the mean drop from the second before
    the stall, whether the window was one packet after every one, and the median ssthresh."""
    nan = math.nan
    out = dict.fromkeys(COLUMNS, nan)
    if "trace" not in result.traces or "events" not in result.traces:
        return out
    tb, rate = _series(result)
    mbps = rate * 8 / 1e6
    early, late = mbps[tb < 10], mbps[tb >= 10]
    out["ts_first10_mbps"] = float(early.mean()) if len(early) else nan
    out["ts_rest_mbps"] = float(late.mean()) if len(late) else nan
    out["ts_rest_cv"] = float(late.std() / late.mean()) if len(late) and late.mean() > 0 else nan
    to = _timeouts(result)
    out["to_n"] = float(len(to))
    if len(to):
        out["to_after_mbps"] = float(to["after_mbps"].mean())
        out["to_drop_mbps"] = float((to["before_mbps"] - to["after_mbps"]).mean())
        out["to_cwnd_one"] = float(bool((to["cwnd"] <= 1.0 + 1e-9).all()))
        out["to_ssthresh_pkts"] = float(to["ssthresh"].median())
    return out


def _by_seed(runs: pd.DataFrame, col: str) -> pd.DataFrame:
    """Seeds down, variants across: `col` of the runs."""
    return runs.pivot_table(index="seed", columns="variant", values=col, aggfunc="first")


def _ci(x: Any) -> tuple[float, float, int]:
    s = mean_ci(list(np.asarray(x, dtype=float)))
    return s.mean, s.half_width, s.n


def _pm(x: Any, digits: int = 3) -> str:
    m, h, _ = _ci(x)
    if math.isnan(m):
        return "-"
    return f"{m:.{digits}f}" + ("" if math.isnan(h) else f" +/-{h:.{digits}f}")


def _above(diff: Any) -> bool:
    """The 95 % CI of paired differences lies above zero (two seeds at least)."""
    m, h, n = _ci(diff)
    return n >= 2 and not math.isnan(h) and m - h > 0


def _have(runs: pd.DataFrame) -> bool:
    return not runs.empty and {"reno", "sack", "westwood"} <= set(runs["variant"])


def figure3(runs: pd.DataFrame, setup: str) -> list[Finding]:
    """C1 and C4 over the seeds of the 5 % PER time series of `setup` (its "time" runs)."""
    if not _have(runs) or runs["ts_first10_mbps"].isna().all():
        return []
    tag = f"{setup.capitalize()} setup: "
    p3 = PAPER["fig3_per5"]
    first, rest, cv = (_by_seed(runs, c) for c in ("ts_first10_mbps", "ts_rest_mbps", "ts_rest_cv"))
    n = len(first)
    w1 = first["westwood"]
    c1 = _ci(w1)[0] > 0.45 and _above(w1 - first["reno"]) and _above(w1 - first["sack"])
    c4_hi = _above(rest["westwood"] - rest["reno"]) and _above(rest["westwood"] - rest["sack"])
    c4_reg = _above(cv["reno"] - cv["westwood"]) and _above(cv["sack"] - cv["westwood"])

    def each(f: pd.DataFrame) -> str:
        return ", ".join(f"{_SHORT[v]} {_pm(f[v])}" for v in ("westwood", "reno", "sack"))

    rule = (
        f"Means over {n} seeds +/- the 95 % CI; 'above' means the 95 % CI of the per-seed "
        "differences lies above zero (until this version: one seed's bins)."
    )
    return [
        Finding(
            tag + "C1: in slow start (the first 10 s at 5 % PER) Westwood is above 0.45 Mbit/s "
            f"and above Reno and SACK (paper: above 0.45 against {p3['reno']} and {p3['sack']})",
            bool(c1),
            rule + f" Westwood - Reno {_pm(w1 - first['reno'])}, Westwood - SACK "
            f"{_pm(w1 - first['sack'])} Mbit/s.",
            "claim",
            QUOTES["C1"],
            f"mean of the first ten 1-s bins: {each(first)} Mbit/s",
        ),
        Finding(
            tag + "C4: after slow start Westwood has the highest and the most regular throughput "
            f"(paper: about {p3['westwood']} Mbit/s)",
            bool(c4_hi and c4_reg),
            rule + " Regularity: the coefficient of variation of the 1-s bins from 10 s (lower "
            f"is more regular): {each(cv)}. Highest: {'yes' if c4_hi else 'no'}; most regular: "
            f"{'yes' if c4_reg else 'no'}.",
            "claim",
            QUOTES["C4"],
            f"mean of the 1-s bins from 10 s: {each(rest)} Mbit/s",
        ),
    ]


def timeouts(runs: pd.DataFrame, setup: str, model: str = "ns2") -> list[Finding]:
    """C2 and C3 over the seeds of the 5 % PER time series of `setup`: what a time-out does to
    each variant's throughput (every time-out of every run: the paper's one at 3.5 s is one
    instant of one channel), and why, from cwnd and ssthresh right after it."""
    if not _have(runs) or runs["to_n"].isna().all():
        return []
    tag = f"{setup.capitalize()} setup: "
    p = PAPER["fig3_timeout"]
    after, drop, n_to, ss, one = (
        _by_seed(runs, c)
        for c in ("to_after_mbps", "to_drop_mbps", "to_n", "to_ssthresh_pkts", "to_cwnd_one")
    )
    counts = ", ".join(f"{_SHORT[v]} {int(n_to[v].sum())}" for v in ("westwood", "reno", "sack"))
    if any(after[v].isna().all() for v in ("westwood", "reno", "sack")):
        return [Finding(tag + "C2, C3: time-outs", None,
                        f"not every variant timed out in these runs ({counts}): nothing to judge",
                        "note")]  # fmt: skip
    m_after = {v: _ci(after[v])[0] for v in after.columns}
    m_drop = {v: _ci(drop[v])[0] for v in drop.columns}
    c2 = abs(m_after["reno"] - p["reno"]) <= 0.1 and abs(m_after["sack"] - p["sack"]) <= 0.15
    c3 = (
        m_drop["westwood"] <= 2 * p["westwood_drop"]
        and _above(drop["reno"] - drop["westwood"])
        and _above(drop["sack"] - drop["westwood"])
    )
    all_one = bool((one.fillna(1.0) >= 1.0).all().all())
    window = (
        "after each time-out every variant's window is one packet (trace column cwnd)"
        if all_one
        else "not every variant's window is one packet after each time-out (trace column cwnd)"
    )
    div = ", which the ns-2 module divides by up to 4 after time-outs in slow start"
    ss_text = ", ".join(
        f"{_SHORT[v]} {np.nanmedian(ss[v]):.1f}" for v in ("westwood", "reno", "sack")
    )

    def each(f: pd.DataFrame) -> str:
        return ", ".join(f"{_SHORT[v]} {_pm(f[v])}" for v in ("westwood", "reno", "sack"))

    return [
        Finding(
            tag + f"C2: a time-out cuts Reno to about {p['reno']} and SACK to about {p['sack']} "
            "Mbit/s",
            bool(c2),
            f"Every time-out of every seed's run ({counts} in all); per run the mean "
            "throughput in the second after a time-out, then the mean over seeds +/- 95 % CI. "
            f"Within 0.1 (Reno) and 0.15 Mbit/s (SACK) counts as 'about'. The paper's "
            f"{p['sack']} for SACK is above its own {PAPER['fig3_per5']['sack']} a sentence "
            f"earlier (see the errata). Mechanism: {window}.",
            "claim",
            QUOTES["C2"],
            f"throughput in the second after a time-out: {each(after)} Mbit/s",
        ),
        Finding(
            tag + f"C3: a time-out reduces Westwood's throughput by only about "
            f"{p['westwood_drop']} Mbit/s, less than Reno's and SACK's",
            bool(c3),
            f"Per run the mean drop from the second before the stall to the second after the "
            f"time-out, then over seeds; holds if Westwood's mean drop is at most "
            f"{2 * p['westwood_drop']:g} Mbit/s and the 95 % CIs of Reno's and SACK's drop "
            f"minus Westwood's, seed by seed, lie above zero (Reno - Westwood "
            f"{_pm(drop['reno'] - drop['westwood'])}, SACK - Westwood "
            f"{_pm(drop['sack'] - drop['westwood'])}). Until this version it was one seed's "
            f"one-second bins. Mechanism, from the traces: {window}; the median ssthresh after "
            f"a time-out is {ss_text} packets (Westwood's is its estimate x RTTmin"
            f"{div if model == 'ns2' else ''}).",
            "claim",
            QUOTES["C3"],
            f"drop at a time-out: {each(drop)} Mbit/s",
        ),
    ]


def seeds_of(runs: pd.DataFrame, setup: str) -> pd.DataFrame:
    """The "time" runs of `setup`."""
    return runs[(runs["group"] == "time") & (runs["setup"] == setup)]
