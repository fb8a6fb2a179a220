"""The testbed: real Linux TCP between network namespaces, through tcplab-netem, the
impairment forwarder that applies the simulator's link model to real frames.

    from tcplab.testbed import TestbedConfig, run
    result = run(TestbedConfig(size_bytes=1_000_000, error_s2c={"model": "per", "p": 0.01}))

Needs Linux, root, iproute2, ethtool, procps and the forwarder binary
(`cargo build --release -p tcplab-netem`, or $TCPLAB_NETEM). Elsewhere `run` raises
TestbedUnavailable saying what is missing.
"""

from .config import PROFILES, TestbedConfig, forwarder_links, link_spec, stack_settings
from .errors import (
    TestbedConfigError,
    TestbedError,
    TestbedRunError,
    TestbedTimeout,
    TestbedUnavailable,
)
from .netns import Forwarder, Testbed, check_available, cleanup, list_namespaces, netem_binary
from .runner import run

__all__ = [
    "PROFILES",
    "Forwarder",
    "Testbed",
    "TestbedConfig",
    "TestbedConfigError",
    "TestbedError",
    "TestbedRunError",
    "TestbedTimeout",
    "TestbedUnavailable",
    "check_available",
    "cleanup",
    "forwarder_links",
    "link_spec",
    "list_namespaces",
    "netem_binary",
    "run",
    "stack_settings",
]
