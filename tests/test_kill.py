"""Nothing half-written (issue 16): `tcplab run --out` and a study killed with SIGKILL at
random moments leave, under the final name, either nothing, the previous complete output, or
the new complete output: every file there parses, and the reader accepts the directory."""

from __future__ import annotations

import json
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
