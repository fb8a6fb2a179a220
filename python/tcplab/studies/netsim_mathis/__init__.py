"""NetSim, "Mathematical Modelling of TCP Throughput Performance" (seed 002).

NetSim's experiment: two wired nodes and two routers in a chain; 10 Mbit/s links, 100 us of
propagation delay on the two access links and 50 ms on the backbone; a CBR application (1460-byte
packets every 1168 us, i.e. 10 Mbit/s offered, more than TCP can carry) from node 1 to node 2
over TCP NewReno with a 64 KB window and no window scaling; 100 s. Two samples: BER 0, and BER
1e-7 on the backbone. NetSim reports 4.912 Mbps and 3.806 Mbps (Figures 1-3 and 1-6) and checks
them against the window limit 65535 x 8 / 100 ms = 5.24 Mbps and the Mathis formula
sqrt(3 / (2p)) x MSS / RTT = 4.12 Mbps for p = 1.2e-3 (the PER of a 1500-byte frame).

Decisions (ours, stated in the report):

* BER on the backbone in **both directions**: step 1 of the lossy sample sets "Uplink BER and
  Downlink BER to 0.0000001" on link 2. ACK frames (84 bytes on the wire, 64 exposed) then see a
  PER of about 5e-5, which hardly matters for cumulative ACKs.
* Both ACK policies: NetSim's Mathis figure uses b = 1 (an ACK per segment); the seed does not
  say whether NetSim's TCP delayed its ACKs, so every case runs with ``delayed_ack = false`` and
  with ``delayed_ack = true`` (every 2 segments, 200 ms timer).
* TCP: profile ``rfc`` (RTO min 1 s, 1 ms clock), 65,535-byte receive buffer, no window scaling,
  no timestamps, no SACK, per-ACK congestion avoidance (cwnd += MSS^2 / cwnd per ACK, the growth
  the Mathis derivation assumes), NewReno through ``variant = "newreno"`` when the core knows it;
  otherwise the study falls back (see `TCP_CHOICES`) and says which it used.
* Ethernet framing: a full data frame is 1538 bytes on the wire and 1518 exposed to errors, so
  our p at BER 1e-7 is 1.214e-3 where NetSim uses 1500 bytes (1.199e-3, printed 1.2e-3).

The package: `paper` (the seed's numbers, the TCP choices, the ACK policies), `study` (the grid
and the analysis), `tables`, `claims` (checks and findings) and `figures`; the scenario is
`tcplab/studies/scenarios/netsim_mathis.toml` (`examples/netsim_mathis.toml`).
"""

from __future__ import annotations

from .paper import (
    ACK_POLICIES,
    ACK_TEXT,
    BERS,
    NETSIM,
    PAPER,
    STEADY_FROM_S,
    TCP_CHOICES,
    ber_overrides,
    case_key,
)
from .study import NetsimMathis

__all__ = [
    "ACK_POLICIES",
    "ACK_TEXT",
    "BERS",
    "NETSIM",
    "PAPER",
    "STEADY_FROM_S",
    "STUDY",
    "TCP_CHOICES",
    "NetsimMathis",
    "ber_overrides",
    "case_key",
]

STUDY = NetsimMathis()
