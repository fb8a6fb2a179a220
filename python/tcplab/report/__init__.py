"""What tcplab shows: figures, HTML pages, notebook views and tables, drawn from results'
summaries, traces and DataFrames (nothing here runs a simulation or imports `tcplab.api`).

* :mod:`.stats`: mean with a Student-t 95 % confidence interval.
* :mod:`.plots`: figures on the Agg canvas (no pyplot, no global backend), saving PNG + SVG,
  rates from cumulative byte counters.
* :mod:`.runplots`: one run's figures (windows, time-sequence, queues, link series).
* :mod:`.timeseq`: the packet exchange (who sent what, when it arrived, which ACKs are
  duplicates) from the per-packet log, and ladder / time-sequence diagrams of it.
* :mod:`.html`: a small builder for one self-contained HTML page (images embedded).
* :mod:`.tables`: a run's summary as tables (`Result.table()`, `tcplab run`).
* :mod:`.notebook`: the HTML views of a `Scenario` and a `Result` in a notebook.

The names below are imported on first use, so that `tcplab.report.tables` (which every
`Result` uses) does not bring matplotlib and pandas with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .html import HtmlReport
    from .plots import new_figure, rate_from_cumulative, save_figure
    from .stats import MeanCI, mean_ci, t_quantile_975
    from .timeseq import classify_exchange, first_loss_window, packet_exchange

__all__ = [
    "HtmlReport",
    "MeanCI",
    "classify_exchange",
    "first_loss_window",
    "mean_ci",
    "new_figure",
    "packet_exchange",
    "rate_from_cumulative",
    "save_figure",
    "t_quantile_975",
]

# name -> the module that defines it
_LAZY = {
    "HtmlReport": "html",
    "new_figure": "plots",
    "rate_from_cumulative": "plots",
    "save_figure": "plots",
    "MeanCI": "stats",
    "mean_ci": "stats",
    "t_quantile_975": "stats",
    "classify_exchange": "timeseq",
    "first_loss_window": "timeseq",
    "packet_exchange": "timeseq",
}


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'tcplab.report' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
