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

Nothing here makes a list as long as the sweep: seeds are ranges (`Seeds`), the grid's points
are made one at a time (`Points`), and the size of a sweep is known, and checked against a
limit (`MAX_RUNS`, or the caller's), before anything of that size exists.
"""

from __future__ import annotations

import itertools
import math
import numbers
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

from tcplab import errors as _errors

__all__ = [
    "parse_axis",
    "parse_values",
    "parse_seeds",
    "seed_list",
    "grid_points",
    "Points",
    "Seeds",
    "GridError",
    "MAX_POINTS",
    "MAX_RUNS",
]

GridError = _errors.InvalidValueError

_RANGE = re.compile(r"^\s*(?P<lo>[^\s]+?)\s*\.\.\s*(?P<hi>[^\s:]+)\s*(?::\s*(?P<n>[^\s]*?)\s*)?$")
_COUNT = re.compile(r"^(?P<n>\d+)(?P<log>log)?$")
# Paths a grid may not sweep: the seeds are their own axis.
_RESERVED = {"seed", "run.seed"}
# Most points a single range may produce (a typo like 1..1e9 should not eat the machine).
MAX_POINTS = 100_000
#: Most runs (points x seeds) a sweep may have unless told otherwise (`tcplab sweep
#: --max-runs`, `Sweep(max_runs=...)`): at a millisecond a run, a quarter of an hour.
MAX_RUNS = 1_000_000


_err = _errors._invalid


def _scalar(text: str, path: str = "--grid") -> Any:
    """A TOML value if the text is one (``0.01``, ``true``, ``"x"``, ``{a=1}``), else the text."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:
        raise _err(
            path, text[:40] + "...", "nested too deeply to read", "a value nesting a few levels"
        ) from None


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
    lo, hi = _scalar(lo_t, path), _scalar(hi_t, path)
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
        value = _scalar(text, path)
        if isinstance(value, list):
            if not value:
                raise _err(path, text, "no values", "a non-empty list")
            return value
    out: list[Any] = []
    for item in _split_items(text):
        if not item:
            raise _err(path, text, "an empty item between commas", "V1,V2,...")
        m = _RANGE.match(item) if ".." in item and not item.startswith(("{", "[", '"')) else None
        out.extend(_range(path, item, m) if m else [_scalar(item, path)])
        if len(out) > MAX_POINTS:
            raise _err(path, text[:60], f"more than {MAX_POINTS} values", "fewer values")
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
    if hasattr(values, "__len__") and len(values) > MAX_POINTS:
        raise _err(path, f"{len(values)} values", f"more than {MAX_POINTS}", "fewer values")
    out = list(itertools.islice(values, MAX_POINTS + 1))
    if len(out) > MAX_POINTS:
        raise _err(path, "an iterable", f"more than {MAX_POINTS} values", "fewer values")
    if not out:
        raise _err(path, values, "no values", "a non-empty list")
    return out


class Seeds(Sequence[int]):
    """Seeds as ranges (``1..1000000`` holds two numbers, not a million): a sequence of
    distinct integers that compares equal to a list of the same seeds."""

    __slots__ = ("_ranges", "_len")

    def __init__(self, ranges: Iterable[range]) -> None:
        self._ranges = tuple(r for r in ranges if len(r))
        self._len = sum(len(r) for r in self._ranges)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[int]:
        for r in self._ranges:
            yield from r

    @overload
    def __getitem__(self, i: int) -> int: ...
    @overload
    def __getitem__(self, i: slice) -> list[int]: ...
    def __getitem__(self, i: int | slice) -> int | list[int]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._len))]
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError("seed index out of range")
        for r in self._ranges:
            if i < len(r):
                return r[i]
            i -= len(r)
        raise IndexError("seed index out of range")  # pragma: no cover

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(other) == self._len and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def text(self) -> str:
        """The seeds as `parse_seeds` reads them back (``1..20``, ``1,2,5``)."""
        return ",".join(
            str(r.start) if len(r) == 1 else f"{r.start}..{r.stop - 1}" for r in self._ranges
        )

    def __repr__(self) -> str:
        return f"Seeds({self.text()!r})"


def parse_seeds(spec: str | int | Iterable[int], *, limit: int = MAX_RUNS) -> Seeds:
    """Seeds from ``1..20``, ``1,2,5``, ``N`` (1..N), an int N or a list; more than `limit`
    seeds are refused before any list of them is made."""
    allowed = "N (seeds 1..N), LO..HI, or a list 1,2,5 of distinct integers from 0 to 2^63 - 1"
    too_many = f"at most {limit} seeds (the most runs a sweep may have; --max-runs N raises it)"
    if isinstance(spec, bool):
        raise _err("seeds", spec, "not a seed specification", allowed)
    if isinstance(spec, str) and re.fullmatch(r"\s*\d+\s*", spec):
        digits = spec.strip()
        if len(digits) > 19:
            raise _err("seeds", spec, "more seeds than can be numbered", too_many)
        spec = int(digits)
    if isinstance(spec, int):
        if spec < 1:
            raise _err("seeds", spec, "the number of seeds must be at least 1", allowed)
        if spec > limit:
            raise _err("seeds", spec, f"{spec} seeds is more than the limit", too_many)
        return Seeds([range(1, spec + 1)])
    ranges: list[range] = []
    count = 0
    if isinstance(spec, str):
        for item in _split_items(spec.strip()):
            m = _RANGE.match(item) if ".." in item else None
            if m and m["n"] is None:
                lo, hi = _scalar(m["lo"], "seeds"), _scalar(m["hi"], "seeds")
                if not all(_is_seed(v) for v in (lo, hi)):
                    bad = next(v for v in (lo, hi) if not _is_seed(v))
                    raise _err("seeds", spec, f"{bad!r} is not a seed", allowed)
                if hi < lo:
                    raise _err("seeds", spec, f"the range {item} is empty (HI < LO)", allowed)
                r = range(lo, hi + 1)
            else:
                v = _scalar(item, "seeds")
                if not _is_seed(v):
                    raise _err("seeds", spec, f"{v!r} is not a seed", allowed)
                r = range(v, v + 1)
            count += len(r)
            if count > limit:
                raise _err("seeds", spec, f"more than {limit} seeds", too_many)
            ranges.append(r)
    else:
        if hasattr(spec, "__len__") and len(spec) > limit:  # type: ignore[arg-type]
            raise _err("seeds", f"{len(spec)} seeds", f"more than {limit}", too_many)  # type: ignore[arg-type]
        for v in itertools.islice(spec, limit + 1):
            if not _is_seed(v):
                raise _err("seeds", spec, f"{v!r} is not a seed", allowed)
            ranges.append(range(int(v), int(v) + 1))
        if len(ranges) > limit:
            raise _err("seeds", "an iterable", f"more than {limit} seeds", too_many)
    if not ranges:
        raise _err("seeds", spec, "no seeds", allowed)
    ordered = sorted(ranges, key=lambda r: r.start)
    if any(a.stop > b.start for a, b in itertools.pairwise(ordered)):
        raise _err("seeds", spec, "a seed is repeated", allowed)
    return Seeds(ranges)


def _is_seed(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**63


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


def _check_axes(axes: Sequence[tuple[str, Sequence[Any]]], zip_: bool) -> int:
    """The number of points of the grid, after checking that no path is given twice and
    that zipped axes have the same length."""
    paths = [p for p, _ in axes]
    dup = {p for p in paths if paths.count(p) > 1}
    if dup:
        p = sorted(dup)[0]
        raise _err(p, p, "the path is given twice", "each path once")
    if not axes:
        return 1
    if zip_:
        lengths = {p: len(v) for p, v in axes}
        if len(set(lengths.values())) > 1:
            raise _err(
                "--zip",
                lengths,
                "zipped axes must have the same number of values",
                "axes of equal length, or the product (no --zip)",
            )
        return len(axes[0][1])
    return math.prod(len(v) for _, v in axes)


class Points(Sequence[dict[str, Any]]):
    """The grid's points as {path: value} dicts, made when asked for: the product of the axes
    (the first axis outermost) or, zipped, their element-wise pairing."""

    def __init__(self, axes: Sequence[tuple[str, Sequence[Any]]], *, zip_: bool = False) -> None:
        self._n = _check_axes(axes, zip_)
        #: The number of points (also beyond what `len` can return).
        self.count = self._n
        self.axes = [(p, list(v)) for p, v in axes]
        self.zip = zip_

    def __len__(self) -> int:
        return self._n

    def indices(self, i: int) -> tuple[int, ...]:
        """Point i's index into each axis."""
        if self.zip:
            return tuple(i for _ in self.axes)
        out = []
        for _, v in reversed(self.axes):
            i, k = divmod(i, len(v))
            out.append(k)
        return tuple(reversed(out))

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("grid point index out of range")
        return {p: v[k] for (p, v), k in zip(self.axes, self.indices(i), strict=True)}

    def __iter__(self) -> Iterator[dict[str, Any]]:
        paths = [p for p, _ in self.axes]
        if not self.axes:
            yield {}
            return
        combos: Iterable[tuple[Any, ...]] = (
            zip(*(v for _, v in self.axes), strict=True)
            if self.zip
            else itertools.product(*(v for _, v in self.axes))
        )
        for c in combos:
            yield dict(zip(paths, c, strict=True))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(other) == self._n and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Points({self._n} points)"


def grid_points(
    axes: Sequence[tuple[str, list[Any]]], *, zip_: bool = False
) -> list[dict[str, Any]]:
    """The grid's points as a list of {path: value} dicts: the product of the axes (the first
    axis outermost), or with `zip_` their element-wise pairing (all axes the same length).
    (`Points` makes them one at a time.)"""
    return list(Points(axes, zip_=zip_))
