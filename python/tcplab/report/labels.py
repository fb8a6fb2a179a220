"""A human label and a unit for every column a figure plots: the flattened summary's columns
(``apps.ftp.throughput_Bps`` -> "ftp throughput (Mbit/s)") and the scenario's fields a sweep
varies (``links.wan.ab.error.p`` -> "wan:ab loss probability", ``links.wan.rate`` ->
"wan rate (Mbit/s)").

A summary column's quantity and unit come from its key (the table `_SUMMARY` below, the
suffix ``_s``, ``_Bps`` or ``_bytes`` for the rest); a scenario field's from the scenario
format's own field list (`tcplab.schema.fields`: its type and unit), with a short name for
the fields one sweeps most. Values are stored in SI units (seconds, bytes, bit/s; a
throughput in bytes/s), and `axis` picks the unit a reader takes in at a glance (Mbit/s,
not 1250000 B/s; ms below a second), or the one asked for.

>>> axis("apps.ftp.throughput_Bps", [1.2e5, 2.5e5]).text
'ftp throughput (Mbit/s)'
>>> axis("links.wan.ab.error.p").text
'wan:ab loss probability'
>>> axis("apps.ftp.response_time_s", [0.2, 0.4], unit="ms").factor
1000.0
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tcplab import errors as _errors

__all__ = ["Axis", "Quantity", "axis", "quantity", "UNITS"]

#: Each dimension's units: name -> how many SI units (s, byte, bit/s, 1) one of it is, in
#: the order `axis` tries them (the first whose values reach 1 wins, from the largest).
UNITS: dict[str, dict[str, float]] = {
    "time": {"h": 3600.0, "min": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9},
    "bytes": {
        "GB": 1e9,
        "MB": 1e6,
        "kB": 1e3,
        "B": 1.0,
        "GiB": 2.0**30,
        "MiB": 2.0**20,
        "KiB": 2.0**10,
        "bytes": 1.0,
    },  # fmt: skip
    "rate": {
        "Gbit/s": 1e9,
        "Mbit/s": 1e6,
        "kbit/s": 1e3,
        "bit/s": 1.0,
        "GB/s": 8e9,
        "MB/s": 8e6,
        "kB/s": 8e3,
        "B/s": 8.0,
    },  # fmt: skip
    "fraction": {"%": 0.01, "1": 1.0},
    "probability": {"%": 0.01, "1": 1.0},
}
# The units `axis` chooses from by itself (the others only when asked for).
_AUTO = {
    "time": ("s", "ms", "us"),
    "bytes": ("GB", "MB", "kB", "B"),
    "rate": ("Gbit/s", "Mbit/s", "kbit/s", "bit/s"),
}
# How many of a unit the largest value must reach for `axis` to choose it: a segment of
# 1460 bytes reads better as such than as 1.46 kB.
_REACH = {"bytes": 10.0}
_SHOWN = {"us": "µs", "1": ""}


@dataclass(frozen=True)
class Quantity:
    """What a column holds: its `name` ("throughput"), the `owner` it belongs to ("ftp",
    "wan:ab", "ftp server"; empty for a scenario-wide value), its dimension (a key of `UNITS`,
    or "" for a count or a text) with `si`, the SI units one stored unit is (8 for bytes/s as
    bit/s), and `unit`, the word of a dimensionless count ("packets")."""

    name: str
    owner: str = ""
    dimension: str = ""
    si: float = 1.0
    unit: str = ""

    @property
    def label(self) -> str:
        return f"{self.owner} {self.name}".strip()


@dataclass(frozen=True)
class Axis:
    """An axis's `text` ("ftp throughput (Mbit/s)"); a stored value times `factor` is the
    value drawn, in `unit`."""

    text: str
    factor: float = 1.0
    unit: str = ""


# The summary's keys (`tcplab.flatten_summary`): key -> (name, dimension, si, unit word).
_SUMMARY: dict[str, tuple[str, str, float, str]] = {
    # the run
    "sim_time_s": ("simulated time", "time", 1.0, ""),
    "events": ("events", "", 1.0, ""),
    "seed": ("seed", "", 1.0, ""),
    # an application
    "bytes": ("size", "bytes", 1.0, ""),
    "bytes_received": ("bytes received", "bytes", 1.0, ""),
    "start_s": ("start", "time", 1.0, ""),
    "end_s": ("end", "time", 1.0, ""),
    "completed": ("completed", "fraction", 1.0, ""),
    "response_time_s": ("response time", "time", 1.0, ""),
    "throughput_Bps": ("throughput", "rate", 8.0, ""),
    "offered_bytes": ("bytes offered", "bytes", 1.0, ""),
    "max_backlog_bytes": ("largest backlog", "bytes", 1.0, ""),
    # a connection's end
    "segments_sent": ("segments sent", "", 1.0, ""),
    "data_segments_sent": ("data segments sent", "", 1.0, ""),
    "bytes_sent": ("bytes sent", "bytes", 1.0, ""),
    "retransmissions": ("retransmissions", "", 1.0, ""),
    "fast_retransmits": ("fast retransmits", "", 1.0, ""),
    "rto_expirations": ("retransmission timeouts", "", 1.0, ""),
    "dupacks_received": ("duplicate ACKs received", "", 1.0, ""),
    "acks_sent": ("ACKs sent", "", 1.0, ""),
    "segments_received": ("segments received", "", 1.0, ""),
    "out_of_order_segments": ("out-of-order segments", "", 1.0, ""),
    "duplicate_segments": ("duplicate segments", "", 1.0, ""),
    "bytes_delivered": ("bytes delivered", "bytes", 1.0, ""),
    "syn_retransmissions": ("SYN retransmissions", "", 1.0, ""),
    "rtt_samples": ("RTT samples", "", 1.0, ""),
    "max_cwnd": ("largest cwnd", "bytes", 1.0, ""),
    "final_cwnd": ("final cwnd", "bytes", 1.0, ""),
    "final_ssthresh": ("final ssthresh", "bytes", 1.0, ""),
    "srtt_s": ("smoothed RTT", "time", 1.0, ""),
    "rto_s": ("RTO", "time", 1.0, ""),
    "mss": ("MSS", "bytes", 1.0, ""),
    # a link direction
    "frames_offered": ("frames offered", "", 1.0, ""),
    "frames_sent": ("frames sent", "", 1.0, ""),
    "frames_dropped_error": ("frames lost to errors", "", 1.0, ""),
    "frames_dropped_queue": ("frames dropped by the queue", "", 1.0, ""),
    "data_frames_dropped_error": ("data frames lost to errors", "", 1.0, ""),
    "data_frames_dropped_queue": ("data frames dropped by the queue", "", 1.0, ""),
    "frames_dropped_early": ("frames dropped early (AQM)", "", 1.0, ""),
    "frames_dropped_forced": ("frames dropped by force (AQM)", "", 1.0, ""),
    "bytes_on_wire": ("bytes on the wire", "bytes", 1.0, ""),
    "utilisation": ("utilisation", "fraction", 1.0, ""),
    "mean_queue_delay_s": ("mean queuing delay", "time", 1.0, ""),
    "max_queue_delay_s": ("largest queuing delay", "time", 1.0, ""),
    "max_queue_packets": ("largest queue", "", 1.0, "packets"),
}

# Short names of the scenario fields one sweeps most, by (schema section, key); the others
# are named by their key.
_FIELD_NAMES: dict[tuple[str, str], str] = {
    ("error", "p"): "loss probability",
    ("error", "ber"): "bit error rate",
    ("error", "model"): "error model",
    ("direction", "rate"): "rate",
    ("direction", "delay"): "delay",
    ("direction", "queue"): "queue limit",
    ("direction", "error"): "error model",
    ("direction", "aqm"): "AQM",
    ("tcp", "congestion_control"): "congestion control",
    ("tcp", "loss_recovery"): "loss recovery",
    ("tcp", "profile"): "TCP profile",
    ("tcp", "variant"): "TCP variant",
    ("tcp", "mss"): "MSS",
    ("tcp", "rcv_buf"): "receive buffer",
    ("tcp", "snd_buf"): "send buffer",
    ("tcp", "initial_cwnd"): "initial window",
    ("tcp", "rto_min"): "minimum RTO",
    ("tcp", "rto_initial"): "initial RTO",
    ("run", "stop_time"): "stop time",
    ("run", "seed"): "seed",
    ("apps[]", "size"): "size",
    ("nodes[]", "processing_delay"): "processing delay",
}
# A schema unit -> (dimension, unit word).
_SCHEMA_UNITS = {
    "s": ("time", ""),
    "bytes": ("bytes", ""),
    "bit/s": ("rate", ""),
}
_DIRECTION_KEYS = frozenset({"rate", "delay", "queue", "framing", "mtu", "error", "aqm"})


@functools.cache
def _schema() -> dict[tuple[str, str], dict[str, Any]]:
    """The scenario format's fields by (section, key) (the first of a key's variants)."""
    from tcplab.schema import fields

    out: dict[tuple[str, str], dict[str, Any]] = {}
    for f in fields():
        out.setdefault((f["section"], f["key"]), f)
    return out


def _field(section: str, key: str, owner: str) -> Quantity:
    f = _schema().get((section, key))
    name = _FIELD_NAMES.get((section, key), key.replace("_", " "))
    if f is None:
        return Quantity(name, owner)
    if f["type"] == "probability":
        return Quantity(name, owner, "probability")
    dimension, word = _SCHEMA_UNITS.get(f["unit"], ("", f["unit"]))
    if f["unit"] == "packets or bytes":  # a queue limit: as given, "100p" or "64KB"
        word = ""
    return Quantity(name, owner, dimension, 1.0, word)


def _scenario_field(parts: list[str]) -> Quantity | None:
    """The quantity of a scenario path (as `--set` and `--grid` name it), or None."""
    head, rest = parts[0], parts[1:]
    if head in ("run", "output") and len(rest) == 1:
        return _field(head, rest[0], "")
    if head == "tcp" and rest:
        return _field("tcp.ns2" if rest[0] == "ns2" and len(rest) == 2 else "tcp", rest[-1], "")
    if head in ("links", "nodes", "apps", "profiles") and len(rest) >= 2:
        name, tail = rest[0], rest[1:]
        owner = name
        if head == "links" and tail[0] in ("ab", "ba"):
            owner, tail = f"{name}:{tail[0]}", tail[1:]
        if not tail:
            return None
        if head == "links":
            if tail[0] in ("error", "aqm") and len(tail) == 2:
                return _field(tail[0], tail[1], owner)
            section = "direction" if tail[0] in _DIRECTION_KEYS else "links[]"
            return _field(section, tail[0], owner) if len(tail) == 1 else None
        if head == "apps" and tail[0] == "tcp" and len(tail) == 2:
            return _field("tcp", tail[1], owner)
        if len(tail) == 1:
            return _field(f"{head}[]", tail[0], owner)
        if head == "apps" and len(tail) == 2:  # a distribution's parameter: think_time.mean
            inner = _field("distribution", tail[1], owner)
            return Quantity(f"{tail[0].replace('_', ' ')} {inner.name}", owner, *_dim(tail[0]))
    return None


def _dim(key: str) -> tuple[str, float, str]:
    """(dimension, si, unit word) a summary key's own suffix says."""
    if key in _SUMMARY:
        _, dimension, si, word = _SUMMARY[key]
        return dimension, si, word
    if key.endswith("_s") or key.endswith("_time") or key.endswith("_delay"):
        return "time", 1.0, ""
    if key.endswith("_Bps"):
        return "rate", 8.0, ""
    if key.endswith("_bps"):
        return "rate", 1.0, ""
    if key.endswith("_bytes") or key.endswith("_size") or key == "bytes":
        return "bytes", 1.0, ""
    return "", 1.0, ""


def _summary_column(parts: list[str]) -> Quantity | None:
    head = parts[0]
    if len(parts) == 1:
        key = parts[0]
        owner = ""
    elif head == "apps" and len(parts) == 3:
        owner, key = parts[1], parts[2]
    elif head == "connections" and len(parts) == 4:
        owner, key = f"{parts[1]} {parts[2]}", parts[3]
    elif head == "connections" and len(parts) == 3:
        owner, key = parts[1], parts[2]
    elif head == "links" and len(parts) == 4 and parts[2] in ("ab", "ba"):
        owner, key = f"{parts[1]}:{parts[2]}", parts[3]
    else:
        return None
    if key not in _SUMMARY and not any(key.endswith(s) for s in ("_s", "_Bps", "_bytes")):
        return None
    name = _SUMMARY[key][0] if key in _SUMMARY else key.rsplit("_", 1)[0].replace("_", " ")
    return Quantity(name, owner, *_dim(key))


def quantity(column: str) -> Quantity:
    """What `column` (a flattened summary column or a scenario path) holds. A summary column
    is tried first (``apps.ftp.size`` the grid path is a size too); an unknown column is
    named by itself, without a unit."""
    parts = column.split(".")
    found = _summary_column(parts) or _scenario_field(parts)
    if found is not None and found.name:
        return found
    return Quantity(column)


def _finite_max(values: Iterable[Any] | None) -> float:
    best = 0.0
    for v in values if values is not None else ():
        try:
            x = abs(float(v))
        except (TypeError, ValueError):
            continue
        if math.isfinite(x):
            best = max(best, x)
    return best


def _unit_text(unit: str, word: str) -> str:
    shown = _SHOWN.get(unit, unit)
    return f" ({shown})" if shown else (f" ({word})" if word else "")


def axis(
    column: str,
    values: Iterable[Any] | None = None,
    *,
    unit: str | None = None,
    label: str | None = None,
    field: str = "unit",
    text: bool = False,
) -> Axis:
    """The label of an axis drawing `column`, and the factor from stored values to drawn ones.

    The unit is `unit` when given (one of the column's dimension's `UNITS`, else an
    InvalidValueError naming `field`), else the largest of the usual ones in which the
    largest of `values` is at least 1 (ms for a response time of 0.3 s, Mbit/s for a
    throughput of 200 kB/s); a column drawn as `text` ("10Mbps" as given), a count or a
    probability has none. `label` replaces the text before the unit."""
    q = quantity(column)
    if text:
        return Axis(label if label is not None else q.label)
    units = UNITS.get(q.dimension, {})
    if unit is not None:
        if unit not in units:
            kind = f"a {q.dimension}" if q.dimension else "a count or a text: no unit"
            allowed = ", ".join(u for u in units if u not in ("1",)) or "none (leave --unit out)"
            raise _errors._invalid(field, unit, f"{column} is {kind}", allowed)
        chosen = unit
    elif q.dimension in _AUTO:
        big = _finite_max(values) * q.si
        choices = _AUTO[q.dimension]
        reach = _REACH.get(q.dimension, 1.0)
        chosen = next((u for u in choices if big >= reach * units[u]), choices[-1])
        if big == 0:
            chosen = {"time": "s", "bytes": "B", "rate": "bit/s"}[q.dimension]
    elif q.dimension == "fraction" and q.name == "utilisation":
        chosen = "%"
    else:
        chosen = "1" if q.dimension else ""
    factor = q.si / units[chosen] if chosen else 1.0
    text = (label if label is not None else q.label) + _unit_text(chosen, q.unit)
    return Axis(text, factor, _SHOWN.get(chosen, chosen))


def split_unit(text: str) -> tuple[str, str]:
    """("ftp throughput", "Mbit/s") from "ftp throughput (Mbit/s)"."""
    m = re.match(r"^(.*) \(([^()]*)\)$", text)
    return (m[1], m[2]) if m else (text, "")
