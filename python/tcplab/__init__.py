"""tcplab: a laboratory for TCP over noisy, high bit-error-rate links.

>>> import tcplab
>>> sc = tcplab.Scenario.from_toml("examples/sarkar2022.toml")      # doctest: +SKIP
>>> res = tcplab.run(sc, seed=2)                                   # doctest: +SKIP
>>> res.summary["apps"][0]["response_time_s"]                      # doctest: +SKIP

``tcplab.models`` (analytic models) and ``tcplab.topology`` (scenario builders) are imported
on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tcplab import errors
from tcplab._core import __version__
from tcplab.api import Result, Scenario, run, run_many
from tcplab.frames import flatten_summary, results_frame
from tcplab.sweep import Store, Sweep

if TYPE_CHECKING:
    from tcplab import models, topology

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


def __getattr__(name: str) -> Any:
    if name in ("models", "topology"):
        return importlib.import_module(f"tcplab.{name}")
    raise AttributeError(f"module 'tcplab' has no attribute {name!r}")
