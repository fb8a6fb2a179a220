"""`tcplab variants`: the congestion controls and loss recoveries the core registers, with
their descriptions, and the classic names with the pairs they resolve to."""

from __future__ import annotations

import json

import pytest
import tcplab
from tcplab import _core
from tcplab.cli import app
from typer.testing import CliRunner

runner = CliRunner()

# What seed 001's decomposition and issue 4 name; the registry may hold more, never less.
CCS = {"tahoe", "reno", "newreno", "westwood", "westwood+", "vegas", "veno", "cubic", "bbr"}
RECOVERIES = {"dupack", "newreno", "sack", "rack-tlp"}
# The classic pairs (scenario/tcp.rs `classic_variant`; SACK is ns-2's Sack1: NewReno + RFC 6675).
CLASSIC = {
    "tahoe": ("tahoe", "dupack"),
    "reno": ("reno", "dupack"),
    "newreno": ("newreno", "newreno"),
    "sack": ("newreno", "sack"),
}

BASE = """\
[run]
stop_time = "5s"

[[nodes]]
name = "a"
kind = "host"

[[nodes]]
name = "b"
kind = "host"

[[links]]
name = "l"
a = "a"
b = "b"
rate = "10Mbps"
delay = "5ms"

[[apps]]
name = "x"
kind = "ftp"
client = "a"
server = "b"
size = "20kB"
"""


@pytest.fixture(scope="module")
def registry() -> dict:
    return json.loads(_core.variants())


def test_json_lists_every_registered_name(registry: dict) -> None:
    res = runner.invoke(app, ["variants", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out == registry
    ccs = {c["name"] for c in out["congestion_controls"]}
    lrs = {r["name"] for r in out["loss_recoveries"]}
    assert CCS <= ccs
    assert RECOVERIES <= lrs
    for item in out["congestion_controls"] + out["loss_recoveries"]:
        assert item["description"].strip(), item
    assert len(ccs) == len(out["congestion_controls"])  # no duplicates


def test_classic_names_and_their_pairs(registry: dict) -> None:
    pairs = {c["name"]: (c["congestion_control"], c["loss_recovery"]) for c in registry["classic"]}
    assert pairs == CLASSIC


def test_every_registered_name_is_accepted_by_a_scenario(registry: dict) -> None:
    base = tcplab.Scenario.from_toml(BASE)
    for c in registry["congestion_controls"]:
        sc = base.with_overrides({"tcp.congestion_control": c["name"]})
        assert sc.to_dict(normalized=True)["tcp"]["congestion_control"] == c["name"]
    for r in registry["loss_recoveries"]:
        sc = base.with_overrides({"tcp.loss_recovery": r["name"]})
        assert sc.to_dict(normalized=True)["tcp"]["loss_recovery"] == r["name"]


def test_classic_names_resolve_as_listed(registry: dict) -> None:
    base = tcplab.Scenario.from_toml(BASE)
    for c in registry["classic"]:
        res = tcplab.run(base.with_overrides({"tcp.variant": c["name"]}))
        conn = res.summary["connections"][0]
        assert (conn["congestion_control"], conn["loss_recovery"]) == (
            c["congestion_control"],
            c["loss_recovery"],
        ), c


def test_tables_name_everything(registry: dict) -> None:
    res = runner.invoke(app, ["variants"])
    assert res.exit_code == 0, res.output
    text = res.stdout
    for heading in ("[tcp] congestion_control", "[tcp] loss_recovery", "[tcp] variant"):
        assert heading in text
    for item in registry["congestion_controls"] + registry["loss_recoveries"]:
        assert item["name"] in text
    rows = [line for line in text.splitlines() if line.count("│") >= 3]
    cells = [[c.strip() for c in line.split("│")[1:4]] for line in rows]
    for name, (cc, lr) in CLASSIC.items():
        assert [name, cc, lr] in cells, name
