"""Notebook ergonomics (issue 17): the model callables and `results_frame`."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import tcplab
from conftest import EXAMPLE


def test_models_are_callable_by_their_short_names() -> None:
    m = tcplab.models
    # Mathis: MSS/RTT * sqrt(3/2)/sqrt(p)
    assert m.mathis(1460, 0.1, 1.2e-3) == pytest.approx(14600 * math.sqrt(1.5 / 1.2e-3))
    assert m.mathis is m.mathis_throughput and m.pftk is m.pftk_throughput
    # PFTK is below Mathis where timeouts matter, and tends to it as p -> 0
    assert m.pftk(1460, 0.1, 0.05, 1.0) < m.mathis(1460, 0.1, 0.05)
    assert m.pftk(1460, 0.1, 1e-7, 1.0) == pytest.approx(m.mathis(1460, 0.1, 1e-7), rel=0.05)
    lat = m.cardwell(100, 0.1, 0.0)
    # no loss: one RTT of handshake plus log2(d (gamma - 1) / w1 + 1) slow-start rounds,
    # gamma = 2 (b = 1), d = 100 segments, w1 = 1
    assert lat.handshake == pytest.approx(0.1) and lat.first_loss == 0.0
    assert lat.slow_start == pytest.approx(0.1 * math.log2(101))
    assert lat.total == pytest.approx(lat.handshake + lat.slow_start)
    with pytest.raises(ValueError, match="p"):
        m.mathis(1460, 0.1, 2.0)


def test_results_frame_has_the_stores_columns(tmp_path: Path) -> None:
    base = tcplab.Scenario.from_toml(EXAMPLE).with_overrides({"apps.ftp.size": "100kB"})
    sweep = tcplab.Sweep(base, grid={"links.wan.ab.error.p": [0.0, 0.02]}, seeds=[1, 2])
    sweep.run(store=tmp_path / "st")
    stored = tcplab.Store(tmp_path / "st").df().sort_values(["links.wan.ab.error.p", "seed"])
    scs = [
        base.with_overrides({"links.wan.ab.error.p": p}).with_seed(s)
        for p in (0.0, 0.02)
        for s in (1, 2)
    ]
    frame = tcplab.results_frame(tcplab.run_many(scs))
    assert len(frame) == 4
    shared = [c for c in frame.columns if c in stored.columns]
    summary_cols = [c for c in frame.columns if c.startswith(("apps.", "links.", "connections."))]
    assert set(summary_cols) <= set(shared)  # every summary column, named as the store names it
    for col in ("apps.ftp.response_time_s", "links.wan.ab.frames_dropped_error", "seed"):
        assert list(frame[col]) == list(stored[col])
