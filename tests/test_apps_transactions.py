"""The `database` and `http` applications: transactions over one persistent connection, timed
exactly, answered in order, drawn from their own seeded streams, and refused by name when wrong."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tcplab
from tcplab.errors import InvalidValueError, MissingFieldError, UnknownFieldError

# 10 Mbit/s Ethernet, 20 ms each way, rfc profile (no timestamps: 40 header bytes).
BASE: dict[str, Any] = {
    "run": {"stop_time": "600s"},
    "tcp": {"profile": "rfc"},
    "nodes": [{"name": "c"}, {"name": "s"}],
    "links": [{"name": "l", "a": "c", "b": "s", "rate": "10Mbps", "delay": "20ms"}],
}


def _run(*apps: dict[str, Any], seed: int = 1) -> tcplab.Result:
    full = [{"client": "c", "server": "s", **a} for a in apps]
    return tcplab.run(tcplab.Scenario.from_dict({**BASE, "apps": full}), seed=seed)


def _txns(res: tcplab.Result, app: str):
    t = res.traces["transactions"]
    return t[t["app"] == app].reset_index(drop=True)


def test_a_query_takes_one_round_trip_and_its_two_frames():
    res = _run(
        {"name": "db", "kind": "database", "request_size": 512, "response_size": 1000,
         "interval": "1s", "count": 5}
    )  # fmt: skip
    t = _txns(res, "db")
    assert list(t["start_s"]) == [0.0, 1.0, 2.0, 3.0, 4.0]
    # 2 x 20 ms + (512 + 40 + 38) B and (1000 + 40 + 38) B at 10 Mbit/s.
    want = 0.040 + (590 + 1078) * 8 / 10e6
    np.testing.assert_allclose(t["response_time_s"][1:], want, rtol=0, atol=1e-9)
    # The first also waits for the handshake: one more round trip and the SYN/SYN-ACK frames.
    assert t["response_time_s"][0] > want + 0.040
    app = res.summary["apps"][0]
    assert app["completed"] and app["transactions"]["completed"] == 5
    assert app["end_s"] == pytest.approx(t["end_s"].iloc[-1])
    conn = res.summary["connections"][0]
    assert conn["client"]["end_reason"] == "closed" and conn["server"]["end_reason"] == "closed"


def test_queries_faster_than_the_link_queue_up_and_are_answered_in_order():
    # A 100 kB response takes 83 ms on the wire; queries come every 10 ms.
    res = _run(
        {"name": "db", "kind": "database", "response_size": "100kB", "interval": "10ms",
         "count": 20}
    )  # fmt: skip
    t = _txns(res, "db")
    assert (t["end_s"].diff().dropna() > 0).all()  # answered in order
    assert (t["response_time_s"].diff().dropna() > 0.05).all()  # each waits longer
    assert t["response_bytes"].sum() == res.summary["apps"][0]["bytes_received"] == 2_000_000


def test_a_page_fetches_its_objects_in_turn_then_thinks():
    res = _run(
        {"name": "web", "kind": "http", "page_size": "1000B", "objects": 3,
         "object_size": "2000B", "think_time": "5s", "count": 4}
    )  # fmt: skip
    t = _txns(res, "web")
    assert len(t) == 4
    assert (t["request_bytes"] == 4 * 350).all()
    assert (t["response_bytes"] == 1000 + 3 * 2000).all()
    # The next page starts exactly the think time after the last object of the previous one.
    np.testing.assert_allclose(t["start_s"][1:].to_numpy(), t["end_s"][:-1].to_numpy() + 5.0)
    # Four exchanges in turn: at least four round trips a page.
    assert (t["response_time_s"][1:] > 4 * 0.040).all()


def test_distributions_have_their_means():
    res = _run(
        {"name": "db", "kind": "database", "count": 3000,
         "interval": {"dist": "exponential", "mean": "100ms"},
         "response_size": {"dist": "lognormal", "mean": "2KB", "sd": "1KB"},
         "request_size": {"dist": "uniform", "min": "100B", "max": "300B"}},
    )  # fmt: skip
    t = _txns(res, "db")
    gaps = t["start_s"].diff().dropna()
    assert gaps.mean() == pytest.approx(0.1, rel=0.05)
    assert gaps.std() == pytest.approx(0.1, rel=0.1)  # exponential: sd = mean
    assert t["response_bytes"].mean() == pytest.approx(2000, rel=0.05)
    assert t["request_bytes"].between(100, 300).all()
    assert t["request_bytes"].mean() == pytest.approx(200, rel=0.05)


def test_each_application_draws_from_its_own_stream():
    web = {"name": "web", "kind": "http", "count": 20, "think_time": "1s",
           "page_size": {"dist": "pareto", "shape": 1.5, "mean": "10KB"}}  # fmt: skip
    db = {"name": "db", "kind": "database", "count": 50, "response_size": "50kB"}
    alone, shared = _run(web), _run(web, db)
    a, b = _txns(alone, "web"), _txns(shared, "web")
    # Same sizes in the same order; only the timing moves when another app shares the link.
    assert list(a["response_bytes"]) == list(b["response_bytes"])
    assert not np.allclose(a["response_time_s"], b["response_time_s"])
    again = _run(web, db)
    assert _txns(again, "web").equals(b)
    other = _run(web, db, seed=2)
    assert list(_txns(other, "web")["response_bytes"]) != list(b["response_bytes"])


def test_stop_ends_the_transactions_and_closes_the_connection():
    res = _run({"name": "db", "kind": "database", "interval": "1s", "stop": "9.5s"})
    t = _txns(res, "db")
    assert len(t) == 10 and t["end_s"].notna().all()
    assert res.summary["stopped_by"] == "idle"
    assert res.summary["apps"][0]["completed"]


@pytest.mark.parametrize(
    ("app", "err", "field", "fragment"),
    [
        ({"kind": "web"}, InvalidValueError, "apps[0].kind", '"http" or "udp"'),
        ({"kind": "http", "size": "1MB"}, UnknownFieldError, "apps[0].size", "think_time"),
        ({"kind": "http", "think_time": {"dist": "normal", "mean": "1s"}}, InvalidValueError,
         "apps[0].think_time.dist", "exponential"),
        ({"kind": "http", "think_time": {"dist": "exponential"}}, MissingFieldError,
         "apps[0].think_time.mean", "duration"),
        ({"kind": "http", "think_time": {"dist": "exponential", "mean": 3}}, InvalidValueError,
         "apps[0].think_time.mean", "duration"),
        ({"kind": "http", "object_size": {"dist": "pareto", "shape": 1, "scale": "1KB"}},
         InvalidValueError, "apps[0].object_size.shape", "above 1"),
        ({"kind": "database", "interval": {"dist": "uniform", "min": "2s", "max": "1s"}},
         InvalidValueError, "apps[0].interval.max", "at least min"),
        ({"kind": "database", "interval": {"dist": "exponential", "mean": "1s", "sd": "1s"}},
         UnknownFieldError, "apps[0].interval.sd", "mean"),
        ({"kind": "database", "count": 0}, InvalidValueError, "apps[0].count", "from 1"),
    ],
)  # fmt: skip
def test_bad_settings_are_refused_by_name(app, err, field, fragment):
    with pytest.raises(err) as e:
        tcplab.Scenario.from_dict({**BASE, "apps": [{"client": "c", "server": "s", **app}]})
    assert e.value.field == field
    assert fragment in str(e.value)
