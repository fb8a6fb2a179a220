"""The paper's numbers as printed (Tables 1 and 3-9, the text, its errata) and what the study
runs besides them: the TCP variants of the sensitivity analysis, the extra drop rates and the
testbed's two configurations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# ----------------------------------------------------------------------------------------------
# The paper's numbers

#: Table 3: the packet drop probabilities of the five scenarios.
PDROPS: tuple[float, ...] = (0.0, 0.0001, 0.001, 0.01, 0.1)

#: Section 2.3: the file (bytes), section 4.1: the MSS (bytes).
FILE_SIZE = 10_000_000
MSS = 1460
#: The 10 s the paper subtracts from Riverbed's response times (section 5: 76.83 - 10 = 66.83 s).
#: Not a start offset: the traffic flows from t = 10 s to 60 s at pdrop 0 (section 4.3.1); the
#: authors found a 5 s start time in the FTP profile and 5 s in the application, but "removing
#: these two offsets did not change the results of the FTP download response time but merely
#: moved the previously mentioned Figure 10 to the left" (section 4.4), and they could not find
#: the setting responsible. It is an unexplained 10 s in Riverbed's statistic, taken off by
#: assumption ("Assuming the response times in Table 4 are 10 s shorter").
RIVERBED_OFFSET_S = 10.0

#: Table 1: (BER, PER for L = 1250 bytes, PER for L = 1500 bytes), as printed.
TABLE1: tuple[tuple[float, float, float], ...] = (
    (1e-1, 1000.0, 1200.0),
    (1e-2, 100.0, 120.0),
    (1e-3, 10.0, 12.0),
    (1e-4, 1.0, 1.2),
    (1e-5, 1e-1, 1.2e-1),
    (1e-6, 1e-2, 1.2e-2),
    (1e-7, 1e-3, 1.2e-3),
    (1e-8, 1e-4, 1.2e-4),
    (1e-9, 1e-5, 1.2e-5),
)

#: Table 3: pdrop -> (BER as printed, BER as a number, channel condition).
TABLE3: dict[float, tuple[str, float, str]] = {
    0.0: ("0", 0.0, "Perfect channel"),
    0.0001: ("≈1e-8", 1e-8, "Low noise channel"),
    0.001: ("≈1e-7", 1e-7, "Medium noise channel"),
    0.01: ("≈1e-6", 1e-6, "High noise channel"),
    0.1: ("≈1e-5", 1e-5, "Very high noise channel"),
}

#: Table 4 (Riverbed): pdrop -> (FTP download response time s, difference from pdrop 0 in %).
TABLE4: dict[float, tuple[float, float]] = {
    0.0: (60.21, 0.0),
    0.0001: (60.42, 0.35),
    0.001: (61.46, 2.08),
    0.01: (76.83, 27.60),
    0.1: (1953.61, 3144.66),
}

#: Table 5 (Riverbed): pdrop -> the FTP server's retransmission count.
TABLE5: dict[float, int] = {0.0: 0, 0.0001: 1, 0.001: 7, 0.01: 62, 0.1: 1092}

#: Table 6 (Riverbed): pdrop -> Ethernet frames sent by the FTP server.
TABLE6: dict[float, int] = {0.0: 6854, 0.0001: 6855, 0.001: 6861, 0.01: 6916, 0.1: 7946}

#: Table 7: pdrop -> (calculated n x pdrop, simulated, difference in % or None for "No
#: difference").
TABLE7: dict[float, tuple[float, int, float | None]] = {
    0.0: (0.0, 0, None),
    0.0001: (0.68, 1, 47.06),
    0.001: (6.85, 7, 2.19),
    0.01: (68.49, 62, -9.48),
    0.1: (684.93, 1092, 59.43),
}

#: Table 8 (Linux testbed with netem): pdrop -> (response time s, difference from pdrop 0 %).
TABLE8: dict[float, tuple[float, float]] = {
    0.0: (50.25, 0.0),
    0.0001: (50.25, 0.0),
    0.001: (51.97, 3.42),
    0.01: (75.84, 50.65),
    0.1: (259.66, 416.75),
}

#: Table 9: (RTT, cwnd bytes, cwnd in MSS) in congestion avoidance from 3 MSS, as printed.
TABLE9: tuple[tuple[int, int, int], ...] = (
    (0, 4380, 3),
    (1, 4867, 3),
    (2, 5305, 3),
    (3, 5707, 3),
    (4, 6080, 4),
    (5, 6431, 4),
    (6, 7762, 4),
    (7, 7077, 4),
    (8, 7379, 5),
    (9, 7667, 5),
    (10, 7945, 5),
    (11, 8214, 5),
    (12, 8473, 5),
    (13, 8725, 5),
    (14, 8969, 6),
)

#: The paper's sentences and cells that the claims test (`Finding.tests`).
QUOTES: dict[str, str] = {
    "clean": "Table 8, pdrop 0 %: 50.25 s (testbed); Table 4: 60.21 s, 50.21 s less the 10 s "
    "the paper subtracts (section 5)",
    "one": "Table 4, pdrop 1 %: 76.83 s (66.83 s less 10 s, section 5); Table 8: 75.84 s",
    "ten": "Table 4, pdrop 10 %: 1953.61 s (1943.61 s less 10 s)",
    "ten_counts": "Tables 5 and 6, pdrop 10 %: 1092 retransmissions, 7946 frames sent",
    "times32": "abstract and section 6: 'The FTP download response time is about 32 times "
    "longer than that of a perfect channel'",
    "rising": "section 3.1: 'the download response time increases with increasing pdrop' "
    "(Tables 4 and 8)",
    "n_p": "section 4.2: 'a link with a packet drop probability pdrop will retransmit at least "
    "n x pdrop packets'",
    "fig10": "section 5.1 / Figure 10: 'When the server received the fourth ACK (or the third "
    "duplicated ACK), it went into fast retransmission'",
}

#: Section 2.3 / 4.4: which packets pdrop drops. The paper sets one Packet Discard Ratio on
#: the IP cloud that both directions cross, beside one Packet Latency that section 4.3.3 counts
#: twice (RTT 0.04 s); its testbed's netem adds "a 20 milli-seconds delay in each direction and
#: a certain drop probability". Our reading: both directions ("both"); the other reading, data
#: packets only ("data"), runs beside it (group "direction").
DIRECTIONS: dict[str, str] = {
    "both": "every packet crossing the IP cloud, data and ACKs (our reading)",
    "data": "data packets only (server -> client), ACKs error-free (the other reading)",
}
DIRECTION = "both"

#: Numbers from the paper's text.
TEXT: dict[str, float] = {
    "n_segments": 6849.32,  # 4.1: n = s / MSS
    "rtt_s": 0.04,  # 4.3.3
    "rwnd_bytes": 8760,  # Table 2 / 4.3.3
    "measured_throughput_Bps": 200_000.0,  # 4.3.1: 10e6 / (60 - 10)
    "line_rate_Bps": 1_186_605.98,  # 4.3.2
    "overhead_bytes": 78,  # 4.3.2
    "window_limit_Bps": 219_000.0,  # 4.3.3
    "expected_download_s": 45.66,  # 4.4
    "packet_rate_pps": 113.778,  # 5: 6854 / 60.24
    "naive_retransmitted_1pct": 68.54,  # 5
    "naive_added_1pct_s": 0.602,  # 5
    "naive_1pct_s": 60.82,  # 5
    "riverbed_1pct_minus_offset_s": 66.83,  # 5
    "fig10_recovery_s": 0.132977,  # 5.1: about 3 RTTs
    "fig10_segments": 12,  # 5.1: instead of 18
    "ca_rtts_to_rwnd": 14,  # 5.2 / Table 9
    "recover_rtts": 27,  # 5.2
    "per_drop_rtts": 10.67,  # 5.2
    "per_drop_s": 0.4268,  # 5.2
    "added_1pct_s": 29.02,  # 5.2: 68 drops x 0.4268 s
    "times_longer_10pct": 32.0,  # abstract and 6
}

#: Where the paper's printed numbers disagree with themselves (kept as printed above).
ERRATA: tuple[str, ...] = (
    "Table 9, RTT 6 prints 7762 bytes; the recursion cwnd += MSS*MSS/cwnd from 6431 gives "
    "6762 (and 7077 follows from 6762), so 7762 is a typo for 6762.",
    "Table 8, pdrop 1 % prints a 50.65 % difference; 75.84 / 50.25 - 1 = 50.93 %.",
    "Section 4.2 calls the retransmission counts 'within the range of the expected packet "
    "drops' while Table 7 shows Riverbed 59 % above n x pdrop at 10 % and 9 % below at 1 %.",
    "Table 4's response times are about 10 s longer than the transfer (traffic from t = 10 to "
    "60 s, section 4.3.1). Section 4.4 found a 5 s profile and a 5 s application start offset, "
    "but removing them did not change the response time (it only moved the traffic left), so "
    "the 10 s is unexplained; the paper subtracts it by assumption (section 5: 76.83 - 10 = "
    "66.83 s for pdrop 1 %), and so does 'T4 - 10 s'.",
)


# ----------------------------------------------------------------------------------------------
# What the study runs besides the paper's grid


@dataclass(frozen=True)
class Variant:
    """A TCP configuration the sensitivity analysis runs over the same five scenarios."""

    key: str
    change: str
    overrides: dict[str, Any]
    single: bool = False  # one setting changed from the riverbed profile


#: The testbed part (`--testbed`): Linux reno with the paper's 8760-byte window, which the
#: forwarder enforces by clamping the window every segment advertises, in two configurations.
TESTBED_WINDOW = 8760
TESTBED_MODES: dict[str, tuple[str, dict[str, Any]]] = {
    "linux": (
        "Linux reno as shipped (SACK, timestamps, RACK-TLP, F-RTO, PRR, IW 10, min RTO 200 ms; "
        "no window scaling, as a receiver with an 8760-byte buffer negotiates shift 0)",
        {"tcp.profile": "linux", "tcp.congestion_control": "reno", "tcp.rcv_buf": TESTBED_WINDOW},
    ),
    "classic": (
        "Linux reno with SACK, RACK-TLP and F-RTO off (NewReno-style recovery on duplicate "
        "ACKs), otherwise as shipped",
        {
            "tcp.profile": "linux",
            "tcp.congestion_control": "reno",
            "tcp.rcv_buf": TESTBED_WINDOW,
            "tcp.sack": False,
            "tcp.loss_recovery": "newreno",
        },
    ),
}
#: The sensitivity variants. `riverbed` is the main grid itself.
VARIANTS: tuple[Variant, ...] = (
    Variant("riverbed", "Riverbed Modeler defaults (Table 2): the paper's setup", {}),
    Variant(
        "rfc",
        "profile rfc (RFC 5681/6298/3042/1122 defaults: IW 3, rwnd 65535, RTO min 1 s with a "
        "1 ms clock, limited transmit, byte counting, Nagle)",
        {"tcp.profile": "rfc"},
    ),
    Variant(
        "rfc, rto_min 200 ms",
        "profile rfc with rto_min = 200 ms",
        {"tcp.profile": "rfc", "tcp.rto_min": "200ms"},
    ),
    Variant(
        "rfc, rwnd 8760",
        "profile rfc with the paper's 8760-byte receive buffer",
        {"tcp.profile": "rfc", "tcp.rcv_buf": 8760},
    ),
    Variant(
        "riverbed, rto_min 200 ms",
        "riverbed with rto_min = 200 ms (Linux's TCP_RTO_MIN)",
        {"tcp.rto_min": "200ms"},
        single=True,
    ),
    Variant(
        "riverbed, 1 ms clock",
        "riverbed with a 1 ms timer granularity instead of 0.5 s",
        {"tcp.clock_granularity": "1ms"},
        single=True,
    ),
    Variant(
        "riverbed, Linux RTO floor",
        "riverbed with rto_min = 200 ms and a 1 ms clock (the RTO floor of the paper's Linux "
        "testbed)",
        {"tcp.rto_min": "200ms", "tcp.clock_granularity": "1ms"},
    ),
    Variant(
        "riverbed, Linux RTO floor + limited transmit",
        "riverbed with rto_min = 200 ms, a 1 ms clock and RFC 3042 limited transmit (both on "
        "in Linux)",
        {"tcp.rto_min": "200ms", "tcp.clock_granularity": "1ms", "tcp.limited_transmit": True},
    ),
    Variant(
        "riverbed, initial RTO 1 s",
        "riverbed with a 1 s initial RTO instead of 3 s",
        {"tcp.rto_initial": "1s"},
        single=True,
    ),
    Variant(
        "riverbed, IW 10",
        "riverbed with an initial window of 10 segments instead of 2",
        {"tcp.initial_cwnd": 10},
        single=True,
    ),
    Variant(
        "riverbed, limited transmit",
        "riverbed with RFC 3042 limited transmit",
        {"tcp.limited_transmit": True},
        single=True,
    ),
    Variant(
        "riverbed, byte counting",
        "riverbed with RFC 3465 byte counting in congestion avoidance",
        {"tcp.ca_rule": "byte_counting"},
        single=True,
    ),
    Variant(
        "riverbed, no delayed ACK",
        "riverbed without delayed ACKs",
        {"tcp.delayed_ack": False},
        single=True,
    ),
    Variant(
        "riverbed, rwnd 65535",
        "riverbed with a 65535-byte receive buffer",
        {"tcp.rcv_buf": 65535},
        single=True,
    ),
    Variant(
        "linux",
        "the testbed's configuration on our simulator: " + TESTBED_MODES["linux"][0],
        TESTBED_MODES["linux"][1],
    ),
    Variant(
        "linux, classic",
        "the testbed's configuration without SACK, RACK-TLP and F-RTO on our simulator",
        TESTBED_MODES["classic"][1],
    ),
)

#: Extra drop probabilities (riverbed) for the question "how much more loss would Riverbed's
#: 10 % scenario need": Table 5 reports 1092 retransmissions where n x pdrop is 685.
DROPRATE_PDROPS: tuple[float, ...] = (0.11, 0.12, 0.13, 0.14)

#: Column of the main table with our testbed's time (only when the testbed part ran).
TESTBED_COLUMN = "testbed (ours) s"

#: Columns of the main table (display names), in order.
MAIN_COLUMNS: tuple[str, ...] = (
    "pdrop",
    "BER (T3)",
    "Riverbed (T4) s",
    "T4 - 10 s",
    "testbed (T8) s",
    "ours mean s",
    "ours 95% CI s",
    "ours min-max s",
    "retx (T5)",
    "ours retx",
    "frames (T6)",
    "ours frames",
    "n x p (T7)",
    "ours x clean",
)


def error_override(p: float, direction: str = DIRECTION) -> dict[str, Any]:
    """The error models for a drop probability (section 2.2: pdrop = PER): on both directions
    of the IP cloud's link (`direction` "both", our reading), or on the data direction only
    ("data", ACKs error-free)."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction {direction!r}: allowed {', '.join(DIRECTIONS)}")
    err = {"model": "per", "p": p}
    none = {"model": "none"}
    return {"links.wan.ab.error": err, "links.wan.ba.error": err if direction == "both" else none}
