"""Parse quantities the way people write them: "100ms", "10Mbps", "10MB", "0.1%".

Every parser returns a float in SI base units (seconds, bytes, bytes per second, a
plain probability) and raises ``ValueError`` with a message saying what it could not
read and what is allowed.

* Decimal prefixes k, M, G, T are powers of 1000 (10 MB = 10,000,000 bytes, as in
  Sarkar 2022); Ki, Mi, Gi, Ti are powers of 1024 (64 KiB = 65,536 bytes).  Prefix
  letters are case-insensitive.
* ``B``/``byte`` means bytes and ``b``/``bit`` means bits, so "10Mbps" and "10Mb/s"
  are megabits per second and "1.25MB/s" is megabytes per second.
* A bare number is in the base unit: seconds, bytes or bytes/s.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "parse_duration",
    "parse_size",
    "parse_rate",
    "parse_probability",
    "parse_number",
    "format_duration",
    "format_rate",
]

_NUMBER = r"(?:[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|[+-]?\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf"
_SPLIT = re.compile(rf"^\s*(?P<num>{_NUMBER})\s*(?P<unit>\S*?)\s*$", re.IGNORECASE)

_DURATION_UNITS = {
    "": 1.0,
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "second": 1.0,
    "seconds": 1.0,
    "min": 60.0,
    "mins": 60.0,
    "minute": 60.0,
    "minutes": 60.0,
    "h": 3600.0,
    "hr": 3600.0,
    "hour": 3600.0,
    "hours": 3600.0,
}

_PREFIXES = {
    "": 1.0,
    "k": 1e3,
    "m": 1e6,
    "g": 1e9,
    "t": 1e12,
    "ki": 1024.0,
    "mi": 1024.0**2,
    "gi": 1024.0**3,
    "ti": 1024.0**4,
}
_BYTE_WORDS = {"B": 1.0, "byte": 1.0, "bytes": 1.0, "Byte": 1.0, "Bytes": 1.0}
_BIT_WORDS = {"b": 0.125, "bit": 0.125, "bits": 0.125}
_SIZE_UNIT = re.compile(r"^(?P<prefix>[kmgt]i?)?(?P<base>B|bytes?|Bytes?|b|bits?)$", re.IGNORECASE)

_SIZE_HELP = "B, kB, MB, GB, KiB, MiB, GiB (bytes) or b, kb, Mb, Kibit... (bits), e.g. '10MB'"
_RATE_HELP = "bps, kbps, Mbps, Gbps, Mbit/s (bits) or B/s, kB/s, MB/s, MBps (bytes), e.g. '10Mbps'"


def _split(text: str, what: str, allowed: str) -> tuple[float, str]:
    if not isinstance(text, str):
        text = str(text)
    m = _SPLIT.match(text)
    if not m:
        raise ValueError(
            f"cannot read {text!r} as {what}: expected a number with an optional unit ({allowed})"
        )
    number = float(m.group("num").replace(",", ""))
    if math.isnan(number):
        raise ValueError(f"cannot read {text!r} as {what}: not a number")
    return number, m.group("unit")


def _size_factor(unit: str) -> float | None:
    """Bytes per unit for a size unit (``None`` if not a size unit)."""
    m = _SIZE_UNIT.match(unit)
    if not m:
        return None
    base = m.group("base")
    if base in _BYTE_WORDS or base.lower() in ("byte", "bytes"):
        scale = 1.0
    elif base in _BIT_WORDS or base.lower() in ("bit", "bits"):
        scale = 0.125
    else:
        return None
    return _PREFIXES[(m.group("prefix") or "").lower()] * scale


def parse_duration(text: str) -> float:
    """Seconds from "100ms", "0.1 s", "250us", "2min" or a bare number of seconds."""
    allowed = "ns, us, ms, s, min, h; bare numbers are seconds, e.g. '100ms'"
    number, unit = _split(text, "a duration", allowed)
    factor = _DURATION_UNITS.get(unit)
    if factor is None:
        factor = _DURATION_UNITS.get(unit.lower())
    if factor is None:
        raise ValueError(f"unknown duration unit {unit!r} in {text!r}: allowed units are {allowed}")
    return number * factor


def parse_size(text: str) -> float:
    """Bytes from "10MB", "64KiB", "1460", "1460B", "12000b" (bits) or "inf"."""
    allowed = _SIZE_HELP + "; bare numbers are bytes"
    number, unit = _split(text, "a size", allowed)
    if unit == "":
        return number
    factor = _size_factor(unit)
    if factor is None:
        raise ValueError(f"unknown size unit {unit!r} in {text!r}: allowed units are {allowed}")
    return number * factor


def parse_rate(text: str) -> float:
    """Bytes per second from "10Mbps", "10 Mbit/s", "1.25MB/s", "1.25MBps" or a bare number."""
    allowed = _RATE_HELP + "; bare numbers are bytes/s"
    number, unit = _split(text, "a rate", allowed)
    if unit == "":
        return number
    for suffix in ("/s", "ps"):
        if unit.lower().endswith(suffix) and len(unit) > len(suffix):
            factor = _size_factor(unit[: -len(suffix)])
            if factor is not None:
                return number * factor
    raise ValueError(f"unknown rate unit {unit!r} in {text!r}: allowed units are {allowed}")


def parse_probability(text: str) -> float:
    """A probability in [0, 1] from "1.2e-3", "0.0012" or "0.12%"."""
    allowed = "a plain number or a percentage, e.g. '1e-7' or '0.1%'"
    number, unit = _split(text, "a probability", allowed)
    if unit == "%":
        number /= 100.0
    elif unit:
        raise ValueError(f"unknown unit {unit!r} in {text!r}: a probability is {allowed}")
    if not 0.0 <= number <= 1.0:
        raise ValueError(f"{text!r} is not a probability: it must lie in [0, 1] (or 0-100%)")
    return number


def parse_number(text: str) -> float:
    """A plain number without a unit: "2", "1.5", "1e3"."""
    number, unit = _split(text, "a number", "none: a plain number such as 2 or 1.5")
    if unit:
        raise ValueError(f"unexpected unit {unit!r} in {text!r}: give a plain number such as 2")
    return number


def format_duration(seconds: float) -> str:
    """Human-readable duration: "45.66 s", "100 ms", "250 us"."""
    if not math.isfinite(seconds):
        return "inf s" if seconds > 0 else str(seconds)
    a = abs(seconds)
    if a == 0 or a >= 1:
        return f"{seconds:,.4g} s" if a < 1e4 else f"{seconds:,.1f} s"
    if a >= 1e-3:
        return f"{seconds * 1e3:.4g} ms"
    return f"{seconds * 1e6:.4g} us"


def format_rate(bytes_per_s: float) -> str:
    """Human-readable rate in bytes/s and Mbps: "219,000.00 B/s (1.752 Mbps)"."""
    if not math.isfinite(bytes_per_s):
        return "inf B/s (no limit)"
    return f"{bytes_per_s:,.2f} B/s ({bytes_per_s * 8 / 1e6:.4f} Mbps)"
