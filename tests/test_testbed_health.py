"""A testbed run's health: CPU load, the smallest RTT against the configured one, and the
forwarder's lateness decide whether its timing drifted (pure functions, no root needed)."""

from __future__ import annotations

import dataclasses

import pytest
from tcplab.testbed import runner
from tcplab.testbed.config import TestbedConfig


def _config() -> TestbedConfig:
    fields = {f.name for f in dataclasses.fields(TestbedConfig)}
    kw = {"size_bytes": 1_000_000, "rate_bps": 20e6, "delay_c2s_s": 0.02, "delay_s2c_s": 0.02}
    return TestbedConfig(**{k: v for k, v in kw.items() if k in fields})


def _fwd(p99_ns: int) -> dict:
    late = {"lateness": {"p99_ns": p99_ns}}
    return {"links": {"a_to_b": dict(late), "b_to_a": dict(late)}}


def test_a_clean_run_is_not_flagged():
    cfg = _config()
    h = runner.health(cfg, {"min_rtt": 41_000}, _fwd(30_000), ((0.5,) * 3, (0.6,) * 3),
                      ((100, 1000), (300, 2000)))  # fmt: skip
    assert not h["drifted"] and h["drift_reasons"] == []
    assert h["cpu_busy"] == 0.2
    assert h["min_rtt_s"] == pytest.approx(0.041)
    base = 0.04 + 8 * (cfg.mtu + 92) / 20e6
    assert h["rtt_configured_s"] == pytest.approx(base)
    assert h["forwarder_lateness_p99_s"] == pytest.approx(30e-6)


def test_each_kind_of_drift_is_named():
    cfg = _config()
    h = runner.health(cfg, {"min_rtt": 48_000}, _fwd(2_500_000), ((3.0,) * 3, (3.5,) * 3),
                      ((0, 1000), (950, 2000)))  # fmt: skip
    assert h["drifted"]
    text = " | ".join(h["drift_reasons"])
    assert "smallest RTT 48.00 ms" in text
    assert "forwarder p99 lateness 2.50 ms" in text
    assert "CPUs 95 % busy" in text
    # just inside every threshold: 2 ms (> 10 % of 41 ms is 4.1 ms) above the RTT, 1 ms late
    ok = runner.health(cfg, {"min_rtt": 44_000}, _fwd(1_000_000), ((0,) * 3, (0,) * 3),
                       (None, None))  # fmt: skip
    assert not ok["drifted"] and ok["cpu_busy"] is None
