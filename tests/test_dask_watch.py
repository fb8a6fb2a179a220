"""How a sweep on Dask says a lost worker, driven by a scripted scheduler and clock (no
cluster): a worker gone is said once, and only after the others have run on for
WORKER_SETTLE_S, so that workers killed together end in the one error that says every worker
was lost, never in a warning that their runs went to workers that are gone too."""

from __future__ import annotations

import pytest
from tcplab.sweep import execute
from tcplab.sweep.execute import WORKER_SETTLE_S, ClusterError, _Dask


class Scheduler:
    """`nthreads()` as a Dask client answers it, from a list the test edits."""

    def __init__(self, *workers: str) -> None:
        self.workers = list(workers)
        self.status = "running"

    def nthreads(self) -> dict[str, int]:
        return {w: 1 for w in self.workers}


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [100.0]
    monkeypatch.setattr(execute.time, "monotonic", lambda: now[0])
    return now


def _watched(sched: Scheduler) -> tuple[_Dask, list[str]]:
    said: list[str] = []
    return _Dask(sched, "tcp://s:1", None, None, None, said.append), said


def test_a_worker_lost_is_said_once_after_the_others_ran_on(clock: list[float]) -> None:
    sched = Scheduler("tcp://a:1", "tcp://b:1")
    dask, said = _watched(sched)
    assert dask._threads() == 2
    sched.workers.remove("tcp://a:1")
    assert dask._threads() == 1 and said == []
    clock[0] += WORKER_SETTLE_S - 0.01
    dask._threads()
    assert said == []
    clock[0] += 0.01
    dask._threads()
    assert said == ["Dask worker tcp://a:1 was lost; its runs are run again on the other workers"]
    clock[0] += 10
    dask._threads()
    assert len(said) == 1


def test_workers_lost_one_after_the_other_end_in_one_error(
    clock: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TCPLAB_DASK_GRACE_S", "3")
    sched = Scheduler("tcp://a:1", "tcp://b:1")
    dask, said = _watched(sched)
    dask._watch()
    sched.workers.remove("tcp://a:1")  # noticed before the second is gone
    dask._watch()
    clock[0] += 0.2
    sched.workers.clear()
    dask._watch()
    clock[0] += 3.5
    with pytest.raises(ClusterError, match=r"every Dask worker of tcp://s:1 was lost \(2 in all\)"):
        dask._watch()
    assert said == []


def _b_noticed_gone() -> tuple[Scheduler, _Dask, list[str]]:
    """Two workers, then `b` gone, noticed once and not said yet."""
    sched = Scheduler("tcp://a:1", "tcp://b:1")
    dask, said = _watched(sched)
    dask._threads()
    sched.workers.remove("tcp://b:1")
    dask._threads()
    assert said == []
    return sched, dask, said


def test_a_worker_lost_near_the_end_is_said_when_the_sweep_ends(clock: list[float]) -> None:
    _, dask, said = _b_noticed_gone()
    dask._threads(ending=True)
    assert said == ["Dask worker tcp://b:1 was lost; its runs are run again on the other workers"]


def test_a_worker_back_before_it_was_said_is_not_said(clock: list[float]) -> None:
    sched, dask, said = _b_noticed_gone()
    sched.workers.append("tcp://b:1")
    clock[0] += 5
    dask._threads(ending=True)
    assert said == []
