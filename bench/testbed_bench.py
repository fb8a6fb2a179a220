"""Benchmark of tcplab-netem, the testbed's forwarder (needs Linux and root).

    python bench/testbed_bench.py [rate|tcp|latency|all] [--json OUT]

- rate: UDP at increasing packet rates (1500-byte IP packets, no impairment, 20 ms delay)
  through the forwarder; the highest rate with no self-inflicted loss (every datagram arrives,
  no kernel drop at the forwarder's sockets, no send failure). The sender is Python, so the
  top of the ladder may be the sender's limit, reported as such.
- tcp: one kernel TCP download through a 100 Mbit/s, 20 ms (each way) link: goodput against the
  framing-corrected ceiling, forwarder drops other than the model's, and departure lateness.
- latency: UDP ping-pong (kernel receive timestamps, busy-polling echo) through the forwarder
  with zero delay, against the same namespaces bridged by the kernel instead: the difference
  is the latency the forwarder adds (per round trip, i.e. two passes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from tcplab.testbed import Testbed, TestbedConfig, link_spec, run  # noqa: E402
from tcplab.testbed.netns import TOOLS  # noqa: E402

FWD_OPTS = {"realtime_priority": 10}


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def _us(ns: int | None) -> float | None:
    return None if ns is None else ns / 1e3


def udp_rate(tb: Testbed, pps: float, seconds: float, ip_len: int, delay: float) -> dict:
    n = int(pps * seconds)
    fw = tb.start_forwarder(
        {
            "a_to_b": link_spec(rate_bps=None, delay_s=delay, queue_limit=None),
            "b_to_a": link_spec(rate_bps=None, delay_s=delay, queue_limit=None),
        },
        **FWD_OPTS,
    )
    out, log = tb.workdir / "sink.json", tb.workdir / "sink.log"
    sink = tb.python(
        "server",
        TOOLS,
        ["sink", "--port", "9000", "--expect", str(n), "--idle", "1.0", "--timeout", "120"]
        + ["--out", str(out)],
        stdout=subprocess.PIPE,
        log=log,
    )
    tb.wait_ready(sink, log, "sink")
    sout = tb.workdir / "send.json"
    snd = tb.python(
        "client",
        TOOLS,
        ["send", "--dst", tb.addr["server"], "--port", "9000", "--count", str(n)]
        + ["--ip-len", str(ip_len), "--pps", str(pps), "--out", str(sout)],
        log=tb.workdir / "send.log",
    )
    snd.wait()
    tb.forget(snd)
    sink.wait()
    tb.forget(sink)
    rep = fw.stop()
    s, r = json.loads(sout.read_text()), json.loads(out.read_text())
    link = rep["links"]["a_to_b"]
    kdrops = sum(p["kernel_rx_drops"] for p in rep["ports"].values())
    txf = sum(p["tx_failed"] for p in rep["ports"].values())
    achieved_pps = s["sent"] / s["duration_s"]
    return {
        "offered_pps": pps,
        "achieved_pps": round(achieved_pps),
        "achieved_mbps": round(achieved_pps * ip_len * 8 / 1e6, 1),
        "sent": s["sent"],
        "received": r["distinct"],
        "receiver_rcvbuf_errors": r["rcvbuf_errors"],
        "forwarder_kernel_drops": kdrops,
        "forwarder_tx_failed": txf,
        "lost": s["sent"] - r["distinct"],
        # None: beyond the forwarder's 20 ms histogram.
        "lateness_p50_us": _us(link["lateness"]["p50_ns"]),
        "lateness_p99_us": _us(link["lateness"]["p99_ns"]),
        "sender_kept_up": achieved_pps > 0.95 * pps,
    }


def bench_rate(args: argparse.Namespace) -> dict:
    ladder = [10_000, 20_000, 40_000, 60_000, 80_000, 100_000, 120_000, 150_000]
    rows = []
    best = None
    with Testbed() as tb:
        for pps in ladder:
            row = udp_rate(tb, pps, args.seconds, 1500, 0.020)
            rows.append(row)
            print(json.dumps(row), flush=True)
            clean = row["lost"] == 0 and row["forwarder_kernel_drops"] == 0
            if clean:
                best = row
            if not clean or not row["sender_kept_up"]:
                break
    return {
        "rows": rows,
        "max_clean_pps": best and best["achieved_pps"],
        "max_clean_mbps": best and best["achieved_mbps"],
        "limited_by": (
            "sender (Python) could not offer more"
            if rows and rows[-1]["lost"] == 0 and not rows[-1]["sender_kept_up"]
            else "loss"
            if rows and rows[-1]["lost"]
            else "ladder top"
        ),
    }


def bench_tcp(args: argparse.Namespace) -> dict:
    rate = 100e6
    cfg = TestbedConfig(
        size_bytes=args.tcp_bytes,
        rate_bps=rate,
        delay_c2s_s=0.020,
        delay_s2c_s=0.020,
        queue_limit=1000,
        congestion_control="cubic",
        tcp_info_interval_s=0.1,
        forwarder_options=FWD_OPTS,
    )
    res = run(cfg)
    mss = res["snd_mss"]
    ceiling = rate / 8 * mss / (mss + 52 + 38)
    prog = res["progress"]
    t0, b0 = next((t, b) for t, b in prog if b >= 0.3 * cfg.size_bytes)
    t1, b1 = prog[-1]
    goodput = (b1 - b0) / (t1 - t0)
    s2c = res["links"]["s2c"]
    return {
        "goodput_mbps": round(goodput * 8 / 1e6, 2),
        "ceiling_mbps": round(ceiling * 8 / 1e6, 2),
        "ratio": round(goodput / ceiling, 4),
        "response_time_s": round(res["response_time_s"], 3),
        "retransmissions": res["retransmissions"],
        "model_queue_drops": s2c["frames_dropped_queue"],
        "forwarder_self_loss": res["forwarder_self_loss"],
        "lateness_s2c": s2c["lateness"],
        "lateness_c2s": res["links"]["c2s"]["lateness"],
    }


def _ping(tb: Testbed, count: int) -> list[float]:
    log = tb.workdir / "echo.log"
    echo = tb.python(
        "server",
        TOOLS,
        ["echo", "--port", "7", "--timeout", str(count * 0.01 + 10), "--spin"],
        stdout=subprocess.PIPE,
        log=log,
    )
    tb.wait_ready(echo, log, "echo")
    out = tb.workdir / "ping.json"
    p = tb.python(
        "client",
        TOOLS,
        ["ping", "--dst", tb.addr["server"], "--port", "7", "--count", str(count)]
        + ["--interval", "0.002", "--out", str(out)],
        log=tb.workdir / "ping.log",
    )
    p.wait()
    tb.forget(p)
    echo.terminate()
    echo.wait()
    tb.forget(echo)
    return json.loads(out.read_text())["rtts_s"]


def bench_latency(args: argparse.Namespace) -> dict:
    with Testbed() as tb:
        # Baseline: the kernel bridges the router namespace's two veths.
        r = tb.ns["router"]
        subprocess.run(["ip", "-n", r, "link", "add", "br0", "type", "bridge"], check=True)
        for key in ("router_a", "router_b"):
            subprocess.run(
                ["ip", "-n", r, "link", "set", tb.ifname[key], "master", "br0"], check=True
            )
        subprocess.run(["ip", "-n", r, "link", "set", "br0", "up"], check=True)
        time.sleep(0.2)
        base = _ping(tb, args.pings)
        for key in ("router_a", "router_b"):
            subprocess.run(["ip", "-n", r, "link", "set", tb.ifname[key], "nomaster"], check=True)
        subprocess.run(["ip", "-n", r, "link", "del", "br0"], check=True)
        fw = tb.start_forwarder(
            {
                "a_to_b": link_spec(rate_bps=None, delay_s=0),
                "b_to_a": link_spec(rate_bps=None, delay_s=0),
            },
            **FWD_OPTS,
        )
        through = _ping(tb, args.pings)
        fw.stop()
        fw = tb.start_forwarder(
            {
                "a_to_b": link_spec(rate_bps=None, delay_s=0.020),
                "b_to_a": link_spec(rate_bps=None, delay_s=0.020),
            },
            **FWD_OPTS,
        )
        delayed = _ping(tb, max(50, args.pings // 10))
        rep = fw.stop()

    def us(xs: list[float], q: float) -> float:
        return round(_pct(xs, q) * 1e6, 1)

    return {
        "pings": len(through),
        "bridge_rtt_us": {"p50": us(base, 0.5), "p99": us(base, 0.99)},
        "forwarder_rtt_us": {"p50": us(through, 0.5), "p99": us(through, 0.99)},
        "added_per_round_trip_us": {
            "p50": round(us(through, 0.5) - us(base, 0.5), 1),
            "p99": round(us(through, 0.99) - us(base, 0.99), 1),
        },
        "delay_20ms_rtt_error_us": {
            "p50": round((_pct(delayed, 0.5) - 0.040) * 1e6, 1),
            "p99": round((_pct(delayed, 0.99) - 0.040) * 1e6, 1),
            "mean": round((statistics.mean(delayed) - 0.040) * 1e6, 1),
        },
        "departure_lateness_20ms": rep["links"]["a_to_b"]["lateness"],
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", nargs="?", default="all", choices=["rate", "tcp", "latency", "all"])
    p.add_argument("--seconds", type=float, default=3.0, help="per UDP rate step")
    p.add_argument("--pings", type=int, default=1000)
    p.add_argument("--tcp-bytes", type=int, default=60_000_000)
    p.add_argument("--json", help="also write the results here")
    a = p.parse_args()
    out: dict[str, Any] = {}
    if a.what in ("rate", "all"):
        out["rate"] = bench_rate(a)
    if a.what in ("tcp", "all"):
        out["tcp"] = bench_tcp(a)
    if a.what in ("latency", "all"):
        out["latency"] = bench_latency(a)
    text = json.dumps(out, indent=1)
    print(text)
    if a.json:
        Path(a.json).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
