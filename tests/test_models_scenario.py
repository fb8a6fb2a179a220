"""`tcplab model --scenario FILE`: model inputs derived from a scenario (RTT, MSS, window,
bottleneck, loss) and every model evaluated from them.

The expected numbers are computed by hand from the scenario files, not by the code under test:
examples/sarkar2022.toml is 10 Mbit/s Ethernet, 20 ms + 0 ms each way, a 1500-byte IP packet is
1538 bytes on the wire (8 preamble + 14 header + 4 FCS + 12 gap) and 1518 bytes exposed to
errors; a 40-byte ACK is padded to 46 bytes of payload, 84 bytes on the wire.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
import tcplab
from conftest import ROOT
from tcplab import analytic, models
from tcplab.cli import app as tcplab_app
from tcplab.cli.models import app as model_app
from typer.testing import CliRunner

runner = CliRunner()
SARKAR = ROOT / "examples" / "sarkar2022.toml"
NETSIM = ROOT / "examples" / "netsim_mathis.toml"

RATE = 10e6  # bit/s
DATA_WIRE = 1538  # bytes
ACK_WIRE = 84
SARKAR_RTT = 0.040 + 2 * DATA_WIRE * 8 / RATE + 2 * ACK_WIRE * 8 / RATE  # 42.5952 ms


def flat(text: str) -> str:
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def sarkar(**overrides: Any) -> tcplab.Scenario:
    sc = tcplab.Scenario.from_toml(SARKAR)
    return sc.with_overrides(overrides) if overrides else sc


# ----------------------------------------------------------------------------------------------
# Derivation


def test_sarkar_inputs_by_hand() -> None:
    (x,) = analytic.scenario_inputs(sarkar())
    assert (x.app, x.kind, x.sender, x.sender_end) == ("ftp", "ftp", "server", "server")
    assert x.size_bytes == 10_000_000
    assert x.mss_bytes == x.eff_mss_bytes == 1460
    assert (x.data_ip_bytes, x.ack_ip_bytes) == (1500, 40)
    assert [h.name for h in x.data_path] == ["wan.ab", "lan.ab"]
    assert [h.name for h in x.ack_path] == ["lan.ba", "wan.ba"]
    assert [h.wire_bytes for h in x.data_path] == [DATA_WIRE, DATA_WIRE]
    assert [h.exposed_bytes for h in x.data_path] == [1518, 1518]
    assert [h.wire_bytes for h in x.ack_path] == [ACK_WIRE, ACK_WIRE]
    assert x.rtt_propagation_s == pytest.approx(0.040)
    assert x.rtt_data_serialisation_s == pytest.approx(2 * 1.2304e-3)
    assert x.rtt_ack_serialisation_s == pytest.approx(2 * 67.2e-6)
    assert x.rtt_s == pytest.approx(SARKAR_RTT) and x.rtt_s == pytest.approx(0.0425952)
    assert x.rwnd_bytes == 8760 and x.rwnd_segments == pytest.approx(6.0)
    assert x.bottleneck_rate_Bps == 1_250_000 and x.overhead_bytes == 78
    assert x.p == 0.01 and x.p_ack == 0.0  # wan.ab carries per = 1 %, nothing else
    assert x.b == 2.0 and x.delayed_ack  # riverbed: delayed ACK every 2 segments
    assert x.rto_s == 1.0  # max(rto_min 1 s, RTT + 0.5 s granularity)
    assert x.initial_cwnd == 2


def test_sarkar_models_by_hand() -> None:
    (x,) = analytic.scenario_inputs(sarkar())
    m = analytic.evaluate_models(x)
    # Sarkar 2022 section 4.3.3: 8760 B / 40 ms = 219,000 B/s at the propagation RTT
    assert m["window_propagation"] == pytest.approx(219_000.0)
    assert m["window"] == pytest.approx(8760 / SARKAR_RTT)
    # section 4.3.2: 1460 / (1460 + 78) x 1,250,000 = 1,186,605.98 B/s
    assert m["line_rate"] == pytest.approx(1_186_605.98, abs=0.01)
    assert m["mathis_b1"] == pytest.approx(1460 / SARKAR_RTT * math.sqrt(1.5 / 0.01))
    assert m["mathis_b2"] == pytest.approx(1460 / SARKAR_RTT * math.sqrt(0.75 / 0.01))
    assert m["pftk_full"] == pytest.approx(
        float(models.pftk_throughput(1460, SARKAR_RTT, 0.01, 1.0, b=2, rwnd=8760, goodput=True))
    )
    assert m["application"] == math.inf
    assert m["cardwell"] == pytest.approx(10_000_000 / m["cardwell_latency_s"])
    # the window binds: below the line rate and below Mathis b = 2
    assert m["binding"] == "window" and m["estimate"] == m["window"]
    assert m["estimate_seconds"] == pytest.approx(10_000_000 / m["window"])


def test_timestamps_take_12_bytes_of_payload() -> None:
    (x,) = analytic.scenario_inputs(sarkar(**{"tcp.timestamps": True}))
    assert x.eff_mss_bytes == 1448
    assert x.data_ip_bytes == 1500  # 1448 + 40 + 12: the frame stays full-sized
    assert x.ack_ip_bytes == 52
    assert [h.wire_bytes for h in x.ack_path] == [90, 90]  # 52 + 38 > the 84-byte minimum
    assert x.rtt_s == pytest.approx(0.040 + 2 * 1538 * 8 / RATE + 2 * 90 * 8 / RATE)
    m = analytic.evaluate_models(x)
    assert m["line_rate"] == pytest.approx(1448 / 1538 * 1_250_000)


def test_receive_window_capped_without_window_scaling() -> None:
    (x,) = analytic.scenario_inputs(sarkar(**{"tcp.rcv_buf": 1_000_000}))
    assert x.rcv_buf_bytes == 1_000_000 and x.rwnd_bytes == 65_535
    (y,) = analytic.scenario_inputs(
        sarkar(**{"tcp.rcv_buf": 1_000_000, "tcp.window_scaling": True})
    )
    assert y.rwnd_bytes == 1_000_000


def test_loss_along_the_path_and_by_frame_length() -> None:
    ber = 1e-6
    (x,) = analytic.scenario_inputs(
        sarkar(
            **{
                "links.wan.ab.error": {"model": "ber", "ber": ber},
                "links.lan.ab.error": {"model": "per", "p": 0.02},
                "links.wan.ba.error": {"model": "ber", "ber": ber},
            }
        )
    )
    per_wan = 1 - (1 - ber) ** (8 * 1518)  # BER by the exposed length of a full frame
    assert x.data_path[0].per == pytest.approx(per_wan)
    assert x.p == pytest.approx(1 - (1 - per_wan) * (1 - 0.02))
    assert x.p_ack == pytest.approx(1 - (1 - ber) ** (8 * 64))  # an ACK exposes 64 bytes


def test_gilbert_elliott_and_list_hops() -> None:
    (x,) = analytic.scenario_inputs(sarkar())
    desc = sarkar().describe()["apps"][0]
    desc["data_path"][0]["error"] = {
        "model": "gilbert-elliott",
        "good": {"per": 0.0},
        "bad": {"per": 0.5},
        "p_gb": 0.01,
        "p_bg": 0.09,
        "start_bad": False,
    }
    y = analytic.inputs_from_description(desc)
    assert y.p == pytest.approx(0.1 * 0.5)  # bad 10 % of the time
    assert any("Gilbert-Elliott" in n for n in y.notes)
    desc["data_path"][0]["error"] = {"model": "list", "frames": [3, 7], "segments": []}
    z = analytic.inputs_from_description(desc)
    assert z.p == 0.0 and any("not a rate" in n for n in z.notes)
    assert z.rtt_s == x.rtt_s


def test_cbr_app_offered_rate_and_loss_binding() -> None:
    (x,) = analytic.scenario_inputs(tcplab.Scenario.from_toml(NETSIM))
    assert x.kind == "cbr" and x.sender_end == "client" and x.size_bytes is None
    assert x.offered_Bps == pytest.approx(1460 / 1168e-6)  # 1.25 MB/s = 10 Mbit/s
    assert len(x.data_path) == 3
    assert x.rtt_s == pytest.approx(
        2 * 50.2e-3 + 3 * DATA_WIRE * 8 / RATE + 3 * ACK_WIRE * 8 / RATE
    )
    assert x.p == pytest.approx(1 - (1 - 1e-7) ** (8 * 1518))
    m = analytic.evaluate_models(x)
    assert m["application"] == pytest.approx(x.offered_Bps)
    assert math.isnan(m["cardwell"])  # no transfer size
    assert m["binding"] == "loss"  # Mathis b = 1 (3.94 Mbps) < window (5.03) < line rate


def test_unknown_app_names_the_known_ones() -> None:
    with pytest.raises(tcplab.errors.ScenarioError, match=r"'nope'.*'ftp'"):
        analytic.scenario_inputs(sarkar(), "nope")


# ----------------------------------------------------------------------------------------------
# The command


def test_model_scenario_json() -> None:
    res = runner.invoke(tcplab_app, ["model", "--scenario", str(SARKAR), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    (a,) = doc["apps"]
    assert a["app"] == "ftp"
    assert a["inputs"]["rtt_s"] == pytest.approx(SARKAR_RTT)
    assert a["inputs"]["eff_mss_bytes"] == 1460
    assert a["inputs"]["rwnd_bytes"] == 8760
    assert a["inputs"]["p"] == 0.01
    assert a["window_at_propagation_rtt_bytes_per_s"] == pytest.approx(219_000)
    assert a["models"]["line_rate"]["throughput_bytes_per_s"] == pytest.approx(1_186_605.98)
    assert a["models"]["application"]["throughput_bytes_per_s"] is None  # inf -> null
    assert a["binding"] == "window"
    assert [h["name"] for h in a["data_path"]] == ["wan.ab", "lan.ab"]


def test_model_scenario_text_shows_inputs_and_binding() -> None:
    res = runner.invoke(tcplab_app, ["model", "--scenario", str(SARKAR)])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "42.5952 ms = propagation 40 ms" in out
    assert "219,000.00 B/s" in out  # the window limit at the propagation RTT
    assert "1,186,605.98 B/s" in out
    assert re.search(r"^ \*window limit", out, re.M)  # the binding limit is marked
    assert "binding limit" in out and ": window ->" in out
    for label in ("Mathis b=1", "Mathis b=2", "PFTK full", "PFTK approx", "Cardwell"):
        assert label in out


def test_model_scenario_subcommand_and_overrides() -> None:
    a = runner.invoke(model_app, ["--scenario", str(SARKAR), "--json"])
    b = runner.invoke(model_app, ["scenario", str(SARKAR), "--json"])
    assert a.exit_code == b.exit_code == 0
    assert json.loads(a.stdout) == json.loads(b.stdout)
    c = runner.invoke(
        model_app, ["--scenario", str(SARKAR), "--set", "tcp.rcv_buf=17520", "--json"]
    )
    assert c.exit_code == 0, c.output
    assert json.loads(c.stdout)["apps"][0]["inputs"]["rwnd_bytes"] == 17520


def test_model_scenario_errors() -> None:
    res = runner.invoke(model_app, ["--scenario", str(SARKAR), "--app", "nope"])
    assert res.exit_code == 2 and "'nope'" in res.stderr and "--app" in res.stderr
    res = runner.invoke(model_app, ["--scenario", str(SARKAR), "mathis", "--rtt", "1s"])
    assert res.exit_code == 2 and "--scenario" in flat(res.output)
    res = runner.invoke(model_app, ["--scenario", "/no/such/file.toml"])
    assert res.exit_code == 2 and "does not exist" in flat(res.output)
    res = runner.invoke(model_app, ["--app", "ftp"])
    assert res.exit_code == 2 and "need --scenario" in flat(res.output)


def test_model_commands_still_work_and_help_without_args(tmp_path: Path) -> None:
    res = runner.invoke(model_app, ["mathis", "--rtt", "100ms", "--per", "1.2e-3", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["outputs"]["throughput_bytes_per_s"] == pytest.approx(
        516_187.95, abs=0.01
    )
    res = runner.invoke(model_app, [])
    assert "--scenario" in res.output and "mathis" in res.output
