"""``tcplab model ...``: the analytic models from the command line.

``tcplab model --scenario FILE`` (also ``tcplab model scenario FILE``) evaluates every model
that applies to a scenario file, with RTT, MSS, window, bottleneck and loss derived from the
scenario (`tcplab.analytic.scenario_inputs`), and says which limit binds (models_output.py).

Quantities are written as people write them ("100ms", "10Mbps", "10MB", "0.1%"; see
:mod:`tcplab.models.units`).  Each command prints its inputs and the figure;
``--json`` prints the same as JSON (infinite values become ``null``).  Bad input exits
with code 2 and a message naming the option, the value and what is allowed.
"""

# No `from __future__ import annotations` in this package: see tcplab.cli.
import math
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from tcplab.models import units
from tcplab.models.ber import ber_from_per, per_from_ber, per_from_ber_linear, segments_needed
from tcplab.models.cardwell import cardwell_latency
from tcplab.models.estimate import LIMIT_NAMES, download_time
from tcplab.models.limits import (
    SARKAR_OVERHEAD_BYTES,
    cwnd_growth_ca,
    line_rate_limit,
    window_limit,
)
from tcplab.models.mathis import mathis_constant, mathis_throughput
from tcplab.models.pftk import pftk_approx_throughput, pftk_throughput

from ._common import FileArg, command_group, option
from .models_output import emit, rate_line, scenario_report

app = command_group(
    "model",
    "Analytic TCP models: BER->PER, line-rate and window limits, Mathis, PFTK, "
    "Cardwell latency, download-time estimate.",
)


class PerMethod(StrEnum):
    exact = "exact"
    linear = "linear"


class LossModel(StrEnum):
    mathis = "mathis"
    pftk = "pftk"


# ---------------------------------------------------------------------------------
# option parsing


def _parse(
    option: str,
    text: str,
    parser: Callable[[str], float],
    *,
    lo: float | None = None,
    lo_open: bool = False,
    hi: float | None = None,
    finite: bool = True,
    unit: str = "",
) -> float:
    """Parse ``text`` with ``parser`` and check its range; errors name ``option``."""
    try:
        value = parser(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint=f"'{option}'") from None
    allowed = []
    if lo is not None:
        allowed.append(f"{'>' if lo_open else '>='} {lo:g}{' ' + unit if unit else ''}")
    if hi is not None:
        allowed.append(f"<= {hi:g}{' ' + unit if unit else ''}")
    bad = (
        (finite and math.isinf(value))
        or (lo is not None and (value <= lo if lo_open else value < lo))
        or (hi is not None and value > hi)
    )
    if bad:
        what = " and ".join(allowed) if allowed else "finite"
        if finite and allowed:
            what += " and finite"
        raise typer.BadParameter(
            f"{text!r} is out of range: it must be {what}", param_hint=f"'{option}'"
        )
    return value


def _number(option: str, text: str, *, lo: float) -> float:
    return _parse(option, text, units.parse_number, lo=lo)


def _count(option: str, text: str, *, lo: int) -> int:
    value = _parse(option, text, units.parse_number, lo=lo)
    if not value.is_integer():
        raise typer.BadParameter(
            f"{text!r} is not a whole number: it must be a whole number >= {lo}",
            param_hint=f"'{option}'",
        )
    return int(value)


def _needs_unit(option: str, text: str, what: str, examples: str) -> None:
    """The command line refuses a bare number where the scenario format does: `--rtt 100`
    would otherwise mean 100 s."""
    try:
        float(text.strip())
    except ValueError:
        return
    raise typer.BadParameter(
        f"{text!r} has no unit: {what} needs one, as in the scenario format ({examples})",
        param_hint=f"'{option}'",
    )


def _duration(option: str, text: str, *, allow_zero: bool = False) -> float:
    _needs_unit(option, text, "a duration", f"'{text.strip()}ms' or '{text.strip()}s'")
    return _parse(option, text, units.parse_duration, lo=0.0, lo_open=not allow_zero, unit="s")


def _size(option: str, text: str, *, allow_zero: bool = False, finite: bool = True) -> float:
    return _parse(
        option, text, units.parse_size, lo=0.0, lo_open=not allow_zero, finite=finite, unit="bytes"
    )


def _loss(
    per: str | None,
    ber: str | None,
    frame: str,
    method: PerMethod,
    *,
    required: bool,
) -> tuple[float, dict[str, Any]]:
    """Packet loss probability from ``--per`` or ``--ber`` + ``--frame``."""
    if per is not None and ber is not None:
        raise typer.BadParameter(
            f"give either --per or --ber, not both (got --per {per!r} and --ber {ber!r})",
            param_hint="'--per' / '--ber'",
        )
    if per is not None:
        p = _parse("--per", per, units.parse_probability)
        return p, {"p": p}
    if ber is None:
        if required:
            raise typer.BadParameter(
                "missing loss: give --per P (packet loss probability) or --ber BER "
                "(bit error rate, with --frame bytes)",
                param_hint="'--per' / '--ber'",
            )
        return 0.0, {"p": 0.0}
    b = _parse("--ber", ber, units.parse_probability)
    frame_bytes = _size("--frame", frame)
    if method is PerMethod.exact:
        p = float(per_from_ber(b, frame_bytes))
    else:
        p = float(per_from_ber_linear(b, frame_bytes))
        if p > 1.0:
            raise typer.BadParameter(
                f"--ber {ber!r} on {frame_bytes:g}-byte frames gives a linear PER of {p:g} > 1; "
                "use --per-method exact or a smaller BER",
                param_hint="'--ber'",
            )
    return p, {"p": p, "ber": b, "frame_bytes": frame_bytes, "per_method": method.value}


def _model_call(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a model; turn a ``ValueError`` into a usage error (exit code 2)."""
    try:
        return func(*args, **kwargs)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


# ---------------------------------------------------------------------------------
# shared option declarations

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
MssOpt = Annotated[str, typer.Option("--mss", help="Maximum segment size, e.g. 1460 or 1460B.")]
RttOpt = Annotated[str, typer.Option("--rtt", help="Round-trip time, e.g. 100ms.")]
PerOpt = Annotated[
    str | None, typer.Option("--per", help="Packet loss probability, e.g. 1.2e-3 or 0.12%.")
]
BerOpt = Annotated[
    str | None, typer.Option("--ber", help="Bit error rate, converted to PER with --frame.")
]
FrameOpt = Annotated[
    str, typer.Option("--frame", help="Frame length on the wire for --ber, e.g. 1500B.")
]
MethodOpt = Annotated[
    PerMethod,
    typer.Option("--per-method", help="BER->PER: exact 1-(1-BER)^(8L) or linear BER*8L."),
]
BOpt = Annotated[str, typer.Option("--b", help="Segments acknowledged per ACK (>= 1).")]
RtoOpt = Annotated[str, typer.Option("--rto", help="Initial retransmission timeout T0, e.g. 1s.")]


# ---------------------------------------------------------------------------------
# commands


@app.command("per")
def per_cmd(
    ber: BerOpt = None,
    per: Annotated[
        str | None, typer.Option("--per", help="Packet error rate to convert back to a BER.")
    ] = None,
    frame: FrameOpt = "1500",
    as_json: JsonOpt = False,
) -> None:
    """Packet error rate of a frame from the bit error rate (exact and linear), or back."""
    frame_bytes = _size("--frame", frame)
    if (ber is None) == (per is None):
        raise typer.BadParameter(
            "give exactly one of --ber (to get the PER) or --per (to get the BER)",
            param_hint="'--ber' / '--per'",
        )
    if ber is not None:
        b = _parse("--ber", ber, units.parse_probability)
        inputs = {"ber": b, "frame_bytes": frame_bytes}
        outputs = {
            "per_exact": float(per_from_ber(b, frame_bytes)),
            "per_linear": float(per_from_ber_linear(b, frame_bytes)),
        }
        notes = []
        if outputs["per_linear"] >= 1.0:
            notes.append("the linear PER is >= 1: not a probability, every frame is lost")
        emit("per", "BER -> PER (independent bit errors)", inputs, outputs, as_json, notes)
    else:
        p = _parse("--per", per, units.parse_probability)
        inputs = {"per": p, "frame_bytes": frame_bytes}
        outputs = {"ber": float(ber_from_per(p, frame_bytes))}
        emit("per", "PER -> BER (independent bit errors)", inputs, outputs, as_json)


@app.command("window")
def window_cmd(
    rwnd: Annotated[str, typer.Option("--rwnd", help="Receive window, e.g. 65535 or 64KiB.")],
    rtt: RttOpt,
    as_json: JsonOpt = False,
) -> None:
    """Window limit rwnd / RTT."""
    w = _size("--rwnd", rwnd)
    r = _duration("--rtt", rtt)
    value = float(window_limit(w, r))
    outputs = {"throughput_bytes_per_s": value, "throughput_mbps": value * 8 / 1e6}
    emit(
        "window",
        "Window limit: rwnd / RTT",
        {"rwnd_bytes": w, "rtt_s": r},
        outputs,
        as_json,
        text_outputs=[rate_line("throughput", value)],
    )


@app.command("line-rate")
def line_rate_cmd(
    rate: Annotated[str, typer.Option("--rate", help="Link rate, e.g. 10Mbps.")],
    mss: MssOpt = "1460",
    overhead: Annotated[
        str, typer.Option("--overhead", help="Header and framing bytes per segment.")
    ] = str(SARKAR_OVERHEAD_BYTES),
    as_json: JsonOpt = False,
) -> None:
    """Line-rate limit MSS / (MSS + overhead) x rate."""
    _needs_unit("--rate", rate, "a rate", f"'{rate.strip()}Mbps'")
    rt = _parse("--rate", rate, units.parse_rate, lo=0.0, lo_open=True, unit="bytes/s")
    m = _size("--mss", mss)
    o = _size("--overhead", overhead, allow_zero=True)
    value = float(line_rate_limit(rt, m, o))
    outputs = {"throughput_bytes_per_s": value, "throughput_mbps": value * 8 / 1e6}
    emit(
        "line-rate",
        "Line-rate limit: MSS / (MSS + overhead) x rate",
        {"rate_bytes_per_s": rt, "mss_bytes": m, "overhead_bytes": o},
        outputs,
        as_json,
        text_outputs=[rate_line("throughput", value)],
    )


@app.command("mathis")
def mathis_cmd(
    rtt: RttOpt,
    mss: MssOpt = "1460",
    per: PerOpt = None,
    ber: BerOpt = None,
    frame: FrameOpt = "1500",
    per_method: MethodOpt = PerMethod.exact,
    b: BOpt = "1",
    as_json: JsonOpt = False,
) -> None:
    """Mathis et al. 1997: (MSS / RTT) x sqrt(3 / (2 b p))."""
    m = _size("--mss", mss)
    r = _duration("--rtt", rtt)
    b = _number("--b", b, lo=1.0)
    p, loss = _loss(per, ber, frame, per_method, required=True)
    value = float(_model_call(mathis_throughput, m, r, p, b=b))
    c = float(mathis_constant(b))
    inputs = {"mss_bytes": m, "rtt_s": r, **loss, "b": b, "C": c}
    outputs = {"throughput_bytes_per_s": value, "throughput_mbps": value * 8 / 1e6}
    notes = ["p = 0: no loss, the formula is unbounded"] if p == 0 else []
    emit(
        "mathis",
        "Mathis et al. 1997 steady-state throughput",
        inputs,
        outputs,
        as_json,
        notes,
        text_outputs=[rate_line("throughput", value)],
    )


@app.command("pftk")
def pftk_cmd(
    rtt: RttOpt,
    mss: MssOpt = "1460",
    per: PerOpt = None,
    ber: BerOpt = None,
    frame: FrameOpt = "1500",
    per_method: MethodOpt = PerMethod.exact,
    rto: RtoOpt = "1s",
    b: BOpt = "1",
    rwnd: Annotated[
        str | None, typer.Option("--rwnd", help="Receive window cap Wmax, e.g. 64KiB.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Padhye-Firoiu-Towsley-Kurose 1998: full model and closed form, with timeouts."""
    m = _size("--mss", mss)
    r = _duration("--rtt", rtt)
    t0 = _duration("--rto", rto)
    b = _number("--b", b, lo=1.0)
    w = np.inf if rwnd is None else _size("--rwnd", rwnd, finite=False)
    p, loss = _loss(per, ber, frame, per_method, required=True)
    kw = {"b": b, "rwnd": w}
    full = float(_model_call(pftk_throughput, m, r, p, t0, **kw))
    approx = float(_model_call(pftk_approx_throughput, m, r, p, t0, **kw))
    good = float(_model_call(pftk_throughput, m, r, p, t0, goodput=True, **kw))
    inputs = {"mss_bytes": m, "rtt_s": r, **loss, "rto_s": t0, "b": b, "rwnd_bytes": w}
    outputs = {
        "send_rate_bytes_per_s": full,
        "goodput_bytes_per_s": good,
        "approx_send_rate_bytes_per_s": approx,
        "send_rate_mbps": full * 8 / 1e6,
        "goodput_mbps": good * 8 / 1e6,
        "approx_send_rate_mbps": approx * 8 / 1e6,
    }
    emit(
        "pftk",
        "PFTK 1998 TCP Reno throughput (send rate counts retransmissions)",
        inputs,
        outputs,
        as_json,
        text_outputs=[
            rate_line("send rate (full)", full),
            rate_line("goodput (full)", good),
            rate_line("send rate (approx)", approx),
        ],
    )


@app.command("cardwell")
def cardwell_cmd(
    rtt: RttOpt,
    size: Annotated[
        str | None, typer.Option("--size", help="Transfer size, e.g. 100KB (or use --segments).")
    ] = None,
    segments: Annotated[
        str | None, typer.Option("--segments", help="Transfer size in segments (d).")
    ] = None,
    mss: MssOpt = "1460",
    per: PerOpt = None,
    ber: BerOpt = None,
    frame: FrameOpt = "1500",
    per_method: MethodOpt = PerMethod.exact,
    rto: RtoOpt = "1s",
    b: BOpt = "1",
    w1: Annotated[str, typer.Option("--w1", help="Initial window in segments (>= 1).")] = "1",
    rwnd: Annotated[
        str | None, typer.Option("--rwnd", help="Receive window cap, e.g. 64KiB.")
    ] = None,
    syn_timeout: Annotated[
        str, typer.Option("--syn-timeout", help="Initial SYN timeout Ts.")
    ] = "3s",
    delayed_ack: Annotated[
        str | None,
        typer.Option("--delayed-ack", help="Delayed-ACK cost; default 100ms if --b >= 2, else 0."),
    ] = None,
    handshake: Annotated[
        bool, typer.Option("--handshake/--no-handshake", help="Include connection setup.")
    ] = True,
    as_json: JsonOpt = False,
) -> None:
    """Cardwell-Savage-Anderson 2000: expected latency of a finite transfer."""
    if (size is None) == (segments is None):
        raise typer.BadParameter(
            "give exactly one of --size (bytes) or --segments", param_hint="'--size' / '--segments'"
        )
    m = _size("--mss", mss)
    r = _duration("--rtt", rtt)
    t0 = _duration("--rto", rto)
    ts = _duration("--syn-timeout", syn_timeout, allow_zero=True)
    b = _number("--b", b, lo=1.0)
    w1 = _number("--w1", w1, lo=1.0)
    dack = None if delayed_ack is None else _duration("--delayed-ack", delayed_ack, allow_zero=True)
    w = np.inf if rwnd is None else _size("--rwnd", rwnd, finite=False)
    p, loss = _loss(per, ber, frame, per_method, required=False)
    if size is not None:
        s = _size("--size", size, allow_zero=True)
        d = float(segments_needed(s, m))
    else:
        s = None
        d = float(_count("--segments", segments, lo=0))
    wmax = w / m
    if wmax < 1.0:
        raise typer.BadParameter(
            f"{rwnd!r} is smaller than one MSS ({m:g} bytes): it must be >= the MSS",
            param_hint="'--rwnd'",
        )
    res = _model_call(
        cardwell_latency,
        d,
        r,
        p,
        t0,
        b=b,
        w1=w1,
        wmax=wmax,
        syn_timeout=ts,
        delayed_ack=dack,
        handshake=handshake,
    )
    inputs = {
        "size_bytes": s,
        "segments": d,
        "mss_bytes": m,
        "rtt_s": r,
        **loss,
        "rto_s": t0,
        "b": b,
        "w1_segments": w1,
        "rwnd_bytes": w,
        "syn_timeout_s": ts,
        "handshake": handshake,
    }
    if s is None:
        del inputs["size_bytes"]
    outputs = {
        f"{k}_s" if k not in ("slow_start_segments", "slow_start_window") else k: float(v)
        for k, v in res._asdict().items()
    }
    lines = [
        f"{'total':<22} {units.format_duration(float(res.total))}",
        f"{'  handshake':<22} {units.format_duration(float(res.handshake))}",
        f"{'  slow start':<22} {units.format_duration(float(res.slow_start))}"
        f"  (E[d_ss] = {float(res.slow_start_segments):.4g} segments)",
        f"{'  first loss':<22} {units.format_duration(float(res.first_loss))}",
        f"{'  cong. avoidance':<22} {units.format_duration(float(res.congestion_avoidance))}",
        f"{'  delayed ACK':<22} {units.format_duration(float(res.delayed_ack))}",
    ]
    emit(
        "cardwell",
        "Cardwell-Savage-Anderson 2000 expected transfer latency",
        inputs,
        outputs,
        as_json,
        text_outputs=lines,
    )


@app.command("download")
def download_cmd(
    size: Annotated[str, typer.Option("--size", help="File size, e.g. 10MB.")],
    rtt: RttOpt,
    mss: MssOpt = "1460",
    rate: Annotated[str | None, typer.Option("--rate", help="Link rate, e.g. 10Mbps.")] = None,
    overhead: Annotated[
        str, typer.Option("--overhead", help="Header and framing bytes per segment.")
    ] = str(SARKAR_OVERHEAD_BYTES),
    rwnd: Annotated[str | None, typer.Option("--rwnd", help="Receive window, e.g. 8760.")] = None,
    per: PerOpt = None,
    ber: BerOpt = None,
    frame: FrameOpt = "1500",
    per_method: MethodOpt = PerMethod.exact,
    loss_model: Annotated[
        LossModel, typer.Option("--loss-model", help="Loss-based throughput model.")
    ] = LossModel.mathis,
    rto: RtoOpt = "1s",
    b: BOpt = "1",
    as_json: JsonOpt = False,
) -> None:
    """Download time = size / min(line rate, window/RTT, loss-based rate), and which binds."""
    s = _size("--size", size, allow_zero=True)
    r = _duration("--rtt", rtt)
    m = _size("--mss", mss)
    o = _size("--overhead", overhead, allow_zero=True)
    t0 = _duration("--rto", rto)
    b = _number("--b", b, lo=1.0)
    rt = (
        np.inf
        if rate is None
        else (
            _needs_unit("--rate", rate, "a rate", f"'{rate.strip()}Mbps'")
            or _parse("--rate", rate, units.parse_rate, lo=0.0, lo_open=True, finite=False)
        )
    )
    w = np.inf if rwnd is None else _size("--rwnd", rwnd, finite=False)
    p, loss = _loss(per, ber, frame, per_method, required=False)
    if math.isinf(rt) and math.isinf(w) and p == 0.0:
        raise typer.BadParameter(
            "nothing limits the transfer: give --rate, --rwnd, or a loss (--per/--ber)",
            param_hint="'--rate' / '--rwnd' / '--per'",
        )
    est = _model_call(
        download_time,
        s,
        r,
        mss=m,
        rate=rt,
        overhead=o,
        rwnd=w,
        p=p,
        loss_model=loss_model.value,
        rto=t0,
        b=b,
    )
    inputs = {
        "size_bytes": s,
        "rtt_s": r,
        "mss_bytes": m,
        "rate_bytes_per_s": rt,
        "overhead_bytes": o,
        "rwnd_bytes": w,
        **loss,
        "loss_model": loss_model.value,
        "rto_s": t0,
        "b": b,
    }
    outputs = {
        "seconds": float(est.seconds),
        "binding": est.binding,
        "throughput_bytes_per_s": float(est.throughput),
        "line_rate_bytes_per_s": float(est.line_rate),
        "window_bytes_per_s": float(est.window),
        "loss_bytes_per_s": float(est.loss),
    }
    mark = {name: " <- binding" if name == est.binding else "" for name in LIMIT_NAMES}
    lines = [
        f"{'download time':<22} {units.format_duration(float(est.seconds))}",
        f"{'binding limit':<22} {est.binding}",
        rate_line("line rate", float(est.line_rate)) + mark["line-rate"],
        rate_line("window / RTT", float(est.window)) + mark["window"],
        rate_line(f"loss ({loss_model.value})", float(est.loss)) + mark["loss"],
    ]
    emit("download", "Download-time estimate", inputs, outputs, as_json, text_outputs=lines)


@app.command("cwnd-growth")
def cwnd_growth_cmd(
    cwnd: Annotated[str, typer.Option("--cwnd", help="Initial cwnd, e.g. 4380 (3 x 1460).")],
    mss: MssOpt = "1460",
    rtts: Annotated[str, typer.Option("--rtts", help="Number of RTTs to show.")] = "14",
    acks_per_rtt: Annotated[
        str,
        typer.Option(
            "--acks-per-rtt",
            help="cwnd += MSS*MSS/cwnd per ACK; ACKs per RTT: a whole number or 'window'.",
        ),
    ] = "1",
    rwnd: Annotated[str | None, typer.Option("--rwnd", help="Cap, e.g. 8760.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Congestion-avoidance window growth per RTT (Sarkar 2022 Table 9 with the defaults)."""
    c0 = _size("--cwnd", cwnd)
    rtts = _count("--rtts", rtts, lo=0)
    m = _size("--mss", mss)
    w = np.inf if rwnd is None else _size("--rwnd", rwnd, finite=False)
    if acks_per_rtt == "window":
        acks: int | str = "window"
    else:
        try:
            acks = int(acks_per_rtt)
        except ValueError:
            acks = 0
        if acks < 1:
            raise typer.BadParameter(
                f"{acks_per_rtt!r} is not allowed: give a whole number >= 1 or 'window'",
                param_hint="'--acks-per-rtt'",
            )
    series = np.asarray(_model_call(cwnd_growth_ca, c0, m, rtts, acks_per_rtt=acks, rwnd=w))
    inputs = {
        "cwnd0_bytes": c0,
        "mss_bytes": m,
        "rtts": rtts,
        "acks_per_rtt": acks,
        "rwnd_bytes": w,
    }
    outputs = {
        "cwnd_bytes": series.tolist(),
        "cwnd_segments": np.floor(series / m).astype(int).tolist(),
    }
    lines = [f"{'RTT':>4} {'cwnd (bytes)':>14} {'cwnd (MSS)':>11}"]
    for k, value in enumerate(series):
        lines.append(f"{k:>4} {value:>14.0f} {int(value // m):>11}")
    emit(
        "cwnd-growth",
        "Congestion avoidance: cwnd += MSS*MSS/cwnd per ACK",
        inputs,
        outputs,
        as_json,
        text_outputs=lines,
    )


# ---------------------------------------------------------------------------------
# every model for a scenario: tcplab model --scenario FILE (or tcplab model scenario FILE)

ScenarioAppOpt = Annotated[
    str | None,
    typer.Option("--app", help="Only this application (by name); default: every one."),
]
ScenarioSetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="Override a scenario field by dotted path, as in `tcplab run`. Repeatable.",
        show_default=False,
    ),
]


@app.callback(invoke_without_command=True)
def model_main(
    ctx: typer.Context,
    scenario: option(
        Path,
        "--scenario",
        exists=True,
        dir_okay=False,
        readable=True,
        help="Evaluate every applicable model for this scenario file (TOML), deriving RTT, "
        "MSS, window and loss from it.",
    ) = None,
    app_name: ScenarioAppOpt = None,
    assignments: ScenarioSetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Analytic TCP models. With --scenario FILE: every model, its inputs taken from the
    scenario."""
    if ctx.invoked_subcommand is not None:
        given = [
            name
            for name, value in (
                ("--scenario", scenario),
                ("--app", app_name),
                ("--set", assignments),
                ("--json", as_json or None),
            )
            if value
        ]
        if given:
            raise typer.BadParameter(
                f"{', '.join(given)} before the command {ctx.invoked_subcommand!r}: "
                f"--scenario takes no model command (tcplab model --scenario FILE); put a "
                f"command's own options after it (tcplab model {ctx.invoked_subcommand} ...)",
                param_hint=f"'{given[0]}'",
            )
        return
    if scenario is None:
        if app_name is not None or assignments:
            raise typer.BadParameter(
                "--app and --set need --scenario FILE", param_hint="'--scenario'"
            )
        typer.echo(ctx.get_help())
        raise typer.Exit(0)
    scenario_report(scenario, app_name, assignments or [], as_json)


@app.command("scenario")
def scenario_cmd(
    file: FileArg,
    app_name: ScenarioAppOpt = None,
    assignments: ScenarioSetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every applicable model for a scenario file (same as tcplab model --scenario FILE)."""
    scenario_report(file, app_name, assignments or [], as_json)
