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
import textwrap
from pathlib import Path
from typing import Annotated

import typer

from tcplab import __version__

from ._common import (
    EXIT_INCOMPLETE,
    FileArg,
    ScenarioInput,
    SetOpt,
    echo_figures,
    fail,
    load_scenario,
    option,
    runs_a_scenario,
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
@runs_a_scenario
def run_cmd(
    given: ScenarioInput,
    pcap: option(
        Path,
        "--pcap",
        file_okay=False,
        help="Write one pcap per host (DIR/<host>.pcap) for Wireshark; turns on the "
        "per-packet log.",
    ) = None,
    strict: Annotated[
        bool,
        typer.Option("--strict", help="Exit with status 3 when an application did not finish."),
    ] = False,
    plot: option(
        Path,
        "--plot",
        file_okay=False,
        help="Draw the run into this directory (PNG and SVG): windows over time with loss "
        "marks, the time-sequence diagram, the link queues; turns on output.trace and "
        "output.queues.",
    ) = None,
) -> None:
    """Simulate a scenario and print its summary. An application that did not finish is named
    on stderr (exit status 3 with --strict)."""
    out = given.out
    for flag, where in (("--out", out), ("--pcap", pcap), ("--plot", plot)):
        if where is not None:
            _writable_dir(flag, where)  # before simulating: a long run is not thrown away
    with tcplab_errors():
        scenario = given.load()
        if pcap is not None:
            captures = _pcap_files(pcap, scenario.to_dict(normalized=True).get("nodes", []))
            scenario = scenario.with_overrides({"output.packets": True})
        if plot is not None:
            scenario = scenario.with_overrides({"output.trace": True, "output.queues": True})
        from tcplab.api import run

        result = run(scenario, seed=given.seed)
    # The result is shown before anything is written, so a failed write loses no output.
    if given.as_json:
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
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print, as JSON, what the core resolved: each application's TCP settings with "
            "the profile expanded and its data and ACK paths hop by hop, in SI units (seconds, "
            "bytes, bit/s).",
        ),
    ] = False,
    normalized: Annotated[
        bool,
        typer.Option(
            "--normalized",
            help="Print the scenario itself as the core normalised it (the input format, "
            "run.seed set) instead of the resolved settings.",
        ),
    ] = False,
) -> None:
    """Check a scenario: print "valid" and what it holds (nodes, links, applications with
    their TCP profile), or one line error: ... naming the field (exit status 2)."""
    if as_json and normalized:
        raise fail("--json and --normalized: choose one output")
    with tcplab_errors():
        scenario = load_scenario(file, assignments or [])
        if normalized:
            typer.echo(scenario.to_json(normalized=True))
            return
        described = scenario.describe()
    if as_json:
        typer.echo(json.dumps(described, indent=2))
        return
    typer.echo("\n".join(_summary(file, scenario.to_dict(), described)))


#: Above this many nodes, links or applications, `validate` counts them by kind.
_LISTED = 8


def _some(names: list[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f", ... ({len(names) - _LISTED} more)" if len(names) > _LISTED else "")


def _summary(file: Path, scenario: dict, described: dict) -> list[str]:
    """`tcplab validate`'s lines: valid, then the run, nodes, links and applications."""
    run = scenario.get("run", {})
    lines = [f"valid: {file}"]
    stop = f"{described['stop_time_s']:g} s" if described.get("stop_time_s") is not None else "-"
    lines.append(f"  run    {described.get('name') or run.get('name', '')}: seed "
                 f"{described.get('seed')}, stop time {stop}")  # fmt: skip
    nodes = scenario.get("nodes", [])
    kinds: dict[str, list[str]] = {}
    for node in nodes:
        kinds.setdefault(node.get("kind", "host"), []).append(node["name"])
    parts = [f"{len(names)} {kind}{'s' if len(names) > 1 else ''} ({_some(names)})"
             for kind, names in kinds.items()]  # fmt: skip
    lines.append(f"  nodes  {len(nodes)}: " + "; ".join(parts))
    links = scenario.get("links", [])
    lines.append(f"  links  {len(links)}:")
    for link in links[:_LISTED]:
        text = f"    {link.get('name', '')}  {link['a']} - {link['b']}"
        text += f"  {link.get('rate', '?')}, {link.get('delay', '0s')}"
        if link.get("queue", "unlimited") != "unlimited":
            text += f", queue {link['queue']}"
        for way in ("ab", "ba"):
            error = {**link.get("error", {}), **link.get(way, {}).get("error", {})}
            if error.get("model", "none") != "none":
                args = ", ".join(f"{k}={v}" for k, v in error.items() if k != "model")
                text += f", {way} error {error['model']}({args})"
        lines.append(text)
    if len(links) > _LISTED:
        lines.append(f"    ... ({len(links) - _LISTED} more)")
    apps = described.get("apps", [])
    lines.append(f"  apps   {len(apps)}:")
    groups: dict[tuple, list[str]] = {}
    for app in apps:
        tcp = app.get("tcp", {})
        stack = (f"profile {tcp.get('profile')}: {tcp.get('congestion_control')} + "
                 f"{tcp.get('loss_recovery')}, mss {tcp.get('mss')}")  # fmt: skip
        kind = app.get("app", {}).get("kind", "")
        if len(apps) <= _LISTED:
            sender = app.get("sender", app["server"])
            receiver = app["client"] if sender != app["client"] else app["server"]
            lines.append(f"    {app['name']}  {kind}, {sender} -> {receiver}, {stack}")
        else:
            groups.setdefault((kind, stack), []).append(app["name"])
    for (kind, stack), names in groups.items():
        lines.append(f"    {len(names)} {kind} ({_some(names)}), {stack}")
    lines.append("every resolved setting, in SI units: tcplab validate FILE --json")
    return lines


@app.command("schema")
def schema_cmd(
    path: Annotated[
        str | None,
        typer.Argument(
            metavar="[PATH]",
            help="A field (tcp.mss, links.wan.rate, links[].rate) or a section (tcp, links[]): "
            "print its entries in full, each with its page in the docs site.",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    as_markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the Markdown reference (the docs' pages).")
    ] = False,
) -> None:
    """List every scenario field with its type, unit and default, section by section, with the
    page of the docs site (built by make docs into site/) that documents the section; or one
    field's or section's entries in full. From the list the core's parser takes its fields
    from."""
    from tcplab import errors, schema

    if as_json and as_markdown:
        raise fail("--json and --markdown: choose one output format")
    rows = schema.fields()
    if path is not None:
        try:
            section, rows = schema.find(path, rows)
        except errors.TcplabError as e:
            raise fail(e) from None
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
    elif as_markdown:
        whole = path is None
        typer.echo(schema.markdown() if whole else schema.entries_markdown(rows))
    elif path is not None:
        _print_entries(path, rows)
    else:
        _print_sections(rows)


def _print_entries(path: str, rows: list[dict]) -> None:
    """`tcplab schema PATH`: each field in full, as the docs' entry has it."""
    from tcplab import schema

    for n, f in enumerate(rows):
        kind, _, value = f["when"].partition("=")
        head = (
            f["path"]
            if f["path"] in (path, f"{path}.{f['key']}") or len(rows) > 1
            else (f"{path}: {f['path']}")
        )
        head += f'  (only with {kind} = "{value}")' if value else ""
        unit = f", in {f['unit']}" if f["unit"] else ""
        lines = ["" if n else None, head, f"  type      {f['type']}{unit}"]
        lines += [f"  default   {f['default'] or 'none'}", f"  allowed   {f['allowed']}"]
        if schema.example_line(f):
            lines.append(f"  example   {schema.example_line(f)}")
        lines.append(f"  docs      {f['doc']}")
        typer.echo("\n".join(line for line in lines if line is not None))
        typer.echo(textwrap.fill(f["description"], width=96, initial_indent="  ",
                                 subsequent_indent="  "))  # fmt: skip


def _print_sections(rows: list[dict]) -> None:
    """`tcplab schema`: a table a section (key, type and unit, default), titled with where it
    is written and its docs page."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from tcplab import schema

    console = Console()
    for section in dict.fromkeys(f["section"] for f in rows):
        where = schema.SECTIONS.get(section, "")
        doc = schema.page(section).removesuffix(".md") + ".html"
        console.print(escape(f"{section or 'top level'}: {where}"), style="bold", soft_wrap=True)
        console.print(escape(f"docs: {doc}"), soft_wrap=True)
        table = Table()
        for col in ("key", "for", "type", "default"):
            table.add_column(col, no_wrap=col != "default", overflow="fold")
        for f in (f for f in rows if f["section"] == section):
            unit = f" ({f['unit']})" if f["unit"] else ""
            cells = (f["key"], f["when"], f["type"] + unit, f["default"] or "none")
            table.add_row(*(escape(c) for c in cells))
        console.print(table)
    console.print("tcplab schema PATH prints a field in full: allowed values, description.")


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
