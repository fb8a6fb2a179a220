"""Sweeps over quantities and tables (issue 32): a rate, duration, size or probability is stored
as given and as a number in SI units (``<path>.si``), results and plots are ordered by that
number, two spellings of one value are one run; a table-valued axis can be summarised and
drawn; `--keep` stores per-run tables that resume like the rows.

The numbers are the core's own: for every spelling hypothesis makes, `canonical` accepts
exactly what the core accepts, its SI number is the one `Scenario.describe()` reports, and
its canonical spelling describes the same scenario."""

from __future__ import annotations

import inspect
import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import tcplab
from conftest import EXAMPLE
from hypothesis import given, settings
from hypothesis import strategies as st
from tcplab.sweep import Store, Sweep
from tcplab.sweep.quantity import _DURATION, _RATE, _SIZE, canonical
from tcplab.sweep.runs import run_tasks

TCPLAB = str(Path(sys.executable).parent / "tcplab")
BASE = tcplab.Scenario.from_toml(EXAMPLE)
# (path, kind, where describe() reports it)
FIELDS = {
    "rate": ("links.wan.rate", lambda d: d["apps"][0]["data_path"][0]["rate_bps"]),
    "duration": ("links.wan.delay", lambda d: d["apps"][0]["data_path"][0]["delay_s"]),
    "size": ("apps.ftp.size", lambda d: d["apps"][0]["app"]["size"]),
    "probability": ("links.wan.ab.error.p", lambda d: d["apps"][0]["data_path"][0]["error"]["p"]),
}
UNITS = {"rate": list(_RATE), "duration": list(_DURATION), "size": list(_SIZE),
         "probability": ["", "%"]}  # fmt: skip
numbers = st.one_of(
    st.integers(0, 10**16).map(str),
    st.floats(0, 1e16, allow_nan=False).map(repr),
    st.floats(0, 100, allow_nan=False).map(lambda x: f"{x:.6g}"),
    st.sampled_from(["1_000", ".5", "5.", "1e3", "1E-3", "+2", "-1", "0", "1e-320"]),
)


def _core(kind: str, value: Any) -> Any:
    """What the core reads `value` as, or None when it refuses it."""
    path, where = FIELDS[kind]
    try:
        return where(BASE.with_overrides({path: value}).describe())
    except tcplab.errors.ScenarioError:
        return None


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    kind=st.sampled_from(sorted(FIELDS)),
    number=numbers,
    unit=st.data(),
    space=st.booleans(),
)
def test_a_quantity_is_read_as_the_core_reads_it(
    kind: str, number: str, unit: Any, space: bool
) -> None:
    u = unit.draw(st.sampled_from(UNITS[kind]))
    text = f"{number}{' ' if space and u else ''}{u}"
    got = canonical(kind, text)
    core = _core(kind, text)
    if core is None:
        assert got is None, (text, got)
        return
    assert got is not None, (text, core)
    spelled, si = got
    assert si == core, (text, si, core)
    assert _core(kind, spelled) == core, (text, spelled)


def test_numbers_and_percent_are_one_probability():
    assert canonical("probability", "1%") == canonical("probability", 0.01) == ("0.01", 0.01)
    assert canonical("probability", 0) == ("0.0", 0.0)
    assert canonical("rate", "10Mbps") == canonical("rate", "10000kbps") == ("10000000bps", 10**7)


def test_rates_and_delays_sort_by_their_number(tmp_path: Path) -> None:
    st_ = tmp_path / "st"
    sw = Sweep(EXAMPLE, grid={"links.wan.rate": "10Mbps,1Mbps,5Mbps",
                              "links.wan.delay": ["100ms", "20ms", "5ms"]}, seeds=1)  # fmt: skip
    sw.run(store=st_)
    df = Store(st_).df()
    assert {"links.wan.rate.si", "links.wan.delay.si"} <= set(df.columns)
    assert Store(st_).grid_units == {"links.wan.rate": "bit/s", "links.wan.delay": "s"}
    r = subprocess.run([TCPLAB, "results", str(st_), "--csv"], capture_output=True, text=True)
    summ = pd.read_csv(pd.io.common.StringIO(r.stdout))
    assert list(summ["links.wan.rate"].drop_duplicates()) == ["1Mbps", "5Mbps", "10Mbps"]
    first = summ[summ["links.wan.rate"] == "1Mbps"]["links.wan.delay"]
    assert list(first) == ["5ms", "20ms", "100ms"]
    assert list(summ["links.wan.rate.si"].drop_duplicates()) == [1e6, 5e6, 1e7]
    # another spelling of the same points is the same runs: nothing computed
    again = Sweep(
        EXAMPLE,
        seeds=1,
        grid={
            "links.wan.rate": "10000kbps,1000000bps,5Mbps",
            "links.wan.delay": ["0.1s", "20000us", "5ms"],
        },
    )
    assert again.run(store=st_).computed == 0


def test_a_plot_over_rates_draws_them_in_numeric_order(tmp_path: Path) -> None:
    from tcplab.sweep.summary import plot_store

    st_ = tmp_path / "st"
    Sweep(EXAMPLE, grid={"links.wan.rate": "10Mbps,1Mbps,5Mbps"}, seeds=2,
          ).run(store=st_)  # fmt: skip
    import matplotlib.figure

    drawn: list[Any] = []
    orig = matplotlib.figure.Figure.savefig

    def keep(self: Any, *a: Any, **k: Any) -> Any:
        drawn.append(self)
        return orig(self, *a, **k)

    matplotlib.figure.Figure.savefig = keep  # type: ignore[method-assign]
    try:
        plot_store(Store(st_), x="links.wan.rate", y="apps.ftp.response_time_s",
                   out=tmp_path / "p.png")  # fmt: skip
    finally:
        matplotlib.figure.Figure.savefig = orig  # type: ignore[method-assign]
    # In numeric order, drawn in the readable unit the axis names (1, 5, 10 Mbit/s).
    ax = drawn[0].axes[0]
    assert list(ax.lines[0].get_xdata()) == [1.0, 5.0, 10.0]
    assert "Mbit/s" in ax.get_xlabel(), ax.get_xlabel()


def test_a_table_valued_axis_can_be_summarised_and_drawn(tmp_path: Path) -> None:
    st_ = tmp_path / "st"
    grid = ["--grid", 'links.wan.ab.error={model="per",p=0.01},{model="ber",ber=1e-6}',
            "--grid", "tcp.congestion_control=reno,cubic"]  # fmt: skip
    cmd = [TCPLAB, "sweep", str(EXAMPLE), *grid, "--seeds", "1..2", "--set",
           "apps.ftp.size=200kB", "--store", str(st_)]  # fmt: skip
    r = subprocess.run(cmd, capture_output=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([TCPLAB, "results", str(st_), "--csv"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    summ = pd.read_csv(pd.io.common.StringIO(r.stdout))
    assert len(summ) == 4 and list(summ["n"]) == [2, 2, 2, 2]
    assert set(summ["links.wan.ab.error"]) == {
        '{"ber":1e-06,"model":"ber"}', '{"model":"per","p":0.01}'}  # fmt: skip
    cmd = [TCPLAB, "plot", str(st_), "--x", "links.wan.ab.error", "--y",
           "apps.ftp.response_time_s", "--hue", "tcp.congestion_control",
           "--out", str(tmp_path / "t.png")]  # fmt: skip
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "t.svg").read_text().rstrip().endswith("</svg>")


# The store writes a part at the latest every `flush_rows` rows: 20 points x 2 flush_rows / 20
# seeds are written in two parts at least, so that a kill just after the first part leaves a
# partly written store however fast the machine runs (in one second, a fast machine runs 4,000).
FLUSH_ROWS = inspect.signature(run_tasks).parameters["flush_rows"].default
KEEP = ["--grid", "links.wan.ab.error.p=0..0.05:10", "--grid", "tcp.congestion_control=reno,cubic",
        "--seeds", f"1..{2 * FLUSH_ROWS // 20}", "--set", "apps.ftp.size=300kB",
        "--keep", "trace,queues"]  # fmt: skip


def _keep_cmd(store: Path) -> list[str]:
    return [TCPLAB, "sweep", str(EXAMPLE), *KEEP, "--store", str(store), "--json"]


def _tables(store: Path) -> dict[str, pd.DataFrame]:
    st_ = Store(store)
    out = {}
    for t in ("runs", "trace", "queues"):
        df = st_.sql(f"SELECT * FROM {t}")
        keys = ["run_id"] + [c for c in ("time_s", "conn", "end", "link") if c in df.columns]
        out[t] = df[sorted(df.columns)].sort_values(keys, kind="stable").reset_index(drop=True)
    return out


def test_kept_tables_are_queryable_with_the_runs_and_plotted(tmp_path: Path) -> None:
    st_ = tmp_path / "st"
    sweep = [TCPLAB, "sweep", str(EXAMPLE), "--grid", "links.wan.ab.error.p=0,0.01", "--seeds",
           "1..2", "--set", "apps.ftp.size=200kB", "--keep", "trace,link_series,app_series,queues",
           "--store", str(st_)]  # fmt: skip
    assert subprocess.run(sweep, capture_output=True).returncode == 0
    s = Store(st_)
    assert s.keep == ["trace", "link_series", "app_series", "queues"]
    joined = s.sql(
        'SELECT r."links.wan.ab.error.p" AS p, r.seed, max(t.cwnd) AS top FROM runs r '
        "JOIN trace t USING (run_id) GROUP BY ALL ORDER BY p, seed"
    )
    assert len(joined) == 4 and (joined["top"] > 0).all()
    one = tcplab.run(
        tcplab.Scenario.from_toml(EXAMPLE).with_overrides(
            {"apps.ftp.size": "200kB", "links.wan.ab.error.p": 0.01, "output.trace": True}
        ),
        seed=2,
    )
    mine = s.sql(
        "SELECT t.* EXCLUDE (run_id) FROM trace t JOIN runs r USING (run_id) WHERE r.seed = 2 "
        'AND r."links.wan.ab.error.p" = 0.01 ORDER BY time_s, conn, "end"'
    )
    want = one.traces["trace"].sort_values(["time_s", "conn", "end"], kind="stable")
    assert mine["cwnd"].tolist() == want["cwnd"].tolist()
    for table in ("link_series", "app_series", "queues"):
        assert len(s.sql(f"SELECT * FROM {table}")) > 0, table
    cmd = [TCPLAB, "plot", str(st_), "--series", "cwnd", "--where", "seed = 1",
           "--hue", "links.wan.ab.error.p"]  # fmt: skip
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (st_ / "plots" / "series-cwnd.svg").read_text().rstrip().endswith("</svg>")
    r = subprocess.run([TCPLAB, "plot", str(st_), "--series", "nope"], capture_output=True,
                       text=True)  # fmt: skip
    assert r.returncode == 2 and "no kept table has this column" in r.stderr
    # a store keeps the same tables for every run
    cmd2 = [*sweep[:-4], "--keep", "trace", "--store", str(st_)]
    r = subprocess.run(cmd2, capture_output=True, text=True)
    assert r.returncode == 2 and "keeps the per-run tables" in r.stderr


@pytest.mark.slow
@pytest.mark.serial  # killed at moments scaled to a sweep timed first
def test_a_killed_sweep_with_kept_tables_resumes_with_nothing_lost_or_twice(
    tmp_path: Path,
) -> None:
    ref = tmp_path / "ref"
    t0 = time.perf_counter()
    subprocess.run(_keep_cmd(ref), check=True, capture_output=True)
    full = time.perf_counter() - t0
    want = _tables(ref)
    rng = random.Random(32)
    assert len(want["runs"]) == 2 * FLUSH_ROWS
    partial = trials = 0
    # Four kills: two at a random time, two just after the first part (of two or more).
    for trial in range(4):
        trials += 1
        st_ = tmp_path / f"t{trial}"
        proc = subprocess.Popen(_keep_cmd(st_), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)  # fmt: skip
        if trial % 4 < 2:
            time.sleep(rng.uniform(0.3, 0.9) * full)
        else:  # just after the first part reached the store: a partly written store
            deadline = time.perf_counter() + 5 * full + 5
            while not list((st_ / "parts").glob("part-*.parquet")) and proc.poll() is None:
                if time.perf_counter() > deadline:
                    break
                time.sleep(0.002)
            time.sleep(rng.uniform(0.0, 0.05))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        before = len(Store(st_).check().ids) if (st_ / "store.json").exists() else 0
        partial += 0 < before < len(want["runs"])
        done = subprocess.run(_keep_cmd(st_), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["computed"] == len(want["runs"]) - before
        got = _tables(st_)
        for t in want:
            pd.testing.assert_frame_equal(got[t], want[t], check_exact=True, obj=t)
        n, d = Store(st_).sql("SELECT count(*), count(DISTINCT run_id) FROM runs").iloc[0]
        assert n == d == len(want["runs"])
    assert partial >= 2, "the kills just after the first part left no partly written store"
    print(f"{trials} kills of a --keep sweep: {partial} left a partial store; all resumed exactly")


def test_a_probability_axis_of_numbers_and_percent_has_its_numbers_beside() -> None:
    sw = Sweep(EXAMPLE, grid={"links.wan.ab.error.p": [0, "1%"]}, seeds=1)
    assert sw.grid_units == {"links.wan.ab.error.p": ""}
    tasks = sw.tasks()
    assert [t.labels["links.wan.ab.error.p"] for t in tasks] == [0, "1%"]
    assert [t.labels["links.wan.ab.error.p.si"] for t in tasks] == [0.0, 0.01]
    with pytest.raises(tcplab.errors.InvalidValueError, match="given twice"):
        Sweep(EXAMPLE, grid={"links.wan.ab.error.p": [0.01, "1%"]})


def test_the_quantity_tables_are_the_schemas() -> None:
    """quantity.py writes out which fields are quantities (a sweep does not load the whole
    schema): the core's schema says the same."""
    from tcplab.sweep.quantity import DISTRIBUTION_FIELDS, QUANTITY_FIELDS, schema_tables

    assert schema_tables() == (QUANTITY_FIELDS, DISTRIBUTION_FIELDS)
