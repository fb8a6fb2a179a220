"""``tcplab conformance ns2``: tcplab's ns2 profile against ns-2.35 on the chain grid;
``tcplab conformance packetdrill DIR``: a corpus of packetdrill scripts against a profile.

    tcplab conformance packetdrill DIR [--profile linux] [--set tcp.NAME=VALUE ...] [--json]

    tcplab conformance ns2 [--grid full|reduced] [--seeds N] [--paired] [--jobs N] [--json]
                           [--loss P,P,..] [--delay MS,MS,..] [--rate MBPS] [--window PKTS]
                           [--packet-size BYTES] [--out DIR] [--set PATH=VALUE ...]
                           [--ns-tcl TCL]

``--loss``, ``--delay``, ``--rate``, ``--window`` and ``--packet-size`` move the grid to other
points of the same chain (the Tcl takes them too).

``--paired`` makes tcplab replay ns-2's own loss sequence and tick phase for each seed, so the
two sides of a seed can agree run by run (the ``identical`` column counts the runs that
deliver the same bytes).

``--set`` changes tcplab's scenarios (switch one of the profile's rules off:
``--set tcp.recover_guard_all=false``); ``--ns-tcl`` runs Tcl in ns-2 before the agents are
made (switch one of ns-2's defaults: ``--ns-tcl "Agent/TCP set tcpTick_ 0.001"``).
"""

# No `from __future__ import annotations` in this package: see tcplab.cli.
import json
from pathlib import Path
from typing import Annotated

import typer

from ._common import (
    JobsOpt,
    JsonOpt,
    SetOpt,
    command_group,
    fail,
    option,
    os_error_text,
    out_dir_option,
    parse_assignment,
    printable,
    wide_console,
)

app = command_group(
    "conformance",
    "Compare tcplab with a reference: ns-2 run live, or a corpus of packetdrill scripts.",
)

OutOpt = out_dir_option("Write cells.csv, runs-ns2.csv, runs-tcplab.csv, verdict.json here.")

_OPTIONS = {"probabilities": "--loss", "delays_ms": "--delay", "rate_mbps": "--rate",
            "pktsize": "--packet-size", "window": "--window", "seeds": "--seeds"}  # fmt: skip


def _numbers(option: str, text: str | None, kind: type) -> tuple | None:
    if text is None:
        return None
    try:
        return tuple(kind(x) for x in text.split(","))
    except ValueError:
        raise ValueError(
            f"{option}: invalid value {text!r}; allowed: {kind.__name__}s separated by commas"
        ) from None


@app.command("ns2")
def ns2_cmd(
    grid: Annotated[
        str, typer.Option("--grid", help="full (4 agents x 4 p x 2 RTTs) or reduced.")
    ] = "full",
    seeds: option(int, "--seeds", min=1, help="Seeds per cell (default: the grid's).") = None,
    loss: option(str, "--loss", help="Loss probabilities, comma-separated.") = None,
    delay: option(str, "--delay", help="One-way bottleneck delays in ms, comma-separated.") = None,
    rate: option(float, "--rate", help="Bottleneck rate in Mbit/s (2).") = None,
    window: option(int, "--window", help="window_ in packets (20).") = None,
    packet_size: option(int, "--packet-size", help="packetSize_ in bytes (1000).") = None,
    paired: Annotated[
        bool, typer.Option("--paired", help="Replay ns-2's losses and tick phase in tcplab.")
    ] = False,
    jobs: JobsOpt = None,
    assignments: SetOpt = None,
    ns_tcl: option(str, "--ns-tcl", help="Tcl run in ns-2 before the agents are made.") = None,
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Run the chain grid in ns-2 and in tcplab and compare them cell by cell."""
    from tcplab.conformance import ns2
    from tcplab.errors import TcplabError

    try:
        g = ns2.grid_named(
            grid,
            seeds,
            probabilities=_numbers("--loss", loss, float),
            delays_ms=_numbers("--delay", delay, int),
            rate_mbps=rate,
            window=window,
            pktsize=packet_size,
        )
        ns2.find_ns()
    except (ValueError, ns2.Ns2Unavailable) as e:
        field, sep, rest = str(e).partition(":")
        option = _OPTIONS.get(field, field)
        raise fail(f"{option}{sep}{rest}") from None
    overrides = dict(parse_assignment(a) for a in assignments or [])
    try:
        sim = ns2.run_tcplab(g, jobs=jobs, overrides=overrides or None, paired=paired)
    except TcplabError as e:
        raise fail(str(e)) from None
    ref = ns2.run_ns2(g, jobs=jobs, extra_tcl=ns_tcl)
    cells = ns2.compare(ref, sim, paired=paired)
    summary = ns2.verdict(cells)
    if out is not None:
        from tcplab._atomic import write_file

        for name, frame in (("cells", cells), ("runs-ns2", ref), ("runs-tcplab", sim)):
            write_file(out / f"{name}.csv", frame.to_csv(index=False).encode())
        write_file(out / "verdict.json", (json.dumps(summary, indent=2) + "\n").encode())
    if as_json:
        typer.echo(json.dumps({"verdict": summary, "cells": cells.to_dict("records")}, indent=2))
        return
    from rich.table import Table

    table = Table(title=f"tcplab ns2 profile vs ns-2.35, {g.seeds} seeds per cell"
                  + (", paired" if paired else ""),
                  title_justify="left")  # fmt: skip
    heads = ["agent", "p", "delay ms", "ns-2 B/s", "tcplab B/s", "ratio", "rtx ns-2", "rtx",
             "RTO ns-2", "RTO", "FR ns-2", "FR"] + (["identical"] if paired else [])  # fmt: skip
    for h in heads:
        table.add_column(h, justify="left" if h == "agent" else "right")
    for d in cells.to_dict("records"):
        mark = "" if abs(d["ratio"] - 1) <= 0.05 else "[red]"
        table.add_row(
            d["agent"], f"{d['p']:g}", str(d["delay_ms"]), f"{d['ns2.goodput_Bps']:,.0f}",
            f"{d['tcplab.goodput_Bps']:,.0f}", f"{mark}{d['ratio']:.3f}",
            f"{d['ns2.retransmissions']:.1f}", f"{d['tcplab.retransmissions']:.1f}",
            f"{d['ns2.timeouts']:.1f}", f"{d['tcplab.timeouts']:.1f}",
            f"{d['ns2.fast_retransmits']:.1f}", f"{d['tcplab.fast_retransmits']:.1f}",
            *([f"{d['identical']}/{g.seeds}"] if paired else []),
        )  # fmt: skip
    wide_console(160).print(table)
    typer.echo(
        f"goodput within 5 %: {summary['goodput_within_5pct']} of {summary['cells']} cells; "
        f"mean |ratio - 1| {100 * summary['mean_abs_ratio_minus_1']:.1f} %, "
        f"max {100 * summary['max_abs_ratio_minus_1']:.1f} %; retransmissions within 10 %: "
        f"{summary['retransmissions_within_10pct']}; timeouts within 10 %: "
        f"{summary['timeouts_within_10pct']}"
        + (f"; identical runs: {summary['identical_runs']} of {len(sim)}" if paired else "")
    )


@app.command("packetdrill")
def packetdrill_cmd(
    directory: Annotated[
        Path, typer.Argument(help="A folder of packetdrill scripts, one sub-folder a category.")
    ],
    profile: Annotated[
        str, typer.Option("--profile", help="The stack profile: linux, rfc, ns2, riverbed.")
    ] = "linux",
    assignments: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Play every *.pkt below DIR; a table per category and a verdict per script."""
    from tcplab.conformance import packetdrill as corpus
    from tcplab.errors import TcplabError

    from .packetdrill import check_profile

    check_profile(profile)
    overrides = dict(parse_assignment(a) for a in assignments or [])
    try:
        paths = corpus.scripts_in(directory)
    except OSError as e:
        raise fail(os_error_text(e)) from None
    if not paths:
        raise fail(f"{directory}: no *.pkt scripts below it")
    try:
        verdicts = [corpus.judge(directory, p, profile=profile, overrides=overrides) for p in paths]
    except TcplabError as e:  # a bad --set value
        raise fail(e) from None
    rows = corpus.table(verdicts)
    if as_json:
        typer.echo(json.dumps({"categories": rows, "scripts": [v.as_dict() for v in verdicts]},
                              indent=2))  # fmt: skip
        return
    from rich.table import Table

    table = Table(title=f"packetdrill scripts against the {profile} profile", title_justify="left")
    for h in ("category", "scripts", *corpus.VERDICTS):
        table.add_column(h, justify="left" if h == "category" else "right")
    for r in rows:
        table.add_row(r["category"], str(r["scripts"]), *(str(r[k]) for k in corpus.VERDICTS))
    console = wide_console(160)
    console.print(table)
    for v in verdicts:
        where = f":{v.line}" if v.line else ""
        text = f"{v.verdict:<11} {v.path}{where}" + (f"  {v.detail}" if v.detail else "")
        console.print(printable(text), markup=False, highlight=False, soft_wrap=True)
