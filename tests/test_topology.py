"""tcplab.topology: the builders make the network they describe, and refuse what they cannot."""

from __future__ import annotations

from pathlib import Path

import pytest
import tcplab
from tcplab import topology
from tcplab.errors import InvalidValueError

ROOT = Path(__file__).resolve().parents[1]


def _links(res: tcplab.Result) -> dict[str, dict]:
    return {lk["name"]: lk for lk in res.summary["links"]}


def test_a_dumbbell_shares_one_bottleneck_and_delivers_every_byte():
    sc = topology.dumbbell(3, size="1MB", bottleneck_rate="5Mbps", queue="30p")
    res = tcplab.run(sc)
    apps = {a["name"]: a for a in res.summary["apps"]}
    assert sorted(apps) == ["flow1", "flow2", "flow3"]
    assert all(a["completed"] and a["bytes_received"] == 1_000_000 for a in apps.values())
    links = _links(res)
    # Every flow's data crossed the bottleneck: its ab direction carried at least 3 MB.
    assert links["bottleneck"]["ab"]["bytes_on_wire"] > 3_000_000
    # ... so together they cannot beat its 5 Mbit/s.
    end = max(a["end_s"] for a in apps.values())
    assert 3_000_000 * 8 / end < 5e6
    # Three flows into a 30-packet queue at 20x the bottleneck's rate overflow it.
    assert links["bottleneck"]["ab"]["frames_dropped_queue"] > 0


def test_per_flow_delays_and_controls_reach_each_connection():
    sc = topology.dumbbell(
        3,
        size="300KB",
        access_delay=["1ms", "30ms", "80ms"],
        congestion_control=["reno", "cubic", "westwood"],
        loss_recovery="sack",
        start=["0s", "0s", "0.5s"],
    )
    res = tcplab.run(sc)
    conns = {c["name"]: c for c in res.summary["connections"]}
    assert [conns[f"flow{i}"]["congestion_control"] for i in (1, 2, 3)] == [
        "reno",
        "cubic",
        "westwood",
    ]
    assert {c["loss_recovery"] for c in conns.values()} == {"sack"}
    # Base RTT = 2 x (access + 20 ms bottleneck + 1 ms receiver link): 44, 102, 202 ms.
    srtt = [conns[f"flow{i}"]["client"]["srtt_s"] for i in (1, 2, 3)]
    for s, base in zip(srtt, (0.044, 0.102, 0.202), strict=True):
        assert base <= s < base + 0.05
    starts = {a["name"]: a["start_s"] for a in res.summary["apps"]}
    assert starts["flow3"] == pytest.approx(0.5)


def test_the_error_model_sits_on_the_data_direction_only():
    sc = topology.dumbbell(2, size="2MB", error={"model": "per", "p": 0.02})
    links = _links(tcplab.run(sc, seed=4))
    assert links["bottleneck"]["ab"]["frames_dropped_error"] > 0
    assert links["bottleneck"]["ba"]["frames_dropped_error"] == 0
    assert all(
        lk["ab"]["frames_dropped_error"] == 0 for n, lk in links.items() if n != "bottleneck"
    )


def test_an_ftp_dumbbell_downloads_from_the_senders():
    res = tcplab.run(topology.dumbbell(2, kind="ftp", size="200KB"))
    for c in res.summary["connections"]:
        # ftp: the receiver d<i> opens the connection (client) and the sender s<i> sends.
        assert c["server"]["bytes_sent"] >= 200_000
        assert c["client"]["bytes_delivered"] == 200_000


def test_a_star_shares_the_uplink():
    alone = tcplab.run(topology.star(1, size="2MB"))
    four = tcplab.run(topology.star(4, size="2MB"))
    t1 = alone.summary["apps"][0]["response_time_s"]
    t4 = [a["response_time_s"] for a in four.summary["apps"]]
    assert all(a["completed"] for a in four.summary["apps"])
    # Four downloads through one 10 Mbit/s uplink take about four times as long as one.
    assert max(t4) > 3 * t1
    assert _links(four)["uplink"]["ab"]["bytes_on_wire"] > 8_000_000


def test_a_built_scenario_survives_toml_and_runs_identically():
    sc = topology.dumbbell(2, size="500KB", congestion_control=["cubic", "bbr"], trace=True)
    again = tcplab.Scenario.from_toml(sc.to_toml())
    assert again == sc
    a, b = tcplab.run(sc, seed=3), tcplab.run(again, seed=3)
    assert a.summary["apps"] == b.summary["apps"]
    assert a.traces["trace"].equals(b.traces["trace"])


def test_the_checked_in_example_is_what_the_builder_makes():
    built = topology.dumbbell(
        4,
        access_delay=["1ms", "5ms", "10ms", "20ms"],
        bottleneck_rate="10Mbps",
        bottleneck_delay="20ms",
        queue="50p",
        error={"model": "ber", "ber": 1e-6},
        size="5MB",
        congestion_control=["reno", "cubic", "westwood", "bbr"],
        loss_recovery=["dupack", "sack", "sack", "rack-tlp"],
        name="dumbbell",
    )
    assert tcplab.Scenario.from_toml(ROOT / "examples" / "dumbbell.toml") == built


def test_overrides_apply_last():
    sc = topology.star(2, overrides={"links.h2.delay": "40ms", "apps.ftp1.size": "10KB"})
    d = sc.to_dict()
    assert {lk["name"]: lk["delay"] for lk in d["links"]}["h2"] == "40ms"
    assert {a["name"]: a["size"] for a in d["apps"]}["ftp1"] == "10KB"


@pytest.mark.parametrize(
    ("kwargs", "field", "fragment"),
    [
        ({"n": 0}, "n", "an integer from 1 to 10000"),
        ({"n": 2.5}, "n", "an integer from 1 to 10000"),
        ({"n": 3, "access_delay": ["1ms", "2ms"]}, "access_delay", "one value, or 3 values"),
        ({"n": 2, "congestion_control": ["reno"]}, "congestion_control", "2 values"),
        ({"n": 2, "kind": "web"}, "kind", "bulk, ftp"),
        ({"n": 2, "kind": "ftp"}, "size", "a size"),
        ({"n": 2, "error": 0.01}, "error", "error model table"),
        ({"n": 2, "bottleneck_rate": "fast"}, "links.bottleneck.rate", "bit rate"),
        ({"n": 2, "congestion_control": "renoo"}, "congestion_control", "reno"),
        ({"n": 2, "trace": "no"}, "trace", "true or false"),
    ],
)
def test_bad_parameters_name_the_field_and_what_is_allowed(kwargs, field, fragment):
    with pytest.raises(InvalidValueError) as e:
        topology.dumbbell(**kwargs)
    assert field in e.value.field
    assert fragment in str(e.value)


def test_a_campus_has_every_user_run_every_application_against_its_server():
    sc = topology.campus(
        4, stop_time="120s", start_spread="40s", ftp_size="2MB", database={"count": 5}
    )
    d = sc.to_dict()
    kinds = {n["name"]: n.get("kind", "host") for n in d["nodes"]}
    assert kinds["switch"] == "switch" and kinds["firewall"] == "router"
    assert {n["name"]: n.get("processing_delay") for n in d["nodes"]}["firewall"] == "50us"
    res = tcplab.run(sc)
    apps = {a["name"]: a for a in res.summary["apps"]}
    assert sorted(apps) == sorted(f"{k}_{i}" for k in ("http", "db", "ftp") for i in range(4))
    # Users start evenly spread over 40 s.
    assert [apps[f"ftp_{i}"]["start_s"] for i in range(4)] == [0.0, 10.0, 20.0, 30.0]
    assert all(apps[f"ftp_{i}"]["completed"] for i in range(4))
    assert all(apps[f"db_{i}"]["transactions"]["completed"] == 5 for i in range(4))
    # Every answer crossed the firewall and the uplink to the switch.
    links = {lk["name"]: lk for lk in res.summary["links"]}
    answers = sum(a["bytes_received"] for a in apps.values())
    assert links["uplink"]["ab"]["bytes_on_wire"] > answers
    assert "link_series" in res.traces and "transactions" in res.traces


def test_the_checked_in_campus_is_what_the_builder_makes():
    built = topology.campus(
        10,
        stop_time="600s",
        start_spread="60s",
        http={"think_time": {"dist": "exponential", "mean": "30s"}},
        database={"interval": {"dist": "exponential", "mean": "12s"}},
        ftp_size="20MB",
        congestion_control="reno",
    )
    assert tcplab.Scenario.from_toml(ROOT / "examples" / "campus.toml") == built


@pytest.mark.parametrize(
    ("kwargs", "field", "fragment"),
    [
        ({"apps": ["http", "voip"]}, "apps", "http, database, ftp"),
        ({"apps": []}, "apps", "one or more"),
        ({"start_spread": "later"}, "start_spread", "duration"),
        ({"http": 5}, "http", "a table"),
        ({"http": {"think": "1s"}}, "apps.http_0.think", "think_time"),
    ],
)
def test_bad_campus_parameters_are_refused_by_name(kwargs, field, fragment):
    with pytest.raises(tcplab.errors.ScenarioError) as e:
        topology.campus(2, **kwargs)
    assert e.value.field == field
    assert fragment in str(e.value)
