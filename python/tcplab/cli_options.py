"""Typer argument and option types shared by ``tcplab run`` and ``tcplab testbed run``."""

from __future__ import annotations

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
