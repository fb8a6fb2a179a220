"""pcap export of a simulation's per-packet log, for Wireshark and tcpdump.

The simulator carries header fields, not bytes, so each logged segment is rebuilt as an
Ethernet / IPv4 / TCP frame: the real header fields (sequence and acknowledgment numbers, flags,
window as sent, the options as the stacks negotiated them: MSS, window scale and SACK-permitted
on SYNs, timestamps on every segment when enabled, SACK blocks) and a payload of zero bytes.
Wireshark reads the window scale from the SYNs, so `tcp.window_size` is the receive window in
bytes.
Only the headers are stored (the capture length is the header length; the original length is
the full frame), as `tcpdump -s` would. Because the payload is zeros, the TCP
and IP checksums are exact, so Wireshark validates them.

Addresses: node *i* of the scenario is 198.18.(i // 256).(i % 256) (the RFC 2544 benchmarking
range) with MAC 02:00:00:00:hi:lo. Ports: the client uses 40000 + connection index, the server
5001. Sequence numbers are the simulator's (ISS 0) modulo 2^32.

A capture is taken at one host, like tcpdump on that host: segments it sends and segments it
receives, timestamped when sent or received.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

import pandas as pd

from tcplab._atomic import write_file

__all__ = ["write_pcap", "PCAP_MAGIC_NS"]

PCAP_MAGIC_NS = 0xA1B23C4D  # pcap with nanosecond timestamps
LINKTYPE_ETHERNET = 1
SERVER_PORT = 5001
CLIENT_PORT_BASE = 40000

SYN, FIN, ACK = 0x02, 0x01, 0x10


def _ip(node: int) -> bytes:
    return bytes([198, 18, (node >> 8) & 0xFF, node & 0xFF])


def _mac(node: int) -> bytes:
    return bytes([0x02, 0, 0, 0, (node >> 8) & 0xFF, node & 0xFF])


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _opt(row: pd.Series, name: str, default: int) -> int:
    v = row.get(name, default)
    return default if v is None or v != v else int(v)  # absent column or NaN: the default


def _tcp_options(row: pd.Series, is_syn: bool, mss: int) -> bytes:
    """The options as the stack sent them, in Linux's order: on a SYN MSS, SACK-permitted,
    timestamps, NOP, window scale; on other segments NOP, NOP, timestamps, then SACK blocks.
    NOPs pad to the length the simulator counted (so every frame length is exact)."""
    opts = b""
    ts_val, ts_ecr = _opt(row, "ts_val", -1), _opt(row, "ts_ecr", -1)
    if is_syn:
        opts += struct.pack("!BBH", 2, 4, _opt(row, "syn_mss", 0) or mss)
        sack_ok = _opt(row, "sack_ok", 0)
        if sack_ok and ts_val >= 0:
            opts += b"\x04\x02"
        elif sack_ok:
            opts += b"\x01\x01\x04\x02"
        if ts_val >= 0:
            opts += struct.pack("!BBII", 8, 10, ts_val & 0xFFFFFFFF, max(ts_ecr, 0) & 0xFFFFFFFF)
        wscale = _opt(row, "wscale", -1)
        if wscale >= 0:
            opts += b"\x01" + struct.pack("!BBB", 3, 3, wscale)
    elif ts_val >= 0:
        opts += b"\x01\x01" + struct.pack(
            "!BBII", 8, 10, ts_val & 0xFFFFFFFF, max(ts_ecr, 0) & 0xFFFFFFFF
        )
    sack = str(row.get("sack", "") or "")
    blocks = [tuple(int(x) for x in b.split("-")) for b in sack.split()] if sack else []
    if blocks:
        opts += b"\x01\x01" + struct.pack("!BB", 5, 2 + 8 * len(blocks))
        for s, e in blocks:
            opts += struct.pack("!II", s & 0xFFFFFFFF, e & 0xFFFFFFFF)
    target = int(row["ip_bytes"]) - 40 - int(row["len"]) if "ip_bytes" in row else 0
    pad = max(target - len(opts), (-len(opts)) % 4)
    return opts + b"\x01" * pad


def _frame(row: pd.Series, mss: int) -> tuple[bytes, int]:
    """(captured bytes: headers only, original frame length)."""
    flags = int(row["flags"])
    src, dst = int(row["src"]), int(row["dst"])
    from_client = int(row["from_end"]) == 0
    conn = int(row["conn"])
    # an ephemeral port per connection (wrapping past 65535: a run may open thousands, one
    # per web page)
    client_port = CLIENT_PORT_BASE + conn % (65536 - CLIENT_PORT_BASE)
    sport = client_port if from_client else SERVER_PORT
    dport = SERVER_PORT if from_client else client_port
    length = int(row["len"])
    opts = _tcp_options(row, bool(flags & SYN), mss)
    off = (20 + len(opts)) // 4
    tcp_len = 20 + len(opts) + length
    tcp_hdr = struct.pack(
        "!HHIIBBHHH",
        sport,
        dport,
        int(row["seq"]) & 0xFFFFFFFF,
        int(row["ack"]) & 0xFFFFFFFF if flags & ACK else 0,
        off << 4,
        flags,
        min(int(row["wnd"]), 0xFFFF),
        0,
        0,
    )
    pseudo = _ip(src) + _ip(dst) + struct.pack("!BBH", 0, 6, tcp_len)
    # The payload is zeros: it adds nothing to the one's-complement sum.
    csum = _checksum(pseudo + tcp_hdr + opts)
    tcp_hdr = tcp_hdr[:16] + struct.pack("!H", csum) + tcp_hdr[18:]
    total = 20 + tcp_len
    ip_hdr = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        0,
        total,
        int(row["uid"]) & 0xFFFF,
        0x4000,  # don't fragment
        64,
        6,
        0,
        _ip(src),
        _ip(dst),
    )
    ip_hdr = ip_hdr[:10] + struct.pack("!H", _checksum(ip_hdr)) + ip_hdr[12:]
    eth = _mac(dst) + _mac(src) + b"\x08\x00"
    headers = eth + ip_hdr + tcp_hdr + opts
    return headers, len(eth) + total


def write_pcap(packets: pd.DataFrame, path: str | Path, *, node: int, mss: int = 1460) -> int:
    """Write the segments that host `node` sent or received to a pcap file.

    `packets` is a result's "packets" table (enable it with ``[output] packets = true``).
    Returns the number of frames written.
    """
    need = {"time_s", "event", "src", "dst", "flags", "seq", "ack", "len", "wnd", "from_end"}
    missing = need - set(packets.columns)
    if missing:
        raise ValueError(
            f"packets table: missing columns {sorted(missing)}; "
            "run the scenario with output.packets = true"
        )
    sel = packets[
        ((packets["event"] == "send") & (packets["src"] == node))
        | ((packets["event"] == "recv") & (packets["dst"] == node))
    ]

    def write(f: BinaryIO) -> None:
        f.write(struct.pack("<IHHiIII", PCAP_MAGIC_NS, 2, 4, 0, 0, 65535, LINKTYPE_ETHERNET))
        for _, row in sel.iterrows():
            data, orig = _frame(row, mss)
            t_ns = round(float(row["time_s"]) * 1e9)
            f.write(struct.pack("<IIII", t_ns // 10**9, t_ns % 10**9, len(data), orig))
            f.write(data)

    # Written under a temporary name and renamed when complete: a full disk or a kill never
    # leaves a short capture under the final name.
    write_file(Path(path), write)
    return len(sel)
