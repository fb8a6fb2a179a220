"""A packetdrill script as data: its events, each with its line and time, and the error a
script that cannot be read or run raises.

The language is packetdrill's (github.com/google/packetdrill, ``gtests/net/packetdrill``):
tcplab reads the subset that TCP scripts use (see `tcplab.packetdrill.parser`) into these
values, and `tcplab.packetdrill.runner` plays them. Times are integer microseconds, as
packetdrill keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tcplab.errors import TcplabError


class ScriptError(TcplabError, ValueError):
    """A script tcplab cannot read, or a construct it cannot play: ``FILE:LINE: what is wrong;
    allowed: what is``. `unsupported` is true for a construct of packetdrill's language (or a
    shell command) that is valid but that tcplab does not model, false for a script that is
    not valid packetdrill."""

    kind = "packetdrill"

    def __init__(self, path: str, line: int, message: str, *, unsupported: bool = False):
        self.path = path
        self.line = line
        self.message = message
        self.unsupported = unsupported
        self.field = f"{path}:{line}"
        self.value = None
        self.allowed = None
        self.format = None
        super().__init__(f"{path}:{line}: {message}")


class Unsupported(Exception):
    """A socket call or option the endpoint does not model, met while a script runs."""


#: The time of an event (parser.y ``event_time``).
ABSOLUTE, RELATIVE, ANY = "absolute", "relative", "any"


@dataclass(frozen=True)
class Time:
    """`kind` is absolute, relative (``+x``) or any (``*``); `start` and `end` are
    microseconds, `end` set for a range (``a~b``, ``+a~+b``)."""

    kind: str
    start: int = 0
    end: int | None = None

    def __str__(self) -> str:
        if self.kind == ANY:
            return "*"
        sign = "+" if self.kind == RELATIVE else ""
        text = f"{sign}{self.start / 1e6:g}"
        return text if self.end is None else f"{text}~{sign}{self.end / 1e6:g}"


@dataclass(frozen=True)
class Option:
    """One TCP option of a packet's ``<...>`` list: `kind` is nop, eol, mss, wscale, sackOK,
    sack or TS; `values` its numbers (mss: (N,); wscale: (N,); sack: (a, b, c, d, ...) as
    block edges; TS: (val, ecr))."""

    kind: str
    values: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.kind == "sack":
            pairs = zip(self.values[::2], self.values[1::2], strict=True)
            return "sack " + " ".join(f"{a}:{b}" for a, b in pairs)
        if self.kind == "TS":
            return f"TS val {self.values[0]} ecr {self.values[1]}"
        return " ".join([self.kind, *map(str, self.values)])

    @property
    def size(self) -> int:
        """Its length on the wire in bytes (RFC 9293, 2018, 7323)."""
        return {"nop": 1, "eol": 1, "mss": 4, "wscale": 3, "sackOK": 2, "TS": 10}.get(
            self.kind, 2 + 4 * len(self.values)
        )


#: A packet line's option list ``<...>``: any options (outbound only).
ANY_OPTIONS = "any"

#: The TCP flag letters (tcp_packet.c): packetdrill's letter -> the flag's name.
FLAG_LETTERS = {
    "F": "FIN",
    "S": "SYN",
    "R": "RST",
    "P": "PSH",
    ".": "ACK",
    "U": "URG",
    "E": "ECE",
    "W": "CWR",
}


@dataclass(frozen=True)
class Packet:
    """A packet line. `direction` is ``<`` (the script injects it) or ``>`` (the endpoint
    must send it). `flags` holds the letters of FLAG_LETTERS in packetdrill's order; `seq`,
    `end` and `length` the relative sequence numbers ``seq:end(length)``; `ack` and `win`
    None when not written; `options` None when no list is written (no options), ANY_OPTIONS
    for ``<...>``; `ecn` the IP ECN field asked for (``ect0``, ``ect1``, ``ce``, ``noecn``)."""

    direction: str
    flags: str
    seq: int
    end: int
    length: int
    ack: int | None = None
    win: int | None = None
    options: tuple[Option, ...] | str | None = None
    ecn: str | None = None

    def has(self, letter: str) -> bool:
        return letter in self.flags

    def __str__(self) -> str:
        text = f"{self.direction} "
        if self.ecn:
            text += f"[{self.ecn}] "
        text += f"{self.flags or '-'} {self.seq}:{self.end}({self.length})"
        if self.ack is not None:
            text += f" ack {self.ack}"
        if self.win is not None:
            text += f" win {self.win}"
        if self.options == ANY_OPTIONS:
            text += " <...>"
        elif self.options is not None:
            text += " <" + ",".join(map(str, self.options)) + ">"
        return text


#: An argument written ``...``: any value.
ELLIPSIS = "..."


@dataclass(frozen=True)
class Or:
    """``A|B|C``: symbols or numbers OR-ed together (fcntl flags)."""

    terms: tuple[Any, ...]


@dataclass(frozen=True)
class Struct:
    """``{name=value, ...}`` (sendmsg's msghdr; an iovec ``{..., 40}`` has unnamed fields):
    `fields` holds (name or None, value) pairs; a name written ``msg_iov(3)`` keeps its count
    in the value's list."""

    fields: tuple[tuple[str | None, Any], ...]

    def get(self, name: str) -> Any:
        return next((v for k, v in self.fields if k == name), None)


@dataclass(frozen=True)
class Syscall:
    """A system call line: `name`, its `args` (ints, symbols as text, ELLIPSIS, lists, Or,
    Struct), the expected return `ret` (an int, or ELLIPSIS), `errno` a symbol such as
    EINPROGRESS or None, and `end` the return time of a blocking call (``start...end``)."""

    name: str
    args: tuple[Any, ...]
    ret: Any
    errno: str | None = None
    end: Time | None = None

    def __str__(self) -> str:
        def show(a: Any) -> str:
            if isinstance(a, list):
                return "[" + ", ".join(map(show, a)) + "]"
            if isinstance(a, Or):
                return "|".join(map(show, a.terms))
            if isinstance(a, Struct):
                return (
                    "{" + ", ".join(f"{k}={show(v)}" if k else show(v) for k, v in a.fields) + "}"
                )
            return str(a)

        text = f"{self.name}({', '.join(map(show, self.args))}) = {show(self.ret)}"
        return text + (f" {self.errno}" if self.errno else "")


@dataclass(frozen=True)
class Code:
    """A ``%{ ... }%`` block: Python run with the socket's tcp_info bound as ``tcpi_*``."""

    text: str


@dataclass(frozen=True)
class Command:
    """A backtick shell command: the init command, a timed one, or the cleanup command."""

    text: str


@dataclass(frozen=True)
class Event:
    line: int
    time: Time
    action: Packet | Syscall | Code | Command


@dataclass
class Script:
    """A parsed script: `options` its header ``--name=value`` lines, `init` and `cleanup` its
    untimed commands (with their lines), `events` the timeline."""

    path: str
    options: dict[str, str] = field(default_factory=dict)
    init: tuple[int, Command] | None = None
    events: list[Event] = field(default_factory=list)
    cleanup: tuple[int, Command] | None = None
