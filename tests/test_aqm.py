"""RED on a link direction: it keeps the queue short where drop-tail lets it fill, its drops are
counted apart, it is deterministic, and bad parameters are refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tcplab
from tcplab import topology
from tcplab.errors import InvalidValueError, UnknownFieldError

ROOT = Path(__file__).resolve().parents[1]
RED = {"kind": "red", "min_th": 5, "max_th": 15, "max_p": 0.1, "weight": 0.002}


def _bottleneck(aqm: dict | None, seed: int = 1) -> dict:
    over = {"links.bottleneck.ab.aqm": aqm} if aqm else {}
    sc = topology.dumbbell(
        4, queue="100p", bottleneck_rate="10Mbps", stop_time="30s", overrides=over
    )
    res = tcplab.run(sc, seed=seed)
    link = {lk["name"]: lk for lk in res.summary["links"]}["bottleneck"]["ab"]
    return {"link": link, "res": res}


def test_red_keeps_the_queue_short_where_drop_tail_fills_it():
    tail = _bottleneck(None)["link"]
    red = _bottleneck(RED)["link"]
    # Drop-tail: four bulk senders fill the 100-packet queue and lose from its tail.
    assert tail["max_queue_packets"] == 100
    assert tail["frames_dropped_queue"] > 0
    assert tail["frames_dropped_early"] == tail["frames_dropped_forced"] == 0
    # RED: the average stays near its thresholds, so the queue and its delay stay far lower.
    assert red["max_queue_packets"] < 100
    assert red["mean_queue_delay_s"] < 0.3 * tail["mean_queue_delay_s"]
    assert red["frames_dropped_early"] > 0
    # Every drop at this queue is RED's: the 100-packet limit is never reached.
    assert red["frames_dropped_queue"] == red["frames_dropped_early"] + red["frames_dropped_forced"]
    # ... and the link stays busy.
    assert red["utilisation"] > 0.85


def test_red_is_deterministic_and_draws_from_its_own_stream():
    a = _bottleneck(RED, seed=5)
    b = _bottleneck(RED, seed=5)
    c = _bottleneck(RED, seed=6)
    assert a["res"].summary == b["res"].summary
    early = [r["link"]["frames_dropped_early"] for r in (a, c)]
    assert early[0] > 0 and early[1] > 0
    # Another seed draws other early drops.
    assert a["res"].summary["links"] != c["res"].summary["links"]


def test_red_that_never_acts_changes_nothing():
    # An average that never reaches min_th: the run is drop-tail's, frame for frame, so RED's
    # draws come from its own stream and take nothing from any other.
    quiet = {"kind": "red", "min_th": 90, "max_th": 95}
    sc = topology.dumbbell(3, queue="100p", stop_time="10s", error={"model": "per", "p": 0.01})
    red = sc.with_overrides({"links.bottleneck.ab.aqm": quiet})
    a, b = tcplab.run(sc, seed=2), tcplab.run(red, seed=2)
    assert a.summary == b.summary
    assert a.traces["events"].equals(b.traces["events"])


def test_red_drops_show_as_queue_drops_in_the_event_trace():
    sc = topology.dumbbell(
        2,
        queue="200p",
        stop_time="10s",
        overrides={"links.bottleneck.ab.aqm": RED, "output.events": True},
    )
    res = tcplab.run(sc)
    ev = res.traces["events"]
    link = {lk["name"]: lk for lk in res.summary["links"]}["bottleneck"]["ab"]
    drops = ev[(ev["kind"] == "drop_queue") & (ev["detail"] == "bottleneck:ab")]
    assert len(drops) == link["frames_dropped_queue"] > 0


def test_describe_shows_the_discipline_with_its_defaults():
    sc = topology.dumbbell(1, overrides={"links.bottleneck.ab.aqm": {"kind": "red"}})
    hops = {(h["link"], h["dir"]): h for h in sc.describe()["apps"][0]["data_path"]}
    red = hops[("bottleneck", "ab")]["aqm"]
    assert red == {
        "kind": "red",
        "min_th": 5.0,
        "max_th": 15.0,
        "max_p": 0.02,
        "weight": 0.002,
        "gentle": True,
        "wait": True,
        "mean_packet_size": 500,
    }
    assert hops[("s1", "ab")]["aqm"] == {"kind": "none"}


@pytest.mark.parametrize(
    ("aqm", "field", "fragment"),
    [
        ({"kind": "pie"}, "aqm.kind", "none (drop-tail), red, codel"),
        ({"kind": "red", "min_th": 10, "max_th": 10}, "aqm.max_th", "above min_th"),
        ({"kind": "red", "min_th": 20}, "aqm.min_th", "max_th (default 15) above min_th"),
        ({"kind": "red", "min_th": 40, "max_th": 60}, "aqm.min_th", "queue limit (30 packets)"),
        ({"kind": "red", "max_p": 0}, "aqm.max_p", "above 0"),
        ({"kind": "red", "max_p": 1.5}, "aqm.max_p", "between 0 and 1"),
        ({"kind": "red", "weight": 0}, "aqm.weight", "a number from"),
        ({"kind": "red", "min_th": "5 packets"}, "aqm.min_th", '"5p"'),
        ({"kind": "red", "gentle": "yes"}, "aqm.gentle", "true or false"),
    ],
)
def test_bad_red_parameters_are_refused_by_name(aqm, field, fragment):
    with pytest.raises(InvalidValueError) as e:
        topology.dumbbell(1, queue="30p", overrides={"links.bottleneck.ab.aqm": aqm})
    assert e.value.field == f"links.bottleneck.ab.{field}"
    assert fragment in str(e.value)


def test_an_unknown_red_parameter_lists_the_known_ones():
    with pytest.raises(UnknownFieldError) as e:
        topology.dumbbell(1, overrides={"links.bottleneck.ab.aqm": {"kind": "red", "minth": 3}})
    assert e.value.field == "links.bottleneck.ab.aqm.minth"
    assert "min_th" in str(e.value)


def test_the_testbed_refuses_a_managed_queue():
    from tcplab.testbed.plan import UnsupportedScenario, plan

    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "sarkar2022.toml").with_overrides(
        {"links.wan.ab.aqm": {"kind": "red"}}
    )
    with pytest.raises(UnsupportedScenario) as e:
        plan(sc)
    assert "aqm" in str(e.value) and "drop-tail only" in str(e.value)


# -- CoDel (RFC 8289) ---------------------------------------------------------------------------


def _overload(codel: dict | None = None, output: dict | None = None) -> tcplab.Result:
    """1000-byte IP datagrams (1038 B on the wire) every 0.5 ms from 0 to 450 ms into a CoDel
    link that sends one per 1 ms (8.304 Mbit/s), 1000-packet limit."""
    data = {
        "run": {"stop_time": "1s"},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"name": "l", "a": "a", "b": "b", "rate": "8.304Mbps", "delay": "1ms",
                   "queue": "1000p", "ab": {"aqm": {"kind": "codel", **(codel or {})}}}],
        "apps": [{"name": "u", "kind": "udp", "client": "a", "server": "b",
                  "rate": "15.552Mbps", "packet_size": 972, "stop": "450ms"}],
        "output": output or {},
    }  # fmt: skip
    return tcplab.run(tcplab.Scenario.from_dict(data))


def test_codel_drops_on_rfc_8289s_schedule():
    # 1000-byte IP datagrams (1038 B on the wire) every 0.5 ms into a link that sends one per
    # 1 ms: the link is busy from 0, frame k leaves at k ms after waiting k / 2 ms. The first
    # to wait 5 ms or more leaves at 10 ms, so first_above_time = 110 ms: the frame dequeued
    # then is dropped, the dropping state begins with count 1, and the next drops are due
    # interval / sqrt(count) after the previous due time: 210, 280.7, 338.4, 388.4, 433.2, 474.0
    # ms, each taken at the first dequeue (a whole ms) at or after it.
    res = _overload()
    ev = res.traces["events"]
    drops = ev[ev["kind"] == "drop_queue"]["time_s"].tolist()
    assert drops[:7] == pytest.approx([0.110, 0.210, 0.281, 0.339, 0.389, 0.434, 0.474])
    link = res.summary["links"][0]["ab"]
    # every drop is CoDel's (counted as the discipline's own, like RED's early drops) and
    # every datagram is either delivered or one of them
    assert link["frames_dropped_queue"] == link["frames_dropped_early"] == len(drops)
    dg = res.summary["apps"][0]["datagrams"]
    assert dg["sent"] == 900 and dg["received"] + dg["lost"] == 900 == dg["received"] + len(drops)


def test_codel_linux_law_reproduces_ns3s_codel_queue_disc():
    # ns-3's CoDelQueueDisc (and Linux's codel) differ from RFC 8289's pseudocode in two
    # ways: a drop only after first_above_time, and 1/sqrt(count) by a 16-bit Newton step
    # (count 2 gives 0.5, so the third drop comes 50 ms after the second, not 70.7 ms).
    # law = "linux" switches both; ns-3 itself gives these drop times for this scenario.
    ref = json.loads((ROOT / "tests" / "data" / "ns3_codel_drops.json").read_text())
    res = _overload({"law": "linux"})
    ev = res.traces["events"]
    ours = [round(t, 3) for t in ev[ev["kind"] == "drop_queue"]["time_s"]]
    want = ref["ns3_drop_times_s"]
    assert len(ours) == len(want) == 22
    # ns-3 counts time in 1024-ns units, which moves one dequeue by one packet (1 ms) here
    off = [(a, b) for a, b in zip(ours, want, strict=True) if a != b]
    assert len(off) <= 1 and all(abs(a - b) <= 0.0011 for a, b in off), off
    assert res.summary["apps"][0]["datagrams"]["received"] == ref["ns3_sent"]


def test_codel_keeps_a_bulk_queue_near_its_target_without_losing_the_link():
    big = "1000p"
    tail = topology.dumbbell(4, queue=big, bottleneck_rate="10Mbps", stop_time="30s")
    codel = topology.dumbbell(4, queue=big, bottleneck_rate="10Mbps", stop_time="30s",
                              overrides={"links.bottleneck.ab.aqm": {"kind": "codel"}})  # fmt: skip
    a, b = tcplab.run(tail), tcplab.run(codel)
    la = {lk["name"]: lk for lk in a.summary["links"]}["bottleneck"]["ab"]
    lb = {lk["name"]: lk for lk in b.summary["links"]}["bottleneck"]["ab"]
    # drop-tail lets four senders build a standing queue as deep as their windows (~170 ms)
    assert la["mean_queue_delay_s"] > 0.1
    # CoDel holds it near 5 ms, dropping early, and the link stays busy
    assert lb["mean_queue_delay_s"] < 0.03
    assert lb["frames_dropped_early"] > 0
    assert lb["utilisation"] > 0.9
    # TCP resent what CoDel dropped: at least one retransmission per data frame dropped, and
    # each receiver delivered what its application counts
    conns = b.summary["connections"]
    assert sum(c["client"]["retransmissions"] for c in conns) >= lb["data_frames_dropped_queue"]
    for c, app in zip(conns, b.summary["apps"], strict=True):
        assert c["server"]["bytes_delivered"] == app["bytes_received"] > 0
    # the same seed, the same run
    assert tcplab.run(codel).summary == b.summary


@pytest.mark.parametrize(
    ("aqm", "field"),
    [
        ({"kind": "codel", "target": "200ms"}, "target"),
        ({"kind": "codel", "interval": "2ms"}, "interval"),
        ({"kind": "codel", "target": "0s"}, "target"),
        ({"kind": "codel", "min_th": 5}, "min_th"),
    ],
)
def test_bad_codel_parameters_are_refused_by_name(aqm: dict, field: str) -> None:
    with pytest.raises(tcplab.errors.ScenarioError) as e:
        topology.dumbbell(1, overrides={"links.bottleneck.ab.aqm": aqm})
    assert e.value.field.endswith(field), str(e.value)


def test_codel_queue_statistics_agree_with_each_other():
    # The queues table (every change of the waiting queue), the link series' time-average
    # queue (CoDel's dropped frames counted while they waited) and the summary's largest
    # queue describe the same CoDel queue.
    res = _overload(output={"link_series": "100ms", "queues": True})
    end = res.summary["sim_time_s"]
    ls = res.traces["link_series"]
    series = ls[ls["link"] == "l:ab"]
    q = res.traces["queues"]
    q = q[q["link"] == "l:ab"]
    t = list(q["time_s"]) + [end]
    n = list(q["packets"])
    for lo, mean in zip(series["time_s"], series["mean_queue_packets"], strict=True):
        hi = min(lo + 0.1, end)
        area = sum(n[i] * max(0.0, min(t[i + 1], hi) - max(t[i], lo)) for i in range(len(n)))
        assert mean == pytest.approx(area / (hi - lo), rel=1e-9, abs=1e-9), lo
    assert res.summary["links"][0]["ab"]["max_queue_packets"] == q["packets"].max() == 444
    # every frame in the queue log left it: the log ends empty
    assert n[-1] == 0
