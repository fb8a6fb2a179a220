"""A testbed run's result in the simulator's schema: `run_scenario` (or `run_plan`, for a plan
made with `tcplab.testbed.plan.plan`) runs a scenario on the testbed and returns a
`tcplab.Result` whose summary and traces have the simulator's layout, so `tcplab run` and
`tcplab testbed run` can be compared key by key.

The summary keeps every key path of the simulator's summary (`key_paths`); counters the kernel
does not keep are None. Testbed-only facts live under ``summary["testbed"]``, plus
``kernel_settings`` and ``max_rcv_window_seen`` at the top level.
"""

from __future__ import annotations

import math
import platform
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .config import PROFILES, TestbedConfig
from .plan import TestbedPlan, check_congestion_control, plan, window_limited_time

if TYPE_CHECKING:
    import pandas as pd

    from tcplab.api import Result, Scenario

__all__ = [
    "SSTHRESH_UNLIMITED",
    "key_paths",
    "run_plan",
    "run_scenario",
    "to_result",
]

#: An ssthresh no congestion event has set: infinity in the traces of both sources (the
#: simulator's trace and the testbed's TCP_INFO samples) and null in the summaries.
SSTHRESH_UNLIMITED = math.inf
#: Linux TCP states (include/net/tcp_states.h), named as the simulator names its states.
TCP_STATES = {
    1: "ESTABLISHED",
    2: "SYN-SENT",
    3: "SYN-RECEIVED",
    4: "FIN-WAIT-1",
    5: "FIN-WAIT-2",
    6: "TIME-WAIT",
    7: "CLOSED",
    8: "CLOSE-WAIT",
    9: "LAST-ACK",
    10: "LISTEN",
    11: "CLOSING",
}


def run_scenario(
    scenario: Scenario, *, seed: int | None = None, time_budget_s: float | None = None, **kw: Any
) -> Result:
    """Run `scenario` on the testbed and return a `tcplab.Result` in the simulator's schema.

    Raises UnsupportedScenario (before anything runs), TestbedUnavailable (not Linux, not root,
    a tool missing), TestbedTimeout (the time budget ran out) or TestbedRunError."""
    p = plan(scenario, seed=seed, time_budget_s=time_budget_s, **kw)
    return run_plan(scenario if seed is None else scenario.with_seed(seed), p)


def run_plan(scenario: Scenario, p: TestbedPlan) -> Result:
    """Run a plan made from `scenario` (see `run_scenario`)."""
    from .netns import check_available
    from .runner import run

    check_available(p.config.netem_binary)
    check_congestion_control(p.config.congestion_control)
    return to_result(scenario, p, run(p.config))


def _num(v: Any, default: Any = None) -> Any:
    return default if v is None else v


def _link_dir(c: Mapping[str, Any], drops: list[dict], fdir: str, rate: float | None, t: float):
    mine = [d for d in drops if d.get("dir") == fdir]
    out = {
        "bytes_on_wire": c["bytes_on_wire"],
        "data_frames_dropped_error": sum(
            1 for d in mine if d.get("reason") == "error" and d.get("payload")
        ),
        "data_frames_dropped_queue": sum(
            1 for d in mine if d.get("reason") == "queue" and d.get("payload")
        ),
        "frames_dropped_error": c["frames_dropped_error"],
        "frames_dropped_queue": c["frames_dropped_queue"],
        # The forwarder's queue is drop-tail (plan() refuses an aqm): no RED drops.
        "frames_dropped_early": 0,
        "frames_dropped_forced": 0,
        "frames_offered": c.get("frames_in"),
        "frames_sent": c["frames_sent"],
        # Upper bound: the fullest queue (bytes on the wire) drained at the link rate.
        "max_queue_delay_s": (
            8 * c["max_queue_bytes"] / rate
            if rate and c.get("max_queue_bytes") is not None
            else None
        ),
        "max_queue_packets": c.get("max_queue_packets"),
        "mean_queue_delay_s": None,
        "utilisation": 8 * c["bytes_on_wire"] / (rate * t) if rate and t > 0 else None,
    }
    for k in (
        "frames_delivered",
        "ip_bytes_delivered",
        "max_queue_bytes",
        "windows_clamped",
        "max_window_bytes",
        "lateness",
    ):
        out[k] = c.get(k)
    return out


def _trace_table(raw: Mapping[str, Any], t_shift: float, node: int = 0) -> pd.DataFrame:
    """The sender's TCP_INFO samples as the simulator's trace columns (then testbed extras);
    `node` is the server's node index (the trace's owner: end 1, the server)."""
    import numpy as np
    import pandas as pd

    tr = raw["traces"]
    n = len(tr["time_s"])

    def col(name: str, fill: float = 0) -> np.ndarray:
        return np.array([fill if v is None else v for v in tr.get(name, [None] * n)], dtype=float)

    mss = col("mss")
    ssth = np.array(
        [SSTHRESH_UNLIMITED if v is None else v for v in tr["ssthresh_bytes"]], dtype=float
    )
    in_flight = np.clip(col("unacked") - col("sacked") - col("lost") + col("retrans"), 0, None)
    df = pd.DataFrame(
        {
            "time_s": np.array(tr["time_s"], dtype=float) + t_shift,
            "conn": np.zeros(n, dtype=np.uint64),
            "end": np.ones(n, dtype=np.uint64),
            "node": np.full(n, node, dtype=np.uint64),
            "cwnd": col("cwnd_bytes").astype(np.uint64),
            "ssthresh": ssth,
            "rwnd": col("snd_wnd").astype(np.uint64),
            "flight": (in_flight * mss).astype(np.uint64),
            "srtt_s": col("srtt_s", math.nan),
            "rto_s": col("rto_s", math.nan),
            # The sender's cumulative ACK (relative: the SYN is 0) and the bytes acknowledged,
            # the receiver's byte count as the sender learns it (one-way delay later).
            "ack": (col("bytes_acked") + 1).astype(np.uint64),
            "bytes_received": col("bytes_acked").astype(np.uint64),
            # Linux's westwood keeps its estimate private (TCP_INFO and its diag info have
            # no bandwidth estimate).
            "bwe_Bps": np.full(n, math.nan),
            "bwe_rtt_min_s": np.full(n, math.nan),
        }
    )
    for name in ("rttvar_s", "cwnd_segments", "mss", *_TRACE_EXTRAS):
        if name in tr:
            df[name] = pd.to_numeric(pd.Series(tr[name], dtype=object), errors="coerce")
    return df


_TRACE_EXTRAS = (
    "ca_state",
    "retransmits",
    "backoff",
    "unacked",
    "sacked",
    "lost",
    "retrans",
    "total_retrans",
    "delivered",
    "bytes_sent",
    "bytes_retrans",
    "data_segs_out",
    "total_rto",
    "pacing_rate",
    "delivery_rate",
)


def _events_table(raw: Mapping[str, Any], trace: pd.DataFrame, connect_s: float) -> pd.DataFrame:
    """The simulator's event kinds the testbed can observe: frames the forwarder dropped (exact
    times), and timeouts, fast retransmits and recovery exits seen in the TCP_INFO samples
    (to the sampling interval)."""
    import pandas as pd

    rows: list[tuple[float, int, str, int, str]] = []
    for d in raw.get("drops", []):
        end = 1 if d.get("dir") == "b_to_a" else 0
        kind = "drop_queue" if d.get("reason") == "queue" else "drop_error"
        t = float(d.get("t_since_request_s", 0.0)) + connect_s
        detail = (
            f"frame {d.get('frame')} of {d.get('dir')}, {d.get('payload')} B payload, "
            f"transmission {d.get('transmission')}"
        )
        rows.append((t, end, kind, int(d.get("seq") or 0), detail))
    if len(trace) and "total_rto" in trace and "ca_state" in trace:
        rto = trace["total_rto"].fillna(0).to_numpy()
        ca = trace["ca_state"].fillna(0).to_numpy()
        ack = trace["ack"].to_numpy()
        ts = trace["time_s"].to_numpy()
        for i in range(1, len(trace)):
            t, a = float(ts[i]), int(ack[i])
            for _ in range(int(rto[i] - rto[i - 1])):
                rows.append((t, 1, "rto", a, "TCP_INFO tcpi_total_rto rose"))
            if ca[i] == 3 and ca[i - 1] != 3:
                rows.append((t, 1, "fast_retransmit", a, "TCP_INFO ca_state -> recovery"))
            if ca[i - 1] == 3 and ca[i] != 3:
                rows.append((t, 1, "recovery_exit", a, "TCP_INFO ca_state recovery -> open"))
    rows.sort(key=lambda r: r[0])
    return pd.DataFrame(
        {
            "time_s": pd.Series([r[0] for r in rows], dtype="float64"),
            "conn": pd.Series([0] * len(rows), dtype="uint64"),
            "end": pd.Series([r[1] for r in rows], dtype="uint64"),
            "kind": pd.Series([r[2] for r in rows], dtype="str"),
            "seq": pd.Series([r[3] for r in rows], dtype="uint64"),
            "detail": pd.Series([r[4] for r in rows], dtype="str"),
        }
    )


def to_result(scenario: Scenario, p: TestbedPlan, raw: Mapping[str, Any]) -> Result:
    """A testbed run (`tcplab.testbed.run`'s dict) as a `tcplab.Result` in the simulator's
    summary layout, with the traces "trace" and "events"."""
    import tcplab
    from tcplab.api import Result

    cfg = p.config
    app = p.app
    size = cfg.size_bytes
    connect = float(raw["connect_time_s"])
    rt = connect + float(raw["response_time_s"])  # the simulator's: from the connection's start
    # Server-side sample times count from the request's arrival, a one-way delay after the
    # client sent it, `connect` after the SYN.
    t_shift = connect + cfg.delay_c2s_s
    names = [n.get("name") for n in scenario.to_dict(normalized=True).get("nodes", [])]
    server = app.get("server") if isinstance(app, Mapping) else None
    trace = _trace_table(raw, t_shift, names.index(server) if server in names else 0)
    events = _events_table(raw, trace, connect)
    end_t = max(rt, float(trace["time_s"].max()) if len(trace) else 0.0)
    f = raw["tcp_info_final"]
    mib = raw.get("kernel_mib", {})
    mss = f.get("snd_mss") or 0
    ssth = f.get("snd_ssthresh")
    fwd = raw.get("forwarder", {}).get("links", {})
    drops = raw.get("drops", [])
    c2s, s2c = fwd.get("a_to_b", raw["links"]["c2s"]), fwd.get("b_to_a", raw["links"]["s2c"])
    # A testbed run that returns finished its download (a failed one raises instead); the
    # kernel's own state at the end is in "state".
    server = {
        "aborted": False,
        "end_reason": "completed the download (kernel state at the end in 'state')",
        "acks_sent": _num(f.get("segs_out"), 0) - _num(f.get("data_segs_out"), 0),
        "bytes_delivered": f.get("bytes_received"),
        "bytes_sent": f.get("bytes_sent"),
        "data_segments_sent": f.get("data_segs_out"),
        "dupacks_received": None,
        "duplicate_segments": None,
        "fast_retransmits": mib.get("TcpExt.TCPFastRetrans", 0),
        "final_cwnd": _num(f.get("snd_cwnd"), 0) * mss,
        "final_ssthresh": None if ssth is None or ssth >= 0x7FFFFFFF else ssth * mss,
        "max_cwnd": int(trace["cwnd"].max()) if len(trace) else None,
        "mss": mss,
        "out_of_order_segments": f.get("rcv_ooopack"),
        "retransmissions": f.get("total_retrans"),
        "rto_expirations": raw.get("rto_expirations"),
        "rto_s": _num(f.get("rto"), 0) / 1e6,
        "rtt_samples": None,
        "segments_received": f.get("segs_in"),
        "segments_sent": f.get("segs_out"),
        "srtt_s": _num(f.get("rtt"), 0) / 1e6,
        "state": TCP_STATES.get(f.get("state"), str(f.get("state"))),
        "syn_retransmissions": mib.get("TcpExt.TCPSynRetrans", 0),
        "fast_recoveries": raw.get("fast_recoveries"),
        "rto_expirations_source": raw.get("rto_expirations_source"),
        "snd_wnd_max": raw.get("max_snd_wnd_tcp_info"),
    }
    # The client's kernel counters are not recorded; what the forwarder counted stands in.
    req_segs = f.get("data_segs_in")
    client = {
        "aborted": False,
        "end_reason": "completed the download",
        "acks_sent": None if req_segs is None else c2s.get("frames_in", 0) - req_segs,
        "bytes_delivered": raw["bytes"],
        "bytes_sent": f.get("bytes_received"),
        "data_segments_sent": req_segs,
        "dupacks_received": None,
        "duplicate_segments": None,
        "fast_retransmits": None,
        "final_cwnd": None,
        "final_ssthresh": None,
        "max_cwnd": None,
        "mss": f.get("snd_mss"),  # one MSS both ways (the same MTU and TCP_MAXSEG)
        "out_of_order_segments": None,
        "retransmissions": None,
        "rto_expirations": None,
        "rto_s": None,
        "rtt_samples": None,
        "segments_received": s2c.get("frames_delivered"),
        "segments_sent": c2s.get("frames_in"),
        "srtt_s": None,
        "state": None,
        "syn_retransmissions": None,
    }
    tcp = app["tcp"]
    ks = raw.get("kernel_settings", {})
    link = {
        "name": p.link,
        p.data_dir: _link_dir(s2c, drops, "b_to_a", cfg.rate_bps, end_t),
        p.ack_dir: _link_dir(c2s, drops, "a_to_b", cfg.rate_bps, end_t),
    }
    summary: dict[str, Any] = {
        "tcplab_version": tcplab.__version__,
        "scenario": p.scenario_name,
        "seed": cfg.seed,
        "sim_time_s": end_t,
        "stopped_by": "idle",
        "events": len(events),
        "apps": [
            {
                "name": app["name"],
                "kind": "ftp",
                "bytes": size,
                "bytes_received": raw["bytes"],
                "start_s": 0.0,
                "end_s": rt,
                "completed": raw["bytes"] == size,
                "response_time_s": rt,
                "throughput_Bps": size / rt if rt > 0 else None,
                "offered_bytes": None,
                "max_backlog_bytes": None,
                "transactions": None,
                "datagrams": None,
            }
        ],
        "connections": [
            {
                "name": app["name"],
                "congestion_control": raw.get("congestion_control", cfg.congestion_control),
                "loss_recovery": _kernel_recovery(ks, cfg),
                "profile": tcp.get("profile"),
                "client": client,
                "server": server,
            }
        ],
        "links": [link],
        "source": "testbed",
        "kernel_settings": ks,
        "health": raw.get("health"),
        # What the sender saw: its own TCP_INFO (tcpi_snd_wnd, Linux >= 5.4), else the largest
        # window the forwarder passed to it (which counts the unscaled SYN's too).
        "max_rcv_window_seen": raw.get("max_snd_wnd_tcp_info") or raw.get("max_rcv_window_seen"),
        "testbed": {
            "max_window_sender_tcp_info": raw.get("max_snd_wnd_tcp_info"),
            "max_window_forwarder": raw.get("max_rcv_window_seen"),
            "run_id": raw.get("run_id"),
            "host": {"kernel": platform.release(), "machine": platform.machine()},
            "forwarder": {
                k: raw.get("forwarder", {}).get(k)
                for k in ("tool", "version", "duration_s", "timing", "drops_unlogged")
            },
            "forwarder_self_loss": raw.get("forwarder_self_loss"),
            "connect_time_s": connect,
            "request_to_last_byte_s": raw["response_time_s"],
            "response_time_definition": (
                "from the client's connect() to the last byte, as the simulator's (SYN to last "
                "byte); request_to_last_byte_s leaves out the handshake"
            ),
            "rcv_window_clamp": cfg.rcv_window_clamp,
            "rtt_s_scenario": p.rtt_s,
            "window_limited_time_s": window_limited_time(p),
            "approximations": list(p.approximations),
            "counters": (
                "server: the sender's TCP_INFO and its namespace's MIB; client: the forwarder's "
                "frame counts (its kernel counters are not recorded); None: not kept by Linux"
            ),
            "link_mapping": (
                f"the forwarder's s2c direction is link {p.link!r} {p.data_dir} (the data "
                f"direction) and c2s is {p.ack_dir}; the other links of the path have no "
                "counterpart"
            ),
            "config": cfg.to_dict(),
            "kernel_mib": mib,
            "tcp_info_final": f,
        },
    }
    return Result(
        scenario=scenario.to_dict(normalized=True),
        summary=summary,
        traces={"trace": trace, "events": events},
    )


def _kernel_recovery(ks: Mapping[str, Any], cfg: TestbedConfig) -> str:
    s = {**PROFILES[cfg.profile]["sysctls"], **cfg.sysctls}
    applied = (ks.get("server") or {}).get("sysctls") or {}
    s.update({k: int(v) for k, v in applied.items() if str(v).lstrip("-").isdigit()})
    sack = bool(s.get("net.ipv4.tcp_sack"))
    rack = bool(s.get("net.ipv4.tcp_recovery", 1) & 1)
    frto = bool(s.get("net.ipv4.tcp_frto", 2))
    parts = ["sack" if sack else "newreno"]
    if rack:
        parts.append("rack-tlp")
    if frto:
        parts.append("frto")
    return "linux " + "+".join(parts)


def key_paths(obj: Any, prefix: str = "") -> set[str]:
    """Every key path of a nested summary; list elements collapse to ``[]`` (``apps[].bytes``),
    so summaries with different numbers of links compare by their layout."""
    out: set[str] = set()
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            p = f"{prefix}.{k}" if prefix else str(k)
            out.add(p)
            out |= key_paths(v, p)
    elif isinstance(obj, list):
        for v in obj:
            out |= key_paths(v, f"{prefix}[]")
    return out
