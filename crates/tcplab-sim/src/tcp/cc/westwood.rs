//! TCP Westwood: Casetti, Gerla, Mascolo, Sanadidi, Wang, "TCP Westwood: end-to-end congestion
//! control for wired/wireless networks", Wireless Networks 8 (2002), with the bandwidth
//! estimator and filter exactly as seed 003 (Oluwatope et al.) gives them, equations 1-5:
//!
//! - (1, 2) on an ACK at time t_k reporting d_k bytes delivered: b_k = d_k / (t_k - t_{k-1});
//! - (3) b^_k = a_k b^_{k-1} + (1 - a_k) (b_k + b_{k-1}) / 2,
//! - (4) a_k = (2 tau - dt_k) / (2 tau + dt_k), with 1/tau the filter's cut-off frequency
//!   (`Config::tau`), so (5) the last two samples weigh (1 - a_k) / 2 each;
//! - d_k follows the paper's accounting (also Linux `westwood_acked_count`): a duplicate ACK
//!   counts one segment delivered; a cumulative ACK of more than one segment counts only what
//!   the duplicate ACKs before it did not already count;
//! - on three duplicate ACKs: ssthresh = BWE x RTTmin (at least 2 SMSS), cwnd = min(cwnd,
//!   ssthresh); on RTO: ssthresh = BWE x RTTmin, cwnd = 1 SMSS;
//! - otherwise Reno: slow start, congestion avoidance, fast recovery (`Config::recovery`).
//!
//! RTTmin is the smallest RTT sample seen (handshake, RTO samples and per-ACK samples).
//!
//! Deliberate deviations:
//! - when an ACK arrives more than 2 tau after the previous one, a_k of equation 4 would be
//!   negative; we clamp it at 0 (the estimate becomes the mean of the last two samples). The
//!   ns-2 module instead feeds zero samples for each idle tau/2.
//! - ACKs arriving at the same instant as the previous one (dt = 0) are added to the next
//!   sample instead of dividing by zero.
//! - The default tau = 1 s is the default of the ns-2 TCP Westwood modules (`tau_`), which the
//!   seed's study ran; the seed itself gives no value.

use super::{reno_increase, AckEvent, CcState, CongestionControl, RecoveryStyle};
use crate::tcp::params::{Tunable, Walk};
use crate::time::{Dur, SimTime};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// 1/tau is the filter cut-off frequency (seed 003 eq. 4).
    pub tau: Dur,
    /// Fast recovery as Reno (the original TCPW was built on Reno) or NewReno.
    pub recovery: RecoveryStyle,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            tau: Dur::from_secs(1),
            recovery: RecoveryStyle::Reno,
        }
    }
}

/// `[tcp] cc_params` of westwood: `tau` (1 ms to 100 s) and `recovery` ("reno" or "newreno").
impl Tunable for Config {
    fn walk(&mut self, w: &mut Walk<'_>) {
        w.duration(
            "tau",
            &mut self.tau,
            Dur::from_millis(1),
            Dur::from_secs(100),
        );
        w.choice(
            "recovery",
            &mut self.recovery,
            &[
                ("reno", RecoveryStyle::Reno),
                ("newreno", RecoveryStyle::NewReno),
            ],
        );
    }
}

/// Westwood's count of delivered bytes per ACK (Casetti et al. 2002 section 2; Linux
/// `westwood_acked_count`).
#[derive(Clone, Debug, Default)]
pub struct AckCounter {
    /// Bytes already counted by duplicate ACKs and not yet covered by a cumulative ACK.
    accounted: u64,
}

impl AckCounter {
    /// Bytes this ACK reports delivered; None for an ACK that neither acknowledges data nor is a
    /// duplicate (a window update).
    pub fn count(&mut self, ev: &AckEvent, mss: u64) -> Option<u64> {
        if ev.dupack {
            self.accounted += mss;
            return Some(mss);
        }
        let mut cumul = ev.bytes_acked;
        if cumul == 0 {
            return None;
        }
        if cumul > mss {
            if self.accounted >= cumul {
                self.accounted -= cumul;
                cumul = mss;
            } else {
                cumul -= self.accounted;
                self.accounted = 0;
            }
        }
        Some(cumul)
    }
}

/// Westwood's window after a loss: BWE x RTTmin in bytes, at least 2 SMSS.
pub fn bw_rttmin(bwe: f64, rtt_min: Option<Dur>, mss: u64) -> u64 {
    let w = rtt_min.map_or(0.0, |r| bwe * r.as_secs_f64());
    (w as u64).max(2 * mss)
}

/// What Westwood and Westwood+ share besides their bandwidth filter: the count of delivered
/// bytes per ACK, RTTmin, and the reaction to loss (ssthresh = BWE x RTTmin).
#[derive(Clone, Debug, Default)]
pub struct Shared {
    counter: AckCounter,
    /// The smallest RTT sample seen.
    pub rtt_min: Option<Dur>,
}

impl Shared {
    /// Notes the ACK's RTT sample; the bytes it reports delivered (see [`AckCounter::count`]).
    #[inline]
    pub fn on_delivery(&mut self, st: &CcState, ev: &AckEvent) -> Option<u64> {
        if let Some(r) = ev.sample_rtt {
            self.note_rtt(r);
        }
        self.counter.count(ev, st.mss)
    }

    #[inline]
    pub fn note_rtt(&mut self, r: Dur) {
        if r.0 > 0 {
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
        }
    }

    /// BWE x RTTmin, at least 2 SMSS.
    pub fn ssthresh(&self, bwe: f64, st: &CcState) -> u64 {
        bw_rttmin(bwe, self.rtt_min, st.mss)
    }

    /// Three duplicate ACKs: ssthresh = BWE x RTTmin, cwnd = min(cwnd, ssthresh).
    pub fn on_enter_recovery(&self, bwe: f64, st: &mut CcState) {
        st.ssthresh = self.ssthresh(bwe, st);
        st.cwnd = st.cwnd.min(st.ssthresh);
        st.ca_bytes = 0;
    }

    /// RTO: ssthresh = BWE x RTTmin, cwnd = 1 SMSS.
    pub fn on_rto(&self, bwe: f64, st: &mut CcState) {
        st.ssthresh = self.ssthresh(bwe, st);
        st.cwnd = st.mss;
        st.ca_bytes = 0;
    }
}

#[derive(Clone, Debug, Default)]
pub struct Westwood {
    pub cfg: Config,
    shared: Shared,
    last_ack: Option<SimTime>,
    /// Bytes counted at the instant of the previous ACK (dt = 0), carried into the next sample.
    carry: u64,
    /// b_{k-1}, bytes per second.
    prev_sample: f64,
    /// b^_k, bytes per second.
    bwe: f64,
}

impl Westwood {
    pub fn new(cfg: Config) -> Self {
        Westwood {
            cfg,
            ..Westwood::default()
        }
    }

    /// The filtered bandwidth estimate in bytes per second.
    pub fn bwe(&self) -> f64 {
        self.bwe
    }

    pub fn rtt_min(&self) -> Option<Dur> {
        self.shared.rtt_min
    }

    /// One ACK at `now` reporting `d` bytes delivered: seed 003 equations 1-5.
    pub fn sample(&mut self, now: SimTime, d: u64) {
        let Some(prev) = self.last_ack else {
            self.last_ack = Some(now);
            return;
        };
        let dt = now.since(prev).as_secs_f64();
        if dt <= 0.0 {
            self.carry += d;
            return;
        }
        let b = (d + self.carry) as f64 / dt;
        self.carry = 0;
        let two_tau = 2.0 * self.cfg.tau.as_secs_f64();
        let a = ((two_tau - dt) / (two_tau + dt)).max(0.0);
        self.bwe = a * self.bwe + (1.0 - a) * (b + self.prev_sample) / 2.0;
        self.prev_sample = b;
        self.last_ack = Some(now);
    }
}

impl CongestionControl for Westwood {
    fn bandwidth_estimate(&self) -> Option<(f64, Option<Dur>)> {
        Some((self.bwe, self.shared.rtt_min))
    }
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        reno_increase(st, ev.bytes_acked);
    }

    fn on_delivery(&mut self, st: &mut CcState, ev: &AckEvent) {
        if let Some(d) = self.shared.on_delivery(st, ev) {
            self.sample(ev.now, d);
        }
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, rtt: Dur) {
        self.shared.note_rtt(rtt);
    }

    fn ssthresh(&self, st: &CcState, _flight: u64) -> u64 {
        self.shared.ssthresh(self.bwe, st)
    }

    fn recovery_style(&self) -> RecoveryStyle {
        self.cfg.recovery
    }

    fn on_enter_recovery(&mut self, st: &mut CcState, _flight: u64) {
        self.shared.on_enter_recovery(self.bwe, st);
    }

    fn on_rto(&mut self, st: &mut CcState, _flight: u64, _first_timeout: bool) {
        self.shared.on_rto(self.bwe, st);
    }
}

#[cfg(test)]
mod tests {
    use super::super::CaRule;
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn filter_matches_a_hand_computed_sequence() {
        // tau = 1 s. ACK times 0, 0.1, 0.2, 0.25, 3.25 s with 1000, 2000, 1000, 1000 bytes.
        // k=1: b = 10000, a = 1.9/2.1, b^ = (1 - a)(10000 + 0)/2 = 476.190476
        // k=2: b = 20000, b^ = a 476.19 + (1 - a)(20000 + 10000)/2 = 1859.410431
        // k=3: dt = 0.05, a = 1.95/2.05, b = 20000: b^ = 2744.317239
        // k=4: dt = 3 > 2 tau: a clamped to 0, b^ = (333.33 + 20000)/2 = 10166.666667
        let mut w = Westwood::default();
        w.sample(SimTime(0), 0);
        let t = |s: f64| SimTime((s * 1e9).round() as u64);
        w.sample(t(0.1), 1000);
        assert!(close(w.bwe(), 476.190_476_19), "{}", w.bwe());
        w.sample(t(0.2), 2000);
        assert!(close(w.bwe(), 1_859.410_430_84), "{}", w.bwe());
        w.sample(t(0.25), 1000);
        assert!(close(w.bwe(), 2_744.317_239_09), "{}", w.bwe());
        w.sample(t(3.25), 1000);
        assert!(close(w.bwe(), 10_166.666_666_67), "{}", w.bwe());
    }

    #[test]
    fn cut_off_is_configurable() {
        // A smaller tau (higher cut-off) follows the samples faster.
        let run = |tau_ms: u64| {
            let mut w = Westwood::new(Config {
                tau: Dur::from_millis(tau_ms),
                ..Config::default()
            });
            for k in 0..=10u64 {
                w.sample(SimTime(k * 10_000_000), 1000); // 100 kB/s
            }
            w.bwe()
        };
        assert!(run(50) > run(1000));
        assert!(run(50) < 100_000.0 + 1e-6);
    }

    #[test]
    fn dupacks_count_one_segment_and_are_not_counted_twice() {
        let mut c = AckCounter::default();
        let dup = AckEvent {
            dupack: true,
            ..AckEvent::default()
        };
        assert_eq!(c.count(&dup, 1000), Some(1000));
        assert_eq!(c.count(&dup, 1000), Some(1000));
        // A cumulative ACK of 5 segments after 2 duplicates: 3 are new.
        let cum = AckEvent {
            bytes_acked: 5000,
            ..AckEvent::default()
        };
        assert_eq!(c.count(&cum, 1000), Some(3000));
        // A window update counts nothing.
        assert_eq!(c.count(&AckEvent::default(), 1000), None);
    }

    #[test]
    fn loss_sets_ssthresh_to_bwe_times_rtt_min() {
        let mut w = Westwood {
            bwe: 125_000.0, // 1 Mbit/s
            shared: Shared {
                rtt_min: Some(Dur::from_millis(100)),
                ..Shared::default()
            },
            ..Westwood::default()
        };
        let mut s = CcState {
            cwnd: 40_000,
            ssthresh: u64::MAX / 4,
            mss: 1000,
            ca_rule: CaRule::PerAck,
            abc_limit: 1,
            ca_bytes: 0,
        };
        w.on_enter_recovery(&mut s, 40_000);
        assert_eq!((s.ssthresh, s.cwnd), (12_500, 12_500));
        // cwnd below BWE x RTTmin is kept.
        s.cwnd = 5000;
        w.on_enter_recovery(&mut s, 5000);
        assert_eq!((s.ssthresh, s.cwnd), (12_500, 5000));
        w.on_rto(&mut s, 5000, true);
        assert_eq!((s.ssthresh, s.cwnd), (12_500, 1000));
        // No estimate yet: 2 SMSS.
        let z = Westwood::default();
        assert_eq!(z.ssthresh(&s, 0), 2000);
    }
}
