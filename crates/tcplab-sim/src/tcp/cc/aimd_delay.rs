//! Congestion-controlled AIMD ("aimd-delay"): the improved AIMD of seed 004 (Kolawole and
//! Chukwu, "Design and Modeling of Improved TCP Throughput", IJSER 9(3), 2018).
//!
//! The seed describes, without equations, an AIMD whose throughput is divided by a
//! "congestion factor A0(t)" (its eq. 3) derived from the round-trip time, so that queuing delay
//! is suppressed. We define it precisely as follows (all parameters in `Config`):
//!
//! - queuing delay q = max(0, RTT_round - RTT_min), where RTT_min is the smallest RTT sample
//!   ever and RTT_round the smallest sample of the last round trip (a round ends when the ACK
//!   passes the SND.NXT recorded at its start); samples are the per-ACK RTTs of
//!   never-retransmitted segments;
//! - congestion factor A = q / `target` (0: no queue; 1: a standing queue of `target`);
//!   A = 0 until a round with samples has ended;
//! - congestion avoidance, per ACK of N new bytes: cwnd += a x SMSS x (1 - A) x N / cwnd, with
//!   (1 - A) limited to [-1, 1]. Over one RTT that is a x (1 - A) segments: the additive
//!   increase shrinks as the queue grows and turns into a decrease of up to a segments per
//!   RTT once the standing queue exceeds `target`, so standing queues shrink back towards it;
//!   cwnd never goes below 2 SMSS;
//! - slow start as RFC 5681, left (ssthresh = cwnd) as soon as the smallest sample of the
//!   current round so far shows a queue of `target` or more (checked on every ACK, so that the
//!   doubling is stopped within the round, as HyStart's delay test does);
//! - multiplicative decrease on loss: ssthresh = max(b x FlightSize, 2 SMSS), fast recovery as
//!   Reno; RTO: cwnd = 1 SMSS (RFC 5681).
//!
//! Defaults: a = 1 segment per RTT and b = 1/2 (RFC 5681's AIMD), target = 5 ms (the standing
//! queue CoDel, RFC 8289, accepts). With A = 0 throughout (no queue) the algorithm is Reno with
//! byte-exact per-ACK increase.

use super::{slow_start, AckEvent, CcState, CongestionControl};
use crate::engine::time::Dur;
use crate::tcp::params::{Range, Tunable, Walk};

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Additive increase in segments per RTT without queuing delay (RFC 5681: 1).
    pub a: f64,
    /// Multiplicative decrease factor on loss (RFC 5681: 1/2).
    pub b: f64,
    /// Queuing delay at which the increase turns into a decrease (RFC 8289's 5 ms).
    pub target: Dur,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            a: 1.0,
            b: 0.5,
            target: Dur::from_millis(5),
        }
    }
}

/// `[tcp] cc_params` of aimd-delay: `a` in (0, 100] segments per RTT, `b` in (0, 1), `target`
/// from 1 us to 10 s.
impl Tunable for Config {
    fn walk(&mut self, w: &mut Walk<'_>) {
        w.number("a", &mut self.a, Range::OpenLo(0.0, 100.0));
        w.number("b", &mut self.b, Range::Open(0.0, 1.0));
        w.duration(
            "target",
            &mut self.target,
            Dur::from_micros(1),
            Dur::from_secs(10),
        );
    }
}

#[derive(Clone, Debug, Default)]
pub struct AimdDelay {
    pub cfg: Config,
    min_rtt: Option<Dur>,
    round_min: Option<Dur>,
    round_end: u64,
    /// Congestion factor A of the last completed round.
    factor: f64,
    /// Fraction of a byte carried between ACKs.
    carry: f64,
}

impl AimdDelay {
    pub fn new(cfg: Config) -> Self {
        AimdDelay {
            cfg,
            ..AimdDelay::default()
        }
    }

    /// A = q / target for queuing delay q.
    pub fn congestion_factor(&self, queuing_delay: Dur) -> f64 {
        queuing_delay.as_secs_f64() / self.cfg.target.as_secs_f64().max(1e-12)
    }

    pub fn factor(&self) -> f64 {
        self.factor
    }

    pub fn set_factor(&mut self, a: f64) {
        self.factor = a;
    }

    /// Congestion-avoidance change of cwnd, in bytes, for an ACK of `acked` bytes.
    pub fn increase(&self, cwnd: u64, mss: u64, acked: u64) -> f64 {
        let scale = (1.0 - self.factor).clamp(-1.0, 1.0);
        self.cfg.a * mss as f64 * scale * acked as f64 / cwnd.max(1) as f64
    }
}

impl CongestionControl for AimdDelay {
    fn name(&self) -> &'static str {
        "aimd-delay"
    }

    fn on_delivery(&mut self, _st: &mut CcState, ev: &AckEvent) {
        if let Some(r) = ev.sample_rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            self.round_min = Some(self.round_min.map_or(r, |m| m.min(r)));
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        if st.cwnd < st.ssthresh {
            if let (Some(r), Some(m)) = (self.round_min, self.min_rtt) {
                if self.congestion_factor(r - m) >= 1.0 {
                    st.ssthresh = st.cwnd.max(2 * st.mss);
                }
            }
        }
        if ev.ack >= self.round_end {
            if let (Some(r), Some(m)) = (self.round_min, self.min_rtt) {
                self.factor = self.congestion_factor(r - m);
            }
            self.round_min = None;
            self.round_end = ev.snd_max;
        }
        let mut acked = ev.bytes_acked;
        if st.cwnd < st.ssthresh {
            acked = slow_start(st, acked);
            if acked == 0 || st.cwnd < st.ssthresh {
                return;
            }
        }
        let total = self.increase(st.cwnd, st.mss, acked) + self.carry;
        let whole = total.trunc();
        self.carry = total - whole;
        let next = st.cwnd as f64 + whole;
        st.cwnd = (next.max(0.0) as u64).max(2 * st.mss);
    }

    fn ssthresh(&self, st: &CcState, flight: u64) -> u64 {
        ((flight as f64 * self.cfg.b) as u64).max(2 * st.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::super::CaRule;
    use super::*;

    fn st(cwnd: u64) -> CcState {
        CcState {
            cwnd,
            ssthresh: 1000,
            mss: 1000,
            ca_rule: CaRule::PerAck,
            abc_limit: 1,
            ca_bytes: 0,
        }
    }

    #[test]
    fn increase_is_scaled_by_the_congestion_factor() {
        let mut c = AimdDelay::default();
        // 10-segment window, one segment acknowledged.
        assert_eq!(c.congestion_factor(Dur::from_micros(2500)), 0.5);
        c.set_factor(0.0);
        assert!((c.increase(10_000, 1000, 1000) - 100.0).abs() < 1e-9);
        c.set_factor(0.5);
        assert!((c.increase(10_000, 1000, 1000) - 50.0).abs() < 1e-9);
        c.set_factor(1.0);
        assert_eq!(c.increase(10_000, 1000, 1000), 0.0);
        // Twice the target: the window shrinks one segment per RTT; far above, no faster.
        c.set_factor(2.0);
        assert!((c.increase(10_000, 1000, 1000) + 100.0).abs() < 1e-9);
        c.set_factor(9.0);
        assert!((c.increase(10_000, 1000, 1000) + 100.0).abs() < 1e-9);
    }

    #[test]
    fn a_round_measures_queuing_delay_and_a_window_of_acks_applies_it() {
        let mut c = AimdDelay::default();
        let mut s = st(10_000);
        let rtt = |ms: f64| AckEvent {
            sample_rtt: Some(Dur::from_secs_f64(ms / 1000.0)),
            ..AckEvent::default()
        };
        let ack = |a: u64| AckEvent {
            bytes_acked: 1000,
            ack: a,
            snd_max: a + 10_000,
            ..AckEvent::default()
        };
        c.on_delivery(&mut s, &rtt(100.0));
        c.on_ack(&mut s, &ack(0)); // round 1 ends: q = 0, A = 0: a full MSS^2/cwnd
        assert_eq!(c.factor(), 0.0);
        assert_eq!(s.cwnd, 10_100);
        // Round 2: RTT 102.5 ms, q = 2.5 ms; the ACK ending it (at 10000) sets A = 0.5.
        c.on_delivery(&mut s, &rtt(102.5));
        for k in 10..20 {
            c.on_ack(&mut s, &ack(k * 1000));
        }
        assert!((c.factor() - 0.5).abs() < 1e-9);
        // Ten ACKs of one segment at A = 0.5 add about half a segment.
        assert!((10_560..=10_600).contains(&s.cwnd), "{}", s.cwnd);
        // Round 3: q = 10 ms, A = 2: the window shrinks by about one segment over a window.
        c.on_delivery(&mut s, &rtt(110.0));
        for k in 20..30 {
            c.on_ack(&mut s, &ack(k * 1000));
        }
        assert!((9_580..=9_680).contains(&s.cwnd), "{}", s.cwnd);
        // Loss: b = 1/2 of FlightSize.
        assert_eq!(c.ssthresh(&s, 9000), 4500);
    }

    #[test]
    fn slow_start_ends_when_the_queue_reaches_the_target() {
        let mut c = AimdDelay::default();
        let mut s = st(10_000);
        s.ssthresh = u64::MAX / 4;
        c.on_delivery(
            &mut s,
            &AckEvent {
                sample_rtt: Some(Dur::from_millis(100)),
                ..AckEvent::default()
            },
        );
        c.on_ack(
            &mut s,
            &AckEvent {
                bytes_acked: 1000,
                snd_max: 20_000,
                ..AckEvent::default()
            },
        );
        assert_eq!(s.cwnd, 11_000);
        c.on_delivery(
            &mut s,
            &AckEvent {
                sample_rtt: Some(Dur::from_millis(106)),
                ..AckEvent::default()
            },
        );
        c.on_ack(
            &mut s,
            &AckEvent {
                bytes_acked: 1000,
                ack: 20_000,
                snd_max: 30_000,
                ..AckEvent::default()
            },
        );
        assert_eq!(s.ssthresh, 11_000);
    }
}
