"""The Python API: validation errors, determinism, run_many, overrides, results on disk."""

from __future__ import annotations

import json
import pickle
import re
import shlex
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tcplab
from conftest import EXAMPLE, ROOT, assert_results_identical
from tcplab import Result, Scenario, _core, errors

# -- helpers -------------------------------------------------------------------------------------


def _with(data: dict[str, Any], section: str, name: str, **fields: Any) -> dict[str, Any]:
    """`data` with fields of the list element `section[name]` replaced."""
    for item in data[section]:
        if item["name"] == name:
            item.update(fields)
    return data


def _leaves(obj: Any, prefix: str = "") -> dict[str, Any]:
    """Flatten nested dicts/lists into {"a.b.0.c": leaf}."""
    if isinstance(obj, dict):
        items = obj.items()
    elif isinstance(obj, list):
        items = enumerate(obj)
    else:
        return {prefix: obj}
    out: dict[str, Any] = {}
    for k, v in items:
        out.update(_leaves(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def _changed(a: Any, b: Any) -> set[str]:
    la, lb = _leaves(a), _leaves(b)
    return {k for k in la.keys() | lb.keys() if la.get(k, ...) != lb.get(k, ...)}


@pytest.fixture
def tiny(tiny_toml: str) -> Scenario:
    return Scenario.from_toml(tiny_toml)


# -- bad input -----------------------------------------------------------------------------------


def test_exception_tree() -> None:
    assert issubclass(errors.ScenarioError, errors.TcplabError)
    assert issubclass(errors.ScenarioError, ValueError)
    for cls in (
        errors.ParseError,
        errors.InvalidValueError,
        errors.UnknownFieldError,
        errors.MissingFieldError,
        errors.TopologyError,
    ):
        assert issubclass(cls, errors.ScenarioError)
    assert issubclass(errors.InternalError, errors.TcplabError)
    assert not issubclass(errors.InternalError, ValueError)
    assert errors.ScenarioError is _core.ScenarioError
    assert errors.ScenarioError.__module__ == "tcplab.errors"


def test_malformed_toml_is_a_parse_error() -> None:
    with pytest.raises(errors.ParseError, match="not valid TOML") as info:
        Scenario.from_toml("[run]\nseed = = 1\n")
    assert isinstance(info.value, ValueError)
    assert info.value.format == "TOML"


def test_malformed_json_is_a_parse_error_from_the_core() -> None:
    with pytest.raises(errors.ParseError, match="JSON"):
        _core.validate('{"run": ')


def test_negative_rate_names_the_field(tiny_dict: dict[str, Any]) -> None:
    with pytest.raises(errors.InvalidValueError) as info:
        Scenario.from_dict(_with(tiny_dict, "links", "wan", rate="-10Mbps"))
    err = info.value
    assert "rate" in str(err) and "-10Mbps" in str(err)
    assert err.field is not None and err.field.endswith("rate")
    assert "-10Mbps" in err.value
    assert err.allowed
    assert err.kind == "invalid_value"


def test_ber_above_one_names_the_field(tiny_dict: dict[str, Any]) -> None:
    _with(tiny_dict, "links", "wan", ba={"error": {"model": "ber", "ber": 2.0}})
    with pytest.raises(errors.InvalidValueError) as info:
        Scenario.from_dict(tiny_dict)
    assert "ber" in info.value.field
    assert "ber" in str(info.value)


def test_probability_above_one_names_the_field(tiny_dict: dict[str, Any]) -> None:
    _with(tiny_dict, "links", "wan", ba={"error": {"model": "per", "p": 1.5}})
    with pytest.raises(errors.InvalidValueError, match=r"error\.p"):
        Scenario.from_dict(tiny_dict)


@pytest.mark.parametrize(
    ("where", "field"),
    [("top", "bogus_section"), ("tcp", "no_such_option"), ("link", "colour")],
)
def test_unknown_field_names_the_field(tiny_dict: dict[str, Any], where: str, field: str) -> None:
    if where == "top":
        tiny_dict[field] = 1
    elif where == "tcp":
        tiny_dict["tcp"][field] = 1
    else:
        _with(tiny_dict, "links", "wan", **{field: "red"})
    with pytest.raises(errors.UnknownFieldError) as info:
        Scenario.from_dict(tiny_dict)
    assert field in str(info.value)
    assert field in info.value.field


def test_missing_field_names_the_field(tiny_dict: dict[str, Any]) -> None:
    del tiny_dict["links"][1]["rate"]
    with pytest.raises(errors.MissingFieldError) as info:
        Scenario.from_dict(tiny_dict)
    # named the way a user addresses the element (as --set does), not by its index
    assert info.value.field == "links.wan.rate"
    assert "links.wan.rate" in str(info.value) and "links[1]" not in str(info.value)


def test_unknown_node_names_the_field(tiny_dict: dict[str, Any]) -> None:
    _with(tiny_dict, "links", "wan", b="nowhere")
    with pytest.raises(errors.ScenarioError, match="nowhere") as info:
        Scenario.from_dict(tiny_dict)
    assert info.value.field == "links.wan.b"


def test_errors_pickle_with_their_attributes(tiny_dict: dict[str, Any]) -> None:
    with pytest.raises(errors.InvalidValueError) as info:
        Scenario.from_dict(_with(tiny_dict, "links", "lan", rate="-1Mbps"))
    copy = pickle.loads(pickle.dumps(info.value))
    assert type(copy) is errors.InvalidValueError
    assert (copy.field, copy.value, str(copy)) == (
        info.value.field,
        info.value.value,
        str(info.value),
    )


@pytest.mark.parametrize("in_pool", [False, True])
def test_a_panic_becomes_internal_error(in_pool: bool) -> None:
    with pytest.raises(errors.InternalError, match="deliberate panic"):
        _core._panic_for_test(in_pool)


# -- scenarios -----------------------------------------------------------------------------------


def test_scenario_from_path_text_and_dict_agree(tiny_file: Path, tiny_toml: str) -> None:
    from_path = Scenario.from_toml(tiny_file)
    from_str_path = Scenario.from_toml(str(tiny_file))
    from_text = Scenario.from_toml(tiny_toml)
    from_dict = Scenario.from_dict(tomllib.loads(tiny_toml))
    assert from_path == from_str_path == from_text == from_dict
    assert from_path.source == str(tiny_file)
    assert from_path.seed == 1


def test_to_toml_and_to_dict_round_trip(tiny: Scenario) -> None:
    assert Scenario.from_toml(tiny.to_toml()) == tiny
    assert Scenario.from_dict(tiny.to_dict()) == tiny
    assert Scenario.from_dict(tiny.to_dict(normalized=True)) == tiny
    assert json.loads(tiny.to_json(normalized=True)) == tiny.to_dict(normalized=True)


def test_with_overrides_changes_exactly_what_it_names(tiny: Scenario) -> None:
    new = tiny.with_overrides(
        {"tcp.mss": 536, "links.wan.ba.error.p": 0.05, "seed": 3, "apps.download.size": "1MB"}
    )
    assert _changed(tiny.to_dict(), new.to_dict()) == {
        "tcp.mss",
        "links.1.ba.error.p",
        "run.seed",
        "apps.0.size",
    }
    assert new.to_dict(normalized=True)["tcp"]["mss"] == 536
    assert new.seed == 3
    assert tiny.seed == 1 and tiny.to_dict()["tcp"]["mss"] == 1460  # the original is unchanged


def test_with_overrides_creates_missing_tables(tiny: Scenario) -> None:
    new = tiny.with_overrides({"links.lan.ab.error": {"model": "per", "p": 0.001}})
    assert new.to_dict()["links"][0]["ab"] == {"error": {"model": "per", "p": 0.001}}
    assert _changed(tiny.to_dict(), new.to_dict()) == {
        "links.0.ab.error.model",
        "links.0.ab.error.p",
    }


def test_with_overrides_addresses_list_elements_by_index(tiny: Scenario) -> None:
    by_name = tiny.with_overrides({"links.wan.delay": "50ms"})
    by_index = tiny.with_overrides({"links.1.delay": "50ms"})
    assert by_name == by_index != tiny


def test_with_overrides_rejects_unknown_element(tiny: Scenario) -> None:
    with pytest.raises(errors.UnknownFieldError, match="no element named 'wna'") as info:
        tiny.with_overrides({"links.wna.rate": "1Mbps"})
    assert info.value.field == "links.wna.rate"
    assert "'wan'" in str(info.value)  # lists the names there are


def test_with_overrides_rejects_unknown_field(tiny: Scenario) -> None:
    with pytest.raises(errors.UnknownFieldError) as info:
        tiny.with_overrides({"tcp.msss": 536})
    assert "msss" in str(info.value)
    assert any("tcp.msss" in note for note in info.value.__notes__)


def test_with_overrides_rejects_paths_through_values(tiny: Scenario) -> None:
    with pytest.raises(errors.UnknownFieldError, match="not a table"):
        tiny.with_overrides({"tcp.mss.value": 1})


def test_with_overrides_validates_values(tiny: Scenario) -> None:
    with pytest.raises(errors.InvalidValueError, match="rate"):
        tiny.with_overrides({"links.wan.rate": "-3Mbps"})


# -- running -------------------------------------------------------------------------------------


def test_run_returns_summary_scenario_and_traces(tiny: Scenario) -> None:
    res = tcplab.run(tiny)
    s = res.summary
    assert s["seed"] == 1
    assert s["tcplab_version"] == tcplab.__version__
    assert [a["name"] for a in s["apps"]] == ["download"]
    assert s["apps"][0]["completed"] is True
    assert res.scenario == tiny.to_dict(normalized=True)
    trace = res.traces["trace"]
    assert len(trace) > 0
    assert trace["time_s"].dtype == np.float64
    assert trace["cwnd"].dtype.kind in "fiu"  # numbers, not Python objects
    assert "download" in repr(res)
    text = str(res)
    assert "download" in text and "Connections" in text and "Links" in text


def test_same_seed_gives_identical_results(tiny: Scenario) -> None:
    a, b = tcplab.run(tiny), tcplab.run(tiny)
    assert_results_identical(a, b)


def test_seed_argument_overrides_the_scenario_seed(tiny: Scenario) -> None:
    a = tcplab.run(tiny, seed=7)
    b = tcplab.run(tiny.with_seed(7))
    assert a.summary["seed"] == 7 and a.scenario["run"]["seed"] == 7
    assert_results_identical(a, b)
    assert tcplab.run(tiny, seed=8).summary != a.summary


def test_run_accepts_path_and_dict(tiny_file: Path, tiny_dict: dict[str, Any]) -> None:
    assert tcplab.run(tiny_file).summary == tcplab.run(tiny_dict).summary


def test_run_many_matches_run_and_keeps_order(tiny: Scenario) -> None:
    scenarios = [
        tiny.with_overrides({"seed": s, "apps.download.size": f"{100 + 50 * s}kB"})
        for s in (5, 1, 4, 2, 3)
    ]
    many = tcplab.run_many(scenarios, jobs=2)
    assert [r.summary["seed"] for r in many] == [5, 1, 4, 2, 3]
    for sc, res in zip(scenarios, many, strict=True):
        assert_results_identical(res, tcplab.run(sc))
    assert [r.summary["apps"][0]["bytes"] for r in many] == [
        1000 * (100 + 50 * s) for s in (5, 1, 4, 2, 3)
    ]


def test_run_many_default_jobs_and_empty_list(tiny: Scenario) -> None:
    assert tcplab.run_many([]) == []
    [res] = tcplab.run_many([tiny])
    assert_results_identical(res, tcplab.run(tiny))
    with pytest.raises(ValueError, match="jobs"):
        tcplab.run_many([tiny], jobs=0)


def _island(tiny: Scenario) -> Scenario:
    """Valid field by field, but the app's server is unreachable: fails only when run."""
    d = tiny.to_dict()
    d["nodes"].append({"name": "island", "kind": "host"})
    d["apps"][0]["server"] = "island"
    return Scenario.from_dict(d)


def test_unreachable_server_is_a_topology_error_at_run(tiny: Scenario) -> None:
    with pytest.raises(errors.TopologyError, match="island") as info:
        tcplab.run(_island(tiny))
    assert isinstance(info.value, errors.ScenarioError)


def test_check_refuses_before_a_run_what_only_the_set_up_sees(tiny: Scenario) -> None:
    # Valid field by field (Scenario accepted it), refused by the set-up: no path, and an MSS
    # above the MTU of a link on the path; a scenario that can run passes and is not run.
    island = _island(tiny)
    with pytest.raises(errors.TopologyError, match="island"):
        island.check()
    link = tiny.to_dict()["links"][0]["name"]
    small = tiny.with_overrides({f"links.{link}.mtu": 576, "tcp.mss": 1460})
    with pytest.raises(errors.ScenarioError, match=r"tcp\.mss") as info:
        small.check()
    assert "MTU" in str(info.value)
    assert tiny.check() is None


def test_run_many_failure_does_not_stop_the_others(tiny: Scenario) -> None:
    out = _core.run_many([tiny._json, "{not json", tiny._json], 2)
    assert isinstance(out[1], errors.ParseError)
    assert json.loads(out[0][0]) == json.loads(out[2][0])

    island = _island(tiny)
    got = tcplab.run_many([tiny, island, tiny.with_seed(2)], errors="return")
    assert isinstance(got[0], Result) and isinstance(got[2], Result)
    assert isinstance(got[1], errors.TopologyError)
    assert_results_identical(got[2], tcplab.run(tiny, seed=2))
    with pytest.raises(errors.TopologyError) as info:
        tcplab.run_many([tiny, island, tiny])
    assert any("scenario 1 of 3" in note for note in info.value.__notes__)


def test_run_many_returns_invalid_items_in_place(
    tiny: Scenario, tiny_dict: dict[str, Any], tmp_path: Path
) -> None:
    """Items that are not valid scenarios (a bad dict, a missing TOML path) fail alone: with
    errors="return" their errors stand at their index and the others run."""
    bad = {**tiny_dict, "links": [{**tiny_dict["links"][0], "rate": "-5Mbps"}]}
    missing = tmp_path / "nope.toml"
    items: list[Any] = [tiny, bad, tiny_dict, missing, tiny.with_seed(3)]
    got = tcplab.run_many(items, errors="return")
    assert [type(g).__name__ for g in got] == [
        "Result", "InvalidValueError", "Result", "ParseError", "Result",
    ]  # fmt: skip
    assert got[1].field.endswith(".rate")
    assert any("scenario 1 of 5" in n for n in got[1].__notes__)
    assert "nope.toml: cannot read" in str(got[3])
    assert any("scenario 3 of 5" in n for n in got[3].__notes__)
    assert_results_identical(got[4], tcplab.run(tiny, seed=3))
    with pytest.raises(errors.InvalidValueError) as info:
        tcplab.run_many(items)
    assert any("scenario 1 of 5" in n for n in info.value.__notes__)


def _steps_during(work: Callable[[], object]) -> tuple[int, float]:
    """Run `work` while a Python thread counts steps; return the steps it made during the
    middle half of `work` and how long `work` took. A call that holds the GIL all along leaves
    the thread no step in that window."""
    ticks: list[float] = []
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0002)

    thread = threading.Thread(target=count)
    thread.start()
    try:
        time.sleep(0.01)
        t0 = time.perf_counter()
        work()
        t1 = time.perf_counter()
    finally:
        stop.set()
        thread.join()
    lo, hi = t0 + 0.25 * (t1 - t0), t0 + 0.75 * (t1 - t0)
    return sum(lo < t < hi for t in ticks), t1 - t0


def test_gil_probe_detects_a_call_that_holds_the_gil() -> None:
    data = list(range(600_000, 0, -1))
    steps, took = _steps_during(lambda: sorted(data, key=str))  # one long C call
    assert took > 0.02 and steps == 0


@pytest.mark.serial  # the probe thread needs a core while the simulator holds the others
@pytest.mark.parametrize("entry", ["run", "run_many"])
def test_simulation_releases_the_gil(tiny: Scenario, entry: str) -> None:
    """A Python thread keeps running while the simulator works."""

    def heavy(seed: int, size: str) -> Scenario:
        changes = {"seed": seed, "apps.download.size": size, "run.stop_time": "5h"}
        return tiny.with_overrides({**changes, "output.trace": False})

    # Sized to take tens of milliseconds: at 200 MB and 100 MB (branch speed/round3) the
    # simulator got through them in under the 0.02 s the probe needs to judge.
    if entry == "run":
        one = heavy(1, "1GB")
        steps, took = _steps_during(lambda: tcplab.run(one))
    else:
        many = [heavy(s, "500MB") for s in range(1, 5)]
        steps, took = _steps_during(lambda: tcplab.run_many(many, jobs=2))
    assert took > 0.02, f"workload too small ({took:.3f} s) to judge"
    assert steps > 0, f"the thread made no step in {took:.3f} s"


# -- results on disk -----------------------------------------------------------------------------


def test_to_dir_reads_back_equal(tiny: Scenario, tmp_path: Path) -> None:
    res = tcplab.run(tiny)
    out = res.to_dir(tmp_path / "out")
    assert (out / "summary.json").exists() and (out / "trace.parquet").exists()
    back = Result.from_dir(out)
    assert back.scenario == res.scenario
    assert_results_identical(back, res)


def test_to_dir_replaces_a_previous_run_whole_and_refuses_foreign_files(
    tiny: Scenario, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    tcplab.run(tiny.with_overrides({"output.packets": True})).to_dir(out)
    assert (out / "packets.parquet").exists()
    second = tcplab.run(tiny.with_overrides({"output.trace": False}), seed=9)
    second.to_dir(out)
    # Nothing of the first run stays beside the second: no packets or trace table.
    assert sorted(p.name for p in out.iterdir()) == ["events.parquet", "scenario.json",
                                                    "summary.json"]  # fmt: skip
    assert Result.from_dir(out).summary["seed"] == 9
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no leftovers
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(errors.InvalidValueError, match="notes.txt"):
        second.to_dir(mine)
    assert (mine / "notes.txt").read_text() == "keep me"
    with pytest.raises(errors.InvalidValueError, match="a directory"):
        second.to_dir(mine / "notes.txt")


def test_to_dir_cut_short_leaves_no_directory_under_its_name(
    tiny: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that fails half way (a full disk: the second table) leaves neither a partial
    directory under the final name nor its hidden working directory; and a directory without
    its summary is refused by from_dir."""
    import pandas as pd

    res = tcplab.run(tiny.with_overrides({"output.packets": True}))
    calls = {"n": 0}
    real = pd.DataFrame.to_parquet

    def failing(self: pd.DataFrame, *a: Any, **k: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        return real(self, *a, **k)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", failing)
    with pytest.raises(OSError, match="No space"):
        res.to_dir(tmp_path / "run")
    assert list(tmp_path.iterdir()) == []
    half = tmp_path / "half"
    half.mkdir()
    (half / "trace.parquet").write_bytes(b"PAR1")
    with pytest.raises(errors.InvalidValueError, match="not a complete run directory"):
        Result.from_dir(half)


# -- package -------------------------------------------------------------------------------------


def test_models_are_imported_lazily() -> None:
    code = (
        "import sys, tcplab; assert 'tcplab.models' not in sys.modules; "
        "m = tcplab.models; assert 'tcplab.models' in sys.modules; print(m.__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "tcplab.models"


def test_version() -> None:
    assert tcplab.__version__ == _core.__version__
    assert tcplab.__version__.count(".") >= 2


# -- the README's examples -----------------------------------------------------------------------


def _readme_blocks() -> list[tuple[str, str]]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.M | re.S)


def test_readme_opens_with_the_two_setup_commands() -> None:
    assert (ROOT / "README.md").read_text().startswith("```sh\nmake run\nmake test\n```\n")


def test_readme_examples_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tcplab.cli import app
    from typer.testing import CliRunner

    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    blocks = _readme_blocks()
    tomls = [body for lang, body in blocks if lang == "toml"]
    assert tomls, "the README shows a scenario"
    for body in tomls:
        res = tcplab.run(Scenario.from_toml(body))
        assert all(a["completed"] for a in res.summary["apps"])
    pythons = [body for lang, body in blocks if lang == "python"]
    assert pythons
    for body in pythons:
        exec(compile(body, "README.md", "exec"), {})
    assert (tmp_path / "out" / "example" / "summary.json").exists()
    commands = [
        shlex.split(line, comments=True)
        for lang, body in blocks[1:]
        if lang == "sh"
        for line in body.splitlines()
        if line.strip()
    ]
    assert commands
    runner = CliRunner()
    for argv in commands:
        assert argv[0] == "tcplab"
        res = runner.invoke(app, argv[1:])
        assert res.exit_code == 0, (argv, res.output)


def test_no_sentinel_leaves_the_core() -> None:
    # An ssthresh no congestion event set is null in the summary and infinity in the trace; an
    # unlimited send buffer is null in the resolved scenario (not 4611686018427387903).
    import re

    sc = Scenario.from_toml(EXAMPLE).with_overrides({"links.wan.ab.error.p": 0.0})
    res = tcplab.run(sc, seed=1)
    client = res.summary["connections"][0]["client"]
    assert client["final_ssthresh"] is None
    ss = res.traces["trace"]["ssthresh"]
    assert ss.dtype == "float64" and np.isinf(ss).all()
    lossy = tcplab.run(Scenario.from_toml(EXAMPLE), seed=1)
    assert lossy.summary["connections"][0]["server"]["final_ssthresh"] > 0
    assert np.isfinite(lossy.traces["trace"]["ssthresh"].iloc[-1])
    # BBR sets no ssthresh: its fast retransmits log it as unlimited, not as the sentinel.
    bbr_sc = Scenario.from_toml(EXAMPLE).with_overrides({"tcp.congestion_control": "bbr"})
    bbr = tcplab.run(bbr_sc, seed=1)
    events = bbr.traces["events"]
    fast = events[events["kind"] == "fast_retransmit"]["detail"]
    assert len(fast) > 0 and all(" ssthresh unlimited " in d for d in fast), list(fast)
    for text in (json.dumps(res.summary), json.dumps(sc.describe()), events.to_json()):
        assert not re.findall(r"\b(4611686018427387903|68719476720|2147483647)\b", text)
    assert sc.describe()["apps"][0]["tcp"]["snd_buf"] is None


def test_a_connection_that_gives_up_says_why() -> None:
    base = Scenario.from_toml(EXAMPLE).with_overrides({"tcp.max_retries": 3})
    # Every segment from the server lost: neither end completes the handshake.
    res = tcplab.run(base.with_overrides({"links.wan.ab.error": {"model": "per", "p": 1.0}}))
    c = res.summary["connections"][0]
    assert c["client"]["end_reason"] == (
        "handshake failed: the SYN timed out 4 times (max_retries = 3)"
    )
    assert c["server"]["end_reason"].startswith("handshake failed: the SYN-ACK timed out")
    # One data segment lost on every transmission: the server gives up after max_retries.
    lost = [{"seq": 14601, "tx": k} for k in range(1, 6)]
    res = tcplab.run(
        base.with_overrides({"links.wan.ab.error": {"model": "list", "segments": lost}})
    )
    srv = res.summary["connections"][0]["server"]
    # a fast retransmission, then one per timeout; the fourth timeout gives up
    assert srv["aborted"] and srv["retransmissions"] == 4 and srv["rto_expirations"] == 4
    assert srv["end_reason"] == (
        "gave up: the segment at 14601 timed out 4 times without an ACK "
        "(max_retries = 3, as Linux's tcp_retries2)"
    )
    assert any("connection 'ftp', server: gave up" in w for w in res.warnings)
    assert "gave up" in str(res)  # the table's "how it ended" column
    done = tcplab.run(EXAMPLE)
    assert {done.summary["connections"][0][e]["end_reason"] for e in ("client", "server")} == {
        "closed"
    }
    assert done.warnings == []


def test_the_trace_says_whose_it_is() -> None:
    # FTP: the server (node 0 of the example, end 1) sends the data; bulk: the client.
    res = tcplab.run(EXAMPLE)
    tr = res.traces["trace"]
    assert set(tr["end"]) == {1} and set(tr["node"]) == {0}
    bulk = Scenario.from_toml(EXAMPLE).with_overrides({"apps.ftp.kind": "bulk"})
    tr = tcplab.run(bulk).traces["trace"]
    assert set(tr["end"]) == {0} and set(tr["node"]) == {2}  # the client, node 2


# -- Ctrl-C reaches the core -------------------------------------------------------------------

_INTERRUPT_SCRIPT = """
import os, signal, sys, threading, time
import tcplab
sc = tcplab.Scenario.from_toml(sys.argv[1]).with_overrides({"apps.download.size": "20GB"})
many = sys.argv[2] == "many"
t0 = time.perf_counter()
threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    tcplab.run_many([sc.with_seed(s) for s in range(1, 9)], jobs=2) if many else tcplab.run(sc)
    print("finished", time.perf_counter() - t0)
except KeyboardInterrupt:
    t1 = time.perf_counter() - t0
    tiny = sc.with_overrides({"apps.download.size": "100kB"})
    assert tcplab.run(tiny).summary["apps"][0]["completed"]  # the core is usable afterwards
    print("interrupted", t1)
"""


@pytest.mark.serial  # timed: interrupted within 1.5 s
@pytest.mark.parametrize("how", ["one", "many"])
def test_ctrl_c_stops_a_long_run_in_the_core(how: str) -> None:
    """SIGINT during a call into the core raises KeyboardInterrupt soon, not after the runs
    (one 20 GB transfer takes about 7 s of simulation)."""
    example = ROOT / "examples" / "bulk_1gb.toml"
    out = subprocess.run(
        [sys.executable, "-c", _INTERRUPT_SCRIPT, str(example), how],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    word, seconds = out.stdout.split()
    assert word == "interrupted"
    assert float(seconds) < 1.5
