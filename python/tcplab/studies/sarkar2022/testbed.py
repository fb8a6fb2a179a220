"""The testbed part (option `testbed`): the five pdrop values downloaded over the Linux testbed
in both TESTBED_MODES, their table (Table 8 on our testbed) and what they show."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from tcplab.sweep.grid import seed_list

from .._base import Case, Finding, StudyResult, TableOut, _progress
from .._kit import pct
from .paper import DIRECTION, PDROPS, TABLE8, TESTBED_MODES, TESTBED_WINDOW, error_override
from .tables import Stats

if TYPE_CHECKING:
    from tcplab import Result, Scenario


def check_testbed_options(options: Mapping[str, Any]) -> None:
    """Raise if the testbed options are out of range, or the testbed is asked for and cannot
    run here."""
    if int(options["testbed_seeds"]) < 1:
        raise ValueError(f"option 'testbed_seeds' = {options['testbed_seeds']}: must be >= 1")
    if not 1 <= float(options["testbed_budget_s"]) <= 86400:
        raise ValueError(
            f"option 'testbed_budget_s' = {options['testbed_budget_s']}: must be in "
            "[1, 86400] seconds"
        )
    if options["testbed"]:
        from tcplab.testbed import check_available

        check_available()  # TestbedUnavailable says what is missing (Linux, root, ...)


def testbed_plans(
    base: Scenario, seed: int = 1, direction: str = DIRECTION
) -> dict[tuple[str, float], Any]:
    """The testbed plan (`tcplab.testbed.plan.plan`) of every (mode, pdrop) on `base`, pdrop
    dropping `direction` (`DIRECTIONS`)."""
    from tcplab.testbed import plan as tb_plan

    out = {}
    for mode, (_, ov) in TESTBED_MODES.items():
        for p in PDROPS:
            sc = base.with_overrides({**ov, **error_override(p, direction), "seed": seed})
            out[(mode, p)] = (sc, tb_plan.plan(sc))
    return out


def run_testbed(
    res: StudyResult,
    base: Scenario,
    row_of: Callable[[Case, int, Result], dict[str, Any]],
    *,
    name: str,
    progress: bool = False,
    direction: str = DIRECTION,
) -> None:
    """Run every pdrop of `base` in both TESTBED_MODES on the testbed, once per testbed seed,
    and add the runs to `res.runs` as group "testbed" (variant = the mode; a completed run's
    row from `row_of`, the study's `_row`). A run that exceeds `testbed_budget_s` is stopped
    and kept as a capped row."""
    from tcplab.testbed import plan as tb_plan
    from tcplab.testbed import result as tb_result
    from tcplab.testbed.errors import TestbedRunError, TestbedTimeout

    seeds = seed_list(int(res.options["testbed_seeds"]))
    budget = float(res.options["testbed_budget_s"])
    jobs = [(mode, p, seed) for p in PDROPS for mode in TESTBED_MODES for seed in seeds]
    rows: list[dict[str, Any]] = []
    info: dict[str, Any] = {"modes": {}, "budget_s": budget, "seeds": seeds}
    with _progress(progress) as bar:
        task = bar.add_task(f"{name}: testbed (real time)", total=len(jobs))
        for mode, p, seed in jobs:
            ov = {**TESTBED_MODES[mode][1], **error_override(p, direction)}
            sc = base.with_overrides({**ov, "seed": seed})
            plan = tb_plan.plan(sc, time_budget_s=budget)
            case = Case(
                key=f"testbed/{mode}/{pct(p)}",
                group="testbed",
                variant=mode,
                params={"pdrop": p},
                overrides=ov,
            )
            t0 = time.perf_counter()
            try:
                r = tb_result.run_plan(sc, plan)
            except TestbedTimeout as e:
                row = {
                    "study": name, "case": case.key, "group": "testbed",
                    "variant": mode, "seed": seed, "pdrop": p,
                    "overrides": _json_overrides(ov), "completed": False,
                    "response_time_s": math.nan, "testbed_error": str(e),
                }  # fmt: skip
                capped = True
            except TestbedRunError as e:
                # A run that failed (an endpoint killed from outside, say) is kept as a failed
                # row, so the other runs of a long real-time study are not lost with it.
                row = {
                    "study": name, "case": case.key, "group": "testbed",
                    "variant": mode, "seed": seed, "pdrop": p,
                    "overrides": _json_overrides(ov), "completed": False,
                    "response_time_s": math.nan, "testbed_error": str(e),
                    "testbed_failed": True,
                }  # fmt: skip
                capped = False
            else:
                row = row_of(case, seed, r)
                capped = False
                if seed == seeds[0]:
                    res.traced[case.key] = r
                row["max_rcv_window_seen"] = r.summary.get("max_rcv_window_seen")
                row["kernel_recovery"] = r.summary["connections"][0]["loss_recovery"]
                info["modes"].setdefault(mode, {})["kernel_settings"] = r.summary["kernel_settings"]
            row["testbed_capped"] = capped
            row["testbed_budget_s"] = budget
            row["testbed_wall_s"] = time.perf_counter() - t0
            row["window_limited_time_s"] = tb_plan.window_limited_time(plan)
            rows.append(row)
            m = info["modes"].setdefault(mode, {})
            m["description"] = TESTBED_MODES[mode][0]
            m["approximations"] = plan.approximations
            m["config"] = {
                k: v for k, v in plan.config.to_dict().items() if k not in ("error_s2c", "seed")
            }
            bar.advance(task)
    res.runs = pd.concat([res.runs, pd.DataFrame(rows)], ignore_index=True)
    res.extra["testbed"] = info


def testbed_table(res: StudyResult, st: Stats) -> TableOut | None:
    """Table 8 on our testbed, next to the paper's testbed and our simulator (None without
    testbed runs)."""
    tb = res.group("testbed")
    if tb.empty:
        return None
    rows, disp = [], []
    budget = float(res.options.get("testbed_budget_s", math.nan))
    for p in PDROPS:
        row: dict[str, Any] = {
            "pdrop": p,
            "paper_testbed_rt_s": TABLE8[p][0],
            "ours_sim_rt_mean_s": st[("main", "riverbed", p)]["rt_mean"],
        }
        cells = [pct(p), f"{TABLE8[p][0]:.2f}"]
        for mode in TESTBED_MODES:
            d = tb[(tb["variant"] == mode) & (tb["pdrop"] == p)]
            s = st.get(("testbed", mode, p))
            capped = int(d["testbed_capped"].sum()) if len(d) else 0
            rt = s["rt_mean"] if s else math.nan
            row[f"{mode}_rt_mean_s"] = rt
            row[f"{mode}_runs"] = len(d)
            row[f"{mode}_capped"] = capped
            row[f"{mode}_retransmissions_mean"] = s["retx_mean"] if s else math.nan
            row[f"{mode}_rto_mean"] = s["rto_mean"] if s else math.nan
            row[f"{mode}_max_window"] = (
                float(d["max_rcv_window_seen"].max()) if "max_rcv_window_seen" in d else None
            )
            txt = "-" if math.isnan(rt) else f"{rt:.2f}"
            if capped:
                txt = f"> {budget:.0f} (capped)" if capped == len(d) else f"{txt} ({capped} capped)"
            cells += [
                txt,
                "-" if not s or math.isnan(s["retx_mean"]) else f"{s['retx_mean']:.0f}",
                "-" if not s or math.isnan(s["rto_mean"]) else f"{s['rto_mean']:.0f}",
            ]
        cells.append(f"{row['ours_sim_rt_mean_s']:.2f}")
        wins = (
            tb.loc[tb["pdrop"] == p, "max_rcv_window_seen"] if "max_rcv_window_seen" in tb else []
        )
        wins = sorted({int(w) for w in wins if w == w and w is not None})
        cells.append(", ".join(map(str, wins)) or "-")
        rows.append(row)
        disp.append(tuple(cells))
    cols = ["pdrop", "paper testbed (T8) s"]
    for mode in TESTBED_MODES:
        cols += [f"{mode} s", f"{mode} retx", f"{mode} RTOs"]
    cols += ["ours sim (riverbed) s", "window seen (B)"]
    seeds = res.extra.get("testbed", {}).get("seeds", [])
    note = (
        f"Our testbed: real Linux TCP between network namespaces through tcplab-netem, "
        f"{len(seeds)} seed(s) per pdrop and mode, in real time. "
        + " ".join(f"{m}: {d}." for m, (d, _) in TESTBED_MODES.items())
        + f" The receive window is {TESTBED_WINDOW} B in both (the forwarder clamps every "
        "advertised window; 'window seen' is the largest window the sender was offered). "
        f"A run longer than {budget:.0f} s of wall time is stopped and shown as capped "
        "(--testbed-budget). 'ours sim': the riverbed profile on our simulator (main table)."
    )
    return TableOut(
        "testbed",
        "Table 8 on our testbed: Linux reno with an 8760-byte window",
        pd.DataFrame(rows),
        pd.DataFrame(disp, columns=cols),
        note,
    )


def testbed_findings(res: StudyResult, st: Stats) -> list[Finding]:
    """What our testbed runs show: the clean channel against the window limit, the window
    clamp, Table 8, the recovery mechanisms at 10 % and the capped runs."""
    tb = res.group("testbed")
    if tb.empty:
        return []
    out: list[Finding] = []
    clean = tb[(tb["pdrop"] == 0.0) & (tb["variant"] == "linux") & tb["completed"].astype(bool)]
    if len(clean):
        t = float(clean["response_time_s"].mean())
        w = float(clean["window_limited_time_s"].iloc[0])
        out.append(
            Finding(
                "On the clean channel our testbed (Linux reno, 8760-byte window) takes within "
                "10 % of the window-limited time size x RTT / rwnd",
                abs(t / w - 1) <= 0.10,
                f"The window-limited time is size x RTT / rwnd = {w:.2f} s, with the RTT from "
                "the scenario: 40 ms of propagation plus serialising a full frame on both "
                "10 Mbit/s hops and an ACK on both; rwnd 8760 B. The paper's testbed: "
                f"{TABLE8[0.0][0]} s ({t / TABLE8[0.0][0] - 1:+.1%} from ours).",
                "invariant",
                evidence=f"testbed {t:.2f} s vs window-limited {w:.2f} s ({t / w - 1:+.1%})",
            )
        )
    if "max_rcv_window_seen" in tb:
        done = tb[~tb["testbed_capped"].astype(bool) & tb["completed"].astype(bool)]
        seen = done["max_rcv_window_seen"]
        ok = bool(len(seen)) and bool((seen == TESTBED_WINDOW).all())
        out.append(
            Finding(
                f"The window clamp held: every testbed run's sender was offered at most and "
                f"exactly {TESTBED_WINDOW} B (max_rcv_window_seen)",
                ok,
                "max_rcv_window_seen is the largest window the sender was offered.",
                "invariant",
                evidence=f"{int((seen == TESTBED_WINDOW).sum())} of {len(done)} completed runs "
                f"saw {TESTBED_WINDOW} B; values seen: "
                f"{sorted({int(v) for v in seen if v == v})}",
            )
        )
    parts, ok = [], True
    for p in PDROPS:
        s = st.get(("testbed", "linux", p))
        if s is None or math.isnan(s["rt_mean"]):
            parts.append(f"{pct(p)}: -")
            ok = False
            continue
        dev = s["rt_mean"] / TABLE8[p][0] - 1
        ok &= abs(dev) <= 0.15
        parts.append(f"{pct(p)}: {s['rt_mean']:.2f} s vs {TABLE8[p][0]} s ({dev:+.0%})")
    out.append(
        Finding(
            "Our testbed (Linux reno as shipped) is within 15 % of the paper's testbed "
            "(Table 8) at every pdrop",
            bool(ok),
            "Our testbed: real Linux TCP between network namespaces through tcplab-netem, the "
            "receive window clamped to 8760 B by the forwarder.",
            "claim",
            "Table 8: 50.25, 50.25, 51.97, 75.84 and 259.66 s at pdrop 0 to 10 %",
            "; ".join(parts),
        )
    )
    lin, cla = st.get(("testbed", "linux", 0.1)), st.get(("testbed", "classic", 0.1))
    if lin and cla and not (math.isnan(lin["rt_mean"]) or math.isnan(cla["rt_mean"])):
        out.append(
            Finding(
                "At 10 % SACK, RACK-TLP and F-RTO matter on the testbed",
                None,
                f"as shipped {lin['rt_mean']:.1f} s ({lin['rto_mean']:.0f} timeouts), "
                f"classic {cla['rt_mean']:.1f} s ({cla['rto_mean']:.0f} timeouts); our "
                f"simulator's riverbed profile "
                f"{st[('main', 'riverbed', 0.1)]['rt_mean']:.1f} s.",
                "note",
            )
        )
    if "testbed_failed" in tb:
        failed = tb[tb["testbed_failed"].fillna(False).astype(bool)]
        if len(failed):
            out.append(
                Finding(
                    f"{len(failed)} testbed run(s) failed and have no response time",
                    None,
                    "; ".join(
                        f"{r.variant} at {pct(r.pdrop)}: {r.testbed_error}"
                        for r in failed.itertuples()
                    )  # fmt: skip
                    + ". Their cells show '-'; run again to measure them.",
                    "note",
                )
            )
    capped = tb[tb["testbed_capped"].astype(bool)]
    if len(capped):
        budget = float(res.options.get("testbed_budget_s", math.nan))
        out.append(
            Finding(
                f"{len(capped)} testbed run(s) exceeded the {budget:.0f} s budget and were stopped",
                None,
                ", ".join(f"{r.variant} at {pct(r.pdrop)}" for r in capped.itertuples())
                + f": their response time is more than {budget:.0f} s (raise it with "
                "--testbed-budget).",
                "note",
            )
        )
    return out


def _json_overrides(ov: dict[str, Any]) -> str:
    import json

    return json.dumps(ov, sort_keys=True, default=str)
