"""UDP cross traffic: constant and on-off sources, counted at the sink, sharing links with TCP."""

from __future__ import annotations

from typing import Any

import pytest
import tcplab
from tcplab.errors import InvalidValueError, MissingFieldError

# Two senders into router r, then a 10 Mbit/s, 10 ms link with a 50-packet queue to c.
BASE: dict[str, Any] = {
    "run": {"stop_time": "60s"},
    "tcp": {"profile": "rfc"},
    "nodes": [{"name": "a"}, {"name": "b"}, {"name": "r", "kind": "router"}, {"name": "c"}],
    "links": [
        {"name": "la", "a": "a", "b": "r", "rate": "100Mbps", "delay": "1ms"},
        {"name": "lb", "a": "b", "b": "r", "rate": "100Mbps", "delay": "1ms"},
        {"name": "core", "a": "r", "b": "c", "rate": "10Mbps", "delay": "10ms", "queue": "50p"},
    ],
}


def _run(*apps: dict[str, Any], seed: int = 1, stop_time: str = "60s") -> tcplab.Result:
    sc = {**BASE, "run": {"stop_time": stop_time}, "apps": list(apps)}
    return tcplab.run(tcplab.Scenario.from_dict(sc), seed=seed)


def _udp(**kw: Any) -> dict[str, Any]:
    return {"name": "cross", "kind": "udp", "client": "b", "server": "c", **kw}


def _app(res: tcplab.Result, name: str) -> dict[str, Any]:
    return {a["name"]: a for a in res.summary["apps"]}[name]


def test_a_constant_source_sends_at_its_rate_and_each_datagram_takes_the_path_delay():
    res = _run(_udp(rate="2Mbps", packet_size="1000B", stop="5s"))
    dg = _app(res, "cross")["datagrams"]
    # 1000 B every 4 ms for 5 s.
    assert dg["sent"] == dg["received"] == 1250 and dg["lost"] == 0
    # 1000 + 8 + 20 + 38 B Ethernet frame: at 100 Mbit/s, 1 ms, at 10 Mbit/s, 10 ms; no queue.
    want = 1066 * 8 / 100e6 + 0.001 + 1066 * 8 / 10e6 + 0.010
    assert dg["mean_delay_s"] == pytest.approx(want, abs=1e-9)
    assert dg["max_delay_s"] == pytest.approx(want, abs=1e-9)
    assert _app(res, "cross")["end_s"] == 5.0
    assert res.summary["connections"] == []  # no TCP connection for it


def test_cross_traffic_takes_its_share_and_loses_what_the_queue_drops():
    tcp = {"name": "tcp", "kind": "bulk", "client": "a", "server": "c", "size": "5MB"}
    alone = _run(tcp)
    shared = _run(tcp, _udp(rate="6Mbps", stop="20s"))
    t_alone = _app(alone, "tcp")["response_time_s"]
    t_shared = _app(shared, "tcp")["response_time_s"]
    assert _app(shared, "tcp")["bytes_received"] == 5_000_000
    # TCP gets about the 4 Mbit/s UDP leaves while both run: much slower than alone.
    assert t_shared > 2 * t_alone
    dg = _app(shared, "cross")["datagrams"]
    core = {lk["name"]: lk for lk in shared.summary["links"]}["core"]["ab"]
    assert dg["lost"] > 0
    # Everything dropped at the core was either UDP's or TCP's.
    tcp_lost = core["data_frames_dropped_queue"] - dg["lost"]
    assert 0 <= tcp_lost <= shared.summary["connections"][0]["client"]["retransmissions"]


def test_on_off_sends_for_the_on_share_of_the_time():
    res = _run(
        _udp(rate="1Mbps", packet_size="500B", stop="600s",
             on_time={"dist": "exponential", "mean": "1s"},
             off_time={"dist": "exponential", "mean": "3s"}),
        stop_time="700s",
    )  # fmt: skip
    dg = _app(res, "cross")["datagrams"]
    always = 600 * 1e6 / 8 / 500  # 150,000 datagrams if always on
    assert dg["sent"] == pytest.approx(always / 4, rel=0.1)


def test_udp_draws_only_from_its_own_stream():
    cross = _udp(rate="3Mbps", on_time={"dist": "exponential", "mean": "1s"},
                 off_time={"dist": "exponential", "mean": "1s"}, stop="20s")  # fmt: skip
    reno = {"name": "tcp", "kind": "bulk", "client": "a", "server": "c", "size": "3MB"}
    cubic = {**reno, "tcp": {"congestion_control": "cubic"}}
    a, b = _run(reno, cross), _run(cubic, cross)
    assert _app(a, "cross")["datagrams"]["sent"] == _app(b, "cross")["datagrams"]["sent"]
    assert _run(reno, cross).summary == a.summary
    assert (
        _app(_run(reno, cross, seed=2), "cross")["datagrams"]["sent"]
        != (_app(a, "cross")["datagrams"]["sent"])
    )


@pytest.mark.parametrize(
    ("app", "err", "field", "fragment"),
    [
        (_udp(), MissingFieldError, "apps.cross.rate", "sending rate"),
        (_udp(rate="0Mbps"), InvalidValueError, "apps.cross.rate", "positive"),
        (_udp(rate="1Mbps", on_time="1s"), MissingFieldError, "apps.cross.off_time", "together"),
        (_udp(rate="1Mbps", packet_size="70000B"), InvalidValueError, "apps.cross.packet_size",
         "65507"),
        (_udp(rate="1Mbps", tcp={"mss": 536}), InvalidValueError, "apps.cross.tcp", "no tcp"),
    ],
)  # fmt: skip
def test_bad_udp_settings_are_refused_by_name(app, err, field, fragment):
    with pytest.raises(err) as e:
        tcplab.Scenario.from_dict({**BASE, "apps": [app]})
    assert e.value.field == field
    assert fragment in str(e.value)
