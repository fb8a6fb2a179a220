"""``tcplab draw``: the scenario's network as a diagram (nodes, links with their rate, delay,
queue and error model, the applications), laid out automatically.

    tcplab draw FILE [--out FILE.png|.svg|.pdf] [--set key=value ...]
"""

# No `from __future__ import annotations` in this package: see tcplab.cli.
from pathlib import Path

import typer

from tcplab import errors

from ._common import FileArg, SetOpt, fail, load_scenario, option

app = typer.Typer()

_FORMATS = ("png", "svg", "pdf")


@app.command("draw")
def draw_cmd(
    file: FileArg,
    out: option(
        Path,
        "--out",
        "-o",
        dir_okay=False,
        help="The drawing: .png, .svg or .pdf (a PNG and an SVG are written beside it). "
        "Default: <FILE's name>.png in the current directory.",
    ) = None,
    assignments: SetOpt = None,
) -> None:
    """Draw the scenario's network: nodes, links (rate, delay, queue, errors), applications."""
    from tcplab.report.netdraw import draw_network
    from tcplab.report.plots import save_figure

    target = out if out is not None else Path(f"{file.stem}.png")
    suffix = target.suffix.lower().lstrip(".")
    if suffix not in _FORMATS:
        raise fail(
            errors._invalid(
                "--out", str(target), "the suffix names the format", ".png, .svg or .pdf"
            )
        )
    try:
        scenario = load_scenario(file, assignments or [])
        fig = draw_network(scenario.to_dict(normalized=True))
    except errors.TcplabError as e:
        raise fail(e) from None
    formats = ["png", "svg"] + (["pdf"] if suffix == "pdf" else [])
    paths = save_figure(fig, target.parent, target.stem, formats=formats)
    typer.echo("wrote " + " and ".join(str(p) for p in paths.values()), err=True)
