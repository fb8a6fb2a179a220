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
//! # The ns-2 module (`model = "ns2"`)
//!
//! Seed 003's authors ran the UCLA ns-2 TCP Westwood add-on (Casetti, Gerla, Mascolo, Valla;
//! `tcp-westwood.cc`, `tcp-westwood-nr.cc`, v1.3 2002). It differs from the equations above, and
//! each difference is a parameter; `model = "ns2"` sets them all to the module's constructor
//! defaults (the module binds its variables but ships no ns-default.tcl entries, so the
//! constructor's values stand), `model = "paper"` (the default) keeps the equations. A
//! parameter given next to `model` overrides the preset.
//!
//! - `ack_count = "ns2"` (`WestwoodTcpAgent::recv`, `WestwoodNRTcpAgent::bwe_computation`):
//!   the same duplicate-ACK accounting in whole packets, except that a cumulative ACK the
//!   duplicates already covered keeps one packet unaccounted (`unaccounted_ - cumul_ack + 1`);
//!   `ack_cap = 2`: at most two packets counted per ACK;
//! - `filter`: `filter_type_` 1 (`"ns2_fixed"`, the module's default: b^ = 0.9047 b^ + 0.0476
//!   (b_k + b_{k-1}), the Tustin filter with its coefficients fixed for dt = tau/10), 0
//!   (`"ns2_ewma"`, b^ = alpha b^ + (1 - alpha) b_k with `alpha` = `fr_alpha_` 0.9), 2
//!   (`"ns2_fixed_lower"`, 0.93548 and 0.03225) or 3 (`"ns2_tustin"`: equations 3-4, but for
//!   every tau/2 without an ACK a zero sample is fed first, and the interval the sample divides
//!   by is what is left of dt, at least 10 ms, else tau/2); the module's samples start from
//!   `lastackrx_` = 0 s, so the first ACK gives a sample too;
//! - `rtt_min = "ns2"` (`recv`, `slowdown`): the minimum of the RTO estimator's samples as it
//!   counts them (`t_rtt_ * tcp_tick_`: whole ticks under `[tcp.ns2] rtt_ticks`), starting
//!   from `min_rtt_estimate` = 5 s;
//! - `timeout_divisor = "ns2"` (`slowdown(CLOSE_FASTER)`): on a timeout in slow start (ssthresh
//!   above cwnd) `fr_a_` grows by 1 (by 0.25 at a fast retransmit in slow start,
//!   `dupack_action`), else it is 1, at most 4, and the timeout's ssthresh is BWE x RTTmin /
//!   `fr_a_`, without the 2-packet floor; the fast retransmit does not divide ("'a' is no
//!   longer being used");
//! - `recovery = "newreno"` with `loss_recovery = "newreno"` is Agent/TCP/WestwoodNR: the
//!   module's estimator and loss reaction on ns-2's NewReno agent, whose fast recovery inflates
//!   (`dupwnd_`) and ends keeping cwnd (`exit_recovery_fix_` 0); so with `model = "ns2"`,
//!   `recovery = "newreno"` turns `inflation` back on. Under `loss_recovery = "dupack"` the
//!   recovery phase ends at the first new ACK, where a NewReno window is Reno's: the scenario
//!   refuses that pair.
//!
//! The module's agent around the estimator differs from tcplab's sender too (no window
//! inflation, no limited transmit, no fast-retransmit guard, ns-2's window, ...): each
//! difference is a parameter of its own, declared with the sender rule it sets in
//! `ns2_agent.rs` (`inflation`, `exit_window`, `limited_transmit`, `fast_retransmit_guard`,
//! `ns2_window`, `estimate_first`, `syn_timeout`, `fr_inflation`, `partial_deflation`,
//! `impatient`), and the sender reads them once, in the controller's `SenderRules`.
//!
//! In the `ns2` profile the window is in whole packets (`cwnd_packets`), so ssthresh is the
//! module's `(int)` count of packets; the profile also keeps it at 2 packets at least after a
//! timeout, where the module may set 0 or 1 (the trajectory is the same: ns-2 opens cwnd from
//! 1 to 2 either way; only whether the next timeout counts as slow start for `fr_a_` differs).
//!
//! Deliberate deviations:
//! - when an ACK arrives more than 2 tau after the previous one, a_k of equation 4 would be
//!   negative; with `filter = "paper"` we clamp it at 0 (the estimate becomes the mean of the
//!   last two samples); `"ns2_tustin"` feeds zero samples for each idle tau/2 as the module.
//! - ACKs arriving at the same instant as the previous one (dt = 0) are added to the next
//!   sample instead of dividing by zero (the module would divide by zero).
//! - The default tau = 1 s is the default of the ns-2 TCP Westwood modules (`tau_`), which the
//!   seed's study ran; the seed itself gives no value.
//! - The module's first sample counts the ACK of the SYN too; ours start at the first ACK of
//!   data.
//! - With `estimate_first = false` (the paper preset), the estimate hears an ACK after the
//!   sender acted on it (`on_delivery`), so a fast retransmit's ssthresh uses the estimate
//!   before the third duplicate ACK's own sample; the module (and Linux) update it first,
//!   which `model = "ns2"` follows.

mod ns2_agent;

use super::{reno_increase, AckEvent, CcState, CongestionControl, RecoveryStyle, SenderRules};
use crate::engine::time::{Dur, SimTime};
use crate::tcp::params::{Range, Tunable, Walk};
pub use ns2_agent::{AgentRules, ExitWindow, SynTimeout};

/// Which Westwood the defaults of the other parameters follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// The paper's equations (seed 003 eqs. 1-5, Casetti et al. 2002).
    Paper,
    /// The ns-2 add-on module's constructor defaults (see the module docs).
    Ns2,
}

/// The bandwidth filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// Equations 3-4 with a_k clamped at 0.
    Paper,
    /// ns-2 `filter_type_` 0: b^ = alpha b^ + (1 - alpha) b_k.
    Ns2Ewma,
    /// ns-2 `filter_type_` 1: b^ = 0.9047 b^ + 0.0476 (b_k + b_{k-1}).
    Ns2Fixed,
    /// ns-2 `filter_type_` 2: b^ = 0.93548 b^ + 0.03225 (b_k + b_{k-1}).
    Ns2FixedLower,
    /// ns-2 `filter_type_` 3: equations 3-4 with a zero sample for every idle tau/2.
    Ns2Tustin,
}

/// How an ACK's delivered data is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckCount {
    /// Casetti et al. section 2, Linux `westwood_acked_count`.
    Paper,
    /// The module's `unaccounted_` bookkeeping (`recv`).
    Ns2,
}

/// Which RTT samples RTTmin is taken from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttMinFrom {
    /// Every sample: handshake, RTO estimator, per ACK.
    Samples,
    /// The RTO estimator's samples as it counts them, from 5 s (the module's
    /// `min_rtt_estimate` of `t_rtt_ * tcp_tick_`).
    Ns2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutDivisor {
    /// ssthresh = BWE x RTTmin after every timeout.
    None,
    /// The module's `fr_a_` divisor (`slowdown(CLOSE_FASTER)`).
    Ns2,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The preset the other parameters start from.
    pub model: Model,
    /// 1/tau is the filter cut-off frequency (seed 003 eq. 4; the module's `tau_`).
    pub tau: Dur,
    /// Fast recovery as Reno (the original TCPW was built on Reno) or NewReno.
    pub recovery: RecoveryStyle,
    pub filter: Filter,
    /// `fr_alpha_` of `filter = "ns2_ewma"`.
    pub alpha: f64,
    pub ack_count: AckCount,
    /// At most this many segments counted per ACK; 0: no cap.
    pub ack_cap: u64,
    pub rtt_min: RttMinFrom,
    pub timeout_divisor: TimeoutDivisor,
    /// The rules of the agent around the estimator (`ns2_agent.rs`).
    pub agent: AgentRules,
}

impl Default for Config {
    fn default() -> Self {
        Config::preset(Model::Paper)
    }
}

impl Config {
    /// The defaults of `model`.
    pub fn preset(model: Model) -> Self {
        let ns2 = model == Model::Ns2;
        Config {
            model,
            tau: Dur::from_secs(1),
            recovery: RecoveryStyle::Reno,
            filter: if ns2 { Filter::Ns2Fixed } else { Filter::Paper },
            alpha: 0.9,
            ack_count: if ns2 { AckCount::Ns2 } else { AckCount::Paper },
            ack_cap: if ns2 { 2 } else { 0 },
            rtt_min: if ns2 {
                RttMinFrom::Ns2
            } else {
                RttMinFrom::Samples
            },
            timeout_divisor: if ns2 {
                TimeoutDivisor::Ns2
            } else {
                TimeoutDivisor::None
            },
            agent: AgentRules::preset(model),
        }
    }
}

/// `[tcp] cc_params` of westwood: `model` ("paper" or "ns2", the preset of the rest), `tau`
/// (1 ms to 100 s), `recovery` ("reno" or "newreno"), `filter`, `alpha`, `ack_count`, `ack_cap`,
/// `rtt_min`, `timeout_divisor`, `inflation`, `exit_window`, `limited_transmit`,
/// `fast_retransmit_guard`, `ns2_window`, `estimate_first`, `syn_timeout` ("profile" or
/// "initial_window"), `fr_inflation`, `partial_deflation` and `impatient` (see the module docs).
impl Tunable for Config {
    fn walk(&mut self, w: &mut Walk<'_>) {
        let was = self.model;
        w.choice(
            "model",
            &mut self.model,
            &[("paper", Model::Paper), ("ns2", Model::Ns2)],
        );
        if self.model != was {
            *self = Config::preset(self.model);
        }
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
        if self.model == Model::Ns2 && self.recovery == RecoveryStyle::NewReno {
            self.agent.westwood_nr();
        }
        w.choice(
            "filter",
            &mut self.filter,
            &[
                ("paper", Filter::Paper),
                ("ns2_ewma", Filter::Ns2Ewma),
                ("ns2_fixed", Filter::Ns2Fixed),
                ("ns2_fixed_lower", Filter::Ns2FixedLower),
                ("ns2_tustin", Filter::Ns2Tustin),
            ],
        );
        w.number("alpha", &mut self.alpha, Range::OpenHi(0.0, 1.0));
        w.choice(
            "ack_count",
            &mut self.ack_count,
            &[("paper", AckCount::Paper), ("ns2", AckCount::Ns2)],
        );
        w.integer("ack_cap", &mut self.ack_cap, 0, 1000);
        w.choice(
            "rtt_min",
            &mut self.rtt_min,
            &[("samples", RttMinFrom::Samples), ("ns2", RttMinFrom::Ns2)],
        );
        w.choice(
            "timeout_divisor",
            &mut self.timeout_divisor,
            &[("none", TimeoutDivisor::None), ("ns2", TimeoutDivisor::Ns2)],
        );
        self.agent.walk(w);
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

    /// The ns-2 module's count (`WestwoodTcpAgent::recv`), in bytes of whole segments: as
    /// `count`, except that a cumulative ACK the duplicates already covered counts one segment
    /// and leaves one more unaccounted (`unaccounted_ - cumul_ack + 1`), and at most `cap`
    /// segments count (0: no cap; the module's 2).
    pub fn count_ns2(&mut self, ev: &AckEvent, mss: u64, cap: u64) -> Option<u64> {
        let mut cumul = if ev.dupack {
            self.accounted += mss;
            mss
        } else {
            let mut c = ev.bytes_acked;
            if c == 0 {
                return None;
            }
            if c > mss {
                if self.accounted >= c {
                    self.accounted = self.accounted - c + mss;
                    c = mss;
                } else {
                    c -= self.accounted;
                    self.accounted = 0;
                }
            }
            c
        };
        if cap > 0 {
            cumul = cumul.min(cap * mss);
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
    pub counter: AckCounter,
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

/// The module's `min_rtt_estimate` before any sample: 5 s.
const NS2_RTT_MIN_START: Dur = Dur::from_secs(5);

/// The module's `fr_a_` cap.
const NS2_FR_A_MAX: f64 = 4.0;

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
    /// RTTmin of `rtt_min = "ns2"`: the smallest of the RTO estimator's counted samples.
    counted_rtt_min: Option<Dur>,
    /// The module's `fr_a_` (`timeout_divisor = "ns2"`), 0 until the first loss.
    fr_a: f64,
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

    /// RTTmin as the loss reaction uses it.
    pub fn rtt_min(&self) -> Option<Dur> {
        match self.cfg.rtt_min {
            RttMinFrom::Samples => self.shared.rtt_min,
            RttMinFrom::Ns2 => Some(self.counted_rtt_min.unwrap_or(NS2_RTT_MIN_START)),
        }
    }

    /// The module's timeout divisor `fr_a_`.
    pub fn fr_a(&self) -> f64 {
        self.fr_a
    }

    /// One ACK at `now` reporting `d` bytes delivered: seed 003 equations 1-5, or the ns-2
    /// module's filter (`Config::filter`).
    pub fn sample(&mut self, now: SimTime, d: u64) {
        if self.cfg.filter != Filter::Paper {
            return self.sample_ns2(now, d);
        }
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

    /// The module's filters (`WestwoodTcpAgent::recv`, `filter_type_` 0-3), in bytes per second
    /// (the module's bits per second / 8, which scales every step exactly). The module's
    /// `lastackrx_` starts at 0 s.
    fn sample_ns2(&mut self, now: SimTime, d: u64) {
        let prev = self.last_ack.unwrap_or(SimTime(0));
        let mut dt = now.since(prev).as_secs_f64();
        if dt <= 0.0 {
            self.carry += d;
            return;
        }
        let bytes = (d + self.carry) as f64;
        self.carry = 0;
        let b = match self.cfg.filter {
            Filter::Ns2Ewma => {
                let b = bytes / dt;
                let a = self.cfg.alpha;
                self.bwe = self.bwe * a + b * (1.0 - a);
                b
            }
            Filter::Ns2Fixed => {
                let b = bytes / dt;
                self.bwe = self.bwe * 0.9047 + (b + self.prev_sample) * 0.0476;
                b
            }
            Filter::Ns2FixedLower => {
                let b = bytes / dt;
                self.bwe = self.bwe * 0.93548 + (b + self.prev_sample) * 0.03225;
                b
            }
            Filter::Ns2Tustin | Filter::Paper => {
                let tau = self.cfg.tau.as_secs_f64();
                // Whole tau/2 intervals without an ACK (the module's `(int)(dt / tau * 2)`).
                let mut idle = (dt / tau * 2.0) as u64;
                dt -= tau / 2.0 * idle as f64;
                if dt < 0.01 && idle > 0 {
                    // A remainder under 10 ms: the last tau/2 is the sample's interval.
                    dt = tau / 2.0;
                    idle -= 1;
                }
                let b = bytes / dt;
                for _ in 0..idle {
                    // A zero sample over tau/2: a = 3/5, weight 1/5 (equation 4 at dt = tau/2).
                    self.bwe = self.bwe * 3.0 / 5.0 + self.prev_sample / 5.0;
                    self.prev_sample = 0.0;
                    if self.bwe == 0.0 {
                        break;
                    }
                }
                let k = 2.0 * tau / dt;
                self.bwe = self.bwe * (k - 1.0) / (k + 1.0) + (b + self.prev_sample) / (k + 1.0);
                b
            }
        };
        self.prev_sample = b;
        self.last_ack = Some(now);
    }

    /// BWE x RTTmin: the ssthresh of a fast retransmit (at least 2 SMSS).
    fn loss_window(&self, st: &CcState) -> u64 {
        bw_rttmin(self.bwe, self.rtt_min(), st.mss)
    }
}

impl CongestionControl for Westwood {
    fn bandwidth_estimate(&self) -> Option<(f64, Option<Dur>)> {
        Some((self.bwe, self.rtt_min()))
    }
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn sender_rules(&self) -> SenderRules {
        self.cfg.agent.sender_rules(SenderRules {
            grows_as_reno: true,
            recovery: self.cfg.recovery,
            ..SenderRules::DEFAULT
        })
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        reno_increase(st, ev.bytes_acked);
    }

    fn on_delivery(&mut self, st: &mut CcState, ev: &AckEvent) {
        let d = match self.cfg.ack_count {
            AckCount::Paper => self.shared.on_delivery(st, ev).map(|d| {
                if self.cfg.ack_cap > 0 {
                    d.min(self.cfg.ack_cap * st.mss)
                } else {
                    d
                }
            }),
            AckCount::Ns2 => {
                if let Some(r) = ev.sample_rtt {
                    self.shared.note_rtt(r);
                }
                self.shared.counter.count_ns2(ev, st.mss, self.cfg.ack_cap)
            }
        };
        if let Some(d) = d {
            self.sample(ev.now, d);
        }
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, rtt: Dur) {
        self.shared.note_rtt(rtt);
    }

    fn on_counted_rtt(&mut self, rtt: Dur) {
        if rtt.0 > 0 {
            self.counted_rtt_min = Some(self.counted_rtt_min.map_or(rtt, |m| m.min(rtt)));
        }
    }

    fn ssthresh(&self, st: &CcState, _flight: u64) -> u64 {
        self.loss_window(st)
    }

    fn syn_timeout_window(&mut self, st: &mut CcState, initial: u64, timeouts: u64) -> bool {
        self.syn_timeout_window_ns2(st, initial, timeouts)
    }

    fn on_enter_recovery(&mut self, st: &mut CcState, _flight: u64) {
        if self.cfg.timeout_divisor == TimeoutDivisor::Ns2 {
            // dupack_action: fr_a_ moves, though only a later timeout divides by it.
            self.fr_a = if st.ssthresh > st.cwnd {
                (self.fr_a + 0.25).min(NS2_FR_A_MAX)
            } else {
                1.0
            };
        }
        st.ssthresh = self.loss_window(st);
        st.cwnd = st.cwnd.min(st.ssthresh);
        st.ca_bytes = 0;
    }

    fn on_exit_recovery(&mut self, st: &mut CcState, _flight: u64) {
        if self.cfg.agent.exit_window == ExitWindow::Ssthresh {
            st.cwnd = st.ssthresh;
        }
        st.ca_bytes = 0;
    }

    fn on_rto(&mut self, st: &mut CcState, _flight: u64, _first_timeout: bool) {
        match self.cfg.timeout_divisor {
            TimeoutDivisor::None => st.ssthresh = self.loss_window(st),
            TimeoutDivisor::Ns2 => {
                // slowdown(CLOSE_FASTER), at every timeout.
                self.fr_a = if st.ssthresh > st.cwnd {
                    (self.fr_a + 1.0).min(NS2_FR_A_MAX)
                } else {
                    1.0
                };
                let w = self
                    .rtt_min()
                    .map_or(0.0, |r| self.bwe * r.as_secs_f64() / self.fr_a);
                st.ssthresh = w as u64;
            }
        }
        st.cwnd = st.mss;
        st.ca_bytes = 0;
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
    /// Westwood with ns-2's agent rules (also used by `ns2_agent`'s tests).
    pub(super) fn ns2() -> Westwood {
        Westwood::new(Config::preset(Model::Ns2))
    }

    /// A sender's state for a controller call (also used by `ns2_agent`'s tests).
    pub(super) fn state(cwnd: u64, ssthresh: u64) -> CcState {
        CcState {
            cwnd,
            ssthresh,
            mss: 1000,
            ca_rule: CaRule::PerAck,
            abc_limit: 1,
            ca_bytes: 0,
        }
    }

    #[test]
    fn ns2_count_caps_each_ack_at_two_segments_and_keeps_one_unaccounted() {
        let dup = AckEvent {
            dupack: true,
            ..AckEvent::default()
        };
        let cum = |n: u64| AckEvent {
            bytes_acked: n * 1000,
            ..AckEvent::default()
        };
        let mut c = AckCounter::default();
        // A duplicate counts 1; a cumulative ACK of 5 then counts 5 - 1 = 4, capped at 2.
        assert_eq!(c.count_ns2(&dup, 1000, 2), Some(1000));
        assert_eq!(c.count_ns2(&cum(5), 1000, 2), Some(2000));
        // Without the cap, 4.
        let mut c = AckCounter::default();
        c.count_ns2(&dup, 1000, 0);
        assert_eq!(c.count_ns2(&cum(5), 1000, 0), Some(4000));
        // Three duplicates, then a cumulative ACK of 3 they covered: counts 1 and leaves
        // 3 - 3 + 1 = 1 unaccounted, so a following ACK of 2 counts 2 - 1 = 1. Linux's (the
        // paper's) count leaves none and counts that ACK 2.
        let (mut n, mut p) = (AckCounter::default(), AckCounter::default());
        for _ in 0..3 {
            n.count_ns2(&dup, 1000, 0);
            p.count(&dup, 1000);
        }
        assert_eq!(n.count_ns2(&cum(3), 1000, 0), Some(1000));
        assert_eq!(p.count(&cum(3), 1000), Some(1000));
        assert_eq!(n.count_ns2(&cum(2), 1000, 0), Some(1000));
        assert_eq!(p.count(&cum(2), 1000), Some(2000));
        // A window update counts nothing.
        assert_eq!(n.count_ns2(&AckEvent::default(), 1000, 2), None);
    }

    #[test]
    fn ns2_fixed_filter_matches_filter_type_1_by_hand() {
        // lastackrx_ = 0 s: the first ACK at 0.1 s is a sample. 1000 B / 0.1 s = 10000 B/s:
        // b^ = 0.9047 x 0 + 0.0476 x (10000 + 0) = 476; then 2000 B / 0.1 s = 20000 B/s:
        // b^ = 0.9047 x 476 + 0.0476 x (20000 + 10000) = 430.6372 + 1428 = 1858.6372.
        let mut w = ns2();
        assert_eq!(w.cfg.filter, Filter::Ns2Fixed);
        w.sample(SimTime(100_000_000), 1000);
        assert!(close(w.bwe(), 476.0), "{}", w.bwe());
        w.sample(SimTime(200_000_000), 2000);
        assert!(close(w.bwe(), 1858.6372), "{}", w.bwe());
        // filter_type_ 0 with fr_alpha_ 0.9: 0.9 x 0 + 0.1 x 10000 = 1000.
        let mut e = Westwood::new(Config {
            filter: Filter::Ns2Ewma,
            ..Config::preset(Model::Ns2)
        });
        e.sample(SimTime(100_000_000), 1000);
        assert!(close(e.bwe(), 1000.0), "{}", e.bwe());
    }

    #[test]
    fn ns2_tustin_feeds_a_zero_sample_for_each_idle_half_tau() {
        let mut w = Westwood::new(Config {
            filter: Filter::Ns2Tustin,
            ..Config::preset(Model::Ns2)
        });
        let t = |s: f64| SimTime((s * 1e9).round() as u64);
        // dt = 0.1 s, tau = 1 s: k = 2 tau / dt = 20, b^ = (10000 + 0) / 21.
        w.sample(t(0.1), 1000);
        assert!(close(w.bwe(), 476.190_476_19), "{}", w.bwe());
        // dt = 1.25 s: two idle tau/2 (b^ = 3/5 b^ + 10000/5, then 3/5 b^ + 0) = 1371.428571,
        // then the remaining 0.25 s: b = 4000, k = 8: 1371.428571 x 7/9 + 4000/9.
        w.sample(t(1.35), 1000);
        assert!(close(w.bwe(), 1_511.111_111_11), "{}", w.bwe());
        // dt = 1.005 s: two tau/2 leave 5 ms, under 10 ms: one idle step (3/5 x 1511.11 +
        // 4000/5 = 1706.67) and the last tau/2 is the interval: b = 2000, k = 4:
        // 1706.67 x 3/5 + 2000/5 = 1424.
        w.sample(t(2.355), 1000);
        assert!(close(w.bwe(), 1424.0), "{}", w.bwe());
    }

    #[test]
    fn ns2_timeouts_in_slow_start_divide_ssthresh_by_fr_a_1_2_3_4_4() {
        let mut w = ns2();
        w.bwe = 125_000.0;
        w.on_counted_rtt(Dur::from_millis(100)); // BWE x RTTmin = 12500 B
        let mut s = state(1000, u64::MAX / 4);
        let mut seen = Vec::new();
        for _ in 0..5 {
            w.on_rto(&mut s, 1000, false);
            seen.push((w.fr_a(), s.ssthresh, s.cwnd));
        }
        assert_eq!(
            seen,
            [
                (1.0, 12_500, 1000),
                (2.0, 6250, 1000),
                (3.0, 4166, 1000),
                (4.0, 3125, 1000),
                (4.0, 3125, 1000),
            ]
        );
        // A timeout in congestion avoidance resets the divisor to 1.
        s.cwnd = 5000;
        w.on_rto(&mut s, 5000, true);
        assert_eq!((w.fr_a(), s.ssthresh), (1.0, 12_500));
        // A fast retransmit in slow start adds 0.25 but does not divide; the next timeout in
        // slow start divides by 1.25 + 1.
        let mut s = state(3000, 12_500);
        w.on_enter_recovery(&mut s, 3000);
        assert_eq!((w.fr_a(), s.ssthresh, s.cwnd), (1.25, 12_500, 3000));
        w.on_rto(&mut s, 3000, true);
        assert_eq!((w.fr_a(), s.ssthresh), (2.25, 5555));
        // The paper's Westwood never divides.
        let mut p = Westwood {
            bwe: 125_000.0,
            ..Westwood::default()
        };
        p.on_rtt_sample(&mut s, SimTime(0), Dur::from_millis(100));
        let mut s = state(1000, 5000);
        p.on_rto(&mut s, 1000, false);
        p.on_rto(&mut s, 1000, false);
        assert_eq!(s.ssthresh, 12_500);
    }

    #[test]
    fn ns2_rtt_min_is_the_counted_samples_from_five_seconds() {
        let mut w = ns2();
        assert_eq!(w.rtt_min(), Some(Dur::from_secs(5)));
        let mut s = state(1000, 1000);
        // Per-ACK and raw samples do not count; the estimator's (tick) samples do.
        w.on_rtt_sample(&mut s, SimTime(0), Dur::from_millis(42));
        assert_eq!(w.rtt_min(), Some(Dur::from_secs(5)));
        w.on_counted_rtt(Dur::from_millis(50));
        w.on_counted_rtt(Dur::from_millis(60));
        assert_eq!(w.rtt_min(), Some(Dur::from_millis(50)));
        assert_eq!(
            w.bandwidth_estimate(),
            Some((0.0, Some(Dur::from_millis(50))))
        );
        // The paper's takes every sample.
        let mut p = Westwood::default();
        p.on_rtt_sample(&mut s, SimTime(0), Dur::from_millis(42));
        p.on_counted_rtt(Dur::from_millis(40));
        assert_eq!(p.rtt_min(), Some(Dur::from_millis(42)));
    }
}
