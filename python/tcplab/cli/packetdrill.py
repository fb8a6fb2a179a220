"""``tcplab packetdrill SCRIPT...``: play packetdrill scripts against a simulated endpoint.

    tcplab packetdrill SCRIPT... [--profile linux] [--set tcp.NAME=VALUE ...]
                                 [--tolerance-usecs N] [--json]

Each script passes or prints its first mismatch as packetdrill does (the line, the expected
and the actual segment, the time). Exit status 0 when every script passed, 1 when one failed
(or uses something tcplab does not model), 2 when one is not a script tcplab can read.
The scripts' ``%{ }%`` blocks are Python and are executed: run only scripts you trust.
"""

# No `from __future__ import annotations` in this package: see tcplab.cli.
import json
from pathlib import Path
from typing import Annotated

import typer

from ._common import (
    JsonOpt,
    SetOpt,
    fail,
    option,
    os_error_text,
    parse_assignment,
    printable,
)

app = typer.Typer(add_completion=False)

ProfileOpt = Annotated[
    str,
    typer.Option(
        "--profile", help="The stack profile the endpoint runs: linux, rfc, ns2, riverbed."
    ),
]
ToleranceOpt = option(
    int,
    "--tolerance-usecs",
    min=0,
    help="packetdrill's --tolerance_usecs (default: the script's header, else 4000).",
)


def check_profile(profile: str) -> None:
    if profile not in ("linux", "rfc", "ns2", "riverbed"):
        raise fail(f"--profile: invalid value {profile!r}; allowed: linux, rfc, ns2, riverbed")


@app.command("packetdrill")
def packetdrill_cmd(
    scripts: Annotated[
        list[Path], typer.Argument(help="packetdrill scripts (.pkt).", show_default=False)
    ],
    profile: ProfileOpt = "linux",
    assignments: SetOpt = None,
    tolerance_usecs: ToleranceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Play packetdrill scripts against tcplab's endpoint; report the first mismatch of each."""
    from tcplab import packetdrill
    from tcplab.errors import TcplabError

    check_profile(profile)
    overrides = dict(parse_assignment(a) for a in assignments or [])
    status, results = 0, []
    for path in scripts:
        try:
            outcome = packetdrill.run_file(
                path, profile=profile, overrides=overrides, tolerance_usecs=tolerance_usecs
            )
        except packetdrill.ScriptError as e:
            if as_json:
                results.append({"script": str(path), "verdict": "invalid", "line": e.line,
                                "message": e.message})  # fmt: skip
            else:
                fail(e)
            status = 2
            continue
        except OSError as e:
            fail(os_error_text(e))
            status = 2
            continue
        except TcplabError as e:  # a bad --set value
            raise fail(e) from None
        f = outcome.failure
        if as_json:
            results.append({
                "script": str(path), "verdict": "pass" if f is None else
                ("unsupported" if f.kind == "unsupported" else "fail"),
                **({} if f is None else {"line": f.line, "kind": f.kind, "message": f.message,
                                         "time": None if f.time_us is None else f.time_us / 1e6,
                                         "expected": f.expected, "actual": f.actual}),
            })  # fmt: skip
        elif f is None:
            typer.echo(f"pass {printable(path)} ({outcome.events} events)")
        else:
            head = "unsupported" if f.kind == "unsupported" else "FAIL"
            lines = f.lines(str(path))
            typer.echo(f"{head} {printable(lines[0])}")
            for extra in lines[1:]:
                typer.echo(f"  {printable(extra)}")
        if f is not None:
            status = max(status, 1)
    if as_json:
        typer.echo(json.dumps(results, indent=2))
    raise typer.Exit(status)
