"""Deterministic throughput ceilings and congestion-avoidance window growth.

Units: bytes, seconds and bytes per second.  ``Mbps`` means 10**6 bits per second
(decimal, as in NetSim and in Sarkar 2022); use :func:`bytes_per_s_to_mbps` and
:func:`mbps_to_bytes_per_s` to convert.
"""

from __future__ import annotations

import numpy as np

from ._validate import as_array, finish

__all__ = [
    "bytes_per_s_to_mbps",
    "mbps_to_bytes_per_s",
    "line_rate_limit",
    "window_limit",
    "cwnd_growth_ca",
]

#: Per-segment overhead on 10 Mbit/s Ethernet used by Sarkar 2022 Section 4.3.2:
#: TCP header 20 + IP header 20 + Ethernet 38 (preamble 8, header/FCS 18,
#: inter-packet gap 12) bytes.
SARKAR_OVERHEAD_BYTES = 78


def bytes_per_s_to_mbps(rate):
    """Convert bytes per second to Mbps (10**6 bits per second): ``rate * 8 / 1e6``."""
    rate = as_array("rate", rate, lo=0.0, finite=False, unit="bytes/s")
    return finish(rate * 8.0 / 1e6)


def mbps_to_bytes_per_s(mbps):
    """Convert Mbps (10**6 bits per second) to bytes per second: ``mbps * 1e6 / 8``."""
    mbps = as_array("mbps", mbps, lo=0.0, finite=False, unit="Mbps")
    return finish(mbps * 1e6 / 8.0)


def line_rate_limit(rate, mss=1460, overhead=SARKAR_OVERHEAD_BYTES):
    """Largest TCP payload rate a link can carry once per-frame overhead is paid.

    Formula: ``T = MSS / (MSS + overhead) * rate``.

    Source: Sarkar 2022 Section 4.3.2: ``1460 / (1460 + 78) x 1,250,000 =
    1,186,605.98 bytes/s`` on 10 Mbit/s Ethernet.

    Assumptions: every frame is full-sized (MSS payload), the link is busy all the time
    and nothing else limits the sender (no window, ACK, loss or timeout effects).  The
    default ``overhead=78`` bytes is Sarkar's TCP 20 + IP 20 + Ethernet 38.

    Validity: an upper bound; real transfers reach it only with a large window and no
    loss.  ACK traffic on a shared (half-duplex) medium is not counted.

    Parameters: ``rate`` > 0 bytes/s (inf allowed: no limit), ``mss`` > 0 bytes,
    ``overhead`` >= 0 bytes.  Returns bytes/s.
    """
    rate = as_array("rate", rate, lo=0.0, lo_open=True, finite=False, unit="bytes/s")
    mss = as_array("mss", mss, lo=0.0, lo_open=True, unit="bytes")
    overhead = as_array("overhead", overhead, lo=0.0, unit="bytes")
    return finish(mss / (mss + overhead) * rate)


def window_limit(rwnd, rtt):
    """Window-limited throughput: at most one window of data per round trip.

    Formula: ``T = rwnd / RTT``.

    Sources: Sarkar 2022 Section 4.3.3 (``8760 / 0.04 = 219,000 bytes/s``) and NetSim
    seed 002 (``65535 * 8 bits / 0.1 s = 5.2428e6 bit/s``, printed as 5.24 Mbps;
    ``window_limit(65535, 0.1)`` returns 655,350 bytes/s).  NetSim's introduction
    writes the window as "64 x 1024 (bits)", but its worked example, which we follow,
    uses 65535 *bytes* times 8.

    Assumptions: the window (receive window, or a congestion window that has stopped
    growing) is always full and the RTT is constant.

    Validity: an upper bound; it binds when ``rwnd`` is below the bandwidth-delay
    product (``rate x RTT``).  Above that the line rate binds instead.

    Parameters: ``rwnd`` > 0 bytes (inf allowed), ``rtt`` > 0 s.  Returns bytes/s.
    """
    rwnd = as_array("rwnd", rwnd, lo=0.0, lo_open=True, finite=False, unit="bytes")
    rtt = as_array("rtt", rtt, lo=0.0, lo_open=True, unit="s")
    return finish(rwnd / rtt)


def cwnd_growth_ca(cwnd0, mss=1460, rtts=14, *, acks_per_rtt=1, rwnd=np.inf):
    """Congestion window, in bytes, at the start of each RTT of congestion avoidance.

    Rule (RFC 5681 Section 3.1, eq. 3): every ACK adds ``MSS * MSS / cwnd`` bytes, in
    real arithmetic (no rounding inside the recursion).  ``acks_per_rtt`` says how many
    such increments happen per RTT:

    * an integer ``k >= 1``: ``k`` increments per RTT;
    * ``"window"``: one ACK per full-sized segment in flight, ``floor(cwnd / MSS)``
      increments per RTT, at least one (about +1 MSS per RTT, the textbook behaviour).

    Source: Sarkar 2022 Table 9 (start 3 MSS = 4380 bytes, MSS 1460): 4380, 4867,
    5305, 5707, 6080, 6431, 6762, 7077, 7379, 7667, 7945, 8214, 8473, 8725, 8969.
    The table is reproduced exactly by ``acks_per_rtt=1`` (one increment per RTT, as
    in the paper's capture where the client answers each flight with one ACK),
    rounding only the printed values to whole bytes; rounding inside the recursion
    gives 6081 at RTT 4, and one ACK per segment gives 5707 already at RTT 1.  The
    table's "No. of MSS" column is ``floor(cwnd / MSS)``.  It reaches the 8760-byte
    receive window at RTT 14, as the paper says.

    Assumptions: no loss, no slow start, every ACK arrives; ``rwnd`` (bytes) caps the
    window (default: no cap).

    Returns an array of shape ``broadcast(cwnd0, mss).shape + (rtts + 1,)``: element
    ``[..., k]`` is cwnd at the start of RTT ``k`` (index 0 is ``cwnd0``).
    """
    cwnd0 = as_array("cwnd0", cwnd0, lo=0.0, lo_open=True, unit="bytes")
    mss = as_array("mss", mss, lo=0.0, lo_open=True, unit="bytes")
    rwnd = as_array("rwnd", rwnd, lo=0.0, lo_open=True, finite=False, unit="bytes")
    if isinstance(rtts, bool) or not isinstance(rtts, int | np.integer) or rtts < 0:
        raise ValueError(f"rtts must be a whole number >= 0, got {rtts!r}")
    per_window = isinstance(acks_per_rtt, str)
    if per_window:
        if acks_per_rtt != "window":
            raise ValueError(
                f"acks_per_rtt must be a whole number >= 1 or 'window', got {acks_per_rtt!r}"
            )
    elif (
        isinstance(acks_per_rtt, bool)
        or not isinstance(acks_per_rtt, int | np.integer)
        or acks_per_rtt < 1
    ):
        raise ValueError(
            f"acks_per_rtt must be a whole number >= 1 or 'window', got {acks_per_rtt!r}"
        )
    cwnd, mss, rwnd = np.broadcast_arrays(cwnd0, mss, rwnd)
    cwnd = np.minimum(cwnd.astype(float), rwnd)
    out = [cwnd]
    for _ in range(rtts):
        if per_window:
            k = np.maximum(1.0, np.floor(cwnd / mss))
        else:
            k = np.full(cwnd.shape, float(acks_per_rtt))
        nxt = cwnd.copy()
        for j in range(int(k.max(initial=0.0))):
            nxt = np.where(j < k, nxt + mss * mss / nxt, nxt)
        cwnd = np.minimum(nxt, rwnd)
        out.append(cwnd)
    return np.stack(out, axis=-1)
