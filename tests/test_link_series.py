"""`output.link_series`: statistics of every link direction per interval of simulated time.

Each figure is checked against an independent source: the summary's totals, the `queues` table's
step function, and the link's rate."""

from __future__ import annotations

import numpy as np
import pytest
import tcplab
from tcplab import topology
from tcplab.errors import InvalidValueError


def _run(interval: str = "1s", seed: int = 1, **kw) -> tcplab.Result:
    over = {"output.link_series": interval, "output.queues": True}
    sc = topology.dumbbell(
        3,
        size="3MB",
        bottleneck_rate="10Mbps",
        queue="15p",
        error={"model": "per", "p": 0.01},
        overrides=over,
        **kw,
    )
    return tcplab.run(sc, seed=seed)


def _series(res: tcplab.Result, link: str):
    ls = res.traces["link_series"]
    return ls[ls["link"] == link].reset_index(drop=True)


def test_the_intervals_add_up_to_the_summary():
    res = _run()
    assert res.summary["stopped_by"] == "idle"  # everything in flight has arrived
    for lk in res.summary["links"]:
        for d in ("ab", "ba"):
            s = _series(res, f"{lk['name']}:{d}")
            tot = lk[d]
            for col in (
                "frames_offered",
                "frames_sent",
                "bytes_on_wire",
                "frames_dropped_queue",
                "frames_dropped_error",
            ):
                assert s[col].sum() == tot[col], (lk["name"], d, col)
    b = _series(res, "bottleneck:ab")
    assert b["frames_dropped_queue"].sum() > 0 and b["frames_dropped_error"].sum() > 0
    # One row per interval up to the end of the run, the last one cut short.
    end = res.summary["sim_time_s"]
    assert list(b["time_s"]) == [float(i) for i in range(int(np.ceil(end)))]


def test_rates_and_utilisation_follow_from_the_counts():
    res = _run("0.5s")
    b = _series(res, "bottleneck:ab")
    full = b.iloc[:-1]  # whole intervals
    np.testing.assert_allclose(full["packets_per_s"], full["frames_sent"] / 0.5)
    np.testing.assert_allclose(full["bits_per_s"], full["bytes_on_wire"] * 8 / 0.5)
    # The link never sends faster than its rate; utilisation is busy time, so bits/s over the
    # rate differs from it only by the frames that straddle an interval's edges.
    assert (full["utilisation"] <= 1.0).all()
    assert (full["bits_per_s"] <= 10e6 + 2 * 1538 * 8 / 0.5).all()
    np.testing.assert_allclose(full["bits_per_s"] / 10e6, full["utilisation"], atol=0.01)
    # Total busy time equals the summary's utilisation x run time.
    lk = {lk["name"]: lk for lk in res.summary["links"]}["bottleneck"]["ab"]
    end = res.summary["sim_time_s"]
    spans = np.minimum(0.5, end - b["time_s"])
    assert (b["utilisation"] * spans).sum() == pytest.approx(lk["utilisation"] * end, rel=1e-9)


def test_the_mean_queue_is_the_time_average_of_the_queues_table():
    res = _run("1s")
    b = _series(res, "bottleneck:ab")
    q = res.traces["queues"]
    q = q[q["link"] == "bottleneck:ab"]
    t = np.append(q["time_s"].to_numpy(), np.inf)
    n = q["packets"].to_numpy(dtype=float)
    for k, row in b.iloc[:-1].iterrows():
        lo, hi = float(k), float(k) + 1.0
        # Integral of the step function over [lo, hi).
        start = np.clip(t[:-1], lo, hi)
        stop = np.clip(t[1:], lo, hi)
        area = float((n * (stop - start)).sum())
        assert row["mean_queue_packets"] == pytest.approx(area, rel=1e-9, abs=1e-12), k
    # The per-interval delays agree with the summary's mean, weighted by frames sent.
    lk = {lk["name"]: lk for lk in res.summary["links"]}["bottleneck"]["ab"]
    waited = (b["mean_queue_delay_s"] * b["frames_sent"]).sum() / b["frames_sent"].sum()
    assert b["max_queue_delay_s"].max() == pytest.approx(lk["max_queue_delay_s"], rel=1e-12)
    assert waited > 0 and waited <= lk["mean_queue_delay_s"] + 1e-12


def test_same_seed_same_series_and_absent_unless_asked():
    a, b = _run(seed=3), _run(seed=3)
    assert a.traces["link_series"].equals(b.traces["link_series"])
    plain = tcplab.run(topology.dumbbell(1, size="100KB"))
    assert "link_series" not in plain.traces


@pytest.mark.parametrize("bad", ["0s", "soon", 5])
def test_a_bad_interval_is_refused_by_name(bad):
    with pytest.raises(InvalidValueError) as e:
        topology.dumbbell(1, overrides={"output.link_series": bad})
    assert e.value.field == "output.link_series"


def test_the_queuing_delay_histogram_is_a_hand_computation():
    # UDP datagrams of 972 B (1000 B on the IP layer, 1038 B on the wire with Ethernet's 38)
    # every 1 ms into a 4 Mbit/s link: each takes 2.076 ms to send, so datagram k (from 0)
    # waits k x 1.076 ms until the 100-packet queue is full. 30 of them: waits 0, 1.076, ...
    data = {
        "run": {"stop_time": "1s"},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"name": "l", "a": "a", "b": "b", "rate": "4Mbps", "delay": "1ms",
                   "queue": "100p"}],
        "apps": [{"name": "u", "kind": "udp", "client": "a", "server": "b", "rate": "7.776Mbps",
                  "packet_size": 972, "stop": "29.5ms"}],
        "output": {"link_series": "1s"},
    }  # fmt: skip
    res = tcplab.run(tcplab.Scenario.from_dict(data))
    lk = res.summary["links"][0]["ab"]
    assert lk["frames_sent"] == 30
    tx = 1038 * 8 / 4e6
    waits = np.array([k * (tx - 1e-3) for k in range(30)])
    assert lk["mean_queue_delay_s"] == pytest.approx(waits.mean(), rel=1e-6)
    h = res.traces["queue_delay_hist"]
    h = h[h["link"] == "l:ab"].reset_index(drop=True)
    edges = np.round(1e3 * 10 ** (np.arange(91) / 10)) / 1e9
    # frames that did not wait: the first; then each wait in its [10^(k/10), 10^((k+1)/10)) us bin
    expect: dict[float, int] = {0.0: 1}
    for w in waits[1:]:
        lo = edges[np.searchsorted(edges, w, side="right") - 1]
        expect[lo] = expect.get(lo, 0) + 1
    assert dict(zip(h["delay_lo_s"], h["frames"], strict=True)) == pytest.approx(expect)
    assert h["frames"].sum() == 30
    assert h["cumulative_fraction"].iloc[-1] == 1.0
    assert (h["delay_hi_s"] > h["delay_lo_s"]).iloc[1:].all()
