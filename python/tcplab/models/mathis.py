"""Mathis, Semke, Mahdavi, Ott 1997: the macroscopic "square-root" TCP model."""

from __future__ import annotations

import numpy as np

from ._validate import as_array, finish

__all__ = ["mathis_constant", "mathis_throughput"]


def mathis_constant(b=1):
    """The constant ``C = sqrt(3 / (2 b))`` of the Mathis formula.

    ``b`` is the number of segments acknowledged by one ACK: ``C = sqrt(3/2) ~= 1.225``
    for ``b = 1`` (an ACK per segment) and ``sqrt(3/4) ~= 0.866`` for ``b = 2``
    (delayed ACKs).  Mathis et al. 1997 derive it for periodic loss; their random-loss
    value (about 1.22 for ``b = 1``) is practically the same.
    """
    b = as_array("b", b, lo=1.0)
    return finish(np.sqrt(3.0 / (2.0 * b)))


def mathis_throughput(mss, rtt, p, *, b=1, c=None):
    """Steady-state TCP Reno throughput in bytes/s (Mathis et al. 1997).

    Formula: ``B = (MSS / RTT) * C / sqrt(p)`` with ``C = sqrt(3 / (2 b))``
    (see :func:`mathis_constant`); pass ``c`` to use another constant.

    Sources: Mathis, Semke, Mahdavi, Ott, "The macroscopic behavior of the TCP
    congestion avoidance algorithm", CCR 27(3), 1997; NetSim seed 002 writes it as
    ``sqrt(3 / (2 p)) * MSS / RTT`` and evaluates it for ``p = 1.2e-3`` (its rounding of
    the PER of a 1500-byte frame at BER 1e-7), MSS 1460 bytes and RTT 100 ms:
    516,187.95 bytes/s = 4.1295 Mbps, which NetSim prints, truncated, as 4.12 Mbps.
    With the exact PER (1.19928e-3) the figure is 4.1307 Mbps.

    Assumptions: long-lived bulk transfer in congestion avoidance, the sawtooth of
    AIMD with halving, losses detected by fast retransmit only (no timeouts), constant
    RTT, the window never hits the receive window, ``p`` is the per-segment loss
    probability.

    Validity: low loss (roughly ``p < 0.01``; above a few percent timeouts dominate and
    the formula over-estimates, see :func:`tcplab.models.pftk_throughput`).  It tends
    to infinity as ``p -> 0`` (returned as ``inf``): combine it with the window and
    line-rate limits (:func:`tcplab.models.download_time` does).  At ``p = 1`` it
    returns a finite, meaningless number.

    Parameters: ``mss`` > 0 bytes, ``rtt`` > 0 s, ``p`` in [0, 1], ``b`` >= 1, ``c`` > 0.
    Returns bytes/s.
    """
    mss = as_array("mss", mss, lo=0.0, lo_open=True, unit="bytes")
    rtt = as_array("rtt", rtt, lo=0.0, lo_open=True, unit="s")
    p = as_array("p", p, lo=0.0, hi=1.0)
    if c is None:
        c = mathis_constant(b)
    else:
        c = as_array("c", c, lo=0.0, lo_open=True)
    with np.errstate(divide="ignore"):
        rate = mss / rtt * c / np.sqrt(p)
    return finish(rate)
