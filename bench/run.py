"""tcplab benchmarks: `make bench`.

Each figure is printed with the command that produced it. Scenario figures run in their own
process (the Rust `bench` example) so that peak memory belongs to that scenario alone. Ratios are
computed within one run, because absolute numbers on shared machines are noisy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_BIN = ROOT / "target" / "release" / "examples" / "bench"


def sh(cmd: list[str]) -> str:
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout


def scenario_figure(path: str, per: float, repeat: int) -> dict:
    cmd = [str(BENCH_BIN.relative_to(ROOT)), path, "--per", str(per), "--repeat", str(repeat)]
    out = json.loads(sh([str(BENCH_BIN), path, "--per", str(per), "--repeat", str(repeat)]))
    out["command"] = " ".join(cmd)
    return out


def run_many_figure(n: int) -> list[dict]:
    """Throughput of tcplab.run_many over n copies of the paper scenario at 1 % loss."""
    import tcplab

    base = tcplab.Scenario.from_toml(ROOT / "examples" / "sarkar2022.toml").with_overrides(
        {"output.trace": False, "output.events": False}
    )
    scenarios = [base.with_seed(s) for s in range(1, n + 1)]
    rows = []
    for jobs in (1, os.cpu_count() or 1):
        t0 = time.perf_counter()
        results = tcplab.run_many(scenarios, jobs=jobs)
        wall = time.perf_counter() - t0
        assert len(results) == n
        rows.append(
            {
                "figure": f"run_many, {n} runs of sarkar2022 at pdrop 1 %, jobs={jobs}",
                "wall_s": wall,
                "runs_per_s": n / wall,
                "command": f"python bench/run.py  (tcplab.run_many(..., jobs={jobs}))",
            }
        )
    return rows


def ns2_figures() -> list[dict]:
    """ns-2.35 and tcplab on the conformance grid (320 runs of 60 s), where `ns` exists."""
    import shutil

    if shutil.which("ns") is None:
        print("ns-2 vs tcplab: skipped (ns-2 is not installed: apt-get install -y ns2)")
        return []
    from tcplab.conformance import ns2

    t = ns2.wall_times(ns2.FULL)
    cmd = "python bench/run.py  (tcplab.conformance.ns2.wall_times(FULL), both on every core)"
    rows = [
        {"figure": "ns-2 conformance grid (320 x 60 s): ns-2.35", "wall_s": t["ns2_s"],
         "command": cmd},
        {"figure": "ns-2 conformance grid (320 x 60 s): tcplab", "wall_s": t["tcplab_s"],
         "command": cmd},
    ]  # fmt: skip
    for r in rows:
        print(f"{r['figure']:<52} {r['wall_s']:>9.4f}")
        print(f"    command: {r['command']}")
    print(
        f"ratio: ns-2 wall time / tcplab wall time on that grid: {t['ns2_s'] / t['tcplab_s']:.1f}"
    )
    return rows


def main() -> int:
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "tcplab-sim", "--example", "bench"],
        cwd=ROOT,
        check=True,
    )
    figures = [
        ("paper scenario, pdrop 0", "examples/sarkar2022.toml", 0.0, 20),
        ("paper scenario, pdrop 1 %", "examples/sarkar2022.toml", 0.01, 20),
        ("1 GB at 100 Mbit/s, 10 ms each way, no loss", "examples/bulk_1gb.toml", 0.0, 3),
        ("1 GB at 100 Mbit/s, 10 ms each way, pdrop 0.1 %", "examples/bulk_1gb.toml", 0.001, 3),
    ]
    results = []
    print(f"{'figure':<52} {'wall s':>9} {'events/s':>12} {'data seg/s':>12} {'peak MB':>8}")
    for name, path, per, rep in figures:
        r = scenario_figure(path, per, rep)
        r["figure"] = name
        results.append(r)
        print(
            f"{name:<52} {r['wall_s']:>9.4f} {r['events_per_s']:>12,.0f} "
            f"{r['data_segments_per_s']:>12,.0f} {r['peak_rss_mb']:>8.1f}"
        )
        print(f"    command: {r['command']}")
    # Ratios within this run.
    clean, lossy = results[2], results[3]
    print(
        f"ratio: 1 GB pdrop 0.1 % / no loss, data segments per second: "
        f"{lossy['data_segments_per_s'] / clean['data_segments_per_s']:.2f}"
    )
    target = 3_000_000
    print(
        f"ratio: 1 GB no-loss data segments per second / 3 M target: "
        f"{clean['data_segments_per_s'] / target:.2f}"
    )
    sys.path.insert(0, str(ROOT / "python"))
    for r in run_many_figure(200):
        results.append(r)
        print(f"{r['figure']:<52} {r['wall_s']:>9.4f}  runs/s {r['runs_per_s']:,.0f}")
        print(f"    command: {r['command']}")
    if len(results) >= 6:
        speedup = results[-2]["wall_s"] / results[-1]["wall_s"]
        print(f"ratio: run_many speed-up with all cores: {speedup:.2f}")
    results.extend(ns2_figures())
    # tcplab against ns-2.35 run for run, per data segment (issue 34; skipped without `ns`).
    vs_ns2 = ROOT / "bench" / "vs_ns2.py"
    subprocess.run([sys.executable, str(vs_ns2)], cwd=ROOT, check=True)
    scale = ROOT / "bench" / "scale.py"
    subprocess.run([sys.executable, str(scale)], cwd=ROOT, check=True)
    campus = ROOT / "bench" / "campus.py"
    subprocess.run([sys.executable, str(campus)], cwd=ROOT, check=True)
    sweep = ROOT / "bench" / "sweep_bench.py"
    subprocess.run([sys.executable, str(sweep)], cwd=ROOT, check=True)
    extra = ROOT / "bench" / "extra.py"
    if extra.exists():
        subprocess.run([sys.executable, str(extra)], cwd=ROOT, check=True)
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "latest.json").write_text(json.dumps(results, indent=2))
    print(f"results: {out / 'latest.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
