"""RED on a link direction: it keeps the queue short where drop-tail lets it fill, its drops are
counted apart, it is deterministic, and bad parameters are refused by name."""

from __future__ import annotations

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
        ({"kind": "codel"}, "aqm.kind", "none (drop-tail), red"),
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
    from tcplab.testbed.schema import UnsupportedScenario, plan

    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "sarkar2022.toml").with_overrides(
        {"links.wan.ab.aqm": {"kind": "red"}}
    )
    with pytest.raises(UnsupportedScenario) as e:
        plan(sc)
    assert "aqm" in str(e.value) and "drop-tail only" in str(e.value)
