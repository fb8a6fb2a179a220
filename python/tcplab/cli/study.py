"""``tcplab study``: list the reproduced studies, or run one and write its report.

    tcplab study --list
    tcplab study NAME [--seeds N] [--jobs N] [--out DIR] [--json] [--option NAME=VALUE ...]
                      [--store DIR] [--scheduler local:N | tcp://HOST:PORT]
    tcplab study sarkar2022 --testbed [--testbed-seeds N] [--testbed-budget S]

Running prints the study's main table and findings (or, with ``--json``, summary.json's
content on stdout) and the path of the report. A progress bar shows on stderr.

``--store DIR`` keeps every run's row in a results store as it finishes (query it with
``tcplab results DIR``); run again, the study computes only what the store lacks, so an
interrupted study resumes. ``--scheduler`` runs the simulations on a Dask cluster.

``--option NAME=VALUE`` sets one of the study's own options (``--list --json`` shows them);
``--testbed``, ``--testbed-seeds`` and ``--testbed-budget`` are the options ``testbed``,
``testbed_seeds`` and ``testbed_budget_s`` of the studies that have a testbed part (Linux and
root: real TCP through the impairment forwarder, in real time).
"""

# No `from __future__ import annotations` in this package: see tcplab.cli.
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from tcplab.errors import TcplabError
from tcplab.studies import KINDS, Finding, UnknownStudyError, get, headline, studies, verdict_counts

from ._common import (
    JobsOpt,
    SchedulerOpt,
    StoreOpt,
    command_group,
    fail,
    option,
    out_dir_option,
    say_interrupted,
    wide_console,
)

app = command_group(
    "study",
    "Reproduce a published study: tcplab study NAME [--out DIR], or --list.",
    invoke_without_command=True,
    no_args_is_help=False,
    subcommand_metavar="",
    # options may follow the study name: `tcplab study sarkar2022 --out DIR`
    context_settings={"allow_interspersed_args": True},
)

OutOpt = out_dir_option(
    "Write report.html, results.parquet, summary.json and figures/ here (default: out/NAME)."
)


def _print_list(as_json: bool) -> None:
    all_ = studies()
    if as_json:
        typer.echo(json.dumps([s.describe() for s in all_.values()], indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Studies", title_justify="left")
    table.add_column("name")
    table.add_column("seeds", justify="right")
    table.add_column("reproduces")
    for s in all_.values():
        opts = "".join(f"\n[dim]--option {o.name}={o.default}: {o.help}[/]" for o in s.options)
        table.add_row(s.name, str(s.default_seeds), f"{s.title}\n[dim]{s.citation}[/]{opts}")
    Console().print(table)


@app.callback()
def study(
    name: Annotated[
        str | None,
        typer.Argument(help="The study to run (see --list).", show_default=False),
    ] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the studies and exit.")] = False,
    seeds: option(int, "--seeds", min=1, help="Seeds per scenario (default: the study's).") = None,
    jobs: JobsOpt = None,
    out: OutOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print summary.json's content instead of tables.")
    ] = False,
    study_options: option(
        list[str],
        "--option",
        "-O",
        metavar="NAME=VALUE",
        help="Set one of the study's own options. Repeatable.",
    ) = None,
    store: StoreOpt = None,
    scheduler: SchedulerOpt = None,
    testbed: Annotated[
        bool,
        typer.Option(
            "--testbed",
            help="Also run the study's testbed part (Linux and root; real time, minutes).",
        ),
    ] = False,
    testbed_seeds: option(
        int,
        "--testbed-seeds",
        min=1,
        help="Seeds per testbed scenario (default: the study's, usually 1).",
    ) = None,
    testbed_budget: option(
        float,
        "--testbed-budget",
        min=1,
        help="Wall-time budget of one testbed run in seconds (default: the study's).",
    ) = None,
) -> None:
    """Reproduce a published study and write its report."""
    if list_ or name is None:
        _print_list(as_json)
        return
    try:
        st = get(name)
    except UnknownStudyError as e:
        raise fail(str(e)) from None
    options: dict[str, Any] = {}
    for text in study_options or []:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise fail(f"--option {text!r}: expected NAME=VALUE")
        options[key.strip()] = value.strip()
    for key, value in (
        ("testbed", True if testbed else None),
        ("testbed_seeds", testbed_seeds),
        ("testbed_budget_s", testbed_budget),
    ):
        if value is not None:
            options[key] = value
    try:
        opts = st.resolve_options(options)
        st.check_options(opts)
    except Exception as e:  # an unknown option, a bad value, or a part that cannot run here
        raise fail(str(e)) from None
    outdir = out if out is not None else Path("out") / st.name
    try:
        res = st.run(
            seeds=seeds,
            jobs=jobs,
            out=outdir,
            progress=not as_json,
            options=opts,
            store=store,
            scheduler=scheduler,
        )
    except TcplabError as e:
        raise fail(str(e)) from None
    except KeyboardInterrupt:
        msg = "; the runs that finished are in the store: run again to resume" if store else ""
        raise say_interrupted(msg) from None
    if as_json:
        summary = json.loads((outdir / "summary.json").read_text())
        summary["report"] = str(res.report_path)
        typer.echo(json.dumps(summary, indent=2))
        return
    from rich.table import Table

    console = wide_console(220)
    main = st.summary_table(res)
    if main is not None:
        from tcplab.report.html import fmt_number

        cells = [[fmt_number(v) for v in row] for row in main.display.itertuples(index=False)]
        table = Table(title=main.title, title_justify="left")
        for i, col in enumerate(main.display.columns):
            widest = max((len(r[i]) for r in cells), default=1)
            # numbers never wrap; a narrow terminal wraps the headings instead
            table.add_column(str(col), justify="left" if i == 0 else "right", min_width=widest)
        for r in cells:
            table.add_row(*r)
        console.print(table)
    _print_verdicts(console, res.findings)
    console.print(f"report: {res.report_path}", highlight=False, soft_wrap=True)


def _print_verdicts(console: Any, findings: list[Finding]) -> None:
    """The headline (counts by kind), then every verdict by kind: its title, what it tests
    and its one-line evidence."""
    from rich.markup import escape

    console.print(f"[bold]Verdicts[/]: {escape(headline(findings))}", highlight=False)
    marks = {"yes": "[green]yes[/]", "no": "[red]no[/]", "info": "[dim]info[/]"}
    for kind, counts in verdict_counts(findings).items():
        label = KINDS[kind]
        tally = (
            str(counts["info"])
            if kind == "note"
            else f"{counts['yes']} yes, {counts['no']} no"
            + (f", {counts['info']} not judged" if counts["info"] else "")
        )
        console.print(f"\n[bold]{escape(label[0].upper() + label[1:])}[/]: {tally}",
                      highlight=False)  # fmt: skip
        for f in (f for f in findings if f.kind == kind):
            console.print(f"[{marks[f.verdict]}] {escape(f.claim)}", highlight=False)
            if f.tests:
                console.print(f"      [dim]tests:[/] {escape(f.tests)}", highlight=False)
            if f.evidence:
                console.print(f"      [dim]evidence:[/] {escape(f.evidence)}", highlight=False)
