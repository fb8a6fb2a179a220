"""Sweeps: a base scenario, a grid and seeds, run into a resumable results store::

    >>> import tcplab
    >>> grid = {"links.wan.ab.error.p": [0, 0.01], "tcp.congestion_control": "reno,cubic"}
    >>> sw = tcplab.Sweep("examples/sarkar2022.toml", grid=grid, seeds="1..10")
    >>> out = sw.run(store="out/sweep")
    >>> tcplab.Store("out/sweep").sql("SELECT count(*) AS runs FROM runs")
       runs
    0    40

Every run has a `run_id`, a hash of its normalized scenario (without the output switches,
which do not change what is simulated) and its seed. A store keeps one row per run_id; a sweep
computes only the run_ids its store lacks, so rerunning it (or a larger grid over the same
base scenario) costs only what is new.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from tcplab import errors as _errors
from tcplab.api import Scenario, ScenarioLike, _as_scenario, gc_paused

from .grid import MAX_RUNS, Points, Seeds, axis_values, parse_seeds
from .parts import sha256 as _sha256
from .runs import rows_of, run_tasks
from .store import KEEP_TABLES, Store, StoreError, _read_plan
from .store_write import open_writer
from .task import ClusterError, Task, parse_scheduler

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Sweep",
    "SweepOutcome",
    "Store",
    "StoreError",
    "ClusterError",
    "scenario_key",
    "run_id",
    "run_tasks",
    "rows_of",
    "repair",
    "MAX_RUNS",
    "KEEP_TABLES",
]

# A seed no scenario holds, replaced by each run's seed in the scenario's JSON text.
_SEED_MARK = 987654321987654321
# The output switches of every sweep run: rows only, no traces.
_NO_OUTPUT = {"trace": False, "events": False, "packets": False}


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def scenario_key(normalized: Mapping[str, Any]) -> str:
    """A hash of what a normalized scenario simulates, leaving out run.seed and the output
    switches."""
    data = dict(normalized)
    data.pop("output", None)
    data["run"] = {k: v for k, v in dict(data.get("run", {})).items() if k != "seed"}
    return _sha256(_canonical(data).encode()).hexdigest()


def run_id(point_key: str, seed: int, *extra: str) -> str:
    """The stable id of a run: its scenario's key, its seed (and a study's case key)."""
    text = ":".join((point_key, str(seed), *extra))
    return _sha256(text.encode()).hexdigest()[:20]


def scenario_json(normalized: Mapping[str, Any], seed: int, output: Mapping[str, Any]) -> str:
    """The core's JSON of a normalized scenario with `seed` and `output` set."""
    data = dict(normalized)
    data["run"] = {**dict(data.get("run", {})), "seed": seed}
    data["output"] = {**dict(data.get("output", {})), **output}
    return json.dumps(data, allow_nan=False)


class SweepOutcome:
    """What `Sweep.run` did: `total` runs, of which `computed` were run now and `reused` came
    from the store; `frame` holds the sweep's rows in grid order (points, then seeds).
    (Written out rather than a dataclass: making one costs 1 ms, a fiftieth of a rerun that
    finds every run in its store.)"""

    _FIELDS = ("total", "computed", "reused", "seconds", "store", "_ids", "_rows")

    def __init__(
        self,
        total: int,
        computed: int,
        reused: int,
        seconds: float,
        store: Store | None = None,
        _ids: Sequence[str] = (),
        _rows: list[dict[str, Any]] | None = None,
    ) -> None:
        self.total = total
        self.computed = computed
        self.reused = reused
        self.seconds = seconds
        self.store = store
        self._ids = _ids
        self._rows = _rows
        #: What was found damaged in the store and set aside (its runs were computed again).
        self.set_aside = 0

    def __repr__(self) -> str:
        return (
            f"SweepOutcome(total={self.total!r}, computed={self.computed!r}, "
            f"reused={self.reused!r}, seconds={self.seconds!r}, store={self.store!r})"
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not SweepOutcome:
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]

    @property
    def frame(self) -> pd.DataFrame:
        import pandas as pd

        if self._rows is not None:
            return pd.DataFrame.from_records(self._rows)
        assert self.store is not None
        return rows_of(self.store, self._ids)


class _Axis(NamedTuple):
    """One grid axis: its values as given, as put into the scenario (a quantity's canonical
    spelling), as its column shows them (tables and lists as JSON text) and, for a rate,
    duration, size or probability, in SI units (`si`, unit `unit`)."""

    path: str
    given: list[Any]
    applied: list[Any]
    labels: list[Any]
    si: list[Any] | None
    unit: str | None


def _label(v: Any) -> Any:
    if isinstance(v, dict | list | tuple):
        return json.dumps(v, sort_keys=True, separators=(",", ":"), default=str)
    return v


def _make_axis(path: str, values: list[Any], *, zip_: bool) -> _Axis:
    from .quantity import QUANTITY_UNITS, canonical, field_kind

    kind = field_kind(path)
    applied, si = [], []
    for v in values:
        c = canonical(kind, v) if kind else None
        applied.append(v if c is None else c[0])
        si.append(None if c is None else c[1])
    if not zip_:  # the same value twice would be the same runs twice
        seen: dict[str, Any] = {}
        for v, a in zip(values, applied, strict=True):
            key = _canonical(a) if not isinstance(a, float) else repr(a)
            if key in seen:
                same = "" if seen[key] == v else f" as {seen[key]!r} (the same {kind})"
                raise _errors._invalid(
                    path, v, f"the value is given twice{same}", "each value of an axis once"
                )
            seen[key] = v
    has_si = kind is not None and any(x is not None for x in si)
    return _Axis(
        path,
        list(values),
        applied,
        [_label(v) for v in values],
        si if has_si else None,
        QUANTITY_UNITS[kind] if has_si and kind else None,
    )


def _canonical_path(path: str) -> str:
    return {"stop_time": "run.stop_time"}.get(path, path)


class Sweep:
    """A base scenario, a grid ({dotted path: values}) and seeds.

    Values are a list, or text in the forms of `tcplab.sweep.grid` (``"1e-8..1e-4:17log"``,
    ``"0..0.1:11"``, ``"reno,cubic"``). `seeds` is a count N (1..N), a list, or text
    (``"1..20"``). The grid is the product of the axes (first axis outermost) or, with
    ``zip=True``, their element-wise pairing. A sweep of more than `max_runs` runs (points x
    seeds; default `tcplab.sweep.grid.MAX_RUNS`) is refused before anything of its size is
    made; the points and runs are made one at a time as they are run.

    An axis over a rate, duration, size or probability also gets the column ``<path>.si``,
    the value in SI units (bit/s, s, bytes), and two spellings of one value (``"10Mbps"`` and
    ``"10000kbps"``) are one run; the same value twice in an axis is refused.
    """

    def __init__(
        self,
        base: ScenarioLike,
        grid: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
        seeds: int | str | Sequence[int] = 1,
        *,
        zip: bool = False,  # noqa: A002 - the word users write
        max_runs: int = MAX_RUNS,
    ) -> None:
        if isinstance(max_runs, bool) or not isinstance(max_runs, int) or max_runs < 1:
            raise _errors._invalid("--max-runs", max_runs, "", "a whole number of runs >= 1")
        self.base: Scenario = _as_scenario(base)
        self.zip = bool(zip)
        self.max_runs = max_runs
        items = list(grid.items() if isinstance(grid, Mapping) else (grid or []))
        paths = [_canonical_path(str(p).strip()) for p, _ in items]
        for i, p in enumerate(paths):
            if p in paths[:i]:
                raise _errors._invalid(
                    p, p, "the path is given twice (an axis each time)", "each path once"
                )
        given = [(p, axis_values(p, v)) for p, v in items]
        self._axes = [_make_axis(_canonical_path(p), v, zip_=self.zip) for p, v in given]
        self.axes: list[tuple[str, list[Any]]] = [(a.path, a.given) for a in self._axes]
        self.points = Points(self.axes, zip_=self.zip)
        self.seeds: Seeds = parse_seeds(seeds, limit=max_runs)
        total = self.points.count * len(self.seeds)
        if total > max_runs:
            raise _errors._invalid(
                "sweep",
                f"{self.points.count} points x {len(self.seeds)} seeds",
                f"{total} runs, more than the limit of {max_runs}",
                "fewer points or seeds, or a higher limit (tcplab sweep --max-runs N, "
                "Sweep(..., max_runs=N))",
            )
        if self.zip and self._axes:  # the same point twice would be the same runs twice
            seen: set[str] = set()
            for i in range(len(self.points)):
                key = _canonical([a.applied[i] for a in self._axes])
                if key in seen:
                    raise _errors._invalid(
                        "--zip", self.points[i], "the point is given twice", "each point once"
                    )
                seen.add(key)

    @classmethod
    def from_toml(
        cls,
        path: str | Path,
        *,
        grid: Sequence[tuple[str, Any]] = (),
        seeds: int | str | Sequence[int] | None = None,
        zip: bool | None = None,  # noqa: A002
        overrides: Mapping[str, Any] | None = None,
        max_runs: int = MAX_RUNS,
    ) -> Sweep:
        """A sweep from a scenario file whose optional ``[sweep]`` table holds ``grid``
        (a table of path = values), ``seeds`` and ``zip``. `grid` axes given here are added
        (replacing the file's axis of the same path; a path given twice here is an error);
        `seeds` and `zip` replace the file's."""
        from tcplab.api import load_toml_file

        data = load_toml_file(path)
        table = data.pop("sweep", {})
        if not isinstance(table, Mapping):
            raise _bad("sweep", table, "a table with grid, seeds and zip")
        unknown = set(table) - {"grid", "seeds", "zip"}
        if unknown:
            name = sorted(unknown)[0]
            raise _errors._make(
                _errors.UnknownFieldError,
                f"sweep.{name}: unknown field; allowed: grid, seeds, zip",
                field=f"sweep.{name}",
                allowed="grid, seeds, zip",
            )
        file_grid = table.get("grid", {})
        if not isinstance(file_grid, Mapping):
            raise _bad("sweep.grid", file_grid, "a table of path = values")
        axes: dict[str, Any] = {}
        for p, v in _flat_axes(file_grid):
            p = _canonical_path(p)
            if p in axes:
                raise _errors._invalid(
                    f"sweep.grid.{p}", p, "the path is given twice", "each path once"
                )
            axes[p] = v
        given: set[str] = set()
        for p, v in grid:
            p = _canonical_path(p)
            if p in given:
                raise _errors._invalid(
                    "--grid", p, "the path is given twice (an axis each time)", "each path once"
                )
            given.add(p)
            axes.pop(p, None)
            axes[p] = v
        file_zip = table.get("zip", False)
        if not isinstance(file_zip, bool):
            raise _bad("sweep.zip", file_zip, "true or false")
        base = Scenario(data, source=str(path))
        if overrides:
            base = base.with_overrides(overrides)
        return cls(
            base,
            list(axes.items()),
            seeds if seeds is not None else table.get("seeds", 1),
            zip=file_zip if zip is None else zip,
            max_runs=max_runs,
        )

    # -- the runs ---------------------------------------------------------------------------

    @property
    def base_key(self) -> str:
        return scenario_key(self.base.to_dict(normalized=True))

    def spec(self) -> dict[str, Any]:
        """The grid and seeds as a store records them (JSON), from which `from_spec` makes
        the same sweep again."""
        return {
            "axes": [[a.path, a.given] for a in self._axes],
            "zip": self.zip,
            "seeds": self.seeds.text(),
        }

    @classmethod
    def from_spec(cls, base: ScenarioLike, spec: Mapping[str, Any], max_runs: int) -> Sweep:
        sw = cls(
            base,
            [(p, v) for p, v in spec["axes"]],
            spec["seeds"],
            zip=bool(spec.get("zip")),
            max_runs=max_runs,
        )
        sw._keep = check_keep(spec.get("keep", []))
        return sw

    @property
    def grid_units(self) -> dict[str, str]:
        """{path: SI unit} of the axes over quantities (their ``<path>.si`` columns)."""
        return {a.path: a.unit for a in self._axes if a.unit is not None}

    def _point_items(self) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """(overrides, row labels) of each point, in grid order."""
        axes = self._axes
        if not axes:
            yield {}, {}
            return
        ranges = [range(len(a.given)) for a in axes]
        combos: Iterable[tuple[int, ...]] = (
            ((i,) * len(axes) for i in ranges[0]) if self.zip else itertools.product(*ranges)
        )
        for idx in combos:
            over = {a.path: a.applied[i] for a, i in zip(axes, idx, strict=True)}
            labels: dict[str, Any] = {}
            for a, i in zip(axes, idx, strict=True):
                labels[a.path] = a.labels[i]
                if a.si is not None:
                    labels[f"{a.path}.si"] = a.si[i]
            yield over, labels

    def check_values(self) -> None:
        """Refuse a bad value before anything runs: each axis value on its own on the base
        scenario (the core names the field; a note names the value)."""
        for a in self._axes:
            for v, applied in zip(a.given, a.applied, strict=True):
                try:
                    self.base.with_overrides({a.path: applied})
                except _errors.TcplabError as e:
                    e.add_note(f"at grid value {a.path}={v!r}")
                    raise

    def iter_tasks(self, output: Mapping[str, Any] | None = None) -> Iterator[Task]:
        """Every run of the sweep in grid order (points, then seeds), made as they are asked
        for. `output` sets the runs' output switches (default: rows only, no traces)."""
        out = dict(_NO_OUTPUT if output is None else output)
        points: dict[str, int] = {}
        for n, (point, labels) in enumerate(self._point_items()):
            try:
                sc = self.base.with_overrides(point) if point else self.base
            except _errors.TcplabError as e:
                e.add_note(f"at grid point {_point_text(self.points[n])}")
                raise
            norm = sc.to_dict(normalized=True)
            key = scenario_key(norm)
            if key in points:
                first = self.points[points[key]]
                raise _errors._invalid(
                    "--grid",
                    _point_text(self.points[n]),
                    f"the same scenario as the grid point {_point_text(first)}",
                    "grid points that differ",
                )
            points[key] = n
            # The JSON once per point, the seed put in as text: json.dumps per run would cost
            # as much as a short simulation.
            text = scenario_json(norm, _SEED_MARK, out)
            head, _, tail = text.partition(str(_SEED_MARK))
            once = text.count(str(_SEED_MARK)) == 1
            ids = _sha256(f"{key}:".encode())  # run_id(key, seed), hashed from here
            for seed in self.seeds:
                js = f"{head}{seed}{tail}" if once else scenario_json(norm, seed, out)
                h = ids.copy()
                h.update(str(seed).encode())
                yield Task(h.hexdigest()[:20], seed, labels, js, False, text if once else None)

    def tasks(self) -> list[Task]:
        """Every run of the sweep in grid order (points, then seeds), as a list."""
        with gc_paused():  # a task per run: many objects, no garbage
            return list(self.iter_tasks())

    def __len__(self) -> int:
        return len(self.points) * len(self.seeds)

    def __repr__(self) -> str:
        axes = ", ".join(f"{p}: {len(v)}" for p, v in self.axes)
        return (
            f"Sweep({len(self.points)} points ({axes or 'no axes'}{', zipped' if self.zip else ''})"
            f" x {len(self.seeds)} seeds)"
        )

    def run(
        self,
        store: str | Path | Store | None = None,
        *,
        scheduler: str | None = None,
        jobs: int | None = None,
        progress: bool = False,
        keep: Sequence[str] = (),
        notify: Callable[[str], None] | None = None,
    ) -> SweepOutcome:
        """Run what `store` lacks (everything without a store) and return the sweep's rows.

        `scheduler`: None runs here on `jobs` threads; ``"local:N"`` on a Dask LocalCluster of
        N processes; ``"tcp://HOST:PORT"`` on a running Dask scheduler (reached before the
        store is made: an unreachable one leaves nothing behind). `keep` names per-run tables
        to store beside the rows (trace, link_series, app_series, queues; a store keeps
        them for every run). `notify` hears, one sentence each, what the store set aside as
        damaged and what happened to the cluster (a worker lost). Ctrl-C stops within about a
        second; what finished is in the store."""
        if parse_scheduler(scheduler)[0] == "inprocess":  # refuse a bad one before anything
            reach: Any = contextlib.nullcontext(None)
        else:
            from .execute import connect_scheduler

            reach = connect_scheduler(scheduler)
        keep = check_keep(keep)
        if keep and store is None:
            raise _errors._invalid(
                "--keep", ",".join(keep), "kept tables go into a store", "--store DIR as well"
            )
        t0 = time.perf_counter()
        self.check_values()
        with reach as cluster:
            if store is None:
                return self._run_without_store(cluster, jobs, progress, notify, t0)
            st = store if isinstance(store, Store) else Store(store)
            base = self.base.to_dict(normalized=True)
            with open_writer(
                st,
                kind="sweep",
                base=base,
                base_hash=scenario_key(base),  # self.base_key, from the dict at hand
                grid_paths=[p for p, _ in self.axes],
                grid_units=self.grid_units,
                keep=keep,
                base_given=self.base.to_dict(),
                notify=notify,
            ) as writer:
                plan = writer.begin_plan(
                    {**self.spec(), "keep": keep}, len(self), self.base.to_dict()
                )
                stream = _Stream(self.iter_tasks(keep_output(self.base, keep)), writer.have)
                # A task and a row per run: many objects, no garbage (the cyclic collector
                # stays on beside a Dask client, whose event loop makes garbage).
                paused = gc_paused if cluster is None else contextlib.nullcontext
                with paused():
                    first = next(stream, None)
                if first is not None:  # else no executor, thread or progress bar: all is there
                    from .execute import KeepRows, flat_row

                    with paused():
                        run_tasks(
                            itertools.chain([first], stream),
                            KeepRows(keep) if keep else flat_row,
                            writer,
                            jobs=jobs,
                            scheduler=cluster,
                            progress=progress,
                            total=len(self),
                            skipped=stream,
                            notify=notify,
                        )
                writer.finish_plan(plan, stream.ids)
        out = SweepOutcome(
            len(self),
            stream.computed,
            stream.reused,
            time.perf_counter() - t0,
            st,
            stream.ids,
        )
        out.set_aside = writer.set_aside
        return out

    def _run_without_store(
        self, cluster: Any, jobs: int | None, progress: bool, notify: Any, t0: float
    ) -> SweepOutcome:
        from .execute import execute, flat_row

        rows: list[dict[str, Any]] = []
        ids: list[str] = []

        def tasks() -> Iterator[Task]:
            for t in self.iter_tasks():
                ids.append(t.run_id)
                yield t

        execute(
            tasks(),
            flat_row,
            lambda done: rows.extend(r for _, r, _ in done),
            jobs=jobs,
            scheduler=cluster,
            progress=progress,
            total=len(self),
            notify=notify,
        )
        order = {r: i for i, r in enumerate(ids)}
        rows.sort(key=lambda r: order[r["run_id"]])
        return SweepOutcome(len(ids), len(ids), 0, time.perf_counter() - t0, None, ids, rows)


class _Stream:
    """The runs a store lacks, from a sweep's runs: counts the ones it has (`reused`, told to
    `on_skip`) and records every run id in grid order (`ids`)."""

    def __init__(self, tasks: Iterator[Task], have: set[str]) -> None:
        self._tasks = tasks
        self._have = have
        self.ids: list[str] = []
        self.reused = 0
        self.computed = 0
        self.on_skip: Callable[[int], None] | None = None

    def __iter__(self) -> _Stream:
        return self

    def __next__(self) -> Task:
        have, ids = self._have, self.ids
        for t in self._tasks:
            ids.append(t.run_id)
            if t.run_id in have:
                self.reused += 1
                if self.on_skip is not None:
                    self.on_skip(1)
                continue
            self.computed += 1
            return t
        raise StopIteration


def check_keep(keep: Sequence[str] | str) -> list[str]:
    """The per-run tables to keep, checked (``trace,queues`` or a list)."""
    items = [k.strip() for k in keep.split(",")] if isinstance(keep, str) else list(keep)
    for k in items:
        if k not in KEEP_TABLES:
            raise _errors._invalid(
                "--keep", k, "not a per-run table a sweep can keep", ", ".join(KEEP_TABLES)
            )
    if len(set(items)) != len(items):
        raise _errors._invalid("--keep", ",".join(items), "a table is named twice", "each once")
    return [k for k in KEEP_TABLES if k in items]


def keep_output(base: Scenario, keep: Sequence[str]) -> dict[str, Any]:
    """The output switches of a sweep's runs that keep the tables `keep`: the base scenario's
    intervals for link_series and app_series where it sets them, else 1 s and 60 s."""
    out: dict[str, Any] = dict(_NO_OUTPUT)
    given = base.to_dict(normalized=True).get("output", {})
    if "trace" in keep:
        out["trace"] = True
    if "queues" in keep:
        out["queues"] = True
    for name, default in (("link_series", "1s"), ("app_series", "60s")):
        if name in keep:
            value = given.get(name)
            out[name] = value if isinstance(value, str) and value else default
    return out


def _flat_axes(table: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    # `[sweep.grid]` keys are dotted paths; quoted ("links.wan.ab.error.p" = [...]) they arrive
    # as one key, unquoted as nested tables, which are flattened back into paths.
    out: list[tuple[str, Any]] = []
    for k, v in table.items():
        path = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.extend(_flat_axes(v, f"{path}."))
        else:
            out.append((path, v))
    return out


def _point_text(point: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in point.items()) or "(the base scenario)"


def _bad(field: str, value: Any, allowed: str) -> _errors.TcplabError:
    return _errors._invalid(field, value, "", allowed)


def repair(
    store: str | Path | Store,
    *,
    scheduler: str | None = None,
    jobs: int | None = None,
    progress: bool = False,
    notify: Callable[[str], None] | None = None,
    max_runs: int = MAX_RUNS,
) -> Any:
    """Check every part of a sweep's store, set aside what is damaged (parts, run id lists,
    plans; store.json is written again), and compute again every run of every sweep recorded
    in it that is not present: afterwards the store holds what the uninterrupted sweeps would
    have written. Needs nothing but the store: each sweep's base scenario, grid and seeds are
    recorded in its plans/."""

    st = store if isinstance(store, Store) else Store(store)
    if not st.path.is_dir():
        raise StoreError(f"{st.path}: no tcplab store here (not a directory)")
    plans = []
    folder = st.path / "plans"
    if folder.is_dir():
        plans = [p for p in map(_read_plan, sorted(folder.glob("*.json"))) if not p.damage]
    try:
        m = st.manifest
    except StoreError:
        m = {}
    if m and not str(m.get("kind", "")).startswith("sweep"):
        raise StoreError(
            f"{st.path}: holds a {m.get('kind')!r} store; a study's store is repaired by "
            "running the study again with --store"
        )
    given = m.get("base_given") or next((p.spec.get("base_given") for p in plans), None)
    if not isinstance(given, dict):
        raise StoreError(
            f"{st.path}: neither store.json nor a sweep's record in plans/ holds the base "
            "scenario: the store cannot be repaired from itself; run the sweep again"
        )
    base = Scenario(given)
    t0 = time.perf_counter()
    total = computed = reused = aside = 0
    sweeps = [Sweep.from_spec(base, p.spec, max_runs) for p in plans]
    if not plans:
        _check_aside_only(st, base, notify)
        return SweepOutcome(0, 0, 0, time.perf_counter() - t0, st)
    for sw in sweeps:
        keep = m.get("keep") or spec_keep(sw)
        out = sw.run(st, scheduler=scheduler, jobs=jobs, progress=progress, keep=keep,
                     notify=notify)  # fmt: skip
        total, computed, reused = total + out.total, computed + out.computed, reused + out.reused
        aside += out.set_aside
    res = SweepOutcome(total, computed, reused, time.perf_counter() - t0, st)
    res.set_aside = aside
    return res


def spec_keep(sw: Any) -> list[str]:
    return list(getattr(sw, "_keep", []))


def _check_aside_only(st: Store, base: Scenario, notify: Any) -> None:

    norm = base.to_dict(normalized=True)
    with open_writer(
        st, kind="sweep", base=norm, base_hash=scenario_key(norm), notify=notify,
        base_given=base.to_dict(),
    ):  # fmt: skip
        pass
