"""`output.app_series`: each application group's responses per interval of simulated time (pages,
queries, ftp transfers), as OPNET collects its application statistics over every user, equal to
the `transactions` table and the apps' summaries binned by hand."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
import tcplab
from tcplab.errors import InvalidValueError

NODES = [{"name": "c"}, {"name": "d"}, {"name": "s"}]
LINKS = [
    {"name": "l", "a": "c", "b": "s", "rate": "10Mbps", "delay": "20ms"},
    {"name": "m", "a": "d", "b": "s", "rate": "10Mbps", "delay": "20ms"},
]
EVERY = 20.0


def _campus(**output: Any) -> dict[str, Any]:
    """Two users browsing and querying through a profile, and a repeating ftp beside them."""
    return {
        "run": {"stop_time": "120s"},
        "tcp": {"profile": "rfc"},
        "nodes": NODES,
        "links": LINKS,
        "profiles": [{"name": "office", "hosts": ["c", "d"], "server": "s",
                      "apps": [{"name": "web", "kind": "http", "count": 8,
                                "think_time": {"dist": "exponential", "mean": "10s"}},
                               {"name": "db", "kind": "database", "count": 20,
                                "interval": {"dist": "exponential", "mean": "5s"}}]}],
        "apps": [{"name": "files", "kind": "ftp", "client": "c", "server": "s", "size": "200kB",
                  "inter_request": {"dist": "exponential", "mean": "30s"}, "count": 3}],
        "output": {"app_series": f"{EVERY:g}s", **output},
    }  # fmt: skip


def _run(data: dict[str, Any], seed: int = 1) -> tcplab.Result:
    return tcplab.run(tcplab.Scenario.from_dict(data), seed=seed)


def _by_hand(res: tcplab.Result) -> pd.DataFrame:
    """(group, interval) -> completed, mean and max response time, response bytes, from the
    transactions table and the ftp transfers' summaries."""
    t = res.traces["transactions"].dropna(subset=["end_s"])
    group = {a: "office:" + a.split(":")[1] for a in t["app"].unique()}  # office:<label>:...
    rows = pd.DataFrame({"app": t["app"].map(group), "end_s": t["end_s"],
                         "rt": t["response_time_s"], "bytes": t["response_bytes"]})  # fmt: skip
    ftp = [a for a in res.summary["apps"] if a["kind"] in ("ftp", "bulk") and a["completed"]]
    files = pd.DataFrame({"app": ["files"] * len(ftp), "end_s": [a["end_s"] for a in ftp],
                          "rt": [a["response_time_s"] for a in ftp],
                          "bytes": [a["bytes"] for a in ftp]})  # fmt: skip
    rows = pd.concat([rows, files])
    rows["time_s"] = np.floor(rows["end_s"] / EVERY) * EVERY
    return rows.groupby(["app", "time_s"]).agg(
        completed=("rt", "size"), mean=("rt", "mean"), max=("rt", "max"), bytes=("bytes", "sum")
    )


def test_each_interval_holds_the_responses_that_completed_in_it():
    res = _run(_campus())
    s = res.traces["app_series"]
    # every group gets every interval of the run, in the order the groups first appear
    assert list(s["app"].unique()) == ["files", "office:web", "office:db"]
    end = res.summary["sim_time_s"]
    n = int(np.ceil(end / EVERY))
    assert (s.groupby("app").size() == n).all()
    assert list(s[s["app"] == "files"]["time_s"]) == [k * EVERY for k in range(n)]
    want = _by_hand(res)
    got = s[s["completed"] > 0].set_index(["app", "time_s"]).sort_index()
    assert list(got.index) == list(want.index)
    assert list(got["completed"]) == list(want["completed"])
    np.testing.assert_allclose(got["mean_response_time_s"], want["mean"], rtol=1e-9)
    np.testing.assert_allclose(got["max_response_time_s"], want["max"], rtol=1e-9)
    assert list(got["response_bytes"]) == list(want["bytes"])
    # an interval without a response has a count of 0 and no response time
    empty = s[s["completed"] == 0]
    assert empty["mean_response_time_s"].isna().all() and (empty["response_bytes"] == 0).all()
    # everything completed is counted once
    assert s["completed"].sum() == want["completed"].sum() > 40


def test_an_explicit_group_joins_applications_and_the_default_is_the_name():
    data = _campus()
    data["profiles"][0]["apps"][0]["group"] = "browsing"
    data["apps"][0]["group"] = "browsing"
    s = _run(data).traces["app_series"]
    assert list(s["app"].unique()) == ["browsing", "office:db"]
    alone = {**data, "profiles": [], "apps": [{**data["apps"][0], "count": 1, "group": None}]}
    alone["apps"][0].pop("group")
    alone["apps"][0].pop("inter_request")
    s = _run(alone).traces["app_series"]
    assert list(s["app"].unique()) == ["files"]  # a repeating ftp's transfers: its name
    desc = tcplab.Scenario.from_dict(data).describe()["apps"]
    assert {a["group"] for a in desc} == {"browsing", "office:db"}


def test_same_seed_same_series_and_absent_unless_asked():
    a, b = _run(_campus(), seed=4), _run(_campus(), seed=4)
    assert a.traces["app_series"].equals(b.traces["app_series"])
    plain = _campus()
    del plain["output"]["app_series"]
    assert "app_series" not in _run(plain).traces


def test_max_rows_cuts_the_table_and_the_summary_says_so():
    res = _run(_campus(max_rows=5))
    assert len(res.traces["app_series"]) == 5
    cut = [t for t in res.summary["tables_truncated"] if t["table"] == "app_series"]
    rows = 3 * int(np.ceil(res.summary["sim_time_s"] / EVERY))  # 3 groups x the intervals
    assert cut == [{"table": "app_series", "rows_kept": 5, "rows_dropped": rows - 5}]


@pytest.mark.parametrize(
    ("where", "bad", "field", "words"),
    [
        ("output", "0s", "output.app_series", "positive duration"),
        ("output", "soon", "output.app_series", "duration"),
        ("app", "", "apps.files.group", "non-empty"),
        ("app", "  ", "apps.files.group", "non-empty"),
        ("app", 3, "apps.files.group", "string"),
    ],
)
def test_bad_values_are_refused_by_name(where, bad, field, words):
    data = _campus()
    if where == "output":
        data["output"]["app_series"] = bad
    else:
        data["apps"][0]["group"] = bad
    with pytest.raises(InvalidValueError) as e:
        tcplab.Scenario.from_dict(data)
    assert e.value.field == field and words in str(e.value)
