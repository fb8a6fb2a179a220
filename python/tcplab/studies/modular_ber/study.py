"""The study `modular-ber`: its grid (RTT x BER x pair), what it reads from each run, and the
order of the analysis; the numbers, tables, claims and figures live beside it."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from .._base import Case, FigureSpec, Study, StudyOption, StudyResult, TableOut, parse_bool
from .._kit import study_scenario
from . import analysis, sensitivity, tables
from . import figures as figs
from . import mechanisms as mech
from .claims import checks, claims, findings
from .paper import (
    BER_EXPONENTS,
    COMBOS,
    FIG4_EXPONENT,
    FILE_SIZE,
    MSS,
    PAPER,
    QUEUES,
    RTTS_MS,
    SETTINGS,
    STOP_TIME,
    WINDOWS,
    case_key,
    pair_name,
    paper_per,
)

if TYPE_CHECKING:
    from tcplab import Result, Scenario


class ModularBer(Study):
    name = "modular-ber"
    title = "Congestion control x error detection over a high-BER link (modular TCP)"
    description = (
        "All nine pairs of congestion control (TahoeCC, RenoCC, NewRenoCC) and error detection "
        "(DupAckED, NewRenoED, SackED) download 10 MB over a 1.5 Mbit/s noisy link with RTTs of "
        "50, 200 and 500 ms, a 536-byte MSS and BERs from 1e-8 to 1e-4 in quarter decades. "
        "Throughput per RTT (Figures 1-3), the window of TCP NewReno (Figure 4) and the "
        "best-worst difference (Figures 5-7) are redrawn from our runs, and the paper's three "
        "claims are checked on our numbers."
    )
    citation = (
        "Seed 001: 'Throughput of modular TCP over high-BER links' (TCP decomposed into "
        "congestion control and error detection; ns-2; 1.5 Mbit/s, RTT 50/200/500 ms, MSS 536, "
        "10 MB, BER 1e-8..1e-4)."
    )
    default_seeds = 5
    options = (
        StudyOption(
            "sensitivity",
            True,
            "also run the whole grid with the other guessed queues (200, 1000 packets) and "
            "windows (65,535 B, 20 segments), and judge every claim under each (about 8x the "
            "runs of the main grid)",
            parse_bool,
        ),
    )

    def __init__(
        self,
        *,
        error_model: Literal["per", "ber"] = "per",
        ack_errors: bool = False,
        rtts_ms: Sequence[int] = RTTS_MS,
        ber_exponents: Sequence[float] = BER_EXPONENTS,
        combos: Sequence[tuple[str, str]] = COMBOS,
        file_size: int = FILE_SIZE,
        stop_time: str = STOP_TIME,
        fig4_exponent: float | None = FIG4_EXPONENT,
        queues: Sequence[int] = QUEUES,
        windows: Sequence[int] = WINDOWS,
        sensitivity: bool = True,
    ) -> None:
        if error_model not in ("per", "ber"):
            raise ValueError(f"error_model must be 'per' or 'ber', got {error_model!r}")
        self.error_model = error_model
        self.ack_errors = bool(ack_errors)
        self.rtts_ms = tuple(int(r) for r in rtts_ms)
        self.ber_exponents = tuple(float(e) for e in ber_exponents)
        self.combos = tuple((str(cc), str(lr)) for cc, lr in combos)
        self.file_size = int(file_size)
        self.stop_time = stop_time
        self.fig4_exponent = fig4_exponent
        self.queues = tuple(int(q) for q in queues)
        self.windows = tuple(int(w) for w in windows)
        if not self.queues or not self.windows:
            raise ValueError("queues and windows need at least one value each (the main grid's)")
        self.sensitivity = bool(sensitivity)

    def _kwargs(self) -> dict[str, Any]:
        return {
            "error_model": self.error_model, "ack_errors": self.ack_errors,
            "rtts_ms": self.rtts_ms, "ber_exponents": self.ber_exponents,
            "combos": self.combos, "file_size": self.file_size, "stop_time": self.stop_time,
            "fig4_exponent": self.fig4_exponent, "queues": self.queues, "windows": self.windows,
            "sensitivity": self.sensitivity,
        }  # fmt: skip

    def configure(self, options: Mapping[str, Any]) -> ModularBer:
        """A copy without the sensitivity grid when the option turns it off."""
        want = bool(options.get("sensitivity", self.sensitivity))
        if want == self.sensitivity:
            return self
        return ModularBer(**{**self._kwargs(), "sensitivity": want})

    def configs(self) -> list[tuple[int, int]]:
        """The (queue, window) settings the grid runs: the main grid's first, then the
        sensitivity's (all combinations of `queues` and `windows`) when it is on."""
        main = (self.queues[0], self.windows[0])
        if not self.sensitivity:
            return [main]
        return [main] + [
            (q, w) for q in self.queues for w in self.windows if (q, w) != main
        ]  # fmt: skip

    # -- grid -------------------------------------------------------------------------------

    def scenario(self) -> Scenario:
        return study_scenario("modular_ber").with_overrides(
            {"stop_time": self.stop_time, "apps.ftp.size": f"{self.file_size}B"}
        )

    def error_overrides(self, ber: float) -> dict[str, Any]:
        """The noisy link's error models for a BER: the paper's PER (``per``) or our
        frame-length BER (``ber``) on the data direction; ACKs error-free unless
        `ack_errors` (then the same model on the ACK direction)."""
        if self.error_model == "per":
            err: dict[str, Any] = {"model": "per", "p": paper_per(ber)}
        else:
            err = {"model": "ber", "ber": ber}
        out: dict[str, Any] = {"links.noisy.ab.error": err}
        out["links.noisy.ba.error"] = err if self.ack_errors else {"model": "none"}
        return out

    def cases(self) -> list[Case]:
        out = []
        for i, (queue, window) in enumerate(self.configs()):
            main = i == 0
            setting = (
                {}
                if main
                else {
                    "links.noisy.queue": f"{queue}p",
                    "tcp.rcv_buf": window,
                    "tcp.initial_ssthresh": window,
                }
            )
            for rtt in self.rtts_ms:
                for e in self.ber_exponents:
                    ber = 10.0**e
                    for cc, lr in self.combos:
                        traced = main and (
                            (
                                self.fig4_exponent is not None
                                and abs(e - self.fig4_exponent) < 1e-9
                                and (cc, lr) == ("newreno", "newreno")
                            )
                            or (rtt, e, cc, lr) in mech.MECHANISM_CASES
                        )
                        key = case_key(rtt, e, cc, lr)
                        out.append(
                            Case(
                                key=key if main else f"queue {queue}/window {window}/{key}",
                                group="main" if main else "sensitivity",
                                variant=f"{cc}+{lr}",
                                params={
                                    "rtt_ms": rtt,
                                    "ber_exp": e,
                                    "ber": ber,
                                    "paper_per": paper_per(ber),
                                    "cc": cc,
                                    "lr": lr,
                                    "queue_p": queue,
                                    "window_B": window,
                                },
                                overrides={
                                    **self.error_overrides(ber),
                                    **setting,
                                    "links.noisy.delay": f"{rtt / 2:g}ms",
                                    "tcp.congestion_control": cc,
                                    "tcp.loss_recovery": lr,
                                },
                                traces=traced,
                                packets=main and (rtt, e, cc, lr) in mech.MECHANISM_CASES,
                            )
                        )
        return out

    def references(self) -> dict[str, Any]:
        return {
            "text": PAPER,
            "grid": {
                "rtts_ms": list(RTTS_MS),
                "ber_exponents": list(BER_EXPONENTS),
                "pairs": [list(c) for c in COMBOS],
                "paper_names": {f"{cc}+{lr}": pair_name(cc, lr) for cc, lr in COMBOS},
            },
            "ours": {
                "queues_p": list(self.queues),
                "windows_B": list(self.windows),
                "sensitivity": self.sensitivity,
                "error_model": self.error_model,
                "ack_errors": self.ack_errors,
                "stop_time": self.stop_time,
                "settings": list(SETTINGS),
            },
        }

    def metrics(self, result: Result) -> dict[str, Any]:
        s = result.summary
        app = s["apps"][0]
        snd = s["connections"][0]["client"]
        link = next(x for x in s["links"] if x["name"] == "noisy")
        completed = bool(app.get("completed"))
        start = float(app.get("start_s") or 0.0)
        if completed and app.get("end_s") is not None:
            elapsed = float(app["end_s"]) - start
        else:
            elapsed = float(s.get("sim_time_s") or math.nan) - start
        got = float(app.get("bytes_received") or 0)
        return {
            "completed": completed,
            "elapsed_s": elapsed,
            "bytes_received": got,
            "throughput_Bps": got / elapsed if elapsed > 0 else math.nan,
            "retransmissions": int(snd.get("retransmissions", 0)),
            "fast_retransmits": int(snd.get("fast_retransmits", 0)),
            "rto_expirations": int(snd.get("rto_expirations", 0)),
            "data_segments_sent": int(snd.get("data_segments_sent", 0)),
            "frames_sent": int(link["ab"].get("frames_offered", 0)),
            "drops_error": int(link["ab"].get("frames_dropped_error", 0)),
            "drops_queue": int(link["ab"].get("frames_dropped_queue", 0)),
        }

    # -- analysis ---------------------------------------------------------------------------

    def cell_means(self, res: StudyResult) -> pd.DataFrame:
        """One row per (RTT, BER, pair): mean throughput (B/s) over seeds and counters."""
        return analysis.cell_means(res.group("main"))

    def analyse(self, res: StudyResult) -> None:
        cells = self.cell_means(res)
        res.extra["cells"] = cells.to_dict("records")
        res.extra["error_model"] = self.error_model
        diff = analysis.differences(cells)
        res.extra["differences"] = diff.to_dict("records")
        res.tables.append(
            tables.summary_table(diff, stop_time=self.stop_time, error_model=self.error_model)
        )
        for rtt in self.rtts_ms:
            res.tables.append(
                tables.rtt_table(cells, rtt, combos=self.combos, stop_time=self.stop_time)
            )
        rows = mech.mechanism_rows(res.traced, case_key, mech.MECHANISM_CASES, MSS)
        res.extra["mechanisms"] = rows
        if rows:
            res.tables.append(tables.mechanisms_table(rows))
        res.checks.extend(checks(cells, self.ber_exponents, self.error_model))
        res.findings.extend(
            findings(
                cells,
                diff,
                res.extra.get("mechanisms", []),
                rtts=self.rtts_ms,
                error_model=self.error_model,
                ack_errors=self.ack_errors,
            )
        )
        # Every claim again under each guessed (queue, window): the sensitivity.
        judged = {}
        for queue, window in self.configs():
            d = res.runs[
                res.runs["group"].isin(["main", "sensitivity"])
                & (res.runs["queue_p"] == queue)
                & (res.runs["window_B"] == window)
            ]
            if d.empty:
                continue
            c = analysis.cell_means(d)
            judged[(queue, window)] = claims(c, analysis.differences(c), self.rtts_ms)
        if len(judged) > 1:
            res.tables.append(sensitivity.table(judged))
            res.extra["sensitivity"] = sensitivity.records(judged)
            res.findings[:] = sensitivity.annotate(res.findings, judged)

    def summary_table(self, res: StudyResult) -> TableOut | None:
        return res.table("summary")

    # -- figures ----------------------------------------------------------------------------

    def mechanism_figure(self, res: StudyResult) -> FigureSpec | None:
        """Figure 8: the longest recovery phase of RenoCC + NewRenoED and of NewRenoCC +
        NewRenoED at the longest traced RTT, BER 1e-8."""
        return figs.mechanism_figure(res)

    def figures(self, res: StudyResult) -> Iterable[FigureSpec]:
        return figs.figure_specs(
            res, rtts=self.rtts_ms, combos=self.combos, fig4_exponent=self.fig4_exponent
        )
