"""A sweep's figure (issue 32): axes labelled with what they hold in readable units, the
options that change them, the band only where two seeds or more give one, and one clear
error line for each request it cannot draw."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import EXAMPLE
from matplotlib.collections import PolyCollection
from tcplab import errors
from tcplab.report.labels import axis, quantity
from tcplab.report.sweepfig import plot_means, seeds_note
from tcplab.sweep import Store

TCPLAB = [str(Path(sys.executable).parent / "tcplab")]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run([*TCPLAB, *args], capture_output=True, text=True, env=env)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    st = tmp_path_factory.mktemp("sweepfig") / "st"
    grid = ["--grid", "links.wan.ab.error.p=0,0.01", "--grid", "tcp.congestion_control=reno,cubic"]
    r = _cli("sweep", str(EXAMPLE), *grid, "--seeds", "1..3", "--set", "apps.ftp.size=300kB",
             "--store", str(st), "--json")  # fmt: skip
    assert r.returncode == 0, r.stderr
    return st


# -- labels and units ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "values", "text", "factor"),
    [
        ("apps.ftp.throughput_Bps", [1.2e5, 2.5e5], "ftp throughput (Mbit/s)", 8e-6),
        ("apps.ftp.throughput_Bps", [900.0], "ftp throughput (kbit/s)", 8e-3),
        ("apps.ftp.response_time_s", [12.0, 81.0], "ftp response time (s)", 1.0),
        ("apps.ftp.response_time_s", [0.05, 0.3], "ftp response time (ms)", 1e3),
        ("links.wan.ab.error.p", [0.0, 0.01], "wan:ab loss probability", 1.0),
        ("links.wan.ab.error.ber", [1e-7], "wan:ab bit error rate", 1.0),
        ("links.wan.rate", [1e6, 1e7], "wan rate (Mbit/s)", 1e-6),
        ("links.wan.delay", [0.005, 0.1], "wan delay (ms)", 1e3),
        ("tcp.mss", [536, 1460], "MSS (B)", 1.0),
        ("apps.ftp.size", [1e6, 1e7], "ftp size (MB)", 1e-6),
        ("tcp.congestion_control", None, "congestion control", 1.0),
        ("connections.ftp.server.retransmissions", [79], "ftp server retransmissions", 1.0),
        ("links.wan.ab.utilisation", [0.4], "wan:ab utilisation (%)", 100.0),
        ("links.wan.ab.max_queue_packets", [8], "wan:ab largest queue (packets)", 1.0),
        ("nodes.router.processing_delay", [5e-5], "router processing delay (µs)", 1e6),
        ("apps.web.think_time.mean", [30.0], "web think time mean (s)", 1.0),
    ],
)
def test_every_column_has_a_label_and_a_readable_unit(column, values, text, factor) -> None:
    got = axis(column, values)
    assert got.text == text
    assert got.factor == pytest.approx(factor)


def test_a_unit_asked_for_is_used_or_refused() -> None:
    assert axis("apps.ftp.throughput_Bps", [1e5], unit="kB/s").factor == pytest.approx(1e-3)
    assert axis("apps.ftp.response_time_s", [3.0], unit="ms").text == "ftp response time (ms)"
    with pytest.raises(errors.InvalidValueError, match=r"--unit: invalid value 'ms'.*a rate"):
        axis("apps.ftp.throughput_Bps", [1e5], unit="ms", field="--unit")
    with pytest.raises(errors.InvalidValueError, match="no unit"):
        axis("connections.ftp.server.retransmissions", [3], unit="s", field="--unit")


def test_a_scenario_field_takes_its_unit_from_the_schema() -> None:
    # The schema says the queue limit is "packets or bytes" (as written): no unit of its own.
    assert quantity("links.wan.queue").dimension == ""
    assert quantity("links.wan.ab.rate").dimension == "rate"
    assert quantity("run.stop_time").dimension == "time"
    assert quantity("apps.ftp.tcp.rcv_buf").dimension == "bytes"


# -- the figure ----------------------------------------------------------------------------


def _rows(seeds: int, *, x_values=(0.0, 0.01, 0.02)) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = []
    for cc in ("reno", "cubic"):
        for p in x_values:
            for seed in range(1, seeds + 1):
                thr = 2e5 * (1 - 10 * p) + rng.normal(0, 1e3)
                rows.append({"seed": seed, "links.wan.ab.error.p": p, "tcp.congestion_control": cc,
                             "apps.ftp.throughput_Bps": thr})  # fmt: skip
    return pd.DataFrame(rows)


def test_the_figure_is_labelled_and_drawn_in_its_units() -> None:
    df = _rows(3)
    fig = plot_means(df, x="links.wan.ab.error.p", y="apps.ftp.throughput_Bps",
                     hue="tcp.congestion_control")  # fmt: skip
    ax = fig.axes[0]
    assert ax.get_xlabel() == "wan:ab loss probability"
    assert ax.get_ylabel() == "ftp throughput (Mbit/s)"
    assert ax.get_title(loc="left") == "mean and 95 % CI over 3 seeds"
    assert ax.get_legend().get_title().get_text() == "congestion control"
    lines = {line.get_label(): line for line in ax.get_lines()}
    want = df[df["tcp.congestion_control"] == "reno"].groupby("links.wan.ab.error.p")
    want = want["apps.ftp.throughput_Bps"].mean().to_numpy() * 8e-6
    assert lines["reno"].get_ydata() == pytest.approx(want)
    assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 2  # two bands


def test_one_seed_has_no_band_and_says_so() -> None:
    fig = plot_means(_rows(1), x="links.wan.ab.error.p", y="apps.ftp.throughput_Bps",
                     hue="tcp.congestion_control")  # fmt: skip
    ax = fig.axes[0]
    assert ax.get_title(loc="left") == "1 seed: no confidence interval"
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert seeds_note([3, 3, 1]) == "mean and 95 % CI over 3 seeds; 1 seed (no band) at 1 point"
    assert seeds_note([2, 5]) == "mean and 95 % CI over 2 to 5 seeds"


def test_options_replace_labels_title_and_scales() -> None:
    rows = _rows(2, x_values=(1e-6, 1e-4, 1e-2))
    fig = plot_means(rows, x="links.wan.ab.error.p", y="apps.ftp.throughput_Bps",
                     hue="tcp.congestion_control", xlabel="PER", ylabel="goodput",
                     unit="kB/s", title="", logx=True, logy=True)  # fmt: skip
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("PER", "goodput (kB/s)")
    assert ax.get_title(loc="left") == "" and ax.get_xscale() == "log" == ax.get_yscale()
    assert max(ax.get_lines()[0].get_ydata()) == pytest.approx(200, rel=0.05)  # kB/s


def test_numbers_in_si_units_are_drawn_in_readable_ones() -> None:
    # A numeric rate axis in bit/s (as a store keeps a rate given as text, beside it).
    df = pd.DataFrame({"links.wan.rate": [5e5, 1e6, 5e6, 1e7] * 2, "seed": [1] * 4 + [2] * 4,
                       "apps.ftp.response_time_s": [8.0, 4.0, 1.0, 0.6] * 2})  # fmt: skip
    ax = plot_means(df, x="links.wan.rate", y="apps.ftp.response_time_s").axes[0]
    assert ax.get_xlabel() == "wan rate (Mbit/s)"
    assert list(ax.get_lines()[0].get_xdata()) == [0.5, 1.0, 5.0, 10.0]  # in numeric order


def test_text_values_are_categories_in_natural_order() -> None:
    df = pd.DataFrame({"links.wan.delay": ["100ms", "20ms", "5ms"], "seed": [1, 1, 1],
                       "apps.ftp.response_time_s": [3.0, 1.0, 0.5]})  # fmt: skip
    ax = plot_means(df, x="links.wan.delay", y="apps.ftp.response_time_s").axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["5ms", "20ms", "100ms"]
    assert ax.get_xlabel() == "wan delay"  # as written: no unit of its own


# -- the command ---------------------------------------------------------------------------


def test_plot_command_takes_the_options(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "f.pdf"
    r = _cli("plot", str(store), "--x", "links.wan.ab.error.p", "--y", "apps.ftp.throughput_Bps",
             "--hue", "tcp.congestion_control", "--unit", "kbit/s", "--xlabel", "PER",
             "--ylabel", "goodput", "--title", "Fig. 3", "--logy", "--out", str(out))  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:5] == b"%PDF-"
    svg = (tmp_path / "f.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and (tmp_path / "f.png").stat().st_size > 5000


@pytest.mark.parametrize(
    ("args", "first"),
    [
        (["--y", "apps.ftp.kind", "--hue", "tcp.congestion_control"],
         "error: --y: invalid value 'apps.ftp.kind': a text column ('ftp')"),
        (["--y", "apps.ftp.throughput", "--hue", "tcp.congestion_control"],
         "error: --y: invalid value 'apps.ftp.throughput': no such column (did you mean "
         "'apps.ftp.throughput_Bps'?)"),
        (["--y", "apps.ftp.throughput_Bps"],
         "error: --hue: missing: grid path tcp.congestion_control varies ('cubic', 'reno')"),
        (["--y", "apps.ftp.throughput_Bps", "--hue", "tcp.cc"],
         "error: --hue: invalid value 'tcp.cc': no such column; allowed: tcp.congestion_control"),
        (["--y", "apps.ftp.throughput_Bps", "--hue", "tcp.congestion_control", "--unit", "ms"],
         "error: --unit: invalid value 'ms': apps.ftp.throughput_Bps is a rate"),
    ],
)  # fmt: skip
def test_plot_command_errors_are_one_clear_line(store: Path, args: list[str], first: str) -> None:
    r = _cli("plot", str(store), "--x", "links.wan.ab.error.p", *args)
    assert r.returncode == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(first), r.stderr
    assert len(lines[0]) < 400  # a short list, not every column
    assert not (store / "plots").exists()  # no empty figure


def test_the_store_fixture_has_the_columns_the_errors_name(store: Path) -> None:
    df = Store(store).df()
    assert {"apps.ftp.kind", "apps.ftp.throughput_Bps", "tcp.congestion_control"} <= set(df)
