"""pcap export: the frames rebuilt from the per-packet log carry the simulator's header fields,
valid IPv4 and TCP checksums, and nanosecond timestamps, in a file pcap readers accept."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
import tcplab
from tcplab.errors import InvalidValueError

ROOT = Path(__file__).resolve().parent.parent


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _read(path: Path) -> list[tuple[int, bytes, int]]:
    raw = path.read_bytes()
    magic, vmaj, vmin, _, _, snap, link = struct.unpack("<IHHiIII", raw[:24])
    assert (magic, vmaj, vmin, link) == (0xA1B23C4D, 2, 4, 1)
    out, i = [], 24
    while i < len(raw):
        sec, nsec, incl, orig = struct.unpack("<IIII", raw[i : i + 16])
        out.append((sec * 10**9 + nsec, raw[i + 16 : i + 16 + incl], orig))
        i += 16 + incl
    return out


@pytest.fixture(scope="module")
def lossy_result() -> tcplab.Result:
    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "sarkar2022.toml").with_overrides(
        {"apps.ftp.size": "300kB", "output.packets": True}
    )
    return tcplab.run(sc, seed=3)


def test_client_capture_matches_the_packet_log(lossy_result, tmp_path):
    pk = lossy_result.traces["packets"]
    n = lossy_result.to_pcap(tmp_path / "client.pcap", host="client")
    frames = _read(tmp_path / "client.pcap")
    client = 2  # node index in the example: server, cloud, client
    expected = pk[
        ((pk.event == "send") & (pk.src == client)) | ((pk.event == "recv") & (pk.dst == client))
    ]
    assert n == len(frames) == len(expected)
    times = [t for t, _, _ in frames]
    assert times == sorted(times)
    for (t, data, orig), (_, row) in zip(frames, expected.iterrows(), strict=True):
        assert t == round(row.time_s * 1e9)
        ip, tcp_off = data[14:34], 34
        assert _checksum(ip) == 0, "IPv4 header checksum"
        total = struct.unpack("!H", ip[2:4])[0]
        assert orig == 14 + total and total == row.ip_bytes
        ihl_tcp = (data[tcp_off + 12] >> 4) * 4
        tcp = data[tcp_off : tcp_off + ihl_tcp]
        seq, ack = struct.unpack("!II", tcp[4:12])
        assert seq == row.seq % 2**32 and tcp[13] == row["flags"]
        if row["flags"] & 0x10:
            assert ack == row.ack % 2**32
        # TCP checksum over the pseudo-header, header and a zero payload of row.len bytes.
        tcp_len = total - 20
        assert tcp_len == ihl_tcp + row.len
        pseudo = ip[12:20] + struct.pack("!BBH", 0, 6, tcp_len)
        assert _checksum(pseudo + tcp + bytes(row.len)) == 0, "TCP checksum"


def test_sack_blocks_become_options():
    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "sarkar2022.toml").with_overrides(
        {"apps.ftp.size": "200kB", "output.packets": True, "tcp.sack": True}
    )
    res = tcplab.run(sc, seed=5)
    pk = res.traces["packets"]
    with_sack = pk[(pk.event == "send") & (pk.sack != "")]
    assert len(with_sack) > 0


def test_needs_the_packet_log_and_a_known_host(tmp_path):
    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "sarkar2022.toml").with_overrides(
        {"apps.ftp.size": "50kB", "output.packets": False}
    )
    res = tcplab.run(sc)
    with pytest.raises(InvalidValueError, match="output.packets"):
        res.to_pcap(tmp_path / "x.pcap", host="client")
    res2 = tcplab.run(sc.with_overrides({"output.packets": True}))
    with pytest.raises(InvalidValueError, match="nobody"):
        res2.to_pcap(tmp_path / "x.pcap", host="nobody")


def _options(tcp: bytes) -> dict[int, bytes]:
    """The TCP options of a header, by kind (NOPs and the end marker dropped)."""
    out, i, opts = {}, 0, tcp[20:]
    while i < len(opts):
        kind = opts[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        n = opts[i + 1]
        out[kind] = opts[i + 2 : i + n]
        i += n
    return out


def _capture(profile: str, tmp_path: Path, **extra) -> tuple[list[dict], object]:
    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "sarkar2022.toml").with_overrides(
        {"apps.ftp.size": "100kB", "output.packets": True, "tcp.profile": profile, **extra}
    )
    res = tcplab.run(sc, seed=3)
    res.to_pcap(tmp_path / "c.pcap", host="client")
    segs = []
    for _, data, _ in _read(tmp_path / "c.pcap"):
        tcp = data[34 : 34 + (data[46] >> 4) * 4]
        segs.append(
            {"flags": tcp[13], "window": struct.unpack("!H", tcp[14:16])[0],
             "opts": _options(tcp), "sport": struct.unpack("!H", tcp[0:2])[0]}
        )  # fmt: skip
    return segs, res


def test_the_capture_carries_the_negotiated_options(tmp_path):
    segs, res = _capture("linux", tmp_path)
    syns = [s for s in segs if s["flags"] & 0x02]
    assert len(syns) == 2  # the SYN and the SYN-ACK
    for s in syns:
        assert struct.unpack("!H", s["opts"][2])[0] == 1460  # MSS
        # window scale: shift 7, for a buffer that may autotune up to 6 MB (tcp_rmem[2], as Linux)
        assert s["opts"][3] == bytes([7])
        assert 4 in s["opts"]  # SACK-permitted
    for s in segs:
        assert 8 in s["opts"], s  # timestamps on every segment
    tsvals = [struct.unpack("!I", s["opts"][8][:4])[0] for s in segs if s["sport"] == 5001]
    assert tsvals == sorted(tsvals) and tsvals[-1] > tsvals[0]
    # The window field scaled by the SYN's shift is the window the simulator advertised.
    pk = res.traces["packets"]
    sent = pk[(pk.event == "send") & (pk.from_end == 0) & ((pk["flags"] & 0x02) == 0)]
    from_client = [s for s in segs if s["sport"] != 5001 and not s["flags"] & 0x02]
    assert [s["window"] << 7 for s in from_client[: len(sent)]] == [w << 7 for w in sent.wnd]
    # The window grew past the initial buffer (autotuning) to the largest the summary reports.
    grown = res.summary["connections"][0]["client"]["rcv_window_max"]
    assert grown > 131072
    assert max(s["window"] << 7 for s in from_client) == grown // 128 * 128


def test_without_the_options_the_capture_has_none(tmp_path):
    segs, _ = _capture(
        "rfc", tmp_path, **{"tcp.window_scaling": False, "tcp.sack": False, "tcp.timestamps": False}
    )
    syns = [s for s in segs if s["flags"] & 0x02]
    assert all(set(s["opts"]) == {2} for s in syns)  # MSS only
    assert all(not ({3, 4, 8} & set(s["opts"])) for s in segs)


def test_each_page_connection_has_its_own_client_port(tmp_path):
    # an http application with a connection per page: every connection an ephemeral port of its
    # own (40000 + its number), wrapping inside the 16-bit port space past 25,536 connections
    data = {
        "run": {"stop_time": "60s"},
        "nodes": [{"name": "c"}, {"name": "s"}],
        "links": [{"name": "l", "a": "c", "b": "s", "rate": "10Mbps", "delay": "5ms"}],
        "apps": [{"name": "web", "kind": "http", "client": "c", "server": "s", "count": 3,
                  "think_time": "1s", "connection": "per_page"}],
        "output": {"packets": True},
    }  # fmt: skip
    res = tcplab.run(tcplab.Scenario.from_dict(data))
    res.to_pcap(tmp_path / "c.pcap", host="c")
    ports = set()
    for _, frame, _ in _read(tmp_path / "c.pcap"):
        sport, dport = struct.unpack("!HH", frame[34:38])
        ports.add(dport if sport == 5001 else sport)  # the server's side is port 5001
    conns = [c["conn"] for c in res.summary["connections"]]
    assert sorted(ports) == [40000 + c for c in conns] == [40000, 40001, 40002]

    from tcplab import pcap

    row = res.traces["packets"].iloc[0].copy()  # the first SYN, from the client
    row["conn"] = 30_000
    frame, _ = pcap._frame(row, 1460)
    assert struct.unpack("!H", frame[34:36])[0] == 40000 + 30_000 - 25_536
