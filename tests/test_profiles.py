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
