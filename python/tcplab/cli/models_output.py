"""What ``tcplab model`` prints: a model's inputs and result (as text or JSON), and the report of
``tcplab model --scenario FILE``: every model for each application of a scenario, the path it
runs over, where each input comes from, and the limit that binds."""

# No `from __future__ import annotations` in this package: see tcplab.cli.
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import typer

from tcplab.models import units

from ._common import fail, load_scenario


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float | np.floating | int | np.integer):
        value = float(value)
        if not math.isfinite(value):
            return "inf" if value > 0 else str(value)
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        if abs(value) < 1e-3 or abs(value) >= 1e9:
            return f"{value:.6g}"
        return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:,.2f}"
    return str(value)


_LABELS = {
    "mss": "MSS",
    "rtt": "RTT",
    "rto": "RTO (T0)",
    "rwnd": "receive window",
    "rate": "line rate",
    "overhead": "per-frame overhead",
    "frame": "frame length",
    "cwnd0": "initial cwnd",
    "syn_timeout": "SYN timeout",
    "w1": "initial window",
    "ber": "BER",
    "per": "PER",
    "p": "p (packet loss)",
}
_SUFFIXES = (
    ("_bytes_per_s", "bytes/s"),
    ("_bytes", "bytes"),
    ("_segments", "segments"),
    ("_s", "s"),
)


def _line(key: str, value: Any) -> str:
    base, unit = key, ""
    for suffix, suffix_unit in _SUFFIXES:
        if key.endswith(suffix):
            base, unit = key[: -len(suffix)], suffix_unit
            break
    label = _LABELS.get(base, base.replace("_", " "))
    if unit == "s" and isinstance(value, float | int) and math.isfinite(value):
        text = units.format_duration(float(value))
    elif unit == "bytes/s" and isinstance(value, float | int):
        text = units.format_rate(float(value))
    else:
        text = _fmt(value) + (f" {unit}" if unit and value is not None else "")
    return f"  {label:<22} {text}"


# ---------------------------------------------------------------------------------
# one model


def emit(
    model: str,
    title: str,
    inputs: dict[str, Any],
    outputs: dict[str, Any],
    as_json: bool,
    notes: list[str] | None = None,
    text_outputs: list[str] | None = None,
) -> None:
    """Print a model's title, inputs and result (`text_outputs`, else `outputs` line by line)
    and its notes; with `as_json`, the same as one JSON object."""
    if as_json:
        doc = {"model": model, "inputs": inputs, "outputs": outputs}
        typer.echo(json.dumps(_jsonable(doc), indent=2, allow_nan=False))
        return
    typer.echo(title)
    typer.echo("inputs:")
    for key, value in inputs.items():
        typer.echo(_line(key, value))
    typer.echo("result:")
    if text_outputs is not None:
        for line in text_outputs:
            typer.echo(f"  {line}")
    else:
        for key, value in outputs.items():
            typer.echo(_line(key, value))
    for note in notes or []:
        typer.echo(f"note: {note}")


def rate_line(label: str, rate: float) -> str:
    """A labelled rate, in the column layout of `emit`'s lines."""
    return f"{label:<22} {units.format_rate(float(rate))}"


# ---------------------------------------------------------------------------------
# every model for a scenario: tcplab model --scenario FILE (or tcplab model scenario FILE)


def scenario_report(file: Path, app_name: str | None, assignments: list[str], as_json: bool):
    """Print every model for each application of the scenario `file` (with `assignments`
    applied; only `app_name` if given), as text or JSON."""
    from tcplab import errors
    from tcplab.analytic import MODELS, evaluate_models, scenario_inputs

    try:
        sc = load_scenario(file, assignments)
        inputs = scenario_inputs(sc, app_name)
    except errors.TcplabError as e:
        raise fail(e) from None
    if not inputs:
        raise fail(f"--scenario {str(file)!r}: the scenario has no application")
    docs = []
    for x in inputs:
        m = evaluate_models(x)
        docs.append((x, m))
    if as_json:
        out = {
            "scenario": str(file),
            "apps": [_scenario_doc(x, m, MODELS) for x, m in docs],
        }
        typer.echo(json.dumps(_jsonable(out), indent=2, allow_nan=False))
        return
    for i, (x, m) in enumerate(docs):
        if i:
            typer.echo("")
        for line in _scenario_lines(file, x, m):
            typer.echo(line)


def _scenario_doc(x: Any, m: dict[str, Any], names: dict[str, tuple[str, str]]) -> dict:
    d = x.to_dict()
    notes = d.pop("notes")
    data_path, ack_path = d.pop("data_path"), d.pop("ack_path")
    models_ = {
        key: {"label": label, "formula": formula, "throughput_bytes_per_s": m[key]}
        for key, (label, formula) in names.items()
    }
    models_["application"] = {
        "label": "application",
        "formula": "CBR packet_size / interval (inf: no application limit)",
        "throughput_bytes_per_s": m["application"],
    }
    return {
        "app": x.app,
        "inputs": d,
        "data_path": data_path,
        "ack_path": ack_path,
        "models": models_,
        "window_at_propagation_rtt_bytes_per_s": m["window_propagation"],
        "pftk_expected_window_segments": m["expected_window_segments"],
        "cardwell_latency_s": m["cardwell_latency_s"],
        "binding": m["binding"],
        "estimate_bytes_per_s": m["estimate"],
        "estimate_seconds": m["estimate_seconds"],
        "notes": notes,
    }


def _bits(rate_bps: float) -> str:
    for factor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if rate_bps >= factor:
            return f"{rate_bps / factor:g} {prefix}bps"
    return f"{rate_bps:g} bps"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.6g} ms"


def _hop_text(h: Any) -> str:
    err = {"none": "no errors"}.get(h.error_model, f"{h.error_model}: PER {h.per:.4g}")
    return f"{h.name}: {_bits(h.rate_bps)}, {units.format_duration(h.delay_s)}, {h.framing}, {err}"


def _path_text(path: Any) -> str:
    if not path:
        return "-"
    parts = [path[0].src]
    for h in path:
        parts.append(f"({_hop_text(h)}) -> {h.dst}")
    return " ".join(parts)


def _scenario_lines(file: Path, x: Any, m: dict[str, Any]) -> list[str]:
    fd = units.format_duration
    fr = units.format_rate
    what = x.kind
    if x.size_bytes is not None:
        what += f", {x.size_bytes:,.0f} bytes"
    elif x.offered_Bps is not None:
        what += f", offered {fr(x.offered_Bps)}"
    else:
        what += ", unlimited"
    receiver = x.data_path[-1].dst if x.data_path else "?"
    lines = [
        f"Scenario {file}: app {x.app!r} ({what}; {x.sender} -> {receiver})",
        f"  data path  {_path_text(x.data_path)}",
        f"  ACK path   {_path_text(x.ack_path)}",
        "inputs:",
    ]
    ts = "timestamps: -12 bytes of options" if x.timestamps else "no timestamps"
    d0 = x.data_path[0] if x.data_path else None
    a0 = x.ack_path[0] if x.ack_path else None
    ser_d = " + ".join(f"{h.wire_bytes} B at {_bits(h.rate_bps)}" for h in x.data_path)
    ser_a = " + ".join(f"{h.wire_bytes} B at {_bits(h.rate_bps)}" for h in x.ack_path)
    cap = "window scaling" if x.window_scaling else "no window scaling: capped at 65,535"
    per_hops = ", ".join(
        f"{h.name} {h.error_model}" + ("" if h.error_model == "none" else f" {h.per:.4g}")
        for h in x.data_path
    )
    rows = [
        ("MSS", f"{x.eff_mss_bytes:,} bytes (tcp.mss {x.mss_bytes}; {ts})"),
        (
            "data frame",
            f"{x.data_ip_bytes:,} B IP"
            + (
                f"; {d0.wire_bytes:,} B on the wire, {d0.exposed_bytes:,} B exposed to errors "
                f"({d0.framing})"
                if d0
                else ""
            ),
        ),
        (
            "ACK frame",
            f"{x.ack_ip_bytes:,} B IP" + (f"; {a0.wire_bytes:,} B on the wire" if a0 else ""),
        ),
        (
            "RTT",
            f"{_ms(x.rtt_s)} = propagation {_ms(x.rtt_propagation_s)} + data serialisation "
            f"{_ms(x.rtt_data_serialisation_s)} ({ser_d}) + ACK serialisation "
            f"{_ms(x.rtt_ack_serialisation_s)} ({ser_a})",
        ),
        (
            "receive window",
            f"{x.rwnd_bytes:,.0f} bytes = {x.rwnd_segments:.4g} segments "
            f"(rcv_buf {x.rcv_buf_bytes:,.0f}; {cap})",
        ),
        (
            "bottleneck",
            f"{x.bottleneck} at {fr(x.bottleneck_rate_Bps)}; {x.overhead_bytes} B overhead per "
            f"full segment (headers + {x.data_path[0].framing if x.data_path else '?'} framing)",
        ),
        ("p (data)", f"{x.p:.6g} = 1 - prod(1 - PER) over {per_hops}"),
        ("p (ACK)", f"{x.p_ack:.6g} (ACK frames on the ACK path)"),
        (
            "b",
            f"{x.b:g} "
            + (
                f"(delayed ACK: every {x.b:g} segments, {fd(x.delack_max_s)} timer)"
                if x.delayed_ack
                else "(an ACK per segment)"
            ),
        ),
        (
            "T0 (RTO)",
            f"{fd(x.rto_s)} = max(rto_min {fd(x.rto_min_s)}, RTT + granularity "
            f"{fd(x.clock_granularity_s)})",
        ),
        ("initial window", f"{x.initial_cwnd} segments"),
        ("TCP", f"{x.congestion_control} + {x.loss_recovery}"),
    ]
    lines += [f"  {k:<22} {v}" for k, v in rows]
    lines.append("models (bytes/s; * = the binding limit):")
    binding_key = {
        "window": "window",
        "line-rate": "line_rate",
        "application": "application",
        "loss": "mathis_b1" if x.b == 1 else "mathis_b2",
    }[m["binding"]]
    mss = x.eff_mss_bytes
    explain = {
        "window": f"rwnd / RTT = {x.rwnd_bytes:,.0f} / {_ms(x.rtt_s)}; "
        f"{fr(m['window_propagation'])} at the propagation RTT",
        "line_rate": f"{mss} / ({mss} + {x.overhead_bytes}) x {fr(x.bottleneck_rate_Bps)}",
        "mathis_b1": f"{mss} / {_ms(x.rtt_s)} x sqrt(3 / (2 x {x.p:.4g}))",
        "mathis_b2": f"{mss} / {_ms(x.rtt_s)} x sqrt(3 / (4 x {x.p:.4g}))",
        "pftk_full": f"b {x.b:g}, T0 {fd(x.rto_s)}, Wmax {x.rwnd_segments:.4g} segments, "
        f"E[W] {m['expected_window_segments']:.4g}",
        "pftk_approx": f"b {x.b:g}, T0 {fd(x.rto_s)}, capped at rwnd / RTT",
        "cardwell": (
            f"{x.size_bytes:,.0f} B / E[latency] {fd(m['cardwell_latency_s'])} "
            f"(IW {x.initial_cwnd}, handshake with SYN timeout {fd(x.rto_initial_s)})"
            if x.size_bytes is not None
            else "not applicable: the transfer has no size"
        ),
    }
    from tcplab.analytic import MODELS

    for key, (label, _) in MODELS.items():
        value = m[key]
        mark = "*" if key == binding_key else " "
        shown = "-" if value is None or math.isnan(value) else fr(value)
        lines.append(f" {mark}{label:<22} {shown}  {explain[key]}")
    app_mark = "*" if binding_key == "application" else " "
    app_text = (
        f"{fr(x.offered_Bps)}  CBR offered rate" if x.offered_Bps is not None else "- (no limit)"
    )
    lines.append(f" {app_mark}{'application':<22} {app_text}")
    est = f"binding limit (line rate, window, application, Mathis b={x.b:g}): {m['binding']} -> "
    est += fr(m["estimate"])
    if math.isfinite(m["estimate_seconds"]):
        est += f"; {x.size_bytes:,.0f} bytes in {fd(m['estimate_seconds'])}"
    lines.append(est)
    if x.p == 0:
        lines.append("note: p = 0: the loss models are unbounded (inf)")
    for note in x.notes:
        lines.append(f"note: {note}")
    return lines
