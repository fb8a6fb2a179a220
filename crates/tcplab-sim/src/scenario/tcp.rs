//! The `[tcp]` section (and each application's `[apps.tcp]`): a stack profile's defaults
//! (`profile()`, `PROFILES`), then every field given over them, checked against the congestion
//! control and loss recovery chosen.

use serde_json::{Map, Value};

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::scenario::fields::{
    get_bool, get_choice, get_dur, get_f64, get_rate, get_size, get_str, get_uint, join, keys_ok,
    required, table,
};
use crate::scenario::schema;
use crate::tcp::cc::{self, CaRule};
use crate::tcp::ns2::Ns2Rules;
use crate::tcp::params::{self, ParamValue, Params};
use crate::tcp::recovery;
use crate::tcp::rto::RtoConfig;
use crate::tcp::{LossBase, RtoRestart, SynLoss, TcpConfig};

/// The scenario-wide `[tcp]` table, checked on its own (its errors name `tcp.<field>`, not an
/// application's); every application's settings are merged from it ([`merged_tcp`]).
pub(super) fn parse(root: &Map<String, Value>) -> SimResult<Option<&Value>> {
    let base = root.get("tcp");
    if let Some(t) = base {
        tcp_config(table(t, "tcp")?, "tcp")?;
    }
    Ok(base)
}

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
pub(super) fn merged_tcp(base: Option<&Value>, over: Option<&Value>) -> Map<String, Value> {
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

pub(super) fn tcp_config(m: &Map<String, Value>, path: &str) -> SimResult<(String, TcpConfig)> {
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

#[cfg(test)]
mod tests {
    use crate::engine::time::Dur;
    use crate::scenario::tests::{err, BASE};
    use crate::scenario::Scenario;

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
}
