"""Reading packetdrill scripts: text -> `Script` (the grammar of packetdrill's parser.y, the
part TCP scripts use).

    script  := [--name=value ...] [`init command`] event... [`cleanup command`]
    event   := time action
    time    := secs | +secs | * | secs~secs | +secs~+secs       (ranges and * outbound only)
    action  := packet | syscall | %{ python }% | `shell command`
    packet  := (<|>) [[ecn]] FLAGS start:end(len) [ack N] [win N] [<option,...> | <...>]
    syscall := [...end] name(arg, ...) = ret [ERRNO] [(note)]
    arg     := ... | number | symbol | A|B | "text" | [arg, ...] | {name=arg, name(n)=arg, ...}

Comments are ``// ...`` to the end of the line and ``/* ... */``. A number of seconds is an
integer or a decimal (``.1``, ``0.011``); times are kept in microseconds. Anything else ends
in a `ScriptError` that names the file, the line and what is allowed there.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import Any

from .syntax import (
    ABSOLUTE,
    ANY,
    ANY_OPTIONS,
    ELLIPSIS,
    RELATIVE,
    Code,
    Command,
    Event,
    Option,
    Or,
    Packet,
    Script,
    ScriptError,
    Struct,
    Syscall,
    Time,
)

_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?")
_INT = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|\d+)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FLAGS = re.compile(r"[FSRPEWUA.]+(?=[\s\d])|-(?=\s)")
_OPTION = re.compile(r"--([A-Za-z0-9_]+)(?:=(\S*))?")
_ALLOWED_OPTIONS = "nop, eol, mss N, wscale N, sackOK, sack A:B [C:D ...], TS val N ecr N"
_ACTIONS = "a packet (< or >), a system call name(...), %{ python }% or `command`"


class _Scanner:
    """A position in the text, whitespace and comments skipped between tokens."""

    def __init__(self, text: str, path: str):
        self.text = text
        self.path = path
        self.pos = 0
        self.newlines = [i for i, c in enumerate(text) if c == "\n"]

    def line(self, pos: int | None = None) -> int:
        return bisect.bisect_left(self.newlines, self.pos if pos is None else pos) + 1

    def error(self, message: str, pos: int | None = None, **kw: Any) -> ScriptError:
        return ScriptError(self.path, self.line(pos), message, **kw)

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            c = text[self.pos]
            if c in " \t\r\n\f\v":
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error("comment /* never closed by */")
                self.pos = end + 2
            else:
                return

    def at_end(self) -> bool:
        self.skip()
        return self.pos >= len(self.text)

    def peek(self, s: str) -> bool:
        self.skip()
        return self.text.startswith(s, self.pos)

    def take(self, s: str) -> bool:
        if self.peek(s):
            self.pos += len(s)
            return True
        return False

    def found(self) -> str:
        """The text at the position, for an error message."""
        self.skip()
        if self.pos >= len(self.text):
            return "the end of the file"
        word = re.match(r"\S{1,20}", self.text[self.pos :])
        return repr(word.group(0)) if word else repr(self.text[self.pos])

    def expect(self, s: str, what: str) -> None:
        if not self.take(s):
            raise self.error(f"expected {s!r} {what}, found {self.found()}")

    def match(self, pattern: re.Pattern[str]) -> str | None:
        self.skip()
        m = pattern.match(self.text, self.pos)
        if m is None:
            return None
        self.pos = m.end()
        return m.group(0)

    def integer(self, what: str) -> int:
        word = self.match(_INT)
        if word is None:
            raise self.error(f"expected an integer {what}, found {self.found()}")
        return int(word, 0)

    def ident(self) -> str | None:
        return self.match(_IDENT)

    def raw_until(self, close: str, what: str) -> str:
        """The text up to `close` (not skipping comments: it is shell or Python)."""
        end = self.text.find(close, self.pos)
        if end < 0:
            raise self.error(f"{what} never closed by {close}")
        body = self.text[self.pos : end]
        self.pos = end + len(close)
        return body


def _micros(word: str) -> int:
    """Seconds as written -> microseconds, rounded (packetdrill truncates a float product;
    the tolerance hides the difference)."""
    return round(float(word) * 1_000_000)


def parse(text: str, path: str = "<script>") -> Script:
    """The script in `text` (from the file `path`, named in errors)."""
    s = _Scanner(text, path)
    script = Script(path=path)
    while s.peek("--"):
        line = s.line()
        m = s.match(_OPTION)
        if m is None:
            raise s.error(f"expected a header option --name=value, found {s.found()}")
        name, _, value = m[2:].partition("=")
        if name in script.options:
            raise ScriptError(path, line, f"header option --{name} given twice")
        script.options[name] = value
    if s.peek("`"):
        line = s.line()
        s.pos += 1
        script.init = (line, Command(s.raw_until("`", "command")))
    while not s.at_end():
        if s.peek("`"):
            line = s.line()
            s.pos += 1
            body = s.raw_until("`", "command")
            if not s.at_end():
                raise ScriptError(
                    path,
                    line,
                    "a command without a time must be the first (init) or the last (cleanup) "
                    "event; allowed: `+0 \\`command\\`` for a command in the timeline",
                )
            script.cleanup = (line, Command(body))
            break
        script.events.append(_event(s))
    if script.events and script.events[0].time.kind == RELATIVE and script.events[0].time.start:
        raise ScriptError(
            path, script.events[0].line, "the first event must be at time 0 (0 or +0)"
        )
    return script


def parse_file(path: str | Path) -> Script:
    """The script in the file `path` (an OSError if it cannot be read; a ScriptError if it is
    not packetdrill or not text)."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScriptError(str(path), data[: e.start].count(b"\n") + 1, "not UTF-8 text") from None
    return parse(text, str(path))


def _time(s: _Scanner) -> Time:
    if s.take("*"):
        return Time(ANY)
    relative = s.take("+")
    word = s.match(_NUMBER)
    if word is None:
        raise s.error(
            f"expected an event time, found {s.found()}; allowed: 0, +0.1, 1.5, *, "
            "+0.1~+0.2 or 1~2 (seconds)"
        )
    start = _micros(word)
    if s.peek("~"):
        s.pos += 1
        if relative != s.take("+"):
            raise s.error("both ends of a time range are relative (+a~+b) or both absolute (a~b)")
        end_word = s.match(_NUMBER)
        if end_word is None:
            raise s.error(f"expected the end of the time range, found {s.found()}")
        end = _micros(end_word)
        if end < start:
            raise s.error("time range is backwards")
        return Time(RELATIVE if relative else ABSOLUTE, start, end)
    return Time(RELATIVE if relative else ABSOLUTE, start)


def _event(s: _Scanner) -> Event:
    s.skip()
    line = s.line()
    time = _time(s)
    s.skip()
    if s.peek("<") or s.peek(">"):
        action: Any = _packet(s)
    elif s.take("%{"):
        action = Code(s.raw_until("}%", "%{ python block"))
    elif s.take("`"):
        action = Command(s.raw_until("`", "command"))
    else:
        action = _syscall(s)
    outbound = isinstance(action, Packet) and action.direction == ">"
    if time.kind == ANY and not outbound:
        raise ScriptError(s.path, line, "event time * can only be used with outbound packets")
    if time.end is not None and not outbound:
        raise ScriptError(s.path, line, "event time range can only be used with outbound packets")
    return Event(line, time, action)


def _packet(s: _Scanner) -> Packet:
    begin = s.pos
    direction = s.text[s.pos]
    s.pos += 1
    ecn = None
    s.skip()
    if s.text[s.pos : s.pos + 1] in ("[", "("):
        close = "]" if s.text[s.pos] == "[" else ")"
        s.pos += 1
        word = s.ident()
        if word not in ("ect0", "ect1", "ce", "noecn", "ect01"):
            raise s.error(
                f"IP information {word or s.found()!s} is not modelled; allowed: "
                "[ect0], [ect1], [ce], [noecn], [ect01]",
                unsupported=True,
            )
        ecn = word
        s.expect(close, "after the IP information")
    s.skip()
    if re.match(r"(?:UDP|ICMP|encap)\b", s.text[s.pos :]):
        raise s.error("only TCP packets are modelled; allowed: FLAGS start:end(len) ...",
                      unsupported=True)  # fmt: skip
    flags = s.match(_FLAGS)
    if flags is None:
        raise s.error(
            f"expected TCP flags, found {s.found()}; allowed: letters of FSRPEWU and . (ACK), "
            "or - for none"
        )
    flags = "" if flags == "-" else flags
    if "A" in flags:
        raise s.error("AccECN flags (A) are not modelled", unsupported=True)
    start = s.integer("(the start sequence number, start:end(len))")
    s.expect(":", "between the sequence numbers (start:end(len))")
    end = s.integer("(the end sequence number, start:end(len))")
    s.expect("(", "before the payload length (start:end(len))")
    length = s.integer("(the payload length, start:end(len))")
    s.expect(")", "after the payload length")
    if end != start + length:
        raise s.error(
            "inconsistent TCP sequence numbers and payload size: end = start + len", begin
        )
    for n, what in ((start, "start sequence"), (end, "end sequence")):
        if not 0 <= n < 2**32:
            raise s.error(f"TCP {what} number {n} out of range; allowed: 0 to 4294967295")
    if not 0 <= length < 2**16:
        raise s.error(f"TCP payload size {length} out of range; allowed: 0 to 65535")
    ack = win = None
    while True:
        word = re.match(r"(ack|win|urg)\b", s.text[s.pos :]) if not s.at_end() else None
        if word is None:
            break
        s.pos += len(word.group(1))
        if word.group(1) == "urg":
            raise s.error("the urgent pointer (urg) is not modelled", unsupported=True)
        n = s.integer(f"after {word.group(1)}")
        if word.group(1) == "ack":
            ack = n
        else:
            win = n
    options: Any = None
    if s.take("<"):  # an event begins with its time: a < here opens the options
        options = _options(s)
    if direction == "<" and win is None:
        raise s.error("an inbound packet needs its window: add win N", begin)
    return Packet(direction, flags, start, end, length, ack, win, options, ecn)


def _options(s: _Scanner) -> tuple[Option, ...] | str:
    if s.take("...") and s.take(">"):
        return ANY_OPTIONS
    out: list[Option] = []
    while True:
        s.skip()
        word = s.ident()
        if word == "nop" or word == "eol" or word == "sackOK":
            out.append(Option(word))
        elif word in ("mss", "wscale"):
            n = s.integer(f"after {word}")
            limit = 65535 if word == "mss" else 14
            if not 0 <= n <= limit:
                raise s.error(f"{word} {n} out of range; allowed: 0 to {limit}")
            out.append(Option(word, (n,)))
        elif word == "sack":
            edges: list[int] = []
            while s.match(re.compile(r"(?=\d)")) is not None and len(edges) < 8:
                edges.append(s.integer("(a SACK block a:b)"))
                s.expect(":", "in a SACK block a:b")
                edges.append(s.integer("(a SACK block a:b)"))
            if not edges:
                raise s.error("expected SACK blocks after sack; allowed: sack A:B [C:D ...]")
            out.append(Option("sack", tuple(edges)))
        elif word == "TS":
            if s.ident() != "val":
                raise s.error("expected TS val N ecr N")
            val = s.integer("after TS val")
            if s.ident() != "ecr":
                raise s.error("expected ecr N after TS val N")
            out.append(Option("TS", (val, s.integer("after ecr"))))
        elif word in ("FO", "FOEXP", "md5", "ECN", "exp", "mptcp"):
            raise s.error(f"TCP option {word} is not modelled; allowed: {_ALLOWED_OPTIONS}",
                          unsupported=True)  # fmt: skip
        else:
            raise s.error(f"unknown TCP option {word or s.found()}; allowed: {_ALLOWED_OPTIONS}")
        if s.take(">"):
            return tuple(out)
        s.expect(",", "between TCP options (or > to end the list)")


def _syscall(s: _Scanner) -> Syscall:
    end = None
    if s.take("..."):
        end = _time(s)
        if end.kind == ANY or end.end is not None:
            raise s.error("the end time of a blocking call is a single time")
    start = s.pos
    name = s.ident()
    if name is None or not s.peek("("):
        raise s.error(f"expected an action, found {s.found()}; allowed: {_ACTIONS}", start)
    s.pos += 1
    args: list[Any] = []
    if not s.take(")"):
        while True:
            args.append(_expression(s))
            if s.take(")"):
                break
            s.expect(",", f"between the arguments of {name}")
    s.expect("=", f"after {name}(...): the expected return value, = N")
    ret = _expression(s)
    errno = None
    if re.match(r"\s*E[A-Z0-9]+\b", s.text[s.pos :]):
        errno = s.ident()
    if s.peek("("):  # a note, such as (Operation now in progress): not compared
        depth = 0
        while s.pos < len(s.text):
            c = s.text[s.pos]
            s.pos += 1
            depth += {"(": 1, ")": -1}.get(c, 0)
            if depth == 0:
                break
    return Syscall(name, tuple(args), ret, errno, end)


def _expression(s: _Scanner) -> Any:
    term = _term(s)
    if not s.peek("|"):
        return term
    terms = [term]
    while s.take("|"):
        terms.append(_term(s))
    return Or(tuple(terms))


class Text(str):
    """A string literal of a system call ("reno")."""


def _term(s: _Scanner) -> Any:
    s.skip()
    if s.take("..."):
        return ELLIPSIS
    if s.take("["):
        items: list[Any] = []
        if not s.take("]"):
            while True:
                items.append(_expression(s))
                if s.take("]"):
                    break
                s.expect(",", "between list items (or ] to end the list)")
        return items
    if s.take("{"):
        fields: list[tuple[str | None, Any]] = []
        while not s.take("}"):
            mark = s.pos
            name = s.ident()
            count = None
            if name is not None and s.peek("("):
                s.pos += 1
                count = _expression(s)
                s.expect(")", f"after {name}(")
            if name is not None and s.take("="):
                fields.append((name, _expression(s)))
            elif name is not None and count is not None:
                raise s.error(f"expected = after {name}(...)")
            else:
                s.pos = mark
                fields.append((None, _expression(s)))
            if not s.take(","):
                s.expect("}", "to end the structure")
                break
        return Struct(tuple(fields))
    if s.peek('"'):
        s.pos += 1
        return Text(s.raw_until('"', "string"))
    number = s.match(_INT)
    if number is not None:
        return int(number, 0)
    name = s.ident()
    if name is not None:
        return name
    raise s.error(
        f"expected a value, found {s.found()}; allowed: ..., a number, a symbol, "
        '"text", [list] or {structure}'
    )
