//! Retransmission timeout per RFC 6298.
//!
//! - (2.2) first sample R: SRTT = R, RTTVAR = R/2;
//! - (2.3) later samples: RTTVAR = (1 - beta) RTTVAR + beta |SRTT - R'|, then
//!   SRTT = (1 - alpha) SRTT + alpha R', with alpha = 1/8 and beta = 1/4;
//! - RTO = SRTT + max(G, K * RTTVAR), K = 4, G the clock granularity;
//! - (2.4) RTO is at least `min` (the RFC says 1 s; Linux uses 200 ms), (2.5) at most `max`;
//! - (5.5) on expiry the timer backs off: RTO doubles, up to `max`;
//! - Karn's algorithm: samples come only from segments never retransmitted (or from timestamps),
//!   and the backed-off RTO is kept until such a sample arrives.
//!
//! All four gains are configurable because Riverbed and ns-2 expose them (Table 2 of Sarkar 2022).

use crate::engine::time::{Dur, SimTime};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtoConfig {
    pub initial: Dur,
    pub min: Dur,
    pub max: Dur,
    pub granularity: Dur,
    pub alpha: f64,
    pub beta: f64,
    pub k: f64,
}

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    /// Private: the timeout kept beside the state (`rto`) depends on it.
    cfg: RtoConfig,
    srtt: Option<f64>,
    rttvar: f64,
    /// SRTT and RTTVAR rounded to nanoseconds, computed once per sample (read on every ACK).
    srtt_ns: Option<Dur>,
    rttvar_ns: Dur,
    base: Dur,
    backoff: u32,
    pub min_rtt: Option<Dur>,
    pub latest: Option<Dur>,
    /// The latest sample as the estimator counted it: whole ticks under ns-2's rules
    /// (`t_rtt_ * tcp_tick_`), else the sample.
    pub latest_counted: Option<Dur>,
    // --- ns-2's estimator in ticks (`Ns2Rules::rtt_ticks`; tcp.cc rtt_update, rtt_timeout,
    // rtt_backoff): t_srtt_ << 3 and t_rttvar_ << 2 in ticks, t_rtxcur_ and t_backoff_.
    ns: bool,
    t_srtt: i64,
    t_rttvar: i64,
    rtxcur: f64,
    nsbackoff: i64,
    /// ns-2's boot_time_ (where tick boundaries fall), in seconds.
    boot: f64,
    /// `rto()`, computed again by every change of what it depends on: the sender reads it on
    /// every ACK that restarts the timer (100 MB bulk: 1,708 -> 1,690 instructions per data
    /// segment).
    cur: Dur,
}

impl RtoEstimator {
    pub fn new(cfg: RtoConfig) -> Self {
        let mut e = RtoEstimator {
            cfg,
            srtt: None,
            rttvar: 0.0,
            srtt_ns: None,
            rttvar_ns: Dur::ZERO,
            base: cfg.initial,
            backoff: 0,
            min_rtt: None,
            latest: None,
            latest_counted: None,
            ns: false,
            t_srtt: 0,
            // (set by the first sample; ns-2's initial value is never read before it)
            t_rttvar: 0,
            rtxcur: cfg.initial.as_secs_f64(),
            nsbackoff: 1,
            boot: 0.0,
            cur: Dur::ZERO,
        };
        e.refresh();
        e
    }

    fn ns_timeout(&self) -> f64 {
        let min = self.cfg.min.as_secs_f64();
        let tick = self.cfg.granularity.as_secs_f64();
        let b = self.nsbackoff as f64;
        let mut t = if self.rtxcur < min {
            min * b
        } else {
            self.rtxcur * b
        };
        t = t.min(self.cfg.max.as_secs_f64());
        if t < 2.0 * tick {
            t = 2.0 * tick;
        }
        t
    }

    /// Estimate as ns-2's `TcpAgent` does, with tick boundaries at `phase` past each multiple
    /// of the clock granularity.
    pub fn use_ns2_ticks(&mut self, phase: Dur) {
        self.ns = true;
        self.boot = phase.as_secs_f64();
        self.refresh();
    }

    /// Take one RTT measurement `r`, which ended at `now`.
    pub fn sample_at(&mut self, now: SimTime, r: Dur) {
        if self.ns {
            self.ns_sample(now, r);
        } else {
            self.sample(r);
        }
    }

    /// ns-2's `rtt_update`: the sample in whole ticks counted from the tick boundary before
    /// the send time, at least one.
    fn ns_sample(&mut self, now: SimTime, r: Dur) {
        let tick = self.cfg.granularity.as_secs_f64();
        let tao = r.as_secs_f64();
        let sendtime = now.as_secs_f64() - tao + self.boot;
        let tickoff = rem_exact(sendtime, tick);
        let mut t_rtt = ((tao + tickoff) / tick) as i64;
        if t_rtt < 1 {
            t_rtt = 1;
        }
        if self.t_srtt != 0 {
            let mut delta = t_rtt - (self.t_srtt >> 3);
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            if delta < 0 {
                delta = -delta;
            }
            delta -= self.t_rttvar >> 2;
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = t_rtt << 3;
            self.t_rttvar = t_rtt << 1;
        }
        self.rtxcur = (((self.t_rttvar << 3) + self.t_srtt) >> 3) as f64 * tick;
        self.nsbackoff = 1;
        self.backoff = 0;
        let srtt = (self.t_srtt as f64 / 8.0) * tick;
        self.srtt = Some(srtt * 1e9);
        self.srtt_ns = Some(Dur::from_secs_f64(srtt));
        self.rttvar_ns = Dur::from_secs_f64(self.t_rttvar as f64 / 4.0 * tick);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.latest = Some(r);
        self.latest_counted = Some(Dur(t_rtt as u64 * self.cfg.granularity.0));
        self.refresh();
    }

    /// Take one RTT measurement (RFC 6298 2.2, 2.3).
    pub fn sample(&mut self, r: Dur) {
        let rf = r.0 as f64;
        match self.srtt {
            None => {
                self.srtt = Some(rf);
                self.rttvar = rf / 2.0;
            }
            Some(s) => {
                self.rttvar = (1.0 - self.cfg.beta) * self.rttvar + self.cfg.beta * (s - rf).abs();
                self.srtt = Some((1.0 - self.cfg.alpha) * s + self.cfg.alpha * rf);
            }
        }
        let s = self.srtt.unwrap_or(rf);
        self.srtt_ns = Some(Dur(s.round() as u64));
        self.rttvar_ns = Dur(self.rttvar.round() as u64);
        let var = (self.cfg.k * self.rttvar).max(self.cfg.granularity.0 as f64);
        let rto = Dur((s + var).round() as u64);
        self.base = rto.max(self.cfg.min).min(self.cfg.max);
        self.backoff = 0;
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.latest = Some(r);
        self.latest_counted = Some(r);
        self.refresh();
    }

    /// The current timeout, with back-off applied.
    #[inline]
    pub fn rto(&self) -> Dur {
        self.cur
    }

    fn refresh(&mut self) {
        self.cur = self.timeout();
    }

    /// `rto()` from the estimator's state.
    fn timeout(&self) -> Dur {
        if self.ns {
            return Dur::from_secs_f64(self.ns_timeout());
        }
        let mult = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        self.base.saturating_mul(mult).min(self.cfg.max)
    }

    /// The timer expired: back off (RFC 6298 5.5).
    pub fn on_timeout(&mut self) {
        if self.ns {
            if self.nsbackoff < 64 || self.ns_timeout() < self.cfg.max.as_secs_f64() {
                self.nsbackoff <<= 1;
                self.backoff += 1;
            }
            if self.nsbackoff > 8 {
                self.t_rttvar += self.t_srtt >> 3;
                self.t_srtt = 0;
            }
        } else {
            self.backoff = (self.backoff + 1).min(62);
        }
        self.refresh();
    }

    /// ns-2's `t_backoff_ = 1` without an RTT sample.
    pub fn reset_backoff(&mut self) {
        self.nsbackoff = 1;
        self.backoff = 0;
        self.refresh();
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// RFC 6298 5.7: if the SYN's timer expired, RTO is re-initialised to 3 s (or the configured
    /// initial RTO if larger) when data transmission begins.
    pub fn reset_after_syn_timeout(&mut self) {
        if self.ns {
            return;
        }
        if self.srtt.is_none() {
            self.base = self.cfg.initial.max(Dur::from_secs(3)).min(self.cfg.max);
            self.backoff = 0;
            self.refresh();
        }
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.srtt_ns
    }
    pub fn rttvar(&self) -> Dur {
        self.rttvar_ns
    }
}

/// `x.rem_euclid(y)`, exactly as the library computes it. For `0 < y`, `x < 1e299` and a
/// quotient in [4, 2^52): the remainder from one product kept exact (Dekker's, with Veltkamp's
/// split) instead of the library's software `fmod` loop (about 350 instructions, 1 % of ns-2's
/// chain); other operands go to the library.
///
/// Exact because the rounded quotient's whole part `n` is the true one or one more (rounding
/// is monotonic and whole numbers are doubles), and `x - n*y` is a double for both: `x - hi`
/// loses nothing by Sterbenz's lemma (`hi/2 <= x <= 2*hi` once `n >= 2`), and subtracting the
/// product's error `lo` then rounds a double to itself. The bound on `x` keeps the split's
/// products finite.
fn rem_exact(x: f64, y: f64) -> f64 {
    let q = x / y;
    if !(y > 0.0 && x < 1e299 && (4.0..4_503_599_627_370_496.0).contains(&q)) {
        return x.rem_euclid(y);
    }
    let n = q.trunc();
    let hi = n * y;
    let lo = product_error(n, y, hi);
    let r = (x - hi) - lo;
    debug_assert!(
        r < y,
        "the whole part of the rounded quotient is never below the true one"
    );
    if r < 0.0 {
        r + y
    } else {
        r
    }
}

/// `a * b - p` exactly, for `p = a * b` rounded and no overflow (Dekker's product).
fn product_error(a: f64, b: f64, p: f64) -> f64 {
    fn split(v: f64) -> (f64, f64) {
        let c = 134_217_729.0 * v; // 2^27 + 1
        let hi = c - (c - v);
        (hi, v - hi)
    }
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    ((ah * bh - p) + ah * bl + al * bh) + al * bl
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `rem_exact` against the library's `rem_euclid`, bit for bit.
    fn same_as_the_library(x: f64, y: f64) -> Result<(), TestCaseError> {
        let (got, want) = (rem_exact(x, y), x.rem_euclid(y));
        prop_assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "x {:e} y {:e}: {:e} against {:e}",
            x,
            y,
            got,
            want
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn the_remainder_is_the_library_s_for_any_time_and_tick(
            x in 0.0f64..1e7, y in 1e-6f64..10.0,
        ) {
            same_as_the_library(x, y)?;
        }

        #[test]
        fn the_remainder_is_the_library_s_beside_each_multiple_of_the_tick(
            k in 0u64..100_000_000, ulps in -4i64..=4, tick in prop::sample::select(vec![0.01, 0.1, 0.5, 0.001, 0.2, 1.0 / 3.0]),
        ) {
            // Times a few units of the last place from k ticks: where the quotient's rounding
            // is off by one, on either side.
            let x = f64::from_bits((k as f64 * tick).to_bits().saturating_add_signed(ulps));
            same_as_the_library(x, tick)?;
            same_as_the_library(k as f64 * tick + 0.3e-9, tick)?; // ns-2's phase past a tick
        }
    }

    #[test]
    fn the_remainder_is_the_library_s_where_it_goes_to_the_library() {
        // Quotients below 4 or of 2^52 and more, negative or infinite operands, and operands
        // whose split would overflow (the quotient alone would not send them there).
        for (x, y) in [
            (0.0, 0.01),
            (0.015, 0.01),
            (0.039, 0.01),
            (1e300, 1e-300),
            (-3.5, 1.0),
            (-10.5, -1.0),
            (10.5, -1.0),
            (7.0, f64::INFINITY),
            (1e17, 1.0),
            (1e308, 2e300),
            (f64::MAX, 1e300),
        ] {
            assert_eq!(
                rem_exact(x, y).to_bits(),
                x.rem_euclid(y).to_bits(),
                "{x} {y}"
            );
        }
    }

    fn cfg() -> RtoConfig {
        RtoConfig {
            initial: Dur::from_secs(1),
            min: Dur::from_secs(1),
            max: Dur::from_secs(60),
            granularity: Dur::from_millis(1),
            alpha: 0.125,
            beta: 0.25,
            k: 4.0,
        }
    }

    fn ns2_ticks(phase_ms: u64) -> RtoEstimator {
        // ns-2.35: tcpTick_ 10 ms, minrto_ 200 ms, maxrto_ 60 s, rtxcur_init_ 3 s.
        let mut e = RtoEstimator::new(RtoConfig {
            initial: Dur::from_secs(3),
            min: Dur::from_millis(200),
            granularity: Dur::from_millis(10),
            ..cfg()
        });
        e.use_ns2_ticks(Dur::from_millis(phase_ms));
        e
    }

    #[test]
    fn ns2_counts_ticks_from_the_boundary_before_the_send_time() {
        // 45 ms sent at t = 1.0003 s, 0.3 ms past a boundary: 4 ticks; t_srtt_ = 4 << 3,
        // t_rttvar_ = 4 << 1, t_rtxcur_ = ((8 << 3) + 32) >> 3 = 12 ticks = 120 ms, below
        // minrto_ (200 ms).
        let mut e = ns2_ticks(0);
        assert_eq!(e.rto(), Dur::from_secs(3));
        e.sample_at(SimTime(1_045_300_000), Dur::from_millis(45));
        assert_eq!(e.srtt(), Some(Dur::from_millis(40)));
        assert_eq!(e.rto(), Dur::from_millis(200));
        // The same 45 ms sent 6.3 ms past a boundary spans 5 ticks.
        let mut late = ns2_ticks(6);
        late.sample_at(SimTime(1_045_300_000), Dur::from_millis(45));
        assert_eq!(late.srtt(), Some(Dur::from_millis(50)));
        // A sample shorter than a tick counts as one (the floor).
        let mut short = ns2_ticks(0);
        short.sample_at(SimTime(2_003_500_000), Dur::from_millis(3));
        assert_eq!(short.srtt(), Some(Dur::from_millis(10)));
    }

    #[test]
    fn ns2_backoff_doubles_to_64_and_folds_srtt_into_rttvar_past_8() {
        let mut e = ns2_ticks(0);
        e.sample_at(SimTime(1_500_300_000), Dur::from_millis(500));
        // 50 ticks: t_rtxcur_ = ((100 << 3) + 400) >> 3 = 150 ticks = 1.5 s.
        assert_eq!(e.rto(), Dur::from_millis(1500));
        let seen: Vec<Dur> = (0..4)
            .map(|_| {
                e.on_timeout();
                e.rto()
            })
            .collect();
        assert_eq!(
            seen,
            [3000, 6000, 12000, 24000].map(Dur::from_millis).to_vec()
        );
        // t_backoff_ 16 > 8 folded SRTT (50 ticks) into RTTVAR and zeroed it: the next sample
        // restarts the estimator as a first one.
        e.sample_at(SimTime(30_000_000_000), Dur::from_millis(100));
        assert_eq!(e.srtt(), Some(Dur::from_millis(100)));
        assert_eq!(e.backoff(), 0);
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = RtoEstimator::new(RtoConfig {
            min: Dur::ZERO,
            ..cfg()
        });
        assert_eq!(e.rto(), Dur::from_secs(1));
        e.sample(Dur::from_millis(100));
        assert_eq!(e.srtt(), Some(Dur::from_millis(100)));
        assert_eq!(e.rttvar(), Dur::from_millis(50));
        // RTO = 100 + 4 * 50 = 300 ms.
        assert_eq!(e.rto(), Dur::from_millis(300));
        // Second sample 200 ms: RTTVAR = 0.75*50 + 0.25*100 = 62.5, SRTT = 112.5, RTO = 362.5.
        e.sample(Dur::from_millis(200));
        assert_eq!(e.rto(), Dur::from_micros(362_500));
    }

    #[test]
    fn minimum_and_maximum_clamp() {
        let mut e = RtoEstimator::new(cfg());
        e.sample(Dur::from_millis(40));
        assert_eq!(e.rto(), Dur::from_secs(1));
        for _ in 0..10 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), Dur::from_secs(60));
    }

    #[test]
    fn backoff_doubles_and_a_valid_sample_resets_it() {
        let mut e = RtoEstimator::new(cfg());
        e.sample(Dur::from_millis(40));
        e.on_timeout();
        e.on_timeout();
        assert_eq!(e.rto(), Dur::from_secs(4));
        e.sample(Dur::from_millis(40));
        assert_eq!(e.rto(), Dur::from_secs(1));
    }

    #[test]
    fn granularity_floors_the_variance_term() {
        let mut e = RtoEstimator::new(RtoConfig {
            min: Dur::ZERO,
            granularity: Dur::from_millis(500),
            ..cfg()
        });
        e.sample(Dur::from_millis(40));
        e.sample(Dur::from_millis(40));
        e.sample(Dur::from_millis(40));
        // K*RTTVAR is ~56 ms after three equal samples; G = 500 ms dominates.
        assert_eq!(e.rto(), Dur::from_millis(540));
    }
}
