"""Tests for tcplab.models against the worked numbers of the source documents.

Seed 000: Sarkar, Ammann, Zabir, Electronics 2022 (Tables 1, 3, 7, 9; Sections 4.1-4.4).
Seed 002: NetSim, "Mathematical modelling of TCP throughput" (5.24 Mbps, 4.12 Mbps).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tcplab.models import (
    LIMIT_NAMES,
    ber_from_per,
    bytes_per_s_to_mbps,
    cardwell_latency,
    cwnd_growth_ca,
    download_time,
    expected_retransmissions,
    line_rate_limit,
    mathis_constant,
    mathis_throughput,
    mbps_to_bytes_per_s,
    per_from_ber,
    per_from_ber_linear,
    pftk_approx_throughput,
    pftk_backoff_factor,
    pftk_expected_window,
    pftk_throughput,
    pftk_timeout_probability,
    segments_needed,
    window_limit,
)

# --------------------------------------------------------------------------------------
# BER -> PER (Sarkar 2022 Table 1, NetSim seed 002)

TABLE_1 = [  # BER, PER at L = 1250 bytes, PER at L = 1500 bytes
    (1e-1, 1000.0, 1200.0),
    (1e-2, 100.0, 120.0),
    (1e-3, 10.0, 12.0),
    (1e-4, 1.0, 1.2),
    (1e-5, 1e-1, 1.2e-1),
    (1e-6, 1e-2, 1.2e-2),
    (1e-7, 1e-3, 1.2e-3),
    (1e-8, 1e-4, 1.2e-4),
    (1e-9, 1e-5, 1.2e-5),
]


@pytest.mark.parametrize(("ber", "per_1250", "per_1500"), TABLE_1)
def test_linear_per_reproduces_sarkar_table_1(ber, per_1250, per_1500):
    assert per_from_ber_linear(ber, 1250) == pytest.approx(per_1250, rel=1e-12)
    assert per_from_ber_linear(ber, 1500) == pytest.approx(per_1500, rel=1e-12)


def test_linear_per_table_1_in_one_broadcast_call():
    bers = np.array([row[0] for row in TABLE_1])[:, None]
    table = per_from_ber_linear(bers, np.array([1250, 1500]))
    assert table.shape == (9, 2)
    expected = np.array([[row[1], row[2]] for row in TABLE_1])
    np.testing.assert_allclose(table, expected, rtol=1e-12)


def test_exact_per_seed_002_is_about_1_2e_3():
    p = per_from_ber(1e-7, 1500)
    assert p == pytest.approx(1.19928e-3, rel=1e-5)
    assert round(p, 4) == 0.0012


def test_exact_per_limits():
    assert per_from_ber(0.0, 1500) == 0.0
    assert per_from_ber(1.0, 1500) == 1.0
    assert per_from_ber(0.5, 1) == pytest.approx(1 - 0.5**8)
    # A 1250-byte frame at BER 1e-4: the linear rule says 1, the exact one 1 - e^-1.
    assert per_from_ber(1e-4, 1250) == pytest.approx(1 - math.exp(-1), rel=1e-4)


def test_exact_and_linear_per_agree_for_small_ber():
    ber = np.geomspace(1e-12, 1e-6, 7)
    exact = per_from_ber(ber, 1500)
    linear = per_from_ber_linear(ber, 1500)
    assert np.all(exact <= linear)
    # Relative error of the linear rule is about 4 L BER.
    np.testing.assert_array_less((linear - exact) / exact, 4 * 1500 * ber * 1.01 + 1e-12)


@pytest.mark.parametrize(("pdrop", "decade"), [(1e-4, -8), (1e-3, -7), (1e-2, -6), (1e-1, -5)])
def test_ber_from_per_matches_sarkar_table_3_orders_of_magnitude(pdrop, decade):
    ber = ber_from_per(pdrop, 1500)
    assert round(math.log10(ber)) == decade
    assert per_from_ber(ber, 1500) == pytest.approx(pdrop, rel=1e-9)


def test_segments_needed_sarkar_4_1():
    assert 10_000_000 / 1460 == pytest.approx(6849.32, abs=0.005)
    assert segments_needed(10_000_000, 1460) == 6850
    assert segments_needed(2920, 1460) == 2
    assert segments_needed(2921, 1460) == 3
    assert segments_needed(0, 1460) == 0


@pytest.mark.parametrize(
    ("pdrop", "calculated"), [(0.0, 0.0), (1e-4, 0.68), (1e-3, 6.85), (1e-2, 68.49), (0.1, 684.93)]
)
def test_expected_retransmissions_sarkar_table_7(pdrop, calculated):
    value = expected_retransmissions(10_000_000, 1460, pdrop, whole_segments=False)
    assert round(float(value), 2) == calculated


def test_expected_retransmissions_variants():
    assert expected_retransmissions(10_000_000, 1460, 0.01) == pytest.approx(68.5)
    assert expected_retransmissions(10_000_000, 1460, 0.5, repeat_losses=True) == pytest.approx(
        6850.0
    )
    assert expected_retransmissions(10_000_000, 1460, 1.0, repeat_losses=True) == math.inf
    assert expected_retransmissions(0, 1460, 1.0, repeat_losses=True) == 0.0


# --------------------------------------------------------------------------------------
# Line-rate and window limits


def test_line_rate_limit_sarkar_4_3_2():
    assert round(float(line_rate_limit(1_250_000, 1460, 78)), 2) == 1_186_605.98
    assert line_rate_limit(1_250_000) == pytest.approx(1_186_605.98, abs=0.005)
    assert line_rate_limit(mbps_to_bytes_per_s(10), overhead=0) == pytest.approx(1_250_000)


def test_window_limit_sarkar_4_3_3():
    assert window_limit(8760, 0.04) == pytest.approx(219_000.0)


def test_window_limit_netsim_5_24_mbps():
    rate = window_limit(65535, 0.1)
    assert rate == pytest.approx(655_350.0)
    assert bytes_per_s_to_mbps(rate) == pytest.approx(5.2428)
    assert round(float(bytes_per_s_to_mbps(rate)), 2) == 5.24


def test_mbps_conversions_round_trip():
    assert mbps_to_bytes_per_s(10) == 1_250_000
    np.testing.assert_allclose(bytes_per_s_to_mbps(mbps_to_bytes_per_s([1, 10, 100])), [1, 10, 100])


TABLE_9 = [4380, 4867, 5305, 5707, 6080, 6431, 6762, 7077, 7379, 7667, 7945, 8214, 8473, 8725, 8969]
TABLE_9_MSS = [3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 6]


def test_cwnd_growth_reproduces_sarkar_table_9():
    series = cwnd_growth_ca(4380, 1460, 14)
    assert series.shape == (15,)
    assert np.rint(series).astype(int).tolist() == TABLE_9
    assert np.floor(series / 1460).astype(int).tolist() == TABLE_9_MSS
    # "After 14 RTTs, the cwnd should again reach rwnd (8760 bytes or six MSS)."
    assert int(np.argmax(series >= 8760)) == 14


def test_cwnd_growth_one_ack_per_segment_grows_about_one_mss_per_rtt():
    series = cwnd_growth_ca(4380, 1460, 10, acks_per_rtt="window")
    steps = np.diff(series)
    assert round(float(series[1])) == 5707  # three ACKs in the first RTT
    # floor(cwnd / MSS) ACKs of MSS^2/cwnd each: between 0.7 and 1 MSS per RTT.
    assert np.all(steps > 0.7 * 1460) and np.all(steps <= 1460)
    assert 0.85 * 1460 < steps.mean() < 1460


def test_cwnd_growth_cap_and_broadcast():
    capped = cwnd_growth_ca(4380, 1460, 20, rwnd=8760)
    assert capped.max() == 8760 and capped[-1] == 8760
    grid = cwnd_growth_ca([2920, 4380], 1460, 5)
    assert grid.shape == (2, 6)
    np.testing.assert_allclose(grid[1], cwnd_growth_ca(4380, 1460, 5))
    assert cwnd_growth_ca(4380, 1460, 0).tolist() == [4380.0]


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_cwnd_growth_rejects_bad_rtts(bad):
    with pytest.raises(ValueError, match="rtts"):
        cwnd_growth_ca(4380, 1460, bad)


@pytest.mark.parametrize("bad", [0, "segments", 1.5])
def test_cwnd_growth_rejects_bad_acks(bad):
    with pytest.raises(ValueError, match="acks_per_rtt"):
        cwnd_growth_ca(4380, 1460, 3, acks_per_rtt=bad)


# --------------------------------------------------------------------------------------
# Mathis et al. 1997


def test_mathis_constant():
    assert mathis_constant(1) == pytest.approx(math.sqrt(1.5))
    assert mathis_constant(2) == pytest.approx(math.sqrt(0.75))


def test_mathis_netsim_4_12_mbps():
    # NetSim's inputs: p = 1.2e-3, MSS 1460 bytes, RTT 100 ms.
    rate = mathis_throughput(1460, 0.1, 1.2e-3)
    mbps = float(bytes_per_s_to_mbps(rate))
    assert mbps == pytest.approx(4.1295036, rel=1e-7)
    assert math.floor(mbps * 100) / 100 == 4.12  # NetSim prints it truncated
    # 1.2e-3 is exactly the linear PER of a 1500-byte frame at BER 1e-7 ...
    linear = mathis_throughput(1460, 0.1, per_from_ber_linear(1e-7, 1500))
    assert linear == pytest.approx(rate, rel=1e-12)
    # ... and the exact PER gives 4.1307 Mbps.
    exact = bytes_per_s_to_mbps(mathis_throughput(1460, 0.1, per_from_ber(1e-7, 1500)))
    assert exact == pytest.approx(4.1307, abs=5e-5)


def test_mathis_shape_and_limits():
    assert mathis_throughput(1460, 0.1, 0.0) == math.inf
    assert mathis_throughput(1460, 0.1, 0.04) == pytest.approx(
        mathis_throughput(1460, 0.1, 0.01) / 2
    )
    assert mathis_throughput(1460, 0.1, 0.01, b=2) == pytest.approx(
        mathis_throughput(1460, 0.1, 0.01) / math.sqrt(2)
    )
    assert mathis_throughput(1460, 0.1, 0.01, c=1.0) == pytest.approx(146_000.0)
    grid = mathis_throughput(1460, np.array([0.05, 0.1])[:, None], np.array([1e-4, 1e-3, 1e-2]))
    assert grid.shape == (2, 3)
    assert isinstance(mathis_throughput(1460, 0.1, 0.01), float)


# --------------------------------------------------------------------------------------
# PFTK 1998


def test_pftk_approx_closed_form_value():
    # 1460 / (0.1 sqrt(2*0.01/3) + 0.4 * 3 sqrt(3*0.01/8) * 0.01 * (1 + 32e-4))
    assert pftk_approx_throughput(1460, 0.1, 0.01, 0.4) == pytest.approx(164_005.062, rel=1e-8)


def test_pftk_approx_clamps_timeout_term_at_one():
    # p = 0.5: 3 sqrt(3 * 0.5 / 8) = 1.30 is clamped to 1 (paper and ns-2), not used as is
    # (RFC 5348 prints the formula without the clamp).
    assert pftk_approx_throughput(1460, 0.1, 0.5, 1.0) == pytest.approx(320.33455, rel=1e-6)


def test_pftk_helpers():
    assert pftk_backoff_factor(0.0) == 1.0
    assert pftk_backoff_factor(1.0) == 64.0
    assert pftk_expected_window(0.0) == math.inf
    assert pftk_expected_window(1e-6, b=2) == pytest.approx(math.sqrt(8 / (3 * 2 * 1e-6)), rel=1e-3)
    assert pftk_expected_window(1.0, b=1) == pytest.approx(2.0)  # 2 (2+b)/(3b)
    np.testing.assert_allclose(pftk_timeout_probability(0.0, [1, 3, 6, 30]), [1, 1, 0.5, 0.1])
    np.testing.assert_allclose(pftk_timeout_probability(0.2, [1, 2, 2.5, 3]), 1.0)
    q = pftk_timeout_probability(np.geomspace(1e-6, 0.99, 50)[:, None], [4, 10, 100, 1e4])
    assert np.all((q >= 0) & (q <= 1))
    assert pftk_timeout_probability(1.0, 10) == 1.0


def test_pftk_full_p_to_zero_limits():
    assert pftk_throughput(1460, 0.1, 0.0) == math.inf
    assert pftk_throughput(1460, 0.1, 0.0, rwnd=65535) == pytest.approx(655_350.0)
    assert pftk_approx_throughput(1460, 0.1, 0.0, rwnd=65535) == pytest.approx(655_350.0)
    # Far from the window cap and with rare timeouts PFTK becomes Mathis.
    for fn in (pftk_throughput, pftk_approx_throughput):
        for b in (1, 2):
            ratio = fn(1460, 0.1, 1e-8, 1.0, b=b) / mathis_throughput(1460, 0.1, 1e-8, b=b)
            assert ratio == pytest.approx(1.0, abs=2e-3)


def test_pftk_p_equals_one():
    assert pftk_throughput(1460, 0.1, 1.0, 2.0) == pytest.approx(1460 / 128)
    assert pftk_throughput(1460, 0.1, 1.0, 2.0, goodput=True) == 0.0
    expected = 1460 / (0.1 * math.sqrt(2 / 3) + 33 * 2.0)
    assert pftk_approx_throughput(1460, 0.1, 1.0, 2.0) == pytest.approx(expected)
    assert pftk_approx_throughput(1460, 0.1, 1.0, 2.0, goodput=True) == 0.0


def test_pftk_window_cap_binds():
    cap = window_limit(8760, 0.04)
    full = pftk_throughput(1460, 0.04, 1e-7, 1.0, rwnd=8760)
    assert full <= cap
    assert full == pytest.approx(cap, rel=1e-3)
    assert pftk_approx_throughput(1460, 0.04, 1e-7, 1.0, rwnd=8760) == pytest.approx(cap)
    # With a large window the same loss rate gives much more.
    assert pftk_throughput(1460, 0.04, 1e-7, 1.0) > 100 * cap


def test_pftk_full_and_approx_agree_at_low_loss():
    p = np.geomspace(1e-5, 1e-2, 20)
    for b in (1, 2):
        full = pftk_throughput(1460, 0.1, p, 1.0, b=b)
        approx = pftk_approx_throughput(1460, 0.1, p, 1.0, b=b)
        np.testing.assert_allclose(full, approx, rtol=0.05)


def test_pftk_timeouts_pull_throughput_below_mathis():
    assert pftk_throughput(1460, 0.1, 0.1, 1.0) < 0.5 * mathis_throughput(1460, 0.1, 0.1)


# --------------------------------------------------------------------------------------
# Cardwell, Savage, Anderson 2000


def test_cardwell_lossless_slow_start():
    res = cardwell_latency([1, 3, 7], 0.1, 0.0)
    # handshake 1 RTT + log2(d + 1) RTTs of slow start from one segment
    np.testing.assert_allclose(res.total, [0.2, 0.3, 0.4])
    np.testing.assert_allclose(res.handshake, 0.1)
    np.testing.assert_allclose(res.first_loss, 0.0)
    np.testing.assert_allclose(res.congestion_avoidance, 0.0)
    np.testing.assert_allclose(res.slow_start_segments, [1, 3, 7])
    nohs = cardwell_latency(7, 0.1, 0.0, handshake=False)
    assert nohs.total == pytest.approx(0.3)


def test_cardwell_window_limited_slow_start():
    # 1 + 2 + 4 segments in 3 RTTs, then 13 more at 4 per RTT: 6.25 RTTs.
    res = cardwell_latency(20, 0.1, 0.0, wmax=4, handshake=False)
    assert res.total == pytest.approx(0.625)


def test_cardwell_handshake_term():
    res = cardwell_latency(1, 0.1, 0.1, syn_timeout=3.0)
    # RTT + Ts ((1 - p)/(1 - 2p) - 1) for each direction = 0.1 + 3 * 2 * 0.125
    assert res.handshake == pytest.approx(0.85)
    assert cardwell_latency(1, 0.1, 0.01, p_reverse=0.0).handshake == pytest.approx(
        0.1 + 3.0 * (0.99 / 0.98 - 1)
    )
    assert cardwell_latency(10, 0.1, 0.5).handshake == math.inf
    assert cardwell_latency(10, 0.1, 1.0).total == math.inf


def test_cardwell_slow_start_segments_match_explicit_sum():
    for d in (1, 5, 40, 300):
        for p in (0.001, 0.05, 0.3):
            q = 1 - p
            explicit = sum(k * q**k * p for k in range(d)) + d * q**d + 1
            res = cardwell_latency(d, 0.1, p)
            assert res.slow_start_segments == pytest.approx(min(d, explicit), rel=1e-12)


def test_cardwell_scalar_reference_point():
    d, rtt, p, t0, b, w1 = 200, 0.08, 0.02, 0.5, 2, 2
    q = 1 - p
    gamma = 1 + 1 / b
    d_ss = (1 - q**d) * q / p + 1
    w_ss = d_ss * (gamma - 1) / gamma + w1 / gamma
    t_ss = rtt * math.log(d_ss * (gamma - 1) / w1 + 1, gamma)
    f = sum(c * p**k for k, c in enumerate([1, 1, 2, 4, 8, 16, 32]))
    qhat = min(1, (1 - q**3) * (1 + q**3 * (1 - q ** (w_ss - 3))) / (1 - q**w_ss))
    t_loss = (1 - q**d) * (qhat * t0 * f / q + (1 - qhat) * rtt)
    t_ca = (d - d_ss) / (pftk_throughput(1, rtt, p, t0, b=b))
    t_hs = rtt + 3.0 * 2 * ((1 - p) / (1 - 2 * p) - 1)
    res = cardwell_latency(d, rtt, p, t0, b=b, w1=w1)
    assert res.delayed_ack == pytest.approx(0.1)
    assert res.slow_start == pytest.approx(t_ss, rel=1e-12)
    assert res.first_loss == pytest.approx(t_loss, rel=1e-12)
    assert res.congestion_avoidance == pytest.approx(t_ca, rel=1e-12)
    assert res.total == pytest.approx(t_hs + t_ss + t_loss + t_ca + 0.1, rel=1e-12)


def test_cardwell_long_transfers_approach_pftk_rate():
    for b, wmax in ((1, np.inf), (2, np.inf), (2, 20)):
        t = cardwell_latency([50_000, 100_000], 0.1, 0.01, 1.0, b=b, wmax=wmax).total
        per_segment = (t[1] - t[0]) / 50_000
        rate = pftk_throughput(1, 0.1, 0.01, 1.0, b=b, rwnd=wmax)
        assert per_segment == pytest.approx(1 / rate, rel=1e-9)


def test_cardwell_delayed_ack_default_and_empty_transfer():
    assert cardwell_latency(10, 0.1, 0.0, b=1).delayed_ack == 0.0
    assert cardwell_latency(10, 0.1, 0.0, b=2).delayed_ack == pytest.approx(0.1)
    assert cardwell_latency(10, 0.1, 0.0, b=2, delayed_ack=0.2).delayed_ack == pytest.approx(0.2)
    empty = cardwell_latency(0, 0.1, 0.01, b=2)
    assert empty.total == pytest.approx(empty.handshake)


# --------------------------------------------------------------------------------------
# Download-time estimate


def test_download_time_sarkar_4_4():
    est = download_time(10_000_000, 0.04, rwnd=8760)
    assert round(float(est.seconds), 2) == 45.66
    assert est.binding == "window"
    assert est.throughput == pytest.approx(219_000)
    with_line = download_time(10_000_000, 0.04, rwnd=8760, rate=1_250_000)
    assert with_line.binding == "window"
    assert with_line.line_rate == pytest.approx(1_186_605.98, abs=0.005)
    assert with_line.loss == math.inf


def test_download_time_line_rate_and_loss_binding():
    line = download_time(10_000_000, 0.04, rate=1_250_000, rwnd=1_000_000)
    assert line.binding == "line-rate"
    assert line.seconds == pytest.approx(10_000_000 / 1_186_605.98, rel=1e-8)
    assert line.throughput == line_rate_limit(1_250_000)
    loss = download_time(10_000_000, 0.04, rate=1_250_000, rwnd=1_000_000, p=0.01)
    assert loss.binding == "loss"
    assert loss.throughput == pytest.approx(mathis_throughput(1460, 0.04, 0.01))
    pftk = download_time(10_000_000, 0.04, rwnd=8760, p=0.1, loss_model="pftk")
    assert pftk.binding == "loss" and pftk.loss_model == "pftk"
    assert pftk.loss == pytest.approx(pftk_throughput(1460, 0.04, 0.1, rwnd=8760, goodput=True))


def test_download_time_vectorised_names_and_p_one():
    est = download_time(
        10_000_000,
        0.04,
        rate=1_250_000,
        rwnd=[8760, 1e6, 1e6, 1e6],
        p=[0, 0, 0.01, 1.0],
        loss_model="pftk",
    )
    assert est.binding.tolist() == ["window", "line-rate", "loss", "loss"]
    assert est.seconds[-1] == math.inf
    assert set(est.binding.tolist()) <= set(LIMIT_NAMES)


def test_download_time_needs_a_limit():
    with pytest.raises(ValueError, match="finite limit"):
        download_time(1e6, 0.1)
    with pytest.raises(ValueError, match="loss_model"):
        download_time(1e6, 0.1, rwnd=8760, loss_model="padhye")


# --------------------------------------------------------------------------------------
# Input validation


@pytest.mark.parametrize(
    ("call", "name", "value"),
    [
        (lambda: mathis_throughput(1460, -0.1, 0.01), "rtt", "-0.1"),
        (lambda: mathis_throughput(1460, 0.0, 0.01), "rtt", "0.0"),
        (lambda: mathis_throughput(1460, 0.1, 1.5), "p", "1.5"),
        (lambda: mathis_throughput(1460, 0.1, -0.01), "p", "-0.01"),
        (lambda: mathis_throughput(0, 0.1, 0.01), "mss", "0.0"),
        (lambda: mathis_throughput(1460, 0.1, 0.01, b=0.5), "b", "0.5"),
        (lambda: mathis_throughput(1460, 0.1, [0.01, float("nan")]), "p", "nan"),
        (lambda: mathis_throughput(1460, [0.1, -2.0, -3.0], 0.01), "rtt", "-2.0"),
        (lambda: per_from_ber(2.0, 1500), "ber", "2.0"),
        (lambda: per_from_ber_linear(1e-6, 0), "frame_bytes", "0.0"),
        (lambda: ber_from_per(1.1, 1500), "per", "1.1"),
        (lambda: window_limit(8760, -1), "rtt", "-1.0"),
        (lambda: window_limit(-8760, 0.1), "rwnd", "-8760.0"),
        (lambda: line_rate_limit(0, 1460), "rate", "0.0"),
        (lambda: line_rate_limit(1e6, 1460, -1), "overhead", "-1.0"),
        (lambda: pftk_throughput(1460, 0.1, 0.01, 0), "rto", "0.0"),
        (lambda: pftk_approx_throughput(1460, 0.1, 0.01, rwnd=0), "rwnd", "0.0"),
        (lambda: cardwell_latency(-1, 0.1, 0.01), "segments", "-1.0"),
        (lambda: cardwell_latency(10, 0.1, 0.01, w1=0.5), "w1", "0.5"),
        (lambda: download_time(-5, 0.1, rwnd=8760), "size", "-5.0"),
        (lambda: segments_needed(100, "abc"), "mss", "abc"),
        (lambda: mathis_throughput(1460, math.inf, 0.01), "rtt", "inf"),
    ],
)
def test_bad_input_names_argument_value_and_range(call, name, value):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert message.startswith(name + " must be")
    assert value in message


def test_infinite_window_is_allowed_where_documented():
    assert window_limit(math.inf, 0.1) == math.inf
    assert pftk_throughput(1460, 0.1, 0.01, rwnd=math.inf) > 0


# --------------------------------------------------------------------------------------
# Vectorisation and property tests

probs = st.floats(min_value=1e-9, max_value=1.0)
rtts = st.floats(min_value=1e-4, max_value=10.0)


def test_array_call_equals_scalar_calls():
    p = np.array([0.0, 1e-6, 1e-3, 0.05, 0.3, 1.0])
    rtt = np.array([0.01, 0.05, 0.1, 0.2, 0.5, 1.0])
    for fn in (pftk_throughput, pftk_approx_throughput):
        vec = fn(1460, rtt, p, 1.0, b=2, rwnd=65535)
        one = [fn(1460, r, q, 1.0, b=2, rwnd=65535) for r, q in zip(rtt, p, strict=True)]
        np.testing.assert_allclose(vec, one, rtol=1e-12)
    vec = cardwell_latency(100, rtt[:-1], p[:-1], b=2).total
    one = [cardwell_latency(100, r, q, b=2).total for r, q in zip(rtt[:-1], p[:-1], strict=True)]
    np.testing.assert_allclose(vec, one, rtol=1e-12)


@given(p1=probs, p2=probs, rtt=rtts, b=st.sampled_from([1, 2]))
def test_mathis_falls_as_p_grows(p1, p2, rtt, b):
    lo, hi = sorted((p1, p2))
    assert mathis_throughput(1460, rtt, hi, b=b) <= mathis_throughput(1460, rtt, lo, b=b)


@given(r1=rtts, r2=rtts, p=probs)
def test_mathis_falls_as_rtt_grows(r1, r2, p):
    lo, hi = sorted((r1, r2))
    assert mathis_throughput(1460, hi, p) <= mathis_throughput(1460, lo, p)


# RTO is at least one RTT in any real TCP (RFC 6298: RTO = SRTT + 4 RTTVAR); with a
# smaller RTO the model's *send rate* can rise with p (cheap, frequent timeouts).
rto_factors = st.floats(min_value=1.0, max_value=100.0)


@given(
    p1=probs,
    p2=probs,
    rtt=rtts,
    rto_factor=rto_factors,
    b=st.sampled_from([1, 2]),
    rwnd=st.one_of(st.just(math.inf), st.floats(min_value=1460, max_value=1e7)),
)
def test_pftk_approx_falls_as_p_grows(p1, p2, rtt, rto_factor, b, rwnd):
    lo, hi = sorted((p1, p2))
    rto = rtt * rto_factor
    slow = pftk_approx_throughput(1460, rtt, hi, rto, b=b, rwnd=rwnd)
    fast = pftk_approx_throughput(1460, rtt, lo, rto, b=b, rwnd=rwnd)
    assert slow <= fast * (1 + 1e-12)


@given(p1=probs, p2=probs, rtt=rtts, rto_factor=rto_factors, b=st.sampled_from([1, 2]))
def test_pftk_full_falls_as_p_grows_without_window_cap(p1, p2, rtt, rto_factor, b):
    lo, hi = sorted((p1, p2))
    rto = rtt * rto_factor
    for goodput in (False, True):
        slow = pftk_throughput(1460, rtt, hi, rto, b=b, goodput=goodput)
        fast = pftk_throughput(1460, rtt, lo, rto, b=b, goodput=goodput)
        assert slow <= fast * (1 + 1e-12)


@given(p1=probs, p2=probs, rtt=rtts, rwnd=st.floats(min_value=1500, max_value=1e7))
def test_pftk_full_with_window_cap_rises_at_most_5_percent(p1, p2, rtt, rwnd):
    # The full model switches branch at E[W] = Wmax, where it can step up by a few percent.
    lo, hi = sorted((p1, p2))
    slow = pftk_throughput(1460, rtt, hi, 1.0, rwnd=rwnd)
    fast = pftk_throughput(1460, rtt, lo, 1.0, rwnd=rwnd)
    assert slow <= fast * 1.05


@given(r1=rtts, r2=rtts, p=st.floats(min_value=0.0, max_value=1.0), b=st.sampled_from([1, 2]))
def test_pftk_falls_as_rtt_grows(r1, r2, p, b):
    lo, hi = sorted((r1, r2))
    for fn in (pftk_throughput, pftk_approx_throughput):
        assert fn(1460, hi, p, 1.0, b=b, rwnd=65535) <= fn(1460, lo, p, 1.0, b=b, rwnd=65535) * (
            1 + 1e-12
        )


@given(
    rtt=rtts,
    p=probs,
    rwnd_segments=st.floats(min_value=1, max_value=1e4),
    rto_factor=rto_factors,
    b=st.sampled_from([1, 2]),
)
def test_pftk_never_exceeds_the_window_limit(rtt, p, rwnd_segments, rto_factor, b):
    rwnd = 1460 * rwnd_segments
    cap = window_limit(rwnd, rtt)
    rto = rtt * rto_factor
    assert pftk_throughput(1460, rtt, p, rto, b=b, rwnd=rwnd) <= cap * (1 + 1e-9)
    assert pftk_approx_throughput(1460, rtt, p, rto, b=b, rwnd=rwnd) <= cap * (1 + 1e-9)


@settings(max_examples=60)
@given(
    p1=st.floats(min_value=0.0, max_value=0.45),
    p2=st.floats(min_value=0.0, max_value=0.45),
    d=st.integers(min_value=1, max_value=5000),
    rtt=rtts,
    b=st.sampled_from([1, 2]),
)
def test_cardwell_latency_grows_with_p(p1, p2, d, rtt, b):
    lo, hi = sorted((p1, p2))
    assert cardwell_latency(d, rtt, hi, b=b).total >= cardwell_latency(d, rtt, lo, b=b).total * (
        1 - 1e-12
    )


@settings(max_examples=60)
@given(
    r1=rtts,
    r2=rtts,
    d=st.integers(min_value=1, max_value=5000),
    p=st.floats(min_value=0.0, max_value=0.45),
    wmax=st.sampled_from([math.inf, 6.0, 44.0]),
)
def test_cardwell_latency_grows_with_rtt_and_size(r1, r2, d, p, wmax):
    lo, hi = sorted((r1, r2))
    short = cardwell_latency(d, lo, p, wmax=wmax).total
    assert cardwell_latency(d, hi, p, wmax=wmax).total >= short * (1 - 1e-12)
    assert cardwell_latency(d + 1, lo, p, wmax=wmax).total >= short * (1 - 1e-12)


@given(
    size=st.floats(min_value=1, max_value=1e10),
    rtt=rtts,
    rate=st.floats(min_value=1e3, max_value=1e10),
    rwnd=st.floats(min_value=1460, max_value=1e8),
    p=st.floats(min_value=0.0, max_value=0.5),
    model=st.sampled_from(["mathis", "pftk"]),
)
def test_download_time_uses_the_smallest_limit(size, rtt, rate, rwnd, p, model):
    est = download_time(size, rtt, rate=rate, rwnd=rwnd, p=p, loss_model=model)
    limits = {"line-rate": est.line_rate, "window": est.window, "loss": est.loss}
    assert est.throughput == min(limits.values())
    assert limits[est.binding] == est.throughput
    assert est.seconds == pytest.approx(size / est.throughput)


@given(
    ber1=st.floats(min_value=0, max_value=1),
    ber2=st.floats(min_value=0, max_value=1),
    frame=st.floats(min_value=1, max_value=1e5),
)
def test_per_grows_with_ber_and_stays_below_linear(ber1, ber2, frame):
    lo, hi = sorted((ber1, ber2))
    assert per_from_ber(hi, frame) >= per_from_ber(lo, frame)
    assert 0.0 <= per_from_ber(hi, frame) <= 1.0
    assert per_from_ber(hi, frame) <= per_from_ber_linear(hi, frame) * (1 + 1e-12) + 1e-300
