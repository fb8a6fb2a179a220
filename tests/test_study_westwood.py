"""The study `westwood-wireless` (seed 003): the grid and the paper's numbers, the setup
inferred from the paper's loss-free result, and a reduced run in which Westwood beats Reno at
10 % PER on that setup."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import tcplab
from conftest import ROOT
from tcplab.studies import get, names
from tcplab.studies import westwood_wireless as ww

EXAMPLE = ROOT / "examples" / "westwood_wireless.toml"


def test_registered() -> None:
    assert "westwood-wireless" in names()
    assert get("westwood-wireless") is ww.STUDY


def test_grid_is_the_papers() -> None:
    # standard point: 5 % PER, 2 Mbit/s bottleneck, 5 ms two-way propagation
    assert ww.STANDARD == {"per": 0.05, "rate_mbps": 2.0, "prop_ms": 5.0}
    assert ww.PERS[0] == 0.0 and ww.PERS[-1] == pytest.approx(0.20) and 0.1 in ww.PERS
    assert 0.08 in ww.PERS  # "at 85 PER", read as 8 %
    assert ww.SPEEDS_MBPS[0] == 2 and ww.SPEEDS_MBPS[-1] == 10
    assert ww.DELAYS_MS[0] == 0 and ww.DELAYS_MS[-1] == 25 and 15 in ww.DELAYS_MS
    assert ww.DELAY_SWEEP_PER == 0.0005  # "0.05% packet error rate"
    assert ww.VARIANTS == ("reno", "sack", "westwood")
    cases = ww.STUDY.cases()
    n = 1 + len(ww.PERS) + len(ww.SPEEDS_MBPS) + len(ww.DELAY_READINGS) * len(ww.DELAYS_MS)
    n += len(ww.SPEEDS_MBPS) + 1  # the uncapped window: the speed sweep and 0 % PER
    n += len(ww.HTTP_PERS) + len(ww.SHORT_PERS)  # the paper's HTTP, and 20 s runs
    assert len(cases) == len(ww.SETUPS) * len(ww.VARIANTS) * n
    # Figure 3's time series: every seed records its trace (C1-C4 over seeds)
    assert all(c.trace_all == (c.group == "time") for c in cases)
    http = [c for c in cases if c.group == "http"]
    assert {c.overrides["apps"][0]["kind"] for c in http} == {"http"}
    assert {c.params["per"] for c in http} == set(ww.HTTP_PERS)
    short = [c for c in cases if c.group == "per-20s"]
    assert {c.overrides["stop_time"] for c in short} == {"20s"}
    assert len({c.key for c in cases}) == len(cases)
    delay = [c for c in cases if c.group == "delay"]
    assert {c.overrides["links.wireless.ab.error"]["p"] for c in delay} == {0.0005}
    assert {c.overrides["links.wireless.delay"] for c in delay if c.params["x"] == 5} == {"2.5ms"}
    # The other readings of Figure 6: "0.05" as 5 %, and the delay one way.
    ow = [c for c in cases if c.group == "delay-5pct-oneway"]
    assert {c.overrides["links.wireless.ab.error"]["p"] for c in ow} == {0.05}
    assert {c.overrides["links.wireless.delay"] for c in ow if c.params["x"] == 5} == {"5ms"}
    assert {c.group for c in cases} >= set(ww.DELAY_READINGS)
    with pytest.raises(ValueError, match="delay_readings"):
        ww.WestwoodWireless(delay_readings=("delay-10pct",))


def test_variants_come_from_the_core() -> None:
    assert ww.variant_pairs() == {
        "reno": ("reno", "dupack"),
        "sack": ("newreno", "sack"),
        "westwood": ("westwood", "dupack"),
    }


def test_the_papers_numbers() -> None:
    p = ww.PAPER
    assert p["fig4_per10"] == {"westwood": 0.9, "reno": 0.2, "sack": 0.2}
    assert p["fig3_per5"] == {"westwood": 0.5, "reno": 0.35, "sack": 0.38}
    assert p["fig4_per0"]["reno"] == 1.0  # "about ... 1Mbps approximately 50% link utilisation"
    assert p["fig5_2mbps"] == {"westwood": 0.2, "reno": 0.15, "sack": 0.12}
    assert p["fig5_10mbps_ratio"] == 3.0
    assert len(ww.ERRATA) >= 3


def test_inferred_setup() -> None:
    # ns-2's window of 20 x 1000-byte packets carries 1 Mbit/s at RTT 160 ms
    assert ww.SETUPS["stated"] == 0.0
    assert ww.SETUPS["inferred"] == pytest.approx(75.3, abs=0.05)
    assert ww.base_rtt_s("inferred") == pytest.approx(0.160, abs=2e-4)
    assert ww.base_rtt_s("stated") == pytest.approx(0.0094, abs=2e-4)


def test_the_example_file_is_the_studys_scenario() -> None:
    sc = tcplab.Scenario.from_toml(EXAMPLE)
    # the study runs the example file as it is (its 60 s included)
    assert ww.STUDY.scenario() == sc
    d = sc.to_dict(normalized=True)
    assert [n["name"] for n in d["nodes"]] == ["sender", "gateway", "mobile"]
    assert d["tcp"]["profile"] == "ns2"
    assert d["run"]["stop_time"] == f"{ww.STOP_S:g}s"
    # the file is the standard point of the stated setup
    wired, wireless = (next(x for x in d["links"] if x["name"] == n) for n in ("wired", "wireless"))
    assert wireless["ab"]["error"] == {"model": "per", "p": ww.STANDARD["per"]}
    assert wireless["rate"] == f"{ww.STANDARD['rate_mbps']:g}Mbps"
    assert wireless["delay"] == f"{ww.STANDARD['prop_ms'] / 2:g}ms"
    assert wired["delay"] == f"{ww.SETUPS['stated']:g}ms"


@pytest.fixture(scope="module")
def reduced(tmp_path_factory: pytest.TempPathFactory):
    study = ww.WestwoodWireless(
        setups=("inferred",),
        pers=(0.0, 0.05, 0.1),
        speeds_mbps=(2.0,),
        delays_ms=(0.0, 15.0),
        stop_s=60,
        alternatives=False,
    )
    out = tmp_path_factory.mktemp("westwood")
    return study.run(seeds=[1, 2, 3], out=out), out


def _mbps(res, sweep: str, variant: str, x: float) -> float:
    m = pd.DataFrame(res.extra["means"])
    d = m[(m["sweep"] == sweep) & (m["variant"] == variant) & np.isclose(m["x"], x)]
    return float(d["mbps"].iloc[0])


def test_reduced_run_westwood_beats_reno_at_10_percent(reduced) -> None:
    res, _ = reduced
    # time, 3 PERs, 1 speed, the uncapped window at that speed and at 0 %, 2 delays in each of
    # the 4 readings of Figure 6; 3 variants, 3 seeds
    assert len(res.runs) == (1 + 3 + 1 + 2 + 2 * 4) * 3 * 3
    # per seed (common random numbers: the same channel for the three variants): Westwood
    # ahead of Reno and SACK in most runs; a run can stall in RTO back-off, so not the mean
    d = res.runs[(res.runs["group"] == "per") & np.isclose(res.runs["x"], 0.1)]
    thr = d.pivot_table(index="seed", columns="variant", values="throughput_mbps")
    assert (thr["westwood"] > 1.2 * thr["reno"]).sum() >= 2, thr
    assert (thr["westwood"] > thr["sack"]).sum() >= 2, thr
    assert thr["westwood"].median() > 1.2 * thr["reno"].median()
    # losses cost every variant: 10 % PER is well below the loss-free throughput
    for v in ww.VARIANTS:
        assert _mbps(res, "per", v, 0.1) < 0.5 * _mbps(res, "per", v, 0.0)


def test_reduced_run_loss_free_is_window_limited(reduced) -> None:
    res, _ = reduced
    # 20 x 1000 B per 160 ms = 1 Mbit/s, minus the first round trips of slow start
    for v in ww.VARIANTS:
        assert _mbps(res, "per", v, 0.0) == pytest.approx(1.0, rel=0.05)


def test_reduced_run_report_and_figures(reduced) -> None:
    res, _ = reduced
    assert res.report_path is not None and res.report_path.stat().st_size > 0
    assert {"fig03_throughput_time", "fig04_per", "fig05_speed", "fig06_delay"} <= set(
        res.figure_files
    )
    for files in res.figure_files.values():
        assert files["png"].stat().st_size > 1000
    verdicts = [f for f in res.findings if f.claim.startswith("Inferred setup:")]
    verdicts = [f for f in verdicts if "the window opened" not in f.claim]  # an explanation
    assert verdicts and all(f.holds in (True, False) for f in verdicts)
    assert any("10 % PER" in f.claim for f in verdicts)


def test_reduced_run_judges_figure_6_in_each_reading(reduced) -> None:
    res, _ = reduced
    fig6 = [f for f in res.findings if "from 0 to 15 ms" in f.claim]
    readings = ["0.05 % PER, delay as the round trip", "5 % PER, delay as the round trip",
                "0.05 % PER, delay one way", "5 % PER, delay one way"]  # fmt: skip
    assert [next(r for r in readings if r in f.claim) for f in fig6] == readings
    for f in fig6:
        assert f.holds in (True, False)
        # the arithmetic behind the verdict: the RTT at 15 ms and the three limits
        assert "unloaded RTT" in f.detail and "Mathis" in f.detail and "window limit" in f.detail
    # one way doubles the added delay: 15 ms more each way is 30 ms more per round trip
    rtt = [float(f.detail.split("unloaded RTT is ")[1].split(" ms")[0]) for f in fig6]
    assert rtt[2] - rtt[0] == pytest.approx(15.0, abs=0.05)


def test_reduced_run_lists_all_fourteen_statements(reduced) -> None:
    res, _ = reduced
    idx = [f for f in res.findings if f.claim.startswith("The paper's fourteen")]
    assert len(idx) == 1 and idx[0].holds is None
    assert [c for c, _, _ in ww.statements.STATEMENTS] == [f"C{i}" for i in range(1, 15)]
    for c, _, _ in ww.statements.STATEMENTS:
        assert f"{c}: " in idx[0].detail
    # Figure 3's statements over the seeds, and the conclusion from the means.
    by = {
        f.claim.split(": ")[1]: f for f in res.findings if f.claim.startswith("Inferred setup: C")
    }
    assert set(by) == {"C1", "C2", "C3", "C4", "C14"}
    assert all(f.holds in (True, False) and f.kind == "claim" and f.tests for f in by.values())
    # C2 and C3 from every time-out of every seed's run, with the window after each from the
    # traces: one packet for every variant, Westwood's too
    for c in ("C2", "C3"):
        assert "every variant's window is one packet" in by[c].detail, by[c].detail
    assert "Reno" in by["C2"].evidence and "Mbit/s" in by["C2"].evidence
    assert "the median ssthresh after a time-out is" in by["C3"].detail
    # judged over the seeds: the evidence is a mean +/- a CI, from the per-run columns
    ts = res.runs[res.runs["group"] == "time"]
    assert ts["to_drop_mbps"].notna().sum() >= 6  # every run, not only the traced one
    w = ts[ts["variant"] == "westwood"]["to_drop_mbps"]
    assert f"Westwood {w.mean():.3f} +/-" in by["C3"].evidence
    w, r = _mbps(res, "per", "westwood", 0.05), _mbps(res, "per", "reno", 0.05)
    assert f"{w / r - 1:+.0%} over Reno" in by["C14"].evidence


def test_a_paper_number_flips_c2(reduced, monkeypatch) -> None:
    # C2 fails against the paper's 0.4 and 1.5 Mbit/s; moved to what our runs show, it holds
    res, _ = reduced
    study = ww.WestwoodWireless(setups=("inferred",), pers=(0.0, 0.05, 0.1), speeds_mbps=(2.0,),
                                delays_ms=(0.0, 15.0), alternatives=False)  # fmt: skip

    def c2() -> bool | None:
        res.tables, res.checks, res.findings = [], [], []
        study.analyse(res)
        return next(f for f in res.findings if "C2:" in f.claim).holds

    ts = res.runs[res.runs["group"] == "time"]
    after = ts.groupby("variant")["to_after_mbps"].mean()
    assert c2() is False
    monkeypatch.setitem(
        ww.PAPER,
        "fig3_timeout",
        {**ww.PAPER["fig3_timeout"], "reno": after["reno"], "sack": after["sack"]},
    )
    try:
        assert c2() is True
    finally:
        monkeypatch.undo()
        assert c2() is False


def test_reduced_run_opens_the_window_and_shows_the_conflict(reduced) -> None:
    res, _ = reduced
    (f,) = [f for f in res.findings if "the window opened" in f.claim]
    assert f.holds is None
    # the uncapped window at 0 % PER fills the hop (about 1.9 Mbit/s), not Figure 4's 1 Mbit/s
    m = pd.DataFrame(res.extra["means"])
    z = m[m["sweep"] == "per-uncapped"]
    assert len(z) == 3 and (z["mbps"] > 1.8).all()
    assert "not the 'about 1 Mbit/s" in f.detail
    # the traced run at the top speed carries Westwood's estimate
    assert "bandwidth estimate" in f.detail


def test_options_reach_the_grid() -> None:
    opts = ww.STUDY.resolve_options({"westwood_recovery": "newreno", "uncapped": "false",
                                     "delay_readings": "delay,delay-5pct"})  # fmt: skip
    study = ww.STUDY.configure(opts)
    assert study is not ww.STUDY and study.westwood_recovery == "newreno"
    cases = study.cases()
    groups = {c.group for c in cases}
    assert "speed-uncapped" not in groups and "delay-oneway" not in groups
    assert {"delay", "delay-5pct"} <= groups
    west = [c for c in cases if c.variant == "westwood"]
    assert all(
        c.overrides["tcp.cc_params"] == {"model": "ns2", "recovery": "newreno"} for c in west
    )
    assert all(c.overrides["tcp.loss_recovery"] == "newreno" for c in west)
    assert not any("tcp.cc_params" in c.overrides for c in cases if c.variant != "westwood")
    # the defaults change nothing
    assert ww.STUDY.configure(ww.STUDY.resolve_options({})) is ww.STUDY
    for bad, name in (({"westwood_recovery": "vegas"}, "westwood_recovery"),
                      ({"westwood_model": "linux"}, "westwood_model"),
                      ({"delay_readings": "delay-10pct"}, "delay_readings")):  # fmt: skip
        with pytest.raises(ValueError, match=name):
            ww.STUDY.resolve_options(bad)


def test_westwood_recovery_option_changes_westwoods_runs_only() -> None:
    small = ww.WestwoodWireless(setups=("stated",), pers=(0.05,), speeds_mbps=(), delays_ms=(),
                                timeseries=False, uncapped=False)  # fmt: skip
    runs = {}
    for rec in ("reno", "newreno"):
        res = small.run(seeds=[1, 2], options={"westwood_recovery": rec})
        assert res.study.westwood_recovery == rec
        runs[rec] = res.runs.set_index(["variant", "seed"])["throughput_mbps"]
    assert (runs["reno"].loc["reno"] == runs["newreno"].loc["reno"]).all()
    assert (runs["reno"].loc["westwood"] != runs["newreno"].loc["westwood"]).any()


def test_westwood_model_option_picks_the_ns2_module_by_default_or_the_papers_equations() -> None:
    assert ww.STUDY.westwood_model == ww.WESTWOOD_MODEL == "ns2"
    assert "ns-2 TCP Westwood add-on module" in ww.STUDY.westwood_line()
    paper = ww.STUDY.configure(ww.STUDY.resolve_options({"westwood_model": "paper"}))
    assert paper.westwood_model == "paper" and "equations 1-5" in paper.westwood_line()
    for study, model in ((ww.STUDY, "ns2"), (paper, "paper")):
        west = [c for c in study.cases() if c.variant == "westwood"]
        assert all(c.overrides["tcp.cc_params"] == {"model": model} for c in west)
        assert all(c.overrides["tcp.loss_recovery"] == "dupack" for c in west)
        assert all(c.params["westwood_model"] == model for c in west)
    # The report names the model it ran.
    assert paper.references()["ours"]["settings"][-1] == paper.westwood_line()
    with pytest.raises(ValueError, match="westwood_model"):
        ww.WestwoodWireless(westwood_model="linux")


def test_westwood_model_option_changes_westwoods_runs_only() -> None:
    small = ww.WestwoodWireless(setups=("inferred",), pers=(0.1,), speeds_mbps=(), delays_ms=(),
                                timeseries=False, uncapped=False)  # fmt: skip
    runs = {}
    for model in ("paper", "ns2"):
        res = small.run(seeds=[1, 2], options={"westwood_model": model})
        runs[model] = res.runs.set_index(["group", "variant", "seed"])["throughput_mbps"]
    assert (runs["paper"].xs("reno", level=1) == runs["ns2"].xs("reno", level=1)).all()
    west = runs["paper"].xs("westwood", level=1) != runs["ns2"].xs("westwood", level=1)
    assert west.any()


def test_a_time_out_is_measured_from_the_stall_before_it_to_the_second_after() -> None:
    # ns-2 Reno over a clean 2 Mbit/s path, window 20: the whole fourth window is lost, so no
    # duplicate ACK comes back and the RTO fires; every packet is 1000 B of payload.
    lost = [{"seq": 1 + 1000 * k, "tx": 1} for k in range(60, 80)]
    sc = tcplab.Scenario.from_dict({
        "run": {"stop_time": "10s"}, "tcp": {"profile": "ns2", "congestion_control": "reno"},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"name": "l", "a": "a", "b": "b", "rate": "2Mbps", "delay": "20ms",
                   "ab": {"error": {"model": "list", "segments": lost}}}],
        "apps": [{"name": "bulk", "kind": "bulk", "client": "a", "server": "b",
                  "size": "300kB"}],
        "output": {"trace": True, "events": True},
    })  # fmt: skip
    res = tcplab.run(sc)
    got = ww.timeseries._timeouts(res)
    ev = res.traces["events"]
    rto = ev[(ev["kind"] == "rto") & (ev["detail"] != "SYN")]["time_s"].to_numpy()
    assert len(got) == len(rto) >= 1
    first = got.iloc[0]
    assert first["time_s"] == rto[0] and first["cwnd"] == 1.0
    # by hand: the 60 packets before the lost window all arrive within the second before the
    # stall (60 x 1000 B x 8 = 0.48 Mbit), and Reno halves the 20-packet window
    assert first["before_mbps"] == pytest.approx(0.48, abs=1e-12)
    assert first["ssthresh"] == 10.0
    # by hand from the trace: delivered bytes in the second after the time-out
    tr = res.traces["trace"]
    tr = tr[tr["end"] == tr["end"].iloc[0]]

    def delivered(x: float) -> float:
        rows = tr[tr["time_s"] <= x]
        return float(rows["bytes_received"].iloc[-1]) if len(rows) else 0.0

    t = rto[0]
    assert first["after_mbps"] == pytest.approx((delivered(t + 1) - delivered(t)) * 8e-6)
    stall = float(tr[tr["bytes_received"] == delivered(t)]["time_s"].iloc[0])
    assert stall < t
    assert first["before_mbps"] == pytest.approx((delivered(stall) - delivered(stall - 1)) * 8e-6)


def _point(setup, sweep, x, mbps: dict[str, float]) -> list[dict]:
    return [
        {"setup": setup, "sweep": sweep, "variant": v, "x": x, "mbps": t, "ci": 0.0, "min": t,
         "max": t, "retx_share": 0.05, "retx_per_loss": 1.0, "rto": 1.0, "srtt_ms": 170.0,
         "runs": 3}
        for v, t in mbps.items()
    ]  # fmt: skip


def test_the_per_claims_are_judged_again_on_web_pages_and_on_20_s() -> None:
    # The bulk 60 s has Westwood ahead at 5 % PER; web pages where it trails flip that verdict,
    # 20 s runs that agree with the bulk change nothing; both notes say which.
    ahead = {"reno": 0.2, "sack": 0.2, "westwood": 0.4}
    behind = {"reno": 0.2, "sack": 0.2, "westwood": 0.1}
    m = pd.DataFrame(
        _point("inferred", "per", 0.05, ahead)
        + _point("inferred", "http", 0.05, behind)
        + _point("inferred", "per-20s", 0.05, ahead)
    )
    (http,) = ww.statements.http(m, ("inferred",))
    assert http.kind == "note" and http.holds is None
    assert "1 of 1 PER-claim verdicts change with web pages" in http.evidence
    assert "At 5 % PER Westwood has the highest throughput: yes with the bulk 60 s, no with " \
        "web pages" in http.detail  # fmt: skip
    (short,) = ww.statements.duration(m, ("inferred",))
    assert short.evidence.startswith("0 of 1 PER-sweep verdicts change at 20 s")
    assert "15ms - 20ms" in short.detail
    m.loc[m["sweep"] == "per-20s", "mbps"] = m.loc[m["sweep"] == "http", "mbps"].to_numpy()
    (short,) = ww.statements.duration(m, ("inferred",))
    assert short.evidence.startswith("1 of 1")
