//! `TcpConfig`, everything a stack profile sets for an endpoint, and its rule enums.
//!
//! A profile (`profiles.rs`) fills a `TcpConfig`; a scenario's `[tcp]` section overrides its
//! fields (`scenario.rs`). Each rule where stacks differ cites the stack or RFC it follows.

use super::cc::CaRule;
use super::ns2::Ns2Rules;
use super::params;
use super::rto::RtoConfig;
use crate::engine::time::Dur;

/// An ssthresh at or above this is "not set yet" (the algorithms start from u64::MAX / 4).
pub const SSTHRESH_UNLIMITED: u64 = u64::MAX / 8;

/// ssthresh for people and files: "unlimited" rather than the sentinel.
pub fn ssthresh_text(ssthresh: u64) -> String {
    if ssthresh >= SSTHRESH_UNLIMITED {
        "unlimited".into()
    } else {
        ssthresh.to_string()
    }
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
    pub limited_transmit: bool,
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
