"""Simulation next to the analytic models, for one scenario or a sweep over one of its fields.

`parse_sweep`, `plan_comparison`, `compare`, `plot_comparison` and `write_comparison`: run the
simulator over a sweep (every point x seeds, in parallel through `tcplab.run_many`), evaluate
every model at every point from the swept scenario itself (`tcplab.analytic`: the models'
inputs and the models), and tabulate the simulated throughput, each model, its relative error
and the points where a model's assumptions break (`CRITERIA`).

Results come from a *source*: ``"sim"`` (the simulator) is built in; `SOURCES` maps a name
to a function ``(scenarios, jobs) -> list of per-run metric dicts`` (see `simulate`), so the
testbed can be added as a second source with the same metrics.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from tcplab import errors as _errors
from tcplab.analytic import MODELS, ModelInputs, evaluate_models, scenario_inputs
from tcplab.path import app_paths

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tcplab.api import Scenario

__all__ = [
    "CRITERIA",
    "ComparisonPlan",
    "FLAG_LETTERS",
    "FieldSweep",
    "SOURCES",
    "TIMEOUT_SHARE",
    "SLOW_START_SHARE",
    "SweepError",
    "compare",
    "parse_sweep",
    "plan_comparison",
    "plot_comparison",
    "simulate",
    "sweep_targets",
    "write_comparison",
]

# ----------------------------------------------------------------------------------------------
# Sweeps

_SHORTHANDS = ("ber", "per")


class SweepError(_errors.TcplabError, ValueError):
    """A sweep that cannot be run; the message names the option and the value."""

    kind = "sweep"

    def __init__(self, message: str, option: str = "--sweep") -> None:
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class FieldSweep:
    """A sweep over one field: `name` is ``ber``, ``per`` or a dotted scenario path (the grids
    of `tcplab.Sweep` sweep many fields, with a store; this one feeds `compare`)."""

    name: str
    values: tuple[float, ...]
    text: str = ""

    @property
    def shorthand(self) -> bool:
        return self.name in _SHORTHANDS

    @property
    def loss_kind(self) -> str | None:
        """'ber' or 'per' when the sweep sets an error model, else None."""
        if self.name == "ber" or self.name.endswith(".error.ber"):
            return "ber"
        if self.name in ("per",) or self.name.endswith(".error.p"):
            return "per"
        return None


def _number(text: str, spec: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise SweepError(
            f"--sweep {spec!r}: {text.strip()!r} is not a number (write e.g. ber=1e-8..1e-4, "
            "per=0.001..0.1 or a list per=0,0.01,0.02)"
        ) from None
    if not math.isfinite(value):
        raise SweepError(f"--sweep {spec!r}: {text.strip()!r} must be finite")
    return value


def parse_sweep(text: str, points: int = 7) -> FieldSweep:
    """Parse ``NAME=LO..HI`` (`points` log-spaced values from LO to HI, both included; rounded
    to whole numbers when both ends are, for a field such as tcp.rcv_buf) or
    ``NAME=V1,V2,...`` (those values). NAME is ``ber`` or ``per`` (the data direction of the
    links that carry an error model) or a dotted scenario path such as
    ``links.wan.ab.error.ber``. Raises `SweepError` naming the option and the value."""
    if isinstance(points, bool) or not isinstance(points, int) or points < 1:
        raise SweepError(f"--points {points!r}: must be a whole number >= 1", "--points")
    name, sep, rhs = text.partition("=")
    name, rhs = name.strip(), rhs.strip()
    if not sep or not name or not rhs:
        raise SweepError(
            f"--sweep {text!r}: expected NAME=LO..HI or NAME=V1,V2,... "
            "(e.g. ber=1e-8..1e-4, per=0.001..0.1, links.wan.ab.error.ber=1e-7..1e-5)"
        )
    if name not in _SHORTHANDS and ("." not in name or any(not p for p in name.split("."))):
        raise SweepError(
            f"--sweep {text!r}: {name!r} is neither 'ber', 'per' nor a dotted scenario path "
            "such as links.wan.ab.error.ber"
        )
    if ".." in rhs:
        lo_text, _, hi_text = rhs.partition("..")
        lo, hi = _number(lo_text, text), _number(hi_text, text)
        if lo <= 0 or hi <= 0:
            raise SweepError(
                f"--sweep {text!r}: a range is log-spaced, so both ends must be > 0 "
                f"(got {lo:g}..{hi:g}); list values to include 0, e.g. {name}=0,1e-6,1e-5"
            )
        if hi < lo:
            raise SweepError(f"--sweep {text!r}: the range must go up (got {lo:g} > {hi:g})")
        if points == 1 or lo == hi:
            if lo != hi:
                raise SweepError(
                    f"--points 1: a range {lo:g}..{hi:g} needs at least 2 points", "--points"
                )
            values = (lo,)
        else:
            values = tuple(float(v) for v in np.geomspace(lo, hi, points))
            if (
                lo.is_integer()
                and hi.is_integer()
                and not name.endswith((".ber", ".p", "ber", "per"))
            ):
                # whole-number ends (a window, an MSS): whole-number points
                values = tuple(dict.fromkeys(float(round(v)) for v in values))
    else:
        values = tuple(_number(v, text) for v in rhs.split(","))
        if len(set(values)) != len(values):
            raise SweepError(f"--sweep {text!r}: values repeat")
    sweep = FieldSweep(name=name, values=values, text=text)
    if sweep.loss_kind is not None:
        ends = (lo, hi) if ".." in rhs else values
        bad = [v for v in ends if not 0.0 <= v <= 1.0]
        if bad:
            raise SweepError(
                f"--sweep {text!r}: {bad[0]:g} is not a probability; a "
                f"{'bit' if sweep.loss_kind == 'ber' else 'packet'} error rate lies in [0, 1]"
            )
    return sweep


def sweep_targets(scenario: Scenario, sweep: FieldSweep, app: str | None = None) -> list[str]:
    """The dotted paths a sweep sets. For ``ber``/``per``: the data direction of every link on
    the data path of `app` (default: the first application) that carries an error model in
    either direction. A dotted path is its own target."""
    if not sweep.shorthand:
        return [sweep.name]
    paths = app_paths(scenario)
    if not paths:
        raise SweepError(f"--sweep {sweep.text!r}: the scenario has no application")
    chosen = paths[0] if app is None else next((a for a in paths if a.app == app), None)
    if chosen is None:
        known = ", ".join(repr(a.app) for a in paths)
        raise SweepError(f"--app {app!r}: no such application (apps: {known})", "--app")
    noisy = {h.link for h in [*chosen.data, *chosen.ack] if h.error_model != "none"}
    targets = [f"{h.field}.error" for h in chosen.data if h.link in noisy]
    if not targets:
        path = ", ".join(h.name for h in chosen.data)
        example = chosen.data[0].field
        raise SweepError(
            f"--sweep {sweep.text!r}: no link on the data path of app {chosen.app!r} "
            f"({path}) carries an error model, so '{sweep.name}' has nothing to apply to; give "
            f"a dotted path instead, e.g. {example}.error.{'ber' if sweep.name == 'ber' else 'p'}"
            f"=..."
        )
    return targets


def _error_value(kind: str, value: float) -> dict[str, Any]:
    return {"model": "ber", "ber": value} if kind == "ber" else {"model": "per", "p": value}


def sweep_overrides(sweep: FieldSweep, targets: Sequence[str], value: float) -> dict[str, Any]:
    """The `Scenario.with_overrides` mapping for one value of the sweep."""
    kind = sweep.loss_kind
    if sweep.shorthand:
        return {t: _error_value(sweep.name, value) for t in targets}
    if kind is not None:  # links.X.ab.error.ber / .p: replace the whole error model
        prefix = sweep.name.rsplit(".", 1)[0]
        return {prefix: _error_value(kind, value)}
    return {sweep.name: int(value) if float(value).is_integer() and abs(value) < 2**53 else value}


# ----------------------------------------------------------------------------------------------
# Sources of measured results


def _sender_metrics(summary: Mapping[str, Any], app: str, end: str) -> dict[str, Any]:
    a = next((x for x in summary.get("apps", []) if x.get("name") == app), None)
    c = next((x for x in summary.get("connections", []) if x.get("name") == app), None)
    if a is None or c is None:
        raise _errors._make(
            _errors.InternalError, f"the run's summary has no application/connection {app!r}"
        )
    s = c.get(end) or {}
    thr = a.get("throughput_Bps")
    return {
        "throughput_Bps": math.nan if thr is None else float(thr),
        "completed": a.get("completed"),
        "response_time_s": a.get("response_time_s"),
        "bytes_received": a.get("bytes_received"),
        "rto_expirations": int(s.get("rto_expirations", 0)),
        "fast_retransmits": int(s.get("fast_retransmits", 0)),
        "retransmissions": int(s.get("retransmissions", 0)),
        "data_segments_sent": int(s.get("data_segments_sent", 0)),
        "srtt_s": s.get("srtt_s"),
    }


def simulate(
    scenarios: Sequence[Scenario], jobs: int | None, app: str, end: str
) -> list[dict[str, Any]]:
    """The ``sim`` source: run every scenario (in parallel, in Rust) and return the sending
    end's metrics per run: throughput_Bps (delivered payload / elapsed time, the app's figure),
    completed, rto_expirations, fast_retransmits, retransmissions, data_segments_sent, srtt_s."""
    import tcplab

    results = tcplab.run_many(list(scenarios), jobs=jobs)
    return [_sender_metrics(r.summary, app, end) for r in results]


#: Sources of measured results: name -> function(scenarios, jobs, app, sending end).
SOURCES: dict[str, Callable[..., list[dict[str, Any]]]] = {"sim": simulate}


# ----------------------------------------------------------------------------------------------
# The comparison

#: A point is timeout-dominated when at least this share of the sender's loss recoveries were
#: retransmission timeouts (RTOs / (RTOs + fast retransmits), summed over seeds). Mathis
#: assumes none; at 10 % each timeout (>= 1 s against an RTT of tens of ms) already costs
#: more than all the fast recoveries together at the loss rates of interest.
TIMEOUT_SHARE = 0.10
#: A point is slow-start-dominated when Cardwell's expected number of segments sent in the
#: initial slow start, E[d_ss] = (1 - (1-p)^d)(1-p)/p + 1, is at least this share of the
#: transfer's d segments (d: the transfer size, or the segments the run actually sent for an
#: unlimited transfer): the steady state of Mathis/PFTK is then never reached for most of it.
SLOW_START_SHARE = 0.5

#: The criteria, as printed with every comparison.
CRITERIA: dict[str, str] = {
    "window_limited": "model inputs: PFTK's expected loss window E[W](p, b) x MSS >= rwnd, "
    "so the sawtooth is clipped by the receive window (always true at p = 0); Mathis "
    "over-estimates, the window limit and PFTK's window branch apply",
    "line_rate_limited": "model inputs: the line rate is below both the window limit and "
    "Mathis (b of the scenario): the link, not TCP, sets the rate; a queue forms and RTT grows",
    "timeout_dominated": f"simulation: RTOs / (RTOs + fast retransmits) >= {TIMEOUT_SHARE:g} "
    "at the sender (summed over seeds); Mathis ignores timeouts, PFTK models them",
    "slow_start_dominated": "model inputs + simulation: Cardwell's E[d_ss] >= "
    f"{SLOW_START_SHARE:g} x d segments: most of the transfer is sent before the first loss, "
    "so steady-state models do not describe it (Cardwell does)",
}


def _e_dss(p: float, d: float) -> float:
    if d <= 0:
        return 0.0
    if p <= 0:
        return d
    if p >= 1:
        return 1.0
    return min(d, -math.expm1(d * math.log1p(-p)) * (1 - p) / p + 1)


@dataclass(frozen=True)
class ComparisonPlan:
    """What `compare` will run: the points of the sweep (value, scenario, model inputs) and
    every (point, seed) scenario, all validated. Make one with `plan_comparison`."""

    scenario: Scenario
    sweep: FieldSweep | None
    targets: tuple[str, ...]
    app: str
    seeds: tuple[int, ...]
    points: tuple[tuple[float, Scenario, ModelInputs], ...]
    runs: tuple[Scenario, ...]

    @property
    def sender_end(self) -> str:
        return self.points[0][2].sender_end


#: Application kinds whose throughput the analytic models describe: one TCP transfer, sized
#: (ftp, bulk) or offered at a constant rate (cbr).
COMPARABLE_KINDS = ("ftp", "bulk", "cbr")


def plan_comparison(
    scenario: Scenario,
    sweep: FieldSweep | None = None,
    *,
    seeds: int | Sequence[int] = 3,
    app: str | None = None,
) -> ComparisonPlan:
    """Validate a comparison and build its scenarios without running anything: raises
    `SweepError` or `tcplab.errors.ScenarioError` with a message naming the option/field."""
    from tcplab.sweep.grid import seed_list

    try:
        seeds_ = seed_list(seeds)
    except (TypeError, ValueError) as e:
        raise SweepError(f"--seeds {seeds!r}: {e}", "--seeds") from None
    base_inputs = scenario_inputs(scenario, app)
    if not base_inputs:
        raise SweepError("the scenario has no application to compare", "--app")
    comparable = [i for i in base_inputs if i.kind in COMPARABLE_KINDS]
    if not comparable:
        found = ", ".join(f"{i.app!r} ({i.kind})" for i in base_inputs)
        what = f"--app {app!r}" if app is not None else "the scenario"
        raise SweepError(
            f"{what}: the models describe one TCP transfer, an application of kind "
            f"{', '.join(COMPARABLE_KINDS)}; found {found}. Transactions (http, database) "
            "open many short exchanges or a connection per page, and udp has no TCP: compare "
            "their response times with `tcplab sweep` instead",
            "--app",
        )
    app = comparable[0].app
    if sweep is None:
        targets: list[str] = []
        scenarios = [(math.nan, scenario)]
    else:
        targets = sweep_targets(scenario, sweep, app)
        scenarios = []
        for v in sweep.values:
            ov = sweep_overrides(sweep, targets, v)
            try:
                scenarios.append((v, scenario.with_overrides(ov)))
            except _errors.ScenarioError as e:
                raise SweepError(f"--sweep {sweep.text!r}: at {v:g}: {e}") from None
    points = tuple((v, sc, scenario_inputs(sc, app)[0]) for v, sc in scenarios)
    runs = tuple(
        sc.with_overrides(
            {"seed": s, "output.trace": False, "output.events": False, "output.packets": False}
        )
        for _, sc, _ in points
        for s in seeds_
    )
    return ComparisonPlan(
        scenario=scenario,
        sweep=sweep,
        targets=tuple(targets),
        app=app,
        seeds=tuple(seeds_),
        points=points,
        runs=runs,
    )


def compare(
    scenario: Scenario | ComparisonPlan,
    sweep: FieldSweep | None = None,
    *,
    seeds: int | Sequence[int] = 3,
    app: str | None = None,
    jobs: int | None = None,
    source: str = "sim",
) -> pd.DataFrame:
    """Measured throughput (from `source`, default the simulator) against every model, one row
    per sweep point (one row for the scenario as it is when `sweep` is None). `scenario` may
    also be a `ComparisonPlan` (then `sweep`, `seeds` and `app` come from it).

    Columns: ``value`` (the swept value), ``p``, ``p_ack``, ``rtt_s``, ``rwnd_bytes``,
    ``sim_mean_Bps``, ``sim_ci_Bps`` (Student-t 95 % half-width), ``sim_min_Bps``,
    ``sim_max_Bps``, ``runs``, ``completed``, ``rto_per_run``, ``fast_retx_per_run``,
    ``rto_share``, one column per model of `MODELS` (bytes/s), ``err_<model>`` ((model - sim) /
    sim), ``estimate`` and ``binding``, and one boolean column per criterion of `CRITERIA`.
    ``DataFrame.attrs`` holds the sweep, its targets, the app, the seeds and the criteria."""
    from tcplab.report.stats import mean_ci

    if source not in SOURCES:
        raise SweepError(
            f"--source {source!r}: unknown source (known: {', '.join(SOURCES)})", "--source"
        )
    plan_ = (
        scenario
        if isinstance(scenario, ComparisonPlan)
        else plan_comparison(scenario, sweep, seeds=seeds, app=app)
    )
    scenario, sweep, app = plan_.scenario, plan_.sweep, plan_.app
    targets = list(plan_.targets)
    seeds_ = list(plan_.seeds)
    points = [(v, sc) for v, sc, _ in plan_.points]
    inputs = [x for _, _, x in plan_.points]
    end = plan_.sender_end
    plan = list(plan_.runs)
    measured = SOURCES[source](plan, jobs, app, end)
    n = len(seeds_)
    rows = []
    for i, ((v, _), x) in enumerate(zip(points, inputs, strict=True)):
        runs = measured[i * n : (i + 1) * n]
        m = evaluate_models(x)
        thr = mean_ci(r["throughput_Bps"] for r in runs)
        rto = sum(r["rto_expirations"] for r in runs)
        fr = sum(r["fast_retransmits"] for r in runs)
        segs = float(np.mean([r["data_segments_sent"] for r in runs]))
        row: dict[str, Any] = {
            "value": v,
            "p": x.p,
            "p_ack": x.p_ack,
            "rtt_s": x.rtt_s,
            "rwnd_bytes": x.rwnd_bytes,
            "rto_s": x.rto_s,
            "b": x.b,
            "sim_mean_Bps": thr.mean,
            "sim_ci_Bps": thr.half_width,
            "sim_min_Bps": thr.min,
            "sim_max_Bps": thr.max,
            "runs": len(runs),
            "completed": sum(1 for r in runs if r.get("completed")),
            "rto_per_run": rto / n,
            "fast_retx_per_run": fr / n,
            "retx_per_run": sum(r["retransmissions"] for r in runs) / n,
            "data_segments_per_run": segs,
            "rto_share": rto / (rto + fr) if rto + fr else 0.0,
        }
        for key in MODELS:
            row[key] = m[key]
            with np.errstate(divide="ignore", invalid="ignore"):
                row[f"err_{key}"] = (m[key] - thr.mean) / thr.mean if thr.mean else math.nan
        row["application"] = m["application"]
        row["estimate"] = m["estimate"]
        row["binding"] = m["binding"]
        row["expected_window_segments"] = m["expected_window_segments"]
        d = x.segments if x.segments is not None else segs
        row["window_limited"] = bool(m["expected_window_segments"] >= x.rwnd_segments)
        row["line_rate_limited"] = bool(m["line_rate"] < min(m["window"], m["mathis"]))
        row["timeout_dominated"] = bool(row["rto_share"] >= TIMEOUT_SHARE)
        row["slow_start_dominated"] = bool(_e_dss(x.p, d) >= SLOW_START_SHARE * d)
        rows.append(row)
    df = pd.DataFrame(rows)
    df.attrs.update(
        {
            "sweep": None if sweep is None else sweep.name,
            "sweep_text": None if sweep is None else sweep.text,
            "targets": targets,
            "app": app,
            "kind": inputs[0].kind,
            "sender_end": end,
            "seeds": seeds_,
            "source": source,
            "criteria": dict(CRITERIA),
            "scenario": scenario.source,
        }
    )
    return df


def describe_targets(df: pd.DataFrame) -> str:
    """One sentence: what the sweep of a comparison set."""
    name, targets = df.attrs.get("sweep"), df.attrs.get("targets") or []
    if name is None:
        return "no sweep: the scenario as given"
    if name in _SHORTHANDS:
        where = ", ".join(t.removeprefix("links.").removesuffix(".error") for t in targets)
        return (
            f"'{name}' sets the error model of {where} (the data direction of the link(s) that "
            "carry an error model); the ACK direction keeps its own"
        )
    return f"sets {name}"


# ----------------------------------------------------------------------------------------------
# Figures and files

_STYLE = {
    "window": ("#555555", "--"),
    "line_rate": ("#000000", ":"),
    "mathis_b1": ("#0072B2", "-"),
    "mathis_b2": ("#56B4E9", "-"),
    "pftk_full": ("#D55E00", "-"),
    "pftk_approx": ("#E69F00", "--"),
    "cardwell": ("#009E73", "-."),
}
#: The letter marking each criterion in tables and figures.
FLAG_LETTERS = {
    "window_limited": "W",
    "line_rate_limited": "L",
    "timeout_dominated": "T",
    "slow_start_dominated": "S",
}


def flags_text(row: Mapping[str, Any]) -> str:
    """The criteria a row meets, as letters (W window, L line rate, T timeouts, S slow start)."""
    return "".join(letter for key, letter in FLAG_LETTERS.items() if row.get(key))


def plot_comparison(df: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Throughput against the swept value (simulation mean with 95 % CI, every model), and each
    model's relative error below; letters mark the criteria each point meets."""
    from tcplab.report.plots import new_figure

    fig, (ax, ex) = new_figure(
        2, 1, figsize=(8.5, 7.5), sharex=True, gridspec_kw={"height_ratios": [2.2, 1]}
    )
    x = df["value"].to_numpy(dtype=float)
    single = not np.isfinite(x).all()
    if single:
        x = np.arange(len(df), dtype=float)
    mbps = 8 / 1e6
    for key, (label, _) in MODELS.items():
        y = df[key].to_numpy(dtype=float) * mbps
        if not np.isfinite(y).any():
            continue
        color, ls = _STYLE[key]
        ax.plot(x, y, ls, color=color, label=label, lw=1.4, marker=".")
        err = df[f"err_{key}"].to_numpy(dtype=float) * 100
        ex.plot(x, err, ls, color=color, lw=1.2, marker=".")
    y = df["sim_mean_Bps"].to_numpy(dtype=float) * mbps
    ci = np.nan_to_num(df["sim_ci_Bps"].to_numpy(dtype=float) * mbps)
    ax.errorbar(x, y, yerr=ci, fmt="o", color="#CC79A7", ms=6, capsize=3, label="simulated")
    for xi, yi, (_, row) in zip(x, y, df.iterrows(), strict=True):
        flags = flags_text(row)
        if flags and np.isfinite(yi):
            ax.annotate(flags, (xi, yi), textcoords="offset points", xytext=(4, 6), fontsize=8)
    if not single and (x > 0).all():
        ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylabel("throughput (Mbps)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, ncol=2)
    ax.set_title(
        title
        or f"{df.attrs.get('app', '')}: simulated vs models; W window-limited, L line-rate, "
        "T timeout-, S slow-start-dominated",
        fontsize=9,
        loc="left",
    )
    ex.axhline(0, color="#888888", lw=0.8)
    ex.set_yscale("symlog", linthresh=10)
    ex.set_ylabel("model error vs sim (%)")
    ex.set_xlabel(df.attrs.get("sweep") or "point")
    ex.grid(alpha=0.3, which="both")
    return fig


def _jsonable(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    return v


def comparison_dict(df: pd.DataFrame) -> dict[str, Any]:
    """The comparison as JSON-able data: attrs plus one dict per row (non-finite -> None)."""
    return _jsonable(
        {
            **{k: v for k, v in df.attrs.items()},
            "targets_text": describe_targets(df),
            "models": {k: {"label": v[0], "formula": v[1]} for k, v in MODELS.items()},
            "rows": df.to_dict("records"),
        }
    )


def write_comparison(df: pd.DataFrame, out: str | os.PathLike[str]) -> dict[str, Path]:
    """Write compare.csv, compare.json and the figure (compare.png, compare.svg) into `out`."""
    import json

    from tcplab._atomic import write_file
    from tcplab.report.plots import save_figure

    outdir = Path(out)
    paths = {"csv": outdir / "compare.csv", "json": outdir / "compare.json"}
    write_file(paths["csv"], df.to_csv(index=False).encode())
    write_file(paths["json"], (json.dumps(comparison_dict(df), indent=2) + "\n").encode())
    paths.update(save_figure(plot_comparison(df), outdir, "compare"))
    return paths
