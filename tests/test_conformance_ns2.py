"""The ns-2 conformance suite: the reduced grid against ns-2.35 where `ns` is installed."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
import tcplab
from tcplab.conformance import ns2

needs_ns2 = pytest.mark.skipif(
    shutil.which("ns") is None,
    reason="ns-2 is not installed (apt-get install -y ns2; `make test` does it as root)",
)


def test_the_tcplab_side_is_the_chain_of_the_tcl_script():
    d = tcplab.Scenario(ns2.scenario("sack1", 0.05, 49, 3)).describe()
    text = ns2.tcl_script().read_text()
    assert "$ns duplex-link $src $rtr 10Mb 1ms DropTail" in text
    app = d["apps"][0]
    assert app["tcp"]["congestion_control"] == "newreno"
    assert app["tcp"]["loss_recovery"] == "sack"
    assert app["tcp"]["mss"] == 1000 and app["tcp"]["rcv_buf"] == 20000
    hops = app["data_path"]
    assert [h["rate_bps"] for h in hops] == [10e6, 2e6]
    assert [h["delay_s"] for h in hops] == [0.001, 0.049]


def test_compare_and_verdict_are_means_over_seeds():
    ref = pd.DataFrame(
        [
            {"agent": "reno", "p": 0.01, "delay_ms": 4, "seed": s, "goodput_Bps": g,
             "retransmissions": r, "timeouts": t, "fast_retransmits": 10}
            for s, g, r, t in ((1, 100.0, 10, 2), (2, 120.0, 12, 0))
        ]
    )  # fmt: skip
    sim = ref.assign(goodput_Bps=[104.0, 126.0], retransmissions=[11, 13], timeouts=[1, 1])
    cells = ns2.compare(ref, sim)
    assert len(cells) == 1
    c = cells.iloc[0]
    assert c["ns2.goodput_Bps"] == 110.0 and c["tcplab.goodput_Bps"] == 115.0
    assert c["ratio"] == pytest.approx(115 / 110)
    assert c["retransmissions.ratio"] == pytest.approx(12 / 11)
    v = ns2.verdict(cells)
    assert v["goodput_within_5pct"] == 1  # 4.5 %
    assert v["retransmissions_within_10pct"] == 1  # 9.1 %
    assert v["timeouts_within_10pct"] == 1


@needs_ns2
def test_reduced_grid_against_ns2():
    ref = ns2.run_ns2(ns2.REDUCED)
    sim = ns2.run_tcplab(ns2.REDUCED)
    cells = ns2.compare(ref, sim).set_index(["agent", "p", "delay_ms"])
    lossless = cells.xs(0.0, level="p")
    # loss-free: wire sizes, handshake and window as ns-2's, so the same packets arrive
    assert (lossless["ratio"] - 1).abs().max() < 1e-3
    assert ((lossless["ns2.goodput_Bps"] - 240283.333).abs() < 0.01).all()
    lossy = cells.xs(0.01, level="p")
    assert ((lossy["ratio"] - 1).abs() <= 0.05).all(), lossy["ratio"]
    rtx = lossy["retransmissions.ratio"]
    assert ((rtx - 1).abs() <= 0.10).all(), rtx
    # every agent retransmits about the ~1 % of its packets that are lost (not 50 % more:
    # the rescue retransmission ns-2's Sack1 lacks is off in the ns2 profile)
    sent = lossy["tcplab.goodput_Bps"] * ns2.STOP_S / ns2.PKTSIZE
    assert ((lossy["tcplab.retransmissions"] / sent).between(0.005, 0.012)).all()
