"""The Python API: `Scenario`, `run`, `run_many` and `Result`.

A `Scenario` is the TOML scenario file as a Python object. It is validated by the simulator core
when it is made, so a wrong field fails at once with the core's message (which names the field,
the value and what is allowed). `run` simulates one scenario; `run_many` simulates many in
parallel inside Rust, with the GIL released. Both return `Result` objects.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import gc
import io
import json
import math
import os
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from tcplab import _core
from tcplab import errors as _errors

if TYPE_CHECKING:
    import pandas as pd

# numpy, pandas and the report's tables are imported where they are used: `tcplab --help` and a
# store lookup should not pay for them.

__all__ = ["Scenario", "Result", "run", "run_many", "ScenarioLike"]

# Top-level shortcuts accepted by `Scenario.with_overrides`.
_ALIASES = {"seed": "run.seed", "stop_time": "run.stop_time"}


def _json_default(obj: Any) -> Any:
    if isinstance(obj, _dt.date | _dt.time):  # TOML dates/times: passed on as text
        return obj.isoformat()
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if hasattr(obj, "item") and type(obj).__module__ == "numpy":  # a numpy scalar
        return obj.item()
    raise TypeError(f"value {obj!r} of type {type(obj).__name__} cannot be used in a scenario")


def _check_numbers(node: Any, path: str) -> None:
    """Refuse, naming the field, what JSON cannot carry to the core exactly: NaN, infinity and
    integers outside 64 bits."""
    if isinstance(node, Mapping):
        for k, v in node.items():
            _check_numbers(v, f"{path}.{k}" if path else str(k))
    elif isinstance(node, list | tuple):
        for i, v in enumerate(node):
            name = v.get("name") if isinstance(v, Mapping) else None
            _check_numbers(v, f"{path}.{name}" if isinstance(name, str) else f"{path}.{i}")
    elif isinstance(node, float) and not math.isfinite(node):
        raise _errors._invalid(path, node, "numbers must be finite", "a finite number")
    elif isinstance(node, int) and not isinstance(node, bool) and not -(2**63) <= node < 2**64:
        raise _errors._invalid(
            path, node, "out of the 64-bit range", "a whole number from -2^63 to 2^64 - 1"
        )


#: A run of digits long enough to be an integer outside 64 bits (checked only then).
_LONG_DIGITS = re.compile(r"\d{19}")


def _to_json(data: Mapping[str, Any]) -> str:
    try:
        text = json.dumps(data, default=_json_default, allow_nan=False)
    except ValueError:  # NaN or infinity somewhere: say where
        _check_numbers(data, "")
        raise
    except RecursionError:
        raise _errors._make(
            _errors.ParseError,
            "scenario: values nested too deeply (lists or tables inside one another); a "
            "scenario nests a few levels at most",
            format="JSON",
        ) from None
    if _LONG_DIGITS.search(text):
        _check_numbers(data, "")
    return text


_LIST_ELEMENT = re.compile(r"\b(nodes|links|apps)\[(\d+)\]")


def _named_paths(err: _errors.TcplabError, data: Mapping[str, Any]) -> _errors.TcplabError:
    """The core names list elements by index (`links[0].rate`); say them the way a user
    addresses them (`links.wan.rate`), as `--set` and `with_overrides` take them."""

    def name(m: re.Match[str]) -> str:
        items = data.get(m[1])
        i = int(m[2])
        if isinstance(items, list) and i < len(items) and isinstance(items[i], Mapping):
            n = items[i].get("name")
            if isinstance(n, str) and n and "." not in n:
                return f"{m[1]}.{n}"
        return m[0]

    if any("[" in str(k) for k in data):  # a key the user spelled with brackets: keep it
        return err
    text = _LIST_ELEMENT.sub(name, str(err))
    if text == str(err):
        return err
    new = type(err)(text)
    for attr in ("kind", "field", "value", "allowed", "format"):
        v = getattr(err, attr, None)
        setattr(new, attr, _LIST_ELEMENT.sub(name, v) if isinstance(v, str) else v)
    return new


#: The largest scenario file read (a campus of thousands of hosts is a few megabytes): a
#: larger file, or a device or pipe that never ends, is refused before it is read.
MAX_SCENARIO_BYTES = 64 * 1024 * 1024


def parse_toml(text: str, source: str | None = None) -> dict[str, Any]:
    """TOML text as a dict; a mistake is a ParseError (`source` names the file in it)."""
    where = f" ({source})" if source else ""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _errors._make(
            _errors.ParseError, f"scenario is not valid TOML{where}: {e}", format="TOML"
        ) from None
    except RecursionError:
        raise _errors._make(
            _errors.ParseError,
            f"scenario{where}: arrays or tables nested too deeply to read; a scenario "
            "nests a few levels at most",
            format="TOML",
        ) from None


def load_toml_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A scenario file (UTF-8 TOML, a regular file of at most MAX_SCENARIO_BYTES) as a dict;
    every way it can fail is a ParseError naming the file. `Scenario.from_toml` and
    `Sweep.from_toml` read files through it."""
    import stat

    source = os.fspath(path)
    try:
        if not stat.S_ISREG(os.stat(source).st_mode):  # a pipe would block, a device not end
            raise _errors._make(
                _errors.ParseError,
                f"{source}: not a regular file; a scenario is a UTF-8 TOML file",
                format="TOML",
            )
        with open(source, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise _errors._make(
                    _errors.ParseError,
                    f"{source}: not a regular file; a scenario is a UTF-8 TOML file",
                    format="TOML",
                )
            if st.st_size > MAX_SCENARIO_BYTES:
                raise _errors._make(
                    _errors.ParseError,
                    f"{source}: {st.st_size} bytes, more than a scenario file may have "
                    f"({MAX_SCENARIO_BYTES} bytes)",
                    format="TOML",
                )
            raw = f.read(MAX_SCENARIO_BYTES + 1)
    except OSError as e:
        raise _errors._make(
            _errors.ParseError, f"{source}: cannot read: {e.strerror or e}", format="TOML"
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _errors._make(
            _errors.ParseError,
            f"{source}: not UTF-8 text (byte 0x{raw[e.start]:02x} at offset {e.start}); a "
            "scenario is a UTF-8 TOML file",
            format="TOML",
        ) from None
    return parse_toml(text, source)


class Scenario:
    """A validated scenario.

    Make one with `Scenario.from_toml(path_or_text)`, `Scenario.from_dict(d)` or
    `Scenario(d)`. A scenario is immutable: `with_overrides` and `with_seed` return new ones.
    """

    __slots__ = ("_data", "_json", "_normalized", "_normalized_json", "source")

    def __init__(self, data: Mapping[str, Any], *, source: str | None = None) -> None:
        if isinstance(data, Scenario):
            data = data._data
        if not isinstance(data, Mapping):
            raise TypeError(f"a scenario is a mapping (dict), not {type(data).__name__}")
        # The JSON text is the scenario's own copy: decoding it gives a deep copy of `data`
        # (tuples as lists, keys as text) far faster than copy.deepcopy.
        self._json = _to_json(data)
        self._data: dict[str, Any] = json.loads(self._json)
        try:
            self._normalized_json: str = _core.validate(self._json)
            self._normalized: dict[str, Any] = json.loads(self._normalized_json)
        except _errors.ScenarioError as e:
            raise _named_paths(e, self._data) from None
        #: The file the scenario was read from, if any.
        self.source = source

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scenario:
        """A scenario from a dict with the structure of the TOML file."""
        return cls(data)

    @classmethod
    def from_toml(cls, path_or_text: str | os.PathLike[str]) -> Scenario:
        """A scenario from a TOML file (a path) or from TOML text.

        A `str` is taken as TOML text if it contains a newline, '=' or '[', else as a path.
        """
        if isinstance(path_or_text, os.PathLike) or not any(c in path_or_text for c in "\n=["):
            source = os.fspath(path_or_text)
            return cls(load_toml_file(source), source=source)
        return cls(parse_toml(path_or_text))

    # -- views ----------------------------------------------------------------------------------

    def to_dict(self, *, normalized: bool = False) -> dict[str, Any]:
        """The scenario as a dict: as given, or `normalized` as the core returns it after
        validation (``run.seed`` always set; this is what a run uses and `Result.scenario`)."""
        return json.loads(self._normalized_json if normalized else self._json)

    def to_toml(self) -> str:
        """The scenario (as given) as TOML text; `Scenario.from_toml` reads it back."""
        import tomli_w

        return tomli_w.dumps(self._data)

    def to_json(self, *, normalized: bool = False) -> str:
        """The scenario as JSON text (`normalized` as in `to_dict`)."""
        return json.dumps(self.to_dict(normalized=normalized), indent=2)

    def check(self) -> None:
        """Set the scenario's simulation up without running it, so that what parsing cannot see
        is refused now: an application with no path between its nodes (links join hosts only
        through routers), an MSS above a link's MTU on its path. Raises a `TcplabError`."""
        _core.check_setup(self._json)

    def describe(self) -> dict[str, Any]:
        """The resolved scenario: each application's TCP settings after the profile is applied,
        and its data and ACK paths hop by hop (rate, delay, framing, queue, error model), in SI
        units. The analytic models and `tcplab model --scenario` read their inputs from it."""
        return json.loads(_core.describe(json.dumps(self._data)))

    def draw(self, path: str | os.PathLike[str] | None = None) -> Any:
        """The network as a diagram (a matplotlib Figure): nodes, links with their rate, delay,
        queue and error model, the applications, laid out automatically (`tcplab draw`).
        With `path` (.png, .svg or .pdf), also written there, a PNG and an SVG beside it."""
        from tcplab.report.netdraw import draw_network
        from tcplab.report.plots import save_figure

        fig = draw_network(self.to_dict(normalized=True))
        if path is not None:
            target = Path(path)
            fmt = target.suffix.lower().lstrip(".")
            if fmt not in ("png", "svg", "pdf"):
                raise _errors._invalid("path", str(path), "the suffix names the format",
                                       ".png, .svg or .pdf")  # fmt: skip
            formats = ["png", "svg"] + (["pdf"] if fmt == "pdf" else [])
            save_figure(fig, target.parent, target.stem, formats=formats)
        return fig

    @property
    def seed(self) -> int:
        """The seed the scenario runs with (run.seed, or the core's default)."""
        return int(self._normalized["run"]["seed"])

    # -- derived scenarios ----------------------------------------------------------------------

    def with_seed(self, seed: int) -> Scenario:
        """The same scenario with another seed."""
        return self.with_overrides({"run.seed": seed})

    def with_overrides(self, overrides: Mapping[str, Any]) -> Scenario:
        """A new scenario with the fields named by dotted paths replaced.

        Elements of lists (nodes, links, apps) are addressed by their ``name`` (or by index)::

            sc.with_overrides({"tcp.mss": 536, "links.wan.ba.error.p": 0.01, "seed": 3})

        Missing tables along a path are created. A path naming no list element raises
        `UnknownFieldError`; a field the format does not know is refused by the core's
        validation (again `UnknownFieldError`, naming the field).
        """
        data = json.loads(self._json)  # a fresh deep copy of _data
        for path, value in overrides.items():
            _set_path(data, self._normalized, path, value)
        try:
            return Scenario(data, source=self.source)
        except _errors.ScenarioError as e:
            e.add_note(f"while applying overrides {', '.join(map(repr, overrides))}")
            raise

    # -- dunder ---------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scenario):
            return NotImplemented
        return self._normalized == other._normalized

    __hash__ = None  # type: ignore[assignment]

    def _repr_html_(self) -> str:
        """Notebook view: nodes, links, applications and the resolved TCP settings."""
        from tcplab.report.notebook import scenario_html

        return scenario_html(self)

    def __repr__(self) -> str:
        def names(section: str) -> list[str]:
            return [str(x.get("name", "?")) for x in self._data.get(section, [])]

        src = f", source={self.source!r}" if self.source else ""
        return (
            f"Scenario(nodes={names('nodes')}, links={names('links')}, apps={names('apps')}, "
            f"seed={self.seed}{src})"
        )


def _unknown(path: str, message: str) -> _errors.TcplabError:
    return _errors._make(_errors.UnknownFieldError, f"{path}: {message}", field=path)


def _set_path(data: dict[str, Any], normalized: Any, path: str, value: Any) -> None:
    """Set `data[path] = value` for a dotted path; `normalized` (the normalised scenario) is
    walked alongside to tell list sections from tables where `data` lacks them."""
    parts = _ALIASES.get(path, path).split(".")
    if not path or any(p == "" for p in parts):
        raise _unknown(path, "not a valid dotted path (such as 'tcp.mss' or 'links.wan.rate')")
    node: Any = data
    shadow: Any = normalized
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        where = ".".join(parts[:i]) or "the scenario"
        if isinstance(node, list):
            index = _element_index(node, part, path, where)
            shadow = shadow[index] if isinstance(shadow, list) and index < len(shadow) else None
            if last:
                node[index] = value
            else:
                node = node[index]
            continue
        if not isinstance(node, dict):
            raise _unknown(path, f"{where} is a value ({node!r}), not a table or a list")
        shadow = shadow.get(part) if isinstance(shadow, dict) else None
        if last:
            node[part] = value
        elif part not in node or node[part] is None:
            if isinstance(shadow, list):
                raise _unknown(path, f"{'.'.join(parts[: i + 1])} has no elements")
            node[part] = {}
            node = node[part]
        else:
            node = node[part]


def _element_index(items: list[Any], key: str, path: str, where: str) -> int:
    names = [x.get("name") if isinstance(x, dict) else None for x in items]
    if key in names:
        return names.index(key)
    if key.isdigit() and int(key) < len(items):
        return int(key)
    known = ", ".join(repr(n) for n in names if n is not None) or "none"
    raise _unknown(path, f"{where} has no element named {key!r} (names: {known})")


# ----------------------------------------------------------------------------------------------
# Results


def _frame(columns: Mapping[str, tuple[str, Any]]) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    data: dict[str, Any] = {}
    for name, (dtype, payload) in columns.items():
        if dtype == "str":
            data[name] = pd.Series(payload, dtype="str")
        else:
            data[name] = np.frombuffer(payload, dtype=np.dtype(dtype))
    return pd.DataFrame(data)


def _is_run_entry(p: Path) -> bool:
    """A file or directory `Result.to_dir` (or `tcplab run --plot` inside it) may leave."""
    if p.is_dir():
        return p.name == "plots"
    return (
        p.name in ("summary.json", "scenario.json")
        or p.suffix == ".parquet"
        or (p.name.startswith(".tcplab-write-test-"))
    )


class _Tables(Mapping[str, "pd.DataFrame"]):
    """The trace tables of a run, each turned into a DataFrame when first read: a sweep of
    thousands of runs pays nothing for tables nobody looks at."""

    __slots__ = ("_raw", "_frames")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self._raw = dict(raw)
        self._frames: dict[str, pd.DataFrame] = {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        df = self._frames.get(name)
        if df is None:
            df = self._frames[name] = _frame(self._raw[name])  # KeyError when absent
        return df

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __repr__(self) -> str:
        return f"<trace tables {', '.join(self._raw) or '(none)'}>"


class Result:
    """What one simulation run produced.

    - `scenario`: the scenario as run (normalized, as a dict);
    - `summary`: the nested summary (version, seed, per connection, link and application);
    - `traces`: tables by name ("trace", "events", "packets" when enabled) as DataFrames.

    Results from `run` and `run_many` decode each of these when it is first read.
    """

    __slots__ = ("_scenario", "_scenario_src", "_summary", "_summary_json", "_traces")

    def __init__(
        self,
        scenario: dict[str, Any],
        summary: dict[str, Any],
        traces: Mapping[str, pd.DataFrame],
    ) -> None:
        self._scenario: dict[str, Any] | None = scenario
        self._scenario_src: Scenario | str | None = None
        self._summary: dict[str, Any] | None = summary
        self._summary_json: str | None = None
        self._traces = traces

    @classmethod
    def _from_core(
        cls, scenario: Scenario | str, summary_json: str, tables: Mapping[str, Any]
    ) -> Result:
        """A result straight from the core: `scenario` is the Scenario run, or its JSON text
        (validated when first read); the summary is JSON text; tables are raw columns."""
        r = cls.__new__(cls)
        r._scenario, r._scenario_src = None, scenario
        r._summary, r._summary_json = None, summary_json
        r._traces = _Tables(tables)
        return r

    @property
    def scenario(self) -> dict[str, Any]:
        if self._scenario is None:
            src = self._scenario_src
            if isinstance(src, Scenario):
                self._scenario = src.to_dict(normalized=True)
            else:
                self._scenario = json.loads(_core.validate(src or "{}"))
        return self._scenario

    @scenario.setter
    def scenario(self, value: dict[str, Any]) -> None:
        self._scenario = value

    @property
    def summary(self) -> dict[str, Any]:
        if self._summary is None:
            self._summary = json.loads(self._summary_json or "{}")
        return self._summary

    @summary.setter
    def summary(self, value: dict[str, Any]) -> None:
        self._summary = value

    @property
    def traces(self) -> Mapping[str, pd.DataFrame]:
        return self._traces

    @traces.setter
    def traces(self, value: Mapping[str, pd.DataFrame]) -> None:
        self._traces = value

    # -- files ----------------------------------------------------------------------------------

    def to_dir(self, path: str | os.PathLike[str]) -> Path:
        """Write summary.json, scenario.json and one <table>.parquet per trace table.

        The directory is complete or absent: the files are written into a hidden directory
        beside it (``.NAME.writing-*``) that is renamed to `path` once everything is on disk.
        A directory a run wrote before is replaced as a whole (no file of the old run stays
        beside the new one); a directory holding anything else is refused."""
        from tcplab._atomic import inside, write_dir

        def fill(tmp: Path) -> None:
            (tmp / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n")
            (tmp / "scenario.json").write_text(json.dumps(self.scenario, indent=2) + "\n")
            for name, df in self.traces.items():
                df.to_parquet(inside(tmp, f"{name}.parquet", field="table"), index=False)

        return write_dir(path, fill, _is_run_entry)

    def to_pcap(self, path: str | os.PathLike[str], *, host: str) -> int:
        """Write a pcap of what `host` sent and received (like tcpdump on that host), for
        Wireshark. Needs the per-packet log: run with ``output.packets = true``. Returns the
        number of frames written. See `tcplab.pcap` for how frames are rebuilt."""
        from tcplab.pcap import write_pcap

        if "packets" not in self.traces:
            raise _errors.InvalidValueError(
                "output.packets: false: the per-packet log is needed for a pcap; "
                "set output.packets = true"
            )
        names = [n.get("name") for n in self.scenario.get("nodes", [])]
        if host not in names:
            raise _errors.InvalidValueError(
                f"host: invalid value {host!r}: one of the scenario's nodes: {', '.join(names)}"
            )
        mss = int(self.scenario.get("tcp", {}).get("mss", 1460))
        return write_pcap(self.traces["packets"], path, node=names.index(host), mss=mss)

    @classmethod
    def from_dir(cls, path: str | os.PathLike[str]) -> Result:
        """Read back what `to_dir` wrote. A directory without its summary (not a run's, or
        an old-style write that was cut short) raises InvalidValueError."""
        src = Path(path)
        if not (src / "summary.json").is_file():
            raise _errors._invalid(
                "path",
                str(src),
                "no summary.json: not a complete run directory",
                "a directory written by Result.to_dir or tcplab run --out",
            )
        summary = json.loads((src / "summary.json").read_text())
        scenario_file = src / "scenario.json"
        scenario = json.loads(scenario_file.read_text()) if scenario_file.exists() else {}
        import pandas as pd

        traces = {p.stem: pd.read_parquet(p) for p in sorted(src.glob("*.parquet"))}
        return cls(scenario=scenario, summary=summary, traces=traces)

    def plot(self, outdir: str | os.PathLike[str]) -> dict[str, dict[str, Path]]:
        """Draw this run into `outdir`: the data senders' windows over time with loss marks
        (needs ``output.trace``), the time-sequence diagram (from ``output.packets`` or the
        trace) and the link queues (``output.queues``), each as PNG and SVG. Returns the paths
        by figure (``windows``, ``time_sequence``, ``queues``) and format."""
        from tcplab.report.runplots import run_figures

        return run_figures(self, outdir)

    # -- display --------------------------------------------------------------------------------

    def table(self) -> Any:
        """A rich renderable summary: applications, connections, links."""
        from tcplab.report.tables import summary_table

        return summary_table(self.summary)

    @property
    def warnings(self) -> list[str]:
        """What the summary's numbers do not say by themselves: each application that did not
        finish, with the fraction delivered and why the run stopped; connections that gave
        up; tables that reached ``output.max_rows``."""
        from tcplab.report.tables import cell

        out = []
        s = self.summary
        for a in s.get("apps", []):
            if a.get("completed"):
                continue
            got, size = a.get("bytes_received"), a.get("bytes")
            frac = ""
            if isinstance(got, int) and isinstance(size, int) and size > 0:
                frac = f": {got} of {size} bytes delivered ({100 * got / size:.1f} %)"
            out.append(
                f"application {a.get('name')!r} did not finish{frac} when the run stopped "
                f"(stopped_by: {s.get('stopped_by', '?')} at {cell(s.get('sim_time_s'))} s)"
            )
        for c in s.get("connections", []):
            for end in ("client", "server"):
                why = str((c.get(end) or {}).get("end_reason", ""))
                if why.startswith(("gave up", "handshake failed")):
                    out.append(f"connection {c.get('name')!r}, {end}: {why}")
        for t in s.get("tables_truncated", []):
            where = f" of link direction {t['link']}" if "link" in t else ""
            since = f" from {t['first_dropped_s']:.6g} s" if "first_dropped_s" in t else ""
            out.append(
                f"table {t['table']!r}{where} kept its first {t['rows_kept']} rows "
                f"(output.max_rows) and left out {t['rows_dropped']}{since}; raise "
                "output.max_rows or sample the trace with output.trace_interval"
            )
        return out

    def __str__(self) -> str:
        from rich.console import Console

        buf = io.StringIO()
        Console(file=buf, width=110, force_terminal=False, color_system=None).print(self.table())
        return buf.getvalue()

    def _repr_html_(self) -> str:
        """Notebook view: the summary tables and, with a trace, the senders' windows."""
        from tcplab.report.notebook import result_html

        return result_html(self)

    def __repr__(self) -> str:
        from tcplab.report.tables import cell

        s = self.summary
        apps = ", ".join(
            f"{a.get('name')}: {cell(a.get('response_time_s'))} s" for a in s.get("apps", [])
        )
        tables = ", ".join(f"{n} {len(df)}x{df.shape[1]}" for n, df in self.traces.items())
        return (
            f"Result(seed={s.get('seed')}, sim_time_s={cell(s.get('sim_time_s'))}, "
            f"apps=[{apps}], traces=[{tables}])"
        )


# ----------------------------------------------------------------------------------------------
# Running

ScenarioLike = Scenario | Mapping[str, Any] | str | os.PathLike[str]


def _as_scenario(sc: ScenarioLike) -> Scenario:
    if isinstance(sc, Scenario):
        return sc
    if isinstance(sc, Mapping):
        return Scenario.from_dict(sc)
    if isinstance(sc, str | os.PathLike):
        return Scenario.from_toml(sc)
    raise TypeError(f"expected a Scenario, a dict or a TOML path, not {type(sc).__name__}")


def run(scenario: ScenarioLike, *, seed: int | None = None) -> Result:
    """Simulate one scenario (GIL released while it runs). `seed` overrides run.seed."""
    sc = _as_scenario(scenario)
    if seed is not None:
        sc = sc.with_seed(seed)
    summary_json, tables = _core.run(sc._json)
    return Result._from_core(sc, summary_json, tables)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector: while thousands of small objects that live on
    (results, tasks, rows) are made and none is garbage, it would walk them all again and again
    (a quarter of the time of short runs)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


@overload
def run_many(
    scenarios: Iterable[ScenarioLike],
    *,
    jobs: int | None = None,
    errors: Literal["raise"] = "raise",
) -> list[Result]: ...
@overload
def run_many(
    scenarios: Iterable[ScenarioLike],
    *,
    jobs: int | None = None,
    errors: Literal["return"],
) -> list[Result | _errors.TcplabError | TypeError]: ...
def run_many(
    scenarios: Iterable[ScenarioLike],
    *,
    jobs: int | None = None,
    errors: Literal["raise", "return"] = "raise",
) -> list[Any]:
    """Simulate many scenarios in parallel in Rust on `jobs` threads (default: one per CPU),
    with the GIL released. Results come back in input order.

    Every scenario runs to its end even if another fails. With ``errors="raise"`` (default) the
    first failure in input order is then raised (with a note saying which scenario); with
    ``errors="return"`` its exception object takes its place in the returned list. An item
    that is not a valid scenario (a bad dict, an unreadable TOML file: a ScenarioError) or
    not a scenario at all (``42``, ``None``: a TypeError) is such a failure too, its error
    noting the item's index; with ``errors="raise"`` it is raised before anything runs.
    """
    if errors not in ("raise", "return"):
        raise ValueError(f"errors must be 'raise' or 'return', not {errors!r}")
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    items = list(scenarios)
    # An item that is not a valid scenario (a bad dict, an unreadable TOML path) fails alone:
    # with errors="return" its error takes its place, like a run that fails.
    scs: list[Scenario | _errors.TcplabError | TypeError] = []
    for i, item in enumerate(items):
        try:
            scs.append(_as_scenario(item))
        except (_errors.TcplabError, TypeError) as e:  # TypeError: not a scenario at all
            e.add_note(f"raised by scenario {i} of {len(items)} given to run_many")
            if errors == "raise":
                raise
            scs.append(e)
    valid = [s for s in scs if isinstance(s, Scenario)]
    with gc_paused():
        outputs = iter(_core.run_many([s._json for s in valid], jobs))
        results: list[Any] = []
        for i, sc in enumerate(scs):
            if not isinstance(sc, Scenario):
                results.append(sc)
                continue
            out = next(outputs)
            if isinstance(out, BaseException):
                out.add_note(f"raised by scenario {i} of {len(scs)} given to run_many")
                if errors == "raise":
                    raise out
                results.append(out)
            else:
                results.append(Result._from_core(sc, *out))
    return results
