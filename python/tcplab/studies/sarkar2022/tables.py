"""The study's tables: our statistics per (group, variant, pdrop), Tables 3-8 side by side
with ours, Table 1, the sensitivity analysis, the drop rates above 10 % and Table 9."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from tcplab import models

from .._base import TableOut
from .._kit import aggregate, mean_pm, pct, pm
from .paper import (
    DIRECTION,
    DIRECTIONS,
    DROPRATE_PDROPS,
    FILE_SIZE,
    MAIN_COLUMNS,
    MSS,
    PDROPS,
    RIVERBED_OFFSET_S,
    TABLE1,
    TABLE3,
    TABLE4,
    TABLE5,
    TABLE6,
    TABLE8,
    TABLE9,
    TESTBED_COLUMN,
    Variant,
)

#: Statistics over seeds per (group, variant, pdrop), the keys of `stats`.
Stats = dict[tuple[str, str, float], dict[str, Any]]

# Columns with a mean, 95 % CI half-width, min and max (the last two unused for retx and
# throughput) and columns with a plain mean: (name in `Stats`, column of `res.runs`).
_CI = {"rt": "response_time_s", "retx": "retransmissions", "throughput": "throughput_Bps"}
_MEAN = {
    "rto": "rto_expirations",
    "fast_retx": "fast_retransmits",
    "frames": "frames_sent",
    "dropped": "frames_dropped",
    "data_segments": "data_segments_sent",
    "srtt": "srtt_s",
}
#: The statistics of one group, in order.
_KEYS = (
    "runs", "completed", "rt_mean", "rt_ci", "rt_min", "rt_max", "retx_mean", "retx_ci",
    "rto_mean", "fast_retx_mean", "frames_mean", "dropped_mean", "data_segments_mean",
    "throughput_mean", "throughput_ci", "srtt_mean",
)  # fmt: skip


def stats(runs: pd.DataFrame, direction: str = DIRECTION) -> Stats:
    """Mean (95 % CI, min-max) of every group, variant and pdrop of the study's runs; the
    sensitivity table's riverbed row is the main grid."""
    agg = aggregate(
        runs, ["group", "variant", "pdrop"], ci=_CI, mean=_MEAN, total={"completed": "completed"}
    ).rename(columns={"completed_total": "completed"})
    out: Stats = {}
    for row in agg.to_dict("records"):
        key = (str(row["group"]), str(row["variant"]), float(row["pdrop"]))
        out[key] = {k: row[k] for k in _KEYS}
    for p in PDROPS:
        if ("main", "riverbed", p) in out:
            out[("sensitivity", "riverbed", p)] = out[("main", "riverbed", p)]
            out[("direction", direction, p)] = out[("main", "riverbed", p)]
    return out


def main_table(st: Stats, n_seeds: int, direction: str = DIRECTION) -> TableOut:
    """Tables 3-8 next to ours: response time, retransmissions and frames per pdrop (with our
    testbed's column when the testbed part ran)."""
    n = FILE_SIZE / MSS
    clean = st[("main", "riverbed", 0.0)]["rt_mean"]
    rows, disp = [], []
    for p in PDROPS:
        s = st[("main", "riverbed", p)]
        expected = float(models.expected_retransmissions(FILE_SIZE, MSS, p, whole_segments=False))
        row = {
            "pdrop": p,
            "ber_table3": TABLE3[p][0],
            "riverbed_rt_s": TABLE4[p][0],
            "riverbed_rt_minus_offset_s": TABLE4[p][0] - RIVERBED_OFFSET_S,
            "testbed_rt_s": TABLE8[p][0],
            "ours_rt_mean_s": s["rt_mean"],
            "ours_rt_ci95_s": s["rt_ci"],
            "ours_rt_min_s": s["rt_min"],
            "ours_rt_max_s": s["rt_max"],
            "ours_completed": s["completed"],
            "ours_runs": s["runs"],
            "paper_retransmissions": TABLE5[p],
            "ours_retransmissions_mean": s["retx_mean"],
            "ours_retransmissions_ci95": s["retx_ci"],
            "paper_frames_sent": TABLE6[p],
            "ours_frames_sent_mean": s["frames_mean"],
            "expected_n_p": expected,
            "ours_frames_dropped_mean": s["dropped_mean"],
            "ours_vs_clean": s["rt_mean"] / clean,
            "riverbed_vs_clean": TABLE4[p][0] / TABLE4[0.0][0],
            "testbed_vs_clean": TABLE8[p][0] / TABLE8[0.0][0],
        }
        rows.append(row)
        incomplete = "" if s["completed"] == s["runs"] else f" ({s['completed']}/{s['runs']})"
        disp.append(
            (
                pct(p),
                TABLE3[p][0],
                f"{TABLE4[p][0]:.2f}",
                f"{TABLE4[p][0] - RIVERBED_OFFSET_S:.2f}",
                f"{TABLE8[p][0]:.2f}",
                f"{s['rt_mean']:.2f}{incomplete}",
                pm(s["rt_ci"]),
                f"{s['rt_min']:.2f}-{s['rt_max']:.2f}",
                str(TABLE5[p]),
                f"{s['retx_mean']:.1f}",
                str(TABLE6[p]),
                f"{s['frames_mean']:.0f}",
                f"{expected:.2f}",
                f"{s['rt_mean'] / clean:.2f}",
            )
        )
    note = (
        f"T3-T8: the paper's Tables 3-8. Ours: {n_seeds} seeds per scenario, mean, "
        "Student-t 95 % confidence half-width, min-max; 'ours frames' are the server's frames "
        "on link wan (a->b), 'ours retx' the server's retransmitted segments. pdrop drops "
        f"{DIRECTIONS[direction]}. 'T4 - 10 s': Riverbed's times less the 10 s the paper "
        "subtracts by assumption (section 4.4 found that removing its two 5 s start offsets "
        f"did not change the response time; section 5 subtracts 10 s anyway). n = {n:.2f} "
        "segments (section 4.1). 'x clean': response time / that at pdrop 0 (paper: "
        f"{TABLE4[0.1][0] / TABLE4[0.0][0]:.1f} in Riverbed, "
        f"{TABLE8[0.1][0] / TABLE8[0.0][0]:.2f} in the testbed at 10 %)."
    )
    data, display = pd.DataFrame(rows), pd.DataFrame(disp, columns=list(MAIN_COLUMNS))
    if any(("testbed", "linux", p) in st for p in PDROPS):
        tb = [st.get(("testbed", "linux", p), {}).get("rt_mean", math.nan) for p in PDROPS]
        data["testbed_ours_rt_s"] = tb
        at = list(MAIN_COLUMNS).index("testbed (T8) s") + 1
        display.insert(at, TESTBED_COLUMN, ["-" if math.isnan(x) else f"{x:.2f}" for x in tb])
        note += (
            f" '{TESTBED_COLUMN}': our Linux testbed (Linux reno as shipped, 8760-byte window; "
            "see the testbed table)."
        )
    return TableOut(
        "main",
        "Tables 3-8: response time, retransmissions and frames per pdrop",
        data,
        display,
        note,
    )


def table1() -> TableOut:
    """Table 1: the paper's BER-to-PER rule against the linear and exact models."""
    rows, disp = [], []
    for ber, p1250, p1500 in TABLE1:
        r = {"ber": ber, "paper_per_1250": p1250, "paper_per_1500": p1500}
        for L in (1250, 1500):
            r[f"linear_{L}"] = float(models.per_from_ber_linear(ber, L))
            r[f"exact_{L}"] = float(models.per_from_ber(ber, L))
        rows.append(r)
        disp.append(
            (
                f"{ber:.0e}",
                p1250,
                r["linear_1250"],
                r["exact_1250"],
                p1500,
                r["linear_1500"],
                r["exact_1500"],
            )
        )
    cols = [
        "BER",
        "paper L=1250",
        "linear L=1250",
        "exact L=1250",
        "paper L=1500",
        "linear L=1500",
        "exact L=1500",
    ]
    note = (
        "PER of an L-byte frame. 'linear': the paper's PER = BER x L (L in bits, 8 x bytes), "
        "tcplab.models.per_from_ber_linear; 'exact': 1 - (1 - BER)^(8L), "
        "tcplab.models.per_from_ber, the rule of our simulator's 'ber' error model. The "
        "linear rule exceeds 1 from BER 1e-4, where every frame is lost; it is within 1 % "
        "of the exact value for PER up to about 2 %."
    )
    return TableOut(
        "table1",
        "Table 1: BER to PER for 1250- and 1500-byte packets",
        pd.DataFrame(rows),
        pd.DataFrame(disp, columns=cols),
        note,
    )


def sensitivity_table(st: Stats, variants: Sequence[Variant]) -> TableOut | None:
    """Response time per pdrop of every TCP variant, under the paper's two environments."""
    keys = [v.key for v in variants]
    if len(keys) <= 1:
        return None
    testbed10 = TABLE8[0.1][0]
    rows, disp = [], []
    cols = ["variant", *[f"{pct(p)} s" for p in PDROPS], "10 %: RTOs", "10 %: / testbed"]
    disp.append(
        (
            "paper: Riverbed (T4 - 10 s)",
            *[TABLE4[p][0] - RIVERBED_OFFSET_S for p in PDROPS],
            "-",
            f"{(TABLE4[0.1][0] - RIVERBED_OFFSET_S) / testbed10:.2f}",
        )
    )
    disp.append(("paper: Linux testbed (T8)", *[TABLE8[p][0] for p in PDROPS], "-", "1.00"))
    for v in variants:
        s = [st.get(("sensitivity", v.key, p)) for p in PDROPS]
        if any(x is None for x in s):
            continue
        row = {"variant": v.key, "change": v.change, "single": v.single}
        for p, x in zip(PDROPS, s, strict=True):
            row[f"rt_mean_{pct(p)}"] = x["rt_mean"]
            row[f"rt_ci_{pct(p)}"] = x["rt_ci"]
            row[f"retx_mean_{pct(p)}"] = x["retx_mean"]
            row[f"rto_mean_{pct(p)}"] = x["rto_mean"]
        row["rt10_vs_testbed"] = s[-1]["rt_mean"] / testbed10
        rows.append(row)
        disp.append(
            (
                v.key,
                *[mean_pm(x["rt_mean"], x["rt_ci"]) for x in s],
                f"{s[-1]['rto_mean']:.0f}",
                f"{row['rt10_vs_testbed']:.2f}",
            )
        )
    changes = "; ".join(f"{v.key}: {v.change}" for v in variants if v.key != "riverbed")
    note = (
        "Mean response time (s) +/- 95 % CI over the same seeds as the main grid, for TCP "
        f"settings other than Riverbed's. {changes}."
    )
    return TableOut(
        "sensitivity",
        "Sensitivity: which TCP setting separates Riverbed from the Linux testbed",
        pd.DataFrame(rows),
        pd.DataFrame(disp, columns=cols),
        note,
    )


def droprate_table(st: Stats) -> TableOut | None:
    """The riverbed profile above 10 % (DROPRATE_PDROPS): how much loss it needs to retransmit
    as much as Riverbed did."""
    ps = [p for p in (0.1, *DROPRATE_PDROPS) if ("droprate", "riverbed", p) in st or p == 0.1]
    if len(ps) < 2:
        return None
    rows, disp = [], []
    for p in ps:
        s = st[("main", "riverbed", p)] if p == 0.1 else st[("droprate", "riverbed", p)]
        rows.append(
            {
                "pdrop": p,
                "rt_mean_s": s["rt_mean"],
                "rt_ci_s": s["rt_ci"],
                "retransmissions_mean": s["retx_mean"],
                "frames_dropped_mean": s["dropped_mean"],
                "rto_mean": s["rto_mean"],
                "completed": s["completed"],
                "runs": s["runs"],
            }
        )
        disp.append(
            (
                pct(p),
                mean_pm(s["rt_mean"], s["rt_ci"]),
                f"{s['retx_mean']:.0f}",
                f"{s['dropped_mean']:.0f}",
                f"{s['rto_mean']:.0f}",
            )
        )
    note = (
        "Riverbed's 10 % scenario retransmitted 1092 segments (Table 5), 59 % more than n x "
        "pdrop = 685 (Table 7), and took 1943.61 s less 10 s. These runs ask how much "
        "loss our riverbed model needs to retransmit as much, and how long it then takes."
    )
    return TableOut(
        "droprate",
        "Riverbed profile above 10 %: retransmissions and response time",
        pd.DataFrame(rows),
        pd.DataFrame(disp, columns=["pdrop", "ours s", "retx", "dropped", "RTOs"]),
        note,
    )


def table9(sim: list[float], t0: float, rtt: float, seed: int) -> TableOut:
    """Table 9 against the model and our simulation (`traced.ca_growth_sim`: cwnd per RTT
    `sim` from `t0` with RTT `rtt`, in the traced run of seed `seed`)."""
    model = models.cwnd_growth_ca(TABLE9[0][1], MSS, len(TABLE9) - 1, acks_per_rtt=1)
    rows, disp = [], []
    for (k, paper, paper_mss), m in zip(TABLE9, model, strict=True):
        ours = sim[k] if k < len(sim) else math.nan
        rows.append(
            {
                "rtt": k,
                "paper_cwnd": paper,
                "paper_mss": paper_mss,
                "model_cwnd": float(m),
                "model_mss": int(m // MSS),
                "ours_cwnd": ours,
                "ours_mss": math.nan if math.isnan(ours) else int(ours // MSS),
            }
        )
        disp.append(
            (
                k,
                paper,
                paper_mss,
                round(float(m)),
                int(m // MSS),
                "-" if math.isnan(ours) else round(ours),
                "-" if math.isnan(ours) else int(ours // MSS),
            )
        )
    where = (
        f"ours: the simulated cwnd k x {rtt * 1000:.1f} ms (median SRTT) after the first "
        f"fast recovery of the 1 % run (seed {seed}, t = {t0:.2f} s) that is "
        "followed by 15 loss-free RTTs, starting from its own ssthresh (flight / 2)"
        if sim
        else "ours: no fast recovery followed by 15 loss-free RTTs in the traced 1 % run"
    )
    note = (
        "cwnd in congestion avoidance from 3 MSS. model: tcplab.models.cwnd_growth_ca(4380, "
        "1460, acks_per_rtt=1), cwnd += MSS*MSS/cwnd once per RTT (RFC 5681 eq. 3); it "
        f"reproduces the table except the paper's typo at RTT 6 (7762 for 6762). {where}; "
        "our receiver ACKs every second segment, so cwnd grows by up to two such steps per "
        "RTT."
    )
    return TableOut(
        "table9",
        "Table 9: cwnd growth per RTT in congestion avoidance",
        pd.DataFrame(rows),
        pd.DataFrame(
            disp,
            columns=[
                "RTT",
                "paper B",
                "paper MSS",
                "model B",
                "model MSS",
                "ours B",
                "ours MSS",
            ],
        ),
        note,
    )
