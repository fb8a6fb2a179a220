"""The `tcplab` command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tcplab
from conftest import ROOT, assert_results_identical
from tcplab import Result, Scenario
from tcplab.cli import app
from tcplab.cli._common import parse_assignment
from typer.testing import CliRunner

runner = CliRunner()


def invoke(*args: str | Path):
    return runner.invoke(app, [str(a) for a in args])


def test_version() -> None:
    res = invoke("version")
    assert res.exit_code == 0
    assert res.stdout.strip() == f"tcplab {tcplab.__version__}"


def test_run_prints_tables(example_file: Path) -> None:
    res = invoke("run", example_file)
    assert res.exit_code == 0, res.output
    for heading in ("Applications", "Connections", "Links", "response time", "dropped (error)"):
        assert heading in res.stdout
    for app_ in tcplab.run(example_file).summary["apps"]:
        assert app_["name"] in res.stdout


def test_run_json_matches_the_api(example_file: Path) -> None:
    res = invoke("run", example_file, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == tcplab.run(example_file).summary


def test_run_seed_and_set(tiny_file: Path) -> None:
    res = invoke(
        "run",
        tiny_file,
        "--json",
        "--seed",
        "9",
        "--set",
        "tcp.mss=536",
        "-s",
        "links.wan.rate=5Mbps",
        "-s",
        'links.lan.ab.error={model="per", p=0.01}',
    )
    assert res.exit_code == 0, res.output
    expected = Scenario.from_toml(tiny_file).with_overrides(
        {
            "tcp.mss": 536,
            "links.wan.rate": "5Mbps",
            "links.lan.ab.error": {"model": "per", "p": 0.01},
        }
    )
    assert json.loads(res.stdout) == tcplab.run(expected, seed=9).summary
    assert json.loads(res.stdout)["seed"] == 9


def test_run_out_writes_files_that_read_back_equal(example_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "result"
    res = invoke("run", example_file, "--out", out, "--json")
    assert res.exit_code == 0, res.output
    assert {"summary.json", "scenario.json"} <= {p.name for p in out.iterdir()}
    assert list(out.glob("*.parquet"))
    back = Result.from_dir(out)
    direct = tcplab.run(example_file)
    assert back.scenario == direct.scenario
    assert_results_identical(back, direct)
    assert json.loads(res.stdout) == back.summary


def test_bad_value_exits_2_with_the_field_named(tiny_file: Path) -> None:
    tiny_file.write_text(tiny_file.read_text().replace('"10Mbps"', '"-10Mbps"', 1))
    res = invoke("run", tiny_file)
    assert res.exit_code == 2
    assert res.stderr.startswith("error: ")
    assert "rate" in res.stderr and "-10Mbps" in res.stderr
    assert "Traceback" not in res.output


def test_malformed_toml_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[run\nseed = 1\n")
    res = invoke("run", bad)
    assert res.exit_code == 2
    assert res.stderr.startswith("error: scenario is not valid TOML")


def test_unknown_override_path_exits_2(tiny_file: Path) -> None:
    res = invoke("run", tiny_file, "--set", "links.nosuch.rate=1Mbps")
    assert res.exit_code == 2
    assert "nosuch" in res.stderr


def test_set_without_equals_is_a_usage_error(tiny_file: Path) -> None:
    res = invoke("run", tiny_file, "--set", "tcp.mss")
    assert res.exit_code == 2
    assert "key=value" in res.output


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    res = invoke("run", tmp_path / "absent.toml")
    assert res.exit_code == 2


def test_validate_says_valid_and_what_the_scenario_holds() -> None:
    res = invoke("validate", ROOT / "examples" / "dumbbell.toml", "--set", "tcp.profile=linux")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0] == f"valid: {ROOT / 'examples' / 'dumbbell.toml'}"
    assert "  nodes  10: 8 hosts (s1, s2, s3, s4, d1, d2, d3, d4); 2 routers (r1, r2)" in lines
    assert "  apps   4:" in lines
    # each application with its sender, receiver and resolved TCP (profile, algorithms, MSS)
    assert "    flow1  bulk, s1 -> d1, profile linux: reno + dupack, mss 1460" in lines
    assert "    flow4  bulk, s4 -> d4, profile linux: bbr + rack-tlp, mss 1460" in lines
    bottleneck = next(line for line in lines if line.startswith("    bottleneck"))
    assert "r1 - r2" in bottleneck and "10Mbps" in bottleneck and "ber(ber=1e-06)" in bottleneck
    assert len(lines) < 25  # a summary: the resolved settings are behind --json


def test_validate_counts_what_it_would_not_list() -> None:
    res = invoke("validate", ROOT / "examples" / "campus.toml")
    assert res.exit_code == 0, res.output
    assert "  apps   30:" in res.stdout
    assert "    10 http (http_0, http_1, http_2, http_3, http_4, http_5, http_6, http_7, ... " \
        "(2 more)), profile rfc: reno + dupack, mss 1460" in res.stdout  # fmt: skip
    assert "    ... (8 more)" in res.stdout  # 16 links, 8 listed


def test_validate_json_prints_the_resolved_settings(tiny_file: Path) -> None:
    res = invoke("validate", tiny_file, "--set", "tcp.mss=1000", "--set", "tcp.profile=linux",
                 "--json")  # fmt: skip
    assert res.exit_code == 0, res.output
    resolved = json.loads(res.stdout)
    sc = Scenario.from_toml(tiny_file).with_overrides({"tcp.mss": 1000, "tcp.profile": "linux"})
    assert resolved == sc.describe()
    tcp = resolved["apps"][0]["tcp"]
    # the linux profile expanded, in SI units
    assert tcp["mss"] == 1000 and tcp["congestion_control"] == "cubic"
    assert tcp["rto_min_s"] == 0.2 and tcp["sack"] is True
    assert all(isinstance(h["rate_bps"], int) for h in resolved["apps"][0]["data_path"])


def test_validate_normalized_prints_the_scenario(tiny_file: Path) -> None:
    res = invoke("validate", tiny_file, "--set", "tcp.mss=1000", "--normalized")
    assert res.exit_code == 0, res.output
    normalized = json.loads(res.stdout)
    assert normalized["tcp"]["mss"] == 1000
    assert normalized == Scenario.from_toml(tiny_file).with_overrides({"tcp.mss": 1000}).to_dict(
        normalized=True
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tcp.mss=536", ("tcp.mss", 536)),
        ("links.wan.ba.error.p = 0.01", ("links.wan.ba.error.p", 0.01)),
        ("links.wan.rate=10Mbps", ("links.wan.rate", "10Mbps")),
        ('apps.download.size="1MB"', ("apps.download.size", "1MB")),
        ("output.trace=false", ("output.trace", False)),
        ("x={model='per', p=0.1}", ("x", {"model": "per", "p": 0.1})),
        ("run.note=a=b", ("run.note", "a=b")),
    ],
)
def test_parse_assignment(text: str, expected: tuple[str, object]) -> None:
    assert parse_assignment(text) == expected


def test_entry_point_prints_no_traceback(tiny_file: Path) -> None:
    """The installed script path: `main()` exits 2 with one error line."""
    tiny_file.write_text(tiny_file.read_text().replace("p = 0.02", "p = 7"))
    proc = subprocess.run(
        [sys.executable, "-c", "from tcplab.cli import main; main()", "run", str(tiny_file)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "error.p" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_short_help_and_version_flags():
    from tcplab.cli import app
    from typer.testing import CliRunner

    r = CliRunner().invoke(app, ["--version"])
    assert r.exit_code == 0 and r.output.strip() == f"tcplab {tcplab.__version__}"
    assert CliRunner().invoke(app, ["-V"]).output == r.output
    for argv in (
        ["-h"],
        ["run", "-h"],
        ["study", "-h"],
        ["sweep", "-h"],
        ["model", "mathis", "-h"],
    ):
        res = CliRunner().invoke(app, argv)
        assert res.exit_code == 0, (argv, res.output)
        assert "Usage: tcplab" in res.output


def test_the_models_are_callable_by_their_short_names():
    m = tcplab.models
    assert m.mathis(1460, 0.1, 1.2e-3) == m.mathis_throughput(1460, 0.1, 1.2e-3)
    assert round(m.mathis(1460, 0.1, 1.2e-3), 2) == 516187.95  # NetSim's 4.1295 Mbps
    assert m.pftk(1460, 0.1, 0.01, 0.3) == m.pftk_throughput(1460, 0.1, 0.01, 0.3)
    assert m.cardwell(100, 0.1, 0.01) == m.cardwell_latency(100, 0.1, 0.01)
    from tcplab.models.mathis import mathis_constant  # the modules stay importable

    assert mathis_constant() == pytest.approx(1.5**0.5)


def test_an_unfinished_transfer_is_named_and_strict_exits_3(example_file: Path) -> None:
    runner = CliRunner()
    args = ["run", str(example_file), "--set", "run.stop_time=5s"]
    res = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert res.exit_code == 0
    assert "741680 of 10000000 (7.4 %)" in res.stdout  # delivered, not the requested size
    assert "partial: 1.187 Mbit/s" in res.stdout  # a goodput labelled as partial
    warn = (
        "warning: application 'ftp' did not finish: 741680 of 10000000 bytes delivered "
        "(7.4 %) when the run stopped (stopped_by: stop_time at 5 s)"
    )
    assert warn in res.stderr
    assert runner.invoke(app, [*args, "--strict"]).exit_code == 3
    done = runner.invoke(app, ["run", str(example_file), "--strict"])
    assert done.exit_code == 0 and "warning" not in done.stderr


@pytest.mark.parametrize(
    "argv",
    [["-h"], ["run", "-h"], ["sweep", "-h"], ["study", "-h"], ["model", "mathis", "-h"]],
)
def test_help_shows_flags_as_flags_and_numbers_typed(argv: list[str]) -> None:
    import os

    env = dict(os.environ, COLUMNS="140")
    tcplab_exe = Path(sys.executable).parent / "tcplab"
    out = subprocess.run([str(tcplab_exe), *argv], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "<bool>" not in out.stdout
    assert "--help" in out.stdout
    if argv == ["run", "-h"]:
        seed = next(line for line in out.stdout.splitlines() if "--seed" in line)
        assert "<int>" in seed


def test_the_command_run_is_the_only_one_built() -> None:
    """`tcplab NAME` builds the click command of NAME alone; without a known name first the
    whole app runs, so help and errors still list every command."""
    import typer
    from tcplab.cli import _app_for

    only = _app_for(["tcplab", "sweep", "x.toml"])
    assert [c.name for c in only.registered_commands] == ["sweep"]
    assert sorted(typer.main.get_command(only).commands) == ["sweep"]
    assert _app_for(["tcplab", "study", "--list"]).registered_commands == []
    for argv in (["tcplab"], ["tcplab", "--help"], ["tcplab", "nosuch"], ["tcplab", "-V"]):
        assert _app_for(argv) is app
    # The trimmed app is a copy: the real one keeps every command.
    assert {"run", "sweep", "results", "plot", "version"} <= {
        c.name for c in app.registered_commands
    }
    out = subprocess.run(
        [str(Path(sys.executable).parent / "tcplab"), "nosuch"], capture_output=True, text=True
    )
    assert out.returncode == 2 and "No such command 'nosuch'" in out.stderr


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("", "assert gc.isenabled() and gc.get_freeze_count() == 0"),
        ("gc.disable()", "assert not gc.isenabled()"),
        # (a frozen object may still be freed when its last reference goes)
        ("gc.freeze(); n = gc.get_freeze_count()", "assert n >= gc.get_freeze_count() > n / 2"),
    ],
)
def test_importing_the_cli_leaves_the_collector_as_it_found_it(before: str, after: str) -> None:
    """tcplab.cli pauses the cyclic collector while it starts up (only `main` freezes what
    start-up made): an importer finds the collector as it was, its frozen objects still frozen."""
    code = f"import gc\n{before}\nimport tcplab.cli\n{after}\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_results_headers_show_where_columns_sharing_a_prefix_differ(
    tiny_file: Path, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    res = invoke("sweep", tiny_file, "--grid", "links.wan.ba.error.p=0,0.02", "--seeds", "1..2",
                 "--store", store)  # fmt: skip
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["results", str(store)], env={"COLUMNS": "100"})
    assert res.exit_code == 0, res.output
    header = res.stdout.split("┡")[0]
    assert "…" not in header
    # every column's whole name, read down its header (broken after dots, folded if narrow)
    cells = [[c.strip() for c in line.strip()[1:-1].split("┃")] for line in header.splitlines()
             if line.startswith("┃")]  # fmt: skip
    names = ["".join(row[i] for row in cells) for i in range(len(cells[0]))]
    assert "apps.download.response_time_s" in names
    assert "apps.download.response_time_s.ci95" in names
