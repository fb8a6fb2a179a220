"""The ns-2 conformance suite: the reduced grid against ns-2.35 where `ns` is installed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
import tcplab
from tcplab.conformance import ns2

needs_ns2 = pytest.mark.skipif(
    shutil.which("ns") is None,
    reason="ns-2 is not installed (apt-get install -y ns2; `make test` does it as root)",
)


def test_the_tcplab_side_is_the_chain_of_the_tcl_script():
    d = tcplab.Scenario(ns2.scenario("sack1", 0.05, 49, 3)).describe()
    text = ns2.tcl_script().read_text()
    assert "$ns duplex-link $src $rtr 10Mb 1ms DropTail" in text
    app = d["apps"][0]
    assert app["tcp"]["congestion_control"] == "newreno"
    assert app["tcp"]["loss_recovery"] == "sack"
    assert app["tcp"]["mss"] == 1000 and app["tcp"]["rcv_buf"] == 20000
    hops = app["data_path"]
    assert [h["rate_bps"] for h in hops] == [10e6, 2e6]
    assert [h["delay_s"] for h in hops] == [0.001, 0.049]


def test_compare_and_verdict_are_means_over_seeds():
    ref = pd.DataFrame(
        [
            {"agent": "reno", "p": 0.01, "delay_ms": 4, "seed": s, "goodput_Bps": g,
             "retransmissions": r, "timeouts": t, "fast_retransmits": 10}
            for s, g, r, t in ((1, 100.0, 10, 2), (2, 120.0, 12, 0))
        ]
    )  # fmt: skip
    sim = ref.assign(goodput_Bps=[104.0, 126.0], retransmissions=[11, 13], timeouts=[1, 1])
    cells = ns2.compare(ref, sim)
    assert len(cells) == 1
    c = cells.iloc[0]
    assert c["ns2.goodput_Bps"] == 110.0 and c["tcplab.goodput_Bps"] == 115.0
    assert c["ratio"] == pytest.approx(115 / 110)
    assert c["retransmissions.ratio"] == pytest.approx(12 / 11)
    v = ns2.verdict(cells)
    assert v["goodput_within_5pct"] == 1  # 4.5 %
    assert v["retransmissions_within_10pct"] == 1  # 9.1 %
    assert v["timeouts_within_10pct"] == 1


@needs_ns2
def test_reduced_grid_against_ns2():
    ref = ns2.run_ns2(ns2.REDUCED)
    sim = ns2.run_tcplab(ns2.REDUCED)
    cells = ns2.compare(ref, sim).set_index(["agent", "p", "delay_ms"])
    lossless = cells.xs(0.0, level="p")
    # loss-free: wire sizes, handshake and window as ns-2's, so the same packets arrive
    assert (lossless["ratio"] - 1).abs().max() < 1e-3
    assert ((lossless["ns2.goodput_Bps"] - 240283.333).abs() < 0.01).all()
    lossy = cells.xs(0.01, level="p")
    assert ((lossy["ratio"] - 1).abs() <= 0.05).all(), lossy["ratio"]
    rtx = lossy["retransmissions.ratio"]
    assert ((rtx - 1).abs() <= 0.10).all(), rtx
    # every agent retransmits about the ~1 % of its packets that are lost (not 50 % more:
    # the rescue retransmission ns-2's Sack1 lacks is off in the ns2 profile)
    sent = lossy["tcplab.goodput_Bps"] * ns2.STOP_S / ns2.PKTSIZE
    assert ((lossy["tcplab.retransmissions"] / sent).between(0.005, 0.012)).all()
    # Paired with ns-2's own losses and tick phase, every run delivers the same bytes.
    paired = ns2.compare(ref, ns2.run_tcplab(ns2.REDUCED, paired=True), paired=True)
    assert (paired["identical"] == ns2.REDUCED.seeds).all(), paired.to_string()


# --- paired runs: tcplab replays ns-2's own losses (no ns-2 needed) -------------------------

#: ns-2.35's output for seeds 1-3 of every lossy cell of the full grid, recorded here with
#: `tcplab conformance ns2 --paired --out DIR` (runs-ns2.csv).
RECORDED = pd.read_csv(Path(__file__).parent / "data" / "ns2_chain_runs.csv")

RULES = ("cwnd_double", "exit_keeps_cwnd", "newreno_partial", "tahoe_keeps_dupacks",
         "rtt_ticks", "rtt_active", "fast_retransmit_restarts_rto", "send_one", "sack1",
         "two_way_handshake", "wire")  # fmt: skip


def _paired(overrides: dict | None = None) -> pd.DataFrame:
    runs = list(RECORDED[["agent", "p", "delay_ms", "seed"]].itertuples(index=False))
    scs = [tcplab.Scenario(ns2.scenario(a, p, int(d), int(s), paired=True)) for a, p, d, s in runs]
    if overrides:
        scs = [sc.with_overrides(overrides) for sc in scs]
    rows = []
    for res in tcplab.run_many(scs, jobs=2):
        c = res.summary["connections"][0]["client"]
        got = res.summary["apps"][0]["bytes_received"] / ns2.STOP_S
        rows.append((got, c["retransmissions"], c["rto_expirations"], c["fast_retransmits"]))
    got = pd.DataFrame(rows, columns=["goodput_Bps", "retransmissions", "timeouts", "fr"])
    return pd.concat([RECORDED.reset_index(drop=True), got.add_prefix("tcplab.")], axis=1)


def _identical(m: pd.DataFrame) -> pd.Series:
    return ((m["tcplab.goodput_Bps"] - m["goodput_Bps"]).abs() * ns2.STOP_S < 1) & (
        m["tcplab.timeouts"] == m["timeouts"]
    )


def test_ns2_loss_stream_is_mrg32k3a_seeded_as_ns2_does():
    # L'Ecuyer's MRG32k3a from state (1, 1, 1, 1, 1, 1): the third draw is what decides the
    # SYN's fate in chain.tcl, 0.0142 for seed 1 (so p = 5 % loses it, p = 1 % does not).
    r = ns2.Ns2Rng(1)
    assert [round(r.uniform(), 12) for _ in range(3)] == [0.000339577224, 0.555880715983,
                                                          0.014204660653]  # fmt: skip
    assert ns2.ns2_losses(0.05, 1, 50)[:1] == (0,)  # the first SYN is lost ...
    assert 0 not in ns2.ns2_losses(0.01, 1, 50)  # ... at 5 %, not at 1 %
    assert ns2.ns2_boot_time(1) == pytest.approx(0.01 * 0.555880715983)
    with pytest.raises(ValueError, match="seed"):
        ns2.Ns2Rng(0)


def test_paired_runs_deliver_what_ns2_delivered():
    # Every run of the recorded ns-2 output, replayed: the same bytes and the same timeouts in
    # 65 of the 72 runs. The rest are Sack1 at p >= 5 % and one NewReno run. Cell means within
    # 3 % at 3 seeds (Sack1, 10 %, 4 ms, seed 2 is 8.6 % faster); over the grid's 10 seeds
    # within 0.5 %.
    m = _paired()
    same = _identical(m)
    assert same.sum() >= 65, m[~same].to_string()
    assert set(m[~same]["agent"]) <= {"sack1", "newreno"}
    cells = m.groupby(["agent", "p", "delay_ms"])[["goodput_Bps", "tcplab.goodput_Bps"]].mean()
    ratio = cells["tcplab.goodput_Bps"] / cells["goodput_Bps"]
    assert (ratio - 1).abs().max() < 0.03, ratio.to_string()
    # ns-2 may count one or two retransmissions more (packets it sent as the run stopped).
    assert (m["retransmissions"] - m["tcplab.retransmissions"]).between(0, 2)[same].all()


@pytest.fixture(scope="module")
def all_rules_identical() -> int:
    return int(_identical(_paired()).sum())


@pytest.mark.parametrize("rule", RULES)
def test_each_ns2_rule_brings_tcplab_closer_to_ns2(rule, all_rules_identical):
    # Switching one rule of the ns2 profile off makes fewer runs agree with ns-2's own.
    on = all_rules_identical
    off = _identical(_paired({f"tcp.ns2.{rule}": False})).sum()
    assert off < on, f"{rule}: {off} identical runs without it, {on} with it"


def _opening(rules: dict | None = None, *, seed: int = 7, p: float = 0.1) -> pd.DataFrame:
    sc = ns2.scenario("tahoe", p, 49, seed, paired=True)
    sc["output"] = {"packets": True}
    if rules:
        sc["tcp"]["ns2"].update(rules)
    pk = tcplab.run(tcplab.Scenario(sc)).traces["packets"]
    return pk[pk["event"] == "send"].head(8).reset_index(drop=True)


def test_ns2_opens_with_two_packets_and_its_sink_never_repeats_the_syn_ack():
    # Seed 7 at 10 %: ns-2 loses the first SYN (frame 0) and the first data packet (frame 2).
    assert ns2.ns2_losses(0.1, 7, 10)[:2] == (0, 2)
    pk = _opening()
    syn, syn_ack, ack = 0x02, 0x12, 0x10
    # SYN (lost), SYN again at 3 s, the sink's SYN-ACK, then data carrying the ACK at once.
    # The passive end repeats its SYN-ACK at 3 s, which the sender leaves unanswered, so the
    # next packet on rtr -> dst is the sender's own timeout: 6 s later, as ns-2 keeps the SYN's
    # back-off (t_backoff_ 2 x rtxcur_init_ 3 s) until the first RTT sample.
    mine = pk[pk["from_end"] == 0]
    assert [tuple(r) for r in mine[["flags", "len"]].head(4).itertuples(index=False)] == [
        (syn, 0), (syn, 0), (ack, 1000), (ack, 1000)]  # fmt: skip
    t = mine["time_s"].tolist()
    assert t[3] - t[2] == pytest.approx(6.0)
    assert ((pk["from_end"] == 1) & (pk["flags"] == syn_ack)).sum() == 2
    # RFC 9293: a pure ACK completes the handshake (here it is the lost frame 2).
    rfc = _opening({"two_way_handshake": False})
    rmine = rfc[rfc["from_end"] == 0]
    assert (rmine["flags"].iloc[2], rmine["len"].iloc[2]) == (ack, 0)


def test_ns2_initial_ssthresh_is_the_window():
    # TcpAgent::reset(): ssthresh_ = wnd_; with window_ 32 slow start runs to 32 packets.
    tcp = lambda **k: tcplab.Scenario(ns2.scenario("reno", 0, 4, 1, **k)).describe()[  # noqa: E731
        "apps"
    ][0]["tcp"]
    assert tcp()["initial_ssthresh"] == 20_000
    assert tcp(window=32)["initial_ssthresh"] == 32_000
    sc = ns2.scenario("reno", 0, 4, 1, window=32)
    sc["tcp"]["initial_ssthresh"] = 5000
    assert tcplab.Scenario(sc).describe()["apps"][0]["tcp"]["initial_ssthresh"] == 5000


def test_ns2_rules_are_the_ns2_profiles_alone():
    base = tcplab.Scenario(ns2.scenario("reno", 0, 4, 1))
    for profile in ("rfc", "linux", "riverbed", "ns2"):
        rules = base.with_overrides({"tcp.profile": profile}).describe()["apps"][0]["tcp"]["ns2"]
        flags = {k: v for k, v in rules.items() if k != "tick_phase_s"}
        assert set(flags.values()) == {profile == "ns2"}, (profile, flags)


def test_conformance_options_refuse_bad_values_by_name():
    from tcplab.cli import app
    from typer.testing import CliRunner

    runner = CliRunner()
    bad = [("--loss", "0.1,0.1"), ("--loss", "x"), ("--rate", "50"), ("--window", "0"),
           ("--delay", "4,4"), ("--packet-size", "20")]  # fmt: skip
    for option, value in bad:
        argv = [option, value]
        res = runner.invoke(app, ["conformance", "ns2", *argv])
        assert res.exit_code == 2, (argv, res.output)
        assert option in res.output and "allowed" in res.output, (argv, res.output)
