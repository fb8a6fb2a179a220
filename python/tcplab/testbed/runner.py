"""`run(config)`: one FTP-style download through the forwarder, summarised with the same
fields the simulator gives.

Sources of the summary fields:
- `response_time_s`: the client, from just before it sends the request to the last byte;
- `data_segments`, `retransmissions`: the sender's TCP_INFO (tcpi_data_segs_out,
  tcpi_total_retrans) after the client closed;
- `rto_expirations`: the sender's tcpi_total_rto (Linux >= 6.7), else the server namespace's
  TcpExt.TCPTimeouts counter (only our connection lives there); `rto_expirations_source` says
  which;
- `links`: the forwarder's counters per direction;
- `max_rcv_window_seen`: the largest receive window (bytes, after scaling and clamping) among
  the segments the forwarder delivered to the server, i.e. what the sender was offered.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from . import tcpinfo
from .config import TestbedConfig, forwarder_links, stack_settings
from .errors import TestbedRunError, TestbedTimeout
from .netns import ENDPOINT, Testbed, _tail, check_available

PORT = 5001
LINK_FIELDS = ("frames_sent", "frames_dropped_error", "frames_dropped_queue", "bytes_on_wire")
# TCP_INFO columns kept in the traces (name in tcp_info -> trace column).
TRACE_FIELDS = (
    "ca_state",
    "retransmits",
    "backoff",
    "unacked",
    "sacked",
    "lost",
    "retrans",
    "total_retrans",
    "snd_wnd",
    "delivered",
    "bytes_acked",
    "bytes_sent",
    "bytes_retrans",
    "data_segs_out",
    "total_rto",
    "pacing_rate",
    "delivery_rate",
)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Make SIGTERM unwind like Ctrl-C, so the namespaces are torn down either way."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _wait(
    p: subprocess.Popen,
    deadline: float,
    what: str,
    watch: Mapping[str, tuple[subprocess.Popen, Path, bool]] | None = None,
) -> None:
    """Wait for `p` until `deadline`, looking every 0.2 s at the processes in `watch` (name:
    (process, its log, whether any exit is a failure, or only a non-zero one)): one that dies
    ends the run at once with an error naming it, instead of a wait until the budget ends."""
    while True:
        try:
            p.wait(min(0.2, max(0.01, deadline - time.monotonic())))
            return
        except subprocess.TimeoutExpired as e:
            if time.monotonic() >= deadline:
                raise TestbedTimeout(f"{what} still running when the time budget ran out") from e
        for name, (proc, log, any_exit) in (watch or {}).items():
            rc = proc.poll()
            if rc is None or (rc == 0 and not any_exit):
                continue
            how = f"was killed by signal {-rc}" if rc < 0 else f"exited with status {rc}"
            tail = _tail(log, 600).strip()
            ends = f"; its log ends: {tail}" if tail else ""
            raise TestbedRunError(f"{name} {how} while {what} was running{ends}")


def _read_json(path: Any, what: str, proc: subprocess.Popen, log: Any) -> dict[str, Any]:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        try:
            tail = log.read_text(errors="replace")[-2000:].strip()
        except OSError:
            tail = ""
        raise TestbedRunError(f"{what} failed (exit {proc.returncode}): {tail or e}") from e


def traces_from_samples(samples: list[tuple[float, dict[str, Any]]]) -> dict[str, list[Any]]:
    """Columnar traces from the sender's TCP_INFO samples (times in s, sizes in bytes)."""
    cols: dict[str, list[Any]] = {
        "time_s": [],
        "cwnd_bytes": [],
        "ssthresh_bytes": [],
        "srtt_s": [],
        "rttvar_s": [],
        "rto_s": [],
        "cwnd_segments": [],
        "mss": [],
    }
    for f in TRACE_FIELDS:
        cols[f] = []
    for t, s in samples:
        mss = s["snd_mss"] or 0
        ssth = s["snd_ssthresh"]
        cols["time_s"].append(round(t, 6))
        cols["cwnd_bytes"].append(s["snd_cwnd"] * mss)
        cols["ssthresh_bytes"].append(
            None if ssth is None or ssth >= tcpinfo.INFINITE_SSTHRESH else ssth * mss
        )
        cols["srtt_s"].append(s["rtt"] / 1e6)
        cols["rttvar_s"].append(s["rttvar"] / 1e6)
        cols["rto_s"].append(s["rto"] / 1e6)
        cols["cwnd_segments"].append(s["snd_cwnd"])
        cols["mss"].append(mss)
        for f in TRACE_FIELDS:
            cols[f].append(s.get(f))
    return cols


def _link_summary(c: dict[str, Any]) -> dict[str, Any]:
    out = {k: c[k] for k in LINK_FIELDS}
    for k in (
        "frames_in",
        "frames_delivered",
        "ip_bytes_delivered",
        "max_queue_packets",
        "max_queue_bytes",
        "windows_clamped",
        "max_window_bytes",
        "lateness",
    ):
        out[k] = c.get(k)
    return out


def _cpu_times() -> tuple[int, int] | None:
    """(busy, total) jiffies of all CPUs from /proc/stat, or None where it cannot be read."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


#: A run's timing drifted when its smallest RTT exceeds the configured one by more than this
#: (absolute, relative), or the forwarder released its p99 frame later than this after its due
#: time, or the machine's CPUs were busier than this fraction.
DRIFT_RTT = (0.002, 0.10)
DRIFT_LATENESS_S = 0.001
DRIFT_CPU_BUSY = 0.90


def health(
    config: TestbedConfig,
    final: Mapping[str, Any],
    fwd: Mapping[str, Any],
    load: tuple[tuple[float, ...], tuple[float, ...]],
    cpu: tuple[tuple[int, int] | None, tuple[int, int] | None],
) -> dict[str, Any]:
    """How trustworthy a run's timing was: the CPU load, the smallest RTT the sender measured
    against the configured one, and the forwarder's lateness; `drifted` with its reasons."""
    ser = 0.0
    if config.rate_bps:
        ser = 8 * (config.mtu + 40 + 52) / config.rate_bps  # a full frame out, an ACK back
    base = config.delay_c2s_s + config.delay_s2c_s + ser
    min_rtt = final.get("min_rtt")
    min_rtt_s = None if min_rtt in (None, 0) else min_rtt * 1e-6
    late = [
        (d.get("lateness") or {}).get("p99_ns")
        for d in (fwd.get("links") or {}).values()
        if isinstance(d, Mapping)
    ]
    late_s = max((x for x in late if x is not None), default=None)
    late_s = None if late_s is None else late_s * 1e-9
    (c0, c1) = cpu
    busy = None
    if c0 and c1 and c1[1] > c0[1]:
        busy = (c1[0] - c0[0]) / (c1[1] - c0[1])
    reasons = []
    if min_rtt_s is not None and min_rtt_s - base > max(DRIFT_RTT[0], DRIFT_RTT[1] * base):
        reasons.append(f"smallest RTT {min_rtt_s * 1e3:.2f} ms, configured {base * 1e3:.2f} ms")
    if late_s is not None and late_s > DRIFT_LATENESS_S:
        reasons.append(f"forwarder p99 lateness {late_s * 1e3:.2f} ms")
    if busy is not None and busy > DRIFT_CPU_BUSY:
        reasons.append(f"CPUs {100 * busy:.0f} % busy")
    return {
        "loadavg_start": list(load[0]),
        "loadavg_end": list(load[1]),
        "cpu_busy": busy,
        "rtt_configured_s": base,
        "min_rtt_s": min_rtt_s,
        "forwarder_lateness_p99_s": late_s,
        "drifted": bool(reasons),
        "drift_reasons": reasons,
    }


def summarize(
    config: TestbedConfig,
    client: dict[str, Any],
    server: dict[str, Any],
    fwd: dict[str, Any],
    kernel_settings: dict[str, Any],
    run_id: str,
    run_health: dict[str, Any] | None = None,
) -> dict[str, Any]:
    final = server["tcp_info_final"]
    if final.get("total_rto") is not None:
        rto, rto_src = final["total_rto"], "tcp_info.tcpi_total_rto (sender)"
    else:
        rto = server["mib"].get("TcpExt.TCPTimeouts", 0)
        rto_src = "TcpExt.TCPTimeouts (server namespace MIB)"
    links = {
        "c2s": _link_summary(fwd["links"]["a_to_b"]),
        "s2c": _link_summary(fwd["links"]["b_to_a"]),
    }
    rt = client["response_time_s"]
    drops = fwd.pop("drops", [])
    t_req = client["t_request_monotonic"]
    for d in drops:
        d["t_since_request_s"] = d["t_mono_ns"] * 1e-9 - t_req
    ports = fwd.get("ports", {})
    return {
        "source": "testbed",
        "run_id": run_id,
        "response_time_s": rt,
        "throughput_Bps": client["bytes"] / rt if rt > 0 else None,
        "data_segments": final["data_segs_out"],
        "segments_sent": final["segs_out"],
        "retransmissions": final["total_retrans"],
        "rto_expirations": rto,
        "rto_expirations_source": rto_src,
        "fast_recoveries": server["mib"].get("TcpExt.TCPRenoRecovery", 0)
        + server["mib"].get("TcpExt.TCPSackRecovery", 0),
        "bytes": client["bytes"],
        "connect_time_s": client["connect_time_s"],
        "snd_mss": final["snd_mss"],
        "congestion_control": server["congestion_control"],
        "links": links,
        "max_rcv_window_seen": fwd["links"]["a_to_b"].get("max_window_bytes"),
        "max_snd_wnd_tcp_info": max(
            (s["snd_wnd"] or 0 for _, s in server["samples"]), default=None
        ),
        "kernel_settings": kernel_settings,
        "health": run_health,
        "kernel_mib": server["mib"],
        "forwarder_self_loss": {
            "kernel_rx_drops": sum(p.get("kernel_rx_drops", 0) for p in ports.values()),
            "tx_failed": sum(p.get("tx_failed", 0) for p in ports.values()),
        },
        "tcp_info_final": final,
        "traces": traces_from_samples(server["samples"]),
        "progress": client["progress"],
        "drops": drops,
        "forwarder": fwd,
        "config": config.to_dict(),
    }


def run(config: TestbedConfig) -> dict[str, Any]:
    """Run one download on the testbed and return the summary dict (see module docstring).

    Needs Linux and root; raises TestbedUnavailable otherwise. Everything it creates is torn
    down before it returns or raises, Ctrl-C and SIGTERM included."""
    config.validate()
    check_available(config.netem_binary)
    settings = stack_settings(config)
    deadline = time.monotonic() + config.time_budget_s
    load0, cpu0 = os.getloadavg(), _cpu_times()
    with (
        _sigterm_as_interrupt(),
        Testbed(
            config.run_id,
            mtu=config.mtu,
            netem=config.netem_binary,
            keep_workdir=config.keep_workdir,
        ) as tb,
    ):
        ks = tb.apply_stack(settings, config.congestion_control)
        fw = tb.start_forwarder(
            forwarder_links(config),
            seed=config.seed,
            rwnd_clamp_bytes=config.rcv_window_clamp,
            pcap=config.pcap_path,
            pcap_snaplen=config.pcap_snaplen,
            **config.forwarder_options,
        )
        common = ["--port", str(PORT), "--cc", config.congestion_control]
        if config.mss:
            common += ["--mss", str(config.mss)]
        if settings["socket"].get("nodelay"):
            common += ["--nodelay"]
        timeout = str(max(1.0, deadline - time.monotonic()))
        srv_out, srv_log = tb.workdir / "server.json", tb.workdir / "server.log"
        cli_out, cli_log = tb.workdir / "client.json", tb.workdir / "client.log"
        srv = tb.python(
            "server",
            ENDPOINT,
            [
                "server", *common, "--bind", tb.addr["server"],
                "--interval", str(config.tcp_info_interval_s),
                "--timeout", timeout, "--out", str(srv_out),
            ],
            stdout=subprocess.PIPE,
            log=srv_log,
        )  # fmt: skip
        tb.wait_ready(srv, srv_log, "the server endpoint")
        cli = tb.python(
            "client",
            ENDPOINT,
            [
                "client", *common, "--server", tb.addr["server"],
                "--size", str(config.size_bytes), "--timeout", timeout, "--out", str(cli_out),
            ],
            log=cli_log,
        )  # fmt: skip
        forwarder = ("the forwarder (tcplab-netem)", (fw.proc, fw.log_path, True))
        server_ep = ("the server endpoint", (srv, srv_log, False))
        _wait(cli, deadline, "the client", dict([forwarder, server_ep]))
        _wait(srv, deadline + 5, "the server", dict([forwarder]))
        client = _read_json(cli_out, "the client endpoint", cli, cli_log)
        server = _read_json(srv_out, "the server endpoint", srv, srv_log)
        report = fw.stop()
        cap = report.get("pcap") or {}
        if config.pcap_path and (not cap or cap.get("error")):
            # A short capture must not pass for a whole one: remove it and fail loudly.
            Path(config.pcap_path).unlink(missing_ok=True)
            raise TestbedRunError(
                f"the forwarder could not write its capture {config.pcap_path}: "
                f"{cap.get('error') or 'no capture reported'} (after {cap.get('frames', 0)} "
                "frames); the short capture was removed"
            )
        ks["client"]["socket_congestion_control"] = client["congestion_control"]
        ks["server"]["socket_congestion_control"] = server["congestion_control"]
        h = health(
            config,
            server["tcp_info_final"],
            report,
            (load0, os.getloadavg()),
            (cpu0, _cpu_times()),
        )
        return summarize(config, client, server, report, ks, tb.run_id, h)


def main(argv: list[str] | None = None) -> int:
    """`python -m tcplab.testbed CONFIG.json`: run a config given as JSON (the fields of
    TestbedConfig) and print the summary without traces."""
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0]) as f:
        cfg = TestbedConfig(**json.load(f))
    res = run(cfg)
    res.pop("traces")
    res.pop("forwarder")
    print(json.dumps(res, indent=1, default=str))
    return 0
