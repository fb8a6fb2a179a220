"""Nothing half-written (issue 16): `tcplab run --out` and a study killed with SIGKILL at
random moments leave, under the final name, either nothing, the previous complete output, or
the new complete output: every file there parses, and the reader accepts the directory."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import tcplab
from conftest import EXAMPLE

TCPLAB = str(Path(sys.executable).parent / "tcplab")


def _complete_run_dir(d: Path) -> None:
    res = tcplab.Result.from_dir(d)  # refuses a directory without its summary
    assert res.summary["apps"][0]["completed"]
    for table in d.glob("*.parquet"):
        pd.read_parquet(table)


@pytest.mark.slow
@pytest.mark.serial  # killed at moments scaled to a run timed first
def test_run_out_killed_at_20_random_moments(tmp_path: Path) -> None:
    rng = random.Random(16)
    out = tmp_path / "run"
    cmd = [TCPLAB, "run", str(EXAMPLE), "--set", "apps.ftp.size=2MB", "--set",
           "output.packets=true", "--out", str(out), "--json"]  # fmt: skip
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    full = time.perf_counter() - t0
    outcomes = {"complete": 0, "absent": 0}
    for _ in range(20):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.5, 1.1) * full)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if out.exists():
            _complete_run_dir(out)
            outcomes["complete"] += 1
        else:
            outcomes["absent"] += 1
        # a killed write leaves at most its hidden working directory beside
        stray = [p for p in tmp_path.iterdir() if p.name != "run"]
        assert all(p.name.startswith(".run.") for p in stray), stray
    print(f"run --out, 20 kills: {outcomes}")
    assert outcomes["complete"] >= 1


@pytest.mark.slow
@pytest.mark.serial  # killed at moments scaled to a study timed first
def test_study_killed_at_20_random_moments(tmp_path: Path) -> None:
    rng = random.Random(17)
    out = tmp_path / "study"
    cmd = [TCPLAB, "study", "netsim-mathis", "--seeds", "1", "--out", str(out), "--json"]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    full = time.perf_counter() - t0
    complete = 0
    for _ in range(20):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.6, 1.05) * full)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert out.is_dir()  # the first, complete output stays until a new one replaces it
        summary = json.loads((out / "summary.json").read_text())
        pd.read_parquet(out / "results.parquet")
        assert (out / "report.html").read_text().rstrip().endswith("</html>")
        for name, files in summary["figures"].items():
            for fname in files.values():
                data = (out / "figures" / fname).read_bytes()
                assert data.startswith(b"\x89PNG") or data.rstrip().endswith(b"</svg>"), name
        complete += 1
    print(f"study, 20 kills: {complete} complete directories, 0 partial")


def test_study_output_refuses_a_directory_with_other_files(tmp_path: Path) -> None:
    import tcplab.studies as studies
    from tcplab import errors

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("keep me")
    with pytest.raises(errors.InvalidValueError, match=r"thesis\.tex"):
        studies.get("netsim-mathis").run(seeds=1, out=mine)
    assert (mine / "thesis.tex").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]  # no working dir left


def _root_with_mount() -> bool:
    import os
    import shutil

    return sys.platform == "linux" and os.geteuid() == 0 and shutil.which("mount") is not None


@pytest.mark.skipif(not _root_with_mount(), reason="needs root to mount a small tmpfs")
@pytest.mark.parametrize("option", ["--out", "--pcap"])
def test_a_full_disk_is_an_error_after_the_result_and_leaves_no_file(
    option: str, tmp_path: Path
) -> None:
    """`--out` and `--pcap` on a 64 KiB filesystem: the summary is printed, then one line
    `error: ... No space left on device`, exit 2, and no file (short or not) is left."""
    small = tmp_path / "small"
    small.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(small)], check=True)
    try:
        target = small / "dest"
        done = subprocess.run(
            [TCPLAB, "run", str(EXAMPLE), "--set", "apps.ftp.size=2MB", "--set",
             "output.packets=true", option, str(target), "--json"],
            capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 2
        assert json.loads(done.stdout)["apps"][0]["completed"]  # the result came first
        assert done.stderr.startswith("error:") and "No space left on device" in done.stderr
        assert "Traceback" not in done.stderr
        files = [p for p in small.rglob("*") if p.is_file()]
        assert files == []
        if option == "--out":
            with pytest.raises(tcplab.errors.InvalidValueError, match="not a complete run"):
                tcplab.Result.from_dir(target)
    finally:
        subprocess.run(["umount", str(small)], check=True)


# -- replacing a directory: the old one or the new one under its name, at every step ----------

# Writes `out` holding TEXT (summary.json and figures/a.svg), and once the new directory is
# filled, SIGKILLs itself after its STEP-th change to the filesystem (a rename, the exchange,
# an unlink or rmdir of the old directory's removal). HOW "renames": a system without
# RENAME_EXCHANGE.
_WRITE_KILLED_AT_STEP = """
import os, signal, sys
from pathlib import Path
from tcplab import _atomic

out, text, step, how = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
if how == "renames":
    _atomic._exchange = lambda a, b: False
done = 0

def counted(f):
    def step_of(*args, **kwargs):
        global done
        result = f(*args, **kwargs)
        done += 1
        if done == step:
            os.kill(os.getpid(), signal.SIGKILL)
        return result
    return step_of

def fill(d):
    (d / "summary.json").write_text(text)
    (d / "figures").mkdir()
    (d / "figures" / "a.svg").write_text(text)
    _atomic._exchange = counted(_atomic._exchange)
    for name in ["rename", "unlink", "rmdir"]:
        setattr(os, name, counted(getattr(os, name)))

_atomic.write_dir(out, fill, lambda p: True)
"""


def _write(out: Path, text: str) -> None:
    from tcplab._atomic import write_dir

    def fill(d: Path) -> None:
        (d / "summary.json").write_text(text)
        (d / "figures").mkdir()
        (d / "figures" / "a.svg").write_text(text)

    write_dir(out, fill, lambda p: True)


def _holds(out: Path) -> str | None:
    """What the directory `out` holds, checked whole: "old", "new", or None when absent."""
    if not out.exists():
        return None
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == [
        "figures", "figures/a.svg", "summary.json"
    ]  # fmt: skip
    text = (out / "summary.json").read_text()
    assert (out / "figures" / "a.svg").read_text() == text
    return text


def _can_exchange(tmp_path: Path) -> bool:
    from tcplab import _atomic

    a, b = tmp_path / "probe-a", tmp_path / "probe-b"
    a.mkdir()
    b.mkdir()
    swapped = _atomic._exchange(a, b)
    a.rmdir()
    b.rmdir()
    return swapped


@pytest.mark.parametrize("how", ["exchange", "renames"])
def test_a_replaced_directory_is_the_old_or_the_new_whatever_step_kills_the_writer(
    tmp_path: Path, how: str
) -> None:
    """SIGKILL after each step of replacing a directory: with RENAME_EXCHANGE the old or the
    new directory is under the name at once; with two renames the next write's `clean_stale`
    puts the old one back when the writer died between them. Either way nothing else is left."""
    from tcplab._atomic import clean_stale

    if how == "exchange" and not _can_exchange(tmp_path):
        pytest.skip("this system or filesystem cannot swap two directories in one step")
    out = tmp_path / "out"
    seen = []
    for step in range(1, 30):
        _write(out, "old")
        killed = subprocess.run(
            [sys.executable, "-c", _WRITE_KILLED_AT_STEP, str(out), "new", str(step), how]
        )
        if killed.returncode == 0:  # finished before its step-th step
            assert _holds(out) == "new" and os.listdir(tmp_path) == ["out"]
            break
        assert killed.returncode == -signal.SIGKILL
        now = _holds(out)
        if how == "exchange":
            assert now is not None, f"nothing under the name after step {step}"
        clean_stale(tmp_path, "out")  # what the next write does first
        after = _holds(out)
        assert after in ("old", "new") and after == (now or after), (step, now, after)
        assert os.listdir(tmp_path) == ["out"], step  # no working or set-aside directory left
        seen.append(after)
    else:
        pytest.fail("the write never finished")
    assert seen[-1] == "new" and len(seen) >= 3, seen
    if how == "renames":  # killed after no change, then with the old directory set aside
        assert seen[:2] == ["old", "old"], seen


def test_a_replaced_directory_is_swapped_in_one_step_and_the_old_one_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tcplab._atomic import write_dir

    if not _can_exchange(tmp_path):
        pytest.skip("this system or filesystem cannot swap two directories in one step")
    out = tmp_path / "out"
    write_dir(out, lambda d: (d / "old.txt").write_text("old"), lambda p: True)
    renames: list[tuple[str, str]] = []
    real_rename = os.rename
    monkeypatch.setattr(os, "rename", lambda a, b: renames.append((a, b)) or real_rename(a, b))
    write_dir(out, lambda d: (d / "new.txt").write_text("new"), lambda p: True)
    assert renames == []  # the old directory never left its name
    assert os.listdir(out) == ["new.txt"] and (out / "new.txt").read_text() == "new"
    assert os.listdir(tmp_path) == ["out"]  # the old contents removed, nothing beside


def test_an_interrupted_replace_by_two_renames_puts_the_old_directory_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C between the two renames (a system without RENAME_EXCHANGE): the old directory is
    back under its name before the KeyboardInterrupt leaves `write_dir`."""
    from tcplab import _atomic

    out = tmp_path / "out"
    _write(out, "old")
    monkeypatch.setattr(_atomic, "_exchange", lambda a, b: False)
    real_rename = os.rename

    def rename(a: Path, b: Path) -> None:
        real_rename(a, b)
        if ".old-" in Path(b).name:
            raise KeyboardInterrupt

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        _write(out, "new")
    assert _holds(out) == "old" and os.listdir(tmp_path) == ["out"]
