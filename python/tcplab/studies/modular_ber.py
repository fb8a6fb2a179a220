"""Modular TCP over high-BER links: every congestion control with every error detection.

The paper (seed 001) splits TCP into a congestion control (TahoeCC, RenoCC, NewRenoCC) and an
error detection (DupAckED, NewRenoED, SackED), runs all nine pairs in ns-2 over one noisy
1.5 Mbit/s link with round-trip times of 50, 200 and 500 ms, a 536-byte MSS and a 10 MB file,
for BERs from 1e-8 to 1e-4, with PER = 1 - (1 - BER)^(8 x MSS). It plots throughput per RTT
(Figures 1-3), the window of TCP NewReno (Figure 4) and the difference between the best and the
worst pair (Figures 5-7), and concludes that (a) best and worst differ by less than 10 % for most
BERs, (b) NewRenoED is within 5 % of SackED at high BER, and (c) RenoCC with NewRenoED is the
worst pair when the bandwidth-delay product is high and the BER low.

Here: ``congestion_control`` in {tahoe, reno, newreno} x ``loss_recovery`` in {dupack, newreno,
sack}, on 17 BERs (quarter decades) x 3 RTTs x 5 seeds. What the paper does not give we choose
(the report says so; see `SETTINGS`):

* the link: 1.5 Mbit/s each way, one-way delay RTT / 2, no link framing (an ns-2 link carries
  the 576-byte IP packet: 536 + 40 bytes of TCP/IP headers), a drop-tail queue of 50 packets
  (ns-2's ``Queue set limit_ 50``);
* errors on the data direction only (an ns-2 error model sits on one direction of a link; the
  paper's PER is a data segment's); ACKs are error-free. `error_model="per"` (default) drops a
  data packet with the paper's PER = 1 - (1 - BER)^(8 x 536); `error_model="ber"` uses our
  frame-length model instead (PER over all 8 x 576 exposed bits);
* TCP: the ``ns2`` profile (ns-2.35 Agent/TCP + TCPSink: an ACK per packet, RTO min 0.2 s,
  initial 3 s, 10 ms tick) with the paper's MSS of 536, the initial window of one segment the
  paper describes ("Slow Start begins with a congestion window of one packet"), no limited
  transmit (not among the mechanisms the paper studies), and a 1,000,000-byte receive window
  (ns-2's ``window_``; the initial ssthresh equals it, as in ns-2), far above the 122 KB that
  fill the 500 ms path and its queue, so only the network limits the window;
* a transfer that has not finished after `STOP_TIME` (the paper gives no simulation length;
  at BER 1e-4 one packet in three is lost and 10 MB would take hours) counts as delivered
  bytes / elapsed time; finished ones as 10 MB / transfer time. Both are "throughput".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from tcplab.report.plots import PALETTE, new_figure

from . import modular_ber_mechanisms as mech
from ._base import Case, Check, FigureSpec, Finding, Study, StudyResult, TableOut

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tcplab import Result, Scenario

__all__ = [
    "BER_EXPONENTS",
    "CCS",
    "COMBOS",
    "LRS",
    "MSS",
    "PAPER",
    "RTTS_MS",
    "SCENARIO_TOML",
    "SETTINGS",
    "STOP_TIME",
    "ModularBer",
    "STUDY",
    "paper_per",
]

# ----------------------------------------------------------------------------------------------
# The seed's numbers

#: Round-trip times (section 2): metropolitan / LEO, trans-Atlantic / MEO, GEO.
RTTS_MS: tuple[int, ...] = (50, 200, 500)
#: BER from 1e-8 to 1e-4 in quarter decades (the figures' x axes; the text names 10^-6.75,
#: 10^-5.75 and 10^-5.5, so the grid is a quarter decade): 17 points.
BER_EXPONENTS: tuple[float, ...] = tuple(-8.0 + 0.25 * i for i in range(17))
#: The congestion controls (TahoeCC, RenoCC, NewRenoCC) and error detections (DupAckED,
#: NewRenoED, SackED) as our core names them.
CCS: tuple[str, ...] = ("tahoe", "reno", "newreno")
LRS: tuple[str, ...] = ("dupack", "newreno", "sack")
COMBOS: tuple[tuple[str, str], ...] = tuple((cc, lr) for cc in CCS for lr in LRS)
CC_PAPER = {"tahoe": "TahoeCC", "reno": "RenoCC", "newreno": "NewRenoCC"}
LR_PAPER = {"dupack": "DupAckED", "newreno": "NewRenoED", "sack": "SackED"}

MSS = 536
FILE_SIZE = 10_000_000
#: Cap on simulated time per transfer (ours; the paper gives none).
STOP_TIME = "3600s"

#: Figures from the paper's text.
PAPER: dict[str, Any] = {
    "rate_bps": 1.5e6,
    "rtts_ms": list(RTTS_MS),
    "mss": MSS,
    "file_size_bytes": FILE_SIZE,
    "ber_min": 1e-8,
    "ber_max": 1e-4,
    "per_range": [0.0, 0.30],  # "PER from 0 to 30%"
    "per_formula": "1 - (1 - BER)^(MSS x 8)",
    "claim_a_max_difference": 0.10,  # best vs worst, "for most BERs", all three RTTs
    "claim_b_newreno_vs_sack": 0.05,  # SackED over NewRenoED "less than 5%" (50 ms, BER > 1e-6)
    "claim_b_high_ber_from": 1e-6,
    "claim_c_low_ber_to": 1e-7,  # RenoCC + NewRenoED excluded for BER 1e-8..1e-7 at 200/500 ms
    "newreno_best_bers": [10**-6.75, 10**-5.75],  # NewRenoED best "independent of the BDP"
    "peak_difference_bers": {  # where the best-worst difference peaks (section 3.3)
        "50": [1e-6, 10**-5.5],
        "200": [1e-7, 10**-6.5],
        "500": [1e-7, 1e-7],
    },
    # Figures 5-7 leave out pairs "because of [their] exceptionally bad performance":
    "figure_exclusions": {
        "200": [["reno", "newreno"]],
        "500": [["reno", "newreno"], ["newreno", "newreno"]],
    },
}

#: Our choices where the paper is silent (printed in the report).
SETTINGS: tuple[str, ...] = (
    "link: 1.5 Mbit/s both ways, one-way delay RTT/2, no link framing (576-byte IP packets), "
    "drop-tail queue of 50 packets (ns-2's default queue limit)",
    "TCP: profile ns2 (an ACK per segment, RTO min 0.2 s / initial 3 s / 10 ms tick) with MSS "
    "536, initial window 1 segment (the paper's slow start), no limited transmit, receive "
    "window and initial ssthresh 1,000,000 bytes (window scaling on; ns-2's window_), above "
    "the 122 KB that fill the 500 ms path and its queue",
    "errors on the data direction only; ACKs are error-free",
    f"a transfer still running at {STOP_TIME} counts delivered bytes / elapsed time",
)

SCENARIO_TOML = """\
[run]
name = "modular-ber"
seed = 1
stop_time = "3600s"

[tcp]
profile = "ns2"
mss = 536
initial_cwnd = 1
limited_transmit = false
rcv_buf = 1000000
initial_ssthresh = 1000000
window_scaling = true
congestion_control = "newreno"
loss_recovery = "newreno"

[[nodes]]
name = "sender"
kind = "host"

[[nodes]]
name = "receiver"
kind = "host"

[[links]]
name = "noisy"
a = "sender"
b = "receiver"
rate = "1.5Mbps"
delay = "100ms"
framing = "none"
queue = "50p"

[links.ab]
error = { model = "per", p = 0.001355 }

[[apps]]
name = "ftp"
kind = "bulk"
client = "sender"
server = "receiver"
size = "10000000B"
start = "0s"

[output]
trace = false
"""

EXAMPLE_FILE = Path(__file__).resolve().parents[3] / "examples" / "modular_ber.toml"

#: Where Figure 4 (cwnd of TCP NewReno) is drawn: BER 10^-6.5, in the region where the paper
#: explains NewRenoED's two recovery phases, at every RTT.
FIG4_EXPONENT = -6.5


def paper_per(ber: float, mss: int = MSS) -> float:
    """The paper's PER of a segment: 1 - (1 - BER)^(8 x MSS)."""
    return -math.expm1(8 * mss * math.log1p(-ber))


def pair_name(cc: str, lr: str) -> str:
    """'RenoCC + NewRenoED'."""
    return f"{CC_PAPER.get(cc, cc)} + {LR_PAPER.get(lr, lr)}"


def _exp_text(e: float) -> str:
    return f"1e{e:g}" if e == int(e) else f"10^{e:g}"


def case_key(rtt_ms: int, exponent: float, cc: str, lr: str) -> str:
    return f"rtt {rtt_ms}/ber {_exp_text(exponent)}/{cc}+{lr}"


# ----------------------------------------------------------------------------------------------
# The study


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

    # -- grid -------------------------------------------------------------------------------

    def scenario(self) -> Scenario:
        from tcplab import Scenario

        base = (
            Scenario.from_toml(EXAMPLE_FILE)
            if EXAMPLE_FILE.exists()
            else Scenario.from_toml(SCENARIO_TOML)
        )
        return base.with_overrides(
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
        for rtt in self.rtts_ms:
            for e in self.ber_exponents:
                ber = 10.0**e
                for cc, lr in self.combos:
                    out.append(
                        Case(
                            key=case_key(rtt, e, cc, lr),
                            group="main",
                            variant=f"{cc}+{lr}",
                            params={
                                "rtt_ms": rtt,
                                "ber_exp": e,
                                "ber": ber,
                                "paper_per": paper_per(ber),
                                "cc": cc,
                                "lr": lr,
                            },
                            overrides={
                                **self.error_overrides(ber),
                                "links.noisy.delay": f"{rtt / 2:g}ms",
                                "tcp.congestion_control": cc,
                                "tcp.loss_recovery": lr,
                            },
                            traces=(
                                self.fig4_exponent is not None
                                and abs(e - self.fig4_exponent) < 1e-9
                                and (cc, lr) == ("newreno", "newreno")
                            )
                            or (rtt, e, cc, lr) in mech.MECHANISM_CASES,
                            packets=(rtt, e, cc, lr) in mech.MECHANISM_CASES,
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
        d = res.group("main")
        g = d.groupby(["rtt_ms", "ber_exp", "cc", "lr"], sort=False)
        out = g.agg(
            thr=("throughput_Bps", "mean"),
            thr_sd=("throughput_Bps", "std"),
            completed=("completed", "mean"),
            rto=("rto_expirations", "mean"),
            fast=("fast_retransmits", "mean"),
            retx=("retransmissions", "mean"),
            drops_error=("drops_error", "sum"),
            drops_queue=("drops_queue", "mean"),
            frames=("frames_sent", "sum"),
            runs=("seed", "count"),
        ).reset_index()
        out["per_measured"] = out["drops_error"] / out["frames"].where(out["frames"] > 0)
        return out

    def analyse(self, res: StudyResult) -> None:
        cells = self.cell_means(res)
        res.extra["cells"] = cells.to_dict("records")
        res.extra["error_model"] = self.error_model
        diff = _differences(cells)
        res.extra["differences"] = diff.to_dict("records")
        res.tables.append(self._summary_table(cells, diff))
        for rtt in self.rtts_ms:
            res.tables.append(self._rtt_table(cells, rtt))
        rows = mech.mechanism_rows(res.traced, case_key, mech.MECHANISM_CASES, MSS)
        res.extra["mechanisms"] = rows
        if rows:
            frame = mech.table_frame(rows, pair_name)
            res.tables.append(
                TableOut(
                    "mechanisms",
                    "Inside the recovery phases (first seed of each traced case)",
                    pd.DataFrame(rows),
                    frame,
                    "A phase runs from a fast retransmit to the ACK that ends it (the error "
                    "detection's rule) or a timeout; lengths in round trips of the path; 'new "
                    "segments' are first transmissions above the recovery point sent inside "
                    "phases; 'received twice' counts the receiver's duplicate segments "
                    "(TahoeCC's go-back-N resends data it holds).",
                )
            )
        res.checks.extend(self._checks(cells))
        res.findings.extend(self._findings(cells, diff, res.extra.get("mechanisms", [])))

    def _summary_table(self, cells: pd.DataFrame, diff: pd.DataFrame) -> TableOut:
        rows = []
        for r in diff.itertuples():
            rows.append(
                {
                    "rtt_ms": r.rtt_ms,
                    "ber": 10.0**r.ber_exp,
                    "paper_per": paper_per(10.0**r.ber_exp),
                    "best": pair_name(*r.best.split("+")),
                    "best_kBps": r.best_thr / 1e3,
                    "worst": pair_name(*r.worst.split("+")),
                    "worst_kBps": r.worst_thr / 1e3,
                    "diff_all": r.diff_all,
                    "diff_paper": r.diff_paper,
                    "nr_vs_sack": r.nr_vs_sack,
                }
            )
        data = pd.DataFrame(rows)
        display = pd.DataFrame(
            {
                "RTT ms": data["rtt_ms"],
                "BER": [_exp_text(e) for e in diff["ber_exp"]],
                "PER": [f"{p:.3g}" for p in data["paper_per"]],
                "best pair": data["best"],
                "best kB/s": data["best_kBps"].round(2),
                "worst pair": data["worst"],
                "worst kB/s": data["worst_kBps"].round(2),
                "best-worst %": (100 * data["diff_all"]).round(1),
                "Figs 5-7 %": (100 * data["diff_paper"]).round(1),
                "NewRenoED vs SackED %": (100 * data["nr_vs_sack"]).round(1),
            }
        )
        return TableOut(
            "summary",
            "Best and worst pair per RTT and BER (mean throughput over seeds)",
            data,
            display,
            note=(
                "best-worst % = (best - worst) / best over all nine pairs; 'Figs 5-7 %' leaves "
                "out the pairs the paper's Figures 5-7 leave out (RenoCC + NewRenoED at 200 and "
                "500 ms and NewRenoCC + NewRenoED at 500 ms, BER 1e-8..1e-7); 'NewRenoED vs "
                "SackED %' is the largest |NewRenoED / SackED - 1| over the three congestion "
                "controls. Throughput = delivered bytes / elapsed time (file size / transfer time "
                f"when the transfer finished before {self.stop_time}). PER: "
                + (
                    "the paper's 1 - (1 - BER)^(8 x 536), used as the data direction's PER."
                    if self.error_model == "per"
                    else "the paper's formula for reference; the runs use our frame-length BER "
                    "model (8 x 576 exposed bits per data packet)."
                )
            ),
        )

    def _rtt_table(self, cells: pd.DataFrame, rtt: int) -> TableOut:
        c = cells[cells["rtt_ms"] == rtt]
        piv = c.pivot_table(index="ber_exp", columns=["cc", "lr"], values="thr", sort=False)
        piv = piv.sort_index()
        data = pd.DataFrame({"ber": [10.0**e for e in piv.index]})
        display = pd.DataFrame({"BER": [_exp_text(e) for e in piv.index]})
        for cc, lr in self.combos:
            if (cc, lr) in piv.columns:
                col = piv[(cc, lr)].to_numpy(dtype=float) / 1e3
                data[f"{cc}+{lr}"] = col
                display[pair_name(cc, lr)] = np.round(col, 2)
        comp = c.groupby("ber_exp")["completed"].mean().reindex(piv.index)
        data["completed_share"] = comp.to_numpy(dtype=float)
        display["finished %"] = np.round(100 * comp.to_numpy(dtype=float), 0)
        return TableOut(
            f"throughput_{rtt}ms",
            f"Throughput in kB/s, RTT {rtt} ms (Figure {1 + RTTS_MS.index(rtt)})"
            if rtt in RTTS_MS
            else f"Throughput in kB/s, RTT {rtt} ms",
            data,
            display,
            note="Mean over seeds; 'finished %' is the share of runs (all pairs) whose 10 MB "
            f"arrived before {self.stop_time}.",
        )

    def _checks(self, cells: pd.DataFrame) -> list[Check]:
        out = []
        lo, hi = min(self.ber_exponents), max(self.ber_exponents)
        for e, paper in ((lo, 0.0 if lo == -8 else None), (hi, 0.30 if hi == -4 else None)):
            c = cells[cells["ber_exp"] == e]
            measured = float(c["drops_error"].sum() / c["frames"].sum()) if len(c) else math.nan
            out.append(
                Check(
                    f"PER of a data segment at BER {_exp_text(e)}",
                    "2",
                    "1 - (1 - BER)^(8 x MSS)",
                    paper,
                    paper_per(10.0**e),
                    measured,
                    "",
                    "paper: 'PER from 0 to 30%' (rounded); model: MSS 536; simulated: data "
                    "packets lost to errors / data packets sent"
                    + (
                        " (frame-length BER: 576 bytes exposed)"
                        if self.error_model == "ber"
                        else ""
                    ),
                )
            )
        # Line rate: 536 payload bytes per 576-byte packet at 1.5 Mbit/s.
        goodput_max = 1.5e6 / 8 * MSS / (MSS + 40)
        c = cells[(cells["ber_exp"] == lo)]
        if len(c):
            rtt0 = int(c["rtt_ms"].min())
            best = float(c[c["rtt_ms"] == rtt0]["thr"].max())
            out.append(
                Check(
                    "Largest goodput",
                    "2",
                    "1.5 Mbit/s / 8 x 536 / 576",
                    None,
                    goodput_max / 1e3,
                    best / 1e3,
                    "kB/s",
                    f"simulated: best pair at RTT {rtt0} ms, BER {_exp_text(lo)} (slow start and "
                    "the handshake included)",
                )
            )
        return out

    def _findings(
        self, cells: pd.DataFrame, diff: pd.DataFrame, mechs: Sequence[dict[str, Any]] = ()
    ) -> list[Finding]:
        out: list[Finding] = [
            Finding(
                "Error model: "
                + (
                    "the paper's PER = 1 - (1 - BER)^(8 x 536) on data packets"
                    if self.error_model == "per"
                    else "our frame-length BER (PER = 1 - (1 - BER)^(8 x 576)) on data packets"
                )
                + ("; ACKs see the same model" if self.ack_errors else "; ACKs error-free"),
                None,
                "Our settings where the paper is silent: " + "; ".join(SETTINGS) + ".",
            )
        ]
        out.append(_claim_a(diff, self.rtts_ms, mechs))
        out.append(_claim_b(cells, self.rtts_ms, mechs))
        out.append(_claim_c(cells, self.rtts_ms, mechs))
        out.append(_claim_d(cells, self.rtts_ms))
        out.append(_claim_peak(diff, self.rtts_ms))
        note = _ed_note(cells)
        if note is not None:
            out.append(note)
        return out

    def summary_table(self, res: StudyResult) -> TableOut | None:
        return res.table("summary")

    # -- figures ----------------------------------------------------------------------------

    def mechanism_figure(self, res: StudyResult) -> FigureSpec | None:
        """Figure 8: the longest recovery phase of RenoCC + NewRenoED and of NewRenoCC +
        NewRenoED at the longest traced RTT, BER 1e-8."""
        rtts = sorted({m["rtt_ms"] for m in res.extra.get("mechanisms", [])})
        if not rtts:
            return None
        rtt = rtts[-1]
        titles = [
            (case_key(rtt, -8.0, cc, lr), f"{pair_name(cc, lr)}, RTT {rtt} ms, BER 1e-8")
            for cc, lr in (("reno", "newreno"), ("newreno", "newreno"))
            if case_key(rtt, -8.0, cc, lr) in res.traced
        ]
        if not titles:
            return None
        return FigureSpec(
            "fig08_recovery_phase",
            "The longest recovery phase (shaded) of RenoCC + NewRenoED and of NewRenoCC + "
            f"NewRenoED at RTT {rtt} ms, BER 1e-8 (first seed): first transmissions (dots), "
            "retransmissions (crosses), the cumulative ACK (line) and the recovery point "
            "(dotted); each title counts the phase's retransmissions and the new segments sent "
            "inside it (table 'mechanisms' has every phase).",
            lambda: mech.fig_phase(res.traced, titles),
            "section 3.1",
        )

    def figures(self, res: StudyResult) -> Iterable[FigureSpec]:
        cells = pd.DataFrame(res.extra.get("cells", []))
        diff = pd.DataFrame(res.extra.get("differences", []))
        if cells.empty:
            return
        for i, rtt in enumerate(self.rtts_ms):
            fig_no = RTTS_MS.index(rtt) + 1 if rtt in RTTS_MS else i + 1
            yield FigureSpec(
                f"fig{fig_no:02d}_throughput_rtt{rtt}",
                f"Throughput (kB/s, mean over {len(res.seeds)} seeds) vs BER, RTT {rtt} ms; "
                "colour: error detection, line style: congestion control",
                lambda rtt=rtt: _fig_throughput(cells, rtt, self.combos),
                f"Figure {fig_no}",
            )
        traced = {
            rtt: res.traced.get(case_key(rtt, self.fig4_exponent, "newreno", "newreno"))
            for rtt in self.rtts_ms
            if self.fig4_exponent is not None
        }
        traced = {k: v for k, v in traced.items() if v is not None and "trace" in v.traces}
        if traced:
            yield FigureSpec(
                "fig04_cwnd_newreno",
                f"cwnd of TCP NewReno (NewRenoCC + NewRenoED) at BER "
                f"{_exp_text(self.fig4_exponent or 0)} (seed {res.seeds[0]}); shaded: recovery "
                "phases (fast retransmit to the ACK of the recovery point: the long transient "
                "after slow start, then the second that repairs the losses sent during it, "
                "section 3.2); ticks: data packets lost to errors (red) and to the queue (grey)",
                lambda: _fig_cwnd(traced),
                "Figure 4",
            )
        if not diff.empty:
            for rtt in self.rtts_ms:
                fig_no = RTTS_MS.index(rtt) + 5 if rtt in RTTS_MS else 0
                yield FigureSpec(
                    f"fig{fig_no:02d}_difference_rtt{rtt}",
                    f"Difference between the best and the worst pair, (best - worst) / best, "
                    f"RTT {rtt} ms: all nine pairs, and without the pairs Figures 5-7 exclude",
                    lambda rtt=rtt: _fig_difference(diff, rtt),
                    f"Figure {fig_no}",
                )
        spec = self.mechanism_figure(res)
        if spec is not None:
            yield spec


# ----------------------------------------------------------------------------------------------
# Analysis helpers


def _excluded(rtt: int, e: float, cc: str, lr: str) -> bool:
    """Pairs Figures 5-7 leave out (BER 1e-8..1e-7 at 200 and 500 ms)."""
    if e > math.log10(PAPER["claim_c_low_ber_to"]) + 1e-9:
        return False
    return [cc, lr] in PAPER["figure_exclusions"].get(str(rtt), [])


def _differences(cells: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (rtt, e), c in cells.groupby(["rtt_ms", "ber_exp"], sort=True):
        thr = {f"{r.cc}+{r.lr}": float(r.thr) for r in c.itertuples()}
        if not thr:
            continue
        best = max(thr, key=thr.__getitem__)
        worst = min(thr, key=thr.__getitem__)
        kept = {k: v for k, v in thr.items() if not _excluded(int(rtt), float(e), *k.split("+"))}
        nr_vs_sack = [
            abs(thr[f"{cc}+newreno"] / thr[f"{cc}+sack"] - 1)
            for cc in CCS
            if f"{cc}+newreno" in thr and f"{cc}+sack" in thr and thr[f"{cc}+sack"] > 0
        ]
        rows.append(
            {
                "rtt_ms": int(rtt),
                "ber_exp": float(e),
                "best": best,
                "best_thr": thr[best],
                "worst": worst,
                "worst_thr": thr[worst],
                "diff_all": 1 - thr[worst] / thr[best] if thr[best] > 0 else math.nan,
                "diff_paper": _spread(list(kept.values())),
                "nr_vs_sack": max(nr_vs_sack) if nr_vs_sack else math.nan,
                "diff_no_tahoe": _spread(
                    [v for k, v in kept.items() if not k.startswith("tahoe+")]
                ),
            }
        )
    return pd.DataFrame(rows)


def _spread(values: Sequence[float]) -> float:
    """(max - min) / max; NaN when there is nothing to compare."""
    if not values or max(values) <= 0:
        return math.nan
    return 1 - min(values) / max(values)


def _claim_a(
    diff: pd.DataFrame, rtts: Sequence[int], mechs: Sequence[dict[str, Any]] = ()
) -> Finding:
    claim = (
        "(a) The difference between the best and the worst pair is under 10 % for most BERs, "
        "at all three RTTs (Conclusions; Figures 5-7)"
    )
    if diff.empty:
        return Finding(claim, None, "not evaluated: no runs")
    parts, ok = [], True
    for rtt in rtts:
        d = diff[diff["rtt_ms"] == rtt]
        if d.empty or d["diff_paper"].isna().all():
            # no pair left after the paper's exclusions (a reduced run)
            continue
        under = int((d["diff_paper"] < PAPER["claim_a_max_difference"]).sum())
        under_all = int((d["diff_all"] < PAPER["claim_a_max_difference"]).sum())
        ok &= under > len(d) / 2
        peak = d.loc[d["diff_paper"].idxmax()]
        parts.append(
            f"RTT {rtt} ms: under 10 % at {under} of {len(d)} BERs with the paper's "
            f"exclusions ({under_all} with all nine pairs), largest "
            f"{peak['diff_paper']:.0%} at BER {_exp_text(peak['ber_exp'])} "
            f"({pair_name(*peak['best'].split('+'))} vs {pair_name(*peak['worst'].split('+'))})"
        )
    detail = "; ".join(parts) + ". 'Most' is read as more than half of the BERs at every RTT."
    if not ok:
        worst_cc = diff["worst"].str.split("+").str[0].value_counts()
        no_tahoe = []
        for rtt in rtts:
            d = diff[diff["rtt_ms"] == rtt]
            if len(d):
                no_tahoe.append(f"{rtt} ms {int((d['diff_no_tahoe'] < 0.10).sum())} of {len(d)}")
        detail += (
            f" The worst pair has TahoeCC at {int(worst_cc.get('tahoe', 0))} of {len(diff)} "
            "(RTT, BER) points: after every fast retransmit TahoeCC slow-starts from one "
            "segment and resends the window (go-back-N), which costs most where the window is "
            "large (long RTT, low BER). Leaving the TahoeCC pairs out, the difference is under "
            "10 % at " + ", ".join(no_tahoe) + " BERs. At BER 10^-4.75 and above the gap is "
            "SackED against DupAckED: with PER above 7 % most windows lose several segments "
            "and DupAckED waits for a timeout after the first fast retransmit, which SackED "
            "avoids. The paper does not give its queue size, receive window or timer settings, "
            "which set how many losses the slow-start overshoot leaves and how much a timeout "
            "costs; we do not know how much of the difference they explain."
        )
        traced = [
            (rtt, _mech(mechs, rtt, "tahoe", "dupack"), _mech(mechs, rtt, "newreno", "newreno"))
            for rtt in rtts
        ]
        seen = [
            f"RTT {rtt} ms, BER 1e-8: {_phase_text(t)}; against {_phase_text(n)}"
            for rtt, t, n in traced
            if t is not None and n is not None
        ]
        if seen:
            detail += (
                " The go-back-N, measured on traced runs (first seed, table 'mechanisms'): "
                + "; ".join(seen)
                + ". TahoeCC sends no new data inside its phases and leaves each one from a "
                "window of one segment, to slow-start back to ssthresh; the segments received "
                "twice come from the go-back-N after a timeout, which every pair has here."
            )
    return Finding(claim, ok, detail)


def _claim_b(
    cells: pd.DataFrame, rtts: Sequence[int], mechs: Sequence[dict[str, Any]] = ()
) -> Finding:
    claim = (
        "(b) NewRenoED is within 5 % of SackED at high BER (above 1e-6), with every congestion "
        "control and RTT (section 3.3)"
    )
    lo = math.log10(PAPER["claim_b_high_ber_from"])
    c = cells[cells["ber_exp"] > lo + 1e-9]
    if c.empty:
        return Finding(claim, None, "not evaluated: no BER above 1e-6 in this run")
    rows, worst = [], (0.0, "")
    within = total = 0
    for rtt in rtts:
        for cc in CCS:
            a = c[(c["rtt_ms"] == rtt) & (c["cc"] == cc) & (c["lr"] == "newreno")]
            b = c[(c["rtt_ms"] == rtt) & (c["cc"] == cc) & (c["lr"] == "sack")]
            m = a.merge(b, on="ber_exp", suffixes=("_nr", "_sack"))
            if m.empty:
                continue
            rel = m["thr_nr"] / m["thr_sack"] - 1
            total += len(rel)
            within += int((rel.abs() <= PAPER["claim_b_newreno_vs_sack"]).sum())
            i = int(rel.abs().to_numpy().argmax())
            rows.append(
                f"{CC_PAPER[cc]} {rtt} ms: NewRenoED/SackED - 1 from {rel.min():+.1%} to "
                f"{rel.max():+.1%}"
            )
            if abs(rel.iloc[i]) > abs(worst[0]):
                worst = (
                    float(rel.iloc[i]),
                    f"{CC_PAPER[cc]}, RTT {rtt} ms, BER {_exp_text(m['ber_exp'].iloc[i])}",
                )
    if not total:
        return Finding(claim, None, "not evaluated: NewRenoED or SackED not in this run")
    ok = within == total
    detail = (
        f"Within 5 % at {within} of {total} (congestion control, RTT, BER) points with BER "
        f"> 1e-6; the largest gap is {worst[0]:+.1%} ({worst[1]}). " + "; ".join(rows) + "."
    )
    if not ok:
        top = c[c["ber_exp"] >= -4.75 - 1e-9]
        mid = c[c["ber_exp"] < -4.75 - 1e-9]

        def rto(d: pd.DataFrame, lr: str) -> float:
            return float(d[d["lr"] == lr]["rto"].mean())

        detail += (
            " The gaps beyond 5 % are at BER 10^-4.75 and above (PER 7 % to 35 %), where "
            "SackED leads by avoiding timeouts: most windows lose several segments, "
            "NewRenoED repairs one hole per round trip and a loss of a retransmission (or of "
            "too many segments for three duplicate ACKs) ends in a timeout, while SackED "
            "resends every reported hole at once. Mean RTOs per transfer at those BERs: "
            f"NewRenoED {rto(top, 'newreno'):.0f}, SackED {rto(top, 'sack'):.0f} (between 1e-6 "
            f"and 10^-5: {rto(mid, 'newreno'):.0f} and {rto(mid, 'sack'):.0f}). At BER 1e-4 the "
            "transfers are capped and a few kB per run decide the ratio. The paper's text "
            "stops its comparison at 'high BERs' without naming a limit; up to 1e-5 ours "
            "agrees with it much better (see the 'NewRenoED vs SackED %' column)."
        )
        nr = [m for m in mechs if m["lr"] == "newreno" and m["ber_exp"] > lo]
        for m in nr:
            sk = next(
                (
                    x
                    for x in mechs
                    if (x["rtt_ms"], x["ber_exp"], x["cc"], x["lr"])
                    == (m["rtt_ms"], m["ber_exp"], m["cc"], "sack")
                ),
                None,
            )
            if sk is None:
                continue
            detail += (
                f" Traced (first seed, RTT {m['rtt_ms']} ms, BER {_exp_text(m['ber_exp'])}, "
                f"table 'mechanisms'): {_phase_text(m)}; {_phase_text(sk)}. SackED enters "
                f"{sk['phases']} recovery phases where NewRenoED enters {m['phases']}, and "
                f"times out {sk['rto']} times against {m['rto']}: more of its losses are "
                "repaired inside a recovery phase, fewer by the retransmission timer."
            )
    return Finding(claim, ok, detail)


def _mech(mechs: Sequence[dict[str, Any]], rtt: int, cc: str, lr: str) -> dict[str, Any] | None:
    return next((m for m in mechs if (m["rtt_ms"], m["cc"], m["lr"]) == (rtt, cc, lr)), None)


def _phase_text(m: dict[str, Any]) -> str:
    return (
        f"{pair_name(m['cc'], m['lr'])} {m['throughput_Bps'] / 1e3:.1f} kB/s: {m['phases']} "
        f"phases of {m['phase_rtts_mean']:.1f} RTTs on average (longest "
        f"{m['phase_rtts_max']:.1f}, {m['phases_cut_by_rto']} cut by a timeout), "
        f"{m['new_in_phases']} new segments sent inside them ({m['new_after_first_ack']} after "
        f"the first partial ACK), ssthresh down to {m['min_ssthresh_segments']:.1f} segments, "
        f"{m['rto']} RTOs, {m['duplicates_at_receiver']} segments received twice, "
        f"{m['after_last_phase_s']:.0f} s from the last phase to the end"
    )


def _claim_c(
    cells: pd.DataFrame, rtts: Sequence[int], mechs: Sequence[dict[str, Any]] = ()
) -> Finding:
    claim = (
        "(c) RenoCC + NewRenoED is the worst pair at high bandwidth-delay product (RTT 200 and "
        "500 ms) and low BER (1e-8 to 1e-7) (sections 3.1, 3.3)"
    )
    hi = math.log10(PAPER["claim_c_low_ber_to"])
    pts, worst_n, lines = 0, 0, []
    for rtt in (r for r in rtts if r >= 200):
        c = cells[(cells["rtt_ms"] == rtt) & (cells["ber_exp"] <= hi + 1e-9)]
        for e, g in c.groupby("ber_exp", sort=True):
            if len(g) < 2 or g[(g["cc"] == "reno") & (g["lr"] == "newreno")].empty:
                continue
            pts += 1
            w = g.loc[g["thr"].idxmin()]
            rn = g[(g["cc"] == "reno") & (g["lr"] == "newreno")].iloc[0]
            is_worst = w["cc"] == "reno" and w["lr"] == "newreno"
            worst_n += int(is_worst)
            lines.append(
                f"{rtt} ms, BER {_exp_text(e)}: RenoCC + NewRenoED {rn['thr'] / 1e3:.1f} kB/s"
                + (
                    " (worst)"
                    if is_worst
                    else f", worst {pair_name(w['cc'], w['lr'])} {w['thr'] / 1e3:.1f} kB/s"
                )
                + f", best {g['thr'].max() / 1e3:.1f} kB/s"
            )
    if not pts:
        return Finding(claim, None, "not evaluated: no RTT >= 200 ms with BER <= 1e-7 in this run")
    ok = worst_n > pts / 2
    detail = f"Worst at {worst_n} of {pts} points. " + "; ".join(lines) + "."
    rn = cells[(cells["cc"] == "reno") & (cells["lr"] == "newreno") & (cells["rtt_ms"] >= 200)]
    rn = rn[rn["ber_exp"] <= hi + 1e-9]
    detail += (
        f" RenoCC + NewRenoED there: {rn['rto'].mean():.1f} RTOs and {rn['retx'].mean():.0f} "
        "retransmissions per transfer on average."
    )
    traced = [
        (
            rtt,
            [
                _mech(mechs, rtt, cc, lr)
                for cc, lr in (("reno", "newreno"), ("newreno", "newreno"), ("tahoe", "dupack"))
            ],
        )
        for rtt in sorted({m["rtt_ms"] for m in mechs})
    ]
    lines = [
        f"RTT {rtt} ms, BER 1e-8 (first seed): " + "; ".join(_phase_text(m) for m in ms if m)
        for rtt, ms in traced
    ]
    if lines:
        detail += (
            " What happens inside the recovery phases, measured on traced runs (table "
            "'mechanisms', Figure 8): " + ". ".join(lines) + ". NewRenoED resends one hole per "
            "partial ACK and keeps each phase open until the recovery point is acknowledged; "
            "after the first partial ACK RenoCC's window is ssthresh against everything still "
            "outstanding, so it sends new data only once the partial ACKs have brought that "
            "below ssthresh, while NewRenoCC keeps its inflated window (compare the new "
            "segments after the first partial ACK)."
        )
        for rtt, ms in traced:
            rn, nn = ms[0], ms[1]
            if rn is None or nn is None:
                continue
            if rn["phases_cut_by_rto"] and rn["phase_rtts_max"] < 2 and nn["phase_rtts_max"] < 2:
                detail += (
                    f" At {rtt} ms no long NewRenoED phase happens at all: the first phase "
                    "after the slow-start overshoot is cut by a timeout (the queue the overshoot "
                    "built makes the retransmission's round trip longer than the RTO), the "
                    "timeout resends from the first hole, and with no phase left to differ in "
                    "the two window rules "
                    + (
                        "give the same run"
                        if rn["throughput_Bps"] == nn["throughput_Bps"]
                        else "differ little"
                    )
                    + "."
                )
            elif (
                rn["min_ssthresh_segments"] < nn["min_ssthresh_segments"]
                and rn["phases"] > nn["phases"]
            ):
                detail += (
                    f" At {rtt} ms RenoCC + NewRenoED goes through {rn['phases']} phases to "
                    f"NewRenoCC's {nn['phases']}, each cutting ssthresh, down to "
                    f"{rn['min_ssthresh_segments']:.1f} segments, and congestion avoidance climbs "
                    "back one segment per round trip."
                )
    if not ok:
        detail += (
            " Where RenoCC + NewRenoED is not the worst pair, the worst is TahoeCC + DupAckED: "
            "every fast retransmit restarts slow start from one segment and resends from the "
            "first hole (go-back-N, ns-2's Tahoe), which its segments received twice count; the "
            "paper does not rank TahoeCC here. The paper's RenoCC + NewRenoED needs long "
            "NewRenoED phases after the slow-start overshoot; where a timeout ends them first "
            "(above), the pair has nothing to lose against the others."
        )
    return Finding(claim, ok, detail)


def _claim_d(cells: pd.DataFrame, rtts: Sequence[int]) -> Finding:
    claim = (
        "(d) A pair with NewRenoED gives the highest throughput for BERs 10^-6.75 to "
        "10^-5.75, whatever the RTT (section 3.2)"
    )
    lo, hi = (math.log10(x) for x in PAPER["newreno_best_bers"])
    c = cells[(cells["ber_exp"] >= lo - 1e-9) & (cells["ber_exp"] <= hi + 1e-9)]
    if c.empty or "newreno" not in set(c["lr"]):
        return Finding(claim, None, "not evaluated: no BER in 10^-6.75..10^-5.75 in this run")
    pts, hits, lines, gaps = 0, 0, [], []
    for (rtt, e), g in c.groupby(["rtt_ms", "ber_exp"], sort=True):
        if rtt not in rtts:
            continue
        pts += 1
        b = g.loc[g["thr"].idxmax()]
        nr = g[g["lr"] == "newreno"]["thr"].max()
        hits += int(b["lr"] == "newreno")
        gaps.append((1 - nr / b["thr"], int(rtt), float(e)))
        lines.append(
            f"{rtt} ms {_exp_text(e)}: best {pair_name(b['cc'], b['lr'])}"
            + ("" if b["lr"] == "newreno" else f" (best NewRenoED {nr / b['thr'] - 1:+.1%})")
        )
    ok = hits > pts / 2
    detail = f"Best at {hits} of {pts} points. " + "; ".join(lines) + "."
    if not ok:
        small = [g for g in gaps if g[0] <= 0.02]
        big = max(gaps)
        detail += (
            " The paper's explanation is a NewRenoED recovery that repairs every loss while "
            "halving the window once; our SackED does the same in fewer round trips, and "
            f"the best NewRenoED pair is within 2 % of the best pair at {len(small)} of {pts} "
            f"points. The largest gap, {big[0]:.1%} at {big[1]} ms and BER "
            f"{_exp_text(big[2])}, is the slow-start overshoot at high BDP: NewRenoED repairs "
            "its losses one per round trip, SackED all at once, the effect the paper itself "
            "reports at low BER and high RTT (section 3.1)."
        )
    return Finding(claim, ok, detail)


def _claim_peak(diff: pd.DataFrame, rtts: Sequence[int]) -> Finding:
    claim = (
        "(e) The BER where the choice of pair matters most falls as the RTT grows: 1e-6..10^-5.5 "
        "at 50 ms, 1e-7..10^-6.5 at 200 ms, about 1e-7 at 500 ms (section 3.3)"
    )
    if diff.empty:
        return Finding(claim, None, "not evaluated: no runs")
    peaks = {}
    for rtt in rtts:
        d = diff[diff["rtt_ms"] == rtt]
        if len(d) >= 3 and d["diff_paper"].notna().any():
            peaks[rtt] = float(d.loc[d["diff_paper"].idxmax(), "ber_exp"])
    if len(peaks) < 2:
        return Finding(claim, None, "not evaluated: fewer than two RTTs with three BERs")
    order = [peaks[r] for r in sorted(peaks)]
    falls = all(b <= a + 1e-9 for a, b in zip(order, order[1:], strict=False))
    inside = []
    for rtt, e in peaks.items():
        rng = PAPER["peak_difference_bers"].get(str(rtt))
        if rng:
            lo, hi = (math.log10(x) for x in rng)
            inside.append(lo - 0.25 - 1e-9 <= e <= hi + 0.25 + 1e-9)
    detail = (
        "Largest (Figures 5-7) difference at: "
        + ", ".join(f"{r} ms BER {_exp_text(e)}" for r, e in sorted(peaks.items()))
        + f". Falls with the RTT: {'yes' if falls else 'no'}; within a quarter decade of the "
        f"paper's range at {sum(inside)} of {len(inside)} RTTs."
    )
    ok = bool(falls) and sum(inside) > len(inside) / 2
    if not ok:
        detail += (
            " Our largest differences sit where TahoeCC's go-back-N (low BER, long RTT) or "
            "DupAckED's timeouts (PER above 7 %) cost most; see claim (a)."
        )
    return Finding(claim, ok, detail)


def _ed_note(cells: pd.DataFrame) -> Finding | None:
    """What NewRenoED changes against DupAckED under each congestion control (no verdict)."""
    parts = []
    for cc in CCS:
        a = cells[(cells["cc"] == cc) & (cells["lr"] == "newreno")]
        b = cells[(cells["cc"] == cc) & (cells["lr"] == "dupack")]
        m = a.merge(b, on=["rtt_ms", "ber_exp"], suffixes=("_nr", "_da"))
        m = m[m["thr_da"] > 0]
        if not len(m):
            continue
        rel = m["thr_nr"] / m["thr_da"] - 1
        parts.append(
            f"{CC_PAPER[cc]}: NewRenoED / DupAckED - 1 from {rel.min():+.1%} to {rel.max():+.1%} "
            f"(median {rel.median():+.1%}); RTOs per transfer {m['rto_nr'].mean():.1f} against "
            f"{m['rto_da'].mean():.1f}"
        )
    if not parts:
        return None
    return Finding(
        "NewRenoED against DupAckED, per congestion control (the error detection owns the "
        "recovery phase)",
        None,
        "; ".join(parts) + ". DupAckED ends its phase at the first new ACK, so a second hole "
        "in the window waits for three more duplicate ACKs or a timeout; NewRenoED resends it "
        "on the partial ACK, with any congestion control, and keeps the phase open until the "
        "recovery point. How much that helps depends on the window rule inside the phase (see "
        "claim (c)).",
    )


# ----------------------------------------------------------------------------------------------
# Figures

_LR_COLOR = {"dupack": PALETTE[3], "newreno": PALETTE[0], "sack": PALETTE[1]}
_CC_STYLE = {"tahoe": ":", "reno": "--", "newreno": "-"}
_CC_MARK = {"tahoe": "v", "reno": "s", "newreno": "o"}


def _fig_throughput(cells: pd.DataFrame, rtt: int, combos: Sequence[tuple[str, str]]) -> Figure:
    fig, ax = new_figure(figsize=(8.5, 5))
    c = cells[cells["rtt_ms"] == rtt]
    for cc, lr in combos:
        d = c[(c["cc"] == cc) & (c["lr"] == lr)].sort_values("ber_exp")
        if d.empty:
            continue
        ax.plot(
            10.0 ** d["ber_exp"], d["thr"] / 1e3, _CC_STYLE.get(cc, "-"),
            marker=_CC_MARK.get(cc, "."), ms=3.5, lw=1.2, color=_LR_COLOR.get(lr, "#555555"),
            label=pair_name(cc, lr),
        )  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel("BER")
    ax.set_ylabel("throughput (kB/s)")
    ax.set_title(f"RTT {rtt} ms", fontsize=10, loc="left")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, ncol=3)
    return fig


def _fig_cwnd(traced: dict[int, Result]) -> Figure:
    fig, axes = new_figure(len(traced), 1, figsize=(9, 2.4 * len(traced) + 0.6))
    axes = np.atleast_1d(axes)
    for ax, (rtt, r) in zip(axes, sorted(traced.items()), strict=True):
        tr = r.traces["trace"]
        tr = tr[tr["conn"] == 0]
        t = tr["time_s"].to_numpy(dtype=float)
        ax.step(t, tr["cwnd"].to_numpy(dtype=float) / MSS, where="post", lw=0.9,
                color=PALETTE[0], label="cwnd")  # fmt: skip
        ss = np.minimum(tr["ssthresh"].to_numpy(dtype=float) / MSS, 1e4)
        ax.step(t, ss, where="post", lw=0.8, ls="--", color=PALETTE[2], label="ssthresh")
        ev = r.traces.get("events")
        if ev is not None and len(ev):
            fr = ev[ev["kind"] == "fast_retransmit"].sort_values("time_s")
            ends = ev[ev["kind"].isin(["recovery_exit", "rto"])].sort_values("time_s")
            for t0 in fr["time_s"]:
                after = ends[ends["time_s"] > t0]["time_s"]
                t1 = float(after.iloc[0]) if len(after) else float(t.max())
                ax.axvspan(t0, t1, color="#E8E8F4", zorder=0)
            for kind, color in (("drop_error", "#CC0000"), ("drop_queue", "#777777")):
                x = ev.loc[(ev["kind"] == kind) & (ev["end"] == 0), "time_s"]
                if len(x):
                    ax.plot(x, np.zeros(len(x)), "|", color=color, ms=7)
        top = float(np.nanmax(tr["cwnd"].to_numpy(dtype=float))) / MSS if len(tr) else 1
        ax.set_ylim(-0.03 * top, top * 1.08)
        ax.set_xlim(0, float(t.max()) if len(t) else 1)
        ax.set_ylabel("segments")
        ax.set_title(f"RTT {rtt} ms", fontsize=9, loc="left")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("time (s)")
    return fig


def _fig_difference(diff: pd.DataFrame, rtt: int) -> Figure:
    fig, ax = new_figure(figsize=(8, 4))
    d = diff[diff["rtt_ms"] == rtt].sort_values("ber_exp")
    x = 10.0 ** d["ber_exp"]
    ax.plot(x, 100 * d["diff_paper"], "-o", ms=4, color=PALETTE[0],
            label="without the pairs Figures 5-7 exclude")  # fmt: skip
    ax.plot(x, 100 * d["diff_all"], ":", marker=".", color=PALETTE[3], label="all nine pairs")
    ax.axhline(10, color="#555555", ls="--", lw=0.8)
    ax.text(x.min(), 10, " 10 %", fontsize=7, va="bottom")
    ax.set_xscale("log")
    ax.set_xlabel("BER")
    ax.set_ylabel("(best - worst) / best (%)")
    ax.set_title(f"RTT {rtt} ms", fontsize=10, loc="left")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return fig


STUDY = ModularBer()
