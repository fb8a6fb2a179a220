"""A run's summary as tables: the rows `Result.table()` (and so `tcplab run`) prints and the
notebook view draws, from the summary dict alone.

* `cell`: one value as table text (``-`` for a missing one, floats to 6 significant digits);
* `counter_tables`: the connection and link counters as (title, headers, rows of raw values),
  one row per connection end and per link direction;
* `summary_table`: the whole summary (applications, connections, links) as a rich renderable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["CONN_COUNTERS", "LINK_COUNTERS", "cell", "counter_tables", "summary_table"]

# Counters shown by `Result.table()`: (heading, candidate keys in the summary).
CONN_COUNTERS: list[tuple[str, tuple[str, ...]]] = [
    ("segments", ("segments_sent", "segments")),
    ("data segs", ("data_segments_sent", "data_segments")),
    ("retrans", ("retransmissions", "retransmits")),
    ("fast retx", ("fast_retransmits", "fast_retransmissions")),
    ("RTOs", ("rto_expirations", "timeouts")),
    ("dup ACKs", ("dupacks_received", "dup_acks_received")),
]
LINK_COUNTERS: list[tuple[str, tuple[str, ...]]] = [
    ("frames sent", ("frames_sent",)),
    ("dropped (error)", ("frames_dropped_error",)),
    ("dropped (queue)", ("frames_dropped_queue",)),
    ("bytes on wire", ("bytes_on_wire",)),
]


def cell(v: Any) -> str:
    """One value as table text."""
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _si(x: float, unit: str) -> str:
    """`x` with an SI prefix (k, M, G) and `unit`."""
    for factor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= factor:
            return f"{x / factor:.3f} {prefix}{unit}"
    return f"{x:.3g} {unit}"


def _first(d: Mapping[str, Any], *keys: str) -> Any:
    for k in keys:
        if k in d:
            return d[k]
    return None


def counter_tables(summary: Mapping[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """The summary's connection and link tables as (title, headers, rows of raw values): one
    row per connection end and per link direction. `Result.table` and the notebook view draw
    the same rows."""
    conns = [
        [c.get("name"), end, *(_first(ctr, *keys) for _, keys in CONN_COUNTERS),
         ctr.get("end_reason")]
        for c in summary.get("connections", [])
        for end in ("client", "server")
        for ctr in [c.get(end) or {}]
    ]  # fmt: skip
    links = [
        [link.get("name"), d, *(_first(ctr, *keys) for _, keys in LINK_COUNTERS)]
        for link in summary.get("links", [])
        for d in ("ab", "ba")
        for ctr in [link.get(d) or {}]
    ]
    return [
        ("Connections", ["connection", "end", *(h for h, _ in CONN_COUNTERS), "how it ended"],
         conns),
        ("Links", ["link", "dir", *(h for h, _ in LINK_COUNTERS)], links),
    ]  # fmt: skip


def summary_table(s: Mapping[str, Any]) -> Any:
    """A rich renderable of a run's summary: applications, connections, links."""
    from rich.console import Group
    from rich.table import Table

    head = Table.grid(padding=(0, 2))
    head.add_row(
        f"[bold]tcplab {s.get('tcplab_version', '?')}[/]",
        f"seed {s.get('seed', '?')}",
        f"simulated {cell(s.get('sim_time_s'))} s",
        f"{cell(s.get('events'))} events",
    )

    apps = Table(title="Applications", title_justify="left")
    for col in ("app", "kind", "completed", "bytes delivered", "response time", "throughput"):
        apps.add_column(col, justify="left" if col in ("app", "kind") else "right")
    for a in s.get("apps", []):
        rt, thr = a.get("response_time_s"), a.get("throughput_Bps")
        done = bool(a.get("completed"))
        got, size = a.get("bytes_received"), a.get("bytes")
        delivered = cell(got if got is not None else size)
        if not done and got is not None and isinstance(size, int) and size > 0:
            delivered = f"{got} of {size} ({100 * got / size:.1f} %)"
        thr_text = "-" if thr is None else _si(8 * thr, "bit/s")
        if not done and thr is not None:
            thr_text = f"partial: {thr_text}"  # delivered bytes / time until the stop
        apps.add_row(
            str(a.get("name", "?")),
            str(a.get("kind", "?")),
            "yes" if done else "no",
            delivered,
            "-" if rt is None else f"{rt:.4f} s",
            thr_text,
        )

    counters = {h for h, _ in CONN_COUNTERS + LINK_COUNTERS}
    tables = []
    for title, headers, rows in counter_tables(s):
        t = Table(title=title, title_justify="left")
        for h in headers:
            t.add_column(h, justify="right" if h in counters else "left")
        for row in rows:
            t.add_row(*(cell(v) for v in row))
        tables.append(t)
    return Group(head, apps, *tables)
