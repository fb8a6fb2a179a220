"""Sweep figures, run by bench/run.py (`make bench`): runs/s of 10,000 runs of a 100 kB
transfer (the sarkar2022 scenario with a 100 kB file, 10 loss rates x 1,000 seeds) through
bare `tcplab.run_many`, through `tcplab sweep` into a store (this process's threads), and
through `tcplab sweep --scheduler local:2` (a Dask LocalCluster of 2 processes), in one run.
The store's overhead is the ratio of the sweep's rate to run_many's."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "sarkar2022.toml"
P = "0..0.09:10"
SEEDS = "1..1000"
SET = ["--set", "apps.ftp.size=100kB"]


def _sweep_cmd(store: Path, *extra: str) -> list[str]:
    tcplab = str(Path(sys.executable).parent / "tcplab")
    return [tcplab, "sweep", str(EXAMPLE), "--grid", f"links.wan.ab.error.p={P}",
            "--seeds", SEEDS, *SET, "--store", str(store), "--json", *extra]  # fmt: skip


def sweep_figures() -> list[dict]:
    import tcplab
    from tcplab.sweep.grid import parse_values

    rows = []
    base = tcplab.Scenario.from_toml(EXAMPLE).with_overrides(
        {"apps.ftp.size": "100kB", "output.trace": False, "output.events": False}
    )
    t0 = time.perf_counter()
    scenarios = [
        base.with_overrides({"links.wan.ab.error.p": p, "seed": s})
        for p in parse_values("p", P)
        for s in range(1, 1001)
    ]
    build = time.perf_counter() - t0
    # The store's libraries are imported once per process (pyarrow; its first array imports
    # pandas): timed on their own row, not charged to the first sweep below.
    t0 = time.perf_counter()
    import pyarrow as pa
    import pyarrow.parquet  # noqa: F401

    pa.array([1.0])
    imports = time.perf_counter() - t0
    # Bare run_many and the sweep into a store alternate, twice; the faster of each is kept, so
    # that a burst of load on a shared machine does not decide the ratio.
    tmp = Path(tempfile.mkdtemp(prefix="tcplab-bench-"))
    walls: dict[str, float] = {}
    try:
        for rnd in range(2):
            t0 = time.perf_counter()
            results = tcplab.run_many(scenarios)
            wall = time.perf_counter() - t0
            assert len(results) == 10_000
            walls["bare"] = min(walls.get("bare", wall), wall)
            del results
            sw = tcplab.Sweep(base, grid={"links.wan.ab.error.p": P}, seeds=SEEDS)
            t0 = time.perf_counter()
            sw.run(store=tmp / f"api{rnd}")
            wall = time.perf_counter() - t0
            walls["api"] = min(walls.get("api", wall), wall)
            assert len(tcplab.Store(tmp / f"api{rnd}")) == 10_000
        bare = "tcplab.run_many(10,000 scenarios)"
        rows.append(("bare run_many (the call)", walls["bare"], bare))
        rows.append(
            (
                "bare run_many + building the scenarios",
                walls["bare"] + build,
                "Scenario.with_overrides x 10,000, then tcplab.run_many",
            )  # fmt: skip
        )
        rows.append(("tcplab.Sweep(...).run(store=DIR), in this process", walls["api"],
                     f"tcplab.Sweep(base, grid={{'links.wan.ab.error.p': '{P}'}}, "
                     f"seeds='{SEEDS}').run(store=DIR)"))  # fmt: skip
        for name, extra in (("tcplab sweep, local", ()), ("tcplab sweep --scheduler local:2",
                                                          ("--scheduler", "local:2"))):  # fmt: skip
            store = tmp / name.replace(" ", "_").replace(":", "")
            cmd = _sweep_cmd(store, *extra)
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            rows.append((name + " (whole command)", time.perf_counter() - t0, " ".join(cmd)))
            assert len(tcplab.Store(store)) == 10_000
        store = tmp / "again"
        cmd = _sweep_cmd(store)
        subprocess.run(cmd, check=True, capture_output=True)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        rows.append(("tcplab sweep, rerun (0 computed)", time.perf_counter() - t0, " ".join(cmd)))
        rows.append(("importing pyarrow (and pandas), once per process", imports,
                     "import pyarrow, pyarrow.parquet; pyarrow.array([1.0])"))  # fmt: skip
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = []
    for name, wall, cmd in rows:
        out.append(
            {
                "figure": f"10,000 runs of 100 kB: {name}",
                "wall_s": wall,
                "runs_per_s": None if name.startswith("importing") else 10_000 / wall,
                "command": cmd,
            }
        )
    return out


def main() -> None:
    figs = sweep_figures()
    for r in figs:
        rate = "" if r["runs_per_s"] is None else f"  runs/s {r['runs_per_s']:>9,.0f}"
        print(f"{r['figure']:<72} {r['wall_s']:>8.3f} s{rate}")
        print(f"    command: {r['command']}")
    call, built, api, cli, dask = (figs[i]["runs_per_s"] for i in range(5))
    print(f"ratio: Sweep.run into a store / run_many call alone, runs/s: {api / call:.2f}")
    print(f"ratio: Sweep.run into a store / run_many + building scenarios: {api / built:.2f}")
    print(f"ratio: tcplab sweep (whole command) / run_many call alone: {cli / call:.2f}")
    print(f"ratio: --scheduler local:2 / local (whole commands), runs/s: {dask / cli:.2f}")


if __name__ == "__main__":
    main()
