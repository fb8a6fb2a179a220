"""The paper's numbers (seed 001), our settings where it is silent, and how its pairs, BERs and
cases are named."""

from __future__ import annotations

from typing import Any

from tcplab import models

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

#: The paper's sentences each claim tests (`Finding.tests`), by claim label.
QUOTES: dict[str, str] = {
    "a": "Conclusions: 'the difference in throughput between the different TCP variants is less "
    "than 10 % for most BERs for all three RTT values considered' (Figures 5-7)",
    "b": "section 3.3: 'SackED has a higher throughput than NewRenoED only for the lower RTT "
    "value of 50 ms and BERs higher than 10^-6. Even then the throughput difference is less "
    "than 5%'",
    "c": "section 3.1: 'NewRenoED's lowest performance is together with RenoCC' (Figures 2, "
    "3); section 3.3: RenoCC + NewRenoED excluded at 200 and 500 ms, BER 1e-8 to 1e-7, 'because "
    "of its exceptionally bad performance'",
    "d": "section 3.2: NewRenoED 'gives the highest throughput results for BERs ranging from "
    "10^-6.75 to 10^-5.75 independent of the bandwidth delay product'",
    "e": "section 3.3: the choice matters most for BER 1e-6 to about 10^-5.5 at 50 ms, 1e-7 to "
    "10^-6.5 at 200 ms, around 1e-7 at 500 ms",
    "f": "section 3.1: 'For paths with a lower bandwidth delay product (Figure 1) TCP NewReno "
    "is the best protocol for BERs up to 10^-6'",
    "g": "section 3.2: 'For BERs above 10^-5.75 ... NewRenoCC and SackED slightly outperforms "
    "NewRenoCC & NewRenoED'",
    "h": "section 3.3: 'SackED only obtains better throughput for low BER values and high RTTs "
    "because the file size is too short to achieve a high throughput with NewRenoED'",
}

#: The settings the paper does not give and we guessed, varied as a declared sensitivity
#: (option `sensitivity`): the bottleneck's drop-tail queue (packets) and the receive window
#: (bytes; the initial ssthresh follows it, as ns-2's does). The first of each is the main
#: grid's: ns-2's default queue limit, and a window far above the 500 ms path's 122 KB. The
#: others: a queue of 200 and 1000 packets, the largest window without window scaling
#: (65,535 B) and ns-2's default window_ of 20 packets (20 x 536 B).
QUEUES: tuple[int, ...] = (50, 200, 1000)
WINDOWS: tuple[int, ...] = (1_000_000, 65_535, 20 * 536)


def config_name(queue: int, window: int) -> str:
    """'queue 50 p, window 1 MB'."""
    w = {1_000_000: "1 MB", 65_535: "64 KB", 20 * 536: "20 segments"}.get(window, f"{window} B")
    return f"queue {queue} p, window {w}"


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

#: Where Figure 4 (cwnd of TCP NewReno) is drawn: BER 10^-6.5, in the region where the paper
#: explains NewRenoED's two recovery phases, at every RTT.
FIG4_EXPONENT = -6.5


# ----------------------------------------------------------------------------------------------
# Naming


def paper_per(ber: float, mss: int = MSS) -> float:
    """The paper's PER of a segment: 1 - (1 - BER)^(8 x MSS), the rule of
    `tcplab.models.per_from_ber` with the MSS as the frame's length."""
    return float(models.per_from_ber(ber, mss))


def pair_name(cc: str, lr: str) -> str:
    """'RenoCC + NewRenoED'."""
    return f"{CC_PAPER.get(cc, cc)} + {LR_PAPER.get(lr, lr)}"


def exp_text(e: float) -> str:
    """A BER exponent as text: -8.0 -> '1e-8', -6.5 -> '10^-6.5'."""
    return f"1e{e:g}" if e == int(e) else f"10^{e:g}"


def case_key(rtt_ms: int, exponent: float, cc: str, lr: str) -> str:
    return f"rtt {rtt_ms}/ber {exp_text(exponent)}/{cc}+{lr}"
