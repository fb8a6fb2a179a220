"""Parse Linux ``struct tcp_info`` (``getsockopt(IPPROTO_TCP, TCP_INFO)``) with ``struct``.

The layout is ``include/uapi/linux/tcp.h``; the kernel copies ``min(asked, sizeof)`` bytes, so
fields past the returned length are missing on older kernels and come back as ``None``.
``tcpi_snd_wnd`` needs Linux >= 5.4, ``tcpi_total_rto`` >= 6.7.

This module is stdlib-only: the endpoint scripts import it from inside the namespaces.
"""

from __future__ import annotations

import socket
import struct

# (name, struct format) in declaration order; natural alignment holds throughout (every u64
# falls on an 8-byte offset), so a "=" (standard size, no padding) layout matches the kernel.
_FIELDS: list[tuple[str, str]] = [
    ("state", "B"),
    ("ca_state", "B"),
    ("retransmits", "B"),
    ("probes", "B"),
    ("backoff", "B"),
    ("options", "B"),
    ("wscale", "B"),  # snd_wscale : 4, rcv_wscale : 4
    ("app_limited_flags", "B"),
    ("rto", "I"),
    ("ato", "I"),
    ("snd_mss", "I"),
    ("rcv_mss", "I"),
    ("unacked", "I"),
    ("sacked", "I"),
    ("lost", "I"),
    ("retrans", "I"),
    ("fackets", "I"),
    ("last_data_sent", "I"),
    ("last_ack_sent", "I"),
    ("last_data_recv", "I"),
    ("last_ack_recv", "I"),
    ("pmtu", "I"),
    ("rcv_ssthresh", "I"),
    ("rtt", "I"),
    ("rttvar", "I"),
    ("snd_ssthresh", "I"),
    ("snd_cwnd", "I"),
    ("advmss", "I"),
    ("reordering", "I"),
    ("rcv_rtt", "I"),
    ("rcv_space", "I"),
    ("total_retrans", "I"),
    ("pacing_rate", "Q"),
    ("max_pacing_rate", "Q"),
    ("bytes_acked", "Q"),
    ("bytes_received", "Q"),
    ("segs_out", "I"),
    ("segs_in", "I"),
    ("notsent_bytes", "I"),
    ("min_rtt", "I"),
    ("data_segs_in", "I"),
    ("data_segs_out", "I"),
    ("delivery_rate", "Q"),
    ("busy_time", "Q"),
    ("rwnd_limited", "Q"),
    ("sndbuf_limited", "Q"),
    ("delivered", "I"),
    ("delivered_ce", "I"),
    ("bytes_sent", "Q"),
    ("bytes_retrans", "Q"),
    ("dsack_dups", "I"),
    ("reord_seen", "I"),
    ("rcv_ooopack", "I"),
    ("snd_wnd", "I"),
    ("rcv_wnd", "I"),
    ("rehash", "I"),
    ("total_rto", "H"),
    ("total_rto_recoveries", "H"),
    ("total_rto_time", "I"),
]

# Field -> (offset, format), computed once.
_LAYOUT: list[tuple[str, int, str]] = []
_off = 0
for _name, _fmt in _FIELDS:
    _size = struct.calcsize("=" + _fmt)
    _off = (_off + _size - 1) // _size * _size  # natural alignment
    _LAYOUT.append((_name, _off, _fmt))
    _off += _size
SIZE = _off  # 248 bytes for the fields above
del _off, _name, _fmt, _size

# Congestion-avoidance states (include/net/tcp.h enum tcp_ca_state).
CA_STATES = {0: "open", 1: "disorder", 2: "cwr", 3: "recovery", 4: "loss"}
# tcpi_snd_ssthresh of a connection that has not left slow start yet (TCP_INFINITE_SSTHRESH).
INFINITE_SSTHRESH = 0x7FFFFFFF
TCPI_OPT_TIMESTAMPS = 1
TCPI_OPT_SACK = 2
TCPI_OPT_WSCALE = 4


def parse(raw: bytes) -> dict[str, int | None]:
    """Decode the bytes getsockopt returned; fields beyond them are None."""
    out: dict[str, int | None] = {}
    n = len(raw)
    for name, off, fmt in _LAYOUT:
        size = struct.calcsize("=" + fmt)
        out[name] = struct.unpack_from("=" + fmt, raw, off)[0] if off + size <= n else None
    wscale = out.pop("wscale")
    if wscale is not None:
        out["snd_wscale"] = wscale & 0x0F
        out["rcv_wscale"] = wscale >> 4
    return out


def get(sock: socket.socket) -> dict[str, int | None]:
    """TCP_INFO of a connected socket."""
    return parse(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 512))
