"""Matplotlib on the Agg canvas, without pyplot, in one style.

Figures are made with `matplotlib.figure.Figure` and an explicit `FigureCanvasAgg`, so
nothing here touches pyplot's global state or the process-wide backend: this works headless,
in threads and under pytest's ``filterwarnings = error``.

The style is drawn for papers: a figure is as wide as a column (`COLUMN_IN`) or a page
(`PAGE_IN`) of a two-column paper and printed at that size, its type is at least
`MIN_FONT_PT` points there, its colours are the Okabe-Ito palette (told apart with every
common colour-vision deficiency), and it is saved as vector (SVG, PDF) beside a PNG.
A drawing function applies the style while it makes its artists (`styled`, a context
manager and decorator): matplotlib reads its settings when an artist is created.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = [
    "PALETTE",
    "COLUMN_IN",
    "PAGE_IN",
    "MIN_FONT_PT",
    "STYLE",
    "styled",
    "palette",
    "new_figure",
    "save_figure",
    "figure_png_bytes",
    "figure_svg_text",
    "rate_from_cumulative",
    "step_at",
]

#: Colours of a series, in order: the Okabe-Ito palette (Okabe and Ito 2008, "Color
#: Universal Design"), without its yellow, which is too pale on white. Seen with protanopia,
#: deuteranopia or tritanopia (simulated as Machado et al. 2009 do), no two of them come
#: closer than 16 units of CIELAB distance (tests/test_figure_style.py measures it), where
#: matplotlib's default cycle puts its orange and green 4.6 units apart for a protanope.
PALETTE = ("#0072B2", "#009E73", "#E69F00", "#D55E00", "#CC79A7", "#56B4E9", "#000000")
#: Marks that must stand out from the series (a loss): the palette's vermillion.
ALERT = "#D55E00"

#: Width of one column of a two-column paper (IEEE: 3.5 in, ACM: 3.33 in), in inches.
COLUMN_IN = 3.5
#: Width of a whole page of such a paper (IEEE: 7.16 in), in inches.
PAGE_IN = 7.16
#: The smallest type in a figure printed at its own width, in points (IEEE asks for 8 pt in
#: figures, and 7 pt is the least commonly accepted for sub- and superscripts).
MIN_FONT_PT = 7.0

#: The matplotlib settings of every figure tcplab draws (applied by `styled`).
STYLE: dict[str, Any] = {
    "font.size": 8.0,
    "axes.titlesize": 8.0,
    "axes.labelsize": 8.0,
    "xtick.labelsize": 7.0,
    "ytick.labelsize": 7.0,
    "legend.fontsize": 7.0,
    "legend.title_fontsize": 7.0,
    "figure.titlesize": 9.0,
    "lines.linewidth": 1.2,
    "lines.markersize": 4.0,
    "axes.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "grid.linewidth": 0.5,
    "grid.alpha": 0.35,
    "legend.framealpha": 0.85,
    "legend.edgecolor": "0.8",
    "legend.handlelength": 1.8,
    "patch.linewidth": 0.6,
    # Fonts embedded as TrueType in PDF (editable, accepted by IEEE PDF eXpress), as paths in
    # SVG (the same look without the fonts).
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
}

# Deterministic files: no creation date, fixed SVG ids.
_SVG_META = {"Date": None}
_PNG_META = {"Software": None}
_PDF_META = {"CreationDate": None, "Producer": None, "Creator": None}
_RC = {"svg.hashsalt": "tcplab", "svg.fonttype": "path", "pdf.fonttype": 42}
#: What `save_figure` writes by default; ``"pdf"`` can be asked for too.
FORMATS = ("png", "svg")

_F = TypeVar("_F", bound=Callable[..., Any])


def _style_rc() -> dict[str, Any]:
    from cycler import cycler

    return {**STYLE, "axes.prop_cycle": cycler(color=PALETTE)}


@contextmanager
def _style_context() -> Iterator[None]:
    import matplotlib

    with matplotlib.rc_context(_style_rc()):
        yield


@contextmanager
def palette() -> Iterator[None]:
    """Only the colours of `STYLE`: the palette as the colour cycle, for figures drawn at
    sizes and type sizes of their own."""
    import matplotlib
    from cycler import cycler

    with matplotlib.rc_context({"axes.prop_cycle": cycler(color=PALETTE)}):
        yield


def styled(func: _F | None = None) -> Any:
    """Apply `STYLE` (and the palette as the colour cycle) while a figure is drawn: as
    ``with styled(): ...`` or as a decorator of a function that draws one."""
    if func is None:
        return _style_context()

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _style_context():
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def new_figure(
    nrows: int = 1,
    ncols: int = 1,
    *,
    figsize: tuple[float, float] = (PAGE_IN, 3.0),
    **subplot_kw: Any,
) -> tuple[Figure, Any]:
    """A figure with an Agg canvas and its axes (`Figure.subplots` arguments pass through:
    sharex, sharey, squeeze, gridspec_kw ...)."""
    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, **subplot_kw)
    return fig, axes


def png_dpi(fig: Figure) -> int:
    """The resolution of a figure's PNG: 200 dpi up to a page's width (a column figure is
    700 pixels wide, a page figure 1430), less for wider figures (about 1440 pixels)."""
    width = float(fig.get_size_inches()[0])
    return max(110, min(200, round(1440 / max(width, 0.1))))


def save_figure(
    fig: Figure,
    outdir: str | Path,
    name: str,
    *,
    dpi: int | None = None,
    formats: Sequence[str] = FORMATS,
) -> dict[str, Path]:
    """Write `name`.<format> into `outdir` for each of `formats` (``png``, ``svg``, ``pdf``;
    PNG at `dpi`, by default `png_dpi`); return their paths by format. The files are
    deterministic (no dates, fixed SVG ids), each drawn in memory and written by
    `tcplab._atomic.write_file`: whole or absent, also on a full disk; `name` must be a name (it
    stays inside `outdir`)."""
    import matplotlib

    from tcplab._atomic import inside, write_file

    bad = [f for f in formats if f not in ("png", "svg", "pdf")]
    if bad:
        raise ValueError(f"figure format {bad[0]!r}: allowed png, svg, pdf")
    out = Path(outdir)
    meta = {"png": _PNG_META, "svg": _SVG_META, "pdf": _PDF_META}
    paths = {f: inside(out, f"{name}.{f}", field="figure name") for f in formats}
    with matplotlib.rc_context(_RC):
        for fmt, path in paths.items():
            extra = {"dpi": dpi or png_dpi(fig)} if fmt == "png" else {}
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, metadata=meta[fmt], **extra)
            write_file(path, buf.getvalue())
    return paths


def figure_svg_text(fig: Figure) -> str:
    """The figure as SVG text (for embedding in HTML), without the XML prolog."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buf, format="svg", metadata=_SVG_META)
    text = buf.getvalue()
    return text[text.find("<svg") :]


def figure_png_bytes(fig: Figure, *, dpi: int | None = None) -> bytes:
    """The figure as PNG bytes (for embedding), at `dpi` (default `png_dpi`)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi or png_dpi(fig), metadata=_PNG_META)
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
