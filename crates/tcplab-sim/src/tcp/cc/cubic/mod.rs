//! CUBIC, RFC 9438 (windows in segments, times in seconds).
//!
//! - (section 4.2) W_cubic(t) = C (t - K)^3 + W_max with K = cbrt((W_max - cwnd_epoch) / C),
//!   t the time since the congestion-avoidance epoch began and cwnd_epoch the window then; if
//!   W_max <= cwnd_epoch (no reduction yet, or the window already passed it), K = 0 and
//!   W_max = cwnd_epoch;
//! - (4.4, 4.5) per ACK of new data in congestion avoidance: target = W_cubic(t + RTT) bounded
//!   to [cwnd, 1.5 cwnd], cwnd += (target - cwnd) / cwnd per segment acknowledged;
//! - (4.3) Reno-friendly region: W_est starts at cwnd_epoch and grows by
//!   alpha_cubic x segments_acked / cwnd with alpha_cubic = 3 (1 - beta) / (1 + beta), and 1
//!   once W_est >= cwnd_prior; while W_cubic(t) < W_est, cwnd = W_est;
//! - (4.6) congestion event: ssthresh = FlightSize x beta_cubic (at least 2 SMSS), cwnd =
//!   ssthresh; (4.7) fast convergence: W_max = w (1 + beta) / 2 if w < the previous W_max,
//!   else W_max = w;
//! - (4.8) RTO: ssthresh as in 4.6 (first timeout only, RFC 5681), cwnd = 1 SMSS, and the first
//!   congestion avoidance after it uses K = 0 and W_max = the window at its start;
//! - (4.10) slow start as RFC 5681; with `hystart` (Linux's default, `tcp_cubic.c`; off here
//!   unless the `linux` profile or `cc_params` turn it on) slow start ends early when a round's
//!   ACK train outlasts half the minimum RTT or, from its 9th sample, the round's RTT (minimum
//!   of all its samples) exceeds the minimum RTT by clamp(min RTT / 8, 4 ms, 16 ms), both from cwnd >= 16 segments
//!   (Ha & Rhee 2008; `hystart_update`): ssthresh = cwnd. Armed again after a timeout. The GSO
//!   burst allowance Linux adds to the ACK-train threshold (at most 1 ms) is not modelled;
//! - fast recovery ends at the recovery point (`RecoveryStyle::NewReno`, as Linux).
//!
//! Defaults: C = 0.4, beta_cubic = 0.7 (section 5), fast convergence on.
//!
//! Deviation: the window w recorded as W_max and cwnd_prior at a congestion event is
//! min(cwnd, FlightSize), because this simulator lets cwnd grow while the receiver window
//! limits the flight (RFC 9438 section 4.6 asks such implementations to take measures).
//! With `packets` (Linux's arithmetic, `packets.rs`) W_max and ssthresh both come from
//! the window the congestion event reduces, as `bictcp_recalc_ssthresh` takes `snd_cwnd`.

mod packets;

use super::{slow_start, AckEvent, CcState, CongestionControl, RecoveryStyle, SenderRules};
use crate::engine::time::{Dur, SimTime};
use crate::tcp::params::{Range, Tunable, Walk};
use packets::{Bictcp, Knobs};

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// C in segments per second^3 (RFC 9438 section 5: 0.4).
    pub c: f64,
    /// beta_cubic (RFC 9438 section 5: 0.7).
    pub beta: f64,
    /// Section 4.7.
    pub fast_convergence: bool,
    /// Section 4.3 (the Reno-friendly region).
    pub reno_friendly: bool,
    /// Linux's HyStart (`hystart = 1`, `hystart_detect = 3` in tcp_cubic.c).
    pub hystart: bool,
    /// RFC 9438 section 4.3: alpha_cubic becomes 1 once W_est reaches cwnd_prior. Linux's
    /// tcp_cubic.c (`tcp_friendliness`) keeps 3 (1 - beta) / (1 + beta) throughout.
    pub alpha_to_one: bool,
    /// The RTT added to t in the target W_cubic(t + RTT): the smoothed RTT (RFC 9438 section
    /// 4.2) or the minimum RTT (Linux's `bictcp_update`: t += delay_min).
    pub target_min_rtt: bool,
    /// Linux's `bictcp_update`: while no loss has set W_max (`last_max_cwnd == 0`: after
    /// HyStart ended slow start, or after a timeout, which resets the state), cwnd grows at
    /// least 5 % per RTT (`ca->cnt` at most 20). RFC 9438 has no such floor.
    pub unknown_max_growth: bool,
    /// Linux's arithmetic in whole packets (`packets.rs`): integer W_max and ssthresh,
    /// growth as a count of packets per increase, the Reno estimate of `tcp_friendliness`;
    /// `target_min_rtt` and `alpha_to_one` do not apply. On in the `linux` profile.
    pub packets: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            hystart: false,
            alpha_to_one: true,
            target_min_rtt: false,
            unknown_max_growth: false,
            packets: false,
        }
    }
}

/// `[tcp] cc_params` of cubic: `c` in (0, 100], `beta` in (0, 1), `fast_convergence`,
/// `reno_friendly`, `hystart`, `alpha_to_one`, `target_min_rtt`, `unknown_max_growth`.
impl Tunable for Config {
    fn walk(&mut self, w: &mut Walk<'_>) {
        w.number("c", &mut self.c, Range::OpenLo(0.0, 100.0));
        w.number("beta", &mut self.beta, Range::Open(0.0, 1.0));
        w.flag("fast_convergence", &mut self.fast_convergence);
        w.flag("reno_friendly", &mut self.reno_friendly);
        w.flag("hystart", &mut self.hystart);
        w.flag("alpha_to_one", &mut self.alpha_to_one);
        w.flag("target_min_rtt", &mut self.target_min_rtt);
        w.flag("unknown_max_growth", &mut self.unknown_max_growth);
        w.flag("packets", &mut self.packets);
    }
}

#[derive(Clone, Debug, Default)]
pub struct Cubic {
    pub cfg: Config,
    /// Segments; 0: no congestion event yet.
    pub w_max: f64,
    pub cwnd_prior: f64,
    pub k: f64,
    pub epoch: Option<SimTime>,
    pub cwnd_epoch: f64,
    pub w_est: f64,
    /// cwnd in segments with its fraction, and the byte value we last wrote (to notice when
    /// someone else changed cwnd).
    cwnd_f: f64,
    written: u64,
    after_rto: bool,
    /// A loss set W_max since the start or the last timeout (Linux: `last_max_cwnd != 0`).
    max_known: bool,
    hy: HyStart,
    /// The packet-arithmetic state (`Config::packets`).
    pk: Bictcp,
}

/// Linux's HyStart state (`struct bictcp`: found, round_start, last_ack, end_seq, curr_rtt,
/// sample_cnt, delay_min).
#[derive(Clone, Debug, Default)]
struct HyStart {
    found: bool,
    round_start: SimTime,
    last_ack: SimTime,
    /// SND.NXT when the round began: the round ends when SND.UNA passes it.
    end_seq: Option<u64>,
    curr_rtt: Option<Dur>,
    samples: u32,
    delay_min: Option<Dur>,
}

/// tcp_cubic.c: hystart_low_window = 16, hystart_ack_delta_us = 2000, HYSTART_MIN_SAMPLES = 8,
/// HYSTART_DELAY_MIN/MAX = 4/16 ms.
const HYSTART_LOW_WINDOW: f64 = 16.0;
const HYSTART_ACK_DELTA: Dur = Dur::from_millis(2);
const HYSTART_MIN_SAMPLES: u32 = 8;
const HYSTART_DELAY_MIN: Dur = Dur::from_millis(4);
const HYSTART_DELAY_MAX: Dur = Dur::from_millis(16);

impl HyStart {
    /// bictcp_hystart_reset: a new round.
    fn reset(&mut self, now: SimTime, snd_max: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = Some(snd_max);
        self.curr_rtt = None;
        self.samples = 0;
    }

    /// hystart_update for one ACK in slow start with cwnd `segs` segments: true when slow
    /// start should end here.
    fn update(&mut self, ev: &AckEvent, segs: f64) -> bool {
        if self.end_seq.is_none_or(|e| ev.ack > e) {
            self.reset(ev.now, ev.snd_max);
        }
        let Some(delay) = ev.sample_rtt else {
            return false;
        };
        let min = *self.delay_min.get_or_insert(delay);
        self.delay_min = Some(min.min(delay));
        if segs < HYSTART_LOW_WINDOW {
            return false;
        }
        let min = self.delay_min.unwrap_or(delay);
        // ACK train: ACKs no more than 2 ms apart for longer than half the minimum delay.
        if ev.now.since(self.last_ack) <= HYSTART_ACK_DELTA {
            self.last_ack = ev.now;
            if ev.now.since(self.round_start) > Dur(min.0 / 2) {
                return true;
            }
        }
        // Delay increase: the round's RTT, the minimum of all its samples so far, above the
        // minimum once the round has had HYSTART_MIN_SAMPLES. Every sample lowers the round's
        // RTT, not only the first eight: a later sample that lowers the minimum RTT lowers the
        // round's too, and is no delay increase (hystart_update since Linux 5.8, commit
        // b344579ca847, "fix spurious HYSTART_DELAY exit upon drop in min RTT").
        let c = self.curr_rtt.map_or(delay, |c| c.min(delay));
        self.curr_rtt = Some(c);
        if self.samples < HYSTART_MIN_SAMPLES {
            self.samples += 1;
        } else {
            let thresh = Dur(min.0 / 8).max(HYSTART_DELAY_MIN).min(HYSTART_DELAY_MAX);
            if c > min + thresh {
                return true;
            }
        }
        false
    }
}

/// K of RFC 9438 eq. 2: the time W_cubic takes to climb from `cwnd_epoch` back to `w_max`.
pub fn k_of(w_max: f64, cwnd_epoch: f64, c: f64) -> f64 {
    ((w_max - cwnd_epoch).max(0.0) / c).cbrt()
}

impl Cubic {
    pub fn new(cfg: Config) -> Self {
        Cubic {
            cfg,
            ..Cubic::default()
        }
    }

    /// W_cubic(t) of RFC 9438 eq. 1, in segments.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.cfg.c * (t - self.k).powi(3) + self.w_max
    }

    /// alpha_cubic of section 4.3.
    pub fn alpha(&self) -> f64 {
        if self.cfg.alpha_to_one && self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.cfg.beta) / (1.0 + self.cfg.beta)
        }
    }

    /// Begin a congestion-avoidance epoch at `now` with the window `cwnd` (segments).
    pub fn start_epoch(&mut self, now: SimTime, cwnd: f64) {
        self.epoch = Some(now);
        self.cwnd_epoch = cwnd;
        self.w_est = cwnd;
        if self.after_rto || self.w_max <= cwnd {
            self.k = 0.0;
            self.w_max = cwnd;
            self.after_rto = false;
        } else {
            self.k = k_of(self.w_max, cwnd, self.cfg.c);
        }
    }

    /// What the packet arithmetic (`Config::packets`) reads of the configuration.
    fn knobs(&self) -> Knobs {
        Knobs {
            c: self.cfg.c,
            beta: (self.cfg.beta * 1024.0).round() as u32,
            fast_convergence: self.cfg.fast_convergence,
            reno_friendly: self.cfg.reno_friendly,
            unknown_max_growth: self.cfg.unknown_max_growth,
        }
    }

    /// Sections 4.6 and 4.7; with `packets`, `bictcp_recalc_ssthresh` on the window the
    /// congestion event reduces (`tcp.ssthresh_from`: cwnd in the `linux` profile, as Linux).
    fn congestion_event(&mut self, st: &mut CcState, flight: u64) {
        if self.cfg.packets {
            let w = (flight / st.mss.max(1)).clamp(1, u64::from(u32::MAX)) as u32;
            let k = self.knobs();
            st.ssthresh = u64::from(self.pk.congestion_event(w, &k)) * st.mss;
            self.w_max = f64::from(self.pk.last_max_cwnd);
            self.epoch = None;
            return;
        }
        let mss = st.mss as f64;
        let w = st.cwnd.min(flight).max(st.mss) as f64 / mss;
        self.w_max = if self.cfg.fast_convergence && w < self.w_max {
            w * (1.0 + self.cfg.beta) / 2.0
        } else {
            w
        };
        self.cwnd_prior = w;
        self.max_known = true;
        st.ssthresh = ((flight as f64 * self.cfg.beta) as u64).max(2 * st.mss);
        self.epoch = None;
    }

    fn write(&mut self, st: &mut CcState) {
        st.cwnd = ((self.cwnd_f * st.mss as f64) as u64).max(st.mss);
        self.written = st.cwnd;
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn sender_rules(&self) -> SenderRules {
        SenderRules {
            hears_every_ack: false,             // the default, empty on_delivery
            reads_sample_rtt: self.cfg.hystart, // hystart_update takes each ACK's RTT sample
            recovery: RecoveryStyle::NewReno,
            ..SenderRules::DEFAULT
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        let mut acked = ev.bytes_acked;
        if self.cfg.hystart
            && !self.hy.found
            && st.cwnd < st.ssthresh
            && self.hy.update(ev, st.cwnd as f64 / st.mss as f64)
        {
            // Linux: tp->snd_ssthresh = tcp_snd_cwnd(tp); congestion avoidance from here.
            self.hy.found = true;
            st.ssthresh = st.cwnd;
        }
        if st.cwnd < st.ssthresh {
            acked = slow_start(st, acked);
            if acked == 0 || st.cwnd < st.ssthresh {
                return;
            }
        }
        if self.cfg.packets {
            let mss = st.mss.max(1);
            let cwnd = (st.cwnd / mss).clamp(1, u64::from(u32::MAX)) as u32;
            let pkts = self.pk.packets(acked, mss);
            let k = self.knobs();
            let grown = self
                .pk
                .on_ack(cwnd, pkts, ev.now, ev.min_rtt.or(ev.srtt), &k);
            st.cwnd = u64::from(grown) * mss;
            return;
        }
        let mss = st.mss as f64;
        if st.cwnd != self.written {
            self.cwnd_f = st.cwnd as f64 / mss;
        }
        if self.epoch.is_none() {
            self.start_epoch(ev.now, self.cwnd_f);
        }
        let t = ev.now.since(self.epoch.unwrap_or(ev.now)).as_secs_f64();
        let rtt = if self.cfg.target_min_rtt {
            ev.min_rtt.or(ev.srtt)
        } else {
            ev.srtt.or(ev.sample_rtt)
        }
        .map_or(0.0, |d| d.as_secs_f64());
        let segs = acked as f64 / mss;
        let cwnd = self.cwnd_f;
        // Section 4.3: the Reno-friendly estimate.
        self.w_est += self.alpha() * segs / cwnd;
        if self.cfg.reno_friendly && self.w_cubic(t) < self.w_est {
            self.cwnd_f = cwnd.max(self.w_est);
        } else {
            // Sections 4.4 and 4.5.
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            self.cwnd_f = cwnd + (target - cwnd) / cwnd * segs;
        }
        if self.cfg.unknown_max_growth && !self.max_known {
            // bictcp_update: cnt <= 20 while last_max_cwnd is 0 (a twentieth of a segment per
            // segment acknowledged, 5 % per RTT).
            self.cwnd_f = self.cwnd_f.max(cwnd + segs / 20.0);
        }
        self.write(st);
    }

    fn on_enter_recovery(&mut self, st: &mut CcState, flight: u64) {
        self.congestion_event(st, flight);
        self.cwnd_f = st.ssthresh as f64 / st.mss as f64;
        self.write(st);
        st.ca_bytes = 0;
    }

    fn on_exit_recovery(&mut self, st: &mut CcState, _flight: u64) {
        self.cwnd_f = st.ssthresh as f64 / st.mss as f64;
        self.write(st);
    }

    fn on_rto(&mut self, st: &mut CcState, flight: u64, first_timeout: bool) {
        if first_timeout {
            self.congestion_event(st, flight);
        }
        self.epoch = None;
        self.after_rto = true;
        // bictcp_reset also forgets last_max_cwnd.
        self.max_known = false;
        self.pk.reset();
        // cubictcp_state(TCP_CA_Loss): bictcp_reset and bictcp_hystart_reset arm HyStart again.
        self.hy = HyStart::default();
        self.cwnd_f = 1.0;
        self.write(st);
        st.ca_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::super::CaRule;
    use super::*;
    use crate::engine::time::Dur;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn linux_grows_five_percent_per_rtt_until_a_loss_sets_w_max() {
        let ev = |now_ms: u64| AckEvent {
            now: SimTime(now_ms * 1_000_000),
            bytes_acked: 1000,
            srtt: Some(Dur::from_millis(100)),
            ..AckEvent::default()
        };
        let run = |floor: bool, lost: bool| {
            let mut c = Cubic::new(Config {
                unknown_max_growth: floor,
                alpha_to_one: false,
                ..Config::default()
            });
            let mut st = CcState {
                cwnd: 100_000,
                ssthresh: 100_000,
                mss: 1000,
                ca_rule: CaRule::ByteCounting,
                abc_limit: 2,
                ca_bytes: 0,
            };
            if lost {
                c.congestion_event(&mut st, 100_000);
                st.cwnd = st.ssthresh;
            }
            let start = st.cwnd;
            // One RTT's worth of ACKs (one per segment) right after the epoch began.
            for i in 0..(start / 1000) {
                c.on_ack(&mut st, &ev(1 + i));
            }
            (st.cwnd as f64 - start as f64) / 1000.0
        };
        // No W_max yet: 100 segments acknowledged give 5 segments (the cubic term is ~0 here).
        let floor = run(true, false);
        assert!((4.9..=5.0).contains(&floor), "{floor}");
        // Without the floor (RFC 9438), the cubic and Reno-friendly terms alone: under 2.
        let rfc = run(false, false);
        assert!(rfc < 2.0, "{rfc}");
        // After a loss W_max is known: the floor no longer applies.
        let after_loss = run(true, true);
        assert!(after_loss < 2.0, "{after_loss}");
    }

    #[test]
    fn w_cubic_matches_rfc9438_worked_values() {
        // W_max = 100 segments, reduced by beta 0.7 to cwnd_epoch = 70:
        // K = cbrt((100 - 70) / 0.4) = cbrt(75) = 4.217163326508746 s,
        // W(0) = 70, W(1) = 86.680764, W(2) = 95.640336, W(3) = 99.278716,
        // W(K) = 100 (plateau), W(5) = 100.191899, W(6) = 102.266703, W(8) = 121.652735.
        let mut c = Cubic {
            w_max: 100.0,
            ..Cubic::default()
        };
        c.start_epoch(SimTime(0), 70.0);
        assert!(close(c.k, 4.217_163_326_508_746, 1e-12), "K {}", c.k);
        for (t, w) in [
            (0.0, 70.0),
            (1.0, 86.680_763_835),
            (2.0, 95.640_335_687),
            (3.0, 99.278_715_555),
            (c.k, 100.0),
            (5.0, 100.191_899_339),
            (6.0, 102.266_703_256),
            (8.0, 121.652_735_140),
        ] {
            assert!(
                close(c.w_cubic(t), w, 1e-6),
                "W({t}) = {} not {w}",
                c.w_cubic(t)
            );
        }
    }

    fn st(cwnd_segs: u64) -> CcState {
        CcState {
            cwnd: cwnd_segs * 1000,
            ssthresh: 1000,
            mss: 1000,
            ca_rule: CaRule::PerAck,
            abc_limit: 1,
            ca_bytes: 0,
        }
    }

    fn ack_at(ms: u64) -> AckEvent {
        AckEvent {
            now: SimTime(ms * 1_000_000),
            bytes_acked: 1000,
            srtt: Some(Dur::from_millis(100)),
            ..AckEvent::default()
        }
    }

    #[test]
    fn loss_sets_w_max_beta_and_fast_convergence() {
        let mut c = Cubic::default();
        let mut s = st(100);
        c.on_enter_recovery(&mut s, 100_000);
        assert_eq!((s.ssthresh, s.cwnd), (70_000, 70_000));
        assert!(close(c.w_max, 100.0, 1e-9));
        // A second loss below the old W_max: fast convergence W_max = 70 x 1.7 / 2 = 59.5.
        c.on_enter_recovery(&mut s, 70_000);
        assert!(close(c.w_max, 59.5, 1e-9));
        assert_eq!(s.ssthresh, 49_000);
    }

    #[test]
    fn concave_growth_follows_the_target() {
        let mut c = Cubic::default();
        let mut s = st(100);
        c.on_enter_recovery(&mut s, 100_000);
        c.on_exit_recovery(&mut s, 70_000);
        // The first ACK starts the epoch at t = 0, where W_cubic(0) = cwnd_epoch = 70 is below
        // W_est (which already grew by alpha/cwnd): the Reno-friendly region, cwnd = W_est.
        c.on_ack(&mut s, &ack_at(0));
        assert!(close(c.cwnd_f, c.w_est, 1e-12));
        // One second later W_cubic(1) = 86.68 is far above W_est: concave region, cwnd grows by
        // (target - cwnd) / cwnd with target = W_cubic(1 + RTT) bounded by 1.5 cwnd.
        let before = c.cwnd_f;
        c.on_ack(&mut s, &ack_at(1000));
        let target = c.w_cubic(1.1).clamp(before, 1.5 * before);
        let want = before + (target - before) / before;
        assert!(close(c.cwnd_f, want, 1e-9), "{} vs {want}", c.cwnd_f);
        // Over K seconds of ACKs the window approaches W_max and stays below it until K.
        let mut t = 1000;
        while t < 4000 {
            t += 10;
            c.on_ack(&mut s, &ack_at(t));
        }
        assert!(c.cwnd_f > 95.0 && c.cwnd_f < 100.5, "{}", c.cwnd_f);
    }

    #[test]
    fn reno_friendly_region_takes_w_est() {
        // Small W_max close to cwnd: the cubic curve is flat near t = 0, W_est grows with ACKs
        // and wins: cwnd = W_est.
        let mut c = Cubic::default();
        let mut s = st(10);
        c.on_enter_recovery(&mut s, 10_000);
        c.on_exit_recovery(&mut s, 7000);
        assert!(close(c.alpha(), 3.0 * 0.3 / 1.7, 1e-12));
        for _ in 0..50 {
            c.on_ack(&mut s, &ack_at(0));
        }
        assert!(c.w_cubic(0.0) < c.w_est);
        assert!(close(c.cwnd_f, c.w_est, 1e-9));
        assert!(c.cwnd_f > 7.0 + 0.5294 * 50.0 / 12.0, "{}", c.cwnd_f);
    }

    #[test]
    fn after_rto_the_epoch_starts_with_k_zero() {
        let mut c = Cubic::default();
        let mut s = st(100);
        c.on_rto(&mut s, 100_000, true);
        assert_eq!((s.cwnd, s.ssthresh), (1000, 70_000));
        s.cwnd = 70_000; // slow start brought it back to ssthresh
        c.on_ack(&mut s, &ack_at(0));
        assert_eq!(c.k, 0.0);
        assert!(close(c.w_max, 70.0, 1e-9));
    }
}
