"""``tcplab sweep``, ``tcplab results`` and ``tcplab plot``: a grid of runs into a results store,
and what the store (or one run's directory) holds.

tcplab sweep FILE --grid PATH=VALUES [--grid ...] [--zip] --seeds 1..20 --store DIR
             [--jobs N] [--scheduler local:N | tcp://HOST:PORT] [--set PATH=VALUE] [--json]
             [--keep trace,link_series,app_series,queues] [--max-runs N]
tcplab sweep --repair --store DIR [--jobs N] [--scheduler ...]
tcplab results DIR [--sql "SELECT ..."] [--csv | --json]
tcplab plot DIR --x PATH --y COLUMN [--hue PATH] [--logx] [--logy] [--where COND]
            [--unit U] [--xlabel T] [--ylabel T] [--title T] [--out FILE]
tcplab plot DIR --series COLUMN [--where COND] [--hue PATH] [--logy] [--out FILE]

What a store holds is data: values are printed as text (control characters escaped), never as
markup or terminal commands, and a query (--sql, --where) is one SELECT or one condition.
"""

# No `from __future__ import annotations` in this package: see tcplab.cli.
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from tcplab import errors

from ._common import (
    EXIT_RUN_FAILED,
    JobsOpt,
    SchedulerOpt,
    SetOpt,
    StoreOpt,
    echo_figures,
    fail,
    option,
    os_error_text,
    parse_assignment,
    printable,
    say_interrupted,
    wide_console,
)

app = typer.Typer()

StoreArg = Annotated[
    Path,
    typer.Argument(file_okay=False, help="A results store directory.", show_default=False),
]


def _open_store(path: Path) -> Any:
    from tcplab.sweep.store import Store

    st = Store(path)
    if not st.exists():
        raise fail(
            errors._make(
                errors.InvalidValueError,
                f"{path}: no tcplab store here (a store is made by tcplab sweep ... --store DIR)",
                field="DIR",
                value=str(path),
            )
        )
    return st


def _warn(message: str) -> None:
    typer.echo(f"warning: {printable(message)}", err=True)


@app.command("sweep")
def sweep_cmd(
    file: Annotated[
        Path | None,
        typer.Argument(
            exists=True,
            dir_okay=False,
            readable=True,
            help="Base scenario (TOML); its sweep table, if it has one, gives grid, seeds and zip.",
            show_default=False,
        ),
    ] = None,
    grid: option(
        list[str],
        "--grid",
        "-g",
        metavar="PATH=VALUES",
        help="An axis: PATH=V1,V2,... or PATH=LO..HI:N (linear) or PATH=LO..HI:Nlog. "
        "Repeatable, each path once.",
    ) = None,
    seeds: option(
        str,
        "--seeds",
        help="Seeds: 1..20, 1,2,5, or N for 1..N (default: the file's sweep table, else 1).",
    ) = None,
    store: StoreOpt = None,
    zip_: Annotated[
        bool, typer.Option("--zip", help="Pair the axes element-wise instead of the product.")
    ] = False,
    jobs: JobsOpt = None,
    scheduler: SchedulerOpt = None,
    assignments: SetOpt = None,
    keep: option(
        str,
        "--keep",
        metavar="TABLES",
        help="Keep these per-run tables beside the rows (trace, link_series, app_series, "
        "queues; comma-separated): tables of the store, keyed by run_id.",
    ) = None,
    max_runs: Annotated[
        int,
        typer.Option(
            "--max-runs",
            min=1,
            help="The most runs (points x seeds) the sweep may have; a larger one is refused "
            "before anything is made.",
        ),
    ] = 1_000_000,
    repair: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="Check every part of the store (--store DIR, no FILE), set aside what is "
            "damaged and compute again every run its sweeps lack.",
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print what was run as JSON (no progress bar).")
    ] = False,
) -> None:
    """Run a grid of scenarios x seeds into a resumable results store (or repair one)."""
    from tcplab.sweep import Sweep
    from tcplab.sweep import repair as repair_store
    from tcplab.sweep.grid import parse_axis
    from tcplab.sweep.task import ClusterError

    if store is None:
        raise fail("--store DIR is required: the directory that keeps the rows")
    if repair and (file is not None or grid or seeds or assignments or keep or zip_):
        raise fail(
            "--repair: takes the store alone (tcplab sweep --repair --store DIR): the grid, "
            "seeds and base scenario are those recorded in it"
        )
    if not repair and file is None:
        raise fail("FILE: missing; the base scenario to sweep (or --repair --store DIR)")
    if scheduler:  # what happens to the cluster is said once, by the sweep: not Dask's log
        from tcplab.sweep.execute import silence_dask

        silence_dask()
    try:
        if repair:
            out = repair_store(
                store, scheduler=scheduler, jobs=jobs, progress=not as_json, notify=_warn,
                max_runs=max_runs,
            )  # fmt: skip
            sw = None
        else:
            assert file is not None
            axes = [parse_axis(g) for g in grid or []]
            overrides = dict(parse_assignment(a) for a in assignments or [])
            sw = Sweep.from_toml(
                file,
                grid=axes,
                seeds=seeds,
                zip=True if zip_ else None,
                overrides=overrides,
                max_runs=max_runs,
            )
            out = sw.run(
                store=store,
                scheduler=scheduler,
                jobs=jobs,
                progress=not as_json,
                keep=keep.split(",") if keep else (),
                notify=_warn,
            )
    except ClusterError as e:
        raise fail(f"{e} ({_rows_in(store)} rows are in {store})", EXIT_RUN_FAILED) from None
    except OSError as e:  # a full disk: what was written before is whole and kept
        raise fail(
            f"{os_error_text(e)}; {_rows_in(store)} rows written before are kept in {store}: "
            "run the same sweep again, with room, to resume"
        ) from None
    except errors.TcplabError as e:
        raise fail(e) from None
    except KeyboardInterrupt:
        raise say_interrupted(
            ": the runs that finished are in the store; run again to resume"
        ) from None
    info = {
        "store": str(store),
        "runs": out.total,
        "computed": out.computed,
        "reused": out.reused,
        "points": len(sw.points) if sw is not None else None,
        "seeds": len(sw.seeds) if sw is not None else None,
        "set_aside": out.set_aside,
        "seconds": round(out.seconds, 3),
    }
    if as_json:
        typer.echo(json.dumps(info, indent=2))
    elif sw is None:
        typer.echo(
            f"repaired {store}: {out.set_aside} damaged parts set aside, {out.computed} runs "
            f"computed again, {out.reused} whole; {out.seconds:.2f} s"
        )
    else:
        typer.echo(
            f"{out.total} runs ({len(sw.points)} points x {len(sw.seeds)} seeds): "
            f"{out.computed} computed, {out.reused} already in {store}, {out.seconds:.2f} s"
        )


def _header(name: str, width: int = 16) -> str:
    """A column's name as a table header: a dotted path broken after its dots into lines of
    about `width` characters (``apps.ftp.`` / ``response_time_s.`` / ``ci95``), so that columns
    sharing a long prefix (apps.ftp.response_time_s and apps.ftp.response_time_s.ci95) still
    show where they differ instead of an ellipsis."""
    lines: list[str] = []
    for part in name.replace(".", ".\n").splitlines():
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        else:
            lines.append(part)
    return "\n".join(lines)


def _rows_in(store: Path) -> str:
    from tcplab.sweep.store import Store

    try:
        return str(len(Store(store).check().ids))
    except Exception:  # noqa: BLE001 - a count for the message only
        return "the finished"


def _print_frame(df: Any, *, as_csv: bool, as_json: bool) -> None:
    """Print rows as data: text is escaped (no control character, no escape sequence reaches
    the terminal) and never read as markup."""
    if as_csv:
        if sys.stdout.isatty():
            df = df.rename(columns=printable).map(
                lambda v: printable(v) if isinstance(v, str) else v
            )
        sys.stdout.write(df.to_csv(index=False))
        return
    if as_json:
        typer.echo(df.to_json(orient="records", indent=2))  # JSON escapes control characters
        return
    from rich.table import Table
    from rich.text import Text

    from tcplab.report.html import fmt_number

    console = wide_console(max(120, 16 * len(df.columns)))
    table = Table(title_justify="left")
    for col in df.columns:
        table.add_column(
            Text("\n".join(map(printable, _header(str(col)).split("\n")))),
            justify="right",
            overflow="fold",
        )
    for row in df.itertuples(index=False):
        table.add_row(*(Text(printable(v) if isinstance(v, str) else fmt_number(v)) for v in row))
    console.print(table)


def _open_checked(path: Path) -> Any:
    """The store at `path`, after saying on stderr that it is partial (a sweep into it did not
    finish, or is running)."""
    st = _open_store(path)
    try:
        note = st.check().partial(st.path)
    except errors.TcplabError as e:
        raise fail(e) from None
    if note:
        _warn(note)
    return st


@app.command("results")
def results_cmd(
    directory: StoreArg,
    sql: option(str, "--sql", help="A DuckDB query over the table runs.") = None,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON records.")] = False,
) -> None:
    """Print a store's rows: a query's, or per grid point the mean and 95 % CI over seeds."""
    from tcplab.sweep.summary import store_summary

    if as_csv and as_json:
        raise fail("--csv and --json: choose one output format")
    st = _open_checked(directory)
    try:
        df = st.sql(sql) if sql else store_summary(st)
    except errors.TcplabError as e:
        raise fail(e) from None
    _print_frame(df, as_csv=as_csv, as_json=as_json)


@app.command("plot")
def plot_cmd(
    directory: Annotated[
        Path,
        typer.Argument(
            file_okay=False,
            help="A results store (tcplab sweep --store) or a run directory (tcplab run --out).",
            show_default=False,
        ),
    ],
    x: option(str, "--x", help="Store: column on the x axis (a grid path).") = None,
    y: option(str, "--y", help="Store: column on the y axis (a summary column).") = None,
    hue: option(str, "--hue", help="Store: one line per value of this column.") = None,
    logx: Annotated[bool, typer.Option("--logx", help="Store: logarithmic x axis.")] = False,
    logy: Annotated[bool, typer.Option("--logy", help="Store: logarithmic y axis.")] = False,
    where: option(str, "--where", help="Store: keep the rows meeting a DuckDB condition.") = None,
    unit: option(
        str,
        "--unit",
        help="Store: the y axis's unit (Mbit/s, kB/s, ms, s, kB, %, ...; default: a "
        "readable one chosen from the values).",
    ) = None,
    xlabel: option(
        str,
        "--xlabel",
        help="Store: the x axis's label (default: what the column holds, e.g. "
        "'wan:ab loss probability'); its unit is added.",
    ) = None,
    ylabel: option(
        str,
        "--ylabel",
        help="Store: the y axis's label (default: e.g. 'ftp throughput'); its unit is added.",
    ) = None,
    title: option(
        str, "--title", help="Store: the title (default: the seeds behind each point; '' for none)."
    ) = None,
    series: option(
        str,
        "--series",
        metavar="COLUMN",
        help="Store: draw this column of a kept per-run table (tcplab sweep --keep: "
        "cwnd, packets, bits_per_s, ...) over time, a line per run --where selects.",
    ) = None,
    out: option(
        Path,
        "--out",
        help="Store: figure file, .png, .svg or .pdf (a PNG and an SVG are written "
        "beside it), default DIR/plots/<y>.png. Run: directory of the figures, default "
        "DIR/plots.",
    ) = None,
) -> None:
    """Draw a store's mean and 95 % CI over seeds of a column against a grid path, or a run's
    windows, time-sequence diagram and queues."""
    if (directory / "summary.json").is_file():
        store_only = {"--x": x, "--y": y, "--hue": hue, "--where": where, "--unit": unit}
        store_only |= {"--xlabel": xlabel, "--ylabel": ylabel, "--title": title, "--series": series}
        store_only |= {"--logx": logx or None, "--logy": logy or None}
        _plot_run_dir(directory, out, store_only)
        return
    from tcplab._atomic import as_name, inside
    from tcplab.sweep.store import Store
    from tcplab.sweep.summary import plot_series, plot_store

    if not Store(directory).exists():
        raise fail(
            errors._make(
                errors.InvalidValueError,
                f"{directory}: neither a run directory (tcplab run --out DIR writes one) nor "
                "a results store (tcplab sweep ... --store DIR)",
                field="DIR",
                value=str(directory),
            )
        )
    st = _open_checked(directory)
    try:
        if series is not None:
            store_xy = {"--x": x, "--y": y, "--logx": logx or None, "--unit": unit}
            store_xy |= {"--xlabel": xlabel, "--ylabel": ylabel, "--title": title}
            for option, value in store_xy.items():
                if value is not None:
                    raise fail(f"{option}: not with --series (a series is drawn over time)")
            name = as_name(f"series-{series}")
            target = out or inside(directory / "plots", f"{name}.png", field="--series")
            paths = plot_series(st, series=series, where=where, hue=hue, logy=logy, out=target)
        else:
            for option, value in (("--x", x), ("--y", y)):
                if value is None:
                    raise fail(
                        errors._make(
                            errors.MissingFieldError,
                            f"{option}: missing; a store's plot needs --x GRID_PATH and --y "
                            "COLUMN (or --series COLUMN)",
                            field=option,
                        )
                    )
            assert x is not None and y is not None
            target = out or inside(directory / "plots", f"{as_name(y)}.png", field="--y")
            labels = {"xlabel": xlabel, "ylabel": ylabel, "unit": unit, "title": title}
            paths = plot_store(
                st, x=x, y=y, hue=hue, logx=logx, logy=logy, where=where, out=target, **labels
            )
    except errors.TcplabError as e:
        raise fail(e) from None
    typer.echo("wrote " + " and ".join(str(p) for p in paths.values()), err=True)


def _plot_run_dir(directory: Path, out: Path | None, store_only: dict[str, Any]) -> None:
    """`tcplab plot RUN_DIR`: the figures of one run written by `tcplab run --out`."""
    from tcplab.api import Result

    given = [k for k, v in store_only.items() if v is not None]
    if given:
        raise fail(
            errors._make(
                errors.InvalidValueError,
                f"{given[0]}: not for a run directory ({directory} holds one run); "
                "it applies to a results store",
                field=given[0],
            )
        )
    try:
        result = Result.from_dir(directory)
        paths = result.plot(out if out is not None else directory / "plots")
    except errors.TcplabError as e:
        raise fail(e) from None
    echo_figures(paths)
