"""The study: its grid (two setups x four sweeps x three variants), the metrics of a run, and the
analysis that turns the runs into tables, checks, findings and figures."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._base import Case, FigureSpec, Study, StudyOption, StudyResult, TableOut, parse_bool
from .._kit import study_scenario
from . import statements, timeseries
from .claims import checks, findings
from .figures import SWEEP_FIGURES, fig_sweep, fig_time
from .paper import (
    DELAY_READINGS,
    DELAY_SWEEP_PER,
    DELAYS_MS,
    ERRATA,
    HTTP_APP,
    HTTP_PERS,
    PACKET,
    PAPER,
    PERS,
    SETTINGS,
    SETUPS,
    SHORT_PERS,
    SHORT_STOP_S,
    SPEEDS_MBPS,
    STANDARD,
    STOP_S,
    UNCAPPED_WINDOW_PACKETS,
    VARIANTS,
    WESTWOOD_MODEL,
    WESTWOOD_MODELS,
    variant_pairs,
    westwood_setting,
)
from .tables import SWEEP_TABLES, sweep_table
from .tables import means as run_means

if TYPE_CHECKING:
    from tcplab import Result, Scenario

__all__ = ["WestwoodWireless"]


def _readings(names: Iterable[str]) -> tuple[str, ...]:
    out = tuple(n.strip() for n in names if n.strip())
    odd = [r for r in out if r not in DELAY_READINGS]
    if odd or not out:
        raise ValueError(
            f"delay_readings: invalid value {odd or list(out)}; allowed: one or more of "
            + ", ".join(DELAY_READINGS)
        )
    return out


def _choice(name: str, allowed: tuple[str, ...]):
    def parse(text: str) -> str:
        if text not in allowed:
            raise ValueError(f"{name}: invalid value {text!r}; allowed: {', '.join(allowed)}")
        return text

    return parse


def _per_error(per: float) -> dict[str, Any]:
    return {"model": "per", "p": per} if per > 0 else {"model": "none"}


class WestwoodWireless(Study):
    name = "westwood-wireless"
    title = "TCP Reno, SACK and Westwood over a lossy 2 Mbit/s wireless hop"
    description = (
        "A bulk transfer crosses a wired segment and a 2 Mbit/s wireless hop with packet errors "
        "(5 % PER and 5 ms two-way propagation as standard). TCP Reno, SACK and Westwood run "
        "over time at 5 % PER (Figure 3), over PER 0-20 % (Figure 4), over bottleneck speeds "
        "2-10 Mbit/s (Figure 5) and over propagation times 0-25 ms at 0.05 % PER (Figure 6; "
        "also in its other readings: 5 % PER, and the delay one way), with the paper's setup "
        "as printed and with the RTT its loss-free result implies; and the speed sweep again "
        "with the window opened (1000 packets), the one setting that can give a speed trend."
    )
    citation = (
        "A. O. Oluwatope, A. B. Obabire, G. A. Aderounmu, M. O. Adigun, 'End-to-End "
        "Performance Evaluation of Selected TCP Variants across a Hybrid Wireless Network', "
        "Issues in Informing Science and Information Technology (seed 003)."
    )
    default_seeds = 10
    options = (
        StudyOption(
            "westwood_model",
            WESTWOOD_MODEL,
            "the Westwood run: ns2 (the ns-2 add-on module the paper's authors ran, "
            "cc_params.model = ns2) or paper (the seed's equations 1-5)",
            _choice("westwood_model", tuple(WESTWOOD_MODELS)),
        ),
        StudyOption(
            "westwood_recovery",
            "reno",
            "Westwood's fast recovery: reno (the original TCPW, built on Reno) or newreno "
            "(WestwoodNR: NewReno's partial-ACK recovery, loss_recovery = newreno)",
            _choice("westwood_recovery", ("reno", "newreno")),
        ),
        StudyOption(
            "uncapped",
            True,
            "also rerun the speed sweep and 0 % PER with a window of "
            f"{UNCAPPED_WINDOW_PACKETS} packets",
            parse_bool,
        ),
        StudyOption(
            "delay_readings",
            ",".join(DELAY_READINGS),
            "the readings of Figure 6 to run, comma-separated: " + ", ".join(DELAY_READINGS),
            lambda text: ",".join(_readings(text.split(","))),
        ),
    )

    def __init__(
        self,
        *,
        setups: Sequence[str] = tuple(SETUPS),
        pers: Sequence[float] = PERS,
        speeds_mbps: Sequence[float] = SPEEDS_MBPS,
        delays_ms: Sequence[float] = DELAYS_MS,
        delay_readings: Sequence[str] = tuple(DELAY_READINGS),
        stop_s: float = STOP_S,
        variants: Sequence[str] = VARIANTS,
        timeseries: bool = True,
        uncapped: bool = True,
        alternatives: bool = True,
        westwood_recovery: str = "reno",
        westwood_model: str = WESTWOOD_MODEL,
    ) -> None:
        unknown = [s for s in setups if s not in SETUPS]
        if unknown:
            raise ValueError(f"unknown setup(s) {unknown}; known: {', '.join(SETUPS)}")
        self.delay_readings = _readings(delay_readings)
        if westwood_recovery not in ("reno", "newreno"):
            raise ValueError(
                f"westwood_recovery: invalid value {westwood_recovery!r}; allowed: reno, newreno"
            )
        self.westwood_recovery = westwood_recovery
        if westwood_model not in WESTWOOD_MODELS:
            raise ValueError(
                f"westwood_model: invalid value {westwood_model!r}; allowed: "
                + ", ".join(WESTWOOD_MODELS)
            )
        self.westwood_model = westwood_model
        self.setups = tuple(setups)
        self.pers = tuple(float(p) for p in pers)
        self.speeds_mbps = tuple(float(s) for s in speeds_mbps)
        self.delays_ms = tuple(float(d) for d in delays_ms)
        self.stop_s = float(stop_s)
        self.variants = tuple(variants)
        self.timeseries = timeseries
        self.uncapped = uncapped
        self.alternatives = alternatives

    def configure(self, options: Mapping[str, Any]) -> WestwoodWireless:
        """A copy with the grid the options ask for (`self` when it is the same)."""
        want = {
            "westwood_model": options.get("westwood_model", self.westwood_model),
            "westwood_recovery": options.get("westwood_recovery", self.westwood_recovery),
            "uncapped": bool(options.get("uncapped", self.uncapped)),
            "delay_readings": _readings(
                str(options.get("delay_readings", ",".join(self.delay_readings))).split(",")
            ),
        }
        have = {
            "westwood_model": self.westwood_model,
            "westwood_recovery": self.westwood_recovery,
            "uncapped": self.uncapped,
            "delay_readings": self.delay_readings,
        }
        if want == have:
            return self
        return WestwoodWireless(
            setups=self.setups,
            pers=self.pers,
            speeds_mbps=self.speeds_mbps,
            delays_ms=self.delays_ms,
            stop_s=self.stop_s,
            variants=self.variants,
            timeseries=self.timeseries,
            alternatives=self.alternatives,
            **want,
        )

    # -- grid -------------------------------------------------------------------------------

    def scenario(self) -> Scenario:
        """`scenarios/westwood_wireless.toml`, run for `stop_s`."""
        return study_scenario("westwood_wireless").with_overrides(
            {"stop_time": f"{self.stop_s:g}s"}
        )

    def _case(
        self,
        setup: str,
        sweep: str,
        variant: str,
        per: float,
        rate: float,
        prop: float,
        x: float,
        *,
        window_packets: int | None = None,
        traces: bool = False,
        extra: dict[str, Any] | None = None,
    ) -> Case:
        cc, lr = variant_pairs()[variant]
        return Case(
            key=f"{setup}/{sweep}/{variant}/{x:g}",
            group=sweep,
            variant=variant,
            params={
                "setup": setup,
                "x": x,
                "per": per,
                "rate_mbps": rate,
                "prop_ms": prop,
                "wired_delay_ms": SETUPS[setup],
                "cc": cc,
                "lr": lr,
                "westwood_recovery": self.westwood_recovery,
                "westwood_model": self.westwood_model,
            },
            overrides={
                "tcp.congestion_control": cc,
                "tcp.loss_recovery": lr,
                "links.wireless.ab.error": _per_error(per),
                "links.wireless.rate": f"{rate:g}Mbps",
                "links.wireless.delay": f"{prop / 2:g}ms",
                "links.wired.delay": f"{SETUPS[setup]:g}ms",
                **({"tcp.rcv_buf": window_packets * PACKET} if window_packets is not None else {}),
                **(self._westwood() if cc == "westwood" else {}),
                **(extra or {}),
            },
            traces=traces or sweep == "time",
            # Figure 3's statements are judged over every seed's trace (`timeseries`)
            trace_all=sweep == "time",
        )

    def _westwood(self) -> dict[str, Any]:
        """Westwood's overrides: the model, and for WestwoodNR NewReno's partial-ACK recovery
        (the loss-recovery plug-in owns the phase) with the congestion control's NewReno-style
        window during it."""
        params: dict[str, Any] = {"model": self.westwood_model}
        if self.westwood_recovery != "newreno":
            return {"tcp.cc_params": params}
        return {"tcp.loss_recovery": "newreno", "tcp.cc_params": {**params, "recovery": "newreno"}}

    def cases(self) -> list[Case]:
        out: list[Case] = []
        per0, rate0, prop0 = STANDARD["per"], STANDARD["rate_mbps"], STANDARD["prop_ms"]
        for setup in self.setups:
            for v in self.variants:
                if self.timeseries:
                    out.append(self._case(setup, "time", v, per0, rate0, prop0, per0))
                for p in self.pers:
                    out.append(self._case(setup, "per", v, p, rate0, prop0, p))
                for r in self.speeds_mbps:
                    out.append(self._case(setup, "speed", v, per0, r, prop0, r))
                if self.uncapped:
                    # The window the paper never states, opened: the speed sweep and 0 % PER.
                    big = UNCAPPED_WINDOW_PACKETS
                    top = max(self.speeds_mbps, default=rate0)
                    for r in self.speeds_mbps:
                        out.append(self._case(setup, "speed-uncapped", v, per0, r, prop0, r,
                                              window_packets=big, traces=r == top))  # fmt: skip
                    out.append(self._case(setup, "per-uncapped", v, 0.0, rate0, prop0, 0.0,
                                          window_packets=big))  # fmt: skip
                for sweep in self.delay_readings:
                    per, round_trip = DELAY_READINGS[sweep]
                    for d in self.delays_ms:
                        prop = d if round_trip else 2 * d  # the two-way time of the path
                        out.append(self._case(setup, sweep, v, per, rate0, prop, d))
                if self.alternatives:
                    # the paper's HTTP, and the shortest run its Figure 3 allows
                    http = {"apps": [HTTP_APP]}
                    for p in HTTP_PERS:
                        out.append(self._case(setup, "http", v, p, rate0, prop0, p, extra=http))
                    short = {"stop_time": f"{SHORT_STOP_S:g}s"}
                    for p in SHORT_PERS:
                        out.append(self._case(setup, "per-20s", v, p, rate0, prop0, p,
                                              extra=short))  # fmt: skip
        return out

    def westwood_line(self) -> str:
        """The report's line on the Westwood this study runs."""
        return westwood_setting(self.westwood_model, self.westwood_recovery)

    def references(self) -> dict[str, Any]:
        return {
            "text": PAPER,
            "errata": list(ERRATA),
            "grid": {
                "pers": list(PERS),
                "speeds_mbps": list(SPEEDS_MBPS),
                "delays_ms": list(DELAYS_MS),
                "delay_sweep_per": DELAY_SWEEP_PER,
                "delay_readings": {
                    k: {"per": p, "round_trip": rt} for k, (p, rt) in DELAY_READINGS.items()
                },  # fmt: skip
                "variants": list(VARIANTS),
            },
            "ours": {
                "setups_wired_delay_ms": SETUPS,
                "stop_s": self.stop_s,
                "settings": [*SETTINGS, self.westwood_line()],
                "pairs": {k: list(v) for k, v in variant_pairs().items()},
            },
        }

    def metrics(self, result: Result) -> dict[str, Any]:
        s = result.summary
        app = s["apps"][0]
        # the data sender: the bulk app's client, the web server of an http app
        snd = s["connections"][0]["server" if app.get("kind") == "http" else "client"]
        wl = next(x for x in s["links"] if x["name"] == "wireless")
        elapsed = float(s.get("sim_time_s") or self.stop_s) - float(app.get("start_s") or 0.0)
        got = float(app.get("bytes_received") or 0)
        sent = int(snd.get("data_segments_sent", 0))
        retx = int(snd.get("retransmissions", 0))
        drops = int(wl["ab"].get("frames_dropped_error", 0))
        return {
            "throughput_mbps": got * 8 / elapsed / 1e6 if elapsed > 0 else math.nan,
            "retransmissions": retx,
            "retx_share": retx / sent if sent else math.nan,
            # Retransmissions per data packet the channel lost: 1 when each loss is resent
            # once; above 1, resent packets that had arrived (go-back-N after a timeout).
            "retx_per_loss": retx / drops if drops else math.nan,
            "rto_expirations": int(snd.get("rto_expirations", 0)),
            "fast_retransmits": int(snd.get("fast_retransmits", 0)),
            "srtt_s": float(snd.get("srtt_s") or math.nan),
            "drops_error": drops,
            "drops_queue": int(wl["ab"].get("frames_dropped_queue", 0)),
            **timeseries.run_metrics(result),
        }

    # -- analysis ---------------------------------------------------------------------------

    def means(self, res: StudyResult) -> pd.DataFrame:
        """Mean (and 95 % CI half-width) over seeds per (setup, sweep, variant, x)."""
        return run_means(res.runs)

    def analyse(self, res: StudyResult) -> None:
        m = self.means(res)
        res.extra["means"] = m.to_dict("records")
        res.extra["setups"] = {s: SETUPS[s] for s in self.setups}
        res.extra["pairs"] = {k: list(v) for k, v in variant_pairs().items()}
        for sweep, title, xname in SWEEP_TABLES:
            t = sweep_table(m, sweep, title, xname, self.setups, self.variants)
            if t is not None:
                res.tables.append(t)
        res.checks.extend(checks(m, self.setups))
        res.findings.extend(findings(m, self.setups, self.westwood_line()))
        # Figure 3's time series (every seed) and the conclusion.
        for setup in self.setups:
            ts = timeseries.seeds_of(res.runs, setup)
            res.findings.extend(timeseries.figure3(ts, setup))
            res.findings.extend(timeseries.timeouts(ts, setup, self.westwood_model))
            res.findings.extend(statements.conclusion(m, setup))
            top = next(
                (
                    res.traced[c.key]
                    for c in self.cases()
                    if c.group == "speed-uncapped"
                    and c.params["setup"] == setup
                    and c.variant == "westwood"
                    and c.key in res.traced
                ),
                None,
            )
            res.findings.extend(statements.uncapped(m, setup, top))
        if self.alternatives:
            res.findings.extend(statements.http(m, self.setups))
            res.findings.extend(statements.duration(m, self.setups))
        res.findings.append(statements.index(self.setups))

    def summary_table(self, res: StudyResult) -> TableOut | None:
        return res.table("per") if any(t.name == "per" for t in res.tables) else None

    # -- figures ----------------------------------------------------------------------------

    def figures(self, res: StudyResult) -> Iterable[FigureSpec]:
        m = pd.DataFrame(res.extra.get("means", []))
        traced = {
            (c.params["setup"], c.variant): res.traced[c.key]
            for c in self.cases()
            if c.group == "time" and c.key in res.traced
        }
        if traced:
            yield FigureSpec(
                "fig03_throughput_time",
                f"Throughput over time at 5 % PER, 2 Mbit/s (seed {res.seeds[0]}): average since "
                "the start (thick) and per 1 s (thin); the paper's averages dotted",
                lambda: fig_time(traced, self.setups, self.variants),
                "Figure 3",
            )
        if m.empty:
            return
        for sweep, name, caption, fig, xlabel in SWEEP_FIGURES:
            if (m["sweep"] == sweep).any():
                yield FigureSpec(
                    name,
                    caption + f" (mean and 95 % CI over {len(res.seeds)} seeds); the paper's "
                    "numbers as markers",
                    lambda sweep=sweep, xlabel=xlabel: fig_sweep(
                        m, sweep, xlabel, self.setups, self.variants
                    ),
                    fig,
                )
