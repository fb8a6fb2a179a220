"""Where the cost of many flows goes (issue 13): the dumbbell of `bench/dumbbell.py` at several
sizes, its run alone under callgrind's cache and branch simulation, per data segment.

    python bench/cache_scan.py [BINARY] [N ...]

BINARY defaults to target/release/examples/bench (built first), N to 1 10 30 100 300 1000.

Prints, per N: instructions, mispredicted branches (conditional and indirect), L1 data misses
and last-level data misses per data segment (callgrind's last level, set to this machine's 2 MB
L2; its L1d to 48 kB), and the command that measured it. The mispredictions are those of
callgrind's simple predictor: they point at causes, the wall time measures them. Needs
valgrind; takes minutes (the 1,000-pair run alone about two). Not part of `make bench`: the
figures are exact counts of a simulated machine, not times, and are recorded in BENCHMARKS.md
beside the wall times.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import dumbbell

ROOT = Path(__file__).resolve().parent.parent
CACHES = ["--D1=49152,12,64", "--LL=2097152,16,64"]


def totals(out_file: Path) -> dict[str, int]:
    """The run's totals from a callgrind output file, by event name (`Ir`, `D1mr`, `Bcm`, ...)."""
    names: list[str] = []
    for line in out_file.read_text().splitlines():
        if line.startswith("events:"):
            names = line.split()[1:]
        elif line.startswith(("summary:", "totals:")) and names:
            return dict(zip(names, map(int, line.split()[1:]), strict=True))
    raise RuntimeError(f"{out_file}: no events or totals line")


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
        t = totals(out)
    shown = shlex.join([*cmd[:7], str(binary), f"db{n}.json", "--repeat", str(repeat)])
    return (
        f"{n:6d} pairs: {t['Ir'] / segs:7.0f} instructions,"
        f" {(t['Bcm'] + t['Bim']) / segs:5.1f} mispredicted branches,"
        f" {(t['D1mr'] + t['D1mw']) / segs:5.1f} L1d misses,"
        f" {(t['DLmr'] + t['DLmw']) / segs:5.2f} L2 misses per data segment\n"
        f"    command: {shown}   (db{n}.json: bench/dumbbell.py's scenario, N = {n};"
        f" python bench/cache_scan.py {binary} {n})"
    )


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    binary = ROOT / "target" / "release" / "examples" / "bench"
    if argv and not argv[0].isdigit():
        binary = Path(argv.pop(0)).resolve()
        if not binary.is_file():
            print(f"error: BINARY {binary}: no such file (N are whole numbers)", file=sys.stderr)
            return 2
    else:
        dumbbell.build_bench()
    bad = [a for a in argv if not a.isdigit() or int(a) < 1]
    if bad:
        why = "a number of pairs, a whole number of at least 1"
        print(f"error: N {bad[0]!r}: {why}", file=sys.stderr)
        return 2
    for n in [int(a) for a in argv] or [1, 10, 30, 100, 300, 1000]:
        print(scan(binary, n), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
