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
    assert tcp["cc_params"] == {"tau_s": 0.5, "recovery": "reno"}
    assert tcp["lr_params"] == {"max_ack_delay_s": 0.2, "tlp": True, "reo_wnd_mult": 1}
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
    }
    lrs = {r["name"]: r["params"] for r in reg["loss_recoveries"]}
    assert {p["name"] for p in lrs["rack-tlp"]} == {"max_ack_delay", "tlp", "reo_wnd_mult"}
