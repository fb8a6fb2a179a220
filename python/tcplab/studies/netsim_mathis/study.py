"""The study: the seed's scenario with the first TCP the core accepts, the grid (two BERs x two
ACK policies), the metrics of a run, and the analysis into tables, checks, findings, figures."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._base import Case, FigureSpec, Study, StudyResult
from .._kit import conn_trace, study_scenario
from .claims import checks, findings
from .figures import fig_cwnd, fig_summary, fig_throughput
from .paper import (
    ACK_POLICIES,
    BERS,
    NETSIM,
    PAPER,
    STEADY_FROM_S,
    TCP_CHOICES,
    ber_overrides,
    case_key,
)
from .tables import main_table, run_stats, runs_table

if TYPE_CHECKING:
    from tcplab import Result, Scenario

__all__ = ["NetsimMathis"]


class NetsimMathis(Study):
    name = "netsim-mathis"
    title = "TCP throughput: window limit and the Mathis formula (NetSim experiment)"
    description = (
        "A CBR source (1460 B every 1168 us) sends over TCP NewReno with a 64 KB window and no "
        "window scaling through two routers: 10 Mbit/s links, 0.1 ms access and 50 ms backbone "
        "delay, 100 s, with backbone BER 0 and 1e-7 (both directions). NetSim's throughput "
        "(4.91 and 3.81 Mbps) is printed next to the window limit, Mathis (b = 1 and b = 2), "
        "PFTK and our simulation, with one ACK per segment and with delayed ACKs."
    )
    citation = (
        "TETCOS NetSim, Experiments > Internetworks > TCP > 'Mathematical model of TCP "
        "throughput performance' (after Kurose and Ross, Computer Networking, ch. 3; Mathis, "
        "Semke, Mahdavi, Ott, CCR 27(3), 1997)."
    )
    default_seeds = 10

    def __init__(self) -> None:
        self.tcp_choice: str | None = None

    # -- grid -------------------------------------------------------------------------------

    def scenario(self) -> Scenario:
        """The seed's setup with the first TCP choice the core accepts (`TCP_CHOICES`)."""
        from tcplab import errors

        base = study_scenario("netsim_mathis")
        for label, overrides in TCP_CHOICES:
            try:
                sc = base.with_overrides(overrides) if overrides else base
            except errors.ScenarioError:
                continue
            self.tcp_choice = label
            return sc
        raise AssertionError("unreachable: the last TCP choice changes nothing")

    def cases(self) -> list[Case]:
        out = []
        for ber in BERS:
            for policy, delayed in ACK_POLICIES:
                out.append(
                    Case(
                        key=case_key(ber, policy),
                        group="main",
                        variant=policy,
                        params={"ber": ber, "delayed_ack": delayed},
                        overrides={**ber_overrides(ber), "tcp.delayed_ack": delayed},
                        traces=True,
                        # BER 0: nothing random is left, every seed gives the same run
                        max_seeds=1 if ber == 0 else None,
                    )
                )
        return out

    def references(self) -> dict[str, Any]:
        return {
            "netsim": {
                f"{ber:g}": dict(
                    zip(("generated", "received", "throughput_Mbps", "delay_us"), v, strict=True)
                )
                for ber, v in NETSIM.items()
            },
            "text": PAPER,
        }

    def metrics(self, result: Result) -> dict[str, Any]:
        s = result.summary
        app = s["apps"][0]
        snd = s["connections"][0]["client"]
        bb = next(link for link in s["links"] if link["name"] == "backbone")
        m: dict[str, Any] = {
            "throughput_Bps": float(app.get("throughput_Bps") or math.nan),
            "bytes_received": app.get("bytes_received"),
            "offered_bytes": app.get("offered_bytes"),
            "max_backlog_bytes": app.get("max_backlog_bytes"),
            "retransmissions": int(snd.get("retransmissions", 0)),
            "fast_retransmits": int(snd.get("fast_retransmits", 0)),
            "rto_expirations": int(snd.get("rto_expirations", 0)),
            "data_segments_sent": int(snd.get("data_segments_sent", 0)),
            "srtt_s": float(snd.get("srtt_s") or math.nan),
            "max_cwnd": snd.get("max_cwnd"),
            "data_frames_sent": int(bb["ab"].get("frames_sent", 0)),
            "data_frames_dropped": int(
                bb["ab"].get("data_frames_dropped_error", bb["ab"].get("frames_dropped_error", 0))
            ),
            "ack_frames_dropped": int(bb["ba"].get("frames_dropped_error", 0)),
        }
        tr = result.traces.get("trace")
        if tr is not None and len(tr):
            t = tr["time_s"].to_numpy(dtype=float)
            rx = tr["bytes_received"].to_numpy(dtype=float)
            end = float(s.get("sim_time_s") or t.max())
            from tcplab.report.plots import step_at

            a, b = step_at(t, rx, [STEADY_FROM_S, end])
            m["steady_Bps"] = (b - a) / (end - STEADY_FROM_S) if end > STEADY_FROM_S else math.nan
        else:
            m["steady_Bps"] = math.nan
        return m

    # -- analysis ---------------------------------------------------------------------------

    def model_inputs(self, ber: float, delayed: bool) -> Any:
        """The analytic models' inputs derived from one case's scenario."""
        from tcplab.analytic import scenario_inputs

        sc = self.scenario().with_overrides({**ber_overrides(ber), "tcp.delayed_ack": delayed})
        return scenario_inputs(sc)[0]

    def analyse(self, res: StudyResult) -> None:
        from tcplab.analytic import evaluate_models

        stats = run_stats(res.runs)
        inputs = {
            (ber, policy): self.model_inputs(ber, delayed)
            for ber in BERS
            for policy, delayed in ACK_POLICIES
        }
        evals = {k: evaluate_models(x) for k, x in inputs.items()}
        res.extra["stats"] = {f"{b:g}/{p}": v for (b, p), v in stats.items()}
        res.extra["tcp"] = self.tcp_choice
        res.extra["model_inputs"] = {
            f"{b:g}/{p}": {
                k: v for k, v in x.to_dict().items() if k not in ("data_path", "ack_path", "notes")
            }
            for (b, p), x in inputs.items()
        }
        res.extra["models"] = {f"{b:g}/{p}": v for (b, p), v in evals.items()}
        res.tables.append(main_table(stats, inputs, evals, self.tcp_choice))
        res.tables.append(runs_table(stats))
        res.checks.extend(checks(stats, inputs))
        res.findings.extend(
            findings(stats, inputs, evals, self.tcp_choice, usable_window(res.traced))
        )

    # -- figures ----------------------------------------------------------------------------

    def figures(self, res: StudyResult) -> Iterable[FigureSpec]:
        traced = {k: r for k, r in res.traced.items() if "trace" in r.traces}
        seed = res.seeds[0]
        for ber, fig in ((0.0, "Figure 1-5"), (1e-7, "Figure 1-8")):
            runs = {
                policy: traced.get(case_key(ber, policy))
                for policy, _ in ACK_POLICIES
                if case_key(ber, policy) in traced
            }
            if not runs:
                continue
            name = "fig_cwnd_lossless" if ber == 0 else "fig_cwnd_lossy"
            yield FigureSpec(
                name,
                f"The sender's window over 100 s at backbone BER {ber:g} (seed {seed}): top, an "
                "ACK per segment (b = 1); bottom, delayed ACKs (b = 2). Solid: the usable window "
                "min(cwnd, rwnd), what NetSim's Wireshark window graph shows; faint: cwnd, which "
                "keeps growing while the receive window (dashed, 65,535 B) binds",
                lambda runs=runs, ber=ber: fig_cwnd(runs, ber),
                fig,
            )
        if traced:
            yield FigureSpec(
                "fig_throughput",
                f"Throughput received per second (seed {seed}) for both samples and ACK "
                "policies, with NetSim's averages (dotted) and the window limit and Mathis "
                "figures of the seed (dashed)",
                lambda: fig_throughput(traced),
                "Figures 1-4 and 1-7",
            )
        yield FigureSpec(
            "fig_summary",
            "Average throughput: NetSim, the seed's formulas, the models with our inputs and "
            "ours (mean and 95 % CI over seeds)",
            lambda: fig_summary(res),
            "Figures 1-3 and 1-6",
        )


def usable_window(traced: dict[str, Any]) -> list[float] | None:
    """The usable window min(cwnd, rwnd) of the sender over the traced loss-less run with an
    ACK per segment (None if it was not traced)."""
    r = traced.get(case_key(0.0, "ack-every"))
    if r is None or "trace" not in r.traces:
        return None
    tr = conn_trace(r)
    u = np.minimum(tr["cwnd"].to_numpy(dtype=float), float(PAPER["window_bytes"]))
    return [float(x) for x in u]
