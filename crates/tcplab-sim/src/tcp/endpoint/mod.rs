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
//! - `options.rs`: timestamps, SACK blocks, window scale and what the SYNs agreed;
//! - `close.rs`: the end other than by the FINs: CLOSE before the handshake completed, ABORT,
//!   the peer's RST, and a segment that finds the connection closed.
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
mod close;
mod handshake;
mod info;
mod loss;
mod options;
mod recv;
mod reorder;
mod send;
mod timers;

use std::sync::Arc;

use super::config::TcpConfig;
use super::ns2::Ns2Active;
use super::{autotune, cc, recovery, rto, scoreboard};

use crate::engine::event::{Timer, TimerKind, N_TIMERS};
use crate::engine::queue::EventQueue;
use crate::engine::time::{Dur, SimTime};
use crate::net::packet::Packet;
use crate::output::trace::{EventLog, PacketLog};

use cc::{CaRule, CcState, CongestionControl, SenderRules};
use recovery::prr::Prr;
use recovery::{LossRecovery, SenderView};
use rto::RtoEstimator;
use scoreboard::Scoreboard;

use options::wscale_for;

/// A connection's state (RFC 9293 section 3.3.2).
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

/// An endpoint's counters, reported per connection.
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

/// Whether shortcuts may be taken: not inside `general_paths_only` (the simulator asks too,
/// for its own).
pub(crate) fn shortcuts_allowed() -> bool {
    !GENERAL_ONLY.with(|g| g.get())
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
    /// Log an event where the run keeps an event log; `detail` writes its text (`write!`)
    /// straight into the log, and runs only then.
    fn log(
        &mut self,
        conn: u32,
        end: u8,
        kind: &str,
        seq: u64,
        detail: impl FnOnce(&mut crate::output::trace::Detail) -> std::fmt::Result,
    ) {
        if let Some(ev) = self.events.as_deref_mut() {
            ev.push_with(self.now, conn, end, kind, seq, detail);
        }
    }
}

/// One side of a TCP connection. Its fields are private to `endpoint/` except those the
/// simulator reads (`pub(crate)`).
pub struct Endpoint {
    conn: u32,
    end: u8,
    pub(crate) node: u16,
    peer_node: u16,
    /// Shared by every endpoint with the same settings.
    pub(crate) cfg: Arc<TcpConfig>,
    pub(crate) state: State,
    pub(crate) stats: EndpointStats,
    pub(crate) aborted: bool,

    /// The ns-2 rules in force for this pair of plug-ins (`ns2.rs`).
    ns2: Ns2Active,
    /// What ns-2's agents keep beyond the RFCs' state.
    ns2_state: Ns2State,
    // --- send side
    snd_una: u64,
    /// Next new sequence number (one past the highest sent).
    snd_max: u64,
    /// Peer's advertised window in bytes (scaled).
    pub(crate) snd_wnd: u64,
    max_snd_wnd: u64,
    snd_wl1: u64,
    snd_wl2: u64,
    /// Payload bytes per segment after negotiation and options.
    pub(crate) eff_mss: u64,
    peer_wscale: u8,
    own_wscale: u8,
    /// Both SYNs carried the window scale option (RFC 7323 section 2.2).
    wscale_ok: bool,
    sack_ok: bool,
    ts_ok: bool,
    /// Total bytes the application will write (None: unlimited).
    app_total: Option<u64>,
    app_written: u64,
    app_closed: bool,
    fin_sent: bool,
    /// TCP_CORK (the step API's socket option): no segment shorter than the MSS leaves.
    cork: bool,
    /// The zero-window probe timer's back-off (`probe0`; Linux's `icsk_backoff` while the
    /// persist timer runs).
    probe0_backoff: u32,
    sb: Scoreboard,
    pub(crate) ccs: CcState,
    cc: Box<dyn CongestionControl>,
    rec: Box<dyn LossRecovery>,
    /// The loss-recovery plug-in detects losses by time (`LossRecovery::time_based`).
    rec_timers: bool,
    /// What the congestion control asks of this sender (`cc::SenderRules`): which of its hooks
    /// are called, its window rule in recovery, the rules of an ns-2 agent it stands in for.
    /// Read once, here: it follows from the controller's `Config`, fixed for the connection.
    cc_rules: SenderRules,
    /// The congestion control already heard this duplicate ACK (`dupack_first`).
    cc_heard: bool,
    /// None of ns-2's window rules, pacing, the congestion control's per-send hook or the
    /// plug-in's timers: outside recovery the send loop takes its copy without their tests
    /// (`send_loop_as`).
    plain_sends: bool,
    /// Neither plug-in timers nor a congestion control that hears every ACK: an ACK field
    /// that acknowledges nothing with nothing in flight needs no bookkeeping (`process_ack`).
    /// One flag for the two, tested on every segment a receiver gets.
    quiet_acks: bool,
    /// A receiver whose next data segment in order needs none of the general path's options:
    /// `quiet_acks`, no autotuning, an application that reads at once, and for its idle send
    /// pass no cwnd validation and no ns-2 Sack1 pipe (`plain_data`; its ACK delayed or not).
    plain_rx: bool,
    /// A sender whose ACKs of new data need none of the plug-ins' per-ACK work: Reno's window
    /// growth in line, no delivery-rate sample, no per-ACK hook, no plug-in timers, no cwnd
    /// validation, growth by the bytes acknowledged (not `grow_by_delivered`) and no ns-2 Sack1
    /// (`plain_ack`); and whose send passes take the plain loop
    /// outside recovery (`plain_sends`).
    plain_acks: bool,
    pub(crate) rto: RtoEstimator,
    timers: [Timer; N_TIMERS],
    dupacks: u32,
    /// A loss-recovery phase is under way: begun by the loss-recovery plug-in's fast
    /// retransmit, ended as its `phase_end` says.
    in_recovery: bool,
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
    /// The duplicate-ACK threshold in force: `dupthresh`, grown by the reordering measured
    /// when `max_reordering` allows (Linux's `tp->reordering`, `tcpi_reordering`; `loss.rs`).
    reordering: u32,
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
    /// Delivery-rate estimation.
    rs: RateState,
    /// Pacing: the earliest time the next segment may leave, but for the rest of the current
    /// slot's send quantum: when the slot opened and how many more segments it lets go then.
    next_send_at: SimTime,
    pace_slot: (SimTime, u32),
    /// When data was last sent (Linux's `lsndtime`): the connection's start, then every data
    /// segment. `slow_start_after_idle` measures idleness from it.
    last_data_tx: SimTime,
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
    /// End of the last segment shorter than the MSS that was sent (Linux's `snd_sml`).
    snd_sml: u64,
    /// Cwnd validation's state.
    cwnd_use: CwndUse,

    // --- receive side
    pub(crate) rcv_nxt: u64,
    /// Receive-buffer autotuning state (`None`: a fixed buffer of `rcv_buf`).
    tune: Option<Box<autotune::RcvTune>>,
    rcv_adv: u64,
    ooo: Vec<(u64, u64)>,
    last_ooo: Option<(u64, u64)>,
    peer_fin_seq: Option<u64>,
    pub(crate) peer_fin: bool,
    unread: f64,
    unread_at: SimTime,
    last_adv_wnd: u64,
    /// What a fixed buffer's ACKs advertise, kept so as not to compute it again.
    adv: AdvMemo,
    delack_count: u32,
    /// ACKs left to send at once in quick-ACK mode (`TcpConfig::quick_acks`), and whether the
    /// mode was entered (on the connection's first data; from the start without quick ACKs).
    quick_acks_left: u32,
    quick_acks_started: bool,
    ts_recent: u64,
    last_ack_sent: u64,
    /// In-order payload bytes delivered to the application.
    pub(crate) delivered: u64,
    /// Time the last in-order payload byte arrived.
    pub(crate) last_delivery: SimTime,
}

/// What ns-2's agents keep beyond the RFCs' state (with `Ns2Active`, the rules in force).
#[derive(Default)]
struct Ns2State {
    /// ns-2 Sack1's `pipe_` in packets, during a Sack1 fast recovery.
    sack1_pipe: Option<i64>,
    /// Partial ACKs seen in the current recovery (ns-2 NewReno restarts the timer on the
    /// first only).
    partial_acks: u32,
    /// ns-2 Sack1's `timeout_`: duplicate ACKs are ignored from a timeout to the next new ACK.
    sack1_timeout: bool,
    /// Packets ns-2's `send_one` may still send beyond the window for the last duplicate ACK.
    send_one_budget: u32,
}

/// Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation section 3):
/// C.delivered, C.delivered_time, C.first_sent_time and C.app_limited. The last three (and
/// the segments' `TxStamp`) are kept only for rate samples (`SenderRules::rate_samples`);
/// C.delivered also for the congestion control's events, not on the `plain_ack` path, which
/// has none.
#[derive(Default)]
struct RateState {
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    app_limited: u64,
}

/// Cwnd validation (`TcpConfig::cwnd_validation`), Linux's `tcp_cwnd_validate` state: the
/// sender was cwnd-limited in the current window, the largest flight of the current window
/// (bytes), and the SND.NXT that ends the window.
#[derive(Default)]
struct CwndUse {
    is_cwnd_limited: bool,
    max_flight: u64,
    cwnd_usage_seq: u64,
}

/// What the ACKs of a receiver with a fixed buffer advertise, kept so that `base_packet` need
/// not compute the window again.
struct AdvMemo {
    /// `(RCV.NXT, window field)` of the last ACK sent by a receiver whose window depends on
    /// RCV.NXT alone (no read rate, no autotuning): an ACK with the same RCV.NXT advertises
    /// the same field, which `advertise_window` would only compute again (a sender's data
    /// segments, which all carry the same RCV.NXT). `u64::MAX`: none.
    memo: (u64, u32),
    /// With a fixed receive buffer (no read rate, no autotuning), settled at the handshake:
    /// the buffer, the buffer less the silly-window step, and the window field of a full
    /// buffer. Once RCV.NXT is within the second of the right edge offered, `advertise_window`
    /// slides the edge to RCV.NXT + buffer and offers the whole buffer: an ACK then sets both
    /// from these without computing the window (100 MB bulk: 1,690 -> 1,672 instructions per
    /// data segment).
    full: Option<(u64, u64, u32)>,
}

impl Endpoint {
    /// Start loading what taking a segment reads most (the sequence state and flags, the
    /// counters, the congestion window, the timers, the RTT estimate, the scoreboard's
    /// header): a hint for the simulator, which knows a segment is coming. One line per field
    /// named: which lines those are is the compiler's layout of `Endpoint` (with today's, 11
    /// of its 25 lines, the fields the per-segment paths read lying in about 14).
    #[inline(always)]
    pub fn prefetch_hot(&self) {
        use crate::engine::prefetch;
        prefetch(&self.sb);
        prefetch(&self.rto);
        prefetch(&self.timers);
        prefetch(&self.ccs);
        prefetch(&self.stats);
        prefetch(&self.snd_una);
        prefetch(&self.app_written);
        prefetch(&self.rcv_nxt);
        prefetch(&self.rcv_adv);
        prefetch(&self.dupacks);
        prefetch(&self.state);
    }

    /// An endpoint of connection `conn` (`end` 0: the client, 1: the server) on `node`, talking
    /// to `peer_node`, with the settings `cfg` and its two plug-ins; the shortcuts are settled
    /// here.
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
        let mut cc_rules = cc.sender_rules();
        // Only a controller that hears every ACK can hear a duplicate one first.
        cc_rules.dupack_first &= cc_rules.hears_every_ack;
        // A controller may ask for ns-2's exit rule whatever the profile (the ns-2 Westwood
        // module's `exit_window = "keep"`).
        ns2.exit_keeps_cwnd |= cc_rules.exit_keeps_cwnd;
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
        let shortcuts = shortcuts_allowed();
        let mut sb = Scoreboard::default();
        sb.track_newest(
            cc_rules.rate_samples
                || cc_rules.hears_every_ack
                || cc_rules.reads_sample_rtt
                || rec.time_based()
                || cfg.max_reordering > 0,
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
            wscale_ok: false,
            sack_ok: false,
            ts_ok: false,
            app_total: Some(0),
            app_written: 0,
            app_closed: false,
            fin_sent: false,
            cork: false,
            probe0_backoff: 0,
            sb,
            ccs,
            cc_rules,
            cc_heard: false,
            plain_sends: shortcuts
                && !ns2.window_rules
                && !cc_rules.hears_sends
                && !cc_rules.paces
                && !rec.time_based(),
            quiet_acks: shortcuts && !rec.time_based() && !cc_rules.hears_every_ack,
            plain_rx: shortcuts
                && !rec.time_based()
                && !cc_rules.hears_every_ack
                && tune.is_none()
                && cfg.rcv_read_rate.is_none()
                && !cfg.cwnd_validation
                && !ns2.sack1,
            plain_acks: shortcuts
                && !rec.time_based()
                && !cc_rules.hears_every_ack
                && !cc_rules.rate_samples
                && cc_rules.grows_as_reno
                && !cfg.cwnd_validation
                && !cfg.grow_by_delivered
                && !ns2.sack1
                && !cc_rules.hears_sends
                && !cc_rules.paces,
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
            reordering: cfg.dupthresh,
            fr_guard: None,
            prr: None,
            prr_dup: 0,
            rs: RateState::default(),
            next_send_at: SimTime::ZERO,
            pace_slot: (SimTime::ZERO, 0),
            last_data_tx: SimTime::ZERO,
            ack_rtt: None,
            limited_transmit_room: 0,
            ns2,
            ns2_state: Ns2State::default(),
            rtt_timing: None,
            retries: 0,
            syn_retransmitted: false,
            end_reason: None,
            syn_sent_at: SimTime::ZERO,
            snd_sml: 0,
            cwnd_use: CwndUse::default(),
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
            adv: AdvMemo {
                memo: (u64::MAX, 0),
                full: None,
            },
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

    /// Move to state `s` and log it; in ESTABLISHED autotuning's first measurement starts.
    fn set_state(&mut self, s: State, ctx: &mut Ctx) {
        if s != self.state {
            let from = self.state;
            ctx.log(self.conn, self.end, "state", self.snd_una, |w| {
                write!(w, "{} -> {}", from.name(), s.name())
            });
            self.state = s;
            if s == State::Established {
                // tcp_finish_connect and tcp_create_openreq_child stamp lsndtime.
                self.last_data_tx = ctx.now;
                // tcp_init_buffer_space: the first autotuning measurement starts.
                let (consumed, mss) = (self.consumed(ctx.now), self.eff_mss);
                if let Some(t) = self.tune.as_deref_mut() {
                    t.start(ctx.now, consumed, mss);
                }
            }
        }
    }

    /// Whether this state sends data: ESTABLISHED, CLOSE-WAIT, and until our FIN is acknowledged.
    pub(super) fn can_send_data(&self) -> bool {
        matches!(
            self.state,
            State::Established
                | State::CloseWait
                | State::FinWait1
                | State::Closing
                | State::LastAck
        )
    }

    /// What the loss-recovery plug-in sees of the sender.
    fn view(&self, now: SimTime) -> SenderView {
        SenderView {
            now,
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            mss: self.eff_mss,
            dupacks: self.dupacks,
            dupthresh: self.reordering,
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
}
