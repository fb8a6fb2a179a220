"""Directories that are complete or absent: written beside their final name, then renamed.

`write_dir(final, fill, ours)` makes a hidden working directory next to `final`
(``.NAME.writing-*``), lets `fill(tmp)` write everything into it, and renames it to `final`.
A directory already at `final` is replaced whole when every entry in it is one `ours` accepts
(an earlier write of the same kind) and refused, naming the others, when it is not. A write
that fails leaves nothing; one that is killed leaves no directory under the final name, at
most a hidden working directory beside it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

from tcplab import errors as _errors


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
    full = out.resolve()
    full.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{full.name}.writing-", dir=full.parent))
    try:
        fill(tmp)
        if full.exists():
            old = full.parent / f".{full.name}.old-{uuid.uuid4().hex[:8]}"
            os.rename(full, old)
            os.rename(tmp, full)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, full)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def write_test_file(p: Path) -> bool:
    """The probe file the CLI makes to check that a directory is writable."""
    return p.is_file() and p.name.startswith(".tcplab-write-test-")
