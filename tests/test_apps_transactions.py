"""The `database` and `http` applications: transactions over one persistent connection (or, for
`http` with `connection = "per_page"`, a connection per page), timed exactly, answered in order,
drawn from their own seeded streams, and refused by name when wrong."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tcplab
from tcplab import topology
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
        ({"kind": "http", "connection": "http10"}, InvalidValueError, "apps[0].connection",
         '"http10"'),
        ({"kind": "http", "connection": "per_page", "size": 1}, UnknownFieldError,
         "apps[0].size", "connection"),
        ({"kind": "database", "connection": "per_page"}, UnknownFieldError,
         "apps[0].connection", "interval"),
    ],
)  # fmt: skip
def test_bad_settings_are_refused_by_name(app, err, field, fragment):
    with pytest.raises(err) as e:
        tcplab.Scenario.from_dict({**BASE, "apps": [{"client": "c", "server": "s", **app}]})
    assert e.value.field == field
    assert fragment in str(e.value)


# -- http with a connection per page (HTTP/1.0 style) ---------------------------------------------

# Frames on the 10 Mbit/s Ethernet link: IP bytes + 38 B of framing, the IP packet padded to 46 B.
SYN, SYN_ACK, ACK, FIN = 0x02, 0x12, 0x10, 0x01
RTT = 0.040
RATE = 10e6


def _wire(ip_bytes: int) -> float:
    return (max(ip_bytes, 46) + 38) * 8 / RATE


def _web(connection: str, **kw: Any) -> dict[str, Any]:
    app = {"name": "web", "kind": "http", "connection": connection, "page_size": "1000B",
           "objects": 0, "think_time": "2s", "count": 4, **kw}  # fmt: skip
    return {k: v for k, v in app.items() if v is not None}


def _run_out(*apps: dict[str, Any], seed: int = 1, **output: Any) -> tcplab.Result:
    full = [{"client": "c", "server": "s", **a} for a in apps]
    data = {**BASE, "apps": full, "output": output}
    return tcplab.run(tcplab.Scenario.from_dict(data), seed=seed)


def test_per_page_opens_and_closes_a_connection_for_every_page():
    res = _run_out(_web("per_page", objects=2, object_size="3000B"), packets=True)
    t = _txns(res, "web")
    conns = res.summary["connections"]
    assert [c["name"] for c in conns] == ["web#0", "web#1", "web#2", "web#3"]
    assert all(c["app"] == "web" for c in conns)
    ids = [c["conn"] for c in conns]
    assert len(set(ids)) == 4
    pk = res.traces["packets"]
    sent = pk[pk["event"] == "send"]
    assert sorted(set(sent["conn"])) == sorted(ids)
    for c, (_, page) in zip(conns, t.iterrows(), strict=True):
        mine = sent[sent["conn"] == c["conn"]]
        client, server = mine[mine["from_end"] == 0], mine[mine["from_end"] == 1]
        # a three-way handshake: SYN, SYN-ACK, then the client's ACK; and no SYN again
        assert list(client["flags"])[:2] == [SYN, ACK] and ((client["flags"] & SYN) > 0).sum() == 1
        assert list(server["flags"])[:1] == [SYN_ACK] and ((server["flags"] & SYN) > 0).sum() == 1
        # the FIN exchange: one FIN each way, the client's first, once the page is complete
        fins = mine[(mine["flags"] & FIN) > 0]
        assert list(fins["from_end"]) == [0, 1]
        assert fins["time_s"].iloc[0] >= page["end_s"]
        for end in ("client", "server"):
            assert c[end]["end_reason"] == "closed" and c[end]["syn_retransmissions"] == 0
        # every byte of the page on its own connection, once
        assert c["client"]["bytes_delivered"] == page["response_bytes"] == 1000 + 2 * 3000
        assert c["server"]["bytes_delivered"] == page["request_bytes"] == 3 * 350
        assert c["client"]["duplicate_segments"] == c["server"]["duplicate_segments"] == 0
    # the next page starts the think time after the last one ended, on a fresh connection
    np.testing.assert_allclose(t["start_s"][1:].to_numpy(), t["end_s"][:-1].to_numpy() + 2.0)
    opened = [sent[(sent["conn"] == i) & (sent["flags"] == SYN)]["time_s"].iloc[0] for i in ids]
    np.testing.assert_allclose(opened, t["start_s"], rtol=0, atol=1e-12)
    app = res.summary["apps"][0]
    assert app["completed"] and app["transactions"]["completed"] == 4
    assert app["bytes_received"] == t["response_bytes"].sum() == 4 * 7000


def test_a_per_page_response_takes_the_handshake_and_one_exchange_more_than_persistent():
    per, pers = _run_out(_web("per_page")), _run_out(_web("persistent"))
    tp, tk = _txns(per, "web"), _txns(pers, "web")
    # SYN, SYN-ACK, the client's ACK then its request, the page: four one-way trips and five
    # frames (a SYN carries 4 B of options in the rfc profile, the MSS; the ACK is padded)
    request, page = 350 + 40, 1000 + 40
    hello = 2 * _wire(44) + _wire(40)
    want_per = 2 * RTT + hello + _wire(request) + _wire(page)
    np.testing.assert_allclose(tp["response_time_s"], want_per, rtol=0, atol=1e-9)
    # persistent: the first page pays the same handshake, later ones one exchange only
    want_pers = RTT + _wire(request) + _wire(page)
    assert tk["response_time_s"][0] == pytest.approx(want_per, abs=1e-9)
    np.testing.assert_allclose(tk["response_time_s"][1:], want_pers, rtol=0, atol=1e-9)
    extra = tp["response_time_s"][1:].to_numpy() - tk["response_time_s"][1:].to_numpy()
    np.testing.assert_allclose(extra, RTT + hello, rtol=0, atol=1e-9)  # about one RTT a page
    assert len(per.summary["connections"]) == 4 and len(pers.summary["connections"]) == 1


def test_per_page_starts_each_page_in_slow_start_again():
    # 40 kB pages: 28 segments, several round trips of slow start from the initial window on a
    # fresh connection; the persistent connection keeps the window the first page opened.
    kw = {"page_size": "40kB", "count": 3}
    tp = _txns(_run_out(_web("per_page", **kw)), "web")["response_time_s"]
    tk = _txns(_run_out(_web("persistent", **kw)), "web")["response_time_s"]
    assert tp[0] == pytest.approx(tk[0], abs=1e-12)  # the same first page
    assert (tp[1:].to_numpy() == tp[0]).all()  # every page like the first
    assert (tp[1:].to_numpy() - tk[1:].to_numpy() > 3 * RTT).all()


def test_per_page_is_deterministic_and_each_page_of_the_trace_is_its_own_connection():
    web = _web("per_page", count=None, stop="60s", objects={"dist": "uniform", "min": 0, "max": 4},
               object_size={"dist": "pareto", "shape": 1.5, "mean": "8KB"},
               think_time={"dist": "exponential", "mean": "3s"})  # fmt: skip
    db = {"name": "db", "kind": "database", "interval": "500ms", "count": 100}
    a = _run_out(web, db, trace=True, packets=True)
    b = _run_out(web, db, trace=True, packets=True)
    assert a.summary == b.summary
    for name in ("transactions", "trace", "packets"):
        assert a.traces[name].equals(b.traces[name]), name
    t = _txns(a, "web")
    pages = [c for c in a.summary["connections"] if c.get("app") == "web"]
    assert len(pages) == len(t) > 5
    # the database keeps its one connection (1, its application's); page connections follow
    # the applications' own
    assert [c["name"] for c in a.summary["connections"]][-1] == "db"
    assert sorted(c["conn"] for c in pages)[1:] == list(range(2, len(pages) + 1))
    assert {c["conn"] for c in pages} | {1} == set(a.traces["trace"]["conn"])
    assert sum(c["client"]["bytes_delivered"] for c in pages) == t["response_bytes"].sum()
    other = _run_out(web, db, seed=2)
    assert list(_txns(other, "web")["response_bytes"]) != list(t["response_bytes"])


def test_a_sampled_trace_follows_each_page_connection_while_it_is_open():
    res = _run_out(_web("per_page", think_time="5s"), trace=True, trace_interval="100ms")
    tr, t = res.traces["trace"], _txns(res, "web")
    for c, (_, page) in zip(res.summary["connections"], t.iterrows(), strict=True):
        rows = tr[tr["conn"] == c["conn"]]
        assert len(rows) >= 1
        assert rows["time_s"].max() < page["end_s"] + 1.0  # not sampled once it has closed
    # sampling goes on between pages, when no connection is open, up to the last page
    assert tr["time_s"].max() >= t["start_s"].max()


def test_filter_rules_by_application_cover_every_page_connection():
    # let one browser through and drop all other TCP: its five pages, on five connections,
    # all pass; the other browser and the FTP clients never connect
    http = {"connection": "per_page", "think_time": "2s", "count": 5}
    sc = topology.campus(2, stop_time="60s", apps=("http", "ftp"), ftp_size="200kB", http=http,
                         overrides={"nodes.firewall.rules": [
                             {"action": "allow", "app": "http_0"},
                             {"action": "drop", "protocol": "tcp"}]})  # fmt: skip
    res = tcplab.run(sc)
    apps = {a["name"]: a for a in res.summary["apps"]}
    assert apps["http_0"]["completed"] and apps["http_0"]["transactions"]["completed"] == 5
    assert all(apps[n]["bytes_received"] == 0 for n in ("http_1", "ftp_0", "ftp_1"))
    names = [c["name"] for c in res.summary["connections"]]
    assert [n for n in names if n.startswith("http_0")] == [f"http_0#{k}" for k in range(5)]
    assert [n for n in names if n.startswith("http_1")] == ["http_1#0"]  # its first page hangs
    allow, drop = res.summary["filters"][0]["rules"]
    assert allow["frames_dropped"] == 0 and drop["frames_dropped"] == 3 * 6  # SYN and retries
    # by port: HTTP's page connections pass a rule for FTP's port
    port = tcplab.run(topology.campus(2, stop_time="60s", apps=("http",), http=http,
                                      overrides={"nodes.firewall.rules": [
                                          {"action": "drop", "port": 21}]}))  # fmt: skip
    assert all(a["transactions"]["completed"] == 5 for a in port.summary["apps"])
    assert port.summary["filters"][0]["frames_dropped"] == 0


def test_a_profile_runs_per_page_browsing_for_each_host():
    data = {**BASE, "nodes": [{"name": "c"}, {"name": "d"}, {"name": "s"}],
            "links": [{"name": "l", "a": "c", "b": "s", "rate": "10Mbps", "delay": "20ms"},
                      {"name": "m", "a": "d", "b": "s", "rate": "10Mbps", "delay": "20ms"}],
            "profiles": [{"name": "browse", "hosts": ["c", "d"], "server": "s",
                          "apps": [{"name": "web", "kind": "http", "preset": "heavy",
                                    "connection": "per_page", "count": 3,
                                    "think_time": "1s"}]}]}  # fmt: skip
    res = tcplab.run(tcplab.Scenario.from_dict(data))
    names = [c["name"] for c in res.summary["connections"]]
    assert names == [f"browse:web:{h}:1#{k}" for h in "cd" for k in range(3)]
    assert all(a["transactions"]["completed"] == 3 for a in res.summary["apps"])


def test_an_unknown_connection_mode_is_refused_naming_the_field_value_and_choices():
    with pytest.raises(tcplab.errors.TcplabError) as e:
        _run_out(_web("per_object"))
    err = e.value
    assert isinstance(err, InvalidValueError) and err.field == "apps.web.connection"
    text = str(err)
    assert '"per_object"' in text and '"persistent"' in text and '"per_page"' in text
    # the same from TOML text, by its index
    toml = (
        '[[nodes]]\nname = "c"\n[[nodes]]\nname = "s"\n[[links]]\nname = "l"\na = "c"\n'
        'b = "s"\nrate = "1Mbps"\n[[apps]]\nkind = "http"\nclient = "c"\nserver = "s"\n'
        'connection = "HTTP/1.0"\n'
    )
    with pytest.raises(InvalidValueError, match="per_page") as e2:
        tcplab.Scenario.from_toml(toml)
    assert e2.value.field == "apps[0].connection"
