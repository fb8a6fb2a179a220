"""Step one simulated TCP endpoint by hand: you play its peer, segment by segment, as a
packetdrill script plays the remote side of a kernel socket.

The endpoint is built from a ``[tcp]`` table (a profile and its overrides) exactly as a
scenario builds its connections. You advance simulated time, inject segments, read what the
endpoint sent, act as its application (``listen``, ``connect``, ``accept``, ``write``,
``read``, ``close``, ``shutdown``, socket options) and read ``tcp_info()`` with Linux's field
names and units::

    >>> from tcplab.step import Connection
    >>> c = Connection(profile="linux")
    >>> c.listen()
    >>> syn_options = [("mss", 1460), ("sackOK",), ("nop",), ("wscale", 7)]
    >>> c.inject("S", seq=0, win=65535, options=syn_options)
    >>> print(c.sent()[0])
    0.000000 > S. 0:0(0) ack 1 win 64240 <mss 1460,nop,nop,sackOK,nop,wscale 7>
    >>> c.advance(0.010)                     # one 10 ms round trip later, the peer's ACK
    >>> c.inject(".", seq=1, ack=1, win=512)
    >>> c.accept()
    >>> c.write(10 * 1460)                   # IW10: ten segments at once
    14600
    >>> [s.length for s in c.sent()]
    [1460, 1460, 1460, 1460, 1460, 1460, 1460, 1460, 1460, 1460]
    >>> c.tcp_info()["tcpi_snd_cwnd"], c.tcp_info()["tcpi_unacked"]
    (10, 10)

Units: every time is seconds (float) of simulated time from 0, rounded to the nanosecond
inside; ``tcp_info`` uses Linux's (microseconds, segments). Sequence numbers: the endpoint's
initial sequence number is 0 (its SYN is sequence 0, its first data byte 1, packetdrill's
relative numbers); the peer's is what its SYN says. The timestamps option ticks in
microseconds from 1 at time 0. There are no payload bytes, only lengths.

Misuse (a segment before ``listen()``/``connect()``, a bad flag or option, time going
backwards, an option the model cannot change on an open connection) raises
``tcplab.errors.StepError`` (a ``ValueError``) naming the call in ``.field``; bad ``[tcp]``
settings raise the scenario's errors naming ``tcp.<field>``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tcplab import _core
from tcplab.errors import StepError

__all__ = ["Connection", "Segment", "SHUT_RD", "SHUT_WR", "SHUT_RDWR"]

#: ``shutdown(SHUT_RD)``: no more reading; nothing goes on the wire.
SHUT_RD = 0
#: ``shutdown(SHUT_WR)``: no more writing; the FIN follows the data.
SHUT_WR = 1
#: ``shutdown(SHUT_RDWR)``: both.
SHUT_RDWR = 2
_SHUT = {"SHUT_RD": SHUT_RD, "SHUT_WR": SHUT_WR, "SHUT_RDWR": SHUT_RDWR}

Option = tuple[Any, ...]


def _opt_text(o: Sequence[Any]) -> str:
    kind = o[0]
    if kind == "TS":
        return f"TS val {o[1]} ecr {o[2]}"
    if kind == "sack":
        return "sack " + " ".join(f"{s}:{e}" for s, e in o[1])
    return " ".join(str(x) for x in o)


@dataclass(frozen=True)
class Segment:
    """A segment the endpoint sent.

    ``time`` (s) when it left; TSO-like bursts are separate MSS segments with the same time.
    ``flags`` in packetdrill's spelling ("S.", "P.", "F.", "."; P marks a data segment that
    ends where a ``write`` ended, as Linux's ``tcp_push`` does). ``seq``, ``ack`` (0 without
    the ACK flag), ``win`` (the window field as sent, scaled), ``length`` (payload bytes),
    ``end`` (seq + length, + 1 for a SYN or FIN). SYN options: ``mss``, ``wscale``,
    ``sack_ok``; ``ts_val``/``ts_ecr`` (None without timestamps); ``sack`` blocks; ``tx_count``
    (1 for a first transmission); ``options`` all of them in Linux's wire order with the NOPs;
    ``ip_bytes`` the packet's size as the model counts it on the wire (IP and TCP headers,
    options, payload: what a link serialises).
    """

    time: float
    flags: str
    seq: int
    ack: int
    win: int
    length: int
    end: int
    mss: int | None
    wscale: int | None
    sack_ok: bool
    ts_val: int | None
    ts_ecr: int | None
    sack: tuple[tuple[int, int], ...]
    tx_count: int
    options: tuple[Option, ...]
    ip_bytes: int

    @property
    def retransmission(self) -> bool:
        return self.tx_count > 1

    def __str__(self) -> str:
        text = f"{self.time:.6f} > {self.flags} {self.seq}:{self.seq + self.length}({self.length})"
        if "." in self.flags:
            text += f" ack {self.ack}"
        text += f" win {self.win}"
        if self.options:
            text += " <" + ",".join(_opt_text(o) for o in self.options) + ">"
        return text

    @classmethod
    def _from_core(cls, d: Mapping[str, Any]) -> Segment:
        return cls(
            time=d["time_ns"] / 1e9,
            flags=d["flags"],
            seq=d["seq"],
            ack=d["ack"],
            win=d["win"],
            length=d["length"],
            end=d["end"],
            mss=d["mss"],
            wscale=d["wscale"],
            sack_ok=d["sack_ok"],
            ts_val=d["ts_val"],
            ts_ecr=d["ts_ecr"],
            sack=tuple((s, e) for s, e in d["sack"]),
            tx_count=d["tx_count"],
            ip_bytes=d["ip_bytes"],
            options=tuple(
                (o[0], [tuple(b) for b in o[1]]) if o[0] == "sack" else tuple(o)
                for o in d["options"]
            ),
        )


def _ns(field: str, t: float) -> int:
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
        raise StepError(f"{field}: invalid time {t!r}: a finite number of seconds, 0 or more")
    return round(t * 1e9)


def _int(field: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise StepError(f"{field}: invalid value {v!r}: a non-negative integer")
    return v


class Connection:
    """One simulated TCP endpoint (the system under test) whose peer is you.

    ``profile`` ("linux", "rfc", "riverbed", "ns2") and ``tcp`` (any ``[tcp]`` field:
    ``{"congestion_control": "reno", "mss": 1000}``) build it as a scenario would. Nothing is
    open until ``listen()`` or ``connect()``.
    """

    def __init__(self, profile: str | None = None, tcp: Mapping[str, Any] | None = None) -> None:
        table = dict(tcp or {})
        if profile is not None:
            table["profile"] = profile
        self._tcp = table
        self._core = _core.Stepper(json.dumps(table))

    def __repr__(self) -> str:
        profile = self._tcp.get("profile", "rfc")
        return f"<Connection {self.state} at {self.now:.6f} s, profile {profile!r}>"

    # --- time
    @property
    def now(self) -> float:
        """The current simulated time (s)."""
        return self._core.now_ns() / 1e9

    def advance(self, t: float) -> None:
        """Advance to time ``t`` (s, absolute): every timer due at or before ``t`` fires at its
        own time. StepError if ``t`` is before ``now``."""
        self._core.advance_ns(_ns("advance", t))

    def next_timer(self) -> float | None:
        """The earliest armed timer's deadline (s), or None."""
        t = self._core.next_timer_ns()
        return None if t is None else t / 1e9

    @property
    def state(self) -> str:
        """The connection's state by RFC 9293's names ("LISTEN", "ESTABLISHED", ...)."""
        return self._core.state()

    # --- segments
    def inject(
        self,
        flags: str,
        seq: int,
        ack: int = 0,
        win: int = 65535,
        length: int = 0,
        options: Iterable[Option] = (),
        *,
        at: float | None = None,
    ) -> None:
        """Inject a segment from the peer (at ``at``, advancing first, or now).

        ``flags``: packetdrill's letters S F R P . E W (P, E and W have no effect in the
        model). ``seq`` in the peer's space, ``ack`` in the endpoint's (its SYN is 0); ``win``
        the window field as on the wire; ``length`` payload bytes. ``options`` in wire order:
        ``("mss", n)``, ``("wscale", n)``, ``("sackOK",)``, ``("TS", val, ecr)``,
        ``("sack", [(start, end), ...])``, ``("nop",)``, ``("eol",)``.
        """
        if at is not None:
            self.advance(at)
        if not isinstance(flags, str):
            raise StepError(f"inject.flags: invalid value {flags!r}: a string such as 'S' or 'P.'")
        opts = []
        for o in options:
            if isinstance(o, str):
                o = (o,)
            if not isinstance(o, (tuple, list)) or not o:
                raise StepError(
                    f"inject.options: invalid option {o!r}: a tuple such as ('mss', 1460)"
                )
            if o[0] == "sack" and len(o) == 2:
                opts.append(["sack", [list(b) for b in o[1]]])
            else:
                opts.append(list(o))
        segment = {
            "flags": flags,
            "seq": _int("inject.seq", seq),
            "ack": _int("inject.ack", ack),
            "win": _int("inject.win", win),
            "length": _int("inject.length", length),
            "options": opts,
        }
        try:
            text = json.dumps(segment)
        except (TypeError, ValueError) as err:
            raise StepError(f"inject.options: {err}") from None
        self._core.inject(text)

    def sent(self) -> list[Segment]:
        """The segments the endpoint sent since the last call, oldest first."""
        return [Segment._from_core(d) for d in json.loads(self._core.take_sent())]

    # --- the application's side
    def listen(self) -> None:
        """Passive open: wait for the peer's SYN."""
        self._core.listen()

    def connect(self) -> None:
        """Active open: the SYN leaves now."""
        self._core.connect()

    def accept(self) -> None:
        """Take the passive open's connection; StepError until the handshake is complete."""
        self._core.accept()

    def write(self, n: int) -> int:
        """Write ``n`` bytes; returns ``n``."""
        return self._core.write(_int("write", n))

    def send(self, n: int, more: bool = False) -> int:
        """send(2) of ``n`` bytes; returns ``n``. With ``more`` (MSG_MORE) the data waits for
        more to come as under TCP_CORK (full segments go, a shorter tail waits) and its end
        gets no PSH, until something pushes it: an ACK, a write without ``more``, uncorking
        or TCP_NODELAY."""
        return self._core.send(_int("send", n), bool(more))

    def read(self, n: int) -> int:
        """Read up to ``n`` bytes delivered in order; returns how many (0 at the end of the
        stream, see ``eof``, or when nothing is there; after ``SHUT_RD`` too, as Linux). The
        model's application drains the receive buffer as data arrives: reading only counts
        (and ``close`` resets the connection if it counted bytes left unread)."""
        return self._core.read(_int("read", n))

    @property
    def readable(self) -> int:
        """Bytes received in order and not read yet."""
        return self._core.readable()

    @property
    def eof(self) -> bool:
        """The peer's FIN arrived and everything before it was read."""
        return self._core.eof()

    def close(self) -> None:
        """Close, as Linux's ``tcp_close``: the FIN follows the data; with received data not
        read yet, a RST in its place; in SYN-SENT nothing is sent. A segment that arrives
        once the connection is closed is answered with a RST."""
        self._core.close()

    def shutdown(self, how: int | str) -> None:
        """``SHUT_RD`` (0: nothing on the wire), ``SHUT_WR`` (1: the FIN follows the data) or
        ``SHUT_RDWR`` (2), by number or name."""
        if isinstance(how, str):
            if how not in _SHUT:
                raise StepError(f"shutdown: invalid value {how!r}: SHUT_RD, SHUT_WR or SHUT_RDWR")
            how = _SHUT[how]
        if how not in (0, 1, 2) or isinstance(how, bool):
            raise StepError(
                f"shutdown: invalid value {how!r}: SHUT_RD (0), SHUT_WR (1) or SHUT_RDWR (2)"
            )
        self._core.shutdown(how)

    def setsockopt(self, name: str, value: int | bool | str) -> None:
        """TCP_NODELAY, TCP_CORK, SO_SNDBUF (also on an open connection), TCP_MAXSEG,
        TCP_CONGESTION (Linux's names: reno, cubic, westwood = Westwood+, vegas, veno, bbr;
        or tcplab's) and SO_RCVBUF (before ``listen``/``connect`` only; it fixes the buffer,
        without Linux's doubling)."""
        self._core.setsockopt(name, int(value) if isinstance(value, bool) else value)

    def set_min_tso_segs(self, n: int) -> None:
        """Linux's ``net.ipv4.tcp_min_tso_segs`` (default 2, 1 to 255): the fewest segments
        the endpoint puts in a TSO packet, which decides where ``P`` falls (every TSO packet of
        more than one segment carries it)."""
        self._core.set_min_tso_segs(n)

    def getsockopt(self, name: str) -> int | str:
        """The value of an option ``setsockopt`` knows (TCP_MAXSEG: the MSS in use once the
        SYNs agreed it)."""
        return self._core.getsockopt(name)

    def tcp_info(self) -> dict[str, int]:
        """Linux's ``struct tcp_info`` fields the model keeps, with Linux's names and units:
        times in microseconds, windows in segments, ``tcpi_ca_state`` Open 0, Disorder 1,
        Recovery 3, Loss 4 (CWR 2 never: no ECN), ``tcpi_snd_ssthresh`` 2147483647 until set.
        A field the model does not keep is absent (``tcpi_rcv_mss``, ``tcpi_pacing_rate``,
        ``tcpi_delivered``, ...); ``tcpi_rtt``, ``tcpi_rttvar`` and ``tcpi_min_rtt`` appear
        with the first RTT sample."""
        return dict(self._core.tcp_info())
