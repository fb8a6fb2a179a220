//! The step-by-step API: one simulated TCP endpoint (the system under test) whose peer is the
//! caller, as packetdrill plays the remote side of a kernel socket or a student steps a
//! connection in a notebook.
//!
//! The endpoint is built from a `[tcp]` table exactly as a scenario builds its applications'
//! (the same parsing, profile and plug-ins); the caller advances simulated time
//! ([`Stepper::advance`]: the endpoint's timers fire, each at its own time), injects segments
//! ([`Stepper::inject`]), reads what the endpoint sent ([`Stepper::take_sent`]), acts as its
//! application (listen, connect, accept, write, read, close, shutdown, socket options) and
//! reads a `tcp_info` view with Linux's names and units ([`Stepper::tcp_info`]).
//!
//! Sequence numbers are the model's: the endpoint's initial sequence number is 0 (its SYN is
//! sequence 0, its first data byte 1, as packetdrill's relative numbers), the peer's is what
//! its SYN says. Timestamps tick in microseconds from 1 at time 0. The core has no PSH bit:
//! segments are reported with PSH where Linux would set it (the end of a write, the end of a
//! TSO packet; see `psh`). `close` is Linux's `tcp_close`: in SYN-SENT the connection is
//! deleted without a segment; with received data unread (what [`Stepper::read`] has not
//! taken) it sends a RST in place of the FIN (RFC 2525 section 2.17). Once closed (so, reset,
//! or after LAST-ACK) the endpoint answers a segment as a host with no such connection, with
//! a RST (RFC 9293 section 3.10.7.1). After `shutdown(SHUT_RD)` data is still taken in and
//! read. Not modelled: urgent data, ECN (E and W flags are accepted and ignored), D-SACK
//! blocks, the challenge ACK for an unacceptable RST (it is ignored), `SO_LINGER`,
//! simultaneous open.
//!
//! Misuse (a segment before the connection exists, a bad option, time going backwards) is a
//! [`SimError::Step`] naming the call; nothing here panics on the caller's input.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::engine::event::TimerKind;
use crate::engine::queue::EventQueue;
use crate::engine::time::SimTime;
use crate::error::{SimError, SimResult};
use crate::net::packet::{Packet, SackBlock, ACK, FIN, RST, SYN};
use crate::scenario::Scenario;
use crate::tcp::{cc, recovery, Ctx, Endpoint, State, TcpConfig};

use super::psh::{Pace, PshMarker, MIN_TSO_SEGS};

/// A TCP option of a segment, as packetdrill writes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TcpOption {
    Mss(u32),
    WScale(u8),
    SackOk,
    Timestamp { val: u64, ecr: u64 },
    Sack(Vec<(u64, u64)>),
    Nop,
    Eol,
}

impl TcpOption {
    /// Bytes on the wire (RFC 9293 3.2, RFC 7323, RFC 2018).
    fn wire_len(&self) -> u32 {
        match self {
            TcpOption::Mss(_) => 4,
            TcpOption::WScale(_) => 3,
            TcpOption::SackOk => 2,
            TcpOption::Timestamp { .. } => 10,
            TcpOption::Sack(b) => 2 + 8 * b.len() as u32,
            TcpOption::Nop | TcpOption::Eol => 1,
        }
    }
}

/// A segment the caller injects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inbound {
    /// packetdrill's letters: S F R P . E W.
    pub flags: String,
    pub seq: u64,
    pub ack: u64,
    /// The window field as on the wire (scaled by the peer's window scale after the SYNs).
    pub win: u32,
    /// Payload bytes.
    pub len: u32,
    pub options: Vec<TcpOption>,
}

/// A segment the endpoint sent, with its send time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outbound {
    pub time: SimTime,
    pub packet: Packet,
    /// PSH as Linux would set it: the end of a write or of a TSO packet of several segments.
    pub psh: bool,
}

impl Outbound {
    /// The flags in packetdrill's order and spelling ("S.", "P.", "F.", ".").
    pub fn flags(&self) -> String {
        let p = &self.packet;
        let mut s = String::new();
        for (bit, c) in [(SYN, 'S'), (FIN, 'F'), (RST, 'R')] {
            if p.is(bit) {
                s.push(c);
            }
        }
        if self.psh {
            s.push('P');
        }
        if p.is(ACK) {
            s.push('.');
        }
        s
    }

    /// The options in the order Linux writes them (`tcp_options_write`): on a SYN the MSS,
    /// SACK-permitted and the timestamps in one word (or NOP NOP before the timestamps, and
    /// NOP NOP SACK-permitted without them), NOP window scale; on other segments NOP NOP
    /// timestamps, then NOP NOP SACK blocks.
    pub fn options(&self) -> Vec<TcpOption> {
        let p = &self.packet;
        let mut o = Vec::new();
        let syn = p.is(SYN);
        if syn && p.syn_mss > 0 {
            o.push(TcpOption::Mss(p.syn_mss));
        }
        if p.has_ts {
            if syn && p.syn_sack_ok {
                o.push(TcpOption::SackOk);
            } else {
                o.extend([TcpOption::Nop, TcpOption::Nop]);
            }
            o.push(TcpOption::Timestamp {
                val: p.ts_val,
                ecr: p.ts_ecr,
            });
        } else if syn && p.syn_sack_ok {
            o.extend([TcpOption::Nop, TcpOption::Nop, TcpOption::SackOk]);
        }
        if syn && p.syn_wscale >= 0 {
            o.extend([TcpOption::Nop, TcpOption::WScale(p.syn_wscale as u8)]);
        }
        if p.n_sack > 0 {
            o.extend([TcpOption::Nop, TcpOption::Nop]);
            o.push(TcpOption::Sack(
                p.sack_blocks().map(|b| (b.start, b.end)).collect(),
            ));
        }
        o
    }
}

/// A socket option's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SockVal {
    Int(i64),
    Str(String),
}

/// The socket options the step API knows.
pub const SOCKOPTS: &str =
    "TCP_NODELAY, TCP_CORK, TCP_MAXSEG, TCP_CONGESTION, SO_SNDBUF, SO_RCVBUF";

/// Linux's congestion-control names (`TCP_CONGESTION`) as tcplab's: the same where tcplab has
/// one, and Linux's `westwood` (tcp_westwood.c, Westwood+) as `westwood+`.
pub fn linux_cc_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "reno" => "reno",
        "cubic" => "cubic",
        "westwood" => "westwood+",
        "vegas" => "vegas",
        "veno" => "veno",
        "bbr" => "bbr",
        _ => return None,
    })
}

/// The largest step loop before `advance` gives up (a timer re-armed at the same instant for
/// ever would be a bug in the core).
const MAX_FIRINGS_PER_ADVANCE: u64 = 10_000_000;

/// One simulated endpoint and the caller as its peer.
pub struct Stepper {
    /// The `[tcp]` table, with what socket options set before the open.
    tcp: Map<String, Value>,
    cfg: TcpConfig,
    ep: Option<Endpoint>,
    now: SimTime,
    /// Where the endpoint schedules its timers; the stepper reads their deadlines from the
    /// endpoint instead, and empties it after every call.
    q: EventQueue,
    out: Vec<Packet>,
    uid: u64,
    sent: Vec<Outbound>,
    /// Where PSH falls.
    psh: PshMarker,
    /// `sysctl net.ipv4.tcp_min_tso_segs` (where PSH falls).
    min_tso_segs: u64,
    written: u64,
    read: u64,
    shut_wr: bool,
    passive: bool,
    /// TCP_CORK set before the open.
    cork: bool,
    /// SO_SNDBUF as the application set it (what getsockopt reads back doubles it).
    sndbuf_set: Option<u64>,
    /// What `tcp_info`'s `tcpi_last_*` count from: Linux's `lsndtime` (the last segment with
    /// data sent), `icsk_ack.lrcvtime` (the last data received in order) and `rcv_tstamp` (the
    /// last ACK taken); the first two start at the establishment, as Linux's
    /// `tcp_finish_connect` and `tcp_create_openreq_child` set them.
    last_data_sent: Option<SimTime>,
    last_data_recv: Option<SimTime>,
    last_ack_recv: Option<SimTime>,
    /// Linux's chronograph (`tcp_chrono_set`): what it times now (`Endpoint::chrono`: 0
    /// nothing, 1 busy, 2 receive-window limited), since when, and the nanoseconds counted for
    /// busy and for receive-window limited.
    chrono: (u8, SimTime),
    chrono_stat: [u64; 2],
}

/// Linux's default `net.core.wmem_max` (SO_SNDBUF's ceiling for an unprivileged caller) and
/// `SOCK_MIN_SNDBUF` on x86-64 (include/net/sock.h): `sk_setsockopt` stores twice the value
/// asked for, within them, and getsockopt reads that back.
const WMEM_MAX: u64 = 212_992;
const SOCK_MIN_SNDBUF: u64 = 4_608;

/// The sender's state as Linux's pacing rate reads it (`tcp_update_pacing_rate`), with
/// `tcp_min_tso_segs` = `min_tso_segs`.
fn pace(ep: &Endpoint, min_tso_segs: u64) -> Pace {
    let info = ep.tcp_info();
    let get = |name: &str| info.iter().find(|(n, _)| *n == name).map(|&(_, v)| v);
    let unacked = get("tcpi_unacked").unwrap_or(0);
    let left = get("tcpi_sacked").unwrap_or(0) + get("tcpi_lost").unwrap_or(0);
    Pace {
        mss: get("tcpi_snd_mss").unwrap_or(1),
        cwnd: get("tcpi_snd_cwnd").unwrap_or(1),
        ssthresh: get("tcpi_snd_ssthresh").unwrap_or(u64::MAX),
        packets_out: unacked,
        in_flight: unacked.saturating_sub(left) + get("tcpi_retrans").unwrap_or(0),
        srtt_us: get("tcpi_rtt"),
        min_rtt_us: get("tcpi_min_rtt"),
        snd_wnd: get("tcpi_snd_wnd").unwrap_or(0),
        min_tso_segs,
    }
}

fn step_err(field: &str, message: impl Into<String>) -> SimError {
    SimError::step(field, message)
}

/// The `[tcp]` settings of `tcp` resolved as a scenario resolves its applications' (a one-link
/// scenario with one application carries them).
fn resolve(tcp: &Map<String, Value>) -> SimResult<TcpConfig> {
    let sc = json!({
        "run": {"stop_time": "1s"},
        "tcp": Value::Object(tcp.clone()),
        "nodes": [{"name": "endpoint"}, {"name": "peer"}],
        "links": [{"name": "wire", "a": "endpoint", "b": "peer", "rate": "1Gbps", "delay": "0ms"}],
        "apps": [{"name": "step", "kind": "bulk", "client": "endpoint", "server": "peer"}],
    });
    let sc = Scenario::from_value(sc)?;
    sc.apps
        .into_iter()
        .next()
        .map(|a| a.tcp)
        .ok_or_else(|| SimError::Internal("the step scenario has no application".into()))
}

impl Stepper {
    /// A stepper whose endpoint will have the settings of the `[tcp]` table `tcp` (a JSON
    /// object, as a scenario's `[tcp]` section: `profile`, `mss`, `congestion_control`, ...).
    pub fn new(tcp: &Value) -> SimResult<Stepper> {
        let tcp = match tcp {
            Value::Object(m) => m.clone(),
            Value::Null => Map::new(),
            other => {
                return Err(SimError::invalid("tcp", other, "a table of [tcp] settings"));
            }
        };
        let cfg = resolve(&tcp)?;
        Ok(Stepper {
            tcp,
            cfg,
            ep: None,
            now: SimTime::ZERO,
            q: EventQueue::new(),
            out: Vec::new(),
            uid: 0,
            sent: Vec::new(),
            psh: PshMarker::new(),
            min_tso_segs: MIN_TSO_SEGS,
            written: 0,
            read: 0,
            shut_wr: false,
            passive: false,
            cork: false,
            sndbuf_set: None,
            last_data_sent: None,
            last_data_recv: None,
            last_ack_recv: None,
            chrono: (0, SimTime::ZERO),
            chrono_stat: [0; 2],
        })
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    /// `sysctl net.ipv4.tcp_min_tso_segs`: the fewest segments Linux puts in a TSO packet
    /// (default 2), which decides where PSH falls.
    pub fn set_min_tso_segs(&mut self, n: u64) -> SimResult<()> {
        if !(1..=255).contains(&n) {
            return Err(SimError::invalid(
                "sysctl.tcp_min_tso_segs",
                n,
                "1 to 255 (Linux's bounds)",
            ));
        }
        self.min_tso_segs = n;
        Ok(())
    }

    /// The settings the endpoint has (or will have, before the open).
    pub fn config(&self) -> &TcpConfig {
        self.ep.as_ref().map_or(&self.cfg, |e| &e.cfg)
    }

    /// The endpoint, once `listen` or `connect` made it.
    pub fn endpoint(&self) -> Option<&Endpoint> {
        self.ep.as_ref()
    }

    /// The connection's state (CLOSED before the open).
    pub fn state(&self) -> State {
        self.ep.as_ref().map_or(State::Closed, |e| e.state())
    }

    /// The earliest armed timer's deadline.
    pub fn next_timer(&self) -> Option<SimTime> {
        self.ep
            .as_ref()
            .and_then(|e| e.next_deadline())
            .map(|(t, _)| t)
    }

    /// Run `f` on the endpoint at the current time, and collect what it sent.
    fn act<R>(&mut self, call: &str, f: impl FnOnce(&mut Endpoint, &mut Ctx) -> R) -> SimResult<R> {
        let ep = self
            .ep
            .as_mut()
            .ok_or_else(|| step_err(call, "no connection: call listen() or connect() first"))?;
        let mut ctx = Ctx {
            now: self.now,
            q: &mut self.q,
            out: &mut self.out,
            next_uid: &mut self.uid,
            events: None,
            packets: None,
        };
        let before = self.sent.len();
        let r = f(ep, &mut ctx);
        self.collect();
        // Linux's `tcp_event_data_sent` (from `__tcp_transmit_skb`) stamps `lsndtime` on every
        // segment that carries data, retransmissions too; a bare ACK or a zero-window probe
        // leaves it.
        if self.sent[before..].iter().any(|o| o.packet.len > 0) {
            self.last_data_sent = Some(self.now);
        }
        let now_timing = self.ep.as_ref().map_or(0, |e| e.chrono());
        if now_timing != self.chrono.0 {
            self.chrono_count();
            self.chrono = (now_timing, self.now);
        }
        Ok(r)
    }

    fn collect(&mut self) {
        let pace = self.ep.as_ref().map(|e| pace(e, self.min_tso_segs));
        if let Some(p) = &pace {
            self.psh.window(p.snd_wnd);
        }
        let marks = match pace {
            Some(pace) if !self.out.is_empty() => self.psh.mark(&self.out, &pace),
            _ => vec![false; self.out.len()],
        };
        for (p, psh) in self.out.drain(..).zip(marks) {
            self.sent.push(Outbound {
                time: self.now,
                packet: p,
                psh,
            });
        }
        // The endpoint's own deadlines drive the timers: the queue's entries are not needed.
        self.q = EventQueue::new();
    }

    /// Advance simulated time to `t`: every timer due at or before `t` fires at its deadline,
    /// in order; then the time is `t`.
    pub fn advance(&mut self, t: SimTime) -> SimResult<()> {
        if t < self.now {
            return Err(step_err(
                "advance",
                format!(
                    "time going backwards: {:.9} s is before the current time {:.9} s",
                    t.as_secs_f64(),
                    self.now.as_secs_f64()
                ),
            ));
        }
        let mut n = 0u64;
        while let Some((d, kind)) = self.ep.as_ref().and_then(|e| e.next_deadline()) {
            if d > t {
                break;
            }
            n += 1;
            if n > MAX_FIRINGS_PER_ADVANCE {
                return Err(SimError::Internal(format!(
                    "a timer fired {MAX_FIRINGS_PER_ADVANCE} times before {:.9} s",
                    t.as_secs_f64()
                )));
            }
            self.now = self.now.max(d);
            let before = self.sent.len();
            self.act("advance", |ep, ctx| ep.on_timer(kind, ctx))?;
            if kind == TimerKind::Persist && self.config().probe0 {
                // tcp_write_wakeup sets PSH on the data it sends when the persist timer fires.
                for o in &mut self.sent[before..] {
                    o.psh |= o.packet.len > 0;
                }
            }
        }
        self.now = t;
        Ok(())
    }

    /// Add the time since the chronograph's last change to what it was timing.
    fn chrono_count(&mut self) {
        let (kind, since) = self.chrono;
        if kind > 0 {
            self.chrono_stat[usize::from(kind) - 1] += self.now.0.saturating_sub(since.0);
        }
        self.chrono.1 = self.now;
    }

    /// Take the segments the endpoint sent since the last call.
    pub fn take_sent(&mut self) -> Vec<Outbound> {
        std::mem::take(&mut self.sent)
    }

    fn build(&mut self, end: u8) -> SimResult<Endpoint> {
        let cfg = Arc::new(self.cfg.clone());
        let c = cc::build(&cfg.congestion_control, &cfg.cc_params, "tcp.cc_params")?;
        let r = recovery::build(&cfg.loss_recovery, &cfg.lr_params, "tcp.lr_params")?;
        Ok(Endpoint::new(0, end, 0, 1, cfg, c, r))
    }

    fn not_open(&self, call: &str) -> SimResult<()> {
        match &self.ep {
            Some(e) => Err(step_err(
                call,
                format!("the socket is already open (state {})", e.state().name()),
            )),
            None => Ok(()),
        }
    }

    /// Passive open: the endpoint listens for the peer's SYN.
    pub fn listen(&mut self) -> SimResult<()> {
        self.not_open("listen")?;
        let mut ep = self.build(1)?;
        ep.listen();
        self.ep = Some(ep);
        self.passive = true;
        let cork = self.cork;
        self.act("listen", |ep, ctx| ep.set_cork(cork, ctx))
    }

    /// Active open: the endpoint sends its SYN now.
    pub fn connect(&mut self) -> SimResult<()> {
        self.not_open("connect")?;
        let ep = self.build(0)?;
        self.ep = Some(ep);
        let cork = self.cork;
        self.act("connect", |ep, ctx| {
            ep.set_cork(cork, ctx);
            ep.connect(ctx);
        })
    }

    /// The passive open's connection is established (what `accept` returns).
    pub fn accept(&mut self) -> SimResult<()> {
        let state = self.state();
        if !self.passive {
            return Err(step_err(
                "accept",
                "the socket is not listening: call listen() first",
            ));
        }
        match state {
            State::Listen | State::SynRcvd | State::Closed => Err(step_err(
                "accept",
                format!(
                    "no established connection to accept (state {}): the peer's handshake is not complete",
                    state.name()
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The application writes `n` bytes; returns `n` (the model's send buffer takes every
    /// write; SO_SNDBUF bounds what is sent ahead of the peer's ACKs).
    pub fn write(&mut self, n: u64) -> SimResult<u64> {
        self.send(n, false)
    }

    /// send(2) of `n` bytes, with MSG_MORE when `more`: the data waits for more to come as
    /// under TCP_CORK (Linux's `tcp_push` with `TCP_NAGLE_CORK`; full segments go) and its end
    /// gets no PSH; whatever pushes next sends it (an ACK, a write without MSG_MORE, uncorking,
    /// TCP_NODELAY).
    pub fn send(&mut self, n: u64, more: bool) -> SimResult<u64> {
        let state = self.state();
        if self.shut_wr {
            return Err(step_err(
                "write",
                "the sending side is shut down (close() or shutdown(SHUT_WR))",
            ));
        }
        if !matches!(state, State::Established | State::CloseWait) {
            return Err(step_err(
                "write",
                format!(
                    "the connection is not established (state {}); allowed in ESTABLISHED or CLOSE-WAIT",
                    state.name()
                ),
            ));
        }
        if n == 0 {
            return Ok(0);
        }
        self.written += n;
        if let Some(p) = self.ep.as_ref().map(|e| pace(e, self.min_tso_segs)) {
            self.psh.window(p.snd_wnd);
            self.psh.write(n, more, &p);
        }
        if more {
            self.act("write", |ep, ctx| ep.app_write_more(n, ctx))?;
        } else {
            self.act("write", |ep, ctx| ep.app_write(Some(n), ctx))?;
        }
        Ok(n)
    }

    /// The application reads up to `n` bytes; returns how many it got (0 at the end of the
    /// stream or when nothing is there). The model's application takes data off the receive
    /// buffer as it arrives, so reading changes no window: this only counts.
    pub fn read(&mut self, n: u64) -> SimResult<u64> {
        let ep = self
            .ep
            .as_ref()
            .ok_or_else(|| step_err("read", "no connection: call listen() or connect() first"))?;
        // After shutdown(SHUT_RD) too: Linux keeps taking data in and tcp_recvmsg returns what
        // is queued, 0 only when nothing is.
        let got = ep.delivered.saturating_sub(self.read).min(n);
        self.read += got;
        Ok(got)
    }

    /// Bytes received in order and not read yet.
    pub fn readable(&self) -> u64 {
        self.ep
            .as_ref()
            .map_or(0, |e| e.delivered.saturating_sub(self.read))
    }

    /// The peer's FIN arrived and everything before it was read.
    pub fn eof(&self) -> bool {
        self.ep.as_ref().is_some_and(|e| e.peer_fin) && self.readable() == 0
    }

    /// Close, as Linux's `tcp_close`: in LISTEN the listening socket goes away; in SYN-SENT
    /// the connection is deleted, nothing sent (a SYN-ACK arriving later meets a RST); with
    /// received data unread, a RST in place of the FIN (RFC 2525 section 2.17); otherwise the
    /// FIN follows the data.
    pub fn close(&mut self) -> SimResult<()> {
        let state = self.state();
        if state == State::Listen {
            self.ep = None;
            return Ok(());
        }
        if state == State::SynSent || (self.readable() > 0 && state != State::Closed) {
            self.shut_wr = true;
            return self.act("close", |ep, ctx| {
                if state == State::SynSent {
                    ep.close_unsynchronized(ctx)
                } else {
                    ep.abort_with_reset(ctx)
                }
            });
        }
        self.shutdown(2).map_err(|e| match e {
            SimError::Step { message, .. } => step_err("close", message),
            e => e,
        })
    }

    /// shutdown(2): 0 SHUT_RD (nothing on the wire, and as in Linux data still arrives and
    /// `read` still returns it), 1 SHUT_WR (the FIN follows the data), 2 SHUT_RDWR.
    pub fn shutdown(&mut self, how: u8) -> SimResult<()> {
        if how > 2 {
            return Err(step_err(
                "shutdown",
                format!("invalid value {how}: SHUT_RD (0), SHUT_WR (1) or SHUT_RDWR (2)"),
            ));
        }
        if self.ep.is_none() {
            return Err(step_err(
                "shutdown",
                "no connection: call listen() or connect() first",
            ));
        }
        if how != 0 && !self.shut_wr {
            self.shut_wr = true;
            self.act("shutdown", |ep, ctx| ep.app_close(ctx))?;
        }
        Ok(())
    }

    /// setsockopt: before the open an option changes the settings the endpoint is built with
    /// (checked as a scenario's `[tcp]` field); on an open connection TCP_NODELAY, TCP_CORK and
    /// SO_SNDBUF act at once, the others are refused.
    pub fn setsockopt(&mut self, name: &str, value: &SockVal) -> SimResult<()> {
        let field = format!("setsockopt.{name}");
        let int = |v: &SockVal| -> SimResult<u64> {
            match v {
                SockVal::Int(i) if *i >= 0 => Ok(*i as u64),
                other => Err(step_err(
                    &field,
                    format!("invalid value {other:?}: a non-negative integer"),
                )),
            }
        };
        let open = self.ep.is_some();
        match name {
            "TCP_NODELAY" => {
                let on = int(value)? != 0;
                if open {
                    self.act(&field, |ep, ctx| ep.set_nodelay(on, ctx))
                } else {
                    self.set_tcp(&field, "nagle", json!(!on))
                }
            }
            "TCP_CORK" => {
                let on = int(value)? != 0;
                self.cork = on;
                if open {
                    self.act(&field, |ep, ctx| ep.set_cork(on, ctx))
                } else {
                    Ok(())
                }
            }
            "SO_SNDBUF" => {
                let n = int(value)?;
                self.sndbuf_set = Some(n);
                if open {
                    self.act(&field, |ep, ctx| ep.set_snd_buf(n, ctx))
                } else {
                    self.set_tcp(&field, "snd_buf", json!(n))
                }
            }
            // On a listening socket Linux keeps the value (`rx_opt.user_mss`) for the
            // connections it accepts (`tcp_create_openreq_child` copies it): the SYN-ACK offers
            // it and the send MSS is bounded by it. The listener is rebuilt with the new
            // settings; no peer has reached it yet.
            "TCP_MAXSEG" if self.state() == State::Listen => {
                let n = int(value)?;
                self.set_tcp(&field, "mss", json!(n))?;
                let mut ep = self.build(1)?;
                ep.listen();
                self.ep = Some(ep);
                let cork = self.cork;
                self.act(&field, |ep, ctx| ep.set_cork(cork, ctx))
            }
            "TCP_MAXSEG" | "TCP_CONGESTION" | "SO_RCVBUF" if open => Err(step_err(
                &field,
                format!(
                    "changing it on an open connection is not modelled (state {}): set it before listen() or connect()",
                    self.state().name()
                ),
            )),
            "TCP_MAXSEG" => {
                let n = int(value)?;
                self.set_tcp(&field, "mss", json!(n))
            }
            "SO_RCVBUF" => {
                let n = int(value)?;
                self.set_tcp(&field, "rcv_buf", json!(n))
            }
            "TCP_CONGESTION" => {
                let SockVal::Str(s) = value else {
                    return Err(step_err(&field, format!("invalid value {value:?}: a name such as \"cubic\"")));
                };
                let name = linux_cc_name(s).map_or(s.as_str(), |n| n);
                if cc::build(name, &Default::default(), "tcp.cc_params").is_err() {
                    return Err(step_err(
                        &field,
                        format!(
                            "unknown congestion control {s:?}: Linux's reno, cubic, westwood, vegas, veno, bbr, or a tcplab name ({})",
                            "tahoe, newreno, westwood, westwood+, aimd-delay, ..."
                        ),
                    ));
                }
                self.set_tcp(&field, "congestion_control", json!(name))
            }
            _ => Err(step_err(&field, format!("unknown option: one of {SOCKOPTS}"))),
        }
    }

    /// Set `[tcp] key` before the open and resolve the settings again; an error names the
    /// option and keeps the settings as they were.
    fn set_tcp(&mut self, field: &str, key: &str, v: Value) -> SimResult<()> {
        let mut tcp = self.tcp.clone();
        tcp.insert(key.into(), v);
        let cfg = resolve(&tcp).map_err(|e| step_err(field, e.to_string()))?;
        self.tcp = tcp;
        self.cfg = cfg;
        Ok(())
    }

    /// getsockopt of the options `setsockopt` knows: TCP_MAXSEG is the effective send MSS once
    /// the SYNs agreed it (Linux's `mss_cache`), the MSS offered before.
    pub fn getsockopt(&self, name: &str) -> SimResult<SockVal> {
        let cfg = self.config();
        Ok(match name {
            "TCP_NODELAY" => SockVal::Int(i64::from(!cfg.nagle)),
            "TCP_CORK" => SockVal::Int(i64::from(self.cork)),
            "TCP_MAXSEG" => SockVal::Int(match &self.ep {
                Some(e) if !matches!(e.state(), State::Listen | State::SynSent | State::Closed) => {
                    e.eff_mss as i64
                }
                _ => i64::from(cfg.mss),
            }),
            "TCP_CONGESTION" => SockVal::Str(cfg.congestion_control.clone()),
            "SO_SNDBUF" => SockVal::Int(match self.sndbuf_set {
                Some(n) => (2 * n.min(WMEM_MAX)).max(SOCK_MIN_SNDBUF) as i64,
                None => cfg.snd_buf.min(i64::MAX as u64) as i64,
            }),
            "SO_RCVBUF" => SockVal::Int(cfg.rcv_buf.min(i64::MAX as u64) as i64),
            _ => {
                return Err(step_err(
                    &format!("getsockopt.{name}"),
                    format!("unknown option: one of {SOCKOPTS}"),
                ))
            }
        })
    }

    /// Linux's `tcp_info` fields the model keeps (`Endpoint::tcp_info`), and the milliseconds
    /// since the last data sent, the last data received and the last ACK received
    /// (`tcpi_last_data_sent`, `tcpi_last_data_recv`, `tcpi_last_ack_recv`, as `tcp_get_info`
    /// computes them; each appears once its event happened).
    pub fn tcp_info(&self) -> SimResult<Vec<(&'static str, u64)>> {
        let mut info = self.ep.as_ref().map(|e| e.tcp_info()).ok_or_else(|| {
            step_err(
                "tcp_info",
                "no connection: call listen() or connect() first",
            )
        })?;
        // tcp_get_chrono_stats: the stored times and the one running, in microseconds; busy
        // time is the sum of all.
        let mut stat = self.chrono_stat;
        if self.chrono.0 > 0 {
            stat[usize::from(self.chrono.0) - 1] += self.now.0.saturating_sub(self.chrono.1 .0);
        }
        info.push(("tcpi_busy_time", (stat[0] + stat[1]) / 1_000));
        info.push(("tcpi_rwnd_limited", stat[1] / 1_000));
        let ms = |t: Option<SimTime>| t.map(|t| self.now.0.saturating_sub(t.0) / 1_000_000);
        for (name, since) in [
            ("tcpi_last_data_sent", ms(self.last_data_sent)),
            ("tcpi_last_data_recv", ms(self.last_data_recv)),
            ("tcpi_last_ack_recv", ms(self.last_ack_recv)),
        ] {
            if let Some(v) = since {
                info.push((name, v));
            }
        }
        Ok(info)
    }

    /// Inject a segment from the peer at the current time.
    pub fn inject(&mut self, seg: &Inbound) -> SimResult<()> {
        let p = self.packet_of(seg)?;
        let ep = self
            .ep
            .as_ref()
            .ok_or_else(|| step_err("inject", "no connection: call listen() or connect() first"))?;
        let (state, una, delivered) = (ep.state(), ep.snd_una(), ep.delivered);
        // Once closed, the endpoint answers as a host with no such connection (a RST).
        self.act("inject", |ep, ctx| ep.on_segment(&p, ctx))?;
        let Some(ep) = self.ep.as_ref() else {
            return Ok(());
        };
        if state == State::Closed || p.is(RST) {
            return Ok(());
        }
        let established = matches!(state, State::SynSent | State::SynRcvd | State::Listen)
            && !matches!(
                ep.state(),
                State::SynSent | State::SynRcvd | State::Listen | State::Closed
            );
        if established {
            self.last_data_sent = Some(self.now);
            self.last_data_recv = Some(self.now);
        }
        if ep.delivered > delivered {
            // `tcp_event_data_recv` stamps `lrcvtime` when in-order data is queued.
            self.last_data_recv = Some(self.now);
        }
        if p.is(ACK) && p.ack >= una && state != State::Listen {
            // `tcp_ack` stamps `rcv_tstamp` on an ACK that is not older than snd_una.
            self.last_ack_recv = Some(self.now);
        }
        Ok(())
    }

    /// The model's packet for an injected segment, its options checked.
    fn packet_of(&self, seg: &Inbound) -> SimResult<Packet> {
        let mut p = Packet {
            conn: 0,
            to_end: self
                .ep
                .as_ref()
                .map_or(1, |_| if self.passive { 1 } else { 0 }),
            src: 1,
            dst: 0,
            seq: seg.seq,
            ack: seg.ack,
            len: seg.len,
            wnd: seg.win,
            ..Packet::default()
        };
        if seg.flags.is_empty() {
            return Err(step_err(
                "inject.flags",
                "empty: letters from S F R P . E W",
            ));
        }
        for c in seg.flags.chars() {
            p.flags |= match c {
                'S' => SYN,
                'F' => FIN,
                'R' => RST,
                '.' => ACK,
                'P' | 'E' | 'W' => 0,
                _ => {
                    return Err(step_err(
                        "inject.flags",
                        format!(
                            "invalid flag {c:?} in {:?}: letters from S F R P . E W",
                            seg.flags
                        ),
                    ))
                }
            };
        }
        if !p.is(ACK) {
            p.ack = 0;
        }
        if seg.win > 65_535 {
            return Err(step_err(
                "inject.win",
                format!(
                    "invalid value {}: the 16-bit window field, 0 to 65535",
                    seg.win
                ),
            ));
        }
        let mut opt_len = 0;
        for o in &seg.options {
            opt_len += o.wire_len();
            match o {
                TcpOption::Mss(m) => {
                    if *m == 0 || *m > 65_535 {
                        return Err(step_err(
                            "inject.options.mss",
                            format!("invalid value {m}: 1 to 65535"),
                        ));
                    }
                    p.syn_mss = *m;
                }
                TcpOption::WScale(w) => {
                    if *w > 127 {
                        return Err(step_err(
                            "inject.options.wscale",
                            format!("invalid value {w}: 0 to 14 (larger counts as 14)"),
                        ));
                    }
                    p.syn_wscale = *w as i8;
                }
                TcpOption::SackOk => p.syn_sack_ok = true,
                TcpOption::Timestamp { val, ecr } => {
                    if *val > u64::from(u32::MAX) || *ecr > u64::from(u32::MAX) {
                        return Err(step_err(
                            "inject.options.TS",
                            format!("invalid value val {val} ecr {ecr}: 32-bit values"),
                        ));
                    }
                    p.has_ts = true;
                    p.ts_val = *val;
                    p.ts_ecr = *ecr;
                }
                TcpOption::Sack(blocks) => {
                    if blocks.is_empty() || blocks.len() > 4 {
                        return Err(step_err(
                            "inject.options.sack",
                            format!("{} blocks: 1 to 4", blocks.len()),
                        ));
                    }
                    for &(s, e) in blocks {
                        if s >= e {
                            return Err(step_err(
                                "inject.options.sack",
                                format!("invalid block {s}:{e}: start below end"),
                            ));
                        }
                        if !p.is(ACK) || !p.push_sack(SackBlock { start: s, end: e }) {
                            return Err(step_err(
                                "inject.options.sack",
                                format!(
                                    "block {s}:{e} not above the ACK {} (D-SACK is not modelled; a SACK needs the ACK flag)",
                                    p.ack
                                ),
                            ));
                        }
                    }
                }
                TcpOption::Nop | TcpOption::Eol => {}
            }
        }
        if opt_len > 40 {
            return Err(step_err(
                "inject.options",
                format!("{opt_len} bytes of options: at most 40"),
            ));
        }
        p.opt_len = opt_len.div_ceil(4) * 4;
        Ok(p)
    }
}
