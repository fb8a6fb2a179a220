"""[[profiles]]: a group of hosts each running a set of applications, from a start drawn per host,
repeated with new connections; expanded into [[apps]] deterministically from the seed."""

from __future__ import annotations

from typing import Any

import pytest
import tcplab
from tcplab.errors import InvalidValueError, MissingFieldError

USERS = [f"u{i}" for i in range(4)]
BASE: dict[str, Any] = {
    "run": {"stop_time": "600s"},
    "tcp": {"profile": "rfc"},
    "nodes": [{"name": u} for u in USERS] + [{"name": "sw", "kind": "switch"}, {"name": "srv"}],
    "links": [{"name": u, "a": u, "b": "sw", "rate": "100Mbps", "delay": "1ms"} for u in USERS]
    + [{"name": "up", "a": "srv", "b": "sw", "rate": "100Mbps", "delay": "5ms"}],
}
PROFILE = {
    "name": "eng",
    "hosts": USERS,
    "server": "srv",
    "start": {"dist": "uniform", "min": "0s", "max": "60s"},
    "repetitions": 3,
    "inter_repetition": "100s",
    "apps": [
        {"name": "get", "kind": "ftp", "size": "200kB"},
        {"name": "q", "kind": "database", "count": 2, "start": "5s"},
    ],
}


def _sc(profile: dict[str, Any] | None = None, **run: Any) -> tcplab.Scenario:
    return tcplab.Scenario.from_dict(
        {**BASE, "run": {**BASE["run"], **run}, "profiles": [profile or PROFILE]}
    )


def _apps(res: tcplab.Result) -> dict[str, dict[str, Any]]:
    return {a["name"]: a for a in res.summary["apps"]}


def test_a_profile_becomes_one_application_per_host_repetition_and_app():
    res = tcplab.run(_sc())
    apps = _apps(res)
    assert len(apps) == 4 * 3 * 2
    assert set(apps) == {f"eng:{a}:{u}:{r}" for a in ("get", "q") for u in USERS for r in (1, 2, 3)}
    for u in USERS:
        first = apps[f"eng:get:{u}:1"]["start_s"]
        assert 0.0 <= first <= 60.0
        # Repetitions every 100 s, each with its own connection that completes.
        for r in (2, 3):
            assert apps[f"eng:get:{u}:{r}"]["start_s"] == pytest.approx(first + 100 * (r - 1))
        # The application's own start is added to the host's.
        assert apps[f"eng:q:{u}:1"]["start_s"] == pytest.approx(first + 5.0)
    assert all(a["completed"] for a in apps.values())
    assert len(res.summary["connections"]) == 24
    # Hosts draw different offsets.
    assert len({apps[f"eng:get:{u}:1"]["start_s"] for u in USERS}) == 4


def test_the_expansion_follows_the_seed_wherever_it_is_set():
    def starts(res: tcplab.Result) -> list[float]:
        return [a["start_s"] for a in res.summary["apps"]]

    a = tcplab.run(_sc(seed=7))
    assert starts(tcplab.run(_sc(seed=7))) == starts(a)
    # The seed given to run() is the one the profile draws with, as if written in [run].
    assert starts(tcplab.run(_sc(seed=1), seed=7)) == starts(a)
    assert starts(tcplab.run(_sc(seed=8))) != starts(a)


def test_random_repetition_gaps_are_drawn_per_host():
    prof = {**PROFILE, "inter_repetition": {"dist": "exponential", "mean": "50s"}}
    apps = _apps(tcplab.run(_sc(prof)))
    gaps = [apps[f"eng:get:{u}:2"]["start_s"] - apps[f"eng:get:{u}:1"]["start_s"] for u in USERS]
    assert all(g >= 0 for g in gaps) and len(set(gaps)) == 4


@pytest.mark.parametrize(
    ("change", "err", "field", "fragment"),
    [
        ({"inter_repetition": None}, MissingFieldError, "profiles[0].inter_repetition",
         "between the starts"),
        ({"hosts": []}, InvalidValueError, "profiles[0].hosts", "non-empty"),
        ({"hosts": ["nobody"]}, InvalidValueError, "profiles[0].apps[0].client", "a node"),
        ({"server": None}, MissingFieldError, "profiles[0].apps[0].server", "in the profile"),
        ({"apps": [{"kind": "ftp", "size": "1kB", "client": "u0"}]}, InvalidValueError,
         "profiles[0].apps[0].client", "the profile's hosts"),
        ({"apps": [{"kind": "ftp"}]}, MissingFieldError, "profiles[0].apps[0].size", "file"),
        ({"repetitions": 0}, InvalidValueError, "profiles[0].repetitions", "from 1"),
    ],
)  # fmt: skip
def test_bad_profiles_are_refused_by_name(change, err, field, fragment):
    prof = {k: v for k, v in {**PROFILE, **change}.items() if v is not None}
    with pytest.raises(err) as e:
        _sc(prof)
    assert e.value.field == field
    assert fragment in str(e.value)


# -- a repeating ftp application (OPNET's inter-request time and command mix) -----------------

ONE_USER: dict[str, Any] = {
    "run": {"stop_time": "1000s"},
    "tcp": {"profile": "rfc"},
    "nodes": [{"name": "c"}, {"name": "s"}],
    "links": [{"name": "l", "a": "c", "b": "s", "rate": "10Mbps", "delay": "5ms"}],
}


def _ftp(**fields: Any) -> tcplab.Scenario:
    app = {"name": "f", "kind": "ftp", "client": "c", "server": "s", "size": "100kB", **fields}
    return tcplab.Scenario.from_dict({**ONE_USER, "apps": [app]})


def test_an_ftp_with_inter_request_repeats_until_the_stop_time():
    res = tcplab.run(_ftp(start="50s", inter_request="100s"))
    apps = _apps(res)
    # transfers at 50, 150, ..., 950 s: each its own connection, named f:1 .. f:10
    assert list(apps) == [f"f:{k}" for k in range(1, 11)]
    assert [a["start_s"] for a in apps.values()] == pytest.approx([50 + 100 * k for k in range(10)])
    assert all(a["kind"] == "ftp" and a["completed"] for a in apps.values())
    assert all(a["bytes_received"] == 100_000 for a in apps.values())
    assert len(res.summary["connections"]) == 10
    # with count, exactly that many, whatever the stop time
    assert len(tcplab.run(_ftp(inter_request="10s", count=3)).summary["apps"]) == 3


def test_the_command_mix_draws_gets_and_puts_from_the_apps_stream():
    sc = _ftp(inter_request={"dist": "exponential", "mean": "1s"}, count=2000, get_fraction=0.3)
    sc = sc.with_overrides({"run.stop_time": "5000s", "output.events": False})
    res = tcplab.run(sc)
    kinds = [a["kind"] for a in res.summary["apps"]]
    gets = kinds.count("ftp") / len(kinds)
    assert len(kinds) == 2000
    assert abs(gets - 0.3) < 3 * (0.3 * 0.7 / 2000) ** 0.5
    # a put is the client sending the file: on the link, a -> b carries it
    link = res.summary["links"][0]
    assert set(kinds) == {"ftp", "bulk"}
    assert link["ab"]["bytes_on_wire"] > 0.7 * 2000 * 100_000 * 0.9
    starts = [a["start_s"] for a in res.summary["apps"]]
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert sum(gaps) / len(gaps) == pytest.approx(1.0, abs=3 / len(gaps) ** 0.5)
    # the same seed, the same transfers; another seed, others
    again = tcplab.run(sc)
    assert [a["kind"] for a in again.summary["apps"]] == kinds
    other = tcplab.run(sc.with_seed(2))
    assert [a["kind"] for a in other.summary["apps"]] != kinds


@pytest.mark.parametrize(
    ("fields", "field", "error"),
    [
        ({"get_fraction": 1.5}, "apps.f.get_fraction", InvalidValueError),
        ({"inter_request": "10s", "count": 0}, "apps.f.count", InvalidValueError),
        ({"count": 3}, "apps.f.inter_request", MissingFieldError),
        ({"inter_request": {"dist": "normal", "mean": "1s"}}, "apps.f.inter_request.dist",
         InvalidValueError),
        ({"inter_request": "1us"}, "apps.f.inter_request", InvalidValueError),
    ],
)  # fmt: skip
def test_bad_repetition_fields_are_named(fields: dict[str, Any], field: str, error: type) -> None:
    with pytest.raises(error) as e:
        tcplab.run(_ftp(**fields))  # refused when the scenario is made
    assert e.value.field == field, str(e.value)


def test_http_presets_set_the_think_time() -> None:
    def pages(preset: str) -> list[dict[str, Any]]:
        app = {"name": "w", "kind": "http", "client": "c", "server": "s", "preset": preset,
               "count": 400}  # fmt: skip
        sc = tcplab.Scenario.from_dict(
            {**ONE_USER, "run": {"stop_time": "1000000s"}, "apps": [app]}
        )
        t = tcplab.run(sc).traces["transactions"]
        return list(zip(t["start_s"], t["end_s"], strict=True))

    for preset, mean in (("light", 720.0), ("heavy", 60.0)):
        p = pages(preset)
        thinks = [nxt[0] - cur[1] for cur, nxt in zip(p, p[1:], strict=False)]
        # exponential: the sample mean within 3 standard errors (sd = mean)
        assert abs(sum(thinks) / len(thinks) - mean) < 3 * mean / len(thinks) ** 0.5, preset
    with pytest.raises(InvalidValueError) as e:
        pages("medium")
    assert e.value.field == "apps.w.preset"
