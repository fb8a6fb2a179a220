"""Hostile input to `tcplab sweep` (issue 35): 56 bad sweeps, each one `error:` line and exit
status 2, no traceback, no store left behind, and no memory or time spent before the size of
what was asked for is checked (a grid of 10^7 points, 10^19 seeds, 100,000 nested arrays)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import EXAMPLE

TCPLAB = str(Path(sys.executable).parent / "tcplab")

DEEP = "[" * 5000 + "1" + "]" * 5000
DEEP_TABLE = "{a=" * 3000 + "1" + "}" * 3000

#: (name, arguments after `tcplab sweep FILE`, what the error line names). FILE is the example
#: unless the arguments start with ("FILE", contents): a file of those bytes.
BAD: list[tuple[str, list, str]] = [
    ("seeds ten million", ["--seeds", "10000000"], "seeds"),
    ("seeds 2^63-1", ["--seeds", "9223372036854775807"], "seeds"),
    ("seeds 2^64", ["--seeds", "18446744073709551616"], "seeds"),
    ("seeds 10^40", ["--seeds", "1" + "0" * 40], "seeds"),
    ("seed range to 2^63-1", ["--seeds", "1..9223372036854775807"], "seeds"),
    ("seed range past 2^64", ["--seeds", "5..18446744073709551617"], "seeds"),
    ("seeds negative", ["--seeds", "-5"], "seeds"),
    ("seeds zero", ["--seeds", "0"], "seeds"),
    ("seeds repeated", ["--seeds", "1,1"], "seeds"),
    ("seed ranges overlap", ["--seeds", "1..3,2..4"], "seeds"),
    ("seeds empty", ["--seeds", ""], "seeds"),
    ("seeds a float", ["--seeds", "1.5"], "seeds"),
    ("seeds text", ["--seeds", "abc"], "seeds"),
    ("seeds an empty range", ["--seeds", "5..1"], "seeds"),
    ("seeds nested", ["--seeds", DEEP], "seeds"),
    ("an integer range of 10^7", ["--grid", "tcp.mss=1..10000000"], "tcp.mss"),
    (
        "a grid of 10^7 points",
        ["--grid", "links.wan.ab.error.p=0..0.1:10000", "--grid", "tcp.mss=536..1460:1000"],
        "sweep",
    ),  # fmt: skip
    (
        "10^7 runs from points x seeds",
        ["--grid", "links.wan.ab.error.p=0..0.1:10000", "--seeds", "1000"],
        "sweep",
    ),  # fmt: skip
    (
        "a grid of 10^20 points",
        [
            a
            for i in range(4)
            for a in (
                "--grid",
                f"links.{'wan' if i % 2 else 'lan'}.{'ab' if i < 2 else 'ba'}.error.p=0..0.1:99999",
            )
        ],
        "sweep",
    ),  # fmt: skip
    ("a path twice", ["--grid", "tcp.mss=536,1460", "--grid", "tcp.mss=1000"], "tcp.mss"),
    (
        "a path and its alias",
        ["--grid", "stop_time=10s,20s", "--grid", "run.stop_time=5s"],
        "run.stop_time",
    ),  # fmt: skip
    ("one rate spelt twice", ["--grid", "links.wan.rate=10Mbps,10000kbps"], "links.wan.rate"),
    (
        "one probability spelt twice",
        ["--grid", "links.wan.ab.error.p=0.01,1%"],
        "links.wan.ab.error.p",
    ),  # fmt: skip
    ("one delay spelt twice", ["--grid", "links.wan.delay=20ms,0.02s"], "links.wan.delay"),
    (
        "one value twice",
        ["--grid", "tcp.congestion_control=reno,reno"],
        "tcp.congestion_control",
    ),  # fmt: skip
    ("an int of 2^64", ["--grid", "tcp.mss=18446744073709551616"], "tcp.mss"),
    ("an int of 10^23", ["--grid", "tcp.mss=99999999999999999999999"], "tcp.mss"),
    ("a range to 2^64", ["--grid", "tcp.mss=1..18446744073709551616"], "tcp.mss"),
    ("a negative mss", ["--grid", "tcp.mss=-1"], "tcp.mss"),
    ("a deeply nested value", ["--grid", f"tcp.mss={DEEP}"], "tcp.mss"),
    ("a deeply nested table", ["--grid", f"links.wan.ab.error={DEEP_TABLE}"], "links.wan"),
    (
        "too many log points",
        ["--grid", "links.wan.ab.error.p=1e-8..1e-4:100001log"],
        "links.wan.ab.error.p",
    ),  # fmt: skip
    ("zero points", ["--grid", "links.wan.ab.error.p=0..1:0"], "links.wan.ab.error.p"),
    ("nan range", ["--grid", "links.wan.ab.error.p=nan..1:3"], "links.wan.ab.error.p"),
    ("an infinite value", ["--grid", "links.wan.ab.error.p=inf,1"], "links.wan.ab.error.p"),
    ("seed as an axis", ["--grid", "seed=1,2"], "seed"),
    ("no path", ["--grid", "=1"], "--grid"),
    ("no values", ["--grid", "tcp.mss"], "--grid"),
    ("an empty path part", ["--grid", "links..rate=1Mbps"], "links..rate"),
    ("no such link", ["--grid", "links.nowhere.rate=1Mbps"], "links.nowhere"),
    ("a bad value", ["--grid", "tcp.mss=536,big"], "tcp.mss"),
    (
        "zip of unequal axes",
        ["--zip", "--grid", "tcp.mss=536,1460", "--grid", "tcp.congestion_control=reno"],
        "--zip",
    ),  # fmt: skip
    (
        "zip of the same point twice",
        ["--zip", "--grid", "tcp.mss=536,536", "--grid", "tcp.congestion_control=reno,reno"],
        "--zip",
    ),  # fmt: skip
    ("max-runs below the sweep", ["--max-runs", "3", "--seeds", "4"], "seeds"),
    ("max-runs zero", ["--max-runs", "0"], "--max-runs"),
    ("scheduler local:0", ["--scheduler", "local:0"], "--scheduler"),
    ("scheduler http", ["--scheduler", "http://x"], "--scheduler"),
    ("scheduler unreachable", ["--scheduler", "tcp://127.0.0.1:9"], "--scheduler"),
    ("keep an unknown table", ["--keep", "pcap"], "--keep"),
    ("keep a table twice", ["--keep", "trace,trace"], "--keep"),
    ("set a bad value", ["--set", "tcp.mss=abc"], "tcp.mss"),
    ("set a deeply nested value", ["--set", f"tcp.mss={DEEP}"], "tcp.mss"),
    (
        "a file that is not UTF-8",
        [("FILE", EXAMPLE.read_bytes().replace(b"sarkar2022", b"sark\xffar"))],
        "not UTF-8",
    ),
    ("a deeply nested TOML file", [("FILE", f"x = {DEEP}\n".encode())], "nested too deeply"),
    (
        "a sweep grid that is text",
        [("FILE", EXAMPLE.read_bytes() + b'\n[sweep]\ngrid = "x"\n')],
        "sweep.grid",
    ),  # fmt: skip
    (
        "a file's path twice",
        [
            (
                "FILE",
                EXAMPLE.read_bytes() + b'\n[sweep.grid]\n"tcp.mss" = '
                b"[536]\n[sweep.grid.tcp]\nmss = [1460]\n",
            )
        ],
        "tcp.mss",
    ),  # fmt: skip
]


# Runs the command given after the file name and writes its peak resident size (kB) to the
# file. A process's peak starts at its parent's size when it is started (fork and exec keep the
# high-water mark), so the command is started from this small process, not from pytest, whose
# size after a long session says nothing about the command.
_MEASURE = """
import os, resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(sys.argv[1], "w").write(str(peak))
sys.exit(code if code >= 0 else 128 - code)
"""


def _run(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], int, float]:
    """Run `tcplab ARGS`; also its largest resident size (kB, the command's alone) and its
    wall time."""
    peak = cwd / "peak-rss-kb"
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(peak), TCPLAB, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ, COLUMNS="200"),
    )
    seconds = time.perf_counter() - t0
    rss = int(peak.read_text())
    peak.unlink()
    return done, rss, seconds


def test_the_list_holds_56_inputs():
    assert len(BAD) == 56
    assert len({name for name, _, _ in BAD}) == 56


@pytest.mark.parametrize(("name", "args", "names"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_sweep_is_one_error_line(tmp_path: Path, name: str, args: list, names: str) -> None:
    if args and isinstance(args[0], tuple):
        f = tmp_path / "bad.toml"
        f.write_bytes(args[0][1])
        args = [str(f), *args[1:]]
    else:
        args = [str(EXAMPLE), *args]
    store = tmp_path / "st"
    done, rss, seconds = _run(["sweep", *args, "--store", str(store), "--json"], tmp_path)
    lines = done.stderr.splitlines()
    assert done.returncode == 2, (name, done.stdout[-500:], done.stderr[-2000:])
    assert lines and lines[0].startswith("error: "), done.stderr[-2000:]
    assert [ln for ln in lines if not ln.startswith("  (")] == lines[:1], done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert names in lines[0], lines[0]
    assert len(lines[0]) < 2000
    assert done.stdout == ""
    # nothing computed, no store made (not even for an unreachable scheduler)
    assert not store.exists(), sorted(p.name for p in store.rglob("*"))
    # the size was checked before anything of that size was made: no child grew past 600 MB
    # (a 10^7-point grid made as a list grows to gigabytes), and none took long
    assert rss < 600_000, f"{name}: {rss} kB"
    assert seconds < 60, f"{name}: {seconds:.1f} s"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_or_a_device_as_the_scenario_is_refused_without_reading_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    for f in (fifo, Path("/dev/zero")):
        done, _, _ = _run(["sweep", str(f), "--store", str(tmp_path / "st")], tmp_path)
        assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr
        done, _, _ = _run(["run", str(f)], tmp_path)
        assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr


def test_a_huge_scenario_file_is_refused_by_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(65 * 1024 * 1024)  # sparse: nothing written
    done, rss, _ = _run(["sweep", str(big), "--store", str(tmp_path / "st")], tmp_path)
    assert done.returncode == 2 and "more than a scenario file may have" in done.stderr
