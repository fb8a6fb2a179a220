"""tcplab: a laboratory for TCP over noisy, high bit-error-rate links::

    >>> import tcplab
    >>> sc = tcplab.Scenario.from_toml("examples/sarkar2022.toml")
    >>> res = tcplab.run(sc, seed=2)
    >>> round(res.summary["apps"][0]["response_time_s"], 1)   # seconds to download 10 MB
    80.9

Every name below (and ``tcplab.models``, the analytic models, ``tcplab.topology``, the scenario
builders) is imported on first use: the `tcplab` command imports only what its sub-command
needs (a sweep's rerun that finds every run in its store no tables, ``tcplab version``
nothing).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tcplab import errors
from tcplab._core import __version__

if TYPE_CHECKING:
    from tcplab import models, topology
    from tcplab.api import Result, Scenario, run, run_many
    from tcplab.frames import flatten_summary, results_frame
    from tcplab.sweep import Store, Sweep

__all__ = [
    "Scenario",
    "Result",
    "run",
    "run_many",
    "Sweep",
    "Store",
    "results_frame",
    "flatten_summary",
    "errors",
    "models",
    "topology",
    "__version__",
]


# name -> the module that defines it
_LAZY = {
    "Scenario": "tcplab.api",
    "Result": "tcplab.api",
    "run": "tcplab.api",
    "run_many": "tcplab.api",
    "Sweep": "tcplab.sweep",
    "Store": "tcplab.sweep",
    "results_frame": "tcplab.frames",
    "flatten_summary": "tcplab.frames",
}


def __getattr__(name: str) -> Any:
    if name in ("models", "topology"):
        return importlib.import_module(f"tcplab.{name}")
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'tcplab' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    # The public names and the module's own dunders; not what this file imports for itself
    # (Any, importlib) nor the submodules Python has set on the package as they were imported.
    return sorted(set(__all__) | {n for n in globals() if n.startswith("__")})
