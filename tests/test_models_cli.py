"""Tests for ``tcplab model ...`` (tcplab.cli.models) and its unit parser."""

from __future__ import annotations

import json
import math
import re

import pytest
from tcplab.cli.models import app
from tcplab.models import units
from typer.testing import CliRunner

runner = CliRunner()

TABLE_9 = [4380, 4867, 5305, 5707, 6080, 6431, 6762, 7077, 7379, 7667, 7945, 8214, 8473, 8725, 8969]


def run(*args: str):
    return runner.invoke(app, list(args))


def run_json(*args: str) -> dict:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output

    def reject(constant):
        raise AssertionError(f"non-standard JSON constant {constant}")

    return json.loads(result.stdout, parse_constant=reject)


def flat(text: str) -> str:
    """Error text without rich's box drawing and line wrapping."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


# --------------------------------------------------------------------------------------
# unit parser


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("100ms", 0.1),
        ("100 ms", 0.1),
        ("0.1", 0.1),
        ("0.1s", 0.1),
        ("250us", 250e-6),
        ("250µs", 250e-6),
        ("2min", 120.0),
        ("1h", 3600.0),
        ("1e-3s", 1e-3),
    ],
)
def test_parse_duration(text, seconds):
    assert units.parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("text", "nbytes"),
    [
        ("10MB", 10_000_000),
        ("10 MB", 10_000_000),
        ("64KiB", 65_536),
        ("64kB", 64_000),
        ("1460", 1460),
        ("1460B", 1460),
        ("8760 bytes", 8760),
        ("12000b", 1500),
        ("1kbit", 125),
        ("10Mb", 1_250_000),
        ("1,250,000", 1_250_000),
        ("inf", math.inf),
    ],
)
def test_parse_size(text, nbytes):
    assert units.parse_size(text) == nbytes


@pytest.mark.parametrize(
    ("text", "bytes_per_s"),
    [
        ("10Mbps", 1_250_000),
        ("10mbps", 1_250_000),
        ("10 Mbit/s", 1_250_000),
        ("10Mb/s", 1_250_000),
        ("1.25MB/s", 1_250_000),
        ("1.25MBps", 1_250_000),
        ("1Gbps", 125_000_000),
        ("100kB/s", 100_000),
        ("8bps", 1),
        ("1250000", 1_250_000),
    ],
)
def test_parse_rate(text, bytes_per_s):
    assert units.parse_rate(text) == pytest.approx(bytes_per_s)


@pytest.mark.parametrize(("text", "p"), [("1e-7", 1e-7), ("0.0012", 0.0012), ("1%", 0.01)])
def test_parse_probability(text, p):
    assert units.parse_probability(text) == pytest.approx(p)


@pytest.mark.parametrize(
    ("parser", "text", "expected"),
    [
        (units.parse_duration, "100 parsecs", "unknown duration unit 'parsecs'"),
        (units.parse_duration, "fast", "cannot read 'fast' as a duration"),
        (units.parse_size, "10M", "unknown size unit 'M'"),
        (units.parse_rate, "10Mhz", "unknown rate unit 'Mhz'"),
        (units.parse_rate, "10MB", "unknown rate unit 'MB'"),
        (units.parse_probability, "2", "must lie in [0, 1]"),
        (units.parse_probability, "150%", "must lie in [0, 1]"),
        (units.parse_number, "2s", "unexpected unit 's'"),
    ],
)
def test_parsers_reject_bad_text_with_a_useful_message(parser, text, expected):
    with pytest.raises(ValueError) as info:
        parser(text)
    assert expected in str(info.value)


# --------------------------------------------------------------------------------------
# worked numbers through the CLI


def test_mathis_netsim_inputs():
    result = run("mathis", "--mss", "1460", "--rtt", "100ms", "--per", "1.2e-3")
    assert result.exit_code == 0, result.output
    assert "4.1295 Mbps" in result.output
    assert "1,460 bytes" in result.output and "100 ms" in result.output
    doc = run_json("mathis", "--mss", "1460", "--rtt", "100ms", "--per", "1.2e-3")
    assert doc["model"] == "mathis"
    assert doc["inputs"]["p"] == pytest.approx(1.2e-3)
    assert doc["outputs"]["throughput_mbps"] == pytest.approx(4.1295036, rel=1e-7)


def test_mathis_from_ber_and_frame():
    args = ("mathis", "--mss", "1460", "--rtt", "100ms", "--ber", "1e-7", "--frame", "1500")
    linear = run_json(*args, "--per-method", "linear")
    assert linear["outputs"]["throughput_mbps"] == pytest.approx(4.1295036, rel=1e-7)
    exact = run_json(*args)
    assert exact["inputs"]["per_method"] == "exact"
    assert exact["inputs"]["p"] == pytest.approx(1.19928e-3, rel=1e-5)
    assert exact["outputs"]["throughput_mbps"] == pytest.approx(4.1307, abs=5e-5)
    text = run(*args)
    assert "4.1307 Mbps" in text.output and "1e-07" in text.output


def test_window_netsim_and_sarkar():
    result = run("window", "--rwnd", "65535", "--rtt", "100ms")
    assert result.exit_code == 0, result.output
    assert "655,350.00 B/s" in result.output and "5.2428 Mbps" in result.output
    doc = run_json("window", "--rwnd", "8760", "--rtt", "40ms")
    assert doc["outputs"]["throughput_bytes_per_s"] == pytest.approx(219_000)


def test_line_rate_sarkar():
    result = run("line-rate", "--rate", "10Mbps")
    assert result.exit_code == 0, result.output
    assert "1,186,605.98 B/s" in result.output
    doc = run_json("line-rate", "--rate", "10Mbps", "--mss", "1460", "--overhead", "78")
    assert doc["outputs"]["throughput_bytes_per_s"] == pytest.approx(1_186_605.98, abs=0.005)


def test_download_sarkar_45_66_s_names_the_window():
    args = ("download", "--size", "10MB", "--rtt", "40ms", "--rwnd", "8760", "--rate", "10Mbps")
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert "45.66 s" in result.output
    assert re.search(r"binding limit\s+window", result.output)
    assert re.search(r"window / RTT .*<- binding", result.output)
    doc = run_json(*args)
    assert doc["outputs"]["binding"] == "window"
    assert round(doc["outputs"]["seconds"], 2) == 45.66
    assert doc["outputs"]["loss_bytes_per_s"] is None  # p = 0: no loss limit


def test_download_loss_binding_with_pftk():
    doc = run_json(
        "download",
        "--size",
        "10MB",
        "--rtt",
        "40ms",
        "--rwnd",
        "8760",
        "--per",
        "10%",
        "--loss-model",
        "pftk",
    )
    assert doc["outputs"]["binding"] == "loss"
    assert doc["outputs"]["throughput_bytes_per_s"] < 219_000
    assert doc["inputs"]["loss_model"] == "pftk"


def test_per_table_1_and_back():
    doc = run_json("per", "--ber", "1e-6", "--frame", "1500")
    assert doc["outputs"]["per_linear"] == pytest.approx(1.2e-2)
    assert doc["outputs"]["per_exact"] == pytest.approx(1 - (1 - 1e-6) ** 12000)
    result = run("per", "--ber", "1e-4", "--frame", "1250")
    assert result.exit_code == 0
    assert "not a probability" in result.output
    back = run_json("per", "--per", "1%", "--frame", "1500")
    assert back["outputs"]["ber"] == pytest.approx(8.375e-7, rel=1e-3)


def test_pftk_outputs():
    doc = run_json("pftk", "--rtt", "100ms", "--per", "0.01", "--rto", "400ms")
    out = doc["outputs"]
    assert out["goodput_bytes_per_s"] == pytest.approx(0.99 * out["send_rate_bytes_per_s"])
    assert out["approx_send_rate_bytes_per_s"] == pytest.approx(
        1460 / (0.1 * math.sqrt(0.02 / 3) + 0.4 * 3 * math.sqrt(0.03 / 8) * 0.01 * 1.0032)
    )
    capped = run_json("pftk", "--rtt", "100ms", "--per", "1e-9", "--rwnd", "65535")
    assert capped["outputs"]["send_rate_bytes_per_s"] == pytest.approx(655_350, rel=1e-3)


def test_cardwell_lossless_and_with_size():
    doc = run_json("cardwell", "--segments", "7", "--rtt", "100ms")
    assert doc["outputs"]["total_s"] == pytest.approx(0.4)
    by_size = run_json("cardwell", "--size", "10220", "--rtt", "100ms")  # 7 x 1460 bytes
    assert by_size["inputs"]["segments"] == 7
    assert by_size["outputs"]["total_s"] == pytest.approx(0.4)
    no_hs = run_json("cardwell", "--segments", "7", "--rtt", "100ms", "--no-handshake")
    assert no_hs["outputs"]["total_s"] == pytest.approx(0.3)
    text = run("cardwell", "--segments", "100", "--rtt", "100ms", "--per", "1%", "--b", "2")
    assert text.exit_code == 0, text.output
    for part in ("handshake", "slow start", "first loss", "cong. avoidance", "delayed ACK"):
        assert part in text.output


def test_cwnd_growth_table_9():
    doc = run_json("cwnd-growth", "--cwnd", "4380")
    assert [round(x) for x in doc["outputs"]["cwnd_bytes"]] == TABLE_9
    assert doc["outputs"]["cwnd_segments"][-1] == 6
    text = run("cwnd-growth", "--cwnd", "4380", "--rtts", "4")
    assert text.exit_code == 0
    assert re.search(r"^\s+4\s+6080\s+4$", text.output, re.MULTILINE)


# --------------------------------------------------------------------------------------
# bad input: exit code 2, message names the option, the value and what is allowed


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["mathis", "--rtt", "-5ms", "--per", "0.01"], ["'--rtt'", "'-5ms'", "> 0 s"]),
        (["mathis", "--rtt", "soon", "--per", "0.01"], ["'--rtt'", "'soon'", "ms"]),
        (["mathis", "--rtt", "100ms", "--per", "2"], ["'--per'", "'2'", "[0, 1]"]),
        (["mathis", "--rtt", "100ms"], ["'--per'", "--ber"]),
        (["mathis", "--rtt", "100ms", "--per", "0.1", "--ber", "1e-7"], ["not both", "'1e-7'"]),
        (
            ["mathis", "--rtt", "100ms", "--ber", "1e-3", "--per-method", "linear"],
            ["'--ber'", "'1e-3'", "linear PER of 12"],
        ),
        (["mathis", "--rtt", "100ms", "--per", "0.01", "--mss", "0"], ["'--mss'", "'0'", "> 0"]),
        (["window", "--rwnd", "0", "--rtt", "1s"], ["'--rwnd'", "'0'", "> 0 bytes"]),
        (["window", "--rwnd", "64QB", "--rtt", "1s"], ["'--rwnd'", "'64QB'", "KiB"]),
        (["line-rate", "--rate", "10Mhz"], ["'--rate'", "'10Mhz'", "Mbps"]),
        (["pftk", "--rtt", "100ms", "--per", "0.01", "--b", "0.5"], ["'--b'", "'0.5'", ">= 1"]),
        (["pftk", "--rtt", "100ms", "--per", "0.01", "--rto", "0s"], ["'--rto'", "'0s'", "> 0 s"]),
        # a bare number is refused as the scenario format refuses it (not read as seconds)
        (["mathis", "--rtt", "100", "--per", "0.01"], ["'--rtt'", "'100' has no unit"]),
        (["pftk", "--rtt", "100ms", "--per", "0.01", "--rto", "1"], ["'--rto'", "no unit"]),
        (["download", "--size", "10MB", "--rtt", "40ms"], ["--rate", "--rwnd", "nothing limits"]),
        (["download", "--size", "-1", "--rtt", "40ms", "--rwnd", "8760"], ["'--size'", "'-1'"]),
        (["cardwell", "--rtt", "1s"], ["--size", "--segments"]),
        (["cardwell", "--segments", "2.5", "--rtt", "1s"], ["'--segments'", "'2.5'", "whole"]),
        (
            ["cardwell", "--segments", "5", "--rtt", "1s", "--rwnd", "100"],
            ["'--rwnd'", "'100'", "MSS"],
        ),
        (["cwnd-growth", "--cwnd", "4380", "--acks-per-rtt", "two"], ["'--acks-per-rtt'", "'two'"]),
        (["cwnd-growth", "--cwnd", "4380", "--rtts", "-1"], ["'--rtts'", "'-1'", ">= 0"]),
        (["per", "--frame", "1500"], ["--ber", "--per"]),
    ],
)
def test_bad_input_exits_2_with_a_message(args, needles):
    result = run(*args)
    assert result.exit_code == 2, result.output
    message = flat(result.output)
    for needle in needles:
        assert needle in message, (needle, message)


def test_unknown_enum_choice_exits_2():
    result = run("download", "--size", "1MB", "--rtt", "1s", "--rwnd", "1", "--loss-model", "x")
    assert result.exit_code == 2
    assert "--loss-model" in flat(result.output)


def test_app_lists_every_model_command():
    result = run("--help")
    assert result.exit_code == 0
    for name in ("per", "window", "line-rate", "mathis", "pftk", "cardwell", "download"):
        assert re.search(rf"\b{name}\b", result.output), name
