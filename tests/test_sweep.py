"""Sweeps and the results store: the grid parser, resuming, kill -9, executors, refusals."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest
import tcplab
from tcplab import errors
from tcplab.sweep import Store, StoreError, Sweep, run_id
from tcplab.sweep.grid import grid_points, parse_axis, parse_seeds, parse_values, seed_list
from tcplab.sweep.store_write import open_writer

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "sarkar2022.toml"
TCPLAB = [str(Path(sys.executable).parent / "tcplab")]

# A small, fast grid on the sarkar2022 scenario (10 MB at 10 Mbit/s): 2 x 2 points.
GRID = {"links.wan.ab.error.p": [0.0, 0.01], "tcp.congestion_control": ["reno", "cubic"]}


# -- the grid parser ---------------------------------------------------------------------------


def test_values_lists_ranges_and_inline_tables():
    assert parse_values("p", "0,0.001,0.01") == [0, 0.001, 0.01]
    assert parse_values("p", "1e-8..1e-4:5log") == [1e-8, 1e-7, 1e-6, 1e-5, 1e-4]
    assert parse_values("p", "0..0.1:11")[:3] == [0.0, 0.01, 0.02]
    assert parse_values("p", "0..0.1:11")[-1] == 0.1
    assert parse_values("tcp.mss", "500..1500:3") == [500, 1000, 1500]
    assert parse_values("tcp.mss", "3..6") == [3, 4, 5, 6]
    assert parse_values("cc", "reno,cubic") == ["reno", "cubic"]
    assert parse_values("rate", "10Mbps, 5Mbps") == ["10Mbps", "5Mbps"]
    assert parse_values("p", "0,1e-6..1e-4:3log") == [0, 1e-6, 1e-5, 1e-4]
    assert parse_values("e", '{model="per",p=0.01},{model="none"}') == [
        {"model": "per", "p": 0.01},
        {"model": "none"},
    ]
    assert parse_values("x", "[1, 2]") == [1, 2]


def test_product_and_zip():
    axes = [("a", [1, 2]), ("b", ["x", "y", "z"])]
    pts = grid_points(axes)
    assert len(pts) == 6
    assert pts[:4] == [
        {"a": 1, "b": "x"},
        {"a": 1, "b": "y"},
        {"a": 1, "b": "z"},
        {"a": 2, "b": "x"},
    ]
    assert grid_points([("a", [1, 2]), ("b", [3, 4])], zip_=True) == [
        {"a": 1, "b": 3},
        {"a": 2, "b": 4},
    ]
    with pytest.raises(errors.InvalidValueError, match="same number of values"):
        grid_points(axes, zip_=True)
    with pytest.raises(errors.InvalidValueError, match="given twice"):
        grid_points([("a", [1]), ("a", [2])])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("links.wan.ab.error.p", "expected PATH=VALUES"),
        ("=1,2", "not a dotted path"),
        ("links..p=1", "not a dotted path"),
        ("seed=1,2", "swept with --seeds"),
        ("p=", "no values"),
        ("p=1,,2", "empty item"),
        ("p=0..1e-4:5log", "LO > 0"),
        ("p=0..0.1", "needs a number of points"),
        ("p=0..1:x", "not a number of points"),
        ("p=5..1", "empty"),
        ("p=0..1:0", "number of points must be"),
        ("p=a..b:3", "not a finite number"),
    ],
)
def test_bad_axes_name_the_path(text, message):
    with pytest.raises(errors.InvalidValueError, match=message) as e:
        parse_axis(text)
    path = text.partition("=")[0].strip() if "=" in text else "--grid"
    assert str(e.value).startswith(f"{path or '--grid'}: invalid value")


def test_seeds():
    assert parse_seeds("1..5") == [1, 2, 3, 4, 5]
    assert parse_seeds("3") == [1, 2, 3]
    assert parse_seeds("1,2,9") == [1, 2, 9]
    assert parse_seeds(range(4, 6)) == [4, 5]
    for bad in ("0", "1,1", "x", "1..x", -1, [1.5]):
        with pytest.raises(errors.InvalidValueError, match="seeds"):
            parse_seeds(bad)


@pytest.mark.parametrize(
    ("seeds", "expected"), [(1, [1]), (3, [1, 2, 3]), ([5, 9], [5, 9]), ((2,), [2])]
)
def test_seed_list(seeds: Any, expected: list[int]) -> None:
    assert seed_list(seeds) == expected


@pytest.mark.parametrize("bad", [0, -1, [], [1, 1]])
def test_seed_list_refuses(bad: Any) -> None:
    with pytest.raises(ValueError):
        seed_list(bad)


def test_a_bad_value_names_the_grid_point():
    sw = Sweep(EXAMPLE, grid={"tcp.mss": [536, "big"]})
    with pytest.raises(errors.ScenarioError) as e:
        sw.tasks()
    assert "tcp.mss" in str(e.value)
    assert any("tcp.mss='big'" in n for n in e.value.__notes__)
    with pytest.raises(errors.UnknownFieldError, match="links.nowhere"):
        Sweep(EXAMPLE, grid={"links.nowhere.rate": ["1Mbps"]}).tasks()


# -- the store ---------------------------------------------------------------------------------


def test_store_round_trip_rerun_and_enlarged_grid(tmp_path):
    st = tmp_path / "st"
    first = Sweep(EXAMPLE, grid=GRID, seeds="1..3").run(store=st)
    assert (first.total, first.computed, first.reused) == (12, 12, 0)
    df = Store(st).df()
    assert len(df) == 12
    assert {"run_id", "seed", "links.wan.ab.error.p", "tcp.congestion_control"} <= set(df.columns)
    assert "apps.ftp.response_time_s" in df.columns
    assert "connections.ftp.server.retransmissions" in df.columns
    # the rows are what tcplab.run gives for the same scenario and seed
    one = df[(df["links.wan.ab.error.p"] == 0.01) & (df["tcp.congestion_control"] == "cubic")]
    one = one[one["seed"] == 2].iloc[0]
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides(
        {"links.wan.ab.error.p": 0.01, "tcp.congestion_control": "cubic"}
    )
    r = tcplab.run(sc, seed=2)
    assert one["apps.ftp.response_time_s"] == r.summary["apps"][0]["response_time_s"]
    # rerun: nothing computed, same rows
    again = Sweep(EXAMPLE, grid=GRID, seeds="1..3").run(store=st)
    assert (again.computed, again.reused) == (0, 12)
    pd.testing.assert_frame_equal(Store(st).df(), df)
    # a larger sweep that contains it computes only the new rows
    bigger = dict(GRID, **{"links.wan.ab.error.p": [0.0, 0.01, 0.05]})
    more = Sweep(EXAMPLE, grid=bigger, seeds="1..4").run(store=st)
    assert (more.total, more.computed, more.reused) == (24, 12, 12)
    assert len(more.frame) == 24
    allrows = Store(st).df()
    assert len(allrows) == 24
    old = allrows[allrows["run_id"].isin(df["run_id"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(old[df.columns], df)
    assert Store(st).sql("SELECT count(DISTINCT run_id) AS n FROM runs")["n"][0] == 24


def test_the_run_id_lists_beside_the_parts(tmp_path):
    st = tmp_path / "st"
    Sweep(EXAMPLE, grid=GRID, seeds="1..2").run(store=st)
    parts = sorted((st / "parts").glob("part-*.parquet"))
    lists = sorted((st / "parts").glob("part-*.parquet.ids"))
    assert [p.name + ".ids" for p in parts] == [p.name for p in lists]
    want = set(Store(st).df()["run_id"])
    assert len(want) == 8 and Store(st).run_ids() == want
    # a list left alone by a kill between the two renames names no rows, and the next writer
    # removes it
    orphan = st / "parts" / "part-29990101T000000000000-deadbeef.parquet.ids"
    orphan.write_text("not-a-run\n")
    assert Store(st).run_ids() == want
    again = Sweep(EXAMPLE, grid=GRID, seeds="1..2").run(store=st)
    assert again.computed == 0 and not orphan.exists()
    # a part written without its list (an older store) is read from the Parquet file
    for f in lists:
        f.unlink()
    assert Store(st).run_ids() == want
    assert Sweep(EXAMPLE, grid=GRID, seeds="1..2").run(store=st).computed == 0


def test_run_ids_are_stable_and_ignore_the_output_switches(tmp_path):
    a = Sweep(EXAMPLE, grid=GRID, seeds=[1, 2]).tasks()
    b = Sweep(
        tcplab.Scenario.from_toml(EXAMPLE).with_overrides({"output.trace": False}),
        grid=GRID,
        seeds=[1, 2],
    ).tasks()
    assert [t.run_id for t in a] == [t.run_id for t in b]
    assert len({t.run_id for t in a}) == 8
    key = Sweep(EXAMPLE, grid={}, seeds=[1]).base_key
    assert Sweep(EXAMPLE, grid={}, seeds=[7]).tasks()[0].run_id == run_id(key, 7)
    # the ids are hashlib's SHA-256, whichever implementation computes them
    assert run_id(key, 7) == hashlib.sha256(f"{key}:7".encode()).hexdigest()[:20]


def test_the_sweep_table_of_a_scenario_file(tmp_path):
    text = EXAMPLE.read_text() + (
        '\n[sweep]\nseeds = "1..2"\nzip = true\n[sweep.grid]\n'
        '"links.wan.ab.error.p" = [0.0, 0.01]\ntcp.congestion_control = "reno,cubic"\n'
    )
    f = tmp_path / "sw.toml"
    f.write_text(text)
    sw = Sweep.from_toml(f)
    assert sw.seeds == [1, 2]
    assert sw.points == [
        {"links.wan.ab.error.p": 0.0, "tcp.congestion_control": "reno"},
        {"links.wan.ab.error.p": 0.01, "tcp.congestion_control": "cubic"},
    ]
    # the command line replaces the file's seeds and adds axes
    sw2 = Sweep.from_toml(f, grid=[("tcp.mss", [536, 1460])], seeds="1..3", zip=False)
    assert len(sw2) == 2 * 2 * 2 * 3
    f.write_text(EXAMPLE.read_text() + "\n[sweep]\ngrids = 1\n")
    with pytest.raises(errors.UnknownFieldError, match="sweep.grids"):
        Sweep.from_toml(f)


def test_a_store_of_another_base_version_or_writer_is_refused(tmp_path):
    st = tmp_path / "st"
    Sweep(EXAMPLE, grid=GRID, seeds=1).run(store=st)
    other = tcplab.Scenario.from_toml(EXAMPLE).with_overrides({"tcp.mss": 536})
    with pytest.raises(StoreError, match="another base scenario"):
        Sweep(other, grid=GRID, seeds=1).run(store=st)
    m = json.loads((st / "store.json").read_text())
    with open_writer(Store(st), kind="sweep", base={}, base_hash=m["base_hash"]):
        with pytest.raises(StoreError, match="being written by another process"):
            Sweep(EXAMPLE, grid=GRID, seeds=1).run(store=st)
    m["tcplab_version"] = "0.0.1"
    (st / "store.json").write_text(json.dumps(m))
    with pytest.raises(StoreError, match="written by tcplab 0.0.1"):
        Sweep(EXAMPLE, grid=GRID, seeds=1).run(store=st)
    assert isinstance(StoreError("x"), errors.TcplabError)
    assert len(Store(st)) == 4  # nothing was added by the refused sweeps


def test_a_dask_local_cluster_gives_the_same_rows(tmp_path):
    pytest.importorskip("distributed")
    here = Sweep(EXAMPLE, grid=GRID, seeds="1..3").run(store=tmp_path / "a")
    dask = Sweep(EXAMPLE, grid=GRID, seeds="1..3").run(store=tmp_path / "b", scheduler="local:2")
    assert dask.computed == 12
    pd.testing.assert_frame_equal(Store(tmp_path / "a").df(), Store(tmp_path / "b").df())
    pd.testing.assert_frame_equal(here.frame, dask.frame)


@pytest.mark.serial  # holds port 8787, Dask's default dashboard port, for the machine
def test_a_local_cluster_runs_while_the_dashboard_port_is_taken():
    """A `local:N` sweep does not need port 8787: another cluster or dashboard may hold it (two
    test processes did, and the scheduler's warning that it moved failed the sweep)."""
    pytest.importorskip("distributed")
    import socket

    with socket.socket() as held:
        try:
            held.bind(("0.0.0.0", 8787))
            held.listen()
        except OSError:
            pass  # taken already, which is the case under test
        out = Sweep(EXAMPLE, grid=GRID, seeds=1).run(scheduler="local:2")
    assert out.computed == 4 and len(out.frame) == 4


def test_without_a_store_rows_come_back_in_grid_order():
    out = Sweep(EXAMPLE, grid=GRID, seeds=[5, 6]).run()
    assert list(out.frame["seed"]) == [5, 6] * 4
    assert (
        list(out.frame["tcp.congestion_control"])
        == ["reno"] * 2 + ["cubic"] * 2 + ["reno"] * 2 + ["cubic"] * 2
    )


# -- kill -9 and resume ------------------------------------------------------------------------

KILL_GRID = [
    "--grid",
    "links.wan.ab.error.p=0..0.05:30",
    "--grid",
    "tcp.congestion_control=reno,cubic",
]
# 6000 runs, about 5 s on 2 cores: long enough that the first part (flushed after a second)
# holds only some of the rows.
KILL_SEEDS = ["--seeds", "1..100"]
RUNS = 6000


def _sweep_cmd(store: Path) -> list[str]:
    return [
        *TCPLAB,
        "sweep",
        str(EXAMPLE),
        *KILL_GRID,
        *KILL_SEEDS,
        "--store",
        str(store),
        "--json",
    ]


@pytest.mark.slow
@pytest.mark.serial  # killed at moments scaled to a sweep timed first
def test_kill_9_at_random_moments_then_resume_loses_and_duplicates_nothing(tmp_path):
    ref = tmp_path / "ref"
    t0 = time.perf_counter()
    subprocess.run(_sweep_cmd(ref), check=True, capture_output=True)
    full = time.perf_counter() - t0
    expected = Store(ref).df()
    assert len(expected) == RUNS
    rng = random.Random(20261125)
    partial = 0
    for trial in range(5):
        st = tmp_path / f"t{trial}"
        proc = subprocess.Popen(
            _sweep_cmd(st), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        if trial < 3:
            time.sleep(rng.uniform(0.3, max(0.6, 0.9 * full)))
        else:
            # The last two kills land just after the first part reached the store, wherever
            # start-up and the machine's load put that moment: a partly written store.
            deadline = time.perf_counter() + 5 * full + 5
            while not list((st / "parts").glob("part-*.parquet")) and proc.poll() is None:
                if time.perf_counter() > deadline:
                    break
                time.sleep(0.002)
            time.sleep(rng.uniform(0.0, 0.02))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        before = len(Store(st)) if Store(st).exists() else 0
        partial += 0 < before < RUNS
        if before:  # what a rerun reads to learn what is present: the parts' run_id lists
            in_parts = Store(st).sql("SELECT run_id FROM runs")["run_id"]
            assert Store(st).run_ids() == set(in_parts) and len(in_parts) == before
        print(f"trial {trial}: killed at {before} of {RUNS} rows")
        if 0 < before < RUNS:  # read as it is, the store says it is partial
            r = subprocess.run([*TCPLAB, "results", str(st), "--csv"], capture_output=True,
                               text=True)  # fmt: skip
            assert r.returncode == 0, r.stderr
            assert r.stderr.startswith("warning: ") and "the store is partial" in r.stderr
            assert f"{before} rows are present of its {RUNS} runs" in r.stderr
        done = subprocess.run(_sweep_cmd(st), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        info = json.loads(done.stdout)
        assert info["computed"] == RUNS - before
        con = duckdb.connect()
        files = f"'{st}/parts/part-*.parquet'"
        n, distinct = con.execute(
            "SELECT count(*), count(DISTINCT run_id) "
            f"FROM read_parquet({files}, union_by_name=true)"
        ).fetchone()
        assert (n, distinct) == (RUNS, RUNS)
        pd.testing.assert_frame_equal(Store(st).df(), expected)
        assert not list((st / "parts").glob(".tmp-*"))
        assert not list((st / "parts").glob(".*.writing-*"))  # a killed writer's, removed
    assert partial >= 1  # at least one kill left a partly written store


@pytest.mark.slow
@pytest.mark.serial  # timed: stopped within a second
def test_ctrl_c_stops_within_a_second_and_keeps_what_finished(tmp_path):
    st = tmp_path / "st"
    proc = subprocess.Popen(
        _sweep_cmd(st), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    # Ctrl-C once the first part reached the store, wherever start-up and the machine's load
    # put that moment: then the second timed is the stop, not a first part written after it.
    deadline = time.perf_counter() + 60
    while not list((st / "parts").glob("part-*.parquet")):
        if proc.poll() is not None or time.perf_counter() > deadline:
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(f"no part reached the store (sweep's exit code {proc.returncode}): {err}")
        time.sleep(0.002)
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=10)
    assert time.perf_counter() - t0 < 1.0
    if proc.returncode == 0:  # it finished first on a fast machine
        return
    assert proc.returncode == 130
    assert "interrupted" in err
    kept = len(Store(st))
    assert kept > 0
    ids = Store(st).sql("SELECT count(DISTINCT run_id) AS n FROM runs")["n"][0]
    assert ids == kept
    done = subprocess.run(_sweep_cmd(st), check=True, capture_output=True, text=True)
    assert json.loads(done.stdout)["computed"] == RUNS - kept


# -- the commands ------------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run([*TCPLAB, *args], capture_output=True, text=True, env=env)


def test_cli_sweep_results_and_plot(tmp_path):
    st = tmp_path / "st"
    grid = ["--grid", "links.wan.ab.error.p=0,0.01", "--grid", "tcp.congestion_control=reno,cubic"]
    r = _cli("sweep", str(EXAMPLE), *grid, "--seeds", "1..3", "--store", str(st), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["computed"] == 12
    r = _cli("results", str(st), "--csv")
    assert r.returncode == 0, r.stderr
    summ = pd.read_csv(pd.io.common.StringIO(r.stdout))
    assert len(summ) == 4
    assert list(summ["n"]) == [3, 3, 3, 3]
    df = Store(st).df()
    d = df[(df["links.wan.ab.error.p"] == 0.01) & (df["tcp.congestion_control"] == "reno")]
    row = summ[(summ["links.wan.ab.error.p"] == 0.01) & (summ["tcp.congestion_control"] == "reno")]
    m = d["apps.ftp.response_time_s"]
    assert row["apps.ftp.response_time_s"].iloc[0] == pytest.approx(m.mean())
    half = 4.303 * m.std(ddof=1) / 3**0.5
    assert row["apps.ftp.response_time_s.ci95"].iloc[0] == pytest.approx(half)
    r = _cli("results", str(st), "--sql", "SELECT count(*) AS n FROM runs", "--json")
    assert json.loads(r.stdout) == [{"n": 12}]
    r = _cli("results", str(st), "--sql", "SELECT nope FROM runs")
    assert r.returncode == 2 and r.stderr.startswith("error: --sql") and "Traceback" not in r.stderr
    out = tmp_path / "fig.png"
    r = _cli(
        "plot",
        str(st),
        "--x",
        "links.wan.ab.error.p",
        "--y",
        "apps.ftp.response_time_s",
        "--hue",
        "tcp.congestion_control",
        "--out",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 5000 and (tmp_path / "fig.svg").stat().st_size > 5000
    r = _cli("plot", str(st), "--x", "links.wan.ab.error.p", "--y", "apps.ftp.response_time_s")
    assert r.returncode == 2 and "tcp.congestion_control varies" in r.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--grid", "tcp.mss"], "--grid: invalid value"),
        (["--grid", "links.nowhere.rate=1Mbps"], "links.nowhere"),
        (["--grid", "tcp.mss=1..x"], "tcp.mss: invalid value"),
        (["--seeds", "0"], "seeds: invalid value"),
        (["--scheduler", "local:0"], "--scheduler"),
        (["--scheduler", "http://x"], "--scheduler"),
        (
            ["--zip", "--grid", "tcp.mss=1,2", "--grid", "tcp.congestion_control=reno"],
            "same number",
        ),
    ],
)
def test_cli_sweep_refuses_bad_input(tmp_path, args, message):
    r = _cli("sweep", str(EXAMPLE), *args, "--store", str(tmp_path / "st"))
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and message in r.stderr
    assert "Traceback" not in r.stderr


def test_results_of_no_store(tmp_path):
    r = _cli("results", str(tmp_path))
    assert r.returncode == 2 and "no tcplab store" in r.stderr


# What a rerun that finds every run in its store must not import: it reads the run_id lists
# beside the parts, not the Parquet files, and starts no executor (issue 9: such a rerun takes
# little more than the command's start-up).
RERUN_UNUSED = [
    "pandas",
    "pyarrow",
    "duckdb",
    "numpy",
    "rich",
    "concurrent.futures",
    "tcplab.sweep.execute",
    "hashlib",
]


def test_a_rerun_that_finds_every_run_imports_no_executor_nor_table_library(tmp_path):
    st = tmp_path / "st"
    grid = ["--grid", "links.wan.ab.error.p=0,0.01", "--grid", "tcp.congestion_control=reno,cubic"]
    args = ["sweep", str(EXAMPLE), *grid, "--seeds", "1..2", "--store", str(st)]
    assert _cli(*args).returncode == 0
    seen = tmp_path / "modules.json"
    # the console script's entry point, the modules it imported written as it exits
    code = (
        "import atexit, json, sys\n"
        f"atexit.register(lambda: open({str(seen)!r}, 'w').write(json.dumps(list(sys.modules))))\n"
        "from tcplab.cli import main\n"
        "main()\n"
    )
    for extra, want in (
        ([], f"8 runs (4 points x 2 seeds): 0 computed, 8 already in {st}, "),
        (["--json"], '"computed": 0,'),
    ):
        r = subprocess.run(
            [sys.executable, "-c", code, *args, *extra], capture_output=True, text=True
        )
        assert r.returncode == 0, r.stderr
        assert want in r.stdout and r.stderr == ""
        modules = set(json.loads(seen.read_text()))
        assert {"tcplab.sweep", "tcplab.sweep.store"} <= modules
        assert [m for m in RERUN_UNUSED if m in modules] == []


# -- studies on the store ----------------------------------------------------------------------


def test_a_study_resumes_from_its_store_with_the_same_rows(tmp_path):
    from tcplab import studies

    st = studies.get("netsim-mathis")
    plain = st.run(seeds=2)
    store = tmp_path / "s"
    st.run(seeds=1, store=store)
    one = len(Store(store))
    assert one == len(st.run(seeds=1).runs)
    again = st.run(seeds=2, store=store)
    assert len(Store(store)) == len(plain.runs)
    n = len(plain.runs)
    assert Store(store).sql("SELECT count(DISTINCT run_id) AS n FROM runs")["n"][0] == n
    pd.testing.assert_frame_equal(again.runs, plain.runs, check_dtype=False)
    assert [t.to_dict() for t in again.tables] == [t.to_dict() for t in plain.tables]
    assert Store(store).manifest["kind"] == "study:netsim-mathis"
    with pytest.raises(StoreError, match="holds a 'study:netsim-mathis' store"):
        Sweep(EXAMPLE, grid=GRID, seeds=1).run(store=store)


def test_progress_without_a_terminal_is_one_line_per_step(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Under CI or into a log file (stderr not a terminal) a long study prints plain lines as
    runs finish, not a live bar: here every step, as a slow testbed run would."""
    from tcplab.sweep.execute import progress_bar

    with progress_bar(True, "testbed (real time)", 3) as bar:
        bar.min_interval_s = 0.0
        for _ in range(3):
            bar.advance(1)
    lines = capsys.readouterr().err.splitlines()
    assert [ln.split(",")[0] for ln in lines] == [
        f"testbed (real time): {i}/3 done" for i in (1, 2, 3)
    ]
    with progress_bar(True, "many", 1000) as bar:  # at most one line a second, and the last
        for _ in range(1000):
            bar.advance(1)
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith("many: 1000/1000 done") and len(lines) <= 3


# -- rows flattened in the core ----------------------------------------------------------------


def _one_by_one(tasks):
    """The rows `flat_row` and `error_row` make, run by run (the path other makers take)."""
    from tcplab import _core
    from tcplab.sweep.execute import error_row, flat_row

    outs = _core.run_many([t.scenario for t in tasks], 1)
    return [
        error_row(t, o) if isinstance(o, BaseException) else flat_row(t, *o)[0]
        for t, o in zip(tasks, outs, strict=True)
    ]


def _typed(row):
    return [(k, type(v), v) for k, v in row.items()]


def _broken(task):
    from tcplab.sweep.execute import Task

    return Task(task.run_id + "x", 9, task.labels, task.scenario.replace('"size"', '"sizzle"'))


def test_a_batch_flattened_in_the_core_has_the_rows_of_flat_row():
    """`FlatBatch`'s rows equal `flat_row`'s and `error_row`'s: keys in order, types, values;
    with failed runs first and later, and summary columns named like grid paths (two of them,
    renamed result.<path> in grid order)."""
    from tcplab.sweep.execute import FlatBatch, Task, flat_row, run_batch

    tasks = Sweep(EXAMPLE, grid=GRID, seeds=[1, 2]).tasks()
    clash = [  # two summary columns as grid columns, in the order opposite to the summary's
        Task(
            t.run_id + "c",
            t.seed,
            {**t.labels, "tcplab_version": "x", "sim_time_s": 1.5},
            t.scenario,
        )  # fmt: skip
        for t in tasks[:3]
    ]
    for batch_tasks in ([_broken(tasks[0]), *tasks[:3], _broken(tasks[3]), *tasks[3:]], clash):
        batch = run_batch(flat_row, batch_tasks, 2)
        assert isinstance(batch, FlatBatch)
        want = _one_by_one(batch_tasks)
        got = [row for _, row, _ in batch]
        assert [_typed(r) for r in got] == [_typed(r) for r in want]
    assert list(got[0])[-2:] == ["result.tcplab_version", "result.sim_time_s"]
    assert got[0]["sim_time_s"] == 1.5 and got[0]["result.sim_time_s"] > 0
    first = [row for _, row, _ in run_batch(flat_row, [_broken(tasks[0]), *tasks], 2)][0]
    assert first["error"].startswith("UnknownFieldError: apps[0].sizzle: unknown field")


def test_a_flush_of_batches_is_the_table_of_its_rows(tmp_path):
    """One part from several batches (`flat_table`) has the columns, order, types and values
    `rows_table` gives for their rows: a failed run first keeps every other row's summary
    (Arrow's `from_pylist` takes the first row's columns only); a grid column holding an int
    and a float in one batch and text in another is one column of JSON text, "0" not "0.0"."""
    from tcplab.sweep.execute import Task, flat_row, flat_table, run_batch
    from tcplab.sweep.store import rows_table

    tasks = Sweep(EXAMPLE, grid=GRID, seeds=[1]).tasks()
    first = [_broken(tasks[0]), *tasks]
    table = rows_table(_one_by_one(first))
    assert table.num_rows == 5 and table.column("apps.ftp.response_time_s").null_count == 1
    flat = flat_table([run_batch(flat_row, first, 2)])
    assert flat.schema == table.schema and flat.to_pylist() == table.to_pylist()

    relabel = [
        Task(t.run_id + str(i), t.seed, {"p": p}, t.scenario)
        for i, (t, p) in enumerate(zip(tasks[:3], [0, 0.005, "1%"], strict=True))
    ]
    batches = [run_batch(flat_row, relabel[:2], 2), run_batch(flat_row, relabel[2:], 2)]
    merged = flat_table(batches)
    table = rows_table(_one_by_one(relabel))
    assert merged.schema == table.schema and merged.to_pylist() == table.to_pylist()
    assert merged.column("p").to_pylist() == ["0", "0.005", "1%"]


def test_a_sweep_parses_each_point_once_and_gets_each_runs_own_rows():
    """The core parses a grid point once and sets each run's seed: the rows equal those of
    each run's own scenario text, also where parsing draws from the seed (a repeating ftp
    application's transfers)."""
    from tcplab.sweep.execute import flat_row, run_batch

    repeating = tcplab.Scenario.from_toml(EXAMPLE).with_overrides(
        {
            "apps.ftp.size": "50kB",
            "apps.ftp.count": 3,
            "apps.ftp.inter_request": {"dist": "exponential", "mean": "2s"},
        }
    )
    for base in (EXAMPLE, repeating):
        tasks = Sweep(base, grid=GRID, seeds=[1, 2, 3]).tasks()
        assert len({id(t.point_scenario) for t in tasks}) == 4  # one text per point
        got = [row for _, row, _ in run_batch(flat_row, tasks, 2)]
        want = _one_by_one(tasks)
        assert [_typed(r) for r in got] == [_typed(r) for r in want]
        # the seeds matter: the runs of the last point (1 % loss) differ, and so do the
        # transfers a repeating application draws
        column = "apps.ftp:2.start_s" if base is repeating else "apps.ftp.response_time_s"
        assert len({r[column] for r in got[-3:]}) == 3
