"""Every number a run's figure prints is the summary's (issue 32): each text of every figure
(titles, axis labels, legends, annotations) is read back, names taken out, and each count
compared with the summary field it stands for; a number the summary does not have fails."""

from __future__ import annotations

import re
from typing import Any

import matplotlib.text
import pytest
import tcplab
from conftest import EXAMPLE
from tcplab import topology
from tcplab.report.runplots import QUEUE_CHANGES_DRAWN, draw_run

# What a count in a legend stands for: the summary field of the panel's connection end.
_COUNTS = {"retransmission": "retransmissions", "timeout": "rto_expirations"}
_COUNTED = re.compile(r"^(retransmission|timeout) \((\d+)\)$")
_QUEUE = re.compile(r"^(?P<link>\S+:(ab|ba)), at most (?P<n>\d+)$")
_BINNED = re.compile(r"^per \d+(\.\d+)?(e-?\d+)? s: mean \(line\) and largest \(shaded\)$")
_PANEL = re.compile(r"^(?P<name>.+): (windows|time-sequence) of the data sender \((?P<end>\w+)\)$")


def _texts(fig: Any) -> list[tuple[Any, str]]:
    """(axes, text) of every text of the figure but the tick labels."""
    ticks = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in [*axis.majorTicks, *axis.minorTicks]:
                ticks.update((id(tick.label1), id(tick.label2)))
            ticks.add(id(axis.get_offset_text()))
    out = []
    for ax in [None, *fig.axes]:
        owner = fig if ax is None else ax
        for t in owner.findobj(matplotlib.text.Text):
            if id(t) in ticks or not t.get_text().strip():
                continue
            if ax is None and any(t in a.findobj(matplotlib.text.Text) for a in fig.axes):
                continue
            out.append((ax, t.get_text()))
    return out


def _names(summary: dict[str, Any]) -> list[str]:
    """Every name in the run (apps, connections, links with and without their direction),
    longest first, so that digits in names are not read as counts."""
    names = {str(a["name"]) for a in summary["apps"]}
    names |= {str(c["name"]) for c in summary["connections"]}
    for link in summary["links"]:
        names |= {str(link["name"]), f"{link['name']}:ab", f"{link['name']}:ba"}
    return sorted(names, key=len, reverse=True)


def check_figures(result: tcplab.Result) -> dict[str, int]:
    """Compare every figure's numbers with `result`'s summary; return how many counts were
    compared per figure (a test then knows the comparison happened)."""
    s = result.summary
    conns = {str(c["name"]): c for c in s["connections"]}
    links = {
        f"{link['name']}:{d}": link[d]["max_queue_packets"]
        for link in s["links"]
        for d in ("ab", "ba")
    }
    compared: dict[str, int] = {}
    for fig_name, fig in draw_run(result).items():
        compared[fig_name] = 0
        panels: dict[Any, tuple[str, str]] = {}
        for ax in fig.axes:
            m = _PANEL.match(ax.get_title(loc="left"))
            if m:
                panels[ax] = (m["name"], m["end"])
        for ax, text in _texts(fig):
            m = _COUNTED.match(text)
            if m:
                assert ax in panels, f"{fig_name}: {text!r} outside a connection's panel"
                name, end = panels[ax]
                want = conns[name][end][_COUNTS[m[1]]]
                assert int(m[2]) == want, f"{fig_name}, {name} {end}: {text!r}, summary {want}"
                compared[fig_name] += 1
                continue
            m = _QUEUE.match(text)
            if m:
                want = links[m["link"]]
                assert int(m["n"]) == want, f"{fig_name}: {text!r}, summary {want}"
                compared[fig_name] += 1
                continue
            if _BINNED.match(text):
                continue
            bare = text
            for name in _names(s):
                bare = bare.replace(name, "")
            assert not re.search(r"\d", bare), f"{fig_name}: {text!r} has a number not checked"
        if fig_name == "windows":  # and no count of the summary is missing from a panel
            for ax, (name, end) in panels.items():
                shown = {t.get_text() for t in ax.get_legend().texts}
                for label, field in _COUNTS.items():
                    n = conns[name][end][field]
                    assert n == 0 or f"{label} ({n})" in shown, (name, end, label, shown)
    return compared


@pytest.fixture(scope="module")
def noisy_long() -> tcplab.Result:
    """The example: 10 MB over a 1 % PER link, fast retransmits and timeouts, a queue that
    changes thousands of times (drawn per interval)."""
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides({"output.queues": True})
    return tcplab.run(sc)


def test_the_examples_figures_count_what_the_summary_counts(noisy_long: tcplab.Result) -> None:
    server = noisy_long.summary["connections"][0]["server"]
    assert server["fast_retransmits"] > 0 and server["rto_expirations"] > 0
    assert len(noisy_long.traces["queues"]) > QUEUE_CHANGES_DRAWN  # binned
    compared = check_figures(noisy_long)
    assert compared["windows"] == 2  # retransmissions and timeouts
    assert compared["time_sequence"] == 1
    assert compared["queues"] >= 1
    legend = [t.get_text() for t in draw_run(noisy_long)["windows"].axes[0].get_legend().texts]
    assert f"retransmission ({server['retransmissions']})" in legend


def test_packet_log_figures_count_what_the_summary_counts() -> None:
    sc = tcplab.Scenario.from_toml(EXAMPLE).with_overrides(
        {"apps.ftp.size": "300kB", "links.wan.ab.error.p": 0.03, "links.wan.queue": "6p",
         "links.lan.rate": "100Mbps", "tcp.profile": "rfc", "tcp.rcv_buf": "200kB",
         "output.queues": True, "output.packets": True}
    )  # fmt: skip
    res = tcplab.run(sc)
    assert res.summary["connections"][0]["server"]["retransmissions"] > 0
    compared = check_figures(res)
    assert compared["time_sequence"] == 1 and compared["windows"] >= 1


def test_many_connections_figures_count_what_the_summary_counts() -> None:
    sc = topology.dumbbell(3, size="300kB", bottleneck_rate="5Mbps", bottleneck_delay="10ms",
                           error={"model": "per", "p": 0.02})  # fmt: skip
    sc = sc.with_overrides(
        {"output.trace": True, "output.queues": True, "output.link_series": "100ms"}
    )
    res = tcplab.run(sc)
    compared = check_figures(res)
    assert compared["windows"] >= 3  # each flow's retransmissions at least
    assert set(compared) == {"windows", "time_sequence", "queues", "links"}


def test_per_page_connections_are_matched_by_their_names() -> None:
    d = tcplab.Scenario.from_toml(EXAMPLE).to_dict()
    d["apps"] = [{"name": "web1", "kind": "http", "client": "client", "server": "server",
                  "connection": "per_page", "count": 3, "think_time": "1s", "objects": 2,
                  "object_size": "30kB"}]  # fmt: skip
    sc = tcplab.Scenario.from_dict(d).with_overrides(
        {"links.wan.ab.error.p": 0.05, "output.trace": True}
    )
    res = tcplab.run(sc)
    names = [c["name"] for c in res.summary["connections"]]
    assert names == ["web1#0", "web1#1", "web1#2"]
    compared = check_figures(res)
    assert compared["windows"] >= 3
