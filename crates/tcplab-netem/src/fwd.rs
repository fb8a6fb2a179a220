//! The forwarder: two AF_PACKET ports (A, B) bridged through two link directions.
//!
//! One thread runs everything (the machine has two cores and the TCP endpoints need them):
//! 1. read every frame waiting on both ports (recvmmsg, batches), parse it, account it to the
//!    direction's link model, and either drop it or append it to the direction's delay line with
//!    its departure time;
//! 2. send every frame whose departure time has come (sendmmsg, batches);
//! 3. sleep until the next departure on an absolute-deadline timerfd, or until a port becomes
//!    readable; for the last stretch before a departure, spin instead of sleeping, since a
//!    wake-up from sleep comes late (100-200 us on a VM). The stretch is `busy_poll_ns` if set,
//!    else adaptive: the 90th percentile of the timer overshoot over the last 64 wake-ups plus
//!    20 us, within [20 us, 500 us]. Spinning is suspended for the next 100 ms whenever it took
//!    more than half of the last 100 ms: under continuous traffic the loop is awake anyway, and
//!    a process that never sleeps would be throttled (SCHED_FIFO: 50 ms stalls per second) or
//!    preempted for a whole scheduler slice.
//!
//! A frame's arrival time is the kernel's receive timestamp (SO_TIMESTAMPNS, taken when the
//! sender's veth handed it over), not the time this process read it: the forwarder's own
//! wake-up latency then does not add to the emulated delay when the delay exceeds it.
//!
//! Frames that are not IPv4 are passed through at once, unimpaired and uncounted by the links.
//! Kernel forwarding stays off in the router namespace, so if this process dies nothing passes.

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use tcplab_sim::engine::rng::stream;
use tcplab_sim::net::loss::{ErrorModel, ErrorModelConfig};

use crate::config::{Config, DIR_NAMES};
use crate::flows::{clamped_window, FlowKey, Flows};
use crate::link::{Link, Verdict};
use crate::packet::{self, L4};
use crate::pcap::PcapWriter;
use crate::stats::{DropEvent, DropReason, Lateness};
use crate::sys::{self, Batch, Epoll, PacketSocket, Received, Timer, PACKET_OUTGOING};

const TOKEN_TIMER: u64 = 2;
/// Upper bound on a sleep, so a signal that lands just before epoll_wait is seen soon.
const MAX_SLEEP_MS: i32 = 100;
/// Receive batches per port per loop turn before departures get a look-in.
const RX_ROUNDS: usize = 8;
/// Adaptive spin window bounds and margin.
const SPIN_MIN_NS: u64 = 20_000;
const SPIN_MAX_NS: u64 = 500_000;
const SPIN_MARGIN_NS: u64 = 20_000;
const OVERSHOOT_WINDOW: usize = 64;
/// Spin-duty accounting period and the share of it spinning may take.
const DUTY_PERIOD_NS: u64 = 100_000_000;
const DUTY_MAX_SHARE: f64 = 0.5;

struct Pkt {
    buf: Vec<u8>,
    len: usize,
    ip_len: u32,
    deliver_at: u64,
}

#[derive(Default)]
struct PortCounters {
    rx_frames: u64,
    passthrough: u64,
    oversize: u64,
    own_frames: u64,
    tx_frames: u64,
    tx_failed: u64,
    kernel_rx_packets: u64,
    kernel_rx_drops: u64,
}

pub struct Forwarder {
    cfg: Config,
    ports: [PacketSocket; 2],
    links: [Link; 2],
    lines: [VecDeque<Pkt>; 2],
    /// Whether a direction's `list` model names segments (then transmissions are counted).
    count_tx: [bool; 2],
    pool: Vec<Vec<u8>>,
    rx_bufs: Vec<Vec<u8>>,
    rx_info: Vec<Received>,
    batch: Batch,
    flows: Flows,
    drops: Vec<DropEvent>,
    drops_unlogged: u64,
    pcap: Option<PcapWriter>,
    /// Why the capture stopped (a write failed, e.g. a full disk) and the frames it held:
    /// reported, so that the run fails loudly instead of handing over a short capture.
    pcap_failed: Option<(String, u64)>,
    max_window: [Option<u32>; 2],
    windows_clamped: [u64; 2],
    lateness: [Lateness; 2],
    port_counters: [PortCounters; 2],
    /// Arrival time of the last frame of each direction (arrivals never go backwards).
    last_arrival: [u64; 2],
    /// CLOCK_REALTIME - CLOCK_MONOTONIC, to convert kernel timestamps.
    real_minus_mono: u64,
    frames_without_timestamp: u64,
    spin: Spin,
    start_mono: u64,
    start_real: u64,
}

/// How long to spin before a deadline.
struct Spin {
    fixed: Option<u64>,
    overshoots: [u64; OVERSHOOT_WINDOW],
    next: usize,
    /// Current window (recomputed at each timer wake-up).
    window_ns: u64,
    max_overshoot_ns: u64,
    wakeups: u64,
    /// Duty accounting: start of the period, time spun in it, start of the current spin.
    period_start: u64,
    spun_ns: u64,
    spinning_since: Option<u64>,
    /// Spinning suspended for this period (it took too much of the last one).
    suspended: bool,
    periods_suspended: u64,
}

impl Spin {
    fn new(fixed: Option<u64>) -> Spin {
        // Start cautious (a VM's wake-ups are late); the window adapts as it learns.
        let initial = 200_000;
        Spin {
            fixed,
            overshoots: [initial; OVERSHOOT_WINDOW],
            next: 0,
            window_ns: fixed.unwrap_or(initial + SPIN_MARGIN_NS),
            max_overshoot_ns: 0,
            wakeups: 0,
            period_start: 0,
            spun_ns: 0,
            spinning_since: None,
            suspended: false,
            periods_suspended: 0,
        }
    }

    fn window(&self) -> u64 {
        if self.suspended {
            0
        } else {
            self.window_ns
        }
    }

    /// Called every loop turn with whether this turn spins.
    fn account(&mut self, now: u64, spinning: bool) {
        match (spinning, self.spinning_since) {
            (true, None) => self.spinning_since = Some(now),
            (false, Some(t)) => {
                self.spun_ns += now.saturating_sub(t);
                self.spinning_since = None;
            }
            _ => {}
        }
        let elapsed = now.saturating_sub(self.period_start);
        if elapsed >= DUTY_PERIOD_NS {
            if let Some(t) = self.spinning_since {
                self.spun_ns += now.saturating_sub(t);
                self.spinning_since = Some(now);
            }
            self.suspended = self.spun_ns as f64 > DUTY_MAX_SHARE * elapsed as f64;
            self.periods_suspended += u64::from(self.suspended);
            self.period_start = now;
            self.spun_ns = 0;
        }
    }

    fn record(&mut self, overshoot_ns: u64) {
        self.overshoots[self.next] = overshoot_ns;
        self.next = (self.next + 1) % OVERSHOOT_WINDOW;
        self.max_overshoot_ns = self.max_overshoot_ns.max(overshoot_ns);
        self.wakeups += 1;
        if self.fixed.is_none() {
            let mut recent = self.overshoots;
            let (_, p90, _) = recent.select_nth_unstable(OVERSHOOT_WINDOW * 9 / 10);
            self.window_ns = (*p90 + SPIN_MARGIN_NS).clamp(SPIN_MIN_NS, SPIN_MAX_NS);
        }
    }
}

fn ip4(a: [u8; 4]) -> String {
    std::net::Ipv4Addr::from(a).to_string()
}

impl Forwarder {
    pub fn new(cfg: Config) -> io::Result<Forwarder> {
        let ports = [
            PacketSocket::open(&cfg.iface_a, cfg.socket_buffer_bytes)
                .map_err(|e| io::Error::new(e.kind(), format!("iface_a {}: {e}", cfg.iface_a)))?,
            PacketSocket::open(&cfg.iface_b, cfg.socket_buffer_bytes)
                .map_err(|e| io::Error::new(e.kind(), format!("iface_b {}: {e}", cfg.iface_b)))?,
        ];
        let mk = |d: usize| {
            let dc = &cfg.dirs[d];
            Link::new(
                dc.params,
                ErrorModel::new(dc.error.clone(), stream(cfg.seed, &dc.stream)),
            )
        };
        let links = [mk(0), mk(1)];
        let count_tx = [0, 1].map(|d| {
            matches!(&cfg.dirs[d].error, ErrorModelConfig::List { segments, .. } if !segments.is_empty())
        });
        let pcap = match &cfg.pcap {
            Some(p) => Some(PcapWriter::create(&p.path, p.snaplen).map_err(|e| {
                io::Error::new(e.kind(), format!("pcap {}: {e}", p.path.display()))
            })?),
            None => None,
        };
        let fb = cfg.frame_buffer_bytes;
        let batch = cfg.batch;
        Ok(Forwarder {
            rx_bufs: (0..batch).map(|_| vec![0u8; fb]).collect(),
            rx_info: vec![Received::default(); batch],
            batch: Batch::new(batch),
            pool: Vec::new(),
            ports,
            links,
            lines: [VecDeque::new(), VecDeque::new()],
            count_tx,
            flows: Flows::default(),
            drops: Vec::new(),
            drops_unlogged: 0,
            pcap,
            pcap_failed: None,
            max_window: [None; 2],
            windows_clamped: [0; 2],
            lateness: [Lateness::default(), Lateness::default()],
            port_counters: [PortCounters::default(), PortCounters::default()],
            last_arrival: [0; 2],
            real_minus_mono: sys::realtime_ns().saturating_sub(sys::monotonic_ns()),
            frames_without_timestamp: 0,
            spin: Spin::new(cfg.busy_poll_ns),
            start_mono: sys::monotonic_ns(),
            start_real: sys::realtime_ns(),
            cfg,
        })
    }

    fn fresh_buffer(&mut self) -> Vec<u8> {
        self.pool
            .pop()
            .unwrap_or_else(|| vec![0u8; self.cfg.frame_buffer_bytes])
    }

    /// Run until `stop` is set.
    pub fn run(&mut self, stop: &Arc<AtomicBool>) -> io::Result<()> {
        let timer = Timer::new()?;
        let mut ep = Epoll::new()?;
        ep.add(self.ports[0].fd(), 0)?;
        ep.add(self.ports[1].fd(), 1)?;
        ep.add(timer.fd(), TOKEN_TIMER)?;
        let mut armed = 0u64;
        while !stop.load(Ordering::Relaxed) {
            for port in 0..2 {
                self.receive(port)?;
            }
            let now = sys::monotonic_ns();
            for dir in 0..2 {
                self.depart(dir, now);
            }
            let next = self
                .lines
                .iter()
                .filter_map(|l| l.front())
                .map(|p| p.deliver_at)
                .min();
            let now = sys::monotonic_ns();
            let spin = self.spin.window();
            let spinning = matches!(next, Some(t) if t <= now + spin);
            self.spin.account(now, spinning);
            match next {
                // Close to a departure: spin (the loop polls both ports without sleeping).
                Some(_) if spinning => continue,
                Some(t) => {
                    let wake = t - spin;
                    if wake != armed {
                        timer.arm_at(wake)?;
                        armed = wake;
                    }
                }
                None => {}
            }
            let ready = ep.wait(MAX_SLEEP_MS)?;
            if ready & (1 << TOKEN_TIMER) != 0 {
                self.spin.record(sys::monotonic_ns().saturating_sub(armed));
                timer.clear();
                armed = 0;
            }
        }
        Ok(())
    }

    fn receive(&mut self, port: usize) -> io::Result<()> {
        for _ in 0..RX_ROUNDS {
            let n = self.ports[port].recv_batch(
                &mut self.batch,
                &mut self.rx_bufs,
                &mut self.rx_info,
            )?;
            if n == 0 {
                return Ok(());
            }
            let now = sys::monotonic_ns();
            self.real_minus_mono = sys::realtime_ns().saturating_sub(now);
            for i in 0..n {
                let info = self.rx_info[i];
                let arrival = match info.kernel_ts_ns {
                    Some(ts) => ts.saturating_sub(self.real_minus_mono).min(now),
                    None => {
                        self.frames_without_timestamp += 1;
                        now
                    }
                };
                let arrival = arrival.max(self.last_arrival[port]);
                self.last_arrival[port] = arrival;
                let fresh = self.fresh_buffer();
                let buf = std::mem::replace(&mut self.rx_bufs[i], fresh);
                self.ingress(port, buf, info, arrival);
            }
            if n < self.rx_bufs.len() {
                return Ok(());
            }
        }
        Ok(())
    }

    fn ingress(&mut self, port: usize, mut buf: Vec<u8>, info: Received, now: u64) {
        let pc = &mut self.port_counters[port];
        if info.pkttype == PACKET_OUTGOING {
            pc.own_frames += 1;
            self.pool.push(buf);
            return;
        }
        pc.rx_frames += 1;
        if info.truncated {
            pc.oversize += 1;
            self.pool.push(buf);
            return;
        }
        let Some(ip) = packet::parse(&buf[..info.len]) else {
            pc.passthrough += 1;
            let failed = self.ports[1 - port].send_batch(&mut self.batch, &[&buf[..info.len]]);
            self.port_counters[1 - port].tx_failed += failed as u64;
            self.pool.push(buf);
            return;
        };
        let dir = port; // 0: A -> B, 1: B -> A
        let mut seg = None;
        let mut window_after = None;
        if let L4::Tcp(tcp) = ip.l4 {
            let key = FlowKey {
                src: ip.src,
                dst: ip.dst,
                sport: tcp.sport,
                dport: tcp.dport,
            };
            let view = self.flows.observe(key, &tcp, self.count_tx[dir]);
            let mut window = tcp.window;
            if let Some(clamp) = self.cfg.rwnd_clamp_bytes {
                let w = clamped_window(window, view.window_shift, clamp);
                if w != window {
                    packet::set_tcp_window(&mut buf[..info.len], tcp.offset, w);
                    self.windows_clamped[dir] += 1;
                    window = w;
                }
            }
            window_after = Some(u32::from(window) << view.window_shift);
            seg = Some((tcp, view));
        }
        let fate_tcp = seg.and_then(|(tcp, v)| {
            tcp.occupies_sequence_space()
                .then(|| (u64::from(v.rel_seq), v.transmission.unwrap_or(1)))
        });
        let verdict = self.links[dir].offer(now, ip.len, fate_tcp);
        let (reason, t, frame) = match verdict {
            Verdict::Forward { deliver_at } => {
                if let Some(w) = window_after {
                    let m = &mut self.max_window[dir];
                    *m = Some(m.map_or(w, |x| x.max(w)));
                }
                self.lines[dir].push_back(Pkt {
                    buf,
                    len: info.len,
                    ip_len: ip.len,
                    deliver_at,
                });
                return;
            }
            Verdict::DropQueue => (DropReason::Queue, now, None),
            Verdict::DropError {
                tx_start,
                frame_index,
            } => (DropReason::Error, tx_start, Some(frame_index)),
        };
        self.pool.push(buf);
        if self.drops.len() >= self.cfg.drop_log_limit {
            self.drops_unlogged += 1;
            return;
        }
        let (sport, dport) = match ip.l4 {
            L4::Tcp(t) => (Some(t.sport), Some(t.dport)),
            L4::Udp { sport, dport } => (Some(sport), Some(dport)),
            L4::Other => (None, None),
        };
        self.drops.push(DropEvent {
            t: t.saturating_sub(self.start_mono) as f64 * 1e-9,
            t_mono_ns: t,
            dir: DIR_NAMES[dir],
            reason,
            proto: ip.proto,
            src: ip4(ip.src),
            dst: ip4(ip.dst),
            sport,
            dport,
            seq: seg.map(|(_, v)| v.rel_seq),
            seq_abs: seg.map(|(t, _)| t.seq),
            payload: seg.map(|(t, _)| t.payload),
            transmission: seg.and_then(|(_, v)| v.transmission),
            ip_len: ip.len,
            frame,
        });
    }

    /// Send every frame of direction `dir` due at `now`.
    fn depart(&mut self, dir: usize, now: u64) {
        let batch = self.cfg.batch;
        loop {
            let line = &self.lines[dir];
            let due = line
                .iter()
                .take(batch)
                .take_while(|p| p.deliver_at <= now)
                .count();
            if due == 0 {
                return;
            }
            let sent_at = sys::monotonic_ns();
            let frames: Vec<&[u8]> = line.iter().take(due).map(|p| &p.buf[..p.len]).collect();
            let failed = self.ports[1 - dir].send_batch(&mut self.batch, &frames);
            let pc = &mut self.port_counters[1 - dir];
            pc.tx_failed += failed as u64;
            pc.tx_frames += (due - failed) as u64;
            for _ in 0..due {
                let Some(p) = self.lines[dir].pop_front() else {
                    break;
                };
                self.lateness[dir].record(sent_at.saturating_sub(p.deliver_at));
                self.links[dir].delivered(p.ip_len);
                if let Some(w) = self.pcap.as_mut() {
                    let ts = self.start_real + sent_at.saturating_sub(self.start_mono);
                    if let Err(e) = w.write(ts, &p.buf[..p.len]) {
                        eprintln!("tcplab-netem: pcap write failed, capture stopped: {e}");
                        self.pcap_failed = Some((e.to_string(), w.frames));
                        self.pcap = None;
                    }
                }
                self.pool.push(p.buf);
            }
        }
    }

    /// Counters, drop log and kernel statistics, as written at exit.
    pub fn report(&mut self) -> Value {
        for (port, pc) in self.ports.iter().zip(self.port_counters.iter_mut()) {
            if let Ok((pkts, drops)) = port.take_stats() {
                pc.kernel_rx_packets += pkts;
                pc.kernel_rx_drops += drops;
            }
        }
        let pcap = match self.pcap.as_mut() {
            Some(w) => {
                let flushed = w.flush();
                json!({
                    "path": self.cfg.pcap.as_ref().map(|p| p.path.display().to_string()),
                    "frames": w.frames,
                    "error": flushed.err().map(|e| e.to_string()),
                })
            }
            None => match &self.pcap_failed {
                Some((err, frames)) => json!({
                    "path": self.cfg.pcap.as_ref().map(|p| p.path.display().to_string()),
                    "frames": frames,
                    "error": err,
                }),
                None => Value::Null,
            },
        };
        let now = sys::monotonic_ns();
        let mut links = serde_json::Map::new();
        for (d, name) in DIR_NAMES.iter().enumerate() {
            let l = &self.links[d];
            let p = l.params();
            let mut v = serde_json::to_value(&l.counters).unwrap_or(Value::Null);
            if let Value::Object(m) = &mut v {
                m.insert("frames_in_flight".into(), json!(self.lines[d].len()));
                m.insert("windows_clamped".into(), json!(self.windows_clamped[d]));
                m.insert("max_window_bytes".into(), json!(self.max_window[d]));
                m.insert(
                    "lateness".into(),
                    serde_json::to_value(self.lateness[d].summary()).unwrap_or(Value::Null),
                );
                m.insert(
                    "params".into(),
                    json!({
                        "rate_bps": p.rate_bps,
                        "delay_ns": p.delay_ns,
                        "framing": p.framing.name(),
                        "queue": format!("{:?}", p.queue),
                        "error": format!("{:?}", self.cfg.dirs[d].error),
                        "stream": self.cfg.dirs[d].stream,
                    }),
                );
            }
            links.insert((*name).into(), v);
        }
        let ports: Vec<Value> = self
            .port_counters
            .iter()
            .zip([&self.cfg.iface_a, &self.cfg.iface_b])
            .map(|(pc, name)| {
                json!({
                    "iface": name,
                    "rx_frames": pc.rx_frames,
                    "passthrough": pc.passthrough,
                    "oversize": pc.oversize,
                    "own_frames": pc.own_frames,
                    "tx_frames": pc.tx_frames,
                    "tx_failed": pc.tx_failed,
                    "kernel_rx_packets": pc.kernel_rx_packets,
                    "kernel_rx_drops": pc.kernel_rx_drops,
                })
            })
            .collect();
        json!({
            "tool": "tcplab-netem",
            "version": env!("CARGO_PKG_VERSION"),
            "start_monotonic_ns": self.start_mono,
            "start_realtime_ns": self.start_real,
            "duration_s": now.saturating_sub(self.start_mono) as f64 * 1e-9,
            "seed": self.cfg.seed,
            "rwnd_clamp_bytes": self.cfg.rwnd_clamp_bytes,
            "timing": {
                "busy_poll_ns": self.cfg.busy_poll_ns,
                "spin_window_ns": self.spin.window(),
                "timer_wakeups": self.spin.wakeups,
                "spin_periods_suspended": self.spin.periods_suspended,
                "max_timer_overshoot_ns": self.spin.max_overshoot_ns,
                "frames_without_timestamp": self.frames_without_timestamp,
            },
            "links": links,
            "ports": {"a": ports[0], "b": ports[1]},
            "drops": self.drops,
            "drops_unlogged": self.drops_unlogged,
            "pcap": pcap,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adaptive_spin_window_follows_the_timer_overshoot() {
        let mut s = Spin::new(None);
        assert_eq!(s.window(), 220_000);
        for _ in 0..OVERSHOOT_WINDOW {
            s.record(50_000);
        }
        assert_eq!(s.window(), 70_000);
        for _ in 0..OVERSHOOT_WINDOW {
            s.record(0);
        }
        assert_eq!(s.window(), SPIN_MIN_NS);
        let mut f = Spin::new(Some(5_000));
        f.record(1_000_000);
        assert_eq!(f.window(), 5_000);
    }

    #[test]
    fn spinning_is_suspended_after_a_period_mostly_spent_spinning() {
        let mut s = Spin::new(None);
        s.account(0, true);
        s.account(DUTY_PERIOD_NS, true); // spun the whole period
        assert_eq!(s.window(), 0);
        s.account(DUTY_PERIOD_NS + 1, false);
        s.account(2 * DUTY_PERIOD_NS + 2, false); // a quiet period
        assert!(s.window() > 0);
        assert_eq!(s.periods_suspended, 1);
    }
}
