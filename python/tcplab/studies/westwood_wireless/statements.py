"""Seed 003's statements beyond the sweeps' claims: the conclusion's "100 % improvement" (C14),
an index of all fourteen quantitative statements with where each is judged (Figure 3's C1-C4
are in `timeseries`), the window opened, and the paper's HTTP and its run length."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._base import Finding
from .._kit import conn_trace
from .paper import HEADERS, LABELS, PACKET, UNCAPPED_WINDOW_PACKETS

__all__ = ["STATEMENTS", "conclusion", "duration", "http", "index", "uncapped"]

#: The fourteen quantitative statements (C1-C14), where they stand and how this study judges
#: them ("" when it cannot).
STATEMENTS: tuple[tuple[str, str, str], ...] = (
    ("C1", "Fig. 3, slow start: Westwood over 0.45 Mbit/s against 0.35 (Reno), 0.38 (SACK)",
     "C1 finding, first 10 s of every seed's run"),
    ("C2", "Fig. 3, 3.5 s: a time-out cuts Reno to about 0.4 and SACK to 1.5 Mbit/s",
     "C2 finding, every time-out of every seed's run"),
    ("C3", "Fig. 3: Westwood's throughput reduced by only 0.05 Mbit/s there",
     "C3 finding, every time-out of every seed's run"),
    ("C4", "Fig. 3: Westwood the highest and most regular, about 0.5 Mbit/s",
     "C4 finding, per-second throughput after 10 s of every seed's run"),
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
            "Means over seeds of the PER sweep's 5 % point.",
            "claim",
            "Conclusion: 'the throughput performance of TCPWestwood over a lossy wireless "
            "network exhibited a 100 % improvement over TCPReno and TCPSACK implementations'",
            f"Westwood {got['westwood']:.3f}, Reno {got['reno']:.3f}, SACK {got['sack']:.3f} "
            f"Mbit/s: {gr:+.0%} over Reno, {gs:+.0%} over SACK",
        )
    ]


def index(setups: Sequence[str]) -> Finding:
    """Where each of the fourteen statements is judged (no verdict)."""
    lines = [f"{c}: {text} ({where or 'not judged'})" for c, text, where in STATEMENTS]
    return Finding(
        "The paper's fourteen quantitative statements and where each is judged",
        None,
        "; ".join(lines) + f". Judged per setup ({', '.join(setups)}).",
        "note",
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
                    text, "note")]  # fmt: skip


def http(m: pd.DataFrame, setups: Sequence[str]) -> list[Finding]:
    """The paper's HTTP (sweep "http"): what web pages over the same path carry, against the
    bulk transfer the study runs."""
    d = m[m["sweep"] == "http"]
    if d.empty:
        return []
    changed, same = _rejudge(m, "http", setups, "with web pages")
    parts, leads = [], []
    for setup in setups:
        got = d[d["setup"] == setup].pivot_table(index="x", columns="variant", values="mbps")
        bulk = m[(m["setup"] == setup) & (m["sweep"] == "per")].pivot_table(
            index="x", columns="variant", values="mbps"
        )
        for x, row in got.iterrows():
            other = max(row.get("reno", math.nan), row.get("sack", math.nan))
            lead = row.get("westwood", math.nan) / other if other > 0 else math.nan
            leads.append(f"{setup} {x:.0%} {lead:.2f}")
            b = bulk.loc[x] if x in bulk.index else None
            parts.append(
                f"{setup} at {x:.0%} PER: "
                + ", ".join(f"{LABELS[v].removeprefix('TCP ')} {row[v]:.3f}" for v in row.index)
                + (
                    f" Mbit/s (bulk: Westwood {b['westwood']:.3f}, Reno {b['reno']:.3f})"
                    if b is not None
                    else " Mbit/s"
                )
            )
    return [
        Finding(
            "The paper names HTTP, not FTP: what web pages carry over the same path",
            None,
            "'The application assumed to be running on the OAU network model is HTTP' "
            "(Limitations), with no page sizes, think times or connection use. Its figures, "
            "though, describe one long transfer: Figure 3 has slow start over the first 10 s, "
            "congestion avoidance until losses at 20 s and 'the transmission continued in this "
            "order', and Figure 4 has all three at 50 % of the link without losses; a web "
            "workload's throughput is its demand (pages over time) whenever the path can "
            "carry it. So the sweeps run a bulk (ns-2 FTP) transfer, and the sweep 'http' runs "
            "our guess of a web workload (pages of 2-8 objects, Pareto sizes of mean 12 KB, "
            "one persistent connection, 1 s mean think time) at 0, 5 and 10 % PER: "
            + "; ".join(parts)
            + ". Without losses the three carry the same with web pages: the pages and their "
            "round trips set the throughput, not the congestion control, so the paper's 'about "
            "1 Mbps, approximately 50% link utilisation' would be a property of its unstated "
            "pages; Figure 3's slow start over 10 s is not a web page's. The PER claims these "
            "points allow (0, 5 and 10 %), judged again on the web pages: changed: "
            + ("; ".join(changed) or "none")
            + ". Unchanged: "
            + ("; ".join(same) or "none")
            + ".",
            "note",
            evidence="Westwood / the better of Reno and SACK with web pages: "
            + ", ".join(leads)
            + f"; {len(changed)} of {len(changed) + len(same)} PER-claim verdicts change "
            "with web pages",
        )
    ]


def _rejudge(m: pd.DataFrame, sweep: str, setups: Sequence[str], label: str) -> tuple[list, list]:
    """The PER sweep's claims judged again on `sweep` (its points as if they were the PER
    sweep's): the verdicts that change and those that do not, as text ("bulk 60 s" against
    `label`)."""
    from .claims import claims

    d = m[m["sweep"] == sweep]
    changed: list[str] = []
    same: list[str] = []
    for setup in setups:
        long = {f.claim: f.holds for f in claims(m[m["sweep"] == "per"], setup)}
        for f in claims(d.assign(sweep="per"), setup):
            before = long.get(f.claim)
            name = f.claim.split(": ", 1)[-1].split(" (")[0]
            if len(name) > 60:
                name = name[:60].rsplit(" ", 1)[0] + "..."
            text = f"{setup}: {name}: {_yn(before)} with the bulk 60 s, {_yn(f.holds)} {label}"
            (same if before == f.holds else changed).append(text)
    return changed, same


def duration(m: pd.DataFrame, setups: Sequence[str]) -> list[Finding]:
    """The run length: the PER sweep's claims judged again on 20 s runs (sweep "per-20s")."""
    if m[m["sweep"] == "per-20s"].empty:
        return []
    changed, same = _rejudge(m, "per-20s", setups, "at 20 s")
    return [
        Finding(
            "The run length: the paper's '15ms - 20ms' and our 60 s",
            None,
            "The paper gives no run length. 'The simulation was run several times within the "
            "range of 15ms - 20ms' cannot be one: 20 ms of a 2 Mbit/s path carries five "
            "packets, and Figure 3 describes a time-out at 3.5 s, slow start until 10 s and "
            "losses again at 20 s, after which 'the transmission continued in this order'. "
            "Read as 15-20 s it would end the runs where Figure 3's story goes on; read as "
            "propagation times it is the range where Figure 6's curves fall; the '15ms' of "
            "Figure 6's text is a propagation time. We run 60 s, and the PER sweep again for "
            "20 s (sweep 'per-20s'), the shortest run Figure 3 allows, and judge the PER "
            "claims on both. Changed at 20 s: "
            + ("; ".join(changed) or "none")
            + ". Unchanged: "
            + ("; ".join(same) or "none")
            + ".",
            "note",
            evidence=f"{len(changed)} of {len(changed) + len(same)} PER-sweep verdicts change "
            "at 20 s",
        )
    ]


def _yn(v: bool | None) -> str:
    return {True: "yes", False: "no", None: "-"}[v]
