"""The study `modular-ber` (seed 001): the grid and the paper's numbers, the claim checks on
made-up numbers, and a reduced run in which throughput falls with the BER and SACK recovery
beats duplicate-ACK recovery when windows lose several segments."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import tcplab
from conftest import ROOT
from tcplab.studies import get, names
from tcplab.studies import modular_ber as mb
from tcplab.studies.modular_ber import mechanisms as mech

EXAMPLE = ROOT / "examples" / "modular_ber.toml"


def test_registered() -> None:
    assert "modular-ber" in names()
    assert get("modular-ber") is mb.STUDY
    assert mb.STUDY.default_seeds == 5


def test_grid_is_the_papers() -> None:
    # Section 2: RTT 50, 200, 500 ms; BER 1e-8 .. 1e-4; all nine CC x ED pairs.
    assert mb.RTTS_MS == (50, 200, 500)
    assert len(mb.BER_EXPONENTS) == 17
    assert mb.BER_EXPONENTS[0] == -8 and mb.BER_EXPONENTS[-1] == -4
    assert np.allclose(np.diff(mb.BER_EXPONENTS), 0.25)
    # the text's 10^-6.75, 10^-5.75 and 10^-5.5 are grid points
    for e in (-6.75, -5.75, -5.5, -6.5):
        assert e in mb.BER_EXPONENTS
    assert set(mb.COMBOS) == {(cc, lr) for cc in mb.CCS for lr in mb.LRS}
    assert set(mb.CCS) == {"tahoe", "reno", "newreno"}
    assert set(mb.LRS) == {"dupack", "newreno", "sack"}
    every = mb.STUDY.cases()
    assert len({c.key for c in every}) == len(every)
    cases = [c for c in every if c.group == "main"]
    assert len(cases) == 3 * 17 * 9
    assert len(cases) * mb.STUDY.default_seeds == 2295
    # the declared sensitivity: the same grid under every other guessed queue and window
    assert (mb.QUEUES, mb.WINDOWS) == ((50, 200, 1000), (1_000_000, 65_535, 20 * 536))
    sens = [c for c in every if c.group == "sensitivity"]
    assert len(sens) == 8 * len(cases)
    settings = {(c.params["queue_p"], c.params["window_B"]) for c in sens}
    assert settings == {(q, w) for q in mb.QUEUES for w in mb.WINDOWS} - {(50, 1_000_000)}
    for c in sens:
        q, w = c.params["queue_p"], c.params["window_B"]
        assert c.overrides["links.noisy.queue"] == f"{q}p"
        assert c.overrides["tcp.rcv_buf"] == w == c.overrides["tcp.initial_ssthresh"]
        assert not c.traces and not c.packets
    assert mb.STUDY.configure({"sensitivity": False}).configs() == [(50, 1_000_000)]
    # Figure 4 is traced (NewRenoCC + NewRenoED at every RTT), and so are the mechanism
    # cases, with their packet log
    traced = {
        (c.params["rtt_ms"], c.params["ber_exp"], c.params["cc"], c.params["lr"])
        for c in cases
        if c.traces
    }
    fig4 = {(r, mb.FIG4_EXPONENT, "newreno", "newreno") for r in mb.RTTS_MS}
    assert traced == fig4 | set(mech.MECHANISM_CASES)
    assert {
        (c.params["rtt_ms"], c.params["ber_exp"], c.params["cc"], c.params["lr"])
        for c in cases
        if c.packets
    } == set(mech.MECHANISM_CASES)


def test_the_papers_numbers() -> None:
    p = mb.PAPER
    assert p["rate_bps"] == 1.5e6 and p["mss"] == 536 and p["file_size_bytes"] == 10_000_000
    assert (p["ber_min"], p["ber_max"]) == (1e-8, 1e-4)
    # PER = 1 - (1 - BER)^(MSS x 8): "PER from 0 to 30%" (the formula gives 35 % at 1e-4)
    assert mb.paper_per(1e-8) == pytest.approx(1 - (1 - 1e-8) ** (536 * 8))
    assert mb.paper_per(1e-8) < 1e-4
    assert mb.paper_per(1e-4) == pytest.approx(0.3487, abs=1e-4)
    assert p["per_range"] == [0.0, 0.30]
    assert p["claim_a_max_difference"] == 0.10 and p["claim_b_newreno_vs_sack"] == 0.05
    assert p["newreno_best_bers"] == [10**-6.75, 10**-5.75]
    assert p["figure_exclusions"]["200"] == [["reno", "newreno"]]
    assert p["figure_exclusions"]["500"] == [["reno", "newreno"], ["newreno", "newreno"]]


def test_the_example_file_is_the_studys_scenario() -> None:
    # the study starts from the file in examples/ (a link to the package's scenario), with
    # nothing left to override at the paper's defaults
    sc = tcplab.Scenario.from_toml(EXAMPLE)
    assert mb.STUDY.scenario() == sc
    ex = sc.to_dict(normalized=True)
    assert ex["run"]["stop_time"] == mb.STOP_TIME
    (app,) = ex["apps"]
    assert app["size"] == f"{mb.FILE_SIZE}B"
    # as it stands the file runs Figure 4's case: TCP NewReno at RTT 200 ms and the paper's
    # PER of BER 10^-6.5 on the data direction only
    assert (ex["tcp"]["congestion_control"], ex["tcp"]["loss_recovery"]) == ("newreno", "newreno")
    (noisy,) = ex["links"]
    assert noisy["delay"] == "100ms"
    assert noisy["ab"]["error"]["p"] == pytest.approx(mb.paper_per(10**mb.FIG4_EXPONENT), rel=1e-3)
    d = mb.STUDY.scenario().to_dict(normalized=True)
    assert d["tcp"]["mss"] == 536 and d["tcp"]["profile"] == "ns2"
    (link,) = d["links"]
    assert link["rate"] == "1.5Mbps" and link["framing"] == "none"


def test_error_models() -> None:
    c = next(c for c in mb.STUDY.cases() if c.params["ber_exp"] == -5 and c.params["rtt_ms"] == 500)
    assert c.overrides["links.noisy.ab.error"] == {"model": "per", "p": mb.paper_per(1e-5)}
    assert c.overrides["links.noisy.ba.error"] == {"model": "none"}
    assert c.overrides["links.noisy.delay"] == "250ms"
    ber = mb.ModularBer(error_model="ber", ack_errors=True)
    c = next(c for c in ber.cases() if c.params["ber_exp"] == -5)
    assert c.overrides["links.noisy.ab.error"] == {"model": "ber", "ber": pytest.approx(1e-5)}
    assert c.overrides["links.noisy.ba.error"] == c.overrides["links.noisy.ab.error"]
    with pytest.raises(ValueError):
        mb.ModularBer(error_model="gilbert")  # type: ignore[arg-type]


def _cells(rows: list[tuple[int, float, str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"rtt_ms": r, "ber_exp": e, "cc": cc, "lr": lr, "thr": t, "rto": 0.0, "retx": 0.0}
            for r, e, cc, lr, t in rows
        ]
    )


def test_claim_checks_on_made_up_numbers() -> None:
    # (c) holds when RenoCC + NewRenoED is the worst at 200 ms and low BER
    rows = [(200, -8.0, cc, lr, 100.0) for cc, lr in mb.COMBOS]
    rows[mb.COMBOS.index(("reno", "newreno"))] = (200, -8.0, "reno", "newreno", 50.0)
    f = mb._claim_c(_cells(rows), (200,))
    assert f.holds is True and "Worst at 1 of 1" in f.detail
    rows[mb.COMBOS.index(("tahoe", "dupack"))] = (200, -8.0, "tahoe", "dupack", 40.0)
    assert mb._claim_c(_cells(rows), (200,)).holds is False
    # (b): within 5 % at every high-BER point, and not
    rows = [(50, -5.0, cc, lr, 100.0) for cc, lr in mb.COMBOS]
    assert mb._claim_b(_cells(rows), (50,)).holds is True
    rows[mb.COMBOS.index(("newreno", "newreno"))] = (50, -5.0, "newreno", "newreno", 90.0)
    assert mb._claim_b(_cells(rows), (50,)).holds is False
    # (a): the Figures 5-7 exclusions leave RenoCC + NewRenoED out at 200 ms, BER <= 1e-7
    diff = mb._differences(_cells([(200, -8.0, "reno", "newreno", 10.0),
                                   (200, -8.0, "reno", "dupack", 100.0)]))  # fmt: skip
    assert diff["diff_all"].iloc[0] == pytest.approx(0.9)
    assert diff["diff_paper"].iloc[0] == pytest.approx(0.0)
    assert mb._claim_a(diff, (200,)).holds is True
    # no data: no verdict
    assert mb._claim_c(_cells([(50, -8.0, "reno", "newreno", 1.0)]), (50,)).holds is None


def _grid(rtts, exps, thr) -> pd.DataFrame:
    """Cells for every pair at `rtts` x `exps`, throughput thr(rtt, e, cc, lr)."""
    return _cells([(r, e, cc, lr, thr(r, e, cc, lr)) for r in rtts for e in exps
                   for cc, lr in mb.COMBOS])  # fmt: skip


def test_claim_d_is_judged_per_rtt() -> None:
    # NewRenoED best at every BER of 200 and 500 ms but at none of 50 ms: 10 of 15 pooled,
    # which the old pooled rule passed; per RTT it fails, and holds once 50 ms agrees.
    exps = (-6.75, -6.5, -6.25, -6.0, -5.75)

    def thr(r, e, cc, lr, at50="sack"):
        best = "newreno" if r > 50 else at50
        return 110.0 if lr == best else 100.0

    f = mb._claim_d(_grid((50, 200, 500), exps, thr), (50, 200, 500))
    assert f.holds is False and "50 ms 0/5, 200 ms 5/5, 500 ms 5/5" in f.evidence
    cells = _grid((50, 200, 500), exps, lambda *a: thr(*a, at50="newreno"))
    ok = mb._claim_d(cells, (50, 200, 500))
    assert ok.holds is True and ok.kind == "claim" and "10^-6.75" in ok.tests


def test_the_claims_the_study_did_not_judge_can_fail() -> None:
    low = (-8.0, -7.5, -7.0, -6.5, -6.0)
    # (f) TCP NewReno best (within 1 %) up to 1e-6 at 50 ms
    f = mb.claim_best_low_ber(_grid((50,), low, lambda r, e, cc, lr: 100.0), (50,))
    assert f.holds is True
    behind = lambda r, e, cc, lr: 95.0 if (cc, lr) == ("newreno", "newreno") else 100.0  # noqa: E731
    assert mb.claim_best_low_ber(_grid((50,), low, behind), (50,)).holds is False
    # (g) NewRenoCC + SackED slightly ahead of TCP NewReno above 10^-5.75, at every RTT
    high = (-5.5, -5.0, -4.5)

    def ahead(by):
        return lambda r, e, cc, lr: 100.0 * (1 + by) if (cc, lr) == ("newreno", "sack") else 100.0

    assert mb.claim_sack_high_ber(_grid((50, 500), high, ahead(0.03)), (50, 500)).holds is True
    g = mb.claim_sack_high_ber(_grid((50, 500), high, ahead(0.20)), (50, 500))
    assert g.holds is False and "median lead +20.0%" in g.evidence  # not 'slightly'
    assert mb.claim_sack_high_ber(_grid((50, 500), high, ahead(-0.03)), (50, 500)).holds is False
    # (h) SackED ahead of NewRenoED at low BER and high RTT
    sack = lambda by: lambda r, e, cc, lr: 100.0 * (1 + by) if lr == "sack" else 100.0  # noqa: E731
    assert mb.claim_sack_low_ber(_grid((200, 500), (-8.0, -7.0), sack(0.1)), (200, 500)).holds
    h = mb.claim_sack_low_ber(_grid((200, 500), (-8.0, -7.0), sack(-0.1)), (200, 500))
    assert h.holds is False and "ahead at 0 of 12" in h.evidence


def test_newrenoed_vs_sacked_keeps_its_sign() -> None:
    rows = [(50, -5.0, cc, lr, 100.0) for cc, lr in mb.COMBOS]
    rows[mb.COMBOS.index(("reno", "newreno"))] = (50, -5.0, "reno", "newreno", 80.0)
    rows[mb.COMBOS.index(("tahoe", "newreno"))] = (50, -5.0, "tahoe", "newreno", 110.0)
    d = mb.differences(_cells(rows))
    assert d["nr_vs_sack"].iloc[0] == pytest.approx(-0.2)  # SackED ahead by 20 %


@pytest.fixture(scope="module")
def reduced(tmp_path_factory: pytest.TempPathFactory):
    study = mb.ModularBer(
        rtts_ms=(50,),
        ber_exponents=(-7.0, -5.5, -4.5),
        combos=(("newreno", "dupack"), ("newreno", "newreno"), ("newreno", "sack")),
        file_size=2_000_000,
        stop_time="300s",
        fig4_exponent=-5.5,
        queues=(50, 1000),
        windows=(1_000_000,),
    )
    out = tmp_path_factory.mktemp("modular_ber")
    return study.run(seeds=[1, 2], out=out), out


def test_reduced_run_throughput_falls_with_ber(reduced) -> None:
    res, _ = reduced
    assert len(res.runs) == 2 * 3 * 3 * 2  # two queues
    cells = pd.DataFrame(res.extra["cells"])
    assert len(cells) == 3 * 3  # the main grid's
    for (cc, lr), d in cells.groupby(["cc", "lr"]):
        thr = d.sort_values("ber_exp")["thr"].to_numpy()
        assert (np.diff(thr) < 0).all(), (cc, lr, thr)
    # BER 1e-7 at 50 ms: near the 174.5 kB/s goodput of a 1.5 Mbit/s link with 576-byte packets
    best = cells[cells["ber_exp"] == -7]["thr"].max()
    assert 0.8 * 174_479 < best <= 174_479


def test_reduced_run_sack_beats_dupack_with_several_losses_per_window(reduced) -> None:
    res, _ = reduced
    cells = pd.DataFrame(res.extra["cells"]).set_index(["ber_exp", "lr"])
    # BER 10^-4.5: PER 12.7 %, several losses in most windows; SACK repairs them without the
    # timeouts duplicate-ACK recovery needs
    assert cells.loc[(-4.5, "sack"), "thr"] > cells.loc[(-4.5, "dupack"), "thr"]
    assert cells.loc[(-4.5, "sack"), "rto"] < cells.loc[(-4.5, "dupack"), "rto"]
    # the measured loss rate is the paper's PER
    per = cells.loc[(-4.5, "dupack"), "per_measured"]
    assert per == pytest.approx(mb.paper_per(10**-4.5), rel=0.1)


def test_reduced_run_report_and_figures(reduced) -> None:
    res, out = reduced
    assert res.report_path is not None and res.report_path.stat().st_size > 0
    expected = {"fig01_throughput_rtt50", "fig04_cwnd_newreno", "fig05_difference_rtt50"}
    assert expected <= set(res.figure_files)
    for files in res.figure_files.values():
        assert files["png"].stat().st_size > 1000
    claims = {f.claim[:3] for f in res.findings if f.claim.startswith("(")}
    assert {"(a)", "(b)", "(c)"} <= claims
    for f in res.findings:
        assert f.holds in (True, False, None) and f.detail
    html = res.report_path.read_text()
    assert "1 - (1 - BER)^(8 x 536)" in html
    t = res.table("summary").data
    assert not math.isnan(float(t["best_kBps"].iloc[0]))
    # every claim names the sentence it tests; each is judged under both queues
    claims = [f for f in res.findings if f.kind == "claim"]
    assert [f.claim[:3] for f in claims] == [f"({x})" for x in "abcdefgh"]
    assert all(f.tests for f in claims)
    sens = res.table("sensitivity")
    assert list(sens.display.columns)[1:3] == [
        "queue 50 p, window 1 MB", "queue 1000 p, window 1 MB"]  # fmt: skip
    assert len(sens.display) == 8
    rec = pd.DataFrame(res.extra["sensitivity"])
    main = rec[rec["queue_p"] == 50].set_index("claim")["holds"]
    for f in claims:
        assert main[f.claim[1]] is f.holds or main[f.claim[1]] == f.holds
        assert "guessed queue/window settings" in f.evidence
    note = next(f for f in res.findings if f.claim.startswith("Which verdicts depend"))
    assert note.kind == "note" and "the same under every setting" in note.evidence


def test_mechanisms_of_claim_c_are_measured_on_traced_runs() -> None:
    # 500 ms, BER 1e-8, first seed: the paper's worst pair against TCP NewReno.
    study = mb.ModularBer(
        rtts_ms=(500,),
        ber_exponents=(-8.0,),
        combos=(("reno", "newreno"), ("newreno", "newreno")),
        fig4_exponent=None,
    )
    res = study.run(seeds=1)
    rows = {(m["cc"], m["lr"]): m for m in res.extra["mechanisms"]}
    rn, nn = rows[("reno", "newreno")], rows[("newreno", "newreno")]
    for key, m in rows.items():
        r = res.traced[mb.case_key(500, -8.0, *key)]
        ph = mech.phases(r)
        # One phase per fast retransmit of the sender, each measured from the packet log.
        ev = r.traces["events"]
        frs = ev[(ev["kind"] == "fast_retransmit") & (ev["end"] == mech.sender_end(r))]
        assert len(ph) == m["phases"] == len(frs) > 0
        assert all(p.end > p.start and p.point > 0 for p in ph)
        assert sum(p.retransmissions for p in ph) <= m["retransmissions"]
        assert m["new_after_first_ack"] <= m["new_in_phases"]
        assert m["phases_cut_by_rto"] <= m["rto"]
    # RenoCC never sends more new data after the first partial ACK than NewRenoCC's inflated
    # window does in the same phases.
    assert rn["new_after_first_ack"] <= nn["new_after_first_ack"]
    # The report says it with these numbers, and no longer that NewRenoED behaves like DupAckED.
    c = next(f for f in res.findings if f.claim.startswith("(c)"))
    assert f"ssthresh down to {rn['min_ssthresh_segments']:.1f} segments" in c.detail
    assert f"{rn['phases']} phases of {rn['phase_rtts_mean']:.1f} RTTs" in c.detail
    assert all("behaves like RenoCC + DupAckED" not in f.detail for f in res.findings)
    assert any(t.name == "mechanisms" for t in res.tables)
    assert "fig08_recovery_phase" in {f.name for f in study.figures(res)}


def test_a_phase_reads_the_ssthresh_its_fast_retransmit_logged() -> None:
    assert mech._field("flight 14600 ssthresh 7300 cwnd 8760", "ssthresh") == 7300
    # BBR sets none: the core logs it as unlimited, read as no ssthresh set.
    assert mech._field("flight 8760 ssthresh unlimited cwnd 10220", "ssthresh") == 0
    assert mech._field("full ack", "ssthresh") == 0
