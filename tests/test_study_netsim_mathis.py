"""The study `netsim-mathis` (NetSim seed 002): the seed's numbers, the setup, and a reduced-seed
run that reproduces the loss-less, window-limited throughput."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import tcplab
from conftest import ROOT
from tcplab import models
from tcplab.studies import get, names
from tcplab.studies import netsim_mathis as nm

EXAMPLE = ROOT / "examples" / "netsim_mathis.toml"


def test_registered() -> None:
    assert "netsim-mathis" in names()
    assert get("netsim-mathis") is nm.STUDY


def test_the_seeds_numbers() -> None:
    # Figures 1-3 and 1-6: throughput = packets received x 1460 B x 8 / 100 s
    for ber, (generated, received, mbps, _) in nm.NETSIM.items():
        assert generated == 85617  # 100 s / 1168 us, the CBR's packets
        assert received * 1460 * 8 / 100 / 1e6 == pytest.approx(mbps, abs=1e-4), ber
    # 1.5 obs. 1: 65535 x 8 / 100 ms = 5.24 Mbps
    assert float(models.window_limit(65535, 0.1)) * 8 / 1e6 == pytest.approx(5.2428)
    # 1.5 obs. 2: p = 1 - (1 - 1e-7)^(1500 x 8) ~ 1.2e-3; Mathis 4.1295 Mbps, printed 4.12
    assert float(models.per_from_ber(1e-7, 1500)) == pytest.approx(nm.PAPER["per"], rel=0.01)
    mathis = float(models.mathis_throughput(1460, 0.1, 1.2e-3)) * 8 / 1e6
    assert math.floor(mathis * 100) / 100 == nm.PAPER["mathis_Mbps"]
    # the CBR offers 10 Mbit/s: more than TCP can carry, so the source is always backlogged
    assert nm.PAPER["packet_size"] * 8 / nm.PAPER["interval_s"] == pytest.approx(10e6)


def test_the_example_file_is_the_studys_scenario() -> None:
    sc = tcplab.Scenario.from_toml(EXAMPLE)
    assert sc == nm.STUDY.scenario()
    d = sc.to_dict(normalized=True)
    assert [n["name"] for n in d["nodes"]] == ["source", "router1", "router2", "destination"]
    assert [link["delay"] for link in d["links"]] == ["100us", "50ms", "100us"]
    assert d["tcp"]["rcv_buf"] == 65535 and d["tcp"]["window_scaling"] is False


def test_grid_both_ber_both_ack_policies() -> None:
    cases = nm.STUDY.cases()
    assert {(c.params["ber"], c.params["delayed_ack"]) for c in cases} == {
        (0.0, False), (0.0, True), (1e-7, False), (1e-7, True)
    }  # fmt: skip
    for c in cases:
        assert c.traces
        # the BER applies to both directions of the backbone (uplink and downlink)
        err = c.overrides["links.backbone.ab.error"]
        assert c.overrides["links.backbone.ba.error"] == err
        assert err == ({"model": "none"} if c.params["ber"] == 0 else {"model": "ber", "ber": 1e-7})
        assert c.max_seeds == (1 if c.params["ber"] == 0 else None)  # BER 0 is deterministic


def test_tcp_variant_is_recorded() -> None:
    nm.STUDY.scenario()
    assert nm.STUDY.tcp_choice in {label for label, _ in nm.TCP_CHOICES}


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("netsim_mathis")
    return nm.STUDY.run(seeds=3, out=out), out


def test_lossless_reproduces_the_window_limited_figure(result) -> None:
    res, _ = result
    d = res.group("main")
    clean = d[(d["ber"] == 0.0) & (d["variant"] == "ack-every")]
    assert len(clean) == 1
    thr = float(clean["throughput_Bps"].iloc[0])
    # NetSim's loss-less 4.912 Mbps (Figure 1-3), within 5 %
    assert abs(thr * 8 / 1e6 / nm.NETSIM[0.0][2] - 1) <= 0.05
    # window-limited: at most rwnd / RTT with our RTT, and within 5 % of it
    x = nm.STUDY.model_inputs(0.0, False)
    limit = 65535 / x.rtt_s
    assert thr <= limit and thr >= 0.95 * limit
    assert int(clean["retransmissions"].iloc[0]) == 0
    # the SRTT is the derived RTT: no queue, 104.29 ms
    assert float(clean["srtt_s"].iloc[0]) == pytest.approx(x.rtt_s, rel=0.01)


def test_lossy_is_below_lossless_and_loss_matches_the_ber(result) -> None:
    res, _ = result
    st = res.extra["stats"]
    for policy in ("ack-every", "delayed-ack"):
        assert st[f"1e-07/{policy}"]["thr_mean"] < st[f"0/{policy}"]["thr_mean"]
        assert st[f"1e-07/{policy}"]["runs"] == 3
    lossy = st["1e-07/ack-every"]
    assert lossy["fast_mean"] > 10 and lossy["rto_mean"] < 2
    # measured data-frame loss ~ 1 - (1 - 1e-7)^(8 x 1518) = 1.21e-3 (about 30 losses per run)
    assert lossy["per_measured"] == pytest.approx(1.2137e-3, rel=0.35)


def test_table_findings_and_report(result) -> None:
    res, out = result
    main = res.table("main")
    sources = list(main.data["source"])
    assert sources[0].startswith("NetSim") and sum(s.startswith("ours") for s in sources) == 2
    assert set(main.data["ack_policy"]) >= {nm.ACK_TEXT["ack-every"], nm.ACK_TEXT["delayed-ack"]}
    netsim = main.data.iloc[0]
    assert (netsim["ber0_Mbps"], netsim["ber1e-7_Mbps"]) == (4.912024, 3.806395)
    claims = [f.claim for f in res.findings]
    assert any("ACK policy" in c for c in claims)
    assert any(c.startswith("TCP: ") for c in claims)
    lossless = next(f for f in res.findings if f.claim.startswith("Loss-less: our throughput"))
    assert lossless.holds is True
    assert {c.name for c in res.checks} >= {"Window limit", "Mathis throughput", "PER at BER 1e-7"}
    summary = json.loads((Path(out) / "summary.json").read_text())
    assert summary["extra"]["tcp"] == nm.STUDY.tcp_choice
    figs = {p.name for p in (Path(out) / "figures").glob("*.png")}
    assert figs == {
        "fig_cwnd_lossless.png", "fig_cwnd_lossy.png", "fig_throughput.png", "fig_summary.png",
        "network.png",
    }  # fmt: skip
    html = (Path(out) / "report.html").read_text()
    assert "Figure 1-8" in html and "4.912" in html


def _reanalysed(res) -> dict[str, object]:
    res.tables, res.checks, res.findings = [], [], []
    nm.STUDY.analyse(res)
    return {f.claim: f for f in res.findings}


def test_verdicts_by_kind_and_the_lossy_claim_can_fail(result, monkeypatch) -> None:
    # NetSim's 3.81 Mbps is one run: it is judged against where one more of our runs would
    # fall, and the verdict follows the paper's number (moved far out, the claim fails).
    res, _ = result
    by = _reanalysed(res)
    kinds = {c: f.kind for c, f in by.items()}
    assert sorted(set(kinds.values())) == ["arithmetic", "claim", "hypothesis", "invariant", "note"]
    # the window reaching the receive window without losses is what any correct TCP does here
    window = next(c for c in by if c.startswith("Loss-less: the window rises"))
    assert kinds[window] == "invariant" and "Figure 1-5" in by[window].tests
    lossy = next(c for c in by if c.startswith("Lossy (BER 1e-7): NetSim's"))
    assert by[lossy].tests.startswith("Figure 1-6") and "prediction interval" in by[lossy].evidence
    assert "excludes" in by[lossy].detail or "includes" in by[lossy].detail
    slip = next(f for c, f in by.items() if "label" in c)
    assert slip.kind == "note" and "0.000001" in slip.detail
    # the seed's own numbers against its formulas: arithmetic, nothing of ours involved
    assert [f.holds for f in by.values() if f.kind == "arithmetic"] == [True, True]
    st = res.extra["stats"]["1e-07/ack-every"]
    far = st["thr_mean"] * 8 / 1e6 * 1.5
    monkeypatch.setitem(nm.NETSIM, 1e-7, (85617, 32589, far, 31884960.0))
    try:
        assert _reanalysed(res)[lossy].holds is False
        monkeypatch.setitem(nm.NETSIM, 1e-7, (85617, 32589, st["thr_mean"] * 8 / 1e6, 3.2e7))
        assert _reanalysed(res)[lossy].holds is True
    finally:
        monkeypatch.undo()
        _reanalysed(res)


def test_the_window_invariant_fails_on_a_window_that_falls() -> None:
    grow = [1460.0 * k for k in range(1, 45)] + [65535.0] * 10
    assert nm.claims.window_claim(grow, 65535).holds is True
    assert nm.claims.window_claim(grow + [32768.0, 65535.0], 65535).holds is False
    assert nm.claims.window_claim(None, 65535).holds is None
