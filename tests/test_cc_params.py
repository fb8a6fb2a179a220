"""`[tcp] cc_params` / `lr_params`: each algorithm's parameters from a scenario, errors naming
the field, and the resolved values in `describe()` and `tcplab variants --json`."""

from __future__ import annotations

import json

import pytest
import tcplab
from tcplab import _core, errors

BASE = """\
[run]
stop_time = "20s"

[[nodes]]
name = "a"

[[nodes]]
name = "b"

[[links]]
name = "l"
a = "a"
b = "b"
rate = "10Mbps"
delay = "10ms"

[links.ab]
error = { model = "list", segments = [{ seq = 146001, tx = 1 }] }

[[apps]]
name = "x"
kind = "bulk"
client = "a"
server = "b"
size = "400kB"
"""


def scenario(tcp: str) -> tcplab.Scenario:
    return tcplab.Scenario.from_toml(f"{BASE}\n[tcp]\n{tcp}\n")


def test_an_unknown_parameter_is_an_unknown_field_error_listing_its_parameters() -> None:
    with pytest.raises(errors.UnknownFieldError) as e:
        scenario('congestion_control = "westwood"\ncc_params = { taux = "1s" }')
    assert e.value.field == "tcp.cc_params.taux"
    assert "tau, recovery" in e.value.allowed
    assert "tcp.cc_params.taux" in str(e.value)


def test_a_parameter_of_another_algorithm_is_an_error_that_says_whose() -> None:
    with pytest.raises(errors.UnknownFieldError) as e:
        scenario('congestion_control = "cubic"\ncc_params = { tau = "1s" }')
    assert e.value.field == "tcp.cc_params.tau"
    assert "westwood" in e.value.allowed and "beta" in e.value.allowed


def test_an_out_of_range_value_is_an_invalid_value_error_with_the_range() -> None:
    with pytest.raises(errors.InvalidValueError) as e:
        scenario('congestion_control = "westwood"\ncc_params = { tau = "200s" }')
    assert e.value.field == "tcp.cc_params.tau"
    assert "200s" in e.value.value
    assert "1ms" in e.value.allowed and "100s" in e.value.allowed
    with pytest.raises(errors.InvalidValueError) as e:
        scenario('loss_recovery = "rack-tlp"\nlr_params = { reo_wnd_mult = 0 }')
    assert e.value.field == "tcp.lr_params.reo_wnd_mult"


def test_overrides_reach_the_parameters() -> None:
    sc = scenario('congestion_control = "cubic"')
    with pytest.raises(errors.InvalidValueError) as e:
        sc.with_overrides({"tcp.cc_params.beta": 1.5})
    assert e.value.field == "tcp.cc_params.beta"
    ok = sc.with_overrides({"tcp.cc_params.beta": 0.5})
    assert ok.to_dict(normalized=True)["tcp"]["cc_params"] == {"beta": 0.5}


def test_describe_shows_every_parameter_with_defaults_filled_in() -> None:
    tcp = scenario(
        'congestion_control = "westwood"\ncc_params = { tau = "500ms" }\nloss_recovery = "rack-tlp"'
    ).describe()["apps"][0]["tcp"]
    assert tcp["cc_params"] == {
        "model": "paper",
        "tau_s": 0.5,
        "recovery": "reno",
        "filter": "paper",
        "alpha": 0.9,
        "ack_count": "paper",
        "ack_cap": 0,
        "rtt_min": "samples",
        "timeout_divisor": "none",
        "inflation": True,
        "exit_window": "ssthresh",
        "limited_transmit": True,
        "fast_retransmit_guard": True,
        "ns2_window": False,
        "estimate_first": False,
        "syn_timeout": "profile",
        "fr_inflation": True,
        "partial_deflation": True,
        "impatient": True,
    }
    assert tcp["lr_params"] == {
        "max_ack_delay_s": 0.2,
        "tlp": True,
        "reo_wnd_mult": 1,
        "rule": "rfc8985",
    }
    linux = scenario('profile = "linux"').describe()["apps"][0]["tcp"]
    assert linux["lr_params"]["rule"] == "linux"
    plain = scenario("").describe()["apps"][0]["tcp"]
    assert plain["congestion_control"] == "reno"
    assert plain["cc_params"] == {} and plain["lr_params"] == {}


def test_a_parameter_changes_the_run_and_explicit_defaults_do_not() -> None:
    base = 'congestion_control = "cubic"\nloss_recovery = "sack"'
    default = tcplab.run(scenario(base)).summary
    explicit = tcplab.run(scenario(f"{base}\ncc_params = {{ beta = 0.7, c = 0.4 }}")).summary
    deeper = tcplab.run(scenario(f"{base}\ncc_params = {{ beta = 0.5 }}")).summary
    assert explicit == default
    assert deeper != default


def test_variants_json_lists_each_algorithms_parameters() -> None:
    reg = json.loads(_core.variants())
    ccs = {c["name"]: c["params"] for c in reg["congestion_controls"]}
    tau = next(p for p in ccs["westwood"] if p["name"] == "tau")
    assert (tau["type"], tau["default"]) == ("duration", "1s")
    assert ccs["reno"] == []
    assert {p["name"] for p in ccs["cubic"]} == {
        "c",
        "beta",
        "fast_convergence",
        "reno_friendly",
        "hystart",
        "alpha_to_one",
        "target_min_rtt",
        "unknown_max_growth",
        "packets",
    }
    lrs = {r["name"]: r["params"] for r in reg["loss_recoveries"]}
    assert {p["name"] for p in lrs["rack-tlp"]} == {"max_ack_delay", "tlp", "reo_wnd_mult", "rule"}


def _bwe_trace(cc: str) -> tuple[tcplab.Result, object]:
    sc = tcplab.Scenario.from_dict(
        {
            "run": {"name": "bwe", "stop_time": "20s"},
            "tcp": {
                "profile": "rfc",
                "congestion_control": cc,
                "loss_recovery": "newreno",
                "rcv_buf": "1MB",
                "delayed_ack": False,
            },  # fmt: skip
            "nodes": [{"name": "c"}, {"name": "s"}],
            "links": [
                {
                    "name": "l",
                    "a": "s",
                    "b": "c",
                    "rate": "4Mbps",
                    "delay": "20ms",
                    "framing": "none",
                    "queue": "30p",
                }
            ],  # fmt: skip
            "apps": [{"name": "x", "kind": "ftp", "client": "c", "server": "s", "size": "5MB"}],
            "output": {"trace": True},
        }
    )
    res = tcplab.run(sc, seed=1)
    return res, res.traces["trace"]


def test_trace_carries_westwoods_bandwidth_estimate_and_rtt_min():
    # A 4 Mbit/s bottleneck the transfer fills: Westwood's BWE (bytes/s of ACKed payload,
    # 1460 of each 1500 bytes on the wire) settles near the link's payload rate, and its
    # RTTmin is the unloaded round trip: 40 ms plus one segment's serialisation (3 ms) and the
    # ACK's (0.08 ms).
    _, tr = _bwe_trace("westwood")
    late = tr[tr["time_s"] > 10]
    payload_rate = 4e6 / 8 * 1460 / 1500
    assert late["bwe_Bps"].median() == pytest.approx(payload_rate, rel=0.1)
    rtt_min = late["bwe_rtt_min_s"].iloc[-1]
    assert 0.040 < rtt_min < 0.040 + 0.0031 + 0.0002
    # Other algorithms keep no estimate: the columns are empty, not zero.
    _, reno = _bwe_trace("reno")
    assert reno["bwe_Bps"].isna().all() and reno["bwe_rtt_min_s"].isna().all()


NS2_MODULE = {
    "model": "ns2",
    "tau_s": 1.0,
    "recovery": "reno",
    "filter": "ns2_fixed",
    "alpha": 0.9,
    "ack_count": "ns2",
    "ack_cap": 2,
    "rtt_min": "ns2",
    "timeout_divisor": "ns2",
    "inflation": False,
    "exit_window": "keep",
    "limited_transmit": False,
    "fast_retransmit_guard": False,
    "ns2_window": True,
    "estimate_first": True,
    "syn_timeout": "initial_window",
    "fr_inflation": False,
    "partial_deflation": False,
    "impatient": False,
}


def _westwood(params: str, lr: str = "dupack") -> dict:
    sc = scenario(f'congestion_control = "westwood"\nloss_recovery = "{lr}"\ncc_params = {params}')
    return sc.describe()["apps"][0]["tcp"]["cc_params"]


def test_westwood_model_ns2_sets_the_modules_defaults_and_a_knob_overrides_one() -> None:
    assert _westwood('{ model = "ns2" }') == NS2_MODULE
    assert _westwood('{ model = "ns2", filter = "ns2_tustin", ack_cap = 0 }') == {
        **NS2_MODULE,
        "filter": "ns2_tustin",
        "ack_cap": 0,
    }
    # WestwoodNR: the module on ns-2's NewReno agent, whose fast recovery inflates, whose recv
    # sends one packet per early duplicate ACK and checks recover_ before dupack_action.
    assert _westwood('{ model = "ns2", recovery = "newreno" }', lr="newreno") == {
        **NS2_MODULE,
        "recovery": "newreno",
        "inflation": True,
        "limited_transmit": True,
        "fast_retransmit_guard": True,
    }
    # A knob given next to the preset wins, WestwoodNR's too.
    nr = '{ model = "ns2", recovery = "newreno", limited_transmit = false }'
    assert not _westwood(nr, lr="newreno")["limited_transmit"]


@pytest.mark.parametrize(
    ("params", "field", "value", "allowed"),
    [
        ('{ model = "ns3" }', "model", "ns3", ['"paper"', '"ns2"']),
        ('{ filter = "tustin" }', "filter", "tustin", ['"ns2_fixed"', '"ns2_tustin"']),
        ('{ ack_count = "linux" }', "ack_count", "linux", ['"paper"', '"ns2"']),
        ("{ ack_cap = 1001 }", "ack_cap", "1001", ["0 to 1000"]),
        ("{ alpha = 1 }", "alpha", "1", ["[0, 1)"]),
        ('{ rtt_min = "ticks" }', "rtt_min", "ticks", ['"samples"', '"ns2"']),
        ("{ timeout_divisor = 2 }", "timeout_divisor", "2", ['"none"', '"ns2"']),
        ('{ inflation = "no" }', "inflation", "no", ["true or false"]),
        ('{ exit_window = "cwnd" }', "exit_window", "cwnd", ['"ssthresh"', '"keep"']),
        ('{ syn_timeout = "one" }', "syn_timeout", "one", ['"profile"', '"initial_window"']),
        ("{ ns2_window = 1 }", "ns2_window", "1", ["true or false"]),
        ('{ fast_retransmit_guard = "off" }', "fast_retransmit_guard", "off", ["true or false"]),
    ],
)
def test_a_bad_westwood_model_field_names_the_field_the_value_and_what_is_allowed(
    params: str, field: str, value: str, allowed: list[str]
) -> None:
    with pytest.raises(errors.InvalidValueError) as e:
        _westwood(params)
    assert e.value.field == f"tcp.cc_params.{field}"
    assert value in e.value.value
    for a in allowed:
        assert a in e.value.allowed, (a, e.value.allowed)


def test_westwood_nr_under_duplicate_ack_recovery_is_refused_with_the_way_out() -> None:
    with pytest.raises(errors.InvalidValueError) as e:
        _westwood('{ recovery = "newreno" }', lr="dupack")
    assert e.value.field == "tcp.cc_params.recovery"
    assert "newreno" in e.value.value
    assert 'loss_recovery = "newreno"' in e.value.allowed
    assert _westwood('{ recovery = "newreno" }', lr="newreno")["recovery"] == "newreno"
