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
    assert mss["doc"] == "reference/scenario/tcp.html#mss"
    assert {r["path"] for r in rows} >= {"direction.rate", "direction.queue", "output.queues",
                                         "error.ber", "apps[].packet_size"}  # fmt: skip
    md = subprocess.run([TCPLAB, "schema", "--markdown"], capture_output=True, text=True)
    assert md.returncode == 0 and md.stdout.startswith("# Scenario reference")
    assert md.stdout.count("\n### `") == len(rows)  # one entry per field
    both = subprocess.run(
        [TCPLAB, "schema", "--json", "--markdown"], capture_output=True, text=True
    )
    assert both.returncode == 2 and both.stderr.startswith("error: --json and --markdown")
    tables = subprocess.run([TCPLAB, "schema"], capture_output=True, text=True, check=True)
    for section in tcplab.schema.SECTIONS:
        page = tcplab.schema.page(section).removesuffix(".md") + ".html"
        assert f"docs: {page}" in tables.stdout


def test_every_field_has_its_own_entry_on_its_sections_page() -> None:
    rows = tcplab.schema.fields()
    anchors: dict[str, set[str]] = {}
    for f in rows:
        page, _, anchor = f["doc"].partition("#")
        assert anchor not in anchors.setdefault(page, set()), f["path"]  # unique on its page
        anchors[page].add(anchor)
        text = tcplab.schema.section_markdown(f["section"], rows)
        entry = text.split(f"{{ #{anchor} }}", 1)[1].split("\n### ", 1)[0]
        assert f"**Type**: {f['type']}" in entry
        assert "**Default**" in entry and "**Allowed**" in entry
        if tcplab.schema.example_line(f):
            assert f"Example: `{tcplab.schema.example_line(f)}`" in entry
    assert len(anchors) == len({f["section"] for f in rows})  # a page a section


@pytest.mark.parametrize(
    ("path", "section", "found"),
    [
        ("tcp.mss", "tcp", ["tcp.mss"]),
        ("links.wan.rate", "direction", ["direction.rate"]),  # a direction's field on the link
        ("links.wan.ab.error.p", "error", ["error.p"]),
        ("links[].rate", "direction", ["direction.rate"]),
        ("apps.web.tcp.mss", "tcp", ["tcp.mss"]),  # an application's own tcp table
        ("apps.web.think_time.mean", "distribution", ["distribution.mean"] * 3),
        ("nodes.fw.rules.0.port", "nodes[].rules[]", ["nodes[].rules[].port"]),
        ("profiles.p.apps.0.size", "apps[]", ["apps[].size", "apps[].size"]),
        ("apps[].size", "apps[]", ["apps[].size", "apps[].size"]),  # ftp's and bulk's
    ],
)
def test_find_resolves_a_path_as_set_writes_it(path: str, section: str, found: list[str]) -> None:
    got_section, fields = tcplab.schema.find(path)
    assert got_section == section
    assert [f["path"] for f in fields] == found


def test_find_names_the_nearest_field_of_a_misspelt_path() -> None:
    with pytest.raises(errors.UnknownFieldError) as info:
        tcplab.schema.find("links.wan.rat")
    assert str(info.value).startswith("links.wan.rat: no field 'rat' in links[]")
    assert "(did you mean 'rate'?)" in str(info.value)
    assert "delay" in info.value.allowed  # the direction's fields, allowed on a link
    with pytest.raises(errors.UnknownFieldError, match=r"run.seed \(integer\) has no fields"):
        tcplab.schema.find("run.seed.x")


def test_schema_cli_prints_a_field_with_its_docs_page() -> None:
    res = subprocess.run([TCPLAB, "schema", "links.wan.rate"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0] == "links.wan.rate: direction.rate"
    assert "  docs      reference/scenario/direction.html#rate" in res.stdout
    assert "  example   rate = " in res.stdout
    bad = subprocess.run([TCPLAB, "schema", "tcp.mms"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("error: tcp.mms: no field 'mms' in tcp (did you mean 'mss'?)")
    assert len(bad.stderr.splitlines()) == 1
