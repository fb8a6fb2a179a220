//! TCP Westwood+: Grieco and Mascolo, "Performance evaluation and comparison of Westwood+, New
//! Reno, and Vegas TCP congestion control", ACM CCR 34(2), 2004 (and Dell'Aera, Grieco, Mascolo,
//! ICC 2004).
//!
//! Westwood's reaction to loss (ssthresh = BWE x RTTmin) with one bandwidth sample per RTT
//! instead of one per ACK, which keeps ACK compression from inflating the estimate:
//!
//! - the bytes the ACKs report delivered (Westwood's accounting, see `westwood.rs`) are summed
//!   over a window of at least one RTT (SRTT, but at least `Config::min_interval`);
//! - at the end of the window: b_k = D_k / T_k, then b^_k = g b^_{k-1} + (1 - g) b_k with
//!   g = `Config::gain` (0.9 in the paper); the first sample initialises the estimate;
//! - on three duplicate ACKs: ssthresh = BWE x RTTmin (at least 2 SMSS), cwnd = min(cwnd,
//!   ssthresh); on RTO: ssthresh = BWE x RTTmin, cwnd = 1 SMSS;
//! - otherwise Reno growth, and NewReno-style recovery as in Linux `tcp_westwood.c`.
//!
//! Deviations: Linux filters twice with gain 7/8 (`westwood_do_filter` on `bw_ns_est`, then
//! `bw_est`); we use the paper's single filter. The 50 ms floor of the sampling window is
//! Linux's `TCP_WESTWOOD_RTT_MIN` (the paper has none).

use super::westwood::Shared;
use super::{reno_increase, AckEvent, CcState, CongestionControl, RecoveryStyle, SenderRules};
use crate::engine::time::{Dur, SimTime};
use crate::tcp::params::{Range, Tunable, Walk};

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Filter gain g of b^_k = g b^_{k-1} + (1 - g) b_k (Grieco & Mascolo 2004: 0.9).
    pub gain: f64,
    /// Shortest sampling window (Linux TCP_WESTWOOD_RTT_MIN = 50 ms).
    pub min_interval: Dur,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            gain: 0.9,
            min_interval: Dur::from_millis(50),
        }
    }
}

/// `[tcp] cc_params` of westwood+: `gain` in [0, 1) and `min_interval` (0 to 10 s).
impl Tunable for Config {
    fn walk(&mut self, w: &mut Walk<'_>) {
        w.number("gain", &mut self.gain, Range::OpenHi(0.0, 1.0));
        w.duration(
            "min_interval",
            &mut self.min_interval,
            Dur::ZERO,
            Dur::from_secs(10),
        );
    }
}

#[derive(Clone, Debug, Default)]
pub struct WestwoodPlus {
    pub cfg: Config,
    shared: Shared,
    window_start: Option<SimTime>,
    window_bytes: u64,
    bwe: Option<f64>,
}

impl WestwoodPlus {
    pub fn new(cfg: Config) -> Self {
        WestwoodPlus {
            cfg,
            ..WestwoodPlus::default()
        }
    }

    /// The filtered bandwidth estimate in bytes per second.
    pub fn bwe(&self) -> f64 {
        self.bwe.unwrap_or(0.0)
    }

    /// An ACK at `now` reporting `d` bytes delivered; `rtt` is the current SRTT.
    pub fn sample(&mut self, now: SimTime, d: u64, rtt: Option<Dur>) {
        let Some(start) = self.window_start else {
            // The first ACK opens the window; what it reports was delivered before it.
            self.window_start = Some(now);
            self.window_bytes = 0;
            return;
        };
        self.window_bytes += d;
        let delta = now.since(start);
        let window = rtt.unwrap_or(Dur::ZERO).max(self.cfg.min_interval);
        if delta > window {
            let b = self.window_bytes as f64 / delta.as_secs_f64();
            let g = self.cfg.gain;
            self.bwe = Some(self.bwe.map_or(b, |e| g * e + (1.0 - g) * b));
            self.window_start = Some(now);
            self.window_bytes = 0;
        }
    }
}

impl CongestionControl for WestwoodPlus {
    fn bandwidth_estimate(&self) -> Option<(f64, Option<Dur>)> {
        Some((self.bwe(), self.shared.rtt_min))
    }
    fn name(&self) -> &'static str {
        "westwood+"
    }

    fn sender_rules(&self) -> SenderRules {
        SenderRules {
            grows_as_reno: true,
            recovery: RecoveryStyle::NewReno,
            ..SenderRules::DEFAULT
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        reno_increase(st, ev.bytes_acked);
    }

    fn on_delivery(&mut self, st: &mut CcState, ev: &AckEvent) {
        if let Some(d) = self.shared.on_delivery(st, ev) {
            self.sample(ev.now, d, ev.srtt);
        }
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, rtt: Dur) {
        self.shared.note_rtt(rtt);
    }

    fn ssthresh(&self, st: &CcState, _flight: u64) -> u64 {
        self.shared.ssthresh(self.bwe(), st)
    }

    fn on_enter_recovery(&mut self, st: &mut CcState, _flight: u64) {
        self.shared.on_enter_recovery(self.bwe(), st);
    }

    fn on_rto(&mut self, st: &mut CcState, _flight: u64, _first_timeout: bool) {
        self.shared.on_rto(self.bwe(), st);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sample_per_rtt_then_ewma() {
        let mut w = WestwoodPlus::default();
        let ms = |m: u64| SimTime(m * 1_000_000);
        let rtt = Some(Dur::from_millis(100));
        // 1000 bytes every 10 ms = 100 kB/s; the window closes after more than 100 ms.
        for k in 0..=10 {
            w.sample(ms(10 * k), 1000, rtt);
        }
        assert_eq!(w.bwe(), 0.0, "window not closed at exactly one RTT");
        w.sample(ms(110), 1000, rtt);
        // 11000 bytes after the first ACK (which opened the window) over 110 ms = 100 kB/s.
        assert!((w.bwe() - 100_000.0).abs() < 1e-6, "{}", w.bwe());
        // Second window at 200 kB/s: 0.9 x 100k + 0.1 x 200k.
        for k in 1..=11 {
            w.sample(ms(110 + 10 * k), 2000, rtt);
        }
        assert!((w.bwe() - 110_000.0).abs() < 1e-6, "{}", w.bwe());
    }
}
