//! Full-duplex point-to-point links, modelled per direction.
//!
//! A direction has a rate, a propagation delay, an MTU, a framing, a transmit queue (drop-tail,
//! optionally managed by RED, see [`crate::net::aqm`]) and an error model. The transmitter is
//! modelled analytically: it is busy until `busy_until`; a frame offered at `t` starts at
//! `max(t, busy_until)`, is on the wire for its serialisation time, and arrives `delay` later.
//! This is exactly a FIFO queue with one server, without events for transmission start and end.
//! The queue limit counts frames waiting, not the one being sent (as ns-3's DropTail queue
//! behind its device).
//!
//! Errors are decided when a frame starts transmission, in transmission order, so the error model
//! sees this direction's own frame sequence. A corrupted frame still occupies the wire and is
//! discarded by the receiver on arrival (it is counted in `frames_sent` and `frames_dropped_error`).

use crate::engine::ring::{HeadRing, Ring};
use crate::engine::time::{serialization, Dur, SimTime, NS_PER_SEC};
use crate::net::aqm::{Red, RedDrop};
use crate::net::codel::{CoDelQueue, Pending};
use crate::net::loss::{ErrorModel, FrameInfo};
use crate::net::packet::Packet;
use crate::net::pool::{FrameId, PacketPool};
use crate::output::series::LinkSeries;

/// Link-layer framing: bytes added on the wire, and bytes exposed to bit errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// IEEE 802.3: 8 B preamble+SFD, 14 B header, 4 B FCS, 12 B inter-frame gap (38 B, the
    /// paper's section 4.3.2), and a 64-byte minimum frame (payload padded to 46 B).
    Ethernet,
    /// PPP in HDLC-like framing (RFC 1662): flag, address, control, 2 B protocol, 2 B FCS, flag.
    Ppp,
    /// No link-layer bytes at all.
    None,
}

impl Framing {
    pub fn name(self) -> &'static str {
        match self {
            Framing::Ethernet => "ethernet",
            Framing::Ppp => "ppp",
            Framing::None => "none",
        }
    }
    /// Bytes the frame occupies on the wire (what serialisation time is computed from).
    #[inline]
    pub fn wire_bytes(self, ip_bytes: u32) -> u32 {
        match self {
            Framing::Ethernet => 8 + 14 + ip_bytes.max(46) + 4 + 12,
            Framing::Ppp => ip_bytes + 8,
            Framing::None => ip_bytes,
        }
    }
    /// `(least IP bytes, overhead)` such that a frame of `ip` IP bytes takes
    /// `ip.max(least) + overhead` bytes on the wire (`wire_bytes`).
    fn wire_rule(self) -> (u32, u32) {
        match self {
            Framing::Ethernet => (46, 8 + 14 + 4 + 12),
            Framing::Ppp => (0, 8),
            Framing::None => (0, 0),
        }
    }
    /// Bytes exposed to bit errors: the frame from header to FCS (no preamble or gap).
    #[inline]
    pub fn exposed_bytes(self, ip_bytes: u32) -> u32 {
        match self {
            Framing::Ethernet => 14 + ip_bytes.max(46) + 4,
            Framing::Ppp => ip_bytes + 8,
            Framing::None => ip_bytes,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
    Unlimited,
}

/// A link direction's counts (`repr(C)`: those every frame updates first, in one cache line).
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct LinkStats {
    pub frames_offered: u64,
    pub frames_sent: u64,
    pub bytes_on_wire: u64,
    pub busy_ns: u64,
    pub queue_delay_ns_sum: u64,
    pub queue_delay_ns_max: u64,
    pub max_queue_packets: u64,
    /// Every drop at the queue: the limit's and RED's.
    pub frames_dropped_queue: u64,
    pub data_frames_dropped_queue: u64,
    pub frames_dropped_error: u64,
    /// Of those, frames carrying TCP payload.
    pub data_frames_dropped_error: u64,
    /// Of `frames_dropped_queue`, RED's random early drops and its forced ones (average above
    /// the random region).
    pub frames_dropped_early: u64,
    pub frames_dropped_forced: u64,
}

/// The fate of a frame offered to a link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Dropped by the full queue.
    QueueDrop,
    /// Accepted; `head_changed` is true if it is now the first frame in flight (the caller
    /// schedules a delivery event at `arrival`).
    Accepted {
        arrival: SimTime,
        head_changed: bool,
    },
    /// Queued behind a CoDel-managed queue: its start is decided when it reaches the head.
    Queued,
}

/// What a link and the nodes it reaches need of a frame to carry it on: its slot in the
/// packet pool, its destination and its size. A relay passes a frame on from these alone, so
/// that with many flows a hop does not read the packet's slot (a miss of the first-level cache
/// at most hops: 9 per data segment on a 1,000-flow dumbbell).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// The packet's slot in the simulator's packet pool (the link holds no copy).
    pub pkt: FrameId,
    /// The packet's destination node (`Packet::dst`).
    pub dst: u16,
    /// The packet's IP size (`Packet::ip_bytes`), at most 65,535: exact on every link whose
    /// MTU is at most `PLAIN_MTU_MAX`, the only ones whose offers read it.
    pub ip: u16,
}

/// The largest MTU of a `plain` link direction, whose offers take a frame's size from its
/// `Frame`. A data segment is at most MTU + 36 bytes: `Sim::new` checks MSS + 40 <= MTU, and
/// SACK blocks beside the timestamps (or four without them) add up to 36 bytes of options that
/// the MSS does not count. So every frame such a link carries is at most 65,535 bytes, and
/// `Frame::ip` holds it exactly; a link with a larger MTU reads the size from the packet.
const PLAIN_MTU_MAX: u32 = 65_535 - 36;

impl Frame {
    /// The frame of `p`, kept in slot `pkt`.
    #[inline]
    pub fn of(pkt: FrameId, p: &Packet) -> Frame {
        debug_assert!(p.dst != CORRUPTED);
        Frame {
            pkt,
            dst: p.dst,
            ip: p.ip_bytes().min(u32::from(u16::MAX)) as u16,
        }
    }
}

/// `InFlight::to` of a corrupted frame: no node (a scenario has at most 65,535, numbered from
/// 0), so that the test of an intact frame for a node is one comparison.
const CORRUPTED: u16 = u16::MAX;

/// A frame on the wire or in flight: when it arrives, and the frame, whose destination is
/// `CORRUPTED` if the error model corrupted it (16 bytes).
#[derive(Clone, Copy, Debug, Default)]
pub struct InFlight {
    pub arrival: SimTime,
    frame: Frame,
}

impl InFlight {
    #[inline(always)]
    pub fn pkt(&self) -> FrameId {
        self.frame.pkt
    }

    #[inline(always)]
    pub fn corrupted(&self) -> bool {
        self.frame.dst == CORRUPTED
    }

    /// The frame, if it arrives intact.
    #[inline(always)]
    pub fn intact(&self) -> Option<Frame> {
        (!self.corrupted()).then_some(self.frame)
    }

    /// Whether the frame arrives intact for node `node`: one comparison.
    #[inline(always)]
    pub fn intact_for(&self, node: u16) -> bool {
        debug_assert!(node != CORRUPTED);
        self.frame.dst == node
    }
}

/// One direction of a link. Laid out by use (`repr(C)`, aligned to a cache line): with many
/// flows the link directions do not stay in the cache, so what a frame's delivery reads comes
/// first, then what every offer reads, its statistics and error model, and the rest after.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct LinkDir {
    // What a frame's delivery reads (one cache line), the head frame among it.
    in_flight: HeadRing<InFlight>,
    /// The simulator's last `(destination, next hop)` for frames arriving over this direction.
    pub hop_memo: (u32, u32),
    pub to: u16,
    pub from: u16,
    /// Set by the simulator: the node at `to` passes frames on at once (no packet filters,
    /// no processing delay), straight from this direction's FIFO.
    pub relays: bool,
    /// No RED, CoDel, queue log or series, a rate that divides 8e9 (`ns_per_byte`) and an MTU
    /// of at most `PLAIN_MTU_MAX`: `offer` takes a specialised copy without the tests for them.
    plain: bool,
    /// Private: `wire_rule` is read from it.
    framing: Framing,
    /// The error model is lossless (`ErrorModel::is_lossless`): a plain offer's copy without
    /// the model's decision.
    lossless: bool,
    // What every offer reads, and the counts it updates (the first four of `stats`, which is
    // `repr(C)`, end this cache line; the rest of them are updated when the link is busy or
    // drops a frame).
    busy_until: SimTime,
    pub delay: Dur,
    /// Nanoseconds per byte on the wire when the rate divides 8e9 bits·ns/s exactly (every
    /// common rate: 10 Mbit/s is 800, 1 Gbit/s is 8), so that a frame's transmission time is
    /// one multiplication, the same value as `serialization` gives; 0 when it does not.
    ns_per_byte: u64,
    /// `Framing::wire_rule` of `framing`: a frame's size on the wire without a match on the
    /// framing for every frame offered.
    wire_rule: (u32, u32),
    pub stats: LinkStats,
    // What an offer reads when the link is busy.
    waiting_bytes: u64,
    pub queue_limit: QueueLimit,
    /// Frames accepted whose transmission has not started: (start time, wire bytes).
    waiting: Ring<(SimTime, u32)>,
    // What only links that are not `plain` read.
    /// A CoDel-managed queue, if configured: frames wait here until the transmitter is free,
    /// and are dequeued (or dropped) then, in `advance`.
    codel: Option<Box<CoDelQueue>>,
    /// RED on the queue, if configured (drop-tail only otherwise).
    red: Option<Box<Red>>,
    /// Statistics per interval of simulated time (`output.link_series`), if asked for.
    series: Option<Box<LinkSeries>>,
    /// Private: `plain` depends on it.
    err: ErrorModel,
    // The rest.
    pub name: String,
    pub rate_bps: u64,
    pub mtu: u32,
    /// Frames CoDel dropped at dequeue, with the time, for the caller's logs.
    late_drops: Vec<(SimTime, FrameId)>,
    /// Frames of a CoDel queue whose arrival the queue log holds.
    codel_logged: u64,
    /// When the queue is logged (`output.queues`): every change of the waiting queue as
    /// (time, frames, bytes) deltas, a frame counted from its arrival to the start of its
    /// transmission. Kept as deltas because a frame's start is known when it is queued.
    qlog: Option<Vec<(SimTime, i32, i64)>>,
    /// The most queued frames logged (`output.max_rows`), and how many were not.
    qlog_max: usize,
    qlog_dropped: u64,
}

// What a delivery reads stays in the first cache line.
const _: () = assert!(std::mem::size_of::<HeadRing<InFlight>>() == 40);
const _: () = assert!(std::mem::offset_of!(LinkDir, lossless) < 64);

impl LinkDir {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        from: u16,
        to: u16,
        rate_bps: u64,
        delay: Dur,
        mtu: u32,
        framing: Framing,
        queue_limit: QueueLimit,
        err: ErrorModel,
    ) -> Self {
        let mut d = LinkDir {
            name,
            from,
            to,
            rate_bps,
            delay,
            mtu,
            framing,
            wire_rule: framing.wire_rule(),
            queue_limit,
            err,
            stats: LinkStats::default(),
            red: None,
            codel: None,
            late_drops: Vec::new(),
            codel_logged: 0,
            series: None,
            busy_until: SimTime::ZERO,
            ns_per_byte: match rate_bps {
                0 => 0,
                r if (8 * NS_PER_SEC).is_multiple_of(r) => 8 * NS_PER_SEC / r,
                _ => 0,
            },
            waiting: Ring::default(),
            waiting_bytes: 0,
            in_flight: HeadRing::default(),
            qlog: None,
            qlog_max: 0,
            qlog_dropped: 0,
            plain: false,
            lossless: true,
            relays: false,
            hop_memo: (u32::MAX, u32::MAX),
        };
        d.update_plain();
        d
    }

    /// Recompute `plain` after a change of what it depends on.
    fn update_plain(&mut self) {
        self.plain = self.red.is_none()
            && self.codel.is_none()
            && self.qlog.is_none()
            && self.series.is_none()
            && self.ns_per_byte != 0
            && self.mtu <= PLAIN_MTU_MAX;
        self.lossless = self.err.is_lossless();
    }

    /// Manage the queue with RED (before the queue limit applies).
    pub fn set_red(&mut self, red: Red) {
        self.red = Some(Box::new(red));
        self.update_plain();
    }

    /// Manage the queue with CoDel (RFC 8289): frames are dequeued, or dropped, when the
    /// transmitter becomes free.
    pub fn set_codel(&mut self, q: CoDelQueue) {
        self.codel = Some(Box::new(q));
        self.update_plain();
    }

    /// Frames CoDel dropped since the last call, with the time of each drop.
    pub fn take_late_drops(&mut self) -> Vec<(SimTime, FrameId)> {
        std::mem::take(&mut self.late_drops)
    }

    /// Whether the queue is CoDel's (its frames are dequeued by `advance`).
    #[inline]
    pub fn has_codel(&self) -> bool {
        // A plain direction has none: `plain` shares the delivery's cache line, `codel` does not.
        !self.plain && self.codel.is_some()
    }

    /// Keep statistics per `interval_ns` of simulated time, for up to `max_bins` intervals.
    pub fn keep_series(&mut self, interval_ns: u64, max_bins: usize) {
        self.series = Some(Box::new(LinkSeries::new(interval_ns, max_bins)));
        self.update_plain();
    }

    /// The statistics per interval, if kept.
    pub fn series(&self) -> Option<&LinkSeries> {
        self.series.as_deref()
    }

    /// Count a frame the queue (its limit or RED) refused at `now`.
    // Out of line: most runs never or seldom call it, and in line it made the per-segment paths
    // that can larger and slower (BENCHMARKS.md, "Rare paths out of line").
    #[inline(never)]
    fn queue_drop(&mut self, now: SimTime, payload: bool) -> Offer {
        self.stats.frames_dropped_queue += 1;
        self.stats.data_frames_dropped_queue += u64::from(payload);
        if let Some(s) = self.series.as_deref_mut() {
            s.queue_drop(now);
        }
        Offer::QueueDrop
    }

    /// RED's average queue length (packets) at the last arrival, if RED manages the queue.
    pub fn red_average(&self) -> Option<f64> {
        self.red.as_ref().map(|r| r.average())
    }

    /// Keep the queue's length over time (see [`LinkDir::queue_series`]) for up to
    /// `max_frames` queued frames; later ones are counted (`queue_log_dropped`), not logged,
    /// so the series stays exact up to where it stops.
    pub fn log_queue(&mut self, max_frames: usize) {
        self.qlog = Some(Vec::new());
        self.update_plain();
        self.qlog_max = max_frames;
    }

    /// Queued frames the queue log left out (over `output.max_rows`).
    pub fn queue_log_dropped(&self) -> u64 {
        self.qlog_dropped
    }

    /// The waiting queue over time, up to `until`: one `(time, frames, bytes)` row per instant
    /// at which it changed, with its length after the changes at that instant (the frame on
    /// the wire not counted, as `queue_len`). Empty unless `log_queue` was called.
    pub fn queue_series(&self, until: SimTime) -> Vec<(SimTime, u64, u64)> {
        let Some(log) = &self.qlog else {
            return Vec::new();
        };
        let mut deltas = log.clone();
        deltas.sort_by_key(|d| d.0); // stable: same-instant changes keep their order
        let mut out: Vec<(SimTime, u64, u64)> = Vec::new();
        let (mut frames, mut bytes) = (0i64, 0i64);
        for (t, df, db) in deltas {
            if t > until {
                break;
            }
            frames += i64::from(df);
            bytes += db;
            let row = (t, frames.max(0) as u64, bytes.max(0) as u64);
            match out.last_mut() {
                Some(last) if last.0 == t => *last = row,
                _ => out.push(row),
            }
        }
        out
    }

    /// Frames waiting in the queue at `now` (not counting the one on the wire).
    pub fn queue_len(&mut self, now: SimTime, pool: &PacketPool) -> usize {
        if self.codel.is_some() {
            self.advance(now, pool);
            return self.codel.as_deref().map_or(0, CoDelQueue::len);
        }
        self.expire_waiting(now);
        self.waiting.len()
    }

    #[inline]
    fn expire_waiting(&mut self, now: SimTime) {
        while let Some(&(start, bytes)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.waiting.pop_front();
            self.waiting_bytes -= bytes as u64;
        }
    }

    /// Offer frame `f` (its packet in `pool`) for transmission at `now` (inlined into both
    /// callers, `Sim::forward_to` and `Sim::pass_on`: a call and its register saves cost more
    /// than the offer's common case). The packet's slot is read only to drop the frame, and
    /// for an error model that decides by the segment.
    #[inline(always)]
    pub fn offer(&mut self, now: SimTime, f: Frame, pool: &PacketPool) -> Offer {
        match (self.plain, self.lossless) {
            (true, true) => self.offer_as::<true, true>(now, f, pool),
            (true, false) => self.offer_as::<true, false>(now, f, pool),
            (false, _) => self.offer_as::<false, false>(now, f, pool),
        }
    }

    /// `offer`, compiled three times: with `PLAIN` (see `LinkDir::plain`) the tests for RED,
    /// CoDel, the queue log, the series and the rate are left out, with `LOSSLESS` too the error
    /// model's decision (100 MB bulk transfer: 2,181 -> 2,140 instructions per data segment
    /// with every link plain, 2,217 -> 2,209 with a lossy one; a plain lossy link's own copy,
    /// with a PER of 0.001: 1,537 -> 1,517, and 1,475 -> 1,486 with every link lossless, the
    /// callers grown by a third copy).
    #[inline(always)]
    fn offer_as<const PLAIN: bool, const LOSSLESS: bool>(
        &mut self,
        now: SimTime,
        f: Frame,
        pool: &PacketPool,
    ) -> Offer {
        if !PLAIN && self.codel.is_some() {
            return self.offer_codel(now, f.pkt, pool);
        }
        self.stats.frames_offered += 1;
        let ip = if PLAIN {
            debug_assert_eq!(u32::from(f.ip), pool.get(f.pkt).ip_bytes());
            u32::from(f.ip)
        } else {
            pool.get(f.pkt).ip_bytes()
        };
        let wire = ip.max(self.wire_rule.0) + self.wire_rule.1; // `framing.wire_bytes(ip)`
        let busy = self.busy_until > now;
        if busy {
            self.expire_waiting(now);
        }
        if let Some(red) = self.red.as_deref_mut().filter(|_| !PLAIN) {
            let idle_since = (!busy).then_some(self.busy_until);
            let waiting = if busy { self.waiting.len() } else { 0 };
            if let Some(why) = red.on_arrival(now, waiting, idle_since) {
                match why {
                    RedDrop::Early => self.stats.frames_dropped_early += 1,
                    RedDrop::Forced => self.stats.frames_dropped_forced += 1,
                }
                return self.queue_drop(now, pool.get(f.pkt).len > 0);
            }
        }
        let start = if busy {
            let full = match self.queue_limit {
                QueueLimit::Packets(n) => self.waiting.len() as u64 >= n,
                QueueLimit::Bytes(b) => self.waiting_bytes + wire as u64 > b,
                QueueLimit::Unlimited => false,
            };
            if full {
                if let Some(red) = self.red.as_deref_mut().filter(|_| !PLAIN) {
                    red.on_limit_drop();
                }
                return self.queue_drop(now, pool.get(f.pkt).len > 0);
            }
            let start = self.busy_until;
            self.waiting.push_back((start, wire));
            self.waiting_bytes += wire as u64;
            let qlen = self.waiting.len() as u64;
            self.stats.max_queue_packets = self.stats.max_queue_packets.max(qlen);
            let wait = start.since(now).0;
            self.stats.queue_delay_ns_sum += wait;
            self.stats.queue_delay_ns_max = self.stats.queue_delay_ns_max.max(wait);
            if let Some(log) = self.qlog.as_mut().filter(|_| !PLAIN) {
                if log.len() / 2 < self.qlog_max {
                    log.push((now, 1, i64::from(wire)));
                    log.push((start, -1, -i64::from(wire)));
                } else {
                    self.qlog_dropped += 1;
                }
            }
            start
        } else {
            now
        };
        self.transmit::<PLAIN, LOSSLESS>(now, start, wire, f, pool)
    }

    /// Put a frame that reached the queue at `queued` on the wire from `start` (inlined into
    /// `offer`: a call here costs about 8 % of a plain run's instructions).
    #[inline(always)]
    fn transmit<const PLAIN: bool, const LOSSLESS: bool>(
        &mut self,
        queued: SimTime,
        start: SimTime,
        wire: u32,
        f: Frame,
        pool: &PacketPool,
    ) -> Offer {
        let tx = if PLAIN || self.ns_per_byte != 0 {
            Dur(wire as u64 * self.ns_per_byte)
        } else {
            serialization(wire as u64, self.rate_bps)
        };
        self.busy_until = start + tx;
        self.stats.frames_sent += 1;
        self.stats.bytes_on_wire += wire as u64;
        self.stats.busy_ns += tx.0;
        let framing = self.framing;
        let corrupted = if LOSSLESS {
            self.err.pass_lossless();
            false
        } else {
            self.err.corrupts_frame(|| {
                let pkt = pool.get(f.pkt);
                FrameInfo {
                    exposed_bytes: framing.exposed_bytes(pkt.ip_bytes()),
                    tcp: (pkt.seq_len() > 0 && !pkt.is(crate::net::packet::UDP))
                        .then_some((pkt.seq, pkt.tx_count)),
                }
            })
        };
        if let Some(s) = self.series.as_deref_mut().filter(|_| !PLAIN) {
            s.sent(queued, start, tx.0, wire, corrupted);
        }
        let arrival = self.busy_until + self.delay;
        let head_changed = self.in_flight.is_empty();
        // Written in its slot, not built aside and copied (see `Ring`).
        *self.in_flight.push_slot() = InFlight {
            arrival,
            frame: Frame {
                dst: if corrupted { CORRUPTED } else { f.dst },
                ..f
            },
        };
        Offer::Accepted {
            arrival,
            head_changed,
        }
    }

    /// `offer` on a CoDel-managed queue: dequeue what the transmitter has sent by `now`, then
    /// queue the frame (or refuse it at the limit) and dequeue again, so that a frame reaching
    /// an idle link leaves at once.
    #[cold]
    fn offer_codel(&mut self, now: SimTime, id: FrameId, pool: &PacketPool) -> Offer {
        self.stats.frames_offered += 1;
        self.advance(now, pool);
        let pkt = pool.get(id);
        let wire = self.framing.wire_bytes(pkt.ip_bytes());
        let q = self
            .codel
            .as_deref_mut()
            .expect("offer_codel runs with CoDel");
        let full = match self.queue_limit {
            QueueLimit::Packets(n) => q.len() as u64 >= n,
            QueueLimit::Bytes(b) => q.bytes() + wire as u64 > b,
            QueueLimit::Unlimited => false,
        };
        // The frame on the wire does not count against the limit, as for drop-tail.
        if full && self.busy_until > now {
            return self.queue_drop(now, pkt.len > 0);
        }
        // A frame reaching an idle link leaves at once: it never waits, and is not logged.
        let busy = self.busy_until > now;
        let mut logged = false;
        if let Some(log) = self.qlog.as_mut().filter(|_| busy) {
            if (self.codel_logged as usize) < self.qlog_max {
                self.codel_logged += 1;
                logged = true;
                log.push((now, 1, i64::from(wire)));
            } else {
                self.qlog_dropped += 1;
            }
        }
        q.push(now, wire, id, pkt.len > 0, logged);
        if busy {
            let qlen = q.len() as u64;
            self.stats.max_queue_packets = self.stats.max_queue_packets.max(qlen);
        }
        let was_empty = self.in_flight.is_empty();
        self.advance(now, pool);
        match self.in_flight.front() {
            Some(f) if was_empty => Offer::Accepted {
                arrival: f.arrival,
                head_changed: true,
            },
            _ => Offer::Queued,
        }
    }

    /// Run a CoDel-managed queue up to `now`: each time the transmitter is free (at
    /// `busy_until`, or when the next frame arrives to an idle link) CoDel dequeues, dropping
    /// what it drops, and the frame it returns goes on the wire. Frames are thus decided when
    /// they reach the head, with the backlog of that moment, however late this is called, as
    /// long as it is called before the frame's transmission ends (the delivery event of the
    /// frame ahead of it calls it, and every arrival does).
    #[inline]
    pub fn advance(&mut self, now: SimTime, pool: &PacketPool) {
        if self.codel.is_some() {
            self.advance_codel(now, pool);
        }
    }

    #[cold]
    fn advance_codel(&mut self, now: SimTime, pool: &PacketPool) {
        while let Some(q) = self.codel.as_deref_mut() {
            let free = self.busy_until;
            if free > now {
                return;
            }
            let Some(head) = q.head_arrival() else {
                q.dequeue(free, &mut Vec::new()); // the dequeue that finds the queue empty
                return;
            };
            if head > free {
                q.dequeue(free, &mut Vec::new()); // idle before the frame came
            }
            let t = free.max(head);
            let mut dropped: Vec<Pending> = Vec::new();
            let next = q.dequeue(t, &mut dropped);
            for d in dropped {
                self.stats.frames_dropped_queue += 1;
                self.stats.frames_dropped_early += 1;
                self.stats.data_frames_dropped_queue += u64::from(d.data);
                if let Some(s) = self.series.as_deref_mut() {
                    s.dropped_after_wait(d.arrival, t);
                }
                self.log_dequeue(t, &d);
                self.late_drops.push((t, d.pkt));
            }
            match next {
                Some(p) => {
                    let wait = t.since(p.arrival).0;
                    self.stats.queue_delay_ns_sum += wait;
                    self.stats.queue_delay_ns_max = self.stats.queue_delay_ns_max.max(wait);
                    self.log_dequeue(t, &p);
                    let f = Frame::of(p.pkt, pool.get(p.pkt));
                    self.transmit::<false, false>(p.arrival, t, p.wire, f, pool);
                }
                None => self.busy_until = t,
            }
        }
    }

    /// Log a CoDel dequeue (or drop) at `t` of a frame whose arrival was logged.
    fn log_dequeue(&mut self, t: SimTime, p: &Pending) {
        if let Some(log) = self.qlog.as_mut().filter(|_| p.logged) {
            log.push((t, -1, -i64::from(p.wire)));
        }
    }

    /// Remove the head frame (its delivery event fired) and return it.
    #[inline]
    pub fn take_head(&mut self, pool: &PacketPool) -> Option<InFlight> {
        let f = self.in_flight.pop_front()?;
        // (No count of the bytes delivered: nothing read it, and it cost a size computation
        // per frame and hop.)
        if f.corrupted() {
            self.stats.frames_dropped_error += 1;
            self.stats.data_frames_dropped_error += u64::from(pool.get(f.pkt()).len > 0);
        }
        Some(f)
    }

    /// Remove the head frame, which its caller read in place and found intact (so there is
    /// nothing to count): `take_head` without the test of the frame and without moving it.
    /// The arrival time of the frame that becomes the head, if any (for its delivery event).
    #[inline]
    pub fn drop_intact_head(&mut self) -> Option<SimTime> {
        debug_assert!(self.head().is_some_and(|f| !f.corrupted()));
        self.in_flight.advance().map(|n| n.arrival)
    }

    /// Start loading the two cache lines an offer reads.
    #[inline(always)]
    pub fn prefetch_offer(&self) {
        crate::engine::prefetch(self);
        crate::engine::prefetch(&self.busy_until);
    }

    /// Frames this direction holds: on the wire or in flight, and those a CoDel queue keeps.
    pub fn frames_held(&self) -> usize {
        self.in_flight.len() + self.codel.as_deref().map_or(0, CoDelQueue::len)
    }

    /// The head frame (the next to arrive), if any.
    #[inline]
    pub fn head(&self) -> Option<&InFlight> {
        self.in_flight.front()
    }

    /// Arrival time of the head frame, if any.
    #[inline]
    pub fn head_arrival(&self) -> Option<SimTime> {
        self.in_flight.front().map(|n| n.arrival)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::stream;
    use crate::net::loss::{ErrorModelConfig, Law};

    fn pkt(len: u32) -> Packet {
        Packet {
            dst: 1,
            seq: 1,
            len,
            ..Packet::default()
        }
    }

    /// Offer `d` a frame of `len` payload bytes at `t`, kept in `pool`.
    fn offer(d: &mut LinkDir, pool: &mut PacketPool, t: SimTime, len: u32) -> Offer {
        let p = pkt(len);
        let id = pool.put(&p);
        d.offer(t, Frame::of(id, &p), pool)
    }

    fn dir(limit: QueueLimit) -> LinkDir {
        dir_with(limit, 1500, ErrorModelConfig::None)
    }

    /// `dir` with another MTU and error model.
    fn dir_with(limit: QueueLimit, mtu: u32, err: ErrorModelConfig) -> LinkDir {
        LinkDir::new(
            "l:ab".into(),
            0,
            1,
            10_000_000,
            Dur::from_millis(20),
            mtu,
            Framing::Ethernet,
            limit,
            ErrorModel::new(err, stream(0, "l")),
        )
    }

    #[test]
    fn ethernet_framing_sizes() {
        for f in [Framing::Ethernet, Framing::Ppp, Framing::None] {
            let (least, overhead) = f.wire_rule();
            for ip in [0, 20, 40, 45, 46, 47, 1500] {
                assert_eq!(ip.max(least) + overhead, f.wire_bytes(ip));
            }
        }
        assert_eq!(Framing::Ethernet.wire_bytes(1500), 1538);
        assert_eq!(Framing::Ethernet.wire_bytes(40), 84); // padded to the 64-byte minimum
        assert_eq!(Framing::Ethernet.exposed_bytes(1500), 1518);
        assert_eq!(Framing::Ppp.wire_bytes(1500), 1508);
    }

    #[test]
    fn queue_series_counts_each_frame_from_arrival_to_its_transmission() {
        // 1538-byte frames take 1230.4 us at 10 Mb/s. Four offered at 0 and one at 3 ms:
        // frame 1 goes at once; 2, 3, 4 wait until 1.2304, 2.4608, 3.6912 ms; frame 5 arrives
        // at 3 ms behind frame 4 and waits until 4.9216 ms.
        let mut d = dir(QueueLimit::Packets(10));
        let mut pool = PacketPool::default();
        d.log_queue(1000);
        for _ in 0..4 {
            offer(&mut d, &mut pool, SimTime::ZERO, 1460);
        }
        offer(&mut d, &mut pool, SimTime(3_000_000), 1460);
        let tx = 1_230_400;
        let b = 1538;
        assert_eq!(
            d.queue_series(SimTime(10_000_000)),
            vec![
                (SimTime(0), 3, 3 * b),
                (SimTime(tx), 2, 2 * b),
                (SimTime(2 * tx), 1, b),
                (SimTime(3_000_000), 2, 2 * b),
                (SimTime(3 * tx), 1, b),
                (SimTime(4 * tx), 0, 0),
            ]
        );
        // Cut at the stop time; and nothing is kept unless asked for.
        assert_eq!(d.queue_series(SimTime(tx)).len(), 2);
        let mut quiet = dir(QueueLimit::Packets(10));
        offer(&mut quiet, &mut pool, SimTime::ZERO, 1460);
        offer(&mut quiet, &mut pool, SimTime::ZERO, 1460);
        assert!(quiet.queue_series(SimTime(10_000_000)).is_empty());
    }

    #[test]
    fn back_to_back_frames_are_serialised_then_delayed() {
        let mut d = dir(QueueLimit::Packets(10));
        let mut pool = PacketPool::default();
        // 1538 B at 10 Mb/s = 1230.4 us.
        let a = offer(&mut d, &mut pool, SimTime::ZERO, 1460);
        let b = offer(&mut d, &mut pool, SimTime::ZERO, 1460);
        assert_eq!(
            a,
            Offer::Accepted {
                arrival: SimTime(1_230_400 + 20_000_000),
                head_changed: true
            }
        );
        assert_eq!(
            b,
            Offer::Accepted {
                arrival: SimTime(2 * 1_230_400 + 20_000_000),
                head_changed: false
            }
        );
    }

    #[test]
    fn drop_tail_counts_waiting_frames_only() {
        let mut d = dir(QueueLimit::Packets(2));
        let mut pool = PacketPool::default();
        // One on the wire + two waiting are accepted; the fourth is dropped.
        for _ in 0..3 {
            assert!(matches!(
                offer(&mut d, &mut pool, SimTime::ZERO, 1460),
                Offer::Accepted { .. }
            ));
        }
        assert_eq!(
            offer(&mut d, &mut pool, SimTime::ZERO, 1460),
            Offer::QueueDrop
        );
        assert_eq!(d.stats.frames_dropped_queue, 1);
        // After the first two transmissions end, room again.
        assert_eq!(d.queue_len(SimTime(2_460_800), &pool), 0);
        assert!(matches!(
            offer(&mut d, &mut pool, SimTime(2_460_800), 1460),
            Offer::Accepted { .. }
        ));
    }

    #[test]
    fn red_decides_on_the_frames_waiting_at_each_arrival() {
        use crate::net::aqm::{Red, RedCfg};
        let mut d = dir(QueueLimit::Packets(100));
        let mut pool = PacketPool::default();
        // weight 1: the average is the queue each arrival finds; no random region (max_p 0
        // at min_th) and no gentle ramp: from 2 waiting frames on, every arrival is dropped.
        let cfg = RedCfg {
            min_th: 1.0,
            max_th: 2.0,
            max_p: 1e-12,
            weight: 1.0,
            gentle: false,
            ..RedCfg::default()
        };
        d.set_red(Red::new(cfg, 10_000_000, stream(0, "aqm:l:ab")));
        let accepted = |o: Offer| matches!(o, Offer::Accepted { .. });
        assert!(accepted(offer(&mut d, &mut pool, SimTime::ZERO, 1460))); // on the wire
        assert!(accepted(offer(&mut d, &mut pool, SimTime::ZERO, 1460))); // finds 0 waiting
        assert!(accepted(offer(&mut d, &mut pool, SimTime::ZERO, 1460))); // finds 1
        assert_eq!(
            offer(&mut d, &mut pool, SimTime::ZERO, 1460),
            Offer::QueueDrop
        ); // finds 2
        assert_eq!(
            offer(&mut d, &mut pool, SimTime::ZERO, 1460),
            Offer::QueueDrop
        );
        assert_eq!(d.stats.frames_dropped_forced, 2);
        assert_eq!(d.stats.frames_dropped_queue, 2);
        assert_eq!(d.stats.frames_dropped_early, 0);
        // Once the first frame has left (1230.4 us) one waits: accepted again, and the
        // dropped frames never took wire time (the third ends at 3 x 1230.4 us).
        assert!(accepted(offer(&mut d, &mut pool, SimTime(1_230_400), 1460)));
        assert_eq!(d.red_average(), Some(1.0));
        assert_eq!(
            offer(&mut d, &mut pool, SimTime(1_230_400), 1460),
            Offer::QueueDrop,
            "two waiting again"
        );
        assert_eq!(d.stats.frames_sent, 4);
        assert_eq!(d.stats.busy_ns, 4 * 1_230_400);
    }

    #[test]
    fn a_frame_carries_its_destination_and_size() {
        let mut d = dir(QueueLimit::Packets(10));
        let mut pool = PacketPool::default();
        let p = Packet {
            dst: 7,
            ..pkt(1460)
        };
        let id = pool.put(&p);
        let f = Frame::of(id, &p);
        assert_eq!((f.pkt, f.dst, f.ip), (id, 7, 1500));
        // 1538 B at 10 Mb/s = 1230.4 us, then 20 ms.
        assert_eq!(
            d.offer(SimTime::ZERO, f, &pool),
            Offer::Accepted {
                arrival: SimTime(1_230_400 + 20_000_000),
                head_changed: true
            }
        );
        let head = *d.head().unwrap();
        assert!(!head.corrupted() && head.intact_for(7) && !head.intact_for(1));
        assert_eq!(head.intact(), Some(f));
        // The largest UDP datagram (65,507 B of payload) fits the field exactly.
        let udp = Packet {
            len: 65_507,
            flags: crate::net::packet::UDP,
            ..Packet::default()
        };
        assert_eq!(Frame::of(id, &udp).ip, 65_535);
    }

    #[test]
    fn a_frame_over_65535_bytes_is_sized_from_its_packet() {
        // The largest MSS with 36 bytes of SACK options: 20 + 20 + 36 + 65,495 = 65,571 B of
        // IP, on a link of the largest MTU (which is not `plain`).
        let mut d = dir_with(QueueLimit::Packets(10), 65_535, ErrorModelConfig::None);
        let mut pool = PacketPool::default();
        let p = Packet {
            dst: 7,
            len: 65_495,
            opt_len: 36,
            ..Packet::default()
        };
        let id = pool.put(&p);
        let f = Frame::of(id, &p);
        assert_eq!(f.ip, u16::MAX);
        // (65,571 + 38) B at 10 Mb/s = 52,487.2 us, then 20 ms.
        assert_eq!(
            d.offer(SimTime::ZERO, f, &pool),
            Offer::Accepted {
                arrival: SimTime(52_487_200 + 20_000_000),
                head_changed: true
            }
        );
    }

    #[test]
    fn a_corrupted_frame_is_for_no_node_and_keeps_its_slot() {
        let per_1 = ErrorModelConfig::Law(Law::Per(1.0));
        let mut d = dir_with(QueueLimit::Packets(10), 1500, per_1);
        let mut pool = PacketPool::default();
        let p = pkt(1460);
        let id = pool.put(&p);
        assert!(matches!(
            d.offer(SimTime::ZERO, Frame::of(id, &p), &pool),
            Offer::Accepted { .. }
        ));
        let head = *d.head().unwrap();
        assert!(head.corrupted() && head.intact().is_none());
        assert!(!head.intact_for(p.dst) && !head.intact_for(0));
        assert_eq!(head.pkt(), id);
        let taken = d.take_head(&pool).unwrap();
        assert_eq!(taken.pkt(), id);
        assert_eq!(
            (
                d.stats.frames_dropped_error,
                d.stats.data_frames_dropped_error
            ),
            (1, 1)
        );
    }

    #[test]
    fn byte_limited_queue() {
        let mut d = dir(QueueLimit::Bytes(2000));
        let mut pool = PacketPool::default();
        assert!(matches!(
            offer(&mut d, &mut pool, SimTime::ZERO, 1460),
            Offer::Accepted { .. }
        ));
        assert!(matches!(
            offer(&mut d, &mut pool, SimTime::ZERO, 1460),
            Offer::Accepted { .. }
        ));
        assert_eq!(
            offer(&mut d, &mut pool, SimTime::ZERO, 1460),
            Offer::QueueDrop
        );
        assert!(matches!(
            offer(&mut d, &mut pool, SimTime::ZERO, 0),
            Offer::Accepted { .. }
        ));
    }
}
