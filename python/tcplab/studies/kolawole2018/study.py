from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .._base import Case, FigureSpec, Study, StudyResult
from .claims import findings
from .figures import fig_apps, fig_queue_delay, fig_sensitivity, fig_throughput, fig_zoom
from .paper import (
    ALGORITHMS,
    CHOICES,
    MEASURED_LINK,
    PAPER,
    SENSITIVITY,
    TABLE1,
    TABLE_TIMES,
    ZOOM_FROM_S,
    ZOOM_WINDOWS,
    build,
    case_key,
)
from .tables import choices_table, delay_table, sensitivity_table, stats, table1

if TYPE_CHECKING:
    from tcplab import Result, Scenario

__all__ = ["Kolawole2018", "link_metrics"]

#: The per-interval statistics of the zoomed runs (Figs. 4-5).
ZOOM_INTERVAL = "10ms"


def link_metrics(ls: Any, link: str, times: Iterable[int] = TABLE_TIMES) -> dict[str, Any]:
    """From a run's `link_series` table, per direction of `link` and both together: OPNET's
    time-average throughput (packets sent since 0 over t) at each of `times`, the packets
    offered to and delivered over the link by then, and the mean queuing delay per packet over
    the first 20 minutes (Fig. 8's window)."""
    out: dict[str, Any] = {}
    starts = np.unique(ls["time_s"].to_numpy(dtype=float))
    step = float(np.min(np.diff(starts))) if len(starts) > 1 else 1.0
    t_end = starts.max() + step if len(starts) else 0.0
    both_sent = np.zeros(len(tuple(times)))
    both_off = np.zeros(len(tuple(times)))
    both_rx = np.zeros(len(tuple(times)))
    for d in ("ab", "ba"):
        s = ls[ls["link"] == f"{link}:{d}"]
        edge = s["time_s"].to_numpy(dtype=float) + step
        sent = s["frames_sent"].to_numpy(dtype=float)
        off = s["frames_offered"].to_numpy(dtype=float)
        rx = sent - s["frames_dropped_error"].to_numpy(dtype=float)
        for i, t in enumerate(times):
            m = edge <= t + 1e-9
            n_sent, n_off, n_rx = sent[m].sum(), off[m].sum(), rx[m].sum()
            late = t > t_end + 1e-9  # past the run's end: unknown, not a partial total
            out[f"tput_{d}_{t}"] = math.nan if late else n_sent / t
            out[f"offered_{d}_{t}"] = math.nan if late else n_off
            out[f"received_{d}_{t}"] = math.nan if late else n_rx
            both_sent[i] += n_sent
            both_off[i] += n_off
            both_rx[i] += n_rx
        w = s["time_s"].to_numpy(dtype=float) < 1200
        qd = s["mean_queue_delay_s"].to_numpy(dtype=float)
        n = sent[w].sum()
        out[f"qd20_{d}_s"] = float((qd[w] * sent[w]).sum() / n) if n else math.nan
    for i, t in enumerate(times):
        late = t > t_end + 1e-9
        out[f"tput_both_{t}"] = math.nan if late else both_sent[i] / t
        out[f"offered_both_{t}"] = math.nan if late else both_off[i]
        out[f"received_both_{t}"] = math.nan if late else both_rx[i]
    return out


class Kolawole2018(Study):
    name = "kolawole2018"
    title = "AIMD vs congestion-controlled AIMD on a campus network (OPNET study, seed 004)"
    description = (
        "Ten users on a 100 Mbit/s switched campus browse the web, query a database and fetch "
        "files through two routers and a firewall for 30 minutes, once with AIMD (reno) and "
        "once with the seed's congestion-controlled AIMD (aimd-delay, which scales its additive "
        "increase down as queuing delay grows). The seed reports 31 % more throughput and "
        "queuing delay cut from 0.11 ms to 0.02 ms per packet; we print its Table 1 beside "
        "ours, check each claim, and sweep what it leaves open (bottleneck rate, users, a bulk "
        "download)."
    )
    citation = (
        "S. F. Kolawole and C. C. Chukwu, 'Design and Modeling of Improved Transmission Control "
        "Protocol (TCP) Throughput', International Journal of Scientific & Engineering Research "
        "9(3), March 2018."
    )
    default_seeds = 5

    # -- grid -------------------------------------------------------------------------------

    def scenario(self) -> Scenario:
        """The seed's campus with AIMD."""
        return build(algorithm="aimd")

    def cases(self) -> list[Case]:
        out = []
        for variant, (users, rate, bulk, aqm, _) in SENSITIVITY.items():
            for alg, _cc in ALGORITHMS:
                out.append(
                    Case(
                        key=case_key(variant, alg),
                        group="main" if variant == "paper" else "sensitivity",
                        variant=variant,
                        params={
                            "algorithm": alg,
                            "users": users,
                            "core_rate": rate,
                            "bulk": bulk or "",
                            "aqm": aqm or "none",
                        },
                        traces=variant == "paper",
                    )
                )
        for alg, _cc in ALGORITHMS:
            out.append(
                Case(
                    key=case_key("zoom", alg),
                    group="zoom",
                    variant="zoom",
                    params={
                        "algorithm": alg,
                        "users": CHOICES["users"],
                        "core_rate": CHOICES["link_rate"],
                        "bulk": "",
                        "aqm": "none",
                    },
                    traces=True,
                    max_seeds=1,
                )
            )
        return out

    def case_scenario(self, base: Scenario, case: Case) -> Scenario:
        p = case.params
        extra: dict[str, Any] = {}
        if case.group == "zoom":
            extra = {
                "stop_time": f"{ZOOM_FROM_S + 10 + max(ZOOM_WINDOWS):g}s",
                "link_series": ZOOM_INTERVAL,
            }
        return build(
            algorithm=p["algorithm"],
            users=p["users"],
            core_rate=p["core_rate"],
            bulk=p["bulk"] or None,
            aqm=None if p["aqm"] == "none" else p["aqm"],
            **extra,
        )

    def references(self) -> dict[str, Any]:
        cols = ("aimd_pps", "improved_pps", "sent", "received_improved", "received_improved_pct",
                "received_aimd", "received_aimd_pct", "difference", "difference_pct")  # fmt: skip
        return {
            "table1": {str(t): dict(zip(cols, v, strict=True)) for t, v in TABLE1.items()},
            "text": PAPER,
            "choices": CHOICES,
        }

    def metrics(self, result: Result) -> dict[str, Any]:
        s = result.summary
        m: dict[str, Any] = {}
        ls = result.traces.get("link_series")
        if ls is not None and len(ls):
            m.update(link_metrics(ls, MEASURED_LINK))
        hist = result.traces.get("queue_delay_hist")
        if hist is not None:
            h = hist[hist["link"] == f"{MEASURED_LINK}:ab"]
            total = h["frames"].sum()
            waited = h.loc[h["delay_hi_s"] > 0, "frames"].sum()
            m["waited_ab"] = float(waited / total) if total else math.nan
        link = next(lk for lk in s["links"] if lk["name"] == MEASURED_LINK)
        for d in ("ab", "ba"):
            m[f"qd_{d}_s"] = float(link[d].get("mean_queue_delay_s") or 0.0)
            m[f"qd_max_{d}_s"] = float(link[d].get("max_queue_delay_s") or 0.0)
            m[f"frames_{d}"] = int(link[d].get("frames_sent", 0))
        m["drops_aqm"] = sum(
            int(lk[d].get("frames_dropped_early", 0)) for lk in s["links"] for d in ("ab", "ba")
        )
        m["drops_queue"] = sum(
            int(lk[d].get("frames_dropped_queue", 0)) for lk in s["links"] for d in ("ab", "ba")
        )
        for lk in s["links"]:
            if lk["name"] in ("http", "db"):
                m[f"{lk['name']}_server_sent"] = int(lk["ab"].get("frames_sent", 0))
                m[f"{lk['name']}_server_received"] = int(lk["ba"].get("frames_sent", 0))
        pages = [a for a in s["apps"] if a["kind"] == "http"]
        queries = [a for a in s["apps"] if a["kind"] == "database"]
        files = [a for a in s["apps"] if a["name"].startswith("user:ftp:")]  # gets and puts
        for name, count, apps in (("page", "pages", pages), ("query", "queries", queries)):
            done = [a["transactions"] for a in apps if a.get("transactions")]
            n = sum(t["completed"] for t in done)
            m[count] = n
            m[f"{name}_rt_s"] = (
                sum(t["mean_response_time_s"] * t["completed"] for t in done if t["completed"]) / n
                if n
                else math.nan
            )
        m["app_bytes"] = sum(int(a.get("bytes_received") or 0) for a in s["apps"])
        fin = [a for a in files if a.get("completed")]
        m["files"] = len(fin)
        m["file_rt_s"] = float(np.mean([a["response_time_s"] for a in fin])) if fin else math.nan
        return m

    def row_summary(self, summary: Mapping[str, Any]) -> Mapping[str, Any]:
        """The links and the run's totals; not the hundreds of applications and connections
        a campus runs (their figures are in `metrics`)."""
        return {k: v for k, v in summary.items() if k not in ("apps", "connections")}

    # -- analysis ---------------------------------------------------------------------------

    def analyse(self, res: StudyResult) -> None:
        st = stats(res.runs)
        res.extra["stats"] = {f"{v}/{a}": x for (v, a), x in st.items()}
        res.tables.append(table1(st))
        res.tables.append(delay_table(st))
        res.tables.append(sensitivity_table(st))
        res.tables.append(choices_table())
        res.findings.extend(findings(st, res))

    # -- figures ----------------------------------------------------------------------------

    def figures(self, res: StudyResult) -> Iterable[FigureSpec]:
        seed = res.seeds[0]
        main = {a: res.traced.get(case_key("paper", a)) for a, _ in ALGORITHMS}
        main = {a: r for a, r in main.items() if r is not None}
        zoom = {a: res.traced.get(case_key("zoom", a)) for a, _ in ALGORITHMS}
        zoom = {a: r for a, r in zoom.items() if r is not None}
        if zoom:
            yield FigureSpec(
                "fig_zoom",
                f"Queuing delay on {MEASURED_LINK} (towards the users) per {ZOOM_INTERVAL}, over "
                "the first 2, 5, 9 and 73 s after the users start (seed "
                f"{seed}): the queue exists only while two transfers overlap",
                lambda: fig_zoom(zoom),
                "Figures 4 and 5",
            )
        if main:
            yield FigureSpec(
                "fig_database",
                f"Database traffic at the server's link, packets/s per second (seed {seed})",
                lambda: fig_apps(main, "db", "Database"),
                "Figure 6",
            )
            yield FigureSpec(
                "fig_http",
                f"HTTP traffic sent and received by the server, packets/s (seed {seed}); the "
                "two algorithms' curves lie on each other",
                lambda: fig_apps(main, "http", "HTTP"),
                "Figure 7",
            )
            yield FigureSpec(
                "fig_queue_delay",
                f"Point-to-point queuing delay on {MEASURED_LINK}: mean per packet in each "
                f"second and its time average (seed {seed}), with the seed's 0.11 ms and "
                "0.02 ms",
                lambda: fig_queue_delay(main),
                "Figure 8",
            )
        yield FigureSpec(
            "fig_throughput",
            f"Time-average throughput on {MEASURED_LINK} (packets/s sent since the start over "
            "the time, both directions, mean over seeds) with the seed's Table 1",
            lambda: fig_throughput(res.runs),
            "Figure 9 and Table 1",
        )
        yield FigureSpec(
            "fig_sensitivity",
            "What the seed leaves open: throughput (top) and queuing delay (bottom) of the two "
            "algorithms per variant of the campus (mean over seeds)",
            lambda: fig_sensitivity(st_of(res)),
            "",
        )


def st_of(res: StudyResult) -> Any:
    return stats(res.runs)
