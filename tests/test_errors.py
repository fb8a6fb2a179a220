"""The exception tree: every exception tcplab defines is a `tcplab.errors.TcplabError`, and keeps
the builtin base its callers catch."""

from __future__ import annotations

import pytest
from tcplab import errors
from tcplab.compare import SweepError
from tcplab.conformance.ns2 import Ns2Unavailable
from tcplab.studies import UnknownStudyError
from tcplab.sweep import ClusterError, StoreError
from tcplab.testbed import errors as testbed_errors
from tcplab.testbed.plan import UnsupportedScenario


@pytest.mark.parametrize(
    ("cls", "builtin"),
    [
        (errors.ScenarioError, ValueError),
        (errors.InternalError, Exception),
        (StoreError, Exception),
        (ClusterError, Exception),
        (SweepError, ValueError),
        (UnknownStudyError, KeyError),
        (Ns2Unavailable, RuntimeError),
        (testbed_errors.TestbedError, Exception),
        (testbed_errors.TestbedUnavailable, testbed_errors.TestbedError),
        (testbed_errors.TestbedConfigError, ValueError),
        (testbed_errors.TestbedRunError, testbed_errors.TestbedError),
        (testbed_errors.TestbedTimeout, testbed_errors.TestbedRunError),
        (UnsupportedScenario, testbed_errors.TestbedConfigError),
    ],
)
def test_every_exception_is_a_tcplab_error(cls: type, builtin: type) -> None:
    assert issubclass(cls, errors.TcplabError)
    assert issubclass(cls, builtin)


def test_errors_raised_from_python_carry_the_trees_attributes() -> None:
    e = UnsupportedScenario("tcp.mss", "too large")
    assert (e.kind, e.field, e.value, e.allowed) == ("testbed", "tcp.mss", None, None)
    assert str(UnknownStudyError("unknown study 'x'")) == "unknown study 'x'"
    assert SweepError("--sweep 'x': bad", "--sweep").option == "--sweep"
