"""The simulator and the testbed side by side: one scenario, the same seeds, both results in
the same schema (`tcplab.testbed.result`), a table of their figures and the cwnd traces
overlaid.

    from tcplab.testbed.compare import compare_sim_testbed
    df, figures = compare_sim_testbed(Scenario.from_toml("examples/sarkar2022.toml"), 1, "out/c")

Used by ``tcplab compare FILE --sim --testbed``. The testbed part needs Linux and root and runs
in real time; the scenario is mapped (and refused, naming the field) before anything runs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from tcplab.api import Result, Scenario

    from .plan import TestbedPlan

__all__ = [
    "METRICS",
    "compare_sim_testbed",
    "metrics_of",
    "comparison_doc",
    "plot_cwnd",
    "side_by_side",
]

#: Per-run figures compared: column -> (label, unit).
METRICS: dict[str, tuple[str, str]] = {
    "completed": ("completed", ""),
    "response_time_s": ("response time", "s"),
    "throughput_Bps": ("throughput", "B/s"),
    "retransmissions": ("retransmissions", "segments"),
    "fast_retransmits": ("fast retransmits", ""),
    "rto_expirations": ("RTO expirations", ""),
    "data_segments_sent": ("data segments sent", "segments"),
    "frames_sent": ("data frames on the link", "frames"),
    "frames_dropped_error": ("data frames dropped (errors)", "frames"),
    "srtt_s": ("final SRTT", "s"),
    "max_cwnd": ("largest cwnd", "B"),
}


def _seeds(seeds: int | Sequence[int]) -> list[int]:
    from tcplab.sweep.grid import seed_list

    return seed_list(seeds)


def metrics_of(result: Result, link: str, data_dir: str) -> dict[str, Any]:
    """The compared figures of one run (either source), from its summary."""
    s = result.summary
    app = s["apps"][0]
    srv = s["connections"][0]["server"]  # the sender of an FTP download
    lk = next((x for x in s["links"] if x.get("name") == link), {}).get(data_dir) or {}

    def num(v: Any) -> float:
        return math.nan if v is None else float(v)

    return {
        "completed": bool(app.get("completed")),
        "response_time_s": num(app.get("response_time_s")),
        "throughput_Bps": num(app.get("throughput_Bps")),
        "retransmissions": num(srv.get("retransmissions")),
        "fast_retransmits": num(srv.get("fast_retransmits")),
        "rto_expirations": num(srv.get("rto_expirations")),
        "data_segments_sent": num(srv.get("data_segments_sent")),
        "frames_sent": num(lk.get("frames_sent")),
        "frames_dropped_error": num(lk.get("frames_dropped_error")),
        "srtt_s": num(srv.get("srtt_s")),
        "max_cwnd": num(srv.get("max_cwnd")),
        "max_rcv_window_seen": num(s.get("max_rcv_window_seen")),
    }


def side_by_side(df: pd.DataFrame) -> pd.DataFrame:
    """One row per metric: the mean over seeds of each source and testbed / sim."""
    import pandas as pd

    rows = []
    for key, (label, unit) in METRICS.items():
        sim = df.loc[df["source"] == "sim", key].astype(float).mean()
        tb = df.loc[df["source"] == "testbed", key].astype(float).mean()
        ratio = tb / sim if sim and not math.isnan(sim) and not math.isnan(tb) else math.nan
        rows.append({"metric": key, "label": label, "unit": unit, "sim": sim, "testbed": tb,
                     "testbed_over_sim": ratio})  # fmt: skip
    return pd.DataFrame(rows)


def plot_cwnd(sim: Result, testbed: Result, title: str = "") -> Figure:
    """cwnd (and ssthresh) against time from the connection's start, both sources overlaid;
    red ticks: frames the testbed's forwarder dropped, grey ticks: the simulator's drops."""
    import numpy as np

    from tcplab.report.plots import PALETTE, new_figure

    from .result import SSTHRESH_UNLIMITED

    fig, ax = new_figure(figsize=(10, 4.8))
    for res, name, color in ((sim, "simulator", PALETTE[0]), (testbed, "testbed", PALETTE[3])):
        tr = res.traces.get("trace")
        if tr is None or tr.empty:
            continue
        tr = tr[tr["conn"] == 0]
        t = tr["time_s"].to_numpy(dtype=float)
        ax.step(t, tr["cwnd"].to_numpy(dtype=float), where="post", color=color, lw=1.1,
                label=f"{name}: cwnd")  # fmt: skip
        ss = tr["ssthresh"].to_numpy(dtype=float, copy=True)  # read-only view under pandas 3
        ss[ss >= SSTHRESH_UNLIMITED] = np.nan
        ax.step(t, ss, where="post", color=color, lw=0.8, ls=":", label=f"{name}: ssthresh")
    y0 = 0.0
    for res, color in ((sim, "#777777"), (testbed, "#CC0000")):
        ev = res.traces.get("events")
        if ev is None or ev.empty:
            continue
        d = ev.loc[(ev["kind"] == "drop_error") & (ev["end"] == 1), "time_s"].to_numpy(float)
        if len(d):
            ax.plot(d, np.full(len(d), y0), "|", color=color, ms=9)
        y0 += 600.0
    ax.set_xlabel("time since the connection's start (s)")
    ax.set_ylabel("bytes")
    ax.set_ylim(bottom=-800)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2, loc="upper right")
    if title:
        ax.set_title(title, fontsize=9, loc="left")
    return fig


def _plot_bars(df: pd.DataFrame) -> Figure:
    import numpy as np

    from tcplab.report.plots import PALETTE, new_figure

    keys = ["response_time_s", "retransmissions", "rto_expirations", "fast_retransmits"]
    fig, axes = new_figure(1, len(keys), figsize=(11, 3.4))
    for ax, key in zip(np.atleast_1d(axes), keys, strict=True):
        for i, (src, color) in enumerate((("sim", PALETTE[0]), ("testbed", PALETTE[3]))):
            v = df.loc[df["source"] == src, key].astype(float).to_numpy()
            ax.bar(i, np.nanmean(v) if len(v) and np.isfinite(v).any() else 0, 0.6, color=color,
                   alpha=0.8)  # fmt: skip
            ax.plot(np.full(len(v), i), v, "o", color="black", ms=3)
        label, unit = METRICS[key]
        ax.set_xticks([0, 1], ["sim", "testbed"])
        ax.set_title(f"{label}" + (f" ({unit})" if unit else ""), fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    return fig


def compare_sim_testbed(
    scenario: Scenario,
    seeds: int | Sequence[int] = 1,
    out: str | Path | None = None,
    *,
    time_budget_s: float | None = None,
    jobs: int | None = None,
    on_run: Callable[[str, int], None] | None = None,
) -> tuple[pd.DataFrame, dict[str, Path]]:
    """Run `scenario` on the simulator and on the testbed for each of `seeds` (N = 1..N).

    Returns a DataFrame with one row per (source, seed) and the METRICS columns (its
    ``attrs["side_by_side"]`` holds the means per source as records, ``attrs["plan"]`` the
    testbed mapping), and the written figures by name (PNG; the SVG sits beside it). With `out`,
    also writes sim_testbed.csv, sim_testbed.json and each run's result directory
    (``sim/seed-N``, ``testbed/seed-N``); figures go to `out` (default ``out/compare``).
    `on_run(source, seed)` is called before each run (for progress messages)."""
    import pandas as pd

    import tcplab
    from tcplab.report.plots import save_figure

    from . import plan as tb_plan
    from . import result as tb_result

    seeds_ = _seeds(seeds)
    plans: dict[int, TestbedPlan] = {
        s: tb_plan.plan(scenario, seed=s, time_budget_s=time_budget_s) for s in seeds_
    }  # refuses an unsupported scenario before anything runs
    first = plans[seeds_[0]]
    if on_run:
        on_run("sim", len(seeds_))
    traced = {"output.trace": True, "output.events": True}
    sims = tcplab.run_many(
        [scenario.with_seed(s).with_overrides(traced) for s in seeds_], jobs=jobs
    )
    tbs = []
    for s in seeds_:
        if on_run:
            on_run("testbed", s)
        tbs.append(tb_result.run_plan(scenario.with_seed(s), plans[s]))
    rows = []
    for src, results in (("sim", sims), ("testbed", tbs)):
        for s, r in zip(seeds_, results, strict=True):
            rows.append({"source": src, "seed": s, **metrics_of(r, first.link, first.data_dir)})
    df = pd.DataFrame(rows)
    sbs = side_by_side(df)
    df.attrs["side_by_side"] = sbs.to_dict("records")
    df.attrs["plan"] = first.to_dict()
    df.attrs["scenario"] = first.scenario_name
    outdir = Path(out) if out is not None else Path("out") / "compare"
    figures: dict[str, Path] = {}
    title = (
        f"{first.scenario_name or 'scenario'}, seed {seeds_[0]}: simulator vs testbed (Linux "
        f"{first.config.congestion_control})"
    )
    for name, fig in (
        ("sim_testbed_cwnd", plot_cwnd(sims[0], tbs[0], title)),
        ("sim_testbed_metrics", _plot_bars(df)),
    ):
        figures[name] = save_figure(fig, outdir, name)["png"]
    if out is not None:
        from tcplab._atomic import write_file

        write_file(outdir / "sim_testbed.csv", df.to_csv(index=False).encode())
        write_file(
            outdir / "sim_testbed.json",
            (json.dumps(comparison_doc(df), indent=2, default=str) + "\n").encode(),
        )
        for src, results in (("sim", sims), ("testbed", tbs)):
            for s, r in zip(seeds_, results, strict=True):
                r.to_dir(outdir / src / f"seed-{s}")
    return df, figures


def comparison_doc(df: pd.DataFrame, figures: dict[str, Path] | None = None) -> dict[str, Any]:
    """A comparison of `compare_sim_testbed` as JSON takes it: the runs, the means side by
    side, the testbed plan and, if given, the figures' paths; inf and NaN become None."""
    doc: dict[str, Any] = {
        "runs": df.to_dict("records"),
        "side_by_side": df.attrs["side_by_side"],
        "plan": df.attrs["plan"],
    }
    if figures is not None:
        doc["figures"] = {k: str(v) for k, v in figures.items()}
    return _finite(doc)


def _finite(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_finite(x) for x in v]
    return v
