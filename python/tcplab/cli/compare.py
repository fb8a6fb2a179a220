"""``tcplab compare``: the simulator against the analytic models over a sweep, or against the
Linux testbed.

    tcplab compare FILE [--sweep ber=1e-8..1e-4] [--points N] [--seeds N] [--out DIR] [--json]
    tcplab compare FILE --sim --testbed [--seeds N] [--out DIR] [--json]
"""

# No `from __future__ import annotations` in this package: see tcplab.cli.
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ._common import (
    EXIT_RUN_FAILED,
    FileArg,
    JobsOpt,
    SetOpt,
    fail,
    load_scenario,
    option,
    out_dir_option,
    tcplab_errors,
    wide_console,
)

if TYPE_CHECKING:
    from tcplab.api import Scenario

app = typer.Typer()

OutOpt = out_dir_option("Write compare.csv, compare.json and the figure (compare.png/.svg) here.")


@app.command("compare")
def compare_cmd(
    ctx: typer.Context,
    file: FileArg,
    sweep: option(
        str,
        "--sweep",
        metavar="NAME=LO..HI",
        help="Sweep one field: ber=1e-8..1e-4 or per=0.001..0.1 (the data direction of the "
        "link(s) that carry an error model), or a dotted path such as "
        "links.wan.ab.error.ber=1e-7..1e-5; LO..HI is log-spaced (--points), V1,V2,... "
        "lists values. Without it: the scenario as given.",
    ) = None,
    points: Annotated[int, typer.Option("--points", help="Log-spaced points of LO..HI.")] = 7,
    seeds: Annotated[int, typer.Option("--seeds", help="Seeds per point (1..N).")] = 3,
    app_name: option(
        str,
        "--app",
        help="The application to compare: an ftp, bulk or cbr transfer (default: the "
        "first of those).",
    ) = None,
    jobs: JobsOpt = None,
    out: OutOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    assignments: SetOpt = None,
    sim: Annotated[
        bool, typer.Option("--sim", help="The simulator's runs (always; pairs with --testbed).")
    ] = False,
    testbed: Annotated[
        bool,
        typer.Option(
            "--testbed",
            help="Simulator vs Linux testbed (root; real time) side by side: a table and the "
            "cwnd traces overlaid, for the scenario as given (--seeds, default 1 here).",
        ),
    ] = False,
) -> None:
    """Simulated throughput against the analytic models (window, line rate, Mathis, PFTK,
    Cardwell) over a sweep, with each model's error and where its assumptions break; with
    --sim --testbed, the simulator against the Linux testbed instead."""
    # Measured results come from a source of tcplab.compare.SOURCES ("sim" here); a testbed
    # source registers there and gets its own flag (--testbed), passed as compare(source=...).
    from tcplab import compare as cmp

    for name, value in (("--points", points), ("--seeds", seeds), ("--jobs", jobs)):
        if value is not None and value < 1:
            raise fail(f"{name} {value}: must be a whole number >= 1")
    if testbed:
        with tcplab_errors():
            scenario = load_scenario(file, assignments or [])
        if sweep is not None:
            raise fail(
                "--testbed compares the scenario as given (one point, real time); drop "
                "--sweep or use it without --testbed"
            )
        if ctx.get_parameter_source("seeds").name == "DEFAULT":
            seeds = 1  # one testbed run: it is real time
        _compare_testbed(scenario, file, seeds=seeds, out=out, as_json=as_json, jobs=jobs)
        return
    with tcplab_errors():
        scenario = load_scenario(file, assignments or [])
        try:
            sw = None if sweep is None else cmp.parse_sweep(sweep, points)
            plan = cmp.plan_comparison(scenario, sw, seeds=seeds, app=app_name)
            if not as_json:
                typer.echo(f"simulating {len(plan.runs)} runs ...", err=True)
            df = cmp.compare(plan, jobs=jobs)
        except cmp.SweepError as e:
            raise fail(e) from None
    if out is not None:
        written = cmp.write_comparison(df, out)
        typer.echo(f"wrote {', '.join(str(p) for p in written.values())}", err=True)
    if as_json:
        typer.echo(json.dumps(cmp.comparison_dict(df), indent=2, allow_nan=False))
        return
    _print_comparison(df, file)


def _sweep_value(v: float) -> str:
    if v != v:  # NaN: no sweep
        return "-"
    return f"{int(v):,}" if float(v).is_integer() and abs(v) < 1e15 else f"{v:.3g}"


def _print_comparison(df: Any, file: Path) -> None:
    from rich.table import Table

    from tcplab import compare as cmp
    from tcplab.analytic import MODELS

    console = wide_console(220)
    a = df.attrs
    console.print(
        f"{file}: app {a['app']!r} ({a['kind']}), sender = {a['sender_end']}; "
        f"{len(a['seeds'])} seeds per point; {cmp.describe_targets(df)}",
        highlight=False,
        soft_wrap=True,
    )
    table = Table(title="Throughput in Mbps (model error vs simulation)", title_justify="left")
    table.add_column(a["sweep"] or "point", justify="right")
    for col in ("p", "sim (95% CI)", "RTO share"):
        table.add_column(col, justify="right")
    for label, _ in MODELS.values():
        table.add_column(label, justify="right")
    table.add_column("breaks", justify="left")
    for _, r in df.iterrows():
        sim = r["sim_mean_Bps"] * 8e-6
        ci = r["sim_ci_Bps"] * 8e-6
        cells = [
            _sweep_value(r["value"]),
            f"{r['p']:.3g}",
            f"{sim:.3f}" + ("" if ci != ci else f" ±{ci:.3f}"),
            f"{r['rto_share']:.0%}",
        ]
        for key in cmp.MODELS:
            v, e = r[key], r[f"err_{key}"]
            if v != v:
                cells.append("-")
            elif v == float("inf"):
                cells.append("inf")
            else:
                cells.append(f"{v * 8e-6:.3f} ({e:+.0%})")
        cells.append(cmp.flags_text(r) or "-")
        table.add_row(*cells)
    console.print(table)
    for key, text in cmp.CRITERIA.items():
        line = f"{cmp.FLAG_LETTERS[key]} = {key}: {text}"
        console.print(line, style="dim", markup=False, highlight=False, soft_wrap=True)


def _compare_testbed(
    scenario: "Scenario",
    file: Path,
    *,
    seeds: int,
    out: Path | None,
    as_json: bool,
    jobs: int | None,
) -> None:
    """`tcplab compare FILE --sim --testbed` (tcplab.testbed.compare: simulator vs testbed, the
    same schema): run, print the table (or JSON), say where the figures are. Exits 2 (naming
    the field or option) on what cannot run, 1 when a testbed run fails."""
    from tcplab.testbed.compare import compare_sim_testbed, comparison_doc
    from tcplab.testbed.errors import TestbedConfigError, TestbedError, TestbedUnavailable

    def say(src: str, n: int) -> None:
        if not as_json:
            what = f"simulating {n} runs" if src == "sim" else f"testbed run, seed {n}"
            typer.echo(f"{what} ...", err=True)

    try:
        df, figs = compare_sim_testbed(scenario, seeds, out, jobs=jobs, on_run=say)
    except TestbedConfigError as e:
        raise fail(f"the testbed cannot run this scenario: {e}") from None
    except TestbedUnavailable as e:
        raise fail(str(e)) from None
    except TestbedError as e:
        raise fail(f"testbed run failed: {e}", EXIT_RUN_FAILED) from None
    if as_json:
        typer.echo(json.dumps(comparison_doc(df, figs), indent=2, default=str))
        return
    from rich.table import Table

    console = wide_console(160)
    plan = df.attrs["plan"]
    cfg = plan["config"]
    console.print(
        f"{file}: simulator vs testbed (Linux {cfg['congestion_control']}, window clamp "
        f"{cfg['rcv_window_clamp']}), seeds {sorted(set(df['seed']))}",
        highlight=False,
        soft_wrap=True,
    )
    table = Table(title="Simulator and testbed, mean over seeds", title_justify="left")
    for col, just in (("metric", "left"), ("sim", "right"), ("testbed", "right"),
                      ("testbed / sim", "right")):  # fmt: skip
        table.add_column(col, justify=just)
    for r in df.attrs["side_by_side"]:
        label = r["label"] + (f" ({r['unit']})" if r["unit"] else "")
        cells = [_fmt(r["sim"]), _fmt(r["testbed"]), _fmt(r["testbed_over_sim"], 3)]
        table.add_row(label, *cells)
    console.print(table)
    seen = df.loc[df["source"] == "testbed", "max_rcv_window_seen"].tolist()
    console.print(f"window offered to the testbed's sender: {seen}", highlight=False)
    for note in plan["approximations"]:
        console.print(f"approximated: {note}", style="dim", highlight=False, soft_wrap=True)
    for name, path in figs.items():
        console.print(f"{name}: {path}", highlight=False, soft_wrap=True)


def _fmt(v: Any, digits: int = 6) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.{digits}g}"
