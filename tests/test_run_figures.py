"""Figures of one run (issue 17): the queue table they draw from, `tcplab run --plot`,
`tcplab plot RUN_DIR`, `Result.plot`, and the notebook views."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tcplab
from conftest import EXAMPLE
from tcplab import errors
from tcplab.report.runplots import draw_run

TCPLAB = [str(Path(sys.executable).parent / "tcplab")]

# A 100 Mbit/s access link into a 10 Mbit/s bottleneck with an 8-packet queue and a 1 MB
# window: slow start overruns the queue, so the table must reach the limit and drops happen.
OVERRUN = {
    "apps.ftp.size": "400kB",
    "links.wan.queue": "8p",
    "links.wan.ab.error.p": 0.0,
    "links.lan.rate": "100Mbps",
    "tcp.profile": "rfc",
    "tcp.rcv_buf": "1MB",
    "tcp.window_scaling": True,
}


@pytest.fixture(scope="module")
def overrun() -> tcplab.Result:
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides(
        {**OVERRUN, "output.queues": True, "output.packets": True}
    )
    return tcplab.run(sc)


def test_queue_table_agrees_with_the_link_counters(overrun: tcplab.Result) -> None:
    q = overrun.traces["queues"]
    assert list(q.columns) == ["time_s", "link", "packets", "bytes"]
    wan = overrun.summary["links"][0]
    assert wan["ab"]["frames_dropped_queue"] > 0  # the scenario does overrun the queue
    for link in overrun.summary["links"]:
        for direction in ("ab", "ba"):
            rows = q[q["link"] == f"{link['name']}:{direction}"]
            want = link[direction]["max_queue_packets"]
            assert (int(rows["packets"].max()) if len(rows) else 0) == want
            times = rows["time_s"].to_numpy()
            assert np.all(np.diff(times) > 0)  # one row per instant, in order
    data = q[q["link"] == "wan:ab"]
    assert int(data["packets"].max()) == 8  # the limit, never more
    assert int(data["packets"].iloc[-1]) == 0  # drained at the end
    # A queue of full-size frames only: 1538 wire bytes each.
    full = data[data["bytes"] == 1538 * data["packets"]]
    assert len(full) > 0.9 * len(data)


def test_queue_table_only_when_asked() -> None:
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides({"apps.ftp.size": "50kB"})
    assert "queues" not in tcplab.run(sc).traces
    with pytest.raises(errors.InvalidValueError, match="output.queues"):
        sc.with_overrides({"output.queues": "yes"})


def test_figures_mark_every_loss_and_retransmission(overrun: tcplab.Result) -> None:
    figs = draw_run(overrun)
    assert set(figs) == {"windows", "time_sequence", "queues"}
    packets = overrun.traces["packets"]
    sender = packets[(packets["event"] == "send") & (packets["len"] > 0)]
    retx = int((sender["tx_count"] > 1).sum())
    assert retx == overrun.summary["connections"][0]["server"]["retransmissions"]
    lost = packets[packets["event"].isin(["drop_error", "drop_queue"]) & (packets["len"] > 0)]
    ts = figs["time_sequence"].axes[0]
    legend = [t.get_text() for t in ts.get_legend().get_texts()]
    assert f"retransmission ({retx})" in legend
    assert "lost on a link" in legend
    marks = {line.get_label(): len(line.get_xdata()) for line in ts.get_lines()}
    assert marks["lost on a link"] == len(lost)  # a cross for each data segment lost
    assert marks[f"retransmission ({retx})"] == retx
    windows = [t.get_text() for t in figs["windows"].axes[0].get_legend().get_texts()]
    assert "lost on a link" in windows and f"retransmission ({retx})" in windows
    queues = [t.get_text() for t in figs["queues"].axes[0].get_legend().get_texts()]
    assert "wan:ab, at most 8" in queues


def _png_ok(path: Path) -> bool:
    return path.stat().st_size > 2000 and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_run_plot_and_plot_run_dir_write_the_figures(tmp_path: Path) -> None:
    def toml(v: object) -> str:
        return str(v).lower() if isinstance(v, bool) else str(v)

    sets = [x for k, v in OVERRUN.items() for x in ("--set", f"{k}={toml(v)}")]
    figs, out = tmp_path / "figs", tmp_path / "run"
    done = subprocess.run(
        [*TCPLAB, "run", str(EXAMPLE), *sets, "--plot", str(figs), "--out", str(out), "--json"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    names = ("windows", "time_sequence", "queues")
    for name in names:
        assert _png_ok(figs / f"{name}.png")
        assert (figs / f"{name}.svg").read_text().lstrip().startswith("<?xml")
    again = subprocess.run([*TCPLAB, "plot", str(out)], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    for name in names:
        assert _png_ok(out / "plots" / f"{name}.png")
        assert f"({name})" in again.stderr


def test_plot_refuses_what_it_cannot_draw(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    subprocess.run(
        [*TCPLAB, "run", str(EXAMPLE), "--set", "apps.ftp.size=20kB", "--set",
         "output.trace=false", "--out", str(bare), "--json"],
        check=True, capture_output=True,
    )  # fmt: skip
    no_tables = subprocess.run([*TCPLAB, "plot", str(bare)], capture_output=True, text=True)
    assert no_tables.returncode == 2
    assert no_tables.stderr.startswith("error: output.trace")
    store_option = subprocess.run(
        [*TCPLAB, "plot", str(bare), "--y", "x"], capture_output=True, text=True
    )
    assert store_option.returncode == 2
    assert "error: --y: not for a run directory" in store_option.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    neither = subprocess.run([*TCPLAB, "plot", str(empty)], capture_output=True, text=True)
    assert neither.returncode == 2
    assert "run directory" in neither.stderr and "store" in neither.stderr


def test_notebook_views() -> None:
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides({"apps.ftp.size": "100kB"})
    html = sc._repr_html_()
    for name in ("server", "cloud", "client", "wan", "lan", "ftp"):
        assert f"<td>{name}</td>" in html
    # The riverbed profile expanded: its 8760-byte receive buffer and 3 s initial RTO.
    assert "<td>rcv_buf</td><td>8760</td>" in html
    assert "<td>rto_initial_s</td><td>3</td>" in html
    assert '{"model": "per", "p": "1%"}' in html.replace("&quot;", '"')

    res = tcplab.run(sc)
    view = res._repr_html_()
    assert view.count("<table>") == 3
    assert '<img alt="windows" src="data:image/png;base64,' in view
    app = res.summary["apps"][0]
    assert f"<td>{app['response_time_s']:.6g}</td>" in view
    quiet = tcplab.run(sc.with_overrides({"output.trace": False}))._repr_html_()
    assert "<img" not in quiet


def test_the_link_figure_draws_the_link_series(overrun: tcplab.Result) -> None:
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides(
        {**OVERRUN, "output.link_series": "0.1s"}
    )
    res = tcplab.run(sc)
    figs = draw_run(res)
    assert "links" in figs and "queues" not in figs
    rate, delay, drops = figs["links"].axes
    ls = res.traces["link_series"]
    wan = ls[ls["link"] == "wan:ab"]
    lines = {ln.get_label(): ln for ln in rate.get_lines()}
    # The busiest directions first: the data direction of both links, not the idle ones.
    assert set(list(lines)[:2]) == {"wan:ab", "lan:ab"}
    np.testing.assert_allclose(lines["wan:ab"].get_ydata(), wan["bits_per_s"] / 1e6)
    # Queue drops (solid) of the bottleneck add up to its counter.
    solid = [ln for ln in drops.get_lines() if ln.get_linestyle() == "-"]
    total = sum(float(np.sum(ln.get_ydata())) for ln in solid)
    assert total == res.summary["links"][0]["ab"]["frames_dropped_queue"] > 0


def test_a_long_queue_is_drawn_per_interval_with_its_mean_and_largest() -> None:
    from tcplab.report.runplots import nice_interval, queue_per_interval

    # 0 until 0.5, 4 until 1.25, 2 until 3.0, then 0: intervals of 1 s up to 4 s.
    starts, mean, largest = queue_per_interval(
        np.array([0.5, 1.25, 3.0]), np.array([4.0, 2.0, 0.0]), 4.0, 1.0
    )
    assert starts.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert mean.tolist() == pytest.approx([2.0, 0.25 * 4 + 0.75 * 2, 2.0, 0.0])
    assert largest.tolist() == [4.0, 4.0, 2.0, 0.0]
    # Random steps against a fine sampling of the same step function.
    rng = np.random.default_rng(3)
    t = np.sort(rng.uniform(0, 10, 500))
    n = rng.integers(0, 20, 500).astype(float)
    starts, mean, largest = queue_per_interval(t, n, 10.0, 0.5)
    fine = np.arange(0, 10, 1e-4) + 5e-5
    vals = np.where(fine < t[0], 0.0, n[np.clip(np.searchsorted(t, fine, "right") - 1, 0, None)])
    for i, s0 in enumerate(starts):
        inside = vals[(fine >= s0) & (fine < s0 + 0.5)]
        assert mean[i] == pytest.approx(inside.mean(), abs=0.02)
        assert largest[i] == inside.max()
    assert nice_interval(81.2, 400) == 0.5 and nice_interval(3600, 400) == 10.0
