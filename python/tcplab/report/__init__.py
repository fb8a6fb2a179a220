"""Shared helpers for study reports: statistics, matplotlib figures and self-contained HTML.

* :mod:`.stats`: mean with a Student-t 95 % confidence interval.
* :mod:`.plots`: figures on the Agg canvas (no pyplot, no global backend), saving PNG + SVG,
  rates from cumulative byte counters.
* :mod:`.timeseq`: the packet exchange (who sent what, when it arrived, which ACKs are
  duplicates) from the per-packet log, and ladder / time-sequence diagrams of it.
* :mod:`.html`: a small builder for one self-contained HTML page (images embedded).
"""

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
