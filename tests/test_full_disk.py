"""Every writer on a full disk (issue 35): `tcplab plot` (a store's figure, a run's figures),
`run --out/--plot/--pcap`, `sweep --store`, `compare --out` and `study --out`, each at 20 fill
levels of a small tmpfs (from no room at all to just enough), half of them over an earlier
complete output. Each ends with status 0 or one `error:` line naming the path, the disk's
error and what was kept; every file under its final name is whole (the earlier one or the new
one, never a part), and no working file is left behind. Needs root (mount -t tmpfs)."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE, cli_in_process

LEVELS = 20


def _can_mount() -> bool:
    return sys.platform == "linux" and os.geteuid() == 0 and shutil.which("mount") is not None


pytestmark = pytest.mark.skipif(not _can_mount(), reason="needs root to mount a small tmpfs")


@pytest.fixture(scope="module")
def disk() -> Iterator[Path]:
    # Mounted in a directory of its own, not below pytest's numbered temporary directories:
    # a session killed before the unmount would leave a mount there that every later
    # session's clean-up trips over ("Device or resource busy").
    d = Path(tempfile.mkdtemp(prefix="tcplab-full-disk-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(d)], check=True)
    try:
        yield d
    finally:
        subprocess.run(["umount", str(d)], check=True)
        d.rmdir()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A store, a run directory and a study store on the ordinary disk."""
    tcplab = str(Path(sys.executable).parent / "tcplab")
    d = tmp_path_factory.mktemp("inputs")
    run = [tcplab, "run", str(EXAMPLE), "--set", "apps.ftp.size=200kB", "--set",
           "output.queues=true", "--out", str(d / "run"), "--json"]  # fmt: skip
    subprocess.run(run, check=True, capture_output=True)
    sweep = [tcplab, "sweep", str(EXAMPLE), "--grid", "links.wan.ab.error.p=0,0.01", "--seeds",
             "1..3", "--set", "apps.ftp.size=200kB", "--store", str(d / "st")]  # fmt: skip
    subprocess.run(sweep, check=True, capture_output=True)
    return {"run": str(d / "run"), "store": str(d / "st"), "study": str(d / "study-store")}


SMALL = ["--set", "apps.ftp.size=200kB"]
WRITERS: dict[str, Callable[[Path, dict[str, str]], list[str]]] = {
    "plot a store": lambda fs, i: ["plot", i["store"], "--x", "links.wan.ab.error.p", "--y",
                                   "apps.ftp.response_time_s", "--out", str(fs / "fig.png")],
    "plot a run": lambda fs, i: ["plot", i["run"], "--out", str(fs / "plots")],
    "run --out": lambda fs, i: ["run", str(EXAMPLE), *SMALL, "--out", str(fs / "run"), "--json"],
    "run --plot": lambda fs, i: ["run", str(EXAMPLE), *SMALL, "--plot", str(fs / "plots"),
                                 "--json"],
    "run --pcap": lambda fs, i: ["run", str(EXAMPLE), *SMALL, "--pcap", str(fs / "pcap"),
                                 "--json"],
    "sweep --store": lambda fs, i: ["sweep", str(EXAMPLE), "--grid",
                                    "links.wan.ab.error.p=0,0.01", "--seeds", "1..3", *SMALL,
                                    "--keep", "trace", "--store", str(fs / "st"), "--json"],
    "compare --out": lambda fs, i: ["compare", str(EXAMPLE), "--sweep", "per=0.001..0.05",
                                    "--points", "2", "--seeds", "1", *SMALL,
                                    "--out", str(fs / "cmp")],
    "study --out": lambda fs, i: ["study", "netsim-mathis", "--seeds", "1", "--store",
                                  i["study"], "--out", str(fs / "study"), "--json"],
}  # fmt: skip


def _cli_err(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[Any, str]:
    code, _, err = cli_in_process(args, capsys)
    return code, err


def _free(fs: Path) -> int:
    st = os.statvfs(fs)
    return st.f_bavail * st.f_frsize


def _clear(fs: Path) -> None:
    for p in fs.iterdir():
        shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()


def _fill(fs: Path, leave: int) -> None:
    """Fill `fs` so that about `leave` bytes stay free."""
    with open(fs / "filler", "wb") as f:
        while _free(fs) > leave:
            f.write(b"\0" * min(1 << 16, max(4096, _free(fs) - leave)))
            f.flush()
            os.fsync(f.fileno())


def _whole(p: Path) -> None:
    """Raise unless the file `p` is complete for its kind."""
    data = p.read_bytes()
    if p.suffix == ".png":
        assert data.startswith(b"\x89PNG") and data.endswith(b"IEND\xaeB`\x82"), p
    elif p.suffix == ".svg":
        assert data.rstrip().endswith(b"</svg>"), p
    elif p.suffix == ".html":
        assert data.rstrip().endswith(b"</html>"), p
    elif p.suffix == ".json":
        json.loads(data)
    elif p.suffix == ".csv":
        assert data.endswith(b"\n"), p
    elif p.suffix == ".parquet":
        import pyarrow.parquet as pq

        pq.read_table(p)
    elif p.suffix == ".pcap":
        i = 24
        while i < len(data):
            _, _, incl, _ = struct.unpack_from("<IIII", data, i)
            i += 16 + incl
        assert i == len(data), p


def _check(fs: Path, name: str, code: Any, err: str) -> str:
    leftovers = [p for p in fs.rglob("*") if ".writing-" in p.name or ".old-" in p.name]
    assert leftovers == [], leftovers
    for p in fs.rglob("*"):
        if p.is_file() and p.name != "filler" and p.name != ".lock":
            _whole(p)
    if (fs / "st").is_dir() and (fs / "st" / "store.json").exists():
        from tcplab.sweep import Store

        st = Store(fs / "st")
        assert st.check().problem(st.path) is None
    if code == 0:
        return "written"
    lines = [ln for ln in err.splitlines() if ln.startswith("error")]  # beside progress lines
    assert code == 2, (name, code, err[-2000:])
    assert len(lines) == 1 and lines[0].startswith("error: "), (name, err[-2000:])
    assert "Traceback" not in err
    assert "No space left on device" in lines[0], lines[0]
    assert str(fs) in lines[0], lines[0]  # the path
    assert any(w in lines[0] for w in ("unchanged", "no file was made", "no directory was made",
                                       "are kept")), lines[0]  # fmt: skip
    return "one error line"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(WRITERS))
def test_a_writer_on_a_full_disk_leaves_only_whole_files(
    disk: Path, inputs: dict[str, str], capsys: pytest.CaptureFixture[str], name: str
) -> None:
    args = WRITERS[name](disk, inputs)
    _clear(disk)
    empty = _free(disk)
    code, err = _cli_err(args, capsys)
    assert code == 0, err
    needed = empty - _free(disk)
    outcomes: dict[str, int] = {}
    for level in range(LEVELS):
        _clear(disk)
        if level % 2:  # over an earlier complete output
            code, err = _cli_err(args, capsys)
            assert code == 0, err
        _fill(disk, leave=level * needed // (LEVELS - 1))
        code, err = _cli_err(args, capsys)
        outcome = _check(disk, name, code, err)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    _clear(disk)
    with capsys.disabled():
        print(f"\n{name}: {LEVELS} fill levels, output {needed} bytes: {outcomes}")
    assert outcomes.get("one error line", 0) >= 1
