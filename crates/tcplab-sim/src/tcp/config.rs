//! `TcpConfig`, everything a stack profile sets for an endpoint, its rule enums, and its walk:
//! each `[tcp]` field declared once, with its kind, range and documentation, which parsing
//! (`scenario/tcp.rs`), `describe`, `tcplab schema` and the docs read (`scenario/walk.rs`).
//!
//! A profile (`profile.rs`) gives every field's value; a scenario's `[tcp]` section overrides
//! them. Each rule where stacks differ cites the stack or RFC it follows, on its field here and
//! on its value in each profile.

use super::cc::CaRule;
use super::ns2::Ns2Rules;
use super::params;
use super::recovery::prr::PrrRule;
use super::rto::RtoConfig;
use crate::engine::time::Dur;
use crate::scenario::walk::{Fields, Visitor};

/// An ssthresh at or above this is "not set yet" (the algorithms start from u64::MAX / 4).
pub const SSTHRESH_UNLIMITED: u64 = u64::MAX / 8;

/// `ssthresh` once a congestion event has set it; None while it is the "not set yet" sentinel,
/// which the texts below name "unlimited".
fn ssthresh_set(ssthresh: u64) -> Option<u64> {
    (ssthresh < SSTHRESH_UNLIMITED).then_some(ssthresh)
}

/// `ssthresh_text`, appended to an event's detail without the formatting machinery.
pub fn push_ssthresh<'w, 'a>(
    w: &'w mut crate::output::trace::Detail<'a>,
    ssthresh: u64,
) -> &'w mut crate::output::trace::Detail<'a> {
    match ssthresh_set(ssthresh) {
        Some(v) => w.num(v),
        None => w.text("unlimited"),
    }
}

/// ssthresh for people and files: "unlimited" rather than the sentinel.
pub fn ssthresh_text(ssthresh: u64) -> impl std::fmt::Display {
    struct Text(u64);
    impl std::fmt::Display for Text {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            // Through the formatter, so that a width or fill applies as it did to the string.
            match ssthresh_set(self.0) {
                Some(v) => std::fmt::Display::fmt(&v, f),
                None => f.pad("unlimited"),
            }
        }
    }
    Text(ssthresh)
}

/// The window a sender starts with after its SYN or SYN-ACK timed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynLoss {
    /// The initial window as if nothing was lost.
    Keep,
    /// One segment (RFC 5681 section 3.1: "MUST be one segment").
    One,
    /// One segment after more than one SYN retransmission, else the initial window (Linux's
    /// `tcp_init_transfer`: `total_retrans > 1`, in light of RFC 6298's 1 s initial RTO).
    OneAfterTwo,
    /// ns-2's timeout rule, as for any packet: cwnd restarts at one segment and ssthresh is
    /// half of min(cwnd, window), at least two segments (`TcpAgent::timeout` ->
    /// `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART)` on each expiry).
    Timeout,
}

/// Which retransmissions restart a running retransmission timer (a timeout always re-arms it,
/// and an ACK of new data restarts it, RFC 6298 5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoRestart {
    /// Every retransmission restarts it (ns-3's `TcpSocketBase`, Riverbed).
    Every,
    /// A retransmission of the first unacknowledged segment restarts it: Linux's
    /// `tcp_xmit_retransmit_queue` re-arms when it resends the head of the retransmit queue;
    /// ns-2's fast retransmit (`dupack_action` -> `reset_rtx_timer`) and NewReno's partial ACK
    /// (`partialnewack_helper` -> `newtimer`) do, its other sends only start a stopped timer.
    Head,
    /// None does (RFC 6298 5.1: a transmission starts the timer only if it is not running).
    Never,
}

/// Everything a stack profile sets. Profiles fill it; scenarios override fields.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Maximum segment size offered in the SYN (payload bytes without options).
    pub mss: u32,
    /// The receive window offered (payload bytes; a fixed buffer unless `rcv_buf_max` is larger).
    pub rcv_buf: u64,
    /// Receive-buffer autotuning ([`autotune`], Linux's `tcp_rcv_space_adjust`): the window
    /// grows from `rcv_buf` up to this. Equal to `rcv_buf`: a fixed buffer.
    ///
    /// [`autotune`]: super::autotune
    pub rcv_buf_max: u64,
    pub snd_buf: u64,
    /// Initial window in segments (RFC 5681 IW, RFC 6928 IW10).
    pub initial_cwnd: u32,
    /// Initial ssthresh in bytes (RFC 5681: "arbitrarily high").
    pub initial_ssthresh: u64,
    pub ca_rule: CaRule,
    pub abc_limit: u64,
    pub delayed_ack: bool,
    pub delack_max: Dur,
    /// ACK at least every this many segments (RFC 5681: at least every second full segment).
    pub delack_segments: u32,
    pub dupthresh: u32,
    /// The duplicate-ACK threshold adapts to the reordering the ACKs show, up to this many
    /// segments (Linux's `tcp_check_sack_reordering`, net.ipv4.tcp_max_reordering = 300): when
    /// a SACK or a cumulative ACK delivers a never-retransmitted segment below the highest
    /// SACKed sequence number, the threshold (`tcpi_reordering`) becomes that distance in whole
    /// segments if it is larger; a timeout outside recovery with `dupthresh` segments SACKed
    /// brings it back to `dupthresh` (`tcp_enter_loss`). RACK's reordering window and RFC
    /// 6675's IsLost read the adapted value. 0: fixed at `dupthresh` (RFC 5681).
    pub max_reordering: u32,
    pub limited_transmit: bool,
    /// Limited transmit comes from the pipe alone, as in Linux: `tcp_packets_in_flight` leaves
    /// out the segments a duplicate ACK reports (SACKed, or without SACK counted as SACKed by
    /// `tcp_add_reno_sack`), so each such ACK lets one new segment out within cwnd, and no
    /// room is added beyond it. Off: RFC 3042's room of one segment beyond cwnd for each of the
    /// first duplicate ACKs, counted over the pipe (which with SACK already leaves the SACKed
    /// segment out: two new segments per duplicate ACK). Only with `limited_transmit`.
    pub limited_transmit_by_pipe: bool,
    pub rto: RtoConfig,
    /// Retransmissions of one segment before the connection is aborted.
    pub max_retries: u32,
    pub nagle: bool,
    pub window_scaling: bool,
    pub timestamps: bool,
    pub sack: bool,
    pub congestion_control: String,
    pub loss_recovery: String,
    /// Parameters of the congestion control over its defaults (`[tcp] cc_params`), parsed
    /// and checked against `congestion_control` (`cc::parse_params`).
    pub cc_params: params::Params,
    /// Parameters of the loss recovery over its defaults (`[tcp] lr_params`).
    pub lr_params: params::Params,
    /// RFC 6937 proportional rate reduction during fast recovery, with any loss recovery
    /// (`recovery/prr.rs` has the semantics).
    pub prr: bool,
    /// Which PRR (`recovery/prr.rs`): RFC 6937's, or Linux's `tcp_cwnd_reduction`.
    pub prr_rule: PrrRule,
    /// Receiving application's read rate in bytes/s (None: reads at once).
    pub rcv_read_rate: Option<f64>,
    /// Grow cwnd only while the sender is cwnd-limited, as Linux's `tcp_is_cwnd_limited`
    /// (include/net/tcp.h, with `tcp_cwnd_validate` in tcp_output.c): limited if the flight
    /// reached cwnd in the current window, or, in slow start, if cwnd is below twice the largest
    /// flight of the current window. Off: cwnd grows on every ACK even when the receiver's
    /// window or the application limits the sender (RFC 5681, Riverbed, ns-2).
    pub cwnd_validation: bool,
    /// What a congestion event halves: the flight (RFC 5681 eq. 4: FlightSize) or cwnd (Linux:
    /// `tcp_reno_ssthresh` = max(cwnd / 2, 2), CUBIC's `bictcp_recalc_ssthresh` = cwnd x beta).
    pub ssthresh_from: LossBase,
    /// Quick-ACK mode: the receiver acknowledges each of the first data segments at once, up to
    /// this many ACKs, bounded by the receive window over two segments (Linux's
    /// `tcp_incr_quickack` on the first data of a connection, TCP_MAX_QUICKACKS = 16). 0: delayed
    /// ACKs from the first segment (RFC 1122/5681).
    pub quick_acks: u32,
    /// Minshall's variant of Nagle (Linux's `tcp_minshall_check`, draft-minshall-nagle-01): a
    /// segment shorter than the MSS waits only while an earlier short segment is
    /// unacknowledged, so the last piece of a bulk transfer leaves at once. Off: RFC 1122
    /// 4.2.3.4 (any unacknowledged data holds it back). Only with `nagle`.
    pub nagle_minshall: bool,
    /// cwnd and ssthresh are whole segments after every congestion event, as Linux's
    /// `snd_cwnd` and `snd_ssthresh` are packet counts (`tcp_reno_ssthresh`: cwnd >> 1, CUBIC:
    /// cwnd x 717 / 1024, both rounded down). Off: bytes (RFC 5681).
    pub cwnd_packets: bool,
    /// Every timeout reduces ssthresh, not only the first of a segment (ns-2's
    /// `TcpAgent::timeout` -> `slowdown(CLOSE_SSTHRESH_HALF)` on each expiry; RFC 5681 section
    /// 3.1 asks for the first only).
    pub ssthresh_every_timeout: bool,
    /// After every fast retransmit and timeout, no fast retransmit until an ACK covers more than
    /// the recovery point (ns-2's `bug_fix_`: `highest_ack_ > recover_` in `dupack_action`,
    /// RFC 6582 section 3.2 step 1 for every sender). Off: only after Tahoe's go-back-N and, up
    /// to the recovery point itself, after a timeout.
    pub recover_guard_all: bool,
    /// Which retransmissions restart a running retransmission timer.
    pub rto_restart: RtoRestart,
    /// The window after this end's SYN or SYN-ACK timed out.
    pub syn_loss: SynLoss,
    /// A timeout inside a fast-recovery phase leaves ssthresh as the fast retransmit set it
    /// (Linux's `tcp_enter_loss` recomputes it only in the Open or Disorder state, or once the
    /// ACK has passed `high_seq`). Off: the timeout computes it again (RFC 5681 section 3.1
    /// from FlightSize; ns-2 from min(cwnd, window_), which halves the already halved cwnd).
    pub rto_keeps_recovery_ssthresh: bool,
    /// The FIN rides on the last data segment when the application closed before that segment
    /// left (Linux's `tcp_send_fin` marks the unsent tail of the write queue, and
    /// `tcp_nagle_test` never holds a FIN back). Off: the FIN is a segment of its own after the
    /// data (RFC 9293 allows either; ns-2's agents and Riverbed send it alone).
    pub fin_with_data: bool,
    /// An ACK below SND.UNA still carries news: its SACK blocks are applied and loss detection
    /// runs, then the sender sends what the window allows, without a window change (Linux's
    /// `tcp_ack` at `old_ack`: `tcp_sacktag_write_queue`, `tcp_fastretrans_alert`,
    /// `tcp_xmit_recovery`). Off: an old ACK is ignored (RFC 9293 section 3.10.7.4).
    pub old_ack_sack: bool,
    /// With SACK, an ACK at SND.UNA that SACKs new data counts as a duplicate ACK even when it
    /// offers another window (Linux counts SACKed segments, `tcp_dupack_heuristics`; its own
    /// receiver's window grows with every segment, out-of-order ones included, while
    /// `rcv_ssthresh` ramps up). Off: RFC 5681's definition, the same window required.
    pub sack_dupack_any_window: bool,
    /// TLP's retransmission probe is the highest segment sent even when that is a FIN of its
    /// own (Linux's `tcp_send_loss_probe` resends the tail of the retransmission queue; RFC 8985
    /// section 7.3's highest-sequence segment). Off: the last segment that carries data (the
    /// receiver keeps an out-of-order FIN's sequence number).
    pub tlp_probes_fin: bool,
    /// In ESTABLISHED, a segment that acknowledges data never sent is dropped without a word
    /// (Linux's `tcp_ack` fails it and `tcp_rcv_established` discards it; the other states
    /// answer it, `tcp_rcv_state_process`). Off: dropped and answered with an ACK, as RFC 9293
    /// section 3.10.7.4 asks in every synchronized state.
    pub unsent_ack_silent: bool,
    /// Linux's zero-window probe (`probe0`): with data waiting and nothing in flight, a window
    /// too small for the next segment (`tcp_snd_wnd_test`), TCP_CORK or Nagle sends nothing
    /// and arms the persist timer (`tcp_check_probe_timer`, max(RTO, 200 ms)); when it fires
    /// (`tcp_write_wakeup`) what fits in the window goes, at most an MSS, whatever Nagle or the
    /// cork say, or, in a zero window, a bare ACK with sequence snd_una - 1
    /// (`tcp_xmit_probe_skb`); the timer doubles while it finds nothing to do. Off: a zero
    /// window is probed at once with one byte of data (RFC 9293 3.8.6.1), retransmitted as any
    /// segment, and a partial segment is sent when nothing is in flight (RFC 1122 4.2.3.4).
    pub probe0: bool,
    /// After an idle spell longer than the RTO (no data sent, nothing in flight), the next
    /// write or window update restarts the window (Linux's `tcp_slow_start_after_idle_check`
    /// and `tcp_cwnd_restart`, `net.ipv4.tcp_slow_start_after_idle=1`, its default): ssthresh
    /// rises to 3/4 of cwnd if it was lower, and cwnd halves once per RTO of the idle time,
    /// not below the initial window (or cwnd, if smaller). Off: the window survives idleness
    /// (RFC 5681 section 4.1 recommends the restart; ns-2's agents and Riverbed keep it).
    pub slow_start_after_idle: bool,
    /// A segment that reaches a closed connection (given up, reset, or finished) is answered
    /// with a RST (RFC 9293 section 3.10.7.1; Linux's `tcp_v4_send_reset` when no socket takes
    /// it). Off: it is dropped without a word (ns-2's agents have no RST; tcplab's rfc and
    /// riverbed profiles kept the silence).
    pub rst_when_closed: bool,
    /// The window grows on an ACK of new data by the data that ACK newly delivered: the
    /// segments it SACKs, and those it acknowledges cumulatively that no earlier SACK reported;
    /// without SACK, each duplicate ACK since SND.UNA last moved counted one segment delivered
    /// (at most all but one in flight), and the cumulative ACK delivers the rest, at least one
    /// segment (Linux's `tcp_newly_delivered` through `tcp_cong_control`, with
    /// `tcp_add_reno_sack` and `tcp_remove_reno_sacks`), in slow start and congestion avoidance,
    /// for every congestion control. Off: by the bytes SND.UNA advances (RFC 5681's bytes
    /// acknowledged, ns-2, Riverbed), so data SACKed earlier counts a second time.
    pub grow_by_delivered: bool,
    /// ns-2.35's own rules (`[tcp.ns2]`, `ns2.rs`): all on in the `ns2` profile, off elsewhere.
    pub ns2: Ns2Rules,
}

/// The window a congestion event reduces (`TcpConfig::ssthresh_from`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossBase {
    /// FlightSize, the bytes in the network (RFC 5681 eq. 4, RFC 9438 section 4.6).
    Flight,
    /// The congestion window (Linux's `ssthresh()` hooks of tcp_cong.c and tcp_cubic.c).
    Cwnd,
    /// min(cwnd, the receiver's window): ns-2's `TcpAgent::window()` in `slowdown`.
    Window,
}

impl Fields for TcpConfig {
    fn walk<V: Visitor>(&mut self, v: &mut V) {
        v.other("profile", "choice")
            .default_value("\"rfc\"")
            .allowed("riverbed, rfc, linux, ns2")
            .doc("The defaults every other tcp field starts from (tcplab variants and the README list them).")
            .example("\"linux\"");
        v.integer("mss", &mut self.mss, 64, 65_495)
            .unit("bytes")
            .doc("Maximum segment size (payload bytes).")
            .example("1000");
        v.size("rcv_buf", &mut self.rcv_buf)
            .doc("Receive buffer: the largest window the receiver advertises (scaled when window_scaling is on).")
            .example("\"64KB\"");
        v.size("rcv_buf_max", &mut self.rcv_buf_max)
            .allowed("a size of at least rcv_buf")
            .doc("Receive-buffer autotuning (Linux tcp_rcv_space_adjust): the window grows from rcv_buf up to this, once per receiver round trip. Setting rcv_buf alone fixes the buffer (as SO_RCVBUF does).")
            .example("\"6MB\"");
        v.size("snd_buf", &mut self.snd_buf)
            .default_value("profile (unlimited)")
            .doc("Send buffer: how much unacknowledged data the sender holds.")
            .example("\"1MB\"");
        v.integer("initial_cwnd", &mut self.initial_cwnd, 1, 1000)
            .unit("segments")
            .doc("Initial congestion window.")
            .example("4");
        v.size_or_inf("initial_ssthresh", &mut self.initial_ssthresh)
            .default_value("profile (\"inf\"; ns2: the receive window, rcv_buf)")
            .allowed("a size of at least 2 MSS, or \"inf\"")
            .doc("Initial slow-start threshold.")
            .example("\"64KB\"");
        v.choice(
            "ca_rule",
            &mut self.ca_rule,
            &[
                ("per_ack", CaRule::PerAck, "cwnd += MSS*MSS/cwnd per ACK"),
                ("byte_counting", CaRule::ByteCounting, "RFC 3465"),
            ],
        )
        .doc("Congestion-avoidance growth: MSS*MSS/cwnd per ACK, or RFC 3465 byte counting.")
        .example("\"byte_counting\"");
        v.integer("abc_limit", &mut self.abc_limit, 1, 64)
            .unit("segments")
            .doc("RFC 3465 L: at most this many MSS of growth per ACK in slow start.")
            .example("2");
        v.flag("delayed_ack", &mut self.delayed_ack)
            .doc("Delayed ACKs (RFC 1122 4.2.3.2).")
            .example("false");
        v.duration("delack_max", &mut self.delack_max)
            .allowed("at most 500ms")
            .doc("The delayed-ACK timer.")
            .example("\"40ms\"");
        v.integer("delack_segments", &mut self.delack_segments, 1, 64)
            .unit("segments")
            .doc("Full segments that force an ACK.")
            .example("2");
        v.integer("dupthresh", &mut self.dupthresh, 1, 1000)
            .unit("ACKs")
            .doc("Duplicate ACKs that trigger fast retransmit.")
            .example("3");
        v.integer("max_reordering", &mut self.max_reordering, 0, 1000)
            .unit("segments")
            .doc("The duplicate-ACK threshold grows to the reordering measured from SACKs and cumulative ACKs, up to this (Linux tcp_check_sack_reordering, tcp_max_reordering); 0: fixed at dupthresh.")
            .example("300");
        v.flag("limited_transmit", &mut self.limited_transmit)
            .doc("RFC 3042 limited transmit.")
            .example("true");
        v.flag("limited_transmit_by_pipe", &mut self.limited_transmit_by_pipe)
            .doc("Limited transmit through the pipe alone (Linux): a duplicate ACK's SACKed segment (without SACK, one segment per duplicate ACK) leaves the flight and lets one new segment out, with no room beyond cwnd; off: RFC 3042's room of one segment beyond cwnd per duplicate ACK, over the pipe.")
            .example("false");
        v.duration("rto_initial", &mut self.rto.initial)
            .doc("RTO before the first RTT sample (RFC 6298 2.1).")
            .example("\"1s\"");
        v.duration("rto_min", &mut self.rto.min)
            .allowed("a duration, at most rto_max")
            .doc("Lower bound of the RTO.")
            .example("\"200ms\"");
        v.duration("rto_max", &mut self.rto.max)
            .allowed("a duration, at least rto_min")
            .doc("Upper bound of the RTO (and of its back-off).")
            .example("\"60s\"");
        v.duration("clock_granularity", &mut self.rto.granularity)
            .doc("G of RFC 6298: RTO = SRTT + max(G, K*RTTVAR), and RTT samples are counted in ticks of it.")
            .example("\"10ms\"");
        v.number("rtt_alpha", &mut self.rto.alpha, 0.0, 1.0)
            .default_value("0.125")
            .doc("SRTT gain (RFC 6298).")
            .example("0.125");
        v.number("rtt_beta", &mut self.rto.beta, 0.0, 1.0)
            .default_value("0.25")
            .doc("RTTVAR gain (RFC 6298).")
            .example("0.25");
        v.number("rto_k", &mut self.rto.k, 0.0, 100.0)
            .default_value("4")
            .doc("K of RFC 6298.")
            .example("4");
        v.integer("max_retries", &mut self.max_retries, 1, 100)
            .unit("timeouts")
            .doc("Timeouts of one segment before the connection gives up (Linux tcp_retries2).")
            .example("15");
        v.flag("nagle", &mut self.nagle)
            .doc("Nagle's algorithm (RFC 896).")
            .example("false");
        v.flag("nagle_minshall", &mut self.nagle_minshall)
            .doc("Minshall's variant of Nagle (Linux).")
            .example("true");
        v.flag("window_scaling", &mut self.window_scaling)
            .doc("RFC 7323 window scale option.")
            .example("true");
        v.flag("timestamps", &mut self.timestamps)
            .doc("RFC 7323 timestamps.")
            .example("true");
        v.flag("sack", &mut self.sack)
            .doc("SACK (RFC 2018) offered and used.")
            .example("true");
        v.other("variant", "choice")
            .default_value("")
            .allowed("tahoe, reno, newreno, sack")
            .doc("A classic pair of congestion control and loss recovery (not together with them).")
            .example("\"newreno\"");
        v.name("congestion_control", &mut self.congestion_control)
            .allowed("a name from tcplab variants: reno, newreno, cubic, bic, westwood, vegas, ...")
            .doc("The congestion-control plug-in.")
            .example("\"cubic\"");
        v.name("loss_recovery", &mut self.loss_recovery)
            .allowed("a name from tcplab variants: dupack, newreno, sack, rack, ...")
            .doc("The loss-recovery plug-in (it owns the recovery phase).")
            .example("\"sack\"");
        v.other("cc_params", "table")
            .default_value("{}")
            .allowed("the chosen congestion control's parameters (tcplab variants lists them)")
            .doc("Parameters of the congestion control.")
            .example("{}");
        v.other("lr_params", "table")
            .default_value("{}")
            .allowed("the chosen loss recovery's parameters (tcplab variants lists them)")
            .doc("Parameters of the loss recovery.")
            .example("{}");
        v.flag("prr", &mut self.prr)
            .doc("Proportional rate reduction (RFC 6937) during recovery.")
            .example("true");
        v.choice(
            "prr_rule",
            &mut self.prr_rule,
            &[
                ("rfc6937", PrrRule::Rfc6937, "RFC 6937 with PRR-SSRB"),
                ("linux", PrrRule::Linux, "Linux's tcp_cwnd_reduction"),
            ],
        )
        .doc("Which PRR: RFC 6937 (RecoverFS the flight; below ssthresh one segment more than delivered on every ACK), or Linux's tcp_cwnd_reduction (RecoverFS the cwnd before the reduction; the extra segment only when the ACK advances SND.UNA and marks no new loss; the fast retransmit is the entry ACK's whole allowance; an ACK delivering nothing leaves cwnd). Only with prr.")
        .example("\"rfc6937\"");
        v.rate_or_inf("rcv_read_rate", &mut self.rcv_read_rate)
            .default_value("\"inf\"")
            .doc("How fast the receiving application reads; a slow reader shrinks the window.")
            .example("\"5Mbps\"");
        v.flag("cwnd_validation", &mut self.cwnd_validation)
            .doc("Congestion window validation (RFC 7661) when application-limited.")
            .example("true");
        v.choice(
            "ssthresh_from",
            &mut self.ssthresh_from,
            &[
                ("flight", LossBase::Flight, "RFC 5681 FlightSize"),
                ("cwnd", LossBase::Cwnd, "Linux"),
                ("window", LossBase::Window, "ns-2: min(cwnd, the receiver's window)"),
            ],
        )
        .doc("What ssthresh halves on a loss: FlightSize (RFC 5681), cwnd (Linux) or min(cwnd, rwnd) (ns-2).")
        .example("\"cwnd\"");
        v.integer("quick_acks", &mut self.quick_acks, 0, 1_000)
            .unit("ACKs")
            .doc("ACKs sent at once (no delay) at the start and after a gap (Linux quickack).")
            .example("8");
        v.flag("cwnd_packets", &mut self.cwnd_packets)
            .doc("Count cwnd and ssthresh in whole packets (ns-2).")
            .example("true");
        v.flag("ssthresh_every_timeout", &mut self.ssthresh_every_timeout)
            .doc("Halve ssthresh on every timeout, not only the first of a series (ns-2).")
            .example("true");
        v.flag("recover_guard_all", &mut self.recover_guard_all)
            .doc("ns-2's bug_fix_: no new fast retransmit until the ACK passes the highest sequence sent.")
            .example("true");
        v.choice(
            "rto_restart",
            &mut self.rto_restart,
            &[
                (
                    "every",
                    RtoRestart::Every,
                    "every retransmission restarts the timer",
                ),
                (
                    "head",
                    RtoRestart::Head,
                    "a retransmission of the first unacknowledged segment does",
                ),
                ("never", RtoRestart::Never, "RFC 6298 5.1"),
            ],
        )
        .doc("Which retransmissions restart the RTO timer.")
        .example("\"head\"");
        v.choice(
            "syn_loss",
            &mut self.syn_loss,
            &[
                ("keep", SynLoss::Keep, "the initial window"),
                ("one", SynLoss::One, "RFC 5681 3.1"),
                ("one_after_two", SynLoss::OneAfterTwo, "Linux"),
                ("timeout", SynLoss::Timeout, "ns-2"),
            ],
        )
        .doc("The window after a lost SYN: kept, 1 MSS (RFC 5681 3.1), 1 after two losses (Linux), or a timeout's (ns-2).")
        .example("\"one\"");
        v.flag(
            "rto_keeps_recovery_ssthresh",
            &mut self.rto_keeps_recovery_ssthresh,
        )
        .doc("A timeout during recovery keeps the ssthresh recovery set (Linux).")
        .example("true");
        v.flag("fin_with_data", &mut self.fin_with_data)
            .doc("The FIN rides on the last data segment when the application closed before it left (Linux); off: a FIN segment of its own.")
            .example("true");
        v.flag("old_ack_sack", &mut self.old_ack_sack)
            .doc("An ACK below SND.UNA still has its SACK blocks applied, loss detection run and what the window allows sent (Linux); off: ignored.")
            .example("true");
        v.flag("sack_dupack_any_window", &mut self.sack_dupack_any_window)
            .doc("With SACK, an ACK that SACKs new data is a duplicate ACK whatever window it offers (Linux); off: RFC 5681's definition, the same window required.")
            .example("true");
        v.flag("tlp_probes_fin", &mut self.tlp_probes_fin)
            .doc("TLP's retransmission probe is the highest segment sent even when it is a FIN alone (Linux); off: the last segment with data.")
            .example("true");
        v.flag("unsent_ack_silent", &mut self.unsent_ack_silent)
            .doc("In ESTABLISHED, a segment acknowledging data never sent is dropped silently (Linux); off: dropped and answered with an ACK (RFC 9293).")
            .example("true");
        v.flag("slow_start_after_idle", &mut self.slow_start_after_idle)
            .doc("After idling longer than the RTO, the next write or window update halves cwnd per RTO idle, down to the initial window (Linux's tcp_slow_start_after_idle=1); off: the window survives idleness.")
            .example("true");
        v.flag("rst_when_closed", &mut self.rst_when_closed)
            .doc("A segment that reaches a closed connection is answered with a RST (RFC 9293 3.10.7.1, Linux); off: dropped silently.")
            .example("true");
        v.flag("probe0", &mut self.probe0)
            .doc("Linux's zero-window probe: data waiting with nothing in flight waits for the persist timer, which sends what fits or an ACK with sequence snd_una - 1; off: a one-byte probe at once (RFC 9293).")
            .example("true");
        v.flag("grow_by_delivered", &mut self.grow_by_delivered)
            .doc("cwnd grows by the data an ACK newly delivers, segments SACKed earlier (or counted by duplicate ACKs without SACK) not a second time (Linux); off: by the bytes SND.UNA advances.")
            .example("true");
        v.table("ns2", &mut self.ns2)
            .allowed("a table of the tcp.ns2 rules")
            .doc("ns-2.35's own TCP rules, each switchable (all on in the ns2 profile, off elsewhere).")
            .example("{ sack1 = false }");
    }
}

impl Fields for Ns2Rules {
    fn walk<V: Visitor>(&mut self, v: &mut V) {
        v.flag("cwnd_double", &mut self.cwnd_double)
            .doc("cwnd as ns-2's double of packets: +1 per ACK in slow start with no carry, +1/cwnd kept fractional, halved unrounded at a fast retransmit (tcp.cc opencwnd, slowdown).")
            .example("false");
        v.flag("exit_keeps_cwnd", &mut self.exit_keeps_cwnd)
            .doc("The ACK ending fast recovery keeps cwnd and Reno/NewReno open it once (tcp-reno.cc, tcp-newreno.cc recv).")
            .example("false");
        v.flag("newreno_partial", &mut self.newreno_partial)
            .doc("NewReno partial ACKs as tcp-newreno.cc: deflation from cwnd, at most 2 packets per ACK, timer restarted on the first only, no RTT sample.")
            .example("false");
        v.flag("tahoe_keeps_dupacks", &mut self.tahoe_keeps_dupacks)
            .doc("Tahoe's timeout keeps the duplicate-ACK count (tcp.cc timeout).")
            .example("false");
        v.flag("rtt_ticks", &mut self.rtt_ticks)
            .doc("RTT samples in whole clock_granularity ticks with a one-tick floor and ns-2's integer estimator and back-off (tcp.cc rtt_update, rtt_timeout, rtt_backoff).")
            .example("false");
        v.duration("tick_phase", &mut self.tick_phase)
            .default_value("\"0s\"")
            .allowed("a duration below clock_granularity")
            .doc("Where tick boundaries fall (ns-2's boot_time_, uniform in one tick).")
            .example("\"0.5ms\"");
        v.flag("rtt_active", &mut self.rtt_active)
            .doc("Only a fast retransmit or a timeout abandons the timed packet (tcp.cc reset_rtx_timer), not every retransmission.")
            .example("false");
        v.flag(
            "fast_retransmit_restarts_rto",
            &mut self.fast_retransmit_restarts_rto,
        )
        .doc("A fast retransmit restarts the retransmission timer (tcp.cc dupack_action).")
        .example("false");
        v.flag("send_one", &mut self.send_one)
            .doc("Limited transmit sends one packet per duplicate ACK beyond the window (tcp.cc send_one).")
            .example("false");
        v.flag("sack1", &mut self.sack1)
            .doc("The sack recovery is ns-2's Sack1: its fast-retransmit trigger, pipe_, retransmission order and scoreboard clearing (tcp-sack1.cc, scoreboard.cc).")
            .example("false");
        v.flag("two_way_handshake", &mut self.two_way_handshake)
            .doc("The connection opens with the SYN and its ACK only, as ns-2's one-way agents: the first data segment acknowledges the SYN-ACK.")
            .example("false");
        v.flag("wire", &mut self.wire)
            .doc("ns-2's header sizes: no SYN options, SACK blocks of 8 bytes without kind, length or padding (sack.cc).")
            .example("false");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_detail_writes_ssthresh_as_its_text_does() {
        for v in [
            0,
            1,
            4380,
            SSTHRESH_UNLIMITED - 1,
            SSTHRESH_UNLIMITED,
            u64::MAX,
        ] {
            let mut text = String::new();
            push_ssthresh(&mut crate::output::trace::Detail::new(&mut text), v);
            assert_eq!(text, ssthresh_text(v).to_string());
        }
    }

    #[test]
    fn ssthresh_text_names_the_sentinel_and_keeps_widths() {
        assert_eq!(ssthresh_text(SSTHRESH_UNLIMITED).to_string(), "unlimited");
        assert_eq!(ssthresh_text(u64::MAX / 4).to_string(), "unlimited");
        assert_eq!(ssthresh_text(2920).to_string(), "2920");
        assert_eq!(
            format!(
                "[{:>11}|{:<6}]",
                ssthresh_text(u64::MAX),
                ssthresh_text(2920)
            ),
            "[  unlimited|2920  ]"
        );
    }
}
