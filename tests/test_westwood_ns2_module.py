"""Westwood `model = "ns2"` replays ns-2.35 runs with the UCLA TCP Westwood module exactly.

The numbers are ns-2's own output, recorded 2026-11-26 with ns-2.35 built with the module
(tcp-westwood.cc, tcp-westwood-nr.cc v1.3) on tcplab's conformance chain (`chain.tcl` plus the
agents Agent/TCP/Westwood and Agent/TCP/WestwoodNR): /work/runs/ns2ww/baseline/runs-ns2.csv,
rows (agent, p, delay_ms, seed) below. tcplab replays ns-2's loss sequence and tick phase
(`tcplab.conformance.ns2.scenario(..., paired=True)`), so no ns-2 is needed here.
"""

from __future__ import annotations

import pytest
import tcplab
from tcplab.conformance import ns2

# agent, p, one-way delay ms, seed -> ns-2's goodput_Bps (bytes received / 60 s), timeouts.
RECORDED = [
    ("westwood", 0.1, 49, 3, 32266.667, 46),
    ("westwoodnr", 0.05, 4, 2, 146350.0, 43),
]

AGENTS = {
    "westwood": ("dupack", {"model": "ns2"}),
    "westwoodnr": ("newreno", {"model": "ns2", "recovery": "newreno"}),
}


def _run(agent: str, p: float, delay_ms: int, seed: int, params: dict | None = None) -> dict:
    sc = ns2.scenario("reno", p, delay_ms, seed, paired=True)
    lr, cc_params = AGENTS[agent]
    sc["tcp"].update(congestion_control="westwood", loss_recovery=lr)
    sc["tcp"]["cc_params"] = {**cc_params, **(params or {})}
    return tcplab.run(tcplab.Scenario(sc)).summary


@pytest.mark.parametrize(("agent", "p", "delay_ms", "seed", "goodput", "timeouts"), RECORDED)
def test_a_recorded_ns2_westwood_run_is_replayed_exactly(
    agent: str, p: float, delay_ms: int, seed: int, goodput: float, timeouts: int
) -> None:
    s = _run(agent, p, delay_ms, seed)
    got = s["apps"][0]["bytes_received"]
    # ns-2 prints goodput to 3 decimals: the same bytes to within one.
    assert abs(got - goodput * ns2.STOP_S) < 1, (got, goodput * ns2.STOP_S)
    assert s["connections"][0]["client"]["rto_expirations"] == timeouts
    # The module's agent rules matter: with tcplab's own sender rules the run differs.
    old = _run(
        agent,
        p,
        delay_ms,
        seed,
        {
            "limited_transmit": True,
            "fast_retransmit_guard": True,
            "ns2_window": False,
            "estimate_first": False,
            "syn_timeout": "profile",
            "fr_inflation": True,
            "partial_deflation": True,
            "impatient": True,
        },
    )
    assert old["apps"][0]["bytes_received"] != got
