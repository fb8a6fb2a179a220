"""Padhye, Firoiu, Towsley, Kurose 1998 (PFTK): TCP Reno throughput with timeouts.

Reference: J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A
Simple Model and its Empirical Validation", ACM SIGCOMM 1998 (the full model, with
the receive-window cap, and the approximate closed form).  The model counts
*packets sent* per second, retransmissions included; multiply by ``1 - p`` for the
rate of packets delivered (``goodput=True``).
"""

from __future__ import annotations

import numpy as np

from ._validate import as_array, finish

__all__ = [
    "pftk_backoff_factor",
    "pftk_expected_window",
    "pftk_timeout_probability",
    "pftk_throughput",
    "pftk_approx_throughput",
]


def _one_minus_pow(q_log, k):
    """``1 - q**k`` computed as ``-expm1(k log q)`` (accurate for q close to 1)."""
    return -np.expm1(k * q_log)


def pftk_backoff_factor(p):
    """PFTK's timeout back-off factor ``f(p) = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6``.

    The expected duration of a sequence of timeouts is ``T0 f(p) / (1 - p)``: the
    timer doubles after each unsuccessful retransmission up to ``64 T0``.
    ``f(0) = 1``, ``f(1) = 64``.  ``p`` must be in [0, 1].
    """
    p = as_array("p", p, lo=0.0, hi=1.0)
    return finish(1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6)


def _expected_window(p, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        a = (2.0 + b) / (3.0 * b)
        w = a + np.sqrt(8.0 * (1.0 - p) / (3.0 * b * p) + a * a)
    return np.where(p == 0.0, np.inf, w)


def pftk_expected_window(p, *, b=1):
    """Expected unconstrained window (segments) at the end of a loss cycle in PFTK.

    Formula: ``E[W] = (2 + b)/(3b) + sqrt(8 (1 - p)/(3 b p) + ((2 + b)/(3b))^2)``.
    About ``sqrt(8/(3bp))`` for small ``p``; ``inf`` at ``p = 0``.  ``p`` in [0, 1],
    ``b`` >= 1 segments per ACK.
    """
    p = as_array("p", p, lo=0.0, hi=1.0)
    b = as_array("b", b, lo=1.0)
    return finish(_expected_window(p, b))


def _timeout_probability(p, w):
    p, w = np.broadcast_arrays(p, w)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q_log = np.log1p(-np.where(p < 1.0, p, 0.0))
        q3 = np.exp(3.0 * q_log)
        num = _one_minus_pow(q_log, 3.0) * (1.0 + q3 * _one_minus_pow(q_log, w - 3.0))
        val = np.minimum(1.0, num / _one_minus_pow(q_log, w))
        limit0 = np.minimum(1.0, 3.0 / w)  # p -> 0: numerator ~ 3p, denominator ~ w p
    val = np.where(p == 0.0, limit0, val)
    return np.where(p >= 1.0, 1.0, val)


def pftk_timeout_probability(p, w):
    """Probability ``Q(p, w)`` that a loss in a window of ``w`` segments ends in a timeout.

    Formula (PFTK 1998):
    ``Q(p, w) = min(1, (1 - (1-p)^3) (1 + (1-p)^3 (1 - (1-p)^(w-3))) / (1 - (1-p)^w))``.

    Limits: ``Q -> min(1, 3 / w)`` as ``p -> 0``; ``Q = 1`` at ``p = 1``; ``Q = 1`` for
    ``w <= 3`` (too few segments to produce three duplicate ACKs).
    """
    p = as_array("p", p, lo=0.0, hi=1.0)
    w = as_array("w", w, lo=0.0, lo_open=True, finite=False, unit="segments")
    return finish(_timeout_probability(p, w))


def _pftk_packets_per_rtt_unit(rtt, p, t0, b, wmax):
    """Full PFTK send rate in packets per second (arrays already validated).

    Numerator and denominator are multiplied by ``p`` so that nothing overflows for
    tiny ``p`` (``(1-p)/p`` and ``E[W]`` would): ``pw`` below is ``p * W``.
    """
    q = 1.0 - p
    a = (2.0 + b) / (3.0 * b)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pw_u = p * a + np.sqrt(8.0 * p * q / (3.0 * b) + (a * p) ** 2)  # p * E[W]
        w_u = np.where(p > 0.0, pw_u / p, np.inf)
        window_limited = ~(w_u < wmax)
        w = np.where(window_limited, wmax, w_u)
        pw = np.where(window_limited, p * wmax, pw_u)
        qto = _timeout_probability(p, w)
        f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
        timeouts = p * qto / q
        num = q + pw + timeouts
        a_ca = rtt * (b / 2.0 * pw + p)
        a_wl = rtt * (b / 8.0 * pw + q / wmax + 2.0 * p)
        den = np.where(window_limited, a_wl, a_ca) + timeouts * t0 * f
        rate = num / den
        rate = np.where(p == 0.0, wmax / rtt, rate)
        rate = np.where(p >= 1.0, 1.0 / (64.0 * t0), rate)
    return rate


def pftk_throughput(mss, rtt, p, rto=1.0, *, b=1, rwnd=np.inf, goodput=False):
    """Full PFTK model of TCP Reno throughput, in bytes/s.

    With ``Wmax = rwnd / MSS`` (segments), ``E[W]`` from :func:`pftk_expected_window`,
    ``Q`` from :func:`pftk_timeout_probability` and ``f`` from
    :func:`pftk_backoff_factor`, the send rate in packets/s is (PFTK 1998, eq. 31)::

        if E[W] < Wmax:
            B = ((1-p)/p + E[W] + Q(E[W])/(1-p))
                / (RTT (b/2 E[W] + 1) + Q(E[W]) T0 f(p)/(1-p))
        else:
            B = ((1-p)/p + Wmax + Q(Wmax)/(1-p))
                / (RTT (b/8 Wmax + (1-p)/(p Wmax) + 2) + Q(Wmax) T0 f(p)/(1-p))

    and the result is ``MSS * B`` (``MSS * B * (1 - p)`` with ``goodput=True``).

    Assumptions: bulk transfer, TCP Reno with fast retransmit and timeouts, losses
    independent between rounds but a loss takes the rest of its round with it, ``b``
    segments per ACK, RTT independent of the window, first timeout ``T0 = rto`` with
    exponential back-off capped at ``64 T0``.

    Limits: ``p -> 0`` gives ``Wmax / RTT`` (``inf`` without a window cap); ``p = 1``
    gives a send rate of ``1 / (64 T0)`` packets/s and a goodput of 0.  Where
    ``E[W]`` crosses ``Wmax`` the model switches branch and the rate can step up by a
    few percent (at most about 4.4 % in a scan of MSS, RTT, T0, b, rwnd) as ``p``
    grows.  With an unrealistic ``T0 < RTT`` the send rate can also rise with ``p``.

    Validity: measured against Internet traces for ``p`` up to a few tens of percent;
    it ignores slow start after a timeout, fast-recovery details of NewReno/SACK and
    the handshake (see :func:`tcplab.models.cardwell_latency` for short transfers).

    Parameters: ``mss`` > 0 bytes, ``rtt`` > 0 s, ``p`` in [0, 1], ``rto`` (T0) > 0 s,
    ``b`` >= 1, ``rwnd`` > 0 bytes (inf: no cap).  Returns bytes/s.
    """
    mss = as_array("mss", mss, lo=0.0, lo_open=True, unit="bytes")
    rtt = as_array("rtt", rtt, lo=0.0, lo_open=True, unit="s")
    p = as_array("p", p, lo=0.0, hi=1.0)
    t0 = as_array("rto", rto, lo=0.0, lo_open=True, unit="s")
    b = as_array("b", b, lo=1.0)
    rwnd = as_array("rwnd", rwnd, lo=0.0, lo_open=True, finite=False, unit="bytes")
    rate = mss * _pftk_packets_per_rtt_unit(rtt, p, t0, b, rwnd / mss)
    if goodput:
        rate = rate * (1.0 - p)
    return finish(rate)


def pftk_approx_throughput(mss, rtt, p, rto=1.0, *, b=1, rwnd=np.inf, goodput=False):
    """Approximate closed form of the PFTK model, in bytes/s.

    Formula (PFTK 1998, eq. 33)::

        B = MSS * min(Wmax / RTT,
                      1 / (RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32 p^2)))

    with ``Wmax = rwnd / MSS``.  The ns-2 TFRC code (``p_to_b``) computes the same
    denominator, clamp ``min(1, .)`` included; RFC 3448/5348 (TFRC) print it without
    the clamp and without the ``Wmax`` term.  We follow the paper.

    Assumptions: as :func:`pftk_throughput`; it is an approximation of that model,
    accurate to within a few percent for small ``p``.

    Limits: ``p -> 0`` gives ``Wmax / RTT`` (``inf`` without a cap); at ``p = 1`` the
    send rate is ``1 / (RTT sqrt(2b/3) + 33 T0)`` packets/s and the goodput 0.

    Parameters as :func:`pftk_throughput`.  Returns bytes/s.
    """
    mss = as_array("mss", mss, lo=0.0, lo_open=True, unit="bytes")
    rtt = as_array("rtt", rtt, lo=0.0, lo_open=True, unit="s")
    p = as_array("p", p, lo=0.0, hi=1.0)
    t0 = as_array("rto", rto, lo=0.0, lo_open=True, unit="s")
    b = as_array("b", b, lo=1.0)
    rwnd = as_array("rwnd", rwnd, lo=0.0, lo_open=True, finite=False, unit="bytes")
    den = rtt * np.sqrt(2.0 * b * p / 3.0) + t0 * np.minimum(
        1.0, 3.0 * np.sqrt(3.0 * b * p / 8.0)
    ) * p * (1.0 + 32.0 * p**2)
    with np.errstate(divide="ignore"):
        pkts = np.minimum(rwnd / mss / rtt, 1.0 / den)
    rate = mss * pkts
    if goodput:
        rate = rate * (1.0 - p)
    return finish(rate)
