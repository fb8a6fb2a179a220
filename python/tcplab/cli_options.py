"""Typer argument and option types shared by the commands (run, sweep, study, testbed, ...)."""

from pathlib import Path
from typing import Annotated

import typer

FileArg = Annotated[
    Path,
    typer.Argument(
        exists=True, dir_okay=False, readable=True, help="Scenario file (TOML).", show_default=False
    ),
]
SeedOpt = Annotated[
    int | None, typer.Option("--seed", help="Override run.seed.", show_default=False)
]
SummaryJsonOpt = Annotated[
    bool, typer.Option("--json", help="Print the summary as JSON instead of tables.")
]
RunOutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        file_okay=False,
        help="Write summary.json, scenario.json and traces (Parquet) to this directory.",
        show_default=False,
    ),
]
JobsOpt = Annotated[
    int | None,
    typer.Option(
        "--jobs", "-j", min=1, help="Simulation threads (default: one per CPU).", show_default=False
    ),
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="local:N (a Dask LocalCluster of N processes) or tcp://HOST:PORT (a running Dask "
        "scheduler). Default: this process.",
        show_default=False,
    ),
]
StoreOpt = Annotated[
    Path | None,
    typer.Option(
        "--store",
        file_okay=False,
        help="The results store: rows are kept as runs finish; a rerun computes only what it "
        "lacks.",
        show_default=False,
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
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


class _Interrupted:
    said = False


def say_interrupted(detail: str = "") -> typer.Exit:
    """Print ``interrupted<detail>`` on stderr once and return the Exit (status 130) to raise;
    the entry point then does not print it again (it sets 143 for SIGTERM)."""
    _Interrupted.said = True
    typer.echo(f"interrupted{detail}", err=True)
    return typer.Exit(130)


def interrupted_said() -> bool:
    return _Interrupted.said
