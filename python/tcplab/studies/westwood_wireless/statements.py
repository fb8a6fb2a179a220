"""Seed 003's quantitative statements that the sweeps' means cannot judge: Figure 3's time
series (C1, C4, and the time-outs of C2 and C3, from the traced run of the first seed) and the
conclusion's "100 % improvement" (C14), and an index of all fourteen with where each is
judged."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from tcplab.report.plots import rate_from_cumulative

from .._base import Finding
from .._kit import conn_trace
from .paper import HEADERS, LABELS, PACKET, PAPER, UNCAPPED_WINDOW_PACKETS

__all__ = ["STATEMENTS", "figure3", "timeouts", "conclusion", "index", "uncapped"]

#: The fourteen quantitative statements (C1-C14), where they stand and how this study judges
#: them ("" when it cannot).
STATEMENTS: tuple[tuple[str, str, str], ...] = (
    ("C1", "Fig. 3, slow start: Westwood over 0.45 Mbit/s against 0.35 (Reno), 0.38 (SACK)",
     "Figure 3 finding, first 10 s of the traced run"),
    ("C2", "Fig. 3, 3.5 s: a time-out cuts Reno to about 0.4 and SACK to 1.5 Mbit/s",
     "time-out finding, every time-out of the traced run"),
    ("C3", "Fig. 3: Westwood's throughput reduced by only 0.05 Mbit/s there",
     "time-out finding, every time-out of the traced run"),
    ("C4", "Fig. 3: Westwood the highest and most regular, about 0.5 Mbit/s",
     "Figure 3 finding, per-second throughput after 10 s"),
    ("C5", "Fig. 4, 0 % PER: the three virtually identical at about 1 Mbit/s", "0 % finding"),
    ("C6", "Fig. 4, '85 PER' (8 %): Westwood near 1 Mbit/s, Reno and SACK below 0.4",
     "8 % finding"),
    ("C7", "Fig. 4, 10 %: Westwood just below 0.9 against 0.2, 'about 400 %'", "10 % finding"),
    ("C8", "Fig. 4, beyond 10 %: the gain shrinks, near zero at 20 %", "20 % finding"),
    ("C9", "Fig. 5, 2 Mbit/s: Westwood over 0.2 against 0.15 (Reno), 0.12 (SACK)",
     "2 Mbit/s finding"),
    ("C10", "Fig. 5: the gain grows with the bottleneck speed", "speed finding"),
    ("C11", "Fig. 5, 10 Mbit/s: about 300 % of Reno and SACK", "speed finding"),
    ("C12", "Fig. 5: Westwood's retransmission rate not much higher than Reno's",
     "retransmission finding (per channel loss)"),
    ("C13", "Fig. 6: Westwood uniform from 0 to 15 ms, Reno and SACK down 60 %",
     "Figure 6 findings, four readings"),
    ("C14", "Conclusion: a 100 % improvement over Reno and SACK", "conclusion finding"),
)  # fmt: skip


def _series(result: Any) -> tuple[np.ndarray, np.ndarray]:
    tr = conn_trace(result)
    t = tr["time_s"].to_numpy(dtype=float)
    rx = tr["bytes_received"].to_numpy(dtype=float)
    end = float(result.summary.get("sim_time_s") or (t.max() if len(t) else 1.0))
    return rate_from_cumulative(t, rx, bin_s=1.0, t_end=end)


def figure3(traced: Mapping[str, Any], setup: str, seed: int) -> list[Finding]:
    """C1 and C4 on the traced 5 % PER run of `setup` (variant -> Result)."""
    if not all(v in traced for v in ("reno", "sack", "westwood")):
        return []
    tag = f"{setup.capitalize()} setup: "
    first, rest, cv = {}, {}, {}
    for v, r in traced.items():
        tb, rate = _series(r)
        mbps = rate * 8 / 1e6
        early, late = mbps[tb < 10], mbps[tb >= 10]
        first[v] = float(early.mean()) if len(early) else math.nan
        rest[v] = float(late.mean()) if len(late) else math.nan
        cv[v] = float(late.std() / late.mean()) if len(late) and late.mean() > 0 else math.nan
    p3 = PAPER["fig3_per5"]
    w, r, s = first["westwood"], first["reno"], first["sack"]
    c1 = w > 0.45 and w > r and w > s
    names = ", ".join(f"{LABELS[v].removeprefix('TCP ')} {first[v]:.3f}" for v in sorted(first))
    regular = min(cv, key=lambda k: cv[k]) == "westwood"
    highest = max(rest, key=lambda k: rest[k]) == "westwood"
    cvs = ", ".join(f"{LABELS[v].removeprefix('TCP ')} {cv[v]:.2f}" for v in sorted(cv))
    rests = ", ".join(f"{LABELS[v].removeprefix('TCP ')} {rest[v]:.3f}" for v in sorted(rest))
    return [
        Finding(
            tag + "C1: in slow start (the first 10 s at 5 % PER) Westwood is above 0.45 Mbit/s "
            f"and above Reno and SACK (paper: above 0.45 against {p3['reno']} and {p3['sack']})",
            bool(c1),
            f"ours (seed {seed}, the traced run), mean of the first ten 1-s bins: {names} Mbit/s.",
        ),
        Finding(
            tag + "C4: after slow start Westwood has the highest and the most regular throughput "
            f"(paper: about {p3['westwood']} Mbit/s)",
            bool(highest and regular),
            f"ours (seed {seed}), mean over the 1-s bins from 10 s: {rests} Mbit/s; their "
            f"coefficient of variation (lower is more regular): {cvs}.",
        ),
    ]


def _timeouts(result: Any) -> pd.DataFrame:
    """Every retransmission time-out of the sender's data on connection 0 of a traced run that
    leaves a whole second before the run ends: its time, the throughput (Mbit/s) delivered in
    the second before the stall that led to it and in the second after it, and cwnd and
    ssthresh (packets) in the first trace row at or after it."""
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


def timeouts(traced: Mapping[str, Any], setup: str, seed: int, model: str = "ns2") -> list[Finding]:
    """C2 and C3 on the traced 5 % PER runs of `setup` (variant -> Result): what a time-out
    does to each variant's throughput, from every time-out of the run (the paper's one at
    3.5 s is one instant of one channel), and why, from cwnd and ssthresh right after it.
    `model` is Westwood's (`cc_params.model`): "ns2" (the module) or "paper"."""
    if not all(v in traced for v in ("reno", "sack", "westwood")):
        return []
    tag = f"{setup.capitalize()} setup: "
    p = PAPER["fig3_timeout"]
    got = {v: _timeouts(traced[v]) for v in ("reno", "sack", "westwood")}
    if any(d.empty for d in got.values()):
        none = ", ".join(LABELS[v] for v, d in got.items() if d.empty)
        return [Finding(tag + "C2, C3: time-outs", None,
                        f"the traced run (seed {seed}) has no time-out for {none}: nothing to "
                        "judge")]  # fmt: skip
    after = {v: float(d["after_mbps"].mean()) for v, d in got.items()}
    drop = {v: float((d["before_mbps"] - d["after_mbps"]).mean()) for v, d in got.items()}
    peak = {v: float(_series(traced[v])[1].max() * 8 / 1e6) for v in got}
    one = all(bool((d["cwnd"] <= 1.0 + 1e-9).all()) for d in got.values())
    ss = {v: float(d["ssthresh"].median()) for v, d in got.items()}

    def each(values: Mapping[str, float]) -> str:
        return ", ".join(f"{LABELS[v].removeprefix('TCP ')} {values[v]:.3f}" for v in got)

    counts = ", ".join(f"{LABELS[v].removeprefix('TCP ')} {len(d)}" for v, d in got.items())
    how = (
        f"ours (seed {seed}, every time-out of the traced run: {counts}), throughput in the "
        "second after a time-out, mean: "
    )
    window = (
        "after each time-out every variant's window is one packet (trace column cwnd)"
        if one
        else "not every variant's window is one packet after each time-out (trace column cwnd)"
    )
    reach = (
        f"; SACK never reaches {p['sack']} Mbit/s in any second of the run (its highest: "
        f"{peak['sack']:.3f})"
        if peak["sack"] < p["sack"]
        else f"; SACK's highest second of the run: {peak['sack']:.3f} Mbit/s"
    )
    divisor = (
        ", which the module divides by up to 4 after time-outs in slow start" if model == "ns2"
        else ""
    )  # fmt: skip
    if ss["westwood"] > max(ss["reno"], ss["sack"]):
        regrow = "so Westwood slow-starts back further before it creeps"
    else:
        regrow = (
            f"no higher than Reno's and SACK's here (Westwood's is the estimate x RTTmin"
            f"{divisor}), so its estimate does not speed the return"
        )
    ww_one = bool((got["westwood"]["cwnd"] <= 1.0 + 1e-9).all())
    claim = (
        "the paper says Westwood sets the window to the measured rate; it sets ssthresh to it "
        "and restarts from a window of one packet, as the ns-2 module does"
        if ww_one
        else "Westwood's window is not one packet after every time-out"
    )
    c2 = abs(after["reno"] - p["reno"]) <= 0.1 and abs(after["sack"] - p["sack"]) <= 0.15
    c3 = drop["westwood"] <= 2 * p["westwood_drop"] and drop["westwood"] < min(
        drop["reno"], drop["sack"]
    )
    return [
        Finding(
            tag + f"C2: a time-out cuts Reno to about {p['reno']} and SACK to about {p['sack']} "
            "Mbit/s",
            bool(c2),
            how + each(after) + f" Mbit/s{reach}; the paper's {p['sack']} for SACK is above "
            f"its own {PAPER['fig3_per5']['sack']} a sentence earlier (see the errata). "
            f"Mechanism: {window}.",
        ),
        Finding(
            tag + f"C3: a time-out reduces Westwood's throughput by only about "
            f"{p['westwood_drop']} Mbit/s, less than Reno's and SACK's",
            bool(c3),
            f"ours (seed {seed}): the mean drop from the second before the stall to the second "
            f"after the time-out is {each(drop)} Mbit/s. Mechanism, from the trace: {window} "
            f"({claim}); ssthresh after a time-out has a median of {each(ss)} packets, "
            f"{regrow}.",
        ),
    ]


def conclusion(m: pd.DataFrame, setup: str) -> list[Finding]:
    """C14 at the standard point (5 % PER, 2 Mbit/s), on the means over seeds."""
    d = m[(m["setup"] == setup) & (m["sweep"] == "per") & np.isclose(m["x"], 0.05)]
    got = d.set_index("variant")["mbps"].to_dict()
    if not all(v in got for v in ("reno", "sack", "westwood")):
        return []
    gr, gs = got["westwood"] / got["reno"] - 1, got["westwood"] / got["sack"] - 1
    return [
        Finding(
            f"{setup.capitalize()} setup: C14: Westwood improves on Reno and SACK by 100 % "
            "(at least twice their throughput at the standard point, 5 % PER, 2 Mbit/s)",
            bool(gr >= 1 and gs >= 1),
            f"ours: Westwood {got['westwood']:.3f}, Reno {got['reno']:.3f}, SACK "
            f"{got['sack']:.3f} Mbit/s: {gr:+.0%} over Reno, {gs:+.0%} over SACK.",
        )
    ]


def index(setups: Sequence[str]) -> Finding:
    """Where each of the fourteen statements is judged (no verdict)."""
    lines = [f"{c}: {text} ({where or 'not judged'})" for c, text, where in STATEMENTS]
    return Finding(
        "The paper's fourteen quantitative statements and where each is judged",
        None,
        "; ".join(lines) + f". Judged per setup ({', '.join(setups)}).",
    )


def uncapped(m: pd.DataFrame, setup: str, top: Any | None) -> list[Finding]:
    """The speed sweep with the window opened (`speed-uncapped`, `per-uncapped`): whether
    Westwood's gain then grows with the speed, the per-ACK estimate against the link rate in
    the traced run at the top speed (`top`, Westwood's Result), and the loss-free throughput
    that this window gives, against the paper's 1 Mbit/s."""
    d = m[(m["setup"] == setup) & (m["sweep"] == "speed-uncapped")]
    if d.empty:
        return []
    got = d.pivot_table(index="x", columns="variant", values="mbps")
    if not {"westwood", "reno"} <= set(got.columns):
        return []
    lo, hi = float(got.index.min()), float(got.index.max())
    g = got["westwood"] / got["reno"]
    text = (
        f"With a window of {UNCAPPED_WINDOW_PACKETS} packets, Westwood / Reno at 5 % PER is "
        f"{g[lo]:.2f} at {lo:g} Mbit/s and {g[hi]:.2f} at {hi:g} Mbit/s "
        + ("(it grows with the speed)." if g[hi] > g[lo] else "(it does not grow).")
    )
    if top is not None:
        tr = conn_trace(top)
        late = tr[tr["time_s"] > 10]
        bwe = late["bwe_Bps"].to_numpy(dtype=float) * 8 / 1e6
        link = hi * PACKET / (PACKET + HEADERS)
        if len(bwe) and np.isfinite(bwe).any():
            over = float(np.nanmean(bwe > link))
            text += (
                f" In the traced run at {hi:g} Mbit/s Westwood's bandwidth estimate (trace "
                f"column bwe_Bps) has a median of {np.nanmedian(bwe):.2f} Mbit/s and a maximum "
                f"of {np.nanmax(bwe):.2f}; it is above the hop's {link:.2f} Mbit/s goodput in "
                f"{over:.0%} of the trace rows"
                + (
                    ": the estimate overshoots the link, so ssthresh = estimate x RTTmin after a "
                    "loss is larger than the path holds."
                    if over > 0
                    else ": our filtered estimate does not overshoot the link, so an overshoot "
                    "is not what moves Westwood here (the paper's per-ACK samples without a "
                    "filter might; we have not modelled them)."
                )
            )
    z = m[(m["setup"] == setup) & (m["sweep"] == "per-uncapped")]
    if len(z):
        zero = ", ".join(
            f"{LABELS[r.variant].removeprefix('TCP ')} {r.mbps:.3f}" for r in z.itertuples()
        )
        text += (
            f" But the same window without losses gives {zero} Mbit/s at 2 Mbit/s: the hop's "
            "goodput, not the 'about 1 Mbit/s (50 % utilisation)' of Figure 4 (C5)"
            + (
                ": the setting that yields the speed trend contradicts the loss-free result."
                if g[hi] > g[lo]
                else "."
            )
        )
    return [Finding(f"{setup.capitalize()} setup: the window opened (why a speed trend)", None,
                    text)]  # fmt: skip
