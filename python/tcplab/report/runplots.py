"""Figures of one run: the sender's windows over time, the time-sequence diagram and the link
queues. `tcplab run FILE --plot DIR`, `tcplab plot RUN_DIR` and `Result.plot(DIR)` draw them.

Each figure needs a table of the result: the windows need ``trace`` (``output.trace = true``),
with loss marks from ``events``; the time-sequence diagram is drawn from the per-packet log
``packets`` when the run kept it (every segment, its retransmissions and drops, the ACKs) and
else from ``trace`` and ``events`` (the cumulative ACK, retransmissions and drops); the queue
figure needs ``queues`` (``output.queues = true``); the link figure needs ``link_series``
(``output.link_series = "1s"``).

Every count a figure prints is one of the summary's: a connection end's ``retransmissions``
("retransmission (79)") and ``rto_expirations`` ("timeout (14)"), a link direction's
``max_queue_packets`` ("wan:ab, at most 8"); tests/test_figure_numbers.py reads every text
of every figure and compares. Marks with no count in the summary (the segments one
connection lost, which the summary counts per link and not per connection) carry none.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tcplab import errors as _errors

from .plots import ALERT, PAGE_IN, PALETTE, new_figure, save_figure, step_at, styled

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = [
    "run_figures",
    "plot_windows",
    "plot_time_sequence",
    "plot_queues",
    "plot_link_series",
    "draw_run",
]

_LOSS_KINDS = ("drop_error", "drop_queue")
# The event of each retransmitted segment: a fast retransmit or a timeout also logs an event
# of its own ("fast_retransmit", "rto") beside the segment's "retransmit", so counting them
# together counts those segments twice.
_RETX = "retransmit"
_RTO = "rto"
#: Above this many changes of one link direction's queue, the queue figure draws each
#: interval's mean and largest length instead of every change (a solid barcode otherwise).
QUEUE_CHANGES_DRAWN = 3000
#: About this many intervals across the run when the queue is binned.
QUEUE_BINS = 400


def _off(field: str, why: str) -> _errors.TcplabError:
    """The error for a figure whose table the run did not keep: it names the output field."""
    return _errors._invalid(field, False, why, "true")


def _table(traces: Mapping[str, pd.DataFrame], name: str) -> pd.DataFrame | None:
    df = traces.get(name)
    return None if df is None or df.empty else df


def _conns(trace: pd.DataFrame) -> list[tuple[int, int]]:
    """(connection, data-sender end) pairs in the trace, in order."""
    pairs = trace[["conn", "end"]].drop_duplicates()
    return [(int(c), int(e)) for c, e in pairs.itertuples(index=False)]


def _end_name(end: int) -> str:
    return ("client", "server")[end] if end in (0, 1) else f"end {end}"


def _names(result: Any) -> dict[int, str]:
    """Each connection's name by its number in the tables: application i's own is i; the
    connections an `http` application opens per page carry theirs (`conn`, `<app>#<k>`)."""
    apps = result.summary.get("apps", [])
    names = {i: str(a.get("name", i)) for i, a in enumerate(apps)}
    for c in result.summary.get("connections", []):
        if "conn" in c:
            names[int(c["conn"])] = str(c.get("name"))
    return names


@styled
def plot_windows(result: Any) -> Figure:
    """cwnd, ssthresh, the peer's window (rwnd) and the bytes in flight of each connection's
    data sender over time, one panel per connection, with the sender's segments lost on a
    link (x), its retransmissions (|) and its retransmission timeouts (v) marked on the time
    axis."""
    traces = result.traces
    trace = _table(traces, "trace")
    if trace is None:
        raise _off("output.trace", "the windows figure needs the trace (run --plot sets it)")
    events = _table(traces, "events")
    conns = _conns(trace)
    names = _names(result)
    fig, axes = new_figure(len(conns), 1, figsize=(PAGE_IN, 2.3 * len(conns)), squeeze=False)
    for ax, (conn, end) in zip(axes[:, 0], conns, strict=True):
        tr = trace[(trace["conn"] == conn) & (trace["end"] == end)]
        t = tr["time_s"].to_numpy(dtype=float)
        ss = tr["ssthresh"].to_numpy(dtype=float, copy=True)
        ss[~np.isfinite(ss)] = np.nan  # unset until the first loss
        series = (
            ("cwnd", tr["cwnd"].to_numpy(dtype=float), PALETTE[0], "-", 1.2),
            ("ssthresh", ss, PALETTE[2], "--", 1.0),
            ("rwnd", tr["rwnd"].to_numpy(dtype=float), PALETTE[1], ":", 1.0),
            ("flight", tr["flight"].to_numpy(dtype=float), PALETTE[5], "-", 0.7),
        )
        for label, y, color, ls, lw in series:
            ax.step(t, y / 1000.0, where="post", color=color, ls=ls, lw=lw, label=label)
        if events is not None:
            mine = events[(events["conn"] == conn) & (events["end"] == end)]
            lost = mine.loc[mine["kind"].isin(_LOSS_KINDS), "time_s"].to_numpy(dtype=float)
            retx = mine.loc[mine["kind"] == _RETX, "time_s"].to_numpy(dtype=float)
            rto = mine.loc[mine["kind"] == _RTO, "time_s"].to_numpy(dtype=float)
            if len(lost):
                ax.plot(lost, np.zeros(len(lost)), "x", color=ALERT, ms=5, clip_on=False,
                        label="lost on a link")  # fmt: skip
            if len(retx):
                ax.plot(retx, np.zeros(len(retx)), "|", color="#000000", ms=9, clip_on=False,
                        label=f"retransmission ({len(retx)})")  # fmt: skip
            if len(rto):
                ax.plot(rto, np.zeros(len(rto)), "v", color=PALETTE[4], ms=5, clip_on=False,
                        label=f"timeout ({len(rto)})")  # fmt: skip
        name = names.get(conn, str(conn))
        ax.set_title(f"{name}: windows of the data sender ({_end_name(end)})", loc="left")
        ax.set_ylabel("kB")
        ax.set_ylim(bottom=0)
        ax.grid(True)
        # Above the panel, beside its title: inside, it would hide the windows' peaks.
        ax.legend(ncol=4, loc="lower right", bbox_to_anchor=(1.0, 1.0), frameon=False,
                  borderaxespad=0.2)  # fmt: skip
    axes[-1, 0].set_xlabel("time (s)")
    return fig


@styled
def plot_time_sequence(result: Any) -> Figure:
    """Sequence number (relative to the first data byte) against time for each connection's
    data sender: first transmissions, retransmissions, segments lost on a link and the
    cumulative ACK that came back."""
    traces = result.traces
    packets = _table(traces, "packets")
    trace = _table(traces, "trace")
    if packets is None and trace is None:
        raise _off("output.trace", "the time-sequence diagram needs the trace or output.packets")
    if packets is not None:
        # Each connection's data sender: the end that sent the most payload (an FTP client's
        # request is payload too, but small).
        sent = packets[(packets["event"] == "send") & (packets["len"] > 0)]
        volume = sent.groupby(["conn", "from_end"], sort=True)["len"].sum().reset_index()
        top = volume.loc[volume.groupby("conn")["len"].idxmax()]
        conns = [(int(c), int(e)) for c, e in top[["conn", "from_end"]].itertuples(index=False)]
    else:
        assert trace is not None
        conns = _conns(trace)
    names = _names(result)
    fig, axes = new_figure(len(conns), 1, figsize=(PAGE_IN, 2.6 * len(conns)), squeeze=False)
    for ax, (conn, end) in zip(axes[:, 0], conns, strict=True):
        if packets is not None:
            _ts_from_packets(ax, packets, conn, end)
        else:
            assert trace is not None
            _ts_from_trace(ax, trace, _table(traces, "events"), conn, end)
        name = names.get(conn, str(conn))
        ax.set_title(f"{name}: time-sequence of the data sender ({_end_name(end)})", loc="left")
        ax.set_ylabel("sequence (kB)")
        ax.grid(True)
        ax.legend(loc="upper left")
    axes[-1, 0].set_xlabel("time (s)")
    return fig


def _ts_from_packets(ax: Any, packets: pd.DataFrame, conn: int, end: int) -> None:
    mine = packets[packets["conn"] == conn]
    sent = mine[(mine["event"] == "send") & (mine["from_end"] == end) & (mine["len"] > 0)]
    if sent.empty:
        return
    base = float(sent["seq"].min())
    first = sent[sent["tx_count"] == 1]
    again = sent[sent["tx_count"] > 1]
    ax.plot(first["time_s"], (first["seq"] - base) / 1000.0, ".", ms=2, color=PALETTE[0],
            label="sent")  # fmt: skip
    if not again.empty:
        ax.plot(again["time_s"], (again["seq"] - base) / 1000.0, "o", ms=3.5, mfc="none",
                color=PALETTE[4], label=f"retransmission ({len(again)})")  # fmt: skip
    lost = mine[mine["event"].isin(_LOSS_KINDS) & (mine["from_end"] == end) & (mine["len"] > 0)]
    if not lost.empty:
        ax.plot(lost["time_s"], (lost["seq"] - base) / 1000.0, "x", ms=4, color=ALERT,
                label="lost on a link")  # fmt: skip
    acks = mine[(mine["event"] == "recv") & (mine["from_end"] == 1 - end)]
    acks = acks[acks["ack"] >= base]
    if not acks.empty:
        ax.step(acks["time_s"], (acks["ack"] - base) / 1000.0, where="post", lw=0.9,
                color=PALETTE[1], label="ACK received")  # fmt: skip


def _ts_from_trace(
    ax: Any, trace: pd.DataFrame, events: pd.DataFrame | None, conn: int, end: int
) -> None:
    tr = trace[(trace["conn"] == conn) & (trace["end"] == end)]
    acked = tr["ack"].to_numpy(dtype=float)
    base = float(acked[acked > 0].min()) if (acked > 0).any() else 0.0
    ax.step(tr["time_s"], (np.maximum(acked, base) - base) / 1000.0, where="post", lw=1.0,
            color=PALETTE[1], label="received in order (receiver's cumulative ACK)")  # fmt: skip
    if events is None:
        return
    mine = events[(events["conn"] == conn) & (events["end"] == end)]
    retx = mine[(mine["kind"] == _RETX) & (mine["seq"] >= base)]
    if not retx.empty:
        ax.plot(retx["time_s"], (retx["seq"] - base) / 1000.0, "o", ms=3.5, mfc="none",
                color=PALETTE[4], label=f"retransmission ({len(retx)})")  # fmt: skip
    lost = mine[mine["kind"].isin(_LOSS_KINDS) & (mine["seq"] >= base)]
    if not lost.empty:
        ax.plot(lost["time_s"], (lost["seq"] - base) / 1000.0, "x", ms=4, color=ALERT,
                label="lost on a link")  # fmt: skip


def _max_queue(result: Any) -> dict[str, int]:
    """Each link direction's ``max_queue_packets`` from the summary, by ``<link>:<dir>``."""
    out: dict[str, int] = {}
    for link in result.summary.get("links", []):
        for d in ("ab", "ba"):
            value = (link.get(d) or {}).get("max_queue_packets")
            if value is not None:
                out[f"{link.get('name')}:{d}"] = int(value)
    return out


def nice_interval(span: float, bins: int) -> float:
    """The 1-2-5 step (..., 0.1, 0.2, 0.5, 1, 2, ...) nearest above `span` / `bins`."""
    raw = max(span, 1e-9) / max(bins, 1)
    decade = 10.0 ** np.floor(np.log10(raw))
    return float(next(m * decade for m in (1, 2, 5, 10) if m * decade >= raw * (1 - 1e-9)))


def queue_per_interval(
    time_s: np.ndarray, packets: np.ndarray, t_end: float, interval: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The queue length (a step function that is 0 before its first change) over consecutive
    intervals of `interval` seconds up to `t_end`: (interval starts, time-weighted mean,
    largest length in the interval)."""
    t = np.asarray(time_s, dtype=float)
    n = np.asarray(packets, dtype=float)
    nbins = max(1, int(np.ceil(t_end / interval - 1e-9)))
    edges = np.arange(nbins + 1, dtype=float) * interval
    # The step function from 0: value v[k] on [s[k], s[k+1]).
    s = np.concatenate([[0.0], t])
    v = np.concatenate([[0.0], n])
    area = np.concatenate([[0.0], np.cumsum(v[:-1] * np.diff(s))])  # integral up to s[k]
    k = np.clip(np.searchsorted(s, edges, side="right") - 1, 0, len(s) - 1)
    at_edges = area[k] + v[k] * (edges - s[k])
    mean = np.diff(at_edges) / interval
    largest = step_at(s, v, edges[:-1])  # the length in force when the interval begins
    inside = np.searchsorted(edges, t, side="right") - 1
    ok = (inside >= 0) & (inside < nbins)
    np.maximum.at(largest, inside[ok], n[ok])
    return edges[:-1], mean, largest


@styled
def plot_queues(result: Any) -> Figure:
    """Packets waiting in each link direction's queue over time (the frame on the wire not
    counted), one line per direction that ever queued, labelled with the summary's largest
    length. A direction whose queue changed more than `QUEUE_CHANGES_DRAWN` times is drawn
    per interval (about `QUEUE_BINS` across the run): the mean length as a line and the
    largest as a shaded band, which every change would otherwise blacken."""
    queues = _table(result.traces, "queues")
    if queues is None:
        raise _off("output.queues", "the queue figure needs the queue table (run --plot sets it)")
    most = _max_queue(result)
    t_end = float(result.summary.get("sim_time_s") or queues["time_s"].max())
    interval = nice_interval(t_end, QUEUE_BINS)
    fig, ax = new_figure(figsize=(PAGE_IN, 2.6))
    binned = False
    queued = [(k, q) for k, q in queues.groupby("link", sort=False) if int(q["packets"].max())]
    for i, (link, q) in enumerate(queued):
        color = PALETTE[i % len(PALETTE)]
        ls = ("-", "--", ":")[(i // len(PALETTE)) % 3]  # beyond the palette's colours
        label = f"{link}, at most {most[link]}" if str(link) in most else str(link)
        t = q["time_s"].to_numpy(dtype=float)
        n = q["packets"].to_numpy(dtype=float)
        if len(q) > QUEUE_CHANGES_DRAWN:
            binned = True
            starts, mean, largest = queue_per_interval(t, n, t_end, interval)
            edges = np.append(starts, starts[-1] + interval)
            ax.fill_between(edges, np.append(largest, largest[-1]), step="post", color=color,
                            alpha=0.25, lw=0)  # fmt: skip
            ax.step(edges, np.append(mean, mean[-1]), where="post", lw=1.0, color=color, ls=ls,
                    label=label)  # fmt: skip
        else:
            ax.step(np.concatenate([[0.0], t]), np.concatenate([[0.0], n]), where="post",
                    lw=1.0, color=color, ls=ls, label=label)  # fmt: skip
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets queued")
    ax.set_ylim(bottom=0)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.grid(True)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper right")
        if binned:
            ax.set_title(f"per {interval:g} s: mean (line) and largest (shaded)", loc="left")
    else:
        ax.set_title("no link queued a packet in this run", loc="left")
    return fig


@styled
def plot_link_series(result: Any, *, most: int = len(PALETTE)) -> Figure:
    """Per interval, for the `most` link directions that carried the most bytes: throughput,
    mean queuing delay, and frames lost at the queue and to errors (one colour each: at most
    as many as the palette has)."""
    ls = _table(result.traces, "link_series")
    if ls is None:
        raise _off("output.link_series", 'the link figure needs output.link_series, e.g. "1s"')
    busiest = ls.groupby("link", sort=False)["bytes_on_wire"].sum()
    links = [k for k in busiest.sort_values(ascending=False, kind="stable").index[:most]
             if busiest[k] > 0]  # fmt: skip
    fig, axes = new_figure(3, 1, figsize=(PAGE_IN, 5.4), sharex=True)
    for i, link in enumerate(links):
        d = ls[ls["link"] == link]
        t = d["time_s"].to_numpy(dtype=float)
        color = PALETTE[i % len(PALETTE)]
        axes[0].step(t, d["bits_per_s"] / 1e6, where="post", color=color, lw=1, label=link)
        axes[1].step(t, d["mean_queue_delay_s"] * 1e3, where="post", color=color, lw=1)
        axes[2].step(t, d["frames_dropped_queue"], where="post", color=color, lw=1)
        axes[2].step(t, d["frames_dropped_error"], where="post", color=color, lw=1, ls=":")
    axes[0].set_ylabel("Mbit/s")
    axes[1].set_ylabel("queuing delay (ms)")
    axes[2].set_ylabel("drops (queue -, error :)")
    axes[2].set_xlabel("time (s), interval start")
    for ax in axes:
        ax.set_ylim(bottom=0)
        ax.grid(True)
    if links:
        axes[0].legend(ncol=4, loc="lower right", bbox_to_anchor=(1.0, 1.0), frameon=False,
                       borderaxespad=0.2)  # fmt: skip
    else:
        axes[0].set_title("no link carried a frame in this run", loc="left")
    return fig


def draw_run(result: Any) -> dict[str, Figure]:
    """Every figure the result's tables allow, by name: ``windows``, ``time_sequence``,
    ``queues``, ``links``. Raises InvalidValueError when it has none of the tables they need."""
    traces = result.traces
    figs: dict[str, Figure] = {}
    if _table(traces, "trace") is not None:
        figs["windows"] = plot_windows(result)
    if _table(traces, "packets") is not None or _table(traces, "trace") is not None:
        figs["time_sequence"] = plot_time_sequence(result)
    if "queues" in traces:
        figs["queues"] = plot_queues(result)
    if "link_series" in traces:
        figs["links"] = plot_link_series(result)
    if not figs:
        raise _off(
            "output.trace",
            "the run kept no trace, per-packet log or queue table to draw; run it with "
            "`tcplab run FILE --plot DIR`, or set output.trace and output.queues",
        )
    return figs


def run_figures(
    result: Any, outdir: str | Path, *, formats: tuple[str, ...] = ("png", "svg")
) -> dict[str, dict[str, Path]]:
    """Draw `draw_run`'s figures into `outdir` as <name>.png and <name>.svg (`formats`: also
    ``pdf``); return the paths by figure and format."""
    return {
        name: save_figure(fig, outdir, name, formats=formats)
        for name, fig in draw_run(result).items()
    }
