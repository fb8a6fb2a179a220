"""Where the cost of many flows goes (issue 13): the dumbbell of `bench/dumbbell.py` at several
sizes, its run alone under callgrind's cache and branch simulation, per data segment.

    python bench/cache_scan.py [BINARY] [N ...]

BINARY defaults to target/release/examples/bench (built first), N to 1 10 30 100 300 1000.

Prints, per N: instructions, mispredicted branches (conditional and indirect), L1 data misses
and last-level data misses per data segment, the caches set to this project's reference machine
(48 kB L1d, 2 MB L2), and the command that measured it. Needs valgrind; takes minutes (the
1,000-pair run alone about two). Not part of `make bench`: the figures are exact counts of a
simulated machine, not times, and are recorded in BENCHMARKS.md beside the wall times.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import dumbbell

ROOT = Path(__file__).resolve().parent.parent
CACHES = ["--D1=49152,12,64", "--LL=2097152,16,64"]


def totals(out_file: Path) -> list[int]:
    """The PROGRAM TOTALS line of a callgrind output, as integers in its event order."""
    text = subprocess.run(
        ["callgrind_annotate", str(out_file)], check=True, capture_output=True, text=True
    ).stdout
    line = next(x for x in text.splitlines() if "PROGRAM TOTALS" in x)
    return [int(x.replace(",", "")) for x in re.findall(r"[\d,]+(?= \()", line)]


def scan(binary: Path, n: int) -> str:
    import tcplab

    repeat = max(1, 300 // n)
    sc = tcplab.Scenario.from_dict(dumbbell.dumbbell(n))
    with tempfile.TemporaryDirectory() as d:
        path, out = Path(d) / f"db{n}.json", Path(d) / "callgrind.out"
        path.write_text(sc.to_json())
        cmd = [
            "valgrind",
            "--tool=callgrind",
            "--cache-sim=yes",
            "--branch-sim=yes",
            *CACHES,
            "--toggle-collect=*Sim::run_events*",
            f"--callgrind-out-file={out}",
            str(binary),
            str(path),
            "--repeat",
            str(repeat),
        ]
        run = subprocess.run(cmd, check=True, capture_output=True, text=True)
        segs = json.loads(run.stdout)["data_segments"] * repeat
        # Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
        v = totals(out)
    return (
        f"{n:6d} pairs: {v[0] / segs:7.0f} instructions, {(v[10] + v[12]) / segs:5.1f} mispredicted"
        f" branches, {(v[4] + v[5]) / segs:5.1f} L1d misses, {(v[7] + v[8]) / segs:5.2f} L2 misses"
        f" per data segment\n    command: {' '.join(cmd[:7])} ... {binary.name} dbN.json"
        f" --repeat {repeat}   (python bench/cache_scan.py {binary} {n})"
    )


def main(argv: list[str]) -> int:
    binary = ROOT / "target" / "release" / "examples" / "bench"
    if argv and not argv[0].isdigit():
        binary = Path(argv.pop(0)).resolve()
    else:
        dumbbell.build_bench()
    for n in [int(a) for a in argv] or [1, 10, 30, 100, 300, 1000]:
        print(scan(binary, n), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
