//! Scenario files: TOML (or the same structure as JSON), validated field by field.
//!
//! Every error names the field by its path (`links[1].ab.error.ber`), the value, and what is
//! allowed. Unknown fields are errors, never ignored. A stack profile fills the TCP defaults; any
//! field given overrides it, at scenario level (`[tcp]`) or per application (`[apps.tcp]`).

pub mod schema;
pub mod units;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::{json, Map, Value};

use crate::apps::profiles;
use crate::apps::txn::{self, TxnCfg};
use crate::apps::udp::{self, UdpCfg};
use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::net::aqm::{AqmCfg, RedCfg};
use crate::net::link::{Framing, QueueLimit};
use crate::net::loss::{ErrorModelConfig, Law};
use crate::scenario::units::{
    check_probability, parse_duration, parse_probability, parse_rate, parse_size,
};
use crate::tcp::cc::{self, CaRule};
use crate::tcp::ns2::Ns2Rules;
use crate::tcp::params::{self, ParamValue, Params};
use crate::tcp::recovery;
use crate::tcp::rto::RtoConfig;
use crate::tcp::{LossBase, RtoRestart, SynLoss, TcpConfig};

#[derive(Clone, Debug, PartialEq)]
pub struct RunCfg {
    pub name: String,
    pub seed: u64,
    pub stop_time: Dur,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Router,
    /// A store-and-forward switch: forwards like a router (each port's output queue is its link
    /// direction's), named apart for what a campus network calls it.
    Switch,
}

impl NodeKind {
    /// Whether the node forwards packets not addressed to it.
    pub fn forwards(self) -> bool {
        matches!(self, NodeKind::Router | NodeKind::Switch)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeCfg {
    pub name: String,
    pub kind: NodeKind,
    /// Latency added to every packet the node forwards (a pure delay: packets do not wait for
    /// one another, and their order is kept).
    pub processing_delay: Dur,
    /// The packet filter of a forwarding node (a firewall), in order; empty: none.
    pub rules: Vec<crate::net::filter::Rule>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DirCfg {
    pub rate_bps: u64,
    pub delay: Dur,
    pub mtu: u32,
    pub framing: Framing,
    pub queue: QueueLimit,
    pub aqm: AqmCfg,
    pub error: ErrorModelConfig,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkCfg {
    pub name: String,
    pub a: usize,
    pub b: usize,
    /// [a -> b, b -> a]
    pub dirs: [DirCfg; 2],
}

#[derive(Clone, Debug, PartialEq)]
pub enum AppKind {
    /// The client requests `size` bytes; the server sends them and closes.
    Ftp { size: u64, request_size: u64 },
    /// The client sends `size` bytes (None: forever) to the server.
    Bulk { size: Option<u64> },
    /// Constant bit rate over TCP: the client's application writes `packet_size` bytes every
    /// `interval` from its start until `stop` (or the end of the run). When TCP is slower than
    /// the application, the unsent backlog grows in the sender's buffer (which is unbounded for
    /// the application: writes never block or drop).
    Cbr {
        packet_size: u64,
        interval: Dur,
        stop: Option<Dur>,
    },
    /// Transactions: `database` or `http`, over one persistent connection or (`http` with
    /// `connection = "per_page"`) a connection per page (see [`crate::apps::txn`]).
    Txn(TxnCfg),
    /// UDP datagrams from client to server, constant or on-off (see [`crate::apps::udp`]).
    Udp(UdpCfg),
}

#[derive(Clone, Debug, PartialEq)]
pub struct AppCfg {
    pub name: String,
    pub kind: AppKind,
    pub client: usize,
    pub server: usize,
    pub start: Dur,
    pub tcp: TcpConfig,
    pub profile: String,
    /// The server's port (what packet filters match).
    pub port: u16,
    /// The name the `app_series` table counts this application's responses under.
    pub group: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OutputCfg {
    pub trace: bool,
    pub trace_interval: Option<Dur>,
    pub events: bool,
    pub packets: bool,
    /// The length of every link direction's queue over time (the `queues` table).
    pub queues: bool,
    /// Statistics of every link direction per this interval (the `link_series` table).
    pub link_series: Option<Dur>,
    /// Response times per application group per this interval (the `app_series` table).
    pub app_series: Option<Dur>,
    /// The most rows any one table keeps in memory (later rows are counted, not kept).
    pub max_rows: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub run: RunCfg,
    pub nodes: Vec<NodeCfg>,
    pub links: Vec<LinkCfg>,
    pub apps: Vec<AppCfg>,
    pub output: OutputCfg,
    /// The scenario as given, with the seed as set; kept for `to_json`.
    raw: Value,
}

/// The server port of an application that names none: the service's well-known port (FTP 21,
/// HTTP 80, PostgreSQL's 5432 for `database`), iperf's 5001 for bulk and UDP traffic, RTP's
/// 5004 for cbr.
fn default_port(kind: &AppKind) -> u16 {
    match kind {
        AppKind::Ftp { .. } => 21,
        AppKind::Txn(t) if t.name() == "http" => 80,
        AppKind::Txn(_) => 5432,
        AppKind::Bulk { .. } | AppKind::Udp(_) => 5001,
        AppKind::Cbr { .. } => 5004,
    }
}

// ---------------------------------------------------------------------------- value helpers

pub(crate) fn keys_ok(map: &Map<String, Value>, path: &str, allowed: &[&str]) -> SimResult<()> {
    for k in map.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(SimError::UnknownField {
                field: join(path, k),
                allowed: allowed.join(", "),
            });
        }
    }
    Ok(())
}

pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

pub(crate) fn table<'a>(v: &'a Value, path: &str) -> SimResult<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| SimError::invalid(path, v, "a table of fields"))
}

pub(crate) fn get_str(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<String>> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(SimError::invalid(join(path, key), v, "a string")),
    }
}

pub(crate) fn get_bool(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<bool>> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(SimError::invalid(join(path, key), v, "true or false")),
    }
}

/// A string field naming one of `choices`; `what` says what each means, for the error.
fn get_choice<T: Copy>(
    m: &Map<String, Value>,
    path: &str,
    key: &str,
    choices: &[(&str, T)],
    what: &str,
) -> SimResult<Option<T>> {
    let Some(v) = get_str(m, path, key)? else {
        return Ok(None);
    };
    match choices.iter().find(|(name, _)| *name == v) {
        Some(&(_, t)) => Ok(Some(t)),
        None => Err(SimError::invalid(join(path, key), format!("{v:?}"), what)),
    }
}

pub(crate) fn get_uint(
    m: &Map<String, Value>,
    path: &str,
    key: &str,
    min: u64,
    max: u64,
) -> SimResult<Option<u64>> {
    match m.get(key) {
        None => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(SimError::invalid(
                join(path, key),
                v,
                format!("a whole number from {min} to {max}"),
            )),
        },
    }
}

fn get_f64(
    m: &Map<String, Value>,
    path: &str,
    key: &str,
    lo: f64,
    hi: f64,
) -> SimResult<Option<f64>> {
    match m.get(key) {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) if x >= lo && x <= hi => Ok(Some(x)),
            _ => Err(SimError::invalid(
                join(path, key),
                v,
                format!("a number from {lo} to {hi}"),
            )),
        },
    }
}

pub(crate) fn get_dur(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<Dur>> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => parse_duration(&join(path, key), s).map(Some),
        Some(v) => Err(SimError::invalid(
            join(path, key),
            v,
            "a duration with a unit, such as \"20ms\" or \"1.5s\"",
        )),
    }
}

fn get_rate(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<u64>> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => parse_rate(&join(path, key), s).map(Some),
        Some(v) => Err(SimError::invalid(
            join(path, key),
            v,
            "a bit rate with a unit, such as \"10Mbps\"",
        )),
    }
}

pub(crate) fn get_size(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<u64>> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => parse_size(&join(path, key), s).map(Some),
        Some(v) => match v.as_u64() {
            Some(n) => Ok(Some(n)),
            None => Err(SimError::invalid(
                join(path, key),
                v,
                "a size such as \"10MB\" or a whole number of bytes",
            )),
        },
    }
}

fn get_prob(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<f64>> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => parse_probability(&join(path, key), s).map(Some),
        Some(v) => match v.as_f64() {
            Some(x) => check_probability(&join(path, key), x).map(Some),
            None => Err(SimError::invalid(
                join(path, key),
                v,
                "a probability between 0 and 1, such as 0.01, \"1e-6\" or \"1%\"",
            )),
        },
    }
}

pub(crate) fn required<T>(v: Option<T>, path: &str, key: &str, what: &str) -> SimResult<T> {
    v.ok_or_else(|| SimError::MissingField {
        field: join(path, key),
        allowed: what.to_string(),
    })
}

// ---------------------------------------------------------------------------- profiles

pub const PROFILES: &[(&str, &str)] = &[
    (
        "riverbed",
        "Riverbed Modeler 16 defaults (Table 2 of Sarkar et al. 2022): rwnd 8760, IW 2, delayed ACK 200 ms/2 segments, RTO 3 s initial, 1 s min, 64 s max, 0.5 s granularity, Reno",
    ),
    (
        "rfc",
        "RFC defaults: RFC 5681 Reno with byte counting and IW per its formula, RFC 6298 RTO (1 s initial and min, 60 s max), RFC 3042 limited transmit, RFC 1122 delayed ACK, Nagle",
    ),
    (
        "linux",
        "Linux defaults: IW10, RTO 1 s initial, 200 ms min, 120 s max, SACK, timestamps, window scaling, CUBIC, RACK-TLP, PRR, 40 ms delayed ACK, a 128 KiB receive buffer autotuned up to 6 MiB",
    ),
    (
        "ns2",
        "ns-2.35 Agent/TCP + TCPSink defaults: 1000-byte packets, window 20, IW 2, Tahoe, no delayed ACK, RTO 3 s initial, 0.2 s min, 60 s max, 10 ms tick",
    ),
];

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

pub fn profile(name: &str, path: &str) -> SimResult<TcpConfig> {
    let unlimited = u64::MAX / 4;
    match name {
        // Table 2 of Sarkar, Ammann, Zabir 2022 (Riverbed Modeler 16.0 TCP defaults). Values the
        // table does not give: send buffer (unlimited), retry limit (12), slow-start threshold
        // (unlimited), congestion-avoidance rule (MSS*MSS/cwnd per ACK, the paper's eq. 17).
        "riverbed" => Ok(TcpConfig {
            mss: 1460,
            rcv_buf: 8760,
            rcv_buf_max: 8760,
            snd_buf: unlimited,
            initial_cwnd: 2,
            initial_ssthresh: unlimited,
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
                alpha: 0.125,
                beta: 0.25,
                k: 4.0,
            },
            max_retries: 12,
            nagle: false,
            window_scaling: false,
            timestamps: false,
            sack: false,
            congestion_control: "reno".into(),
            loss_recovery: "dupack".into(),
            cc_params: Params::new(),
            lr_params: Params::new(),
            prr: false,
            rcv_read_rate: None,
            cwnd_validation: false,
            ssthresh_from: LossBase::Flight,
            quick_acks: 0,
            nagle_minshall: false,
            cwnd_packets: false,
            ssthresh_every_timeout: false,
            recover_guard_all: false,
            rto_restart: RtoRestart::Every,
            // Riverbed's rule is not documented: the initial window, as before.
            syn_loss: SynLoss::Keep,
            rto_keeps_recovery_ssthresh: false,
            ns2: Ns2Rules::default(),
        }),
        // RFC 5681, 6298, 1122, 3042 defaults. The receive buffer is 64 KiB - 1 (no window
        // scaling), and the clock granularity 1 ms.
        "rfc" => Ok(TcpConfig {
            mss: 1460,
            rcv_buf: 65_535,
            rcv_buf_max: 65_535,
            snd_buf: unlimited,
            initial_cwnd: rfc5681_initial_window(1460),
            initial_ssthresh: unlimited,
            ca_rule: CaRule::ByteCounting,
            abc_limit: 1,
            delayed_ack: true,
            delack_max: Dur::from_millis(200),
            delack_segments: 2,
            dupthresh: 3,
            limited_transmit: true,
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
            ns2: Ns2Rules::default(),
        }),
        // Linux (6.x) defaults; the source of each value is on its line.
        "linux" => Ok(TcpConfig {
            // 1500-byte MTU; with timestamps a segment carries 1448 bytes (RFC 7323 options).
            mss: 1460,
            // net.ipv4.tcp_rmem = 4096 131072 6291456 (the defaults since Linux 4.20,
            // Documentation/networking/ip-sysctl.rst): the buffer starts at tcp_rmem[1] and
            // tcp_moderate_rcvbuf = 1 grows it up to tcp_rmem[2] (tcp_rcv_space_adjust).
            rcv_buf: 131_072,
            rcv_buf_max: 6_291_456,
            // net.ipv4.tcp_wmem autotuning: the send buffer does not limit the sender here.
            snd_buf: unlimited,
            // TCP_INIT_CWND = 10 (include/net/tcp.h; RFC 6928).
            initial_cwnd: 10,
            // TCP_INFINITE_SSTHRESH.
            initial_ssthresh: unlimited,
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
            // Linux counts SACKed and duplicate-ACKed segments out of the pipe before
            // recovery (the effect of RFC 3042).
            limited_transmit: true,
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
            cc_params: Params::new(),
            lr_params: Params::new(),
            // PRR in tcp_cwnd_reduction since Linux 3.2.
            prr: true,
            rcv_read_rate: None,
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
            ns2: Ns2Rules::default(),
        }),
        // ns-2.35 defaults (tcl/lib/ns-default.tcl, tcp/tcp.cc): a one-way Agent/TCP sender and
        // an Agent/TCPSink receiver.
        "ns2" => Ok(TcpConfig {
            // packetSize_ 1000: payload bytes per packet.
            mss: 1000,
            // window_ 20: the bound on the window the receiver advertises, in packets.
            rcv_buf: 20_000,
            rcv_buf_max: 20_000,
            snd_buf: unlimited,
            // windowInit_ 2 (default changed on 2001/5/26).
            initial_cwnd: 2,
            // TcpAgent::reset(): ssthresh_ = wnd_ (window_, 20 packets; it follows rcv_buf).
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
            cc_params: Params::new(),
            lr_params: Params::new(),
            prr: false,
            rcv_read_rate: None,
            cwnd_validation: false,
            // TcpAgent::slowdown: ssthresh_ = (int)(window() / 2), window() = min(cwnd_, wnd_).
            ssthresh_from: LossBase::Window,
            quick_acks: 0,
            nagle_minshall: false,
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
            rto_keeps_recovery_ssthresh: false,
            ns2: Ns2Rules::all(),
        }),
        other => Err(SimError::invalid(
            path,
            format!("{other:?}"),
            format!(
                "one of: {}",
                PROFILES.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

/// `output.max_rows` when a scenario does not set it: about 200 MB for a trace table.
pub const DEFAULT_MAX_ROWS: usize = 2_000_000;

/// The classic variant names `[tcp] variant` accepts.
pub const CLASSIC_VARIANTS: &[&str] = &["tahoe", "reno", "newreno", "sack"];

/// Classic variant names and the (congestion control, loss recovery) pair each stands for (seed
/// 001's decomposition): Tahoe and Reno recover by duplicate ACKs alone, NewReno by partial
/// ACKs (RFC 6582), and SACK is ns-2's `Agent/TCP/Sack1` (tcp-sack1.cc), whose fast recovery
/// halves cwnd once and ends only when the ACK reaches `recover_`, like NewReno's, with
/// SACK-based retransmissions: NewReno congestion control with RFC 6675 recovery.
pub fn classic_variant(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        "tahoe" => Some(("tahoe", "dupack")),
        "reno" => Some(("reno", "dupack")),
        "newreno" => Some(("newreno", "newreno")),
        "sack" => Some(("newreno", "sack")),
        _ => None,
    }
}

/// Merge TCP override tables: later tables win key by key.
/// A `variant` in the later table replaces the earlier table's whole pair (`variant`,
/// `congestion_control`, `loss_recovery`), so an application can pick a classic name over a
/// scenario-wide explicit pair.
fn merged_tcp(base: Option<&Value>, over: Option<&Value>) -> Map<String, Value> {
    let mut m = Map::new();
    for v in [base, over].into_iter().flatten() {
        if let Some(o) = v.as_object() {
            if o.contains_key("variant") {
                m.remove("congestion_control");
                m.remove("loss_recovery");
            }
            for (k, x) in o {
                m.insert(k.clone(), x.clone());
            }
        }
    }
    m
}

fn tcp_config(m: &Map<String, Value>, path: &str) -> SimResult<(String, TcpConfig)> {
    keys_ok(m, path, schema::keys("tcp", None))?;
    let pname = get_str(m, path, "profile")?.unwrap_or_else(|| "rfc".into());
    let mut c = profile(&pname, &join(path, "profile"))?;
    if let Some(v) = get_uint(m, path, "mss", 64, 65_495)? {
        c.mss = v as u32;
        if pname == "rfc" && !m.contains_key("initial_cwnd") {
            c.initial_cwnd = rfc5681_initial_window(c.mss);
        }
    }
    if let Some(v) = get_size(m, path, "rcv_buf")? {
        // A buffer set by hand is fixed, as SO_RCVBUF locks it in Linux (SOCK_RCVBUF_LOCK),
        // unless rcv_buf_max says how far it may grow.
        c.rcv_buf = v;
        c.rcv_buf_max = v;
    }
    if let Some(v) = get_size(m, path, "rcv_buf_max")? {
        if v < c.rcv_buf {
            return Err(SimError::invalid(
                join(path, "rcv_buf_max"),
                v,
                format!(
                    "at least rcv_buf ({} bytes); equal to it: a fixed buffer",
                    c.rcv_buf
                ),
            ));
        }
        c.rcv_buf_max = v;
    }
    if let Some(v) = get_size(m, path, "snd_buf")? {
        c.snd_buf = v;
    }
    if c.rcv_buf < c.mss as u64 {
        return Err(SimError::invalid(
            join(path, "rcv_buf"),
            c.rcv_buf,
            format!("at least one MSS ({} bytes)", c.mss),
        ));
    }
    if c.snd_buf < c.mss as u64 {
        return Err(SimError::invalid(
            join(path, "snd_buf"),
            c.snd_buf,
            format!("at least one MSS ({} bytes)", c.mss),
        ));
    }
    if let Some(v) = get_uint(m, path, "initial_cwnd", 1, 1000)? {
        c.initial_cwnd = v as u32;
    }
    match m.get("initial_ssthresh") {
        // ns-2's TcpAgent::reset(): ssthresh_ = wnd_, the window_ the scenario sets.
        None if pname == "ns2" => c.initial_ssthresh = c.rcv_buf,
        None => {}
        Some(Value::String(s)) if s == "inf" || s == "unlimited" => {
            c.initial_ssthresh = u64::MAX / 4
        }
        Some(_) => {
            let v = required(
                get_size(m, path, "initial_ssthresh")?,
                path,
                "initial_ssthresh",
                "",
            )?;
            if v < 2 * c.mss as u64 {
                return Err(SimError::invalid(
                    join(path, "initial_ssthresh"),
                    v,
                    "a size of at least 2 MSS, or \"inf\"",
                ));
            }
            c.initial_ssthresh = v;
        }
    }
    if let Some(s) = get_str(m, path, "ca_rule")? {
        c.ca_rule =
            match s.as_str() {
                "per_ack" => CaRule::PerAck,
                "byte_counting" => CaRule::ByteCounting,
                _ => return Err(SimError::invalid(
                    join(path, "ca_rule"),
                    format!("{s:?}"),
                    "\"per_ack\" (cwnd += MSS*MSS/cwnd per ACK) or \"byte_counting\" (RFC 3465)",
                )),
            };
    }
    if let Some(v) = get_uint(m, path, "abc_limit", 1, 64)? {
        c.abc_limit = v;
    }
    if let Some(v) = get_bool(m, path, "delayed_ack")? {
        c.delayed_ack = v;
    }
    if let Some(v) = get_dur(m, path, "delack_max")? {
        if v > Dur::from_millis(500) {
            return Err(SimError::invalid(
                join(path, "delack_max"),
                format!("{v}"),
                "at most 500ms (RFC 1122 4.2.3.2)",
            ));
        }
        c.delack_max = v;
    }
    if let Some(v) = get_uint(m, path, "delack_segments", 1, 64)? {
        c.delack_segments = v as u32;
    }
    if let Some(v) = get_uint(m, path, "dupthresh", 1, 1000)? {
        c.dupthresh = v as u32;
    }
    if let Some(v) = get_bool(m, path, "limited_transmit")? {
        c.limited_transmit = v;
    }
    if let Some(v) = get_dur(m, path, "rto_initial")? {
        c.rto.initial = v;
    }
    if let Some(v) = get_dur(m, path, "rto_min")? {
        c.rto.min = v;
    }
    if let Some(v) = get_dur(m, path, "rto_max")? {
        c.rto.max = v;
    }
    if let Some(v) = get_dur(m, path, "clock_granularity")? {
        c.rto.granularity = v;
    }
    if c.rto.min > c.rto.max || c.rto.initial.0 == 0 || c.rto.max.0 == 0 {
        return Err(SimError::invalid(
            join(path, "rto_min"),
            format!(
                "min {} initial {} max {}",
                c.rto.min, c.rto.initial, c.rto.max
            ),
            "positive RTO values with rto_min <= rto_max",
        ));
    }
    if let Some(v) = get_f64(m, path, "rtt_alpha", 0.0, 1.0)? {
        c.rto.alpha = v;
    }
    if let Some(v) = get_f64(m, path, "rtt_beta", 0.0, 1.0)? {
        c.rto.beta = v;
    }
    if let Some(v) = get_f64(m, path, "rto_k", 0.0, 100.0)? {
        c.rto.k = v;
    }
    if let Some(v) = get_uint(m, path, "max_retries", 1, 100)? {
        c.max_retries = v as u32;
    }
    // The switches: true or false.
    for (key, field) in [
        ("nagle", &mut c.nagle),
        ("window_scaling", &mut c.window_scaling),
        ("timestamps", &mut c.timestamps),
        ("sack", &mut c.sack),
        ("prr", &mut c.prr),
        ("ssthresh_every_timeout", &mut c.ssthresh_every_timeout),
        ("recover_guard_all", &mut c.recover_guard_all),
        ("cwnd_packets", &mut c.cwnd_packets),
        ("nagle_minshall", &mut c.nagle_minshall),
        ("cwnd_validation", &mut c.cwnd_validation),
        (
            "rto_keeps_recovery_ssthresh",
            &mut c.rto_keeps_recovery_ssthresh,
        ),
    ] {
        if let Some(v) = get_bool(m, path, key)? {
            *field = v;
        }
    }
    if let Some(v) = m.get("ns2") {
        c.ns2.apply(v, &join(path, "ns2"))?;
    }
    c.ns2.check(c.rto.granularity, &join(path, "ns2"))?;
    if let Some(v) = get_uint(m, path, "quick_acks", 0, 1_000)? {
        c.quick_acks = v as u32;
    }
    if let Some(v) = get_choice(
        m,
        path,
        "syn_loss",
        &[
            ("keep", SynLoss::Keep),
            ("one", SynLoss::One),
            ("one_after_two", SynLoss::OneAfterTwo),
            ("timeout", SynLoss::Timeout),
        ],
        "\"keep\" (the initial window), \"one\" (RFC 5681 3.1), \"one_after_two\" (Linux) or \
         \"timeout\" (ns-2)",
    )? {
        c.syn_loss = v;
    }
    if let Some(v) = get_choice(
        m,
        path,
        "rto_restart",
        &[
            ("every", RtoRestart::Every),
            ("head", RtoRestart::Head),
            ("never", RtoRestart::Never),
        ],
        "\"every\" (every retransmission restarts the timer), \"head\" (a retransmission of \
         the first unacknowledged segment does) or \"never\" (RFC 6298 5.1)",
    )? {
        c.rto_restart = v;
    }
    if let Some(v) = get_choice(
        m,
        path,
        "ssthresh_from",
        &[
            ("flight", LossBase::Flight),
            ("cwnd", LossBase::Cwnd),
            ("window", LossBase::Window),
        ],
        "\"flight\" (RFC 5681 FlightSize), \"cwnd\" (Linux) or \"window\" (ns-2: min(cwnd, \
         the receiver's window))",
    )? {
        c.ssthresh_from = v;
    }
    if let Some(v) = get_str(m, path, "variant")? {
        // Never let one silently win over the other.
        for k in ["congestion_control", "loss_recovery"] {
            if m.contains_key(k) {
                return Err(SimError::invalid(
                    join(path, "variant"),
                    format!("{v:?} together with {k}"),
                    "either variant (a classic pair) or congestion_control/loss_recovery, not both",
                ));
            }
        }
        let (cc, lr) = classic_variant(&v).ok_or_else(|| {
            SimError::invalid(
                join(path, "variant"),
                format!("{v:?}"),
                format!("one of: {}", CLASSIC_VARIANTS.join(", ")),
            )
        })?;
        c.congestion_control = cc.into();
        c.loss_recovery = lr.into();
    }
    if let Some(v) = get_str(m, path, "congestion_control")? {
        if cc::by_name(&v).is_none() {
            let names: Vec<&str> = cc::registry().iter().map(|r| r.0).collect();
            return Err(SimError::invalid(
                join(path, "congestion_control"),
                format!("{v:?}"),
                format!("one of: {}", names.join(", ")),
            ));
        }
        c.congestion_control = v;
    }
    if let Some(v) = get_str(m, path, "loss_recovery")? {
        if recovery::by_name(&v).is_none() {
            let names: Vec<&str> = recovery::registry().iter().map(|r| r.0).collect();
            return Err(SimError::invalid(
                join(path, "loss_recovery"),
                format!("{v:?}"),
                format!("one of: {}", names.join(", ")),
            ));
        }
        c.loss_recovery = v;
    }
    // Parameters are checked against the algorithms chosen above (by constructing them).
    if let Some(v) = m.get("cc_params") {
        let p = join(path, "cc_params");
        c.cc_params = cc::parse_params(&c.congestion_control, params::as_table(v, &p)?, &p)
            .map_err(owner_hint)?;
    }
    if let Some(v) = m.get("lr_params") {
        let p = join(path, "lr_params");
        c.lr_params = recovery::parse_params(&c.loss_recovery, params::as_table(v, &p)?, &p)
            .map_err(owner_hint)?;
    }
    // The profile's defaults for the chosen algorithm's own parameters, where the scenario sets
    // none of its own (an `[apps.tcp]` table's `cc_params` replaces the scenario's whole table,
    // and so does not hide these).
    for &(name, key, ref value) in profile_cc_defaults(&pname).iter() {
        // CUBIC's packet arithmetic goes with whole-packet windows: `cwnd_packets = false`
        // alone gives CUBIC in bytes too.
        let follows_bytes = key == "packets" && !c.cwnd_packets;
        if c.congestion_control == name && !c.cc_params.contains_key(key) && !follows_bytes {
            c.cc_params.insert(key.to_string(), value.clone());
        }
    }
    for &(name, key, ref value) in profile_lr_defaults(&pname).iter() {
        if c.loss_recovery == name && !c.lr_params.contains_key(key) {
            c.lr_params.insert(key.to_string(), value.clone());
        }
    }
    // Westwood's NewReno window lasts the recovery phase, and `dupack` ends the phase at the
    // first new ACK, where that window is Reno's: refuse the pair rather than run Reno under
    // another name (WestwoodNR is loss_recovery = "newreno").
    if c.congestion_control == "westwood"
        && matches!(c.loss_recovery.as_str(), "dupack" | "rfc5681")
        && c.cc_params.get("recovery") == Some(&ParamValue::Choice("newreno".into()))
    {
        return Err(SimError::invalid(
            join(path, "cc_params.recovery"),
            "\"newreno\"",
            format!(
                "\"reno\" with loss_recovery = {:?}, whose recovery phase ends at the first new \
                 ACK, where a NewReno window is Reno's; for WestwoodNR set loss_recovery = \
                 \"newreno\"",
                c.loss_recovery
            ),
        ));
    }
    match m.get("rcv_read_rate") {
        None => {}
        Some(Value::String(s)) if s == "inf" || s == "unlimited" => c.rcv_read_rate = None,
        Some(_) => {
            let bps = required(
                get_rate(m, path, "rcv_read_rate")?,
                path,
                "rcv_read_rate",
                "",
            )?;
            c.rcv_read_rate = Some(bps as f64 / 8.0);
        }
    }
    Ok((pname, c))
}

/// Parameters of congestion-control algorithms that a profile sets unless the scenario does:
/// (algorithm, parameter, value). `linux`: CUBIC with HyStart (tcp_cubic.c, `hystart = 1`) and
/// Linux's constant Reno-friendly increase (`tcp_friendliness`) and W_cubic target at t plus
/// the minimum RTT (`bictcp_update`), its 5 % per RTT floor while no loss set W_max
/// (`bictcp_update`: cnt <= 20 while last_max_cwnd is 0), and its arithmetic in whole packets
/// (`cubic_packets.rs`). `ns2`: NewReno's window after a full ACK is ssthresh
/// (RFC 6582 option 2): ns-2.35's `NewRenoTcpAgent::recv` only clamps it to the data
/// outstanding when `exit_recovery_fix_` is set, and that defaults to 0.
pub fn profile_cc_defaults(profile: &str) -> Vec<(&'static str, &'static str, ParamValue)> {
    match profile {
        "linux" => vec![
            ("cubic", "hystart", ParamValue::Bool(true)),
            ("cubic", "alpha_to_one", ParamValue::Bool(false)),
            ("cubic", "target_min_rtt", ParamValue::Bool(true)),
            ("cubic", "unknown_max_growth", ParamValue::Bool(true)),
            ("cubic", "packets", ParamValue::Bool(true)),
        ],
        "ns2" => vec![(
            "newreno",
            "full_ack",
            ParamValue::Choice("ssthresh".to_string()),
        )],
        _ => Vec::new(),
    }
}

/// Parameters of loss-recovery plug-ins that a profile sets unless the scenario does.
/// `linux` and `ns2`: SACK recovery without RFC 6675's rescue retransmission (a MAY; Linux has
/// none, nor has ns-2's Sack1, scoreboard.cc).
pub fn profile_lr_defaults(profile: &str) -> Vec<(&'static str, &'static str, ParamValue)> {
    match profile {
        "linux" | "ns2" => vec![("sack", "rescue", ParamValue::Bool(false))],
        _ => Vec::new(),
    }
}

/// An unknown parameter that another plug-in has: say whose (a parameter given for the wrong
/// algorithm is an error, never ignored, and this tells where it belongs).
fn owner_hint(e: SimError) -> SimError {
    let SimError::UnknownField { field, allowed } = e else {
        return e;
    };
    let key = field.rsplit('.').next().unwrap_or_default();
    let mut owners = Vec::new();
    for (name, _) in cc::registry() {
        if cc::default_params(name).iter().any(|p| p.name == key) {
            owners.push(format!("congestion control {name} (cc_params)"));
        }
    }
    for (name, _) in recovery::registry() {
        if recovery::default_params(name).iter().any(|p| p.name == key) {
            owners.push(format!("loss recovery {name} (lr_params)"));
        }
    }
    let allowed = if owners.is_empty() {
        allowed
    } else {
        format!("{allowed}; {key} is a parameter of {}", owners.join(", "))
    };
    SimError::UnknownField { field, allowed }
}

// ---------------------------------------------------------------------------- error models

fn law(m: &Map<String, Value>, path: &str, per_key: &str, ber_key: &str) -> SimResult<Law> {
    match (get_prob(m, path, per_key)?, get_prob(m, path, ber_key)?) {
        (Some(p), None) => Ok(Law::Per(p)),
        (None, Some(b)) => Ok(Law::Ber(b)),
        (None, None) => Ok(Law::Per(0.0)),
        (Some(_), Some(_)) => Err(SimError::invalid(
            join(path, per_key),
            "both given",
            format!("either {per_key} or {ber_key}, not both"),
        )),
    }
}

fn error_model(v: &Value, path: &str) -> SimResult<ErrorModelConfig> {
    let m = table(v, path)?;
    let model = required(
        get_str(m, path, "model")?,
        path,
        "model",
        "one of: none, per, ber, gilbert-elliott, list",
    )?;
    match model.as_str() {
        "none" => {
            keys_ok(m, path, schema::keys("error", Some("model=none")))?;
            Ok(ErrorModelConfig::None)
        }
        "per" => {
            keys_ok(m, path, schema::keys("error", Some("model=per")))?;
            let p = required(
                get_prob(m, path, "p")?,
                path,
                "p",
                "the packet error rate, e.g. 0.01",
            )?;
            Ok(ErrorModelConfig::Law(Law::Per(p)))
        }
        "ber" => {
            keys_ok(m, path, schema::keys("error", Some("model=ber")))?;
            let b = required(
                get_prob(m, path, "ber")?,
                path,
                "ber",
                "the bit error rate, e.g. 1e-6",
            )?;
            Ok(ErrorModelConfig::Law(Law::Ber(b)))
        }
        "gilbert-elliott" => {
            keys_ok(
                m,
                path,
                schema::keys("error", Some("model=gilbert-elliott")),
            )?;
            let pgb = required(
                get_prob(m, path, "p_gb")?,
                path,
                "p_gb",
                "probability good -> bad per frame",
            )?;
            let pbg = required(
                get_prob(m, path, "p_bg")?,
                path,
                "p_bg",
                "probability bad -> good per frame",
            )?;
            let good = law(m, path, "good_per", "good_ber")?;
            let bad = match law(m, path, "bad_per", "bad_ber")? {
                Law::Per(p) if p == 0.0 && !m.contains_key("bad_per") => Law::Per(1.0),
                l => l,
            };
            let start_bad = match get_str(m, path, "start")?.as_deref() {
                None | Some("good") => false,
                Some("bad") => true,
                Some(o) => {
                    return Err(SimError::invalid(
                        join(path, "start"),
                        format!("{o:?}"),
                        "\"good\" or \"bad\"",
                    ))
                }
            };
            Ok(ErrorModelConfig::GilbertElliott {
                good,
                bad,
                p_good_to_bad: pgb,
                p_bad_to_good: pbg,
                start_bad,
            })
        }
        "list" => {
            keys_ok(m, path, schema::keys("error", Some("model=list")))?;
            let mut frames = Vec::new();
            if let Some(v) = m.get("frames") {
                let arr = v.as_array().ok_or_else(|| {
                    SimError::invalid(join(path, "frames"), v, "a list of frame indices (0-based)")
                })?;
                for (i, x) in arr.iter().enumerate() {
                    frames.push(x.as_u64().ok_or_else(|| {
                        SimError::invalid(format!("{path}.frames[{i}]"), x, "a whole number >= 0")
                    })?);
                }
            }
            frames.sort_unstable();
            frames.dedup();
            let mut segments = Vec::new();
            if let Some(v) = m.get("segments") {
                let arr = v.as_array().ok_or_else(|| {
                    SimError::invalid(
                        join(path, "segments"),
                        v,
                        "a list of {seq = N, tx = K} tables",
                    )
                })?;
                for (i, x) in arr.iter().enumerate() {
                    let p = format!("{path}.segments[{i}]");
                    let t = table(x, &p)?;
                    keys_ok(t, &p, schema::keys("error.segments[]", None))?;
                    let seq = required(
                        get_uint(t, &p, "seq", 0, u64::MAX / 2)?,
                        &p,
                        "seq",
                        "the TCP sequence number (data starts at 1)",
                    )?;
                    let tx = get_uint(t, &p, "tx", 1, 1000)?.unwrap_or(1) as u32;
                    segments.push((seq, tx));
                }
            }
            Ok(ErrorModelConfig::List { frames, segments })
        }
        other => Err(SimError::invalid(
            join(path, "model"),
            format!("{other:?}"),
            "one of: none, per, ber, gilbert-elliott, list",
        )),
    }
}

const APP_KINDS: &str = "\"ftp\", \"bulk\", \"cbr\", \"database\", \"http\" or \"udp\"";

// ---------------------------------------------------------------------------- links

fn parse_queue(v: &Value, path: &str) -> SimResult<QueueLimit> {
    const ALLOWED: &str =
        "\"unlimited\", a packet count such as \"100p\" or 100, or a byte size such as \"64KB\"";
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(k) if k >= 1 => Ok(QueueLimit::Packets(k)),
            _ => Err(SimError::invalid(path, v, ALLOWED)),
        },
        Value::String(s) if s == "unlimited" => Ok(QueueLimit::Unlimited),
        Value::String(s) => {
            if let Some(num) = s.strip_suffix('p') {
                match num.trim().parse::<u64>() {
                    Ok(k) if k >= 1 => Ok(QueueLimit::Packets(k)),
                    _ => Err(SimError::invalid(path, v, ALLOWED)),
                }
            } else {
                let b = parse_size(path, s).map_err(|_| SimError::invalid(path, v, ALLOWED))?;
                if b == 0 {
                    return Err(SimError::invalid(path, v, ALLOWED));
                }
                Ok(QueueLimit::Bytes(b))
            }
        }
        _ => Err(SimError::invalid(path, v, ALLOWED)),
    }
}

fn apply_dir(m: &Map<String, Value>, path: &str, d: &mut DirCfg) -> SimResult<()> {
    if let Some(r) = get_rate(m, path, "rate")? {
        d.rate_bps = r;
    }
    if let Some(x) = get_dur(m, path, "delay")? {
        d.delay = x;
    }
    if let Some(x) = get_uint(m, path, "mtu", 68, 65_535)? {
        d.mtu = x as u32;
    }
    if let Some(f) = get_str(m, path, "framing")? {
        d.framing = match f.as_str() {
            "ethernet" => Framing::Ethernet,
            "ppp" => Framing::Ppp,
            "none" => Framing::None,
            _ => {
                return Err(SimError::invalid(
                    join(path, "framing"),
                    format!("{f:?}"),
                    "one of: ethernet (38 B a frame), ppp (8 B), none",
                ))
            }
        };
    }
    if let Some(q) = m.get("queue") {
        d.queue = parse_queue(q, &join(path, "queue"))?;
    }
    if let Some(a) = m.get("aqm") {
        d.aqm = aqm(a, &join(path, "aqm"))?;
    }
    if let Some(e) = m.get("error") {
        d.error = error_model(e, &join(path, "error"))?;
    }
    Ok(())
}

/// A RED threshold: packets, as a number or "5p".
fn threshold(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<f64>> {
    const ALLOWED: &str = "a number of packets from 0 to 1000000, such as 5 or \"5p\"";
    let bad = |v: &Value| SimError::invalid(join(path, key), v, ALLOWED);
    let x = match m.get(key) {
        None => return Ok(None),
        Some(v @ Value::Number(n)) => n.as_f64().ok_or_else(|| bad(v))?,
        Some(v @ Value::String(s)) => s
            .strip_suffix('p')
            .and_then(|n| n.trim().parse::<f64>().ok())
            .ok_or_else(|| bad(v))?,
        Some(v) => return Err(bad(v)),
    };
    if !(0.0..=1e6).contains(&x) {
        return Err(bad(&m[key]));
    }
    Ok(Some(x))
}

fn aqm(v: &Value, path: &str) -> SimResult<AqmCfg> {
    const KINDS: &str = "one of: none (drop-tail), red, codel";
    let m = table(v, path)?;
    let kind = required(get_str(m, path, "kind")?, path, "kind", KINDS)?;
    match kind.as_str() {
        "none" => {
            keys_ok(m, path, schema::keys("aqm", Some("kind=none")))?;
            Ok(AqmCfg::None)
        }
        "red" => {
            keys_ok(m, path, schema::keys("aqm", Some("kind=red")))?;
            let d = RedCfg::default();
            let min_th = threshold(m, path, "min_th")?.unwrap_or(d.min_th);
            let max_th = threshold(m, path, "max_th")?.unwrap_or(d.max_th);
            if max_th <= min_th {
                let (key, given) = if m.contains_key("max_th") {
                    ("max_th", format!("{max_th}"))
                } else {
                    ("min_th", format!("{min_th}"))
                };
                return Err(SimError::invalid(
                    join(path, key),
                    given,
                    format!(
                        "max_th{} above min_th ({min_th} packets): set max_th too, or a lower min_th",
                        if m.contains_key("max_th") { "" } else { " (default 15)" }
                    ),
                ));
            }
            let max_p = get_prob(m, path, "max_p")?.unwrap_or(d.max_p);
            if max_p <= 0.0 {
                return Err(SimError::invalid(
                    join(path, "max_p"),
                    max_p,
                    "a probability above 0 and at most 1",
                ));
            }
            Ok(AqmCfg::Red(RedCfg {
                min_th,
                max_th,
                max_p,
                weight: get_f64(m, path, "weight", 1e-9, 1.0)?.unwrap_or(d.weight),
                gentle: get_bool(m, path, "gentle")?.unwrap_or(d.gentle),
                wait: get_bool(m, path, "wait")?.unwrap_or(d.wait),
                mean_packet_size: match get_size(m, path, "mean_packet_size")? {
                    None => d.mean_packet_size,
                    Some(b) if (1..=65_535).contains(&b) => b as u32,
                    Some(b) => {
                        return Err(SimError::invalid(
                            join(path, "mean_packet_size"),
                            b,
                            "a size from 1 B to 65535 B",
                        ))
                    }
                },
            }))
        }
        "codel" => {
            keys_ok(m, path, schema::keys("aqm", Some("kind=codel")))?;
            let d = crate::net::codel::CoDelCfg::default();
            let in_range = |key: &str, lo: Dur, hi: Dur, what: &str| -> SimResult<Option<Dur>> {
                match get_dur(m, path, key)? {
                    Some(x) if x < lo || x > hi => {
                        Err(SimError::invalid(join(path, key), format!("{x}"), what))
                    }
                    x => Ok(x),
                }
            };
            let target = in_range(
                "target",
                Dur::from_micros(1),
                Dur::from_secs(10),
                "1 us to 10 s",
            )?
            .unwrap_or(d.target);
            let interval = in_range(
                "interval",
                Dur::from_micros(1),
                Dur::from_secs(100),
                "1 us to 100 s",
            )?
            .unwrap_or(d.interval);
            if interval <= target {
                return Err(SimError::invalid(
                    join(
                        path,
                        if m.contains_key("interval") {
                            "interval"
                        } else {
                            "target"
                        },
                    ),
                    format!("{interval} with target {target}"),
                    "an interval longer than the target (RFC 8289: 100 ms and 5 ms)",
                ));
            }
            let linux = match get_str(m, path, "law")?.as_deref() {
                None | Some("rfc") => false,
                Some("linux") => true,
                Some(o) => {
                    return Err(SimError::invalid(
                        join(path, "law"),
                        format!("{o:?}"),
                        "\"rfc\" (RFC 8289's pseudocode) or \"linux\" (Linux's and ns-3's \
                         fixed-point law)",
                    ))
                }
            };
            Ok(AqmCfg::CoDel(crate::net::codel::CoDelCfg {
                target,
                interval,
                linux,
            }))
        }
        other => Err(SimError::invalid(
            join(path, "kind"),
            format!("{other:?}"),
            KINDS,
        )),
    }
}

// ---------------------------------------------------------------------------- scenario

/// The node names for an error message: all of them, or the first 12 and how many there are.
fn name_list(nodes: &[NodeCfg]) -> String {
    const SHOWN: usize = 12;
    let first: Vec<&str> = nodes.iter().take(SHOWN).map(|n| n.name.as_str()).collect();
    if nodes.len() > SHOWN {
        format!("{}, ... ({} nodes)", first.join(", "), nodes.len())
    } else {
        first.join(", ")
    }
}

impl Scenario {
    pub fn from_toml_str(s: &str) -> SimResult<Scenario> {
        let v: toml::Value = toml::from_str(s).map_err(|e| SimError::Parse {
            format: "TOML",
            message: e.to_string().trim().to_string(),
        })?;
        let j = serde_json::to_value(v).map_err(|e| SimError::Parse {
            format: "TOML",
            message: e.to_string(),
        })?;
        Self::from_value(j)
    }

    pub fn from_json_str(s: &str) -> SimResult<Scenario> {
        let j: Value = serde_json::from_str(s).map_err(|e| SimError::Parse {
            format: "JSON",
            message: e.to_string(),
        })?;
        Self::from_value(j)
    }

    /// The scenario as given, as pretty JSON (same structure as the TOML file).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.raw).unwrap_or_default()
    }

    pub fn raw(&self) -> &Value {
        &self.raw
    }

    pub fn seed(&self) -> u64 {
        self.run.seed
    }

    /// Give the scenario another seed: the same as parsing its text with that seed. What parsing
    /// drew from the seed (profiles' hosts and start times, the transfers of a repeating ftp
    /// application) is drawn again by parsing the text again, which can fail with the new draws
    /// (more transfers than allowed, a transfer's name taken): the error is returned and the
    /// scenario is left as it was. Anything else needs only the seed field.
    pub fn set_seed(&mut self, seed: u64) -> SimResult<()> {
        if seed != self.run.seed && profiles::draws_from_seed(&self.raw) {
            *self = Scenario::from_value_with_seed(self.raw.clone(), seed)?;
        } else {
            self.write_seed(seed);
        }
        Ok(())
    }

    /// Parse `v` with its `run.seed` set to `seed` (a `run` table made if there is none).
    pub fn from_value_with_seed(mut v: Value, seed: u64) -> SimResult<Scenario> {
        if let Some(root) = v.as_object_mut() {
            let run = root.entry("run").or_insert_with(|| json!({}));
            if let Some(run) = run.as_object_mut() {
                run.insert("seed".into(), json!(seed));
            }
        }
        Scenario::from_value(v)
    }

    /// The seed in the parsed settings and in the text kept for `to_json`.
    fn write_seed(&mut self, seed: u64) {
        self.run.seed = seed;
        if let Some(r) = self.raw.as_object_mut() {
            let run = r.entry("run").or_insert_with(|| json!({}));
            if let Some(o) = run.as_object_mut() {
                o.insert("seed".into(), json!(seed));
            }
        }
    }

    pub fn from_value(v: Value) -> SimResult<Scenario> {
        let root = table(&v, "scenario")?;
        keys_ok(root, "", schema::keys("", None))?;

        // [run]
        let empty = Value::Object(Map::new());
        let runv = root.get("run").unwrap_or(&empty);
        let rm = table(runv, "run")?;
        keys_ok(rm, "run", schema::keys("run", None))?;
        let run = RunCfg {
            name: get_str(rm, "run", "name")?.unwrap_or_else(|| "scenario".into()),
            seed: get_uint(rm, "run", "seed", 0, u64::MAX)?.unwrap_or(1),
            stop_time: get_dur(rm, "run", "stop_time")?.unwrap_or(Dur::from_secs(100_000)),
        };
        if run.stop_time.0 == 0 {
            return Err(SimError::invalid(
                "run.stop_time",
                "0s",
                "a positive duration",
            ));
        }

        // [[nodes]]
        let mut nodes = Vec::new();
        let nv = root.get("nodes").ok_or_else(|| SimError::MissingField {
            field: "nodes".into(),
            allowed: "a list of [[nodes]] with name and kind (host or router)".into(),
        })?;
        let narr = nv
            .as_array()
            .ok_or_else(|| SimError::invalid("nodes", nv, "a list of [[nodes]] tables"))?;
        // Names are looked up through hash sets and maps, so that parsing stays linear in the
        // size of the scenario (a dumbbell of 10,000 pairs has 20,002 nodes and 20,001 links).
        let mut node_names: HashMap<String, usize> = HashMap::with_capacity(narr.len());
        for (i, n) in narr.iter().enumerate() {
            let p = format!("nodes[{i}]");
            let m = table(n, &p)?;
            keys_ok(m, &p, schema::keys("nodes[]", None))?;
            let name = required(get_str(m, &p, "name")?, &p, "name", "a unique node name")?;
            if node_names.insert(name.clone(), nodes.len()).is_some() {
                return Err(SimError::invalid(
                    join(&p, "name"),
                    format!("{name:?}"),
                    "a name not used by another node",
                ));
            }
            let kind = match get_str(m, &p, "kind")?.as_deref() {
                None | Some("host") => NodeKind::Host,
                Some("router") => NodeKind::Router,
                Some("switch") => NodeKind::Switch,
                Some(o) => {
                    return Err(SimError::invalid(
                        join(&p, "kind"),
                        format!("{o:?}"),
                        "\"host\", \"router\" or \"switch\"",
                    ))
                }
            };
            let processing_delay = get_dur(m, &p, "processing_delay")?.unwrap_or(Dur::ZERO);
            if processing_delay > Dur::ZERO && !kind.forwards() {
                return Err(SimError::invalid(
                    join(&p, "processing_delay"),
                    format!(
                        "{:?} on a host",
                        m["processing_delay"].as_str().unwrap_or("")
                    ),
                    "a router or switch (hosts do not forward)",
                ));
            }
            let rules = crate::net::filter::parse_rules(m, &p, kind.forwards())?;
            nodes.push(NodeCfg {
                name,
                kind,
                processing_delay,
                rules,
            });
        }
        if nodes.len() < 2 {
            return Err(SimError::invalid(
                "nodes",
                nodes.len(),
                "at least two nodes",
            ));
        }
        if nodes.len() > u16::MAX as usize {
            return Err(SimError::invalid(
                "nodes",
                nodes.len(),
                "at most 65535 nodes",
            ));
        }
        let node_idx = |p: &str, name: &str| -> SimResult<usize> {
            node_names.get(name).copied().ok_or_else(|| {
                SimError::invalid(
                    p,
                    format!("{name:?}"),
                    format!("the name of a node: {}", name_list(&nodes)),
                )
            })
        };

        // [[links]]
        let mut links = Vec::new();
        let lv = root.get("links").ok_or_else(|| SimError::MissingField {
            field: "links".into(),
            allowed: "a list of [[links]] joining nodes a and b".into(),
        })?;
        let larr = lv
            .as_array()
            .ok_or_else(|| SimError::invalid("links", lv, "a list of [[links]] tables"))?;
        let mut link_names: HashSet<String> = HashSet::with_capacity(larr.len());
        for (i, l) in larr.iter().enumerate() {
            let p = format!("links[{i}]");
            let m = table(l, &p)?;
            let mut allowed = schema::keys("links[]", None).to_vec();
            allowed.extend(schema::keys("direction", None));
            keys_ok(m, &p, &allowed)?;
            let a_name = required(get_str(m, &p, "a")?, &p, "a", "the node at one end")?;
            let b_name = required(get_str(m, &p, "b")?, &p, "b", "the node at the other end")?;
            let a = node_idx(&join(&p, "a"), &a_name)?;
            let b = node_idx(&join(&p, "b"), &b_name)?;
            if a == b {
                return Err(SimError::invalid(
                    join(&p, "b"),
                    format!("{b_name:?}"),
                    "a node other than a",
                ));
            }
            let name = get_str(m, &p, "name")?.unwrap_or_else(|| format!("{a_name}-{b_name}"));
            if !link_names.insert(name.clone()) {
                return Err(SimError::invalid(
                    join(&p, "name"),
                    format!("{name:?}"),
                    "a name not used by another link",
                ));
            }
            let mut base = DirCfg {
                rate_bps: 0,
                delay: Dur::ZERO,
                mtu: 1500,
                framing: Framing::Ethernet,
                queue: QueueLimit::Packets(100),
                aqm: AqmCfg::None,
                error: ErrorModelConfig::None,
            };
            apply_dir(m, &p, &mut base)?;
            let mut dirs = [base.clone(), base];
            for (k, key) in ["ab", "ba"].iter().enumerate() {
                if let Some(dv) = m.get(*key) {
                    let dp = join(&p, key);
                    let dm = table(dv, &dp)?;
                    keys_ok(dm, &dp, schema::keys("direction", None))?;
                    apply_dir(dm, &dp, &mut dirs[k])?;
                }
                if dirs[k].rate_bps == 0 {
                    return Err(SimError::MissingField {
                        field: join(&p, "rate"),
                        allowed: "a bit rate such as \"10Mbps\" (for the link, or per direction in ab/ba)".into(),
                    });
                }
                // RED that can never act: its average cannot reach min_th below the limit.
                if let (AqmCfg::Red(r), QueueLimit::Packets(n)) = (&dirs[k].aqm, dirs[k].queue) {
                    if r.min_th >= n as f64 {
                        let own = m.get(*key).and_then(Value::as_object);
                        let at = if own.is_some_and(|d| d.contains_key("aqm")) {
                            join(&p, key)
                        } else {
                            p.clone()
                        };
                        return Err(SimError::invalid(
                            format!("{at}.aqm.min_th"),
                            r.min_th,
                            format!("below the queue limit ({n} packets), or RED never drops"),
                        ));
                    }
                }
            }
            links.push(LinkCfg { name, a, b, dirs });
        }

        // [tcp]
        let tcp_base = root.get("tcp");
        if let Some(t) = tcp_base {
            tcp_config(table(t, "tcp")?, "tcp")?;
        }

        // [[apps]]
        let mut apps = Vec::new();
        let generated = profiles::expand(root, run.seed)?;
        let empty_list = Value::Array(Vec::new());
        let av = match root.get("apps") {
            Some(v) => v,
            None if !generated.is_empty() => &empty_list,
            None => {
                return Err(SimError::MissingField {
                    field: "apps".into(),
                    allowed: format!("a list of [[apps]] (kind = {APP_KINDS}), or [[profiles]]"),
                })
            }
        };
        let aarr = av
            .as_array()
            .ok_or_else(|| SimError::invalid("apps", av, "a list of [[apps]] tables"))?;
        let listed: Vec<(String, &Value)> = aarr
            .iter()
            .enumerate()
            .map(|(i, a)| (format!("apps[{i}]"), a))
            .chain(generated.iter().map(|(p, a)| (p.clone(), a)))
            .collect();
        // Repeating ftp applications become one application per transfer.
        let mut entries: Vec<(String, Cow<'_, Value>)> = Vec::with_capacity(listed.len());
        for (p, a) in listed {
            let repeated = match a.as_object() {
                Some(m) if m.get("kind").and_then(Value::as_str) == Some("ftp") => {
                    profiles::expand_ftp(m, &p, run.seed, run.stop_time.as_secs_f64())?
                }
                _ => None,
            };
            match repeated {
                Some(apps) => entries.extend(apps.into_iter().map(|a| (p.clone(), Cow::Owned(a)))),
                None => entries.push((p, Cow::Borrowed(a))),
            }
        }
        let mut app_names: HashSet<String> = HashSet::with_capacity(entries.len());
        for (i, (p, a)) in entries.into_iter().enumerate() {
            let m = table(&a, &p)?;
            keys_ok(m, &p, schema::keys("apps[]", None))?;
            let kind_s = required(get_str(m, &p, "kind")?, &p, "kind", APP_KINDS)?;
            let cname = required(
                get_str(m, &p, "client")?,
                &p,
                "client",
                "the node that opens the connection",
            )?;
            let sname = required(
                get_str(m, &p, "server")?,
                &p,
                "server",
                "the node that accepts it",
            )?;
            let client = node_idx(&join(&p, "client"), &cname)?;
            let server = node_idx(&join(&p, "server"), &sname)?;
            for (key, idx) in [("client", client), ("server", server)] {
                if nodes[idx].kind != NodeKind::Host {
                    return Err(SimError::invalid(
                        join(&p, key),
                        format!("{:?}", nodes[idx].name),
                        "a node of kind \"host\"",
                    ));
                }
            }
            if client == server {
                return Err(SimError::invalid(
                    join(&p, "server"),
                    format!("{sname:?}"),
                    "a host other than the client",
                ));
            }
            let kind = match kind_s.as_str() {
                "ftp" => {
                    keys_ok(m, &p, schema::keys("apps[]", Some("kind=ftp")))?;
                    let size = required(
                        get_size(m, &p, "size")?,
                        &p,
                        "size",
                        "the file size, e.g. \"10MB\"",
                    )?;
                    let request_size = get_size(m, &p, "request_size")?.unwrap_or(64);
                    if request_size == 0 {
                        return Err(SimError::invalid(
                            join(&p, "request_size"),
                            0,
                            "at least 1 byte",
                        ));
                    }
                    AppKind::Ftp { size, request_size }
                }
                "bulk" => {
                    keys_ok(m, &p, schema::keys("apps[]", Some("kind=bulk")))?;
                    AppKind::Bulk {
                        size: get_size(m, &p, "size")?,
                    }
                }
                "cbr" => {
                    keys_ok(m, &p, schema::keys("apps[]", Some("kind=cbr")))?;
                    let packet_size = required(
                        get_size(m, &p, "packet_size")?,
                        &p,
                        "packet_size",
                        "bytes the application writes each interval, e.g. 1460",
                    )?;
                    if packet_size == 0 {
                        return Err(SimError::invalid(
                            join(&p, "packet_size"),
                            0,
                            "at least 1 byte",
                        ));
                    }
                    let interval = required(
                        get_dur(m, &p, "interval")?,
                        &p,
                        "interval",
                        "the time between writes, e.g. \"1168us\"",
                    )?;
                    if interval.0 == 0 {
                        return Err(SimError::invalid(
                            join(&p, "interval"),
                            "0s",
                            "a positive duration",
                        ));
                    }
                    AppKind::Cbr {
                        packet_size,
                        interval,
                        stop: get_dur(m, &p, "stop")?,
                    }
                }
                "database" | "http" => AppKind::Txn(txn::parse(m, &p, &kind_s)?),
                "udp" => {
                    if m.contains_key("tcp") {
                        return Err(SimError::invalid(
                            join(&p, "tcp"),
                            "a table",
                            "no tcp settings: a udp application has no TCP connection",
                        ));
                    }
                    AppKind::Udp(udp::parse(m, &p)?)
                }
                other => {
                    return Err(SimError::invalid(
                        join(&p, "kind"),
                        format!("{other:?}"),
                        APP_KINDS,
                    ))
                }
            };
            let over = m.get("tcp");
            if let Some(o) = over {
                table(o, &join(&p, "tcp"))?;
            }
            let merged = merged_tcp(tcp_base, over);
            let tpath = if over.is_some() {
                join(&p, "tcp")
            } else {
                "tcp".into()
            };
            let (profile, tcp) = tcp_config(&merged, &tpath)?;
            let name = get_str(m, &p, "name")?.unwrap_or_else(|| format!("app{i}"));
            if !app_names.insert(name.clone()) {
                return Err(SimError::invalid(
                    join(&p, "name"),
                    format!("{name:?}"),
                    "a name not used by another app",
                ));
            }
            let port = match get_uint(m, &p, "port", 1, 65_535)? {
                Some(n) => n as u16,
                None => default_port(&kind),
            };
            let group = match get_str(m, &p, "group")? {
                Some(g) if g.trim().is_empty() => {
                    return Err(SimError::invalid(
                        join(&p, "group"),
                        format!("{g:?}"),
                        "a non-empty name",
                    ))
                }
                Some(g) => g,
                None => name.clone(),
            };
            apps.push(AppCfg {
                name,
                kind,
                client,
                server,
                start: get_dur(m, &p, "start")?.unwrap_or(Dur::ZERO),
                tcp,
                profile,
                port,
                group,
            });
        }
        if apps.is_empty() {
            return Err(SimError::invalid("apps", "[]", "at least one application"));
        }
        for (i, n) in nodes.iter_mut().enumerate() {
            crate::net::filter::resolve(&mut n.rules, &format!("nodes[{i}]"), &apps)?;
        }

        // [output]
        let ov = root.get("output").unwrap_or(&empty);
        let om = table(ov, "output")?;
        keys_ok(om, "output", schema::keys("output", None))?;
        let output = OutputCfg {
            trace: get_bool(om, "output", "trace")?.unwrap_or(false),
            trace_interval: get_dur(om, "output", "trace_interval")?,
            events: get_bool(om, "output", "events")?.unwrap_or(true),
            packets: get_bool(om, "output", "packets")?.unwrap_or(false),
            queues: get_bool(om, "output", "queues")?.unwrap_or(false),
            link_series: get_dur(om, "output", "link_series")?,
            app_series: get_dur(om, "output", "app_series")?,
            max_rows: get_uint(om, "output", "max_rows", 1, 1_000_000_000)?
                .unwrap_or(DEFAULT_MAX_ROWS as u64) as usize,
        };
        if output.link_series == Some(Dur::ZERO) {
            return Err(SimError::invalid(
                "output.link_series",
                "0s",
                "a positive duration such as \"1s\", or leave it out for no link series",
            ));
        }
        if output.app_series == Some(Dur::ZERO) {
            return Err(SimError::invalid(
                "output.app_series",
                "0s",
                "a positive duration such as \"10s\", or leave it out for no application series",
            ));
        }
        if output.trace_interval == Some(Dur::ZERO) {
            return Err(SimError::invalid(
                "output.trace_interval",
                "0s",
                "a positive duration, or leave it out to sample on change",
            ));
        }

        let mut sc = Scenario {
            run,
            nodes,
            links,
            apps,
            output,
            raw: v,
        };
        let seed = sc.run.seed;
        sc.write_seed(seed);
        Ok(sc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_whose_draws_do_not_parse_is_refused_and_changes_nothing() {
        // Seed 1 draws three transfers (f:1 to f:3); seed 2 draws a fourth, whose name another
        // application has.
        let text = |seed: u64| {
            serde_json::json!({
                "run": {"seed": seed, "stop_time": "30s"},
                "nodes": [{"name": "c"}, {"name": "s"}],
                "links": [{"name": "l", "a": "c", "b": "s", "rate": "10Mbps"}],
                "apps": [{"name": "f", "kind": "ftp", "client": "c", "server": "s",
                          "size": "20kB",
                          "inter_request": {"dist": "exponential", "mean": "10s"}},
                         {"name": "f:4", "kind": "bulk", "client": "c", "server": "s",
                          "size": "1kB"}],
            })
            .to_string()
        };
        let one = Scenario::from_json_str(&text(1)).unwrap();
        let err = Scenario::from_json_str(&text(2)).unwrap_err();
        let mut sc = one.clone();
        assert_eq!(sc.set_seed(2).unwrap_err(), err);
        assert_eq!(sc, one);
        // Without a run table, the seed is put in one.
        let mut v: Value = serde_json::from_str(&text(1)).unwrap();
        v.as_object_mut().unwrap().remove("run");
        v["apps"].as_array_mut().unwrap().truncate(1);
        let sc = Scenario::from_value_with_seed(v, 3).unwrap();
        assert_eq!(sc.seed(), 3);
    }

    #[test]
    fn a_new_seed_draws_again_what_parsing_drew_from_the_seed() {
        // A repeating ftp application is expanded into transfers at times drawn from the seed:
        // setting the seed after parsing gives what parsing with that seed gives.
        let text = |seed: u64| {
            serde_json::json!({
                "run": {"seed": seed, "stop_time": "600s"},
                "nodes": [{"name": "c"}, {"name": "s"}],
                "links": [{"name": "l", "a": "c", "b": "s", "rate": "10Mbps"}],
                "apps": [{"name": "f", "kind": "ftp", "client": "c", "server": "s",
                          "size": "10kB", "count": 4,
                          "inter_request": {"dist": "exponential", "mean": "30s"}}],
            })
            .to_string()
        };
        let mut sc = Scenario::from_json_str(&text(1)).unwrap();
        let direct = Scenario::from_json_str(&text(2)).unwrap();
        assert_ne!(format!("{:?}", sc.apps), format!("{:?}", direct.apps));
        sc.set_seed(2).unwrap();
        assert_eq!(sc, direct);
        // Without draws at parse time, the seed field alone: the same scenario all the same.
        let plain = |seed: u64| {
            text(seed).replace(r#""count":4,"#, "").replace(
                r#","inter_request":{"dist":"exponential","mean":"30s"}"#,
                "",
            )
        };
        assert!(!plain(1).contains("inter_request"), "{}", plain(1));
        let mut sc = Scenario::from_json_str(&plain(1)).unwrap();
        sc.set_seed(2).unwrap();
        assert_eq!(sc, Scenario::from_json_str(&plain(2)).unwrap());
    }

    const BASE: &str = r#"
[run]
seed = 3
[[nodes]]
name = "c"
[[nodes]]
name = "s"
[[links]]
a = "c"
b = "s"
rate = "10Mbps"
delay = "10ms"
[[apps]]
kind = "ftp"
client = "c"
server = "s"
size = "1MB"
"#;

    fn err(extra: &str) -> String {
        Scenario::from_toml_str(&format!("{BASE}{extra}"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn minimal_scenario_parses_with_rfc_defaults() {
        let s = Scenario::from_toml_str(BASE).unwrap();
        assert_eq!(s.run.seed, 3);
        assert_eq!(s.links[0].dirs[0].rate_bps, 10_000_000);
        assert_eq!(s.apps[0].profile, "rfc");
        assert_eq!(s.apps[0].tcp.initial_cwnd, 3);
        assert_eq!(s.apps[0].tcp.congestion_control, "reno");
    }

    #[test]
    fn profile_then_overrides() {
        let s = Scenario::from_toml_str(&format!(
            "{BASE}[tcp]\nprofile = \"riverbed\"\nrcv_buf = \"16KiB\"\n"
        ))
        .unwrap();
        let t = &s.apps[0].tcp;
        assert_eq!(t.rcv_buf, 16384);
        assert_eq!(t.initial_cwnd, 2);
        assert_eq!(t.rto.initial, Dur::from_secs(3));
    }

    #[test]
    fn errors_name_field_value_and_allowed() {
        let e = Scenario::from_toml_str(&BASE.replace("10Mbps", "-10Mbps"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("links[0].rate") && e.contains("-10Mbps") && e.contains("bit rate"),
            "{e}"
        );
        let e = err("[links.ab]\nerror = { model = \"ber\", ber = 2.0 }\n");
        // [links.ab] after [[apps]] attaches to... TOML puts it on the last links entry.
        assert!(e.contains("ber") && e.contains("between 0 and 1"), "{e}");
        let e = err("[tcp]\nmsss = 1460\n");
        assert!(
            e.contains("tcp.msss") && e.contains("unknown field") && e.contains("mss"),
            "{e}"
        );
        let e = Scenario::from_toml_str("[run\nseed=1").unwrap_err();
        assert_eq!(e.kind(), "parse");
        let e = err("[tcp]\ncongestion_control = \"warp\"\n");
        assert!(
            e.contains("tcp.congestion_control") && e.contains("\"warp\"") && e.contains("reno"),
            "{e}"
        );
    }

    #[test]
    fn variant_and_an_explicit_pair_conflict_but_an_app_variant_replaces_the_pair() {
        let e = err("[tcp]\nvariant = \"sack\"\ncongestion_control = \"cubic\"\n");
        assert!(e.contains("tcp.variant") && e.contains("not both"), "{e}");
        let toml = format!(
            "{}[tcp]\ncongestion_control = \"cubic\"\nloss_recovery = \"dupack\"\n",
            BASE.replace(
                "size = \"1MB\"",
                "size = \"1MB\"\n[apps.tcp]\nvariant = \"sack\"",
            )
        );
        let s = Scenario::from_toml_str(&toml).unwrap();
        assert_eq!(
            (
                s.apps[0].tcp.congestion_control.as_str(),
                s.apps[0].tcp.loss_recovery.as_str()
            ),
            ("newreno", "sack")
        );
    }

    #[test]
    fn cc_params_are_parsed_for_the_chosen_algorithm() {
        use crate::tcp::params::ParamValue;
        let s = Scenario::from_toml_str(&format!(
            "{BASE}[tcp]\ncongestion_control = \"westwood\"\ncc_params = {{ tau = \"0.5s\" }}\n"
        ))
        .unwrap();
        let t = &s.apps[0].tcp;
        assert_eq!(t.cc_params.len(), 1);
        assert_eq!(
            t.cc_params.get("tau"),
            Some(&ParamValue::Duration(Dur::from_millis(500)))
        );
        assert!(t.lr_params.is_empty());
        // Without the table: no parameters (the algorithm's defaults).
        let s = Scenario::from_toml_str(BASE).unwrap();
        assert!(s.apps[0].tcp.cc_params.is_empty() && s.apps[0].tcp.lr_params.is_empty());
        // A variant's algorithm takes its parameters; so does a profile's.
        let s = Scenario::from_toml_str(&format!(
            "{BASE}[tcp]\nvariant = \"newreno\"\ncc_params = {{ full_ack = \"ssthresh\" }}\n"
        ))
        .unwrap();
        assert_eq!(s.apps[0].tcp.cc_params.len(), 1);
        let s = Scenario::from_toml_str(&format!(
            "{BASE}[tcp]\nprofile = \"linux\"\ncc_params = {{ beta = 0.5 }}\nlr_params = {{ reo_wnd_mult = 2 }}\n"
        ))
        .unwrap();
        // The scenario's beta, and the linux profile's CUBIC defaults it does not set.
        let p = &s.apps[0].tcp.cc_params;
        assert_eq!(p.get("beta"), Some(&ParamValue::Number(0.5)));
        assert_eq!(p.get("hystart"), Some(&ParamValue::Bool(true)));
        assert_eq!(p.get("alpha_to_one"), Some(&ParamValue::Bool(false)));
        assert_eq!(p.get("unknown_max_growth"), Some(&ParamValue::Bool(true)));
        assert_eq!(p.get("packets"), Some(&ParamValue::Bool(true)));
        assert_eq!(p.len(), 6);
        let own = Scenario::from_toml_str(&format!(
            "{BASE}[tcp]\nprofile = \"linux\"\ncc_params = {{ hystart = false }}\n"
        ))
        .unwrap();
        assert_eq!(
            own.apps[0].tcp.cc_params.get("hystart"),
            Some(&ParamValue::Bool(false))
        );
        assert_eq!(
            s.apps[0].tcp.lr_params.get("reo_wnd_mult"),
            Some(&ParamValue::Integer(2))
        );
        let t = Scenario::from_json_str(&s.to_json()).unwrap();
        assert_eq!(s, t);
    }

    #[test]
    fn cc_params_errors_name_the_field_the_value_and_what_is_allowed() {
        let ww = "[tcp]\ncongestion_control = \"westwood\"\n";
        // Unknown parameter: the algorithm's parameters are listed.
        let e = Scenario::from_toml_str(&format!("{BASE}{ww}cc_params = {{ taux = \"1s\" }}\n"))
            .unwrap_err();
        assert_eq!(e.kind(), "unknown_field");
        let s = e.to_string();
        assert!(
            s.contains("tcp.cc_params.taux")
                && s.contains("tau, recovery")
                && s.contains("westwood"),
            "{s}"
        );
        // Out of range: field, value and range.
        let e = Scenario::from_toml_str(&format!("{BASE}{ww}cc_params = {{ tau = \"200s\" }}\n"))
            .unwrap_err();
        assert_eq!(e.kind(), "invalid_value");
        let s = e.to_string();
        assert!(
            s.contains("tcp.cc_params.tau") && s.contains("200s") && s.contains("from 1ms to 100s"),
            "{s}"
        );
        let e = err("[tcp]\ncongestion_control = \"cubic\"\ncc_params = { beta = 1.0 }\n");
        assert!(
            e.contains("tcp.cc_params.beta") && e.contains("(0, 1)"),
            "{e}"
        );
        let e =
            err("[tcp]\ncongestion_control = \"cubic\"\ncc_params = { fast_convergence = 1 }\n");
        assert!(
            e.contains("tcp.cc_params.fast_convergence") && e.contains("true or false"),
            "{e}"
        );
        // Vegas: alpha <= beta.
        let e = err("[tcp]\ncongestion_control = \"vegas\"\ncc_params = { alpha = 4, beta = 2 }\n");
        assert!(
            e.contains("tcp.cc_params.beta") && e.contains("at least alpha"),
            "{e}"
        );
        // Parameters of another algorithm: an error that says whose they are.
        let e = err("[tcp]\ncongestion_control = \"cubic\"\ncc_params = { tau = \"1s\" }\n");
        assert!(
            e.contains("tcp.cc_params.tau")
                && e.contains("c, beta, fast_convergence, reno_friendly")
                && e.contains("tau is a parameter of congestion control westwood"),
            "{e}"
        );
        let e = err("[tcp]\ncc_params = { beta = 0.5 }\n");
        assert!(
            e.contains("tcp.cc_params.beta") && e.contains("reno has no parameters"),
            "{e}"
        );
        let e = err("[tcp]\nlr_params = { tlp = false }\n");
        assert!(
            e.contains("tcp.lr_params.tlp")
                && e.contains("dupack has no parameters")
                && e.contains("loss recovery rack-tlp (lr_params)"),
            "{e}"
        );
        let e = err("[tcp]\ncc_params = 3\n");
        assert!(
            e.contains("tcp.cc_params") && e.contains("a table of parameters"),
            "{e}"
        );
        // Per application, the application's path.
        let e = Scenario::from_toml_str(&BASE.replace(
            "size = \"1MB\"",
            "size = \"1MB\"\n[apps.tcp]\ncongestion_control = \"bbr\"\ncc_params = { min_pipe_cwnd = 0 }",
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("apps[0].tcp.cc_params.min_pipe_cwnd") && e.contains("from 1 to 100"),
            "{e}"
        );
    }

    #[test]
    fn json_round_trip_is_identical() {
        let s = Scenario::from_toml_str(BASE).unwrap();
        let t = Scenario::from_json_str(&s.to_json()).unwrap();
        assert_eq!(s, t);
    }
}
