"""Shared fixtures: a tiny noisy scenario written inline, and the project's example file."""

from __future__ import annotations

import gc
import os
import signal
import sys
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pytest

# A shell that starts a job in the background without job control (`cmd &` in a script, nohup)
# starts it with SIGINT ignored, and an ignored signal stays ignored in every process it
# starts: the tests of Ctrl-C would see runs that cannot be interrupted. A handler, unlike an
# ignored signal, goes back to the default at exec, so the processes the tests start get
# SIGINT as a terminal would send it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

if TYPE_CHECKING:
    from tcplab import Result


@pytest.hookimpl(tryfirst=True)  # before `-m` selects on the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A testbed test is a `serial` test: it runs real TCP in network namespaces, and a run whose
    CPUs were busy is left out of its means as drifted; `tcplab testbed cleanup` removes what
    other runs left. make test-py runs the serial tests alone, after the others."""
    for item in items:
        if item.get_closest_marker("testbed"):
            item.add_marker(pytest.mark.serial)


ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "sarkar2022.toml"


def chain_toml(*, rate: str, wan_delay: str, error_dir: str, error: str) -> str:
    """The [[nodes]] and [[links]] of the client - router - server chain: a LAN hop (client -
    router, 0 ms) and a WAN hop (router - server, `wan_delay`), both at `rate` with Ethernet
    framing, and the error model `error` on the WAN's `error_dir` direction ("ab" or "ba")."""
    return f"""\
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
rate = "{rate}"
delay = "0ms"
framing = "ethernet"

[[links]]
name = "wan"
a = "router"
b = "server"
rate = "{rate}"
delay = "{wan_delay}"
framing = "ethernet"

[links.{error_dir}]
error = {error}
"""


# A small FTP download over a noisy WAN link: fast to simulate, but with losses, so fast
# retransmits and timeouts happen and seeds matter.
TINY_TOML = f"""\
[run]
seed = 1
stop_time = "300s"

[tcp]
profile = "riverbed"
mss = 1460

{chain_toml(rate="10Mbps", wan_delay="20ms", error_dir="ba", error='{ model = "per", p = 0.02 }')}
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


def cli_in_process(
    args: list[str], capsys: pytest.CaptureFixture[str], cwd: Path | None = None
) -> tuple[Any, str, str]:
    """`tcplab ARGS` run in this process as the console script runs it (tcplab.cli.main), in
    `cwd` if given: its exit status (or ``traceback: ...`` when an exception escaped main),
    stdout and stderr. For tests that run many commands, where a process each is too slow."""
    from tcplab.cli import main

    old_argv, old_cwd = sys.argv, os.getcwd()
    sys.argv = ["tcplab", *args]
    if cwd is not None:
        os.chdir(cwd)
    code: Any = 0
    try:
        main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    except BaseException as e:  # noqa: BLE001 - what the tests are about
        code = f"traceback: {type(e).__name__}: {e}"
    finally:
        sys.argv = old_argv
        gc.unfreeze()  # main() freezes what a one-command process keeps: not here
        os.chdir(old_cwd)
    out, err = capsys.readouterr()
    return code, out, err
