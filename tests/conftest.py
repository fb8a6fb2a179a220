"""Shared fixtures: a tiny noisy scenario written inline, and the project's example file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pytest

if TYPE_CHECKING:
    from tcplab import Result

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "sarkar2022.toml"

# A small FTP download over a noisy WAN link: fast to simulate, but with losses, so fast
# retransmits and timeouts happen and seeds matter.
TINY_TOML = """\
[run]
seed = 1
stop_time = "300s"

[tcp]
profile = "riverbed"
mss = 1460

[[nodes]]
name = "client"
kind = "host"

[[nodes]]
name = "router"
kind = "router"

[[nodes]]
name = "server"
kind = "host"

[[links]]
name = "lan"
a = "client"
b = "router"
rate = "10Mbps"
delay = "0ms"
framing = "ethernet"

[[links]]
name = "wan"
a = "router"
b = "server"
rate = "10Mbps"
delay = "20ms"
framing = "ethernet"

[links.ba]
error = { model = "per", p = 0.02 }

[[apps]]
name = "download"
kind = "ftp"
client = "client"
server = "server"
size = "300kB"
start = "0s"

[output]
trace = true
"""


@pytest.fixture
def tiny_toml() -> str:
    return TINY_TOML


@pytest.fixture
def tiny_dict() -> dict[str, Any]:
    return tomllib.loads(TINY_TOML)


@pytest.fixture
def tiny_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY_TOML)
    return path


@pytest.fixture
def example_file(tiny_file: Path) -> Path:
    """examples/sarkar2022.toml when it exists, else the tiny scenario."""
    return EXAMPLE if EXAMPLE.exists() else tiny_file


def assert_frames_identical(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Same columns, dtypes and values, compared as raw bytes for numeric columns."""
    assert list(a.columns) == list(b.columns)
    assert list(a.dtypes) == list(b.dtypes)
    for col in a.columns:
        x, y = a[col].to_numpy(), b[col].to_numpy()
        if x.dtype.kind in "fiu":
            assert x.tobytes() == y.tobytes(), col
        else:
            assert x.tolist() == y.tolist(), col
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def assert_results_identical(a: Result, b: Result) -> None:
    assert a.summary == b.summary
    assert a.traces.keys() == b.traces.keys()
    for name in a.traces:
        assert_frames_identical(a.traces[name], b.traces[name])
