//! The simulated world: nodes with static routes, link directions, connections and
//! applications, driven by one event queue. What the applications do, and what they check after
//! an endpoint ran, is in `apps`; what a run reports once it has ended, the summary and the
//! tables, is made in `report`.

mod apps;
mod psh;
mod report;
pub mod step;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::apps::txn::TxnRt;
use crate::apps::udp::UdpRt;
use crate::engine::event::{Event, TimerKind};
use crate::engine::queue::{EventQueue, Upcoming};
use crate::engine::rng::stream;
use crate::engine::time::{Dur, SimTime};
use crate::error::{SimError, SimResult};
use crate::net::aqm::{AqmCfg, Red};
use crate::net::codel::CoDelQueue;
use crate::net::filter::{Filter, Protocol};
use crate::net::link::{Frame, InFlight, LinkDir, Offer};
use crate::net::loss::ErrorModel;
use crate::net::packet::{Packet, UDP};
use crate::net::pool::{FrameId, PacketPool};
use crate::output::trace::{Cap, ConnTrace, EventLog, PacketLog, TraceRow};
use crate::output::SimOutput;
use crate::scenario::apps::AppKind;
use crate::scenario::routes::{Routes, NO_ROUTE};
use crate::scenario::Scenario;
use crate::tcp::{Ctx, Endpoint, TcpConfig, SSTHRESH_UNLIMITED};

use apps::{endpoints, per_page, quiet_end_of};

/// A node's processing delay and the packets it holds (their slots), due in order.
struct Held {
    delay: Dur,
    q: VecDeque<(SimTime, FrameId)>,
}

struct AppRt {
    /// The application's current connection (its only one, except an `http` application with
    /// a connection per page).
    conn: u32,
    /// Every connection the application has had, in order (page k's is `conns[k]`).
    conns: Vec<u32>,
    started: Option<SimTime>,
    responded: bool,
    done_at: Option<SimTime>,
    client_closed: bool,
    /// Which end sends the bulk of the data (1: server for FTP, 0: client for bulk and CBR).
    sender: u8,
    /// Bytes the application has written (CBR).
    offered: u64,
    /// Largest unsent-or-unacknowledged backlog seen at a CBR write.
    max_backlog: u64,
    /// The transactions of a `database` or `http` application.
    txn: Option<Box<TxnRt>>,
    /// The datagrams of a `udp` application (its connection's endpoints stay unused).
    udp: Option<Box<UdpRt>>,
}

/// A TCP connection: its client's and server's endpoints, and the application it belongs to
/// (kept beside the endpoints, so that finding it costs no lookup of its own per packet).
struct Conn {
    ends: [Endpoint; 2],
    app: u32,
}

/// What endpoints borrow while they run: the clock and queue, their output, and the logs.
struct World {
    q: EventQueue,
    out: Vec<Packet>,
    uid: u64,
    /// Boxed, so that the endpoints' context takes each as a pointer, not by testing which
    /// variant the option is (a context is made for every segment delivered).
    events: Option<Box<EventLog>>,
    packets: Option<Box<PacketLog>>,
}

impl World {
    fn ctx(&mut self) -> Ctx<'_> {
        Ctx {
            now: self.q.now(),
            q: &mut self.q,
            out: &mut self.out,
            next_uid: &mut self.uid,
            events: self.events.as_deref_mut(),
            packets: self.packets.as_deref_mut(),
        }
    }
}

pub struct Sim<'s> {
    sc: &'s Scenario,
    w: World,
    routes: Routes,
    /// The last `(destination, next hop)` looked up by each node (`forward`; for the frames
    /// of a link direction, `LinkDir::hop_memo`): the routes never change during a run, and
    /// most frames go where the one before went.
    node_hop: Vec<(u32, u32)>,
    dirs: Vec<LinkDir>,
    /// Every packet in the network, from the moment it leaves its endpoint to its delivery or
    /// drop: link directions and nodes hold its slot.
    pool: PacketPool,
    /// Every connection, by its number (`Packet::conn`, the tables' `conn`). Application i
    /// owns connection i from the set-up; connections opened while the run goes on (a page
    /// each) come after them.
    conns: Vec<Conn>,
    /// Per connection, the end (0 client, 1 server) whose segments cannot change what its
    /// application waits for (`quiet_end_of`), or `NEITHER` or `NEVER`. Beside `conns`, a byte each,
    /// so that the check costs no read of the application's settings or state (with 1,000
    /// flows, lines out of the cache at most ACKs).
    quiet_end: Vec<u8>,
    apps: Vec<AppRt>,
    /// Per node: the packets its processing delay holds, and that delay.
    held: Vec<Held>,
    /// Packet filters per node (empty when no node has rules).
    filters: Vec<Option<Box<Filter>>>,
    trace: Option<ConnTrace>,
    last_rows: Vec<Option<TraceRow>>,
    stop: SimTime,
    stopped_by_time: bool,
    /// Time of the last event that did something (stale timer entries do not count).
    last_active: SimTime,
    /// The applications by (start, index): each start schedules the next (`next_app_start`).
    app_order: Vec<u32>,
    /// The scheduling counter reserved for application 0's start (application i's is this + i).
    app_seq0: u64,
    /// The position in `app_order` of the last start scheduled.
    app_started: usize,
}

impl<'s> Sim<'s> {
    pub fn new(sc: &'s Scenario) -> SimResult<Self> {
        let seed = sc.run.seed;
        let mut dirs = Vec::with_capacity(sc.links.len() * 2);
        for l in &sc.links {
            for (k, (from, to, tag)) in [(l.a, l.b, "ab"), (l.b, l.a, "ba")].into_iter().enumerate()
            {
                let d = &l.dirs[k];
                let id = format!("link:{}:{}", l.name, tag);
                dirs.push(LinkDir::new(
                    format!("{}:{}", l.name, tag),
                    from as u16,
                    to as u16,
                    d.rate_bps,
                    d.delay,
                    d.mtu,
                    d.framing,
                    d.queue,
                    ErrorModel::new(d.error.clone(), stream(seed, &id)),
                ));
                match &d.aqm {
                    AqmCfg::Red(cfg) => {
                        let rng = stream(seed, &format!("aqm:{}:{}", l.name, tag));
                        let dir = dirs.last_mut().expect("just pushed");
                        dir.set_red(Red::new(cfg.clone(), d.rate_bps, rng));
                    }
                    AqmCfg::CoDel(cfg) => {
                        let dir = dirs.last_mut().expect("just pushed");
                        dir.set_codel(CoDelQueue::new(cfg.clone()));
                    }
                    AqmCfg::None => {}
                }
            }
        }
        if sc.output.queues {
            for d in dirs.iter_mut() {
                d.log_queue(sc.output.max_rows);
            }
        }
        if let Some(every) = sc.output.link_series {
            // Every direction gets a row per interval: share the row budget between them.
            let bins = (sc.output.max_rows / dirs.len().max(1)).max(1);
            for d in dirs.iter_mut() {
                d.keep_series(every.0, bins);
            }
        }
        // A frame reaching a node without packet filters (none anywhere) or processing delay
        // is passed on from the arriving direction's FIFO (`pass_on`).
        let any_rules = sc.nodes.iter().any(|n| !n.rules.is_empty());
        for d in dirs.iter_mut() {
            d.relays = !any_rules && sc.nodes[d.to as usize].processing_delay == Dur::ZERO;
        }
        let mut routes = Routes::new(sc);
        // A connection per application (an `http` application opens more while it runs): 3 kB
        // each, so that 10,000 of them grown one by one held 50 MB instead of 31.
        let mut conns = Vec::with_capacity(sc.apps.len());
        let mut quiet_end = Vec::with_capacity(sc.apps.len());
        // One copy of each distinct TCP configuration, shared by the endpoints that use it (a
        // dumbbell's 1,000 applications have one): read on every segment, it stays in the
        // cache, and each endpoint is 288 bytes smaller.
        let mut shared: Vec<Arc<TcpConfig>> = Vec::new();
        let mut apps = Vec::with_capacity(sc.apps.len());
        for (i, a) in sc.apps.iter().enumerate() {
            routes.prepare(a.client);
            routes.prepare(a.server);
            if routes.next_hop(a.client, a.server) == NO_ROUTE
                || routes.next_hop(a.server, a.client) == NO_ROUTE
            {
                return Err(SimError::Topology(format!(
                    "apps[{i}] ({}): no path between {} and {} (links join hosts only through routers)",
                    a.name, sc.nodes[a.client].name, sc.nodes[a.server].name
                )));
            }
            // Every data segment must fit the smallest MTU on the path.
            let need = a.tcp.mss + 40;
            for (from, to) in [(a.client, a.server), (a.server, a.client)] {
                let mut at = from;
                while at != to {
                    let d = &dirs[routes.next_hop(at, to) as usize];
                    if need > d.mtu {
                        return Err(SimError::invalid(
                            format!("apps[{i}].tcp.mss"),
                            a.tcp.mss,
                            format!("at most MTU - 40 = {} on link {}", d.mtu - 40, d.name),
                        ));
                    }
                    at = d.to as usize;
                }
            }
            let conn = conns.len() as u32;
            let cfg = match shared.iter().find(|c| ***c == a.tcp) {
                Some(c) => c.clone(),
                None => {
                    shared.push(Arc::new(a.tcp.clone()));
                    shared[shared.len() - 1].clone()
                }
            };
            conns.push(Conn {
                ends: endpoints(a, i, conn, &cfg)?,
                app: i as u32,
            });
            quiet_end.push(quiet_end_of(&a.kind));
            let sender = match a.kind {
                AppKind::Ftp { .. } | AppKind::Txn(_) => 1,
                AppKind::Bulk { .. } | AppKind::Cbr { .. } | AppKind::Udp(_) => 0,
            };
            let udp = matches!(a.kind, AppKind::Udp(_))
                .then(|| Box::new(UdpRt::new(stream(seed, &format!("app:{}", a.name)))));
            let txn = matches!(a.kind, AppKind::Txn(_))
                .then(|| Box::new(TxnRt::new(stream(seed, &format!("app:{}", a.name)))));
            apps.push(AppRt {
                conn,
                conns: vec![conn],
                started: None,
                responded: false,
                done_at: None,
                client_closed: false,
                sender,
                offered: 0,
                max_backlog: 0,
                txn,
                udp,
            });
        }
        let out = &sc.output;
        Ok(Sim {
            sc,
            w: World {
                q: EventQueue::new(),
                out: Vec::with_capacity(64),
                uid: 0,
                events: out
                    .events
                    .then(|| Box::new(EventLog::with_cap(Cap::new(out.max_rows)))),
                packets: out
                    .packets
                    .then(|| Box::new(PacketLog::with_cap(Cap::new(out.max_rows)))),
            },
            routes,
            node_hop: vec![(u32::MAX, NO_ROUTE); sc.nodes.len()],
            dirs,
            pool: PacketPool::default(),
            last_rows: vec![None; conns.len()],
            conns,
            quiet_end,
            apps,
            held: sc
                .nodes
                .iter()
                .map(|n| Held {
                    delay: n.processing_delay,
                    q: VecDeque::new(),
                })
                .collect(),
            filters: if sc.nodes.iter().any(|n| !n.rules.is_empty()) {
                sc.nodes
                    .iter()
                    .map(|n| (!n.rules.is_empty()).then(|| Box::new(Filter::new(&n.rules))))
                    .collect()
            } else {
                Vec::new()
            },
            trace: out
                .trace
                .then(|| ConnTrace::with_cap(Cap::new(out.max_rows))),
            stop: SimTime::ZERO + sc.run.stop_time,
            stopped_by_time: false,
            last_active: SimTime::ZERO,
            app_order: Vec::new(),
            app_seq0: 0,
            app_started: 0,
        })
    }

    /// Run to completion (the event queue drains) or to the stop time.
    pub fn run(self) -> SimResult<SimOutput> {
        self.run_cancellable(None)
    }

    /// As [`Sim::run`], but give up with [`SimError::Cancelled`] soon after `cancel` becomes
    /// true (it is looked at every 1,024 events), so that a caller can stop long runs at once.
    pub fn run_cancellable(self, cancel: Option<&AtomicBool>) -> SimResult<SimOutput> {
        Ok(self.run_to_end(cancel)?.output())
    }

    /// The first half of [`Sim::run_cancellable`]: the events, to the end of the run, and not
    /// yet its output, so that the two can be timed apart (the `bench` example does: ns-2's run
    /// is timed to its stop event, before its script tallies what the agents counted).
    pub fn run_to_end(mut self, cancel: Option<&AtomicBool>) -> SimResult<Ended<'s>> {
        self.run_events(cancel)?;
        Ok(Ended(self))
    }

    /// The event loop: until the queue drains or the stop time.
    fn run_events(&mut self, cancel: Option<&AtomicBool>) -> SimResult<()> {
        // The applications start in the order of (start, index), one after another: each
        // start schedules the next with the counter reserved for it here, so the order of all
        // events is that of scheduling every start now, and the queue does not hold them all
        // (1,000 applications started one after another: the wheel stayed on for them, about
        // 700 instructions per data segment).
        self.app_order = (0..self.sc.apps.len() as u32).collect();
        self.app_order
            .sort_by_key(|&i| (self.sc.apps[i as usize].start, i));
        self.app_seq0 = self.w.q.reserve(self.sc.apps.len() as u64);
        self.next_app_start(0);
        if let (Some(_), Some(iv)) = (&self.trace, self.sc.output.trace_interval) {
            self.w.q.schedule(SimTime::ZERO + iv, Event::Sample);
        }
        while let Some((t, ev)) = self.w.q.pop_then(|next| {
            prefetch_ahead(&self.dirs, &self.pool, &self.conns, &self.node_hop, next);
        }) {
            if t > self.stop {
                self.stopped_by_time = true;
                break;
            }
            // Every 1,024 events, by the queue's own count (a counter of the loop's would be
            // one more variable kept on the stack and updated per event).
            if self.w.q.executed().is_multiple_of(CANCEL_CHECK_EVERY)
                && cancel.is_some_and(|c| c.load(Ordering::Relaxed))
            {
                return Err(SimError::Cancelled);
            }
            if let Event::LinkDeliver { dir } = ev {
                // Most events: one test, not the dispatch below.
                self.last_active = t;
                self.on_deliver(dir as usize);
                continue;
            }
            let active = match ev {
                Event::Timer { conn, end, kind } => self.on_timer(conn as usize, end, kind),
                _ => true,
            };
            if active {
                self.last_active = t;
            }
            match ev {
                Event::LinkDeliver { dir } => self.on_deliver(dir as usize),
                Event::NodeRelease { node } => self.on_node_release(node as usize),
                Event::Timer { .. } => {}
                Event::AppStart { app } => {
                    debug_assert_eq!(self.app_order[self.app_started], app);
                    self.start_app(app as usize);
                    self.next_app_start(self.app_started + 1);
                }
                Event::AppTick { app } => self.on_app_tick(app as usize),
                Event::Sample => self.on_sample(),
                Event::Stop => {
                    self.stopped_by_time = true;
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    fn now(&self) -> SimTime {
        self.w.q.now()
    }

    /// Schedule the start of the `k`-th application by (start, index), if there is one.
    fn next_app_start(&mut self, k: usize) {
        if let Some(&app) = self.app_order.get(k) {
            let start = SimTime::ZERO + self.sc.apps[app as usize].start;
            let seq = self.app_seq0 + u64::from(app);
            self.w
                .q
                .schedule_reserved(start, seq, Event::AppStart { app });
            self.app_started = k;
        }
    }

    /// Link direction `dir` without the bounds test.
    ///
    /// # Safety
    /// `dir` must be the index of one of the simulation's directions: one that came from a
    /// `LinkDeliver` event (only the simulation schedules those, each with one of its
    /// directions, which are never removed) or from the routes.
    #[inline(always)]
    unsafe fn dir(&self, dir: usize) -> &LinkDir {
        debug_assert!(dir < self.dirs.len());
        // SAFETY: the caller's; `dirs` does not change size after `Sim::new`.
        unsafe { self.dirs.get_unchecked(dir) }
    }

    fn on_deliver(&mut self, dir: usize) {
        debug_assert!(dir < self.dirs.len());
        // SAFETY: `dir` came from a `LinkDeliver` event.
        if unsafe { self.dir(dir) }.has_codel() {
            // a CoDel queue dequeues when the frame ahead has left
            let now = self.now();
            self.dirs[dir].advance(now, &self.pool);
            self.log_late_drops(dir);
        }
        // SAFETY: as above.
        let d = unsafe { self.dir(dir) };
        let Some(&head) = d.head() else {
            return;
        };
        // SAFETY: a link direction holds only slots of this simulation's pool (`flush` puts
        // every packet there before any direction sees it).
        let p = || unsafe { self.pool.get_unchecked(head.pkt()) };
        if head.intact_for(d.to) && !p().is(UDP) {
            // A segment for an endpoint: read in its slot, with the events in the order of
            // the general path below.
            let p = p();
            let (conn, end) = (p.conn as usize, p.to_end as usize);
            // The head leaves the direction before the endpoint reads its packet (which stays
            // in its slot until released below; the endpoint sees no link direction).
            // SAFETY: `dir` is a direction's index (`dir`).
            if let Some(n) = unsafe { self.dirs.get_unchecked_mut(dir) }.drop_intact_head() {
                self.w.q.schedule(n, Event::LinkDeliver { dir: dir as u32 });
            }
            let mut ctx = self.w.ctx();
            debug_assert!(conn < self.conns.len() && end < 2);
            // SAFETY: a packet's connection is one of this simulation's (its endpoints made
            // the packet), and connections are never removed. `to_end` is 0 or 1.
            unsafe { self.conns.get_unchecked_mut(conn) }.ends[end & 1].on_segment(p, &mut ctx);
            // SAFETY: the slot the direction held, a slot of this pool.
            unsafe { self.pool.release_unchecked(head.pkt()) };
            self.after_inline(conn, end);
            return;
        }
        if let Some(f) = head.intact().filter(|f| f.dst != d.to && d.relays) {
            // A frame to pass on: decided from the direction's FIFO entry, without reading
            // the packet's slot.
            let (at, dst) = (d.to as usize, f.dst as usize);
            let next = remembered_hop(&mut self.dirs[dir].hop_memo, &self.routes, at, dst);
            if next != NO_ROUTE && next as usize != dir {
                return self.pass_on(dir, next, f);
            }
        }
        let Some(f) = self.dirs[dir].take_head(&self.pool) else {
            return;
        };
        if let Some(n) = self.dirs[dir].head_arrival() {
            self.w.q.schedule(n, Event::LinkDeliver { dir: dir as u32 });
        }
        if f.corrupted() {
            let now = self.now();
            let p = self.pool.get(f.pkt());
            if let Some(ev) = self.w.events.as_mut() {
                ev.push(
                    now,
                    p.conn,
                    1 - p.to_end,
                    "drop_error",
                    p.seq,
                    &self.dirs[dir].name,
                );
            }
            if let Some(pl) = self.w.packets.as_mut() {
                pl.push(now, "drop_error", &self.dirs[dir].name, p);
            }
            self.pool.release(f.pkt());
            return;
        }
        let at = self.dirs[dir].to;
        self.arrive(at, f.pkt());
    }

    /// The head frame `f` of `dir` reaches a node that passes it on to direction `next` (not
    /// `dir`): it moves from `dir`'s FIFO to `next`'s, with the
    /// events in the order of the general path of `on_deliver` (which takes the head first:
    /// taking it later changes nothing, `next` being another direction). The caller found
    /// the frame intact.
    #[inline(never)]
    fn pass_on(&mut self, dir: usize, next: u32, f: Frame) {
        debug_assert!(dir != next as usize && dir.max(next as usize) < self.dirs.len());
        // SAFETY: two different directions (the caller's test), `dir` from a `LinkDeliver`
        // event (see `Sim::dir`) and `next` from the routes, which give only the directions of
        // the scenario's links (`dirs` holds both of each link's, and never changes size).
        let [from, to] = unsafe { self.dirs.get_disjoint_unchecked_mut([dir, next as usize]) };
        debug_assert!(from.head().and_then(InFlight::intact) == Some(f));
        if let Some(n) = from.drop_intact_head() {
            self.w.q.schedule(n, Event::LinkDeliver { dir: dir as u32 });
        }
        let now = self.w.q.now();
        let codel = to.has_codel();
        let offer = to.offer(now, f, &self.pool);
        if offer == Offer::QueueDrop {
            self.log_queue_drop(now, next, f.pkt);
        } else {
            self.offered(next, offer, codel);
        }
    }

    /// The packet in slot `id` reaches `node`: it is delivered (its slot freed), dropped by
    /// the node's filter, held by its processing delay, or forwarded.
    fn arrive(&mut self, node: u16, id: FrameId) {
        let p = self.pool.get(id);
        if node == p.dst && p.is(UDP) {
            let now = self.now();
            let app = self.conns[p.conn as usize].app as usize;
            if let Some(u) = self.apps[app].udp.as_deref_mut() {
                u.arrived(SimTime(p.ts_val), now);
            }
            self.pool.release(id);
        } else if node == p.dst {
            let conn = p.conn as usize;
            let mut ctx = self.w.ctx();
            self.conns[conn].ends[p.to_end as usize].on_segment(p, &mut ctx);
            self.pool.release(id);
            self.after(conn);
        } else if !self.filters.is_empty() && self.filtered(node, id) {
            // dropped by the node's packet filter
            self.pool.release(id);
        } else if let Some(held) = self
            .held
            .get_mut(node as usize)
            .filter(|h| h.delay > Dur::ZERO)
        {
            let due = self.w.q.now() + held.delay;
            if held.q.is_empty() {
                self.w
                    .q
                    .schedule(due, Event::NodeRelease { node: node as u32 });
            }
            held.q.push_back((due, id));
        } else {
            self.forward(node, id);
        }
    }

    /// Whether `node`'s packet filter drops `p` (counted, and logged as `drop_filter`).
    #[cold]
    fn filtered(&mut self, node: u16, id: FrameId) -> bool {
        let p = self.pool.get(id);
        let Some(f) = self.filters[node as usize].as_deref_mut() else {
            return false;
        };
        let app = self.conns[p.conn as usize].app as usize;
        let protocol = if p.is(UDP) {
            Protocol::Udp
        } else {
            Protocol::Tcp
        };
        if !f.drops(protocol, self.sc.apps[app].port, app) {
            return false;
        }
        let now = self.now();
        let place = &self.sc.nodes[node as usize].name;
        if let Some(ev) = self.w.events.as_mut() {
            ev.push(now, p.conn, 1 - p.to_end, "drop_filter", p.seq, place);
        }
        if let Some(pl) = self.w.packets.as_mut() {
            pl.push(now, "drop_filter", place, p);
        }
        true
    }

    /// The head packet of a node's processing delay is due: forward it, and wait for the next.
    fn on_node_release(&mut self, node: usize) {
        let Some((_, id)) = self.held[node].q.pop_front() else {
            return;
        };
        if let Some(&(due, _)) = self.held[node].q.front() {
            self.w
                .q
                .schedule(due, Event::NodeRelease { node: node as u32 });
        }
        self.forward(node as u16, id);
    }

    /// Offer the packet in slot `id`, at `node`, to the link direction towards its
    /// destination.
    fn forward(&mut self, node: u16, id: FrameId) {
        self.forward_to(node, Frame::of(id, self.pool.get(id)));
    }

    /// `forward`, given the frame (`flush` has the packet at hand).
    fn forward_to(&mut self, node: u16, f: Frame) {
        let (id, dst) = (f.pkt, f.dst);
        debug_assert!((node as usize) < self.node_hop.len());
        // SAFETY: `node` is a node of the scenario (a packet's source, or where a frame
        // arrived), and `node_hop` has an entry per node.
        let memo = unsafe { self.node_hop.get_unchecked_mut(node as usize) };
        let dir = remembered_hop(memo, &self.routes, node as usize, dst as usize);
        if dir == NO_ROUTE {
            self.pool.release(id);
            return;
        }
        let now = self.now();
        debug_assert!((dir as usize) < self.dirs.len());
        // SAFETY: a route's direction is one of the scenario's (see `pass_on`).
        let d = unsafe { self.dirs.get_unchecked_mut(dir as usize) };
        let codel = d.has_codel();
        let offer = d.offer(now, f, &self.pool);
        if offer == Offer::QueueDrop {
            self.log_queue_drop(now, dir, id);
        } else {
            self.offered(dir, offer, codel);
        }
    }

    /// After `dir` accepted a frame: the delivery event of a new head frame, and the drops of
    /// its CoDel queue (`codel`: whether it has one).
    #[inline(always)]
    fn offered(&mut self, dir: u32, offer: Offer, codel: bool) {
        if let Offer::Accepted {
            arrival,
            head_changed: true,
        } = offer
        {
            self.w.q.schedule(arrival, Event::LinkDeliver { dir });
        }
        if codel {
            self.log_late_drops(dir as usize);
        }
    }

    /// `dir`'s queue refused the packet in slot `id` at `now`: the logs, CoDel's drops, and
    /// the slot freed.
    #[cold]
    fn log_queue_drop(&mut self, now: SimTime, dir: u32, id: FrameId) {
        let p = self.pool.get(id);
        if let Some(ev) = self.w.events.as_mut() {
            ev.push(
                now,
                p.conn,
                1 - p.to_end,
                "drop_queue",
                p.seq,
                &self.dirs[dir as usize].name,
            );
        }
        if let Some(pl) = self.w.packets.as_mut() {
            pl.push(now, "drop_queue", &self.dirs[dir as usize].name, p);
        }
        self.pool.release(id);
        if self.dirs[dir as usize].has_codel() {
            self.log_late_drops(dir as usize);
        }
    }

    /// Log the frames a CoDel queue dropped at dequeue (at the times it dropped them).
    #[cold]
    fn log_late_drops(&mut self, dir: usize) {
        for (t, id) in self.dirs[dir].take_late_drops() {
            let p = self.pool.get(id);
            if let Some(ev) = self.w.events.as_mut() {
                ev.push(
                    t,
                    p.conn,
                    1 - p.to_end,
                    "drop_queue",
                    p.seq,
                    &self.dirs[dir].name,
                );
            }
            if let Some(pl) = self.w.packets.as_mut() {
                pl.push(t, "drop_queue", &self.dirs[dir].name, p);
            }
            self.pool.release(id);
        }
    }

    fn on_timer(&mut self, conn: usize, end: u8, kind: TimerKind) -> bool {
        let mut ctx = self.w.ctx();
        let fired = self.conns[conn].ends[end as usize].on_timer(kind, &mut ctx);
        if fired {
            self.after(conn);
        }
        fired
    }

    /// A trace row for `conn` after one of its endpoints ran, where the trace takes a row per
    /// change rather than at fixed intervals.
    #[inline(always)]
    fn trace_row(&mut self, conn: usize) {
        if self.trace.is_some() && self.sc.output.trace_interval.is_none() {
            self.record(conn, false);
        }
    }

    /// Hand what the endpoints sent to the network: each packet to a slot of the pool, and to
    /// the link towards its destination. Inlined into the per-segment path (a call costs its
    /// register saves for every event).
    #[inline(always)]
    fn flush(&mut self) {
        if self.w.out.is_empty() {
            return;
        }
        let mut out = std::mem::take(&mut self.w.out);
        for p in &out {
            let id = self.pool.put(p);
            self.forward_to(p.src, Frame::of(id, p));
        }
        out.clear();
        self.w.out = out;
    }

    fn row(&self, conn: usize) -> TraceRow {
        let Conn { ends, app } = &self.conns[conn];
        let s = self.apps[*app as usize].sender as usize;
        let snd = &ends[s];
        let rcv = &ends[1 - s];
        let (bwe, rtt_min) = snd.cc_bandwidth_estimate().unwrap_or((f64::NAN, None));
        TraceRow {
            end: s as u8,
            node: snd.node,
            cwnd: snd.ccs.cwnd,
            ssthresh: if snd.ccs.ssthresh >= SSTHRESH_UNLIMITED {
                f64::INFINITY
            } else {
                snd.ccs.ssthresh as f64
            },
            rwnd: snd.snd_wnd,
            flight: snd.flight(),
            srtt_s: snd.rto.srtt().map_or(f64::NAN, |d| d.as_secs_f64()),
            rto_s: snd.rto.rto().as_secs_f64(),
            ack: rcv.rcv_nxt,
            bytes_received: rcv.delivered,
            bwe_bps: bwe,
            bwe_rtt_min_s: rtt_min.map_or(f64::NAN, |d| d.as_secs_f64()),
        }
    }

    fn record(&mut self, conn: usize, always: bool) {
        let r = self.row(conn);
        let same = self.last_rows[conn].is_some_and(|l| {
            l.cwnd == r.cwnd
                && l.ssthresh == r.ssthresh
                && l.rwnd == r.rwnd
                && l.flight == r.flight
                && l.ack == r.ack
                && l.bytes_received == r.bytes_received
                && l.rto_s == r.rto_s
        });
        if always || !same {
            let now = self.now();
            if let Some(t) = self.trace.as_mut() {
                t.push(now, conn as u32, &r);
            }
            self.last_rows[conn] = Some(r);
        }
    }

    fn on_sample(&mut self) {
        for c in 0..self.conns.len() {
            let Conn { ends: [a, b], app } = &self.conns[c];
            let app = *app as usize;
            // A page's connection is sampled while it is open (an application may have
            // hundreds); every other connection at every sample.
            let page_done = per_page(&self.sc.apps[app]) && a.is_closed() && b.is_closed();
            if self.apps[app].udp.is_none() && !page_done {
                self.record(c, true);
            }
        }
        let active = self
            .conns
            .iter()
            .any(|Conn { ends: [a, b], app }| {
                self.apps[*app as usize].udp.is_none() && !(a.is_closed() && b.is_closed())
            })
            // an application between two pages, each on a connection of its own
            || self.sc.apps.iter().zip(&self.apps).any(|(a, rt)| {
                per_page(a) && rt.started.is_some() && rt.done_at.is_none()
            });
        if active {
            if let Some(iv) = self.sc.output.trace_interval {
                let at = self.now() + iv;
                self.w.q.schedule(at, Event::Sample);
            }
        }
    }
}

/// While the wheel runs, start loading what the next events of the current slot will read,
/// each a step further as it comes nearer:
/// - for the event after next but one: its link direction's first cache line;
/// - for the one after next: the packet in that direction's head slot and, when the direction
///   relays, the two lines an offer reads of the direction it last passed a frame on to;
/// - for the next one, when its head frame is intact and for the node it reaches: the
///   receiving endpoint's most read fields (`Endpoint::prefetch_hot`), and the direction its
///   node last sent by, which its answer will most likely take.
///
/// With 1,000 flows none of these stays in the cache between two of its events. Only hints,
/// read through shared references: nothing here changes what the run does (a test runs a
/// dumbbell with and without them).
#[inline(always)]
fn prefetch_ahead(
    dirs: &[LinkDir],
    pool: &PacketPool,
    conns: &[Conn],
    node_hop: &[(u32, u32)],
    next: Upcoming<'_>,
) {
    use crate::engine::prefetch;
    #[cfg(test)]
    if !tests::prefetch_counted() {
        return;
    }
    let Some(d) = next.event(0).and_then(|e| delivering(dirs, e)) else {
        return;
    };
    if let Some(p) = d
        .head()
        .filter(|h| h.intact_for(d.to))
        .map(|h| pool.get(h.pkt()))
    {
        if let Some(c) = conns.get(p.conn as usize) {
            c.ends[p.to_end as usize & 1].prefetch_hot();
        }
        if let Some(o) = node_hop
            .get(usize::from(p.dst))
            .and_then(|&(_, out)| dirs.get(out as usize))
        {
            o.prefetch_offer();
        }
    }
    let Some(d) = next.event(1).and_then(|e| delivering(dirs, e)) else {
        return;
    };
    if let Some(h) = d.head() {
        prefetch(pool.get(h.pkt()));
        if d.relays {
            if let Some(n) = dirs.get(d.hop_memo.1 as usize) {
                n.prefetch_offer();
            }
        }
    }
    if let Some(d) = next.event(2).and_then(|e| delivering(dirs, e)) {
        prefetch(d);
    }
}

/// The direction a `LinkDeliver` event delivers from.
#[inline(always)]
fn delivering(dirs: &[LinkDir], ev: Event) -> Option<&LinkDir> {
    match ev {
        Event::LinkDeliver { dir } => dirs.get(dir as usize),
        _ => None,
    }
}

/// `routes.next_hop(at, dst)`, remembered in `memo` for the next look-up with the same `dst`
/// (a memo is used for one `at` only).
#[inline]
fn remembered_hop(memo: &mut (u32, u32), routes: &Routes, at: usize, dst: usize) -> u32 {
    if memo.0 != dst as u32 {
        *memo = (dst as u32, routes.next_hop(at, dst));
    }
    memo.1
}

/// A run whose events are over ([`Sim::run_to_end`]) and whose output is not made yet.
pub struct Ended<'s>(Sim<'s>);

impl Ended<'_> {
    /// The run's summary and tables, as [`Sim::run`] returns them.
    pub fn output(self) -> SimOutput {
        self.0.finish()
    }
}

/// Run a scenario.
pub fn run(sc: &Scenario) -> SimResult<SimOutput> {
    Sim::new(sc)?.run()
}

/// Run a scenario that the caller can stop by setting `cancel` (see [`Sim::run_cancellable`]).
pub fn run_cancellable(sc: &Scenario, cancel: &AtomicBool) -> SimResult<SimOutput> {
    Sim::new(sc)?.run_cancellable(Some(cancel))
}

/// How many events run between two looks at the cancel flag.
const CANCEL_CHECK_EVERY: u64 = 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// Whether `prefetch_ahead` does its work on this thread, and how often it was called.
        static PREFETCH: Cell<(bool, u64)> = const { Cell::new((true, 0)) };
    }

    /// Count a call of `prefetch_ahead`; whether it is to do its work.
    pub(super) fn prefetch_counted() -> bool {
        PREFETCH.with(|c| {
            let (on, n) = c.get();
            c.set((on, n + 1));
            on
        })
    }

    /// A dumbbell of `n` FTP downloads through one bottleneck (1 % of its frames corrupted, a
    /// queue that overflows), the applications starting a millisecond apart.
    fn dumbbell(n: usize) -> String {
        let mut t = String::from(
            "[run]\nstop_time = \"3s\"\n[tcp]\nsack = true\n\
             [[nodes]]\nname = \"r1\"\nkind = \"router\"\n\
             [[nodes]]\nname = \"r2\"\nkind = \"router\"\n\
             [[links]]\nname = \"neck\"\na = \"r1\"\nb = \"r2\"\nrate = \"100Mbps\"\n\
             delay = \"5ms\"\nqueue = \"60p\"\n[links.ab]\n\
             error = { model = \"per\", p = 0.01 }\n",
        );
        for i in 0..n {
            t += &format!(
                "[[nodes]]\nname = \"s{i}\"\n[[nodes]]\nname = \"d{i}\"\n\
                 [[links]]\nname = \"a{i}\"\na = \"s{i}\"\nb = \"r1\"\n\
                 rate = \"10Mbps\"\ndelay = \"1ms\"\n\
                 [[links]]\nname = \"b{i}\"\na = \"r2\"\nb = \"d{i}\"\n\
                 rate = \"10Mbps\"\ndelay = \"1ms\"\n\
                 [[apps]]\nkind = \"ftp\"\nclient = \"d{i}\"\nserver = \"s{i}\"\n\
                 size = \"200kB\"\nstart = \"{i}ms\"\n"
            );
        }
        t
    }

    #[test]
    fn the_wheel_s_prefetching_changes_nothing_in_a_run() {
        // 150 flows: the wheel starts (from 256 pending events), and the loop shows its
        // slots' next events to `prefetch_ahead` (with debug assertions, in the test profile).
        let sc = Scenario::from_toml_str(&dumbbell(150)).expect("scenario");
        let with = |on: bool| {
            PREFETCH.with(|c| c.set((on, 0)));
            let out = run(&sc).expect("run");
            (out, PREFETCH.with(|c| c.get().1))
        };
        let (hinted, calls) = with(true);
        let (plain, _) = with(false);
        // Nearly every event (97,485 of them) comes from a slot of the wheel.
        let events = hinted.summary["events"].as_u64().expect("events");
        assert!(
            events > 50_000 && calls > events * 9 / 10,
            "{calls} of {events}"
        );
        assert_eq!(hinted, plain);
    }

    /// Run `toml` to its end and check that the pool holds exactly the frames the links and
    /// nodes hold: every packet delivered or dropped gave its slot back, none was freed early.
    fn pool_matches_the_network(toml: &str) -> usize {
        let sc = Scenario::from_toml_str(toml).expect("scenario");
        let mut sim = Sim::new(&sc).expect("set-up");
        sim.run_events(None).expect("run");
        let held: usize = sim.dirs.iter().map(LinkDir::frames_held).sum::<usize>()
            + sim.held.iter().map(|h| h.q.len()).sum::<usize>();
        assert_eq!(sim.pool.in_use(), held, "{toml}");
        held
    }

    fn path(stop: &str, node: &str, data: &str, queue: &str, lan: &str) -> String {
        format!(
            r#"
[run]
stop_time = "{stop}"
[tcp]
sack = true
[[nodes]]
name = "server"
[[nodes]]
name = "router"
kind = "router"
{node}
[[nodes]]
name = "client"
[[links]]
name = "wan"
a = "server"
b = "router"
rate = "10Mbps"
delay = "10ms"
queue = "{queue}"
[links.ab]
error = {data}
[[links]]
name = "lan"
a = "router"
b = "client"
rate = "2Mbps"
delay = "1ms"
queue = "{queue}"
[links.ab]
{lan}
[[apps]]
kind = "ftp"
client = "client"
server = "server"
size = "300kB"
"#
        )
    }

    #[test]
    fn every_slot_of_the_packet_pool_is_given_back_when_its_packet_leaves_the_network() {
        let lossy = r#"{ model = "per", p = 0.05 }"#;
        let none = r#"{ model = "none" }"#;
        let codel = r#"aqm = { kind = "codel", target = "1ms", interval = "20ms" }"#;
        // Corrupted frames, queue drops at a slower second hop, CoDel's drops there, a
        // processing delay: all drained at the end of the transfer.
        for (node, data, queue, lan) in [
            ("", lossy, "100p", ""),
            ("", none, "5p", ""),
            ("", none, "1000p", codel),
            ("processing_delay = \"200us\"", lossy, "5p", ""),
        ] {
            let toml = path("60s", node, data, queue, lan);
            assert_eq!(pool_matches_the_network(&toml), 0);
        }
        // Stopped in the middle: the frames still in the network keep their slots.
        assert!(pool_matches_the_network(&path("0.3s", "", lossy, "5p", codel)) > 0);
    }

    #[test]
    fn a_run_timed_in_two_halves_gives_the_output_of_one_run() {
        // Stopped mid-transfer (frames in flight, timers armed) and run to its end.
        for stop in ["0.3s", "60s"] {
            let toml = path(stop, "", r#"{ model = "per", p = 0.05 }"#, "5p", "");
            let sc = Scenario::from_toml_str(&toml).expect("scenario");
            let whole = run(&sc).expect("run");
            let ended = Sim::new(&sc)
                .expect("set-up")
                .run_to_end(None)
                .expect("events");
            let halves = ended.output();
            assert!(whole.summary["events"].as_u64() > Some(50), "{stop}");
            assert_eq!(halves.summary, whole.summary, "{stop}");
            assert_eq!(
                format!("{:?}", halves.tables),
                format!("{:?}", whole.tables),
                "{stop}"
            );
        }
    }
}
