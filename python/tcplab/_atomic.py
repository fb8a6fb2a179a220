"""Every file tcplab writes is complete or absent: written beside its final name, then renamed.

- `write_file(final, data)` writes one file: into a hidden file beside it
  (``.NAME.writing-PID-*``, created exclusively and never through a symbolic link), flushed to
  disk, then renamed over `final` (a symbolic link at `final` is replaced, not followed).
- `write_dir(final, fill, ours)` writes a directory: `fill(tmp)` writes everything into a hidden
  working directory next to `final` (``.NAME.writing-PID-*``), which is then renamed to
  `final`. A directory already at `final` is replaced whole when every entry in it is one
  `ours` accepts (an earlier write of the same kind) and refused, naming the others, when it is
  not. The replacement swaps the two directories in one step where the system can
  (`_exchange`); elsewhere the old one is first set aside (``.NAME.old-PID-*``), and if the
  writer is killed before the new one is in its place, the next write of the same name (its
  `clean_stale`) puts the old one back.
- `inside(directory, name, field=...)` is the one place a name becomes a file name: `name` must
  be a name (`check_name`: letters, digits, ``-_.``, no separator, not ``.`` or ``..``), so
  the path stays inside `directory`.

A write that fails leaves nothing and raises OSError naming the final path, saying that
nothing was written under it and what is kept there; one that is killed leaves under the final
name the old file or directory or the new one, whole, and beside it at most a hidden working
file or directory, which the next write of the same name removes (or, a directory set aside,
puts back) once the process that made it is gone.
"""

from __future__ import annotations

import errno as _errno
import functools
import os
import re
import sys
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


#: What a writer leaves beside NAME while it works: ``.NAME.writing-PID-*`` (a working file or
#: directory) and ``.NAME.old-PID-*`` (the directory it replaces, set aside; ``.NAME.old-*``
#: without the PID when an older tcplab wrote it).
_LEFT = re.compile(r"(writing|old)-(?:(\d+)-)?[0-9a-z_]+")
_ANY_WORK = re.compile(r"\.(.+)\.(writing-.*)")


def _remove(p: Path) -> None:
    if p.is_dir() and not p.is_symlink():
        import shutil

        shutil.rmtree(p, ignore_errors=True)
    else:
        try:
            p.unlink()
        except OSError:
            pass


def clean_stale(directory: Path, name: str | None = None) -> None:
    """Tidy what killed writers of `directory/name` left beside it, once the process that left
    it is gone: remove working files and directories (``.NAME.writing-PID-*``); put a
    directory set aside (``.NAME.old-PID-*``) back under NAME when nothing is there (its writer
    was killed between setting it aside and renaming the new one in), and remove it when NAME
    is there again. With `name` None, remove the working files and directories of any name in
    `directory` (a store's, where nothing is set aside)."""
    try:
        entries = list(directory.iterdir())
    except OSError:
        return
    set_aside: dict[str, list[Path]] = {}
    for p in entries:
        if name is None:
            m = _ANY_WORK.fullmatch(p.name)
            if m is None:
                continue
            final, rest = m[1], m[2]
        elif p.name.startswith(f".{name}."):
            final, rest = name, p.name[len(name) + 2 :]
        else:
            continue
        m = _LEFT.fullmatch(rest)
        if m is None or (m[1] == "writing" and m[2] is None):
            continue
        if m[2] is not None and _pid_alive(int(m[2])):
            continue  # a live writer's: it removes (or puts back) its own
        if m[1] == "writing":
            _remove(p)
        else:
            set_aside.setdefault(final, []).append(p)
    for final, olds in set_aside.items():
        there = directory / final
        if not (there.exists() or there.is_symlink()):
            try:
                newest = max(olds, key=lambda p: p.lstat().st_ctime_ns)  # the latest set aside
                os.rename(newest, there)
            except OSError:
                continue  # kept, for the next write to try again
            olds.remove(newest)
        for p in olds:
            _remove(p)


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
    clean_stale(parent, out.name)  # first: what it puts back is what is there
    existed = out.exists() or out.is_symlink()
    if out.is_dir() and not out.is_symlink():
        raise OSError(_errno.EISDIR, "cannot write: it is a directory", str(out))
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _failed(e, out, existed) from None
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


#: renameat2's flag that swaps the two names (Linux 3.15, glibc 2.28).
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    if sys.platform != "linux":
        return None
    import ctypes

    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a C library without it
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


def _exchange(a: Path, b: Path) -> bool:
    """Swap the directories `a` and `b` in one step, so that each name always holds one of
    them: True when done, False (nothing changed) where the system or the filesystem cannot
    (not Linux, an old kernel or C library, a filesystem without RENAME_EXCHANGE)."""
    fn = _renameat2()
    if fn is None:
        return False
    import ctypes

    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    e = ctypes.get_errno()
    # EPERM: what a sandbox's seccomp filter answers for a system call it does not know; a
    # real lack of permission is then said by the plain rename.
    if e in (_errno.EINVAL, _errno.ENOSYS, _errno.EOPNOTSUPP, _errno.ENOTSUP, _errno.EPERM):
        return False
    raise OSError(e, os.strerror(e), str(a), None, str(b))


def write_dir(
    final: str | os.PathLike[str],
    fill: Callable[[Path], None],
    ours: Callable[[Path], bool],
    *,
    option: str = "out",
    what: str = "a run's",
) -> Path:
    """Write the directory `final`: `fill(tmp)` writes everything into a hidden working
    directory beside it, which then takes its place. A directory already at `final` is
    replaced whole if `ours` accepts every entry in it (InvalidValueError naming `option` and
    the other entries if not). At every moment `final` holds the old directory or the new one,
    never a part and, where the system swaps directories in one step, never neither; where it
    cannot, the old one is set aside for the moment between two renames, and a writer killed
    in that moment leaves it beside `final` for the next write's `clean_stale` to put back."""
    import shutil
    import tempfile

    out = Path(final)
    full = out.resolve()
    clean_stale(full.parent, full.name)  # first: it may put back an output set aside
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
    existed = out.is_dir()
    try:
        full.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _failed(e, out, existed, "directory") from None
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{full.name}.writing-{os.getpid()}-", dir=full.parent))
    except OSError as e:
        raise _failed(e, out, existed, "directory") from None
    aside = None  # the old directory while it is set aside and the new one not yet in place
    try:
        fill(tmp)
        if not full.exists():
            os.rename(tmp, full)
        elif _exchange(tmp, full):
            shutil.rmtree(tmp, ignore_errors=True)  # it holds the old directory now
        else:
            aside = full.parent / f".{full.name}.old-{os.getpid()}-{os.urandom(4).hex()}"
            os.rename(full, aside)
            os.rename(tmp, full)
            old, aside = aside, None
            shutil.rmtree(old, ignore_errors=True)
    except BaseException as e:
        if aside is not None and not full.exists():
            try:
                os.rename(aside, full)  # back, else the next write's clean_stale puts it back
            except OSError:
                pass
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(e, OSError):
            raise _failed(e, out, existed, "directory") from None
        raise
    return out


def write_test_file(p: Path) -> bool:
    """The probe file the CLI makes to check that a directory is writable."""
    return p.is_file() and p.name.startswith(".tcplab-write-test-")
