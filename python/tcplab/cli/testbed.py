"""``tcplab testbed``: run a scenario on the testbed (real Linux TCP between network namespaces,
through tcplab-netem), with the same result schema as ``tcplab run``.

    tcplab testbed run FILE [--seed N] [--json] [--out DIR] [--set key=value ...]
                            [--time-budget S] [--pcap FILE] [--dry-run]
    tcplab testbed cleanup

``run`` takes the same scenario file as ``tcplab run`` and maps it onto the testbed
(`tcplab.testbed.plan.plan`); what the testbed cannot express is refused (exit 2, naming the
field) and what it approximates is listed. ``--dry-run`` prints the mapping without running
(no root needed). The run needs Linux and root; elsewhere it exits 2 saying what is missing.
``cleanup`` removes namespaces, interfaces and processes left by an interrupted run.
"""

# No `from __future__ import annotations` in this package: see tcplab.cli.
import json
import os
import platform
from pathlib import Path
from typing import Annotated

import typer

from tcplab.testbed.errors import TestbedConfigError, TestbedError, TestbedUnavailable

from ._common import (
    EXIT_RUN_FAILED,
    ScenarioInput,
    command_group,
    fail,
    option,
    runs_a_scenario,
)

app = command_group(
    "testbed",
    "Run a scenario on the Linux testbed (real TCP through the impairment forwarder).",
)


@app.command("run")
@runs_a_scenario
def testbed_run_cmd(
    given: ScenarioInput,
    time_budget: option(
        float,
        "--time-budget",
        min=1,
        help="Wall-time limit of the run in seconds (default: the scenario's stop time + 60).",
    ) = None,
    pcap: option(Path, "--pcap", dir_okay=False, help="Capture the forwarded frames here.") = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print the mapping (TestbedConfig, approximations) only."),
    ] = False,
) -> None:
    """Run a scenario on the testbed and print its summary (the layout of `tcplab run`)."""
    from tcplab import errors
    from tcplab.testbed import plan as tb_plan
    from tcplab.testbed import result as tb_result

    try:
        scenario = given.load()
        extra = {"pcap_path": str(pcap)} if pcap is not None else {}
        p = tb_plan.plan(scenario, seed=given.seed, time_budget_s=time_budget, **extra)
    except TestbedConfigError as e:  # a TcplabError too: caught first, for its wording
        raise fail(f"the testbed cannot run this scenario: {e}") from None
    except errors.TcplabError as e:
        raise fail(str(e)) from None
    if dry_run:
        typer.echo(json.dumps(p.to_dict(), indent=2))
        return
    if not given.as_json:
        for line in tb_plan.describe_plan(p):
            typer.echo(line, err=True)
    try:
        seed = given.seed
        result = tb_result.run_plan(scenario if seed is None else scenario.with_seed(seed), p)
    except TestbedUnavailable as e:
        raise fail(str(e)) from None
    except TestbedConfigError as e:
        raise fail(f"the testbed cannot run this scenario: {e}") from None
    except TestbedError as e:
        raise fail(e, EXIT_RUN_FAILED, prefix="testbed run failed: ") from None
    if given.out is not None:
        written = result.to_dir(given.out)
        typer.echo(f"wrote {written}", err=True)
    if given.as_json:
        typer.echo(json.dumps(result.summary, indent=2, default=str))
        return
    from rich.console import Console

    s = result.summary
    typer.echo(
        f"testbed run {s['testbed']['run_id']}: Linux {s['connections'][0]['congestion_control']} "
        f"({s['connections'][0]['loss_recovery']}), largest window offered to the sender "
        f"{s['max_rcv_window_seen']} B",
        err=True,
    )
    Console().print(result.table())


@app.command("cleanup")
def cleanup_cmd(
    run_id: option(
        str, "--run-id", help="Only the leftovers of this run, whether its owner lives or not."
    ) = None,
    everything: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Every tcplab namespace, interface and working directory, runs in progress "
            "included (the old behaviour).",
        ),
    ] = False,
) -> None:
    """Remove what interrupted testbed runs left: namespaces (and the processes in them),
    interfaces and working directories. By default only runs whose owning process is gone,
    so that a run in progress on a shared machine is left alone."""
    import re

    from tcplab.testbed.netns import PREFIX, cleanup, list_namespaces

    if run_id is not None and not re.fullmatch(r"[a-z0-9]{1,8}", run_id):
        raise fail(f"--run-id {run_id!r}: a run id is 1 to 8 lowercase letters or digits")
    if run_id is not None and everything:
        raise fail("--run-id and --all: choose one")
    if platform.system() != "Linux":
        raise fail(f"the testbed needs Linux network namespaces; this is {platform.system()}")
    if os.geteuid() != 0:
        raise fail("removing network namespaces needs root (CAP_SYS_ADMIN); run as root")
    if run_id is not None:
        gone = cleanup(f"{PREFIX}{run_id}-")
    else:
        gone = cleanup(PREFIX, only_dead=not everything)
    for item in gone:
        typer.echo(f"removed {item}")
    if not gone:
        typer.echo("nothing to clean up")
    alive = sorted(list_namespaces(PREFIX))
    if alive:
        typer.echo(f"left {len(alive)} namespaces of runs in progress: {', '.join(alive)}")
