"""The mechanisms behind `modular-ber`'s verdicts, measured on traced runs.

Seed 001 explains its results by what happens inside a recovery phase: RenoCC "does not allow
new data to be transmitted during NewRenoED's long loss recovery phase", NewRenoCC "can send new
data packets during NewRenoED's transient phase", and TahoeCC slow-starts after every loss. The
study traces the first seed of a few (RTT, BER, pair) cases with their event and packet logs,
and this module measures those phases: how many, how long in round trips, what was resent, how
much new data left inside them, the timeouts, and the segments the receiver got twice (TahoeCC's
go-back-N). The numbers go into a table, a figure and the findings' text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from tcplab.report.plots import PALETTE

from .._kit import finish, stacked

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tcplab import Result

#: (RTT ms, BER exponent, cc, lr) traced with their packet log. Claim (c)'s points at the
#: lowest BER: the pair the paper calls worst, TCP NewReno beside it, and TahoeCC + DupAckED
#: (our worst at 200 ms, claim (a)); and claim (b)'s largest gaps at high BER: NewRenoED and
#: SackED with NewRenoCC at 50 ms, BER 10^-4.5.
MECHANISM_CASES: tuple[tuple[int, float, str, str], ...] = (
    (50, -4.5, "newreno", "newreno"),
    (50, -4.5, "newreno", "sack"),
    (200, -8.0, "reno", "newreno"),
    (200, -8.0, "newreno", "newreno"),
    (200, -8.0, "tahoe", "dupack"),
    (500, -8.0, "reno", "newreno"),
    (500, -8.0, "newreno", "newreno"),
    (500, -8.0, "tahoe", "dupack"),
)


@dataclass(frozen=True)
class Phase:
    """One recovery phase of the data sender."""

    start: float
    end: float
    #: one past the highest byte sent before it began
    point: int
    retransmissions: int
    new_segments: int
    #: new segments sent from the first ACK of new data (the first partial ACK) to the end
    new_after_first_ack: int
    partial_acks: int
    #: RenoCC deflated to ssthresh inside it (the sender's `cc_recovery_exit` event)
    deflated: bool
    #: ssthresh set at its start (bytes), from the fast retransmit's event
    ssthresh: int
    #: a timeout ended it (not the error detection's own rule)
    by_timeout: bool


def sender_end(r: Result) -> int:
    """The connection end that sent the data (the one with the most payload sends)."""
    pk = r.traces["packets"]
    d = pk[(pk["event"] == "send") & (pk["len"] > 0)]
    return int(d["from_end"].value_counts().idxmax())


def _field(detail: str, name: str) -> int:
    """The number after `name` in an event's detail ("flight 1 ssthresh 2 cwnd 3"); 0 when the
    detail has none, or says "unlimited" (an ssthresh no congestion event set, as BBR's)."""
    words = detail.split()
    value = words[words.index(name) + 1] if name in words[:-1] else ""
    return int(value) if value.isdigit() else 0


def phases(r: Result) -> list[Phase]:
    """Every recovery phase of the data sender, from its fast retransmit to the event that
    ended it (`recovery_exit`, or a timeout)."""
    end = sender_end(r)
    ev = r.traces["events"]
    ev = ev[ev["end"] == end].sort_values("time_s", kind="stable")
    pk = r.traces["packets"]
    sends = pk[(pk["event"] == "send") & (pk["from_end"] == end) & (pk["len"] > 0)]
    acks = pk[(pk["event"] == "recv") & (pk["from_end"] != end)]
    t_send = sends["time_s"].to_numpy(float)
    s_start = sends["seq"].to_numpy(np.int64)
    s_end = s_start + sends["len"].to_numpy(np.int64)
    s_tx = sends["tx_count"].to_numpy(np.int64)
    t_ack = acks["time_s"].to_numpy(float)
    a_ack = acks["ack"].to_numpy(np.int64)
    out = []
    rows = list(ev.itertuples())
    for i, e in enumerate(rows):
        if e.kind != "fast_retransmit":
            continue
        stop = next(
            (x for x in rows[i + 1 :] if x.kind in ("recovery_exit", "rto", "fast_retransmit")),
            None,
        )
        t1 = float(stop.time_s) if stop is not None else float(t_send.max())
        t0 = float(e.time_s)
        before = t_send < t0
        point = int(s_end[before].max()) if before.any() else 0
        inside = (t_send >= t0) & (t_send < t1)
        in_ack = (t_ack > t0) & (t_ack < t1)
        first = in_ack & (a_ack > e.seq)
        t_first = float(t_ack[first].min()) if first.any() else t1
        deflated = bool(
            ((ev["kind"] == "cc_recovery_exit") & (ev["time_s"] > t0) & (ev["time_s"] <= t1)).any()
        )
        out.append(
            Phase(
                start=t0,
                end=t1,
                point=point,
                retransmissions=int((inside & (s_tx > 1)).sum()),
                new_segments=int((inside & (s_tx == 1) & (s_start >= point)).sum()),
                new_after_first_ack=int(
                    (inside & (t_send >= t_first) & (s_tx == 1) & (s_start >= point)).sum()
                ),
                partial_acks=int(len(np.unique(a_ack[in_ack & (a_ack > e.seq) & (a_ack < point)]))),
                deflated=deflated,
                ssthresh=_field(str(e.detail), "ssthresh"),
                by_timeout=stop is not None and stop.kind == "rto",
            )
        )
    return out


def measure(r: Result, rtt_s: float, mss: int) -> dict[str, Any]:
    """The numbers the findings quote for one traced run (`mss`: payload bytes of a segment)."""
    ph = phases(r)
    s = r.summary
    end = sender_end(r)
    who = "client" if end == 0 else "server"
    other = "server" if who == "client" else "client"
    app = s["apps"][0]
    elapsed = float(app.get("end_s") or s.get("sim_time_s") or np.nan) - float(
        app.get("start_s") or 0
    )
    lengths = np.array([(p.end - p.start) / rtt_s for p in ph]) if ph else np.zeros(0)
    return {
        "throughput_Bps": float(app.get("bytes_received") or 0) / elapsed if elapsed > 0 else 0.0,
        "phases": len(ph),
        "phase_rtts_mean": float(lengths.mean()) if len(lengths) else 0.0,
        "phase_rtts_max": float(lengths.max()) if len(lengths) else 0.0,
        "time_in_recovery": float(sum(p.end - p.start for p in ph) / elapsed) if elapsed else 0.0,
        "retx_in_phases": sum(p.retransmissions for p in ph),
        "partial_acks": sum(p.partial_acks for p in ph),
        "new_in_phases": sum(p.new_segments for p in ph),
        "new_after_first_ack": sum(p.new_after_first_ack for p in ph),
        "deflated_phases": sum(p.deflated for p in ph),
        "phases_cut_by_rto": sum(p.by_timeout for p in ph),
        "min_ssthresh_segments": min((p.ssthresh for p in ph), default=0) / mss,
        "after_last_phase_s": (elapsed + float(app.get("start_s") or 0) - ph[-1].end)
        if ph
        else 0.0,
        "rto": int(s["connections"][0][who].get("rto_expirations", 0)),
        "retransmissions": int(s["connections"][0][who].get("retransmissions", 0)),
        "duplicates_at_receiver": int(s["connections"][0][other].get("duplicate_segments", 0)),
    }


def mechanism_rows(
    traced: Mapping[str, Result],
    key: Any,
    cases: Sequence[tuple[int, float, str, str]],
    mss: int,
) -> list[dict[str, Any]]:
    """`measure` for every traced mechanism case present (`key(rtt, exp, cc, lr)` names a
    case)."""
    rows = []
    for rtt, e, cc, lr in cases:
        r = traced.get(key(rtt, e, cc, lr))
        if r is None or "packets" not in r.traces:
            continue
        rows.append({"rtt_ms": rtt, "ber_exp": e, "cc": cc, "lr": lr, **measure(r, rtt / 1e3, mss)})
    return rows


def fig_phase(traced: Mapping[str, Result], titles: Sequence[tuple[str, str]]) -> Figure:
    """Time-sequence diagrams of the longest recovery phase of each run (`titles`: case key
    and label): new data and retransmissions sent, the cumulative ACK, the phase shaded."""
    fig, axes = stacked(len(titles), height=2.9, pad=0.4, sharex=False)
    for ax, (k, label) in zip(axes, titles, strict=True):
        r = traced[k]
        ph = phases(r)
        if not ph:
            finish(ax, title=f"{label}: no recovery phase", grid="none")
            continue
        p = max(ph, key=lambda x: x.end - x.start)
        pad = 0.25 * (p.end - p.start) + 0.05
        lo, hi = p.start - pad, p.end + pad
        end = sender_end(r)
        pk = r.traces["packets"]
        w = pk[(pk["time_s"] >= lo) & (pk["time_s"] <= hi)]
        s = w[(w["event"] == "send") & (w["from_end"] == end) & (w["len"] > 0)]
        a = w[(w["event"] == "recv") & (w["from_end"] != end)]
        kb = 1e3
        new = s[s["tx_count"] == 1]
        rtx = s[s["tx_count"] > 1]
        ax.axvspan(p.start, p.end, color="#EEEEEE", zorder=0)
        ax.plot(new["time_s"], new["seq"] / kb, ".", ms=2.5, color=PALETTE[0], label="new data")
        ax.plot(rtx["time_s"], rtx["seq"] / kb, "x", ms=6, color="#CC0000",
                label="retransmission")  # fmt: skip
        ax.step(a["time_s"], a["ack"] / kb, where="post", lw=0.9, color=PALETTE[2],
                label="cumulative ACK")  # fmt: skip
        ax.axhline(p.point / kb, color="#555555", ls=":", lw=0.8)
        ax.text(lo, p.point / kb, " recovery point", fontsize=7, va="bottom")
        finish(
            ax,
            ylabel="sequence (kB)",
            title=f"{label}: phase of {p.end - p.start:.2f} s, {p.retransmissions} "
            f"retransmissions, {p.new_segments} new segments inside",
            xlim=(lo, hi),
            legend=7,
            loc="upper left",
        )
    axes[-1].set_xlabel("time (s)")
    return fig


def table_frame(rows: Sequence[Mapping[str, Any]], pair_name: Any) -> pd.DataFrame:
    """The mechanism table: one row per traced run."""
    out = []
    for m in rows:
        out.append(
            {
                "pair": pair_name(m["cc"], m["lr"]),
                "RTT ms": m["rtt_ms"],
                "BER": f"1e{m['ber_exp']:g}",
                "throughput kB/s": round(m["throughput_Bps"] / 1e3, 1),
                "phases": m["phases"],
                "mean phase (RTTs)": round(m["phase_rtts_mean"], 1),
                "longest (RTTs)": round(m["phase_rtts_max"], 1),
                "time in recovery %": round(100 * m["time_in_recovery"], 1),
                "retransmissions": m["retransmissions"],
                "new segments in phases": m["new_in_phases"],
                "... after the first partial ACK": m["new_after_first_ack"],
                "RTOs": m["rto"],
                "phases cut by RTO": m["phases_cut_by_rto"],
                "lowest ssthresh (segments)": round(m["min_ssthresh_segments"], 1),
                "segments received twice": m["duplicates_at_receiver"],
            }
        )
    return pd.DataFrame(out)
