"""The study `kolawole2018` (seed 004, an OPNET campus): the seed's Table 1 and its arithmetic,
the campus each case builds, the time-average statistic, and a one-seed run whose verdicts
follow from the mechanism (application-limited traffic; a delay-aware window at a bottleneck)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from tcplab.studies import get, names
from tcplab.studies import kolawole2018 as kw
from tcplab.studies.kolawole2018.claims import table1_arithmetic


def test_registered() -> None:
    assert "kolawole2018" in names()
    assert get("kolawole2018") is kw.STUDY


def test_table1_is_a_time_average_and_its_slips_are_found() -> None:
    ar = table1_arithmetic()
    # received = throughput x time in every entry: 25.0 x 150 = 3,750, 64.0 x 1800 = 115,200
    assert ar["received_is_throughput_x_time_worst"] < 0.002
    assert ar["mean_difference_pct"] == pytest.approx(31.38, abs=0.01)
    # two printed differences do not follow from the received columns: 54,990 - 36,900 is
    # 18,090, not 17,190; 115,200 - 74,160 is 41,040, not 41,100
    slips = ar["slips"]
    assert len(slips) == 2
    assert "900 s" in slips[0] and "18,090" in slips[0]
    assert "1800 s" in slips[1] and "41,040" in slips[1]
    # one 'sent' column for both: AIMD would have lost 1 - 74,160 / 127,000 of its packets
    assert ar["aimd_loss_implied_at_1800"] == pytest.approx(0.416, abs=0.001)


def test_the_campus_of_a_case() -> None:
    sc = kw.build(algorithm="improved", users=3, core_rate="10Mbps")
    d = sc.to_dict(normalized=True)
    nodes = {n["name"]: n for n in d["nodes"]}
    assert nodes["switch"]["kind"] == "switch"
    assert nodes["firewall"]["processing_delay"] == "50us"
    rates = {lk["name"]: lk["rate"] for lk in d["links"]}
    assert rates["node_0"] == "100Mbps" and rates["http"] == "100Mbps"
    assert rates["uplink"] == rates["main_fw"] == rates["fw_hq"] == "10Mbps"
    assert d["apps"] == []
    (user,) = d["profiles"]
    # every user browses, queries and transfers files from a start in 100-110 s
    assert user["hosts"] == ["node_0", "node_1", "node_2"]
    assert [a["kind"] for a in user["apps"]] == ["http", "database", "ftp"]
    assert user["start"] == {"dist": "uniform", "min": "100s", "max": "110s"}
    http, _db, ftp = user["apps"]
    assert http["preset"] == "heavy"
    assert ftp["inter_request"] == {"dist": "exponential", "mean": "360s"}
    assert ftp["get_fraction"] == 0.5
    assert {a["tcp"]["congestion_control"] for a in user["apps"]} == {"aimd-delay"}
    # expanded at run time: each user's applications start inside the profile's window, and
    # each file transfer is its own connection, a get (ftp) or a put (bulk)
    import tcplab

    r = tcplab.run(sc.with_overrides({"run.stop_time": "1800s"}))
    starts = [a["start_s"] for a in r.summary["apps"] if a["kind"] == "http"]
    assert len(starts) == 3 and all(100 <= s <= 110 for s in starts), starts
    files = [a for a in r.summary["apps"] if a["name"].startswith("user:ftp:")]
    assert {a["kind"] for a in files} == {"ftp", "bulk"}
    assert all(a["start_s"] < 1800 for a in files)
    with pytest.raises(KeyError):
        kw.build(algorithm="cubic")


def test_time_average_throughput_from_the_link_series() -> None:
    # 2 packets/s towards the users for 10 s, then 5 packets/s; 1 packet/s back
    rows = []
    for t in range(20):
        rows.append(
            {"time_s": float(t), "link": "x:ab", "frames_sent": 2 if t < 10 else 5,
             "frames_offered": 2 if t < 10 else 6, "frames_dropped_error": 0,
             "mean_queue_delay_s": 0.001}
        )  # fmt: skip
        rows.append(
            {"time_s": float(t), "link": "x:ba", "frames_sent": 1, "frames_offered": 1,
             "frames_dropped_error": 0, "mean_queue_delay_s": 0.0}
        )  # fmt: skip
    m = kw.link_metrics(pd.DataFrame(rows), "x", times=(10, 20, 30))
    assert m["tput_ab_10"] == 2.0
    assert m["tput_ab_20"] == (20 + 50) / 20
    assert m["tput_both_20"] == (20 + 50 + 20) / 20
    assert m["offered_ab_20"] == 20 + 60
    assert math.isnan(m["tput_ab_30"])  # past the run's end
    assert m["qd20_ab_s"] == pytest.approx(0.001)


@pytest.fixture(scope="module")
def one_seed(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("kolawole") / "out"
    return kw.STUDY.run(seeds=1, out=out), out


def test_one_seed_run_verdicts(one_seed) -> None:
    res, out = one_seed
    assert len(res.runs) == len(kw.SENSITIVITY) * 2 + 2

    def verdict(start: str) -> bool | None:
        (f,) = [f for f in res.findings if f.claim.startswith(start)]
        return f.holds

    # application-limited traffic: the same packets whichever AIMD sends them
    assert verdict("The congestion-controlled AIMD delivers about 31 %") is False
    main = res.table("table1").data
    assert (main["difference_pct"].abs() < 0.5).all()
    # the paper's campus drops nothing, so 'received 58 % of sent' cannot be reproduced
    assert verdict("AIMD receives only 58-60 %") is False
    assert verdict("Table 1's 'throughput' is OPNET's time average") is True
    assert (main["received_aimd"] == main["offered_aimd"]).all()
    # at a real bottleneck aimd-delay holds the queue near its 5 ms target
    assert verdict("Where a queue builds") is True
    sens = res.table("sensitivity").data.set_index("variant")
    assert sens.loc["core-1M", "aimd_qd_s"] > 5 * sens.loc["core-1M", "improved_qd_s"]
    assert sens.loc["core-1M", "improved_qd_s"] < 0.05
    assert sens.loc["bulk-10M", "aimd_drops"] > 0 == sens.loc["bulk-10M", "improved_drops"]
    summary = json.loads((Path(out) / "summary.json").read_text())
    assert summary["tables"][0]["name"] == "table1"
    assert (Path(out) / "figures" / "fig_throughput.svg").exists()
    assert (Path(out) / "report.html").read_text().count("<img") == 6 + 1  # and the network


def test_one_seed_is_deterministic(one_seed) -> None:
    res, _ = one_seed
    again = kw.STUDY.run(seeds=1)
    cols = [c for c in res.runs.columns if c.startswith(("tput_", "qd", "app_bytes"))]
    pd.testing.assert_frame_equal(res.runs[cols], again.runs[cols])


def test_verdict_kinds_and_a_table_number_flips_a_claim(one_seed, monkeypatch) -> None:
    # Table 1's own arithmetic and what our setup makes true by construction are not counted
    # as claims; the delivered-share claim is computed, so Table 1's shares decide it.
    res, _ = one_seed
    kinds = {f.claim: f.kind for f in res.findings}
    assert kinds["Table 1's 'throughput' is OPNET's time average: packets received by t over t"] \
        == "arithmetic"  # fmt: skip
    assert sum(k == "construction" for k in kinds.values()) == 2
    assert next(k for c, k in kinds.items() if c.startswith("Where a queue builds")) == "hypothesis"
    assert all(f.tests for f in res.findings if f.kind == "claim")

    def share() -> bool | None:
        res.tables, res.checks, res.findings = [], [], []
        kw.STUDY.analyse(res)
        return next(f for f in res.findings if f.claim.startswith("AIMD receives only")).holds

    assert share() is False
    row = list(kw.TABLE1[1800])
    row[4] = row[6] = 100.0  # as if Table 1 had every packet delivered with both
    monkeypatch.setitem(kw.TABLE1, 1800, tuple(row))
    try:
        assert share() is True
    finally:
        monkeypatch.undo()
        assert share() is False
