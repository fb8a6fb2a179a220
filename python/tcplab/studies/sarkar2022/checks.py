"""The paper's analytic checks (sections 4.1-4.4, 5 and Tables 3, 5, 6, 9), recomputed with
`tcplab.models`, next to the paper's numbers and our simulation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tcplab import models

from .._base import Check
from .._kit import pct
from .paper import FILE_SIZE, MSS, PDROPS, TABLE3, TABLE4, TABLE5, TABLE6, TABLE8, TEXT
from .tables import Stats

if TYPE_CHECKING:
    from tcplab import Scenario


def checks(scenario: Scenario, st: Stats, ca_sim: Sequence[float]) -> list[Check]:
    """The paper's analytic checks recomputed with `tcplab.models` on the study's `scenario`,
    next to the paper's numbers and ours (`st`; `ca_sim`: our cwnd per RTT after a fast
    recovery at 1 %, `traced.ca_growth_sim`)."""
    sc = scenario.to_dict(normalized=True)
    links = {link["name"]: link for link in sc["links"]}
    rate_Bps = float(models.parse_rate(links["wan"]["rate"]))  # bytes per second
    rtt = 2 * sum(float(models.parse_duration(link.get("delay", "0s"))) for link in sc["links"])
    rwnd = TEXT["rwnd_bytes"]
    s0 = st[("main", "riverbed", 0.0)]
    s1 = st[("main", "riverbed", 0.01)]
    s10 = st[("main", "riverbed", 0.1)]
    n = float(models.segments_needed(FILE_SIZE, MSS))
    out = [
        Check(
            "Segments to carry the file",
            "4.1",
            "n = s / MSS (rounded up)",
            TEXT["n_segments"],
            n,
            s0["data_segments_mean"],
            "segments",
            f"s = {FILE_SIZE:,} B, MSS = {MSS} B; simulated: data segments the server sent "
            "at pdrop 0",
        ),
        Check(
            "Frames the server sends at pdrop 0",
            "4.1, T6",
            "n + SYN-ACK + FIN + last ACK (+ ARP in Riverbed)",
            float(TABLE6[0.0]),
            n + 3,
            s0["frames_mean"],
            "frames",
            "our model has no ARP, so one frame fewer than Riverbed's 6854",
        ),
        Check(
            "Throughput at pdrop 0",
            "4.3.1",
            "s / (t1 - t0)",
            TEXT["measured_throughput_Bps"],
            None,
            s0["throughput_mean"],
            "B/s",
            "Riverbed: 10 MB between t0 = 10 s and t1 = 60 s",
        ),
    ]
    line = float(models.line_rate_limit(rate_Bps, MSS, models.SARKAR_OVERHEAD_BYTES))
    big = st.get(("sensitivity", "riverbed, rwnd 65535", 0.0))
    out.append(
        Check(
            "Ethernet line-rate limit",
            "4.3.2",
            "MSS / (MSS + 78) x 1,250,000 B/s",
            TEXT["line_rate_Bps"],
            line,
            big["throughput_mean"] if big else None,
            "B/s",
            "overhead 78 B = TCP 20 + IP 20 + Ethernet 38; simulated: riverbed with a "
            "65535-byte window at pdrop 0, where the window no longer binds",
        )
    )
    win = float(models.window_limit(rwnd, rtt))
    out.append(
        Check(
            "Window limit",
            "4.3.3",
            "rwnd / RTT",
            TEXT["window_limit_Bps"],
            win,
            s0["throughput_mean"],
            "B/s",
            f"rwnd {rwnd} B, RTT {rtt:.3f} s (twice the path's delays); with our measured "
            f"SRTT {s0['srtt_mean'] * 1000:.1f} ms (40 ms plus serialisation of a 1538-byte "
            f"frame per hop) rwnd / SRTT = {rwnd / s0['srtt_mean']:,.0f} B/s",
        )
    )
    est = models.download_time(FILE_SIZE, rtt, mss=MSS, rate=rate_Bps, rwnd=rwnd)
    out.append(
        Check(
            "Expected download time at pdrop 0",
            "4.4",
            "s / min(line rate, rwnd / RTT)",
            TEXT["expected_download_s"],
            float(est.seconds),
            s0["rt_mean"],
            "s",
            f"binding limit: {est.binding}; Riverbed 60.21 s (50.21 s less the 10 s the paper "
            "subtracts), "
            f"testbed 50.25 s; with our SRTT: {FILE_SIZE / (rwnd / s0['srtt_mean']):.2f} s",
        )
    )
    for p in PDROPS[1:]:
        s = st[("main", "riverbed", p)]
        out.append(
            Check(
                f"Retransmissions at pdrop {pct(p)}",
                "4.2, T5, T7",
                "at least n x pdrop",
                float(TABLE5[p]),
                float(models.expected_retransmissions(FILE_SIZE, MSS, p, whole_segments=False)),
                s["retx_mean"],
                "segments",
                f"paper value: Riverbed's count (Table 5); ours drop {s['dropped_mean']:.1f} "
                f"frames and resend {s['retx_mean']:.1f} segments ({s['rto_mean']:.1f} "
                "timeouts)",
            )
        )
    pkt_rate = s0["frames_mean"] / s0["rt_mean"]
    naive = s0["rt_mean"] + n * 0.01 / pkt_rate
    out.append(
        Check(
            "Naive time at 1 %: one extra packet time per drop",
            "5",
            "T(0) + n x 1 % / packet rate",
            TEXT["naive_1pct_s"],
            naive,
            s1["rt_mean"],
            "s",
            "the paper compares 60.82 s with Riverbed's 66.83 s; ours uses our T(0) and "
            f"packet rate ({pkt_rate:.1f} frames/s)",
        )
    )
    extra = s1["rt_mean"] - s0["rt_mean"]
    out.append(
        Check(
            "Extra time per retransmission at 1 %",
            "5.2",
            "(T(1 %) - T(0)) / retransmissions",
            TEXT["per_drop_s"],
            TEXT["per_drop_rtts"] * rtt,
            extra / s1["retx_mean"] if s1["retx_mean"] else None,
            "s",
            "paper: 10.67 RTTs lost per drop to congestion avoidance (27 RTTs to recover, 98 "
            "segments instead of 162)",
        )
    )
    out.append(
        Check(
            "Extra time at 1 %",
            "5.2",
            "68 drops x 0.4268 s",
            TEXT["added_1pct_s"],
            float(models.expected_retransmissions(FILE_SIZE, MSS, 0.01, whole_segments=False))
            * TEXT["per_drop_s"],
            extra,
            "s",
            "model: n x 1 % drops at the paper's per-drop cost",
        )
    )
    model = models.cwnd_growth_ca(4380, MSS, 30, acks_per_rtt=1, rwnd=rwnd)
    k_model = int(np.argmax(model >= rwnd))
    k_sim = next((k for k, c in enumerate(ca_sim) if c >= rwnd), None)
    out.append(
        Check(
            "RTTs for cwnd to grow from 3 MSS back to rwnd",
            "5.2, T9",
            "cwnd += MSS^2 / cwnd per RTT",
            float(TEXT["ca_rtts_to_rwnd"]),
            float(k_model),
            None if k_sim is None else float(k_sim),
            "RTTs",
            "simulated: from the first fast recovery followed by 15 loss-free RTTs at 1 % "
            "(its start value may differ from 3 MSS); '-' if it stays below rwnd",
        )
    )
    out.append(
        Check(
            "Response time at 10 % / at 0 %",
            "abstract, 6",
            "T(10 %) / T(0)",
            TABLE4[0.1][0] / TABLE4[0.0][0],
            None,
            s10["rt_mean"] / s0["rt_mean"],
            "x",
            f"'about 32 times longer' is Riverbed's 1953.61 / 60.21; less the 10 s "
            f"{(TABLE4[0.1][0] - 10) / (TABLE4[0.0][0] - 10):.1f}, testbed "
            f"{TABLE8[0.1][0] / TABLE8[0.0][0]:.2f}",
        )
    )
    for p in (0.01, 0.1):
        s = st[("main", "riverbed", p)]
        out.append(
            Check(
                f"BER behind pdrop {pct(p)}",
                "T3",
                "BER = 1 - (1 - PER)^(1 / 8L), L = 1500 B",
                TABLE3[p][1],
                float(models.ber_from_per(p, 1500)),
                None,
                "",
                f"linear rule: {p / (8 * 1500):.2e}; for our 1538-byte wire frames "
                f"{float(models.ber_from_per(p, 1538)):.2e}",
            )
        )
        out.append(
            Check(
                f"Fraction of data frames lost at pdrop {pct(p)}",
                "2.2",
                "frames dropped / frames sent = PER",
                p,
                p,
                s["dropped_mean"] / s["frames_mean"],
                "",
                "checks our per-frame error model",
            )
        )
    return out
