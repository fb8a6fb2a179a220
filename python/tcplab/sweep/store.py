"""The results store: one directory of append-only Parquet files, queried with DuckDB.

Layout of a store directory::

    store.json           what wrote it: format, tcplab version, kind, base scenario, grid paths
    parts/part-*.parquet the rows, one file per flush; each file is written under a temporary
                         name and renamed when complete, so a file is whole or absent
    parts/part-*.parquet.ids
                         the run_ids of that part, one a line, written (atomically) before the
                         part itself: a rerun learns what is present without opening Parquet
    traces/<run_id>/     the trace tables of the runs a study keeps for its figures
    .lock                held (flock) while a sweep writes, so two writers never mix

The rows form one table, ``runs``: a `run_id`, the `seed`, one column per grid path and the
flattened summary. A row is only ever added, once per `run_id`: a writer reads the run_ids
present before it computes anything, so a resumed sweep computes exactly what is missing.
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab import errors as _errors

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Store", "StoreError", "STORE_FORMAT"]

STORE_FORMAT = 1
_MANIFEST = "store.json"


class StoreError(_errors.TcplabError):
    """A store that cannot be used as asked: another version's, another base scenario's, or
    busy."""

    kind = "store"


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".tmp-{os.urandom(16).hex()}-{path.name}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _as_json_text(values: Sequence[Any]) -> list[Any]:
    """A column Arrow cannot type (lists of mixed items, a bool beside an int, text beside a
    number) kept as JSON text; text stays text and a missing value stays missing."""
    return [None if v is None else v if isinstance(v, str) else json.dumps(v) for v in values]


def arrow_column(values: Sequence[Any]) -> Any:
    """One column as an Arrow array, its type inferred from every value (ints with missing
    values stay ints; a column missing everywhere is of type null until another part gives
    it one)."""
    import pyarrow as pa

    try:
        return pa.array(values)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return pa.array(_as_json_text(values), type=pa.string())


def arrow_table(columns: Iterable[tuple[str, Any]]) -> Any:
    """(name, values) pairs as a pyarrow Table, column by column; values are a list (typed by
    `arrow_column`) or a pyarrow Array."""
    import pyarrow as pa

    named = list(columns)
    arrays = [v if isinstance(v, pa.Array) else arrow_column(v) for _, v in named]
    return pa.table(arrays, names=[n for n, _ in named])


def rows_table(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Rows (dicts) as a pyarrow Table with every column any row has, in first-seen order.
    (`pyarrow.Table.from_pylist` takes its columns from the first row alone: a failed run's
    row first would lose every other row's summary.)"""
    names = list(dict.fromkeys(k for r in rows for k in r))
    return arrow_table((n, [r.get(n) for r in rows]) for n in names)


class Store:
    """A results store in `path` (see the module docstring). Reading needs nothing; a writer
    opens it with `open_for_writing`, which creates it or checks that it matches."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    # -- reading ----------------------------------------------------------------------------

    @property
    def manifest(self) -> dict[str, Any]:
        """What store.json says (empty if the store does not exist yet)."""
        f = self.path / _MANIFEST
        if not f.exists():
            return {}
        try:
            return json.loads(f.read_text())
        except (OSError, ValueError) as e:
            raise StoreError(f"{f}: not a tcplab store manifest ({e})") from None

    def exists(self) -> bool:
        return (self.path / _MANIFEST).exists()

    @property
    def grid_paths(self) -> list[str]:
        """The grid paths of the sweeps written into the store (columns of `runs`)."""
        return list(self.manifest.get("grid_paths", []))

    def _parts(self) -> list[Path]:
        return sorted((self.path / "parts").glob("part-*.parquet"))

    def _connect(self) -> Any:
        import duckdb

        con = duckdb.connect()
        parts = self._parts()
        if parts:
            files = ", ".join("'" + str(p).replace("'", "''") + "'" for p in parts)
            con.execute(
                f"CREATE VIEW runs AS SELECT * FROM read_parquet([{files}], union_by_name = true)"
            )
        else:
            con.execute(
                "CREATE VIEW runs AS SELECT NULL::VARCHAR AS run_id, NULL::BIGINT AS seed "
                "WHERE false"
            )
        return con

    def sql(self, query: str) -> pd.DataFrame:
        """The rows of a DuckDB query over the table ``runs``, as a DataFrame."""
        import duckdb

        if not self.exists():
            raise StoreError(f"{self.path}: no tcplab store here (no {_MANIFEST})")
        con = self._connect()
        try:
            return con.execute(query).df()
        except duckdb.Error as e:
            raise _errors._make(
                _errors.InvalidValueError,
                f"--sql: invalid query {query!r}: {str(e).splitlines()[0]}",
                field="sql",
                value=query,
                allowed="a DuckDB SELECT over the table runs",
            ) from None
        finally:
            con.close()

    def df(self) -> pd.DataFrame:
        """Every row of ``runs``, ordered by run_id."""
        return self.sql("SELECT * FROM runs ORDER BY run_id")

    def _scalar_query(self, query: str) -> list[tuple[Any, ...]]:
        con = self._connect()
        try:
            return con.execute(query).fetchall()
        finally:
            con.close()

    def run_ids(self) -> set[str]:
        """The run_ids present. Each part's `.ids` list is read; a part without one (written
        before they existed) is read with pyarrow."""
        out: set[str] = set()
        for part in self._parts():
            ids = part.with_name(part.name + ".ids")
            try:
                out.update(ids.read_text().split())
            except FileNotFoundError:
                import pyarrow.parquet as pq

                col = pq.read_table(part, columns=["run_id"]).column("run_id")
                out.update(str(v) for v in col.to_pylist())
        return out

    def __len__(self) -> int:
        if not self._parts():
            return 0
        return int(self._scalar_query("SELECT count(*) FROM runs")[0][0])

    def __repr__(self) -> str:
        m = self.manifest
        return f"Store({str(self.path)!r}, kind={m.get('kind')!r}, rows={len(self) if m else 0})"

    # -- writing ----------------------------------------------------------------------------

    def open_for_writing(
        self,
        *,
        kind: str,
        base: Mapping[str, Any],
        base_hash: str,
        grid_paths: Iterable[str] = (),
    ) -> StoreWriter:
        """Create the store, or check that it was written by this tcplab version for the same
        kind and base scenario, and take its lock. Refuses (StoreError) otherwise."""
        import tcplab

        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "parts").mkdir(exist_ok=True)
        lock = open(self.path / ".lock", "a+")  # noqa: SIM115 - held for the writer's life
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise StoreError(
                f"{self.path}: the store is being written by another process; wait for it "
                "or use another directory"
            ) from None
        try:
            m = self.manifest
            if m:
                self._check(m, kind=kind, base_hash=base_hash, version=tcplab.__version__)
            else:
                m = {
                    "format": STORE_FORMAT,
                    "tcplab_version": tcplab.__version__,
                    "kind": kind,
                    "base_hash": base_hash,
                    "base": dict(base),
                    "grid_paths": [],
                    "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                }
            known = list(m.get("grid_paths", []))
            new = [p for p in grid_paths if p not in known]
            if new or not (self.path / _MANIFEST).exists():
                m["grid_paths"] = known + new
                _atomic_write_bytes(
                    self.path / _MANIFEST, (json.dumps(m, indent=2) + "\n").encode()
                )
            parts = self.path / "parts"
            for stale in parts.glob(".tmp-*"):  # a killed writer's leftovers
                stale.unlink(missing_ok=True)
            for ids in parts.glob("part-*.parquet.ids"):  # killed between the two renames
                if not ids.with_name(ids.name[: -len(".ids")]).exists():
                    ids.unlink(missing_ok=True)
            traces = self.path / "traces"
            if traces.exists():
                for stale in traces.glob(".tmp-*"):
                    import shutil  # only here: a rerun that finds everything stays quick

                    shutil.rmtree(stale, ignore_errors=True)
        except BaseException:
            lock.close()
            raise
        return StoreWriter(self, lock)

    def _check(self, m: Mapping[str, Any], *, kind: str, base_hash: str, version: str) -> None:
        where = str(self.path)
        if m.get("format") != STORE_FORMAT:
            raise StoreError(
                f"{where}: store format {m.get('format')!r}; this tcplab reads format "
                f"{STORE_FORMAT}. Use another directory."
            )
        if m.get("tcplab_version") != version:
            raise StoreError(
                f"{where}: written by tcplab {m.get('tcplab_version')}, this is tcplab {version}; "
                "results of two versions are not mixed. Use another directory."
            )
        if m.get("kind") != kind:
            raise StoreError(
                f"{where}: holds a {m.get('kind')!r} store, not {kind!r}. Use another directory."
            )
        if m.get("base_hash") != base_hash:
            raise StoreError(
                f"{where}: written for another base scenario (hash {m.get('base_hash')}, this one "
                f"is {base_hash}); runs of two base scenarios are not mixed. Use another "
                "directory, or sweep the difference as a grid axis."
            )


class StoreWriter:
    """Appends rows (and kept traces) to a store while holding its lock."""

    def __init__(self, store: Store, lock: Any) -> None:
        self.store = store
        self._lock = lock
        self.rows_written = 0

    def append(self, rows: Sequence[Mapping[str, Any]] | Any) -> None:
        """Write `rows` (dicts, or a pyarrow Table with a ``run_id`` column) as one new part,
        atomically."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = rows if isinstance(rows, pa.Table) else rows_table(rows) if rows else None
        if table is None or table.num_rows == 0:
            return
        parts = self.store.path / "parts"
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S%f")
        final = parts / f"part-{stamp}-{os.urandom(4).hex()}.parquet"
        tmp = parts / f".tmp-{final.name}"
        pq.write_table(table, tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        # The run_id list first: a part is present only once its Parquet file is, so a list
        # left alone by a kill is ignored (and removed by the next writer).
        ids = "".join(f"{r}\n" for r in table.column("run_id").to_pylist())
        _atomic_write_bytes(final.with_name(final.name + ".ids"), ids.encode())
        os.replace(tmp, final)
        self.rows_written += table.num_rows

    def save_traces(self, run_id: str, result: Any) -> None:
        """Keep a Result's trace tables under traces/<run_id> (written aside, then renamed)."""
        traces = self.store.path / "traces"
        traces.mkdir(exist_ok=True)
        final = traces / run_id
        if final.exists():
            return
        tmp = traces / f".tmp-{run_id}-{os.urandom(4).hex()}"
        result.to_dir(tmp)
        os.replace(tmp, final)

    def close(self) -> None:
        if self._lock is not None:
            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()
