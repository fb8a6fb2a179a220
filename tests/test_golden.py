"""Golden summaries: speed work must not change a single result.

A fixed set of scenarios (every example, every congestion control x loss recovery x profile on a
lossy download, a shared bottleneck with queue drops and mixed applications, each error model,
300 applications starting in ties)
is run and a digest of each summary and trace table is compared with `golden_summaries.json`.
A change that moves any number, however little, fails here; a deliberate change of behaviour
regenerates the file with

    TCPLAB_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_golden.py

and says why in its commit.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
import tcplab

HERE = Path(__file__).parent
ROOT = HERE.parent
GOLDEN = HERE / "golden_summaries.json"

CCS = [
    "tahoe",
    "reno",
    "newreno",
    "westwood",
    "westwood+",
    "vegas",
    "veno",
    "cubic",
    "bbr",
    "aimd-delay",
]
LRS = ["dupack", "newreno", "sack", "rack-tlp"]
PROFILES = ["riverbed", "rfc", "linux", "ns2"]


def _shared_bottleneck(seed: int) -> dict[str, Any]:
    """Three senders and a CBR source through two routers and a 40-packet bottleneck."""
    hosts = ["s1", "s2", "s3", "d1", "d2", "d3"]
    nodes = [{"name": h, "kind": "host"} for h in hosts] + [
        {"name": "r1", "kind": "router"},
        {"name": "r2", "kind": "router"},
    ]
    links: list[dict[str, Any]] = [
        {"name": f"a{i}", "a": f"s{i}", "b": "r1", "rate": "100Mbps", "delay": f"{i}ms"}
        for i in (1, 2, 3)
    ]
    links.append(
        {
            "name": "core",
            "a": "r1",
            "b": "r2",
            "rate": "10Mbps",
            "delay": "15ms",
            "queue": "40p",
            "ab": {
                "error": {"model": "gilbert-elliott", "p_gb": 0.001, "p_bg": 0.1, "bad_per": 0.3}
            },
        }
    )
    links += [
        {"name": f"b{i}", "a": "r2", "b": f"d{i}", "rate": "100Mbps", "delay": "1ms"}
        for i in (1, 2, 3)
    ]
    apps = [
        {"name": "ftp", "kind": "ftp", "client": "d1", "server": "s1", "size": "2MB"},
        {
            "name": "bulk",
            "kind": "bulk",
            "client": "s2",
            "server": "d2",
            "size": "3MB",
            "start": "0.2s",
            "tcp": {"congestion_control": "cubic", "loss_recovery": "sack"},
        },
        {
            "name": "cbr",
            "kind": "cbr",
            "client": "s3",
            "server": "d3",
            "packet_size": "1000B",
            "interval": "5ms",
            "stop": "4s",
            "start": "0.5s",
        },
    ]
    return {
        "run": {"name": "shared", "seed": seed, "stop_time": "60s"},
        "tcp": {"profile": "rfc"},
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "output": {"trace": True, "events": True, "packets": True},
    }


def _many_starts() -> dict[str, Any]:
    """300 pairs whose applications start together, on the trace's sample times and in ties
    with one another: the starts' order against every other event (the queue's wheel on for
    most of the run) is what the simulator's chained starts must keep."""
    n = 300
    nodes = [{"name": "r1", "kind": "router"}, {"name": "r2", "kind": "router"}]
    links: list[dict[str, Any]] = [
        {"name": "core", "a": "r1", "b": "r2", "rate": "10Mbps", "delay": "5ms", "queue": "50p"}
    ]
    apps: list[dict[str, Any]] = []
    for i in range(n):
        nodes += [{"name": f"s{i}", "kind": "host"}, {"name": f"d{i}", "kind": "host"}]
        links += [
            {"name": f"a{i}", "a": f"s{i}", "b": "r1", "rate": "100Mbps", "delay": "1ms"},
            {"name": f"b{i}", "a": "r2", "b": f"d{i}", "rate": "100Mbps", "delay": "1ms"},
        ]
        start = ["0s", "10ms", f"{(i * 7) % 50}ms", "55ms"][i % 4]
        if i % 2:
            app = {"kind": "bulk", "size": "10kB"}
        else:
            app = {"kind": "cbr", "packet_size": "500B", "interval": "10ms", "stop": "0.2s"}
        apps.append(
            {"name": f"app{i}", "client": f"s{i}", "server": f"d{i}", "start": start, **app}
        )
    return {
        "run": {"name": "many-starts", "seed": 1, "stop_time": "2s"},
        "tcp": {"profile": "rfc"},
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "output": {"trace": True, "trace_interval": "10ms", "events": True},
    }


def cases() -> dict[str, tcplab.Scenario]:
    out: dict[str, tcplab.Scenario] = {}
    for path in sorted((ROOT / "examples").glob("*.toml")):
        base = tcplab.Scenario.from_toml(path)
        if path.stem == "bulk_1gb":
            base = base.with_overrides({"apps.download.size": "20MB"})
        for seed in (1, 2):
            out[f"{path.stem}/seed{seed}"] = base.with_seed(seed)
    sarkar = tcplab.Scenario.from_toml(ROOT / "examples" / "sarkar2022.toml").with_overrides(
        {"apps.ftp.size": "300kB", "links.wan.ab.error.p": 0.03, "output.events": True}
    )
    for profile in PROFILES:
        for cc in CCS:
            for lr in LRS:
                out[f"variants/{profile}/{cc}/{lr}"] = sarkar.with_overrides(
                    {"tcp.profile": profile, "tcp.congestion_control": cc, "tcp.loss_recovery": lr}
                )
    for name, err in {
        "ber": {"model": "ber", "ber": 2e-6},
        "gilbert": {"model": "gilbert-elliott", "p_gb": 0.01, "p_bg": 0.2, "bad_per": 0.5},
        "list": {"model": "list", "frames": [5, 9, 10, 40]},
    }.items():
        out[f"errors/{name}"] = sarkar.with_overrides(
            {"links.wan.ab.error": err, "links.wan.ba.error": err}
        )
    for seed in (1, 2, 3):
        out[f"shared/seed{seed}"] = tcplab.Scenario.from_dict(_shared_bottleneck(seed))
    out["many-starts"] = tcplab.Scenario.from_dict(_many_starts())
    return out


def digest(result: tcplab.Result) -> str:
    h = hashlib.sha256()
    summary = dict(result.summary)
    summary.pop("tcplab_version", None)
    h.update(json.dumps(summary, sort_keys=True).encode())
    for name in sorted(result.traces):
        df = result.traces[name]
        h.update(name.encode())
        h.update(df.to_csv(index=False, float_format="%.17g").encode())
    return h.hexdigest()


def test_every_summary_and_trace_is_bit_identical_to_the_golden_file() -> None:
    cs = cases()
    results = tcplab.run_many(list(cs.values()), jobs=2)
    got = {name: digest(r) for name, r in zip(cs, results, strict=True)}
    if os.environ.get("TCPLAB_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    want = json.loads(GOLDEN.read_text())
    assert sorted(got) == sorted(want), "the case list changed: regenerate the golden file"
    differ = [n for n in got if got[n] != want[n]]
    assert not differ, f"{len(differ)} of {len(got)} results changed, e.g. {differ[:5]}"


@pytest.mark.parametrize("jobs", [1, 2])
def test_digests_do_not_depend_on_the_thread_count(jobs: int) -> None:
    cs = dict(list(cases().items())[:12])
    a = [digest(r) for r in tcplab.run_many(list(cs.values()), jobs=jobs)]
    b = [digest(tcplab.run(s)) for s in cs.values()]
    assert a == b
