"""The seed's numbers (NetSim's results and the figures of its text), the TCP settings we try
in turn, the two ACK policies, and the case keys and overrides built from them."""

from __future__ import annotations

from typing import Any

__all__ = [
    "ACK_POLICIES",
    "ACK_TEXT",
    "BERS",
    "NETSIM",
    "PAPER",
    "STEADY_FROM_S",
    "TCP_CHOICES",
    "ber_overrides",
    "case_key",
    "mbps",
]

# ----------------------------------------------------------------------------------------------
# The seed's numbers

#: The two samples: backbone BER.
BERS: tuple[float, ...] = (0.0, 1e-7)

#: NetSim's application metrics (Figures 1-3 and 1-6): BER -> (packets generated, packets
#: received, throughput in Mbps, delay in us).
NETSIM: dict[float, tuple[int, int, float, float]] = {
    0.0: (85617, 42055, 4.912024, 25667072.446895),
    1e-7: (85617, 32589, 3.806395, 31884960.015729),
}

#: Figures from the seed's text.
PAPER: dict[str, float] = {
    "rate_Mbps": 10.0,
    "access_delay_s": 100e-6,
    "backbone_delay_s": 50e-3,
    "packet_size": 1460,
    "interval_s": 1168e-6,
    "sim_time_s": 100.0,
    "window_bytes": 65535,
    "rtt_s": 0.1,  # "approximately 100 milliseconds"
    "window_limit_Mbps": 5.24,  # 65535 x 8 / 0.1 s
    "frame_bytes": 1500,  # "the PHY layer packet length (1500 bytes)"
    "per": 1.2e-3,  # 1 - (1 - 1e-7)^(1500 x 8), rounded
    "mss": 1460,
    "mathis_Mbps": 4.12,  # sqrt(3 / (2 x 1.2e-3)) x 1460 x 8 / 0.1
}

#: TCP settings tried in order until the core accepts one: NewReno by its classic name, NewReno
#: as a congestion control + loss recovery pair, and Reno with the default recovery.
TCP_CHOICES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("newreno (variant)", {"tcp.variant": "newreno"}),
    (
        "newreno (congestion_control + loss_recovery)",
        {"tcp.congestion_control": "newreno", "tcp.loss_recovery": "newreno"},
    ),
    ("reno + the default loss recovery (fallback: the core has no NewReno)", {}),
)

#: Trace window for the steady-state throughput (s): after slow start and the first loss
#: cycle, to the end.
STEADY_FROM_S = 10.0

# ----------------------------------------------------------------------------------------------
# Ours: both ACK policies (the seed does not say which NetSim used)

#: The ACK policies every case runs with: (key, `tcp.delayed_ack`).
ACK_POLICIES: tuple[tuple[str, bool], ...] = (("ack-every", False), ("delayed-ack", True))
ACK_TEXT = {
    "ack-every": "an ACK per segment (b = 1)",
    "delayed-ack": "delayed ACKs (b = 2, 200 ms)",
}


def ber_overrides(ber: float) -> dict[str, Any]:
    """The backbone's error model in both directions (the seed sets uplink and downlink)."""
    err = {"model": "none"} if ber == 0 else {"model": "ber", "ber": ber}
    return {"links.backbone.ab.error": err, "links.backbone.ba.error": err}


def case_key(ber: float, policy: str) -> str:
    """The key of the case at backbone BER `ber` with ACK policy `policy`."""
    return f"ber {ber:g}/{policy}"


def mbps(bps: float) -> float:
    """Bytes/s as Mbit/s (10^6 bit/s)."""
    return bps * 8 / 1e6
