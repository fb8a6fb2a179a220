"""Our own packetdrill scripts (tests/packetdrill/, issue 31) against the `linux` profile:
every one passes, and a script fails, at the line that shows it, when the profile rule it
is about is switched off. Then the commands: `tcplab packetdrill` and `tcplab conformance
packetdrill` with their exit statuses, tables and one-line errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT
from tcplab import packetdrill
from typer.testing import CliRunner

SCRIPTS = ROOT / "tests" / "packetdrill"
ALL = sorted(SCRIPTS.rglob("*.pkt"))


def test_there_are_at_least_30_scripts_in_the_categories_of_the_issue():
    assert len(ALL) >= 30
    categories = {p.parent.name for p in ALL}
    for needed in ("slow_start", "fast_retransmit", "sack", "fast_recovery", "limited_transmit",
                   "rto", "cubic", "close", "shutdown", "nagle"):  # fmt: skip
        assert needed in categories, needed


#: Scripts that state Linux's behaviour where the `linux` profile does not follow it yet, and
#: the mechanism each needs (strict: a script that starts passing must leave this list).
KNOWN: dict[str, str] = {}


def _param(path: Path):
    name = f"{path.parent.name}/{path.name}"
    marks = [pytest.mark.xfail(reason=KNOWN[name], strict=True)] if name in KNOWN else []
    return pytest.param(path, id=name, marks=marks)


@pytest.mark.parametrize("path", [_param(p) for p in ALL])
def test_each_script_passes_on_the_linux_profile(path: Path):
    outcome = packetdrill.run_file(path)
    assert outcome.passed, "\n".join(outcome.failure.lines(str(path)))
    assert outcome.events == len(packetdrill.parse_file(path).events)


#: script, the rule switched off (or to another value), the line that must fail, its kind.
RULES = [
    # The window survives a second of idleness: cwnd stays 40.
    ("slow_start/ss-restart-after-idle.pkt", {"tcp.slow_start_after_idle": False}, 32, "assertion"),
    # Two new segments on the first SACK (RFC 3042's room on top of Linux's pipe): the
    # fast retransmit's line meets the extra segment.
    ("limited_transmit/lt-sack.pkt", {"tcp.limited_transmit_by_pipe": False}, 24, "mismatch"),
    ("slow_start/ss-app-limited.pkt", {"tcp.cwnd_validation": False}, 20, "assertion"),
    ("fast_retransmit/fr-third-sack.pkt", {"tcp.congestion_control": "reno"}, 25, "assertion"),
    # Without RACK the reordering timer does not exist: the retransmission waits for the RTO.
    ("fast_retransmit/fr-rack-reorder-timer.pkt", {"tcp.loss_recovery": "sack"}, 20, "timing"),
    ("rto/rto-tlp-then-rto.pkt", {"tcp.lr_params": {"tlp": False}}, 20, "mismatch"),
    ("rto/rto-backoff.pkt", {"tcp.rto_min": "300ms"}, 20, "timing"),
    ("nagle/nagle-holds-small-writes.pkt", {"tcp.nagle": False}, 21, "timing"),
    ("close/close-fin-rides-on-data.pkt", {"tcp.fin_with_data": False}, 21, "mismatch"),
    # Without Linux's persist timer a zero window is probed at once with a byte of data, and a
    # small window takes a partial segment at once.
    ("persist/zero-window-probe.pkt", {"tcp.probe0": False}, 19, "mismatch"),
    ("persist/persist-sends-what-fits.pkt", {"tcp.probe0": False}, 19, "mismatch"),
    # The two SACKed segments count again when the cumulative ACK covers them: cwnd 13.
    (
        "limited_transmit/lt-reorder-grows-by-delivered.pkt",
        {"tcp.grow_by_delivered": False},
        31,
        "assertion",
    ),
    # Without quick ACKs each segment still raises the autotuned receiver's rcv_ssthresh,
    # which asks for an ACK at once (tcp_grow_window): the same steps. (Quick ACKs alone:
    # crates/tcplab-sim/tests/linux.rs, with a fixed buffer.)
    ("close/close-data-acked-then-eof.pkt", {"tcp.quick_acks": 0}, None, None),
    ("timestamps/ts-negotiated.pkt", {"tcp.timestamps": False}, 11, "mismatch"),
    ("sack/sack-reordering-measured.pkt", {"tcp.max_reordering": 0}, 25, "assertion"),
    # RFC 8985's timer: the bare 12.5 ms window, 2.5 ms early for the script's tolerance.
    (
        "fast_retransmit/fr-rack-timer-slack.pkt",
        {"tcp.lr_params": {"rule": "rfc8985"}},
        23,
        "timing",
    ),
    # RFC 8985's RTT (25 ms, from the retransmission) calls 9001:10001 lost: no extra segment.
    ("fast_recovery/prr-old-ack-sack.pkt", {"tcp.lr_params": {"rule": "rfc8985"}}, 31, "mismatch"),
    # The old ACK ignored: 7001:8001 waits for RACK's timer on 9001:10001 (0.072 s).
    ("fast_recovery/prr-old-ack-sack.pkt", {"tcp.old_ack_sack": False}, 36, "timing"),
    # The probe resends the last data segment instead of the lone FIN.
    ("close/close-tlp-resends-lone-fin.pkt", {"tcp.tlp_probes_fin": False}, 22, "mismatch"),
    # RFC 9293's ACK of the segment acknowledging unsent data comes before the data's.
    ("ack/ack-of-unsent-data-dropped.pkt", {"tcp.unsent_ack_silent": False}, 18, "mismatch"),
]


@pytest.mark.parametrize(("name", "rule", "line", "kind"), RULES, ids=[r[0] for r in RULES])
def test_a_script_fails_when_its_rule_is_switched_off(name, rule, line, kind):
    outcome = packetdrill.run_file(SCRIPTS / name, overrides=rule)
    f = outcome.failure
    if line is None:  # the script passes: another rule gives the same steps
        assert f is None, "\n".join(f.lines(name))
        return
    assert f is not None, f"{name} passed with {rule}"
    assert (f.line, f.kind) == (line, kind), "\n".join(f.lines(name))


def _cli(*argv: str):
    from tcplab.cli import app

    return CliRunner().invoke(app, list(argv), env={"COLUMNS": "200"})


def test_cli_exit_statuses_and_the_first_mismatch(tmp_path):
    good = SCRIPTS / "slow_start" / "ss-whole-flight-acked.pkt"
    res = _cli("packetdrill", str(good))
    assert res.exit_code == 0 and res.output.startswith(f"pass {good} ("), res.output
    lt = SCRIPTS / "limited_transmit" / "lt-sack.pkt"
    res = _cli("packetdrill", str(lt), "--set", "tcp.limited_transmit_by_pipe=false")
    assert res.exit_code == 1, res.output
    first, expected, actual = res.output.splitlines()[:3]
    assert first == (
        f"FAIL {lt}:24: error handling packet: live packet field tcp_seq: expected: 1 vs "
        "actual: 12001"
    )
    assert expected == "  script packet: 0.104000 > . 1:1001(1000) ack 1"
    assert actual.startswith("  actual packet: ")
    bad = tmp_path / "bad.pkt"
    bad.write_text("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 < S 0:0(0)\n")
    res = _cli("packetdrill", str(good), str(bad))
    assert res.exit_code == 2
    assert f"error: {bad}:2: an inbound packet needs its window: add win N" in res.output
    res = _cli("packetdrill", str(tmp_path / "missing.pkt"))
    assert res.exit_code == 2 and "No such file" in res.output
    res = _cli("packetdrill", str(good), "--profile", "bsd")
    assert res.exit_code == 2 and "--profile: invalid value 'bsd'" in res.output


def test_cli_json(tmp_path):
    lt = SCRIPTS / "limited_transmit" / "lt-sack.pkt"
    res = _cli("packetdrill", str(lt), "--json", "--set", "tcp.limited_transmit_by_pipe=false")
    [item] = json.loads(res.output)
    assert (item["verdict"], item["line"], item["kind"]) == ("fail", 24, "mismatch")
    assert item["expected"] == "0.104000 > . 1:1001(1000) ack 1"


def test_conformance_table_per_category_and_a_verdict_per_script(tmp_path):
    corpus = tmp_path / "corpus"
    for sub, name in (("slow_start", "ss-whole-flight-acked.pkt"), ("nagle", "nagle-cork.pkt")):
        (corpus / sub).mkdir(parents=True, exist_ok=True)
        shutil.copy(SCRIPTS / sub / name, corpus / sub / name)
    text = (SCRIPTS / "slow_start" / "ss-app-limited.pkt").read_text()
    (corpus / "slow_start" / "wrong.pkt").write_text(text.replace("== 16", "== 17"))
    (corpus / "ecn").mkdir()
    (corpus / "ecn" / "ecn.pkt").write_text(
        text.replace("`../common/defaults.sh", "`sysctl -q net.ipv4.tcp_ecn=1")
    )
    (corpus / "ecn" / "garbage.pkt").write_text("this is not packetdrill\n")
    res = _cli("conformance", "packetdrill", str(corpus), "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    rows = {r["category"]: r for r in data["categories"]}
    assert rows["slow_start"] == {"category": "slow_start", "scripts": 2, "pass": 1, "fail": 1,
                                  "unsupported": 0, "invalid": 0}  # fmt: skip
    assert rows["ecn"]["unsupported"] == 1 and rows["ecn"]["invalid"] == 1
    assert rows["all"]["scripts"] == 5 and rows["all"]["pass"] == 2
    verdicts = {v["path"]: v for v in data["scripts"]}
    wrong = verdicts["slow_start/wrong.pkt"]
    assert (wrong["verdict"], wrong["line"], wrong["kind"]) == ("fail", 24, "assertion")
    assert "tcpi_snd_cwnd == 17" in wrong["detail"]
    assert "tcp_ecn=1 is not modelled" in verdicts["ecn/ecn.pkt"]["detail"]
    assert verdicts["ecn/garbage.pkt"]["line"] == 1
    res = _cli("conformance", "packetdrill", str(corpus))
    assert "slow_start" in res.output and "fail        slow_start/wrong.pkt:24" in res.output
    res = _cli("conformance", "packetdrill", str(tmp_path / "nowhere"))
    assert res.exit_code == 2 and res.output.startswith("error: ")


def test_the_kernels_flat_layout_is_judged_per_category(tmp_path):
    """The kernel's selftests keep their scripts in one folder, `tcp_<category>_<name>.pkt`,
    with their own defaults.sh beside them: the categories come from the names and the
    verdicts are those of the folder layout."""
    flat = tmp_path / "selftests"
    flat.mkdir()
    recovery = sorted((SCRIPTS / "fast_recovery").glob("*.pkt"))[0].name
    picked = [("slow_start", "ss-whole-flight-acked.pkt"), ("fast_recovery", recovery)]
    for sub, name in picked:
        text = (SCRIPTS / sub / name).read_text()
        assert "`../common/defaults.sh" in text
        (flat / f"tcp_{sub}_{name}").write_text(
            text.replace("../common/defaults.sh", "./defaults.sh")
        )
    # The kernel's defaults.sh sets the sysctls packetdrill's does (its buffers give wscale 8).
    from tcplab.packetdrill.shell import DEFAULTS_SH

    (flat / "defaults.sh").write_text(DEFAULTS_SH)
    (flat / "tcp_made_up.pkt").write_text("this is not packetdrill\n")
    data = json.loads(_cli("conformance", "packetdrill", str(flat), "--json").output)
    cats = {v["path"]: v["category"] for v in data["scripts"]}
    assert cats == {f"tcp_{sub}_{name}": sub for sub, name in picked} | {"tcp_made_up.pkt": "made"}
    assert {v["path"]: v["verdict"] for v in data["scripts"]} == {
        f"tcp_{sub}_{name}": "pass" for sub, name in picked
    } | {"tcp_made_up.pkt": "invalid"}
