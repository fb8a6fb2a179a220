"""Running many runs: in this process through the core's thread pool, or on a Dask cluster.

Both executors run batches of `Task`s through ``tcplab._core.run_many`` and turn each finished
run into a row with the same function (a `RowMaker`), so the rows are identical, bit for bit,
whichever executor made them. Batches are sized from the measured time per run: about half a
second each locally (so Ctrl-C is noticed within a second) and a few seconds each on a cluster
(so scheduling costs little).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tcplab import _core
from tcplab import errors as _errors

from .task import ClusterError, Task, parse_scheduler

__all__ = [
    "Task",
    "RowMaker",
    "flat_row",
    "FlatBatch",
    "flat_table",
    "run_batch",
    "execute",
    "parse_scheduler",
    "progress_bar",
    "connect_scheduler",
    "Cluster",
    "ClusterError",
    "KeepRows",
    "kept_tables",
    "silence_dask",
]


class RowMaker(Protocol):
    """Turns a finished run into a row (and, for a kept task, its Result). Must pickle."""

    def __call__(self, task: Task, summary_json: str, tables: Mapping[str, Any]) -> Any: ...


def flat_row(task: Task, summary_json: str, tables: Mapping[str, Any]) -> tuple[dict, None]:
    """A sweep's row: run_id, seed, the grid columns and the flattened summary."""
    from tcplab.frames import flatten_summary

    flat = flatten_summary(json.loads(summary_json))
    clash = [k for k in task.labels if k in flat]
    for k in clash:  # a grid path that is also a summary column: the summary's is renamed
        flat[f"result.{k}"] = flat.pop(k)
    row: dict[str, Any] = {"run_id": task.run_id, "seed": task.seed, **task.labels}
    row.update(flat)
    row["seed"] = task.seed
    return row, None


def error_row(task: Task, err: BaseException) -> dict[str, Any]:
    row: dict[str, Any] = {"run_id": task.run_id, "seed": task.seed}
    row.update(task.labels)
    row["error"] = f"{type(err).__name__}: {err}"
    return row


class KeptTables(dict):  # type: ignore[type-arg]
    """A run's per-run tables kept by a sweep (name -> the core's raw columns)."""


class KeepRows:
    """The row maker of a sweep that keeps per-run tables (`tcplab sweep --keep`): each run's
    row as `flat_row` makes it, and its tables named in `keep` (`KeptTables`). Pickles."""

    def __init__(self, keep: Sequence[str]) -> None:
        self.keep = tuple(keep)

    def __call__(
        self, task: Task, summary_json: str, tables: Mapping[str, Any]
    ) -> tuple[dict, KeptTables]:
        row, _ = flat_row(task, summary_json, tables)
        return row, KeptTables({n: tables[n] for n in self.keep if n in tables})


_DTYPES = {"<f8": "float64", "<i8": "int64", "<u8": "uint64"}


def kept_tables(runs: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """The kept tables of a flush's runs, (run_id, `KeptTables`) pairs, as one pyarrow Table
    per table name: a ``run_id`` column, then the table's columns."""
    import pyarrow as pa

    chunks: dict[str, list[Any]] = {}
    for run_id, tables in runs:
        for name, columns in tables.items():
            arrays, names = [], []
            n = None
            for col, (dtype, payload) in columns.items():
                if dtype == "str":
                    arr = pa.array(list(payload), type=pa.string())
                else:
                    typ = getattr(pa, _DTYPES[dtype])()
                    count = len(payload) // 8
                    arr = pa.Array.from_buffers(typ, count, [None, pa.py_buffer(payload)])
                n = len(arr) if n is None else n
                names.append(col)
                arrays.append(arr)
            n = n or 0
            t = pa.table(
                [pa.array([run_id] * n, type=pa.string()), *arrays], names=["run_id", *names]
            )
            chunks.setdefault(name, []).append(t)
    return {name: pa.concat_tables(ts, promote_options="permissive") for name, ts in chunks.items()}


@dataclass
class FlatBatch:
    """A batch of sweep runs as ``tcplab._core.run_many_flat`` gives it: the flat summary
    columns (`names`, `columns`: numbers as buffers), the name lists of the runs (`layouts`)
    and which each run has (`run_layouts`, -1 for a failed run). Its rows are those `flat_row`
    and `error_row` make one run at a time: the same keys in the same order, the same values
    (`row`, and iterating gives ``(task, row, None)`` like the other makers' batches); a store
    writes a flush of batches as one Arrow table (`flat_table`) without a dict per run."""

    tasks: Sequence[Task]
    names: list[str]
    columns: list[tuple[Any, ...]]
    layouts: list[list[int]]
    run_layouts: list[int]

    def __len__(self) -> int:
        return len(self.tasks)

    def row_keys(self, i: int) -> list[str]:
        """The keys of run i's row in `flat_row`'s order: run_id, seed, the grid columns, the
        summary's, a summary column named like a grid path renamed ``result.<path>`` and put
        last (in grid order); a failed run's: run_id, seed, the grid columns, error."""
        labels = list(self.tasks[i].labels)
        head = ["run_id", "seed", *labels]
        layout = self.run_layouts[i]
        if layout < 0:
            return [*head, "error"]
        flat = [self.names[c] for c in self.layouts[layout]]
        taken = {"run_id", "seed", *labels}
        present = set(flat)
        clash = [f"result.{k}" for k in labels if k in present]
        return head + [n for n in flat if n not in taken] + clash

    def key_order(self) -> list[str]:
        """The columns of the batch's rows, in first-seen order over its runs."""
        order: dict[str, None] = {}
        seen = set()
        for i, task in enumerate(self.tasks):
            shape = (self.run_layouts[i], tuple(task.labels))
            if shape not in seen:
                seen.add(shape)
                order.update(dict.fromkeys(self.row_keys(i)))
        return list(order)

    @functools.cached_property
    def _labels(self) -> dict[str, None]:
        return dict.fromkeys(k for t in self.tasks for k in t.labels)

    def part(self, key: str) -> tuple[Any, ...]:
        """Column `key` of the batch: ``("list", values)`` or a column of ``run_many_flat``."""
        n = len(self.tasks)
        if key == "run_id":
            return ("list", [t.run_id for t in self.tasks])
        if key == "seed":  # the task's, as in flat_row
            return ("list", [t.seed for t in self.tasks])
        labels = self._labels
        if key in labels:
            return ("list", [t.labels.get(key) for t in self.tasks])
        name = key.removeprefix("result.") if key.removeprefix("result.") in labels else key
        try:
            return self.columns[self.names.index(name)]
        except ValueError:
            return ("null",) if n else ("list", [])

    def __iter__(self) -> Iterator[tuple[Task, dict[str, Any], None]]:
        values = {k: _python_values(self.part(k), len(self.tasks)) for k in self.key_order()}
        for i, task in enumerate(self.tasks):
            yield task, {k: values[k][i] for k in self.row_keys(i)}, None


def _python_values(part: tuple[Any, ...], n: int) -> list[Any]:
    """A column of `FlatBatch.part` as Python values (ints and floats as `json.loads` gives)."""
    kind = part[0]
    if kind == "list":
        return list(part[1])
    if kind == "null":
        return [None] * n
    return _typed_array(part, n).to_pylist()


def _typed_array(part: tuple[Any, ...], n: int) -> Any:
    import pyarrow as pa

    kind, data, valid = part
    dtype = pa.int64() if kind == "i8" else pa.float64()
    bitmap = None if valid is None else pa.py_buffer(valid)
    return pa.Array.from_buffers(dtype, n, [bitmap, pa.py_buffer(data)])


def flat_table(batches: Sequence[FlatBatch]) -> Any:
    """Batches as one pyarrow Table with the columns, types and values that `rows_table` gives
    for all their rows (`flat_row`'s) in order: the columns in first-seen order; a column whose
    values are all int64 (or all floats) in every batch joined as it is, any other typed as one
    list of its Python values would be (`tcplab.sweep.store.arrow_column`)."""
    import pyarrow as pa

    from tcplab.sweep.store import arrow_column

    order: dict[str, None] = {}
    for b in batches:
        order.update(dict.fromkeys(b.key_order()))
    names, arrays = [], []
    for key in order:
        parts = [(b.part(key), len(b)) for b in batches]
        kinds = {p[0] for p, _ in parts} - {"null"}
        if kinds <= {"i8"} or kinds <= {"f8"}:
            dtype = pa.int64() if kinds == {"i8"} else pa.float64() if kinds else pa.null()
            chunks = [
                pa.nulls(n, dtype) if p[0] == "null" else _typed_array(p, n) for p, n in parts
            ]
            array = pa.concat_arrays(chunks) if chunks else pa.nulls(0)
        else:
            array = arrow_column([v for p, n in parts for v in _python_values(p, n)])
        names.append(key)
        arrays.append(array)
    return pa.table(arrays, names=names)


def run_batch(
    maker: RowMaker, tasks: Sequence[Task], jobs: int | None
) -> list[tuple[dict, Any]] | FlatBatch:
    """Run `tasks` (in parallel in Rust, GIL released) and make their rows. A run that fails
    gives a row with an ``error`` column: it is stored, so it is not retried forever. For
    `flat_row` the rows come as one `FlatBatch`, flattened in the core."""
    scenarios = [t.scenario for t in tasks]
    if maker is flat_row:
        if all(t.point_scenario is not None for t in tasks):
            index: dict[str, int] = {}
            runs = [(index.setdefault(t.point_scenario, len(index)), t.seed) for t in tasks]
            return FlatBatch(tasks, *_core.run_points_flat(list(index), runs, jobs))
        return FlatBatch(tasks, *_core.run_many_flat(scenarios, jobs))
    outputs = _core.run_many(scenarios, jobs)
    done: list[tuple[dict, Any]] = []
    for task, out in zip(tasks, outputs, strict=True):
        if isinstance(out, BaseException):
            done.append((error_row(task, out), None))
        else:
            done.append(maker(task, *out))
    return done


def _finished(batch: Sequence[Task], done: list[tuple[dict, Any]] | FlatBatch) -> Any:
    """What a sink receives: the FlatBatch (with its tasks), or (task, row, kept) triples."""
    if isinstance(done, FlatBatch):
        return dataclasses.replace(done, tasks=batch)
    return [(t, row, kept) for t, (row, kept) in zip(batch, done, strict=True)]


# ----------------------------------------------------------------------------------------------
# Progress


def progress_bar(enabled: bool, description: str, total: int) -> Any:
    """A rich progress bar on stderr with runs/s and the time left (a no-op if disabled).
    When stderr is not a terminal (a log file, CI), one plain line per progress step instead,
    at most one a second, and always the last."""
    if not enabled:
        return _NoBar()
    if not sys.stderr.isatty():
        return _LineBar(description, total)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Any) -> Text:
            speed = task.finished_speed or task.speed
            return Text(
                "" if speed is None else f"{speed:,.0f} runs/s", style="progress.data.speed"
            )

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
        speed_estimate_period=10.0,
    )
    return _Bar(bar, description, total)


class _NoBar:
    def advance(self, n: int) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *_: Any) -> None:
        pass


class _LineBar:
    def __init__(self, description: str, total: int, min_interval_s: float = 1.0) -> None:
        self.description = description
        self.total = total
        self.done = 0
        self.min_interval_s = min_interval_s
        self.t0 = self.last = time.perf_counter()

    def advance(self, n: int) -> None:
        self.done += n
        now = time.perf_counter()
        if self.done < self.total and now - self.last < self.min_interval_s:
            return
        self.last = now
        elapsed = now - self.t0
        left = elapsed / self.done * (self.total - self.done) if self.done else float("nan")
        print(
            f"{self.description}: {self.done}/{self.total} done, {elapsed:.0f} s elapsed, "
            f"about {left:.0f} s left",
            file=sys.stderr,
            flush=True,
        )

    def __enter__(self) -> _LineBar:
        return self

    def __exit__(self, *_: Any) -> None:
        pass


class _Bar:
    def __init__(self, progress: Any, description: str, total: int) -> None:
        self.progress = progress
        self.description = description
        self.total = total

    def __enter__(self) -> _Bar:
        self.progress.__enter__()
        self.task = self.progress.add_task(self.description, total=self.total)
        return self

    def advance(self, n: int) -> None:
        self.progress.advance(self.task, n)

    def __exit__(self, *exc: Any) -> None:
        self.progress.__exit__(*exc)


# ----------------------------------------------------------------------------------------------
# Executors

#: Receives each finished batch: a `FlatBatch` (from `flat_row`) or (task, row, kept) triples;
#: both iterate as triples.
Sink = Callable[[Any], None]


@dataclass
class _Sizer:
    """Batch sizes from the measured seconds per run: aim at `target` seconds per batch."""

    target: float
    lo: int
    hi: int = 5000
    per_run: float | None = None
    _times: list[float] = field(default_factory=list)

    def size(self) -> int:
        if self.per_run is None:
            return self.lo
        return max(self.lo, min(self.hi, int(self.target / max(self.per_run, 1e-7))))

    def record(self, n: int, seconds: float) -> None:
        if n:
            x = seconds / n
            self.per_run = x if self.per_run is None else 0.5 * (self.per_run + x)


def _batches(tasks: Iterable[Task], sizer: _Sizer) -> Iterator[list[Task]]:
    it = iter(tasks)
    while batch := list(itertools.islice(it, sizer.size())):
        yield batch


def execute(
    tasks: Iterable[Task],
    maker: RowMaker,
    sink: Sink,
    *,
    jobs: int | None = None,
    scheduler: str | Cluster | None = None,
    progress: bool = False,
    description: str = "simulating",
    total: int | None = None,
    skipped: Any = None,
    notify: Callable[[str], None] | None = None,
) -> None:
    """Run every task and hand the finished ones to `sink` (in batches, in no promised order).
    `tasks` may be made as they are run (`total` says how many for the progress bar; a
    `skipped` stream's ``on_skip`` is given the bar's advance for the runs it leaves out).
    `scheduler` is a spec (`parse_scheduler`) or a `Cluster` from `connect_scheduler`.
    A KeyboardInterrupt stops after the batch in hand (locally) or cancels what is in flight
    (on a cluster); what `sink` received is kept. A cluster that is lost raises ClusterError."""
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    if total is None:
        tasks = list(tasks)
        total = len(tasks)
    with contextlib.ExitStack() as stack:
        cluster = scheduler
        if not isinstance(cluster, Cluster):
            cluster = stack.enter_context(connect_scheduler(scheduler))
        bar = stack.enter_context(progress_bar(progress, description, total))
        if skipped is not None:
            skipped.on_skip = bar.advance
        if cluster is None:
            _execute_here(tasks, maker, sink, jobs, bar)
        else:
            _execute_dask(tasks, maker, sink, cluster, bar, notify or (lambda _m: None))


def _execute_here(
    tasks: Iterable[Task], maker: RowMaker, sink: Sink, jobs: int | None, bar: Any
) -> None:
    threads = jobs or os.cpu_count() or 1
    # At most 2,000 runs a batch: the store writes a flush while the next batch runs, so the
    # last batch's rows are the only ones written after the runs end.
    sizer = _Sizer(target=0.5, lo=2 * threads, hi=2000)
    for batch in _batches(tasks, sizer):
        t0 = time.perf_counter()
        done = run_batch(maker, batch, jobs)
        sizer.record(len(batch), time.perf_counter() - t0)
        sink(_finished(batch, done))
        bar.advance(len(batch))


def _dask_batch(maker: RowMaker, tasks: Sequence[Task]) -> list[tuple[dict, Any]] | FlatBatch:
    # One run at a time per Dask thread: the cluster's threads and processes are the pool.
    done = run_batch(maker, tasks, 1)
    if isinstance(done, FlatBatch):  # the client has the tasks (scenarios and all): not sent back
        return dataclasses.replace(done, tasks=())
    return done


# -- Dask ------------------------------------------------------------------------------------------

#: Seconds a sweep waits for a Dask worker once every worker it had is gone, before it stops
#: (ClusterError); the environment variable TCPLAB_DASK_GRACE_S sets another.
WORKER_GRACE_S = 20.0

#: Seconds a lost worker waits to be said: workers killed together are noticed one by one,
#: and the first would be said to have its runs rerun on others that are gone too.
WORKER_SETTLE_S = 1.0


class Cluster:
    """A Dask cluster to run on: a LocalCluster of `n` processes (started when first used, so
    that a sweep with nothing to run starts none) or a client of a running scheduler (made by
    `connect_scheduler`, before the store is touched)."""

    def __init__(self, kind: str, arg: Any, client: Any = None) -> None:
        self.kind = kind
        self.arg = arg
        self.address = arg if kind == "remote" else "a LocalCluster"
        self._client = client
        self._cluster: Any = None

    def client(self) -> Any:
        if self._client is None:
            import logging

            from distributed import Client, LocalCluster

            self._cluster = LocalCluster(
                n_workers=self.arg,
                threads_per_worker=1,
                processes=True,
                # Its HTTP server on a free port: with `None` the scheduler still serves its
                # health and metrics pages on 8787, and warns when 8787 is taken (a second
                # cluster on the machine, or a user's dashboard).
                dashboard_address=":0",
                silence_logs=logging.CRITICAL,
            )
            self._client = Client(self._cluster)
        return self._client

    def close(self) -> None:
        with _quiet_dask():
            for obj in (self._client, self._cluster):
                if obj is not None:
                    with contextlib.suppress(Exception):
                        obj.close()


def _dask_loggers() -> list[Any]:
    """Dask's loggers (`distributed` and each of its own that its configuration gave a level)
    and tornado's and asyncio's, which report its connections."""
    import logging

    import distributed  # noqa: F401 - its import sets its loggers' levels

    names = [n for n in logging.root.manager.loggerDict if n.startswith("distributed")]
    return [logging.getLogger(n) for n in ("distributed", "tornado", "asyncio", *names)]


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    """Dask's own log lines (reconnecting, a worker lost, closing) kept off the terminal:
    what happened is said once, by the sweep."""
    import logging

    loggers = _dask_loggers()
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def silence_dask() -> None:
    """Keep Dask's log lines off the terminal for the rest of the process (the command line:
    a client closing after the sweep may still log its lost connection)."""
    import logging

    for lg in _dask_loggers():
        lg.setLevel(logging.CRITICAL + 1)


@contextlib.contextmanager
def connect_scheduler(spec: str | None) -> Iterator[Cluster | None]:
    """The cluster `spec` names (None: this process): a running scheduler is reached here, so
    that an unreachable one is refused before anything else is done (InvalidValueError)."""
    kind, arg = parse_scheduler(spec)
    if kind == "inprocess":
        yield None
        return
    try:
        import distributed  # noqa: F401
    except ImportError:  # pragma: no cover - dask is a dependency
        raise _errors._make(
            _errors.InvalidValueError,
            "--scheduler needs dask.distributed: pip install 'dask[distributed]'",
            field="scheduler",
        ) from None
    client = None
    if kind == "remote":
        from distributed import Client

        with _quiet_dask():
            try:
                client = Client(arg, timeout="10s")
            except (OSError, TimeoutError) as e:
                raise _errors._make(
                    _errors.InvalidValueError,
                    f"--scheduler: cannot reach the Dask scheduler at {arg}: {e}",
                    field="scheduler",
                    value=arg,
                ) from None
    cluster = Cluster(kind, arg, client)
    try:
        yield cluster
    finally:
        cluster.close()


def _grace_s() -> float:
    try:
        return max(0.0, float(os.environ.get("TCPLAB_DASK_GRACE_S", WORKER_GRACE_S)))
    except ValueError:
        return WORKER_GRACE_S


def _execute_dask(
    tasks: Iterable[Task], maker: RowMaker, sink: Sink, cluster: Cluster, bar: Any, notify: Any
) -> None:
    with _quiet_dask():
        client = cluster.client()
        _Dask(client, cluster.address, maker, sink, bar, notify).run(iter(tasks))


class _Dask:
    """One sweep's batches on a Dask cluster, watched: a worker lost is said once (the
    scheduler reruns its batches elsewhere), every worker gone for `WORKER_GRACE_S` or the
    scheduler lost ends in ClusterError, never in a hang or a traceback."""

    def __init__(
        self, client: Any, address: str, maker: RowMaker, sink: Sink, bar: Any, notify: Any
    ) -> None:
        self.client = client
        self.address = address
        self.maker = maker
        self.sink = sink
        self.bar = bar
        self.notify = notify
        self.submitted: dict[str, list[Task]] = {}
        self.in_flight: set[Any] = set()
        self.done_runs = 0
        self.workers: set[str] = set()
        self.lost: set[str] = set()
        self.gone: dict[str, float] = {}  # a lost worker not said yet: when it was noticed
        self.empty_since: float | None = None
        self.waiting_said = False

    def _lost_error(self, what: str) -> ClusterError:
        return ClusterError(
            f"{what}, after {self.done_runs} runs on it; the runs that finished are kept: "
            "running the same sweep again resumes it"
        )

    def _submit(self, batch: list[Task]) -> None:
        try:
            f = self.client.submit(_dask_batch, self.maker, batch, pure=False)
        except Exception as e:  # the client closed: the scheduler is gone
            raise self._lost_error(
                f"lost the Dask scheduler at {self.address} ({type(e).__name__})"
            ) from None
        self.submitted[f.key] = batch
        self.in_flight.add(f)

    def _threads(self, *, ending: bool = False) -> int:
        """The worker threads the scheduler has now. A worker gone is said once, when others
        have run on for `WORKER_SETTLE_S` after it (or the sweep ends with them) to run its
        batches; every worker gone is said by the error that ends the wait, or not at all if
        one joins in time."""
        try:
            info = self.client.nthreads()
        except Exception as e:  # the scheduler is gone (OSError, CommClosedError, ...)
            raise self._lost_error(f"lost the Dask scheduler at {self.address} ({e})") from None
        now = set(info)
        at = time.monotonic()
        for w in self.workers - now - self.lost - self.gone.keys():  # said in order below
            self.gone[w] = at
        for w in self.gone.keys() & now:  # back before it was said
            del self.gone[w]
        if now:
            for w, since in sorted(self.gone.items()):
                if ending or at - since >= WORKER_SETTLE_S:
                    self.notify(
                        f"Dask worker {w} was lost; its runs are run again on the other workers"
                    )
                    self.lost.add(w)
                    del self.gone[w]
        self.workers |= now
        return sum(info.values())

    def _watch(self) -> None:
        """Between waits: the scheduler still there, its workers counted; no worker left for
        `WORKER_GRACE_S` (after there were some) ends the sweep."""
        if self.client.status not in ("running", "newly-created"):
            raise self._lost_error(f"lost the Dask scheduler at {self.address}")
        if self._threads() > 0:
            self.empty_since = None
            return
        if not self.workers:  # none yet (a batch system may take a while to start them)
            if not self.waiting_said:
                self.waiting_said = True
                self.notify(f"waiting for Dask workers to join {self.address}")
            return
        now = time.monotonic()
        if self.empty_since is None:
            self.empty_since = now
        elif now - self.empty_since > _grace_s():
            n = len(self.workers)
            raise self._lost_error(
                f"every Dask worker of {self.address} was lost ({n} in all) and none joined "
                f"in {_grace_s():.0f} s"
            )

    def run(self, it: Iterator[Task]) -> None:
        from distributed import wait

        try:
            while True:
                self._watch()
                threads = self._threads()
                if threads:
                    break
                time.sleep(1.0)
            # A pilot batch per worker thread measures the time per run; then about 4 s
            # batches, at least 4 per worker thread so that the load spreads.
            t0 = time.perf_counter()
            pilot = list(itertools.islice(it, 2 * threads))
            for i in range(min(threads, len(pilot))):
                self._submit(pilot[i::threads])
            size = 0
            while self.in_flight:
                try:
                    res = wait(list(self.in_flight), timeout=1.0, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    self._watch()
                    continue
                except Exception as e:  # the futures cancelled: the scheduler is gone
                    raise self._lost_error(
                        f"lost the Dask scheduler at {self.address} ({type(e).__name__})"
                    ) from None
                for fut in res.done:
                    self.in_flight.discard(fut)
                    batch = self.submitted.pop(fut.key)
                    done = self._result(fut)
                    if size == 0:
                        per_run = (time.perf_counter() - t0) * threads / max(1, len(pilot))
                        size = max(1, min(5000, int(4.0 / max(per_run, 1e-7))))
                    self.sink(_finished(batch, done))
                    self.done_runs += len(batch)
                    self.bar.advance(len(batch))
                if size:
                    threads = self._threads() or threads
                    while len(self.in_flight) < 4 * threads:
                        more = list(itertools.islice(it, size))
                        if not more:
                            break
                        self._submit(more)
            with contextlib.suppress(ClusterError):  # every row is in: a scheduler gone now
                self._threads(ending=True)  # ends nothing
        except BaseException:
            with contextlib.suppress(Exception):
                self.client.cancel([f for f in self.in_flight if not f.done()])
            raise

    def _result(self, fut: Any) -> Any:
        from distributed import KilledWorker

        try:
            # A finished batch's rows are on its worker until fetched: that worker lost, the
            # scheduler runs the batch again, and a wait without a timeout would outlast every
            # worker. Between tries the cluster is watched as in `run`. A try that times out
            # gives up its transfer, so each waits twice as long as the last (up to 32 s): rows
            # that take longer than a second to come over a slow network still arrive.
            timeout = 1.0
            while True:
                try:
                    return fut.result(timeout=timeout)
                except TimeoutError:
                    if self.client.status != "running":
                        raise
                    self._watch()
                    timeout = min(2 * timeout, 32.0)
        except KilledWorker as e:
            raise self._lost_error(
                f"a batch of runs was on {e.args[1] if len(e.args) > 1 else 'a worker'} each "
                f"time one of {self.address}'s workers died ({type(e).__name__})"
            ) from None
        except _errors.TcplabError:
            raise
        except Exception as e:  # cancelled: the scheduler is gone; a connection closed
            lost = isinstance(e, OSError | TimeoutError) or "Cancelled" in type(e).__name__
            if lost or fut.status in ("cancelled", "lost") or self.client.status != "running":
                raise self._lost_error(
                    f"lost the Dask scheduler at {self.address} ({type(e).__name__})"
                ) from None
            raise
