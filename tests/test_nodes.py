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
    from tcplab.testbed.schema import plan

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
