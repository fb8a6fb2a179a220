"""The ns-2 conformance suite: tcplab's `ns2` profile against ns-2.35 itself.

Both sides run the same experiment (``conformance/ns2/chain.tcl`` in the repository): a bulk
transfer for 60 s over src --10 Mb/s, 1 ms-- rtr --2 Mb/s, DELAY-- dst, drop-tail queues of
50 packets, 1000-byte segments, a window of 20 packets, and uniform per-packet errors with
probability p on rtr -> dst. Each ns-2 agent has its tcplab pair:

    ns-2 Agent/TCP (Tahoe)      tahoe  + dupack
    ns-2 Agent/TCP/Reno         reno   + dupack
    ns-2 Agent/TCP/Newreno      newreno + newreno
    ns-2 Agent/TCP/Sack1        newreno + sack

Per cell (agent x p x delay) the report gives the mean over seeds of goodput (in-order bytes
delivered by the end / 60 s), retransmitted packets, timeouts and fast retransmits on each
side, and the goodput ratio tcplab / ns-2. ns-2 counts no fast retransmits; they are its cwnd
cuts (``ncwndcuts_``, one per fast retransmit or timeout) minus its timeouts (``nrexmit_``).
The seeds are not paired: ns-2's RNG and tcplab's draw different loss patterns, so cells are
compared by their means over seeds.
"""

from __future__ import annotations

import itertools
import math
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AGENTS",
    "FULL",
    "REDUCED",
    "Grid",
    "Ns2Unavailable",
    "find_ns",
    "tcl_script",
    "scenario",
    "run_ns2",
    "run_tcplab",
    "compare",
    "verdict",
]

#: ns-2 agent -> (congestion_control, loss_recovery) of tcplab.
AGENTS: dict[str, tuple[str, str]] = {
    "tahoe": ("tahoe", "dupack"),
    "reno": ("reno", "dupack"),
    "newreno": ("newreno", "newreno"),
    "sack1": ("newreno", "sack"),
}
STOP_S = 60.0
PKTSIZE = 1000
WINDOW = 20


@dataclass(frozen=True)
class Grid:
    """Agents x loss probabilities x one-way delays of the bottleneck (ms), and seeds 1..N."""

    agents: tuple[str, ...]
    probabilities: tuple[float, ...]
    delays_ms: tuple[int, ...]
    seeds: int

    def cells(self) -> list[tuple[str, float, int]]:
        return list(itertools.product(self.agents, self.probabilities, self.delays_ms))


#: The shared grid of issue 15: RTT about 10 and 100 ms (1 + 4 and 1 + 49 ms each way).
FULL = Grid(tuple(AGENTS), (0.0, 0.01, 0.05, 0.1), (4, 49), 10)
#: What `make test` runs: every agent, loss-free and 1 %, the short RTT, 4 seeds.
REDUCED = Grid(tuple(AGENTS), (0.0, 0.01), (4,), 4)


class Ns2Unavailable(RuntimeError):
    """ns-2 (the `ns` program) is not installed here."""


def find_ns(ns: str | None = None) -> str:
    """The path of ns-2's `ns`, or Ns2Unavailable saying how to get it."""
    path = shutil.which(ns or "ns")
    if path is None:
        raise Ns2Unavailable(
            "ns-2 is not installed (no `ns` on PATH): apt-get install -y ns2 (Debian/Ubuntu)"
        )
    return path


def tcl_script() -> Path:
    """The Tcl scenario, from the source tree (``conformance/ns2/chain.tcl``)."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "conformance" / "ns2" / "chain.tcl"
        if candidate.exists():
            return candidate
    raise FileNotFoundError("conformance/ns2/chain.tcl not found above " + str(here))


def _parse_line(line: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in line.split():
        k, _, v = item.partition("=")
        try:
            out[k] = int(v)
        except ValueError:
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


def run_ns2_one(
    ns: str, agent: str, p: float, delay_ms: int, seed: int, *, extra_tcl: str | None = None
) -> dict[str, Any]:
    """One ns-2 run of the chain; its counters as a dict."""
    env = dict(os.environ)
    if extra_tcl:
        env["NS_EXTRA"] = extra_tcl
    args = [ns, str(tcl_script()), agent, repr(p), str(delay_ms), str(seed)]
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("agent=")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    r = _parse_line(lines[-1])
    return {
        "agent": agent,
        "p": p,
        "delay_ms": delay_ms,
        "seed": seed,
        "goodput_Bps": float(r["goodput_Bps"]),
        "retransmissions": int(r["retransmitted_pkts"]),
        "timeouts": int(r["timeouts"]),
        "fast_retransmits": int(r["cwnd_cuts"]) - int(r["timeouts"]),
    }


def run_ns2(
    grid: Grid, *, jobs: int | None = None, ns: str | None = None, extra_tcl: str | None = None
) -> pd.DataFrame:
    """Every ns-2 run of the grid (in parallel processes), one row per run."""
    import pandas as pd

    exe = find_ns(ns)
    runs = [(a, p, d, s) for a, p, d in grid.cells() for s in range(1, grid.seeds + 1)]
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        rows = list(
            pool.map(lambda r: run_ns2_one(exe, *r, extra_tcl=extra_tcl), runs)  # type: ignore[misc]
        )
    return pd.DataFrame(rows)


def scenario(agent: str, p: float, delay_ms: int, seed: int) -> dict[str, Any]:
    """The tcplab scenario of one run of the chain."""
    cc, lr = AGENTS[agent]

    def link(name: str, a: str, b: str, rate: str, delay: str) -> dict[str, Any]:
        return {"name": name, "a": a, "b": b, "rate": rate, "delay": delay,
                "queue": "50p", "framing": "none"}  # fmt: skip

    bottleneck = link("bneck", "rtr", "dst", "2Mbps", f"{delay_ms}ms")
    if p > 0:
        bottleneck["ab"] = {"error": {"model": "per", "p": p}}
    return {
        "run": {"name": "ns2-chain", "seed": seed, "stop_time": f"{STOP_S:g}s"},
        "tcp": {
            "profile": "ns2",
            "mss": PKTSIZE,
            "rcv_buf": WINDOW * PKTSIZE,  # ns-2's window_ in packets
            "congestion_control": cc,
            "loss_recovery": lr,
        },
        "nodes": [
            {"name": "src", "kind": "host"},
            {"name": "rtr", "kind": "router"},
            {"name": "dst", "kind": "host"},
        ],
        "links": [link("access", "src", "rtr", "10Mbps", "1ms"), bottleneck],
        "apps": [
            {
                "name": "ftp",
                "kind": "bulk",
                "client": "src",
                "server": "dst",
                "size": "1GB",
                "start": "0s",
            }  # fmt: skip
        ],
        "output": {"trace": False},
    }


def run_tcplab(
    grid: Grid, *, jobs: int | None = None, overrides: dict | None = None
) -> pd.DataFrame:
    """Every tcplab run of the grid, one row per run (`overrides`: dotted paths to change, to
    switch one of the profile's rules off)."""
    import pandas as pd

    import tcplab

    runs = [(a, p, d, s) for a, p, d in grid.cells() for s in range(1, grid.seeds + 1)]
    scs = []
    for r in runs:
        sc = tcplab.Scenario(scenario(*r))
        scs.append(sc.with_overrides(overrides) if overrides else sc)
    rows = []
    for (agent, p, d, seed), res in zip(runs, tcplab.run_many(scs, jobs=jobs), strict=True):
        client = res.summary["connections"][0]["client"]
        app = res.summary["apps"][0]
        rows.append(
            {
                "agent": agent,
                "p": p,
                "delay_ms": d,
                "seed": seed,
                "goodput_Bps": app["bytes_received"] / STOP_S,
                "retransmissions": client["retransmissions"],
                "timeouts": client["rto_expirations"],
                "fast_retransmits": client["fast_retransmits"],
            }
        )
    return pd.DataFrame(rows)


_METRICS = ("goodput_Bps", "retransmissions", "timeouts", "fast_retransmits")


def compare(ns2: pd.DataFrame, sim: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: the means over seeds on each side and the goodput ratio."""
    keys = ["agent", "p", "delay_ms"]
    a = ns2.groupby(keys, sort=False)[list(_METRICS)].mean().add_prefix("ns2.")
    b = sim.groupby(keys, sort=False)[list(_METRICS)].mean().add_prefix("tcplab.")
    out = a.join(b, how="inner").reset_index()
    out["ratio"] = out["tcplab.goodput_Bps"] / out["ns2.goodput_Bps"]
    for m in ("retransmissions", "timeouts"):
        x, y = out[f"ns2.{m}"], out[f"tcplab.{m}"]
        out[f"{m}.ratio"] = [
            (yy / xx) if xx > 0 else (1.0 if yy == 0 else math.inf)
            for xx, yy in zip(x, y, strict=True)
        ]
    return out


def verdict(cells: pd.DataFrame, *, tolerance: float = 0.05) -> dict[str, Any]:
    """The issue's acceptance figures over a comparison table."""
    dev = (cells["ratio"] - 1).abs()
    within = lambda col, tol: int(((cells[col] - 1).abs() <= tol).sum())  # noqa: E731
    return {
        "cells": len(cells),
        "goodput_within_5pct": int((dev <= tolerance).sum()),
        "mean_abs_ratio_minus_1": float(dev.mean()),
        "max_abs_ratio_minus_1": float(dev.max()),
        "retransmissions_within_10pct": within("retransmissions.ratio", 0.10),
        "timeouts_within_10pct": within("timeouts.ratio", 0.10),
    }


def grid_named(name: str, seeds: int | None = None) -> Grid:
    grids = {"full": FULL, "reduced": REDUCED}
    if name not in grids:
        raise ValueError(f"--grid: invalid value {name!r}; allowed: full, reduced")
    g = grids[name]
    return Grid(g.agents, g.probabilities, g.delays_ms, seeds or g.seeds)


def wall_times(grid: Grid, *, jobs: int | None = None) -> dict[str, float]:
    """Wall time of each side over the same grid (for `make bench`)."""
    import time

    t0 = time.perf_counter()
    run_ns2(grid, jobs=jobs)
    t_ns2 = time.perf_counter() - t0
    t0 = time.perf_counter()
    run_tcplab(grid, jobs=jobs)
    return {"ns2_s": t_ns2, "tcplab_s": time.perf_counter() - t0}
