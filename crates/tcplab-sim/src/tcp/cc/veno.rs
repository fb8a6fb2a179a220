//! TCP Veno: Fu and Liew, "TCP Veno: TCP Enhancement for Transmission Over Wireless Access
//! Networks", IEEE JSAC 21(2), 2003 (Linux `net/ipv4/tcp_veno.c` for the structure).
//!
//! Veno estimates the connection's backlog in the bottleneck queue as Vegas does,
//! N = (Expected - Actual) x BaseRTT = cwnd (RTT - BaseRTT) / RTT segments, and uses it to
//! tell random loss (N < beta) from congestive loss (N >= beta):
//!
//! - loss (fast retransmit): ssthresh = 4/5 of the window if N < beta (random loss), 1/2 if
//!   N >= beta (congestion); at least 2 SMSS. RTO: the same ssthresh, cwnd = 1 SMSS;
//! - congestion avoidance: N < beta: Reno's +1 segment per RTT; N >= beta: +1 segment every
//!   other RTT (Linux: every second time a window's worth of bytes has been acknowledged);
//! - slow start and fast recovery as Reno.
//!
//! BaseRTT is the smallest RTT ever measured; RTT the smallest sample of the last round trip
//! (rounds end when the ACK passes the SND.NXT recorded at the round's start). N is updated at
//! the end of each round with more than 2 samples (as Linux's `cntrtt > 2`), and starts at 0.
//! beta = 3 segments (the paper and Linux).
//!
//! Deviation: the window the loss rule scales is FlightSize (as RFC 5681 eq. 4), not cwnd as in
//! the paper and Linux, because this simulator, like ns-2, lets cwnd grow while the receiver's
//! window limits what is in flight.

use super::vegas::RttRounds;
use super::{congestion_avoidance, slow_start, AckEvent, CcState, CongestionControl};
use crate::engine::time::Dur;
use crate::tcp::params::{Range, Tunable, Walk};

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Backlog (segments) separating random from congestive loss (paper and Linux: 3).
    pub beta: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config { beta: 3.0 }
    }
}

/// `[tcp] cc_params` of veno: `beta` in segments, 0 to 1000.
impl Tunable for Config {
    fn walk(&mut self, w: &mut Walk<'_>) {
        w.number("beta", &mut self.beta, Range::Closed(0.0, 1000.0));
    }
}

#[derive(Clone, Debug)]
pub struct Veno {
    pub cfg: Config,
    rounds: RttRounds,
    /// Backlog N in segments.
    backlog: f64,
    /// Congestive state: increase on every second window's worth of ACKs.
    inc: bool,
    cong_bytes: u64,
}

impl Default for Veno {
    fn default() -> Self {
        Veno {
            cfg: Config::default(),
            rounds: RttRounds::default(),
            backlog: 0.0,
            inc: true,
            cong_bytes: 0,
        }
    }
}

/// Veno's backlog N = cwnd (RTT - BaseRTT) / RTT in segments.
pub fn backlog(cwnd_segs: f64, base: Dur, rtt: Dur) -> f64 {
    let r = rtt.as_secs_f64().max(1e-9);
    cwnd_segs * (r - base.as_secs_f64()) / r
}

impl Veno {
    pub fn new(cfg: Config) -> Self {
        Veno {
            cfg,
            ..Veno::default()
        }
    }

    pub fn backlog(&self) -> f64 {
        self.backlog
    }

    pub fn set_backlog(&mut self, n: f64) {
        self.backlog = n;
    }

    /// Random loss (N < beta): keep 4/5; congestive loss: keep 1/2.
    pub fn random_loss(&self) -> bool {
        self.backlog < self.cfg.beta
    }
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }

    fn on_delivery(&mut self, _st: &mut CcState, ev: &AckEvent) {
        self.rounds.on_delivery(ev);
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        if self.rounds.round_over(ev) {
            if let Some((base, rtt)) = self.rounds.sample() {
                self.backlog = backlog(st.cwnd as f64 / st.mss as f64, base, rtt);
            }
            self.rounds.next_round(ev);
        }
        let mut acked = ev.bytes_acked;
        if st.cwnd < st.ssthresh {
            acked = slow_start(st, acked);
            if acked == 0 || st.cwnd < st.ssthresh {
                return;
            }
        }
        if self.random_loss() {
            congestion_avoidance(st, acked);
        } else {
            self.cong_bytes += acked;
            if self.cong_bytes >= st.cwnd {
                self.cong_bytes = 0;
                if self.inc {
                    st.cwnd += st.mss;
                    self.inc = false;
                } else {
                    self.inc = true;
                }
            }
        }
    }

    fn ssthresh(&self, st: &CcState, flight: u64) -> u64 {
        let w = if self.random_loss() {
            flight * 4 / 5
        } else {
            flight / 2
        };
        w.max(2 * st.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::super::CaRule;
    use super::*;

    fn st(cwnd: u64) -> CcState {
        CcState {
            cwnd,
            ssthresh: 10_000,
            mss: 1000,
            ca_rule: CaRule::ByteCounting,
            abc_limit: 1,
            ca_bytes: 0,
        }
    }

    #[test]
    fn beta_chooses_four_fifths_or_one_half() {
        // 30 segments, BaseRTT 100 ms, RTT 105 ms: N = 30 x 5/105 = 1.43 < 3: random loss.
        let n = backlog(30.0, Dur::from_millis(100), Dur::from_millis(105));
        assert!((n - 30.0 * 5.0 / 105.0).abs() < 1e-9);
        let mut v = Veno::default();
        v.set_backlog(n);
        let mut s = st(30_000);
        v.on_enter_recovery(&mut s, 30_000);
        assert_eq!((s.ssthresh, s.cwnd), (24_000, 24_000));
        // RTT 125 ms: N = 6 >= 3: congestive loss.
        v.set_backlog(backlog(30.0, Dur::from_millis(100), Dur::from_millis(125)));
        assert!(!v.random_loss());
        let mut s = st(30_000);
        v.on_enter_recovery(&mut s, 30_000);
        assert_eq!((s.ssthresh, s.cwnd), (15_000, 15_000));
        // Exactly beta counts as congestive.
        v.set_backlog(3.0);
        assert!(!v.random_loss());
    }

    #[test]
    fn congestive_state_grows_every_other_rtt() {
        let ack = |b: u64| AckEvent {
            bytes_acked: b,
            ack: 0,
            snd_max: u64::MAX,
            ..AckEvent::default()
        };
        let mut v = Veno::default();
        v.rounds.round_end = u64::MAX; // keep N fixed
        v.set_backlog(5.0);
        let mut s = st(10_000);
        // Two windows of ACKs in the congestive state: +1 segment once.
        for _ in 0..20 {
            v.on_ack(&mut s, &ack(1000));
        }
        assert_eq!(s.cwnd, 11_000);
        // Non-congestive: Reno byte counting, +1 segment per window.
        v.set_backlog(1.0);
        for _ in 0..11 {
            v.on_ack(&mut s, &ack(1000));
        }
        assert_eq!(s.cwnd, 12_000);
    }
}
