"""The results store: one directory of append-only Parquet files, queried with DuckDB.

Layout of a store directory::

    store.json           what wrote it: format, tcplab version, kind, base scenario, grid paths
                         (and their units), the per-run tables it keeps
    parts/part-*.parquet the rows, one file per flush; each file is written under a temporary
                         name and renamed when complete, so a file is whole or absent
    parts/part-*.parquet.ids
                         the run_ids of that part, one a line, after a line that records the
                         part's size and checksum (`tcplab.sweep.parts`): every reader checks
                         the part against it, and a rerun learns what is present from it
                         without opening Parquet
    tables/<table>/part-*.parquet
                         with ``--keep``: that part's runs' rows of a per-run table (trace,
                         link_series, app_series, queues), with their run_id
    plans/<hash>.json    each sweep written into the store: its grid and seeds, whether it
                         finished, and (plans/<hash>.ids) the run ids it holds once it has
    traces/<run_id>/     the trace tables of the runs a study keeps for its figures
    damaged/             parts a writer found damaged and set aside (never read)
    .lock                held (flock) while a sweep writes, so two writers never mix

The rows form one table, ``runs``: a `run_id`, the `seed`, one column per grid path (as given;
for a rate, duration, size or probability also ``<path>.si``, the number in SI units) and the
flattened summary; each kept table is a table of its own name. A row is only ever added, once
per `run_id`: a writer reads the run_ids present before it computes anything, so a resumed
sweep computes exactly what is missing.

Every reader checks every part (`Store.check`): a damaged part, a run held twice or the runs
of a finished sweep that are gone make every query a StoreError naming what is wrong and how
to recompute it (`tcplab sweep --repair DIR`), never a silently partial answer; a sweep that
has not finished (killed, or running now) is reported by `Store.check` as `partial`.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab import errors as _errors

from .parts import PartCheck, check_part, read_part_ids

if TYPE_CHECKING:
    import pandas as pd


__all__ = ["Store", "StoreError", "StoreCheck", "STORE_FORMAT", "KEEP_TABLES"]

STORE_FORMAT = 2
_MANIFEST = "store.json"
#: The per-run tables a sweep can keep (`tcplab sweep --keep`).
KEEP_TABLES = ("trace", "link_series", "app_series", "queues")


class StoreError(_errors.TcplabError):
    """A store that cannot be used as asked: another version's, another base scenario's,
    busy, or damaged (the message names the file and how to recompute what it held)."""

    kind = "store"


def _as_json_text(values: Sequence[Any]) -> list[Any]:
    """A column Arrow cannot type (lists of mixed items, a bool beside an int, text beside a
    number) kept as JSON text; text stays text and a missing value stays missing."""
    return [None if v is None else v if isinstance(v, str) else json.dumps(v) for v in values]


def arrow_column(values: Sequence[Any]) -> Any:
    """One column as an Arrow array, its type inferred from every value (ints with missing
    values stay ints; a column missing everywhere is of type null until another part gives
    it one). Tables and lists are kept as JSON text (a struct column would not survive a
    later part whose tables have other keys, and could not be grouped by)."""
    import pyarrow as pa

    if any(isinstance(v, dict | list | tuple) for v in values):
        return pa.array(_as_json_text(values), type=pa.string())
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


# -- store.json ----------------------------------------------------------------------------------

_MANIFEST_FIELDS: dict[str, tuple[type, ...]] = {
    "format": (int,),
    "tcplab_version": (str,),
    "kind": (str,),
    "base_hash": (str,),
    "base": (dict,),
    "grid_paths": (list,),
    "created": (str,),
}


def manifest_problem(m: Any) -> str | None:
    """What is wrong with a parsed store.json (None if nothing)."""
    if not isinstance(m, dict):
        return f"a JSON {type(m).__name__}, not an object"
    for key, types in _MANIFEST_FIELDS.items():
        if key not in m:
            return f"no {key!r}"
        v = m[key]
        if isinstance(v, bool) or not isinstance(v, types):
            return f"{key!r} is {json.dumps(v)[:40]}, not a {types[0].__name__}"
    if not all(isinstance(p, str) and p for p in m["grid_paths"]):
        return "'grid_paths' is not a list of paths"
    if len(set(m["grid_paths"])) != len(m["grid_paths"]):
        return "'grid_paths' names a path twice"
    units = m.get("grid_units", {})
    if not isinstance(units, dict) or not all(isinstance(u, str) for u in units.values()):
        return "'grid_units' is not a table of units"
    keep = m.get("keep", [])
    if not isinstance(keep, list) or not all(k in KEEP_TABLES for k in keep):
        return f"'keep' is {json.dumps(keep)[:40]}, not a list of {', '.join(KEEP_TABLES)}"
    if "base_given" in m and not isinstance(m["base_given"], dict):
        return "'base_given' is not an object"
    return None


def regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


# -- plans -----------------------------------------------------------------------------------------


class Plan:
    """One sweep written into the store (plans/<name>.json): its spec, its size, whether it
    finished, and then the run ids it holds."""

    __slots__ = ("name", "spec", "complete", "runs", "ids", "damage")

    def __init__(
        self,
        name: str,
        spec: dict[str, Any],
        complete: bool,
        runs: int,
        ids: list[str] | None = None,
        damage: str | None = None,
    ) -> None:
        self.name = name
        self.spec = spec
        self.complete = complete
        self.runs = runs
        self.ids = ids
        self.damage = damage


def _read_plan(f: Path) -> Plan:
    from .parts import _RUN_ID

    name = f.name[: -len(".json")]
    try:
        if not regular_file(f):
            raise ValueError("not a regular file")
        spec = json.loads(f.read_text(encoding="utf-8"))
        if not isinstance(spec, dict):
            raise ValueError(f"a JSON {type(spec).__name__}, not an object")
        runs, state = spec.get("runs"), spec.get("state")
        if not isinstance(runs, int) or isinstance(runs, bool) or runs < 1:
            raise ValueError("no number of runs")
        if state not in ("running", "complete"):
            raise ValueError(f"state {state!r}")
        if not isinstance(spec.get("axes"), list) or not isinstance(spec.get("seeds"), str):
            raise ValueError("no grid or seeds")
    except (OSError, ValueError) as e:
        return Plan(name, {}, False, 0, damage=f"unreadable ({e})")
    plan = Plan(name, spec, state == "complete", runs)
    if plan.complete:
        import zlib

        try:
            text = (f.parent / f"{name}.ids").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return Plan(name, spec, True, runs, damage="its run id list is missing or unreadable")
        ids = text.split("\n")[:-1]
        want = spec.get("ids_crc32")
        if (
            not text.endswith("\n")
            or len(ids) != runs
            or zlib.crc32(text.encode()) != want
            or not all(_RUN_ID.fullmatch(r) for r in ids)
        ):
            return Plan(name, spec, True, runs, damage="its run id list is damaged")
        plan.ids = ids
    return plan


# -- checking a store ------------------------------------------------------------------------------


class StoreCheck:
    """What `Store.check` found: the whole parts (with their run ids), the damaged ones, the
    runs held twice, the plans, the runs of finished sweeps that are gone, and whether a
    writer holds the store now."""

    def __init__(self) -> None:
        self.parts: list[PartCheck] = []
        self.damaged: list[PartCheck] = []
        self.twice: dict[str, list[Path]] = {}
        self.plans: list[Plan] = []
        self.missing = 0
        self.busy = False
        self.ids: set[str] = set()

    @property
    def damaged_plans(self) -> list[Plan]:
        return [p for p in self.plans if p.damage]

    def problem(self, where: Path) -> str | None:
        """The first thing that makes the store's rows wrong (a damaged part, a run held
        twice, runs gone), as one sentence that says how to recompute them; None if the rows
        are all there is."""
        fix = (
            f"run the sweep again, or tcplab sweep --repair --store {where}, to compute them again"
        )
        if self.damaged:
            c = self.damaged[0]
            more = f" ({len(self.damaged)} damaged parts in all)" if len(self.damaged) > 1 else ""
            held = f"its {len(c.ids)} runs" if c.ids else "its runs"
            return f"{c.part}: damaged: {c.damage}; {held} cannot be read{more}; {fix}"
        if self.twice:
            run, paths = next(iter(self.twice.items()))
            return (
                f"{where}: run {run} is held twice ({paths[0].name}, {paths[1].name}; "
                f"{len(self.twice)} runs in all): the store was altered; tcplab sweep --repair "
                f"--store {where} keeps each run once"
            )
        bad = self.damaged_plans
        if bad:
            return f"{where}/plans/{bad[0].name}.json: damaged: {bad[0].damage}; {fix}"
        if self.missing:
            return (
                f"{where}: {self.missing} runs of a finished sweep are gone (a part was "
                f"deleted?): the store is partial; {fix}"
            )
        return None

    def partial(self, where: Path) -> str | None:
        """A note on a sweep that has not finished (None if every sweep did)."""
        running = [p for p in self.plans if not p.complete and not p.damage]
        if not running:
            return None
        total = sum(p.runs for p in running)
        now = "is being written now" if self.busy else "did not finish (killed?)"
        return (
            f"{where}: the store is partial: a sweep into it {now}; {len(self.ids)} rows are "
            f"present of its {total} runs{' and those of others' if len(self.plans) > 1 else ''}"
            + ("" if self.busy else "; run the same sweep again to finish it")
        )


class Store:
    """A results store in `path` (see the module docstring). Reading needs nothing; a writer
    opens it with `tcplab.sweep.store_write.open_writer`, which creates it or checks that it
    matches."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    # -- reading ----------------------------------------------------------------------------

    @property
    def manifest(self) -> dict[str, Any]:
        """What store.json says (empty if the store does not exist yet); StoreError if it is
        damaged."""
        f = self.path / _MANIFEST
        if not (f.exists() or f.is_symlink()):
            return {}
        try:
            if not regular_file(f):
                raise ValueError("not a regular file")
            m = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise StoreError(self._manifest_damage(f"unreadable ({e})")) from None
        problem = manifest_problem(m)
        if problem:
            raise StoreError(self._manifest_damage(problem))
        return m

    def _manifest_damage(self, what: str) -> str:
        return (
            f"{self.path / _MANIFEST}: damaged: {what}; it says which sweep the rows belong "
            f"to: tcplab sweep --repair --store {self.path}, or the sweep run again, writes it "
            "again"
        )

    def exists(self) -> bool:
        f = self.path / _MANIFEST
        return f.exists() or f.is_symlink()

    @property
    def grid_paths(self) -> list[str]:
        """The grid paths of the sweeps written into the store (columns of `runs`)."""
        return list(self.manifest.get("grid_paths", []))

    @property
    def grid_units(self) -> dict[str, str]:
        """The SI unit of each grid path over a quantity (its numbers are ``<path>.si``)."""
        return dict(self.manifest.get("grid_units", {}))

    @property
    def keep(self) -> list[str]:
        """The per-run tables the store keeps (`tcplab sweep --keep`)."""
        return list(self.manifest.get("keep", []))

    def part_paths(self) -> list[Path]:
        """Every part a file names: a Parquet file or a run id list (whose part may be gone)."""
        parts = self.path / "parts"
        if not parts.is_dir():
            return []
        names = set()
        for p in parts.iterdir():
            n = p.name
            if n.startswith("part-") and n.endswith(".parquet"):
                names.add(n)
            elif n.startswith("part-") and n.endswith(".parquet.ids"):
                names.add(n[: -len(".ids")])
        return [parts / n for n in sorted(names)]

    def check(self, *, read_lists: bool = True, base_hash: str | None = None) -> StoreCheck:
        """Check every part against its run id list, find runs held twice, read the plans
        (see `StoreCheck`). `read_lists` reads a part whose list is missing with pyarrow; a
        writer passes False and gives such parts their list again. A part written for
        another base scenario than `base_hash` (default: store.json's) is damage too."""
        out = StoreCheck()
        tables = self.path / "tables"
        seen: dict[str, Path] = {}
        if base_hash is None:
            try:
                base_hash = self.manifest.get("base_hash")
            except StoreError:
                base_hash = None
        for part in self.part_paths():
            c = check_part(part, tables)
            if read_lists and not c.ids_ok:
                c = read_part_ids(c)
            if not c.damage and base_hash and c.store and c.store != base_hash[:16]:
                c.damage = "it was written for another base scenario (copied from another store?)"
            if c.damage:
                out.damaged.append(c)
                continue
            out.parts.append(c)
            for r in c.ids:
                if r in seen:
                    out.twice.setdefault(r, [seen[r], part])
                else:
                    seen[r] = part
        out.ids = set(seen)
        plans = self.path / "plans"
        if plans.is_dir():
            for f in sorted(plans.glob("*.json")):
                out.plans.append(_read_plan(f))
        gone: set[str] = set()
        for p in out.plans:
            if p.ids is not None:
                gone.update(r for r in p.ids if r not in out.ids)
        out.missing = len(gone)
        out.busy = self._busy()
        return out

    def _busy(self) -> bool:
        import fcntl

        lock = self.path / ".lock"
        if not regular_file(lock):
            return False
        try:
            fd = os.open(lock, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False

    def _checked(self) -> StoreCheck:
        if not self.exists():
            raise StoreError(f"{self.path}: no tcplab store here (no {_MANIFEST})")
        self.manifest  # noqa: B018 - raises StoreError when store.json is damaged
        chk = self.check()
        problem = chk.problem(self.path)
        if problem:
            raise StoreError(problem)
        return chk

    def _connect(self, chk: StoreCheck | None = None) -> Any:
        import duckdb

        chk = chk or self._checked()
        con = duckdb.connect()

        def files(paths: list[Path]) -> str:
            return ", ".join("'" + str(p).replace("'", "''") + "'" for p in paths)

        parts = [c.part for c in chk.parts]
        if parts:
            con.execute(
                f"CREATE VIEW runs AS SELECT * FROM read_parquet([{files(parts)}], "
                "union_by_name = true)"
            )
        else:
            con.execute(
                "CREATE VIEW runs AS SELECT NULL::VARCHAR AS run_id, NULL::BIGINT AS seed "
                "WHERE false"
            )
        for name in self.keep:
            kept = [
                self.path / "tables" / name / c.part.name
                for c in chk.parts
                if regular_file(self.path / "tables" / name / c.part.name)
            ]
            if kept:
                con.execute(
                    f'CREATE VIEW "{name}" AS SELECT * FROM read_parquet([{files(kept)}], '
                    "union_by_name = true)"
                )
            else:
                con.execute(f'CREATE VIEW "{name}" AS SELECT NULL::VARCHAR AS run_id WHERE false')
        return con

    def sql(self, query: str, *, option: str = "--sql") -> pd.DataFrame:
        """The rows of one DuckDB SELECT over the table ``runs`` (and the kept tables), as a
        DataFrame. Anything but one SELECT (several statements, COPY, ATTACH, ...) is
        refused, as is a store that is damaged (StoreError)."""
        import duckdb

        self.one_select(query, option=option)
        con = self._connect()
        try:
            return con.execute(query).df()
        except duckdb.Error as e:
            raise self._bad_query(query, option, str(e)) from None
        finally:
            con.close()

    @staticmethod
    def _bad_query(query: str, option: str, message: str) -> _errors.TcplabError:
        first = message.strip().splitlines()[0] if message.strip() else "rejected"
        return _errors._make(
            _errors.InvalidValueError,
            f"{option}: invalid query {query!r}: {first}",
            field=option.lstrip("-"),
            value=query,
            allowed="one DuckDB SELECT over the table runs",
        )

    @classmethod
    def one_select(cls, query: str, *, option: str = "--sql") -> None:
        """Refuse (InvalidValueError) anything but exactly one SELECT statement."""
        import duckdb

        try:
            statements = duckdb.extract_statements(query)
        except duckdb.Error as e:
            raise cls._bad_query(query, option, str(e)) from None
        if len(statements) != 1:
            raise cls._bad_query(
                query, option, f"{len(statements)} statements; one SELECT is allowed"
            )
        kind = statements[0].type
        if kind != duckdb.StatementType.SELECT:
            raise cls._bad_query(query, option, f"a {kind.name} statement; only SELECT reads")

    def df(self) -> pd.DataFrame:
        """Every row of ``runs``, ordered by run_id."""
        return self.sql("SELECT * FROM runs ORDER BY run_id")

    def run_ids(self) -> set[str]:
        """The run_ids present in whole parts (a damaged part's are not present)."""
        return self.check().ids

    def __len__(self) -> int:
        chk = self._checked()
        return sum(len(c.ids) for c in chk.parts)

    def __repr__(self) -> str:
        try:
            m = self.manifest
            rows = len(self) if m else 0
        except StoreError:
            return f"Store({str(self.path)!r}, damaged)"
        return f"Store({str(self.path)!r}, kind={m.get('kind')!r}, rows={rows})"

    # -- writing ----------------------------------------------------------------------------
