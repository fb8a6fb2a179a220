"""Every default `tcplab schema` documents is the one the parser applies (issue 31).

For each field whose documented default is a value (TOML: "100p", 0.125, { model = "none" }),
a scenario that omits the field and the same scenario with the field set to that value must
resolve alike (`Scenario.describe`, what `tcplab validate --json` prints) and run alike
(summary and tables). A `[tcp]` default is checked under every profile. A default the schema
describes in words ("profile", "until the stop time") must be one of those listed below, so
that a new one is a decision, not an accident. `tcplab schema --json` prints exactly
`tcplab.schema.fields()` (test_schema.py).
"""

from __future__ import annotations

import copy
import hashlib
import json
import tomllib
from typing import Any

import pytest
import tcplab
import tcplab.schema

PROFILES = ["riverbed", "rfc", "linux", "ns2"]

#: Defaults given in words, with what decides them instead of a value.
DESCRIBED = {
    "tcp": 'profile "rfc": a table whose fields each have their own default',
    "apps[].group": "the application's name, or its profile's or repeating ftp's",
    "apps[].port": "one port per application kind",
    "apps[].inter_request": "absent: one transfer",
    "apps[].count": "absent: until the stop time, or one transfer",
    "apps[].size": "bulk: absent is an unlimited stream",
    "apps[].stop": "absent: until the stop time",
    "apps[].on_time": "absent: always on",
    "apps[].off_time": "absent: always on",
    "nodes[].rules[].protocol": "absent: any",
    "nodes[].rules[].port": "absent: any",
    "nodes[].rules[].app": "absent: any",
    "profiles[].server": "absent: each application's own",
    "profiles[].inter_repetition": "required with repetitions > 1",
    "output.trace_interval": "absent: on every change",
    "output.link_series": "absent: none",
    "output.app_series": "absent: none",
}

#: Defaults that name the element they belong to: the pattern filled in for the base scenario.
PATTERNS = {"links[].name": '"a-r"', "apps[].name": '"app0"'}

#: What each application kind needs besides client and server.
APP_NEEDS = {
    "ftp": {"size": "20kB"},
    "bulk": {"size": "20kB"},
    "cbr": {"packet_size": 500, "interval": "100ms", "stop": "1s"},
    "database": {"stop": "5s"},
    "http": {"stop": "5s"},
    "udp": {"rate": "100kbps", "stop": "1s"},
}
ERROR_NEEDS = {
    "per": {"p": 0.05},
    "ber": {"ber": 1e-5},
    "gilbert-elliott": {"p_gb": 0.05, "p_bg": 0.3},
    "list": {},
}


def _base(profile: str) -> dict[str, Any]:
    """Two hosts through a router, one download; `profile` "" leaves tcp.profile out."""
    return {
        "run": {"stop_time": "20s"},
        "tcp": {"profile": profile} if profile else {},
        "nodes": [{"name": "a"}, {"name": "b"}, {"name": "r", "kind": "router"}],
        "links": [
            {"a": "a", "b": "r", "rate": "10Mbps"},
            {"a": "r", "b": "b", "rate": "10Mbps", "delay": "5ms"},
        ],
        "apps": [{"kind": "ftp", "client": "a", "server": "b", "size": "50kB"}],
    }


def _value(field: dict[str, Any]) -> Any:
    """The documented default as a value, or None when it is given in words."""
    text = PATTERNS.get(field["path"], field["default"])
    try:
        return tomllib.loads(f"x = {text}")["x"]
    except tomllib.TOMLDecodeError:
        return None


def _where(sc: dict[str, Any], field: dict[str, Any]) -> dict[str, Any]:
    """The table of `sc` the field belongs in, made ready for it (its variant's required
    fields set), for the fields a scenario places in one table."""
    section, when = field["section"], field["when"]
    variant = when.split("=", 1)[1] if when else ""
    link = sc["links"][0]
    if section == "":
        return sc
    if section in ("run", "tcp", "output"):
        return sc.setdefault(section, {})
    if section == "tcp.ns2":
        return sc["tcp"].setdefault("ns2", {})
    if section == "nodes[]":
        # kind on a host; a router's own fields on the router
        return sc["nodes"][0] if field["key"] == "kind" else sc["nodes"][2]
    if section in ("links[]", "direction"):
        return link
    if section == "aqm":
        link["aqm"] = {"kind": variant}
        return link["aqm"]
    if section == "error":
        link["ab"] = {"error": {"model": variant, **ERROR_NEEDS[variant]}}
        return link["ab"]["error"]
    if section == "error.segments[]":
        link["ab"] = {"error": {"model": "list", "segments": [{"seq": 1461}]}}
        return link["ab"]["error"]["segments"][0]
    if section == "apps[]":
        app = {"kind": variant or "ftp", "client": "a", "server": "b"}
        app.update(APP_NEEDS[variant or "ftp"])
        sc["apps"] = [app]
        return app
    if section == "profiles[]":
        sc["profiles"] = [{"name": "p", "hosts": ["a"], "server": "b",
                           "apps": [{"kind": "ftp", "size": "10kB"}]}]  # fmt: skip
        return sc["profiles"][0]
    raise AssertionError(f"no place for {field['path']} ({section})")


def _fingerprint(sc: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """What the scenario resolves to, and a digest of its run's summary and tables."""
    scenario = tcplab.Scenario.from_dict(sc)
    result = tcplab.run(scenario)
    summary = dict(result.summary)
    summary.pop("tcplab_version", None)
    h = hashlib.sha256(json.dumps(summary, sort_keys=True).encode())
    for name in sorted(result.traces):
        h.update(name.encode())
        h.update(result.traces[name].to_csv(index=False).encode())
    return scenario.describe(), h.hexdigest()


def _cases() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for f in tcplab.schema.fields():
        if not f["default"] or _value(f) is None:
            continue
        profiles = PROFILES if f["section"].startswith("tcp") else ["rfc"]
        if f["path"] == "tcp.profile":
            profiles = [""]
        for p in profiles:
            out.append((f"{f['path']}{'/' + f['when'] if f['when'] else ''}/{p}", p, f))
    return out


CASES = _cases()


def test_every_default_is_a_value_or_given_in_words_on_purpose() -> None:
    fields = tcplab.schema.fields()
    words = {f["path"] for f in fields if f["default"] and _value(f) is None}
    profile_set = {p for p in words if p.startswith("tcp.")}
    # a [tcp] field the schema leaves to the profile says so
    assert all(f["default"].startswith("profile") for f in fields if f["path"] in profile_set), (
        sorted(profile_set)
    )
    assert words - profile_set == set(DESCRIBED)
    assert len(CASES) > 80


@pytest.mark.parametrize(("name", "profile", "field"), CASES, ids=[c[0] for c in CASES])
def test_the_documented_default_is_what_the_parser_applies(
    name: str, profile: str, field: dict[str, Any]
) -> None:
    omitted = _base(profile)
    if field["path"] == "run.stop_time":
        omitted["run"].pop("stop_time")
    _where(omitted, field)
    given = copy.deepcopy(omitted)
    _where_given = _where(given, field)
    _where_given[field["key"]] = _value(field)
    a, b = _fingerprint(omitted), _fingerprint(given)
    assert a[0] == b[0], f"{field['path']} = {field['default']} resolves otherwise"
    assert a[1] == b[1], f"{field['path']} = {field['default']} runs otherwise"
