"""The `tcplab` command.

    tcplab run FILE [--seed N] [--json] [--out DIR] [--plot DIR] [--set key=value ...]
    tcplab validate FILE [--set key=value ...] [--normalized]
    tcplab compare FILE [--sweep ber=1e-8..1e-4] [--points N] [--seeds N] [--out DIR] [--json]
    tcplab compare FILE --sim --testbed [--seeds N] [--out DIR] [--json]
    tcplab sweep FILE --grid PATH=VALUES ... --seeds 1..N --store DIR [--scheduler ...]
    tcplab results DIR [--sql QUERY] [--csv | --json]
    tcplab plot STORE --x PATH --y COLUMN [--hue PATH] [--logx]
    tcplab plot RUN_DIR [--out DIR]
    tcplab variants [--json]
    tcplab schema [--json | --markdown]
    tcplab version
    tcplab model ...     (tcplab.models.cli, when present)
    tcplab study ...     (tcplab.studies.cli, when present)
    tcplab testbed ...   (tcplab.testbed.cli: run FILE, cleanup; Linux and root)
    tcplab conformance ns2 [--grid full|reduced]   (against ns-2.35, where `ns` is installed)

A tcplab error (bad scenario, internal error) prints ``error: <message>`` on stderr and exits
with status 2, without a traceback; Ctrl-C and SIGTERM print ``interrupted`` (130, 143).
"""

# ruff: noqa: E402 - the cyclic collector is paused before the imports
import gc

# Start-up (Typer, its click, this module and the app) makes some 24,000 objects that live as
# long as the process, and no garbage: the cyclic collector is paused while they are made
# (until the end of this module), and `main` freezes them, so that neither a later collection
# nor the one at exit walks them again (40 M instructions, an eighth of a sweep's rerun that
# finds every run in its store).
_GC_WAS_ON = gc.isenabled()
gc.disable()

# No `from __future__ import annotations` in the command modules (this one, tcplab.sweep.cli,
# tcplab.cli_options): Typer reads each command's annotations when it runs the command, and
# annotations kept as text it compiles and evaluates one by one (1 ms of a sweep's rerun).
import copy
import importlib
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

try:
    import typer

    from tcplab import __version__, errors
    from tcplab.cli_options import (
        FileArg,
        JobsOpt,
        RunOutOpt,
        SeedOpt,
        SetOpt,
        SummaryJsonOpt,
        interrupted_said,
    )
except BaseException:
    # An importer that survives the failure gets its collector back.
    if _GC_WAS_ON:
        gc.enable()
    raise

# tcplab.api (and tomllib) are imported by the commands that use them: `tcplab --help` and
# `tcplab version` do not wait for them.
if TYPE_CHECKING:
    from tcplab.api import Scenario

# The sub-command groups are imported when one of them is used (or `tcplab -h` lists them), not
# at start-up: the models pull in numpy, the studies pandas and matplotlib, and `tcplab run`
# should not wait for them.
_LAZY_GROUPS = {
    "model": "tcplab.models.cli",
    "study": "tcplab.studies.cli",
    "testbed": "tcplab.testbed.cli",
    "conformance": "tcplab.conformance.cli",
}


def _lazy_group(name: str) -> Any:
    """The click group of the sub-command `name`, or None if its module is absent. Only the
    module itself being absent is tolerated; an import error inside it propagates."""
    module = _LAZY_GROUPS[name]
    try:
        sub = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is not None and (module == e.name or module.startswith(e.name + ".")):
            return None
        raise
    group = typer.main.get_group(sub.app)
    group.name = name
    return group


def _flags_as_flags(cmd: Any) -> Any:
    """Show on/off options as bare flags in the help (Typer labels them ``<bool>``, as if they
    took a value), in `cmd` and every command below it."""
    if cmd is None or getattr(cmd, "_tcplab_flags", False):
        return cmd
    cmd._tcplab_flags = True
    for param in getattr(cmd, "params", ()):
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    make_help = cmd.get_help_option

    def help_option(ctx: Any) -> Any:
        opt = make_help(ctx)
        if opt is not None and opt.metavar is None:
            opt.metavar = ""
        return opt

    cmd.get_help_option = help_option
    for sub in getattr(cmd, "commands", {}).values():
        _flags_as_flags(sub)
    return cmd


class _Group(typer.core.TyperGroup):
    def list_commands(self, ctx: Any) -> list[str]:
        names = list(super().list_commands(ctx))
        return names + [n for n in _LAZY_GROUPS if n not in names]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in _LAZY_GROUPS and cmd_name not in self.commands:
            group = _lazy_group(cmd_name)
            if group is None:
                return None
            self.commands[cmd_name] = group
        return _flags_as_flags(super().get_command(ctx, cmd_name))

    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_as_flags(self) and super().get_params(ctx)


app = typer.Typer(
    cls=_Group,
    name="tcplab",
    help="A laboratory for TCP over noisy, high bit-error-rate links.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"tcplab {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            is_eager=True,
            callback=_print_version,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """A laboratory for TCP over noisy, high bit-error-rate links."""


EXIT_USER_ERROR = 2
#: `tcplab run --strict`: an application did not finish.
EXIT_INCOMPLETE = 3


def _print_error(err: BaseException) -> None:
    typer.echo(f"error: {err}", err=True)
    for note in getattr(err, "__notes__", ()):
        typer.echo(f"  ({note})", err=True)


@contextmanager
def _tcplab_errors() -> Iterator[None]:
    """Turn a TcplabError into `error: ...` on stderr and exit status 2."""
    try:
        yield
    except errors.TcplabError as e:
        _print_error(e)
        raise typer.Exit(EXIT_USER_ERROR) from None


def _echo_figures(paths: dict[str, dict[str, Path]]) -> None:
    for name, by_format in paths.items():
        typer.echo(f"wrote {by_format['png']} and {by_format['svg']} ({name})", err=True)


def _writable_dir(option: str, path: Path) -> None:
    """Refuse (exit 2) a directory that cannot be made or written, naming the option."""
    import tempfile

    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".tcplab-write-test-"):
            pass
    except OSError as e:
        typer.echo(f"error: {option} {path}: cannot write there: {e.strerror or e}", err=True)
        raise typer.Exit(EXIT_USER_ERROR) from None


def parse_assignment(text: str) -> tuple[str, Any]:
    """``key=value`` -> (key, value). The value is read as a TOML value when it is one
    (``536``, ``0.01``, ``true``, ``{model="per", p=0.01}``), else taken as text (``10Mbps``)."""
    import tomllib

    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key:
        raise typer.BadParameter(f"expected key=value, got {text!r}", param_hint="--set")
    try:
        value: Any = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


def _load(file: Path, assignments: list[str]) -> "Scenario":
    from tcplab.api import Scenario

    scenario = Scenario.from_toml(file)
    if assignments:
        scenario = scenario.with_overrides(dict(parse_assignment(a) for a in assignments))
    return scenario


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
    with _tcplab_errors():
        scenario = _load(file, assignments or [])
        if pcap is not None:
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
    with _tcplab_errors():
        try:
            if out is not None:
                written = result.to_dir(out)
                typer.echo(f"wrote {written}", err=True)
            if plot is not None:
                _echo_figures(result.plot(plot))
            if pcap is not None:
                for node in result.scenario.get("nodes", []):
                    if node.get("kind", "host") == "host":
                        target = pcap / f"{node['name']}.pcap"
                        n = result.to_pcap(target, host=node["name"])
                        typer.echo(f"wrote {target} ({n} frames)", err=True)
        except OSError as e:
            where = e.filename or out or plot or pcap
            typer.echo(f"error: {where}: cannot write: {e.strerror or e}", err=True)
            raise typer.Exit(EXIT_USER_ERROR) from None
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
    with _tcplab_errors():
        scenario = _load(file, assignments or [])
        text = (
            scenario.to_json(normalized=True)
            if normalized
            else json.dumps(scenario.describe(), indent=2)
        )
    typer.echo(text)


@app.command("compare")
def compare_cmd(
    file: FileArg,
    sweep: Annotated[
        str | None,
        typer.Option(
            "--sweep",
            metavar="NAME=LO..HI",
            help="Sweep one field: ber=1e-8..1e-4 or per=0.001..0.1 (the data direction of the "
            "link(s) that carry an error model), or a dotted path such as "
            "links.wan.ab.error.ber=1e-7..1e-5; LO..HI is log-spaced (--points), V1,V2,... "
            "lists values. Without it: the scenario as given.",
            show_default=False,
        ),
    ] = None,
    points: Annotated[int, typer.Option("--points", help="Log-spaced points of LO..HI.")] = 7,
    seeds: Annotated[int, typer.Option("--seeds", help="Seeds per point (1..N).")] = 3,
    app_name: Annotated[
        str | None,
        typer.Option(
            "--app",
            help="The application to compare: an ftp, bulk or cbr transfer (default: the "
            "first of those).",
            show_default=False,
        ),
    ] = None,
    jobs: JobsOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            file_okay=False,
            help="Write compare.csv, compare.json and the figure (compare.png/.svg) here.",
            show_default=False,
        ),
    ] = None,
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

    for option, value in (("--points", points), ("--seeds", seeds), ("--jobs", jobs)):
        if value is not None and value < 1:
            _print_error(ValueError(f"{option} {value}: must be a whole number >= 1"))
            raise typer.Exit(EXIT_USER_ERROR)
    if testbed:  # tcplab.testbed.compare: simulator vs testbed, same schema
        from tcplab.testbed.compare import run_from_cli

        with _tcplab_errors():
            scenario = _load(file, assignments or [])
        run_from_cli(scenario, file, seeds=seeds, out=out, as_json=as_json, jobs=jobs, sweep=sweep)
        return
    with _tcplab_errors():
        scenario = _load(file, assignments or [])
        try:
            sw = None if sweep is None else cmp.parse_sweep(sweep, points)
            plan = cmp.plan_comparison(scenario, sw, seeds=seeds, app=app_name)
            if not as_json:
                typer.echo(f"simulating {len(plan.runs)} runs ...", err=True)
            df = cmp.compare(plan, jobs=jobs)
        except cmp.SweepError as e:
            _print_error(e)
            raise typer.Exit(EXIT_USER_ERROR) from None
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
    from rich.console import Console
    from rich.table import Table

    from tcplab import compare as cmp

    console = Console()
    if not console.is_terminal:
        console = Console(width=220)
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
    for label, _ in cmp.MODELS.values():
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
        typer.echo("error: --json and --markdown: choose one output format", err=True)
        raise typer.Exit(EXIT_USER_ERROR)
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


try:
    from tcplab.sweep.cli import register as _register_sweep
except BaseException:
    if _GC_WAS_ON:
        gc.enable()
    raise

_register_sweep(app)


class _Terminated:
    """SIGTERM seen: set by the handler, which raises KeyboardInterrupt so that the same path
    stops the work (the core checks Python's handlers while it runs)."""

    seen = False


def _on_sigterm(signum: int, frame: Any) -> None:
    _Terminated.seen = True
    raise KeyboardInterrupt


def _app_for(argv: list[str]) -> typer.Typer:
    """The app to run for the command line `argv`: when it names a command, an app holding that
    command alone. Typer turns every registered command into a click command (reading each
    function's signature and annotations) before it parses anything; for the one being run that
    is wasted on the others (12 of the 70 ms a `tcplab sweep` that finds everything in its store
    takes). Anything else (no command, an option first, a mistyped name, `--help`) gets the
    whole app, so its help and its errors list every command."""
    name = argv[1] if len(argv) > 1 else ""
    if name in _LAZY_GROUPS:
        keep = []
    else:
        keep = [c for c in app.registered_commands if c.name == name]
        if not keep:
            return app
    only = copy.copy(app)
    only.registered_commands = keep
    return only


def main() -> None:
    """Entry point of the `tcplab` script: every mistake ends as one line ``error: ...`` on
    stderr with exit status 2 (a usage mistake too); Ctrl-C as ``interrupted`` with 130 and
    SIGTERM as ``interrupted`` with 143."""
    import signal

    gc.freeze()  # start-up's objects: see the top of this module
    click_error = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        rc = _app_for(sys.argv)(standalone_mode=False)
    except errors.TcplabError as e:  # from a mounted sub-command
        _print_error(e)
        sys.exit(EXIT_USER_ERROR)
    except click_error as e:  # a usage mistake: unknown option, missing or bad value
        if type(e).__name__ == "NoArgsIsHelpError":  # the help is printed already
            sys.exit(0)
        cmd = getattr(getattr(e, "ctx", None), "command_path", "tcplab")
        typer.echo(f"error: {e.format_message()} (see {cmd} --help)", err=True)
        sys.exit(getattr(e, "exit_code", EXIT_USER_ERROR) or EXIT_USER_ERROR)
    except OSError as e:  # a file the user named that cannot be read or written
        where = f" {e.filename}" if getattr(e, "filename", None) else ""
        typer.echo(f"error:{where}: {e.strerror or e}", err=True)
        sys.exit(EXIT_USER_ERROR)
    except (KeyboardInterrupt, typer.Abort):
        rc = 130
    if rc == 130 or _Terminated.seen:
        # Typer turns KeyboardInterrupt into exit status 130 silently; a sub-command that
        # handled it itself has already said what it kept.
        rc = 143 if _Terminated.seen else 130
        if not interrupted_said():
            typer.echo("interrupted", err=True)
    sys.exit(rc if isinstance(rc, int) else 0)


# Start-up is over (see the top of this module). Its objects are put in the oldest generation
# as they are (frozen, then unfrozen into it), else the collector, once enabled, would walk
# them all at the next allocation (6 M instructions) to age them there; not in a process that
# froze objects of its own, which unfreezing would let go.
if gc.get_freeze_count() == 0:
    gc.freeze()
    gc.unfreeze()
if _GC_WAS_ON:
    gc.enable()
