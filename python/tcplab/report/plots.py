"""Matplotlib on the Agg canvas, without pyplot.

Figures are made with `matplotlib.figure.Figure` and an explicit `FigureCanvasAgg`, so
nothing here touches pyplot's global state or the process-wide backend: this works headless,
in threads and under pytest's ``filterwarnings = error``.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = [
    "PALETTE",
    "new_figure",
    "save_figure",
    "figure_png_bytes",
    "rate_from_cumulative",
    "step_at",
]

#: Colours of a series (colour-blind safe: Okabe-Ito).
PALETTE = ("#0072B2", "#009E73", "#E69F00", "#D55E00", "#CC79A7", "#56B4E9", "#000000")

# Deterministic files: no creation date, fixed SVG ids.
_SVG_META = {"Date": None}
_PNG_META = {"Software": None}
_RC = {"svg.hashsalt": "tcplab", "svg.fonttype": "path"}


def new_figure(
    nrows: int = 1,
    ncols: int = 1,
    *,
    figsize: tuple[float, float] = (8.0, 4.5),
    **subplot_kw: Any,
) -> tuple[Figure, Any]:
    """A figure with an Agg canvas and its axes (`Figure.subplots` arguments pass through:
    sharex, sharey, squeeze, gridspec_kw ...)."""
    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, **subplot_kw)
    return fig, axes


def save_figure(fig: Figure, outdir: str | Path, name: str, *, dpi: int = 110) -> dict[str, Path]:
    """Write `name`.png and `name`.svg into `outdir`; return their paths by format. Each file
    is drawn in memory and written by `tcplab._atomic.write_file`: whole or absent, also on a
    full disk; `name` must be a name (it stays inside `outdir`)."""
    import matplotlib

    from tcplab._atomic import inside, write_file

    out = Path(outdir)
    paths = {fmt: inside(out, f"{name}.{fmt}", field="figure name") for fmt in ("png", "svg")}
    with matplotlib.rc_context(_RC):
        for fmt, meta, kw in (("png", _PNG_META, {"dpi": dpi}), ("svg", _SVG_META, {})):
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, metadata=meta, **kw)
            write_file(paths[fmt], buf.getvalue())
    return paths


def figure_png_bytes(fig: Figure, *, dpi: int = 110) -> bytes:
    """The figure as PNG bytes (for embedding)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata=_PNG_META)
    return buf.getvalue()


def step_at(time_s: Sequence[float], values: Sequence[float], at: Sequence[float]) -> np.ndarray:
    """Value of a step function (each sample holds until the next one) at times `at`;
    before the first sample, the first value."""
    t = np.asarray(time_s, dtype=float)
    v = np.asarray(values, dtype=float)
    if len(t) == 0:
        return np.zeros(len(np.asarray(at)), dtype=float)
    idx = np.searchsorted(t, np.asarray(at, dtype=float), side="right") - 1
    return v[np.clip(idx, 0, len(v) - 1)]


def rate_from_cumulative(
    time_s: Sequence[float],
    cumulative: Sequence[float],
    *,
    bin_s: float = 1.0,
    t_end: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Rate (units per second) in consecutive bins of `bin_s` from a cumulative counter
    sampled on change (e.g. the trace's ``bytes_received``).

    Returns (bin start times, rate in each bin). The counter is read as a step function, so
    the rate of a bin is (counter at its end - counter at its start) / bin_s, the way a
    simulator that records "traffic received per second" bins it.
    """
    if bin_s <= 0:
        raise ValueError(f"bin_s must be positive, got {bin_s}")
    t = np.asarray(time_s, dtype=float)
    end = float(t_end if t_end is not None else (t.max() if len(t) else 0.0))
    nbins = max(1, int(np.ceil(end / bin_s)))
    edges = np.arange(nbins + 1, dtype=float) * bin_s
    cum = step_at(t, cumulative, edges)
    return edges[:-1], np.diff(cum) / bin_s
