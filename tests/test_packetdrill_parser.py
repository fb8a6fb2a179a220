"""Reading packetdrill's language (issue 31): each construct a TCP script uses becomes the
value the runner plays, and what is not packetdrill ends in one line naming the file, the
line and what is allowed there."""

from __future__ import annotations

import pytest
from tcplab.packetdrill import parse, settings_for
from tcplab.packetdrill.syntax import (
    ABSOLUTE,
    ANY,
    ANY_OPTIONS,
    ELLIPSIS,
    RELATIVE,
    Code,
    Command,
    Option,
    Or,
    Packet,
    ScriptError,
    Struct,
    Syscall,
)


def one(text: str):
    """The only event of a script holding `text` after a first event at 0."""
    script = parse("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n" + text)
    assert len(script.events) == 2, script.events
    return script.events[1]


def error(text: str) -> ScriptError:
    with pytest.raises(ScriptError) as info:
        parse(text, "t.pkt")
    return info.value


def test_times_absolute_relative_ranges_and_any():
    script = parse(
        "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n"
        "+.1 < S 0:0(0) win 100\n"
        "1.25 > S. 0:0(0) ack 1\n"
        "+.3~+.310 > . 1:1(0) ack 1\n"
        "2~3 > . 1:1(0) ack 1\n"
        "* > . 1:1(0) ack 1\n"
    )
    times = [e.time for e in script.events]
    assert (times[0].kind, times[0].start) == (ABSOLUTE, 0)
    assert (times[1].kind, times[1].start) == (RELATIVE, 100_000)
    assert (times[2].kind, times[2].start) == (ABSOLUTE, 1_250_000)
    assert (times[3].kind, times[3].start, times[3].end) == (RELATIVE, 300_000, 310_000)
    assert (times[4].kind, times[4].start, times[4].end) == (ABSOLUTE, 2_000_000, 3_000_000)
    assert times[5].kind == ANY
    assert [e.line for e in script.events] == [1, 2, 3, 4, 5, 6]


def test_a_packet_with_every_field_and_option():
    e = one("+0 < P. 1:1001(1000) ack 5 win 257 <mss 1000,sackOK,nop,nop,TS val 100 ecr 7,"
            "nop,wscale 7,sack 1:1001 2001:3001>")  # fmt: skip
    p = e.action
    assert isinstance(p, Packet)
    assert (p.direction, p.flags, p.seq, p.end, p.length, p.ack, p.win) == (
        "<", "P.", 1, 1001, 1000, 5, 257)  # fmt: skip
    assert p.options == (
        Option("mss", (1000,)), Option("sackOK"), Option("nop"), Option("nop"),
        Option("TS", (100, 7)), Option("nop"), Option("wscale", (7,)),
        Option("sack", (1, 1001, 2001, 3001)),
    )  # fmt: skip
    assert str(p).endswith(
        "<mss 1000,sackOK,nop,nop,TS val 100 ecr 7,nop,wscale 7,sack 1:1001 2001:3001>"
    )


def test_outbound_any_options_ecn_and_no_flags():
    p = one("+0 > [ect0] SEW 0:0(0) <...>").action
    assert (p.direction, p.flags, p.ecn, p.options, p.win) == (
        ">",
        "SEW",
        "ect0",
        ANY_OPTIONS,
        None,
    )
    assert one("+0 > - 0:0(0)").action.flags == ""
    assert one("+0 > FP. 1:11(10) ack 1").action.flags == "FP."


def test_syscalls_with_ellipsis_lists_structs_or_and_errno():
    e = one("+0 setsockopt(3, SOL_TCP, TCP_NODELAY, [1], 4) = 0")
    assert e.action == Syscall("setsockopt", (3, "SOL_TCP", "TCP_NODELAY", [1], 4), 0)
    e = one("+0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0")
    assert e.action.args[2] == Or(("O_RDWR", "O_NONBLOCK"))
    e = one("+0 connect(3, ..., ...) = -1 EINPROGRESS (Operation now in progress)")
    assert (e.action.args[1], e.action.ret, e.action.errno) == (ELLIPSIS, -1, "EINPROGRESS")
    e = one("+0 fcntl(3, F_GETFL) = 0x2 (flags O_RDWR)")
    assert (e.action.ret, e.action.errno) == (2, None)
    e = one(
        "+0 sendmsg(4, {msg_name(...)=...,\n"
        "   msg_iov(2)=[{..., 40}, {..., 60}], msg_flags=0}, MSG_MORE) = 100"
    )
    msg = e.action.args[1]
    assert isinstance(msg, Struct) and msg.get("msg_flags") == 0
    assert [v.fields[-1][1] for v in msg.get("msg_iov")] == [40, 60]
    e = one('+0 setsockopt(3, SOL_TCP, TCP_CONGESTION, "reno", 4) = 0')
    assert e.action.args[3] == "reno"


def test_blocking_call_end_time_in_the_start_frame():
    e = one("+.08...0.180 connect(3, ..., ...) = 0")
    assert e.time.start == 80_000
    assert (e.action.end.kind, e.action.end.start) == (ABSOLUTE, 180_000)
    assert one("+0 ... 0.004 connect(3, ..., ...) = 0").action.end.start == 4_000


def test_code_blocks_commands_comments_options_init_and_cleanup():
    script = parse(
        "--tolerance_usecs=7000\n"
        "`sysctl -q net.ipv4.tcp_sack=0  # no SACK`\n"
        "// a comment\n"
        "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3 // after an event\n"
        "/* a block\n comment */\n"
        "+0 %{\nassert tcpi_snd_cwnd == 10, tcpi_snd_cwnd // 2\n}%\n"
        "+0 `tc qdisc add dev tun0 root pfifo`\n"
        "`/tmp/sysctl_restore_${PPID}.sh`\n"
    )
    assert script.options == {"tolerance_usecs": "7000"}
    assert script.init == (2, Command("sysctl -q net.ipv4.tcp_sack=0  # no SACK"))
    assert isinstance(script.events[1].action, Code)
    assert "tcpi_snd_cwnd // 2" in script.events[1].action.text
    assert script.events[1].line == 7
    assert script.events[2].action == Command("tc qdisc add dev tun0 root pfifo")
    assert script.cleanup[0] == 11


def test_shell_sysctls_become_profile_settings():
    script = parse(
        "`sysctl -q net.ipv4.tcp_sack=0 net.ipv4.tcp_timestamps=0\n"
        "sysctl -q net/ipv4/tcp_congestion_control=reno\n"
        'sysctl -q net.ipv4.tcp_rmem="4096 87380 $((6*1024*1024))"\n'
        "../common/set_sysctls.py /proc/sys/net/ipv4/tcp_reordering=5 \\\n"
        "    /proc/sys/net/ipv4/tcp_early_retrans=3`\n"
        "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n",
        "t.pkt",
    )
    assert settings_for(script).tcp == {
        "sack": False, "timestamps": False, "congestion_control": "reno",
        "rcv_buf": "87380B", "rcv_buf_max": "6291456B", "dupthresh": 5,
    }  # fmt: skip


def test_defaults_sh_is_read_as_packetdrill_sets_it():
    script = parse("`../common/defaults.sh`\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n",
                   "/nonexistent/x/t.pkt")  # fmt: skip
    s = settings_for(script)
    assert s.tcp["congestion_control"] == "cubic" and s.tcp["rcv_buf_max"] == "15728640B"
    assert s.sysctls["tcp_early_retrans"] == "4" and s.sysctls["tcp_fastopen"] == "0x70403"
    assert any("defaults.sh taken" in n for n in s.notes)


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("sysctl -q net.ipv4.tcp_ecn=1", "tcp_ecn=1 is not modelled; allowed: 0"),
        ("sysctl -q net.ipv4.tcp_recovery=0", "RACK on"),
        ("sysctl -q net.ipv4.tcp_bogus=1", "sysctl net.ipv4.tcp_bogus is not modelled; allowed:"),
        ("tc qdisc replace dev tun0 root fq", "no fq pacing"),
        ("rm -rf /", "shell command 'rm -rf /' is not modelled"),
    ],
)
def test_shell_commands_not_modelled_are_named(command, says):
    script = parse(f"`{command}`\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n", "t.pkt")
    with pytest.raises(ScriptError) as info:
        settings_for(script)
    assert info.value.unsupported and info.value.line == 1
    assert str(info.value).startswith("t.pkt:1: ") and says in str(info.value)


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        (
            "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 < S 0:0(0)\n",
            2,
            "needs its window: add win N",
        ),
        (
            "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 < . 1:11(5) win 1\n",
            2,
            "inconsistent TCP sequence numbers and payload size",
        ),
        (
            "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 > . 1:1(0) <mss 1000,bogus>\n",
            2,
            "unknown TCP option bogus; allowed: nop, eol, mss N",
        ),
        (
            "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n\n* write(3, ..., 10) = 10\n",
            3,
            "event time * can only be used with outbound packets",
        ),
        (
            "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+1~+2 < . 1:1(0) win 1\n",
            2,
            "event time range can only be used with outbound packets",
        ),
        (
            "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 hello world\n",
            2,
            "expected an action, found 'world'; allowed: a packet",
        ),
        (
            "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\nsoon < S 0:0(0) win 1\n",
            2,
            "expected an event time, found 'soon'; allowed: 0, +0.1",
        ),
        (
            "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 %{ assert 1\n",
            2,
            "%{ python block never closed by }%",
        ),
        (
            "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 > ! 1:1(0)\n",
            2,
            "expected TCP flags, found '!'",
        ),
        ("+1 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n", 1, "the first event must be at time 0"),
        (
            "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+2~+1 > . 1:1(0)\n",
            2,
            "time range is backwards",
        ),
        ("0 write(3, ..., 10) 10\n", 1, "expected '=' after write(...)"),
        (
            "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 > . 1:1(0) <mss 99999>\n",
            2,
            "mss 99999 out of range; allowed: 0 to 65535",
        ),
    ],
)
def test_bad_input_is_one_error_naming_the_line(text, line, says):
    e = error(text)
    assert e.line == line and not e.unsupported
    assert str(e).startswith(f"t.pkt:{line}: ") and says in str(e), str(e)
    assert "\n" not in str(e)


def test_constructs_not_modelled_are_unsupported_not_invalid():
    for text in ("+0 > udp 1:1(0)", "+0 > UDP (10)", "+0 > [tos 0x4] . 1:1(0)",
                 "+0 > . 1:1(0) <FO abcd>", "+0 > . 1:1(0) urg 3"):  # fmt: skip
        e = error("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n" + text + "\n")
        assert e.line == 2, (text, str(e))
        if "udp" not in text:
            assert e.unsupported, (text, str(e))
