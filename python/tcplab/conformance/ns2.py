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
Unpaired (the default), ns-2's RNG and tcplab's draw different loss patterns, so cells are
compared by their means over seeds. Paired (``paired=True``), tcplab replays ns-2's own loss
sequence for each seed (`ns2_losses`) through its `list` error model and puts its tick
boundaries where ns-2's ``boot_time_`` puts them, so the two runs of a seed can be compared
packet by packet.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.errors import TcplabError

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
    "Ns2Rng",
    "ns2_boot_time",
    "ns2_losses",
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
    """Agents x loss probabilities x one-way delays of the bottleneck (ms), and seeds 1..N, over
    a bottleneck of `rate_mbps` with packets of `pktsize` bytes and a window of `window`
    packets."""

    agents: tuple[str, ...]
    probabilities: tuple[float, ...]
    delays_ms: tuple[int, ...]
    seeds: int
    rate_mbps: float = 2.0
    pktsize: int = PKTSIZE
    window: int = WINDOW

    def __post_init__(self) -> None:
        for name, ok, allowed in (
            ("agents", all(a in AGENTS for a in self.agents), ", ".join(AGENTS)),
            ("probabilities", all(0 <= p < 1 for p in self.probabilities), "0 <= p < 1"),
            ("delays_ms", all(1 <= d <= 10_000 for d in self.delays_ms), "1 to 10000 ms"),
            ("seeds", self.seeds >= 1, "at least 1"),
            # (at most the 10 Mbit/s access link of chain.tcl, or it would be the bottleneck)
            ("rate_mbps", 0.01 <= self.rate_mbps <= 10, "0.01 to 10 Mbit/s"),
            ("pktsize", 100 <= self.pktsize <= 9000, "100 to 9000 bytes"),
            ("window", 1 <= self.window <= 10_000, "1 to 10000 packets"),
        ):
            if not ok:
                raise ValueError(
                    f"{name}: invalid value {getattr(self, name)!r}; allowed: {allowed}"
                )
        for name in ("agents", "probabilities", "delays_ms"):
            values = getattr(self, name)
            if len(set(values)) != len(values):
                raise ValueError(f"{name}: invalid value {values!r}; allowed: distinct values")

    @property
    def link(self) -> dict[str, Any]:
        return {"rate_mbps": self.rate_mbps, "pktsize": self.pktsize, "window": self.window}

    def cells(self) -> list[tuple[str, float, int]]:
        return list(itertools.product(self.agents, self.probabilities, self.delays_ms))


#: The shared grid of issue 15: RTT about 10 and 100 ms (1 + 4 and 1 + 49 ms each way).
FULL = Grid(tuple(AGENTS), (0.0, 0.01, 0.05, 0.1), (4, 49), 10)
#: What `make test` runs: every agent, loss-free and 1 %, the short RTT, 4 seeds.
REDUCED = Grid(tuple(AGENTS), (0.0, 0.01), (4,), 4)


class Ns2Unavailable(TcplabError, RuntimeError):
    """ns-2 (the `ns` program) is not installed here."""

    kind = "ns2_unavailable"


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
    ns: str,
    agent: str,
    p: float,
    delay_ms: int,
    seed: int,
    *,
    extra_tcl: str | None = None,
    rate_mbps: float = 2.0,
    pktsize: int = PKTSIZE,
    window: int = WINDOW,
) -> dict[str, Any]:
    """One ns-2 run of the chain; its counters as a dict."""
    env = dict(os.environ)
    if extra_tcl:
        env["NS_EXTRA"] = extra_tcl
    args = [ns, str(tcl_script()), agent, repr(p), str(delay_ms), str(seed), f"{STOP_S:g}",
            f"{rate_mbps:g}Mb", str(pktsize), str(window)]  # fmt: skip
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
            pool.map(lambda r: run_ns2_one(exe, *r, extra_tcl=extra_tcl, **grid.link), runs)  # type: ignore[misc]
        )
    return pd.DataFrame(rows)


class Ns2Rng:
    """ns-2's default RNG (tools/rng.cc): L'Ecuyer's MRG32k3a, as ``$defaultRNG seed N`` sets
    it, with all six state words equal to N."""

    M1, M2 = 4294967087, 4294944443
    A12, A13N, A21, A23N = 1403580, 810728, 527612, 1370589
    NORM = 2.328306549295727688e-10  # 1 / (M1 + 1), as RngStream multiplies

    def __init__(self, seed: int) -> None:
        if not 1 <= seed < self.M2:
            raise ValueError(f"seed: invalid value {seed!r}; allowed: 1 to {self.M2 - 1}")
        self.s = [seed] * 6

    def uniform(self) -> float:
        """The next U(0, 1) draw (RngStream's U01)."""
        s = self.s
        p1 = (self.A12 * s[1] - self.A13N * s[0]) % self.M1
        s[0], s[1], s[2] = s[1], s[2], p1
        p2 = (self.A21 * s[5] - self.A23N * s[3]) % self.M2
        s[3], s[4], s[5] = s[4], s[5], p2
        d = p1 - p2 if p1 > p2 else p1 - p2 + self.M1
        return d * self.NORM


#: Draws of ns-2's RNG before the first packet reaches the error model in chain.tcl: one at
#: agent creation and the agent's ``boot_time_`` (TcpAgent::reset at ``$ns run``).
_DRAWS_BEFORE_BOOT = 1


def ns2_boot_time(seed: int, tick_s: float = 0.01) -> float:
    """ns-2's ``boot_time_`` for this seed: uniform in one ``tcpTick_``."""
    rng = Ns2Rng(seed)
    for _ in range(_DRAWS_BEFORE_BOOT):
        rng.uniform()
    return tick_s * rng.uniform()


@functools.lru_cache(maxsize=512)
def ns2_losses(p: float, seed: int, packets: int) -> tuple[int, ...]:
    """The frames tcplab's `list` error model drops on rtr -> dst to see ns-2's losses.

    ns-2's ErrorModel drops the k-th packet through it when its k-th draw is below p, after
    the two draws of `ns2_boot_time`. The `ns2` profile opens the connection as ns-2's one-way
    agent does (`tcp.ns2.two_way_handshake`), so the frames through rtr -> dst are ns-2's
    packets one for one.
    """
    rng = Ns2Rng(seed)
    for _ in range(_DRAWS_BEFORE_BOOT + 1):
        rng.uniform()
    return tuple(k for k in range(packets) if rng.uniform() < p)


def scenario(
    agent: str,
    p: float,
    delay_ms: int,
    seed: int,
    *,
    paired: bool = False,
    rate_mbps: float = 2.0,
    pktsize: int = PKTSIZE,
    window: int = WINDOW,
) -> dict[str, Any]:
    """The tcplab scenario of one run of the chain (`paired`: with ns-2's losses and ticks)."""
    cc, lr = AGENTS[agent]

    def link(name: str, a: str, b: str, rate: str, delay: str) -> dict[str, Any]:
        return {"name": name, "a": a, "b": b, "rate": rate, "delay": delay,
                "queue": "50p", "framing": "none"}  # fmt: skip

    bottleneck = link("bneck", "rtr", "dst", f"{rate_mbps:g}Mbps", f"{delay_ms}ms")
    tcp: dict[str, Any] = {
        "profile": "ns2",
        "mss": pktsize,
        "rcv_buf": window * pktsize,  # ns-2's window_ in packets
        "congestion_control": cc,
        "loss_recovery": lr,
    }
    if paired:
        tcp["ns2"] = {"tick_phase": f"{ns2_boot_time(seed) * 1e9:.0f}ns"}
        if p > 0:
            # More packets than the run can carry.
            frames = ns2_losses(p, seed, int(STOP_S * rate_mbps * 1e6 / 8 / pktsize) + 1000)
            bottleneck["ab"] = {"error": {"model": "list", "frames": list(frames)}}
    elif p > 0:
        bottleneck["ab"] = {"error": {"model": "per", "p": p}}
    return {
        "run": {"name": "ns2-chain", "seed": seed, "stop_time": f"{STOP_S:g}s"},
        "tcp": tcp,
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
    grid: Grid,
    *,
    jobs: int | None = None,
    overrides: dict | None = None,
    paired: bool = False,
) -> pd.DataFrame:
    """Every tcplab run of the grid, one row per run (`overrides`: dotted paths to change, to
    switch one of the profile's rules off; `paired`: replay ns-2's losses, see `scenario`)."""
    import pandas as pd

    import tcplab

    runs = [(a, p, d, s) for a, p, d in grid.cells() for s in range(1, grid.seeds + 1)]
    scs = []
    for r in runs:
        sc = tcplab.Scenario(scenario(*r, paired=paired, **grid.link))
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


def compare(ns2: pd.DataFrame, sim: pd.DataFrame, *, paired: bool = False) -> pd.DataFrame:
    """One row per cell: the means over seeds on each side and the goodput ratio (`paired`:
    also `identical`, the seeds whose runs delivered the same bytes on both sides)."""
    keys = ["agent", "p", "delay_ms"]
    a = ns2.groupby(keys, sort=False)[list(_METRICS)].mean().add_prefix("ns2.")
    b = sim.groupby(keys, sort=False)[list(_METRICS)].mean().add_prefix("tcplab.")
    out = a.join(b, how="inner").reset_index()
    if paired:
        both = ns2.merge(sim, on=[*keys, "seed"], suffixes=("_ns2", ""), validate="one_to_one")
        both["identical"] = (both["goodput_Bps"] - both["goodput_Bps_ns2"]).abs() * STOP_S < 1
        same = both.groupby(keys, sort=False)["identical"].sum().rename("identical")
        out = out.merge(same.reset_index(), on=keys, how="left")
        out["identical"] = out["identical"].fillna(0).astype(int)
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
        **({"identical_runs": int(cells["identical"].sum())} if "identical" in cells else {}),
    }


def grid_named(name: str, seeds: int | None = None, **changes: Any) -> Grid:
    """A named grid, with `seeds` and any other `Grid` field (`probabilities`, `delays_ms`,
    `rate_mbps`, `pktsize`, `window`) changed where given (None: the grid's own)."""
    grids = {"full": FULL, "reduced": REDUCED}
    if name not in grids:
        raise ValueError(f"--grid: invalid value {name!r}; allowed: full, reduced")
    given = {k: v for k, v in changes.items() if v is not None}
    return dataclasses.replace(grids[name], seeds=seeds or grids[name].seeds, **given)


def wall_times(grid: Grid, *, jobs: int | None = None) -> dict[str, float]:
    """Wall time of each side over the same grid (for `make bench`)."""
    import time

    t0 = time.perf_counter()
    run_ns2(grid, jobs=jobs)
    t_ns2 = time.perf_counter() - t0
    t0 = time.perf_counter()
    run_tcplab(grid, jobs=jobs)
    return {"ns2_s": t_ns2, "tcplab_s": time.perf_counter() - t0}
