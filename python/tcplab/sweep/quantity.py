"""Grid values with units as numbers: ``"10Mbps"`` is 10,000,000 bit/s, ``"20ms"`` 0.02 s,
``"64KiB"`` 65,536 bytes, ``"1%"`` 0.01.

A sweep keeps each value as it was given (the column named by its path) and, for an axis over
a rate, a duration, a size or a probability, the number in SI units beside it (the column
``<path>.si``), by which results are sorted and drawn. Two spellings of one quantity
(``"10Mbps"`` and ``"10000kbps"``, ``0.01`` and ``"1%"``) give the scenario the same canonical
value, hence the same run id: they are one grid point.

The numbers are read as the core reads them (crates/tcplab-sim/src/units.rs: the same unit
names, the same floating-point steps and rounding), and the canonical spelling is one the core
reads back to exactly the same value (tests/test_sweep_units.py checks both against the core).
A value that is not such a quantity is left as it is, for the core to accept or refuse.
"""

from __future__ import annotations

import functools
import math
from typing import Any

__all__ = ["QUANTITY_UNITS", "field_kind", "canonical"]

#: The SI unit of each kind of quantity.
QUANTITY_UNITS = {"rate": "bit/s", "duration": "s", "size": "bytes", "probability": ""}

_RATE = {
    "bps": 1.0, "b/s": 1.0, "bit/s": 1.0,
    "kbps": 1e3, "Kbps": 1e3, "kb/s": 1e3, "kbit/s": 1e3,
    "Mbps": 1e6, "Mb/s": 1e6, "Mbit/s": 1e6,
    "Gbps": 1e9, "Gb/s": 1e9, "Gbit/s": 1e9,
    "Bps": 8.0, "B/s": 8.0,
    "kBps": 8e3, "KBps": 8e3, "kB/s": 8e3,
    "MBps": 8e6, "MB/s": 8e6,
}  # fmt: skip
_DURATION = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "min": 60.0,
             "h": 3600.0}  # fmt: skip
_SIZE = {
    "": 1.0, "B": 1.0, "bytes": 1.0,
    "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15,
    "KiB": 1024.0, "MiB": 1048576.0, "GiB": 1073741824.0, "TiB": 1099511627776.0,
}  # fmt: skip


def _split_number(s: str) -> tuple[float, str] | None:
    """units.rs `split_number`: the longest prefix of digits, '.', '_', an exponent and signs,
    as a float (underscores dropped), and the rest, trimmed."""
    s = s.strip()
    end = len(s)
    for i, c in enumerate(s):
        ok = (
            c.isascii()
            and c.isdigit()
            or c in "._"
            or (c in "eE" and i + 1 < len(s) and (s[i + 1].isdigit() or s[i + 1] in "+-"))
            or (c in "+-" and (i == 0 or s[i - 1] in "eE"))
        )
        if not ok:
            end = i
            break
    num = s[:end].replace("_", "")
    if not num or not all(ch.isascii() for ch in num):
        return None
    try:
        v = float(num)
    except ValueError:
        return None
    return v, s[end:].strip()


def _round(x: float) -> int:
    """Rust's f64::round for x >= 0: half away from zero."""
    r = math.floor(x)
    return r + 1 if x - r >= 0.5 else r


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def canonical(kind: str, value: Any) -> tuple[Any, float | int] | None:
    """(the value to give the scenario, the number in SI units) for a `kind` quantity
    (rate, duration, size, probability) written as `value`, or None when `value` is not one
    the core would accept as such (it is then left alone)."""
    if kind == "probability":
        if isinstance(value, str):
            parsed = _split_number(value)
            if parsed is None or parsed[1] not in ("", "%"):
                return None
            p = parsed[0] if parsed[1] == "" else parsed[0] / 100.0
        else:
            p = _number(value)
            if p is None:
                return None
        if not 0.0 <= p <= 1.0:
            return None
        # As text: the core reads text with Rust's exact float parsing; a JSON number goes
        # through serde_json's, which can be one unit in the last place off for 17 digits.
        return repr(p), p
    if kind == "size" and isinstance(value, int) and not isinstance(value, bool):
        return (f"{value}B", value) if 0 <= value <= 10**15 else None
    if not isinstance(value, str):
        return None
    parsed = _split_number(value)
    if parsed is None:
        return None
    v, unit = parsed
    if kind == "rate":
        mult = _RATE.get(unit)
        if mult is None or not 1.0 <= v * mult <= 1e13:
            return None
        bps = _round(v * mult)
        return f"{bps}bps", bps
    if kind == "duration":
        mult = _DURATION.get(unit)
        if mult is None:
            return None
        secs = v * mult
        if not 0.0 <= secs < 1e9:
            return None
        ns = _round(secs * 1e9)
        # "<ns>ns" is read back as ns * 1e-9 s: the canonical spelling only where that gives
        # the same nanosecond (up to about 50 days); beyond, the value stays as written.
        if _round(float(ns) * 1e-9 * 1e9) != ns:
            return value, ns / 1e9
        return f"{ns}ns", ns / 1e9
    if kind == "size":
        mult = _SIZE.get(unit)
        if mult is None:
            return None
        b = v * mult
        if not 0.0 <= b <= 1e15 or b != math.floor(b):
            return None
        return f"{int(b)}B", int(b)
    return None


# -- which fields are quantities ----------------------------------------------------------------

_LISTS = {"nodes": "nodes[]", "links": "links[]", "apps": "apps[]", "profiles": "profiles[]"}
_ALIASES = {"stop_time": "run.stop_time"}


def schema_tables() -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    """`QUANTITY_FIELDS` and `DISTRIBUTION_FIELDS` as the core's schema gives them now."""
    from tcplab import schema

    types: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for f in schema.fields():
        types.setdefault((f["section"], f["key"]), set()).add((f["type"], f["unit"]))
    quantities, distributions = {}, {}
    for key, ts in sorted(types.items()):
        kinds = _kinds(ts)
        if len(kinds) == 1 and kinds <= set(QUANTITY_UNITS):
            quantities[key] = kinds.pop()
        units = {u for t, u in ts if t == "distribution"}
        if len(units) == 1 and units != {""}:
            distributions[key] = units.pop()
    return quantities, distributions


def _kinds(types: set[tuple[str, str]]) -> set[str]:
    kinds = set()
    for t, unit in types:
        if t in ("rate", "duration", "probability"):
            kinds.add(t)
        elif t == "size" and unit == "bytes":
            kinds.add("size")
        elif t == "distribution" and unit in ("s", "bytes"):  # a plain value is a constant
            kinds.add("duration" if unit == "s" else "size")
        else:
            kinds.add("other")
    return kinds


#: (section, key) -> the kind of quantity the field holds: derived from the core's schema
#: (`tcplab.schema.fields()`), written out so that a sweep does not ask the core for its
#: whole schema; tests/test_sweep_quantities.py checks it against the schema.
QUANTITY_FIELDS: dict[tuple[str, str], str] = {
    ("apps[]", "inter_request"): "duration",
    ("apps[]", "interval"): "duration",
    ("apps[]", "object_size"): "size",
    ("apps[]", "off_time"): "duration",
    ("apps[]", "on_time"): "duration",
    ("apps[]", "packet_size"): "size",
    ("apps[]", "page_size"): "size",
    ("apps[]", "rate"): "rate",
    ("apps[]", "request_size"): "size",
    ("apps[]", "response_size"): "size",
    ("apps[]", "size"): "size",
    ("apps[]", "start"): "duration",
    ("apps[]", "stop"): "duration",
    ("apps[]", "think_time"): "duration",
    ("aqm", "interval"): "duration",
    ("aqm", "max_p"): "probability",
    ("aqm", "mean_packet_size"): "size",
    ("aqm", "target"): "duration",
    ("direction", "delay"): "duration",
    ("direction", "rate"): "rate",
    ("error", "bad_ber"): "probability",
    ("error", "bad_per"): "probability",
    ("error", "ber"): "probability",
    ("error", "good_ber"): "probability",
    ("error", "good_per"): "probability",
    ("error", "p"): "probability",
    ("error", "p_bg"): "probability",
    ("error", "p_gb"): "probability",
    ("nodes[]", "processing_delay"): "duration",
    ("output", "app_series"): "duration",
    ("output", "link_series"): "duration",
    ("output", "trace_interval"): "duration",
    ("profiles[]", "inter_repetition"): "duration",
    ("profiles[]", "start"): "duration",
    ("run", "stop_time"): "duration",
    ("tcp", "clock_granularity"): "duration",
    ("tcp", "delack_max"): "duration",
    ("tcp", "initial_ssthresh"): "size",
    ("tcp", "rcv_buf"): "size",
    ("tcp", "rcv_buf_max"): "size",
    ("tcp", "rcv_read_rate"): "rate",
    ("tcp", "rto_initial"): "duration",
    ("tcp", "rto_max"): "duration",
    ("tcp", "rto_min"): "duration",
    ("tcp", "snd_buf"): "size",
    ("tcp.ns2", "tick_phase"): "duration",
}
#: (section, key) -> the unit of a field that is a distribution (or a plain value).
DISTRIBUTION_FIELDS: dict[tuple[str, str], str] = {
    ("apps[]", "inter_request"): "s",
    ("apps[]", "interval"): "s",
    ("apps[]", "object_size"): "bytes",
    ("apps[]", "off_time"): "s",
    ("apps[]", "on_time"): "s",
    ("apps[]", "page_size"): "bytes",
    ("apps[]", "request_size"): "bytes",
    ("apps[]", "response_size"): "bytes",
    ("apps[]", "think_time"): "s",
    ("profiles[]", "inter_repetition"): "s",
    ("profiles[]", "start"): "s",
}


@functools.cache
def field_kind(path: str) -> str | None:
    """The kind of quantity (rate, duration, size, probability) the scenario field at dotted
    `path` holds (``links.wan.ab.delay`` -> duration), from the schema; None for any other
    field, or one whose kind depends on more than its path."""
    parts = _ALIASES.get(path, path).split(".")
    if parts[0] in _LISTS:
        section, rest = _LISTS[parts[0]], parts[2:]
    elif parts[0] in ("run", "tcp", "output"):
        section, rest = parts[0], parts[1:]
    else:
        section, rest = "", parts
    dist_unit = None
    while len(rest) > 1:
        c = rest[0]
        if section in ("links[]", "direction") and c in ("ab", "ba"):
            section, rest = "direction", rest[1:]
        elif c in ("error", "aqm") and section in ("links[]", "direction"):
            section, rest = c, rest[1:]
        elif c == "tcp" and section in ("apps[]", "profiles[]"):
            section, rest = "tcp", rest[1:]
        elif c == "ns2" and section == "tcp":
            section, rest = "tcp.ns2", rest[1:]
        elif c == "apps" and section == "profiles[]":
            section, rest = "apps[]", rest[2:]
        else:
            dist_unit = DISTRIBUTION_FIELDS.get((section, c))
            if dist_unit is None:
                return None
            section, rest = "distribution", rest[1:]
    if len(rest) != 1:
        return None
    key = rest[0]
    if section == "distribution":
        if key in ("mean", "min", "max", "sd", "value", "scale"):
            return {"s": "duration", "bytes": "size"}.get(dist_unit or "")
        return None
    kind = QUANTITY_FIELDS.get((section, key))
    if kind is None and section == "links[]":
        kind = QUANTITY_FIELDS.get(("direction", key))
    return kind
