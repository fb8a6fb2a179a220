"""The seed's observations checked against the models with our inputs and our runs (`Check`),
and what we found (`Finding`): the TCP the core resolved, the ACK policy each figure assumes,
and how close our throughput comes to NetSim's and to the formulas."""

from __future__ import annotations

import math

from tcplab import models

from .._base import Check, Finding
from .paper import NETSIM, PAPER
from .paper import mbps as _mbps
from .tables import Stats

__all__ = ["checks", "findings"]


def checks(stats: Stats, inputs: dict) -> list[Check]:
    """RTT, window limit, PER and Mathis: the seed's figure, the model's with our inputs, ours."""
    x0, x1 = inputs[(0.0, "ack-every")], inputs[(1e-7, "ack-every")]
    s0 = stats.get((0.0, "ack-every"), {})
    s1 = stats.get((1e-7, "ack-every"), {})
    return [
        Check(
            "Round-trip time",
            "1.5 obs. 1",
            "2 x (0.1 + 50 + 0.1) ms + serialisation",
            PAPER["rtt_s"] * 1e3,
            x0.rtt_s * 1e3,
            s0.get("srtt_mean", math.nan) * 1e3,
            "ms",
            "the seed rounds to 100 ms; ours adds 3 x 1.2304 ms (1538-byte frames) + "
            "3 x 0.0672 ms (84-byte ACKs); simulated: the sender's SRTT, BER 0",
        ),
        Check(
            "Window limit",
            "1.5 obs. 1",
            "65535 x 8 / RTT",
            PAPER["window_limit_Mbps"],
            _mbps(float(models.window_limit(x0.rwnd_bytes, x0.rtt_s))),
            _mbps(s0.get("thr_mean", math.nan)),
            "Mbps",
            "model with our RTT; simulated: BER 0, an ACK per segment",
        ),
        Check(
            "PER at BER 1e-7",
            "1.5 obs. 2",
            "1 - (1 - BER)^(8 L)",
            PAPER["per"],
            x1.p,
            s1.get("per_measured", math.nan),
            "",
            f"seed: L = 1500 B; ours: L = {x1.data_path[0].exposed_bytes} B exposed per "
            "Ethernet frame; simulated: backbone data frames lost / sent",
        ),
        Check(
            "Mathis throughput",
            "1.5 obs. 2",
            "sqrt(3 / (2p)) x MSS / RTT",
            PAPER["mathis_Mbps"],
            _mbps(float(models.mathis_throughput(x1.eff_mss_bytes, x1.rtt_s, x1.p))),
            _mbps(s1.get("thr_mean", math.nan)),
            "Mbps",
            "model with our RTT and p; simulated: BER 1e-7, an ACK per segment",
        ),
    ]


#: The seed's statements each claim tests (`Finding.tests`).
QUOTES = {
    "lossless": "Figure 1-3: App1_CBR throughput 4.912024 Mbps (BER 0)",
    "lossy": "Figure 1-6: App1_CBR throughput 3.806395 Mbps (BER 1e-7)",
    "obs1": "1.5 obs. 1: 'the congestion window of TCP (over the loss-less link) increases "
    "monotonically to 64 KB and remains there forever' (Figure 1-5)",
    "obs2": "1.5 obs. 2: 'the observed long-term average throughput (see Figure 1-6) is "
    "approximately equal to the above computed value' (Mathis, 4.12 Mbps)",
}
#: "Approximately equal" (obs. 1 and 2): within 10 %, about what NetSim's own numbers show
#: (4.91 against 5.24 is -6 %, 3.81 against 4.12 is -8 %).
APPROX = 0.10


def prediction_interval(mean: float, half_ci: float, n: int) -> tuple[float, float]:
    """The 95 % prediction interval of one more run, from the mean over `n` runs and its 95 %
    CI half-width (Student t): mean +/- half x sqrt(n + 1)."""
    if n < 2 or math.isnan(half_ci):
        return (math.nan, math.nan)
    w = half_ci * math.sqrt(n + 1)
    return (mean - w, mean + w)


def window_claim(usable: list[float] | None, rwnd: float) -> Finding:
    """Observation 1 on our loss-less run: the usable window min(cwnd, rwnd) never falls and
    ends at the receive window (`usable`: its values over the traced run)."""
    full = 44 * 1460  # the whole segments that fit in 65,535 bytes
    if not usable:
        return Finding("Loss-less: the window rises to 64 KB and stays there (obs. 1)", None,
                       "not evaluated: the loss-less run was not traced", "invariant",
                       QUOTES["obs1"])  # fmt: skip
    import numpy as np

    u = np.asarray(usable, dtype=float)
    falls = int((np.diff(u) < 0).sum())
    at = int(np.argmax(u >= full)) if (u >= full).any() else -1
    ok = falls == 0 and at >= 0 and bool((u[at:] >= full).all())
    return Finding(
        "Loss-less: the window rises monotonically to 64 KB and stays there (obs. 1, Figure 1-5)",
        ok,
        "The usable window min(cwnd, rwnd) of the traced loss-less run (what NetSim's "
        f"Wireshark window graph shows); the receive window is {rwnd:,.0f} B, of which "
        f"{full:,} B are whole segments. An invariant of the setup, not a test of NetSim: "
        "without losses no TCP shrinks its window, and the path's bandwidth-delay product "
        "(10 Mbit/s x 100 ms = 125 kB) is above the 64 KB receive window, so any correct "
        "sender ends at the receive window.",
        "invariant",
        QUOTES["obs1"],
        f"{len(u)} trace rows: the window falls {falls} times, reaches {u.max():,.0f} B and "
        + ("stays" if ok else "does not stay"),
    )


def findings(
    stats: Stats,
    inputs: dict,
    evals: dict,
    tcp_choice: str | None,
    usable: list[float] | None = None,
) -> list[Finding]:
    """The TCP used, the ACK policies, the seed's label slip, NetSim's numbers against its
    formulas, and our throughput against NetSim's and the models' (`usable`: the usable window
    over the traced loss-less run)."""
    out: list[Finding] = []
    x1 = inputs[(1e-7, "ack-every")]
    tcp = tcp_choice or "?"
    out.append(
        Finding(
            f"TCP: {tcp}",
            None,
            "The seed uses TCP NewReno. "
            + (
                "Our core resolved NewReno."
                if tcp.startswith("newreno")
                else "Our core has no NewReno yet, so these runs use Reno with the default "
                "loss recovery: with several losses in one window Reno leaves fast recovery "
                "early and may wait for a timeout where NewReno would not."
            ),
            "note",
        )
    )
    out.append(
        Finding(
            "Which ACK policy each figure assumes",
            None,
            "NetSim's Mathis figure (4.12 Mbps) is sqrt(3 / (2p)), the form for one ACK per "
            "segment (b = 1); with delayed ACKs (b = 2) the same derivation gives sqrt(3 / "
            "(4p)), 1/sqrt(2) of it. The window limit (5.24 Mbps) does not depend on the "
            "ACK policy. The seed does not say whether NetSim's TCP delayed its ACKs, so "
            "every case runs both ways, and the tables say which policy each number assumes.",
            "note",
        )
    )
    out.append(
        Finding(
            "The seed labels its lossy sample BER 1e-6 once; it is 1e-7",
            None,
            "Section 1.4 introduces Figure 1-6 as the application metrics of the 'Packet Loss "
            "Probability with BER-0.000001 sample' (1e-6), where the procedure sets Uplink and "
            "Downlink BER to 0.0000001 (1e-7), the figure's caption says BER = 1 x 10^-7, and "
            "observation 2's p = 1.2e-3 is 1 - (1 - 1e-7)^(1500 x 8). We run 1e-7.",
            "note",
        )
    )
    for obs, netsim, formula, what in (
        ("obs. 1", NETSIM[0.0][2], PAPER["window_limit_Mbps"], "the window limit"),
        ("obs. 2", NETSIM[1e-7][2], PAPER["mathis_Mbps"], "Mathis's formula"),
    ):
        out.append(
            Finding(
                f"NetSim's own throughput approximately equals {what} ({obs}, within 10 %)",
                abs(netsim / formula - 1) <= APPROX,
                "The seed's statement about its own numbers, recomputed: nothing of ours is "
                "involved.",
                "arithmetic",
                evidence=f"NetSim {netsim:.3f} Mbps vs {formula} Mbps "
                f"({netsim / formula - 1:+.1%})",
            )
        )
    s0 = stats.get((0.0, "ack-every"))
    if s0 is not None:
        ours = _mbps(s0["thr_mean"])
        win = _mbps(evals[(0.0, "ack-every")]["window"])
        err_ns = ours / NETSIM[0.0][2] - 1
        out.append(
            Finding(
                "Loss-less: our throughput is within 5 % of NetSim's 4.91 Mbps",
                abs(err_ns) <= 0.05,
                f"ours {ours:.3f} Mbps ({err_ns:+.1%}); the window limit is 5.24 Mbps with the "
                f"seed's 100 ms RTT and {win:.3f} Mbps with our {x1.rtt_s * 1e3:.2f} ms "
                f"({ours / win - 1:+.1%}). The cwnd reaches the 65,535-byte window and stays "
                "(Figure 1-5); what is left is the RTT (serialisation adds 4 ms to 100.4 ms of "
                "propagation), whole segments (44 x 1460 = 64,240 bytes fit in the window) "
                "and the first second of slow start. Nothing is random at BER 0: one run.",
                "claim",
                QUOTES["lossless"],
                f"ours {ours:.3f} Mbps ({err_ns:+.1%})",
            )
        )
        out.append(window_claim(usable, x1.rwnd_bytes))
        sd = stats.get((0.0, "delayed-ack"))
        if sd is not None:
            out.append(
                Finding(
                    "Loss-less: delayed ACKs change little",
                    abs(sd["thr_mean"] / s0["thr_mean"] - 1) <= 0.05,
                    f"{_mbps(sd['thr_mean']):.3f} Mbps with delayed ACKs against "
                    f"{_mbps(s0['thr_mean']):.3f}: once the window is full, the ACK policy "
                    "only changes how the window is clocked out, not its size.",
                    "hypothesis",
                    evidence=f"{_mbps(sd['thr_mean']):.3f} vs {_mbps(s0['thr_mean']):.3f} Mbps "
                    f"({sd['thr_mean'] / s0['thr_mean'] - 1:+.1%})",
                )
            )
    s1 = stats.get((1e-7, "ack-every"))
    if s1 is not None:
        ours = _mbps(s1["thr_mean"])
        e = evals[(1e-7, "ack-every")]
        mathis = _mbps(e["mathis_b1"])
        pftk = _mbps(e["pftk_full"])
        win = _mbps(e["window"])
        ew = e["expected_window_segments"]
        ci_half = _mbps(s1["thr_ci"])
        lo, hi = (_mbps(x) for x in prediction_interval(s1["thr_mean"], s1["thr_ci"], s1["runs"]))
        netsim = NETSIM[1e-7][2]
        in_ci = abs(netsim - ours) <= ci_half
        out.append(
            Finding(
                "Lossy (BER 1e-7): NetSim's 3.81 Mbps is a run our runs could have given (inside "
                "their 95 % prediction interval)",
                bool(lo <= netsim <= hi),
                f"{s1['fast_mean']:.1f} fast retransmits and {s1['rto_mean']:.1f} RTOs per run; "
                f"measured data-frame loss {s1['per_measured']:.3g} (model p {x1.p:.4g}). NetSim "
                "reports one run, so it is compared with where one more of our runs would fall "
                "(the mean +/- t x s x sqrt(1 + 1/n)), not with our mean alone. Until this "
                "version the verdict was 'within 15 % of NetSim', which passed at "
                f"{ours / netsim - 1:+.1%} although our own 95 % CI of the mean "
                f"({ours:.3f} +/-{ci_half:.3f}) {'includes' if in_ci else 'excludes'} NetSim's "
                "value: the tolerance was wide enough to hide a difference our seeds resolve. "
                f"Our runs range over {_mbps(s1['thr_min']):.3f}-{_mbps(s1['thr_max']):.3f} "
                "Mbps. What NetSim does differently we cannot tell from the seed: its TCP's "
                "ACK policy, initial window and timers are not given (with delayed ACKs ours is "
                "lower still, see the runs table).",
                "claim",
                QUOTES["lossy"],
                f"ours {ours:.3f} +/-{ci_half:.3f} Mbps (95 % CI of the mean over {s1['runs']} "
                f"runs), prediction interval {lo:.3f}-{hi:.3f}; NetSim {netsim:.3f} "
                f"({ours / netsim - 1:+.1%} from it)",
            )
        )
        out.append(
            Finding(
                "Lossy: our throughput approximately equals Mathis's formula with our inputs "
                "(obs. 2 on our runs, b = 1, within 10 %)",
                abs(ours / mathis - 1) <= APPROX,
                "Mathis's sqrt(3 / (2p)) x MSS / RTT with our RTT and our p (an ACK per "
                "segment, as the formula assumes); the next finding says why it over-"
                "estimates.",
                "claim",
                QUOTES["obs2"],
                f"ours {ours:.3f} Mbps, Mathis {mathis:.3f} ({ours / mathis - 1:+.1%})",
            )
        )
        ci = _mbps(s1["thr_ci"]) if not math.isnan(s1["thr_ci"]) else math.nan
        out.append(
            Finding(
                "Lossy: Mathis (b = 1) over-estimates our throughput; the 64 KB window cap "
                "explains about half of it",
                bool(mathis > ours and abs(pftk / ours - 1) < abs(mathis / ours - 1)),
                f"Mathis with our inputs gives {mathis:.3f} Mbps, ours {ours:.3f} "
                f"({mathis / ours - 1:+.1%}). Mathis assumes the window swings freely between "
                f"W/2 and W; here W would be about sqrt(8 / (3p)) = {ew:.1f} segments, above "
                f"the {x1.rwnd_segments:.1f}-segment receive window, so the window sits at "
                f"the cap ({win:.3f} Mbps) for part of each cycle and halves from the cap, "
                f"not from W. PFTK, which caps the window at Wmax = rwnd, gives {pftk:.3f} "
                f"Mbps ({pftk / ours - 1:+.1%}); it also charges timeouts, which our runs "
                f"hardly had ({s1['rto_mean']:.1f} per run). The rest we have not attributed: "
                f"only whole segments fit the window (44 x 1460 = 64,240 B, 2 % below "
                f"65,535), and with about {s1['fast_mean']:.0f} losses per 100-s run the mean "
                f"over {s1['runs']} seeds has a 95 % CI of +/-{ci:.3f} Mbps. Our throughput "
                "equals our time-averaged window / RTT, so the difference lies in the window "
                "process, not in the RTT. The seed's own 4.12 Mbps (100 ms, p = 1.2e-3) is "
                f"{PAPER['mathis_Mbps'] / NETSIM[1e-7][2] - 1:+.0%} from NetSim's 3.81 and "
                f"{PAPER['mathis_Mbps'] / ours - 1:+.0%} from ours.",
                "hypothesis",
                evidence=f"Mathis {mathis:.3f} ({mathis / ours - 1:+.1%}), PFTK with the cap "
                f"{pftk:.3f} ({pftk / ours - 1:+.1%}) against ours {ours:.3f} Mbps",
            )
        )
        sd = stats.get((1e-7, "delayed-ack"))
        if sd is not None:
            ed = evals[(1e-7, "delayed-ack")]
            ratio = sd["thr_mean"] / s1["thr_mean"]
            b2 = _mbps(ed["mathis_b2"])
            ours_d = _mbps(sd["thr_mean"])
            out.append(
                Finding(
                    "Lossy: with delayed ACKs, Mathis b = 2 agrees with ours within 10 %",
                    abs(b2 / ours_d - 1) <= 0.10,
                    f"ours with delayed ACKs {ours_d:.3f} Mbps, Mathis b = 2 {b2:.3f} "
                    f"({b2 / ours_d - 1:+.1%}), PFTK b = 2 {_mbps(ed['pftk_full']):.3f} "
                    f"({ed['pftk_full'] / sd['thr_mean'] - 1:+.1%}). With per-ACK growth, "
                    "half as many ACKs halve the additive increase, which is what the b = 2 "
                    "form assumes; and here the loss window, sqrt(8 / (3 b p)) = "
                    f"{ed['expected_window_segments']:.1f} segments, stays below the "
                    f"{x1.rwnd_segments:.1f}-segment cap, so Mathis's free sawtooth holds. "
                    f"Against an ACK per segment ours drops x{ratio:.2f}, less than the "
                    f"x{1 / math.sqrt(2):.2f} of b = 2 vs b = 1 because the b = 1 case is the "
                    "one the cap clips.",
                    "hypothesis",
                    evidence=f"ours {ours_d:.3f} Mbps, Mathis b = 2 {b2:.3f} "
                    f"({b2 / ours_d - 1:+.1%})",
                )
            )
    return out
