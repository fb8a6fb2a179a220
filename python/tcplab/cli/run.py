"""``tcplab run``, ``validate``, ``schema``, ``variants`` and ``version``: one scenario, and what
the simulator knows.

    tcplab run FILE [--seed N] [--json] [--out DIR] [--plot DIR] [--pcap DIR] [--strict]
                    [--set key=value ...]
    tcplab validate FILE [--set key=value ...] [--normalized]
    tcplab schema [--json | --markdown]
    tcplab variants [--json]
    tcplab version
"""

# No `from __future__ import annotations` in this package: see tcplab.cli.
import json
from pathlib import Path
from typing import Annotated

import typer

from tcplab import __version__

from ._common import (
    EXIT_INCOMPLETE,
    FileArg,
    RunOutOpt,
    SeedOpt,
    SetOpt,
    SummaryJsonOpt,
    echo_figures,
    fail,
    load_scenario,
    tcplab_errors,
)

app = typer.Typer()


def _writable_dir(option: str, path: Path) -> None:
    """Refuse (exit 2) a directory that cannot be made or written, naming the option. The
    directories made to find out are removed again: a run that then fails to write leaves
    nothing behind."""
    import tempfile

    made = [p for p in (path, *path.parents) if not p.exists()]
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".tcplab-write-test-"):
            pass
    except OSError as e:
        raise fail(f"{option} {path}: cannot write there: {e.strerror or e}") from None
    finally:
        for p in made:  # the deepest first
            try:
                p.rmdir()
            except OSError:
                break


def _pcap_files(pcap: Path, nodes: list[dict]) -> dict[str, Path]:
    """Each host's capture file in `pcap`, its name checked: a node's name becomes a file
    name, so it must be a name (no path separator, not '..'), else exit 2 naming the node."""
    from tcplab._atomic import check_name, inside

    out = {}
    for node in nodes:
        if node.get("kind", "host") == "host":
            field = f"nodes.{node.get('name')}.name"
            name = check_name(field, node.get("name"))
            out[name] = inside(pcap, f"{name}.pcap", field=field)
    return out


@app.command("run")
def run_cmd(
    file: FileArg,
    seed: SeedOpt = None,
    as_json: SummaryJsonOpt = False,
    out: RunOutOpt = None,
    assignments: SetOpt = None,
    pcap: Annotated[
        Path | None,
        typer.Option(
            "--pcap",
            file_okay=False,
            help="Write one pcap per host (DIR/<host>.pcap) for Wireshark; turns on the "
            "per-packet log.",
            show_default=False,
        ),
    ] = None,
    strict: Annotated[
        bool,
        typer.Option("--strict", help="Exit with status 3 when an application did not finish."),
    ] = False,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            file_okay=False,
            help="Draw the run into this directory (PNG and SVG): windows over time with loss "
            "marks, the time-sequence diagram, the link queues; turns on output.trace and "
            "output.queues.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Simulate a scenario and print its summary. An application that did not finish is named
    on stderr (exit status 3 with --strict)."""
    for option, where in (("--out", out), ("--pcap", pcap), ("--plot", plot)):
        if where is not None:
            _writable_dir(option, where)  # before simulating: a long run is not thrown away
    with tcplab_errors():
        scenario = load_scenario(file, assignments or [])
        if pcap is not None:
            captures = _pcap_files(pcap, scenario.to_dict(normalized=True).get("nodes", []))
            scenario = scenario.with_overrides({"output.packets": True})
        if plot is not None:
            scenario = scenario.with_overrides({"output.trace": True, "output.queues": True})
        from tcplab.api import run

        result = run(scenario, seed=seed)
    # The result is shown before anything is written, so a failed write loses no output.
    if as_json:
        typer.echo(json.dumps(result.summary, indent=2))
    else:
        from rich.console import Console

        Console().print(result.table())
    for w in result.warnings:
        typer.echo(f"warning: {w}", err=True)
    with tcplab_errors():
        try:
            if out is not None:
                written = result.to_dir(out)
                typer.echo(f"wrote {written}", err=True)
            if plot is not None:
                echo_figures(result.plot(plot))
            if pcap is not None:
                for host, target in captures.items():
                    n = result.to_pcap(target, host=host)
                    typer.echo(f"wrote {target} ({n} frames)", err=True)
        except OSError as e:
            where = e.filename or out or plot or pcap
            what = e.strerror or str(e)
            if not what.startswith("cannot write"):
                what = f"cannot write: {what}"
            raise fail(f"{where}: {what}") from None
    if strict and result.warnings:
        raise typer.Exit(EXIT_INCOMPLETE)


@app.command("validate")
def validate_cmd(
    file: FileArg,
    assignments: SetOpt = None,
    normalized: Annotated[
        bool,
        typer.Option(
            "--normalized",
            help="Print the scenario itself as the core normalised it (the input format, "
            "run.seed set) instead of the resolved settings.",
        ),
    ] = False,
) -> None:
    """Check a scenario and print, as JSON, what the core resolved: each application's TCP
    settings with the profile expanded and its data and ACK paths hop by hop, in SI units
    (seconds, bytes, bit/s)."""
    with tcplab_errors():
        scenario = load_scenario(file, assignments or [])
        text = (
            scenario.to_json(normalized=True)
            if normalized
            else json.dumps(scenario.describe(), indent=2)
        )
    typer.echo(text)


@app.command("schema")
def schema_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    as_markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the Markdown reference (the docs' page).")
    ] = False,
) -> None:
    """List every scenario field with its type, unit, default and allowed values, from the
    list the core's parser takes its fields from."""
    from tcplab import schema

    if as_json and as_markdown:
        raise fail("--json and --markdown: choose one output format")
    if as_json:
        typer.echo(json.dumps(schema.fields(), indent=2))
        return
    if as_markdown:
        typer.echo(schema.markdown())
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    rows = schema.fields()
    for section, where in schema.SECTIONS.items():
        table = Table(title=escape(f"{section or 'top level'}: {where}"), title_justify="left")
        for col in ("key", "for", "type", "unit", "default", "allowed", "description"):
            table.add_column(col, no_wrap=col in ("key", "type"))
        cols = ("key", "when", "type", "unit", "default", "allowed", "description")
        for f in (f for f in rows if f["section"] == section):
            table.add_row(*(escape(str(f[k])) for k in cols))
        console.print(table)


@app.command("variants")
def variants_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """List the congestion controls and loss recoveries (any pair combines: [tcp]
    congestion_control, loss_recovery) and the classic names [tcp] variant resolves."""
    from tcplab import _core

    reg = json.loads(_core.variants())
    if as_json:
        typer.echo(json.dumps(reg, indent=2))
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    for key, title in (
        ("congestion_controls", "Congestion controls ([tcp] congestion_control)"),
        ("loss_recoveries", "Loss recoveries ([tcp] loss_recovery)"),
    ):
        table = Table(title=escape(title), title_justify="left")
        table.add_column("name", no_wrap=True)
        table.add_column("description")
        for item in reg[key]:
            table.add_row(escape(item["name"]), escape(item["description"]))
        console.print(table)
    table = Table(title=escape("Classic names ([tcp] variant)"), title_justify="left")
    for col in ("variant", "congestion_control", "loss_recovery"):
        table.add_column(col, no_wrap=True)
    for item in reg["classic"]:
        table.add_row(*(escape(item[k]) for k in ("name", "congestion_control", "loss_recovery")))
    console.print(table)


@app.command("version")
def version_cmd() -> None:
    """Print the tcplab version."""
    typer.echo(f"tcplab {__version__}")
