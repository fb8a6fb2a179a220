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

import json
import time
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab import errors as _errors
from tcplab.api import Scenario, ScenarioLike, _as_scenario, gc_paused

from .grid import axis_values, grid_points, parse_seeds
from .store import Store, StoreError
from .task import Task, parse_scheduler

try:
    # CPython's own SHA-256, as the standard library's random module takes its SHA-512: the same
    # digests, without hashlib's loading OpenSSL (2 ms, a twentieth of a rerun that finds
    # every run in its store).
    from _sha256 import sha256 as _sha256  # Python 3.11
except ImportError:  # pragma: no cover - 3.12 renamed it; other builds may lack it
    try:
        from _sha2 import sha256 as _sha256  # type: ignore[no-redef]
    except ImportError:
        from hashlib import sha256 as _sha256  # type: ignore[assignment]

if TYPE_CHECKING:
    import pandas as pd

    from .execute import FlatBatch

__all__ = [
    "Sweep",
    "SweepOutcome",
    "Store",
    "StoreError",
    "scenario_key",
    "run_id",
    "run_tasks",
    "rows_of",
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

    _FIELDS = ("total", "computed", "reused", "seconds", "store", "_tasks", "_rows")

    def __init__(
        self,
        total: int,
        computed: int,
        reused: int,
        seconds: float,
        store: Store | None = None,
        _tasks: Sequence[Task] = (),
        _rows: list[dict[str, Any]] | None = None,
    ) -> None:
        self.total = total
        self.computed = computed
        self.reused = reused
        self.seconds = seconds
        self.store = store
        self._tasks = _tasks
        self._rows = _rows

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
        return rows_of(self.store, self._tasks)


class Sweep:
    """A base scenario, a grid ({dotted path: values}) and seeds.

    Values are a list, or text in the forms of `tcplab.sweep.grid` (``"1e-8..1e-4:17log"``,
    ``"0..0.1:11"``, ``"reno,cubic"``). `seeds` is a count N (1..N), a list, or text
    (``"1..20"``). The grid is the product of the axes (first axis outermost) or, with
    ``zip=True``, their element-wise pairing.
    """

    def __init__(
        self,
        base: ScenarioLike,
        grid: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
        seeds: int | str | Sequence[int] = 1,
        *,
        zip: bool = False,  # noqa: A002 - the word users write
    ) -> None:
        self.base: Scenario = _as_scenario(base)
        items = grid.items() if isinstance(grid, Mapping) else (grid or [])
        self.axes: list[tuple[str, list[Any]]] = [(p, axis_values(p, v)) for p, v in items]
        self.seeds: list[int] = parse_seeds(seeds)
        self.zip = bool(zip)
        self.points: list[dict[str, Any]] = grid_points(self.axes, zip_=self.zip)

    @classmethod
    def from_toml(
        cls,
        path: str | Path,
        *,
        grid: Sequence[tuple[str, Any]] = (),
        seeds: int | str | Sequence[int] | None = None,
        zip: bool | None = None,  # noqa: A002
        overrides: Mapping[str, Any] | None = None,
    ) -> Sweep:
        """A sweep from a scenario file whose optional ``[sweep]`` table holds ``grid``
        (a table of path = values), ``seeds`` and ``zip``. `grid` axes given here are added
        (replacing the file's axis of the same path); `seeds` and `zip` replace the file's."""
        text = Path(path).read_text(encoding="utf-8")
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise _errors._make(
                _errors.ParseError, f"scenario is not valid TOML ({path}): {e}", format="TOML"
            ) from None
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
        axes: dict[str, Any] = dict(_flat_axes(file_grid))
        for p, v in grid:
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
        )

    # -- the runs ---------------------------------------------------------------------------

    @property
    def base_key(self) -> str:
        return scenario_key(self.base.to_dict(normalized=True))

    def tasks(self) -> list[Task]:
        """Every run of the sweep in grid order (points, then seeds)."""
        out: list[Task] = []
        for point in self.points:
            try:
                sc = self.base.with_overrides(point) if point else self.base
            except _errors.TcplabError as e:
                e.add_note(f"at grid point {_point_text(point)}")
                raise
            norm = sc.to_dict(normalized=True)
            key = scenario_key(norm)
            # The JSON once per point, the seed put in as text: json.dumps per run would cost
            # as much as a short simulation.
            text = scenario_json(norm, _SEED_MARK, _NO_OUTPUT)
            head, _, tail = text.partition(str(_SEED_MARK))
            once = text.count(str(_SEED_MARK)) == 1
            ids = _sha256(f"{key}:".encode())  # run_id(key, seed), hashed from here
            for seed in self.seeds:
                js = f"{head}{seed}{tail}" if once else scenario_json(norm, seed, _NO_OUTPUT)
                h = ids.copy()
                h.update(str(seed).encode())
                out.append(Task(h.hexdigest()[:20], seed, point, js, False, text))
        return out

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
    ) -> SweepOutcome:
        """Run what `store` lacks (everything without a store) and return the sweep's rows.

        `scheduler`: None runs here on `jobs` threads; ``"local:N"`` on a Dask LocalCluster of
        N processes; ``"tcp://HOST:PORT"`` on a running Dask scheduler. Ctrl-C stops within
        about a second; what finished is in the store."""
        parse_scheduler(scheduler)  # refuse a bad scheduler before anything runs
        t0 = time.perf_counter()
        with gc_paused():  # a task per run: many objects, no garbage
            tasks = self.tasks()
        if store is None:
            from .execute import execute, flat_row

            rows: list[dict[str, Any]] = []
            execute(
                tasks,
                flat_row,
                lambda done: rows.extend(r for _, r, _ in done),
                jobs=jobs,
                scheduler=scheduler,
                progress=progress,
            )
            order = {t.run_id: i for i, t in enumerate(tasks)}
            rows.sort(key=lambda r: order[r["run_id"]])
            return SweepOutcome(
                len(tasks), len(tasks), 0, time.perf_counter() - t0, None, tasks, rows
            )
        st = store if isinstance(store, Store) else Store(store)
        base = self.base.to_dict(normalized=True)
        with st.open_for_writing(
            kind="sweep",
            base=base,
            base_hash=scenario_key(base),  # self.base_key, from the dict at hand
            grid_paths=[p for p, _ in self.axes],
        ) as writer:
            have = st.run_ids()
            todo = [t for t in tasks if t.run_id not in have]
            if todo:  # else no executor, no thread, no progress bar: nothing is to be run
                from .execute import flat_row

                run_tasks(todo, flat_row, writer, jobs=jobs, scheduler=scheduler, progress=progress)
        return SweepOutcome(
            len(tasks), len(todo), len(tasks) - len(todo), time.perf_counter() - t0, st, tasks
        )


def run_tasks(
    tasks: Sequence[Task],
    maker: Any,
    writer: Any,
    *,
    jobs: int | None,
    scheduler: str | None,
    progress: bool,
    description: str = "simulating",
    flush_seconds: float = 1.0,
    flush_rows: int = 4000,
    on_kept: Any = None,
) -> None:
    """Run `tasks` into a store `writer`: rows are flushed as one Parquet part every
    `flush_seconds` or `flush_rows` rows (and at the end, and when interrupted); kept Results go
    to `on_kept` (default: the store's traces/) before their rows are written.

    A part is written on a thread of its own while the next batch runs, one part at a time:
    in a sweep of short runs, making and writing the table of 10,000 rows costs as much as a
    fifth of running them. What is handed to that thread is written before this returns, also
    when interrupted; a kill -9 loses it, and a rerun computes it again. No tasks: nothing is
    started (no executor, thread or progress bar)."""
    if not tasks:
        return
    from concurrent.futures import Future, ThreadPoolExecutor

    from .execute import FlatBatch, execute, flat_table
    from .store import rows_table

    batches: list[FlatBatch] = []  # from flat_row
    rows: list[dict[str, Any]] = []  # from other makers
    waiting = 0  # rows in batches and rows
    last = time.monotonic()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tcplab-store")
    writing: Future[None] | None = None

    def write(bs: list[FlatBatch], rs: list[dict[str, Any]]) -> None:
        if bs:
            writer.append(flat_table(bs))
        if rs:
            writer.append(rows_table(rs))

    def flush(here: bool) -> None:
        nonlocal writing, waiting
        if writing is not None:
            writing.result()  # the part before: written (or its error raised here)
            writing = None
        if batches or rows:
            job = (list(batches), list(rows))
            batches.clear()
            rows.clear()
            waiting = 0
            if here:
                write(*job)
            else:
                writing = pool.submit(write, *job)

    def sink(done: Any) -> None:
        nonlocal last, waiting
        if isinstance(done, FlatBatch):
            batches.append(done)
            waiting += len(done)
        else:
            for task, row, kept in done:
                if kept is not None:
                    (on_kept or writer.save_traces)(task.run_id, kept)
                rows.append(row)
                waiting += 1
        if time.monotonic() - last >= flush_seconds or waiting >= flush_rows:
            flush(here=False)
            last = time.monotonic()

    try:
        execute(
            tasks,
            maker,
            sink,
            jobs=jobs,
            scheduler=scheduler,
            progress=progress,
            description=description,
        )
    finally:
        try:
            flush(here=True)  # also on Ctrl-C: what finished is kept
        finally:
            pool.shutdown(wait=True)


def rows_of(st: Store, tasks: Sequence[Task]) -> pd.DataFrame:
    import pandas as pd

    if not tasks:
        return pd.DataFrame()
    df = st.df()
    order = {t.run_id: i for i, t in enumerate(tasks)}
    df = df[df["run_id"].isin(order)].copy()
    df["_order"] = df["run_id"].map(order)
    return df.sort_values("_order").drop(columns="_order").reset_index(drop=True)


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
