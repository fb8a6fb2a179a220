"""One error contract: every mistake a user can make on the command line ends with one line
``error: ...`` on stderr and exit status 2, never a traceback (issue 16). Each case names what
the message must say: the field or option, the value, what is allowed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TCPLAB = str(Path(sys.executable).parent / "tcplab")
EX = str(ROOT / "examples" / "sarkar2022.toml")

# (arguments, text the one error line must contain); {bad} is a directory of bad files,
# {tmp} a scratch directory.
CASES: list[tuple[tuple[str, ...], str]] = [
    (("run", "{bad}/nonutf8.toml"), "not UTF-8 text (byte 0xff at offset 0)"),
    (("run", "{bad}/deep.toml"), "nested too deeply"),
    (("run", "{bad}/nan.toml"), "run.seed: invalid value nan: numbers must be finite"),
    (("run", "{bad}/inf.toml"), "run.stop_time: invalid value inf"),
    (("run", "{bad}/missing.toml"), "does not exist"),
    (("run", "{bad}/empty.toml"), "nodes: missing"),
    (("run", "{bad}/syntax.toml"), "not valid TOML"),
    (("run", "{bad}"), "is a directory"),
    (("run", EX, "--seed", "18446744073709551616"), "run.seed: invalid value 18446744073709551616"),
    (("run", EX, "--seed", "-1"), "run.seed: invalid value -1"),
    (("run", EX, "--set", "run.stop_time=1e12s"), "a duration below 1e9 s (about 31 years)"),
    (("run", EX, "--set", "output.max_rows=0"), "output.max_rows: invalid value 0"),
    (("run", EX, "--seed", "abc"), "'--seed'"),
    (("run", EX, "--out", "{bad}/file"), "'--out'"),
    (("run", EX, "--pcap", "{bad}/file"), "'--pcap'"),
    (("run", EX, "--out", "/proc/no/such/dir"), "--out /proc/no/such/dir: cannot write there"),
    (("run", EX, "--set"), "'--set' requires an argument"),
    (("run", EX, "--set", "tcp.mss"), "expected key=value"),
    (("run", EX, "--set", "tcp.mss=abc"), 'tcp.mss: invalid value "abc": a whole number'),
    (("run", EX, "--set", "tcp.mss=nan"), "tcp.mss: invalid value nan"),
    (("run", EX, "--set", "links.wan.rate=10M"), 'did you mean "10Mbps"?'),
    (("run", EX, "--set", "links.wan.rate=10 mbps"), 'did you mean "10Mbps"?'),
    (("run", EX, "--set", "links.wan.rate=5G"), 'did you mean "5Gbps"?'),
    (("run", EX, "--set", "links.wan.delay=10"), "links.wan.delay: invalid value 10"),
    (("run", EX, "--set", "nodes.x.kind=host"), "nodes has no element named 'x'"),
    (("run", EX, "--set", "run.stop_time=1TB"), 'run.stop_time: invalid value "1TB"'),
    (("run", EX, "--set", "tcp.congestion_control=nope"), "one of: tahoe, reno"),
    (("run", EX, "--set", "tcp.loss_recovery=nope"), "one of: dupack, newreno, sack, rack-tlp"),
    (("run", EX, "--set", "tcp.profile=nope"), "one of: riverbed, rfc, linux, ns2"),
    (
        ("run", EX, "--set", "tcp.rto_restart=sometimes"),
        'tcp.rto_restart: invalid value "sometimes"',
    ),
    (("run", EX, "--set", "tcp.syn_loss=x"), '"one_after_two" (Linux)'),
    (("run", EX, "--set", "links.wan.ab.error.p=2"), "a probability between 0 and 1"),
    (("run", EX, "--set", "links.wan.ab.error.model=nope"), "one of: none, per, ber"),
    (("run", EX, "--set", "apps.ftp.kind=nope"), 'apps.ftp.kind: invalid value "nope"'),
    (("run", EX, "--set", "links.wan.queue=-1p"), 'links.wan.queue: invalid value "-1p"'),
    (("run", EX, "--set", "tcp.cc_params={{nope=1}}"), "tcp.cc_params.nope: unknown field"),
    (("run", EX, "--set", "run.seed=1.5"), "run.seed: invalid value 1.5"),
    (("run", EX, "--set", "bogus.x=1"), "bogus: unknown field"),
    (("run", EX, "--set", "apps.ftp.size=2PB"), "up to 1PB"),
    (("run", EX, "--set", "tcp.max_retries=0"), "tcp.max_retries: invalid value 0"),
    (("validate", "{bad}/nonutf8.toml"), "not UTF-8 text"),
    (("validate", "{bad}/deep.toml"), "nested too deeply"),
    (("model", "mathis", "--rtt", "100", "--per", "0.01"), "'100' has no unit"),
    (("model", "mathis", "--rtt", "-5ms", "--per", "0.01"), "'--rtt'"),
    (("model", "mathis", "--rtt", "100ms", "--per", "2"), "'--per'"),
    (("model", "mathis", "--per", "0.01"), "Missing option '--rtt'"),
    (("model", "pftk", "--rtt", "100ms", "--per", "0.01", "--rto", "0s"), "'--rto'"),
    (("study", "nope"), "unknown study 'nope'"),
    (("study", "sarkar2022", "-O", "nope=1"), "has no option 'nope'"),
    (("study", "sarkar2022", "--seeds", "0"), "'--seeds'"),
    (("study", "linux-fidelity", "-O", "matrix=x"), "option 'matrix' = 'x'"),
    (("study", "netsim-mathis", "--scheduler", "local:0", "--out", "{tmp}/s"), "--scheduler"),
    (("sweep", EX, "--grid", "x", "--store", "{tmp}/a"), "--grid: invalid value 'x'"),
    (("sweep", EX, "--grid", "links.nowhere.rate=1Mbps", "--store", "{tmp}/b"), "links.nowhere"),
    (("sweep", EX, "--seeds", "0", "--store", "{tmp}/c"), "seeds: invalid value"),
    (("sweep", EX, "--scheduler", "http://x", "--store", "{tmp}/d"), "--scheduler: invalid"),
    (("sweep", EX), "--store DIR is required"),
    (
        (
            "sweep",
            EX,
            "--zip",
            "--grid",
            "tcp.mss=1,2",
            "--grid",
            "tcp.congestion_control=reno",
            "--store",
            "{tmp}/e",
        ),
        "same number of values",
    ),  # fmt: skip
    (("sweep", EX, "--store", "{bad}/file"), "'--store'"),
    (("results", "{bad}"), "no tcplab store here"),
    (("results", "{bad}", "--csv", "--json"), "choose one output format"),
    (("plot", "{bad}", "--x", "a", "--y", "b"), "neither a run directory"),
    (("compare", EX, "--points", "0"), "--points 0"),
    (("compare", EX, "--sweep", "ber=x"), "'x' is not a number"),
    (("conformance", "ns2", "--grid", "nope"), "--grid: invalid value 'nope'"),
    (("nosuchcommand",), "No such command 'nosuchcommand'"),
]


@pytest.fixture(scope="module")
def bad(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("bad")
    (d / "nonutf8.toml").write_bytes(b"\xff\xfe[run]\n")
    (d / "deep.toml").write_text("a = " + "[" * 2000 + "]" * 2000 + "\n")
    (d / "nan.toml").write_text("[run]\nseed = nan\n")
    (d / "inf.toml").write_text("[run]\nstop_time = inf\n")
    (d / "empty.toml").write_text("")
    (d / "syntax.toml").write_text("[run\nseed = 1\n")
    (d / "file").write_text("a file where a directory is expected\n")
    return d


def test_there_are_at_least_50_cases():
    assert len(CASES) >= 50


@pytest.mark.parametrize(("args", "needle"), CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_a_mistake_is_one_error_line_and_exit_2(args, needle, bad, tmp_path):
    argv = [a.format(bad=bad, tmp=tmp_path) for a in args]
    env = dict(os.environ, COLUMNS="300")
    r = subprocess.run([TCPLAB, *argv], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2, (argv, r.returncode, r.stdout[-500:], r.stderr[-500:])
    assert "Traceback" not in r.stdout + r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines and lines[0].startswith("error: "), r.stderr
    assert needle in r.stderr, (needle, r.stderr)


def _wait_for_handlers(proc: subprocess.Popen[str], timeout: float = 30.0) -> None:
    """Wait until `tcplab` (`proc`) catches SIGTERM: its `main` installs that handler before
    anything else, inside the block that turns SIGINT and SIGTERM into `interrupted`, so from
    then on either signal is said. (SIGINT is caught from the interpreter's start, during
    imports too, where it ends in a traceback: its own bit says nothing.)"""
    import signal
    import time

    sigterm = 1 << (signal.SIGTERM - 1)
    deadline = time.perf_counter() + timeout
    while True:
        try:
            status = Path(f"/proc/{proc.pid}/status").read_text()
        except OSError:
            status = ""
        caught = re.search(r"^SigCgt:\s*([0-9a-f]+)$", status, re.M)
        if caught is not None and int(caught[1], 16) & sigterm:
            return
        if proc.poll() is not None or time.perf_counter() > deadline:
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(
                f"tcplab did not install its SIGTERM handler within {timeout:.0f} s "
                f"(exit code {proc.returncode}): {err}"
            )
        time.sleep(0.002)


@pytest.mark.serial  # a signal a second into the run
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc/PID/status")
@pytest.mark.parametrize(("sig", "status"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_stops_a_long_run_with_interrupted(sig: str, status: int, tmp_path: Path) -> None:
    """A 200 GB transfer (over 10 s of simulation; 20 GB took 1.4 s by 2026-11-26) stopped by
    Ctrl-C or SIGTERM once `tcplab` handles them, about a second into the run: `interrupted`,
    exit 130 or 143, no traceback, and nothing written to --out."""
    import signal
    import time

    out = tmp_path / "out"
    proc = subprocess.Popen(
        [TCPLAB, "run", str(ROOT / "examples" / "bulk_1gb.toml"), "--set",
         "apps.download.size=200GB", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    _wait_for_handlers(proc)
    time.sleep(1.0)  # into the simulation, most often; said the same wherever it lands
    proc.send_signal(getattr(signal, sig))
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == status
    assert err == "interrupted\n"
    assert not list(out.glob("*.json")) and not list(out.glob("*.parquet"))
