"""What the study reads from the traced run of the 1 % scenario (first seed): the first loss and
its recovery (Figure 10) and the congestion-avoidance growth after a fast recovery (Table 9)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from tcplab.report.timeseq import LossWindow, classify_exchange, first_loss_window, packet_exchange

from .._kit import conn_trace, pct

if TYPE_CHECKING:
    from tcplab import Result


def main_key(p: float) -> str:
    """The case key of the main grid's scenario at pdrop `p` (its first seed is traced)."""
    return f"main/riverbed/{pct(p)}"


def loss_window(traced: Mapping[str, Result]) -> LossWindow | None:
    """The first loss of the traced 1 % run and its recovery, from its per-packet log."""
    r = traced.get(main_key(0.01))
    if r is None or "packets" not in r.traces:
        return None
    ex = classify_exchange(packet_exchange(r.traces["packets"]))
    return first_loss_window(ex, sender=1)


def ca_growth_sim(traced: Mapping[str, Result], rtts: int = 14) -> tuple[list[float], float, float]:
    """cwnd at the start of each RTT after the first fast recovery of the 1 % run that is
    followed by `rtts` + 1 loss-free RTTs: (cwnd per RTT, t0, RTT used)."""
    r = traced.get(main_key(0.01))
    if r is None or "events" not in r.traces or "trace" not in r.traces:
        return [], math.nan, math.nan
    ev, tr = r.traces["events"], conn_trace(r)
    rtt = float(np.nanmedian(tr["srtt_s"].to_numpy(dtype=float)))
    losses = ev[ev["kind"].isin(["drop_error", "fast_retransmit", "rto"]) & (ev["end"] == 1)]
    loss_t = np.sort(losses["time_s"].to_numpy(dtype=float))
    for t0 in ev.loc[ev["kind"] == "recovery_exit", "time_s"].to_numpy(dtype=float):
        nxt = loss_t[loss_t > t0]
        if len(nxt) == 0 or nxt[0] > t0 + (rtts + 1) * rtt:
            at = t0 + rtt * np.arange(rtts + 1)
            idx = np.searchsorted(tr["time_s"].to_numpy(), at, side="right") - 1
            cw = tr["cwnd"].to_numpy(dtype=float)[np.clip(idx, 0, len(tr) - 1)]
            return [float(x) for x in cw], float(t0), rtt
    return [], math.nan, rtt


def regrowth_rtts(result: Result, window: int = 8760, mss: int = 1460) -> float:
    """The median number of RTTs from the end of a fast recovery to the window being back at
    `window` bytes (6 segments), over the recoveries with no further loss in between, in the
    traced run `result` (NaN if there is none)."""
    if result is None or "events" not in result.traces or "trace" not in result.traces:
        return math.nan
    ev, tr = result.traces["events"], conn_trace(result)
    t = tr["time_s"].to_numpy(dtype=float)
    cw = tr["cwnd"].to_numpy(dtype=float)
    rtt = float(np.nanmedian(tr["srtt_s"].to_numpy(dtype=float)))
    losses = ev[ev["kind"].isin(["drop_error", "fast_retransmit", "rto"]) & (ev["end"] == 1)]
    loss_t = np.sort(losses["time_s"].to_numpy(dtype=float))
    out = []
    for t0 in ev.loc[(ev["kind"] == "recovery_exit") & (ev["end"] == 1), "time_s"].to_numpy(
        dtype=float
    ):
        later = (t > t0) & (cw >= window - mss / 2)
        if not later.any():
            continue
        t1 = float(t[later][0])
        nxt = loss_t[loss_t > t0]
        if len(nxt) and nxt[0] < t1:
            continue  # another loss before the window was back
        out.append((t1 - t0) / rtt)
    return float(np.median(out)) if out else math.nan


def regrowth(traced: Mapping[str, Result]) -> dict[str, float]:
    """`regrowth_rtts` of the traced 1 % runs: the main grid (riverbed), the linux model and,
    when the testbed part ran, the testbed's Linux."""
    out = {"riverbed": regrowth_rtts(traced.get(main_key(0.01)))}
    for name, key in (("linux", "sensitivity/linux"), ("testbed", "testbed/linux")):
        r = traced.get(f"{key}/{pct(0.01)}")
        if r is not None:
            out[name] = regrowth_rtts(r)
    return {k: v for k, v in out.items() if not math.isnan(v)}


#: Section 5.2's reading of the testbed's capture at 1 %: the window (segments) per RTT after a
#: fast retransmit: three for 15 RTTs, "nine times alternately four and five", then six.
PAPER_REGROWTH_SEGMENTS: tuple[int, ...] = (3,) * 15 + (4, 5) * 4 + (4,) + (6,) * 3


def regrowth_curve(result: Result | None, rtts: int = len(PAPER_REGROWTH_SEGMENTS)) -> list[float]:
    """The usable window min(cwnd, rwnd) in segments at each RTT after the first fast recovery
    of `result` that `rtts` loss-free RTTs follow (empty if none does)."""
    if result is None or "events" not in result.traces or "trace" not in result.traces:
        return []
    ev, tr = result.traces["events"], conn_trace(result)
    t = tr["time_s"].to_numpy(dtype=float)
    win = tr["cwnd"].to_numpy(dtype=float)
    if "rwnd" in tr:
        win = np.minimum(win, tr["rwnd"].to_numpy(dtype=float))
    mss = float(np.nanmedian(tr["mss"].to_numpy(dtype=float))) if "mss" in tr else 1460.0
    rtt = float(np.nanmedian(tr["srtt_s"].to_numpy(dtype=float)))
    losses = ev[ev["kind"].isin(["drop_error", "fast_retransmit", "rto"]) & (ev["end"] == 1)]
    loss_t = np.sort(losses["time_s"].to_numpy(dtype=float))
    for t0 in ev.loc[(ev["kind"] == "recovery_exit") & (ev["end"] == 1), "time_s"].to_numpy(
        dtype=float
    ):
        nxt = loss_t[loss_t > t0]
        if len(nxt) == 0 or nxt[0] > t0 + rtts * rtt:
            at = t0 + rtt * np.arange(rtts)
            idx = np.clip(np.searchsorted(t, at, side="right") - 1, 0, len(t) - 1)
            return [float(x) / mss for x in win[idx]]
    return []


def regrowth_curves(traced: Mapping[str, Result]) -> dict[str, list[float]]:
    """`regrowth_curve` of the traced 1 % runs (riverbed, the linux model, the testbed's)."""
    keys = {"riverbed": main_key(0.01), "linux": f"sensitivity/linux/{pct(0.01)}",
            "testbed": f"testbed/linux/{pct(0.01)}"}  # fmt: skip
    out = {name: regrowth_curve(traced.get(key)) for name, key in keys.items()}
    return {k: v for k, v in out.items() if v}
