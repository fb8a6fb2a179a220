"""A store's parts and how each is checked when read.

A part is one flush of rows: ``parts/part-<stamp>.parquet``, beside it its run id list
``parts/part-<stamp>.parquet.ids`` and, for a sweep that keeps per-run tables (``--keep``),
``tables/<table>/part-<stamp>.parquet``. The kept tables are written first, then the part's
Parquet file is renamed into place (the part is present from then on), then its list is
written (atomically): a kill between the last two leaves a part without a list, which is read
with pyarrow and given its list again, so that a list without its part means a part that was
lost. The list's first line records what the part is, so that every later reader can tell a
whole part from a damaged one without trusting the file system::

    #tcplab-part 1 store=<base hash> rows=<n> bytes=<size> crc32=<hex> ids=<crc32 of the list>
        tables=trace:<size>:<crc32>,queues:<size>:<crc32>

and then one run id a line. `check_part` verifies the list (its own checksum and its count),
the Parquet file's size and CRC-32 (a truncated, overwritten or replaced file fails) and the
kept tables'. It reads bytes only: a rerun that finds every run in its store verifies every
part without importing a table library. A part whose list is missing or damaged is read with
pyarrow instead (`read_part_ids`): readable, its run ids are taken from its rows and the list
can be written again; unreadable, the part is damaged.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

__all__ = [
    "PartCheck",
    "check_part",
    "ids_text",
    "read_part_ids",
    "file_crc",
    "part_files",
    "sha256",
]

try:
    # CPython's own SHA-256, as the standard library's random module takes its SHA-512: the same
    # digests, without hashlib's loading OpenSSL (2 ms, a twentieth of a rerun that finds
    # every run in its store).
    from _sha256 import sha256  # Python 3.11
except ImportError:  # pragma: no cover - 3.12 renamed it; other builds may lack it
    try:
        from _sha2 import sha256  # type: ignore[no-redef]
    except ImportError:
        from hashlib import sha256  # type: ignore[assignment]

_HEADER = "#tcplab-part 1"
_FIELD = re.compile(r"(\w+)=(\S*)")
_RUN_ID = re.compile(r"[0-9a-f]{20}")


class PartCheck:
    """What checking one part found: its run ids (when known), and `damage` (None for a whole
    part, else what is wrong, in words); `ids_ok` is False when the run id list must be
    written again from the part's rows (the part itself is whole). (A plain class: a rerun
    that finds every run in its store does not import dataclasses.)"""

    __slots__ = ("part", "ids", "damage", "ids_ok", "store", "tables")

    def __init__(self, part: Path) -> None:
        self.part = part
        self.ids: list[str] = []
        self.damage: str | None = None
        self.ids_ok = True
        self.store: str | None = None
        self.tables: dict[str, tuple[int, int]] = {}

    @property
    def whole(self) -> bool:
        return self.damage is None

    def __repr__(self) -> str:
        return f"PartCheck({self.part.name!r}, {len(self.ids)} ids, damage={self.damage!r})"


def file_crc(path: Path) -> tuple[int, int]:
    """(size, CRC-32) of a file's bytes, read in blocks."""
    crc = 0
    size = 0
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            crc = zlib.crc32(block, crc)
            size += len(block)
    return size, crc


def ids_text(
    ids: list[str], *, store: str, size: int, crc: int, tables: dict[str, tuple[int, int]]
) -> str:
    """The run id list of a part of `size` bytes and CRC-32 `crc` (and its kept tables)."""
    body = "".join(f"{r}\n" for r in ids)
    tabs = ",".join(f"{n}:{s}:{c:08x}" for n, (s, c) in tables.items())
    head = (
        f"{_HEADER} store={store[:16]} rows={len(ids)} bytes={size} crc32={crc:08x} "
        f"ids={zlib.crc32(body.encode()):08x} tables={tabs}\n"
    )
    return head + body


def _what(path: Path, expect: int, crc: int) -> str | None:
    """None if `path` is a regular file of `expect` bytes with CRC-32 `crc`, else what it is."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return "missing (deleted?)"
    except OSError as e:
        return f"unreadable ({e.strerror})"
    import stat

    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_size != expect:
        shorter = "truncated" if st.st_size < expect else "longer than written"
        return f"{shorter}: {st.st_size} of {expect} bytes"
    try:
        _, got = file_crc(path)
    except OSError as e:
        return f"unreadable ({e.strerror})"
    if got != crc:
        return "its bytes differ from those written (checksum mismatch)"
    return None


def _parse_list(text: str) -> tuple[dict[str, str], list[str]] | None:
    """(header fields, ids) of a run id list whose header and checksum agree, else None."""
    head, sep, body = text.partition("\n")
    if not sep or not head.startswith(_HEADER + " "):
        return None
    fields = dict(_FIELD.findall(head))
    try:
        rows, want = int(fields["rows"]), int(fields["ids"], 16)
        int(fields["bytes"]), int(fields["crc32"], 16)
    except (KeyError, ValueError):
        return None
    if zlib.crc32(body.encode()) != want:
        return None
    ids = body.split("\n")[:-1] if body.endswith("\n") else None
    if ids is None or len(ids) != rows or not all(_RUN_ID.fullmatch(r) for r in ids):
        return None
    return fields, ids


def _tables(spec: str) -> dict[str, tuple[int, int]] | None:
    out = {}
    for item in filter(None, spec.split(",")):
        name, _, rest = item.partition(":")
        size, _, crc = rest.partition(":")
        try:
            out[name] = (int(size), int(crc, 16))
        except ValueError:
            return None
    return out


def check_part(part: Path, tables_dir: Path | None = None) -> PartCheck:
    """Check one part by its run id list (see the module docstring), reading bytes only.
    A part whose list is missing or damaged comes back with ``ids_ok=False`` and no ids
    (`read_part_ids` reads them from the part); a list whose part is gone is damage."""
    out = PartCheck(part)
    ids_file = part.with_name(part.name + ".ids")
    try:
        parsed = _parse_list(ids_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        parsed = None
    if parsed is None:
        out.ids_ok = False
        out.damage = _exists_as_file(part)
        return out
    fields, ids = parsed
    out.ids = ids
    out.store = fields.get("store")
    damage = _what(part, int(fields["bytes"]), int(fields["crc32"], 16))
    if damage:
        out.damage = damage
        return out
    tables = _tables(fields.get("tables", ""))
    if tables is None:
        out.ids_ok = False
        out.ids = []
        return out
    out.tables = tables
    for name, (size, crc) in tables.items():
        if tables_dir is None:
            break
        damage = _what(tables_dir / name / part.name, size, crc)
        if damage:
            out.damage = f"its kept table {name!r} is {damage}"
            return out
    return out


def _exists_as_file(part: Path) -> str | None:
    import stat

    try:
        st = part.lstat()
    except FileNotFoundError:
        return "missing (deleted?)"
    except OSError as e:
        return f"unreadable ({e.strerror})"
    return None if stat.S_ISREG(st.st_mode) else "not a regular file"


def read_part_ids(check: PartCheck) -> PartCheck:
    """A part whose run id list is missing or damaged, read with pyarrow: its ids from its
    rows (then ``ids_ok`` stays False: the list is to be written again), or `damage` when
    the Parquet file cannot be read or its run ids are not a run id list."""
    if check.damage or check.ids_ok:
        return check
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        col = pq.read_table(check.part, columns=["run_id"]).column("run_id").to_pylist()
    except (OSError, pa.ArrowException, KeyError, ValueError) as e:
        check.damage = f"not a readable Parquet file of runs ({str(e).splitlines()[0][:120]})"
        return check
    if not all(isinstance(r, str) and _RUN_ID.fullmatch(r) for r in col):
        check.damage = "its run_id column is not a list of run ids"
        return check
    if len(set(col)) != len(col):
        check.damage = "it holds a run twice"
        return check
    check.ids = col
    return check


def part_files(part: Path, tables_dir: Path) -> list[Path]:
    """Every file of a part that exists: the Parquet file, its run id list, its kept
    tables."""
    out = [p for p in (part, part.with_name(part.name + ".ids")) if p.exists() or p.is_symlink()]
    if tables_dir.is_dir():
        out += [d / part.name for d in sorted(tables_dir.iterdir()) if (d / part.name).exists()]
    return out
