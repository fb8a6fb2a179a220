"""`tcplab schema` and the parser agree (issue 17): every section's allowed keys, as the parser
reports them for an unknown key, are the schema's keys for that section; the CLI prints them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tcplab
import tcplab.schema
from tcplab import errors

TCPLAB = str(Path(sys.executable).parent / "tcplab")


def _base() -> dict[str, Any]:
    return {
        "nodes": [{"name": "c"}, {"name": "s"}],
        "links": [{"name": "l", "a": "c", "b": "s", "rate": "10Mbps"}],
        "apps": [{"name": "x", "kind": "ftp", "client": "c", "server": "s", "size": "10kB"}],
    }


def _place(section: str, when: str, key: str = "zzz") -> dict[str, Any]:
    """A scenario with an unknown key in `section` (for the variant `when`)."""
    sc = _base()
    bad = {key: 1}
    if section == "":
        sc.update(bad)
    elif section in ("run", "tcp", "output"):
        sc[section] = bad
    elif section == "tcp.ns2":
        sc["tcp"] = {"ns2": bad}
    elif section == "nodes[]":
        sc["nodes"][0].update(bad)
    elif section == "nodes[].rules[]":
        sc["nodes"].append({"name": "fw", "kind": "router", "rules": [{"action": "drop", **bad}]})
    elif section == "links[]":
        sc["links"][0].update(bad)
    elif section == "direction":
        sc["links"][0]["ab"] = bad
    elif section == "error":
        model = when.split("=")[1] if when else "none"
        err = {"model": model, **bad}
        if model == "gilbert-elliott":
            err.update(p_gb=0.1, p_bg=0.1)
        sc["links"][0]["ab"] = {"error": err}
    elif section == "aqm":
        kind = when.split("=")[1] if when else "none"
        sc["links"][0]["ab"] = {"aqm": {"kind": kind, **bad}}
    elif section == "error.segments[]":
        sc["links"][0]["ab"] = {"error": {"model": "list", "segments": [{"seq": 1, **bad}]}}
    elif section == "profiles[]":
        sc["profiles"] = [{"name": "p", "hosts": ["c"], "server": "s",
                           "apps": [{"kind": "ftp", "size": "1kB"}], **bad}]  # fmt: skip
    elif section == "distribution":
        dist = when.split("=")[1] if when else "constant"
        need = {"constant": {"value": "1s"}, "exponential": {"mean": "1s"},
                "uniform": {"min": "1s", "max": "2s"}, "lognormal": {"mean": "1s", "sd": "1s"},
                "pareto": {"shape": 2, "scale": "1s"}}[dist]  # fmt: skip
        sc["apps"] = [{"name": "x", "kind": "database", "client": "c", "server": "s",
                       "interval": {"dist": dist, **need, **bad}}]  # fmt: skip
    elif section == "apps[]":
        kind = when.split("=")[1] if when else "ftp"
        extra = {"cbr": {"packet_size": 100, "interval": "1s"}, "udp": {"rate": "1Mbps"}}.get(
            kind, {}
        )
        app = {"name": "x", "kind": kind, "client": "c", "server": "s", **extra, **bad}
        if kind == "ftp":
            app["size"] = "1kB"
        sc["apps"] = [app]
    return sc


def _variants() -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    for f in tcplab.schema.fields():
        place = (f["section"], f["when"])
        if place not in seen:
            seen.append(place)
    return seen


@pytest.mark.parametrize(("section", "when"), _variants())
def test_the_parser_allows_exactly_the_schema_keys(section: str, when: str) -> None:
    fields = tcplab.schema.fields()
    want = {f["key"] for f in fields if f["section"] == section and f["when"] in ("", when)}
    key = "zzz"
    if section == "apps[]":
        # An application's keys are checked twice: against every kind's (so "zzz" is refused
        # with all of them listed), then against its own kind's: a key of another kind.
        everyone = {f["key"] for f in fields if f["section"] == section}
        if not when:
            want = everyone
        else:
            key = sorted(everyone - want)[0]
    with pytest.raises(errors.UnknownFieldError) as info:
        tcplab.Scenario.from_dict(_place(section, when, key))
    assert info.value.field.endswith(key)
    allowed = {k.strip() for k in info.value.allowed.split(",")}
    if section == "distribution" and not when:  # placed as a constant
        want |= {
            f["key"] for f in fields if f["section"] == section and f["when"] == "dist=constant"
        }
    if section == "links[]":  # the direction fields may be written on the link itself
        want |= {f["key"] for f in fields if f["section"] == "direction"}
    assert allowed == want


def test_schema_cli_json_markdown_and_tables() -> None:
    js = subprocess.run([TCPLAB, "schema", "--json"], capture_output=True, text=True, check=True)
    rows = json.loads(js.stdout)
    assert rows == tcplab.schema.fields()
    mss = next(r for r in rows if r["path"] == "tcp.mss")
    assert (mss["type"], mss["unit"], mss["default"]) == ("integer", "bytes", "profile")
    assert {r["path"] for r in rows} >= {"direction.rate", "direction.queue", "output.queues",
                                         "error.ber", "apps[].packet_size"}  # fmt: skip
    md = subprocess.run([TCPLAB, "schema", "--markdown"], capture_output=True, text=True)
    assert md.returncode == 0 and md.stdout.startswith("# Scenario reference")
    assert md.stdout.count("\n| `") == len(rows)  # one table row per field
    both = subprocess.run(
        [TCPLAB, "schema", "--json", "--markdown"], capture_output=True, text=True
    )
    assert both.returncode == 2 and both.stderr.startswith("error: --json and --markdown")
