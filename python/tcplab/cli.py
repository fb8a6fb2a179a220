"""The `tcplab` command.

    tcplab run FILE [--seed N] [--json] [--out DIR] [--set key=value ...]
    tcplab validate FILE [--set key=value ...]
    tcplab version
    tcplab model ...     (tcplab.models.cli, when present)
    tcplab study ...     (tcplab.studies.cli, when present)

A tcplab error (bad scenario, internal error) prints ``error: <message>`` on stderr and exits
with status 2, without a traceback.
"""

from __future__ import annotations

import importlib
import json
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from tcplab import __version__, errors
from tcplab.api import Scenario, run

app = typer.Typer(
    name="tcplab",
    help="A laboratory for TCP over noisy, high bit-error-rate links.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

EXIT_USER_ERROR = 2


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


def parse_assignment(text: str) -> tuple[str, Any]:
    """``key=value`` -> (key, value). The value is read as a TOML value when it is one
    (``536``, ``0.01``, ``true``, ``{model="per", p=0.01}``), else taken as text (``10Mbps``)."""
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key:
        raise typer.BadParameter(f"expected key=value, got {text!r}", param_hint="--set")
    try:
        value: Any = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


def _load(file: Path, assignments: list[str]) -> Scenario:
    scenario = Scenario.from_toml(file)
    if assignments:
        scenario = scenario.with_overrides(dict(parse_assignment(a) for a in assignments))
    return scenario


FileArg = Annotated[
    Path,
    typer.Argument(
        exists=True, dir_okay=False, readable=True, help="Scenario file (TOML).", show_default=False
    ),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="Override a field by dotted path, e.g. tcp.mss=536 or links.wan.rate=5Mbps "
        "(list elements by name). Repeatable.",
        show_default=False,
    ),
]


@app.command("run")
def run_cmd(
    file: FileArg,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Override run.seed.", show_default=False)
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON instead of tables.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            file_okay=False,
            help="Write summary.json, scenario.json and traces (Parquet) to this directory.",
            show_default=False,
        ),
    ] = None,
    assignments: SetOpt = None,
) -> None:
    """Simulate a scenario and print its summary."""
    with _tcplab_errors():
        result = run(_load(file, assignments or []), seed=seed)
    if out is not None:
        written = result.to_dir(out)
        typer.echo(f"wrote {written}", err=True)
    if as_json:
        typer.echo(json.dumps(result.summary, indent=2))
    else:
        from rich.console import Console

        Console().print(result.table())


@app.command("validate")
def validate_cmd(file: FileArg, assignments: SetOpt = None) -> None:
    """Check a scenario and print it as the core normalised it (JSON)."""
    with _tcplab_errors():
        scenario = _load(file, assignments or [])
    typer.echo(scenario.to_json(normalized=True))


@app.command("version")
def version_cmd() -> None:
    """Print the tcplab version."""
    typer.echo(f"tcplab {__version__}")


def _mount(name: str, module: str) -> None:
    """Add `module.app` as the sub-command `name` if the module exists. Only the module itself
    being absent is tolerated; an import error inside it propagates."""
    try:
        sub = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is not None and (module == e.name or module.startswith(e.name + ".")):
            return
        raise
    app.add_typer(sub.app, name=name)


_mount("model", "tcplab.models.cli")
_mount("study", "tcplab.studies.cli")


def main() -> None:
    """Entry point of the `tcplab` script."""
    try:
        app()
    except errors.TcplabError as e:  # from a mounted sub-command
        _print_error(e)
        sys.exit(EXIT_USER_ERROR)
