"""Writing a results store: the lock, store.json, new parts, the plans, and setting aside what
is damaged (the layout is in `tcplab.sweep.store`).

`open_writer` takes the store's lock and checks every part before anything is computed: a
damaged part (truncated, overwritten, deleted, its kept tables gone, written for another
store) and a part that holds a run another part holds are moved to ``damaged/`` and their runs
are no longer present, so the sweep computes them again; a part whose run id list is missing
or damaged (but whose rows are whole) gets its list again. A store.json that is damaged or gone
is written again when every part says it belongs to the same base scenario, and refused
otherwise. What it did is told to `notify`, one sentence each. Every file is written by
`tcplab._atomic.write_file` and nothing is written through a symbolic link.
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import zlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from tcplab._atomic import check_name, clean_stale, inside, write_file

from .parts import PartCheck, file_crc, ids_text, part_files, read_part_ids, sha256
from .store import (
    _MANIFEST,
    KEEP_TABLES,
    STORE_FORMAT,
    Store,
    StoreError,
    regular_file,
    rows_table,
)

__all__ = ["StoreWriter", "open_writer"]

Notify = Callable[[str], None]

_SUBDIRS = ("parts", "tables", "plans", "traces", "damaged")


def _refuse_links(path: Path) -> None:
    for name in (*_SUBDIRS, _MANIFEST, ".lock"):
        p = path / name
        if p.is_symlink():
            raise StoreError(
                f"{p}: a symbolic link; a store's files are written inside the store only, "
                "never through a link (replace it with a directory or file of its own)"
            )
    tables = path / "tables"
    if tables.is_dir():
        for p in tables.iterdir():
            if p.is_symlink():
                raise StoreError(f"{p}: a symbolic link; a store writes inside itself only")


def _take_lock(path: Path) -> int:
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path / ".lock", flags, 0o666)
    except OSError as e:
        raise StoreError(f"{path / '.lock'}: cannot open the store's lock: {e.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreError(
            f"{path}: the store is being written by another process; wait for it "
            "or use another directory"
        ) from None
    return fd


def _check_manifest(store: Store, m: Mapping[str, Any], *, kind: str, base_hash: str) -> None:
    import tcplab

    where = str(store.path)
    if m.get("format") != STORE_FORMAT:
        raise StoreError(
            f"{where}: store format {m.get('format')!r}; this tcplab reads format "
            f"{STORE_FORMAT}. Use another directory."
        )
    if m.get("tcplab_version") != tcplab.__version__:
        raise StoreError(
            f"{where}: written by tcplab {m.get('tcplab_version')}, this is tcplab "
            f"{tcplab.__version__}; results of two versions are not mixed. Use another directory."
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


def _stamp() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S%f")


def open_writer(
    store: Store,
    *,
    kind: str,
    base: Mapping[str, Any],
    base_hash: str,
    grid_paths: Iterable[str] = (),
    grid_units: Mapping[str, str] | None = None,
    keep: Iterable[str] = (),
    base_given: Mapping[str, Any] | None = None,
    notify: Notify | None = None,
) -> StoreWriter:
    """Create the store, or check that it was written by this tcplab version for the same
    kind and base scenario, and take its lock; set aside what is damaged (`notify` hears
    of it). Refuses (StoreError) otherwise. See the module docstring."""
    grid_paths, grid_units, keep = list(grid_paths), dict(grid_units or {}), list(keep)
    import tcplab

    say = notify or (lambda _m: None)
    path = store.path
    if path.exists() and not path.is_dir():
        raise StoreError(f"{path}: not a directory; a store is a directory")
    _refuse_links(path) if path.is_dir() else None
    path.mkdir(parents=True, exist_ok=True)
    for name in ("parts", "plans", "tables", "traces"):  # a file where a folder belongs
        if (path / name).exists() and not (path / name).is_dir():
            _aside(path, [path / name], name)
            say(f"{path / name} was not a directory; set aside in {path / 'damaged'}")
    (path / "parts").mkdir(exist_ok=True)
    if (path / ".lock").exists() and not regular_file(path / ".lock"):
        _aside(path, [path / ".lock"], "lock")
    fd = _take_lock(path)
    try:
        try:
            m = store.manifest
        except StoreError as e:
            m = {}
            damaged_manifest: str | None = str(e)
        else:
            damaged_manifest = None
        if m:
            _check_manifest(store, m, kind=kind, base_hash=base_hash)
            if list(m.get("keep", [])) != list(keep):
                have = ", ".join(m.get("keep", [])) or "none"
                raise StoreError(
                    f"{path}: keeps the per-run tables {have}, not "
                    f"{', '.join(keep) or 'none'}; a store's runs all keep the same tables "
                    f"(--keep {','.join(m.get('keep', [])) or '...'}), or use another directory"
                )
        else:
            # New, or store.json gone or damaged: the parts and plans say whose they are.
            foreign = _foreign_parts(store, base_hash)
            if foreign:
                why = damaged_manifest or f"{path}: store.json is missing"
                raise StoreError(
                    f"{why.rstrip('.')}; and {foreign} here was written for another base "
                    "scenario than this sweep's: not written into. Use another directory."
                )
            m = {
                "format": STORE_FORMAT,
                "tcplab_version": tcplab.__version__,
                "kind": kind,
                "base_hash": base_hash,
                "base": dict(base),
                "grid_paths": [],
                "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                "keep": list(keep),
            }
            if base_given is not None:
                m["base_given"] = dict(base_given)
            if damaged_manifest or store.part_paths():
                if (path / _MANIFEST).exists() or (path / _MANIFEST).is_symlink():
                    _aside(path, [path / _MANIFEST], "store.json")
                say(f"{path / _MANIFEST} was damaged or missing; written again for this sweep")
        known = list(m.get("grid_paths", []))
        new = [p for p in grid_paths if p not in known]
        units = dict(m.get("grid_units", {}))
        more_units = {p: u for p, u in grid_units.items() if units.get(p) != u}
        if new or more_units or not regular_file(path / _MANIFEST):
            m["grid_paths"] = known + new
            m["grid_units"] = {**units, **more_units}
            write_file(path / _MANIFEST, (json.dumps(m, indent=2) + "\n").encode())
        writer = StoreWriter(store, fd, keep=list(keep), base_hash=base_hash, notify=say)
        writer._tidy()
        return writer
    except BaseException:
        os.close(fd)
        raise


def _aside(path: Path, files: Iterable[Path], name: str) -> Path:
    """Move `files` (of the store at `path`) into damaged/NAME-<stamp>/."""
    dest = path / "damaged" / f"{name}-{_stamp()}"
    dest.mkdir(parents=True, exist_ok=True)
    for f in files:
        if f.exists() or f.is_symlink():
            os.replace(f, dest / f"{f.parent.name}-{f.name}")
    return dest


def _foreign_parts(store: Store, base_hash: str) -> str | None:
    """A part or plan in `store` written for another base scenario (its name), if any."""
    chk = store.check(read_lists=False, base_hash=base_hash)
    for c in chk.damaged:
        if c.damage and "another base scenario" in c.damage:
            return str(c.part)
    for p in chk.plans:
        if not p.damage and p.spec.get("store") not in (None, base_hash):
            return f"plans/{p.name}.json"
    return None


class StoreWriter:
    """Appends parts (rows and kept tables), records plans and keeps traces while holding the
    store's lock. `have` is the set of run ids present once damaged parts are set aside."""

    def __init__(
        self, store: Store, lock_fd: int, *, keep: list[str], base_hash: str, notify: Notify
    ) -> None:
        self.store = store
        self._fd: int | None = lock_fd
        self.keep = keep
        self.base_hash = base_hash
        self.notify = notify
        self.rows_written = 0
        self.have: set[str] = set()
        self.set_aside = 0

    # -- what is there ------------------------------------------------------------------------

    def _tidy(self) -> None:
        """Remove killed writers' leftovers; check every part; set aside the damaged ones and
        those holding a run another part holds; give whole parts without a list their list."""
        path = self.store.path
        for d in [path / "parts", path / "plans", path / "traces", path]:
            clean_stale(d)
        parts = path / "parts"
        for stale in parts.glob(".tmp-*"):  # an older writer's leftovers
            stale.unlink(missing_ok=True)
        tables = path / "tables"
        if tables.is_dir():
            for d in tables.iterdir():
                if d.is_dir():
                    clean_stale(d)
                    for f in d.glob("part-*.parquet"):  # a flush killed before its part
                        if not (parts / f.name).exists():
                            f.unlink(missing_ok=True)
        traces = path / "traces"
        if traces.exists():
            import shutil

            for stale in traces.glob(".tmp-*"):
                shutil.rmtree(stale, ignore_errors=True)
        chk = self.store.check(read_lists=False, base_hash=self.base_hash)
        for c in list(chk.parts):
            if not c.ids_ok:
                read_part_ids(c)
                if c.damage:
                    chk.parts.remove(c)
                    chk.damaged.append(c)
                else:
                    self._write_list(c.part, c.ids)
        for c in chk.damaged:
            self._set_aside(c, c.damage or "damaged")
        seen: set[str] = set()
        for c in chk.parts:
            if c.damage:
                continue
            if any(r in seen for r in c.ids):
                self._set_aside(c, "it holds runs another part holds")
                continue
            seen.update(c.ids)
        self.have = seen
        plans = path / "plans"
        for p in chk.plans:
            if p.damage:
                self._move_aside([plans / f"{p.name}.json", plans / f"{p.name}.ids"], p.name)
                self.notify(
                    f"{plans / p.name}.json: damaged ({p.damage}); set aside in "
                    f"{path / 'damaged'}; rerun that sweep to record it again"
                )

    def _write_list(self, part: Path, ids: list[str]) -> None:
        size, crc = file_crc(part)
        tables = {}
        for name in self.keep:
            f = self.store.path / "tables" / name / part.name
            if regular_file(f):
                tables[name] = file_crc(f)
        text = ids_text(ids, store=self.base_hash, size=size, crc=crc, tables=tables)
        listing = part.with_name(part.name + ".ids")
        if listing.exists() and not regular_file(listing):
            self._move_aside([listing], listing.name)
        write_file(listing, text.encode())

    def _move_aside(self, files: Iterable[Path], name: str) -> Path:
        return _aside(self.store.path, files, name)

    def _set_aside(self, c: PartCheck, why: str) -> None:
        dest = self._move_aside(part_files(c.part, self.store.path / "tables"), c.part.name)
        held = f"its {len(c.ids)} runs are" if c.ids else "the runs it held are"
        self.set_aside += 1
        self.notify(f"{c.part}: damaged ({why}); set aside in {dest}; {held} computed again")

    # -- parts --------------------------------------------------------------------------------

    def append(self, rows: Any, tables: Mapping[str, Any] | None = None) -> None:
        """Write `rows` (dicts, or a pyarrow Table with a ``run_id`` column) as one new part,
        with the kept `tables` (name -> pyarrow Table with a ``run_id`` column) of its runs:
        the tables, then the part, then its run id list."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = rows if isinstance(rows, pa.Table) else rows_table(rows) if rows else None
        if table is None or table.num_rows == 0:
            return
        path = self.store.path
        name = f"part-{_stamp()}-{os.urandom(4).hex()}.parquet"
        kept: dict[str, tuple[int, int]] = {}
        for tname, t in (tables or {}).items():
            if tname not in KEEP_TABLES or t is None or t.num_rows == 0:
                continue
            target = inside(path / "tables" / check_name("table", tname), name, field="part")
            write_file(target, lambda f, t=t: pq.write_table(t, f))
            kept[tname] = file_crc(target)
        final = path / "parts" / name
        write_file(final, lambda f: pq.write_table(table, f))
        size, crc = file_crc(final)
        ids = [str(r) for r in table.column("run_id").to_pylist()]
        text = ids_text(ids, store=self.base_hash, size=size, crc=crc, tables=kept)
        write_file(final.with_name(name + ".ids"), text.encode())
        self.have.update(ids)
        self.rows_written += table.num_rows

    def save_traces(self, run_id: str, result: Any) -> None:
        """Keep a Result's trace tables under traces/<run_id> (written aside, then renamed)."""
        traces = self.store.path / "traces"
        traces.mkdir(exist_ok=True)
        final = inside(traces, run_id, field="run_id")
        if final.exists():
            return
        result.to_dir(final)

    # -- plans ----------------------------------------------------------------------------------

    def begin_plan(self, spec: Mapping[str, Any], runs: int, base_given: Any) -> str:
        """Record that a sweep of `runs` runs (grid and seeds in `spec`) is being written;
        return its name. A sweep recorded before (the same grid and seeds) keeps its record."""
        import tcplab

        key = json.dumps(spec, sort_keys=True, separators=(",", ":"), default=str)
        name = sha256(key.encode()).hexdigest()[:16]
        plans = self.store.path / "plans"
        f = plans / f"{name}.json"
        if regular_file(f):
            return name
        plans.mkdir(exist_ok=True)
        doc = {
            **spec,
            "runs": runs,
            "state": "running",
            "store": self.base_hash,
            "tcplab_version": tcplab.__version__,
            "base_given": base_given,
            "started": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        }
        write_file(f, (json.dumps(doc, indent=1, default=str) + "\n").encode())
        return name

    def finish_plan(self, name: str, ids: list[str]) -> None:
        """Record that the sweep `name` finished, with the run ids it holds."""
        plans = self.store.path / "plans"
        f = plans / f"{name}.json"
        try:
            doc = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if doc.get("state") == "complete":
            return
        text = "".join(f"{r}\n" for r in ids)
        write_file(plans / f"{name}.ids", text.encode())
        doc["state"] = "complete"
        doc["runs"] = len(ids)
        doc["ids_crc32"] = zlib.crc32(text.encode())
        write_file(f, (json.dumps(doc, indent=1, default=str) + "\n").encode())

    # -- the lock -------------------------------------------------------------------------------

    def close(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()
