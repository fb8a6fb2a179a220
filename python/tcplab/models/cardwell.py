"""Cardwell, Savage, Anderson 2000: expected latency of a finite TCP transfer.

Reference: N. Cardwell, S. Savage, T. Anderson, "Modeling TCP Latency", IEEE
INFOCOM 2000.  The model extends PFTK (:mod:`tcplab.models.pftk`) with connection
establishment, the initial slow start, the first loss and a delayed-ACK term, so it
is valid for short transfers where the steady-state models are not.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validate import as_array, finish
from .pftk import _pftk_packets_per_rtt_unit, _timeout_probability

__all__ = ["CardwellLatency", "cardwell_latency"]


class CardwellLatency(NamedTuple):
    """Expected latency of a transfer and its parts, all in seconds.

    ``total = handshake + slow_start + first_loss + congestion_avoidance +
    delayed_ack``.  ``slow_start_segments`` is ``E[d_ss]``, the expected number of
    data segments sent in the initial slow start; ``slow_start_window`` is
    ``E[W_ss]`` in segments.
    """

    total: np.ndarray | np.float64
    handshake: np.ndarray | np.float64
    slow_start: np.ndarray | np.float64
    first_loss: np.ndarray | np.float64
    congestion_avoidance: np.ndarray | np.float64
    delayed_ack: np.ndarray | np.float64
    slow_start_segments: np.ndarray | np.float64
    slow_start_window: np.ndarray | np.float64


def cardwell_latency(
    segments,
    rtt,
    p,
    rto=1.0,
    *,
    b=1,
    w1=1,
    wmax=np.inf,
    p_reverse=None,
    syn_timeout=3.0,
    delayed_ack=None,
    handshake=True,
):
    """Expected time to open a connection and transfer ``segments`` data segments.

    With ``d = segments``, ``q = 1 - p``, ``gamma = 1 + 1/b`` (window growth per RTT in
    slow start with ``b`` segments per ACK), ``T0 = rto``, ``Wmax = wmax`` segments::

        E[T_hs]  = RTT + Ts ((1-p_r)/(1-2p_r) + (1-p)/(1-2p) - 2)        handshake
        E[d_ss]  = min(d, (1 - q^d) q / p + 1)                             (d if p = 0)
        E[W_ss]  = E[d_ss] (gamma - 1)/gamma + w1/gamma
        E[T_ss]  = RTT log_gamma(E[d_ss] (gamma-1)/w1 + 1)                if E[W_ss] <= Wmax
                 = RTT (log_gamma(Wmax/w1) + 1
                        + (E[d_ss] - (gamma Wmax - w1)/(gamma - 1)) / Wmax) otherwise
        l_ss     = 1 - q^d                                 (a loss happens at all)
        E[T_loss]= l_ss (Q(p, W) T0 f(p)/q + (1 - Q(p, W)) RTT),  W = min(E[W_ss], Wmax)
        E[T_ca]  = (d - E[d_ss]) / R,   R = full PFTK send rate in packets/s
        E[T]     = E[T_hs] + E[T_ss] + E[T_loss] + E[T_ca] + E[T_delack]

    ``Ts`` is the initial SYN timeout (``syn_timeout``, 3 s), ``p_r`` the loss
    probability of the reverse path (defaults to ``p``), ``Q`` and ``f`` are PFTK's
    timeout probability and back-off factor.  ``E[T_delack]`` (``delayed_ack``) is the
    time the receiver's delayed-ACK timer holds the ACK of the first segment; by
    default 0.1 s (the mean of a 0-200 ms BSD-style timer) when ``b >= 2`` and 0 for
    ``b = 1``.  ``handshake=False`` leaves out ``E[T_hs]``.

    Choices where the sources leave room: the "+1" in ``E[d_ss]`` (the lost segment
    itself) makes the paper's expression exceed ``d`` as ``p -> 0``, so it is capped at
    ``d``; ``Q`` is evaluated at the window actually reached, ``min(E[W_ss], Wmax)``;
    ``w1`` above ``Wmax`` is treated as ``Wmax``.

    Assumptions: losses independent with probability ``p`` per segment; the sender
    always has data; the transfer is ``d`` full-sized segments; RTT constant; TCP
    Reno-like recovery; after the first loss the connection behaves as in PFTK's steady
    state.

    Validity: the handshake term is infinite for ``p >= 0.5`` or ``p_r >= 0.5``
    (exponential SYN back-off); everything is infinite at ``p = 1``.  For very long
    transfers ``E[T] / d`` tends to ``1 / R`` (PFTK).

    Parameters: ``segments`` >= 0, ``rtt`` > 0 s, ``p`` and ``p_reverse`` in [0, 1],
    ``rto`` > 0 s, ``b`` >= 1, ``w1`` >= 1 segments, ``wmax`` >= 1 segments (inf: no
    cap), ``syn_timeout`` >= 0 s, ``delayed_ack`` >= 0 s.

    Returns a :class:`CardwellLatency` of numpy floats (arrays for array input).
    """
    d = as_array("segments", segments, lo=0.0, unit="segments")
    rtt = as_array("rtt", rtt, lo=0.0, lo_open=True, unit="s")
    p = as_array("p", p, lo=0.0, hi=1.0)
    t0 = as_array("rto", rto, lo=0.0, lo_open=True, unit="s")
    b = as_array("b", b, lo=1.0)
    w1 = as_array("w1", w1, lo=1.0, unit="segments")
    wmax = as_array("wmax", wmax, lo=1.0, finite=False, unit="segments")
    pr = p if p_reverse is None else as_array("p_reverse", p_reverse, lo=0.0, hi=1.0)
    ts = as_array("syn_timeout", syn_timeout, lo=0.0, unit="s")
    if delayed_ack is None:
        t_delack = np.where(b >= 2.0, 0.1, 0.0)
    else:
        t_delack = as_array("delayed_ack", delayed_ack, lo=0.0, unit="s")

    d, rtt, p, t0, b, w1, wmax, pr, ts, t_delack = np.broadcast_arrays(
        d, rtt, p, t0, b, w1, wmax, pr, ts, t_delack
    )
    q = 1.0 - p
    gamma = 1.0 + 1.0 / b
    w1 = np.minimum(w1, wmax)

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # Connection establishment (SYN and SYN/ACK each retried after Ts, 2Ts, ...).
        def syn_cost(x):
            return np.where(x < 0.5, (1.0 - x) / (1.0 - 2.0 * x) - 1.0, np.inf)

        t_hs = rtt + ts * (syn_cost(pr) + syn_cost(p))
        if not handshake:
            t_hs = np.zeros_like(rtt)

        # Initial slow start.
        q_log = np.log1p(-np.where(p < 1.0, p, 0.0))
        some_loss = -np.expm1(d * q_log)  # 1 - (1-p)^d, accurate for tiny p
        d_ss = np.where(p > 0.0, some_loss * q / p + 1.0, d)
        d_ss = np.where(p >= 1.0, np.minimum(d, 1.0), np.minimum(d, d_ss))
        w_ss = d_ss * (gamma - 1.0) / gamma + w1 / gamma
        log_g = np.log(gamma)
        t_ss_free = rtt * np.log(d_ss * (gamma - 1.0) / w1 + 1.0) / log_g
        t_ss_capped = rtt * (
            np.log(wmax / w1) / log_g + 1.0 + (d_ss - (gamma * wmax - w1) / (gamma - 1.0)) / wmax
        )
        t_ss = np.where(w_ss > wmax, t_ss_capped, t_ss_free)

        # The first loss: a timeout with probability Q, else a fast retransmit (one RTT).
        l_ss = np.where(p >= 1.0, np.where(d > 0, 1.0, 0.0), some_loss)
        qto = _timeout_probability(p, np.minimum(w_ss, wmax))
        f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
        t_loss = np.where(l_ss > 0.0, l_ss * (qto * t0 * f / q + (1.0 - qto) * rtt), 0.0)

        # The rest of the transfer at PFTK's steady-state rate.
        d_ca = np.maximum(d - d_ss, 0.0)
        rate = _pftk_packets_per_rtt_unit(rtt, p, t0, b, wmax)
        t_ca = np.where(d_ca > 0.0, np.where(p >= 1.0, np.inf, d_ca / rate), 0.0)

        t_delack = np.where(d > 0.0, t_delack, 0.0)
        total = t_hs + t_ss + t_loss + t_ca + t_delack
        total = np.where((p >= 1.0) & (d > 0.0), np.inf, total)

    return CardwellLatency(
        total=finish(total),
        handshake=finish(t_hs),
        slow_start=finish(t_ss),
        first_loss=finish(t_loss),
        congestion_avoidance=finish(t_ca),
        delayed_ack=finish(t_delack),
        slow_start_segments=finish(d_ss),
        slow_start_window=finish(w_ss),
    )
