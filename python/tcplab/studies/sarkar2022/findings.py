"""The paper's claims tested on our runs, and what the sensitivity analysis says separates
Riverbed from the Linux testbed at 10 %."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from tcplab import models
from tcplab.report.timeseq import LossWindow

from .._base import Finding
from .._kit import mean_pm, pct
from .paper import (
    DROPRATE_PDROPS,
    FILE_SIZE,
    MSS,
    PDROPS,
    RIVERBED_OFFSET_S,
    TABLE4,
    TABLE5,
    TABLE8,
    TEXT,
    Variant,
)
from .tables import Stats


def findings(
    main_runs: pd.DataFrame, st: Stats, window: LossWindow | None, variants: Sequence[Variant]
) -> list[Finding]:
    """The paper's claims tested on our runs (`main_runs`: the main grid's rows), the
    sensitivity analysis (`gap_findings`) and the first loss at 1 % (`window`)."""
    main = {p: st[("main", "riverbed", p)] for p in PDROPS}
    clean, one, ten = main[0.0], main[0.01], main[0.1]
    out: list[Finding] = []

    tb0 = TABLE8[0.0][0]
    dev = clean["rt_mean"] / tb0 - 1
    out.append(
        Finding(
            "At pdrop 0 our response time is within 10 % of the paper's testbed (50.25 s)",
            abs(dev) <= 0.10,
            f"ours {clean['rt_mean']:.2f} s ({dev:+.1%}); Riverbed's 60.21 s includes a 10 s "
            f"start offset (section 4.4): 50.21 s without it. The window limit rwnd / RTT "
            f"predicts 45.66 s (section 4.4); the rest is the RTT the window actually sees "
            f"({clean['srtt_mean'] * 1000:.1f} ms: 40 ms of propagation plus serialising a "
            "1538-byte frame on each 10 Mbit/s hop and the ACK).",
        )
    )

    lo, hi = 0.85 * TEXT["riverbed_1pct_minus_offset_s"], 1.15 * TABLE8[0.01][0]
    inside = lo <= one["rt_mean"] <= hi
    between = TEXT["riverbed_1pct_minus_offset_s"] <= one["rt_mean"] <= TABLE8[0.01][0]
    out.append(
        Finding(
            "At pdrop 1 % our response time lies between the paper's two environments "
            "(66.83 s Riverbed without offset, 75.84 s testbed) +/- 15 %",
            inside,
            f"ours {mean_pm(one['rt_mean'], one['rt_ci'])} s (range over seeds "
            f"{one['rt_min']:.1f}-{one['rt_max']:.1f} s); the band is {lo:.1f}-{hi:.1f} s; "
            f"strictly between 66.83 and 75.84 s: {'yes' if between else 'no'} "
            f"({one['rt_mean'] / TEXT['riverbed_1pct_minus_offset_s'] - 1:+.0%} vs Riverbed, "
            f"{one['rt_mean'] / TABLE8[0.01][0] - 1:+.0%} vs the testbed). At 1 % our "
            f"transfer still waits out {one['rto_mean']:.1f} timeouts of at least 1 s each "
            f"besides {one['fast_retx_mean']:.1f} fast retransmits.",
        )
    )

    parts, ok = [], True
    for p in (0.0001, 0.001, 0.01):
        s = main[p]
        np_ = float(models.expected_retransmissions(FILE_SIZE, MSS, p, whole_segments=False))
        se = math.sqrt(np_ / max(s["runs"], 1))
        ok &= s["retx_mean"] + 2 * se >= np_
        parts.append(
            f"{pct(p)}: ours {s['retx_mean']:.1f} vs n x p {np_:.2f} "
            f"({s['retx_mean'] / np_:.2f}x; Riverbed {TABLE5[p]})"
        )
    out.append(
        Finding(
            "At 0.01-1 % we retransmit at least n x pdrop segments (section 4.2)",
            bool(ok),
            "; ".join(parts)
            + ". Above n x p come retransmissions of lost retransmissions and go-back-N "
            "resends after timeouts; Riverbed's 62 at 1 % is below n x p, which the paper "
            "attributes to how Riverbed draws its drops.",
        )
    )

    d = main_runs
    resend = d["retransmissions"] + d["syn_retransmissions"]
    every = bool((resend >= d["frames_dropped_to_resend"]).all())
    out.append(
        Finding(
            "Every run retransmits at least the frames the channel dropped",
            every,
            f"{int((resend >= d['frames_dropped_to_resend']).sum())} of {len(d)} runs: "
            "retransmissions (incl. SYN-ACK) >= dropped SYN-ACK, data and FIN frames. A "
            "dropped final pure ACK is never resent, so the raw frames_dropped can exceed "
            "retransmissions by one.",
        )
    )

    means = [main[p]["rt_mean"] for p in PDROPS]
    rising = all(b >= a for a, b in zip(means, means[1:], strict=False))
    out.append(
        Finding(
            "The response time rises with pdrop (Tables 4 and 8)",
            rising,
            ", ".join(f"{pct(p)}: {m:.2f} s" for p, m in zip(PDROPS, means, strict=True)),
        )
    )

    ratio = ten["rt_mean"] / clean["rt_mean"]
    out.append(
        Finding(
            "At pdrop 10 % the download takes more than 3 times as long as on the clean "
            "channel (the paper: 'about 32 times longer')",
            ratio > 3,
            f"ours {ratio:.1f}x ({ten['rt_mean']:.1f} s); Riverbed {TABLE4[0.1][0]:.2f} / "
            f"{TABLE4[0.0][0]:.2f} = {TABLE4[0.1][0] / TABLE4[0.0][0]:.1f}x (the paper's "
            f"'32 times'), testbed {TABLE8[0.1][0] / TABLE8[0.0][0]:.2f}x. The collapse comes "
            f"from timeouts: {ten['rto_mean']:.0f} RTO expirations vs "
            f"{ten['fast_retx_mean']:.0f} fast retransmits per transfer; with a 6-segment "
            "window a second loss in the same window, or a lost retransmission, leaves too "
            "few duplicate ACKs for fast retransmit.",
        )
    )
    out.extend(gap_findings(st, variants))
    if window is not None:
        out.append(
            Finding(
                "The first loss at 1 % is repaired by fast retransmit after three duplicate "
                "ACKs (Figure 10)",
                window.recovery == "fast retransmit" and window.dupacks_before_retransmit == 3,
                f"segment {window.lost_seq} sent at {window.t_lost_send:.3f} s was lost; the "
                f"server had {window.dupacks_before_retransmit} duplicate ACKs when it "
                f"retransmitted at {window.t_retransmit:.3f} s; the first ACK above it "
                f"arrived at {window.t_recovered:.3f} s, "
                f"{(window.t_recovered - window.t_lost_send) / window.rtt_s:.1f} RTTs after "
                "the loss (paper's testbed: about 3 RTTs, 12 segments delivered instead of "
                "18).",
            )
        )
    return out


def gap_findings(st: Stats, variants: Sequence[Variant]) -> list[Finding]:
    """Which TCP setting explains Riverbed (1943.61 s) vs testbed (259.66 s) at 10 %."""
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
    if not rows:
        return out
    singles = sorted((r for r in rows if r[0].single), key=lambda r: -r[3])
    matching = [r for r in rows if r[4]]
    rto10 = {v.key: st[("sensitivity", v.key, 0.1)]["rto_mean"] for v, *_ in rows}
    detail = (
        f"Our riverbed profile takes {rb['rt_mean']:.1f} s at 10 % with "
        f"{rb['rto_mean']:.0f} timeouts per transfer, vs the testbed's {testbed10} s. "
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
    if matching:
        detail += (
            "Within 10 % of the testbed at pdrop 0 and within 15 % at 10 %: "
            + ", ".join(f"{r[0].key} ({r[1]:.1f} s / {r[2]:.1f} s)" for r in matching)
            + ". "
        )
    else:
        detail += "No variant is within 10 % of the testbed at pdrop 0 and 15 % at 10 %. "
    combos = [r for r in rows if not r[0].single and r[0].key.startswith("riverbed")]
    if combos:
        detail += (
            "Combinations: "
            + ", ".join(
                f"{r[0].key} {r[2]:.1f} s ({r[2] / testbed10 - 1:+.0%} vs the testbed)"
                for r in combos
            )
            + ". "
        )
    detail += (
        "Two mechanisms: the RTO floor sets what each timeout costs (Riverbed: at least "
        "max(1 s min RTO, SRTT + 0.5 s clock granularity), doubling on back-off; Linux: "
        "200 ms with a fine clock), so rto_min 200 ms alone still leaves the 0.5 s "
        "granularity; limited transmit sets how many losses end in a timeout at all (it "
        "lets a 6-segment window collect three duplicate ACKs more often). The variants "
        "that change rwnd (rfc, rwnd 65535) also move the clean channel far from the "
        "testbed's 50.25 s, so they cannot be what the testbed differed in."
    )
    floor = next((r for r in rows if r[0].key == "riverbed, Linux RTO floor"), None)
    claim = (
        "Linux's RTO floor (200 ms min RTO with a fine clock) accounts for the gap between "
        "Riverbed's settings and the testbed at 10 % (within 15 %, clean channel unchanged)"
    )
    holds = None if floor is None else bool(floor[4])
    out.append(Finding(claim, holds, detail))

    # Riverbed's own 10 % result.
    rb_off = TABLE4[0.1][0] - RIVERBED_OFFSET_S
    pts = [(0.1, rb)] + [
        (p, st[("droprate", "riverbed", p)])
        for p in DROPRATE_PDROPS
        if ("droprate", "riverbed", p) in st
    ]
    text = (
        f"Ours with Riverbed's settings: {rb['rt_mean']:.1f} s at 10 % vs Riverbed's "
        f"{rb_off:.2f} s (without offset), i.e. {rb['rt_mean'] / rb_off:.2f}x. Riverbed "
        f"retransmitted 1092 segments, 59 % above n x p (685); we retransmit "
        f"{rb['retx_mean']:.0f} (close to n p / (1 - p) = 761 lost transmissions plus "
        "timeout resends). "
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
                f"~{rt_eq:.0f} s: Riverbed's extra drops explain "
                f"{(rt_eq - rb['rt_mean']) / (rb_off - rb['rt_mean']):.0%} of the "
                "difference; the rest we cannot attribute from the paper (Riverbed's "
                "drop process and RTO back-off details are not documented)."
            )
        else:
            text += (
                f"Across pdrop {pct(ps.min())}-{pct(ps.max())} we retransmit "
                f"{retx.min():.0f}-{retx.max():.0f} segments and take {rts.min():.0f}-"
                f"{rts.max():.0f} s."
            )
    out.append(
        Finding(
            "Riverbed's 10 % response time (1953.61 s) is not reproduced",
            None,
            text,
        )
    )
    return out
