"""A lost Dask cluster (issue 35): the scheduler killed, every worker killed, or one worker
killed in the middle of `tcplab sweep --scheduler tcp://...`. Each ends in one message that
says what happened and that the finished rows are kept (status 1), or, for one worker, one
warning and a complete sweep; the rows are kept and a rerun completes the store with the
rows of an uninterrupted run, bit for bit. A scheduler that cannot be reached leaves no
store behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from conftest import EXAMPLE

pytest.importorskip("distributed")

BIN = Path(sys.executable).parent
DASK = shutil.which("dask", path=str(BIN)) or shutil.which("dask")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.serial,  # kills a cluster's processes; its clients wait 5 and 10 s at most
    pytest.mark.skipif(DASK is None, reason="the dask command (dask.distributed) is missing"),
]
# 6,000 runs of the example's 10 MB transfer: about ten seconds on two single-threaded workers.
GRID = ["--grid", "links.wan.ab.error.p=0..0.05:15", "--grid", "tcp.congestion_control=reno,cubic",
        "--seeds", "1..200"]  # fmt: skip
RUNS = 6000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A `dask scheduler` and two `dask worker` processes (no nanny: a killed worker stays
    dead) on this machine."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.scheduler: subprocess.Popen[bytes] | None = None
        self.workers: list[subprocess.Popen[bytes]] = []

    def start(self) -> Cluster:
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        self.scheduler = subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", str(self.port), "--no-dashboard"],
            **quiet,  # fmt: skip
        )
        self.workers = [
            subprocess.Popen(
                [
                    DASK,
                    "worker",
                    self.address,
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--no-dashboard",
                    "--host",
                    "127.0.0.1",
                ],
                **quiet,  # fmt: skip
            )
            for _ in range(2)
        ]
        from distributed import Client

        deadline = time.monotonic() + 60
        while True:
            try:
                with Client(self.address, timeout="5s") as c:
                    if len(c.nthreads()) == 2:
                        return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the Dask cluster did not start")
            time.sleep(0.5)

    def kill(self, what: str) -> None:
        procs = {
            "scheduler": [self.scheduler],
            "workers": self.workers,
            "one worker": self.workers[:1],
        }[what]
        for p in procs:  # together, as a cancelled job kills them
            if p is not None:
                p.send_signal(signal.SIGKILL)
        for p in procs:
            if p is not None:
                p.wait()

    def stop(self) -> None:
        for p in [*self.workers, self.scheduler]:
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGKILL)
                p.wait()


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    c = Cluster().start()
    try:
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    from tcplab.sweep import Store

    st = tmp_path_factory.mktemp("ref") / "st"
    _sweep(st)
    return _rows(Store(st))


def _sweep(store: Path, *extra: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "tcplab"), "sweep", str(EXAMPLE), *GRID, "--store", str(store), *extra],
        capture_output=True,
        text=True,
        env=dict(os.environ, **env),
        timeout=600,
    )


def _rows(st: object) -> pd.DataFrame:
    df = st.df()  # type: ignore[attr-defined]
    return df[sorted(df.columns)].sort_values("run_id").reset_index(drop=True)


def _killed_midway(store: Path, cluster: Cluster, what: str) -> subprocess.Popen[str]:
    """A sweep on `cluster`, `what` killed once the store holds its first part."""
    proc = subprocess.Popen(
        [
            str(BIN / "tcplab"),
            "sweep",
            str(EXAMPLE),
            *GRID,
            "--store",
            str(store),
            "--scheduler",
            cluster.address,
            "--json",
        ],  # fmt: skip
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, TCPLAB_DASK_GRACE_S="3"),
    )
    deadline = time.monotonic() + 120
    while not list((store / "parts").glob("part-*.parquet.ids")) and proc.poll() is None:
        assert time.monotonic() < deadline, "no part was written"
        time.sleep(0.05)
    cluster.kill(what)
    return proc


def _finish(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """`proc`'s output once it ends; a sweep still running after five minutes is killed (it
    hangs: the failure this file guards against) and fails the test."""
    try:
        return proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the sweep hung for 300 s after the kill; it printed {out!r} {err!r}")


@pytest.mark.parametrize("what", ["scheduler", "workers"])
def test_a_lost_cluster_is_one_message_and_a_rerun_completes(
    tmp_path: Path, cluster: Cluster, reference: pd.DataFrame, what: str
) -> None:
    from tcplab.sweep import Store

    st = tmp_path / "st"
    proc = _killed_midway(st, cluster, what)
    out, err = _finish(proc)
    lines = err.splitlines()
    assert proc.returncode == 1, (out, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    said = "lost the Dask scheduler" if what == "scheduler" else "every Dask worker"
    assert said in lines[0] and "rows are in" in lines[0] and "again resumes" in lines[0]
    store = Store(st)
    kept = len(store)
    assert 0 < kept < RUNS and store.check().problem(st) is None
    assert f"({kept} rows are in" in lines[0]
    print(f"{what} killed: {kept} of {RUNS} rows kept; {lines[0]}")
    cluster.stop()
    again = Cluster().start()
    try:
        done = _sweep(st, "--scheduler", again.address, "--json")
    finally:
        again.stop()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["computed"] == RUNS - kept
    pd.testing.assert_frame_equal(_rows(Store(st)), reference, check_exact=True)


def test_one_worker_lost_is_said_once_and_the_sweep_completes(
    tmp_path: Path, cluster: Cluster, reference: pd.DataFrame
) -> None:
    from tcplab.sweep import Store

    st = tmp_path / "st"
    proc = _killed_midway(st, cluster, "one worker")
    out, err = _finish(proc)
    assert proc.returncode == 0, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: Dask worker "), err
    assert "was lost; its runs are run again on the other workers" in lines[0]
    assert json.loads(out)["computed"] == RUNS
    pd.testing.assert_frame_equal(_rows(Store(st)), reference, check_exact=True)


def test_an_unreachable_scheduler_makes_no_store(tmp_path: Path) -> None:
    st = tmp_path / "st"
    done = _sweep(st, "--scheduler", f"tcp://127.0.0.1:{_free_port()}")
    assert done.returncode == 2
    assert done.stderr.startswith("error: --scheduler: cannot reach the Dask scheduler")
    assert len(done.stderr.splitlines()) == 1
    assert not st.exists()


#: The client side of the next test, in a process of its own so that the Dask client's threads
#: (still busy with the lost connections after it closes) stay out of pytest's process.
_FETCH_FROM_DEAD_WORKERS = """
import json, os, signal, sys, time
from distributed import Client, wait
from tcplab.sweep.execute import ClusterError, _Dask

address, pids = sys.argv[1], [int(p) for p in sys.argv[2:]]
with Client(address, timeout="10s") as client:
    said = []
    dask = _Dask(client, address, None, None, None, said.append)
    threads = dask._threads()
    fut = client.submit(sorted, [3, 1, 2], pure=False)
    wait([fut])
    status = fut.status
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    started = time.monotonic()
    try:
        dask._result(fut)
        ended = None
    except ClusterError as e:
        ended = str(e)
    print(json.dumps({"threads": threads, "status": status, "ended": ended, "said": said,
                      "waited_s": time.monotonic() - started}), flush=True)
os._exit(0)
"""


def test_rows_on_a_worker_that_dies_before_they_are_fetched_end_in_one_error(
    cluster: Cluster,
) -> None:
    """A batch finishes, its worker dies before the client has its rows: the scheduler
    reschedules the batch, no worker is left to run it, and the sweep ends in ClusterError
    after the grace time instead of waiting for the rows for ever (the hang CI once met when
    both workers were killed just after a part was written)."""
    pids = [str(w.pid) for w in cluster.workers]
    try:
        done = subprocess.run(
            [sys.executable, "-c", _FETCH_FROM_DEAD_WORKERS, cluster.address, *pids],
            capture_output=True,
            text=True,
            env=dict(os.environ, TCPLAB_DASK_GRACE_S="1"),
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the rows of a lost worker were waited for 60 s")
    for w in cluster.workers:
        w.wait()
    got = json.loads(done.stdout)
    assert got["threads"] == 2 and got["status"] == "finished", got
    ended = got["ended"]
    assert ended is not None and "every Dask worker of " in ended and "(2 in all)" in ended, got
    assert got["waited_s"] >= 1.0 and got["said"] == [], got
