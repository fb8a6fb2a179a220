"""Dumbbell benchmark (issue 13): N sender/receiver pairs over one bottleneck, built in Python.

    python bench/dumbbell.py 1 100 1000 10000     # one process per N, one JSON line each
    python bench/dumbbell.py --no-events 10000    # without the event log (output.events off)

Topology: s_i -- r1 == r2 -- d_i. Access links 1 Gbit/s, 1 ms; the bottleneck 1 Gbit/s, 10 ms,
a 1000-packet drop-tail queue. Every pair runs a bulk transfer of 500 kB (rfc profile, window
scaling, 4 MB receive buffer), the starts spread evenly over the first 100 ms; so every N does the
same
work per flow (handshake, slow start, teardown), and a change of the cost per segment with N is
the cost of many flows at once (memory, queue sizes). Figures per N: the Python
time to build the scenario dict and validate it (`tcplab.Scenario.from_dict`), then, in a fresh
Rust process (`target/release/examples/bench`, so that VmHWM is the scenario's alone), the time
to parse the JSON, to set the simulation up (routes, links, endpoints), to run it, and the wall
nanoseconds per data segment.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH_BIN = ROOT / "target" / "release" / "examples" / "bench"


def dumbbell(n: int, events: bool = True) -> dict[str, Any]:
    per_flow = 500_000
    nodes = [{"name": "r1", "kind": "router"}, {"name": "r2", "kind": "router"}]
    links: list[dict[str, Any]] = [
        {
            "name": "bottleneck",
            "a": "r1",
            "b": "r2",
            "rate": "1Gbps",
            "delay": "10ms",
            "queue": "1000p",
        }
    ]
    apps = []
    for i in range(n):
        nodes += [{"name": f"s{i}", "kind": "host"}, {"name": f"d{i}", "kind": "host"}]
        links += [
            {"name": f"sa{i}", "a": f"s{i}", "b": "r1", "rate": "1Gbps", "delay": "1ms"},
            {"name": f"da{i}", "a": "r2", "b": f"d{i}", "rate": "1Gbps", "delay": "1ms"},
        ]
        apps.append(
            {
                "name": f"flow{i}",
                "kind": "bulk",
                "client": f"s{i}",
                "server": f"d{i}",
                "size": f"{per_flow}B",
                "start": f"{i * 100_000 // n}us",
            }
        )
    return {
        "run": {"name": f"dumbbell-{n}", "seed": 1, "stop_time": "600s"},
        "tcp": {"profile": "rfc", "rcv_buf": "4MB", "window_scaling": True},
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "output": {"trace": False, "events": events},
    }


def figure(n: int, events: bool = True) -> dict[str, Any]:
    import tcplab

    t0 = time.perf_counter()
    data = dumbbell(n, events)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    sc = tcplab.Scenario.from_dict(data)
    validate = time.perf_counter() - t0
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(sc.to_json())
        path = f.name
    try:
        # Small runs are repeated (median wall) so that each lasts long enough to time.
        repeat = str(max(1, 200 // n))
        out = subprocess.run(
            [str(BENCH_BIN), path, "--repeat", repeat], check=True, capture_output=True, text=True
        )
    finally:
        Path(path).unlink()
    r = json.loads(out.stdout)
    return {
        "figure": f"dumbbell, {n} pairs",
        "pairs": n,
        "python_build_s": build,
        "python_validate_s": validate,
        "rust_parse_s": r["parse_s"],
        "setup_s": r["setup_s"],
        "run_s": r["wall_s"],
        "data_segments": r["data_segments"],
        "ns_per_data_segment": r["ns_per_data_segment"],
        "events_per_data_segment": r["events"] / max(r["data_segments"], 1),
        "apps_completed": r["apps_completed"],
        "setup_peak_rss_mb": r["setup_peak_rss_mb"],
        "peak_rss_mb": r["peak_rss_mb"],
        "command": f"python bench/dumbbell.py {'' if events else '--no-events '}{n}",
    }


def build_bench() -> None:
    """Build (or confirm up to date) the Rust bench example, so that no stale binary is timed."""
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "tcplab-sim", "--example", "bench"],
        cwd=ROOT,
        check=True,
    )


def main(argv: list[str]) -> int:
    events = "--no-events" not in argv
    sizes = [a for a in argv if a != "--no-events"]
    bad = [a for a in sizes if not a.isdigit() or not 1 <= int(a) <= 100_000]
    if bad:
        print(f"error: pairs {bad[0]!r}: a whole number from 1 to 100000 (or --no-events)",
              file=sys.stderr)  # fmt: skip
        return 2
    build_bench()
    for a in sizes or ["1", "100", "1000"]:
        print(json.dumps(figure(int(a), events)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
