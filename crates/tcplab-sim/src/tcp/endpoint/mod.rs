//! One side of a TCP connection, sender and receiver at once.
//!
//! `Endpoint` holds the connection's state, `Endpoint::new` settles what the plug-ins and the
//! profile ask of it, and its behaviour is in `impl Endpoint` blocks, one file per seam:
//! - `handshake.rs`: the three-way handshake and the window after a lost SYN;
//! - `timers.rs`: the timers and what each does when it fires (the retransmission timeout,
//!   the plug-ins' reordering and probe timers, delayed ACKs, pacing), and giving up;
//! - `ack.rs`: an ACK of new data, the window growth and the per-ACK samples and hooks;
//! - `loss.rs`: duplicate ACKs, the fast retransmit and the recovery phase it begins;
//! - `send.rs`: the application's writes, the send loop, retransmissions, building segments;
//! - `recv.rs`: segments in, data in order and out of order, delivery, the ACK policy and
//!   the window advertised;
//! - `options.rs`: timestamps, SACK blocks, window scale and what the SYNs agreed.
//!
//! Around the plug-ins (`cc`, `recovery`) the sender also keeps: the delivery-rate state of
//! draft-cheng-iccrg-delivery-rate-estimation (a rate sample per ACK, for BBR); a per-ACK RTT
//! sample from the most recently sent segment an ACK delivers (for delay-based congestion
//! control); pacing at the congestion control's rate (`TimerKind::Pace`); the plug-ins' RACK
//! reordering and TLP probe timers (`TimerKind::Reorder`, `TimerKind::Probe`); and RFC 6937 PRR
//! when `TcpConfig::prr` is set (`recovery/prr.rs`).
//!
//! The segments of a bulk transfer take shortcuts settled at construction (`plain_sends`,
//! `quiet_acks`, `plain_rx`, `plain_acks`), each doing exactly what the general path does in
//! its case; `general_paths_only` turns them off, and the tests compare runs made both ways.

mod ack;
mod handshake;
mod loss;
mod options;
mod timers;

use std::sync::Arc;

use super::config::{RtoRestart, TcpConfig};
use super::ns2::Ns2Active;
use super::{autotune, cc, recovery, rto, scoreboard};

use crate::engine::{EventQueue, Timer, TimerKind, N_TIMERS};
use crate::packet::{Packet, ACK, FIN, SYN};
use crate::time::{Dur, SimTime};
use crate::trace::{EventLog, PacketLog};

use cc::{CaRule, CcState, CongestionControl, SenderRules};
use recovery::prr::Prr;
use recovery::{LossRecovery, SenderView};
use rto::RtoEstimator;
use scoreboard::{Scoreboard, Seg, TxStamp};

use options::wscale_for;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynRcvd,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Closed => "CLOSED",
            State::Listen => "LISTEN",
            State::SynSent => "SYN-SENT",
            State::SynRcvd => "SYN-RECEIVED",
            State::Established => "ESTABLISHED",
            State::FinWait1 => "FIN-WAIT-1",
            State::FinWait2 => "FIN-WAIT-2",
            State::CloseWait => "CLOSE-WAIT",
            State::Closing => "CLOSING",
            State::LastAck => "LAST-ACK",
            State::TimeWait => "TIME-WAIT",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct EndpointStats {
    pub segments_sent: u64,
    pub data_segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmissions: u64,
    pub fast_retransmits: u64,
    pub rto_expirations: u64,
    pub dupacks_received: u64,
    pub acks_sent: u64,
    pub segments_received: u64,
    pub out_of_order_segments: u64,
    pub duplicate_segments: u64,
    pub bytes_delivered: u64,
    pub syn_retransmissions: u64,
    pub max_cwnd: u64,
    pub rtt_samples: u64,
}

thread_local! {
    /// Set while `general_paths_only` runs: endpoints built then take no shortcut.
    static GENERAL_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` with every endpoint it builds (on this thread) taking the general paths only: none
/// of the shortcuts settled at construction (`plain_sends`, `quiet_acks`, `plain_rx`,
/// `plain_acks`), each of which must do exactly what the general path does in its case. The
/// tests compare runs made both ways, output for output.
#[doc(hidden)]
pub fn general_paths_only<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            GENERAL_ONLY.with(|g| g.set(self.0));
        }
    }
    let _restore = Restore(GENERAL_ONLY.with(|g| g.replace(true)));
    f()
}

/// What an endpoint needs from the world while it runs.
pub struct Ctx<'a> {
    pub now: SimTime,
    pub q: &'a mut EventQueue,
    pub out: &'a mut Vec<Packet>,
    pub next_uid: &'a mut u64,
    pub events: Option<&'a mut EventLog>,
    pub packets: Option<&'a mut PacketLog>,
}

impl Ctx<'_> {
    fn log(&mut self, conn: u32, end: u8, kind: &str, seq: u64, detail: impl FnOnce() -> String) {
        if let Some(ev) = self.events.as_deref_mut() {
            ev.push(self.now, conn, end, kind, seq, detail());
        }
    }
}

pub struct Endpoint {
    pub conn: u32,
    pub end: u8,
    pub node: u16,
    pub peer_node: u16,
    /// Shared by every endpoint with the same settings.
    pub cfg: Arc<TcpConfig>,
    pub state: State,
    pub stats: EndpointStats,
    pub aborted: bool,

    /// The ns-2 rules in force for this pair of plug-ins (`ns2.rs`).
    ns2: Ns2Active,
    /// ns-2 Sack1's `pipe_` in packets, during a Sack1 fast recovery.
    sack1_pipe: Option<i64>,
    /// Partial ACKs seen in the current recovery (ns-2 NewReno restarts the timer on the
    /// first only).
    partial_acks: u32,
    /// ns-2 Sack1's `timeout_`: duplicate ACKs are ignored from a timeout to the next new ACK.
    sack1_timeout: bool,
    /// Packets ns-2's `send_one` may still send beyond the window for the last duplicate ACK.
    send_one_budget: u32,
    // --- send side
    pub snd_una: u64,
    /// Next new sequence number (one past the highest sent).
    pub snd_max: u64,
    /// Peer's advertised window in bytes (scaled).
    pub snd_wnd: u64,
    max_snd_wnd: u64,
    snd_wl1: u64,
    snd_wl2: u64,
    /// Payload bytes per segment after negotiation and options.
    pub eff_mss: u64,
    peer_wscale: u8,
    own_wscale: u8,
    sack_ok: bool,
    ts_ok: bool,
    /// Total bytes the application will write (None: unlimited).
    app_total: Option<u64>,
    app_written: u64,
    app_closed: bool,
    fin_sent: bool,
    pub sb: Scoreboard,
    pub ccs: CcState,
    cc: Box<dyn CongestionControl>,
    rec: Box<dyn LossRecovery>,
    /// The loss-recovery plug-in detects losses by time (`LossRecovery::time_based`).
    rec_timers: bool,
    /// The congestion control reads delivery-rate samples.
    cc_rate: bool,
    /// The congestion control's per-ACK hook does something (`CongestionControl::on_delivery`).
    cc_delivery: bool,
    /// The congestion control's fast recovery inflates the window (`inflates`).
    cc_inflates: bool,
    /// The congestion control's window growth is Reno's (`CongestionControl::grows_as_reno`).
    cc_reno: bool,
    /// The congestion control's say over the sender's rules (`cc::SenderRules`).
    cc_rules: SenderRules,
    /// The congestion control already heard this duplicate ACK (`dupack_first`).
    cc_heard: bool,
    /// The congestion control hears of every segment sent (`CongestionControl::hears_sends`).
    cc_sends: bool,
    /// The congestion control may pace (`CongestionControl::paces`).
    cc_paces: bool,
    /// None of ns-2's window rules, pacing, the congestion control's per-send hook or the
    /// plug-in's timers: outside recovery the send loop takes its copy without their tests
    /// (`send_loop_as`).
    plain_sends: bool,
    /// Neither plug-in timers nor a congestion control that hears every ACK: an ACK field
    /// that acknowledges nothing with nothing in flight needs no bookkeeping (`process_ack`).
    /// One flag for the two, tested on every segment a receiver gets.
    quiet_acks: bool,
    /// A receiver whose next data segment in order needs none of the general path's options:
    /// `quiet_acks`, delayed ACKs, no autotuning, an application that reads at once, and for
    /// its idle send pass no cwnd validation and none of ns-2's window rules (`plain_data`).
    plain_rx: bool,
    /// A sender whose ACKs of new data need none of the plug-ins' per-ACK work: Reno's window
    /// growth in line, no delivery-rate sample, no per-ACK hook, no plug-in timers, no cwnd
    /// validation and no ns-2 Sack1 (`plain_ack`); and whose send passes take the plain loop
    /// outside recovery (`plain_sends`).
    plain_acks: bool,
    pub rto: RtoEstimator,
    timers: [Timer; N_TIMERS],
    pub dupacks: u32,
    /// A loss-recovery phase is under way: begun by the loss-recovery plug-in's fast
    /// retransmit, ended as its `phase_end` says.
    pub in_recovery: bool,
    /// The congestion control's fast-recovery window is in force inside the phase: duplicate ACKs
    /// inflate it and partial ACKs deflate it (RFC 5681 / RFC 6582). Reno's ends at the first
    /// new ACK even when the phase goes on; Tahoe has none (`RecoveryStyle`).
    cc_fast_recovery: bool,
    recover: Option<u64>,
    recovery_credits: u64,
    /// After a timeout (or a Tahoe fast retransmit, which ns-2 treats alike) until the
    /// cumulative ACK passes `recover`: no fast recovery may start (RFC 6582 section 3.2 step 2,
    /// RFC 6675 section 5.1).
    rto_recovery: bool,
    /// After Tahoe's go-back-N fast retransmit: no fast retransmit until the cumulative ACK covers
    /// *more than* the recovery point, i.e. passes this sequence number (SND.NXT when it began).
    /// RFC 6582 section 3.2 step 1 ("covers more than recover") and ns-2's `bug_fix_`
    /// (`highest_ack_ > recover_` in packet numbers): the receiver answers the resent copies of
    /// segments it already holds with duplicate ACKs of exactly SND.NXT, which must not start
    /// another go-back-N (RFC 6582 section 4.1's "multiple fast retransmits"; without this rule
    /// one loss in a large window starts an endless cycle of them). After a timeout the guard
    /// stays `rto_recovery` (ACK > recover) in every profile for now.
    fr_guard: Option<u64>,
    prr: Option<Prr>,
    /// Without SACK: bytes PRR counted as delivered by duplicate ACKs (RFC 6937 section 3).
    prr_dup: u64,
    /// Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation section 3):
    /// C.delivered, C.delivered_time, C.first_sent_time and C.app_limited. The last three (and
    /// the segments' `TxStamp`) are kept only for rate samples (`cc_rate`); C.delivered also for
    /// the congestion control's events, not on the `plain_ack` path, which has none.
    rs_delivered: u64,
    rs_delivered_time: SimTime,
    rs_first_sent_time: SimTime,
    rs_app_limited: u64,
    /// Pacing: the earliest time the next segment may leave.
    next_send_at: SimTime,
    /// The RTO estimator's sample taken from the ACK being processed (`process_ack` sets it
    /// before anything reads it).
    ack_rtt: Option<Dur>,
    limited_transmit_room: u64,
    rtt_timing: Option<(u64, SimTime)>,
    retries: u32,
    syn_retransmitted: bool,
    /// Set when this end gave up (`abort`): why.
    end_reason: Option<String>,
    syn_sent_at: SimTime,
    /// Cwnd validation (`TcpConfig::cwnd_validation`), Linux's `tcp_cwnd_validate` state: the
    /// sender was cwnd-limited in the current window, the largest flight of the current window
    /// (bytes), and the SND.NXT that ends the window.
    is_cwnd_limited: bool,
    /// End of the last segment shorter than the MSS that was sent (Linux's `snd_sml`).
    snd_sml: u64,
    max_flight: u64,
    cwnd_usage_seq: u64,

    // --- receive side
    pub rcv_nxt: u64,
    /// Receive-buffer autotuning state (`None`: a fixed buffer of `rcv_buf`).
    tune: Option<Box<autotune::RcvTune>>,
    rcv_adv: u64,
    ooo: Vec<(u64, u64)>,
    last_ooo: Option<(u64, u64)>,
    peer_fin_seq: Option<u64>,
    pub peer_fin: bool,
    unread: f64,
    unread_at: SimTime,
    last_adv_wnd: u64,
    /// `(RCV.NXT, window field)` of the last ACK sent by a receiver whose window depends on
    /// RCV.NXT alone (no read rate, no autotuning): an ACK with the same RCV.NXT advertises
    /// the same field, which `advertise_window` would only compute again (a sender's data
    /// segments, which all carry the same RCV.NXT). `u64::MAX`: none.
    adv_memo: (u64, u32),
    /// With a fixed receive buffer (no read rate, no autotuning), settled at the handshake:
    /// the buffer, the buffer less the silly-window step, and the window field of a full
    /// buffer. Once RCV.NXT is within the second of the right edge offered, `advertise_window`
    /// slides the edge to RCV.NXT + buffer and offers the whole buffer: an ACK then sets both
    /// from these without computing the window (100 MB bulk: 1,690 -> 1,672 instructions per
    /// data segment).
    adv_full: Option<(u64, u64, u32)>,
    delack_count: u32,
    /// ACKs left to send at once in quick-ACK mode (`TcpConfig::quick_acks`), and whether the
    /// mode was entered (on the connection's first data; from the start without quick ACKs).
    quick_acks_left: u32,
    quick_acks_started: bool,
    ts_recent: u64,
    last_ack_sent: u64,
    /// In-order payload bytes delivered to the application.
    pub delivered: u64,
    /// Time the last in-order payload byte arrived.
    pub last_delivery: SimTime,
}

impl Endpoint {
    pub fn new(
        conn: u32,
        end: u8,
        node: u16,
        peer_node: u16,
        cfg: Arc<TcpConfig>,
        cc: Box<dyn CongestionControl>,
        rec: Box<dyn LossRecovery>,
    ) -> Self {
        let mss = cfg.mss as u64;
        let mut ns2 = Ns2Active::new(&cfg.ns2, cc.name(), rec.name());
        // A controller may ask for ns-2's exit rule whatever the profile (the ns-2 Westwood
        // module's `exit_window = "keep"`).
        ns2.exit_keeps_cwnd |= cc.exit_keeps_cwnd();
        let cc_rules = SenderRules::of(cc.as_ref());
        let ccs = CcState {
            cwnd: cfg.initial_cwnd as u64 * mss,
            ssthresh: cfg.initial_ssthresh,
            mss,
            // (a controller inside an ns-2 agent gets its cwnd_ too, not its loss reaction)
            ca_rule: if ns2.cwnd_double || (cfg.ns2.cwnd_double && cc_rules.ns2_agent) {
                CaRule::Ns2Double
            } else {
                cfg.ca_rule
            },
            abc_limit: cfg.abc_limit,
            ca_bytes: 0,
        };
        // Linux: the scale fits the largest buffer the socket may grow to (tcp_select_initial_window
        // with tcp_rmem[2]).
        let own_wscale = if cfg.window_scaling {
            wscale_for(cfg.rcv_buf.max(cfg.rcv_buf_max))
        } else {
            0
        };
        // The newest segment an ACK delivers (and the lowest end of those never retransmitted)
        // feed the delivery-rate sample, the per-ACK RTT sample (of `on_delivery`, or of
        // `on_ack` for HyStart) and RACK: without these readers the scoreboard does not keep
        // them.
        let tune = autotune::RcvTune::new(cfg.rcv_buf, cfg.rcv_buf_max, mss).map(Box::new);
        // The shortcuts below, unless a test asked for the general paths only.
        let shortcuts = !GENERAL_ONLY.with(|g| g.get());
        let mut sb = Scoreboard::default();
        sb.track_newest(
            cc.uses_rate_samples()
                || cc.hears_every_ack()
                || cc.reads_sample_rtt()
                || rec.time_based(),
        );
        Endpoint {
            conn,
            end,
            node,
            peer_node,
            rto: {
                let mut e = RtoEstimator::new(cfg.rto);
                if cfg.ns2.rtt_ticks {
                    e.use_ns2_ticks(cfg.ns2.tick_phase);
                }
                e
            },
            state: State::Closed,
            stats: EndpointStats::default(),
            aborted: false,
            snd_una: 0,
            snd_max: 0,
            snd_wnd: 0,
            max_snd_wnd: 0,
            snd_wl1: 0,
            snd_wl2: 0,
            eff_mss: mss,
            peer_wscale: 0,
            own_wscale,
            sack_ok: false,
            ts_ok: false,
            app_total: Some(0),
            app_written: 0,
            app_closed: false,
            fin_sent: false,
            sb,
            ccs,
            cc_rate: cc.uses_rate_samples(),
            cc_delivery: cc.hears_every_ack(),
            cc_inflates: cc.inflates(),
            cc_reno: cc.grows_as_reno(),
            cc_rules,
            cc_heard: false,
            cc_sends: cc.hears_sends(),
            cc_paces: cc.paces(),
            plain_sends: shortcuts
                && !ns2.window_rules
                && !cc.hears_sends()
                && !cc.paces()
                && !rec.time_based(),
            quiet_acks: shortcuts && !rec.time_based() && !cc.hears_every_ack(),
            plain_rx: shortcuts
                && !rec.time_based()
                && !cc.hears_every_ack()
                && cfg.delayed_ack
                && tune.is_none()
                && cfg.rcv_read_rate.is_none()
                && !cfg.cwnd_validation
                && !ns2.window_rules,
            plain_acks: shortcuts
                && !rec.time_based()
                && !cc.hears_every_ack()
                && !cc.uses_rate_samples()
                && cc.grows_as_reno()
                && !cfg.cwnd_validation
                && !ns2.sack1
                && !ns2.window_rules
                && !cc.hears_sends()
                && !cc.paces(),
            cc,
            rec_timers: rec.time_based(),
            rec,
            timers: [Timer::default(); N_TIMERS],
            dupacks: 0,
            in_recovery: false,
            cc_fast_recovery: false,
            recover: None,
            recovery_credits: 0,
            rto_recovery: false,
            fr_guard: None,
            prr: None,
            prr_dup: 0,
            rs_delivered: 0,
            rs_delivered_time: SimTime::ZERO,
            rs_first_sent_time: SimTime::ZERO,
            rs_app_limited: 0,
            next_send_at: SimTime::ZERO,
            ack_rtt: None,
            limited_transmit_room: 0,
            ns2,
            sack1_pipe: None,
            partial_acks: 0,
            sack1_timeout: false,
            send_one_budget: 0,
            rtt_timing: None,
            retries: 0,
            syn_retransmitted: false,
            end_reason: None,
            syn_sent_at: SimTime::ZERO,
            is_cwnd_limited: false,
            snd_sml: 0,
            max_flight: 0,
            cwnd_usage_seq: 0,
            rcv_nxt: 0,
            tune,
            rcv_adv: 0,
            ooo: Vec::new(),
            last_ooo: None,
            peer_fin_seq: None,
            peer_fin: false,
            unread: 0.0,
            unread_at: SimTime::ZERO,
            last_adv_wnd: 0,
            adv_memo: (u64::MAX, 0),
            adv_full: None,
            delack_count: 0,
            quick_acks_left: 0,
            quick_acks_started: cfg.quick_acks == 0,
            ts_recent: 0,
            last_ack_sent: 0,
            delivered: 0,
            last_delivery: SimTime::ZERO,
            cfg,
        }
    }

    pub fn cc_bandwidth_estimate(&self) -> Option<(f64, Option<Dur>)> {
        self.cc.bandwidth_estimate()
    }

    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }

    pub fn recovery_name(&self) -> &'static str {
        self.rec.name()
    }

    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    pub fn is_closed(&self) -> bool {
        matches!(self.state, State::Closed | State::TimeWait)
    }

    /// With receive-buffer autotuning: the largest window this end may offer (bytes) and how
    /// many times it grew.
    pub fn autotuned(&self) -> Option<(u64, u32)> {
        self.tune.as_deref().map(|t| (t.clamp, t.grown))
    }

    /// Whether the application has closed its sending side.
    pub fn app_closed(&self) -> bool {
        self.app_closed
    }

    /// Bytes written by the application and not yet acknowledged by the peer.
    pub fn unacked_app_bytes(&self) -> u64 {
        let acked_data = self.snd_una.saturating_sub(1);
        self.app_written.saturating_sub(acked_data)
    }

    pub fn timer_deadline(&self, kind: TimerKind) -> Option<SimTime> {
        self.timers[kind as usize].deadline
    }

    fn set_state(&mut self, s: State, ctx: &mut Ctx) {
        if s != self.state {
            let from = self.state;
            ctx.log(self.conn, self.end, "state", self.snd_una, || {
                format!("{} -> {}", from.name(), s.name())
            });
            self.state = s;
            if s == State::Established {
                // tcp_init_buffer_space: the first autotuning measurement starts.
                let (consumed, mss) = (self.consumed(ctx.now), self.eff_mss);
                if let Some(t) = self.tune.as_deref_mut() {
                    t.start(ctx.now, consumed, mss);
                }
            }
        }
    }

    fn can_send_data(&self) -> bool {
        matches!(
            self.state,
            State::Established
                | State::CloseWait
                | State::FinWait1
                | State::Closing
                | State::LastAck
        )
    }

    fn view(&self, now: SimTime) -> SenderView {
        SenderView {
            now,
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            mss: self.eff_mss,
            dupacks: self.dupacks,
            dupthresh: self.cfg.dupthresh,
            in_recovery: self.in_recovery,
            recovery_credits: self.recovery_credits,
            recover: self.recover,
            rto_recovery: self.rto_recovery,
            sack_ok: self.sack_ok,
            srtt: self.rto.srtt(),
            min_rtt: self.rto.min_rtt,
            rto_deadline: self.timers[TimerKind::Rto as usize].deadline,
            sack1: self.ns2.sack1,
        }
    }

    /// Bytes in flight as the loss-recovery plug-in counts them. Outside a recovery phase every
    /// plug-in counts the scoreboard's RFC 6675 pipe (`LossRecovery::pipe`'s contract), which
    /// is read directly then: no view is built on the per-segment path.
    #[inline]
    fn pipe(&self, now: SimTime) -> u64 {
        if !self.in_recovery {
            return self.sb.rfc6675_pipe();
        }
        let v = self.view(now);
        self.rec.pipe(&v, &self.sb)
    }

    /// The largest window this end may offer now: the buffer, or what autotuning grew it to.
    fn rcv_window_max(&self) -> u64 {
        self.tune.as_deref().map_or(self.cfg.rcv_buf, |t| t.clamp)
    }

    /// In-order payload bytes the application has consumed (read).
    fn consumed(&self, now: SimTime) -> u64 {
        match self.cfg.rcv_read_rate {
            None => self.delivered,
            Some(_) => self.delivered - self.unread_now(now).ceil() as u64,
        }
    }

    /// The application will write `bytes` more (None: an unlimited stream).
    pub fn app_write(&mut self, bytes: Option<u64>, ctx: &mut Ctx) {
        match (bytes, self.app_total) {
            (None, _) | (_, None) => self.app_total = None,
            (Some(b), Some(t)) => self.app_total = Some(t + b),
        }
        self.app_written = self.app_total.unwrap_or(u64::MAX);
        self.try_send(ctx);
    }

    /// The application closes its sending side: a FIN follows the data.
    pub fn app_close(&mut self, ctx: &mut Ctx) {
        self.app_closed = true;
        self.try_send(ctx);
    }

    /// Append a segment with this connection's headers to the output, for the caller to finish
    /// and `emit`. Built in place: a packet is not copied on its way out. Inlined into its
    /// callers (a call and its register saves cost more than most of its branches, which are
    /// decided by the caller's flags: 2,325 -> 2,287 instructions per data segment).
    #[inline(always)]
    fn base_packet<'c>(
        &mut self,
        flags: u8,
        seq: u64,
        len: u32,
        ctx: &'c mut Ctx,
    ) -> &'c mut Packet {
        *ctx.next_uid += 1;
        let now = ctx.now;
        ctx.out.push(Packet {
            uid: *ctx.next_uid,
            conn: self.conn,
            to_end: 1 - self.end,
            src: self.node,
            dst: self.peer_node,
            flags,
            seq,
            len,
            ..Packet::default()
        });
        let p = ctx.out.last_mut().expect("just pushed");
        if flags & ACK != 0 {
            p.ack = self.rcv_nxt;
            if flags & SYN == 0 && self.adv_memo.0 == self.rcv_nxt {
                // `advertise_window` gives the same for the same RCV.NXT (it only moves the
                // right edge when RCV.NXT moves), and `last_adv_wnd` holds it already.
                p.wnd = self.adv_memo.1;
            } else if let Some((buf, _, field)) = self
                .adv_full
                .filter(|&(_, lag, _)| flags & SYN == 0 && self.rcv_nxt + lag >= self.rcv_adv)
            {
                // The right edge slides to RCV.NXT + buffer: the whole buffer is offered.
                self.rcv_adv = self.rcv_nxt + buf;
                p.wnd = field;
                self.last_adv_wnd = (field as u64) << self.own_wscale;
                self.adv_memo = (self.rcv_nxt, field);
            } else {
                let wnd = self.advertise_window(now);
                let shift = if flags & SYN != 0 { 0 } else { self.own_wscale };
                p.wnd = (wnd >> shift).min(65_535) as u32;
                self.last_adv_wnd = (p.wnd as u64) << shift;
                let fixed = self.cfg.rcv_read_rate.is_none() && self.tune.is_none();
                self.adv_memo = if flags & SYN == 0 && fixed {
                    (self.rcv_nxt, p.wnd)
                } else {
                    (u64::MAX, 0)
                };
            }
            self.last_ack_sent = self.rcv_nxt;
            self.delack_count = 0;
            self.timers[TimerKind::DelAck as usize].cancel();
        } else if flags & SYN != 0 {
            // A SYN advertises the receive window too (never scaled in a SYN, RFC 7323 2.2).
            p.wnd = self.cfg.rcv_buf.min(65_535) as u32;
        }
        self.segment_options(p, flags, now);
        p
    }

    /// Count and log the packet `base_packet` appended last.
    /// (`flags` and `len` are the packet's, given by the caller, which knows them: the
    /// counts need not read the packet back.)
    #[inline(always)]
    fn emit(&mut self, flags: u8, len: u32, ctx: &mut Ctx) {
        self.stats.segments_sent += 1;
        if len > 0 {
            self.stats.data_segments_sent += 1;
            self.stats.bytes_sent += len as u64;
        }
        if flags == ACK && len == 0 {
            self.stats.acks_sent += 1;
        }
        if let Some(pl) = ctx.packets.as_deref_mut() {
            let p = ctx.out.last().expect("base_packet appended it");
            debug_assert_eq!((p.flags, p.len), (flags, len));
            pl.push(ctx.now, "send", "", p);
        }
    }

    fn send_ack(&mut self, ctx: &mut Ctx) {
        self.send_ack_inline(ctx);
    }

    /// `send_ack`, inlined into the receiver's delayed ACK, sent every other segment of a bulk
    /// transfer (100 MB bulk: 1,672 -> 1,663 instructions per data segment).
    #[inline(always)]
    fn send_ack_inline(&mut self, ctx: &mut Ctx) {
        self.base_packet(ACK, self.snd_max, 0, ctx);
        self.emit(ACK, 0, ctx);
    }

    /// Send one segment of `[start, end)` (`fin`: the FIN is its last sequence number). Inlined
    /// into `send_new`, its caller once per data segment (2,351 -> 2,325 instructions per
    /// data segment).
    #[inline(always)]
    fn send_segment(&mut self, start: u64, end: u64, fin: bool, tx_count: u32, ctx: &mut Ctx) {
        self.send_segment_as::<false>(start, end, fin, tx_count, ctx);
    }

    /// `send_segment`; with `PLAIN` (`send_loop_as`) without the tests for the congestion
    /// control's per-send hook, PRR and pacing.
    #[inline(always)]
    fn send_segment_as<const PLAIN: bool>(
        &mut self,
        start: u64,
        end: u64,
        fin: bool,
        tx_count: u32,
        ctx: &mut Ctx,
    ) {
        let len = (end - start - u64::from(fin)) as u32;
        let flags = ACK | if fin { FIN } else { 0 };
        self.base_packet(flags, start, len, ctx).tx_count = tx_count;
        self.emit(flags, len, ctx);
        if PLAIN {
            return;
        }
        if self.cc_sends {
            self.cc.on_sent(&mut self.ccs, ctx.now, len as u64);
        }
        if let Some(prr) = self.prr.as_mut() {
            prr.on_sent(end - start);
        }
        if !self.cc_paces {
            return;
        }
        if let Some(rate) = self.cc.pacing_rate(&self.ccs) {
            // The next segment leaves no earlier than this one's size (payload and 40 bytes of
            // headers) at the pacing rate.
            let gap = Dur::from_secs_f64((len as f64 + 40.0) / rate.max(1.0));
            self.next_send_at = self.next_send_at.max(ctx.now) + gap;
        }
    }

    /// With a pacing congestion control, whether the next segment must wait; if so the pacing
    /// timer is armed for its release time.
    fn paced(&mut self, ctx: &mut Ctx) -> bool {
        if ctx.now >= self.next_send_at
            || !self.cc_paces
            || self.cc.pacing_rate(&self.ccs).is_none()
        {
            return false;
        }
        let at = self.next_send_at;
        if self.timers[TimerKind::Pace as usize].deadline != Some(at) {
            self.arm(TimerKind::Pace, at, ctx);
        }
        true
    }

    /// Delivery-rate state recorded with a (re)transmission now (draft-cheng section 3.2).
    /// Only a rate sample reads it (`after_ack`, for a congestion control that takes them,
    /// `cc_rate`): without one, neither it nor C.first_sent_time and C.app_limited are kept.
    #[inline(always)]
    fn tx_stamp(&mut self, now: SimTime) -> TxStamp {
        if !self.cc_rate {
            return TxStamp::default();
        }
        if self.sb.rfc6675_pipe() == 0 {
            self.rs_first_sent_time = now;
            self.rs_delivered_time = now;
        }
        TxStamp {
            delivered: self.rs_delivered,
            delivered_time: self.rs_delivered_time,
            first_sent_time: self.rs_first_sent_time,
            app_limited: self.rs_app_limited != 0,
        }
    }

    fn unread_now(&self, now: SimTime) -> f64 {
        match self.cfg.rcv_read_rate {
            None => 0.0,
            Some(r) => (self.unread - r * now.since(self.unread_at).as_secs_f64()).max(0.0),
        }
    }

    /// The window to advertise: free receive buffer, with receiver-side silly-window avoidance
    /// (RFC 1122 4.2.3.3: the right edge only moves by at least min(buffer/2, MSS)) and never
    /// shrinking the right edge already offered.
    fn advertise_window(&mut self, now: SimTime) -> u64 {
        let buf = self.rcv_window_max();
        let free = match self.cfg.rcv_read_rate {
            // The application reads at once: nothing unread, the whole buffer is free (the
            // float expression below gives exactly this for every buffer below 2^53).
            None if buf < 1 << 53 => buf,
            _ => (buf as f64 - self.unread_now(now)).max(0.0) as u64,
        };
        let edge = self.rcv_nxt + free;
        let step = (buf / 2).min(self.eff_mss.max(1));
        if edge >= self.rcv_adv + step || self.rcv_adv < self.rcv_nxt {
            self.rcv_adv = edge.max(self.rcv_nxt);
        }
        let max = 65_535u64 << self.own_wscale;
        (self.rcv_adv - self.rcv_nxt).min(max)
    }

    /// Inlined into the simulator's delivery of a segment, its one call per segment
    /// (2,260 -> 2,234 instructions per data segment).
    #[inline(always)]
    pub fn on_segment(&mut self, p: &Packet, ctx: &mut Ctx) {
        self.stats.segments_received += 1;
        if let Some(pl) = ctx.packets.as_deref_mut() {
            pl.push(ctx.now, "recv", "", p);
        }
        if self.aborted {
            return;
        }
        match self.state {
            State::Closed => {}
            State::Listen | State::SynSent | State::SynRcvd => self.handshake_segment(p, ctx),
            _ => self.established_segment(p, ctx),
        }
    }

    /// A segment in a synchronized state. The two segments of a bulk transfer, a receiver's
    /// next data segment and a sender's ACK of new data, each take a path of their own where
    /// the endpoint's options allow (`plain_data`, `plain_ack`); the others the general one.
    fn established_segment(&mut self, p: &Packet, ctx: &mut Ctx) {
        if p.flags == ACK && p.n_sack == 0 && !self.in_recovery {
            if p.len > 0 {
                if self.plain_rx
                    && p.seq == self.rcv_nxt
                    && p.seq + p.len as u64 <= self.rcv_adv
                    && p.ack == self.snd_una
                    && p.ack == self.snd_max
                    && self.ooo.is_empty()
                    && self.peer_fin_seq.is_none()
                    && self.quick_acks_started
                    && self.quick_acks_left == 0
                {
                    return self.plain_data(p, ctx);
                }
            } else if self.plain_acks
                && p.ack > self.snd_una
                && p.ack <= self.snd_max
                && !self.rto_recovery
                && self.fr_guard.is_none()
                && !self.fin_sent
            {
                return self.plain_ack(p, ctx);
            }
        }
        self.general_segment(p, ctx)
    }

    /// `general_segment` for the next data segment in order, inside the window offered, of a
    /// `plain_rx` receiver with nothing in flight, nothing out of order, no FIN seen and no
    /// quick ACKs left, outside recovery; the segment, with no SACK block, acknowledges
    /// nothing new. What the general path does then, without its tests.
    #[inline(always)]
    fn plain_data(&mut self, p: &Packet, ctx: &mut Ctx) {
        self.update_ts_recent(p);
        // `process_ack`: the window update, then its path for an ACK field that acknowledges
        // nothing with nothing in flight.
        self.update_window(p);
        self.stats.max_cwnd = self.stats.max_cwnd.max(self.ccs.cwnd);
        // `process_data`: in order, no gap filled, no FIN, no quick ACK.
        self.rcv_nxt = p.seq + p.len as u64;
        // `deliver`, to an application that reads at once, without autotuning.
        debug_assert!(self.cfg.rcv_read_rate.is_none() && self.tune.is_none());
        self.delivered += p.len as u64;
        self.stats.bytes_delivered += p.len as u64;
        self.last_delivery = ctx.now;
        self.delay_ack(ctx);
        // `try_send`, whose `idle_pass` finds nothing in flight, no plug-in timers, no cwnd
        // validation, recovery or ns-2 window rules, and the endpoint not aborted: with the
        // application's side open and everything written acknowledged, nothing to send and
        // no mark to make without rate samples.
        debug_assert!(self.snd_max == self.snd_una && !self.aborted && !self.in_recovery);
        if !self.can_send_data()
            || (self.snd_max > self.app_written
                && !self.app_closed
                && self.sb.next_lost().is_none()
                && !self.cc_rate)
        {
            return;
        }
        self.try_send(ctx);
    }

    #[inline(never)]
    fn general_segment(&mut self, p: &Packet, ctx: &mut Ctx) {
        if p.is(SYN) {
            // A repeated SYN-ACK: our ACK of it was lost. When data went in place of that ACK
            // (ns-2's two-packet opening), the data's retransmission answers it: ns-2's sink
            // never repeats its ACK of the SYN, so its sender sends nothing for it.
            if !(self.cfg.ns2.two_way_handshake && self.snd_max > 1) {
                self.send_ack(ctx);
            }
            return;
        }
        self.update_ts_recent(p);
        if p.is(ACK) {
            self.process_ack(p, ctx);
            if self.aborted {
                return;
            }
        }
        if p.len > 0 || p.is(FIN) {
            self.process_data(p, ctx);
        }
        self.try_send(ctx);
    }

    /// The pipe and window under ns-2's rules, and the window beyond which `send_one` meters
    /// packets: Sack1 outside fast recovery counts SACKed packets (`t_seqno_ <= last_ack_ +
    /// window()`), inside it uses its own `pipe_`; `send_one` applies beyond cwnd.
    #[inline(never)]
    fn ns2_window(&self, mut pipe: u64, cwnd: u64) -> (u64, u64, Option<u64>) {
        if self.ns2.sack1 && !self.in_recovery {
            pipe += self.sb.sacked_bytes();
        }
        let edge =
            (self.cfg.ns2.send_one && self.limited_transmit_room > 0).then_some(self.ccs.cwnd);
        match self.sack1_pipe {
            Some(pp) => {
                let m = self.eff_mss;
                let (used, spare) = ((pp.max(0) as u64) * m, ((-pp).max(0) as u64) * m);
                (used, cwnd + spare, edge)
            }
            None => (pipe, cwnd, edge),
        }
    }

    /// ns-2's `send_one` (`Ns2Rules::send_one`): limited transmit sends one packet per
    /// duplicate ACK beyond the window. Whether one more may go now.
    fn take_send_one(&mut self) -> bool {
        let ok = self.send_one_budget > 0;
        self.send_one_budget = self.send_one_budget.saturating_sub(1);
        ok
    }

    /// Retransmit the first segment marked lost. Returns false if there is none.
    fn retransmit_next(&mut self, ctx: &mut Ctx) -> bool {
        let Some(i) = self.sb.next_lost() else {
            return false;
        };
        self.retransmit_index(i, false, ctx);
        true
    }

    /// Resend segment `i`: one marked lost, one chosen by RFC 6675 NextSeg rules 3-4, or a loss
    /// probe (`probe`).
    fn retransmit_index(&mut self, i: usize, probe: bool, ctx: &mut Ctx) {
        let tx = self.tx_stamp(ctx.now);
        self.sb.retransmitted(i, ctx.now, tx);
        let Some(&s) = self.sb.get(i) else {
            return;
        };
        self.stats.retransmissions += 1;
        if let Some(pp) = self.sack1_pipe.as_mut() {
            *pp += 1;
        }
        // Karn: a retransmission spoils the running measurement.
        if !self.cfg.ns2.rtt_active {
            self.rtt_timing = None;
        }
        self.send_segment(s.start, s.end, s.fin, u32::from(s.tx_count), ctx);
        ctx.log(self.conn, self.end, "retransmit", s.start, || {
            format!("len {} tx {}", s.data_len(), s.tx_count)
        });
        let restart = match self.cfg.rto_restart {
            RtoRestart::Every => true,
            RtoRestart::Head => s.start <= self.snd_una,
            RtoRestart::Never => false,
        };
        // RFC 6298 5.1: a transmission starts the timer if it is not running.
        if restart || !self.timers[TimerKind::Rto as usize].is_armed() {
            self.restart_rto(ctx);
        }
        if !probe && self.rec_timers {
            let v = self.view(ctx.now);
            self.rec.on_transmit(&v, &self.sb, false);
        }
    }

    /// End of the data the application has made available (sequence number).
    fn data_end(&self) -> u64 {
        let acked_data = self.snd_una.saturating_sub(1);
        let limit = acked_data.saturating_add(self.cfg.snd_buf);
        1 + self.app_written.min(limit)
    }

    /// Send what the windows allow: retransmissions first, then new data, then the FIN; then
    /// align the loss-recovery plug-in's timers.
    #[inline]
    pub fn try_send(&mut self, ctx: &mut Ctx) {
        if !self.idle_pass() {
            self.send_pass(ctx);
        }
    }

    /// `send_pass` of a `plain_acks` sender outside recovery, without PRR.
    #[inline(never)]
    fn plain_send_pass(&mut self, ctx: &mut Ctx) {
        debug_assert!(self.plain_sends && !self.in_recovery && self.sack1_pipe.is_none());
        debug_assert!(self.prr.is_none() && !self.rec_timers);
        self.send_loop_as::<true>(ctx);
    }

    #[inline(never)]
    fn send_pass(&mut self, ctx: &mut Ctx) {
        self.send_loop(ctx);
        self.sync_rec_timers(ctx);
    }

    /// A send pass with nothing in flight, no plug-in timers and no cwnd validation, done in
    /// line where it finds nothing to send (the receiving end of a transfer, after every
    /// segment): the same effect as `send_pass` (only the application-limited mark), without
    /// the call. False when the full pass must run.
    #[inline(always)]
    fn idle_pass(&mut self) -> bool {
        if self.snd_max != self.snd_una || self.rec_timers || self.cfg.cwnd_validation {
            return false;
        }
        if !self.can_send_data() || self.aborted {
            return true; // `send_loop` returns at once and `sync_rec_timers` has nothing to do
        }
        // Everything written was sent and acknowledged, and the application's side is open (a
        // receiver, on every segment): the data end is the end of what was written, there is
        // no new data and no FIN due, and `nothing_to_send` needs not compute the data end
        // (100 MB bulk: 1,755 -> 1,732 instructions per data segment).
        let all_acked = self.snd_max > self.app_written && !self.app_closed;
        let nothing = if all_acked {
            !self.in_recovery && !self.ns2.window_rules && self.sb.next_lost().is_none()
        } else {
            self.nothing_to_send()
        };
        if !nothing {
            return false;
        }
        let pipe = self.sb.rfc6675_pipe();
        let cwnd = self.ccs.cwnd + self.limited_transmit_room;
        if self.cc_rate
            && (all_acked || self.data_end() == self.app_written.saturating_add(1))
            && pipe < cwnd
        {
            self.rs_app_limited = (self.rs_delivered + pipe).max(1);
        }
        true
    }

    fn send_loop(&mut self, ctx: &mut Ctx) {
        // Tested once per pass: nothing in the loop enters or leaves recovery.
        if self.plain_sends && !self.in_recovery && self.prr.is_none() && self.sack1_pipe.is_none()
        {
            self.send_loop_as::<true>(ctx)
        } else {
            self.send_loop_as::<false>(ctx)
        }
    }

    /// The send loop, compiled twice: with `PLAIN` (`plain_sends`, outside recovery, no PRR
    /// and no ns-2 Sack1 pipe) without the tests for recovery, ns-2's window rules and burst
    /// limit, pacing, the per-send hooks and the plug-in's timers, each of which would be
    /// made for every segment sent.
    #[inline(always)]
    fn send_loop_as<const PLAIN: bool>(&mut self, ctx: &mut Ctx) {
        if !self.can_send_data() || self.aborted {
            return;
        }
        let sent_before = self.stats.segments_sent;
        if !PLAIN && self.nothing_to_send() {
            // What the loop below does when there is nothing to send (the receiving end of a
            // transfer, after every segment): only the application-limited mark. Not tested
            // in the plain loop, whose first pass finds the same at about the same cost, and
            // where most passes are a sender's with new data, which this test would only delay
            // (100 MB bulk: 1,715 -> 1,708 instructions per data segment).
            let pipe = self.sb.rfc6675_pipe();
            let cwnd = self.ccs.cwnd + self.limited_transmit_room;
            if self.cc_rate && self.data_end() == self.app_written.saturating_add(1) && pipe < cwnd
            {
                self.rs_app_limited = (self.rs_delivered + pipe).max(1);
            }
            return self.end_pass(sent_before, ctx);
        }
        let nr_burst = !PLAIN && self.ns2.newreno && self.in_recovery;
        // The end of the data available and the right edge of the peer's window move only with
        // an ACK or a write, never inside a pass: computed once per pass, not per segment
        // (100 MB bulk: 1,777 -> 1,755 instructions per data segment).
        let end = self.data_end();
        let wnd_edge = self.snd_una + self.snd_wnd;
        loop {
            if nr_burst && self.stats.segments_sent >= sent_before + 2 {
                // ns-2 NewRenoTcpAgent::recv: send_much(0, 0, 2) while dupacks_ >= numdupacks_.
                break;
            }
            let mut pipe = if PLAIN {
                self.sb.rfc6675_pipe() // `pipe` outside recovery
            } else {
                self.pipe(ctx.now)
            };
            let mut cwnd = self.ccs.cwnd + self.limited_transmit_room;
            // ns-2's window rules (one branch when they are off).
            let mut send_one_edge = None;
            if !PLAIN && self.ns2.window_rules {
                (pipe, cwnd, send_one_edge) = self.ns2_window(pipe, cwnd);
            }
            if let Some(i) = self.sb.next_lost() {
                let len = self.sb.get(i).map_or(0, |s| s.len());
                if pipe + len > cwnd || self.paced(ctx) {
                    break;
                }
                if send_one_edge.is_some_and(|e| pipe + len > e) && !self.take_send_one() {
                    break;
                }
                self.retransmit_next(ctx);
                continue;
            }
            if self.snd_max < end && !self.fin_sent {
                let avail = end - self.snd_max;
                let room = wnd_edge.saturating_sub(self.snd_max);
                let mut len = avail.min(self.eff_mss);
                if room == 0 {
                    if self.flight() == 0 {
                        // Zero window and nothing in flight: probe with one byte (persist).
                        self.send_new(1, false, ctx);
                    } else if self.next_seg(pipe, cwnd, ctx) {
                        continue;
                    }
                    break;
                }
                if len > room {
                    // Sender-side silly-window avoidance (RFC 1122 4.2.3.4): send a partial
                    // segment only if it is at least half the largest window seen, or if
                    // nothing is in flight.
                    if room * 2 < self.max_snd_wnd && self.flight() > 0 {
                        if self.next_seg(pipe, cwnd, ctx) {
                            continue;
                        }
                        break;
                    }
                    len = room;
                }
                if self.cfg.nagle && len < self.eff_mss && self.flight() > 0 && self.nagle_holds() {
                    break;
                }
                if pipe + len > cwnd || (!PLAIN && self.paced(ctx)) {
                    break;
                }
                if send_one_edge.is_some_and(|e| pipe + len > e) && !self.take_send_one() {
                    break;
                }
                self.send_new_as::<PLAIN>(len, false, ctx);
                continue;
            }
            if self.app_closed
                && !self.fin_sent
                && self.app_total.is_some()
                && self.snd_max == end
                && end == 1 + self.app_written
            {
                self.send_fin(ctx);
                continue;
            }
            if !PLAIN && self.next_seg(pipe, cwnd, ctx) {
                continue;
            }
            // Nothing left to send although the window has room: the application limits us
            // (draft-cheng-iccrg-delivery-rate-estimation section 3.4; kept for rate samples).
            if self.cc_rate && end == self.app_written.saturating_add(1) && pipe < cwnd {
                self.rs_app_limited = (self.rs_delivered + pipe).max(1);
            }
            break;
        }
        self.end_pass(sent_before, ctx);
    }

    /// After a pass of the send loop (`sent_before`: segments sent before it): cwnd
    /// validation, and the retransmission timer when data is in flight.
    #[inline(always)]
    fn end_pass(&mut self, sent_before: u64, ctx: &mut Ctx) {
        if self.cfg.cwnd_validation {
            // tcp_write_xmit: validate after a pass that sent or was stopped by cwnd.
            let pipe = self.pipe(ctx.now);
            if self.stats.segments_sent > sent_before || pipe + self.eff_mss > self.ccs.cwnd {
                self.validate_cwnd(pipe);
            }
        }
        // Track where the receiver's window blocks us with nothing in flight.
        if self.flight() > 0 && !self.timers[TimerKind::Rto as usize].is_armed() {
            self.restart_rto(ctx);
        }
    }

    /// Whether a pass of the send loop would find nothing to send: outside recovery and
    /// ns-2's window rules, nothing marked lost, no new data (or the FIN sent) and no FIN due.
    #[inline]
    fn nothing_to_send(&self) -> bool {
        let end = self.data_end();
        !self.in_recovery
            && !self.ns2.window_rules
            && (self.snd_max >= end || self.fin_sent)
            && !(self.app_closed
                && !self.fin_sent
                && self.app_total.is_some()
                && self.snd_max == end
                && end == 1 + self.app_written)
            && self.sb.next_lost().is_none()
    }

    /// In recovery, with room in the window and nothing else to send: the plug-in's extra
    /// retransmission (RFC 6675 NextSeg rules 3 and 4). True if one was sent.
    fn next_seg(&mut self, pipe: u64, cwnd: u64, ctx: &mut Ctx) -> bool {
        if !self.in_recovery || pipe + self.eff_mss > cwnd {
            return false;
        }
        let v = self.view(ctx.now);
        let Some(i) = self.rec.next_seg_fallback(&v, &self.sb) else {
            return false;
        };
        if self.paced(ctx) {
            return false;
        }
        self.retransmit_index(i, false, ctx);
        true
    }

    /// Whether Nagle holds back a short segment while data is in flight: always (RFC 1122), or
    /// with Minshall's variant only while an earlier short segment is unacknowledged.
    fn nagle_holds(&self) -> bool {
        !self.cfg.nagle_minshall || self.snd_sml > self.snd_una
    }

    /// Send `len` bytes of new data (`probe`: a TLP loss probe, which does not re-arm the PTO).
    /// Inlined into the send loop (2,287 -> 2,260 instructions per data segment).
    #[inline(always)]
    fn send_new(&mut self, len: u64, probe: bool, ctx: &mut Ctx) {
        self.send_new_as::<false>(len, probe, ctx);
    }

    /// `send_new`; with `PLAIN` (`send_loop_as`) without the tests for the ns-2 Sack1 pipe,
    /// the per-send hooks and the plug-in's timers.
    #[inline(always)]
    fn send_new_as<const PLAIN: bool>(&mut self, len: u64, probe: bool, ctx: &mut Ctx) {
        let start = self.snd_max;
        let end = start + len;
        let tx = self.tx_stamp(ctx.now);
        self.sb.push(Seg::new(start, end, false, ctx.now, tx));
        self.snd_max = end;
        if len < self.eff_mss {
            self.snd_sml = end;
        }
        if let Some(pp) = self.sack1_pipe.as_mut().filter(|_| !PLAIN) {
            *pp += 1;
        }
        if self.rtt_timing.is_none() && !self.ts_ok {
            self.rtt_timing = Some((end, ctx.now));
        }
        self.send_segment_as::<PLAIN>(start, end, false, 1, ctx);
        // RFC 6298 5.1: start the timer if it is not running.
        if !self.timers[TimerKind::Rto as usize].is_armed() {
            self.restart_rto(ctx);
        }
        if !PLAIN && !probe && self.rec_timers {
            let v = self.view(ctx.now);
            self.rec.on_transmit(&v, &self.sb, true);
        }
    }

    fn send_fin(&mut self, ctx: &mut Ctx) {
        let start = self.snd_max;
        let tx = self.tx_stamp(ctx.now);
        self.sb.push(Seg::new(start, start + 1, true, ctx.now, tx));
        self.snd_max = start + 1;
        self.fin_sent = true;
        self.send_segment(start, start + 1, true, 1, ctx);
        match self.state {
            State::Established => self.set_state(State::FinWait1, ctx),
            State::CloseWait => self.set_state(State::LastAck, ctx),
            _ => {}
        }
        if !self.timers[TimerKind::Rto as usize].is_armed() {
            self.restart_rto(ctx);
        }
        if self.rec_timers {
            let v = self.view(ctx.now);
            self.rec.on_transmit(&v, &self.sb, true);
        }
    }

    fn process_data(&mut self, p: &Packet, ctx: &mut Ctx) {
        let end = p.seq + p.len as u64;
        let (had_gap, new) = if p.seq == self.rcv_nxt
            && !p.is(FIN)
            && end <= self.rcv_adv
            && self.ooo.is_empty()
            && self.tune.is_none()
        {
            // The next segment in order (with data, being no FIN), inside the window offered,
            // nothing waiting behind a hole and no autotuning: what `take_data` does then
            // (100 MB bulk: 1,732 -> 1,715 instructions per data segment).
            self.rcv_nxt = end;
            (false, p.len as u64)
        } else {
            match self.take_data(p, ctx) {
                Some(taken) => taken,
                None => return,
            }
        };
        if new > 0 {
            if self.tune.is_some() {
                // tcp_event_data_recv -> tcp_rcv_rtt_measure: a window's worth is a sample.
                let wnd = self.rcv_adv.saturating_sub(self.rcv_nxt);
                if let Some(t) = self.tune.as_deref_mut() {
                    t.on_data(ctx.now, self.rcv_nxt, wnd);
                }
            }
            self.deliver(new, ctx);
        }
        let mut fin_now = false;
        if self.peer_fin_seq == Some(self.rcv_nxt) && !self.peer_fin {
            self.rcv_nxt += 1;
            self.peer_fin = true;
            fin_now = true;
            match self.state {
                State::Established => self.set_state(State::CloseWait, ctx),
                State::FinWait1 => {
                    if self.snd_una == self.snd_max {
                        self.set_state(State::TimeWait, ctx)
                    } else {
                        self.set_state(State::Closing, ctx)
                    }
                }
                State::FinWait2 => self.set_state(State::TimeWait, ctx),
                _ => {}
            }
        }
        if !self.quick_acks_started {
            // tcp_event_data_recv, the first data: tcp_incr_quickack, rcv_wnd / (2 rcv_mss)
            // ACKs (at least 2), at most TCP_MAX_QUICKACKS.
            self.quick_acks_started = true;
            let by_window = (self.cfg.rcv_buf.min(65_535 << self.own_wscale)
                / (2 * self.eff_mss.max(1))) as u32;
            self.quick_acks_left = by_window.max(2).min(self.cfg.quick_acks);
        }
        // ACK policy: at once when a gap was filled, for a FIN, in quick-ACK mode or without
        // delayed ACK; otherwise every `delack_segments` segments or after `delack_max` (RFC
        // 1122, 5681).
        if self.quick_acks_left > 0 {
            // tcp_dec_quickack_mode: one fewer per ACK sent.
            self.quick_acks_left -= 1;
            self.send_ack(ctx);
        } else if had_gap || fin_now || !self.cfg.delayed_ack || !self.ooo.is_empty() {
            self.send_ack(ctx);
        } else {
            self.delay_ack(ctx);
        }
    }

    /// A segment to acknowledge with a delayed ACK: the ACK now if it is the
    /// `delack_segments`th, else the delayed-ACK timer, if it is not running.
    #[inline(always)]
    fn delay_ack(&mut self, ctx: &mut Ctx) {
        self.delack_count += 1;
        if self.delack_count >= self.cfg.delack_segments {
            self.send_ack_inline(ctx);
        } else {
            let at = ctx.now + self.cfg.delack_max;
            if !self.timers[TimerKind::DelAck as usize].is_armed() {
                self.arm(TimerKind::DelAck, at, ctx);
            }
        }
    }

    /// The sequence space of data segment `p` (or a FIN) that the receiver takes: RCV.NXT
    /// advanced over it and over what waited behind a hole it filled. Returns whether there
    /// was a hole and the payload bytes now in order, or None when the segment was answered
    /// at once (a duplicate, beyond the window, out of order).
    #[inline(always)]
    fn take_data(&mut self, p: &Packet, ctx: &mut Ctx) -> Option<(bool, u64)> {
        let mut start = p.seq;
        let mut end = p.seq + p.len as u64;
        let fin_seq = if p.is(FIN) { Some(end) } else { None };
        if let Some(f) = fin_seq {
            self.peer_fin_seq = Some(f);
        }
        // Entirely old: a duplicate. ACK at once (RFC 9293 3.10.7.4, RFC 5681 4.2).
        if end <= self.rcv_nxt && fin_seq.is_none_or(|f| f < self.rcv_nxt) {
            self.stats.duplicate_segments += 1;
            self.send_ack(ctx);
            return None;
        }
        // Beyond the window offered: trim (a zero-window probe lands here).
        let right = self.rcv_adv.max(self.rcv_nxt);
        if start >= right && p.len > 0 {
            self.send_ack(ctx);
            return None;
        }
        end = end.min(right);
        if let Some(t) = self.tune.as_deref_mut() {
            // tcp_rcv_rtt_measure_ts: an RTT sample from the echoed timestamp.
            let ecr = (self.ts_ok && p.has_ts && p.ts_ecr > 0).then(|| p.ts_ecr - 1);
            t.on_timestamp(ctx.now.0 / 1_000, ecr, p.len as u64, self.eff_mss);
        }
        if start < self.rcv_nxt {
            start = self.rcv_nxt;
        }
        if start > self.rcv_nxt {
            // Out of order: keep it, ACK at once with SACK blocks.
            self.stats.out_of_order_segments += 1;
            if end > start {
                self.insert_ooo(start, end);
                self.last_ooo = Some((start, end));
            }
            self.send_ack(ctx);
            return None;
        }
        let had_gap = !self.ooo.is_empty();
        let mut new = end.saturating_sub(self.rcv_nxt);
        self.rcv_nxt = self.rcv_nxt.max(end);
        // Pull in what was waiting behind the hole.
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            if e > self.rcv_nxt {
                new += e - self.rcv_nxt;
                self.rcv_nxt = e;
            }
            self.ooo.remove(0);
        }
        Some((had_gap, new))
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        let i = self.ooo.partition_point(|r| r.0 < start);
        self.ooo.insert(i, (start, end));
        // Merge overlapping or adjacent neighbours.
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.ooo.len());
        for &(s, e) in &self.ooo {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        self.ooo = merged;
    }

    /// In line, with the reading application's and autotuning's share out of line: a bulk
    /// receiver has neither.
    #[inline(always)]
    fn deliver(&mut self, bytes: u64, ctx: &mut Ctx) {
        self.delivered += bytes;
        self.stats.bytes_delivered += bytes;
        self.last_delivery = ctx.now;
        if self.cfg.rcv_read_rate.is_some() || self.tune.is_some() {
            self.deliver_to_app(bytes, ctx);
        }
    }

    #[inline(never)]
    fn deliver_to_app(&mut self, bytes: u64, ctx: &mut Ctx) {
        if self.cfg.rcv_read_rate.is_some() {
            self.unread = self.unread_now(ctx.now) + bytes as f64;
            self.unread_at = ctx.now;
            self.arm_read_timer(ctx);
        }
        if self.tune.is_some() {
            // tcp_recvmsg -> tcp_rcv_space_adjust, as the application takes the data.
            let consumed = self.consumed(ctx.now);
            if let Some(t) = self.tune.as_deref_mut() {
                t.on_consumed(ctx.now, consumed);
            }
        }
    }
}
