"""UDP probes for checking the forwarder, run inside the testbed's namespaces (stdlib only).

    python tools.py sink  --port P --out F [--idle 1.0] [--timeout T]
    python tools.py send  --dst IP --port P --count N --ip-len L --pps R --out F
    python tools.py echo  --port P [--timeout T]
    python tools.py ping  --dst IP --port P --count N --interval S --ip-len L --out F

Datagrams carry an 8-byte sequence number; `--ip-len` is the IP packet length (UDP payload =
ip_len - 28). The sink counts distinct sequence numbers and reports this namespace's UDP
receive-buffer errors, so a test can tell the forwarder's losses from the receiver's.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import struct
import sys
import time

IP_UDP_HEADERS = 28
SO_RCVBUFFORCE = 33  # <asm-generic/socket.h>; root may exceed net.core.rmem_max


def _udp_mib() -> dict[str, int]:
    with open("/proc/net/snmp") as f:
        lines = [ln for ln in f.read().splitlines() if ln.startswith("Udp:")]
    names, values = lines[0].split()[1:], lines[1].split()[1:]
    return {k: int(v) for k, v in zip(names, values, strict=True)}


def _write(path: str, doc: dict) -> None:
    tmp = path + ".partial"
    with open(tmp, "w") as f:
        json.dump(doc, f)
    os.replace(tmp, path)


def _bigbuf(s: socket.socket, opt: int, size: int) -> None:
    try:
        s.setsockopt(socket.SOL_SOCKET, opt, size)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, size)


def sink(a: argparse.Namespace) -> int:
    mib0 = _udp_mib()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    _bigbuf(s, SO_RCVBUFFORCE, 32 << 20)
    s.bind(("0.0.0.0", a.port))
    print("READY", flush=True)
    seen = bytearray(a.expect) if a.expect else None
    extra: set[int] = set()
    got = 0
    first = last = None
    s.settimeout(a.timeout)
    buf = bytearray(65536)
    deadline = time.monotonic() + a.timeout
    while True:
        try:
            n = s.recv_into(buf)
        except TimeoutError:
            break
        now = time.monotonic()
        if first is None:
            first = now
            s.settimeout(a.idle)
        last = now
        got += 1
        if n >= 8:
            (seq,) = struct.unpack_from("!Q", buf)
            if seen is not None and seq < len(seen):
                seen[seq] = 1
            else:
                extra.add(seq)
        if now > deadline:
            break
    mib1 = _udp_mib()
    distinct = (sum(seen) if seen is not None else 0) + len(extra)
    _write(
        a.out,
        {
            "received": got,
            "distinct": distinct,
            "duration_s": (last - first) if first is not None else 0.0,
            "rcvbuf_errors": mib1["RcvbufErrors"] - mib0["RcvbufErrors"],
            "in_errors": mib1["InErrors"] - mib0["InErrors"],
        },
    )
    return 0


def send(a: argparse.Namespace) -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    payload = bytearray(max(a.ip_len - IP_UDP_HEADERS, 8))
    dst = (a.dst, a.port)
    burst = max(1, int(a.pps * 0.001))  # one burst per millisecond
    t0 = time.monotonic()
    errors = 0
    seq = 0
    while seq < a.count:
        for _ in range(min(burst, a.count - seq)):
            struct.pack_into("!Q", payload, 0, seq)
            try:
                s.sendto(payload, dst)
            except OSError:
                errors += 1
            seq += 1
        due = t0 + seq / a.pps
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
    elapsed = time.monotonic() - t0
    _write(a.out, {"sent": seq, "send_errors": errors, "duration_s": elapsed})
    return 0


def echo(a: argparse.Namespace) -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", a.port))
    print("READY", flush=True)
    buf = bytearray(65536)
    end = time.monotonic() + a.timeout
    if a.spin:
        # Busy-poll: the reply leaves as soon as the request is in, not a wake-up later.
        s.setblocking(False)
        while time.monotonic() < end:
            try:
                n, peer = s.recvfrom_into(buf)
            except BlockingIOError:
                continue
            s.sendto(buf[:n], peer)
        return 0
    s.settimeout(a.timeout)
    while True:
        try:
            n, peer = s.recvfrom_into(buf)
        except TimeoutError:
            return 0
        s.sendto(buf[:n], peer)


SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # <asm-generic/socket.h>


def ping(a: argparse.Namespace) -> int:
    """RTT = kernel receive timestamp of the reply (SO_TIMESTAMPNS) - time just before send,
    so this process's own wake-up latency is not counted."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.connect((a.dst, a.port))
    payload = bytearray(max(a.ip_len - IP_UDP_HEADERS, 8))
    rtts: list[float] = []
    lost = 0
    for seq in range(a.count):
        struct.pack_into("!Q", payload, 0, seq)
        t = time.clock_gettime_ns(time.CLOCK_REALTIME)
        s.send(payload)
        s.settimeout(a.reply_timeout)
        while True:
            try:
                data, anc, _, _ = s.recvmsg(65536, 256)
            except (TimeoutError, ConnectionRefusedError):
                lost += 1
                break
            if len(data) >= 8 and struct.unpack_from("!Q", data)[0] == seq:
                rx = None
                for level, kind, cdata in anc:
                    if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                        sec, nsec = struct.unpack_from("qq", cdata)
                        rx = sec * 1_000_000_000 + nsec
                if rx is None:
                    rx = time.clock_gettime_ns(time.CLOCK_REALTIME)
                rtts.append((rx - t) / 1e9)
                break
        rest = a.interval - (time.clock_gettime_ns(time.CLOCK_REALTIME) - t) / 1e9
        if rest > 0:
            time.sleep(rest)
    _write(a.out, {"rtts_s": rtts, "lost": lost})
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="UDP probes for the tcplab testbed")
    sub = p.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("sink")
    q.add_argument("--port", type=int, required=True)
    q.add_argument("--out", required=True)
    q.add_argument("--expect", type=int, default=0, help="sequence numbers 0..expect-1")
    q.add_argument("--idle", type=float, default=1.0)
    q.add_argument("--timeout", type=float, default=60.0)
    q = sub.add_parser("send")
    q.add_argument("--dst", required=True)
    q.add_argument("--port", type=int, required=True)
    q.add_argument("--count", type=int, required=True)
    q.add_argument("--ip-len", type=int, default=128)
    q.add_argument("--pps", type=float, default=20000)
    q.add_argument("--out", required=True)
    q = sub.add_parser("echo")
    q.add_argument("--port", type=int, required=True)
    q.add_argument("--timeout", type=float, default=60.0)
    q.add_argument("--spin", action="store_true", help="busy-poll instead of sleeping")
    q = sub.add_parser("ping")
    q.add_argument("--dst", required=True)
    q.add_argument("--port", type=int, required=True)
    q.add_argument("--count", type=int, default=200)
    q.add_argument("--interval", type=float, default=0.01)
    q.add_argument("--ip-len", type=int, default=64)
    q.add_argument("--reply-timeout", type=float, default=1.0)
    q.add_argument("--out", required=True)
    for q in sub.choices.values():
        q.add_argument("--tag", default="", help="marker in the command line (run id)")
    a = p.parse_args(argv)
    return {"sink": sink, "send": send, "echo": echo, "ping": ping}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
