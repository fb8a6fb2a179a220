"""The study framework: registry, CLI, running a grid, writing the report; and the shared
report helpers (statistics, rates, packet exchange, HTML)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import tcplab
import tcplab.studies as studies
from conftest import TINY_TOML
from tcplab.cli import app
from tcplab.report.html import HtmlReport, fmt_number
from tcplab.report.plots import new_figure, rate_from_cumulative, step_at
from tcplab.report.stats import mean_ci, t_quantile_975
from tcplab.report.timeseq import ACK, FIN, SYN, classify_exchange
from tcplab.studies import (
    KINDS,
    Case,
    Check,
    FigureSpec,
    Finding,
    Study,
    StudyResult,
    TableOut,
    headline,
    verdict_counts,
)
from typer.testing import CliRunner

runner = CliRunner()


# ----------------------------------------------------------------------------------------------
# registry


def test_registry_finds_the_studies() -> None:
    assert "sarkar2022" in studies.names()
    st = studies.get("sarkar2022")
    assert isinstance(st, Study)
    assert st.name == "sarkar2022"
    assert st.title and st.description and st.citation
    assert studies.names() == sorted(studies.names())


def test_unknown_study_names_the_known_ones() -> None:
    with pytest.raises(studies.UnknownStudyError) as e:
        studies.get("nosuch")
    assert isinstance(e.value, KeyError)
    assert "nosuch" in str(e.value) and "sarkar2022" in str(e.value)


def test_register_refuses_what_is_not_a_study() -> None:
    with pytest.raises(TypeError):
        studies.register(object())  # type: ignore[arg-type]


def test_flatten_summary(tiny_toml: str) -> None:
    r = tcplab.run(tiny_toml)
    flat = studies.flatten_summary(r.summary)
    assert flat["apps.download.response_time_s"] == r.summary["apps"][0]["response_time_s"]
    assert (
        flat["connections.download.server.retransmissions"]
        == r.summary["connections"][0]["server"]["retransmissions"]
    )
    assert flat["links.wan.ba.frames_sent"] == r.summary["links"][1]["ba"]["frames_sent"]
    assert all(not isinstance(v, dict | list) for v in flat.values())


# ----------------------------------------------------------------------------------------------
# a toy study on the tiny scenario


class _Toy(Study):
    name = "toy"
    title = "A toy study"
    description = "Two loss rates on the tiny scenario."
    citation = "nobody, 2024"
    default_seeds = 2

    def scenario(self) -> tcplab.Scenario:
        return tcplab.Scenario.from_toml(TINY_TOML)

    def cases(self) -> list[Case]:
        return [
            Case(
                key=f"main/{p}",
                group="main",
                variant="reno",
                params={"p": p},
                overrides={"links.wan.ba.error.p": p},
                traces=True,
            )
            for p in (0.0, 0.05)
        ] + [Case("one/0.05", "one", "reno", {"p": 0.05}, {"links.wan.ba.error.p": 0.05},
                  max_seeds=1)]  # fmt: skip

    def references(self) -> dict[str, Any]:
        return {"answer": 42}

    def metrics(self, result: tcplab.Result) -> dict[str, Any]:
        return {"rt": result.summary["apps"][0]["response_time_s"]}

    def analyse(self, res: StudyResult) -> None:
        g = res.runs.groupby("p")["rt"].mean()
        data = pd.DataFrame({"p": g.index, "rt": g.to_numpy()})
        res.tables.append(TableOut("main", "Response time <by p>", data, data, "a note"))
        res.checks.append(Check("answer", "1", "6 x 7", 42.0, 42.0, None, "", ""))
        res.findings.append(
            Finding(
                "loss slows the download",
                bool(g[0.05] > g[0.0]),
                "x",
                "claim",
                "Table 4 <rt>",
                f"{g[0.05]:.1f} s against {g[0.0]:.1f} s",
            )
        )
        res.findings.append(Finding("a setting", None, "y", "note"))

    def figures(self, res: StudyResult):
        def draw():
            fig, ax = new_figure()
            ax.plot(res.runs["p"], res.runs["rt"], "o")
            return fig

        yield FigureSpec("fig_rt", "response time", draw, "Figure 1")


def test_a_study_runs_its_grid_and_writes_its_report(tmp_path: Path) -> None:
    toy = _Toy()
    plan = toy.scenarios()
    assert [(c.key, s) for c, s, _ in plan] == [
        ("main/0.0", 1), ("main/0.0", 2), ("main/0.05", 1), ("main/0.05", 2), ("one/0.05", 1),
    ]  # fmt: skip
    # only each traced case's first seed records traces
    assert [sc.to_dict()["output"]["trace"] for _, _, sc in plan] == [1, 0, 1, 0, 0]
    res = toy.run(out=tmp_path, jobs=2)
    assert len(res.runs) == 5
    assert set(res.traced) == {"main/0.0", "main/0.05"}
    assert all("trace" in r.traces for r in res.traced.values())
    assert res.runs.loc[0, "study"] == "toy"
    assert {"case", "group", "variant", "seed", "p", "rt", "overrides"} <= set(res.runs.columns)
    assert "s.apps.download.response_time_s" in res.runs.columns
    # the runs are the ones tcplab.run gives
    r = tcplab.run(plan[3][2])
    assert res.runs.loc[3, "rt"] == r.summary["apps"][0]["response_time_s"]

    report = (tmp_path / "report.html").read_text()
    assert res.report_path == tmp_path / "report.html"
    assert report.startswith("<!DOCTYPE html>")
    assert "data:image/png;base64," in report
    assert "http://" not in report and "https://" not in report and "<script" not in report
    assert "Response time &lt;by p&gt;" in report  # escaped
    assert "loss slows the download" in report
    parquet = pd.read_parquet(tmp_path / "results.parquet")
    assert len(parquet) == 5
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["study"]["name"] == "toy"
    assert summary["references"] == {"answer": 42}
    assert summary["seeds"] == [1, 2]
    assert summary["tables"][0]["rows"][0]["p"] == 0.0
    assert summary["findings"][0]["holds"] is True
    # every verdict carries its kind, what it tests and its evidence; only claims head it
    f0 = summary["findings"][0]
    assert (f0["kind"], f0["verdict"], f0["tests"]) == ("claim", "yes", "Table 4 <rt>")
    assert f0["evidence"].endswith(" s")
    assert summary["verdicts"]["counts"] == {
        "claim": {"yes": 1, "no": 0, "info": 0},
        "note": {"yes": 0, "no": 0, "info": 1},
    }
    assert summary["verdicts"]["headline"].startswith("claims of the paper: 1 yes, 0 no")
    assert "Table 4 &lt;rt&gt;" in report and "evidence" in report
    for fmt in ("png", "svg"):
        f = tmp_path / "figures" / f"fig_rt.{fmt}"
        assert f.stat().st_size > 1000
    # The network of the study's scenario, drawn at the top of the report (issue 32).
    assert '<h2 id="network">Network</h2>\n<figure class="fig"><img alt="network"' in report
    assert report.index('id="network"') < report.index('id="findings"')
    assert (tmp_path / "figures" / "network.svg").stat().st_size > 1000
    assert summary["figures"]["network"] == {"png": "network.png", "svg": "network.svg"}


def test_a_verdict_says_what_it_is_worth() -> None:
    # a claim of the paper names what it tests; a note has no verdict; a verdict has evidence
    with pytest.raises(ValueError, match="does not name"):
        Finding("t", True, "d", "claim", evidence="e")
    with pytest.raises(ValueError, match="has a verdict"):
        Finding("t", False, "d", "note")
    with pytest.raises(ValueError, match="no one-line evidence"):
        Finding("t", True, "d", "invariant")
    with pytest.raises(ValueError, match="kind 'guess'"):
        Finding("t", True, "d", "guess", evidence="e")
    ok = [
        Finding("a", True, "d", "claim", "Table 1", "e"),
        Finding("b", False, "d", "claim", "Table 2", "e"),
        Finding("c", None, "not judged", "claim", "Table 3"),
        Finding("d", True, "d", "arithmetic", evidence="e"),
        Finding("e", None, "d", "note"),
    ]
    assert [f.verdict for f in ok] == ["yes", "no", "info", "yes", "info"]
    counts = verdict_counts(ok)
    assert list(counts) == ["claim", "arithmetic", "note"]  # in KINDS' order
    assert list(KINDS)[0] == "claim"
    assert counts["claim"] == {"yes": 1, "no": 1, "info": 1}
    assert headline(ok) == (
        "claims of the paper: 1 yes, 1 no, 1 not judged; arithmetic on the paper's own "
        "numbers: 1 yes, 0 no; notes without a verdict: 1"
    )


def test_study_run_is_deterministic() -> None:
    a = _Toy().run(seeds=[3])
    b = _Toy().run(seeds=[3])
    pd.testing.assert_frame_equal(a.runs, b.runs)


# ----------------------------------------------------------------------------------------------
# CLI


def test_cli_lists_the_studies() -> None:
    for args in (["study", "--list"], ["study"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        assert "sarkar2022" in res.stdout


def test_cli_lists_as_json() -> None:
    res = runner.invoke(app, ["study", "--list", "--json"])
    assert res.exit_code == 0, res.output
    assert "sarkar2022" in [s["name"] for s in json.loads(res.stdout)]


def test_cli_unknown_study() -> None:
    res = runner.invoke(app, ["study", "nosuch"])
    assert res.exit_code == 2
    assert "unknown study 'nosuch'" in res.output


# ----------------------------------------------------------------------------------------------
# report helpers


def test_t_quantiles() -> None:
    assert t_quantile_975(1) == 12.706
    assert t_quantile_975(9) == 2.262
    assert abs(t_quantile_975(31) - 2.0395) < 1e-3
    assert abs(t_quantile_975(100) - 1.9840) < 1e-3
    assert abs(t_quantile_975(10**6) - 1.95996) < 1e-4
    qs = [t_quantile_975(d) for d in range(1, 200)]
    assert all(b < a for a, b in zip(qs, qs[1:], strict=False))


def test_mean_ci() -> None:
    m = mean_ci([1.0, 2.0, 3.0, None, float("nan")])
    assert m.n == 3 and m.mean == 2.0 and m.min == 1.0 and m.max == 3.0
    assert math.isclose(m.half_width, 4.303 / math.sqrt(3))
    one = mean_ci([5.0])
    assert one.mean == 5.0 and math.isnan(one.half_width)
    assert mean_ci([]).n == 0


def test_rate_from_cumulative() -> None:
    # 100 B at 0.5 s, 300 B at 1.5 s (held), 600 B at 2.2 s
    t, r = rate_from_cumulative([0.0, 0.5, 1.5, 2.2], [0, 100, 300, 600], bin_s=1.0, t_end=3.0)
    assert t.tolist() == [0.0, 1.0, 2.0]
    assert r.tolist() == [100.0, 200.0, 300.0]
    assert step_at([1.0, 2.0], [10, 20], [0.0, 1.5, 5.0]).tolist() == [10.0, 10.0, 20.0]


def _exchange(rows: list[tuple[int, int, int, int, int, int]]) -> pd.DataFrame:
    """(from_end, flags, seq, ack, len, wnd) -> a packet exchange frame."""
    df = pd.DataFrame(rows, columns=["from_end", "flags", "seq", "ack", "len", "wnd"])
    df["tx_count"] = 1
    df["t_send"] = np.arange(len(df), dtype=float)
    df["t_recv"] = df["t_send"] + 0.5
    df["dropped"] = False
    return df


def test_duplicate_acks_follow_rfc5681() -> None:
    ex = classify_exchange(
        _exchange(
            [
                (0, SYN, 0, 0, 0, 100),
                (1, SYN | ACK, 0, 1, 0, 100),
                (0, ACK, 1, 1, 0, 100),  # ack
                (1, ACK, 1, 1, 10, 100),  # data
                (0, ACK, 1, 11, 0, 100),  # ack
                (0, ACK, 1, 11, 0, 100),  # dup 1
                (0, ACK, 1, 11, 0, 50),  # window changed: not a duplicate
                (0, ACK, 1, 11, 0, 50),  # dup 1 again
                (0, ACK, 1, 11, 0, 50),  # dup 2
                (0, ACK, 1, 21, 0, 50),  # new ack
                (0, FIN | ACK, 1, 21, 0, 50),
            ]
        )
    )
    assert ex["kind"].tolist() == [
        "syn", "syn", "ack", "data", "ack", "dupack", "window_update", "dupack", "dupack", "ack",
        "fin",
    ]  # fmt: skip
    assert ex["dup_n"].tolist() == [0, 0, 0, 0, 0, 1, 0, 1, 2, 0, 0]


def test_html_report_is_self_contained_and_escaped(tmp_path: Path) -> None:
    rep = HtmlReport("A <title>", "sub")
    rep.p("x < y & z")
    rep.table(pd.DataFrame({"a": ["<b>"], "b": [1234567.0]}), caption="cap")
    rep.findings([("claim", True, "d"), ("no", False, "d"), ("info", None, "d")])
    fig, ax = new_figure()
    ax.plot([0, 1], [0, 1])
    png = tmp_path / "f.png"
    fig.savefig(png)
    rep.figure(png, "a figure")
    html = rep.write(tmp_path / "r.html").read_text()
    assert "A &lt;title&gt;" in html and "x &lt; y &amp; z" in html and "&lt;b&gt;" in html
    assert "1,234,567" in html
    assert html.count("data:image/png;base64,") == 1
    assert "[yes]" in html and "[no]" in html and "[info]" in html


@pytest.mark.parametrize(
    ("v", "s"),
    [(None, "-"), (float("nan"), "-"), (3, "3"), (12345, "12,345"), (0.5, "0.5"),
     (1e-5, "1e-05"), (8.3752e-07, "8.375e-07"), (60.21, "60.21"), (259.66, "259.66"),
     (1953.61, "1,953.61"), (1186605.98, "1,186,605.98"), (6850.0, "6,850"), (True, "yes"),
     ("x", "x"), (np.int64(7), "7"), (np.float64(0.25), "0.25")],
)  # fmt: skip
def test_fmt_number(v: Any, s: str) -> None:
    assert fmt_number(v) == s
