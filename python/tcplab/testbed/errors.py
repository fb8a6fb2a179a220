"""Exceptions of the testbed: a branch of the `tcplab.errors.TcplabError` tree."""

from __future__ import annotations

from tcplab.errors import TcplabError


class TestbedError(TcplabError):
    """Base class of every testbed failure."""

    __test__ = False  # not a pytest test class, despite the name
    kind = "testbed"


class TestbedUnavailable(TestbedError):
    """This machine cannot run the testbed (not Linux, not root, a tool or binary missing)."""


class TestbedConfigError(TestbedError, ValueError):
    """A TestbedConfig field has a value the testbed cannot use; the message names the field."""


class TestbedRunError(TestbedError):
    """A step of a run failed (a command, the forwarder or an endpoint)."""


class TestbedTimeout(TestbedRunError):
    """The run exceeded its time budget."""
