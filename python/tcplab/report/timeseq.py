"""The packet exchange of one connection, from the simulator's per-packet log
(``[output] packets = true``), and the diagrams drawn from it.

`packet_exchange` pairs each packet's ``send`` with its ``recv`` or drop (by ``uid``);
`classify_exchange` labels every packet (data, retransmission, ACK, duplicate ACK, window
update, SYN, FIN) the way RFC 5681 section 2 defines a duplicate ACK: no data, no SYN/FIN, the
same acknowledgment number and the same advertised window as the previous ACK from that end;
`first_loss_window` cuts out the first lost data segment and its recovery, as in Figure 10 of
Sarkar, Ammann, Zabir 2022.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "SYN",
    "FIN",
    "ACK",
    "LossWindow",
    "packet_exchange",
    "classify_exchange",
    "first_loss_window",
    "plot_ladder",
    "plot_time_sequence",
]

# TCP header flag bits as the packet log writes them (RFC 793 section 3.1).
FIN, SYN, RST, PSH, ACK = 1, 2, 4, 8, 16

_COLUMNS = ["uid", "from_end", "flags", "seq", "ack", "len", "wnd", "tx_count", "ip_bytes"]


def packet_exchange(packets: pd.DataFrame, conn: int = 0) -> pd.DataFrame:
    """One row per packet of connection `conn`, in send order: the header fields, ``t_send``,
    ``t_recv`` (NaN when the packet was lost), ``t_drop`` and ``drop_place`` (where it was
    lost: ``link:dir``, empty when it arrived) and ``dropped``."""
    p = packets[packets["conn"] == conn]
    sends = p[p["event"] == "send"]
    first = sends.drop_duplicates("uid", keep="first").set_index("uid")
    ex = first[[c for c in _COLUMNS if c != "uid"]].copy()
    ex["t_send"] = first["time_s"]
    recv = p[p["event"] == "recv"].drop_duplicates("uid", keep="last").set_index("uid")
    drops = p[p["event"].isin(["drop_error", "drop_queue"])].drop_duplicates("uid")
    drops = drops.set_index("uid")
    ex["t_recv"] = recv["time_s"].reindex(ex.index)
    ex["t_drop"] = drops["time_s"].reindex(ex.index)
    ex["drop_place"] = drops["place"].reindex(ex.index).fillna("").astype(str)
    ex["drop_kind"] = drops["event"].reindex(ex.index).fillna("").astype(str)
    ex["dropped"] = ex["t_drop"].notna()
    ex = ex.reset_index().sort_values(["t_send", "uid"], kind="stable").reset_index(drop=True)
    for col in ("from_end", "flags", "seq", "ack", "len", "wnd", "tx_count", "ip_bytes"):
        ex[col] = ex[col].astype(np.int64)
    return ex


def classify_exchange(ex: pd.DataFrame) -> pd.DataFrame:
    """A copy of `ex` with ``kind`` (syn, fin, data, retransmission, ack, dupack,
    window_update) and ``dup_n`` (1, 2, 3 ... for the n-th duplicate of an ACK, else 0)."""
    out = ex.copy()
    kinds: list[str] = []
    dup_n: list[int] = []
    last: dict[int, tuple[int, int]] = {}  # end -> (ack, wnd) of its previous ACK
    run: dict[int, int] = {}
    for end, flags, ack, length, wnd, tx in zip(
        out["from_end"],
        out["flags"],
        out["ack"],
        out["len"],
        out["wnd"],
        out["tx_count"],
        strict=True,
    ):
        end = int(end)
        prev = last.get(end)
        n = 0
        if flags & SYN:
            kind = "syn"
        elif flags & FIN:
            kind = "fin"
        elif length > 0:
            kind = "retransmission" if tx > 1 else "data"
        elif prev is not None and prev[0] == ack and prev[1] == wnd:
            kind = "dupack"
            n = run.get(end, 0) + 1
        elif prev is not None and prev[0] == ack:
            kind = "window_update"
        else:
            kind = "ack"
        if flags & ACK:
            if prev is None or prev[0] != ack or kind == "window_update":
                run[end] = 0
            if kind == "dupack":
                run[end] = n
            last[end] = (int(ack), int(wnd))
        kinds.append(kind)
        dup_n.append(n)
    out["kind"] = pd.Series(kinds, index=out.index, dtype="str")
    out["dup_n"] = np.asarray(dup_n, dtype=np.int64)
    return out


@dataclass
class LossWindow:
    """The first lost data segment of a sender and its recovery."""

    exchange: pd.DataFrame  # classified rows inside [t_start, t_end]
    lost_seq: int
    t_lost_send: float
    t_drop: float
    t_retransmit: float  # NaN if never retransmitted in the log
    dupacks_before_retransmit: int  # duplicate ACKs for lost_seq the sender had received
    recovery: str  # "fast retransmit" (>= 3 duplicate ACKs) or "timeout"
    t_recovered: float  # the sender receives the first ACK above lost_seq
    t_start: float
    t_end: float
    rtt_s: float
    sender: int

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k != "exchange"}
        return {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in d.items()}


def first_loss_window(
    ex: pd.DataFrame,
    *,
    sender: int = 1,
    before_rtts: float = 1.5,
    after_rtts: float = 1.0,
    dupthresh: int = 3,
) -> LossWindow | None:
    """The first data segment `sender` lost, its retransmission and recovery, and the packets
    of the exchange from `before_rtts` RTTs before the loss to `after_rtts` RTTs after the
    sender learns of the recovery. None if `sender` lost no data segment."""
    c = ex if "kind" in ex.columns else classify_exchange(ex)
    data = c[(c["from_end"] == sender) & (c["len"] > 0)]
    lost = data[data["dropped"]]
    if lost.empty:
        return None
    first = lost.iloc[0]
    seq = int(first["seq"])
    rtt = _rtt_estimate(c, sender)
    rtx = data[(data["seq"] == seq) & (data["tx_count"] > 1)]
    t_rtx = float(rtx["t_send"].iloc[0]) if not rtx.empty else float("nan")
    acks = c[(c["from_end"] != sender) & (c["flags"] & ACK > 0)]
    dups = acks[(acks["kind"] == "dupack") & (acks["ack"] == seq)]
    n_dup = int((dups["t_recv"] <= t_rtx).sum()) if not np.isnan(t_rtx) else int(len(dups))
    covering = acks[(acks["ack"] > seq) & acks["t_recv"].notna()]
    covering = covering[covering["t_send"] >= float(first["t_send"])]
    t_rec = float(covering["t_recv"].min()) if not covering.empty else float("nan")
    t_start = float(first["t_send"]) - before_rtts * rtt
    t_last = t_rec if not np.isnan(t_rec) else (t_rtx if not np.isnan(t_rtx) else first["t_send"])
    t_end = float(t_last) + after_rtts * rtt
    inside = c[(c["t_send"] >= t_start) & (c["t_send"] <= t_end)].reset_index(drop=True)
    return LossWindow(
        exchange=inside,
        lost_seq=seq,
        t_lost_send=float(first["t_send"]),
        t_drop=float(first["t_drop"]),
        t_retransmit=t_rtx,
        dupacks_before_retransmit=n_dup,
        recovery="fast retransmit" if n_dup >= dupthresh else "timeout",
        t_recovered=t_rec,
        t_start=t_start,
        t_end=t_end,
        rtt_s=rtt,
        sender=sender,
    )


def _rtt_estimate(c: pd.DataFrame, sender: int) -> float:
    """Median one-way delay of the sender's packets plus that of the other end's."""
    ok = c[c["t_recv"].notna()]
    there = (ok["t_recv"] - ok["t_send"])[ok["from_end"] == sender]
    back = (ok["t_recv"] - ok["t_send"])[ok["from_end"] != sender]
    if there.empty or back.empty:
        return 0.0
    return float(there.median() + back.median())


# ----------------------------------------------------------------------------------------------
# Drawing

_KIND_STYLE = {
    "data": ("#0072B2", "-", 1.0),
    "retransmission": ("#D55E00", "-", 2.2),
    "ack": ("#009E73", "-", 1.0),
    "dupack": ("#E69F00", "-", 1.6),
    "window_update": ("#56B4E9", "--", 1.0),
    "syn": ("#000000", "-", 1.0),
    "fin": ("#000000", "-", 1.0),
}


def plot_ladder(ax: Any, w: LossWindow, *, mss: int = 1460, names=("client", "server")) -> None:
    """A ladder (message sequence) diagram of `w`: the sender on the left, the receiver on
    the right, time running downwards, one arrow per packet; a lost packet ends in a cross
    where it was dropped; duplicate ACKs are numbered {1}, {2}, ...; the retransmission is
    drawn thick and red."""
    ex = w.exchange
    xs, xr = 0.0, 1.0  # sender, receiver
    one_way = max(w.rtt_s / 2, 1e-9)
    labels: dict[float, list[tuple[float, str, str, str]]] = {xs: [], xr: []}
    for _, r in ex.iterrows():
        kind = str(r["kind"])
        color, ls, lw = _KIND_STYLE.get(kind, ("#777777", "-", 1.0))
        from_sender = int(r["from_end"]) == w.sender
        x0, x1 = (xs, xr) if from_sender else (xr, xs)
        t0 = float(r["t_send"])
        if bool(r["dropped"]):
            frac = min(max((float(r["t_drop"]) - t0) / one_way, 0.15), 0.85)
            xe = x0 + (x1 - x0) * frac
            te = float(r["t_drop"])
            ax.plot([x0, xe], [t0, te], color=color, ls=ls, lw=lw)
            ax.plot([xe], [te], marker="x", color="#CC0000", ms=10, mew=2.5)
            ax.annotate(
                "lost",
                (xe, te),
                xytext=(7, -7),
                textcoords="offset points",
                color="#CC0000",
                fontsize=8,
                va="center",
            )
        else:
            t1 = float(r["t_recv"])
            ax.annotate(
                "",
                xy=(x1, t1),
                xytext=(x0, t0),
                arrowprops={
                    "arrowstyle": "-|>",
                    "color": color,
                    "lw": lw,
                    "ls": ls,
                    "shrinkA": 0,
                    "shrinkB": 0,
                },
            )
        if int(r["len"]) > 0:
            text = f"seq {int(r['seq'])}" + (" (retx)" if kind == "retransmission" else "")
        else:
            text = f"ack {int(r['ack'])}"
            if kind == "dupack":
                text += f" {{{int(r['dup_n'])}}}"
            elif kind == "window_update":
                text += f" wnd {int(r['wnd'])}"
        labels[x0].append((t0, text, color, "right" if x0 == xs else "left"))
    # Packets sent at (nearly) the same instant would print on top of each other: push each
    # label down to at least one text line below the previous one on its side (the paper's
    # Figure 10 is "stretched" for the same reason).
    height_pt = max(ax.figure.get_size_inches()[1] * 72 * 0.85, 1.0)
    gap = (w.t_end - w.t_start) * 8.5 / height_pt
    for x, items in labels.items():
        last = -np.inf
        for t, text, color, ha in sorted(items, key=lambda i: i[0]):
            y = max(t, last + gap)
            last = y
            dx = -0.02 if ha == "right" else 0.02
            ax.text(x + dx, y, text, ha=ha, va="center", fontsize=7, color=color)
            if y - t > gap / 2:
                ax.plot([x, x + dx * 0.8], [t, y], color=color, lw=0.5)
    ax.axvline(xs, color="#444444", lw=2)
    ax.axvline(xr, color="#444444", lw=2)
    ax.set_xlim(-0.45, 1.45)
    ax.set_ylim(w.t_end, w.t_start)
    ax.set_xticks([xs, xr], [names[w.sender], names[1 - w.sender]])
    ax.xaxis.tick_top()
    ax.set_ylabel("time (s)")
    for side in ("right", "bottom", "left"):
        ax.spines[side].set_visible(False)


def plot_time_sequence(ax: Any, w: LossWindow, *, mss: int = 1460) -> None:
    """A time-sequence diagram at the sender: data sent (sequence number, in segments),
    ACKs received (acknowledged sequence), the loss, duplicate ACKs and the retransmission."""
    ex = w.exchange
    seg0 = w.lost_seq

    def segs(v: pd.Series) -> pd.Series:
        return (v.astype(float) - seg0) / mss

    mine = ex[(ex["from_end"] == w.sender) & (ex["len"] > 0)]
    for kind, marker, color, label in (
        ("data", "s", "#0072B2", "segment sent"),
        ("retransmission", "D", "#D55E00", "retransmission"),
    ):
        d = mine[mine["kind"] == kind]
        if not d.empty:
            ax.scatter(
                d["t_send"], segs(d["seq"]), marker=marker, s=22, color=color, label=label, zorder=3
            )
    lost = mine[mine["dropped"]]
    if not lost.empty:
        ax.scatter(
            lost["t_send"],
            segs(lost["seq"]),
            marker="x",
            s=70,
            color="#CC0000",
            label="lost",
            zorder=4,
            linewidths=2,
        )
    acks = ex[(ex["from_end"] != w.sender) & ex["t_recv"].notna() & (ex["len"] == 0)]
    for kind, marker, color, label in (
        ("ack", "o", "#009E73", "ACK received"),
        ("window_update", "^", "#56B4E9", "window update"),
        ("dupack", "o", "#E69F00", "duplicate ACK"),
    ):
        d = acks[acks["kind"] == kind]
        if not d.empty:
            ax.scatter(
                d["t_recv"],
                segs(d["ack"]),
                marker=marker,
                s=18,
                color=color,
                label=label,
                zorder=3,
                facecolors="none" if kind == "ack" else color,
            )
    if not np.isnan(w.t_retransmit):
        ax.axvline(w.t_retransmit, color="#D55E00", lw=0.8, ls=":")
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"sequence - {seg0} (segments of {mss} B)")
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
