//! Congestion control plug-ins.
//!
//! A congestion controller owns only the window policy: cwnd and ssthresh. It never sees the
//! socket. Loss *detection*, what to retransmit, and when a recovery phase begins and ends
//! belong to the sender and its loss-recovery plug-in (`recovery/mod.rs`, `PhaseEnd`); the
//! controller only hears about ACKs and congestion events. This is the decomposition of seed
//! 001 (congestion control x error detection, any pair).
//!
//! # Who owns what
//!
//! The loss-recovery plug-in (seed 001's "error detection", ED) owns the **phase**: it decides
//! that a loss happened (duplicate ACKs, SACK, RACK), what is retransmitted and when (NewRenoED:
//! the next hole at once on every partial ACK), and when the phase ends: DupAckED at the first
//! ACK of new data, NewRenoED, SackED and RACK-TLP when the cumulative ACK covers the recovery
//! point (the highest sequence number sent when the phase began). While a phase lasts no new
//! fast retransmit starts and the window is not cut again.
//!
//! The congestion control (CC) owns the **window**: ssthresh and cwnd at entry
//! (`on_enter_recovery`), the window during the phase (`SenderRules::recovery`), at its end
//! (`on_exit_recovery`) and after a timeout (`on_rto`). During a phase the window does not grow
//! (RFC 5681 section 3.2, RFC 6675 section 5, Linux's Recovery state), except Tahoe's. Window
//! inflation is not cwnd arithmetic here: the loss-recovery plug-in reports the bytes it counts
//! in flight (`pipe`) and the sender sends while `pipe < cwnd`; without SACK, pipe = flight -
//! one MSS per duplicate ACK, which is RFC 5681's "cwnd = ssthresh + 3 MSS, + 1 MSS per further
//! duplicate ACK" written the other way round. With SACK, pipe is RFC 6675's and nothing is
//! inflated. RFC 6937 PRR (`prr = true`) replaces inflation and deflation in any pair.
//!
//! The three window rules of seed 001 (`RecoveryStyle`):
//!
//! - **TahoeCC** (`None`): "Slow Start ... is executed at the beginning of the connection and
//!   after every packet loss": ssthresh halves, cwnd = 1 MSS, and slow start goes on through the
//!   phase; no inflation. ns-2's Tahoe also resends from the first unacknowledged segment
//!   (go-back-N, `tahoe.rs`).
//! - **RenoCC** (`Reno`): "the congestion window is halved and new packets can be transmitted
//!   when duplicate acknowledgments arrive. When the acknowledgment for the retransmission is
//!   received, the connection goes straight into Congestion Avoidance": inflation until the
//!   first new ACK, then cwnd = ssthresh counted against the whole flight, so "RenoCC ... does
//!   not allow new data to be transmitted during NewRenoED's long loss recovery phase".
//! - **NewRenoCC** (`NewReno`): "a Fast Recovery phase ... only ended when the acknowledgment
//!   for the last packet transmitted before the loss was detected has been received ... without
//!   cutting its congestion window several times": the inflated window lasts the whole phase,
//!   each partial ACK deflates it by the data acknowledged and adds back one MSS (RFC 6582
//!   step 5), so "NewRenoCC can send new data packets during NewRenoED's transient phase"; at
//!   the end cwnd = min(ssthresh, FlightSize + MSS) (RFC 6582 step 3 option 1; `full_ack`).
//!
//! The pairs (DupAckED: "a threshold number of duplicate acknowledgment is taken as a packet
//! loss indication"; NewRenoED: "takes partial acknowledgments as loss indications and
//! retransmits the indicated packet immediately"; SackED: the receiver's selective
//! acknowledgments, RFC 6675):
//!
//! | CC \ ED   | DupAckED (`dupack`)                          | NewRenoED (`newreno`)                                   | SackED (`sack`)                                  |
//! |-----------|----------------------------------------------|---------------------------------------------------------|--------------------------------------------------|
//! | TahoeCC   | TCP Tahoe: 1 MSS, go-back-N; phase ends at the first new ACK | each partial ACK resends its hole at once; slow start from 1 MSS through the phase | holes resent from the scoreboard; slow start from 1 MSS, SACKed data skipped |
//! | RenoCC    | TCP Reno: inflation until the first new ACK ends phase and fast recovery; a second hole needs 3 more duplicate ACKs or the RTO | inflation until the first partial ACK, then cwnd = ssthresh against the whole flight: no new data until the recovery point is covered | RFC 6675 pipe against cwnd = ssthresh: new data as SACKs show the network drained |
//! | NewRenoCC | the phase ends at the first new ACK (cwnd = min(ssthresh, flight + MSS)); further holes as with RenoCC | TCP NewReno (RFC 6582): one hole per round trip, new data throughout | ns-2's Sack1: RFC 6675 recovery until the recovery point |
//!
//! The other congestion controls take one of the three rules (`SenderRules::recovery`: westwood,
//! vegas, veno and aimd-delay Reno's, cubic, bbr and westwood+ NewReno's) and pair the same way.
//!
//! # Compared with ns-3 and Linux
//!
//! ns-3 splits `TcpCongestionOps` (GetSsThresh, IncreaseWindow, PktsAcked, CongestionStateSet)
//! from `TcpRecoveryOps` (EnterRecovery, DoRecovery, ExitRecovery): its recovery ops own the
//! window *during* recovery (classic inflation, or PRR) while `TcpSocketBase` owns the phase
//! (Open/Disorder/Recovery/Loss, exit at the recovery point). Linux's `tcp_congestion_ops`
//! (ssthresh, cong_avoid, undo_cwnd, cong_control) likewise never sees the phase: the recovery
//! state machine of tcp_input.c (`tcp_fastretrans_alert`, `high_seq`) owns entry, exit and
//! retransmission, and PRR (`tcp_cwnd_reduction`) sets the window inside it. We keep from them:
//! the congestion control returns ssthresh rather than cutting it by hand (ns-3's
//! GetSsThresh), no growth inside a phase (Linux's `tcp_in_cwnd_reduction`), PRR as a rule
//! applied inside any phase rather than a third plug-in (Linux), and the phase's end at the
//! recovery point (both). We differ where seed 001 needs it: the phase belongs to a pluggable
//! error detection (not a fixed state machine), and the window rule inside it to the congestion
//! control (not to the recovery ops), because the seed's RenoCC and NewRenoCC differ exactly
//! there.
//!
//! Hooks: `on_ack` (ACKs of new data outside a phase, and Tahoe's inside one: window growth),
//! `on_delivery` (every ACK, with the bytes delivered, lost and in flight, a per-ACK RTT sample
//! and, for algorithms that ask, a delivery-rate sample: model- and delay-based algorithms),
//! `on_enter_recovery` / `on_exit_recovery` / `on_rto` / `on_rto_recovered` (congestion events),
//! and `pacing_rate` (the sender paces when it returns a rate). What the controller asks of the
//! sender (which hooks it hears, its window rule in recovery, the rules of an ns-2 agent it
//! stands in for) is one value, `sender_rules`, read once when the endpoint is built. One file
//! per algorithm (a folder where it has a second part: `cubic/` with Linux's packet
//! arithmetic, `westwood/` with the ns-2 module's agent), each with a `Config` whose defaults
//! cite their source and whose `Tunable` walk declares the parameters a scenario may set
//! (`[tcp] cc_params`, see `params.rs`):
//!
//! tahoe, reno, newreno, westwood, westwood+, vegas, veno, cubic, bbr, aimd-delay.

pub mod aimd_delay;
pub mod bbr;
pub mod cubic;
pub mod newreno;
pub mod reno;
pub mod tahoe;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod westwood_plus;

use serde_json::{Map, Value};

use super::params::{Family, NoParams, ParamInfo, Params, Tunable, Walk};
use crate::engine::time::{Dur, SimTime};
use crate::error::SimResult;

/// How congestion avoidance grows cwnd (the two rules of Sarkar 2022 section 5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaRule {
    /// cwnd += MSS * MSS / cwnd for every ACK of new data (RFC 5681 eq. 3).
    PerAck,
    /// Appropriate byte counting (RFC 3465): cwnd += MSS once a full cwnd of bytes is acked.
    ByteCounting,
    /// ns-2's `opencwnd` on a `cwnd_` of packets held as a double (`Ns2Rules::cwnd_double`):
    /// slow start adds one packet per ACK and carries nothing into congestion avoidance, which
    /// adds 1/cwnd packets per ACK and keeps the fraction (in millionths of a byte, in
    /// `ca_bytes`).
    Ns2Double,
}

/// The small state block shared by the sender and its congestion control.
#[derive(Clone, Debug)]
pub struct CcState {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    pub ca_rule: CaRule,
    /// Slow-start increase limit per ACK, in MSS (RFC 3465's L; RFC 5681 uses 1).
    pub abc_limit: u64,
    /// Bytes acked since the last congestion-avoidance increase (byte counting).
    pub ca_bytes: u64,
}

/// What the sender tells the controller about an ACK. `on_ack` gets it for ACKs of new data
/// outside recovery; `on_delivery` for every ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckEvent {
    pub now: SimTime,
    /// Payload bytes newly acknowledged cumulatively (0 for a duplicate ACK). In `on_ack`
    /// under `TcpConfig::grow_by_delivered`: the payload bytes the ACK newly delivered (Linux's
    /// `acked_sacked`), which the window grows by.
    pub bytes_acked: u64,
    /// Bytes in flight (SND.NXT - SND.UNA) before this ACK.
    pub prior_flight: u64,
    /// The RTO estimator's sample from this ACK (timestamps, or the one timed segment; Karn).
    pub rtt: Option<Dur>,
    pub srtt: Option<Dur>,
    pub min_rtt: Option<Dur>,
    /// The cumulative ACK (SND.UNA after this ACK).
    pub ack: u64,
    /// One past the highest sequence number sent (SND.NXT).
    pub snd_max: u64,
    /// Bytes this ACK newly delivered, cumulatively or by SACK (RFC 6937's DeliveredData).
    pub delivered: u64,
    /// Bytes delivered over the connection's life, after this ACK (C.delivered).
    pub total_delivered: u64,
    /// Bytes newly marked lost while this ACK was processed.
    pub lost: u64,
    /// Bytes in flight after this ACK, as the loss-recovery plug-in counts them.
    pub pipe: u64,
    /// A duplicate ACK (RFC 5681 definition).
    pub dupack: bool,
    pub in_recovery: bool,
    /// RTT of the most recently sent segment this ACK delivered, if it was never retransmitted:
    /// one sample per ACK, as Linux's `pkts_acked` gives delay-based algorithms. Kept only for
    /// controls that hear every ACK (`SenderRules::hears_every_ack`), use rate samples or read
    /// it in `on_ack` (`SenderRules::reads_sample_rtt`); None in the `on_ack` of the others.
    pub sample_rtt: Option<Dur>,
    /// Delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation), if this ACK delivered
    /// data.
    pub rate: Option<RateSample>,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation section 3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Bytes delivered over the sampling interval.
    pub delivered: u64,
    /// max(send_elapsed, ack_elapsed).
    pub interval: Dur,
    /// delivered / interval in bytes per second (0 if the interval is shorter than the minimum
    /// RTT, which the draft discards).
    pub delivery_rate: f64,
    /// C.delivered when the sampled segment was sent (P.delivered).
    pub prior_delivered: u64,
    /// The sampled segment was sent while the application limited the sender.
    pub is_app_limited: bool,
}

impl AckEvent {
    /// Segments acknowledged, as a fraction of the MSS (for algorithms written in segments).
    pub fn acked_segments(&self, mss: u64) -> f64 {
        self.bytes_acked as f64 / mss.max(1) as f64
    }
}

/// A controller's window inside a loss-recovery phase (the phase itself is the loss-recovery
/// plug-in's; see the module docs for every pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryStyle {
    /// No fast recovery (TahoeCC): cwnd = 1 MSS at the fast retransmit and slow start through
    /// the phase.
    None,
    /// Fast recovery until the first ACK of new data (RenoCC, RFC 5681 section 3.2): the window
    /// is inflated by duplicate ACKs until then, and is ssthresh, against the whole flight, for
    /// the rest of the phase.
    Reno,
    /// Fast recovery for the whole phase (NewRenoCC, RFC 6582): inflation, partial-ACK deflation
    /// with one MSS added back, and the full-ACK window at the end.
    NewReno,
}

/// What a congestion control asks of the sender that holds it: which of the controller's hooks
/// the sender calls, the controller's window rule inside a loss-recovery phase, and the rules of
/// the ns-2 agent the controller may stand in for (the ns-2 TCP Westwood module's,
/// `westwood/ns2_agent.rs`).
///
/// `CongestionControl::sender_rules` returns it and the endpoint reads it once, when it is built
/// (`Endpoint::new`): every field follows from the controller's `Config`, which does not change
/// during a connection, so the per-ACK and per-segment paths test a flag the endpoint copied
/// instead of asking through the vtable. Linux learns the same of a controller once, when it is
/// attached: from the optional hooks of its `struct tcp_congestion_ops` left NULL
/// (`cong_control`, `pkts_acked`) and from its `flags`; quinn's connection likewise reads what
/// it needs of its controller as one value (`Controller::metrics`).
///
/// An algorithm names only what it changes: `SenderRules { paces: true, ..SenderRules::DEFAULT }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SenderRules {
    // The hooks the sender calls: one it is told it need not call costs nothing per ACK or per
    // segment.
    /// `on_ack` is exactly `reno_increase(st, ev.bytes_acked)` (RFC 5681 eqs. 2-3, RFC 3465's
    /// byte counting; Linux's `tcp_reno_cong_avoid`): the sender grows the window in line,
    /// without building the event and calling through the vtable on every ACK of new data.
    pub grows_as_reno: bool,
    /// `on_delivery` does something: the sender builds its event on every ACK (new, duplicate,
    /// in or out of recovery). No: the hook is the trait's empty one, and the sender does not
    /// build the event (as Linux skips a NULL `pkts_acked`).
    pub hears_every_ack: bool,
    /// `on_ack` reads `AckEvent::sample_rtt` (CUBIC's HyStart: Linux's `hystart_update`, fed
    /// each ACK's RTT sample by `bictcp_acked`): the sender keeps the newest segment each ACK
    /// delivers even if nothing else needs it.
    pub reads_sample_rtt: bool,
    /// The algorithm reads `AckEvent::rate` (draft-cheng-iccrg-delivery-rate-estimation; Linux's
    /// `tcp_rate_gen` for a `cong_control` such as BBR's): the sender computes delivery-rate
    /// samples only then.
    pub rate_samples: bool,
    /// `on_sent` does something: the sender calls it for every segment sent, else never.
    pub hears_sends: bool,
    /// `pacing_rate` can ever be Some (BBR, draft-cardwell-iccrg-bbr-congestion-control-00;
    /// Linux's `sk_pacing_rate`): the sender asks it per segment only then.
    pub paces: bool,

    // The window inside a loss-recovery phase (the module docs give every pair).
    /// Seed 001's window rule (`RecoveryStyle`: TahoeCC; RenoCC, RFC 5681 section 3.2;
    /// NewRenoCC, RFC 6582 section 3.2). The trait's `on_enter_recovery` reads it too.
    pub recovery: RecoveryStyle,
    /// After a fast retransmit without fast recovery (`RecoveryStyle::None`), resend everything
    /// from the first unacknowledged segment (go-back-N), as after a timeout (ns-2's Tahoe,
    /// `Agent/TCP`'s `dupack_action`; `tahoe.rs`).
    pub go_back_n: bool,
    /// The sender may apply RFC 6937 PRR (`[tcp] prr`) during this controller's fast recovery.
    /// No: the controller sets cwnd itself in recovery (BBR; Linux's `tcp_cong_control` hands
    /// the window to a `cong_control` hook and skips PRR's `tcp_cwnd_reduction`).
    pub prr: bool,
    /// Duplicate ACKs inflate the window during fast recovery (RFC 5681 section 3.2 steps 3-4;
    /// RFC 6582's partial-ACK credit too). No: cwnd alone counts against the flight (the ns-2
    /// TCP Westwood module, whose `recv` only counts duplicate ACKs).
    pub inflates: bool,
    /// The window at a fast retransmit is inflated by the dupthresh duplicate ACKs already
    /// received (RFC 5681 step 3's ssthresh + 3 SMSS; ns-2's `dupwnd_ = numdupacks_`). No:
    /// inflation starts at 0 and grows with the later duplicate ACKs
    /// (`WestwoodNRTcpAgent::dupack_action` never sets `dupwnd_`). Only with `inflates`.
    pub inflates_at_fast_retransmit: bool,
    /// A partial ACK deflates the inflated window by the data it acknowledges (RFC 6582 section
    /// 3.2 step 5; ns-2's `partial_window_deflation_` 1). No: it clears the inflation and leaves
    /// cwnd (`partial_window_deflation_` 0, Agent/TCP/WestwoodNR's default: its OTcl parent is
    /// Agent/TCP, which does not set NewReno's 1).
    pub partial_deflation: bool,
    /// The end of fast recovery leaves cwnd where the fast retransmit put it, the ending ACK
    /// opening it as any ACK of new data (ns-2's agents: `recv` clears `dupwnd_` and calls
    /// `recv_newack_helper`), instead of `on_exit_recovery` (RFC 5681 step 6, RFC 6582 step 3).
    /// The profile's `[tcp.ns2] exit_keeps_cwnd` asks the same of tahoe, reno and newreno.
    pub exit_keeps_cwnd: bool,

    // The sender's own rules, as the ns-2 agent the controller stands in for keeps them.
    /// RFC 3042 limited transmit (`[tcp] limited_transmit`, ns-2's `send_one`) may send on the
    /// first duplicate ACKs, as the profile says. No: never (the ns-2 Westwood module, whose
    /// `WestwoodTcpAgent::recv` only counts them, `++dupacks_`, and never calls `send_one`).
    pub limited_transmit: bool,
    /// A fast retransmit waits until the cumulative ACK passed the recovery point of a timeout
    /// or an earlier fast retransmit (RFC 6582 section 4, ns-2's `recover_`; `rto_recovery`,
    /// `[tcp] recover_guard_all`). No: the ns-2 Westwood module's `recv` calls `dupack_action`
    /// on every `NUMDUPACKS`-th duplicate ACK, with no `recover_` check, also after a timeout.
    pub guards_fast_retransmit: bool,
    /// The controller runs inside an ns-2 `TcpAgent` (a subclass with its own loss reaction),
    /// so the profile's rules for ns-2's own agents hold its window too: under `[tcp.ns2]
    /// cwnd_double`, `cwnd_` is a double opened by `opencwnd` (`CaRule::Ns2Double`); under
    /// `cwnd_packets`, ssthresh is whole packets whatever its size (`ssthresh_` is an int), and
    /// a congestion event lowers cwnd to ssthresh only if above, keeping its fraction otherwise
    /// (the Westwood module's `dupack_action`).
    pub ns2_agent: bool,
    /// `on_delivery` hears a duplicate ACK before the sender decides on a fast retransmit (the
    /// ns-2 Westwood module's `recv`, and `WestwoodNRTcpAgent::recv` calling `bwe_computation`
    /// first: the third duplicate ACK's own sample is in the estimate its `dupack_action`
    /// reads). No: after (the event then also carries the loss-recovery plug-in's view of the
    /// ACK: pipe, lost bytes, rate sample). Only with `hears_every_ack`.
    pub dupack_first: bool,
    /// Under `[tcp.ns2] newreno_partial`, only the first partial ACK restarts the
    /// retransmission timer (RFC 6582 section 3.2 step 5; ns-2's `newreno_changes1_` 1,
    /// "impatient"). No: every partial ACK does (`newreno_changes1_` 0,
    /// Agent/TCP/WestwoodNR's default, as above).
    pub impatient_timer: bool,
}

impl SenderRules {
    /// The trait's default: the sender of RFC 5681, RFC 6582 and RFC 6675 as the profile sets
    /// it up, RenoCC's window in recovery, and every hook heard but the per-segment ones
    /// (`on_sent`, `pacing_rate`), which an algorithm that fills them in says it does.
    pub const DEFAULT: SenderRules = SenderRules {
        grows_as_reno: false,
        hears_every_ack: true,
        reads_sample_rtt: false,
        rate_samples: false,
        hears_sends: false,
        paces: false,
        recovery: RecoveryStyle::Reno,
        go_back_n: false,
        prr: true,
        inflates: true,
        inflates_at_fast_retransmit: true,
        partial_deflation: true,
        exit_keeps_cwnd: false,
        limited_transmit: true,
        guards_fast_retransmit: true,
        ns2_agent: false,
        dupack_first: false,
        impatient_timer: true,
    };
}

impl Default for SenderRules {
    fn default() -> Self {
        SenderRules::DEFAULT
    }
}

/// A congestion control algorithm. Required: `name` and `on_ack`; every other hook has the
/// RFC 5681 (Reno) behaviour or does nothing, and `sender_rules` says which the sender calls.
pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;

    /// What this controller asks of its sender. Asked once, when the endpoint is built: the
    /// answer follows from the controller's `Config` alone.
    fn sender_rules(&self) -> SenderRules {
        SenderRules::DEFAULT
    }

    /// ACK of new data outside a recovery phase (and inside one for `RecoveryStyle::None`):
    /// grow the window. Not called when `SenderRules::grows_as_reno` says the sender may grow
    /// it in line (`reno_increase`).
    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent);

    /// Every ACK (new, duplicate, in or out of recovery), after the sender and the loss-recovery
    /// plug-in processed it (before the fast-retransmit decision for a duplicate ACK under
    /// `SenderRules::dupack_first`): for model-based and rate-based algorithms. Called only
    /// when `SenderRules::hears_every_ack` is true.
    fn on_delivery(&mut self, _st: &mut CcState, _ev: &AckEvent) {}

    /// The slow-start threshold after a congestion event (ns-3's GetSsThresh: returns it).
    /// RFC 5681 eq. 4: max(FlightSize / 2, 2 * SMSS).
    fn ssthresh(&self, st: &CcState, flight: u64) -> u64 {
        (flight / 2).max(2 * st.mss)
    }

    /// Under the profile's `syn_loss = "timeout"` (ns-2's `TcpAgent::timeout`), set the window
    /// after this end's SYN timed out `timeouts` times, and return true; false: the profile's
    /// rule stands. `initial` is the initial window in bytes.
    fn syn_timeout_window(&mut self, _st: &mut CcState, _initial: u64, _timeouts: u64) -> bool {
        false
    }

    /// Fast retransmit happened: set ssthresh and cwnd for the recovery phase.
    fn on_enter_recovery(&mut self, st: &mut CcState, flight: u64) {
        st.ssthresh = self.ssthresh(st, flight);
        st.cwnd = match self.sender_rules().recovery {
            RecoveryStyle::None => st.mss,
            _ => st.ssthresh,
        };
        st.ca_bytes = 0;
    }

    /// The controller's fast recovery ended: at the phase's end, or for `RecoveryStyle::Reno`
    /// at the first ACK of new data even inside a longer phase. RFC 5681 step 6, cwnd =
    /// ssthresh. `flight` is FlightSize after the ACK that ended it.
    fn on_exit_recovery(&mut self, st: &mut CcState, _flight: u64) {
        st.cwnd = st.ssthresh;
        st.ca_bytes = 0;
    }

    /// Retransmission timeout: RFC 5681 eq. 4 and the loss window of one segment.
    fn on_rto(&mut self, st: &mut CcState, flight: u64, first_timeout: bool) {
        // RFC 5681 section 3.1: ssthresh is not reduced again on repeated timeouts of the same
        // segment (only the first timeout uses FlightSize).
        if first_timeout {
            st.ssthresh = self.ssthresh(st, flight);
        }
        st.cwnd = st.mss;
        st.ca_bytes = 0;
    }

    /// The cumulative ACK passed everything outstanding when the last timeout fired (the end of
    /// RTO recovery).
    fn on_rto_recovered(&mut self, _st: &mut CcState) {}

    /// An RTT measurement (for delay-based controllers).
    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, _rtt: Dur) {}

    /// The RTO estimator's sample as it counts it: in whole ticks under ns-2's rules
    /// (`t_rtt_ * tcp_tick_`), else the sample itself. Called after `on_rtt_sample`.
    fn on_counted_rtt(&mut self, _rtt: Dur) {}

    /// The algorithm's own bandwidth estimate in bytes/s and the minimum RTT it pairs with it
    /// (Westwood's BWE and RTTmin), for the trace. None: it keeps no such estimate.
    fn bandwidth_estimate(&self) -> Option<(f64, Option<Dur>)> {
        None
    }

    /// A segment was sent (for pacing or rate-based controllers). Called only when
    /// `SenderRules::hears_sends` is true: an algorithm that fills this in says so there.
    fn on_sent(&mut self, _st: &mut CcState, _now: SimTime, _bytes: u64) {}

    /// Pacing rate in bytes per second; None: no pacing (segments leave as the window allows).
    /// Asked only when `SenderRules::paces` is true: an algorithm that fills this in says so
    /// there.
    fn pacing_rate(&self, _st: &CcState) -> Option<f64> {
        None
    }

    /// With pacing, the bytes one pacing slot releases at once (BBR's send quantum,
    /// draft-cardwell-iccrg-bbr-congestion-control section 4.2.2.3; Linux's TSO packet of
    /// `tcp_tso_autosize` with `bbr_min_tso_segs`): the segments of a slot leave together and
    /// the next slot waits their size at the pacing rate. Default: one segment.
    fn send_quantum(&self, st: &CcState) -> u64 {
        st.mss
    }
}

/// RFC 5681 window growth: slow start below ssthresh (bytes left over when cwnd reaches it go to
/// congestion avoidance), congestion avoidance above. Shared by the loss-based algorithms.
/// Inlined into their `on_ack` (Reno: 2,184 -> 2,181 instructions per data segment) and into
/// the sender's `plain_ack`.
#[inline(always)]
pub fn reno_increase(st: &mut CcState, acked: u64) {
    if st.ca_rule == CaRule::Ns2Double && st.cwnd < st.ssthresh {
        st.cwnd += st.mss;
        return;
    }
    if st.cwnd < st.ssthresh {
        let left = slow_start(st, acked);
        if left > 0 && st.cwnd >= st.ssthresh {
            congestion_avoidance(st, left);
        }
    } else {
        congestion_avoidance_inline(st, acked);
    }
}

/// Slow start (RFC 5681 eq. 2, with RFC 3465's limit L): cwnd += min(N, L * SMSS).
/// Returns the bytes not used because cwnd reached ssthresh.
pub fn slow_start(st: &mut CcState, acked: u64) -> u64 {
    let inc = acked.min(st.abc_limit * st.mss);
    let room = st.ssthresh.saturating_sub(st.cwnd);
    let used = inc.min(room.max(1));
    st.cwnd += used;
    acked.saturating_sub(used)
}

/// Congestion avoidance, additive increase of one MSS per RTT by the configured rule.
pub fn congestion_avoidance(st: &mut CcState, acked: u64) {
    congestion_avoidance_inline(st, acked);
}

/// `congestion_avoidance`, in line in `reno_increase` for every ACK of a Reno sender past slow
/// start (100 MB bulk at pdrop 0.001: 1,666 -> 1,661 instructions per data segment).
#[inline(always)]
fn congestion_avoidance_inline(st: &mut CcState, acked: u64) {
    match st.ca_rule {
        CaRule::PerAck => {
            // RFC 5681 eq. 3; "if the above formula yields 0, the result SHOULD be rounded up
            // to 1 byte".
            let inc = (st.mss * st.mss / st.cwnd.max(1)).max(1);
            st.cwnd += inc;
        }
        CaRule::Ns2Double => {
            // cwnd_ += 1 / cwnd_ packets, the fraction kept.
            let micro = st.mss * st.mss * 1_000_000 / st.cwnd.max(1);
            st.cwnd += micro / 1_000_000;
            st.ca_bytes += micro % 1_000_000;
            if st.ca_bytes >= 1_000_000 {
                st.ca_bytes -= 1_000_000;
                st.cwnd += 1;
            }
        }
        CaRule::ByteCounting => {
            st.ca_bytes += acked;
            if st.ca_bytes >= st.cwnd {
                st.ca_bytes -= st.cwnd;
                st.cwnd += st.mss;
            }
        }
    }
}

const FAMILY: Family<dyn CongestionControl> = Family {
    name: "congestion control",
    table: "cc_params",
    dispatch,
};

/// The one place that maps a name to its algorithm and `Config`: the walk `w` reads the
/// parameters into the `Config` (`params.rs`). None for an unknown name.
fn dispatch(name: &str, w: &mut Walk<'_>) -> Option<SimResult<Box<dyn CongestionControl>>> {
    fn mk<C: Tunable, T: CongestionControl + 'static>(
        w: &mut Walk<'_>,
        f: impl FnOnce(C) -> T,
    ) -> SimResult<Box<dyn CongestionControl>> {
        Ok(Box::new(f(w.config::<C>()?)))
    }
    Some(match name {
        "tahoe" => mk(w, |cfg| tahoe::Tahoe { cfg }),
        "reno" => mk(w, |_: NoParams| reno::Reno),
        "newreno" => mk(w, |cfg| newreno::NewReno { cfg }),
        "westwood" => mk(w, westwood::Westwood::new),
        "westwood+" | "westwood_plus" => mk(w, westwood_plus::WestwoodPlus::new),
        "vegas" => mk(w, vegas::Vegas::new),
        "veno" => mk(w, veno::Veno::new),
        "cubic" => mk(w, cubic::Cubic::new),
        "bbr" => mk(w, bbr::Bbr::new),
        "aimd-delay" | "aimd_delay" => mk(w, aimd_delay::AimdDelay::new),
        _ => return None,
    })
}

/// A constructor for each congestion control name, with its default parameters.
pub fn by_name(name: &str) -> Option<Box<dyn CongestionControl>> {
    FAMILY.by_name(name)
}

/// The algorithm `name` with `params` (parsed by `parse_params`) over its defaults. Once per
/// connection. `path` names the parameter table in errors (`apps[0].tcp.cc_params`).
pub fn build(name: &str, params: &Params, path: &str) -> SimResult<Box<dyn CongestionControl>> {
    FAMILY.build(name, params, path)
}

/// Parse and check a scenario's `cc_params` table for the algorithm `name`, by constructing
/// it. Errors name the field (`path.param`), the value and what is allowed.
pub fn parse_params(name: &str, table: &Map<String, Value>, path: &str) -> SimResult<Params> {
    FAMILY.parse_params(name, table, path)
}

/// Every parameter of `name` with its value under `params` (defaults filled in).
pub fn resolved_params(name: &str, params: &Params, path: &str) -> SimResult<Vec<ParamInfo>> {
    FAMILY.resolved_params(name, params, path)
}

/// Every parameter of `name` with its default (empty for an unknown name).
pub fn default_params(name: &str) -> Vec<ParamInfo> {
    FAMILY.default_params(name)
}

/// Every registered name with a one-line description.
pub fn registry() -> Vec<(&'static str, &'static str)> {
    vec![
        ("tahoe", "Tahoe (Jacobson 1988): fast retransmit, then slow start from one segment and go-back-N; no fast recovery"),
        ("reno", "Reno (RFC 5681): slow start, additive increase, halving, fast recovery"),
        ("newreno", "NewReno (RFC 6582): Reno whose fast recovery lasts until the recovery point is acknowledged"),
        ("westwood", "Westwood (Casetti et al. 2002; seed 003 eqs. 1-5): per-ACK bandwidth estimate, ssthresh = BWE x RTTmin on loss"),
        ("westwood+", "Westwood+ (Grieco & Mascolo 2004): one bandwidth sample per RTT, ssthresh = BWE x RTTmin on loss"),
        ("vegas", "Vegas (Brakmo & Peterson 1995): keeps alpha..beta segments queued by comparing expected and actual rate"),
        ("veno", "Veno (Fu & Liew 2003): Vegas backlog tells random from congestive loss: cut to 4/5 or 1/2"),
        ("cubic", "CUBIC (RFC 9438): cubic window growth in time since the last reduction, beta 0.7, Reno-friendly region"),
        ("bbr", "BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00): model of bottleneck bandwidth and RTprop, paced"),
        ("aimd-delay", "congestion-controlled AIMD (seed 004): additive increase scaled down by queuing delay (RTT - min RTT)"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The `Config` of `name` with the scenario table `table` over its defaults, through the
    /// same parse and typed walk as a scenario and a connection.
    fn config<C: Tunable>(name: &str, table: Value) -> C {
        let m = table.as_object().cloned().unwrap_or_default();
        let p = parse_params(name, &m, "tcp.cc_params").unwrap();
        Walk::typed(&p, "tcp.cc_params", name, FAMILY.name)
            .config::<C>()
            .unwrap()
    }

    #[test]
    fn westwood_tau_sets_how_fast_the_filter_follows_a_bandwidth_step() {
        // 1000 bytes every 10 ms (100 kB/s) for 20 s, then 2000 bytes every 10 ms (200 kB/s)
        // for 0.5 s: a 0.1 s filter has followed the step, a 2 s filter has not.
        let bwe_after_step = |tau: &str| {
            let cfg: westwood::Config = config("westwood", json!({ "tau": tau }));
            let mut w = westwood::Westwood::new(cfg);
            let mut t = 0;
            for _ in 0..2000 {
                t += 10_000_000;
                w.sample(SimTime(t), 1000);
            }
            let before = w.bwe();
            for _ in 0..50 {
                t += 10_000_000;
                w.sample(SimTime(t), 2000);
            }
            (before, w.bwe())
        };
        let (b_fast, fast) = bwe_after_step("100ms");
        let (b_slow, slow) = bwe_after_step("2s");
        assert!((b_fast - 100_000.0).abs() < 10.0 && (b_slow - 100_000.0).abs() < 10.0);
        assert!(fast > 190_000.0, "tau 0.1 s: {fast}");
        assert!(slow < 150_000.0, "tau 2 s: {slow}");
    }

    #[test]
    fn cubic_beta_sets_how_deep_a_loss_cuts() {
        let ssthresh_after_loss = |table: Value| {
            let mut c = cubic::Cubic::new(config("cubic", table));
            let mut st = CcState {
                cwnd: 100 * 1000,
                ssthresh: 50 * 1000,
                mss: 1000,
                ca_rule: CaRule::ByteCounting,
                abc_limit: 1,
                ca_bytes: 0,
            };
            c.on_enter_recovery(&mut st, 100 * 1000);
            (st.ssthresh, c.w_max)
        };
        assert_eq!(ssthresh_after_loss(json!({})), (70_000, 100.0));
        assert_eq!(ssthresh_after_loss(json!({ "beta": 0.5 })), (50_000, 100.0));
    }

    #[test]
    fn defaults_are_the_configs_defaults_and_every_name_builds() {
        assert_eq!(
            config::<westwood::Config>("westwood", json!({})),
            westwood::Config::default()
        );
        assert_eq!(
            config::<bbr::Config>("bbr", json!({})),
            bbr::Config::default()
        );
        for (name, _) in registry() {
            let c = build(name, &Params::new(), "tcp.cc_params").unwrap();
            assert_eq!(c.name(), by_name(name).unwrap().name());
            for p in default_params(name) {
                assert!(p.kind.allowed().len() > 5, "{name}.{}", p.name);
            }
        }
        let names = |n: &str| -> Vec<&str> { default_params(n).iter().map(|p| p.name).collect() };
        assert_eq!(
            names("westwood"),
            [
                "model",
                "tau",
                "recovery",
                "filter",
                "alpha",
                "ack_count",
                "ack_cap",
                "rtt_min",
                "timeout_divisor",
                "inflation",
                "exit_window",
                "limited_transmit",
                "fast_retransmit_guard",
                "ns2_window",
                "estimate_first",
                "syn_timeout",
                "fr_inflation",
                "partial_deflation",
                "impatient"
            ]
        );
        assert_eq!(names("reno"), Vec::<&str>::new());
        assert_eq!(names("westwood_plus"), names("westwood+"));
        assert!(build("warp", &Params::new(), "tcp.cc_params").is_err());
    }
}
