"""Study linux-fidelity: the matrix, the ablation, and (on the testbed) the reduced matrix."""

from __future__ import annotations

import math
import os
import shutil
import sys

import pytest
from tcplab import studies

STUDY = studies.get("linux-fidelity")


def test_the_full_matrix_and_its_cells():
    cells = STUDY.matrix("full")
    # 3 paths x 3 congestion controls x (no loss + 3 loss rates on 2 directions)
    assert len(cells) == 3 * 3 * (1 + 3 * 2)
    assert ("long", "bbr", 0.03, "both") in cells
    assert ("window", "reno", 0.0, "both") not in cells
    main = [c for c in STUDY.cases("full") if c.group == "main"]
    case = next(c for c in main if c.key == "long/cubic/1 %/both")
    assert case.overrides["links.wan.delay"] == "100ms"
    assert case.overrides["links.wan.ba.error"] == {"model": "per", "p": 0.01}
    abl = [c for c in STUDY.cases("full") if c.group == "ablation"]
    hystart = [c for c in abl if c.variant == "CUBIC without HyStart"]
    assert {c.params["cc"] for c in hystart} == {"cubic"}  # a CUBIC parameter only


def test_simulator_side_and_ablation_without_the_testbed():
    res = STUDY.run(seeds=3, options={"matrix": "reduced"})
    cells = res.table("cells").data
    assert len(cells) == 4 and (cells["testbed_n"] == 0).all()
    lossless = cells[cells["pdrop"] == 0]
    # 5 MB at 20 Mbit/s: the same for reno and cubic when nothing is lost
    assert lossless["sim_mean"].nunique() == 1
    abl = res.table("ablation").data
    assert set(abl["cc"]) == {"reno", "cubic"}
    assert "CUBIC without HyStart" in set(abl[abl["cc"] == "cubic"]["mechanism off"])
    assert "CUBIC without HyStart" not in set(abl[abl["cc"] == "reno"]["mechanism off"])
    # every row compares with the full profile's mean of the same cell
    base = cells.set_index(["cc", "pdrop"])["sim_mean"]
    for r in abl.itertuples():
        assert r._5 == pytest.approx(base[(r.cc, r.pdrop)])
    f = res.findings[0]
    assert f.holds is None and "--testbed" in f.detail


def _testbed_ready() -> bool:
    return sys.platform == "linux" and os.geteuid() == 0 and shutil.which("ip") is not None


@pytest.mark.testbed
@pytest.mark.skipif(not _testbed_ready(), reason="needs Linux, root and iproute2")
def test_reduced_matrix_on_the_testbed():
    res = STUDY.run(seeds=2, options={"matrix": "reduced", "testbed": True, "testbed_seeds": 1})
    cells = res.table("cells").data
    tb = res.runs[res.runs["group"] == "testbed"]
    why = tb.reindex(columns=["case", "testbed_error", "testbed_drifted", "drift_reasons"])
    # A run whose timing drifted twice (a busy machine) is left out of the means: the
    # reasons are printed, because this is then the machine's fault, not the model's.
    assert (cells["testbed_n"] == 1).all() and (cells["paired_n"] == 1).all(), why.to_string()
    lossless = cells[cells["pdrop"] == 0]
    # without loss both sides are limited by the 20 Mbit/s link alone
    assert ((lossless["ratio"] - 1).abs() < 0.03).all(), lossless["ratio"]
    assert all(math.isfinite(r) for r in cells["ratio"])
    assert res.extra["kernel"]["uname"]["system"] == "Linux"
    assert res.findings[0].holds is not None


def test_the_verdict_compares_the_kernel_seeds_with_the_same_simulator_seeds(tmp_path):
    # A kept report with one kernel seed, against three simulator seeds: the verdict compares
    # the simulator over that seed (the same loss draws), not its mean over all three. Here
    # the kernel's seed 1 takes exactly what the simulator's seed 1 takes.
    import pandas as pd

    first = STUDY.run(seeds=3, options={"matrix": "reduced"})
    main = first.runs[first.runs["group"] == "main"]
    seed1 = main[main["seed"] == 1].set_index("case")["response_time_s"]
    rows = [
        {"group": "testbed", "case": c.key, "seed": 1, "completed": True,
         "response_time_s": float(seed1[c.key]), **c.params}
        for c in STUDY.cases("reduced") if c.group == "main"
    ]  # fmt: skip
    pd.DataFrame(rows).to_parquet(tmp_path / "results.parquet")
    res = STUDY.run(seeds=3, options={"matrix": "reduced", "testbed_from": str(tmp_path)})
    cells = res.table("cells").data
    assert (cells["paired_n"] == 1).all()
    assert cells["paired_ratio"].to_numpy() == pytest.approx([1.0] * len(cells))
    # The means over unequal seed sets are more than 5 % apart in some cell (seed 1 at 1 %
    # loss is not the three seeds' mean), and yet the claim holds.
    assert ((cells["ratio"] - 1).abs() > 0.05).any(), cells["ratio"]
    assert res.findings[0].holds is True
    assert "within 5 % in 4 of 4 cells" in res.findings[0].detail


def test_a_rerun_judges_the_simulator_against_kept_testbed_runs(tmp_path):
    # An earlier report's testbed rows (here written by hand: one kernel run per cell, 10 %
    # slower than the simulator's mean) are reused, not rerun: the cells compare with them.
    import pandas as pd

    first = STUDY.run(seeds=2, options={"matrix": "reduced"})
    sim = first.table("cells").data.set_index(["cc", "pdrop"])["sim_mean"]
    rows = [
        {"group": "testbed", "case": c.key, "seed": 1, "completed": True,
         "response_time_s": 1.1 * sim[(c.params["cc"], c.params["pdrop"])], **c.params}
        for c in STUDY.cases("reduced") if c.group == "main"
    ]  # fmt: skip
    rows.append({"group": "testbed", "case": "long/bbr/3 %/both", "seed": 1,
                 "response_time_s": 1.0})  # fmt: skip  # not in this matrix: left out
    pd.DataFrame(rows).to_parquet(tmp_path / "results.parquet")
    res = STUDY.run(seeds=2, options={"matrix": "reduced", "testbed_from": str(tmp_path)})
    cells = res.table("cells").data
    assert (cells["testbed_n"] == 1).all()
    assert cells["ratio"].to_numpy() == pytest.approx([1 / 1.1] * len(cells))
    assert "long/bbr/3 %/both" not in set(res.runs["case"])
    assert res.findings[0].holds is False  # 9 % apart in every cell
    # Several reports: for a cell that more than one holds, the last one's runs are taken.
    again = tmp_path / "again"
    again.mkdir()
    first_case = rows[0]["case"]
    pd.DataFrame([{**rows[0], "response_time_s": rows[0]["response_time_s"] / 1.1}]).to_parquet(
        again / "results.parquet"
    )
    res2 = STUDY.run(seeds=2, options={"matrix": "reduced", "testbed_from": f"{tmp_path},{again}"})
    ratio = res2.table("cells").data.set_index(["cc", "pdrop"])["ratio"]
    first = next(c for c in STUDY.cases("reduced") if c.key == first_case)
    assert ratio[(first.params["cc"], first.params["pdrop"])] == pytest.approx(1.0)
    assert (res2.table("cells").data["testbed_n"] == 1).all()
    # Bad sources and the clash with a testbed run are refused by name.
    with pytest.raises(ValueError, match="testbed_from.*no such report"):
        STUDY.run(seeds=1, options={"matrix": "reduced", "testbed_from": str(tmp_path / "x")})
    pd.DataFrame([{"group": "main", "case": "x"}]).to_parquet(tmp_path / "sim.parquet")
    with pytest.raises(ValueError, match="no testbed runs"):
        STUDY.run(
            seeds=1, options={"matrix": "reduced", "testbed_from": str(tmp_path / "sim.parquet")}
        )
    with pytest.raises(ValueError, match="exclude each other"):
        STUDY.check_options(STUDY.resolve_options({"testbed": True, "testbed_from": "x"}))
