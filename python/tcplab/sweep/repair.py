"""`repair`: a sweep's store made whole again from what it records about itself."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tcplab.api import Scenario

from .grid import MAX_RUNS
from .store import Store, StoreError

__all__ = ["repair"]


def repair(
    store: str | Path | Store,
    *,
    scheduler: str | None = None,
    jobs: int | None = None,
    progress: bool = False,
    notify: Callable[[str], None] | None = None,
    max_runs: int = MAX_RUNS,
) -> Any:
    """Check every part of a sweep's store, set aside what is damaged (parts, run id lists,
    plans; store.json is written again), and compute again every run of every sweep recorded
    in it that is not present: afterwards the store holds what the uninterrupted sweeps would
    have written. Needs nothing but the store: each sweep's base scenario, grid and seeds are
    recorded in its plans/."""
    from tcplab.sweep import Sweep, SweepOutcome

    from .store import _read_plan

    st = store if isinstance(store, Store) else Store(store)
    if not st.path.is_dir():
        raise StoreError(f"{st.path}: no tcplab store here (not a directory)")
    plans = []
    folder = st.path / "plans"
    if folder.is_dir():
        plans = [p for p in map(_read_plan, sorted(folder.glob("*.json"))) if not p.damage]
    try:
        m = st.manifest
    except StoreError:
        m = {}
    if m and not str(m.get("kind", "")).startswith("sweep"):
        raise StoreError(
            f"{st.path}: holds a {m.get('kind')!r} store; a study's store is repaired by "
            "running the study again with --store"
        )
    given = m.get("base_given") or next((p.spec.get("base_given") for p in plans), None)
    if not isinstance(given, dict):
        raise StoreError(
            f"{st.path}: neither store.json nor a sweep's record in plans/ holds the base "
            "scenario: the store cannot be repaired from itself; run the sweep again"
        )
    base = Scenario(given)
    t0 = time.perf_counter()
    total = computed = reused = aside = 0
    sweeps = [Sweep.from_spec(base, p.spec, max_runs) for p in plans]
    if not plans:
        _check_aside_only(st, base, notify)
        return SweepOutcome(0, 0, 0, time.perf_counter() - t0, st)
    for sw in sweeps:
        keep = m.get("keep") or spec_keep(sw)
        out = sw.run(st, scheduler=scheduler, jobs=jobs, progress=progress, keep=keep,
                     notify=notify)  # fmt: skip
        total, computed, reused = total + out.total, computed + out.computed, reused + out.reused
        aside += out.set_aside
    res = SweepOutcome(total, computed, reused, time.perf_counter() - t0, st)
    res.set_aside = aside
    return res


def spec_keep(sw: Any) -> list[str]:
    return list(getattr(sw, "_keep", []))


def _check_aside_only(st: Store, base: Scenario, notify: Any) -> None:
    from tcplab.sweep import scenario_key

    norm = base.to_dict(normalized=True)
    with st.open_for_writing(
        kind="sweep", base=norm, base_hash=scenario_key(norm), notify=notify,
        base_given=base.to_dict(),
    ):  # fmt: skip
        pass
