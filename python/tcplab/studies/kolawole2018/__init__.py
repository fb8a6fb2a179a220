"""Kolawole and Chukwu, "Design and Modeling of Improved TCP Throughput" (seed 004).

An OPNET Modeler 17.5 campus: ten workstations on a switch over 100 Mbit/s links, Router_Main
and Router_HQ joined through a firewall, HTTP, database and FTP servers, users repeating their
activities for 30 minutes. Traditional AIMD is compared with a "congestion-controlled" AIMD that
suppresses queuing delay; the seed reports Table 1 (time-average throughput and packets
received at 150-1800 s, about 31 % more for the improved AIMD) and queuing delay of 0.11 vs
0.02 ms per packet (Fig. 8).

Decisions (ours, stated in the report's "choices" table): the campus is
`tcplab.topology.campus`; the users follow OPNET's Profile Configuration as `[[profiles]]`
starting at 100-110 s, with OPNET's heavy HTTP, database and FTP definitions; AIMD is `reno`
and the improved AIMD is `aimd-delay` (whose definition the report reviews against the seed's
text); the link of Table 1 is `fw_hq`, which every user's traffic crosses. A sensitivity grid
varies what the seed leaves open: the core's rate, the number of users and a bulk download.

The package: `paper` (Table 1, the text's figures, our choices, the scenario builder),
`study` (the grid and each run's metrics), `tables`, `claims` (the findings) and `figures`.
"""

from __future__ import annotations

from .paper import ALGORITHMS, CHOICES, MEASURED_LINK, PAPER, SENSITIVITY, TABLE1, build
from .study import Kolawole2018, link_metrics

__all__ = [
    "ALGORITHMS",
    "CHOICES",
    "MEASURED_LINK",
    "PAPER",
    "SENSITIVITY",
    "STUDY",
    "TABLE1",
    "Kolawole2018",
    "build",
    "link_metrics",
]

STUDY = Kolawole2018()
"""The study: the seed's campus with AIMD and with the congestion-controlled AIMD, a sensitivity
grid, Table 1 beside ours, the claims checked and Figs. 4-9 redrawn."""
