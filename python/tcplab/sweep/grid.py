"""A sweep's grid and seeds, from text (the CLI and the ``[sweep]`` table) or from Python.

A grid axis is a dotted scenario path (as ``--set`` takes it) and its values::

    links.wan.ab.error.p=0,0.001,0.01          a list: each item a TOML value, else text
    links.wan.ab.error.p=1e-8..1e-4:17log      17 log-spaced points from 1e-8 to 1e-4
    links.wan.ab.error.p=0..0.1:11             11 evenly spaced points
    tcp.mss=500..1500:3                        integers when the ends and every point are
    tcp.congestion_control=reno,cubic          text
    links.wan.ab.error={model="per",p=0.01},{model="ge"}   inline tables (commas inside kept)

Items of a list may themselves be ranges (``0,1e-6..1e-4:3log``). Seeds are ``1..20``,
``1,2,5`` or ``N`` (seeds 1..N). The grid is the product of its axes (first axis outermost)
or, zipped, their element-wise pairing. From Python, `seed_list` takes seeds as a number or a
list (``3`` is seeds 1..3).
"""

from __future__ import annotations

import itertools
import math
import numbers
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tcplab import errors as _errors

__all__ = ["parse_axis", "parse_values", "parse_seeds", "seed_list", "grid_points", "GridError"]

GridError = _errors.InvalidValueError

_RANGE = re.compile(r"^\s*(?P<lo>[^\s]+?)\s*\.\.\s*(?P<hi>[^\s:]+)\s*(?::\s*(?P<n>[^\s]*?)\s*)?$")
_COUNT = re.compile(r"^(?P<n>\d+)(?P<log>log)?$")
# Paths a grid may not sweep: the seeds are their own axis.
_RESERVED = {"seed", "run.seed"}
# Most points a single range may produce (a typo like 1..1e9 should not eat the machine).
MAX_POINTS = 100_000


_err = _errors._invalid


def _scalar(text: str) -> Any:
    """A TOML value if the text is one (``0.01``, ``true``, ``"x"``, ``{a=1}``), else the text."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _split_items(text: str) -> list[str]:
    """Split at top-level commas (not inside quotes, brackets or braces)."""
    items, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [s.strip() for s in items]


def _clean(x: float) -> float:
    """12 significant digits: 1e-8..1e-4:5log gives 1e-07, not 1.0000000000000001e-07."""
    return float(f"{x:.12g}")


_RANGE_FORMS = "LO..HI:N (N evenly spaced points), LO..HI:Nlog (log-spaced), or LO..HI for integers"


def _range(path: str, text: str, m: re.Match[str]) -> list[Any]:
    lo_t, hi_t, n_t = m["lo"], m["hi"], m["n"]
    lo, hi = _scalar(lo_t), _scalar(hi_t)
    for end in (lo, hi):
        if isinstance(end, bool) or not isinstance(end, int | float) or not math.isfinite(end):
            raise _err(path, text, f"the range end {end!r} is not a finite number", _RANGE_FORMS)
    if n_t is None:
        if not (isinstance(lo, int) and isinstance(hi, int)):
            raise _err(path, text, "a range of non-integers needs a number of points", _RANGE_FORMS)
        if hi < lo:
            raise _err(path, text, "the range is empty (HI < LO)", _RANGE_FORMS)
        if hi - lo + 1 > MAX_POINTS:
            raise _err(path, text, f"more than {MAX_POINTS} points", _RANGE_FORMS)
        return list(range(lo, hi + 1))
    c = _COUNT.match(n_t)
    if c is None:
        raise _err(path, text, f"{n_t!r} is not a number of points", _RANGE_FORMS)
    n, log = int(c["n"]), bool(c["log"])
    if not 1 <= n <= MAX_POINTS:
        raise _err(path, text, f"the number of points must be 1..{MAX_POINTS}", _RANGE_FORMS)
    if n == 1:
        if lo != hi:
            raise _err(path, text, "one point needs LO == HI", _RANGE_FORMS)
        return [lo]
    if log:
        if lo <= 0 or hi <= 0:
            raise _err(path, text, "a log-spaced range needs LO > 0 and HI > 0", _RANGE_FORMS)
        a, b = math.log10(lo), math.log10(hi)
        points = [_clean(10 ** (a + (b - a) * i / (n - 1))) for i in range(n)]
    else:
        points = [_clean(lo + (hi - lo) * i / (n - 1)) for i in range(n)]
    if isinstance(lo, int) and isinstance(hi, int) and all(p.is_integer() for p in points):
        return [int(p) for p in points]
    return points


def parse_values(path: str, text: str) -> list[Any]:
    """The values of one axis from its text (see the module docstring)."""
    text = text.strip()
    if not text:
        raise _err(path, text, "no values", f"V1,V2,... or {_RANGE_FORMS}")
    if text.startswith("[") and text.endswith("]"):  # a TOML array
        value = _scalar(text)
        if isinstance(value, list):
            if not value:
                raise _err(path, text, "no values", "a non-empty list")
            return value
    out: list[Any] = []
    for item in _split_items(text):
        if not item:
            raise _err(path, text, "an empty item between commas", "V1,V2,...")
        m = _RANGE.match(item) if ".." in item and not item.startswith(("{", "[", '"')) else None
        out.extend(_range(path, item, m) if m else [_scalar(item)])
    return out


def _check_path(path: str) -> str:
    path = path.strip()
    if not path or any(not p for p in path.split(".")):
        raise _err(path or "--grid", path, "not a dotted path", "a path such as tcp.mss")
    if path in _RESERVED:
        raise _err(
            path, path, "the seeds are swept with --seeds", "any scenario field but run.seed"
        )
    return path


def parse_axis(text: str) -> tuple[str, list[Any]]:
    """``PATH=VALUES`` -> (path, values)."""
    path, sep, values = text.partition("=")
    if not sep:
        raise _err("--grid", text, "expected PATH=VALUES", "PATH=V1,V2,... or PATH=LO..HI:N")
    path = _check_path(path)
    return path, parse_values(path, values)


def axis_values(path: str, values: Any) -> list[Any]:
    """An axis given from Python or TOML: a list of values, or the text forms above."""
    path = _check_path(path)
    if isinstance(values, str):
        return parse_values(path, values)
    if isinstance(values, Mapping) or not isinstance(values, Iterable):
        raise _err(path, values, "not a list of values", "a list, or text such as 1e-8..1e-4:5log")
    out = list(values)
    if not out:
        raise _err(path, values, "no values", "a non-empty list")
    return out


def parse_seeds(spec: str | int | Iterable[int]) -> list[int]:
    """Seeds from ``1..20``, ``1,2,5``, ``N`` (1..N), an int N or a list."""
    allowed = "N (seeds 1..N), LO..HI, or a list 1,2,5 of distinct integers >= 0"
    if isinstance(spec, bool):
        raise _err("seeds", spec, "not a seed specification", allowed)
    if isinstance(spec, int):
        if spec < 1:
            raise _err("seeds", spec, "the number of seeds must be at least 1", allowed)
        return list(range(1, spec + 1))
    if isinstance(spec, str):
        text = spec.strip()
        if re.fullmatch(r"\d+", text):
            return parse_seeds(int(text))
        seeds: list[Any] = []
        for item in _split_items(text):
            m = _RANGE.match(item) if ".." in item else None
            if m and m["n"] is None:
                seeds.extend(_range("seeds", item, m))
            else:
                seeds.append(_scalar(item))
    else:
        seeds = list(spec)
    bad = [s for s in seeds if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 2**63]
    if bad or not seeds:
        raise _err("seeds", spec, f"{bad[0]!r} is not a seed" if bad else "no seeds", allowed)
    if len(set(seeds)) != len(seeds):
        raise _err("seeds", spec, "a seed is repeated", allowed)
    return [int(s) for s in seeds]


def seed_list(seeds: int | Sequence[int]) -> list[int]:
    """`seeds` as a list: an int N (a numpy integer too) means seeds 1..N."""
    if isinstance(seeds, bool):
        raise TypeError("seeds must be a number of seeds or a list of seeds")
    if isinstance(seeds, numbers.Integral):
        if seeds < 1:
            raise ValueError(f"seeds must be at least 1, got {seeds}")
        return list(range(1, int(seeds) + 1))
    out = [int(s) for s in seeds]
    if not out:
        raise ValueError("seeds must not be empty")
    if len(set(out)) != len(out):
        raise ValueError(f"seeds must be distinct, got {out}")
    return out


def grid_points(
    axes: Sequence[tuple[str, list[Any]]], *, zip_: bool = False
) -> list[dict[str, Any]]:
    """The grid's points as {path: value} dicts: the product of the axes (the first axis
    outermost), or with `zip_` their element-wise pairing (all axes the same length)."""
    paths = [p for p, _ in axes]
    dup = {p for p in paths if paths.count(p) > 1}
    if dup:
        p = sorted(dup)[0]
        raise _err(p, p, "the path is given twice", "each path once")
    if not axes:
        return [{}]
    if zip_:
        lengths = {p: len(v) for p, v in axes}
        if len(set(lengths.values())) > 1:
            raise _err(
                "--zip",
                lengths,
                "zipped axes must have the same number of values",
                "axes of equal length, or the product (no --zip)",
            )
        combos: Iterable[tuple[Any, ...]] = zip(*(v for _, v in axes), strict=True)
    else:
        combos = itertools.product(*(v for _, v in axes))
    return [dict(zip(paths, c, strict=True)) for c in combos]
