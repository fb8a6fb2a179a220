"""The simulated endpoint a script plays against: `tcplab.step.Connection` seen as the runner
sees a kernel socket (script microseconds, packetdrill's option spelling, errnos).

One script drives one connection: its first ``socket()`` is the connection's socket (a
listener that becomes the accepted socket, or the connecting one); a second socket is not
modelled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tcplab.errors import TcplabError

from .syntax import Option, Unsupported


@dataclass(frozen=True)
class Sent:
    """A segment the endpoint sent, in live numbers, its time in script microseconds."""

    time: int
    flags: str
    seq: int
    ack: int
    win: int
    length: int
    options: tuple[Option, ...]
    ecn: str | None = None


def _option(raw: tuple[Any, ...]) -> Option:
    kind = raw[0]
    if kind == "sack":
        return Option("sack", tuple(edge for block in raw[1] for edge in block))
    return Option(kind, tuple(int(v) for v in raw[1:]))


def _wire(o: Option) -> tuple[Any, ...]:
    if o.kind == "sack":
        return ("sack", list(zip(o.values[::2], o.values[1::2], strict=True)))
    return (o.kind, *o.values)


class Stack:
    """One `step.Connection` of `profile` with the scenario tcp fields `tcp`."""

    #: The endpoint's timestamps clock ticks in microseconds.
    ts_tick_us = 1

    def __init__(self, profile: str, tcp: dict[str, Any]):
        from tcplab import step

        self.conn: Any = step.Connection(profile=profile, tcp=tcp)
        self.sockets = 0
        self.accepted = False
        self.shut_wr = False
        self.shut_rd = False

    # -- time and segments -------------------------------------------------------------------

    def advance_to(self, t_us: int) -> None:
        self.conn.advance(t_us / 1e6)

    def inject(self, *, flags: str, seq: int, ack: int, win: int, length: int,
               options: tuple[Option, ...], ecn: str | None) -> None:  # fmt: skip
        if ecn not in (None, "noecn"):
            raise Unsupported(f"inbound IP ECN field [{ecn}] is not modelled")
        self.conn.inject(flags, seq=seq, ack=ack, win=win, length=length,
                         options=[_wire(o) for o in options])  # fmt: skip

    def sent(self) -> list[Sent]:
        return [
            Sent(
                round(s.time * 1e6),
                s.flags,
                s.seq,
                s.ack,
                s.win,
                s.length,
                tuple(_option(o) for o in s.options),
            )  # fmt: skip
            for s in self.conn.sent()
        ]

    # -- the socket --------------------------------------------------------------------------

    def socket(self) -> str:
        self.sockets += 1
        if self.sockets > 1:
            raise Unsupported("a second socket: one script drives one connection here")
        return "first"

    def listen(self, sock: str) -> None:
        self.conn.listen()

    def accept(self, sock: str) -> str | None:
        try:
            self.conn.accept()
        except TcplabError:
            return None
        self.accepted = True
        return "connection"

    def connect(self, sock: str) -> None:
        self.conn.connect()

    def state(self, sock: str) -> str:
        return str(self.conn.state).replace("-", "_").replace("RECEIVED", "RECV")

    def error(self, sock: str) -> str | None:
        return "ECONNRESET" if self.conn.state == "CLOSED" else None

    def write(self, sock: str, n: int, more: bool) -> int:
        if self.shut_wr or self.conn.state in ("FIN-WAIT-1", "FIN-WAIT-2", "CLOSING",
                                               "TIME-WAIT", "LAST-ACK", "CLOSED"):  # fmt: skip
            from .syscalls import SocketErrno

            raise SocketErrno("EPIPE")
        return self.conn.send(n, more)

    def read(self, sock: str, n: int) -> int | None:
        """Bytes read (after shutdown(SHUT_RD) too, what is queued); 0 at EOF or after
        shutdown(SHUT_RD) with nothing queued (Linux's RCV_SHUTDOWN); None when the call
        would block."""
        got = self.conn.read(n)
        if got == 0 and not (self.conn.eof or self.shut_rd or self.conn.state == "CLOSED"):
            return None
        return got

    def close(self, sock: str) -> None:
        """close() of the connection; of a listener that has handed its connection to
        accept() (or never had one), nothing on the wire."""
        if sock == "first" and (self.accepted or self.conn.state == "LISTEN"):
            return
        self.conn.close()

    def shutdown(self, sock: str, how: str) -> None:
        self.conn.shutdown(how)
        if how in ("SHUT_WR", "SHUT_RDWR"):
            self.shut_wr = True
        if how in ("SHUT_RD", "SHUT_RDWR"):
            self.shut_rd = True

    def setsockopt(self, sock: str, name: str, value: Any) -> None:
        try:
            self.conn.setsockopt(name, value)
        except TcplabError as e:
            raise Unsupported(f"setsockopt {name}={value}: {e}") from None

    def getsockopt(self, sock: str, name: str) -> Any:
        if name == "SO_ERROR":
            return 0
        return self.conn.getsockopt(name)

    def tcp_info(self, sock: str) -> dict[str, Any]:
        return dict(self.conn.tcp_info())


def open_stack(profile: str, settings: dict[str, Any], overrides: dict[str, Any]) -> Stack:
    """The endpoint for one script: `profile`, the tcp fields its shell commands set
    (`settings`), then the caller's `overrides` (``tcp.NAME`` paths)."""
    tcp = dict(settings)
    for path, value in overrides.items():
        if not path.startswith("tcp."):
            from tcplab.errors import _invalid

            raise _invalid("--set", path, "a packetdrill endpoint has only tcp fields",
                           "tcp.NAME=VALUE (tcplab schema tcp)")  # fmt: skip
        tcp[path.removeprefix("tcp.")] = value
    if profile not in ("linux", "rfc", "ns2", "riverbed"):
        from tcplab.errors import _invalid

        raise _invalid("--profile", profile, "", "linux, rfc, ns2, riverbed")
    return Stack(profile, tcp)
