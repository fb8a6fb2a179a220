"""Running a sweep's (or a study's) tasks into a results store, and reading their rows back."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .store import Store
from .task import Task

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["run_tasks", "rows_of"]


def run_tasks(
    tasks: Iterable[Task],
    maker: Any,
    writer: Any,
    *,
    jobs: int | None,
    scheduler: Any,
    progress: bool,
    description: str = "simulating",
    flush_seconds: float = 1.0,
    flush_rows: int = 4000,
    on_kept: Any = None,
    total: int | None = None,
    skipped: Any = None,
    notify: Callable[[str], None] | None = None,
) -> None:
    """Run `tasks` into a store `writer`: rows are flushed as one Parquet part every
    `flush_seconds` or `flush_rows` rows (and at the end, and when interrupted); kept Results go
    to `on_kept` (default: the store's traces/) before their rows are written, kept tables
    (`tcplab.sweep.execute.KeepRows`) into the same part as their rows.

    `tasks` may be made as they are run (`total` then says how many the progress bar counts,
    and `skipped.on_skip` is given the bar's advance for the runs the store already has).
    A part is written on a thread of its own while the next batch runs, one part at a time:
    in a sweep of short runs, making and writing the table of 10,000 rows costs as much as a
    fifth of running them. What is handed to that thread is written before this returns, also
    when interrupted; a kill -9 loses it, and a rerun computes it again. No tasks: nothing is
    started (no executor, thread or progress bar)."""
    if isinstance(tasks, Sequence):
        if not tasks:
            return
        total = len(tasks) if total is None else total
    from concurrent.futures import Future, ThreadPoolExecutor

    from .execute import FlatBatch, KeptTables, execute, flat_table, kept_tables
    from .store import rows_table

    batches: list[FlatBatch] = []  # from flat_row
    rows: list[dict[str, Any]] = []  # from other makers
    tables: list[tuple[str, Any]] = []  # kept tables: (run_id, raw tables)
    waiting = 0  # rows in batches and rows
    last = time.monotonic()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tcplab-store")
    writing: Future[None] | None = None

    def write(bs: list[FlatBatch], rs: list[dict[str, Any]], ts: list[Any]) -> None:
        if bs:
            writer.append(flat_table(bs))
        if rs:
            writer.append(rows_table(rs), kept_tables(ts) if ts else None)

    def flush(here: bool) -> None:
        nonlocal writing, waiting
        if writing is not None:
            writing.result()  # the part before: written (or its error raised here)
            writing = None
        if batches or rows:
            job = (list(batches), list(rows), list(tables))
            batches.clear()
            rows.clear()
            tables.clear()
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
                if isinstance(kept, KeptTables):
                    tables.append((task.run_id, kept))
                elif kept is not None:
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
            total=total,
            skipped=skipped,
            notify=notify,
        )
    finally:
        try:
            flush(here=True)  # also on Ctrl-C: what finished is kept
        finally:
            pool.shutdown(wait=True)


def rows_of(st: Store, tasks: Sequence[Task] | Sequence[str]) -> pd.DataFrame:
    """The store's rows of `tasks` (or of these run ids), in their order."""
    import pandas as pd

    if not tasks:
        return pd.DataFrame()
    df = st.df()
    ids = [t if isinstance(t, str) else t.run_id for t in tasks]
    order = {r: i for i, r in enumerate(ids)}
    df = df[df["run_id"].isin(order)].copy()
    df["_order"] = df["run_id"].map(order)
    return df.sort_values("_order").drop(columns="_order").reset_index(drop=True)
