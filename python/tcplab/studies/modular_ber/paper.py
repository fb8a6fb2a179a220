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
