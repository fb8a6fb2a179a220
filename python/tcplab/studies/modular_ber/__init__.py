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
* the queue and the window are guesses, so the whole grid runs again with a queue of 200 and
  1000 packets and a window of 65,535 bytes and of 20 segments (`QUEUES` x `WINDOWS`, option
  ``sensitivity``), and every claim is judged under each setting (table "sensitivity");
* a transfer that has not finished after `STOP_TIME` (the paper gives no simulation length;
  at BER 1e-4 one packet in three is lost and 10 MB would take hours) counts as delivered
  bytes / elapsed time; finished ones as 10 MB / transfer time. Both are "throughput".

The package: `paper` (the paper's numbers, our settings and how pairs and cases are named),
`study` (the `Study`: grid, metrics, the order of the analysis), `analysis` (cell means over
seeds, best-worst differences), `claims` (the paper's claims and the model checks), `tables`,
`figures`, and `mechanisms` (recovery phases measured on traced runs).
"""

from __future__ import annotations

from . import mechanisms as mechanisms
from .analysis import cell_means, differences
from .claims import _claim_a as _claim_a
from .claims import _claim_b as _claim_b
from .claims import _claim_c as _claim_c
from .claims import _claim_d as _claim_d
from .claims import _claim_peak as _claim_peak
from .claims import claims
from .more_claims import claim_best_low_ber, claim_sack_high_ber, claim_sack_low_ber
from .paper import (
    BER_EXPONENTS,
    CC_PAPER,
    CCS,
    COMBOS,
    FIG4_EXPONENT,
    FILE_SIZE,
    LR_PAPER,
    LRS,
    MSS,
    PAPER,
    QUEUES,
    QUOTES,
    RTTS_MS,
    SETTINGS,
    STOP_TIME,
    WINDOWS,
    case_key,
    config_name,
    pair_name,
    paper_per,
)
from .study import ModularBer

__all__ = [
    "BER_EXPONENTS",
    "CCS",
    "CC_PAPER",
    "COMBOS",
    "FIG4_EXPONENT",
    "FILE_SIZE",
    "LRS",
    "LR_PAPER",
    "MSS",
    "PAPER",
    "QUEUES",
    "QUOTES",
    "RTTS_MS",
    "SETTINGS",
    "STOP_TIME",
    "WINDOWS",
    "ModularBer",
    "STUDY",
    "case_key",
    "cell_means",
    "claim_best_low_ber",
    "claim_sack_high_ber",
    "claim_sack_low_ber",
    "claims",
    "config_name",
    "differences",
    "mechanisms",
    "pair_name",
    "paper_per",
]

#: the old module's private name, which the tests still use
_differences = differences

STUDY = ModularBer()
