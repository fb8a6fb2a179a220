"""Figures for papers (issue 32): the palette is told apart with every common colour-vision
deficiency, and every figure tcplab draws (a run's, a sweep's, a network's) fits a page or a
column of a two-column paper with type of at least 7 pt there, and is saved as vector."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import matplotlib.text
import numpy as np
import pandas as pd
import pytest
import tcplab
from conftest import EXAMPLE, ROOT
from tcplab.report.netdraw import draw_network
from tcplab.report.plots import COLUMN_IN, MIN_FONT_PT, PAGE_IN, PALETTE, save_figure
from tcplab.report.runplots import draw_run
from tcplab.report.sweepfig import plot_means

# Machado, Oliveira, Fernandes 2009, "A physiologically-based model for simulation of color
# vision deficiency", severity 1.0, on linear RGB.
_CVD = {
    "normal": np.eye(3),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}  # fmt: skip
_TAB10 = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")  # fmt: skip


def _linear(hex_colour: str) -> np.ndarray:
    c = np.array([int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(rgb: np.ndarray) -> np.ndarray:
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ rgb  # fmt: skip
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def closest_pair(colours: tuple[str, ...], vision: str) -> float:
    """The smallest CIELAB distance between two of `colours` as `vision` sees them."""
    seen = [_lab(np.clip(_CVD[vision] @ _linear(c), 0, 1)) for c in colours]
    return min(float(np.linalg.norm(a - b)) for a, b in combinations(seen, 2))


@pytest.mark.parametrize("vision", sorted(_CVD))
def test_the_palette_is_told_apart_by_every_common_vision(vision: str) -> None:
    assert closest_pair(PALETTE, vision) > 16
    # The measure does tell a palette that is not: matplotlib's default, for red-green.
    if vision in ("protanopia", "deuteranopia"):
        assert closest_pair(_TAB10, vision) < 8


def _check(fig, width: float) -> None:
    """`fig` is `width` inches wide at most and all its text at least MIN_FONT_PT."""
    assert fig.get_size_inches()[0] <= width + 1e-6
    small = [
        (t.get_text(), t.get_fontsize())
        for t in fig.findobj(matplotlib.text.Text)
        if t.get_text().strip() and t.get_visible() and t.get_fontsize() < MIN_FONT_PT
    ]
    fig.canvas.draw()  # tick labels exist once drawn
    small += [
        (t.get_text(), t.get_fontsize())
        for ax in fig.axes
        for t in [*ax.get_xticklabels(), *ax.get_yticklabels()]
        if t.get_text().strip() and t.get_fontsize() < MIN_FONT_PT
    ]
    assert not small


def test_a_runs_figures_fit_a_page_in_readable_type() -> None:
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides(
        {"apps.ftp.size": "1MB", "output.queues": True, "output.link_series": "1s"}
    )
    for fig in draw_run(tcplab.run(sc)).values():
        _check(fig, PAGE_IN)


def test_a_sweeps_figure_fits_a_column_in_readable_type() -> None:
    thr = [2e5, 1.5e5, 1e5, 2.1e5, 1.4e5, 0.9e5]
    df = pd.DataFrame({"links.wan.ab.error.p": [0.0, 0.01, 0.02] * 2, "seed": [1] * 3 + [2] * 3,
                       "apps.ftp.throughput_Bps": thr})  # fmt: skip
    fig = plot_means(df, x="links.wan.ab.error.p", y="apps.ftp.throughput_Bps")
    assert fig.get_size_inches()[0] == COLUMN_IN
    _check(fig, COLUMN_IN)


def test_a_campus_drawing_fits_a_page_in_readable_type() -> None:
    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "campus.toml")
    _check(draw_network(sc.to_dict(normalized=True)), PAGE_IN)


def test_figures_are_written_as_vector_and_the_same_twice(tmp_path: Path) -> None:
    sc = tcplab.Scenario.from_toml(EXAMPLE)
    paths = save_figure(sc.draw(), tmp_path / "a", "n", formats=("png", "svg", "pdf"))
    again = save_figure(sc.draw(), tmp_path / "b", "n", formats=("png", "svg", "pdf"))
    assert paths["pdf"].read_bytes()[:5] == b"%PDF-"
    assert "<svg" in paths["svg"].read_text()
    for fmt in ("png", "svg", "pdf"):
        assert paths[fmt].read_bytes() == again[fmt].read_bytes(), fmt
