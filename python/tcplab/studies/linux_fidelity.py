"""Study `linux-fidelity`: the simulator's `linux` profile against the Linux kernel on this
machine, through the testbed, cell by cell, and what each modelled kernel mechanism is worth.

The matrix is {reno, cubic, bbr} x {a window-limited path (seed 000's 8760-byte window), a
bandwidth-limited path (20 Mbit/s, 20 ms each way, 100-packet queue), a long path (200 ms RTT)}
x packet loss {0, 0.1, 1, 3 %} x {loss on the data direction only, on both}. Every cell runs
on the simulator (10 seeds) and, with ``--testbed`` (Linux and root), on the testbed with the
same seeds: the forwarder draws each direction's losses from the simulator's stream of that
link direction, so the two sides see the same loss pattern. The report puts the response
times side by side with their 95 % confidence intervals, records the kernel's version and
every TCP sysctl, and ablates the profile: each kernel mechanism the `linux` profile models,
switched off one at a time, on the bandwidth-limited path.

    tcplab study linux-fidelity                       # the simulator's side and the ablation
    tcplab study linux-fidelity --testbed             # and this kernel, 10 seeds per cell
    tcplab study linux-fidelity -O matrix=reduced     # reno and cubic, 0 and 1 %, data only
    tcplab study linux-fidelity -O testbed_from=out/linux-fidelity   # a changed simulator
                                                      # against the kernel runs kept there

The window-limited path fixes the receive buffer (as SO_RCVBUF does; the forwarder clamps the
kernel's window to it); on the other two the buffer autotunes on both sides from the `linux`
profile's 128 KiB up to 6 MiB (the kernel's tcp_rmem defaults, set in the testbed's namespaces).
Anyone can rerun it to calibrate tcplab against their own kernel.
"""

from __future__ import annotations

import math
import platform
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from tcplab.report.plots import PALETTE, new_figure
from tcplab.report.stats import mean_ci
from tcplab.sweep.grid import seed_list

from ._base import (
    Case,
    FigureSpec,
    Finding,
    Study,
    StudyOption,
    StudyResult,
    TableOut,
    parse_bool,
)
from ._kit import mean_pm, pct, study_scenario

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tcplab import Result, Scenario

#: name -> (description, overrides of the base scenario)
PATHS: dict[str, tuple[str, dict[str, Any]]] = {
    "window": (
        "window-limited: 10 Mbit/s, 20 ms each way, receive window 8760 B (seed 000), 1 MB",
        {"links.wan.rate": "10Mbps", "tcp.rcv_buf": 8760, "apps.ftp.size": "1MB"},
    ),
    "bandwidth": (
        "bandwidth-limited: 20 Mbit/s, 20 ms each way, 100-packet queue, 5 MB, autotuned "
        "receive buffer",
        {},
    ),
    "long": (
        "long: 20 Mbit/s, 100 ms each way (RTT 200 ms), 100-packet queue, 5 MB, autotuned "
        "receive buffer",
        {"links.wan.delay": "100ms"},
    ),
}
CCS = ("reno", "cubic", "bbr")
PDROPS = (0.0, 0.001, 0.01, 0.03)
DIRECTIONS = ("data", "both")
REDUCED = {"paths": ("bandwidth",), "ccs": ("reno", "cubic"), "pdrops": (0.0, 0.01),
           "directions": ("data",)}  # fmt: skip

#: The profile's kernel mechanisms, each switched off: name -> (kernel source, overrides).
ABLATION: dict[str, tuple[str, dict[str, Any]]] = {
    "receive buffer fixed at 128 KiB": ("tcp_rcv_space_adjust", {"tcp.rcv_buf": 131_072}),
    "cwnd validation off": ("tcp_is_cwnd_limited", {"tcp.cwnd_validation": False}),
    "ssthresh from the flight": ("tcp_reno_ssthresh", {"tcp.ssthresh_from": "flight"}),
    "cwnd in bytes": ("snd_cwnd counts packets", {"tcp.cwnd_packets": False}),
    "no quick ACKs": ("tcp_incr_quickack", {"tcp.quick_acks": 0}),
    "RFC 1122 Nagle": ("tcp_minshall_check", {"tcp.nagle_minshall": False}),
    "RTO restarted on every retransmission": (
        "tcp_xmit_retransmit_queue",
        {"tcp.rto_restart": "every"},
    ),
    "ssthresh recomputed by a timeout in recovery": (
        "tcp_enter_loss",
        {"tcp.rto_keeps_recovery_ssthresh": False},
    ),
    "RFC 3042 room on top of the pipe": (
        "tcp_packets_in_flight, tcp_add_reno_sack",
        {"tcp.limited_transmit_by_pipe": False},
    ),
    "PRR as RFC 6937": ("tcp_cwnd_reduction", {"tcp.prr_rule": "rfc6937"}),
    "a fixed duplicate-ACK threshold": ("tcp_check_sack_reordering", {"tcp.max_reordering": 0}),
    "RACK as RFC 8985": (
        "tcp_rack_advance, tcp_rack_mark_lost",
        {"tcp.lr_params": {"rule": "rfc8985"}},
    ),
    "old ACKs ignored": ("tcp_ack: old_ack", {"tcp.old_ack_sack": False}),
    "CUBIC without HyStart": ("tcp_cubic.c hystart", {"tcp.cc_params": {"hystart": False}}),
    "CUBIC without its 5 % floor before W_max": (
        "bictcp_update: cnt <= 20 while last_max_cwnd = 0",
        {"tcp.cc_params": {"unknown_max_growth": False}},
    ),
    "CUBIC in real numbers (RFC 9438)": (
        "bictcp_update, tcp_cong_avoid_ai: whole packets",
        {"tcp.cc_params": {"packets": False}},
    ),
}
ABLATION_PDROPS = (0.001, 0.01)


def _loss(p: float, direction: str) -> dict[str, Any]:
    err = {"model": "per", "p": p} if p > 0 else {"model": "none"}
    ov: dict[str, Any] = {"links.wan.ab.error": err}
    if direction == "both":
        ov["links.wan.ba.error"] = err
    return ov


def _key(path: str, cc: str, p: float, direction: str) -> str:
    return f"{path}/{cc}/{pct(p)}/{direction}"


class LinuxFidelity(Study):
    name = "linux-fidelity"
    title = "The linux profile against this machine's Linux kernel, cell by cell"
    description = (
        "Response times of the simulator's linux profile and of the kernel's TCP through the "
        "testbed (the same scenario, seeds and loss draws), for reno, cubic and bbr on a "
        "window-limited, a bandwidth-limited and a long path at 0 to 3 % loss on one or both "
        "directions; and each modelled kernel mechanism switched off in turn."
    )
    citation = "tcplab issue 12 (calibration study; no paper)"
    default_seeds = 10
    options = (
        StudyOption("testbed", False, "also run every cell on the testbed (root)", parse_bool),
        StudyOption("testbed_seeds", 10, "testbed seeds per cell", int),
        StudyOption("testbed_budget_s", 600.0, "wall-time budget of one testbed run", float),
        StudyOption(
            "testbed_from",
            "",
            "reuse the testbed runs of earlier reports (directories or results.parquet files, "
            "comma-separated; the last one's runs of a cell win) instead of running the testbed",
            str,
        ),
        StudyOption("matrix", "full", "full, or reduced (reno/cubic, 0 and 1 %, data only)", str),
        StudyOption("paths", ",".join(PATHS), "the paths to run (comma-separated)", str),
        StudyOption("ccs", ",".join(CCS), "the congestion controls to run (comma-separated)", str),
        StudyOption(
            "pdrops", ",".join(map(str, PDROPS)), "the loss rates to run (comma-separated)", str
        ),  # fmt: skip
    )

    # -- the grid ---------------------------------------------------------------------------

    def scenario(self) -> Scenario:
        return study_scenario("linux_fidelity")

    def matrix(self, which: str = "full") -> list[tuple[str, str, float, str]]:
        m = REDUCED if which == "reduced" else {
            "paths": tuple(PATHS), "ccs": CCS, "pdrops": PDROPS, "directions": DIRECTIONS
        }  # fmt: skip
        paths, ccs = getattr(self, "_paths", PATHS), getattr(self, "_ccs", CCS)
        pdrops = getattr(self, "_pdrops", PDROPS)
        return [
            (path, cc, p, d)
            for path in m["paths"]
            if path in paths
            for cc in m["ccs"]
            if cc in ccs
            for p in m["pdrops"]
            if p in pdrops
            for d in m["directions"]
            if not (p == 0 and d == "both")  # no loss on both = no loss
        ]

    def cases(self, which: str = "full") -> list[Case]:
        out = []
        for path, cc, p, d in self.matrix(which):
            out.append(
                Case(
                    key=_key(path, cc, p, d),
                    group="main",
                    variant=cc,
                    params={"path": path, "cc": cc, "pdrop": p, "direction": d},
                    overrides={**PATHS[path][1], "tcp.congestion_control": cc, **_loss(p, d)},
                )
            )
        for cc in ("reno", "cubic"):
            for p in ABLATION_PDROPS if which == "full" else (0.01,):
                for name, (_, ov) in ABLATION.items():
                    if "cc_params" in str(ov) and cc != "cubic":
                        continue
                    out.append(
                        Case(
                            key=f"ablation/{cc}/{pct(p)}/{name}",
                            group="ablation",
                            variant=name,
                            params={
                                "path": "bandwidth",
                                "cc": cc,
                                "pdrop": p,
                                "direction": "data",
                            },  # fmt: skip
                            overrides={"tcp.congestion_control": cc, **_loss(p, "data"), **ov},
                        )
                    )
        return out

    def scenarios(self, seeds: Any = None) -> list[tuple[Case, int, Scenario]]:
        seeds_ = seed_list(self.default_seeds if seeds is None else seeds)
        which = getattr(self, "_matrix", "full")
        base = self.scenario()
        out = []
        for case in self.cases(which):
            sc = base.with_overrides(dict(case.overrides))
            out.extend((case, s, sc.with_overrides({"seed": s})) for s in seeds_)
        return out

    def check_options(self, options: Mapping[str, Any]) -> None:
        if options["matrix"] not in ("full", "reduced"):
            raise ValueError(f"option 'matrix' = {options['matrix']!r}: full or reduced")
        if int(options["testbed_seeds"]) < 1:
            raise ValueError(f"option 'testbed_seeds' = {options['testbed_seeds']}: >= 1")
        if options["testbed"] and options["testbed_from"]:
            raise ValueError("options 'testbed' and 'testbed_from' exclude each other: run the "
                             "testbed, or reuse an earlier report's testbed runs")  # fmt: skip
        if options["testbed"]:
            from tcplab.testbed import check_available

            check_available()
        for opt, known in (("paths", tuple(PATHS)), ("ccs", CCS)):
            given = [x.strip() for x in str(options[opt]).split(",") if x.strip()]
            bad = [x for x in given if x not in known]
            if bad or not given:
                raise ValueError(
                    f"option {opt!r} = {options[opt]!r}: choose from {', '.join(known)}"
                )
            setattr(self, f"_{opt}", tuple(given))
        try:
            pdrops = tuple(float(x) for x in str(options["pdrops"]).split(",") if x.strip())
        except ValueError:
            pdrops = ()
        if not pdrops or any(p not in PDROPS for p in pdrops):
            raise ValueError(
                f"option 'pdrops' = {options['pdrops']!r}: choose from "
                + ", ".join(map(str, PDROPS))
            )
        self._pdrops = pdrops
        self._matrix = options["matrix"]

    def metrics(self, result: Result) -> dict[str, Any]:
        app = result.summary["apps"][0]
        return {"response_time_s": app.get("response_time_s"), "completed": app["completed"]}

    # -- the testbed ------------------------------------------------------------------------

    def extend(self, res: StudyResult, *, progress: bool = False) -> None:
        """With option `testbed`: every main cell on the testbed, `testbed_seeds` seeds. With
        `testbed_from`: the testbed runs of an earlier report, so that a change to the simulator
        is judged against the same kernel measurements without rerunning them."""
        if res.options.get("testbed_from"):
            self._reuse_testbed(res, str(res.options["testbed_from"]))
            return
        if not res.options.get("testbed"):
            return
        import pandas as pd

        from tcplab.sweep.execute import progress_bar
        from tcplab.testbed import plan as tb_plan
        from tcplab.testbed import result as tb_result
        from tcplab.testbed.errors import TestbedTimeout

        seeds = seed_list(int(res.options["testbed_seeds"]))
        budget = float(res.options["testbed_budget_s"])
        base = self.scenario()
        main = [c for c in self.cases(res.options["matrix"]) if c.group == "main"]
        rows, kernel = [], None
        with progress_bar(
            progress, f"{self.name}: testbed (real time)", len(main) * len(seeds)
        ) as bar:
            for case in main:
                for seed in seeds:
                    sc = base.with_overrides({**case.overrides, "seed": seed})
                    t0 = time.perf_counter()
                    try:
                        # A run whose timing drifted (runner.health) is repeated once; if it
                        # drifts again it is kept, flagged, and left out of the means.
                        for _attempt in range(2):
                            r = tb_result.run_plan(sc, tb_plan.plan(sc, time_budget_s=budget))
                            h = r.summary.get("health") or {}
                            if not h.get("drifted"):
                                break
                    except TestbedTimeout as e:
                        row = {"case": case.key, "seed": seed, "completed": False,
                               "response_time_s": math.nan, "testbed_error": str(e)}  # fmt: skip
                    else:
                        row = self._row(case, seed, r)
                        row["testbed_drifted"] = bool(h.get("drifted"))
                        row["drift_reasons"] = "; ".join(h.get("drift_reasons") or [])
                        row["cpu_busy"] = h.get("cpu_busy")
                        row["min_rtt_s"] = h.get("min_rtt_s")
                        kernel = kernel or r.summary.get("kernel_settings")
                    row.update(group="testbed", variant=case.variant, **case.params)
                    row["testbed_wall_s"] = time.perf_counter() - t0
                    rows.append(row)
                    bar.advance(1)
        res.runs = pd.concat([res.runs, pd.DataFrame(rows)], ignore_index=True)
        res.extra["kernel"] = {"uname": platform.uname()._asdict(), "settings": kernel}

    def _reuse_testbed(self, res: StudyResult, sources: str) -> None:
        """The testbed rows of earlier reports (comma-separated; for a cell that several hold,
        the last one's), for the cells of this run's matrix."""
        import json
        from pathlib import Path

        import pandas as pd

        keys = {c.key for c in self.cases(res.options["matrix"])}
        taken: dict[str, pd.DataFrame] = {}
        for source in (x.strip() for x in sources.split(",") if x.strip()):
            path = Path(source)
            parquet = path / "results.parquet" if path.is_dir() else path
            if not parquet.is_file():
                raise ValueError(
                    f"option 'testbed_from' = {source!r}: no such report (a directory written "
                    "by `tcplab study linux-fidelity --testbed`, or its results.parquet)"
                )
            old = pd.read_parquet(parquet)
            if "group" not in old or not (old["group"] == "testbed").any():
                raise ValueError(f"option 'testbed_from' = {source!r}: it holds no testbed runs")
            tb = old[(old["group"] == "testbed") & old["case"].isin(keys)].copy()
            if "testbed_drifted" in tb:
                # Parquet may hand the flag back as text ("True"/"False") when the column also
                # held missing values; the means leave out exactly the runs flagged True.
                tb["testbed_drifted"] = tb["testbed_drifted"].map(
                    lambda v: str(v).lower() == "true" if v is not None and v == v else None
                )
            taken.update({k: d for k, d in tb.groupby("case", sort=False)})
            summary = parquet.with_name("summary.json")
            if summary.is_file():
                kernel = (json.loads(summary.read_text()).get("extra") or {}).get("kernel")
                if kernel:
                    res.extra["kernel"] = kernel
        if taken:
            res.runs = pd.concat([res.runs, *taken.values()], ignore_index=True)
        res.extra["testbed_from"] = sources

    # -- analysis ---------------------------------------------------------------------------

    def analyse(self, res: StudyResult) -> None:
        cells = self._cells(res)
        res.tables.append(self._cells_table(cells))
        res.tables.append(self._ablation_table(res))
        res.findings.extend(self._findings(res, cells))

    def _cells(self, res: StudyResult) -> list[dict[str, Any]]:
        out = []
        runs = res.runs
        for case in self.cases(res.options.get("matrix", "full")):
            if case.group != "main":
                continue
            row: dict[str, Any] = dict(case.params)
            tb_all = runs[(runs["group"] == "testbed") & (runs["case"] == case.key)]
            flagged = tb_all.get("testbed_drifted", False)
            row["testbed_flagged"] = (
                int(flagged.sum()) if len(tb_all) and hasattr(flagged, "sum") else 0
            )
            for src, group in (("sim", "main"), ("testbed", "testbed")):
                d = runs[(runs["group"] == group) & (runs["case"] == case.key)]
                if group == "testbed" and "testbed_drifted" in d:
                    d = d[d["testbed_drifted"] != True]  # noqa: E712 - NaN for timed-out runs
                s = mean_ci(d["response_time_s"]) if len(d) else None
                row[f"{src}_mean"] = s.mean if s else math.nan
                row[f"{src}_ci"] = s.half_width if s else math.nan
                row[f"{src}_n"] = s.n if s else 0
            row["ratio"] = row["sim_mean"] / row["testbed_mean"] if row["testbed_n"] else math.nan
            # Paired: the simulator over the testbed's own seeds (the same loss draws).
            tb = runs[(runs["group"] == "testbed") & (runs["case"] == case.key)]
            if "testbed_drifted" in tb:
                tb = tb[tb["testbed_drifted"] != True]  # noqa: E712
            sim = runs[(runs["group"] == "main") & (runs["case"] == case.key)]
            both = sim.merge(tb, on="seed", suffixes=("_sim", "_tb"))
            row["paired_ratio"] = (
                float(both["response_time_s_sim"].mean() / both["response_time_s_tb"].mean())
                if len(both)
                else math.nan
            )
            row["paired_n"] = len(both)
            out.append(row)
        return out

    def _cells_table(self, cells: list[dict[str, Any]]) -> TableOut:
        import pandas as pd

        data = pd.DataFrame(cells)
        disp = pd.DataFrame(
            {
                "path": data["path"],
                "cc": data["cc"],
                "loss": [pct(p) for p in data["pdrop"]],
                "on": data["direction"],
                "simulator s": [
                    _pm(m, h) for m, h in zip(data["sim_mean"], data["sim_ci"], strict=True)
                ],  # fmt: skip
                "testbed s": [
                    _pm(m, h) if n else "-"
                    for m, h, n in zip(
                        data["testbed_mean"], data["testbed_ci"], data["testbed_n"], strict=True
                    )  # fmt: skip
                ],
                "sim / testbed": [
                    "-" if not math.isfinite(r) else f"{r:.3f}" for r in data["ratio"]
                ],
                "paired seeds": [
                    "-" if not math.isfinite(r) else f"{r:.3f} ({n})"
                    for r, n in zip(data["paired_ratio"], data["paired_n"], strict=True)
                ],
            }
        )
        return TableOut("cells", "Response time per cell (mean ± 95 % CI over seeds)", data, disp,
                        note="; ".join(f"{k}: {v[0]}" for k, v in PATHS.items()))  # fmt: skip

    def _ablation_table(self, res: StudyResult) -> TableOut:
        import pandas as pd

        runs = res.runs
        rows = []
        for cc in ("reno", "cubic"):
            for p in sorted(runs[runs["group"] == "ablation"]["pdrop"].dropna().unique()):
                full = runs[(runs["case"] == _key("bandwidth", cc, p, "data"))
                            & (runs["group"] == "main")]["response_time_s"]  # fmt: skip
                tb = runs[(runs["case"] == _key("bandwidth", cc, p, "data"))
                          & (runs["group"] == "testbed")]["response_time_s"]  # fmt: skip
                base = mean_ci(full).mean
                for name, (src, _) in ABLATION.items():
                    d = runs[runs["case"] == f"ablation/{cc}/{pct(p)}/{name}"]["response_time_s"]
                    if not len(d):
                        continue
                    m = mean_ci(d).mean
                    rows.append({
                        "cc": cc, "pdrop": p, "mechanism off": name, "kernel source": src,
                        "profile s": base, "without s": m, "change": m / base - 1,
                        "testbed s": mean_ci(tb).mean if len(tb) else math.nan,
                    })  # fmt: skip
        data = pd.DataFrame(rows)
        disp = data.copy()
        if len(disp):
            disp["pdrop"] = [pct(p) for p in disp["pdrop"]]
            disp["change"] = [f"{c:+.1%}" for c in disp["change"]]
        return TableOut("ablation", "Each modelled kernel mechanism switched off (bandwidth-"
                        "limited path, loss on data)", data, disp)  # fmt: skip

    def _findings(self, res: StudyResult, cells: list[dict[str, Any]]) -> list[Finding]:
        out = []
        judged = [c for c in cells if c["cc"] in ("reno", "cubic") and c["pdrop"] <= 0.01
                  and c["testbed_n"] > 0]  # fmt: skip
        claim = "The linux profile's response time is within 5 % of the kernel's (reno and " \
                "cubic, loss up to 1 %)"  # fmt: skip
        if not judged:
            out.append(Finding(claim, None, "not measured: run with --testbed (Linux and root) "
                                            "to compare with this machine's kernel",
                               "hypothesis"))  # fmt: skip
        else:
            # Over the testbed's own seeds (the same loss draws on both sides): a kept report
            # may hold fewer kernel seeds than the simulator ran.
            bad = [c for c in judged if abs(c["paired_ratio"] - 1) > 0.05]
            detail = (f"simulator / kernel over the kernel's seeds within 5 % in "
                      f"{len(judged) - len(bad)} of {len(judged)} cells")  # fmt: skip
            if bad:
                detail += "; outside: " + ", ".join(
                    f"{_key(c['path'], c['cc'], c['pdrop'], c['direction'])} "
                    f"{c['paired_ratio']:.3f} ({c['paired_n']} seeds)"
                    for c in bad
                )
            out.append(Finding(claim, not bad, detail + ".", "hypothesis",
                               evidence=detail))  # fmt: skip
        k = res.extra.get("kernel")
        if k:
            u = k["uname"]
            out.append(Finding(f"Kernel: {u['system']} {u['release']} ({u['machine']})", None,
                               "sysctls: " + str(k.get("settings")), "note"))  # fmt: skip
        return out

    def figures(self, res: StudyResult) -> Iterable[FigureSpec]:
        cells = self._cells(res)
        if any(c["testbed_n"] for c in cells):
            yield FigureSpec("ratio", "Simulator / testbed response time per cell",
                             lambda: _fig_ratio(cells))  # fmt: skip


def _pm(mean: float, half: float) -> str:
    return mean_pm(mean, half, digits=3, sep=" ± ")


def _fig_ratio(cells: list[dict[str, Any]]) -> Figure:
    fig, ax = new_figure(figsize=(9, 4))
    shown = [c for c in cells if c["testbed_n"]]
    x = np.arange(len(shown))
    colours = [PALETTE[CCS.index(c["cc"]) % len(PALETTE)] for c in shown]
    ax.bar(x, [c["paired_ratio"] for c in shown], color=colours)
    ax.axhspan(0.95, 1.05, color="grey", alpha=0.2, linewidth=0)
    ax.set_xticks(x, [_key(c["path"], c["cc"], c["pdrop"], c["direction"]) for c in shown],
                  rotation=70, fontsize=6)  # fmt: skip
    ax.set_ylabel("simulator / testbed (the testbed's seeds)")
    return fig


STUDY = LinuxFidelity()
