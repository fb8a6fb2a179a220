"""Scale figures of issue 13, printed with their commands (part of `make bench`).

    python bench/scale.py

* dumbbells of 1, 100, 1,000 and 10,000 pairs (bench/dumbbell.py, one process per N) and the
  ratio of wall time per data segment at 1,000 pairs to 1 pair;
* 10,000 runs of a 10 kB transfer through `tcplab.run_many` on every core (median of 3);
* CLI start-up: `tcplab --version`, median of 7.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def dumbbells(ns: list[int]) -> list[dict]:
    out = []
    for n in ns:
        line = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "dumbbell.py"), str(n)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        r = json.loads(line)
        print(
            f"dumbbell {n:>6} pairs: parse {r['rust_parse_s']:.3f} s, set-up {r['setup_s']:.3f} s "
            f"({r['setup_peak_rss_mb']:.0f} MB), {r['ns_per_data_segment']:.0f} ns and "
            f"{r['events_per_data_segment']:.2f} events per data segment, "
            f"peak {r['peak_rss_mb']:.0f} MB, Python validate {r['python_validate_s']:.3f} s"
        )
        print(f"    command: {r['command']}")
        out.append(r)
    by_n = {r["pairs"]: r for r in out}
    if 1 in by_n and 1000 in by_n:
        ratio = by_n[1000]["ns_per_data_segment"] / by_n[1]["ns_per_data_segment"]
        print(f"ratio: ns per data segment, 1,000 pairs / 1 pair: {ratio:.2f}")
    return out


def small_runs(n: int = 10_000, repeats: int = 3) -> dict:
    import tcplab

    base = tcplab.Scenario.from_toml(ROOT / "examples" / "sarkar2022.toml").with_overrides(
        {
            "apps.ftp.size": "10kB",
            "output.trace": False,
            "output.events": False,
            "links.wan.ab.error.p": 0,
        }
    )
    scenarios = [base.with_seed(s) for s in range(1, n + 1)]
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        results = tcplab.run_many(scenarios)
        for r in results[:: n // 10]:
            assert r.summary["apps"][0]["completed"]
        rates.append(n / (time.perf_counter() - t0))
    r = {
        "figure": f"run_many, {n} runs of a 10 kB transfer, {os.cpu_count()} cores",
        "runs_per_s": statistics.median(rates),
        "command": "python bench/scale.py  (tcplab.run_many over sarkar2022.toml, size 10kB)",
    }
    print(f"{r['figure']}: {r['runs_per_s']:,.0f} runs/s (median of {repeats})")
    print(f"    command: {r['command']}")
    return r


def cli_start(repeats: int = 7) -> dict:
    exe = Path(sys.executable).parent / "tcplab"
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([str(exe), "--version"], check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    r = {"figure": "CLI start-up", "seconds": statistics.median(times)}
    r["command"] = f"{exe.relative_to(ROOT) if exe.is_relative_to(ROOT) else exe} --version"
    print(f"CLI start-up: {r['seconds']:.3f} s (median of {repeats})")
    print(f"    command: {r['command']}")
    return r


def main(argv: list[str]) -> int:
    ns = [int(a) for a in argv] or [1, 100, 1000, 10000]
    figures = [*dumbbells(ns), small_runs(), cli_start()]
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "scale.json").write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
