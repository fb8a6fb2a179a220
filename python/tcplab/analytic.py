"""The analytic models' inputs from a scenario, and every model evaluated on them.

`scenario_inputs` derives what the models take from the scenario's resolved path
(`tcplab.path`, read from `Scenario.describe()`) and its resolved TCP settings:

- RTT = the propagation delays of the data path and of the ACK path, plus store-and-forward
  serialisation of one full data frame on every data hop and of one ACK frame on every ACK
  hop (no queueing, no delayed-ACK wait);
- MSS = the configured MSS, minus 12 bytes of timestamp options when timestamps are on (the
  core's effective send MSS); a full data frame is MSS + 40 bytes of IP and TCP header;
- rwnd = the receive buffer, capped at 65,535 bytes without window scaling;
- the bottleneck = the slowest data hop, and its per-frame overhead (headers + framing);
- p = 1 - prod(1 - PER_hop) over the data path for a full data frame, PER_hop from the hop's
  error model (a BER is applied to the bytes its framing exposes to errors); the same for an
  ACK frame on the ACK path;
- b = the delayed-ACK segment count (1 without delayed ACKs); T0 = the steady-state RTO,
  max(rto_min, RTT + clock granularity) (RFC 6298 with RTTVAR ~ 0).

`evaluate_models` turns them into the window limit, the line rate, the application's offered
rate (CBR), Mathis (b = 1 and b = 2), PFTK (full and approximate, as goodput) and, for a
finite transfer, Cardwell, and says which limit binds. `tcplab model --scenario` prints them;
`tcplab.compare` sets them against the simulator over a sweep.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from tcplab import errors as _errors
from tcplab import models
from tcplab.path import AppPath, Hop

if TYPE_CHECKING:
    from tcplab.api import Scenario

__all__ = [
    "MAX_UNSCALED_WINDOW",
    "MODELS",
    "ModelInputs",
    "evaluate_models",
    "inputs_from_description",
    "scenario_inputs",
]

#: The largest window without window scaling (RFC 7323 section 2).
MAX_UNSCALED_WINDOW = 65_535


@dataclass(frozen=True)
class ModelInputs:
    """Everything the analytic models take, derived from one application of a scenario.

    Rates are bytes/s, sizes bytes, times seconds. `notes` says what the derivation assumed or
    could not capture."""

    app: str
    kind: str
    sender: str  # node name
    sender_end: str  # "client" or "server" (which end of the connection sends the data)
    size_bytes: float | None  # None: unlimited (bulk without a size, CBR)
    offered_Bps: float | None  # CBR: packet_size / interval
    mss_bytes: int  # configured
    eff_mss_bytes: int  # payload per full segment
    timestamps: bool
    data_ip_bytes: int
    ack_ip_bytes: int
    data_path: tuple[Hop, ...]
    ack_path: tuple[Hop, ...]
    rtt_s: float
    rtt_propagation_s: float
    rtt_data_serialisation_s: float
    rtt_ack_serialisation_s: float
    rcv_buf_bytes: float
    window_scaling: bool
    rwnd_bytes: float
    bottleneck: str
    bottleneck_rate_Bps: float
    overhead_bytes: int  # headers + framing on the bottleneck, per full segment
    p: float
    p_ack: float
    b: float
    delayed_ack: bool
    delack_max_s: float
    rto_s: float
    rto_min_s: float
    clock_granularity_s: float
    rto_initial_s: float
    initial_cwnd: int
    congestion_control: str
    loss_recovery: str
    notes: tuple[str, ...] = ()

    @property
    def rwnd_segments(self) -> float:
        return self.rwnd_bytes / self.eff_mss_bytes

    @property
    def segments(self) -> float | None:
        """Data segments of a finite transfer (None when unlimited)."""
        if self.size_bytes is None:
            return None
        return float(models.segments_needed(self.size_bytes, self.eff_mss_bytes))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["data_path"] = [_hop_dict(h) for h in self.data_path]
        d["ack_path"] = [_hop_dict(h) for h in self.ack_path]
        d["notes"] = list(self.notes)
        d["rwnd_segments"] = self.rwnd_segments
        d["segments"] = self.segments
        return d


def _hop_dict(h: Hop) -> dict[str, Any]:
    d = asdict(h)
    d["name"] = h.name
    d["serialisation_s"] = h.serialisation_s
    return d


def inputs_from_description(app: Mapping[str, Any]) -> ModelInputs:
    """`ModelInputs` from one entry of ``Scenario.describe()["apps"]``."""
    path = AppPath.of(app)
    notes = list(path.notes)
    tcp = app["tcp"]
    spec = app["app"]
    eff, data_ip = path.eff_mss_bytes, path.data_ip_bytes
    data, ack = path.data_frames, path.ack_frames
    if not data:
        raise ValueError(f"app {app['name']!r}: the data path has no hops")
    prop = sum(h.delay_s for h in data) + sum(h.delay_s for h in ack)
    ser_data = sum(h.serialisation_s for h in data)
    ser_ack = sum(h.serialisation_s for h in ack)
    rtt = prop + ser_data + ser_ack

    rcv_buf = float(tcp["rcv_buf"])
    scaling = bool(tcp.get("window_scaling", False))
    rwnd = rcv_buf if scaling else min(rcv_buf, MAX_UNSCALED_WINDOW)
    snd_buf = tcp.get("snd_buf")
    if snd_buf is not None and float(snd_buf) < rwnd:
        notes.append(
            f"the send buffer ({float(snd_buf):,.0f} B) is smaller than the receive window: it "
            "limits the flight, so the window figures use it"
        )
        rwnd = float(snd_buf)

    slowest = min(data, key=lambda h: h.rate_bps)
    bottleneck_Bps = slowest.rate_bps / 8.0
    overhead = slowest.wire_bytes - eff
    mtu = min(h.mtu for h in path.data)
    if data_ip > mtu:
        notes.append(f"a full data frame ({data_ip} B IP) exceeds the path MTU ({mtu} B)")

    delayed = bool(tcp.get("delayed_ack", False))
    b = float(tcp.get("delack_segments", 2)) if delayed else 1.0
    g = float(tcp.get("clock_granularity_s", 0.0))
    rto_min = float(tcp.get("rto_min_s", 1.0))
    rto_max = float(tcp.get("rto_max_s", math.inf))
    t0 = min(max(rto_min, rtt + g), rto_max)
    if delayed:
        notes.append(
            f"delayed ACKs (every {b:g} segments, {float(tcp.get('delack_max_s', 0)) * 1e3:g} ms "
            "timer): the RTT excludes the receiver's ACK delay"
        )

    kind = str(spec["kind"])
    size = spec.get("size")
    size_bytes = None if size is None else float(size)
    offered = None
    if kind == "cbr":
        offered = float(spec["packet_size"]) / float(spec["interval_s"])
        size_bytes = None
    sender_end = "server" if app.get("sender") == app.get("server") else "client"
    return ModelInputs(
        app=str(app["name"]),
        kind=kind,
        sender=str(app.get("sender")),
        sender_end=sender_end,
        size_bytes=size_bytes,
        offered_Bps=offered,
        mss_bytes=path.mss_bytes,
        eff_mss_bytes=eff,
        timestamps=path.timestamps,
        data_ip_bytes=data_ip,
        ack_ip_bytes=path.ack_ip_bytes,
        data_path=data,
        ack_path=ack,
        rtt_s=rtt,
        rtt_propagation_s=prop,
        rtt_data_serialisation_s=ser_data,
        rtt_ack_serialisation_s=ser_ack,
        rcv_buf_bytes=rcv_buf,
        window_scaling=scaling,
        rwnd_bytes=rwnd,
        bottleneck=slowest.name,
        bottleneck_rate_Bps=bottleneck_Bps,
        overhead_bytes=overhead,
        p=path.p,
        p_ack=path.p_ack,
        b=b,
        delayed_ack=delayed,
        delack_max_s=float(tcp.get("delack_max_s", 0.0)),
        rto_s=t0,
        rto_min_s=rto_min,
        clock_granularity_s=g,
        rto_initial_s=float(tcp.get("rto_initial_s", 1.0)),
        initial_cwnd=int(tcp.get("initial_cwnd", 1)),
        congestion_control=str(tcp.get("congestion_control", "")),
        loss_recovery=str(tcp.get("loss_recovery", "")),
        notes=tuple(notes),
    )


def scenario_inputs(scenario: Scenario, app: str | None = None) -> list[ModelInputs]:
    """The model inputs of every application of `scenario` (or only of `app`, by name).

    Raises `tcplab.errors.ScenarioError` (UnknownFieldError) naming the known apps if `app`
    is not one of them."""
    apps = scenario.describe()["apps"]
    if app is not None:
        chosen = [a for a in apps if a["name"] == app]
        if not chosen:
            known = ", ".join(repr(a["name"]) for a in apps) or "none"
            raise _errors._make(
                _errors.UnknownFieldError,
                f"--app: the scenario has no application named {app!r} (apps: {known})",
                field="apps",
                value=app,
            )
        apps = chosen
    return [inputs_from_description(a) for a in apps]


# ----------------------------------------------------------------------------------------------
# Evaluating the models

#: The models `evaluate_models` computes: key -> (label, what it is).
MODELS: dict[str, tuple[str, str]] = {
    "window": ("window limit", "rwnd / RTT"),
    "line_rate": ("line rate", "MSS / (MSS + overhead) x bottleneck rate"),
    "mathis_b1": ("Mathis b=1", "MSS / RTT x sqrt(3 / (2p)), an ACK per segment"),
    "mathis_b2": ("Mathis b=2", "MSS / RTT x sqrt(3 / (4p)), an ACK per two segments"),
    "pftk_full": ("PFTK full", "PFTK 1998 eq. 31 with rwnd, T0 and b, times (1 - p)"),
    "pftk_approx": ("PFTK approx", "PFTK 1998 closed form, min(rwnd/RTT, ...), times (1 - p)"),
    "cardwell": ("Cardwell", "size / E[latency] (Cardwell 2000), finite transfers only"),
}


def evaluate_models(x: ModelInputs) -> dict[str, Any]:
    """Every model's throughput (bytes/s) for `x`, the application's offered rate, the binding
    limit and its estimate.

    ``binding`` is the smallest of line rate, window, the application's offered rate and the
    loss limit (Mathis with the scenario's own b); ``estimate_Bps`` is that rate. Models that
    do not apply are NaN (Cardwell for an unlimited transfer), and a loss model is ``inf`` at
    p = 0."""
    mss, rtt, p = x.eff_mss_bytes, x.rtt_s, x.p
    out: dict[str, Any] = {}
    out["window"] = float(models.window_limit(x.rwnd_bytes, rtt))
    out["window_propagation"] = float(models.window_limit(x.rwnd_bytes, x.rtt_propagation_s))
    out["line_rate"] = float(models.line_rate_limit(x.bottleneck_rate_Bps, mss, x.overhead_bytes))
    out["application"] = math.inf if x.offered_Bps is None else x.offered_Bps
    out["mathis_b1"] = float(models.mathis_throughput(mss, rtt, p, b=1))
    out["mathis_b2"] = float(models.mathis_throughput(mss, rtt, p, b=2))
    out["mathis"] = float(models.mathis_throughput(mss, rtt, p, b=x.b))
    if p >= 1.0:
        out["pftk_full"] = out["pftk_approx"] = 0.0
    else:
        out["pftk_full"] = float(
            models.pftk_throughput(mss, rtt, p, x.rto_s, b=x.b, rwnd=x.rwnd_bytes, goodput=True)
        )
        out["pftk_approx"] = float(
            models.pftk_approx_throughput(
                mss, rtt, p, x.rto_s, b=x.b, rwnd=x.rwnd_bytes, goodput=True
            )
        )
    out["expected_window_segments"] = float(models.pftk_expected_window(p, b=x.b))
    out["cardwell"] = math.nan
    out["cardwell_latency_s"] = math.nan
    out["cardwell_slow_start_segments"] = math.nan
    d = x.segments
    if d is not None and d > 0 and p < 1.0:
        delack = x.delack_max_s if x.delayed_ack and x.initial_cwnd < x.b else 0.0
        lat = models.cardwell_latency(
            d,
            rtt,
            p,
            x.rto_s,
            b=x.b,
            w1=max(1, x.initial_cwnd),
            wmax=max(1.0, x.rwnd_segments),
            p_reverse=x.p_ack,
            syn_timeout=x.rto_initial_s,
            delayed_ack=delack,
        )
        out["cardwell_latency_s"] = float(lat.total)
        out["cardwell_slow_start_segments"] = float(lat.slow_start_segments)
        if math.isfinite(float(lat.total)) and float(lat.total) > 0:
            out["cardwell"] = float(x.size_bytes) / float(lat.total)
    limits = {
        "line-rate": out["line_rate"],
        "window": out["window"],
        "application": out["application"],
        "loss": out["mathis"],
    }
    binding = min(limits, key=lambda k: limits[k])
    out["binding"] = binding
    out["estimate"] = limits[binding]
    if x.size_bytes is not None and math.isfinite(out["estimate"]) and out["estimate"] > 0:
        out["estimate_seconds"] = x.size_bytes / out["estimate"]
    else:
        out["estimate_seconds"] = math.nan
    return out
