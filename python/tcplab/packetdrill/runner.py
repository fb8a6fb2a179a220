"""Playing a packetdrill script against a simulated endpoint, as packetdrill plays one against
the kernel: the script is the remote peer.

Each event runs at its time (run.c): an inbound packet is injected, an outbound line takes
the next segment(s) the endpoint sent and compares them (`matching`), a system call calls the
endpoint's socket, a ``%{ }%`` block takes a tcp_info snapshot. The first event that fails
ends the run with packetdrill's kind of message: the line, the expected and the actual
segment, the time.

Time. ``+x`` is relative to the previous event's *scheduled* time when both are inbound
packets, else to when the previous event finished (a matched segment's send time, a
non-blocking call's return, a blocking call's start). A blocking call ``+a...b`` returns at
b in the same frame as its start. An outbound segment may be sent within the tolerance of
its time (`matching.tolerance`); a line with a range ``+a~+b`` accepts any time in it, ``*``
any time.

Numbers. Script sequence numbers count from 0 on each side: the endpoint's initial sequence
number is learnt from its SYN (or SYN-ACK), the peer's is `PEER_ISN`. Inbound SACK blocks and
acks are moved into the endpoint's space, outbound ones back into the script's. The first
outbound timestamp fixes the offset between script and live TS values; an inbound TS ecr is
mapped with it.

``%{ }%`` blocks are Python, run as packetdrill runs them: after the script, in order, in
one namespace, each with the tcp_info snapshot of its time bound as ``tcpi_*`` names (and
packetdrill's constants, TCP_CA_Open ...). A script is code: run only scripts you trust.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from tcplab.errors import TcplabError

from . import matching, syscalls
from .matching import Segment, show_time
from .syntax import (
    ABSOLUTE,
    ANY,
    Code,
    Command,
    Event,
    Option,
    Packet,
    Script,
    ScriptError,
    Syscall,
    Unsupported,
)

#: The peer's initial sequence number in the endpoint's space (any value does; not 0, so that
#: a mapping left out shows).
PEER_ISN = 1_000_000
#: packetdrill waits this long past an outbound line's time before "Timed out waiting for
#: packet" (run_packet.c sniff_outbound_live_packet).
WAIT_US = 2_000_000


@dataclass
class Failure:
    """Why a script failed: `kind` mismatch (a segment differs), timing (sent outside the
    tolerance), missing (never sent), syscall (a call returned other than the script says),
    assertion (a %{ }% block), unsupported (a construct tcplab does not model)."""

    line: int
    kind: str
    message: str
    time_us: int | None = None
    expected: str | None = None
    actual: str | None = None

    def lines(self, path: str) -> list[str]:
        out = [f"{path}:{self.line}: {self.message}"]
        if self.expected is not None:
            out.append(f"script packet: {self.expected}")
        if self.actual is not None:
            out.append(f"actual packet: {self.actual}")
        return out


@dataclass
class Outcome:
    """A script's run: `failure` None when it passed; `events` how many events ran;
    `notes` how its shell commands were read."""

    path: str
    failure: Failure | None
    events: int
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.failure is None


class _Stop(Exception):
    def __init__(self, failure: Failure):
        self.failure = failure


class Runner:
    """One run of `script` against `stack` (a `tcplab.packetdrill.endpoint.Stack`)."""

    def __init__(self, script: Script, stack: Any, *, tolerance_usecs: int | None = None,
                 tolerance_percent: float | None = None):  # fmt: skip
        self.script = script
        self.stack = stack
        opts = script.options
        self.tol_us = int(
            tolerance_usecs if tolerance_usecs is not None
            else _option(script, "tolerance_usecs", matching.TOLERANCE_USECS)
        )  # fmt: skip
        self.tol_pct = float(
            tolerance_percent if tolerance_percent is not None
            else _option(script, "tolerance_percent", matching.TOLERANCE_PERCENT)
        )  # fmt: skip
        self.ts_tick = int(_option(script, "tcp_ts_tick_usecs", 0))
        for name in opts:
            if name not in ("tolerance_usecs", "tolerance_percent", "tcp_ts_tick_usecs"):
                raise ScriptError(
                    script.path, 1,
                    f"header option --{name} is not modelled; allowed: --tolerance_usecs, "
                    "--tolerance_percent, --tcp_ts_tick_usecs", unsupported=True,
                )  # fmt: skip
        self.local_isn: int | None = None
        # (live, script) TS val of the first outbound line with a TS option; the stack's TS
        # clock tick and the script's (--tcp_ts_tick_usecs, else Linux's 1 ms) scale between.
        self.ts_base: tuple[int, int] | None = None
        self.stack_tick = int(getattr(stack, "ts_tick_us", 1000))
        self.script_tick = self.ts_tick or 1000
        self.queue: list[Segment] = []
        self.now = 0
        self.prev: tuple[Event, int] | None = None  # the previous event and its scheduled time
        self.sockets = syscalls.Sockets(self)
        self.snapshots: list[tuple[Event, dict[str, Any], int]] = []

    # -- time --------------------------------------------------------------------------------

    def scheduled(self, event: Event) -> tuple[int, int | None]:
        """The time an event is due (and the end of its range), in script microseconds."""
        t = event.time
        if t.kind == ANY:
            return self.now, None
        if t.kind == ABSOLUTE:
            return t.start, t.end
        anchor = self.now
        if self.prev is not None and _inbound(self.prev[0]) and _inbound(event):
            anchor = self.prev[1]
        return anchor + t.start, None if t.end is None else anchor + t.end

    def delta(self, event: Event, at: int) -> int:
        """The time since the previous event, which scales the tolerance."""
        return at - (self.prev[1] if self.prev is not None else 0)

    def advance(self, t: int) -> None:
        """Run the simulation to script time `t`, keeping what the endpoint sends."""
        if t > self.now:
            self.stack.advance_to(t)
            self.now = t
        self.collect()

    def collect(self) -> None:
        for raw in self.stack.sent():
            self.queue.append(self._to_script(raw))
        self.sockets.poll()

    # -- numbers -----------------------------------------------------------------------------

    def _to_script(self, raw: Any) -> Segment:
        if "S" in raw.flags and self.local_isn is None:
            self.local_isn = raw.seq
        isn = self.local_isn if self.local_isn is not None else raw.seq
        options = []
        for o in raw.options:
            if o.kind == "sack":
                o = Option("sack", tuple((v - PEER_ISN) % 2**32 for v in o.values))
            options.append(o)
        return Segment(
            raw.time, raw.flags, (raw.seq - isn) % 2**32,
            (raw.ack - PEER_ISN) % 2**32 if "." in raw.flags else 0,
            raw.win, raw.length, tuple(options), raw.ecn,
        )  # fmt: skip

    def _to_live(self, p: Packet, line: int) -> dict[str, Any]:
        isn = self.local_isn or 0
        if "." in p.flags and self.local_isn is None:
            raise self._stop(
                line, "error", "inbound packet acks data before the endpoint sent a SYN"
            )
        options: list[Option] = []
        for o in p.options if isinstance(p.options, tuple) else ():
            if o.kind == "sack":
                options.append(Option("sack", tuple((v + isn) % 2**32 for v in o.values)))
            elif o.kind == "TS":
                ecr = o.values[1]
                if ecr and self.ts_base is None:
                    raise self._stop(
                        line, "error", "unable to infer live TS ecr: no outbound TS val yet"
                    )
                options.append(Option("TS", (o.values[0], self.ts_to_live(ecr) if ecr else 0)))
            else:
                options.append(o)
        return {
            "flags": p.flags,
            "seq": (p.seq + PEER_ISN) % 2**32,
            "ack": (p.ack + isn) % 2**32 if p.ack is not None else 0,
            "win": p.win,
            "length": p.length,
            "options": tuple(options),
            "ecn": p.ecn,
        }

    # -- events ------------------------------------------------------------------------------

    def _stop(self, line: int, kind: str, message: str, **kw: Any) -> _Stop:
        return _Stop(Failure(line, kind, message, **kw))

    def run(self) -> Failure | None:
        self.events = 0
        line = self.script.events[0].line if self.script.events else 1
        try:
            for event in self.script.events:
                line = event.line
                self.event(event)
                self.events += 1
            self.sockets.finish()
        except _Stop as stop:
            return stop.failure
        except Unsupported as e:
            return Failure(line, "unsupported", str(e), time_us=self.now)
        except TcplabError as e:  # the endpoint refused a call the script made
            return Failure(line, "syscall", str(e), time_us=self.now)
        return self.run_code()

    def event(self, event: Event) -> None:
        at, end = self.scheduled(event)
        action = event.action
        if isinstance(action, Packet) and action.direction == ">":
            self.outbound(event, action, at, end)
        else:
            self.advance(at)
            if isinstance(action, Packet):
                self.stack.inject(**self._to_live(action, event.line))
                self.collect()
            elif isinstance(action, Syscall):
                self.sockets.call(event, action, at)
            elif isinstance(action, Code):
                self.snapshots.append((event, self.sockets.tcp_info(event.line), self.now))
            elif isinstance(action, Command):
                pass  # read before the run (shell.settings_for)
        self.prev = (event, at)

    def outbound(self, event: Event, p: Packet, at: int, end: int | None) -> None:
        tol = matching.tolerance(self.delta(event, at), self.tol_us, self.tol_pct)
        latest = (end if end is not None else at) + tol
        anytime = event.time.kind == ANY
        parts = [self.next_segment(event, p, latest, anytime)]
        while sum(s.length for s in parts) < p.length and parts[-1].length:
            # The rest of a burst: segments sent by the line's latest time (at once, for *).
            if not self.queue:
                self.advance(max(self.now, parts[0].time if anytime else latest))
            if not self.queue or not matching.continues(parts, self.queue[0]):
                break
            seg = self.queue.pop(0)
            parts.append(seg)
        got = matching.aggregate(parts)
        if self.ts_base is None:
            self._fix_ts_base(p, got)
        why = matching.verify(
            p, got, ts_tick_us=self.ts_tick,
            ts_tolerance_us=matching.tolerance(got.time, self.tol_us, self.tol_pct),
            ts_map=self.ts_to_script,
        )  # fmt: skip
        if why is not None:
            raise self._stop(
                event.line, "mismatch", f"error handling packet: {why}", time_us=got.time,
                expected=f"{show_time(at)} {p}", actual=f"{show_time(got.time)} {got}",
            )  # fmt: skip
        if not anytime:
            lo = at - tol
            if not lo <= got.time <= latest:
                when = show_time(at) + ("" if end is None else f"~{show_time(end)}")
                raise self._stop(
                    event.line, "timing",
                    f"timing error: expected outbound packet at {when} sec but happened at "
                    f"{show_time(got.time)} sec; tolerance {show_time(tol)} sec",
                    time_us=got.time, expected=f"{show_time(at)} {p}",
                    actual=f"{show_time(got.time)} {got}",
                )  # fmt: skip
        self.now = max(self.now, got.time)

    def _fix_ts_base(self, p: Packet, got: Segment) -> None:
        """The first outbound line with a TS val fixes script val <-> live val."""
        want = _ts(p.options) if isinstance(p.options, tuple) else None
        live = _ts(got.options)
        if want is not None and live is not None:
            self.ts_base = (live.values[0], want.values[0])

    def ts_to_script(self, live: int) -> int:
        base_live, base_script = self.ts_base or (live, 0)
        delta = (live - base_live + 2**31) % 2**32 - 2**31
        return base_script + round(delta * self.stack_tick / self.script_tick)

    def ts_to_live(self, script: int) -> int:
        base_live, base_script = self.ts_base or (0, 0)
        return (
            base_live + round((script - base_script) * self.script_tick / self.stack_tick)
        ) % 2**32

    def next_segment(self, event: Event, p: Packet, latest: int, anytime: bool) -> Segment:
        """The next segment sent, waiting for it up to `latest` (and, to say when it came, up
        to WAIT_US more)."""
        if not self.queue:
            self.advance(max(self.now, latest) if not anytime else self.now + WAIT_US)
        if not self.queue:
            self.advance(max(self.now, latest) + WAIT_US)
        if not self.queue:
            raise self._stop(
                event.line, "missing", "Timed out waiting for packet",
                time_us=self.now, expected=f"{show_time(latest)} {p}",
            )  # fmt: skip
        return self.queue.pop(0)

    # -- %{ }% -------------------------------------------------------------------------------

    def run_code(self) -> Failure | None:
        """Every block, in order, in one namespace (code.c), each after its snapshot."""
        namespace: dict[str, Any] = dict(syscalls.CODE_CONSTANTS)
        for event, snapshot, time_us in self.snapshots:
            namespace.update(snapshot)
            assert isinstance(event.action, Code)
            source = _dedent_block(event.action.text)
            # A block may end in a line continuation: packetdrill joins it to the code it
            # writes next (the next snapshot's assignments), so it ends the statement.
            source = source.rstrip().removesuffix("\\").rstrip() + "\n"
            try:
                code = compile(source, f"{self.script.path}:{event.line}", "exec")
                exec(code, namespace)  # noqa: S102 - a script's code, run as packetdrill runs it
            except AssertionError as e:
                return Failure(
                    event.line, "assertion",
                    f"assertion failed in %{{ }}% block: {_assert_text(source, e)}",
                    time_us=time_us,
                )  # fmt: skip
            except NameError as e:
                name = getattr(e, "name", "") or ""
                if not name.startswith("tcpi_"):
                    raise_as = f"error in %{{ }}% block: NameError: {e}"
                    return Failure(event.line, "assertion", raise_as, time_us=time_us)
                return Failure(
                    event.line, "unsupported",
                    f"tcp_info field {name} is not modelled; the endpoint has "
                    f"{', '.join(sorted(k for k in snapshot if k.startswith('tcpi_')))}",
                    time_us=time_us,
                )  # fmt: skip
            except Exception as e:  # noqa: BLE001 - the script's own error, reported as its
                return Failure(
                    event.line, "assertion",
                    f"error in %{{ }}% block: {type(e).__name__}: {e}",
                    time_us=time_us,
                )  # fmt: skip
        return None


def _option(script: Script, name: str, default: float) -> float:
    if name not in script.options:
        return default
    text = script.options[name]
    try:
        value = float(text)
    except ValueError:
        raise ScriptError(
            script.path, 1, f"--{name}={text}: not a number; allowed: a number"
        ) from None
    if not math.isfinite(value) or value < 0:
        raise ScriptError(script.path, 1, f"--{name}={text}: allowed: a number >= 0")
    return value


def _ts(options: tuple[Option, ...]) -> Option | None:
    return next((o for o in options if o.kind == "TS"), None)


def _inbound(event: Event) -> bool:
    return isinstance(event.action, Packet) and event.action.direction == "<"


def _dedent_block(text: str) -> str:
    """A block's text as a program: lines as written, the common indent removed."""
    import textwrap

    return textwrap.dedent(text.strip("\n")) + "\n"


def _assert_text(source: str, e: AssertionError) -> str:
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    lineno = tb.tb_lineno if tb is not None else 0
    lines = source.splitlines()
    stmt = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
    return f"{stmt} ({e})" if str(e) else stmt


def play(script: Script, stack: Any, **tolerances: Any) -> Outcome:
    """Run a parsed script against `stack`; the outcome says whether it passed."""
    runner = Runner(script, stack, **tolerances)
    try:
        failure = runner.run()
    except ScriptError as e:
        return Outcome(
            script.path, Failure(e.line, "unsupported" if e.unsupported else "error", e.message), 0
        )
    return Outcome(script.path, failure, runner.events)
