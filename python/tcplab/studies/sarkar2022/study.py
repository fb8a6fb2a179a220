"""The study: its grid (the paper's five scenarios, the sensitivity variants and the drop rates
above 10 %), the per-run metrics, and the analysis that assembles the tables, checks, findings
and figures of the other modules."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._base import Case, FigureSpec, Study, StudyOption, StudyResult, TableOut, parse_bool
from .._kit import count, pct, study_scenario
from .checks import checks
from .figures import figure_specs
from .findings import findings
from .paper import (
    DIRECTION,
    DIRECTIONS,
    DROPRATE_PDROPS,
    ERRATA,
    FILE_SIZE,
    PDROPS,
    QUOTES,
    RIVERBED_OFFSET_S,
    TABLE1,
    TABLE3,
    TABLE4,
    TABLE5,
    TABLE6,
    TABLE7,
    TABLE8,
    TABLE9,
    TEXT,
    VARIANTS,
    Variant,
    error_override,
)
from .tables import droprate_table, main_table, sensitivity_table, stats, table1, table9
from .testbed import (
    check_testbed_options,
    run_testbed,
    testbed_findings,
    testbed_plans,
    testbed_table,
)
from .traced import ca_growth_sim, loss_window, main_key, regrowth, regrowth_curves

if TYPE_CHECKING:
    from tcplab import Result, Scenario


class Sarkar2022(Study):
    name = "sarkar2022"
    title = "TCP Reno over a high-BER link (Sarkar, Ammann, Zabir 2022)"
    description = (
        "A 10 MB FTP download over 10 Mbit/s Ethernet with 20 ms latency each way and Riverbed "
        "Modeler's default TCP (Table 2: rwnd 8760 B, IW 2, delayed ACK, RTO min 1 s, 0.5 s "
        "clock), for packet drop probabilities 0, 0.01, 0.1, 1 and 10 % on every packet that "
        "crosses the IP cloud, data and ACKs (Table 3; the other reading, data packets only, "
        "runs beside it). Our simulator's numbers are printed next to the paper's Riverbed "
        "(Tables 4-7) and Linux testbed (Table 8) results; a sensitivity analysis runs the same "
        "grid with other TCP settings, and the testbed's Linux on our simulator, to find what "
        "separates the two environments at 10 %."
    )
    citation = (
        "N. I. Sarkar, R. Ammann, S. M. S. Zabir, 'Analyzing TCP Performance in High Bit Error "
        "Rate Using Simulation and Modeling', Electronics 11(14):2254, 2022, "
        "doi:10.3390/electronics11142254."
    )
    default_seeds = 10
    # `metrics` counts dropped frames from every run's (small) event log.
    keep_events = True
    options = (
        StudyOption(
            "testbed",
            False,
            "also download over the Linux testbed (root): the five pdrop values with Linux reno "
            "and an 8760-byte window, as shipped and with SACK, RACK-TLP and F-RTO off",
            parse_bool,
        ),
        StudyOption("testbed_seeds", 1, "seeds per pdrop and mode on the testbed", int),
        StudyOption(
            "testbed_budget_s",
            300.0,
            "wall-time budget of one testbed run in seconds; a run that exceeds it is stopped "
            "and reported as capped",
            float,
        ),
    )

    def __init__(
        self,
        *,
        variants: Sequence[Variant] = VARIANTS,
        droprate: bool = True,
        direction: str = DIRECTION,
    ):
        if direction not in DIRECTIONS:
            raise ValueError(f"direction {direction!r}: allowed {', '.join(DIRECTIONS)}")
        self.variants = tuple(variants)
        self.droprate = droprate
        self.direction = direction

    # -- grid -------------------------------------------------------------------------------

    def scenario(self) -> Scenario:
        return study_scenario("sarkar2022")

    def cases(self) -> list[Case]:
        out = [
            Case(
                key=main_key(p),
                group="main",
                variant="riverbed",
                params={"pdrop": p},
                overrides=error_override(p, self.direction),
                traces=True,
                packets=p == 0.01,
            )
            for p in PDROPS
        ]
        other = next(d for d in DIRECTIONS if d != self.direction)
        for p in PDROPS:
            out.append(
                Case(
                    key=f"direction/{other}/{pct(p)}",
                    group="direction",
                    variant=other,
                    params={"pdrop": p},
                    overrides=error_override(p, other),
                )
            )
        for v in self.variants:
            if v.key == "riverbed":
                continue  # the main grid
            for p in PDROPS:
                out.append(
                    Case(
                        key=f"sensitivity/{v.key}/{pct(p)}",
                        group="sensitivity",
                        variant=v.key,
                        params={"pdrop": p},
                        overrides={**v.overrides, **error_override(p, self.direction)},
                        # the window's regrowth after a loss, against section 5.2's capture
                        traces=v.key == "linux" and p == 0.01,
                    )
                )
        if self.droprate:
            for p in DROPRATE_PDROPS:
                out.append(
                    Case(
                        key=f"droprate/riverbed/{pct(p)}",
                        group="droprate",
                        variant="riverbed",
                        params={"pdrop": p},
                        overrides=error_override(p, self.direction),
                    )
                )
        return out

    def references(self) -> dict[str, Any]:
        def keyed(table: dict[float, Any]) -> dict[str, Any]:
            return {pct(p): v for p, v in table.items()}

        return {
            "table1": [list(r) for r in TABLE1],
            "table3": keyed({p: list(v) for p, v in TABLE3.items()}),
            "table4": keyed({p: list(v) for p, v in TABLE4.items()}),
            "table5": keyed(TABLE5),
            "table6": keyed(TABLE6),
            "table7": keyed({p: list(v) for p, v in TABLE7.items()}),
            "table8": keyed({p: list(v) for p, v in TABLE8.items()}),
            "table9": [list(r) for r in TABLE9],
            "text": TEXT,
            "riverbed_offset_s": RIVERBED_OFFSET_S,
            "direction": {"ours": self.direction, "readings": DIRECTIONS},
            "quotes": QUOTES,
            "errata": list(ERRATA),
        }

    def metrics(self, result: Result) -> dict[str, Any]:
        s = result.summary
        app = s["apps"][0]
        srv = s["connections"][0]["server"]
        wan = next(link for link in s["links"] if link["name"] == "wan")
        rt = app.get("response_time_s")
        # A testbed result (summary["source"] == "testbed") has the same layout; the counters
        # Linux does not keep are None there and become NaN.
        m: dict[str, Any] = {
            "completed": bool(app.get("completed")),
            "response_time_s": math.nan if rt is None else float(rt),
            "throughput_Bps": float(app.get("throughput_Bps") or math.nan),
            "retransmissions": count(srv["retransmissions"]),
            "syn_retransmissions": count(srv.get("syn_retransmissions", 0)),
            "fast_retransmits": count(srv["fast_retransmits"]),
            "rto_expirations": count(srv["rto_expirations"]),
            "data_segments_sent": count(srv["data_segments_sent"]),
            "segments_sent": count(srv["segments_sent"]),
            "dupacks_received": count(srv.get("dupacks_received", 0)),
            "srtt_s": float(srv.get("srtt_s") or math.nan),
            "frames_sent": count(wan["ab"]["frames_sent"]),
            "frames_dropped": count(wan["ab"]["frames_dropped_error"]),
            "ack_frames_dropped": count(wan["ba"]["frames_dropped_error"]),
        }
        # Dropped frames the server must send again: SYN-ACK (seq 0), data and FIN (seq up to
        # size + 1). A dropped pure ACK after the FIN exchange is never resent.
        ev = result.traces.get("events")
        if ev is not None:
            size = int(app.get("bytes") or FILE_SIZE)
            d = ev[(ev["kind"] == "drop_error") & (ev["end"] == 1)]
            m["frames_dropped_to_resend"] = int((d["seq"] <= size + 1).sum())
        else:
            m["frames_dropped_to_resend"] = math.nan
        return m

    # -- the testbed part (option `testbed`, see `testbed.py`) -----------------------------

    def check_options(self, options: dict[str, Any]) -> None:
        check_testbed_options(options)

    def testbed_plans(self, seed: int = 1) -> dict[tuple[str, float], Any]:
        """The testbed plan (`tcplab.testbed.plan.plan`) of every (mode, pdrop)."""
        return testbed_plans(self.scenario(), seed, self.direction)

    def extend(self, res: StudyResult, *, progress: bool = False) -> None:
        """With option `testbed`: run every pdrop in both TESTBED_MODES on the testbed, once per
        testbed seed, and add the runs to `res.runs` as group "testbed" (variant = the mode).
        A run that exceeds `testbed_budget_s` is stopped and kept as a capped row."""
        if not res.options.get("testbed"):
            return
        run_testbed(
            res, self.scenario(), self._row, name=self.name, progress=progress,
            direction=self.direction,
        )  # fmt: skip

    # -- analysis ---------------------------------------------------------------------------

    def analyse(self, res: StudyResult) -> None:
        st = stats(res.runs, self.direction)
        res.extra["stats"] = {
            f"{g}/{v}/{pct(p)}": row for (g, v, p), row in sorted(st.items(), key=str)
        }
        res.tables.append(main_table(st, len(res.seeds), self.direction))
        tb_table = testbed_table(res, st)
        if tb_table is not None:
            res.tables.append(tb_table)
        res.tables.append(table1())
        sens = sensitivity_table(st, self.variants)
        if sens is not None:
            res.tables.append(sens)
        drop = droprate_table(st) if self.droprate else None
        if drop is not None:
            res.tables.append(drop)
        window = loss_window(res.traced)
        if window is not None:
            res.extra["fig10"] = window.to_dict()
        sim, t0, rtt = ca_growth_sim(res.traced, len(TABLE9) - 1)
        res.extra["table9_sim"] = {"cwnd": sim, "t0_s": t0, "rtt_s": rtt}
        res.tables.append(table9(sim, t0, rtt, res.seeds[0]))
        res.checks.extend(checks(self.scenario(), st, sim))
        growth = regrowth(res.traced)
        res.extra["regrowth_rtts"] = growth
        res.extra["regrowth_curves"] = regrowth_curves(res.traced)
        res.findings.extend(
            findings(res.group("main"), st, window, self.variants, growth, self.direction)
        )
        res.findings.extend(testbed_findings(res, st))

    # -- figures ----------------------------------------------------------------------------

    def figures(self, res: StudyResult) -> Iterable[FigureSpec]:
        return figure_specs(res, self.variants)

    def summary_table(self, res: StudyResult) -> TableOut | None:
        return res.table("main")
