"""The seed's numbers (Table 1 and the figures its text gives), the choices it leaves open, and
the campus each case runs, built with `tcplab.topology.campus`.

Seed 004 names its tool (OPNET Modeler 17.5), its topology (Fig. 3: ten workstations on a switch
over 100BaseT, Router_Main and Router_HQ joined through a firewall, FTP, HTTP and database
servers), its applications (FTP, HTTP, database through OPNET's Application and Profile
Configurations) and its duration (30 minutes). It gives no traffic parameter, no queue size, no
TCP setting and no equation for its "congestion factor" A0(t). Every such value below is our
choice and is printed in the report.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ALGORITHMS",
    "CHOICES",
    "MEASURED_LINK",
    "PAPER",
    "SENSITIVITY",
    "TABLE1",
    "TABLE_TIMES",
    "ZOOM_WINDOWS",
    "build",
    "case_key",
]

# ----------------------------------------------------------------------------------------------
# The seed's numbers

#: Table 1: time (s) -> (AIMD throughput, improved throughput (packets/s), total packets sent,
#: packets received with the improved AIMD, its % of sent, packets received with AIMD, its % of
#: sent, difference in packets received, the difference as a % of the improved AIMD's).
TABLE1: dict[int, tuple[float, float, int, int, float, int, float, int, float]] = {
    150: (25.0, 30.1, 5_000, 4_515, 90.30, 3_750, 75.00, 765, 16.94),
    300: (34.0, 50.0, 16_800, 15_000, 89.30, 10_200, 60.71, 4_800, 32.00),
    600: (40.0, 59.3, 40_000, 35_580, 88.95, 24_000, 60.00, 11_580, 32.54),
    900: (41.0, 61.1, 62_000, 54_990, 88.69, 36_900, 59.52, 17_190, 31.26),
    1200: (41.0, 63.8, 85_000, 76_560, 90.07, 49_200, 57.88, 27_360, 35.74),
    1500: (40.9, 63.4, 105_000, 95_100, 90.57, 61_350, 58.42, 33_750, 35.49),
    1800: (41.2, 64.0, 127_000, 115_200, 90.71, 74_160, 58.39, 41_100, 35.68),
}
TABLE_TIMES: tuple[int, ...] = tuple(TABLE1)

#: The figures of the seed's text.
PAPER: dict[str, Any] = {
    # Fig. 8's text: "AIMD ... average a delay of 0.00011 sec/packet ... the improved algorithm
    # had an initial 0.0001 sec/packet delay which was further suppressed 0.00002 secs/packet"
    "queue_delay_aimd_s": 0.00011,
    "queue_delay_improved_initial_s": 0.0001,
    "queue_delay_improved_s": 0.00002,
    # under Table 1: "Average percentage improvement normal AIMD algorithm is 31.38%"
    "average_improvement_pct": 31.38,
    # Fig. 9's text: "within a 20minutes duration shows an estimated 20 packets more delivered"
    "fig9_more_packets": 20,
    "fig9_minutes": 20,
    "link_rate_bps": 100e6,  # "100T" links, and Table 1's "over a 100Mbps link"
    "users": 10,
    "duration_s": 1800,
}

# ----------------------------------------------------------------------------------------------
# What the seed leaves open, and our choices

#: The two algorithms: AIMD as `reno` (RFC 5681 with NewReno-free fast recovery, what OPNET's
#: "Reno" TCP flavour does) and the seed's congestion-controlled AIMD as `aimd-delay`.
ALGORITHMS: tuple[tuple[str, str], ...] = (("aimd", "reno"), ("improved", "aimd-delay"))

#: The link whose statistics Table 1 and Figs. 8-9 report ("internet connection <-> subnet_HQ"):
#: in our campus `fw_hq`, the one link every user's traffic crosses, between the firewall and
#: Router_HQ. Direction ab carries the servers' answers to the users.
MEASURED_LINK = "fw_hq"

#: Our choices, each printed in the report. The application values are OPNET's standard
#: "heavy" definitions as OPNET-based studies commonly report them (the seed names none).
CHOICES: dict[str, Any] = {
    "users": 10,
    "link_rate": "100Mbps",
    "access_delay": "10us",
    "core_delay": "1ms",
    "queue": "100p",
    "firewall_delay": "50us",
    "profile_start": {"dist": "uniform", "min": "100s", "max": "110s"},
    "http": {"preset": "heavy"},
    "database": {
        "interval": {"dist": "exponential", "mean": "12s"},
        "request_size": "512B",
        "response_size": "32768B",
    },
    "ftp": {
        "inter_request": {"dist": "exponential", "mean": "360s"},
        "size": "50000B",
        "get_fraction": 0.5,
    },
    "tcp_profile": "rfc",
    "stop_time": "1800s",
    "link_series": "1s",
}

#: The sensitivity grid (what the seed leaves open): name -> (users, bottleneck rate of the
#: uplink and the two firewall links, a bulk download per user at the start (or None), the
#: queue discipline of those links (None: drop-tail), what it tests).
SENSITIVITY: dict[str, tuple[int, str, str | None, str | None, str]] = {
    "paper": (10, "100Mbps", None, None, "the seed's campus: 100 Mbit/s everywhere"),
    "core-10M": (10, "10Mbps", None, None, "a 10 Mbit/s core"),
    "core-1M": (10, "1Mbps", None, None, "a 1 Mbit/s core"),
    "core-1M-codel": (10, "1Mbps", None, "codel", "a 1 Mbit/s core managed by CoDel"),
    "core-512k": (10, "512kbps", None, None, "a 512 kbit/s core, near saturation"),
    "users-50": (50, "2Mbps", None, None, "50 users on a 2 Mbit/s core"),
    "bulk-10M": (10, "10Mbps", "5MB", None, "a 5 MB download per user at once, 10 Mbit/s core"),
}

#: The windows of Figs. 4-5 (seconds from the users' start): "2secs and 5sec", "9secs and
#: 1m:13sec".
ZOOM_WINDOWS: tuple[float, ...] = (2.0, 5.0, 9.0, 73.0)
ZOOM_FROM_S = 100.0  # the users start at 100-110 s (CHOICES["profile_start"])


def case_key(variant: str, algorithm: str) -> str:
    return f"{variant}/{algorithm}"


def build(
    *,
    algorithm: str,
    users: int = CHOICES["users"],
    core_rate: str = CHOICES["link_rate"],
    bulk: str | None = None,
    aqm: str | None = None,
    stop_time: str = CHOICES["stop_time"],
    link_series: str = CHOICES["link_series"],
) -> Any:
    """The campus of one case: `tcplab.topology.campus` for the nodes and links, then OPNET's
    Profile Configuration as a `[[profiles]]` entry: from a start drawn in 100-110 s every user
    browses, queries, and transfers a file every exponential(360 s), half of them gets and half
    puts. `bulk` adds one download of that size per user at 100 s; `aqm` manages the queues of
    the uplink and the two firewall links (both directions) with that discipline."""
    from tcplab import Scenario, topology

    cc = dict(ALGORITHMS)[algorithm]
    c = CHOICES
    sc = topology.campus(
        users,
        apps=("http", "database", "ftp"),
        access_rate=c["link_rate"],
        access_delay=c["access_delay"],
        core_rate=core_rate,
        core_delay=c["core_delay"],
        server_rate=c["link_rate"],
        queue=c["queue"],
        firewall_delay=c["firewall_delay"],
        congestion_control=cc,
        profile=c["tcp_profile"],
        stop_time=stop_time,
        name="kolawole2018",
        link_series=link_series,
    )
    d = sc.to_dict()
    if aqm is not None:
        for link in d["links"]:
            if link["name"] in ("uplink", "main_fw", "fw_hq"):
                link["aqm"] = {"kind": aqm}
    hosts = [f"node_{i}" for i in range(users)]
    tcp = {"congestion_control": cc}
    d["apps"] = []
    if bulk is not None:
        d["apps"] = [
            {
                "name": f"bulk_{i}",
                "kind": "ftp",
                "client": h,
                "server": "ftp_server",
                "start": "100s",
                "size": bulk,
                "tcp": tcp,
            }
            for i, h in enumerate(hosts)
        ]
    d["profiles"] = [
        {
            "name": "user",
            "hosts": hosts,
            "start": c["profile_start"],
            "apps": [
                {"name": "http", "kind": "http", "server": "http_server", "tcp": tcp, **c["http"]},
                {"name": "db", "kind": "database", "server": "db_server", "tcp": tcp,
                 **c["database"]},
                {"name": "ftp", "kind": "ftp", "server": "ftp_server", "tcp": tcp, **c["ftp"]},
            ],
        },
    ]  # fmt: skip
    return Scenario.from_dict(d)
