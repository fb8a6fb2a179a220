"""Extra benchmark figures, run by bench/run.py (`make bench`) after its own.

The full grid of the study `modular-ber` (seed 001): 3 RTTs x 17 BERs x 9 congestion control x
loss recovery pairs x 5 seeds = 2295 transfers of up to 10 MB over a 1.5 Mbit/s link. Two
figures: the simulations alone (`tcplab.run_many` over the study's scenarios, every core) and
the whole `Study.run` (scenario building, simulation and analysis; no report files). Each is
printed with the command that produced it, as bench/run.py does.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def modular_ber_figures() -> list[dict]:
    import tcplab
    from tcplab.studies import modular_ber

    study = modular_ber.ModularBer()
    seeds = study.default_seeds
    t0 = time.perf_counter()
    plan = study.scenarios(seeds)
    build = time.perf_counter() - t0
    scenarios = [sc for _, _, sc in plan]
    jobs = os.cpu_count() or 1
    t0 = time.perf_counter()
    results = tcplab.run_many(scenarios, jobs=jobs)
    wall = time.perf_counter() - t0
    assert len(results) == len(scenarios)
    events = sum(int(r.summary.get("events") or 0) for r in results)
    rows = [
        {
            "figure": f"modular-ber grid, {len(scenarios)} runs, run_many jobs={jobs}",
            "wall_s": wall,
            "runs_per_s": len(scenarios) / wall,
            "events_per_s": events / wall,
            "note": f"scenarios built and validated in {build:.2f} s (not included)",
            "command": "python bench/extra.py  (tcplab.run_many(ModularBer().scenarios(5), "
            f"jobs={jobs}))",
        }
    ]
    t0 = time.perf_counter()
    res = study.run(seeds=seeds)
    wall = time.perf_counter() - t0
    assert len(res.runs) == len(scenarios)
    rows.append(
        {
            "figure": f"modular-ber Study.run, {len(res.runs)} runs + analysis",
            "wall_s": wall,
            "runs_per_s": len(res.runs) / wall,
            "command": "python bench/extra.py  (tcplab.studies.get('modular-ber').run(seeds=5))",
        }
    )
    return rows


def main() -> int:
    sys.path.insert(0, str(ROOT / "python"))
    for r in modular_ber_figures():
        extra = f"  events/s {r['events_per_s']:,.0f}" if "events_per_s" in r else ""
        print(f"{r['figure']:<52} {r['wall_s']:>9.4f}  runs/s {r['runs_per_s']:,.1f}{extra}")
        if "note" in r:
            print(f"    ({r['note']})")
        print(f"    command: {r['command']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
