"""A sweep's runs (`Task`) and where they run (`parse_scheduler`): what a sweep needs before it
runs anything. Apart from `tcplab.sweep.execute` (which re-exports both), so that a rerun that
finds every run in its store does not import the executors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from tcplab import errors as _errors

__all__ = ["Task", "parse_scheduler", "ClusterError"]


class ClusterError(_errors.TcplabError):
    """The Dask cluster a sweep ran on was lost (its scheduler, or every worker) or could
    not run a batch: the runs that finished are kept, and running the sweep again resumes."""

    kind = "cluster"


class Task(NamedTuple):
    """One run: its id, seed, the columns that say where in the grid it is, and the scenario
    as the core's JSON. `keep` asks for the run's full Result (traces) besides its row.
    (A named tuple: a sweep makes one per run, and a frozen dataclass costs 1.5 us each.)"""

    run_id: str
    seed: int
    labels: Mapping[str, Any]
    scenario: str
    keep: bool = False
    #: A sweep's: the grid point's scenario (JSON, any seed), one text shared by its seeds; the
    #: core parses it once and gives each run its seed (`_core.run_points_flat`).
    point_scenario: str | None = None


def parse_scheduler(spec: str | None) -> tuple[str, Any]:
    """``None`` (this process), ``local:N`` (a Dask LocalCluster of N worker processes) or
    ``tcp://HOST:PORT`` (an existing Dask scheduler) -> (kind, argument)."""
    allowed = "local:N (N worker processes) or tcp://HOST:PORT (a running Dask scheduler)"
    if spec is None or spec == "":
        return "inprocess", None
    if spec.startswith("local:"):
        n = spec.removeprefix("local:")
        if not n.isdigit() or int(n) < 1:
            raise _errors._invalid("--scheduler", spec, "N must be a positive integer", allowed)
        return "local", int(n)
    if spec.startswith(("tcp://", "tls://")):
        return "remote", spec
    raise _errors._invalid("--scheduler", spec, "", allowed)
