"""Every file tcplab writes is complete or absent: written beside its final name, then renamed.

- `write_file(final, data)` writes one file: into a hidden file beside it
  (``.NAME.writing-PID-*``, created exclusively and never through a symbolic link), flushed to
  disk, then renamed over `final` (a symbolic link at `final` is replaced, not followed).
- `write_dir(final, fill, ours)` writes a directory: `fill(tmp)` writes everything into a hidden
  working directory next to `final` (``.NAME.writing-PID-*``), which is then renamed to
  `final`. A directory already at `final` is replaced whole when every entry in it is one
  `ours` accepts (an earlier write of the same kind) and refused, naming the others, when it is
  not.
- `inside(directory, name, field=...)` is the one place a name becomes a file name: `name` must
  be a name (`check_name`: letters, digits, ``-_.``, no separator, not ``.`` or ``..``), so
  the path stays inside `directory`.

A write that fails leaves nothing and raises OSError naming the final path, saying that
nothing was written under it and what is kept there; one that is killed leaves no file under
the final name, at most a hidden working file or directory beside it, which the next write of
the same name removes once the process that made it is gone.
"""

from __future__ import annotations

import errno as _errno
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from tcplab import errors as _errors

__all__ = [
    "write_file",
    "write_dir",
    "inside",
    "check_name",
    "as_name",
    "NAME_ALLOWED",
    "write_test_file",
    "clean_stale",
]

_NAME = re.compile(r"[A-Za-z0-9_.\-]+")
#: The longest name: the hidden working name adds about 30 characters to it, and Linux allows
#: 255 bytes.
MAX_NAME = 200
NAME_ALLOWED = (
    "a name of letters, digits, '-', '_' and '.' (no path separator, not '.' or '..'), "
    f"at most {MAX_NAME} characters"
)


def check_name(field: str, name: object) -> str:
    """`name` if it is a name that can be a file name as it is, else InvalidValueError naming
    `field` (``nodes.a/b.name: invalid value 'a/b': ...``)."""
    if not isinstance(name, str):
        raise _errors._invalid(field, name, "not text", NAME_ALLOWED)
    if name in (".", "..") or len(name) > MAX_NAME or _NAME.fullmatch(name) is None:
        bad = next((c for c in name if _NAME.fullmatch(c) is None), None)
        why = (
            "it would name a directory"
            if name in (".", "..")
            else "it is empty"
            if not name
            else f"longer than {MAX_NAME} characters"
            if len(name) > MAX_NAME
            else f"it contains {bad!r}, which a file name here may not"
        )
        raise _errors._invalid(field, name, why, NAME_ALLOWED)
    return name


def as_name(text: str, default: str = "figure") -> str:
    """A name made from `text` for a file the user did not name (a plot of a column): each
    character a name may not hold becomes ``_`` (``apps.p:get.rt`` -> ``apps.p_get.rt``)."""
    name = re.sub(r"[^A-Za-z0-9_.\-]", "_", text)[:MAX_NAME]
    return default if name.strip(".") == "" else name


def inside(directory: str | os.PathLike[str], name: str, *, field: str) -> Path:
    """The path of the file `name` in `directory`, `name` checked by `check_name` (so that it
    cannot leave `directory`)."""
    return Path(directory) / check_name(field, name)


# -- leftovers of killed writers --------------------------------------------------------------


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    except OverflowError:
        return False
    return True


_WORK = re.compile(r"\.writing-(\d+)-")


_ANY_WORK = re.compile(r"\.(.+)\.writing-(\d+)-[0-9a-z_]+$")


def clean_stale(directory: Path, name: str | None = None) -> None:
    """Remove what killed writers of `directory/name` (of any name in `directory` if None)
    left beside it: working files and directories (``.NAME.writing-PID-*``) of processes
    that are gone, and an earlier directory set aside (``.NAME.old-*``) once `name` exists
    again."""
    try:
        entries = list(directory.iterdir())
    except OSError:
        return
    final_there = name is not None and (directory / name).exists()
    for p in entries:
        n = p.name
        if name is None:
            m = _ANY_WORK.match(n)
            if m is None or _pid_alive(int(m[2])):
                continue
        elif n.startswith(f".{name}.writing-"):
            m = _WORK.match(n, len(name) + 1)
            if m is None or _pid_alive(int(m[1])):
                continue
        elif not (n.startswith(f".{name}.old-") and final_there):
            continue
        if p.is_dir() and not p.is_symlink():
            import shutil

            shutil.rmtree(p, ignore_errors=True)
        else:
            try:
                p.unlink()
            except OSError:
                pass


# -- the writers --------------------------------------------------------------------------------


def _failed(e: OSError, final: Path, existed: bool, what: str = "file") -> OSError:
    """`e` said of `final`: nothing was written under it, and what is kept there."""
    reason = e.strerror or str(e) or type(e).__name__
    kept = (
        f"the {what} that was there is unchanged"
        if existed
        else f"no {what} was made under that name"
    )
    err = OSError(e.errno or _errno.EIO, f"cannot write: {reason}; {kept}", str(final))
    err.__cause__ = None
    return err


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_file(
    final: str | os.PathLike[str],
    data: bytes | Callable[[BinaryIO], None],
    *,
    durable: bool = True,
) -> Path:
    """Write `data` (bytes, or a function writing into the open binary file) to `final`
    atomically: a reader sees the old file or the whole new one, never a part. `durable`
    flushes the file to disk before it is renamed (and the directory after). A failure
    raises OSError with `final` as its filename (see the module docstring)."""
    out = Path(final)
    parent = out.parent
    existed = out.exists() or out.is_symlink()
    if out.is_dir() and not out.is_symlink():
        raise OSError(_errno.EISDIR, "cannot write: it is a directory", str(out))
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _failed(e, out, existed) from None
    clean_stale(parent, out.name)
    tmp = parent / f".{out.name}.writing-{os.getpid()}-{os.urandom(4).hex()}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(tmp, flags, 0o666)
    except OSError as e:
        raise _failed(e, out, existed) from None
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(data, bytes | bytearray | memoryview):
                f.write(data)
            else:
                data(f)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, out)
    except BaseException as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        if isinstance(e, OSError):
            raise _failed(e, out, existed) from None
        raise
    if durable:
        _fsync_dir(parent)
    return out


def write_text(final: str | os.PathLike[str], text: str) -> Path:
    """`write_file` of UTF-8 text."""
    return write_file(final, text.encode("utf-8"))


def write_dir(
    final: str | os.PathLike[str],
    fill: Callable[[Path], None],
    ours: Callable[[Path], bool],
    *,
    option: str = "out",
    what: str = "a run's",
) -> Path:
    out = Path(final)
    if out.exists() and not out.is_dir():
        raise _errors._invalid(option, str(out), "it is a file", "a directory")
    if out.is_dir():
        foreign = sorted(p.name for p in out.iterdir() if not ours(p))
        if foreign:
            raise _errors._invalid(
                option,
                str(out),
                f"it holds files that are not {what} ({', '.join(foreign[:5])})",
                "a new or empty directory, or one written the same way (it is replaced)",
            )
    import shutil
    import tempfile

    existed = out.is_dir()
    full = out.resolve()
    try:
        full.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _failed(e, out, existed, "directory") from None
    clean_stale(full.parent, full.name)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{full.name}.writing-{os.getpid()}-", dir=full.parent))
    except OSError as e:
        raise _failed(e, out, existed, "directory") from None
    try:
        fill(tmp)
        if full.exists():
            old = full.parent / f".{full.name}.old-{os.urandom(4).hex()}"
            os.rename(full, old)
            os.rename(tmp, full)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, full)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(e, OSError):
            raise _failed(e, out, existed, "directory") from None
        raise
    return out


def write_test_file(p: Path) -> bool:
    """The probe file the CLI makes to check that a directory is writable."""
    return p.is_file() and p.name.startswith(".tcplab-write-test-")
