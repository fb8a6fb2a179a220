"""The step API (tcplab.step): one endpoint played by hand as packetdrill plays the kernel's
peer, its errors, and a whole transfer stepped between two endpoints that must give what the
same transfer gives as a scenario, segment count for segment count and window for window."""

from __future__ import annotations

import heapq
import math

import pytest
import tcplab
from tcplab.errors import InvalidValueError, StepError, TcplabError
from tcplab.step import Connection, Segment

MSS = 1448  # 1460 less the timestamps option
LINUX_SYN = [("mss", 1460), ("sackOK",), ("TS", 100, 0), ("nop",), ("wscale", 7)]


def opened(**tcp: object) -> tuple[Connection, Segment]:
    """A passive open of a `linux` endpoint with a 10 ms round trip; returns it and its
    SYN-ACK."""
    c = Connection(profile="linux", tcp=tcp)
    c.listen()
    c.inject("S", 0, options=LINUX_SYN)
    (synack,) = c.sent()
    c.advance(0.010)
    c.inject(".", 1, 1, win=1000, options=[("nop",), ("nop",), ("TS", 110, synack.ts_val)])
    c.accept()
    return c, synack


def test_handshake_step_by_step() -> None:
    c, synack = opened()
    assert str(synack) == (
        "0.000000 > S. 0:0(0) ack 1 win 65160 <mss 1460,sackOK,TS val 1 ecr 100,nop,wscale 7>"
    )
    assert c.state == "ESTABLISHED"
    info = c.tcp_info()
    assert info["tcpi_state"] == 1 and info["tcpi_ca_state"] == 0
    assert info["tcpi_snd_mss"] == MSS and info["tcpi_options"] == 7
    assert (info["tcpi_rtt"], info["tcpi_rto"]) == (10_000, 210_000)
    assert info["tcpi_snd_ssthresh"] == 2**31 - 1
    assert "tcpi_rcv_mss" not in info and "tcpi_pacing_rate" not in info


def test_slow_start_one_ack_at_a_time() -> None:
    c, _ = opened(congestion_control="reno")
    c.write(100 * MSS)
    burst = c.sent()
    assert [s.length for s in burst] == [MSS] * 10
    assert {s.time for s in burst} == {0.010}
    for k in range(1, 11):
        c.advance(0.020 + k * 1e-4)
        c.inject(".", 1, 1 + k * MSS, win=1000, options=[("nop",), ("nop",), ("TS", 200 + k, 1)])
        out = c.sent()
        assert len(out) == 2, f"ACK {k} releases two segments"
        assert c.tcp_info()["tcpi_snd_cwnd"] == 10 + k


def test_fast_retransmit_on_the_third_duplicate_ack() -> None:
    c, _ = opened()
    c.write(10 * MSS)
    c.sent()
    for k in (1, 2, 3):
        c.advance(0.020 + k * 1e-4)
        sack = [(1 + MSS, 1 + (k + 1) * MSS)]
        c.inject(".", 1, 1, win=1000, options=[("TS", 200 + k, 1), ("sack", sack)])
        rtx = [s for s in c.sent() if s.retransmission]
        state = c.tcp_info()["tcpi_ca_state"]
        if k < 3:
            assert (rtx, state) == ([], 1), "Disorder, nothing resent"
    assert [(s.seq, s.time) for s in rtx] == [(1, 0.0203)]
    assert state == 3
    assert c.tcp_info()["tcpi_sacked"] == 3


def test_rto_fires_at_tcpi_rto_and_doubles() -> None:
    c, _ = opened(loss_recovery="sack")  # no loss probe before the timeout
    c.write(1000)
    (first,) = c.sent()
    last = first.time
    for n in (1, 2, 3):
        rto = c.tcp_info()["tcpi_rto"]
        c.advance(c.next_timer())
        (again,) = c.sent()
        assert again.seq == 1 and again.retransmission
        assert again.time == pytest.approx(last + rto / 1e6, abs=1e-9)
        info = c.tcp_info()
        assert (info["tcpi_backoff"], info["tcpi_retransmits"], info["tcpi_ca_state"]) == (n, n, 4)
        assert info["tcpi_rto"] == 2 * rto
        last = again.time


def test_close_sends_the_fin_and_psh_ends_each_tso_packet_and_the_write() -> None:
    c, _ = opened()
    c.write(3000)
    out = c.sent()
    # 2,896 kB/s paced (2 * 10 * 1448 B per 10 ms) is 2,827 bytes a millisecond: TSO packets
    # of tcp_min_tso_segs (2) segments, PSH on each; the write's last byte carries it too.
    assert [(s.seq, s.length, s.flags) for s in out] == [
        (1, 1448, "."),
        (1449, 1448, "P."),
        (2897, 104, "P."),
    ]
    c.advance(0.02)
    c.inject(".", 1, 3001, win=1000)
    c.close()
    (fin,) = c.sent()
    assert (fin.flags, fin.seq, fin.time) == ("F.", 3001, 0.02)
    assert c.state == "FIN-WAIT-1"


def test_socket_options() -> None:
    c = Connection(profile="linux")
    c.setsockopt("TCP_CONGESTION", "westwood")  # Linux's Westwood is Westwood+
    assert c.getsockopt("TCP_CONGESTION") == "westwood+"
    c.setsockopt("TCP_MAXSEG", 1000)
    c.setsockopt("TCP_NODELAY", True)
    assert c.getsockopt("TCP_NODELAY") == 1
    c.connect()
    (syn,) = c.sent()
    assert (syn.flags, syn.mss) == ("S", 1000)
    with pytest.raises(StepError) as err:
        c.setsockopt("TCP_MAXSEG", 500)
    assert err.value.field == "setsockopt.TCP_MAXSEG"
    with pytest.raises(StepError, match="unknown option"):
        c.getsockopt("SO_LINGER")


def test_close_in_syn_sent_sends_nothing_and_the_syn_ack_meets_a_rst() -> None:
    c = Connection(profile="linux")
    c.connect()
    c.sent()
    c.close()
    assert (c.state, c.sent()) == ("CLOSED", [])
    c.advance(0.03)
    c.inject("S.", 0, 1, win=65535, options=[("mss", 1000)])
    # RFC 9293 3.10.7.1: <SEQ=SEG.ACK><CTL=RST>, no options.
    assert [str(s) for s in c.sent()] == ["0.030000 > R 1:1(0) win 0"]
    c.inject("S", 7, win=65535)  # no ACK: <SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>
    assert [str(s) for s in c.sent()] == ["0.030000 > R. 0:0(0) ack 8 win 0"]
    c.inject("R", 8, win=0)  # a RST is never answered
    assert c.sent() == []


def test_close_with_data_unread_resets_and_a_later_segment_meets_a_rst() -> None:
    c, synack = opened()
    ts = [("nop",), ("nop",), ("TS", 111, synack.ts_val)]
    c.inject("P.", 1, 1, win=1000, length=500, options=ts)
    c.sent()
    assert c.read(200) == 200
    c.advance(0.5)
    c.close()
    assert [str(s) for s in c.sent()] == [
        "0.500000 > R. 1:1(0) ack 501 win 531 <nop,nop,TS val 500001 ecr 111>"
    ]
    assert c.state == "CLOSED"
    c.advance(0.6)
    c.inject(".", 501, 1, win=1000)
    assert [str(s) for s in c.sent()] == ["0.600000 > R 1:1(0) win 0"]


def test_read_after_shut_rd_returns_the_data_queued() -> None:
    c, _ = opened()
    c.shutdown("SHUT_RD")
    assert c.read(100) == 0
    c.inject("P.", 1, 1, win=1000, length=300)
    assert [(s.flags, s.ack) for s in c.sent()] == [(".", 301)]
    assert (c.read(200), c.read(200), c.read(200)) == (200, 100, 0)


@pytest.mark.parametrize("silent", [True, False])
def test_an_ack_of_unsent_data_is_dropped_whole(silent: bool) -> None:
    c, _ = opened(unsent_ack_silent=silent)
    c.advance(0.02)
    c.inject("F.", 1, 9999, win=1000, options=[("nop",), ("nop",), ("TS", 99999, 1)])
    out = c.sent()
    # Linux's tcp_rcv_established drops it silently; RFC 9293 3.10.7.4 answers with an ACK.
    assert [(s.flags, s.seq, s.ack, s.ts_ecr) for s in out] == (
        [] if silent else [(".", 1, 1, 110)]
    )
    assert c.state == "ESTABLISHED" and not c.eof  # the FIN was not taken


def test_socket_calls_as_linux_answers_them() -> None:
    # TCP_MAXSEG on the listener reaches the connection it accepts (user_mss).
    c = Connection(profile="linux")
    c.listen()
    c.setsockopt("TCP_MAXSEG", 1100)
    c.inject("S", 0, options=[("mss", 1300), ("nop",), ("wscale", 7)])
    (synack,) = c.sent()
    assert synack.mss == 1100
    c.advance(0.010)
    c.inject(".", 1, 1, win=257)
    assert c.getsockopt("TCP_MAXSEG") == 1100 and c.tcp_info()["tcpi_snd_mss"] == 1100
    # SO_SNDBUF reads back doubled, within net.core.wmem_max (212992) and SOCK_MIN_SNDBUF.
    for asked, read in [(1, 4_608), (2_000_000, 425_984), (10_000, 20_000)]:
        c.setsockopt("SO_SNDBUF", asked)
        assert c.getsockopt("SO_SNDBUF") == read
    # MSG_MORE holds the short tail even with TCP_NODELAY, without PSH; the ACK pushes it.
    c.setsockopt("TCP_NODELAY", 1)
    c.send(1500, more=True)
    assert [(s.flags, s.seq, s.length) for s in c.sent()] == [(".", 1, 1100)]
    c.advance(0.020)
    c.inject(".", 1, 1101, win=257)
    assert [(s.flags, s.seq, s.length) for s in c.sent()] == [(".", 1101, 400)]
    # TCP_NODELAY pushes what the cork holds.
    c.setsockopt("TCP_CORK", 1)
    c.write(100)
    assert c.sent() == []
    c.advance(0.050)
    c.setsockopt("TCP_NODELAY", 1)
    assert [(s.flags, s.seq, s.length) for s in c.sent()] == [("P.", 1501, 100)]
    c.advance(0.060)
    c.inject(".", 1, 1601, win=257)
    # Milliseconds since the last data sent (0.050), data received (the open, 0.010: no data
    # came) and ACK taken (0.060).
    c.advance(0.250)
    info = c.tcp_info()
    assert (info["tcpi_last_data_sent"], info["tcpi_last_data_recv"]) == (200, 240)
    assert info["tcpi_last_ack_recv"] == 190


def test_zero_window_probes_and_the_chronograph() -> None:
    c = Connection(profile="linux", tcp={"timestamps": False})
    c.listen()
    c.inject("S", 0, options=[("mss", 1000), ("sackOK",), ("nop",), ("wscale", 7)])
    c.advance(0.020)
    c.inject(".", 1, 1, win=0)
    c.sent()
    assert c.tcp_info()["tcpi_rto"] == 220_000
    c.write(1000)
    assert c.sent() == [] and c.next_timer() == pytest.approx(0.240)
    c.advance(1.0)
    # Bare ACKs one below snd_una at 0.24 s and 0.24 + 0.44 s (the timer doubles).
    probes = [(s.time, s.flags, s.seq, s.length) for s in c.sent()]
    assert probes == [(0.240, ".", 0, 0), (pytest.approx(0.680), ".", 0, 0)]
    info = c.tcp_info()
    assert (info["tcpi_rwnd_limited"], info["tcpi_busy_time"]) == (980_000, 980_000)
    c.inject(".", 1, 1, win=8)  # 1024 bytes: the segment fits and goes
    assert [(s.flags, s.seq, s.length) for s in c.sent()] == [("P.", 1, 1000)]
    c.advance(1.030)
    c.inject(".", 1, 1001, win=8)
    c.advance(2.0)
    info = c.tcp_info()
    assert (info["tcpi_rwnd_limited"], info["tcpi_busy_time"]) == (980_000, 1_010_000)
    assert c.sent() == []


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.inject("S", 0), "inject"),
        (lambda c: (c.listen(), c.inject("Q", 0)), "inject.flags"),
        (lambda c: (c.listen(), c.inject("S", 0, options=[("mss", 0)])), "inject.options.mss"),
        (lambda c: (c.listen(), c.inject("S", 0, options=[("md5",)])), "inject.options"),
        (lambda c: (c.advance(1.0), c.advance(0.5)), "advance"),
        (lambda c: c.advance(math.nan), None),
        (lambda c: (c.listen(), c.write(5)), "write"),
        (lambda c: c.shutdown("SHUT_NONE"), None),
    ],
)
def test_misuse_raises_a_step_error(call: object, field: str | None) -> None:
    c = Connection(profile="linux")
    with pytest.raises(StepError) as err:
        call(c)  # type: ignore[operator]
    assert isinstance(err.value, (TcplabError, ValueError))
    if field is not None:
        assert err.value.field == field
        assert str(err.value).startswith(field + ":")


def test_bad_tcp_settings_are_scenario_errors() -> None:
    with pytest.raises(InvalidValueError) as err:
        Connection(profile="linux", tcp={"mss": 5})
    assert err.value.field == "tcp.mss"


# --- a whole transfer stepped between two endpoints, against the same scenario


SCENARIO = """
[run]
stop_time = "20s"
[tcp]
profile = "linux"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "wire"
a = "a"
b = "b"
rate = "100Mbps"
delay = "5ms"
framing = "none"
[links.ab]
error = { model = "list", segments = [{ seq = 28961, tx = 1 }] }
[[apps]]
name = "x"
kind = "bulk"
client = "a"
server = "b"
size = "200KB"
[output]
trace = true
"""
RATE, DELAY = 100e6, 0.005


def _stepped_transfer(size: int, drop: tuple[int, int]) -> tuple[Connection, list, float]:
    """The scenario's transfer with two stepped endpoints and a link played here: each
    direction a FIFO at RATE with DELAY, the segment `drop` (seq, tx) lost on the way."""
    a, b = Connection(profile="linux"), Connection(profile="linux")
    b.listen()
    a.connect()
    ends = {"a": a, "b": b}
    free = {"a": 0.0, "b": 0.0}  # when each direction's transmitter is free (ns)
    wire: list = []
    order = 0
    cwnd, written, done = [], False, 0.0

    def ship(src: str) -> None:
        nonlocal order
        for s in ends[src].sent():
            start = max(round(s.time * 1e9), free[src])
            free[src] = start + math.ceil(s.ip_bytes * 8 * 1e9 / RATE)
            if src == "a" and (s.seq, s.tx_count) == drop:
                continue
            order += 1
            heapq.heappush(wire, (free[src] + round(DELAY * 1e9), order, src, s))

    ship("a")
    while True:
        timers = [(round(t * 1e9), n) for n, c in ends.items() if (t := c.next_timer()) is not None]
        nxt = min([(w[0], 0, w) for w in wire[:1]] + [(t, 1, n) for t, n in timers], default=None)
        if nxt is None or nxt[0] > 20e9:
            break
        t, kind, what = nxt
        if kind == 1:
            ends[what].advance(t / 1e9)
            ship(what)
            who = what
        else:
            _, _, src, s = heapq.heappop(wire)
            who = "b" if src == "a" else "a"
            c = ends[who]
            c.advance(t / 1e9)
            c.inject(s.flags.replace("P", ""), s.seq, s.ack, s.win, s.length, s.options)
            if who == "a" and not written and a.state == "ESTABLISHED":
                a.write(size)
                a.close()
                written = True
            if who == "b" and b.state == "CLOSE-WAIT":
                b.read(size)  # as the scenario's application: data left unread would reset
                b.close()
            ship(who)
            if who == "b" and b.tcp_info()["tcpi_bytes_received"] == size and not done:
                done = t / 1e9
        if who == "a":
            w = a.tcp_info()["tcpi_snd_cwnd"] * MSS
            if not cwnd or cwnd[-1][1] != w:
                cwnd.append((t / 1e9, w))
    return a, cwnd, done


def test_a_stepped_transfer_matches_the_same_scenario() -> None:
    res = tcplab.run(tcplab.Scenario.from_toml(SCENARIO))
    client = res.summary["connections"][0]["client"]
    a, cwnd, done = _stepped_transfer(200_000, drop=(28961, 1))
    info = a.tcp_info()
    assert client["retransmissions"] >= 1, "the scenario lost its segment"
    assert info["tcpi_segs_out"] == client["segments_sent"]
    assert info["tcpi_data_segs_out"] == client["data_segments_sent"]
    assert info["tcpi_total_retrans"] == client["retransmissions"]
    assert info["tcpi_segs_in"] == client["segments_received"]
    assert info["tcpi_snd_cwnd"] * MSS == client["final_cwnd"]
    assert info["tcpi_snd_ssthresh"] * MSS == client["final_ssthresh"]
    assert info["tcpi_rtt"] == round(client["srtt_s"] * 1e6 - 0.5)
    assert info["tcpi_rto"] == int(client["rto_s"] * 1e6)
    # The window after every change, in whole segments as tcp_info gives it (PRR's window
    # during the recovery is in bytes), from the SYN-ACK on.
    trace = res.traces["trace"]
    segs = trace[trace["conn"] == 0]["cwnd"] // MSS
    changes = segs[segs.diff() != 0]
    times = trace.loc[changes.index, "time_s"]
    assert len(cwnd) > 20
    assert list(changes)[1:] == [w // MSS for _, w in cwnd][1:]
    assert list(times)[1:] == pytest.approx([t for t, _ in cwnd][1:], abs=1e-9)
    assert done == pytest.approx(res.summary["apps"][0]["response_time_s"], abs=1e-9)


@pytest.mark.parametrize("rule", [True, False])
def test_a_window_update_after_idle_restarts_the_window(rule: bool) -> None:
    # Linux's tcp_ack_update_window checks for idleness when a new window arrives with data
    # waiting: a zero window held the data 2 s, so cwnd (20) halves per RTO down to IW10.
    c = Connection(profile="linux", tcp={"timestamps": False, "slow_start_after_idle": rule})
    c.listen()
    c.inject("S", 0, options=[("mss", 1000), ("sackOK",), ("nop",), ("wscale", 7)])
    c.advance(0.050)
    c.inject(".", 1, 1, win=1000)
    c.write(10_000)
    c.advance(0.100)
    c.inject(".", 1, 10_001, win=0)
    assert c.tcp_info()["tcpi_snd_cwnd"] == 20
    c.write(30_000)
    c.advance(2.100)
    c.sent()
    c.inject(".", 1, 10_001, win=1000)
    info = c.tcp_info()
    sent = [s for s in c.sent() if s.length]
    assert (info["tcpi_snd_cwnd"], len(sent)) == ((10, 10) if rule else (20, 20))


@pytest.mark.parametrize(("profile", "rule"), [("linux", None), ("linux", False), ("ns2", None)])
def test_a_closed_end_answers_with_a_rst_only_where_its_profile_does(profile, rule) -> None:
    # RFC 9293 3.10.7.1 and Linux answer a segment for a closed connection with a RST; ns-2's
    # agents have no RST, and the profiles other than linux keep a closed end silent.
    tcp = {} if rule is None else {"rst_when_closed": rule}
    c = Connection(profile=profile, tcp=tcp)
    c.connect()
    c.sent()
    c.close()
    c.advance(0.03)
    c.inject("S.", 0, 1, win=65535, options=[("mss", 1000)])
    answers = [str(s) for s in c.sent()]
    assert answers == (["0.030000 > R 1:1(0) win 0"] if profile == "linux" and rule is None else [])
