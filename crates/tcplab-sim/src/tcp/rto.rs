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

use crate::time::Dur;

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
    pub cfg: RtoConfig,
    srtt: Option<f64>,
    rttvar: f64,
    /// SRTT and RTTVAR rounded to nanoseconds, computed once per sample (read on every ACK).
    srtt_ns: Option<Dur>,
    rttvar_ns: Dur,
    base: Dur,
    backoff: u32,
    pub min_rtt: Option<Dur>,
    pub latest: Option<Dur>,
}

impl RtoEstimator {
    pub fn new(cfg: RtoConfig) -> Self {
        RtoEstimator {
            cfg,
            srtt: None,
            rttvar: 0.0,
            srtt_ns: None,
            rttvar_ns: Dur::ZERO,
            base: cfg.initial,
            backoff: 0,
            min_rtt: None,
            latest: None,
        }
    }

    /// Take one RTT measurement.
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
    }

    /// The current timeout, with back-off applied.
    pub fn rto(&self) -> Dur {
        let mult = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        self.base.saturating_mul(mult).min(self.cfg.max)
    }

    /// The timer expired: back off (RFC 6298 5.5).
    pub fn on_timeout(&mut self) {
        self.backoff = (self.backoff + 1).min(62);
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// RFC 6298 5.7: if the SYN's timer expired, RTO is re-initialised to 3 s (or the configured
    /// initial RTO if larger) when data transmission begins.
    pub fn reset_after_syn_timeout(&mut self) {
        if self.srtt.is_none() {
            self.base = self.cfg.initial.max(Dur::from_secs(3)).min(self.cfg.max);
            self.backoff = 0;
        }
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.srtt_ns
    }
    pub fn rttvar(&self) -> Dur {
        self.rttvar_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
