"""A fuzz test of scenario and sweep input (issue 35, hypothesis): whatever the names, values,
grid and seeds, `tcplab run --pcap --out` and `tcplab sweep` end with status 0 or one
``error:`` line and status 2, never a traceback; nothing is written outside the directories
they were given; and no input makes them allocate more than a bounded amount (the size of a
sweep is checked before anything of that size exists).

The commands run in this process (`tcplab.cli.main`), each example in a fresh sandbox
directory that also holds a file outside the outputs, whose name an input may aim at.
A longer run: TCPLAB_FUZZ_EXAMPLES=500 pytest tests/test_fuzz.py (marked slow there)."""

from __future__ import annotations

import os
import resource
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from conftest import cli_in_process
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("TCPLAB_FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=EXAMPLES <= 100,  # the longer run explores afresh each time
)
#: The most a single command may grow this process's largest resident size.
RSS_BUDGET_KB = 400_000

HOSTILE_NAMES = [
    "../evil", "../../evil", "a/b", "..", ".", "", "x\\y", "a b", "-rf", ".hidden", "x" * 300,
    "a\nb", "a\x00b", "\x1b[2J", "né", "c:evil", "con", "ok.pcap", "~", "$HOME", "*",
]  # fmt: skip
names = st.one_of(
    st.sampled_from(HOSTILE_NAMES),
    st.text(max_size=12),
    st.from_regex(r"[a-z][a-z0-9_.-]{0,8}", fullmatch=True),
)
units = st.sampled_from(["", "bps", "kbps", "Mbps", "Gbps", "ms", "s", "us", "ns", "min", "B",
                         "kB", "MB", "KiB", "%", "p", "x", "Mb/s", " Mbps", "e"])  # fmt: skip
numbers = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["0", "1", "1e308", "1e-320", "-0", "0x10", "1_000", ".5", "5.", "nan"]),
)
quantities = st.one_of(
    st.tuples(numbers, units).map("".join),
    st.integers(-(2**65), 2**65),
    st.floats(),
    st.sampled_from(["10Mbps", "1Mbps", "10000kbps", "20ms", "0.02s", "50kB", "1%", 0.01, 0, 1]),
)


def _scenario(nodes: list[str], rate: Any, delay: Any, size: Any, p: Any) -> dict[str, Any]:
    client, router, server = nodes
    return {
        "run": {"stop_time": "20s", "seed": 1},
        "nodes": [
            {"name": client, "kind": "host"},
            {"name": router, "kind": "router"},
            {"name": server, "kind": "host"},
        ],
        "links": [
            {"name": "lan", "a": client, "b": router, "rate": "10Mbps", "delay": "1ms"},
            {
                "name": "wan",
                "a": router,
                "b": server,
                "rate": rate,
                "delay": delay,
                "ba": {"error": {"model": "per", "p": p}},
            },  # fmt: skip
        ],
        "apps": [
            {"name": "ftp", "kind": "ftp", "client": client, "server": server, "size": size}
        ],  # fmt: skip
    }


class Sandbox:
    """A directory with the command's outputs under out/ and a file outside them."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="tcplab-fuzz-")
        self.root = Path(self._tmp.name)
        self.work = self.root / "work"
        self.out = self.work / "out"
        self.work.mkdir()
        (self.root / "victim").write_text("keep")
        self.before: dict[str, bytes] = {}

    def snapshot(self) -> None:
        """What is outside the outputs now (the scenario written): to stay as it is."""
        self.before = self._outside()

    def _outside(self) -> dict[str, bytes]:
        return {
            str(p.relative_to(self.root)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in self.root.rglob("*")
            if self.out not in p.parents and p != self.out
        }

    def check_nothing_outside(self) -> None:
        assert self._outside() == self.before

    def close(self) -> None:
        self._tmp.cleanup()


def _cli(args: list[str], capsys: pytest.CaptureFixture[str], cwd: Path) -> tuple[Any, str]:
    code, _, err = cli_in_process(args, capsys, cwd)
    return code, err


def _one_line_or_nothing(code: Any, err: str) -> None:
    event(f"exit status {code}")
    event(err.splitlines()[0][:70] if err else "")
    assert code in (0, 2), (code, err[-1500:])
    assert "Traceback" not in err, err[-1500:]
    lines = [ln for ln in err.splitlines() if not ln.startswith(("warning:", "  (", "wrote "))]
    if code == 2:
        assert lines and lines[0].startswith("error: "), err[-1500:]
        assert len(lines) == 1, err[-1500:]
        assert all(ord(c) >= 32 or c == "\t" for c in lines[0]), lines[0]  # no control char
    else:
        assert lines == [], err[-1500:]


def _rss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


VALID = {"rate": "10Mbps", "delay": "10ms", "size": "20kB", "p": 0.01}


@FUZZ
@given(
    bad=st.sampled_from(["nothing", "names", "absolute", "rate", "delay", "size", "p"]),
    nodes=st.lists(names, min_size=3, max_size=3, unique=True),
    value=quantities,
)
def test_fuzz_a_scenario_run_writes_only_where_it_was_told(
    capsys: pytest.CaptureFixture[str], bad: str, nodes: list[str], value: Any
) -> None:
    """One part of the scenario hostile at a time: the node names (which become capture
    file names), a node named by an absolute path to a file outside, or one quantity."""
    box = Sandbox()
    try:
        if bad == "absolute":
            nodes = ["client", "router", str(box.root / "victim")]
        elif bad != "names":
            nodes = ["client", "router", "server"]
        fields = dict(VALID, **({bad: value} if bad in VALID else {}))
        f = box.work / "s.toml"
        f.write_text(tomli_w.dumps(_scenario(nodes, **fields)))
        box.snapshot()
        rss = _rss_kb()
        code, err = _cli(
            ["run", str(f), "--pcap", "out/pcap", "--out", "out/run", "--json"], capsys, box.work
        )
        assert _rss_kb() - rss < RSS_BUDGET_KB
        _one_line_or_nothing(code, err)
        box.check_nothing_outside()
        assert (box.root / "victim").read_text() == "keep"
        if bad in ("absolute", "names") and code == 2:
            assert "name: invalid value" in err
        if code == 0:  # every capture is a file directly in the pcap directory
            written = [q for q in (box.out / "pcap").rglob("*") if q.is_file()]
            assert all(q.parent == box.out / "pcap" for q in written), written
            assert len(written) == 2
    finally:
        box.close()


seeds_text = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.tuples(numbers, numbers).map(lambda t: f"{t[0]}..{t[1]}"),
    st.lists(st.integers(-5, 2**64), min_size=1, max_size=6).map(lambda v: ",".join(map(str, v))),
    st.text(max_size=15),
)
paths = st.one_of(
    st.sampled_from(
        [
            "links.wan.rate",
            "links.wan.ba.error.p",
            "tcp.mss",
            "apps.ftp.size",
            "links.wan.delay",
            "seed",
            "stop_time",
            "run.stop_time",
            "links.x.rate",
            "tcp",
            "a..b",
            "",
            "nodes.0.name",
            "apps.ftp.client",
        ]
    ),  # fmt: skip
    st.text(max_size=15),
)
values = st.one_of(
    st.lists(quantities.map(str), min_size=1, max_size=4).map(",".join),
    st.tuples(numbers, numbers, st.integers(-3, 10**9), st.sampled_from(["", "log"])).map(
        lambda t: f"{t[0]}..{t[1]}:{t[2]}{t[3]}"
    ),
    st.tuples(numbers, numbers).map(lambda t: f"{t[0]}..{t[1]}"),
    st.sampled_from(
        [
            "[" * 3000 + "]" * 3000,
            "{a=1},{a=1}",
            '{model="per",p=0.5}',
            "reno,cubic",
            "10Mbps,10000kbps",
            "0.01,1%",
            "[]",
            "{}",
            '"x"',
        ]
    ),  # fmt: skip
    st.text(max_size=20),
)


@FUZZ
@given(
    bad=st.sampled_from(["nothing", "axes", "values", "seeds", "zip", "keep", "node"]),
    axes=st.lists(st.tuples(paths, values), max_size=3),
    good_values=st.sampled_from(["0,0.01", "10Mbps,5Mbps", "0..0.02:3", "1e-3..1e-2:2log"]),
    seeds=seeds_text,
    keep=st.sampled_from(["trace", "queues,trace", "pcap", "trace,trace", "link_series", ""]),
    node=names,
)
def test_fuzz_a_sweep_is_bounded_and_writes_only_its_store(
    capsys: pytest.CaptureFixture[str],
    bad: str,
    axes: list[tuple[str, str]],
    good_values: str,
    seeds: str,
    keep: str,
    node: str,
) -> None:
    """One part of the sweep hostile at a time: the axes, an axis's values, the seeds, --zip,
    --keep, or a node's name (a name the runs never write as a file)."""
    box = Sandbox()
    try:
        f = box.work / "s.toml"
        sc = _scenario(["client", "router", "server"], "10Mbps", "10ms", "20kB", 0.01)
        if bad == "node":
            sc["nodes"].append({"name": node, "kind": "host"})
        f.write_text(tomli_w.dumps(sc))
        box.snapshot()
        path = "links.wan.rate" if "Mbps" in good_values else "links.wan.ba.error.p"
        if bad == "values":
            axes = [(path, axes[0][1] if axes else "")]
        elif bad != "axes":
            axes = [(path, good_values)]
        args = ["sweep", str(f), "--store", "out/st", "--json", "--max-runs", "60", "-j", "2"]
        for p, vals in axes:
            args += ["--grid", f"{p}={vals}"]
        args += ["--seeds", seeds if bad == "seeds" else "1..2"]
        args += ["--zip"] if bad == "zip" else []
        args += ["--keep", keep] if bad == "keep" else []
        rss = _rss_kb()
        code, err = _cli(args, capsys, box.work)
        assert _rss_kb() - rss < RSS_BUDGET_KB
        _one_line_or_nothing(code, err)
        box.check_nothing_outside()
        if code == 0:
            from tcplab.sweep import Store

            st_ = Store(box.out / "st")
            assert st_.check().problem(st_.path) is None
            assert 0 < len(st_) <= 60
            assert {p.name for p in (box.out / "st").iterdir()} <= {
                ".lock", "parts", "plans", "store.json", "tables"
            }  # fmt: skip
    finally:
        box.close()


@pytest.mark.slow
def test_fuzz_longer_in_a_subprocess(tmp_path: Path) -> None:
    """The two fuzz tests above with ten times the examples, in a process of their own."""
    import subprocess

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            __file__,
            "-k",
            "fuzz_a_",
        ],  # fmt: skip
        env=dict(os.environ, TCPLAB_FUZZ_EXAMPLES=str(10 * EXAMPLES)),
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent.parent,
        timeout=3600,
    )
    assert done.returncode == 0, done.stdout[-3000:]
