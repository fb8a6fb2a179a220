"""FTP-style endpoints on kernel TCP sockets, run inside the testbed's namespaces.

Run as a script (``python endpoint.py server|client ...``), stdlib only, so the namespaces'
processes do not import the tcplab package (and its compiled core).

Protocol: the client connects, sends ``GET <n>\\n``; the server sends n bytes and waits for the
client's FIN; the client measures the response time from just before it sends the request to
the arrival of the last byte, then closes. The server (the data sender) samples TCP_INFO every
``--interval`` seconds from the request's arrival until the client has closed.

Both write one JSON document to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tcpinfo  # noqa: E402  (sibling module; this file runs as a script)

CHUNK = 1 << 16


def _read_mib() -> dict[str, int]:
    """TcpExt and Tcp counters of this network namespace (/proc/net/netstat and snmp)."""
    out: dict[str, int] = {}
    for path in ("/proc/net/netstat", "/proc/net/snmp"):
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for head, vals in zip(lines[::2], lines[1::2], strict=False):
            prefix, names = head.split(":", 1)
            _, values = vals.split(":", 1)
            for k, v in zip(names.split(), values.split(), strict=False):
                try:
                    out[f"{prefix}.{k}"] = int(v)
                except ValueError:
                    pass
    return out


def _set_common(sock: socket.socket, args: argparse.Namespace) -> None:
    if args.cc:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, args.cc.encode())
    if args.mss:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, args.mss)
    if args.nodelay:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if args.sndbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, args.sndbuf)
    if args.rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)


def _cc_of(sock: socket.socket) -> str:
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)
    return raw.split(b"\0", 1)[0].decode()


def _write(path: str, doc: dict) -> None:
    tmp = path + ".partial"
    with open(tmp, "w") as f:
        json.dump(doc, f)
    os.replace(tmp, path)


class Sampler(threading.Thread):
    """Polls TCP_INFO on a fixed schedule (absolute deadlines, no drift)."""

    def __init__(self, sock: socket.socket, interval: float, t0: float) -> None:
        super().__init__(daemon=True)
        self.sock, self.interval, self.t0 = sock, interval, t0
        self.samples: list[tuple[float, bytes]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        nxt = time.monotonic()
        while not self.stop.is_set():
            now = time.monotonic()
            try:
                raw = self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 512)
            except OSError:
                return
            self.samples.append((now - self.t0, raw))
            nxt += self.interval
            if nxt < now:  # fell behind (CPU starved): skip, do not burst
                nxt = now + self.interval
            self.stop.wait(max(0.0, nxt - time.monotonic()))


def server(args: argparse.Namespace) -> int:
    mib0 = _read_mib()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    _set_common(ls, args)
    ls.bind((args.bind, args.port))
    ls.listen(4)
    ls.settimeout(args.timeout)
    print("READY", flush=True)
    conn, peer = ls.accept()
    ls.close()
    conn.settimeout(args.timeout)
    # Buffers and MSS are inherited from the listener; the congestion control is set again in
    # case a route's `congctl` overrode the listener's choice.
    if args.cc:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, args.cc.encode())
    req = b""
    while not req.endswith(b"\n"):
        part = conn.recv(64)
        if not part:
            raise SystemExit("server: client closed before sending its request")
        req += part
    t0 = time.monotonic()
    verb, n = req.split()
    if verb != b"GET":
        raise SystemExit(f"server: bad request {req!r}")
    n = int(n)
    sampler = Sampler(conn, args.interval, t0)
    sampler.start()
    payload = memoryview(bytes(CHUNK))
    left = n
    while left:
        k = conn.send(payload[: min(CHUNK, left)])
        left -= k
    t_app_done = time.monotonic()
    # Wait for the client's FIN: after it, every data byte has been acknowledged.
    while conn.recv(4096):
        pass
    t_end = time.monotonic()
    sampler.stop.set()
    sampler.join()
    final = tcpinfo.get(conn)
    cc = _cc_of(conn)
    conn.close()
    mib1 = _read_mib()
    mib = {k: mib1[k] - mib0.get(k, 0) for k in mib1 if mib1[k] != mib0.get(k, 0)}
    _write(
        args.out,
        {
            "role": "server",
            "peer": list(peer),
            "bytes": n,
            "congestion_control": cc,
            "t0_monotonic": t0,
            "app_done_s": t_app_done - t0,
            "fin_s": t_end - t0,
            "tcp_info_final": final,
            "samples": [(t, tcpinfo.parse(raw)) for t, raw in sampler.samples],
            "mib": mib,
        },
    )
    return 0


def client(args: argparse.Namespace) -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    _set_common(s, args)
    s.settimeout(args.timeout)
    t_c = time.monotonic()
    s.connect((args.server, args.port))
    t_connected = time.monotonic()
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    got = 0
    step = max(args.size // 200, 1)
    mark = step
    progress: list[tuple[float, int]] = []
    t_req = time.monotonic()
    s.sendall(b"GET %d\n" % args.size)
    while got < args.size:
        k = s.recv_into(view, min(CHUNK, args.size - got))
        if not k:
            raise SystemExit(f"client: server closed after {got} of {args.size} bytes")
        got += k
        if got >= mark:
            progress.append((time.monotonic() - t_req, got))
            mark = (got // step + 1) * step
    t_last = time.monotonic()
    final = tcpinfo.get(s)
    cc = _cc_of(s)
    s.close()
    _write(
        args.out,
        {
            "role": "client",
            "bytes": got,
            "congestion_control": cc,
            "connect_time_s": t_connected - t_c,
            "t_request_monotonic": t_req,
            "response_time_s": t_last - t_req,
            "progress": progress,
            "tcp_info_final": final,
        },
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="role", required=True)
    for name in ("server", "client"):
        q = sub.add_parser(name)
        q.add_argument("--port", type=int, default=5001)
        q.add_argument("--cc", default=None, help="TCP_CONGESTION for this socket")
        q.add_argument("--mss", type=int, default=0, help="TCP_MAXSEG (0: kernel's choice)")
        q.add_argument("--nodelay", action="store_true")
        q.add_argument("--sndbuf", type=int, default=0)
        q.add_argument("--rcvbuf", type=int, default=0)
        q.add_argument("--timeout", type=float, default=600.0)
        q.add_argument("--out", required=True)
        q.add_argument("--tag", default="", help="marker in the command line (run id)")
    sub.choices["server"].add_argument("--bind", default="0.0.0.0")
    sub.choices["server"].add_argument("--interval", type=float, default=0.01)
    sub.choices["client"].add_argument("--server", required=True)
    sub.choices["client"].add_argument("--size", type=int, required=True)
    args = p.parse_args(argv)
    return server(args) if args.role == "server" else client(args)


if __name__ == "__main__":
    sys.exit(main())
