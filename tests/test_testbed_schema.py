"""One result schema: a scenario mapped onto the testbed (`tcplab.testbed.plan`, its result
`tcplab.testbed.result`), `tcplab
testbed run`, `tcplab compare --sim --testbed` and the sarkar2022 study's testbed option.

The mapping tests are pure (no root). Tests marked `testbed` run real kernel TCP between network
namespaces: they need Linux and root (CI runs as root) and skip elsewhere with the reason.
"""

from __future__ import annotations

import copy
import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import tcplab
from tcplab import Scenario
from tcplab.cli import app
from tcplab.testbed import TestbedUnavailable, list_namespaces
from tcplab.testbed import result as tb_result
from tcplab.testbed.errors import TestbedTimeout
from tcplab.testbed.plan import TestbedPlan, UnsupportedScenario, plan, window_limited_time
from tcplab.testbed.result import key_paths
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "sarkar2022.toml"
runner = CliRunner()

ETH_FULL = 1500 + 38  # a 1460-byte segment's Ethernet frame on the wire
ETH_ACK = 84  # a pure ACK: the 64-byte minimum frame + preamble + gap


def _skip_reason() -> str | None:
    if sys.platform != "linux":
        return f"the testbed needs Linux network namespaces (this is {sys.platform})"
    if os.geteuid() != 0:
        return "the testbed needs root to create network namespaces (CI runs as root)"
    return None


SKIP = _skip_reason()


def needs_testbed(f):
    return pytest.mark.testbed(pytest.mark.skipif(SKIP is not None, reason=SKIP or "")(f))


def sarkar(**overrides: Any) -> Scenario:
    sc = Scenario.from_toml(EXAMPLE)
    return sc.with_overrides(overrides) if overrides else sc


def everything(name: str) -> bool:
    return True


def nothing(name: str) -> bool:
    return False


# -- the mapping (pure) ------------------------------------------------------------------------


def test_sarkar_path_maps_to_one_forwarder_with_summed_delays():
    p = plan(sarkar(), have_sysctl=everything)
    c = p.config
    # Two 10 Mbit/s hops: the forwarder serialises once, the other hop's store-and-forward
    # time of a full frame (data) or an ACK frame (ACKs) joins the 20 ms propagation delay.
    assert c.delay_s2c_s == pytest.approx(0.020 + ETH_FULL * 8 / 10e6)
    assert c.delay_c2s_s == pytest.approx(0.020 + ETH_ACK * 8 / 10e6)
    assert (c.rate_bps, c.framing, c.mtu, c.mss) == (10e6, "ethernet", 1500, 1460)
    assert (c.queue_limit, c.queue_unit) == (None, "packets")  # queue = "unlimited"
    assert c.error_s2c == {"model": "per", "p": 0.01} and c.error_c2s == {"model": "none"}
    assert c.rcv_window_clamp == 8760 and c.size_bytes == 10_000_000 and c.seed == 1
    assert (p.link, p.data_dir, p.ack_dir) == ("wan", "ab", "ba")
    # RTT of the scenario = what the testbed is configured with.
    assert p.rtt_s == pytest.approx(0.040 + 2 * ETH_FULL * 8 / 10e6 + 2 * ETH_ACK * 8 / 10e6)
    assert p.rtt_s == pytest.approx(c.delay_s2c_s + c.delay_c2s_s + (ETH_FULL + ETH_ACK) * 8 / 1e7)
    assert window_limited_time(p) == pytest.approx(10e6 * p.rtt_s / 8760)
    assert any("2 hops" in n for n in p.approximations)
    assert plan(sarkar(), seed=7).config.seed == 7


def test_riverbed_profile_maps_to_sysctls_route_and_clamp():
    p = plan(sarkar(), have_sysctl=everything)
    c = p.config
    assert c.profile == "riverbed" and c.congestion_control == "reno"
    assert (c.initcwnd, c.rto_min_s) == (2, 1.0)
    expected = {
        "net.ipv4.tcp_sack": 0,
        "net.ipv4.tcp_dsack": 0,
        "net.ipv4.tcp_timestamps": 0,
        "net.ipv4.tcp_window_scaling": 0,
        "net.ipv4.tcp_recovery": 0,
        "net.ipv4.tcp_early_retrans": 0,
        "net.ipv4.tcp_frto": 0,
        "net.ipv4.tcp_reordering": 3,
        "net.ipv4.tcp_retries2": 12,
        "net.ipv4.tcp_rto_max_ms": 64_000,
    }
    assert {k: c.sysctls[k] for k in expected} == expected
    # What Linux cannot be told is listed, each naming its field.
    notes = " | ".join(p.approximations)
    for f in (
        "tcp.rto_initial",
        "tcp.clock_granularity",
        "tcp.delayed_ack",
        "tcp.ca_rule",
        "tcp.limited_transmit",
        "tcp.loss_recovery",
        "tcp.prr",
        "tcp.cwnd_validation",
        "tcp.ssthresh_from",
        "tcp.quick_acks",
        "tcp.cwnd_packets",
    ):
        assert f in notes, f
    # The ns2 profile's own rules are named as what Linux does not do; the linux profile has
    # none (below).
    ns = " | ".join(
        plan(
            sarkar(**{"tcp.profile": "ns2", "tcp.congestion_control": "reno"}),
            have_sysctl=everything,
        ).approximations
    )
    listed = ns.split("tcp.ns2 (")[1].split(")")[0].split(", ")
    assert set(listed) == {"cwnd_double", "exit_keeps_cwnd", "fast_retransmit_restarts_rto",
                           "newreno_partial", "rtt_active", "rtt_ticks", "sack1", "send_one",
                           "tahoe_keeps_dupacks", "two_way_handshake", "wire"}  # fmt: skip
    # A kernel without tcp_rto_max_ms: not applied, and said so.
    q = plan(sarkar(), have_sysctl=nothing)
    assert "net.ipv4.tcp_rto_max_ms" not in q.config.sysctls
    assert any(n.startswith("tcp.rto_max") for n in q.approximations)


def test_linux_profile_and_classic_mode_map_to_linux_defaults():
    lin = plan(sarkar(**{"tcp.profile": "linux"}), have_sysctl=everything)
    c = lin.config
    assert c.profile == "linux" and c.congestion_control == "cubic"
    assert (c.initcwnd, c.rto_min_s, c.rcv_window_clamp) == (10, 0.2, None)
    # The profile's buffer autotunes: the kernel's own autotuning from the same start and bound,
    # with no clamp; a buffer set by hand is fixed, so the forwarder clamps the window to it.
    assert c.sysctls["net.ipv4.tcp_rmem"] == "4096 131072 6291456"
    assert c.sysctls["net.ipv4.tcp_moderate_rcvbuf"] == 1
    assert any(n.startswith("tcp.rcv_buf = 131072, rcv_buf_max") for n in lin.approximations)
    fixed = plan(sarkar(**{"tcp.profile": "linux", "tcp.rcv_buf": 131_072}), have_sysctl=everything)
    assert fixed.config.rcv_window_clamp == 131_072
    assert "net.ipv4.tcp_rmem" not in fixed.config.sysctls
    for k, v in {
        "net.ipv4.tcp_sack": 1,
        "net.ipv4.tcp_timestamps": 1,
        "net.ipv4.tcp_window_scaling": 1,
        "net.ipv4.tcp_recovery": 1,
        "net.ipv4.tcp_early_retrans": 3,
        "net.ipv4.tcp_frto": 2,
        "net.ipv4.tcp_retries2": 15,
    }.items():
        assert c.sysctls[k] == v, k
    assert "net.ipv4.tcp_rto_max_ms" not in c.sysctls  # 120 s: the kernel's own
    notes = " | ".join(lin.approximations)
    for f in (
        "tcp.rto_initial",
        "tcp.delayed_ack",
        "tcp.limited_transmit",
        "tcp.ca_rule",
        "tcp.cwnd_validation",
        "tcp.ssthresh_from",
        "tcp.quick_acks",
        "tcp.nagle_minshall",
        "tcp.cwnd_packets",
        "tcp.cc_params",
        "tcp.ns2",
    ):
        assert f not in notes, f  # Linux's own values: nothing approximated
    from tcplab.studies.sarkar2022 import TESTBED_MODES

    for mode, sack in (("linux", 1), ("classic", 0)):
        m = plan(sarkar(**TESTBED_MODES[mode][1])).config
        assert m.congestion_control == "reno" and m.rcv_window_clamp == 8760
        assert m.sysctls["net.ipv4.tcp_sack"] == sack
        assert m.sysctls["net.ipv4.tcp_recovery"] == sack  # RACK-TLP off in classic
        assert m.sysctls["net.ipv4.tcp_frto"] == 2 * sack  # F-RTO off in classic
        # 8760 B fits in 16 bits: no scaling, so the forwarder's clamp is exact (with a shift
        # of 7 to 10 the window field would only express 8704 or 8192 B).
        assert m.sysctls["net.ipv4.tcp_window_scaling"] == 0
    assert c.sysctls["net.ipv4.tcp_window_scaling"] == 1  # 131072 B needs scaling


def test_error_models_map_to_the_forwarders_terms(tiny_dict):
    # tiny: client - lan - router - wan - server, data on wan.ba (server -> router).
    ge = {"model": "gilbert-elliott", "p_gb": 0.01, "p_bg": 0.2, "good_per": 0, "bad_ber": 1e-4}
    p = plan(Scenario(tiny_dict).with_overrides({"links.wan.ba.error": ge}))
    assert (p.link, p.data_dir) == ("wan", "ba")
    assert p.config.error_s2c == {
        "model": "gilbert-elliott",
        "good": {"per": 0.0},
        "bad": {"ber": 1e-4},
        "p_good_to_bad": 0.01,
        "p_bad_to_good": 0.2,
        "start_bad": False,
    }
    lst = {"model": "list", "frames": [3], "segments": [{"seq": 1, "tx": 1}, {"seq": 14481}]}
    p = plan(Scenario(tiny_dict).with_overrides({"links.wan.ba.error": lst}))
    assert p.config.error_s2c == {"model": "list", "frames": [3], "segments": [[1, 1], [14481, 1]]}
    # An error model on the ACK path goes to c2s.
    p = plan(
        Scenario(tiny_dict).with_overrides({"links.lan.ab.error": {"model": "ber", "ber": 1e-6}})
    )
    assert p.config.error_c2s == {"model": "ber", "ber": 1e-6}
    # PER on two data hops combines exactly.
    p = plan(
        Scenario(tiny_dict).with_overrides({"links.lan.ba.error": {"model": "per", "p": 0.01}})
    )
    assert p.config.error_s2c["p"] == pytest.approx(1 - 0.98 * 0.99)
    assert any("combined" in n for n in p.approximations)


def test_bottleneck_rate_and_queue_and_other_hops_serialisation(tiny_dict):
    sc = Scenario(tiny_dict).with_overrides({"links.lan.rate": "100Mbps", "links.wan.queue": 50})
    p = plan(sc)
    c = p.config
    assert c.rate_bps == 10e6 and (c.queue_limit, c.queue_unit) == (50, "packets")
    assert c.delay_s2c_s == pytest.approx(0.020 + ETH_FULL * 8 / 100e6)
    assert c.delay_c2s_s == pytest.approx(0.020 + ETH_ACK * 8 / 100e6)
    c2 = plan(Scenario(tiny_dict).with_overrides({"links.wan.queue": "64KB"})).config
    assert (c2.queue_limit, c2.queue_unit) == (64_000, "bytes")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"tcp.congestion_control": "tahoe"}, "tcp.congestion_control"),
        ({"tcp.rcv_read_rate": "1Mbps"}, "tcp.rcv_read_rate"),
        ({"apps.download.kind": "bulk"}, "apps[0].kind"),
        (
            {
                "links.wan.ba.error": {"model": "ber", "ber": 1e-6},
                "links.lan.ba.error": {"model": "per", "p": 0.01},
            },
            "links.lan.ba.error",
        ),
    ],
)
def test_unsupported_scenarios_are_refused_naming_the_field(tiny_dict, change, field):
    with pytest.raises(UnsupportedScenario) as e:
        plan(Scenario(tiny_dict).with_overrides(change))
    assert e.value.field == field
    assert str(e.value).startswith(field)


def test_more_than_one_app_is_refused(tiny_dict):
    d = copy.deepcopy(tiny_dict)
    d["apps"].append({**d["apps"][0], "name": "second"})
    with pytest.raises(UnsupportedScenario, match=r"^apps: .*exactly one application"):
        plan(Scenario(d))


def test_key_paths_collapse_list_elements():
    s = {"apps": [{"a": 1}, {"b": {"c": 2}}], "x": None}
    assert key_paths(s) == {"apps", "apps[].a", "apps[].b", "apps[].b.c", "x"}


def _raw(p: TestbedPlan) -> dict[str, Any]:
    """A small but complete `tcplab.testbed.run` result (2 samples, 1 drop)."""
    info = {
        "state": 8, "snd_mss": 1460, "rcv_mss": 536, "snd_cwnd": 6, "snd_ssthresh": 4,
        "rtt": 42_000, "rto": 1_042_000, "segs_out": 700, "segs_in": 520, "data_segs_out": 690,
        "data_segs_in": 1, "total_retrans": 3, "bytes_sent": 1_004_380, "bytes_received": 13,
        "rcv_ooopack": 0,
    }  # fmt: skip
    link = {"frames_sent": 700, "frames_dropped_error": 1, "frames_dropped_queue": 0,
            "bytes_on_wire": 1_060_000, "frames_in": 700, "frames_delivered": 699,
            "max_queue_packets": 2, "max_queue_bytes": 3076, "max_window_bytes": 8760}  # fmt: skip
    tr = {
        "time_s": [0.0, 0.01], "cwnd_bytes": [2920, 4380], "ssthresh_bytes": [None, 5840],
        "srtt_s": [0.042, 0.042], "rttvar_s": [0.02, 0.02], "rto_s": [1.04, 1.04],
        "cwnd_segments": [2, 3], "mss": [1460, 1460], "unacked": [2, 3], "sacked": [0, 0],
        "lost": [0, 0], "retrans": [0, 0], "snd_wnd": [8760, 8760], "bytes_acked": [0, 2920],
        "ca_state": [0, 3], "total_rto": [0, 0],
    }  # fmt: skip
    return {
        "run_id": "abc123", "response_time_s": 5.0, "connect_time_s": 0.04,
        "bytes": p.config.size_bytes, "rto_expirations": 0, "fast_recoveries": 1,
        "congestion_control": "reno", "tcp_info_final": info,
        "kernel_mib": {"TcpExt.TCPFastRetrans": 3}, "max_rcv_window_seen": 8760,
        "max_snd_wnd_tcp_info": 8760,
        "links": {"c2s": link, "s2c": link},
        "forwarder": {"links": {"a_to_b": link, "b_to_a": link}},
        "drops": [{"dir": "b_to_a", "payload": 1460, "reason": "error", "seq": 14601,
                   "frame": 12, "t_since_request_s": 0.001}],
        "traces": tr, "kernel_settings": {"server": {"sysctls": {"net.ipv4.tcp_sack": "0"}}},
    }  # fmt: skip


def test_testbed_result_has_every_key_path_of_the_simulators():
    sc = sarkar(**{"apps.ftp.size": "1000000B"})
    p = plan(sc)
    res = tb_result.to_result(sc, p, _raw(p))
    sim = tcplab.run(sc)
    missing = key_paths(sim.summary) - key_paths(res.summary)
    assert not missing, sorted(missing)
    s = res.summary
    assert s["source"] == "testbed" and s["max_rcv_window_seen"] == 8760
    assert "kernel_settings" in s and s["testbed"]["approximations"] == p.approximations
    # The simulator's response time counts from the connection's start.
    assert s["apps"][0]["response_time_s"] == pytest.approx(5.04)
    assert s["apps"][0]["throughput_Bps"] == pytest.approx(1e6 / 5.04)
    srv = s["connections"][0]["server"]
    assert (srv["retransmissions"], srv["fast_retransmits"], srv["data_segments_sent"]) == (
        3,
        3,
        690,
    )
    assert (srv["final_cwnd"], srv["final_ssthresh"], srv["state"]) == (8760, 5840, "CLOSE-WAIT")
    wan = s["links"][0]
    assert wan["name"] == "wan" and wan["ab"]["data_frames_dropped_error"] == 1
    tr = res.traces["trace"]
    assert list(tr.columns[: len(sim.traces["trace"].columns)]) == list(sim.traces["trace"].columns)
    assert tr["ssthresh"].tolist() == [tb_result.SSTHRESH_UNLIMITED, 5840]
    assert tr["time_s"].tolist() == pytest.approx([0.04 + p.config.delay_c2s_s] * 2, abs=0.011)
    ev = res.traces["events"]
    assert ev["kind"].tolist() == ["drop_error", "fast_retransmit"]
    assert ev["end"].tolist() == [1, 1] and ev["seq"].iloc[0] == 14601
    # Result's methods work on it.
    assert "Applications" in str(res) and "wan" in str(res)


def test_cli_dry_run_and_refusals_without_root(tmp_path, monkeypatch):
    res = runner.invoke(app, ["testbed", "run", str(EXAMPLE), "--dry-run", "--seed", "4"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["config"]["seed"] == 4 and doc["config"]["rcv_window_clamp"] == 8760
    res = runner.invoke(
        app, ["testbed", "run", str(EXAMPLE), "--set", "tcp.congestion_control=tahoe"]
    )
    assert res.exit_code == 2
    assert "tcp.congestion_control" in res.output and "tahoe" in res.output
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    res = runner.invoke(app, ["testbed", "run", str(EXAMPLE)])
    assert res.exit_code == 2 and "root" in res.output, res.output
    res = runner.invoke(app, ["testbed", "cleanup"])
    assert res.exit_code == 2 and "root" in res.output
    with pytest.raises(TestbedUnavailable, match="root"):
        tb_result.run_scenario(sarkar())
    res = runner.invoke(app, ["compare", str(EXAMPLE), "--sim", "--testbed"])
    assert res.exit_code == 2 and "root" in res.output, res.output
    res = runner.invoke(app, ["compare", str(EXAMPLE), "--testbed", "--sweep", "per=0.01,0.02"])
    assert res.exit_code == 2 and "--sweep" in res.output


# -- the sarkar2022 study's testbed option (the testbed faked by the simulator) ----------------


def test_study_options_are_resolved_and_checked():
    from tcplab.studies.sarkar2022 import STUDY

    o = STUDY.resolve_options({"testbed": "yes", "testbed_seeds": "2", "testbed_budget_s": "60"})
    assert o == {"testbed": True, "testbed_seeds": 2, "testbed_budget_s": 60.0}
    assert STUDY.resolve_options() == {
        "testbed": False,
        "testbed_seeds": 1,
        "testbed_budget_s": 300.0,
    }
    with pytest.raises(ValueError, match="no option 'nosuch'"):
        STUDY.resolve_options({"nosuch": 1})
    with pytest.raises(ValueError, match="testbed_seeds"):
        STUDY.resolve_options({"testbed_seeds": "many"})
    res = runner.invoke(app, ["study", "sarkar2022", "--option", "nosuch=1"])
    assert res.exit_code == 2 and "nosuch" in res.output


def test_study_testbed_part_adds_columns_and_caps(monkeypatch, tmp_path):
    from tcplab.studies import sarkar2022 as s22

    def fake(sc: Scenario, p: TestbedPlan) -> tcplab.Result:
        if p.config.error_s2c.get("p") == 0.1 and p.config.sysctls["net.ipv4.tcp_sack"] == 0:
            raise TestbedTimeout("the client still running when the time budget ran out")
        r = tcplab.run(sc.with_overrides({"output.events": True}))
        r.summary.update(source="testbed", max_rcv_window_seen=8760, kernel_settings={})
        return r

    monkeypatch.setattr(tb_result, "run_plan", fake)
    monkeypatch.setattr("tcplab.testbed.check_available", lambda *a: None)
    st = s22.Sarkar2022(variants=s22.VARIANTS[:1], droprate=False)
    res = st.run(seeds=1, options={"testbed": True, "testbed_budget_s": 120}, out=tmp_path)
    tb = res.group("testbed")
    assert len(tb) == 10 and set(tb["variant"]) == {"linux", "classic"}
    assert int(tb["testbed_capped"].sum()) == 1
    main = res.table("main").display
    cols = list(main.columns)
    assert cols[cols.index("testbed (T8) s") + 1] == s22.TESTBED_COLUMN
    t = res.table("testbed").display
    assert t.loc[4, "classic s"] == "> 120 (capped)"
    assert t["paper testbed (T8) s"].tolist() == [f"{s22.TABLE8[p][0]:.2f}" for p in s22.PDROPS]
    claims = {f.claim: f for f in res.findings}
    clamp = next(f for c, f in claims.items() if c.startswith("The window clamp held"))
    assert clamp.holds is True
    clean = next(f for c, f in claims.items() if c.startswith("On the clean channel our testbed"))
    assert "window-limited" in clean.detail
    assert any("exceeded the 120 s budget" in c for c in claims)
    assert (tmp_path / "figures" / "fig_testbed.png").stat().st_size > 0
    written = json.loads((tmp_path / "summary.json").read_text())
    assert written["options"]["testbed"] is True
    assert any(t["name"] == "testbed" for t in written["tables"])
    assert pd.read_parquet(tmp_path / "results.parquet")["group"].eq("testbed").sum() == 10


# -- on the testbed ----------------------------------------------------------------------------


@needs_testbed
def test_testbed_run_cli_has_the_simulators_schema(tmp_path):
    # 1 MB at pdrop 1 % through the sarkar2022 scenario: ~6 s of real time.
    sets = ["--set", "apps.ftp.size=1000000B", "--set", "run.seed=3"]
    res = runner.invoke(
        app, ["testbed", "run", str(EXAMPLE), *sets, "--json", "--out", str(tmp_path)]
    )
    assert res.exit_code == 0, res.output
    tb = json.loads(res.stdout)
    sim = runner.invoke(app, ["run", str(EXAMPLE), *sets, "--json"])
    assert sim.exit_code == 0, sim.output
    missing = key_paths(json.loads(sim.stdout)) - key_paths(tb)
    assert not missing, sorted(missing)
    assert tb["max_rcv_window_seen"] == 8760  # the forwarder's clamp held
    app_ = tb["apps"][0]
    assert app_["completed"] and app_["bytes_received"] == 1_000_000
    assert app_["response_time_s"] > 0.04 * 1e6 / 8760  # no faster than the window allows
    srv = tb["connections"][0]["server"]
    assert srv["data_segments_sent"] >= math.ceil(1e6 / 1460)
    assert srv["retransmissions"] >= tb["links"][0]["ab"]["data_frames_dropped_error"]
    ks = tb["kernel_settings"]["server"]
    assert ks["socket_congestion_control"] == "reno"
    assert ks["sysctls"]["net.ipv4.tcp_sack"] == "0"  # the riverbed profile
    back = tcplab.Result.from_dir(tmp_path)
    assert back.summary["max_rcv_window_seen"] == 8760
    assert {"time_s", "cwnd", "ssthresh", "srtt_s", "rto_s"} <= set(back.traces["trace"].columns)
    assert len(back.traces["trace"]) > 50


@needs_testbed
def test_compare_sim_testbed_tabulates_and_plots(tmp_path):
    # 500 kB on a clean channel: window-limited on both sides, ~3 s of real time.
    sets = ["--set", "apps.ftp.size=500000B", "--set", "links.wan.ab.error.p=0.0"]
    args = ["compare", str(EXAMPLE), "--sim", "--testbed", *sets, "--out", str(tmp_path)]
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    df = pd.DataFrame(doc["runs"])
    assert df["source"].tolist() == ["sim", "testbed"]  # one seed by default on the testbed
    assert df["completed"].all() and (df["retransmissions"] == 0).all()
    rt = df.set_index("source")["response_time_s"]
    assert rt["testbed"] == pytest.approx(rt["sim"], rel=0.10)  # both window-limited
    assert df.set_index("source").loc["testbed", "max_rcv_window_seen"] == 8760
    rows = {r["metric"]: r for r in doc["side_by_side"]}
    assert rows["response_time_s"]["testbed_over_sim"] == pytest.approx(rt["testbed"] / rt["sim"])
    for path in doc["figures"].values():
        assert Path(path).stat().st_size > 0 and Path(path).with_suffix(".svg").exists()
    assert (tmp_path / "sim_testbed.csv").exists()
    assert tcplab.Result.from_dir(tmp_path / "testbed" / "seed-1").summary["source"] == "testbed"


@needs_testbed
def test_cleanup_removes_a_runs_leftovers():
    run_id = "cln" + os.urandom(2).hex()
    ns = f"tcplab-{run_id}-client"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        res = runner.invoke(app, ["testbed", "cleanup", "--run-id", run_id])
        assert res.exit_code == 0, res.output
        assert ns in res.output and ns not in list_namespaces()
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


@needs_testbed
def test_cleanup_leaves_runs_whose_owner_lives(tmp_path):
    """On a shared machine `testbed cleanup` removes only what dead runs left (namespace,
    working directory), lists it, and leaves a run whose owning process is alive; --all
    removes both."""
    import shutil
    import tempfile

    from tcplab.testbed.netns import _start_time

    dead = subprocess.Popen(["true"])
    dead.wait()
    owners = {"lve" + os.urandom(2).hex(): os.getpid(), "ded" + os.urandom(2).hex(): dead.pid}
    made = []
    try:
        for rid, pid in owners.items():
            ns = f"tcplab-{rid}-client"
            subprocess.run(["ip", "netns", "add", ns], check=True)
            wd = Path(tempfile.mkdtemp(prefix=f"tcplab-{rid}-"))
            start = _start_time(pid) if pid == os.getpid() else "0"
            (wd / "owner.json").write_text(json.dumps({"pid": pid, "start": start}))
            made.append((ns, wd))
        (live_ns, live_wd), (dead_ns, dead_wd) = made
        res = runner.invoke(app, ["testbed", "cleanup"])
        assert res.exit_code == 0, res.output
        assert f"removed {dead_ns}" in res.output and f"removed {dead_wd}" in res.output
        assert dead_ns not in list_namespaces() and not dead_wd.exists()
        assert live_ns in list_namespaces() and live_wd.exists()
        assert "runs in progress" in res.output and live_ns in res.output
        res = runner.invoke(app, ["testbed", "cleanup", "--all"])
        assert res.exit_code == 0, res.output
        assert live_ns not in list_namespaces() and not live_wd.exists()
    finally:
        for ns, wd in made:
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)
            shutil.rmtree(wd, ignore_errors=True)


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _descendants(pid: int) -> list[int]:
    """Every living process below `pid` (from /proc's parent links)."""
    parent: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            parent[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        todo += kids
    return out


@needs_testbed
def test_a_killed_forwarder_ends_the_run_at_once_and_keeps_its_logs():
    """SIGKILL to tcplab-netem in the middle of a 20 MB download (about 16 s): the run ends
    within a second, naming the forwarder, keeps its logs and leaves no namespace."""
    import time

    exe = str(Path(sys.executable).parent / "tcplab")
    proc = subprocess.Popen(
        [exe, "testbed", "run", str(EXAMPLE), "--set", "apps.ftp.size=20MB",
         "--set", "links.wan.ab.error.p=0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        # This run's forwarder only: a machine may run other testbed runs at the same time.
        mine: list[int] = []
        for _ in range(100):  # until the forwarder runs
            time.sleep(0.1)
            mine = [p for p in _descendants(proc.pid) if b"tcplab-netem" in _cmdline(p)]
            if mine:
                break
        time.sleep(1.0)
        assert len(mine) == 1, mine
        os.kill(mine[0], signal.SIGKILL)
        t0 = time.perf_counter()
        _, err = proc.communicate(timeout=60)
        took = time.perf_counter() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1
    assert "the forwarder (tcplab-netem) was killed by signal 9" in err
    assert took < 1.5, took
    kept = Path(err.split("logs are kept in ")[1].split(")")[0])
    assert (kept / "netem1.json").exists() and (kept / "client.log").exists()
    run_id = kept.name.removeprefix("tcplab-").rsplit("-", 1)[0]
    assert not [n for n in list_namespaces() if n.startswith(f"tcplab-{run_id}")]
    res = runner.invoke(app, ["testbed", "cleanup"])  # the owner is gone: its logs go too
    assert res.exit_code == 0 and f"removed {kept}" in res.output and not kept.exists()


@needs_testbed
def test_a_capture_on_a_full_disk_fails_loudly_and_leaves_no_short_file(tmp_path):
    small = tmp_path / "small"
    small.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32k", "tmpfs", str(small)], check=True)
    try:
        exe = str(Path(sys.executable).parent / "tcplab")
        done = subprocess.run(
            [exe, "testbed", "run", str(EXAMPLE), "--set", "apps.ftp.size=500kB",
             "--set", "links.wan.ab.error.p=0", "--pcap", str(small / "cap.pcap")],
            capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 1
        assert "could not write its capture" in done.stderr
        assert "No space left on device" in done.stderr
        assert list(small.iterdir()) == []  # the short capture is gone
    finally:
        subprocess.run(["umount", str(small)], check=True)
        runner.invoke(app, ["testbed", "cleanup"])  # the failed run's logs
