"""bench/vs_ns2.py (issue 34) compares like with like: in its quick mode, ns-2's Tcl dumbbell and
chain and their tcplab scenarios send the same number of data segments, within 3 %. Its
timings are not checked here (they belong to `make bench`)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(
    shutil.which("ns") is None,
    reason="ns-2 is not installed (apt-get install -y ns2; `make test` does it as root)",
)
def test_quick_mode_sends_the_same_segments_on_both_sides() -> None:
    done = subprocess.run(
        [sys.executable, "bench/vs_ns2.py", "--quick", "--pairs", "1", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:] + done.stdout[-2000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [r["figure"].split(",")[0] for r in rows] == ["vs ns-2: dumbbell"] * 2 + [
        "vs ns-2: ns-2's chain",
        "tcplab scaling: 10 flows against 1",
    ]
    # The scaling line divides the 10-flow case's tcplab cost by the 1-flow case's.
    one, ten, scale = rows[0], rows[1], rows[3]
    assert (one["flows"], ten["flows"], rows[2]["flows"]) == (1, 10, None)
    assert scale["ratio"] == ten["tcplab_ns_per_segment"] / one["tcplab_ns_per_segment"]
    for r in rows[:3]:
        ns2, ours = r["ns2_segments"], r["tcplab_segments"]
        assert ns2 > 10_000, r
        assert abs(ours - ns2) <= 0.03 * ns2, r


def test_without_ns_it_says_so_in_one_line(tmp_path: Path) -> None:
    # A PATH with Python but no `ns`.
    (tmp_path / "python").symlink_to(sys.executable)
    done = subprocess.run(
        [str(tmp_path / "python"), "bench/vs_ns2.py", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PATH": str(tmp_path)},
        timeout=60,
    )
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "vs ns-2: skipped (ns-2 is not installed: apt-get install -y ns2)"
    ]
