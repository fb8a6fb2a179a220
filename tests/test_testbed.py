"""The testbed: tcplab-netem between network namespaces, and kernel TCP through it.

Tests marked `testbed` need Linux and root (CI runs as root, so they run there for real) and
skip elsewhere with the reason. Traffic stays between the namespaces each test creates.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tcplab.testbed import (
    Testbed,
    TestbedConfig,
    TestbedConfigError,
    TestbedUnavailable,
    check_available,
    cleanup,
    link_spec,
    list_namespaces,
    netem_binary,
    run,
    tcpinfo,
)
from tcplab.testbed.netns import TOOLS

REPO = Path(__file__).resolve().parents[1]


def _skip_reason() -> str | None:
    if sys.platform != "linux":
        return f"the testbed needs Linux network namespaces (this is {sys.platform})"
    if os.geteuid() != 0:
        return "the testbed needs root to create network namespaces (CI runs as root)"
    return None


SKIP = _skip_reason()


def needs_testbed(f):
    """Mark a test `testbed` and skip it, with the reason, without Linux and root."""
    return pytest.mark.testbed(pytest.mark.skipif(SKIP is not None, reason=SKIP or "")(f))


@pytest.fixture(scope="module")
def netem() -> Path:
    """The forwarder binary; built here if missing (root Linux must run these tests)."""
    b = netem_binary()
    if not b.is_file() and shutil.which("cargo") and not os.environ.get("TCPLAB_NETEM"):
        subprocess.run(
            ["cargo", "build", "--release", "-q", "-p", "tcplab-netem"],
            cwd=REPO,
            check=False,
            timeout=900,
        )
    try:
        check_available()
    except TestbedUnavailable as e:
        pytest.fail(f"root on Linux, but the testbed cannot run: {e}")
    return b


def _ours(run_id: str) -> dict[str, list[str]]:
    """Namespaces, root-namespace interfaces and processes whose names carry `run_id`."""
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    procs = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit() and int(p.name) != os.getpid():
            try:
                cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if run_id in cmd and "pytest" not in cmd:
                procs.append(f"{p.name}: {cmd}")
    return {
        "namespaces": list_namespaces(f"tcplab-{run_id}"),
        "links": [ln for ln in links.splitlines() if run_id in ln],
        "processes": procs,
    }


def _nothing_left(run_id: str) -> None:
    end = time.monotonic() + 5
    while True:
        left = _ours(run_id)
        if not any(left.values()) or time.monotonic() > end:
            break
        time.sleep(0.1)
    assert not any(left.values()), f"left behind by run {run_id}: {left}"
    assert not list(Path("/tmp").glob(f"tcplab-{run_id}-*")), "work directory left behind"


def _udp_blast(
    tb: Testbed, *, count: int, ip_len: dict[str, int], pps: float = 40_000
) -> dict[str, dict]:
    """Send `count` datagrams client->server and server->client at once; return per direction
    (c2s, s2c) what the sinks saw."""
    sinks = {}
    for role, port in (("server", 9000), ("client", 9001)):
        out, log = tb.workdir / f"sink-{role}.json", tb.workdir / f"sink-{role}.log"
        p = tb.python(
            role,
            TOOLS,
            ["sink", "--port", str(port), "--expect", str(count), "--idle", "1.0"]
            + ["--timeout", "60", "--out", str(out)],
            stdout=subprocess.PIPE,
            log=log,
        )
        tb.wait_ready(p, log, f"udp sink in {role}")
        sinks[role] = (p, out)
    senders = []
    for role, peer, port, d in (
        ("client", "server", 9000, "c2s"),
        ("server", "client", 9001, "s2c"),
    ):
        out = tb.workdir / f"send-{role}.json"
        args = ["send", "--dst", tb.addr[peer], "--port", str(port), "--count", str(count)]
        args += ["--ip-len", str(ip_len[d]), "--pps", str(pps), "--out", str(out)]
        senders.append((tb.python(role, TOOLS, args, log=tb.workdir / f"send-{role}.log"), out))
    for p, _ in senders:
        assert p.wait(60) == 0
        tb.forget(p)
    res = {}
    for role, d in (("server", "c2s"), ("client", "s2c")):
        p, out = sinks[role]
        assert p.wait(60) == 0
        tb.forget(p)
        res[d] = json.loads(out.read_text())
    for _, out in senders:
        assert json.loads(out.read_text())["send_errors"] == 0
    return res


def _check_loss(rep: dict, got: dict, count: int, expected_p: dict[str, float]) -> None:
    for d, fd in (("c2s", "a_to_b"), ("s2c", "b_to_a")):
        link = rep["links"][fd]
        sink = got[d]
        # No loss but the forwarder's channel: no receive-buffer overflow, no kernel drop at
        # the forwarder's sockets, every frame offered, and received = offered - corrupted.
        assert sink["rcvbuf_errors"] == 0, sink
        assert link["frames_in"] == count, link
        assert sink["distinct"] == count - link["frames_dropped_error"], (sink, link)
        p = expected_p[d]
        lost = count - sink["distinct"]
        sigma = math.sqrt(count * p * (1 - p))
        print(f"{d}: lost {lost} of {count} (expected {count * p:.0f} +- {3 * sigma:.0f})")
        assert abs(lost - count * p) < 3 * sigma, f"{d}: lost {lost}, expected {count * p:.0f}"
    for port in rep["ports"].values():
        assert port["kernel_rx_drops"] == 0 and port["tx_failed"] == 0, port


# -- without root ------------------------------------------------------------------------------


def test_tcp_info_layout_matches_the_kernel_header():
    # 248 bytes up to tcpi_total_rto_time (Linux 6.7); fields past the buffer are None.
    assert tcpinfo.SIZE == 248
    raw = bytearray(tcpinfo.SIZE)
    raw[1] = 4  # ca_state: loss
    raw[6] = 0x97  # snd_wscale 7, rcv_wscale 9
    struct.pack_into("=I", raw, 80, 10)  # snd_cwnd
    struct.pack_into("=I", raw, 16, 1448)  # snd_mss
    struct.pack_into("=Q", raw, 120, 123456789)  # bytes_acked
    struct.pack_into("=I", raw, 228, 8760)  # snd_wnd
    struct.pack_into("=H", raw, 240, 3)  # total_rto
    info = tcpinfo.parse(bytes(raw))
    assert (info["ca_state"], info["snd_cwnd"], info["snd_mss"]) == (4, 10, 1448)
    assert (info["snd_wscale"], info["rcv_wscale"]) == (7, 9)
    assert info["bytes_acked"] == 123456789
    assert (info["snd_wnd"], info["total_rto"]) == (8760, 3)
    old = tcpinfo.parse(bytes(raw[:104]))  # a pre-3.15 kernel's struct
    assert old["total_retrans"] == 0 and old["snd_wnd"] is None and old["pacing_rate"] is None


def test_config_errors_name_the_field():
    with pytest.raises(TestbedConfigError, match="error_s2c"):
        TestbedConfig(error_s2c={"model": "per", "p": 1.5}).validate()
    with pytest.raises(TestbedConfigError, match="queue_unit"):
        TestbedConfig(queue_unit="frames").validate()
    with pytest.raises(TestbedConfigError, match="needs"):
        TestbedConfig(error_c2s={"model": "gilbert-elliott"}).validate()
    TestbedConfig().validate()


def test_unprivileged_run_refuses_with_what_is_needed(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(TestbedUnavailable, match="root|Linux"):
        check_available()
    with pytest.raises(TestbedUnavailable):
        run(TestbedConfig())


# -- on the testbed ----------------------------------------------------------------------------


@needs_testbed
def test_per_loss_is_within_three_sigma(netem):
    n = 100_000
    with Testbed() as tb:
        fw = tb.start_forwarder(
            {
                "a_to_b": link_spec(rate_bps=None, delay_s=0, queue_limit=None,
                                    error={"model": "per", "p": 0.01}),
                "b_to_a": link_spec(rate_bps=None, delay_s=0, queue_limit=None,
                                    error={"model": "per", "p": 0.1}),
            },
            realtime_priority=10,
        )  # fmt: skip
        got = _udp_blast(tb, count=n, ip_len={"c2s": 128, "s2c": 128})
        rep = fw.stop()
    _check_loss(rep, got, n, {"c2s": 0.01, "s2c": 0.1})


@needs_testbed
def test_ber_loss_depends_on_frame_length(netem):
    # Framing "none": the exposed frame is the IP packet, PER = 1 - (1 - BER)^(8 L).
    n, ber = 100_000, 1e-5
    lens = {"c2s": 128, "s2c": 1428}
    with Testbed() as tb:
        spec = {"rate_bps": None, "delay_s": 0, "queue_limit": None, "framing": "none"}
        fw = tb.start_forwarder(
            {
                "a_to_b": link_spec(error={"model": "ber", "ber": ber}, **spec),
                "b_to_a": link_spec(error={"model": "ber", "ber": ber}, **spec),
            },
            realtime_priority=10,
        )
        got = _udp_blast(tb, count=n, ip_len=lens, pps=30_000)
        rep = fw.stop()
    expected = {d: 1 - (1 - ber) ** (8 * L) for d, L in lens.items()}
    assert expected["s2c"] > 10 * expected["c2s"]  # ~0.108 against ~0.0102
    _check_loss(rep, got, n, expected)


@needs_testbed
def test_rtt_median_is_twice_the_one_way_delay(netem):
    delay = 0.020
    with Testbed() as tb:
        fw = tb.start_forwarder(
            {
                "a_to_b": link_spec(rate_bps=None, delay_s=delay),
                "b_to_a": link_spec(rate_bps=None, delay_s=delay),
            },
            realtime_priority=10,
        )
        log = tb.workdir / "echo.log"
        echo = tb.python(
            "server",
            TOOLS,
            ["echo", "--port", "7", "--timeout", "15", "--spin"],
            stdout=subprocess.PIPE,
            log=log,
        )
        tb.wait_ready(echo, log, "udp echo")
        out = tb.workdir / "ping.json"
        ping = tb.python(
            "client",
            TOOLS,
            ["ping", "--dst", tb.addr["server"], "--port", "7", "--count", "100"]
            + ["--interval", "0.005", "--out", str(out)],
            log=tb.workdir / "ping.log",
        )
        assert ping.wait(30) == 0
        tb.forget(ping)
        res = json.loads(out.read_text())
        fw.stop()
    rtts = sorted(res["rtts_s"])
    assert res["lost"] == 0 and len(rtts) == 100
    p50 = rtts[len(rtts) // 2]
    print(f"RTT p50 {p50 * 1e3:.3f} ms, p99 {rtts[int(0.99 * len(rtts))] * 1e3:.3f} ms")
    assert abs(p50 - 2 * delay) < 0.3e-3, f"RTT p50 {p50 * 1e3:.3f} ms, expected 40 ms"


@needs_testbed
def test_rate_limit_gives_the_framing_corrected_goodput(netem):
    rate = 10e6
    cfg = TestbedConfig(
        size_bytes=3_000_000,
        rate_bps=rate,
        delay_c2s_s=0.002,
        delay_s2c_s=0.002,
        queue_limit=None,  # no loss: the link stays busy once the window is open
        congestion_control="cubic",
        tcp_info_interval_s=0.05,
    )
    res = run(cfg)
    assert res["links"]["s2c"]["frames_dropped_queue"] == 0
    mss = res["snd_mss"]
    hdr = 40 + (12 if mss == 1448 else 0)  # IP + TCP (+ timestamps option)
    ceiling = rate / 8 * mss / (mss + hdr + 38)  # Ethernet: 38 bytes per frame
    # Steady state: from 20 % of the transfer to its end (after slow start).
    prog = res["progress"]
    (t0, b0) = next((t, b) for t, b in prog if b >= 0.2 * cfg.size_bytes)
    (t1, b1) = prog[-1]
    goodput = (b1 - b0) / (t1 - t0)
    print(f"goodput {goodput:.0f} B/s = {goodput / ceiling:.4f} x ceiling {ceiling:.0f} B/s")
    assert abs(goodput / ceiling - 1) < 0.02, f"goodput {goodput:.0f} B/s, ceiling {ceiling:.0f}"


@needs_testbed
def test_download_at_one_percent_loss_reports_every_field(netem):
    cfg = TestbedConfig(
        size_bytes=1_000_000,
        rate_bps=10e6,
        delay_c2s_s=0.010,
        delay_s2c_s=0.010,
        error_s2c={"model": "per", "p": 0.01},
        congestion_control="reno",
        rcv_window_clamp=8760,
        seed=3,
    )
    res = run(cfg)
    run_id = res["run_id"]
    print(
        f"1 MB at 1 %: {res['response_time_s']:.2f} s, {res['retransmissions']} retransmissions,"
        f" {res['rto_expirations']} RTOs, max window {res['max_rcv_window_seen']}"
    )
    for key in (
        "response_time_s",
        "throughput_Bps",
        "data_segments",
        "retransmissions",
        "rto_expirations",
        "bytes",
        "links",
        "kernel_settings",
        "max_rcv_window_seen",
        "traces",
    ):
        assert key in res, key
    assert res["bytes"] == 1_000_000
    assert res["response_time_s"] > 0.04
    assert res["throughput_Bps"] == pytest.approx(1e6 / res["response_time_s"])
    assert res["data_segments"] >= math.ceil(1e6 / res["snd_mss"])
    for d in ("c2s", "s2c"):
        for k in ("frames_sent", "frames_dropped_error", "frames_dropped_queue", "bytes_on_wire"):
            assert isinstance(res["links"][d][k], int), (d, k)
    lost_data = [x for x in res["drops"] if x["dir"] == "b_to_a" and x["payload"]]
    assert lost_data, "1 % loss on ~700 data frames dropped none"
    assert res["retransmissions"] >= len(lost_data)
    # The clamp held: the sender was never offered more than 8760 bytes.
    assert 0 < res["max_rcv_window_seen"] <= 8760
    assert res["links"]["c2s"]["windows_clamped"] > 0
    tr = res["traces"]
    assert len(tr["time_s"]) > 10 and len(tr["cwnd_bytes"]) == len(tr["time_s"])
    assert max(tr["cwnd_bytes"]) > 0 and all(r > 0 for r in tr["rto_s"])
    ks = res["kernel_settings"]
    assert ks["server"]["socket_congestion_control"] == "reno"
    assert ks["server"]["sysctls"]["net.ipv4.tcp_sack"] == "1"
    _nothing_left(run_id)


@needs_testbed
def test_list_model_drops_the_named_segments(netem):
    # Relative sequence numbers (SYN = 0): the first data segment is seq 1. Drop it once, the
    # 4th frame of the data direction, and the segment at byte 10 * MSS on its first two
    # transmissions.
    mss = 1448  # timestamps on: 1460 - 12
    seg = 1 + 10 * mss
    res = run(
        TestbedConfig(
            size_bytes=200_000,
            delay_c2s_s=0.005,
            delay_s2c_s=0.005,
            error_s2c={"model": "list", "frames": [3], "segments": [[1, 1], [seg, 1], [seg, 2]]},
        )
    )
    assert res["snd_mss"] == mss
    drops = [(d["seq"], d["transmission"], d["frame"]) for d in res["drops"]]
    assert (1, 1, drops[0][2]) == drops[0]
    assert [(s, t) for s, t, _ in drops if s == seg] == [(seg, 1), (seg, 2)]
    assert any(f == 3 for _, _, f in drops)
    assert len(drops) == 4 and res["links"]["s2c"]["frames_dropped_error"] == 4
    assert res["retransmissions"] >= 4 and res["bytes"] == 200_000


@needs_testbed
def test_sigint_tears_everything_down(netem):
    run_id = "sig" + os.urandom(2).hex()
    code = (
        "from tcplab.testbed import TestbedConfig, run\n"
        f"run(TestbedConfig(size_bytes=10**9, rate_bps=10e6, run_id={run_id!r}))\n"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        # Interrupt once the download is running (the server endpoint is up).
        end = time.monotonic() + 30
        while time.monotonic() < end and p.poll() is None:
            procs = _ours(run_id)["processes"]
            if any("endpoint.py client" in x for x in procs):
                break
            time.sleep(0.05)
        assert p.poll() is None, p.communicate()
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    try:
        assert p.returncode != 0
        assert "KeyboardInterrupt" in err, err
        _nothing_left(run_id)
    finally:
        cleanup(f"tcplab-{run_id}")  # after the checks: leave a clean machine either way
