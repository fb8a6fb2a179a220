"""Sarkar, Ammann, Zabir 2022: TCP Reno over a noisy 10 Mbit/s Ethernet path.

The paper (Electronics 11(14):2254, seed 000) downloads a 10,000,000-byte file over FTP through
an "IP cloud" with 20 ms latency each way, with Riverbed Modeler 16's default TCP (its Table 2),
for packet drop probabilities pdrop = 0, 0.01, 0.1, 1 and 10 % (Table 3), and checks Riverbed
against a Linux testbed (Table 8). This study runs the same five scenarios on our simulator
with the `riverbed` profile over several seeds, prints the paper's numbers next to ours (Tables
1, 3-9), recomputes the paper's analytic checks (sections 4.1-4.4, 5) with `tcplab.models`,
draws the paper's figures from our traces, and measures which TCP setting explains the two
environments' disagreement at 10 % (1953.61 s vs 259.66 s).

pdrop drops every packet crossing the IP cloud, data and ACKs (`DIRECTION`, from sections 2.3
and 4.4); the other reading, data packets only, runs beside it (group "direction").

Transcription notes (the paper's own inconsistencies, kept as printed; see `ERRATA`).
"""

from __future__ import annotations

from .._kit import pct
from .paper import (
    DIRECTION,
    DIRECTIONS,
    DROPRATE_PDROPS,
    ERRATA,
    FILE_SIZE,
    MAIN_COLUMNS,
    MSS,
    PDROPS,
    QUOTES,
    RIVERBED_OFFSET_S,
    TABLE1,
    TABLE3,
    TABLE4,
    TABLE5,
    TABLE6,
    TABLE7,
    TABLE8,
    TABLE9,
    TESTBED_COLUMN,
    TESTBED_MODES,
    TESTBED_WINDOW,
    TEXT,
    VARIANTS,
    Variant,
    error_override,
)
from .study import Sarkar2022

__all__ = [
    "PDROPS",
    "TABLE1",
    "TABLE3",
    "TABLE4",
    "TABLE5",
    "TABLE6",
    "TABLE7",
    "TABLE8",
    "TABLE9",
    "TEXT",
    "ERRATA",
    "VARIANTS",
    "MAIN_COLUMNS",
    "TESTBED_MODES",
    "TESTBED_WINDOW",
    "Sarkar2022",
    "STUDY",
    # also used by the tests and the testbed's tests
    "DIRECTION",
    "DIRECTIONS",
    "DROPRATE_PDROPS",
    "QUOTES",
    "FILE_SIZE",
    "MSS",
    "RIVERBED_OFFSET_S",
    "TESTBED_COLUMN",
    "Variant",
    "error_override",
    "pct",
]

STUDY = Sarkar2022()
