//! BBR version 1, as specified in draft-cardwell-iccrg-bbr-congestion-control-00 (Cardwell,
//! Cheng, Hassas Yeganeh, Jacobson, July 2017), with delivery-rate samples per
//! draft-cheng-iccrg-delivery-rate-estimation (computed by the sender, see `tcp/mod.rs`).
//!
//! The model: BtlBw, the windowed maximum of delivery-rate samples over the last 10 round trips,
//! and RTprop, the minimum RTT over the last 10 s. The control: pacing rate = pacing_gain x
//! BtlBw, cwnd = cwnd_gain x BtlBw x RTprop + 3 send quanta. The state machine:
//!
//! - Startup: pacing_gain = cwnd_gain = 2/ln 2; ends when BtlBw has not grown by 25 % for 3
//!   rounds (non-app-limited), the "full pipe";
//! - Drain: pacing_gain = ln 2 / 2 until the data in flight falls to one BDP;
//! - ProbeBW: cwnd_gain = 2, pacing_gain cycling 5/4, 3/4, 1 x 6, one phase per RTprop (the 5/4
//!   phase also waits until inflight reaches 5/4 BDP or a loss, the 3/4 phase ends early once
//!   inflight is down to one BDP);
//! - ProbeRTT: when RTprop has not been refreshed for 10 s: cwnd = 4 segments for at least
//!   200 ms and one round, then RTprop's timestamp is refreshed and ProbeBW (or Startup) resumes.
//!
//! Losses (draft section 4.2.3.4-5): entering fast recovery saves cwnd and sets
//! cwnd = inflight + delivered (packet conservation for one round), then cwnd grows only with
//! delivered data; newly lost bytes are subtracted from cwnd; leaving recovery restores the saved
//! cwnd. An RTO saves cwnd and sets it to 1 segment; the saved value comes back when the
//! cumulative ACK passes what was outstanding at the timeout. ssthresh is not used, and neither
//! is PRR (Linux likewise skips PRR for algorithms with their own `cong_control`).
//!
//! Pacing: real, through the sender's pacing hook (`pacing_rate`): the segments of one send
//! quantum (`send_quantum`: one segment below 1.2 Mbit/s, two below 24 Mbit/s, then a
//! millisecond's worth up to 64 kB; Linux sends them as one TSO packet) leave together, and the
//! next quantum no earlier than their size (payload + 40 header bytes each) at the pacing rate.
//! The fast retransmission and the RTO retransmission are sent at once, unpaced.
//!
//! Deliberate deviations: the initial ProbeBW phase is fixed (`initial_cycle_index`, default 2,
//! a 1.0 phase) instead of random, so runs stay deterministic; idle restart and the app-limited
//! handling of ProbeRTT are left out (our applications do not idle mid-transfer); "BytesInFlight"
//! is the loss-recovery plug-in's pipe.

use super::{AckEvent, CcState, CongestionControl, RateSample, RecoveryStyle, SenderRules};
use crate::engine::time::{Dur, SimTime};
use crate::tcp::params::{Range, Tunable, Walk};

/// BBR's pacing-gain cycle in ProbeBW (draft section 4.3.4.3).
pub const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// BBRHighGain = 2/ln(2), the smallest gain that doubles the sending rate per round.
    pub high_gain: f64,
    /// cwnd_gain in ProbeBW (2).
    pub cwnd_gain: f64,
    /// BtlBwFilterLen: 10 round trips.
    pub bw_filter_rounds: u64,
    /// RTpropFilterLen: 10 s.
    pub rtprop_filter: Dur,
    /// ProbeRTTDuration: 200 ms.
    pub probe_rtt_duration: Dur,
    /// BBRMinPipeCwnd: 4 segments.
    pub min_pipe_cwnd: u64,
    /// First ProbeBW phase (the draft picks at random among all but the 3/4 phase).
    pub initial_cycle_index: usize,
    /// Pace segments (false: cwnd alone limits the sender).
    pub pacing: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            high_gain: 2.0 / std::f64::consts::LN_2,
            cwnd_gain: 2.0,
            bw_filter_rounds: 10,
            rtprop_filter: Dur::from_secs(10),
            probe_rtt_duration: Dur::from_millis(200),
            min_pipe_cwnd: 4,
            initial_cycle_index: 2,
            pacing: true,
        }
    }
}

/// `[tcp] cc_params` of bbr (ranges in the calls below).
impl Tunable for Config {
    fn walk(&mut self, w: &mut Walk<'_>) {
        w.number("high_gain", &mut self.high_gain, Range::OpenLo(1.0, 10.0));
        w.number("cwnd_gain", &mut self.cwnd_gain, Range::Closed(1.0, 10.0));
        w.integer("bw_filter_rounds", &mut self.bw_filter_rounds, 1, 1000);
        w.duration(
            "rtprop_filter",
            &mut self.rtprop_filter,
            Dur::from_millis(1),
            Dur::from_secs(3600),
        );
        w.duration(
            "probe_rtt_duration",
            &mut self.probe_rtt_duration,
            Dur::ZERO,
            Dur::from_secs(10),
        );
        w.integer("min_pipe_cwnd", &mut self.min_pipe_cwnd, 1, 100);
        let mut index = self.initial_cycle_index as u64;
        w.integer(
            "initial_cycle_index",
            &mut index,
            0,
            PACING_GAIN_CYCLE.len() as u64 - 1,
        );
        self.initial_cycle_index = index as usize;
        w.flag("pacing", &mut self.pacing);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Windowed maximum over the last N rounds: one slot per round (the draft allows any windowed
/// max filter; Kathleen Nichols' three-sample one in Linux gives the same maximum).
#[derive(Clone, Debug, Default)]
struct RoundMax {
    slots: Vec<(u64, f64)>,
}

impl RoundMax {
    fn new(n: u64) -> Self {
        RoundMax {
            slots: vec![(u64::MAX, 0.0); n.max(1) as usize],
        }
    }
    fn update(&mut self, round: u64, v: f64) {
        let n = self.slots.len() as u64;
        let slot = &mut self.slots[(round % n) as usize];
        if slot.0 != round {
            *slot = (round, v);
        } else if v > slot.1 {
            slot.1 = v;
        }
    }
    fn get(&self, round: u64) -> f64 {
        let n = self.slots.len() as u64;
        self.slots
            .iter()
            .filter(|(r, _)| *r != u64::MAX && round.saturating_sub(*r) < n)
            .map(|(_, v)| *v)
            .fold(0.0, f64::max)
    }
}

#[derive(Clone, Debug)]
pub struct Bbr {
    pub cfg: Config,
    pub mode: Mode,
    bw_filter: RoundMax,
    /// Bytes per second.
    pub btlbw: f64,
    pub rtprop: Option<Dur>,
    rtprop_stamp: SimTime,
    rtprop_expired: bool,
    pub round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    pub filled_pipe: bool,
    full_bw: f64,
    full_bw_count: u32,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    /// Bytes per second; 0 until initialised.
    pub pacing_rate: f64,
    send_quantum: u64,
    pub cycle_index: usize,
    cycle_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    prior_cwnd: u64,
    packet_conservation: bool,
    conservation_round: u64,
    entering_recovery: bool,
    in_loss_recovery: bool,
    initial_cwnd: u64,
}

impl Default for Bbr {
    fn default() -> Self {
        Bbr::new(Config::default())
    }
}

impl Bbr {
    pub fn new(cfg: Config) -> Self {
        Bbr {
            bw_filter: RoundMax::new(cfg.bw_filter_rounds),
            mode: Mode::Startup,
            btlbw: 0.0,
            rtprop: None,
            rtprop_stamp: SimTime::ZERO,
            rtprop_expired: false,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            filled_pipe: false,
            full_bw: 0.0,
            full_bw_count: 0,
            pacing_gain: cfg.high_gain,
            cwnd_gain: cfg.high_gain,
            pacing_rate: 0.0,
            send_quantum: 0,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            packet_conservation: false,
            conservation_round: 0,
            entering_recovery: false,
            in_loss_recovery: false,
            initial_cwnd: 0,
            cfg,
        }
    }

    fn init(&mut self, st: &CcState, srtt: Option<Dur>) {
        if self.initial_cwnd == 0 {
            self.initial_cwnd = st.cwnd.max(st.mss);
        }
        if self.pacing_rate == 0.0 {
            // BBRInitPacingRate: high_gain x InitialCwnd / SRTT (1 ms without an SRTT).
            let rtt = srtt.map_or(1e-3, |d| d.as_secs_f64().max(1e-6));
            self.pacing_rate = self.cfg.high_gain * self.initial_cwnd as f64 / rtt;
        }
    }

    /// BBRInflight(gain): gain x BDP + 3 send quanta (InitialCwnd before any RTprop).
    pub fn inflight(&self, gain: f64) -> u64 {
        match self.rtprop {
            None => self.initial_cwnd,
            Some(r) => {
                let bdp = self.btlbw * r.as_secs_f64();
                (gain * bdp) as u64 + 3 * self.send_quantum
            }
        }
    }

    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.cfg.high_gain;
        self.cwnd_gain = self.cfg.high_gain;
    }

    fn enter_drain(&mut self) {
        self.mode = Mode::Drain;
        self.pacing_gain = 1.0 / self.cfg.high_gain;
        self.cwnd_gain = self.cfg.high_gain;
    }

    fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = self.cfg.cwnd_gain;
        let n = PACING_GAIN_CYCLE.len();
        self.cycle_index = (self.cfg.initial_cycle_index % n + n - 1) % n;
        self.advance_cycle_phase(now);
    }

    fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    fn save_cwnd(&mut self, st: &CcState) {
        self.prior_cwnd = if !self.in_loss_recovery && self.mode != Mode::ProbeRtt {
            st.cwnd
        } else {
            self.prior_cwnd.max(st.cwnd)
        };
    }

    fn restore_cwnd(&self, st: &mut CcState) {
        st.cwnd = st.cwnd.max(self.prior_cwnd);
    }

    fn update_round(&mut self, ev: &AckEvent, rs: &RateSample) {
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = ev.total_delivered;
            self.round_count += 1;
            self.round_start = true;
        }
    }

    fn update_btlbw(&mut self, rs: &RateSample) {
        if rs.delivery_rate > 0.0 && (rs.delivery_rate >= self.btlbw || !rs.is_app_limited) {
            self.bw_filter.update(self.round_count, rs.delivery_rate);
        }
        self.btlbw = self.bw_filter.get(self.round_count);
    }

    fn is_next_cycle_phase(&self, ev: &AckEvent) -> bool {
        let is_full_length = self
            .rtprop
            .is_some_and(|r| ev.now.since(self.cycle_stamp) > r);
        let prior_inflight = ev.pipe + ev.delivered;
        if self.pacing_gain == 1.0 {
            is_full_length
        } else if self.pacing_gain > 1.0 {
            is_full_length && (ev.lost > 0 || prior_inflight >= self.inflight(self.pacing_gain))
        } else {
            is_full_length || prior_inflight <= self.inflight(1.0)
        }
    }

    fn check_full_pipe(&mut self, rs: Option<&RateSample>) {
        let Some(rs) = rs else {
            return;
        };
        if self.filled_pipe || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.btlbw >= self.full_bw * 1.25 {
            self.full_bw = self.btlbw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= 3 {
            self.filled_pipe = true;
        }
    }

    fn handle_probe_rtt(&mut self, st: &mut CcState, ev: &AckEvent) {
        match self.probe_rtt_done {
            None => {
                if ev.pipe <= self.cfg.min_pipe_cwnd * st.mss {
                    self.probe_rtt_done = Some(ev.now + self.cfg.probe_rtt_duration);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = ev.total_delivered;
                }
            }
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && ev.now > done {
                    self.rtprop_stamp = ev.now;
                    self.restore_cwnd(st);
                    self.probe_rtt_done = None;
                    if self.filled_pipe {
                        self.enter_probe_bw(ev.now);
                    } else {
                        self.enter_startup();
                    }
                }
            }
        }
    }

    fn set_cwnd(&mut self, st: &mut CcState, ev: &AckEvent) {
        let mss = st.mss;
        let target = self.inflight(self.cwnd_gain);
        // BBRModulateCwndForRecovery.
        if ev.lost > 0 {
            st.cwnd = st.cwnd.saturating_sub(ev.lost).max(mss);
        }
        if self.entering_recovery {
            self.entering_recovery = false;
            st.cwnd = ev.pipe + ev.delivered.max(mss);
        }
        if self.packet_conservation {
            if self.round_start && self.round_count > self.conservation_round {
                self.packet_conservation = false;
            } else {
                st.cwnd = st.cwnd.max(ev.pipe + ev.delivered);
            }
        }
        if !self.packet_conservation {
            if self.filled_pipe {
                st.cwnd = (st.cwnd + ev.delivered).min(target);
            } else if st.cwnd < target || ev.total_delivered < self.initial_cwnd {
                st.cwnd += ev.delivered;
            }
            st.cwnd = st.cwnd.max(self.cfg.min_pipe_cwnd * mss);
        }
        // BBRModulateCwndForProbeRTT.
        if self.mode == Mode::ProbeRtt {
            st.cwnd = st.cwnd.min(self.cfg.min_pipe_cwnd * mss);
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn sender_rules(&self) -> SenderRules {
        SenderRules {
            rate_samples: true,
            paces: true,
            recovery: RecoveryStyle::NewReno,
            // Sets cwnd itself in recovery (packet conservation), as Linux's BBR does.
            prr: false,
            ..SenderRules::DEFAULT
        }
    }

    /// BBR acts on every ACK in `on_delivery`.
    fn on_ack(&mut self, _st: &mut CcState, _ev: &AckEvent) {}

    fn on_delivery(&mut self, st: &mut CcState, ev: &AckEvent) {
        self.init(st, ev.srtt);
        // BBRUpdateModelAndState.
        self.round_start = false;
        if let Some(rs) = ev.rate.as_ref() {
            self.update_round(ev, rs);
            self.update_btlbw(rs);
        }
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(ev) {
            self.advance_cycle_phase(ev.now);
        }
        self.check_full_pipe(ev.rate.as_ref());
        if self.mode == Mode::Startup && self.filled_pipe {
            self.enter_drain();
        }
        if self.mode == Mode::Drain && ev.pipe <= self.inflight(1.0) {
            self.enter_probe_bw(ev.now);
        }
        // BBRUpdateRTprop.
        self.rtprop_expired = ev.now > self.rtprop_stamp + self.cfg.rtprop_filter;
        if let Some(r) = ev.sample_rtt {
            if self.rtprop.is_none_or(|p| r <= p) || self.rtprop_expired {
                self.rtprop = Some(r);
                self.rtprop_stamp = ev.now;
            }
        }
        // BBRCheckProbeRTT.
        if self.mode != Mode::ProbeRtt && self.rtprop_expired {
            self.save_cwnd(st);
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            self.handle_probe_rtt(st, ev);
        }
        // BBRUpdateControlParameters.
        let rate = self.pacing_gain * self.btlbw;
        if rate > 0.0 && (self.filled_pipe || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
        self.send_quantum = if self.pacing_rate < 1.2e6 / 8.0 {
            st.mss
        } else if self.pacing_rate < 24e6 / 8.0 {
            2 * st.mss
        } else {
            ((self.pacing_rate * 1e-3) as u64).min(65_536)
        };
        self.set_cwnd(st, ev);
    }

    fn on_rtt_sample(&mut self, st: &mut CcState, _now: SimTime, rtt: Dur) {
        self.init(st, Some(rtt));
    }

    fn on_enter_recovery(&mut self, st: &mut CcState, flight: u64) {
        self.save_cwnd(st);
        self.in_loss_recovery = true;
        self.packet_conservation = true;
        self.conservation_round = self.round_count;
        self.entering_recovery = true;
        // Provisional until the ACK's delivery is known (on_delivery follows at once).
        st.cwnd = flight + st.mss;
    }

    fn on_exit_recovery(&mut self, st: &mut CcState, _flight: u64) {
        self.in_loss_recovery = false;
        self.packet_conservation = false;
        self.restore_cwnd(st);
    }

    fn on_rto(&mut self, st: &mut CcState, _flight: u64, _first_timeout: bool) {
        self.save_cwnd(st);
        self.in_loss_recovery = true;
        self.packet_conservation = false;
        self.entering_recovery = false;
        st.cwnd = st.mss;
    }

    fn on_rto_recovered(&mut self, st: &mut CcState) {
        self.in_loss_recovery = false;
        self.restore_cwnd(st);
    }

    fn pacing_rate(&self, _st: &CcState) -> Option<f64> {
        (self.cfg.pacing && self.pacing_rate > 0.0).then_some(self.pacing_rate)
    }

    fn send_quantum(&self, st: &CcState) -> u64 {
        self.send_quantum.max(st.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::super::CaRule;
    use super::*;

    const MSS: u64 = 1000;

    fn st() -> CcState {
        CcState {
            cwnd: 10 * MSS,
            ssthresh: u64::MAX / 4,
            mss: MSS,
            ca_rule: CaRule::PerAck,
            abc_limit: 1,
            ca_bytes: 0,
        }
    }

    /// A synthetic path: 1 MB/s bottleneck, 100 ms RTprop. Each call is one round: an ACK
    /// delivering one round's worth at the given rate, sampling RTT `rtt_ms`.
    struct Path {
        now: u64,
        delivered: u64,
    }

    impl Path {
        fn ack(&mut self, b: &mut Bbr, s: &mut CcState, rate: f64, rtt_ms: u64, pipe: u64) {
            let prior = self.delivered;
            let bytes = (rate * 0.1) as u64;
            self.now += 100_000_000;
            self.delivered += bytes;
            b.on_delivery(
                s,
                &AckEvent {
                    now: SimTime(self.now),
                    bytes_acked: bytes,
                    delivered: bytes,
                    total_delivered: self.delivered,
                    pipe,
                    srtt: Some(Dur::from_millis(100)),
                    sample_rtt: Some(Dur::from_millis(rtt_ms)),
                    rate: Some(RateSample {
                        delivered: bytes,
                        interval: Dur::from_millis(100),
                        delivery_rate: rate,
                        prior_delivered: prior,
                        is_app_limited: false,
                    }),
                    ..AckEvent::default()
                },
            );
        }
    }

    #[test]
    fn startup_drain_probe_bw_probe_rtt_and_back() {
        let mut b = Bbr::default();
        let mut s = st();
        let mut p = Path {
            now: 0,
            delivered: 0,
        };
        b.on_rtt_sample(&mut s, SimTime(0), Dur::from_millis(100));
        assert_eq!(b.mode, Mode::Startup);
        assert!((b.pacing_gain - 2.885_390_081_777_927).abs() < 1e-12);
        // Startup: the rate doubles for a few rounds, then stays at 1 MB/s.
        for r in [125_000.0, 250_000.0, 500_000.0, 1e6] {
            p.ack(&mut b, &mut s, r, 100, 50_000);
            assert_eq!(b.mode, Mode::Startup);
        }
        // Three rounds without 25 % growth: the pipe is full, Drain.
        p.ack(&mut b, &mut s, 1e6, 100, 250_000);
        p.ack(&mut b, &mut s, 1e6, 100, 250_000);
        assert_eq!(b.mode, Mode::Startup);
        p.ack(&mut b, &mut s, 1e6, 100, 250_000);
        assert!(b.filled_pipe);
        assert_eq!(b.mode, Mode::Drain);
        assert!((b.pacing_gain - 1.0 / 2.885_390_081_777_927).abs() < 1e-12);
        assert_eq!(b.btlbw, 1e6);
        // Inflight down to one BDP (100 kB): ProbeBW, in the phase after the initial index.
        p.ack(&mut b, &mut s, 1e6, 100, 100_000);
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_eq!(b.cycle_index, 2);
        assert_eq!(b.pacing_gain, 1.0);
        assert_eq!(b.cwnd_gain, 2.0);
        // cwnd settles at 2 BDP + 3 send quanta (pacing 1 MB/s: 2 MSS quanta).
        for _ in 0..5 {
            p.ack(&mut b, &mut s, 1e6, 110, 200_000);
        }
        assert_eq!(s.cwnd, 200_000 + 3 * 2 * MSS);
        // A phase lasts more than one RTprop (two 100 ms ACKs here); the cycle wraps to 5/4
        // after the 1.0 phases, then 3/4.
        let mut gains = vec![];
        for _ in 0..12 {
            p.ack(&mut b, &mut s, 1e6, 110, 200_000);
            gains.push(b.pacing_gain);
        }
        assert!(gains.contains(&1.25) && gains.contains(&0.75), "{gains:?}");
        // RTprop (100 ms) not seen again for 10 s: ProbeRTT, cwnd 4 segments.
        while b.mode != Mode::ProbeRtt {
            p.ack(&mut b, &mut s, 1e6, 110, 200_000);
            assert!(p.now < 20_000_000_000);
        }
        assert_eq!(s.cwnd, 4 * MSS);
        // After inflight <= 4 segments for 200 ms and a round: back to ProbeBW with the old
        // cwnd, and RTprop refreshed.
        for _ in 0..4 {
            p.ack(&mut b, &mut s, 1e6, 105, 3000);
        }
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_eq!(b.rtprop, Some(Dur::from_millis(105)));
        assert!(s.cwnd >= 200_000, "{}", s.cwnd);
    }

    #[test]
    fn recovery_conserves_packets_then_restores_cwnd() {
        let mut b = Bbr::default();
        let mut s = st();
        s.cwnd = 50 * MSS;
        b.on_enter_recovery(&mut s, 50 * MSS);
        b.on_delivery(
            &mut s,
            &AckEvent {
                pipe: 40 * MSS,
                delivered: MSS,
                ..AckEvent::default()
            },
        );
        assert_eq!(s.cwnd, 41 * MSS);
        assert!(b.packet_conservation);
        b.on_exit_recovery(&mut s, 30 * MSS);
        assert_eq!(s.cwnd, 50 * MSS);
        b.on_rto(&mut s, 50 * MSS, true);
        assert_eq!(s.cwnd, MSS);
        b.on_rto_recovered(&mut s);
        assert_eq!(s.cwnd, 50 * MSS);
        assert!(!b.sender_rules().prr);
    }
}
