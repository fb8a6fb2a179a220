"""TCP Reno, SACK and Westwood across a hybrid wired/wireless path (seed 003).

The paper (Oluwatope, Obabire, Aderounmu, Adigun) simulates in ns-2 a campus sub-net whose
gateway reaches the central network over a 2 Mbit/s wireless hop with packet errors; "5 %
wireless packet error rate, 2 Mbps bottleneck bandwidth and two-way propagation time of 5 ms
were set as standard". It compares TCP Reno, TCP SACK and TCP Westwood (Figures 3-6): throughput
over time at 5 % PER, a PER sweep (0-20 %), a bottleneck-speed sweep (2-10 Mbit/s at 5 % PER)
and a propagation-time sweep (0-25 ms at 0.05 % PER), and reports Westwood ahead throughout
(about 0.9 Mbit/s against 0.2 for Reno and SACK at 10 % PER).

The seed gives neither the wired segment nor the packet size nor the window nor the run length,
so these are ours (the report prints them, see `SETTINGS`): ns-2's defaults (the ``ns2`` profile:
1000-byte packets, a window of 20 packets, an ACK per packet, no SACK option but for the SACK
variant), a 100 Mbit/s wired hop, drop-tail queues of 50 packets, errors on the wireless hop's
data direction only, a bulk (FTP) transfer over 60 s. Variants: Reno and SACK as the core's
classic names resolve them (``reno`` = Reno + duplicate-ACK recovery, ``sack`` = ns-2's Sack1:
NewReno + RFC 6675 SACK recovery), Westwood = the ``westwood`` congestion control with
duplicate-ACK recovery (ns-2's Agent/TCP/Westwood is Reno-based).

Which Westwood (``-O westwood_model=``): by default ``ns2``, the rules of the ns-2 TCP Westwood
add-on module the authors ran (``cc_params.model = "ns2"``: at most 2 packets counted per ACK,
``filter_type_`` 1's fixed coefficients, RTTmin from the tick-counted RTT samples, the ``fr_a_``
divisor after timeouts in slow start, no window inflation), because the paper's numbers came
from it and every other agent here is ns-2's; ``paper`` runs the seed's equations 1-5 instead.
``-O westwood_recovery=newreno`` turns either into WestwoodNR.

Two setups run every sweep:

* ``stated``: the paper's numbers as printed: the 5 ms two-way propagation time all on the
  wireless hop, the wired hop without delay;
* ``inferred``: the paper's own loss-free figure says all three variants got "about 1 Mbps,
  approximately 50 % link utilisation" at 0 % PER. A loss-free TCP is that slow on a 2 Mbit/s
  hop only if its window limits it: ns-2's window of 20 x 1000-byte packets carries 1 Mbit/s
  at an RTT of 160 ms. This setup puts the missing delay on the wired segment (the sub-net
  reaches its peer "via the Internet") so that the RTT is 160 ms at the standard point. It is
  an inference from the paper's 0 % result, not a fit to the claims; both are reported.

Throughput is the receiver's goodput: bytes delivered in order to the application / run time.

Figure 3's statements (C1-C4) are judged over every seed's run (each records its trace), with
a 95 % confidence interval of the per-seed differences. The paper's application is HTTP and its
run length unknown: the sweeps "http" (web pages at 0, 5 and 10 % PER) and "per-20s" (the PER
sweep over 20 s) say what those would change.

The package: `paper` (the paper's numbers, our settings, the path model), `study` (the grid and
the analysis), `tables`, `claims` (checks and findings) and `figures`; the scenario is
`tcplab/studies/scenarios/westwood_wireless.toml` (`examples/westwood_wireless.toml`).
"""

from __future__ import annotations

from .paper import (
    DELAY_READINGS,
    DELAY_SWEEP_PER,
    DELAYS_MS,
    ERRATA,
    HEADERS,
    HTTP_APP,
    HTTP_PERS,
    LABELS,
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
    VARIANTS,
    WESTWOOD_MODEL,
    WESTWOOD_MODELS,
    WINDOW_PACKETS,
    base_rtt_s,
    inferred_wired_delay_ms,
    mathis_mbps,
    variant_pairs,
    westwood_setting,
)
from .study import WestwoodWireless

__all__ = [
    "DELAY_READINGS",
    "DELAYS_MS",
    "DELAY_SWEEP_PER",
    "ERRATA",
    "HEADERS",
    "HTTP_APP",
    "HTTP_PERS",
    "LABELS",
    "PACKET",
    "PAPER",
    "PERS",
    "SETTINGS",
    "SETUPS",
    "SHORT_PERS",
    "SHORT_STOP_S",
    "SPEEDS_MBPS",
    "STANDARD",
    "STOP_S",
    "STUDY",
    "VARIANTS",
    "WESTWOOD_MODEL",
    "WESTWOOD_MODELS",
    "WINDOW_PACKETS",
    "WestwoodWireless",
    "base_rtt_s",
    "inferred_wired_delay_ms",
    "mathis_mbps",
    "variant_pairs",
    "westwood_setting",
]

STUDY = WestwoodWireless()
