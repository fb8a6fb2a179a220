"""Means over seeds per sweep point, and the sweep tables (Figures 4-6 as numbers)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._base import TableOut
from .._kit import aggregate
from .paper import LABELS, SETUPS

__all__ = ["SWEEP_TABLES", "means", "sweep_table"]

#: The sweeps' tables: (sweep, title, name of the x column).
SWEEP_TABLES: tuple[tuple[str, str, str], ...] = (
    ("per", "Throughput (Mbit/s) vs packet error rate (Figure 4)", "PER"),
    ("speed", "Throughput (Mbit/s) vs bottleneck speed at 5 % PER (Figure 5)", "Mbit/s"),
    ("delay", "Throughput (Mbit/s) vs two-way propagation time at 0.05 % PER (Figure 6)", "ms"),
)

#: The columns of `means`, in order.
_COLUMNS = ["setup", "sweep", "variant", "x", "mbps", "ci", "min", "max", "retx_share",
            "retx_per_loss", "rto", "srtt_ms", "runs"]  # fmt: skip


def means(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean (and 95 % CI half-width) over seeds per (setup, sweep, variant, x): `mbps`, `ci`,
    `min`, `max` of the throughput; the mean `retx_share`, `retx_per_loss`, `rto`
    (expirations) and `srtt_ms`."""
    a = aggregate(
        runs,
        ["setup", "group", "variant", "x"],
        ci={"mbps": "throughput_mbps"},
        mean={
            "retx": "retx_share",
            "rpl": "retx_per_loss",
            "rto": "rto_expirations",
            "srtt": "srtt_s",
        },  # fmt: skip
    )
    if a.empty:
        return a
    a["x"] = [float(x) for x in a["x"]]
    a["srtt_ms"] = a["srtt_mean"] * 1e3
    a = a.rename(
        columns={
            "group": "sweep",
            "mbps_mean": "mbps",
            "mbps_ci": "ci",
            "mbps_min": "min",
            "mbps_max": "max",
            "retx_mean": "retx_share",
            "rpl_mean": "retx_per_loss",
            "rto_mean": "rto",
        }
    )
    return a[_COLUMNS]


def sweep_table(
    m: pd.DataFrame,
    sweep: str,
    title: str,
    xname: str,
    setups: Sequence[str],
    variants: Sequence[str],
) -> TableOut | None:
    """One sweep's mean throughput per setup and variant (None if the sweep did not run)."""
    d = m[m["sweep"] == sweep]
    if d.empty:
        return None
    piv = d.pivot_table(index="x", columns=["setup", "variant"], values="mbps").sort_index()
    data = pd.DataFrame({"x": piv.index.to_numpy(dtype=float)})
    display = pd.DataFrame({xname: [f"{x:.0%}" if sweep == "per" else f"{x:g}" for x in piv.index]})
    for setup in setups:
        for v in variants:
            if (setup, v) in piv.columns:
                col = piv[(setup, v)].to_numpy(dtype=float)
                data[f"{setup}.{v}"] = col
                display[f"{setup}: {LABELS[v].removeprefix('TCP ')}"] = np.round(col, 3)
    return TableOut(
        sweep,
        title,
        data,
        display,
        note="Mean over seeds. 'stated': the paper's 5 ms two-way propagation, wired hop "
        f"without delay; 'inferred': wired hop {SETUPS['inferred']:g} ms each way (RTT 160 "
        "ms at the standard point, which makes ns-2's 20-packet window carry the paper's "
        "loss-free 1 Mbit/s).",
    )
