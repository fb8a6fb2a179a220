"""Bit error rate to packet error rate, segment counts and expected retransmissions.

Units: frame lengths and sizes are in **bytes** (``L`` is the length of the frame on
the wire, i.e. the number of bytes a bit error can hit); probabilities are
dimensionless.  A frame of ``L`` bytes carries ``8 L`` bits.
"""

from __future__ import annotations

import numpy as np

from ._validate import as_array, finish

__all__ = [
    "per_from_ber",
    "per_from_ber_linear",
    "ber_from_per",
    "segments_needed",
    "expected_retransmissions",
]


def per_from_ber(ber, frame_bytes):
    """Exact packet error rate of a frame under independent bit errors.

    Formula: ``PER = 1 - (1 - BER) ** (8 * L)`` with ``L = frame_bytes``.

    Source: the standard independent-bit-error model, used by NetSim's "Mathematical
    modelling of TCP throughput" experiment (seed 002: BER 1e-7 on a 1500-byte frame
    gives ``p ~= 1.2e-3``).

    Assumptions: bit errors are independent and identically distributed (no bursts) and
    any bit error destroys the frame (FCS/checksum discard).  Computed as
    ``-expm1(8 L log1p(-BER))`` so it stays accurate for tiny BER.

    Validity: exact under those assumptions for any BER in [0, 1]; real channels with
    burst errors have a lower PER than this for the same mean BER.

    Parameters
    ----------
    ber : bit error rate, in [0, 1].
    frame_bytes : frame length on the wire in bytes, > 0.

    Returns the PER in [0, 1] (numpy float for scalar input, array otherwise).
    """
    ber = as_array("ber", ber, lo=0.0, hi=1.0)
    frame = as_array("frame_bytes", frame_bytes, lo=0.0, lo_open=True, unit="bytes")
    bits = 8.0 * frame
    with np.errstate(divide="ignore", invalid="ignore"):
        per = -np.expm1(bits * np.log1p(-ber))
    per = np.where(ber >= 1.0, 1.0, per)
    return finish(np.clip(per, 0.0, 1.0))


def per_from_ber_linear(ber, frame_bytes):
    """First-order (linear) approximation of the packet error rate.

    Formula: ``PER ~= BER * 8 * L`` with ``L = frame_bytes`` in bytes (so ``8 L`` is the
    frame length in bits).

    Source: Sarkar, Ammann, Zabir 2022, Section 2.1 and Table 1.  The paper writes
    ``PER = BER x L`` with ``L`` in bits; its Table 1 lists frame lengths in bytes, so
    the numbers it prints are ``BER x 8 x L_bytes``: BER 1e-4 and 1250 bytes give
    ``PER = 1``, BER 1e-6 and 1500 bytes give ``1.2e-2``.  This function reproduces
    every cell of Table 1, including the rows above 1.

    Assumptions: as :func:`per_from_ber`; it is the first term of the binomial
    expansion of ``1 - (1 - BER) ** (8 L)`` and always over-estimates it.

    Validity: good while ``8 L BER << 1`` (relative error about ``4 L BER``, i.e. 0.6 %
    at BER 1e-6 on 1500 bytes).  The result is **not clipped**: values of 1 or more (as
    in Table 1's first rows) are not probabilities and mean "essentially every frame
    is lost"; use :func:`per_from_ber` for a proper probability.
    """
    ber = as_array("ber", ber, lo=0.0, hi=1.0)
    frame = as_array("frame_bytes", frame_bytes, lo=0.0, lo_open=True, unit="bytes")
    return finish(ber * 8.0 * frame)


def ber_from_per(per, frame_bytes):
    """Bit error rate that gives a packet error rate ``per`` on ``frame_bytes`` frames.

    Formula: ``BER = 1 - (1 - PER) ** (1 / (8 L))``, the inverse of
    :func:`per_from_ber`.  Example: Sarkar 2022 Table 3 calls a 1 % drop probability
    "BER ~= 1e-6"; the exact inverse for 1500-byte frames is 8.4e-7.

    Assumptions and validity: as :func:`per_from_ber`; ``per`` must be in [0, 1].
    """
    per = as_array("per", per, lo=0.0, hi=1.0)
    frame = as_array("frame_bytes", frame_bytes, lo=0.0, lo_open=True, unit="bytes")
    with np.errstate(divide="ignore", invalid="ignore"):
        ber = -np.expm1(np.log1p(-per) / (8.0 * frame))
    ber = np.where(per >= 1.0, 1.0, ber)
    return finish(np.clip(ber, 0.0, 1.0))


def segments_needed(size, mss):
    """Number of TCP segments needed to carry ``size`` bytes: ``n = ceil(size / MSS)``.

    Source: Sarkar 2022 Section 4.1 (10,000,000 bytes / 1460 = 6849.32, "about 6850
    datagrams").  Counts data segments only: no SYN/FIN/ACK-only segments, no ARP,
    no retransmissions.

    Parameters: ``size`` >= 0 bytes, ``mss`` > 0 bytes.  Returns a float (whole number).
    """
    size = as_array("size", size, lo=0.0, unit="bytes")
    mss = as_array("mss", mss, lo=0.0, lo_open=True, unit="bytes")
    return finish(np.ceil(size / mss))


def expected_retransmissions(size, mss, p, *, whole_segments=True, repeat_losses=False):
    """Expected number of retransmitted segments for a transfer of ``size`` bytes.

    Formula: ``n * p`` with ``n`` segments (Sarkar 2022 Section 4.2: "at least
    n x pdrop"), or ``n * p / (1 - p)`` when ``repeat_losses=True`` (each
    retransmission is itself lost with probability ``p``: the mean of a geometric
    number of extra transmissions per segment).

    ``whole_segments=True`` uses ``n = ceil(size / MSS)``.  Sarkar's Table 7
    ("Calculated" column: 0.68, 6.85, 68.49, 684.93 for pdrop 0.01 %..10 %) uses the
    unrounded ``n = size / MSS = 6849.32``; pass ``whole_segments=False`` to reproduce it.

    Assumptions: independent segment losses with probability ``p``; only lost data
    segments are retransmitted (no spurious timeouts, no go-back-N), ACK losses ignored.
    It is a lower bound for real TCP, which may resend segments that were not lost.

    Validity: ``p`` in [0, 1]; with ``repeat_losses=True`` the result is infinite at
    ``p = 1``.
    """
    size = as_array("size", size, lo=0.0, unit="bytes")
    mss = as_array("mss", mss, lo=0.0, lo_open=True, unit="bytes")
    p = as_array("p", p, lo=0.0, hi=1.0)
    n = np.ceil(size / mss) if whole_segments else size / mss
    if repeat_losses:
        with np.errstate(divide="ignore", invalid="ignore"):
            extra = np.where(p >= 1.0, np.where(n > 0, np.inf, 0.0), n * p / (1.0 - p))
        return finish(extra)
    return finish(n * p)
