"""What every command shares: the exit statuses, the one way a command says ``error: ...``, the
argument and option types, ``--set`` assignments and the scenario they change."""

# No `from __future__ import annotations` in this package: see tcplab.cli.
import functools
import inspect
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tcplab import errors

if TYPE_CHECKING:
    from rich.console import Console

    from tcplab.api import Scenario

#: A mistake of the user's: a bad scenario, option or value, a file that cannot be read or
#: written. Also every usage error click reports.
EXIT_USER_ERROR = 2
#: `tcplab run --strict`: an application did not finish.
EXIT_INCOMPLETE = 3
#: A testbed run that started and failed (the machine, not the scenario).
EXIT_RUN_FAILED = 1
#: Ctrl-C (SIGINT), and SIGTERM, as a shell reports them.
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


#: What a terminal would act on rather than show: C0 controls but the tab, DEL and C1 controls
#: (escape sequences, a bell, a carriage return that overwrites the line).
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def printable(text: object) -> str:
    """`text` as it can be shown on a terminal as it is: control characters as ``\\xNN``,
    text that is not Unicode (a file name in another encoding) as ``\\udcNN``, so that data
    (a value in a store, a name in a scenario) is shown, never obeyed, and stays on one line."""
    s = _CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}", str(text))
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def fail(err: object, code: int = EXIT_USER_ERROR, *, prefix: str = "") -> typer.Exit:
    """Print ``error: <prefix><err>`` on stderr (as `printable` text, on one line), then each
    note an exception `err` carries (``  (<note>)``: what it was doing when it failed), and
    return the Exit with `code` for the caller to raise. A message given as text has no
    notes."""
    typer.echo(f"error: {printable(prefix)}{printable(err)}", err=True)
    for note in getattr(err, "__notes__", ()):
        typer.echo(f"  ({printable(note)})", err=True)
    return typer.Exit(code)


def os_error_text(e: OSError) -> str:
    """An OSError as ``PATH: what happened`` (without the path when it has none)."""
    what = e.strerror or str(e) or type(e).__name__
    return f"{e.filename}: {what}" if getattr(e, "filename", None) else what


def command_group(name: str, help: str, **settings: Any) -> typer.Typer:
    """The app of a command group, `tcplab NAME COMMAND ...`: called bare it prints its help
    (unless `settings` say otherwise), and it offers no shell-completion options (nor does
    `tcplab`)."""
    settings = {"no_args_is_help": True, "add_completion": False, **settings}
    return typer.Typer(name=name, help=help, **settings)


@contextmanager
def tcplab_errors() -> Iterator[None]:
    """Turn a TcplabError into `error: ...` on stderr and exit status 2."""
    try:
        yield
    except errors.TcplabError as e:
        raise fail(e) from None


class _Interrupted:
    said = False


def say_interrupted(detail: str = "") -> typer.Exit:
    """Print ``interrupted<detail>`` on stderr once and return the Exit (status 130) to raise;
    the entry point then does not print it again (it sets 143 for SIGTERM)."""
    _Interrupted.said = True
    typer.echo(f"interrupted{detail}", err=True)
    return typer.Exit(EXIT_INTERRUPTED)


def interrupted_said() -> bool:
    return _Interrupted.said


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
    except RecursionError:
        raise errors._invalid(
            key, raw[:40] + "...", "nested too deeply to read", "a value nesting a few levels"
        ) from None
    return key, value


def load_scenario(file: Path, assignments: list[str]) -> "Scenario":
    """The scenario of `file` with the ``--set`` `assignments` applied."""
    from tcplab.api import Scenario

    scenario = Scenario.from_toml(file)
    if assignments:
        scenario = scenario.with_overrides(dict(parse_assignment(a) for a in assignments))
    return scenario


def echo_figures(paths: dict[str, dict[str, Path]]) -> None:
    """Say on stderr where each figure was written (its PNG and SVG)."""
    for name, by_format in paths.items():
        typer.echo(f"wrote {by_format['png']} and {by_format['svg']} ({name})", err=True)


def wide_console(width: int) -> "Console":
    """A rich console on stdout; `width` columns wide when stdout is a pipe or a file, so that
    a table is not folded into 80 columns."""
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=width)


def option(kind: Any, *names: str, help: str, **settings: Any) -> Any:
    """The type of an option that may be left out (None when it is): `kind` or None, named
    `names`, with `help`; no default is shown, the help says what leaving it out means.
    `settings` are typer.Option's (min, file_okay, metavar, ...)."""
    return Annotated[kind | None, typer.Option(*names, help=help, show_default=False, **settings)]


FileArg = Annotated[
    Path,
    typer.Argument(
        exists=True, dir_okay=False, readable=True, help="Scenario file (TOML).", show_default=False
    ),
]
SeedOpt = option(int, "--seed", help="Override run.seed.")
SummaryJsonOpt = Annotated[
    bool, typer.Option("--json", help="Print the summary as JSON instead of tables.")
]


def out_dir_option(help: str) -> Any:
    """The type of an ``--out DIR`` option: a directory (not a file) that the command writes
    into, `help` saying what it writes there."""
    return option(Path, "--out", file_okay=False, help=help)


RunOutOpt = out_dir_option(
    "Write summary.json, scenario.json and traces (Parquet) to this directory."
)
JobsOpt = option(int, "--jobs", "-j", min=1, help="Simulation threads (default: one per CPU).")
SchedulerOpt = option(
    str,
    "--scheduler",
    help="local:N (a Dask LocalCluster of N processes) or tcp://HOST:PORT (a running Dask "
    "scheduler). Default: this process.",
)
StoreOpt = option(
    Path,
    "--store",
    file_okay=False,
    help="The results store: rows are kept as runs finish; a rerun computes only what it lacks.",
)
SetOpt = option(
    list[str],
    "--set",
    "-s",
    metavar="KEY=VALUE",
    help="Override a field by dotted path, e.g. tcp.mss=536 or links.wan.rate=5Mbps "
    "(list elements by name). Repeatable.",
)
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


@dataclass(frozen=True)
class ScenarioInput:
    """What a command that runs one scenario file is given, declared once for `tcplab run` and
    `tcplab testbed run`: the file, its ``--set`` overrides, ``--seed``, ``--out DIR`` and
    ``--json``."""

    file: Path
    assignments: list[str] | None
    seed: int | None
    out: Path | None
    as_json: bool

    def load(self) -> "Scenario":
        """The scenario of the file with the ``--set`` overrides applied."""
        return load_scenario(self.file, self.assignments or [])


#: ScenarioInput's fields as a command's parameters, in the order ``--help`` lists them.
_SCENARIO_PARAMETERS = [
    inspect.Parameter(
        name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=kind
    )
    for name, kind, default in (
        ("file", FileArg, inspect.Parameter.empty),
        ("assignments", SetOpt, None),
        ("seed", SeedOpt, None),
        ("out", RunOutOpt, None),
        ("as_json", SummaryJsonOpt, False),
    )
]
assert [p.name for p in _SCENARIO_PARAMETERS] == [f.name for f in fields(ScenarioInput)]


def runs_a_scenario(command: Callable[..., Any]) -> Callable[..., Any]:
    """A command `command(given: ScenarioInput, **own)` as typer sees it: ScenarioInput's
    parameters first, then its own options."""
    own = list(inspect.signature(command).parameters.values())[1:]
    names = [f.name for f in fields(ScenarioInput)]

    @functools.wraps(command)
    def typer_command(**kwargs: Any) -> Any:
        given = ScenarioInput(**{name: kwargs.pop(name) for name in names})
        return command(given, **kwargs)

    parameters = _SCENARIO_PARAMETERS + own
    typer_command.__signature__ = inspect.Signature(parameters, return_annotation=None)  # type: ignore[attr-defined]
    typer_command.__annotations__ = {p.name: p.annotation for p in parameters}
    return typer_command
