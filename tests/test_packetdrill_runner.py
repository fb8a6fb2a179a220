"""packetdrill's matching rules in the runner (issue 31), against a stand-in endpoint whose
segments are given: a line of several MSS matches that many segments, times are checked
with packetdrill's tolerance, the first mismatch is reported with the line, the expected and
the actual segment, and %{ }% blocks run after the script in one namespace."""

from __future__ import annotations

from typing import Any

from tcplab.packetdrill import parse
from tcplab.packetdrill.endpoint import Sent
from tcplab.packetdrill.runner import PEER_ISN, play
from tcplab.packetdrill.syntax import Option

HANDSHAKE = """\
0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0 bind(3, ..., ...) = 0
+0 listen(3, 1) = 0
+0 < S 0:0(0) win 65535 <mss 1000,nop,wscale 7>
+0 > S. 0:0(0) ack 1 <mss 1460,nop,wscale 8>
+.1 < . 1:1(0) ack 1 win 500
+0 accept(3, ..., ...) = 4
"""
ISN = 5000  # the stand-in's initial sequence number: scripts see 0


class Stand:
    """An endpoint that sends the segments it is given (script numbers, times in µs) and
    records what it is asked."""

    def __init__(self, segments: list[tuple[int, str, int, int]], info: Any = None):
        self.t = 0
        self.queue = [
            Sent(0, "S.", ISN, PEER_ISN + 1, 65535, 0,
                 (Option("mss", (1460,)), Option("nop"), Option("wscale", (8,)))),
            *[Sent(t, f, ISN + seq, PEER_ISN + 1, 256, n, ()) for t, f, seq, n in segments],
        ]  # fmt: skip
        self.injected: list[dict[str, Any]] = []
        self.calls: list[tuple] = []
        self.info = info or (lambda t: {"tcpi_snd_cwnd": 10})

    def advance_to(self, t):
        self.t = t

    def inject(self, **kw):
        self.injected.append(kw)

    def sent(self):
        out = [s for s in self.queue if s.time <= self.t and (s.flags != "S." or self.injected)]
        self.queue = [s for s in self.queue if s not in out]
        return out

    def socket(self):
        return "s"

    def listen(self, sock):
        self.calls.append(("listen",))

    def accept(self, sock):
        return "c"

    def write(self, sock, n, more):
        self.calls.append(("write", n))
        return n

    def tcp_info(self, sock):
        return self.info(self.t)


def run(body: str, segments, **kw):
    stand = Stand(segments, **kw)
    return play(parse(HANDSHAKE + body, "t.pkt"), stand), stand


def test_a_line_of_several_mss_matches_that_many_segments_sent_together():
    body = "+0 write(4, ..., 3000) = 3000\n+0 > P. 1:3001(3000) ack 1\n"
    out, stand = run(body, [(100_000, ".", 1, 1000), (100_000, ".", 1001, 1000),
                            (100_000, "P.", 2001, 1000)])  # fmt: skip
    assert out.passed, out.failure
    assert ("write", 3000) in stand.calls
    # The handshake's ACK reached the endpoint in its own numbers.
    assert stand.injected[1]["ack"] == ISN + 1 and stand.injected[0]["seq"] == PEER_ISN


def test_flags_come_from_the_last_fragment():
    body = "+0 write(4, ..., 2000) = 2000\n+0 > P. 1:2001(2000) ack 1\n"
    out, _ = run(body, [(100_000, "P.", 1, 1000), (100_000, ".", 1001, 1000)])
    assert out.failure.kind == "mismatch" and out.failure.line == 9
    assert "tcp_psh: expected: 1 vs actual: 0" in out.failure.message
    assert out.failure.actual.endswith("> . 1:2001(2000) ack 1 win 256")


def test_one_segment_cannot_match_two_lines():
    body = (
        "+0 write(4, ..., 2000) = 2000\n+0 > . 1:1001(1000) ack 1\n+0 > . 1001:2001(1000) ack 1\n"
    )
    out, _ = run(body, [(100_000, ".", 1, 2000)])
    assert out.failure.kind == "mismatch" and out.failure.line == 9
    assert "payload: expected 1000 bytes vs actual 2000 bytes" in out.failure.message


def test_timing_within_the_tolerance_passes_outside_fails():
    body = "+0 write(4, ..., 1000) = 1000\n+.2 > P. 1:1001(1000) ack 1\n"
    # 200 ms after the write: tolerance max(4 ms, 12.5 % of 200 ms) = 25 ms.
    assert run(body, [(324_000, "P.", 1, 1000)])[0].passed
    out, _ = run(body, [(326_000, "P.", 1, 1000)])
    assert out.failure.kind == "timing"
    assert out.failure.message == (
        "timing error: expected outbound packet at 0.300000 sec but happened at 0.326000 sec; "
        "tolerance 0.025000 sec"
    )
    early, _ = run(body, [(100_000, "P.", 1, 1000)])  # sent at once: too early
    assert early.failure.kind == "timing" and "happened at 0.100000" in early.failure.message


def test_ranges_and_star():
    body = "+0 write(4, ..., 1000) = 1000\n+.3~+.31 > P. 1:1001(1000) ack 1\n"
    assert run(body, [(405_000, "P.", 1, 1000)])[0].passed
    assert not run(body, [(450_000, "P.", 1, 1000)])[0].passed
    star = "+0 write(4, ..., 1000) = 1000\n* > P. 1:1001(1000) ack 1\n"
    assert run(star, [(1_700_000, "P.", 1, 1000)])[0].passed


def test_a_segment_never_sent_times_out():
    out, _ = run("+0 write(4, ..., 1000) = 1000\n+0 > P. 1:1001(1000) ack 1\n", [])
    assert (out.failure.kind, out.failure.line) == ("missing", 9)
    assert out.failure.message == "Timed out waiting for packet"


def test_an_unexpected_segment_shifts_the_queue_and_fails_the_next_line():
    body = "+0 write(4, ..., 1000) = 1000\n+0 > P. 1:1001(1000) ack 1\n"
    out, _ = run(body, [(100_000, ".", 1, 0), (100_000, "P.", 1, 1000)])
    assert out.failure.kind == "mismatch"


def test_outbound_options_must_match_when_written_and_be_absent_when_not():
    bad = HANDSHAKE.replace("<mss 1460,nop,wscale 8>", "<mss 1460,sackOK,nop,wscale 8>")
    out = play(parse(bad, "t.pkt"), Stand([]))
    assert out.failure.line == 5 and "options" in out.failure.message
    anything = HANDSHAKE.replace("<mss 1460,nop,wscale 8>", "<...>")
    assert play(parse(anything, "t.pkt"), Stand([])).passed
    none = HANDSHAKE.replace(" <mss 1460,nop,wscale 8>", "")
    assert not play(parse(none, "t.pkt"), Stand([])).passed


def test_inbound_sack_blocks_move_into_the_endpoints_space():
    body = "+0 < . 1:1(0) ack 1 win 500 <sack 1001:2001,nop,nop>\n"
    out, stand = run(body, [])
    assert out.passed
    assert stand.injected[-1]["options"][0] == Option("sack", (ISN + 1001, ISN + 2001))


def test_code_blocks_run_after_the_script_with_the_snapshot_of_their_time():
    body = (
        "+0 %{ cwnd = tcpi_snd_cwnd }%\n"
        "+1 %{\nassert tcpi_snd_cwnd == cwnd + 1, (tcpi_snd_cwnd, cwnd)\n}%\n"
        "+1 %{ assert tcpi_snd_cwnd == 99, tcpi_snd_cwnd }%\n"
    )
    info = lambda t: {"tcpi_snd_cwnd": 10 + t // 1_000_000}  # noqa: E731
    out, _ = run(body, [], info=info)
    assert (out.failure.kind, out.failure.line) == ("assertion", 12)
    assert "assert tcpi_snd_cwnd == 99, tcpi_snd_cwnd (12)" in out.failure.message


def test_a_field_not_in_tcp_info_is_reported():
    out, _ = run("+0 %{ assert tcpi_busy_time == 0 }%\n", [])
    assert out.failure.kind == "unsupported"
    assert out.failure.message.startswith("tcp_info field tcpi_busy_time is not modelled; the")


def test_a_burst_takes_only_segments_sent_by_the_lines_latest_time():
    body = "+0 write(4, ..., 2000) = 2000\n+0 > P. 1:2001(2000) ack 1\n"
    out, _ = run(body, [(100_000, ".", 1, 1000), (400_000, "P.", 1001, 1000)])
    assert out.failure.kind == "mismatch"
    assert out.failure.actual == "0.100000 > . 1:1001(1000) ack 1 win 256"
