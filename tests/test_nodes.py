"""Nodes that forward: switches, and a router's (or firewall's) processing delay."""

from __future__ import annotations

import pytest
import tcplab
from tcplab import topology
from tcplab.errors import InvalidValueError


def _run(overrides: dict, **kw) -> tcplab.Result:
    return tcplab.run(topology.dumbbell(1, size="300KB", overrides=overrides, **kw))


def test_a_processing_delay_adds_to_every_packet_both_ways():
    # Every packet crosses r1 once each way: with no queue (one segment), every RTT sample and
    # so the smoothed RTT grow by exactly 10 ms.
    one = {"apps.flow1.size": "1000B"}
    a = _run(one).summary["connections"][0]["client"]["srtt_s"]
    b = _run({**one, "nodes.r1.processing_delay": "5ms"}).summary["connections"][0]["client"]
    assert b["srtt_s"] - a == pytest.approx(0.010, abs=1e-9)
    slow = _run({"nodes.r1.processing_delay": "5ms"})
    # Nothing is lost or reordered by the delay: every byte arrives once, no retransmission.
    conn = slow.summary["connections"][0]
    assert conn["server"]["bytes_delivered"] == 300_000
    assert conn["client"]["retransmissions"] == 0
    assert conn["server"]["out_of_order_segments"] == 0


def test_a_processing_delay_holds_packets_without_making_them_queue():
    # A pure delay: a burst leaves r1 spaced as it arrived, so the bottleneck queue and the
    # transfer's duration change only by the fixed latency.
    plain = _run({}, bottleneck_rate="100Mbps", queue="5p")
    slow = _run({"nodes.r1.processing_delay": "20ms"}, bottleneck_rate="100Mbps", queue="5p")
    lp = {lk["name"]: lk for lk in plain.summary["links"]}["bottleneck"]["ab"]
    ls = {lk["name"]: lk for lk in slow.summary["links"]}["bottleneck"]["ab"]
    assert ls["max_queue_packets"] == lp["max_queue_packets"]
    assert ls["frames_dropped_queue"] == lp["frames_dropped_queue"]


def test_a_switch_forwards_as_a_router_does():
    routers = _run({})
    switches = _run({"nodes.r1.kind": "switch", "nodes.r2.kind": "switch"})
    for key in ("apps", "connections", "links"):
        assert routers.summary[key] == switches.summary[key]


def test_the_models_and_the_testbed_see_the_processing_delay():
    from tcplab.testbed.plan import plan

    sc = topology.star(1, size="1MB", overrides={"nodes.hub.processing_delay": "3ms"})
    hops = sc.describe()["apps"][0]["data_path"]
    assert [h["processing_delay_s"] for h in hops] == [0.0, 0.003]
    base = topology.star(1, size="1MB")
    assert plan(sc).rtt_s - plan(base).rtt_s == pytest.approx(0.006, abs=1e-12)


@pytest.mark.parametrize(
    ("over", "field", "fragment"),
    [
        ({"nodes.s1.processing_delay": "1ms"}, "nodes.s1.processing_delay", "router or switch"),
        ({"nodes.r1.kind": "hub"}, "nodes.r1.kind", '"switch"'),
        ({"nodes.r1.processing_delay": "soon"}, "nodes.r1.processing_delay", "duration"),
    ],
)
def test_bad_node_settings_are_refused_by_name(over, field, fragment):
    with pytest.raises(InvalidValueError) as e:
        topology.dumbbell(1, overrides=over)
    assert e.value.field == field
    assert fragment in str(e.value)


# -- packet filters (a firewall's rules) --------------------------------------------------------


def _campus(rules: list[dict], **kw) -> tcplab.Result:
    sc = topology.campus(2, stop_time="60s", apps=("http", "ftp"), ftp_size="200kB",
                         overrides={"nodes.firewall.rules": rules}, **kw)  # fmt: skip
    return tcplab.run(sc)


def test_a_port_rule_drops_every_syn_of_that_service_and_counts_them():
    res = _campus([{"action": "drop", "port": 21}])
    apps = {a["name"]: a for a in res.summary["apps"]}
    # FTP (port 21) never connects: its SYN and the retries at RTO 1, 2, 4, 8, 16 s (RFC 6298,
    # backed off) reach the firewall at 0, 1, 3, 7, 15, 31 s: 6 per client in 60 s
    assert apps["ftp_0"]["bytes_received"] == apps["ftp_1"]["bytes_received"] == 0
    assert apps["http_0"]["bytes_received"] > 0 and apps["http_1"]["bytes_received"] > 0
    (f,) = res.summary["filters"]
    assert f["node"] == "firewall"
    assert f["frames_dropped"] == 12
    assert f["rules"] == [{"action": "drop", "port": 21, "frames_dropped": 12}]
    ev = res.traces["events"]
    drops = ev[ev["kind"] == "drop_filter"]
    assert len(drops) == 12 and set(drops["detail"]) == {"firewall"}
    t = sorted(drops[drops["conn"] == drops["conn"].iloc[0]]["time_s"])
    assert [round(x) for x in t] == [0, 1, 3, 7, 15, 31]


def test_the_first_matching_rule_decides():
    # allow one FTP client, then drop all TCP: the other FTP and both browsers are cut off
    res = _campus([{"action": "allow", "app": "ftp_0"}, {"action": "drop", "protocol": "tcp"}])
    apps = {a["name"]: a for a in res.summary["apps"]}
    assert apps["ftp_0"]["completed"] and apps["ftp_0"]["bytes_received"] == 200_000
    assert all(apps[n]["bytes_received"] == 0 for n in ("ftp_1", "http_0", "http_1"))
    allow, drop = res.summary["filters"][0]["rules"]
    assert allow["frames_dropped"] == 0 and drop["frames_dropped"] == 3 * 6
    # without rules, no filters section and everything completes its first transfer
    plain = tcplab.run(topology.campus(2, stop_time="60s", apps=("ftp",), ftp_size="200kB"))
    assert "filters" not in plain.summary
    assert all(a["completed"] for a in plain.summary["apps"])


def test_a_protocol_rule_drops_udp_and_spares_tcp():
    data = {
        "run": {"stop_time": "2s"},
        "nodes": [{"name": "a"}, {"name": "fw", "kind": "router",
                                  "rules": [{"action": "drop", "protocol": "udp"}]},
                  {"name": "b"}],
        "links": [{"name": "l1", "a": "a", "b": "fw", "rate": "10Mbps"},
                  {"name": "l2", "a": "fw", "b": "b", "rate": "10Mbps"}],
        "apps": [{"name": "u", "kind": "udp", "client": "a", "server": "b", "rate": "1Mbps",
                  "packet_size": 1000, "stop": "1s"},
                 {"name": "f", "kind": "ftp", "client": "a", "server": "b", "size": "100kB"}],
    }  # fmt: skip
    res = tcplab.run(tcplab.Scenario.from_dict(data))
    apps = {a["name"]: a for a in res.summary["apps"]}
    sent = apps["u"]["datagrams"]["sent"]
    assert sent == 125  # 1 Mbit/s of 1000-byte datagrams for 1 s
    assert apps["u"]["datagrams"]["received"] == 0
    assert res.summary["filters"][0]["frames_dropped"] == sent
    assert apps["f"]["completed"] and apps["f"]["bytes_received"] == 100_000


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"nodes.node_0.rules": [{"action": "drop"}]}, "nodes.node_0.rules"),
        ({"nodes.firewall.rules": [{"action": "drop", "app": "nope"}]},
         "nodes.firewall.rules[0].app"),
        ({"nodes.firewall.rules": [{"port": 21}]}, "nodes.firewall.rules[0].action"),
        ({"nodes.firewall.rules": [{"action": "reject"}]}, "nodes.firewall.rules[0].action"),
        ({"nodes.firewall.rules": [{"action": "drop", "protocol": "icmp"}]},
         "nodes.firewall.rules[0].protocol"),
        ({"nodes.firewall.rules": [{"action": "drop", "port": 70000}]},
         "nodes.firewall.rules[0].port"),
        ({"apps.ftp_0.port": 0}, "apps.ftp_0.port"),
    ],
)  # fmt: skip
def test_bad_rules_are_named(overrides: dict, field: str) -> None:
    with pytest.raises(tcplab.errors.ScenarioError) as e:
        topology.campus(1, stop_time="60s", overrides=overrides)
    assert e.value.field == field, str(e.value)


def test_a_rule_covers_every_transfer_of_a_repeating_ftp_gets_and_puts():
    def run(rule: dict) -> dict:
        sc = topology.campus(1, stop_time="100s", apps=("ftp",), ftp_size="20kB",
                             overrides={"apps.ftp_0.inter_request": "10s",
                                        "apps.ftp_0.get_fraction": 0.5,
                                        "nodes.firewall.rules": [rule]})  # fmt: skip
        return tcplab.run(sc).summary

    for rule in ({"action": "drop", "port": 21}, {"action": "drop", "app": "ftp_0"}):
        s = run(rule)
        kinds = {a["kind"] for a in s["apps"]}
        assert kinds == {"ftp", "bulk"}, kinds  # gets and puts, ten transfers
        assert len(s["apps"]) == 10
        # a put is still FTP (port 21) and still the application ftp_0's
        assert all(a["bytes_received"] == 0 for a in s["apps"]), rule
        assert s["filters"][0]["frames_dropped"] > 0
