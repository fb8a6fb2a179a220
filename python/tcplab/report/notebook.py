"""HTML views for notebooks: `Scenario._repr_html_` and `Result._repr_html_` call these with
themselves (what they read: a scenario's `to_dict` and `describe`, a result's `summary`,
`traces` and `warnings`).

A scenario shows its network as a diagram (`netdraw`: nodes, links with rate, delay, queue
and error model, applications), then its nodes, links (each direction's error model),
applications and the TCP settings each application's connection resolves to (the profile
expanded, as `describe` gives them). A result shows the same summary tables as `tcplab run`
and, when the run kept a trace, a small figure of each data sender's windows (inline PNG).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from .tables import cell, counter_tables

__all__ = ["scenario_html", "result_html"]

_STYLE = (
    "<style>.tcplab-view table{border-collapse:collapse;margin:0 0 .8em 0;font-size:12px}"
    ".tcplab-view th,.tcplab-view td{border:1px solid #ccc;padding:2px 6px;text-align:left}"
    ".tcplab-view th{background:#f3f3f3}.tcplab-view h4{margin:.6em 0 .3em 0}</style>"
)


def _text(v: Any) -> str:
    if isinstance(v, dict | list):
        return json.dumps(v, separators=(", ", ": "))
    return cell(v)


def _table(title: str, headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(_text(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<h4>{escape(title)}</h4><table><tr>{head}</tr>{body}</table>"


def _wrap(title: str, parts: Iterable[str]) -> str:
    return f'{_STYLE}<div class="tcplab-view"><b>{escape(title)}</b>{"".join(parts)}</div>'


def _drawing(d: Any) -> str:
    """The network diagram as inline SVG (vector: sharp at any zoom), scaled to the cell."""
    from .netdraw import draw_network
    from .plots import figure_svg_text

    svg = figure_svg_text(draw_network(d))
    return (
        '<h4>Network</h4><div class="tcplab-net" style="max-width:100%;overflow-x:auto">'
        f"{svg}</div>"
    )


def scenario_html(scenario: Any) -> str:
    """The HTML view of a `tcplab.Scenario`."""
    d = scenario.to_dict(normalized=True)
    run = d.get("run", {})
    parts = [
        _drawing(d),
        _table(
            "Nodes",
            ["name", "kind"],
            ([n.get("name"), n.get("kind", "host")] for n in d.get("nodes", [])),
        ),
    ]
    link_rows = []
    for link in d.get("links", []):
        for direction in ("ab", "ba"):
            over = link.get(direction) or {}
            a, b = (link.get("a"), link.get("b")) if direction == "ab" else (link["b"], link["a"])
            link_rows.append(
                [
                    link.get("name"),
                    f"{a} -> {b}",
                    over.get("rate", link.get("rate")),
                    over.get("delay", link.get("delay")),
                    over.get("queue", link.get("queue", "unlimited")),
                    over.get("framing", link.get("framing")),
                    over.get("error", link.get("error", {"model": "none"})),
                ]
            )
    parts.append(
        _table(
            "Links (each direction)",
            ["link", "direction", "rate", "delay", "queue", "framing", "error"],
            link_rows,
        )
    )
    app_keys = ("name", "kind", "client", "server", "size", "start")
    parts.append(
        _table(
            "Applications",
            [*app_keys, "other"],
            (
                [*(a.get(k) for k in app_keys), {k: v for k, v in a.items() if k not in app_keys}]
                for a in d.get("apps", [])
            ),
        )
    )
    try:
        described = scenario.describe()
    except Exception:  # noqa: BLE001 - a view must not fail; the settings table is left out
        described = {}
    for app in described.get("apps", []):
        tcp = app.get("tcp", {})
        parts.append(
            _table(
                f"TCP of {app.get('name')} (sender {app.get('sender')}), profile resolved",
                ["setting", "value"],
                sorted(tcp.items()),
            )
        )
    title = f"Scenario {run.get('name', '')} (seed {run.get('seed')}, stop {run.get('stop_time')})"
    return _wrap(title, parts)


def _summary_tables(result: Any) -> list[str]:
    s = result.summary
    parts = [
        _table(
            "Applications",
            ["app", "kind", "completed", "bytes", "received", "response time (s)", "bit/s"],
            (
                [
                    a.get("name"),
                    a.get("kind"),
                    "yes" if a.get("completed") else "no",
                    a.get("bytes"),
                    a.get("bytes_received"),
                    a.get("response_time_s"),
                    None if a.get("throughput_Bps") is None else 8 * a["throughput_Bps"],
                ]
                for a in s.get("apps", [])
            ),
        )
    ]
    parts += [_table(title, headers, rows) for title, headers, rows in counter_tables(s)]
    return parts


def result_html(result: Any) -> str:
    """The HTML view of a `tcplab.Result`."""
    s = result.summary
    parts = _summary_tables(result)
    if "trace" in result.traces and not result.traces["trace"].empty:
        from .plots import figure_png_bytes
        from .runplots import plot_windows

        fig = plot_windows(result)
        fig.set_size_inches(7.0, 2.4 * len(fig.axes))
        png = base64.b64encode(figure_png_bytes(fig, dpi=80)).decode("ascii")
        parts.append(f'<h4>Windows</h4><img alt="windows" src="data:image/png;base64,{png}"/>')
    warnings = "".join(f"<li>{escape(w)}</li>" for w in result.warnings)
    if warnings:
        parts.insert(0, f"<ul>{warnings}</ul>")
    title = (
        f"Result: tcplab {s.get('tcplab_version', '?')}, seed {s.get('seed')}, simulated "
        f"{_text(s.get('sim_time_s'))} s, {_text(s.get('events'))} events"
    )
    return _wrap(title, parts)
