"""packetdrill's rules for an outbound packet: the time it may be sent, the sequence numbers,
flags and options it must carry, and how a line of several MSS matches several segments.

Numbers are *script* numbers here (relative to each side's initial sequence number); the
runner maps live segments into script space before calling `verify`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .syntax import ANY_OPTIONS, Option, Packet

#: packetdrill's defaults (config.c set_default_config): 4 ms, or 12.5 % of the time since
#: the previous event when larger (the Linux timer wheel's worst-case slack).
TOLERANCE_USECS = 4000
TOLERANCE_PERCENT = 12.5


@dataclass(frozen=True)
class Segment:
    """A segment the endpoint sent, in script numbers: `time` in microseconds since the
    script's start, `flags` packetdrill's letters, `options` as packetdrill writes them."""

    time: int
    flags: str
    seq: int
    ack: int
    win: int
    length: int
    options: tuple[Option, ...] = ()
    ecn: str | None = None

    def __str__(self) -> str:
        text = f"> {self.flags or '-'} {self.seq}:{self.seq + self.length}({self.length})"
        if "." in self.flags:
            text += f" ack {self.ack}"
        text += f" win {self.win}"
        if self.options:
            text += " <" + ",".join(map(str, self.options)) + ">"
        return text


def tolerance(
    delta_us: int, usecs: int = TOLERANCE_USECS, percent: float = TOLERANCE_PERCENT
) -> int:
    """The slack of an event `delta_us` after the previous one (run.c verify_time)."""
    return max(usecs, int(percent / 100 * max(delta_us, 0)))


def show_time(us: int) -> str:
    return f"{us / 1e6:.6f}"


def _flag_set(flags: str) -> frozenset[str]:
    return frozenset(flags)


#: The order packetdrill names a flag field that differs (tcp_packet.c / run_packet.c).
_FLAG_FIELDS = [("S", "tcp_syn"), ("R", "tcp_rst"), (".", "tcp_ack"), ("U", "tcp_urg"),
                ("F", "tcp_fin"), ("P", "tcp_psh"), ("E", "tcp_ece"), ("W", "tcp_cwr")]  # fmt: skip


def aggregate(parts: list[Segment]) -> Segment:
    """Consecutive segments as one (packet.c aggregate_packets): seq and CWR from the first,
    everything else (flags, ack, window, options, time) from the last."""
    first, last = parts[0], parts[-1]
    flags = last.flags.replace("W", "") + ("W" if "W" in first.flags else "")
    return Segment(
        last.time, flags, first.seq, last.ack, last.win, sum(p.length for p in parts),
        last.options, last.ecn,
    )  # fmt: skip


def continues(parts: list[Segment], nxt: Segment) -> bool:
    """Whether `nxt` may join the fragments `parts` of one aggregate: contiguous, the same
    ack, window and options, the same flags but FIN, PSH and CWR, and every fragment but the
    last as long as the one before."""
    prev = parts[-1]
    loose = set("FPW")
    return (
        nxt.seq == prev.seq + prev.length
        and nxt.ack == prev.ack
        and nxt.win == prev.win
        and len(nxt.options) == len(prev.options)
        and _flag_set(nxt.flags) - loose == _flag_set(prev.flags) - loose
        and "F" not in prev.flags
        and (len(parts) < 2 or prev.length == parts[-2].length)
    )


def verify(
    expected: Packet, actual: Segment, *, ts_tick_us: int = 0, ts_tolerance_us: int = 0,
    ts_map: Callable[[int], int] = lambda v: v,
) -> str | None:  # fmt: skip
    """What differs between the script line `expected` and the segment `actual`, as
    packetdrill says it (``live packet field tcp_psh: expected: 1 vs actual: 0``), or None.
    TS val is compared only when `ts_tick_us` is set (--tcp_ts_tick_usecs), live vals mapped
    into script values with `ts_map`; TS ecr never."""
    want, got = _flag_set(expected.flags), _flag_set(actual.flags)
    for letter, name in _FLAG_FIELDS:
        if (letter in want) != (letter in got):
            w, g = int(letter in want), int(letter in got)
            return f"live packet field {name}: expected: {w} vs actual: {g}"
    if expected.seq != actual.seq:
        return f"live packet field tcp_seq: expected: {expected.seq} vs actual: {actual.seq}"
    if "." in want and expected.ack is not None and expected.ack != actual.ack:
        return f"live packet field tcp_ack_seq: expected: {expected.ack} vs actual: {actual.ack}"
    if expected.length != actual.length:
        return (
            f"live packet payload: expected {expected.length} bytes vs actual {actual.length} bytes"
        )
    if expected.win is not None and expected.win != actual.win:
        return f"live packet field tcp_window: expected: {expected.win} vs actual: {actual.win}"
    if expected.ecn is not None and expected.ecn != "ect01":
        if (actual.ecn or "noecn") != expected.ecn:
            got_ecn = actual.ecn or "noecn"
            return f"live packet field ip_ecn: expected: {expected.ecn} vs actual: {got_ecn}"
    elif expected.ecn == "ect01" and actual.ecn not in ("ect0", "ect1"):
        return (
            f"live packet field ip_ecn: expected: ect0 or ect1 vs actual: {actual.ecn or 'noecn'}"
        )
    if expected.options == ANY_OPTIONS:
        return None
    return _verify_options(
        tuple(expected.options or ()), actual.options, ts_tick_us, ts_tolerance_us, ts_map
    )


def _verify_options(
    want: tuple[Option, ...], got: tuple[Option, ...], tick: int, tol: int,
    ts_map: Callable[[int], int],
) -> str | None:  # fmt: skip
    wsize, gsize = sum(o.size for o in want), sum(o.size for o in got)
    if wsize != gsize or len(want) != len(got):
        return (
            "live packet field tcp_data_offset / options: expected: "
            f"<{','.join(map(str, want))}> vs actual: <{','.join(map(str, got))}>"
        )
    for w, g in zip(want, got, strict=True):
        if w.kind != g.kind:
            return f"bad outbound TCP option: expected {w.kind} vs actual {g.kind}"
        if w.kind == "TS":
            if tick:
                live = ts_map(g.values[0])
                if abs(live - w.values[0]) * tick > tol:
                    return (
                        f"bad outbound TCP timestamp value: expected {w.values[0]} vs actual "
                        f"{live} (tolerance {tol / tick:.0f} ticks)"
                    )
        elif w.values != g.values:
            return f"bad outbound TCP option {w.kind}: expected: {w} vs actual: {g}"
    return None
