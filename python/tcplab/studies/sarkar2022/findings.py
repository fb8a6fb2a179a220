"""The paper's claims tested on our runs, each with its kind (`tcplab.studies.KINDS`), the
paper's sentence or cell it tests and a one-line evidence; and what the sensitivity analysis
says separates Riverbed from the Linux testbed at 10 %."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from tcplab import models
from tcplab.report.timeseq import LossWindow

from .._base import Finding
from .._kit import mean_pm, pct
from .paper import (
    DIRECTION,
    DIRECTIONS,
    DROPRATE_PDROPS,
    FILE_SIZE,
    MSS,
    PDROPS,
    QUOTES,
    RIVERBED_OFFSET_S,
    TABLE4,
    TABLE5,
    TABLE6,
    TABLE8,
    TEXT,
    Variant,
)
from .tables import Stats

#: The tolerance of the paper's timing claims (and of "about 32 times"): 15 %, the band the
#: 1 % claim has always used; the clean channel's 10 % is tighter because nothing random is
#: left there.
TOLERANCE = 0.15
CLEAN_TOLERANCE = 0.10
#: Section 5.2: RTTs from the fast retransmit to the full window in the testbed's capture (15 at
#: three segments, then nine alternating four and five).
PAPER_REGROWTH = 24.0
REGROWTH_LABELS = {"riverbed": "our riverbed profile", "linux": "our linux model",
                   "testbed": "our testbed"}  # fmt: skip


def findings(
    main_runs: pd.DataFrame,
    st: Stats,
    window: LossWindow | None,
    variants: Sequence[Variant],
    regrowth: Mapping[str, Any] | None = None,
    direction: str = DIRECTION,
) -> list[Finding]:
    """The paper's claims tested on our runs (`main_runs`: the main grid's rows), the
    sensitivity analysis (`gap_findings`) and the first loss at 1 % (`window`); `regrowth`
    is what `traced.regrowth` measured on the traced runs (None: not traced); `direction` the
    reading of pdrop the main grid runs (`DIRECTIONS`)."""
    main = {p: st[("main", "riverbed", p)] for p in PDROPS}
    other = {p: st.get(("direction", _other(direction), p)) for p in PDROPS}
    clean, one = main[0.0], main[0.01]
    out: list[Finding] = [_direction_note(main, other, direction)]

    tb0 = TABLE8[0.0][0]
    dev = clean["rt_mean"] / tb0 - 1
    out.append(
        Finding(
            "At pdrop 0 our response time is within 10 % of the paper's testbed (50.25 s)",
            abs(dev) <= CLEAN_TOLERANCE,
            f"The window limit rwnd / RTT predicts 45.66 s (section 4.4); the rest is the RTT "
            f"the window actually sees ({clean['srtt_mean'] * 1000:.1f} ms: 40 ms of "
            "propagation plus serialising a 1538-byte frame on each 10 Mbit/s hop and the "
            "ACK). Riverbed's 60.21 s less the 10 s the paper subtracts is 50.21 s (see the "
            "note on those 10 s).",
            "claim",
            QUOTES["clean"],
            f"ours {clean['rt_mean']:.2f} s, {dev:+.1%} from 50.25 s (Riverbed less 10 s: "
            f"{clean['rt_mean'] / (TABLE4[0.0][0] - RIVERBED_OFFSET_S) - 1:+.1%})",
        )
    )

    rb1 = TABLE4[0.01][0] - RIVERBED_OFFSET_S
    lo, hi = (1 - TOLERANCE) * rb1, (1 + TOLERANCE) * TABLE8[0.01][0]
    inside = lo <= one["rt_mean"] <= hi
    out.append(
        Finding(
            "At pdrop 1 % our response time lies between the paper's two environments "
            f"({rb1:.2f} s Riverbed less 10 s, {TABLE8[0.01][0]} s testbed) +/- 15 %",
            inside,
            f"Range over seeds {one['rt_min']:.1f}-{one['rt_max']:.1f} s; strictly between "
            f"{rb1:.2f} and {TABLE8[0.01][0]} s: "
            f"{'yes' if rb1 <= one['rt_mean'] <= TABLE8[0.01][0] else 'no'}. At 1 % our "
            f"transfer still waits out {one['rto_mean']:.1f} timeouts of at least 1 s each "
            f"besides {one['fast_retx_mean']:.1f} fast retransmits.",
            "claim",
            QUOTES["one"],
            f"ours {mean_pm(one['rt_mean'], one['rt_ci'])} s, band {lo:.1f}-{hi:.1f} s "
            f"({one['rt_mean'] / rb1 - 1:+.0%} vs Riverbed, "
            f"{one['rt_mean'] / TABLE8[0.01][0] - 1:+.0%} vs the testbed)",
        )
    )
    out.extend(_ten_percent(main, other, direction))

    parts, ok = [], True
    for p in (0.0001, 0.001, 0.01):
        s = main[p]
        np_ = float(models.expected_retransmissions(FILE_SIZE, MSS, p, whole_segments=False))
        se = math.sqrt(np_ / max(s["runs"], 1))
        ok &= s["retx_mean"] + 2 * se >= np_
        parts.append(f"{pct(p)}: {s['retx_mean']:.1f} vs {np_:.2f} ({s['retx_mean'] / np_:.2f}x)")
    out.append(
        Finding(
            "At 0.01-1 % we retransmit at least n x pdrop segments (section 4.2)",
            bool(ok),
            "Above n x p come retransmissions of lost retransmissions and go-back-N resends "
            "after timeouts; Riverbed's 62 at 1 % is below n x p, which the paper attributes "
            "to how Riverbed draws its drops. Judged with two Poisson standard errors of the "
            f"mean over our seeds. Riverbed: {TABLE5[0.0001]}, {TABLE5[0.001]}, {TABLE5[0.01]}. "
            "An invariant, not a claim: n x pdrop is the expected number of data segments the "
            "channel drops, and a reliable transport resends every one of them, so any correct "
            "run shows it up to sampling noise; it cannot tell whether the paper is right.",
            "invariant",
            QUOTES["n_p"],
            "ours vs n x p: " + "; ".join(parts),
        )
    )

    d = main_runs
    resend = d["retransmissions"] + d["syn_retransmissions"]
    n_ok = int((resend >= d["frames_dropped_to_resend"]).sum())
    out.append(
        Finding(
            "Every run retransmits at least the data frames the channel dropped",
            n_ok == len(d),
            "Retransmissions (incl. SYN-ACK) >= dropped SYN-ACK, data and FIN frames. A "
            "dropped final pure ACK is never resent, so the raw frames_dropped can exceed "
            "retransmissions by one; ACKs lost on the way back are not resent at all.",
            "invariant",
            evidence=f"{n_ok} of {len(d)} runs",
        )
    )

    means = [main[p]["rt_mean"] for p in PDROPS]
    rising = all(b >= a for a, b in zip(means, means[1:], strict=False))
    out.append(
        Finding(
            "The response time rises with pdrop (Tables 4 and 8)",
            rising,
            "Mean response time per pdrop over our seeds. An invariant, not a claim: every "
            "extra drop costs a recovery (a fast retransmit's round trip or a timeout) and "
            "none saves time, so any loss-recovering TCP takes longer as pdrop grows; the "
            "claims are how much longer (the 1 % and 10 % points, 'about 32 times').",
            "invariant",
            QUOTES["rising"],
            ", ".join(f"{pct(p)}: {m:.2f} s" for p, m in zip(PDROPS, means, strict=True)),
        )
    )
    if window is not None:
        rtts = (window.t_recovered - window.t_lost_send) / window.rtt_s
        out.append(
            Finding(
                "The first loss at 1 % is repaired by fast retransmit after three duplicate "
                "ACKs (Figure 10)",
                window.recovery == "fast retransmit" and window.dupacks_before_retransmit == 3,
                f"segment {window.lost_seq} sent at {window.t_lost_send:.3f} s was lost; the "
                f"server had {window.dupacks_before_retransmit} duplicate ACKs when it "
                f"retransmitted at {window.t_retransmit:.3f} s; the first ACK above it "
                f"arrived at {window.t_recovered:.3f} s, {rtts:.1f} RTTs after the loss "
                "(paper's testbed: about 3 RTTs, 12 segments delivered instead of 18).",
                "claim",
                QUOTES["fig10"],
                f"{window.recovery} after {window.dupacks_before_retransmit} duplicate ACKs, "
                f"recovered {rtts:.1f} RTTs after the loss",
            )
        )
    out.append(_offset_note(clean))
    out.extend(gap_findings(st, variants, regrowth))
    return out


#: The readings of `DIRECTIONS` in a few words.
SHORT = {"both": "both directions", "data": "data only"}


def _other(direction: str) -> str:
    return next(d for d in DIRECTIONS if d != direction)


def _direction_note(
    main: Mapping[float, Any], other: Mapping[float, Any], direction: str
) -> Finding:
    o10 = other.get(0.1)
    beside = (
        f" The other reading ({DIRECTIONS[_other(direction)]}) runs beside it over the same "
        "seeds: "
        + ", ".join(
            f"{pct(p)} {o['rt_mean']:.1f} s" for p, o in other.items() if o is not None and p
        )
        + " (ours: "
        + ", ".join(f"{pct(p)} {main[p]['rt_mean']:.1f} s" for p in PDROPS if p)
        + ")."
        if o10 is not None
        else ""
    )
    ours = (
        ""
        if direction == DIRECTION
        else f" This run drops {DIRECTIONS[direction]} instead, on request."
    )
    return Finding(
        f"pdrop drops {DIRECTIONS[direction]}",
        None,
        "Section 2.3 sets one Packet Latency (0.02 s) and one Packet Discard Ratio on the IP "
        "cloud (Figure 1: server - cloud - client), which every packet of both directions "
        "crosses; section 4.3.3 counts the latency on both (RTT 0.04 s), so the cloud's "
        "attributes act on both directions, and nothing in the paper exempts ACKs from the "
        "discard ratio. Section 4.4's testbed router runs netem 'to introduce a 20 milli-"
        "seconds delay in each direction and a certain drop probability', the same on both "
        "of its interfaces. Section 2.2 derives pdrop from bit errors, which corrupt ACK "
        "frames as they do data frames. So pdrop applies to both directions (ours since "
        "this version; until then the study dropped data packets only, with no reason "
        "given)." + ours + beside,
        "note",
    )


def _ten_percent(
    main: Mapping[float, Any], other: Mapping[float, Any], direction: str
) -> list[Finding]:
    """The 10 % point (Tables 4-6) and 'about 32 times longer', under both readings."""
    ten, clean = main[0.1], main[0.0]
    o10, o0 = other.get(0.1), other.get(0.0)
    rb10 = TABLE4[0.1][0] - RIVERBED_OFFSET_S
    dev = ten["rt_mean"] / rb10 - 1
    alt = (
        f"; {SHORT[_other(direction)]} {o10['rt_mean']:.0f} s ({o10['rt_mean'] / rb10 - 1:+.0%})"
        if o10
        else ""
    )
    out = [
        Finding(
            f"At pdrop 10 % our response time is within 15 % of Riverbed's {rb10:.2f} s "
            "(Table 4 less 10 s)",
            abs(dev) <= TOLERANCE,
            f"Range over seeds {ten['rt_min']:.0f}-{ten['rt_max']:.0f} s (Riverbed's "
            f"{rb10:.2f} s is {'inside' if ten['rt_min'] <= rb10 <= ten['rt_max'] else 'outside'}"
            f" it). The collapse comes from timeouts: {ten['rto_mean']:.0f} RTO expirations vs "
            f"{ten['fast_retx_mean']:.0f} fast retransmits per transfer; with a 6-segment "
            "window a second loss in the same window, a lost retransmission or lost duplicate "
            "ACKs leave too few duplicate ACKs for fast retransmit, and each timeout costs at "
            "least max(1 s, SRTT + 0.5 s clock), doubling on back-off. Dropping ACKs as well "
            "adds timeouts (a window whose ACKs are all lost ends in one) and backs the RTO "
            f"off further: {ten['rto_mean']:.0f} timeouts against "
            f"{o10['rto_mean'] if o10 else math.nan:.0f} with data drops only. The testbed "
            f"took {TABLE8[0.1][0]} s (see the Linux findings).",
            "claim",
            QUOTES["ten"],
            f"{SHORT[direction]} {mean_pm(ten['rt_mean'], ten['rt_ci'], 0)} s ({dev:+.0%})" + alt,
        )
    ]
    rdev = ten["retx_mean"] / TABLE5[0.1] - 1
    fdev = ten["frames_mean"] / TABLE6[0.1] - 1
    o_txt = (
        f"; {SHORT[_other(direction)]} {o10['retx_mean']:.0f} "
        f"({o10['retx_mean'] / TABLE5[0.1] - 1:+.0%}) and {o10['frames_mean']:.0f} "
        f"({o10['frames_mean'] / TABLE6[0.1] - 1:+.1%})"
        if o10
        else ""
    )
    out.append(
        Finding(
            "At pdrop 10 % we retransmit as many segments and send as many frames as Riverbed "
            "(Tables 5 and 6, within 15 %)",
            abs(rdev) <= TOLERANCE and abs(fdev) <= TOLERANCE,
            f"n x p is {float(models.expected_retransmissions(FILE_SIZE, MSS, 0.1, whole_segments=False)):.0f}"  # noqa: E501
            "; Riverbed's 1092 is 59 % above it, which section 4.2 puts down to Riverbed's "
            "drop process. Lost retransmissions alone give n p / (1 - p) = 761; the rest are "
            "go-back-N resends after timeouts, which dropped ACKs multiply.",
            "claim",
            QUOTES["ten_counts"],
            f"ours {ten['retx_mean']:.0f} retransmissions ({rdev:+.0%}) and "
            f"{ten['frames_mean']:.0f} frames ({fdev:+.1%}){o_txt}",
        )
    )
    ratio = ten["rt_mean"] / clean["rt_mean"]
    o_ratio = o10["rt_mean"] / o0["rt_mean"] if o10 and o0 else math.nan
    out.append(
        Finding(
            "At pdrop 10 % the download takes about 32 times as long as on the clean channel "
            "(within 15 %)",
            abs(ratio / TEXT["times_longer_10pct"] - 1) <= TOLERANCE,
            f"The paper's 32 is Riverbed's {TABLE4[0.1][0]} / {TABLE4[0.0][0]} = "
            f"{TABLE4[0.1][0] / TABLE4[0.0][0]:.1f}; less the 10 s it is "
            f"{rb10 / (TABLE4[0.0][0] - RIVERBED_OFFSET_S):.1f}; its testbed's is "
            f"{TABLE8[0.1][0] / TABLE8[0.0][0]:.2f}. Until this version the study judged '> 3 "
            "times' instead of the paper's number.",
            "claim",
            QUOTES["times32"],
            f"ours {ratio:.1f}x ({ten['rt_mean']:.0f} / {clean['rt_mean']:.1f} s); "
            f"{SHORT[_other(direction)]} {o_ratio:.1f}x",
        )
    )
    return out


def _offset_note(clean: Mapping[str, Any]) -> Finding:
    return Finding(
        "The 10 s the paper takes off Riverbed's response times is not a start offset",
        None,
        "At pdrop 0 Riverbed recorded traffic from t0 = 10 s to t1 = 60 s (section 4.3.1), "
        "and reported 60.21 s. Section 4.4 traced this to a 5 s start time in the FTP profile "
        "and a 5 s offset in the application, but 'removing these two offsets did not change "
        "the results of the FTP download response time but merely moved the previously "
        "mentioned Figure 10 to the left'; the authors could not find the setting "
        "responsible. So the 10 s is an unexplained excess in Riverbed's statistic, and "
        "'Assuming the response times in Table 4 are 10 s shorter' (and section 5's 76.83 - "
        "10 = 66.83 s) is an assumption, which we follow in 'T4 - 10 s'. Our simulator "
        "starts the download at t = 0 and measures from the request to the last byte: "
        f"{clean['rt_mean']:.2f} s at pdrop 0.",
        "note",
    )


def gap_findings(
    st: Stats, variants: Sequence[Variant], regrowth: Mapping[str, Any] | None = None
) -> list[Finding]:
    """Riverbed (1943.61 s) vs the testbed (259.66 s) at 10 %: what our variants say about
    the gap (a hypothesis, reported without a verdict), what the testbed did that our Linux
    model does not (`regrowth`), and Riverbed's retransmission count."""
    out: list[Finding] = []
    rb = st.get(("sensitivity", "riverbed", 0.1))
    if rb is None:
        return out
    testbed10, testbed0 = TABLE8[0.1][0], TABLE8[0.0][0]
    gap = rb["rt_mean"] - testbed10
    rows = []
    for v in variants:
        s10 = st.get(("sensitivity", v.key, 0.1))
        s0 = st.get(("sensitivity", v.key, 0.0))
        if v.key == "riverbed" or s10 is None or s0 is None:
            continue
        closed = (rb["rt_mean"] - s10["rt_mean"]) / gap if gap > 0 else math.nan
        matches = (
            abs(s0["rt_mean"] / testbed0 - 1) <= 0.10
            and abs(s10["rt_mean"] / testbed10 - 1) <= 0.15
        )
        rows.append((v, s0["rt_mean"], s10["rt_mean"], closed, matches))
    if rows:
        out.append(_rto_floor(st, rb, rows))
    lin = st.get(("sensitivity", "linux", 0.1))
    if lin is not None:
        out.append(_testbed_difference(st, regrowth))
    out.append(_droprate_note(st, rb))
    return out


def _rto_floor(st: Stats, rb: Mapping[str, Any], rows: list[tuple]) -> Finding:
    testbed10 = TABLE8[0.1][0]
    rto10 = {v.key: st[("sensitivity", v.key, 0.1)]["rto_mean"] for v, *_ in rows}
    singles = sorted((r for r in rows if r[0].single), key=lambda r: -r[3])
    matching = [r for r in rows if r[4]]
    by_key = {r[0].key: r for r in rows}
    floor = by_key.get("riverbed, Linux RTO floor")
    floor_lt = by_key.get("riverbed, Linux RTO floor + limited transmit")
    lin = by_key.get("linux")
    detail = (
        f"Our riverbed profile takes {rb['rt_mean']:.1f} s at 10 % with {rb['rto_mean']:.0f} "
        f"timeouts per transfer, vs the testbed's {testbed10} s. "
    )
    if singles:
        detail += (
            "One setting changed, share of that gap closed: "
            + ", ".join(
                f"{r[0].key.removeprefix('riverbed, ')} {r[3]:.0%} ({r[2]:.0f} s, "
                f"{rto10[r[0].key]:.0f} timeouts)"
                for r in singles
            )
            + ". "
        )
    detail += (
        "Within 10 % of the testbed at pdrop 0 and 15 % at 10 %: "
        + (", ".join(f"{r[0].key} ({r[1]:.1f} s / {r[2]:.1f} s)" for r in matching) or "none")
        + f" of {len(rows)} variants. The RTO floor sets what each timeout costs (Riverbed: at "
        "least max(1 s min RTO, SRTT + 0.5 s clock granularity), doubling on back-off; Linux: "
        "200 ms with a fine clock); limited transmit sets how many losses end in a timeout. "
        "Picking the one variant of a dozen that lands inside a band is not a test: the "
        "hypothesis has no verdict. The complete Linux model (our linux profile, the paper's "
        "8760-byte window, SACK, RACK-TLP, F-RTO, PRR, IW 10, limited transmit) is far "
        "faster than the testbed, so the testbed differed in more than the RTO floor."
    )
    parts = []
    for name, r in (("RTO floor", floor), ("+ limited transmit", floor_lt), ("linux", lin)):
        if r is not None:
            parts.append(f"{name} {r[2]:.0f} s ({r[2] / testbed10 - 1:+.0%})")
    return Finding(
        "Linux's RTO floor (200 ms min RTO with a fine clock) accounts for the gap between "
        "Riverbed's settings and the testbed at 10 %",
        None,
        detail,
        "hypothesis",
        evidence=f"at 10 % against the testbed's {testbed10} s: " + ", ".join(parts),
    )


def _testbed_difference(st: Stats, regrowth: Mapping[str, Any] | None) -> Finding:
    """What the paper's testbed did that our Linux (model and testbed) does not: its window came
    back after a loss in 24 RTTs (section 5.2's capture), Linux's reno in 3-4."""
    lin0, lin1, lin10 = (st[("sensitivity", "linux", p)] for p in (0.0, 0.01, 0.1))
    per_drop = TEXT["per_drop_s"]
    tb0, tb1 = TABLE8[0.0][0], TABLE8[0.01][0]
    ours_cost = (lin1["rt_mean"] - lin0["rt_mean"]) / lin1["retx_mean"]
    paper_cost = (tb1 - tb0) / TEXT["naive_retransmitted_1pct"]
    predicted = lin0["rt_mean"] + lin1["retx_mean"] * per_drop
    g = dict(regrowth or {})
    fast = [v for k, v in g.items() if k in ("linux", "testbed")]
    holds = abs(predicted / tb1 - 1) <= TOLERANCE and bool(fast) and max(fast) <= PAPER_REGROWTH / 3
    measured = ", ".join(f"{REGROWTH_LABELS[k]} {v:.1f}" for k, v in g.items())
    tb10 = st.get(("testbed", "linux", 0.1))
    tb_text = (
        f" Our testbed (Linux {tb10['rt_mean']:.0f} s at 10 %) agrees with our linux model, "
        "not with the paper's testbed."
        if tb10 is not None and not math.isnan(tb10["rt_mean"])
        else " Run with --testbed to measure the same on this machine's kernel."
    )
    return Finding(
        "What the testbed did that our Linux does not: after each loss its window took 24 RTTs "
        "to come back, where Linux's reno takes 3-4 (section 5.2)",
        holds if fast else None,
        "Section 5.2 reads the testbed's capture at 1 %: after a fast retransmit the server "
        "'keeps sending three segments' for 15 RTTs, then 'nine times alternately four and "
        "five', then six: 24 RTTs to the full window, 10.67 RTTs (0.4268 s) lost per drop. "
        "Linux's reno grows its window by a segment per RTT once the window is the limit, so "
        "from 3 to 6 segments takes 3 RTTs (trace column cwnd of the traced runs; median RTTs "
        f"from the end of a fast recovery to 6 segments: {measured or 'not traced'}). A window "
        "held at 3 segments for 15 RTTs was not the congestion window's doing: the sender was "
        "held by the receiver's window, which Figure 10 shows falling to 2920 bytes while the "
        "client 'did not have a chance to read the data'. A receiver whose whole buffer is "
        "the paper's 8760-byte window shrinks and regrows its offer with the application's "
        "reads and its memory accounting; our simulator's receiver reads at once, and our "
        "testbed clamps the window in the forwarder (a real 17,520-byte buffer on this "
        "kernel, tried by hand, made the 1 % download faster, 50 s, not slower), so neither "
        "holds the sender back after a loss. Test: (1) our linux model regrows in at most a "
        "third of the paper's 24 RTTs, and (2) its clean time plus its retransmissions at "
        "1 % times the paper's 0.4268 s per drop gives the testbed's 75.84 s within 15 %. At "
        "10 % the same cost per loss, on top of Linux's timeouts, would explain why the "
        f"testbed took 259.66 s where our linux model takes {lin10['rt_mean']:.0f} s." + tb_text,
        "hypothesis",
        evidence=f"RTTs back to 6 segments: paper 24, {measured or 'not traced'}; "
        f"{lin0['rt_mean']:.1f} s + {lin1['retx_mean']:.0f} x 0.4268 s = {predicted:.1f} s vs "
        f"75.84 s ({predicted / tb1 - 1:+.0%}); cost per drop: testbed {paper_cost:.2f} s, our "
        f"linux model {ours_cost:.3f} s",
    )


def _droprate_note(st: Stats, rb: Mapping[str, Any]) -> Finding:
    rb_off = TABLE4[0.1][0] - RIVERBED_OFFSET_S
    pts = [(0.1, rb)] + [
        (p, st[("droprate", "riverbed", p)])
        for p in DROPRATE_PDROPS
        if ("droprate", "riverbed", p) in st
    ]
    text = (
        f"Ours with Riverbed's settings: {rb['rt_mean']:.1f} s at 10 % vs Riverbed's "
        f"{rb_off:.2f} s (less 10 s), i.e. {rb['rt_mean'] / rb_off:.2f}x; Riverbed "
        f"retransmitted 1092 segments, we {rb['retx_mean']:.0f}. "
    )
    if len(pts) > 1:
        retx = np.array([s["retx_mean"] for _, s in pts])
        rts = np.array([s["rt_mean"] for _, s in pts])
        ps = np.array([p for p, _ in pts])
        if retx.min() <= TABLE5[0.1] <= retx.max():
            p_eq = float(np.interp(TABLE5[0.1], retx, ps))
            rt_eq = float(np.interp(TABLE5[0.1], retx, rts))
            text += (
                f"Our model retransmits 1092 segments at pdrop ~{p_eq:.1%}, where it takes "
                f"~{rt_eq:.0f} s."
            )
        else:
            text += (
                f"Across pdrop {pct(ps.min())}-{pct(ps.max())} we retransmit "
                f"{retx.min():.0f}-{retx.max():.0f} segments and take {rts.min():.0f}-"
                f"{rts.max():.0f} s."
            )
    return Finding(
        "How much loss our Riverbed model needs to retransmit as much as Riverbed (1092)",
        None,
        text,
        "note",
    )
