//! Stack profiles: what a reference stack does, as one declared value each.
//!
//! A profile is a promise to behave as its reference: `rfc` as the RFCs, `linux` as the kernel of
//! our testbed, `ns2` as ns-2.35's agents, `riverbed` as Riverbed Modeler 16 in Sarkar et al.
//! 2022. Each is a complete [`TcpConfig`] (every `[tcp]` field, its source on its line), the
//! plug-in parameters it sets unless the scenario does, and the defaults that follow another
//! field. `rfc` lists every field; the others start from it and list what their reference
//! says, so a new rule switch is one line in `rfc` (off, with the RFC's reason) and one in each
//! profile whose reference does otherwise.
//!
//! The scenario's `[tcp]` table is read over the chosen profile (`scenario/tcp.rs`, `tcp_config`);
//! an endpoint reads its rules once, when it is built.

use super::cc::CaRule;
use super::ns2::Ns2Rules;
use super::params::{ParamValue, Params};
use super::recovery::prr::PrrRule;
use super::rto::RtoConfig;
use super::{LossBase, RtoRestart, SynLoss, TcpConfig};
use crate::engine::time::Dur;

/// The default of a plug-in parameter a profile sets: (plug-in, parameter, value).
pub type PluginDefault = (&'static str, &'static str, Preset);

/// A plug-in parameter's value as a profile writes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Preset {
    Bool(bool),
    Choice(&'static str),
}

impl Preset {
    pub fn value(self) -> ParamValue {
        match self {
            Preset::Bool(b) => ParamValue::Bool(b),
            Preset::Choice(s) => ParamValue::Choice(s.to_string()),
        }
    }
}

/// One stack profile.
pub struct Profile {
    pub name: &'static str,
    /// One line for `tcplab variants` and the docs.
    pub summary: &'static str,
    /// Every `[tcp]` field's value.
    pub tcp: fn() -> TcpConfig,
    /// Congestion-control parameters set unless the scenario sets the plug-in's own.
    pub cc_params: &'static [PluginDefault],
    /// Loss-recovery parameters, likewise.
    pub lr_params: &'static [PluginDefault],
    /// `initial_cwnd` follows `mss` (RFC 5681 section 3.1's formula) unless it is set.
    pub initial_window_from_mss: bool,
    /// `initial_ssthresh` follows `rcv_buf` unless it is set (ns-2's `TcpAgent::reset()`:
    /// `ssthresh_ = wnd_`).
    pub initial_ssthresh_from_window: bool,
}

/// Every profile, the default first.
pub const PROFILES: &[Profile] = &[
    Profile {
        name: "riverbed",
        summary: "Riverbed Modeler 16 defaults (Table 2 of Sarkar et al. 2022): rwnd 8760, IW 2, delayed ACK 200 ms/2 segments, RTO 3 s initial, 1 s min, 64 s max, 0.5 s granularity, Reno",
        tcp: riverbed,
        cc_params: &[],
        lr_params: &[],
        initial_window_from_mss: false,
        initial_ssthresh_from_window: false,
    },
    Profile {
        name: "rfc",
        summary: "RFC defaults: RFC 5681 Reno with byte counting and IW per its formula, RFC 6298 RTO (1 s initial and min, 60 s max), RFC 3042 limited transmit, RFC 1122 delayed ACK, Nagle",
        tcp: rfc,
        cc_params: &[],
        lr_params: &[],
        initial_window_from_mss: true,
        initial_ssthresh_from_window: false,
    },
    Profile {
        name: "linux",
        summary: "Linux defaults: IW10, RTO 1 s initial, 200 ms min, 120 s max, SACK, timestamps, window scaling, CUBIC, RACK-TLP, PRR, 40 ms delayed ACK, a 128 KiB receive buffer autotuned up to 6 MiB",
        tcp: linux,
        // CUBIC as tcp_cubic.c: HyStart (`hystart = 1`), the constant Reno-friendly increase
        // (`tcp_friendliness`), the W_cubic target at t plus the minimum RTT (`bictcp_update`),
        // its 5 % per RTT floor while no loss set W_max (`bictcp_update`: cnt <= 20 while
        // last_max_cwnd is 0), and its arithmetic in whole packets (`cc/cubic/packets.rs`).
        cc_params: &[
            ("cubic", "hystart", Preset::Bool(true)),
            ("cubic", "alpha_to_one", Preset::Bool(false)),
            ("cubic", "target_min_rtt", Preset::Bool(true)),
            ("cubic", "unknown_max_growth", Preset::Bool(true)),
            ("cubic", "packets", Preset::Bool(true)),
        ],
        // No RFC 6675 rescue retransmission (a MAY; Linux has none); RACK as tcp_recovery.c
        // (`recovery/rack_tlp.rs`: its RTT sample and its reordering timer's slack).
        lr_params: &[
            ("sack", "rescue", Preset::Bool(false)),
            ("rack-tlp", "rule", Preset::Choice("linux")),
            ("rack", "rule", Preset::Choice("linux")),
        ],
        initial_window_from_mss: false,
        initial_ssthresh_from_window: false,
    },
    Profile {
        name: "ns2",
        summary: "ns-2.35 Agent/TCP + TCPSink defaults: 1000-byte packets, window 20, IW 2, Tahoe, no delayed ACK, RTO 3 s initial, 0.2 s min, 60 s max, 10 ms tick",
        tcp: ns2,
        // NewReno's window after a full ACK is ssthresh (RFC 6582 option 2): ns-2.35's
        // `NewRenoTcpAgent::recv` only clamps it to the data outstanding when
        // `exit_recovery_fix_` is set, and that defaults to 0.
        cc_params: &[("newreno", "full_ack", Preset::Choice("ssthresh"))],
        // Sack1 has no rescue retransmission (scoreboard.cc).
        lr_params: &[("sack", "rescue", Preset::Bool(false))],
        initial_window_from_mss: false,
        initial_ssthresh_from_window: true,
    },
];

/// The profile `name`.
pub fn get(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// The profiles' names, as an error lists them.
pub fn names() -> String {
    PROFILES
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// RFC 5681 section 3.1 initial window for a given SMSS.
pub fn rfc5681_initial_window(mss: u32) -> u32 {
    if mss > 2190 {
        2
    } else if mss > 1095 {
        3
    } else {
        4
    }
}

impl Profile {
    /// This profile's parameters for the plug-ins a connection uses, where the scenario sets
    /// none of its own (an `[apps.tcp]` table's `cc_params` replaces the scenario's whole
    /// table, and so does not hide these).
    pub fn fill_plugin_params(&self, c: &mut TcpConfig) {
        for &(name, key, value) in self.cc_params {
            // CUBIC's packet arithmetic goes with whole-packet windows: `cwnd_packets = false`
            // alone gives CUBIC in bytes too.
            let follows_bytes = key == "packets" && !c.cwnd_packets;
            if c.congestion_control == name && !c.cc_params.contains_key(key) && !follows_bytes {
                c.cc_params.insert(key.to_string(), value.value());
            }
        }
        for &(name, key, value) in self.lr_params {
            if c.loss_recovery == name && !c.lr_params.contains_key(key) {
                c.lr_params.insert(key.to_string(), value.value());
            }
        }
    }
}

const UNLIMITED: u64 = u64::MAX / 4;

/// RFC 5681, 6298, 1122, 3042 defaults; the reference every other profile starts from. The
/// receive buffer is 64 KiB - 1 (no window scaling), and the clock granularity 1 ms.
fn rfc() -> TcpConfig {
    TcpConfig {
        mss: 1460,
        rcv_buf: 65_535,
        rcv_buf_max: 65_535,
        snd_buf: UNLIMITED,
        // RFC 5681 section 3.1 (it follows the MSS: `initial_window_from_mss`).
        initial_cwnd: rfc5681_initial_window(1460),
        // RFC 5681: "arbitrarily high".
        initial_ssthresh: UNLIMITED,
        ca_rule: CaRule::ByteCounting,
        abc_limit: 1,
        delayed_ack: true,
        delack_max: Dur::from_millis(200),
        delack_segments: 2,
        dupthresh: 3,
        // RFC 5681: a fixed DupThresh.
        max_reordering: 0,
        limited_transmit: true,
        // RFC 3042: room for one segment beyond cwnd per duplicate ACK.
        limited_transmit_by_pipe: false,
        rto: RtoConfig {
            initial: Dur::from_secs(1),
            min: Dur::from_secs(1),
            max: Dur::from_secs(60),
            granularity: Dur::from_millis(1),
            alpha: 0.125,
            beta: 0.25,
            k: 4.0,
        },
        max_retries: 15,
        nagle: true,
        window_scaling: false,
        timestamps: false,
        sack: false,
        congestion_control: "reno".into(),
        loss_recovery: "dupack".into(),
        cc_params: Params::new(),
        lr_params: Params::new(),
        prr: false,
        prr_rule: PrrRule::Rfc6937,
        rcv_read_rate: None,
        cwnd_validation: false,
        ssthresh_from: LossBase::Flight,
        quick_acks: 0,
        nagle_minshall: false,
        cwnd_packets: false,
        ssthresh_every_timeout: false,
        recover_guard_all: false,
        // RFC 6298 5.1.
        rto_restart: RtoRestart::Never,
        // RFC 5681 section 3.1.
        syn_loss: SynLoss::One,
        rto_keeps_recovery_ssthresh: false,
        // RFC 9293 3.6 allows a FIN on a data segment; the reference senders here send it alone.
        fin_with_data: false,
        // RFC 9293 3.10.7.4: an ACK below SND.UNA is ignored.
        old_ack_sack: false,
        sack_dupack_any_window: false,
        // RFC 8985 section 7.3 probes with the highest-sequence segment; the reference senders
        // here send the FIN alone and probe with their last data.
        tlp_probes_fin: false,
        // RFC 9293 section 3.10.7.4: "send an ACK, drop the segment, and return".
        unsent_ack_silent: false,
        // RFC 9293 3.8.6.1: the zero window is probed with data, as ns-2 and Riverbed do.
        probe0: false,
        // RFC 5681 section 4.1 recommends restarting after idle; the reference senders here
        // (ns-2's agents, Riverbed) keep their window.
        slow_start_after_idle: false,
        // ns-2's agents send no RST; the rfc and riverbed profiles kept a closed end silent.
        rst_when_closed: false,
        // RFC 5681 section 3.1: cwnd grows by the bytes the cumulative ACK acknowledges.
        grow_by_delivered: false,
        ns2: Ns2Rules::default(),
    }
}

/// Table 2 of Sarkar, Ammann, Zabir 2022 (Riverbed Modeler 16.0 TCP defaults). Values the
/// table does not give: send buffer (unlimited), retry limit (12), slow-start threshold
/// (unlimited), congestion-avoidance rule (MSS*MSS/cwnd per ACK, the paper's eq. 17).
fn riverbed() -> TcpConfig {
    TcpConfig {
        mss: 1460,
        rcv_buf: 8760,
        rcv_buf_max: 8760,
        initial_cwnd: 2,
        ca_rule: CaRule::PerAck,
        abc_limit: 1,
        delayed_ack: true,
        delack_max: Dur::from_millis(200),
        delack_segments: 2,
        dupthresh: 3,
        limited_transmit: false,
        rto: RtoConfig {
            initial: Dur::from_secs(3),
            min: Dur::from_secs(1),
            max: Dur::from_secs(64),
            granularity: Dur::from_millis(500),
            ..rfc().rto
        },
        max_retries: 12,
        nagle: false,
        congestion_control: "reno".into(),
        loss_recovery: "dupack".into(),
        rto_restart: RtoRestart::Every,
        // Riverbed's rule is not documented: the initial window, as before.
        syn_loss: SynLoss::Keep,
        ..rfc()
    }
}

/// Linux (6.x) defaults; the source of each value is on its line.
fn linux() -> TcpConfig {
    TcpConfig {
        // 1500-byte MTU; with timestamps a segment carries 1448 bytes (RFC 7323 options).
        mss: 1460,
        // net.ipv4.tcp_rmem = 4096 131072 6291456 (the defaults since Linux 4.20,
        // Documentation/networking/ip-sysctl.rst): the buffer starts at tcp_rmem[1] and
        // tcp_moderate_rcvbuf = 1 grows it up to tcp_rmem[2] (tcp_rcv_space_adjust).
        rcv_buf: 131_072,
        rcv_buf_max: 6_291_456,
        // net.ipv4.tcp_wmem autotuning: the send buffer does not limit the sender here.
        snd_buf: UNLIMITED,
        // TCP_INIT_CWND = 10 (include/net/tcp.h; RFC 6928).
        initial_cwnd: 10,
        // TCP_INFINITE_SSTHRESH.
        initial_ssthresh: UNLIMITED,
        // tcp_cong_avoid_ai: +1 segment once a window's worth of segments is acknowledged.
        ca_rule: CaRule::ByteCounting,
        // tcp_slow_start: cwnd += segments acknowledged, no per-ACK limit but ssthresh
        // (64 is the largest limit allowed here).
        abc_limit: 64,
        delayed_ack: true,
        // TCP_DELACK_MIN = HZ/25 = 40 ms, where the ACK timeout (ATO) starts.
        delack_max: Dur::from_millis(40),
        // __tcp_ack_snd_check: ACK at once when more than one full segment is unacknowledged.
        delack_segments: 2,
        // net.ipv4.tcp_reordering = 3.
        dupthresh: 3,
        // net.ipv4.tcp_max_reordering = 300 (tcp_check_sack_reordering, tcp_input.c).
        max_reordering: 300,
        // Linux counts SACKed and duplicate-ACKed segments out of the pipe before
        // recovery (the effect of RFC 3042): tcp_packets_in_flight leaves out sacked_out,
        // which tcp_add_reno_sack raises per duplicate ACK without SACK; no room beyond
        // cwnd (tcp_cwnd_test).
        limited_transmit: true,
        limited_transmit_by_pipe: true,
        rto: RtoConfig {
            // TCP_TIMEOUT_INIT = 1 s (RFC 6298).
            initial: Dur::from_secs(1),
            // TCP_RTO_MIN = HZ/5 = 200 ms.
            min: Dur::from_millis(200),
            // TCP_RTO_MAX = 120 s.
            max: Dur::from_secs(120),
            // tcp_rtt_estimator/tcp_set_rto: RTO = SRTT + max(4 RTTVAR, TCP_RTO_MIN), i.e.
            // RFC 6298's formula with G = 200 ms.
            granularity: Dur::from_millis(200),
            // tcp_rtt_estimator: gains 1/8 and 1/4, K = 4.
            alpha: 0.125,
            beta: 0.25,
            k: 4.0,
        },
        // net.ipv4.tcp_retries2 = 15.
        max_retries: 15,
        // Nagle on unless TCP_NODELAY.
        nagle: true,
        // net.ipv4.tcp_window_scaling, tcp_timestamps, tcp_sack = 1.
        window_scaling: true,
        timestamps: true,
        sack: true,
        // Default congestion control since 2.6.19.
        congestion_control: "cubic".into(),
        // net.ipv4.tcp_recovery = 1 (RACK) and tcp_early_retrans = 3 (TLP).
        loss_recovery: "rack-tlp".into(),
        // PRR in tcp_cwnd_reduction since Linux 3.2, with its bound below ssthresh of the 6.x
        // kernels (one more segment only on an ACK that advances snd_una without new loss).
        prr: true,
        prr_rule: PrrRule::Linux,
        // tcp_is_cwnd_limited (include/net/tcp.h) gates every cong_avoid (tcp_reno_cong_avoid,
        // cubictcp_cong_avoid): cwnd grows only while the flight uses it, in slow start up
        // to twice the largest flight of the window (since Linux 3.15, tcp_cwnd_validate).
        cwnd_validation: true,
        // tcp_reno_ssthresh: max(cwnd >> 1, 2); cubictcp_recalc_ssthresh: cwnd x beta.
        ssthresh_from: LossBase::Cwnd,
        // tcp_event_data_recv -> tcp_incr_quickack(sk, TCP_MAX_QUICKACKS): the first 16
        // ACKs (bounded by rcv_wnd / 2 MSS) go out at once (include/net/tcp.h).
        quick_acks: 16,
        // tcp_nagle_check -> tcp_minshall_check (net/ipv4/tcp_output.c).
        nagle_minshall: true,
        // struct tcp_sock: snd_cwnd and snd_ssthresh count packets.
        cwnd_packets: true,
        // tcp_enter_loss lowers ssthresh once per loss episode.
        ssthresh_every_timeout: false,
        recover_guard_all: false,
        // tcp_xmit_retransmit_queue (net/ipv4/tcp_output.c) re-arms on the head only.
        rto_restart: RtoRestart::Head,
        // tcp_init_transfer (net/ipv4/tcp_input.c): total_retrans > 1.
        syn_loss: SynLoss::OneAfterTwo,
        // tcp_enter_loss (net/ipv4/tcp_input.c): ssthresh only outside Recovery.
        rto_keeps_recovery_ssthresh: true,
        // tcp_send_fin (net/ipv4/tcp_output.c): FIN on the unsent tail of the write queue.
        fin_with_data: true,
        // tcp_ack (tcp_input.c), old_ack: tcp_sacktag_write_queue, tcp_fastretrans_alert and
        // tcp_xmit_recovery for an ACK below snd_una that carries SACK blocks.
        old_ack_sack: true,
        // tcp_ack -> tcp_fastretrans_alert: a SACK flow counts SACKed segments
        // (tcp_dupack_heuristics), whatever window the ACK offers (net/ipv4/tcp_input.c).
        sack_dupack_any_window: true,
        // tcp_send_loss_probe (net/ipv4/tcp_output.c): the retransmission queue's last skb.
        tlp_probes_fin: true,
        // tcp_ack returns SKB_DROP_REASON_TCP_ACK_UNSENT_DATA and tcp_rcv_established drops
        // the segment (net/ipv4/tcp_input.c, 6.x).
        unsent_ack_silent: true,
        // tcp_check_probe_timer, tcp_send_probe0 and tcp_write_wakeup (net/ipv4/tcp_output.c).
        probe0: true,
        // net.ipv4.tcp_slow_start_after_idle defaults to 1: tcp_slow_start_after_idle_check
        // (net/ipv4/tcp.c, tcp_input.c) and tcp_cwnd_restart (tcp_output.c).
        slow_start_after_idle: true,
        // tcp_v4_send_reset for a segment that finds no socket (net/ipv4/tcp_ipv4.c).
        rst_when_closed: true,
        // tcp_ack -> tcp_cong_control (net/ipv4/tcp_input.c): cwnd grows by
        // tcp_newly_delivered, on an ACK that acknowledged data (tcp_may_raise_cwnd).
        grow_by_delivered: true,
        ..rfc()
    }
}

/// ns-2.35 defaults (tcl/lib/ns-default.tcl, tcp/tcp.cc): a one-way Agent/TCP sender and an
/// Agent/TCPSink receiver.
fn ns2() -> TcpConfig {
    TcpConfig {
        // packetSize_ 1000: payload bytes per packet.
        mss: 1000,
        // window_ 20: the bound on the window the receiver advertises, in packets.
        rcv_buf: 20_000,
        rcv_buf_max: 20_000,
        // windowInit_ 2 (default changed on 2001/5/26).
        initial_cwnd: 2,
        // TcpAgent::reset(): ssthresh_ = wnd_ (window_, 20 packets; it follows rcv_buf:
        // `initial_ssthresh_from_window`).
        initial_ssthresh: 20_000,
        // windowOption_ 1, increase_num_ 1.0: cwnd += 1/cwnd packets per ACK.
        ca_rule: CaRule::PerAck,
        // Slow start opens cwnd by one packet per ACK.
        abc_limit: 1,
        // Agent/TCPSink ACKs every packet (Agent/TCPSink/DelAck would delay).
        delayed_ack: false,
        // Agent/TCPSink/DelAck interval_ 100ms, used if delayed_ack is switched on.
        delack_max: Dur::from_millis(100),
        delack_segments: 2,
        // numdupacks_ 3.
        dupthresh: 3,
        // singledup_ 1 (default changed on 2001/11/28): one new packet on each of the
        // first duplicate ACKs, RFC 3042 limited transmit.
        limited_transmit: true,
        rto: RtoConfig {
            // rtxcur_init_ 3.0 (default changed on 2006/01/21).
            initial: Dur::from_secs(3),
            // minrto_ 0.2 (200 ms since 2004/10/14; 1 s in older releases).
            min: Dur::from_millis(200),
            // maxrto_ 60 (changed on 2007/03/28 "to reflect RFC2988"; older: 64).
            max: Dur::from_secs(60),
            // tcpTick_ 0.01 (default changed on 2002/03/07).
            granularity: Dur::from_millis(10),
            // T_SRTT_BITS 3, T_RTTVAR_BITS 2, rttvar_exp_ 2: gains 1/8, 1/4 and K = 4.
            alpha: 0.125,
            beta: 0.25,
            k: 4.0,
        },
        // ns-2 never gives up; 100 is the largest limit allowed here.
        max_retries: 100,
        // The agents send whole packets.
        nagle: false,
        window_scaling: false,
        // timestamps_ false.
        timestamps: false,
        // Agent/TCP has no SACK (the `sack` variant is Agent/TCP/Sack1).
        sack: false,
        // Agent/TCP is Tahoe.
        congestion_control: "tahoe".into(),
        loss_recovery: "dupack".into(),
        // TcpAgent::slowdown: ssthresh_ = (int)(window() / 2), window() = min(cwnd_, wnd_).
        ssthresh_from: LossBase::Window,
        // ssthresh_ is an int (packets).
        cwnd_packets: true,
        // TcpAgent::timeout -> slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART) on every
        // expiry.
        ssthresh_every_timeout: true,
        // bug_fix_ true: dupack_action needs highest_ack_ > recover_ (tcp.cc, tcp-reno.cc,
        // tcp-newreno.cc).
        recover_guard_all: true,
        // output() only starts a stopped timer (set_rtx_timer); dupack_action restarts it
        // (`ns2.fast_retransmit_restarts_rto`), and so does NewReno's first partial ACK.
        rto_restart: RtoRestart::Never,
        // TcpAgent::timeout on the SYN as on any packet.
        syn_loss: SynLoss::Timeout,
        ns2: Ns2Rules::all(),
        ..rfc()
    }
}
