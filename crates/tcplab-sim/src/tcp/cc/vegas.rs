//! TCP Vegas: Brakmo and Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global
//! Internet", IEEE JSAC 13(8), 1995; structured as Linux `net/ipv4/tcp_vegas.c`.
//!
//! Once per round trip (when the ACK passes the SND.NXT recorded at the start of the round), with
//! BaseRTT the smallest RTT ever measured and RTT the smallest of the last round (Linux's
//! `minRTT`, which filters delayed-ACK noise):
//!
//! - Diff = cwnd (RTT - BaseRTT) / BaseRTT, in segments (Expected - Actual times BaseRTT), and
//!   target = cwnd BaseRTT / RTT;
//! - slow start: if Diff > gamma, leave it: cwnd = min(cwnd, target + 1), ssthresh =
//!   min(ssthresh, cwnd - 1); otherwise grow as RFC 5681 slow start on every ACK;
//! - congestion avoidance: Diff > beta: cwnd -= 1 segment (and ssthresh = min(ssthresh, cwnd -
//!   1)); Diff < alpha: cwnd += 1 segment; otherwise hold. cwnd stays at least 2 segments;
//! - with 2 RTT samples or fewer in the round, behave as Reno for that round (Linux).
//!
//! RTT samples are the per-ACK samples of the most recently sent segment each ACK delivers
//! (never-retransmitted segments only), as Linux's `pkts_acked` gives Vegas.
//!
//! We do not change the loss detection or recovery mechanisms: on loss Vegas here reacts as
//! Reno (RFC 5681 halving), as Linux does. Deviations from the paper: its slow start doubles
//! every other RTT and its loss reaction reduces cwnd by 1/4; we follow Linux. Its "new
//! retransmission mechanism" (fine-grained timeout checks on duplicate ACKs) belongs to loss
//! detection and is not part of this plug-in.

use super::{reno_increase, slow_start, AckEvent, CcState, CongestionControl};
use crate::engine::time::Dur;
use crate::error::SimResult;
use crate::tcp::params::{Range, Tunable, Walk};

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Fewer than alpha segments queued: grow (paper and ns-2 `v_alpha_` 1; Linux 2).
    pub alpha: f64,
    /// More than beta segments queued: shrink (paper and ns-2 `v_beta_` 3; Linux 4).
    pub beta: f64,
    /// Leave slow start above gamma segments queued (paper, ns-2 and Linux: 1).
    pub gamma: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            alpha: 1.0,
            beta: 3.0,
            gamma: 1.0,
        }
    }
}

/// `[tcp] cc_params` of vegas: `alpha`, `beta`, `gamma` in segments, 0 to 1000, alpha <= beta.
impl Tunable for Config {
    fn walk(&mut self, w: &mut Walk<'_>) {
        w.number("alpha", &mut self.alpha, Range::Closed(0.0, 1000.0));
        w.number("beta", &mut self.beta, Range::Closed(0.0, 1000.0));
        w.number("gamma", &mut self.gamma, Range::Closed(0.0, 1000.0));
    }

    fn check(&self, w: &Walk<'_>) -> SimResult<()> {
        if self.alpha > self.beta {
            return Err(w.invalid(
                "beta",
                self.beta,
                format!("at least alpha ({})", self.alpha),
            ));
        }
        Ok(())
    }
}

/// What Vegas decides at the end of a round in congestion avoidance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Adjust {
    Increase,
    Hold,
    Decrease,
}

#[derive(Clone, Debug, Default)]
pub struct Vegas {
    pub cfg: Config,
    rounds: RttRounds,
}

/// The per-round RTT bookkeeping of Vegas and Veno: BaseRTT (the smallest RTT sample seen),
/// and the smallest RTT sample and the number of samples in the current round (one window of
/// data, from the ACK that ends the previous round to `snd_max` at that time).
#[derive(Clone, Debug, Default)]
pub struct RttRounds {
    base_rtt: Option<Dur>,
    round_min: Option<Dur>,
    cnt_rtt: u32,
    /// The round ends with the ACK of this sequence number.
    pub(super) round_end: u64,
}

impl RttRounds {
    /// Notes the ACK's RTT sample (at least 1 us).
    #[inline]
    pub fn on_delivery(&mut self, ev: &AckEvent) {
        if let Some(r) = ev.sample_rtt {
            let r = r.max(Dur(1_000));
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.round_min = Some(self.round_min.map_or(r, |b| b.min(r)));
            self.cnt_rtt += 1;
        }
    }

    /// Whether this ACK ends the round.
    #[inline]
    pub fn round_over(&self, ev: &AckEvent) -> bool {
        ev.ack >= self.round_end
    }

    /// (BaseRTT, the round's smallest RTT) if the round had more than two samples.
    pub fn sample(&self) -> Option<(Dur, Dur)> {
        match (self.base_rtt, self.round_min) {
            (Some(base), Some(rtt)) if self.cnt_rtt > 2 => Some((base, rtt)),
            _ => None,
        }
    }

    /// Start the next round: it ends with the ACK of what is sent now (`ev.snd_max`).
    pub fn next_round(&mut self, ev: &AckEvent) {
        self.round_end = ev.snd_max;
        self.round_min = None;
        self.cnt_rtt = 0;
    }
}

/// Vegas's Diff in segments: cwnd (RTT - BaseRTT) / BaseRTT.
pub fn diff(cwnd_segs: f64, base: Dur, rtt: Dur) -> f64 {
    let b = base.as_secs_f64().max(1e-9);
    cwnd_segs * (rtt.as_secs_f64() - b) / b
}

impl Vegas {
    pub fn new(cfg: Config) -> Self {
        Vegas {
            cfg,
            ..Vegas::default()
        }
    }

    /// The congestion-avoidance rule for a given Diff.
    pub fn adjust(&self, diff: f64) -> Adjust {
        if diff > self.cfg.beta {
            Adjust::Decrease
        } else if diff < self.cfg.alpha {
            Adjust::Increase
        } else {
            Adjust::Hold
        }
    }

    fn end_round(&mut self, st: &mut CcState, ev: &AckEvent) {
        let mss = st.mss;
        let Some((base, rtt)) = self.rounds.sample() else {
            reno_increase(st, ev.bytes_acked);
            return;
        };
        let cwnd = st.cwnd as f64 / mss as f64;
        let d = diff(cwnd, base, rtt);
        let target = cwnd * base.as_secs_f64() / rtt.as_secs_f64().max(1e-9);
        if st.cwnd < st.ssthresh && d > self.cfg.gamma {
            // Leave slow start: the window is already beyond what the path holds.
            st.cwnd = st.cwnd.min(((target + 1.0) * mss as f64) as u64);
            st.ssthresh = st.ssthresh.min(st.cwnd.saturating_sub(mss));
        } else if st.cwnd < st.ssthresh {
            slow_start(st, ev.bytes_acked);
        } else {
            match self.adjust(d) {
                Adjust::Decrease => {
                    st.cwnd = st.cwnd.saturating_sub(mss);
                    st.ssthresh = st.ssthresh.min(st.cwnd.saturating_sub(mss));
                }
                Adjust::Increase => st.cwnd += mss,
                Adjust::Hold => {}
            }
        }
        st.cwnd = st.cwnd.max(2 * mss);
        st.ssthresh = st.ssthresh.max(2 * mss);
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_delivery(&mut self, _st: &mut CcState, ev: &AckEvent) {
        self.rounds.on_delivery(ev);
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        if self.rounds.round_over(ev) {
            self.end_round(st, ev);
            self.rounds.next_round(ev);
        } else if st.cwnd < st.ssthresh {
            slow_start(st, ev.bytes_acked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::CaRule;
    use super::*;

    fn st(cwnd_segs: u64, ssthresh: u64) -> CcState {
        CcState {
            cwnd: cwnd_segs * 1000,
            ssthresh,
            mss: 1000,
            ca_rule: CaRule::PerAck,
            abc_limit: 1,
            ca_bytes: 0,
        }
    }

    fn round(v: &mut Vegas, s: &mut CcState, rtt_ms: u64, ack: u64) {
        for _ in 0..3 {
            v.on_delivery(
                s,
                &AckEvent {
                    sample_rtt: Some(Dur::from_millis(rtt_ms)),
                    ..AckEvent::default()
                },
            );
        }
        v.on_ack(
            s,
            &AckEvent {
                bytes_acked: 1000,
                ack,
                snd_max: ack + 10_000,
                ..AckEvent::default()
            },
        );
    }

    #[test]
    fn diff_thresholds_decide_increase_hold_decrease() {
        let v = Vegas::default();
        // 20 segments, BaseRTT 100 ms: RTT 104 ms queues 0.8 segments, 110 ms 2, 120 ms 4.
        let base = Dur::from_millis(100);
        assert!((diff(20.0, base, Dur::from_millis(110)) - 2.0).abs() < 1e-9);
        assert_eq!(
            v.adjust(diff(20.0, base, Dur::from_millis(104))),
            Adjust::Increase
        );
        assert_eq!(
            v.adjust(diff(20.0, base, Dur::from_millis(110))),
            Adjust::Hold
        );
        assert_eq!(
            v.adjust(diff(20.0, base, Dur::from_millis(115))),
            Adjust::Hold
        );
        assert_eq!(
            v.adjust(diff(20.0, base, Dur::from_millis(120))),
            Adjust::Decrease
        );
    }

    #[test]
    fn once_per_round_in_congestion_avoidance() {
        let mut v = Vegas::default();
        let mut s = st(20, 10_000);
        // First round sets BaseRTT = 100 ms; Diff = 0 < alpha: +1 segment.
        round(&mut v, &mut s, 100, 0);
        assert_eq!(s.cwnd, 21_000);
        // An ACK inside the round changes nothing in congestion avoidance.
        v.on_ack(
            &mut s,
            &AckEvent {
                bytes_acked: 1000,
                ack: 5000,
                snd_max: 20_000,
                ..AckEvent::default()
            },
        );
        assert_eq!(s.cwnd, 21_000);
        // Next round RTT 120 ms: Diff = 21 x 0.2 = 4.2 > beta: -1 segment.
        round(&mut v, &mut s, 120, 10_000);
        assert_eq!(s.cwnd, 20_000);
        assert_eq!(s.ssthresh, 10_000);
        // RTT 110 ms: Diff = 2, between alpha and beta: hold.
        round(&mut v, &mut s, 110, 20_000);
        assert_eq!(s.cwnd, 20_000);
    }

    #[test]
    fn slow_start_ends_when_diff_exceeds_gamma() {
        let mut v = Vegas::default();
        let mut s = st(10, u64::MAX / 4);
        round(&mut v, &mut s, 100, 0);
        assert_eq!(s.cwnd, 11_000, "slow start while Diff <= gamma");
        // RTT 125 ms: Diff = 11 x 0.25 = 2.75 > gamma; target = 11 x 100/125 = 8.8.
        round(&mut v, &mut s, 125, 10_000);
        assert_eq!(s.cwnd, 9_800);
        assert_eq!(s.ssthresh, 8_800);
    }
}
