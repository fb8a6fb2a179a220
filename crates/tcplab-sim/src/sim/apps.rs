//! The applications' side of a run: starting them, their periodic actions (CBR and UDP
//! sources, the transactions of `http` and `database`, a page's new connection), and what each
//! does after one of its connection's endpoints ran (`after`), with the end whose segments it
//! need not look at (`quiet_end_of`).

use std::sync::Arc;

use crate::apps::txn::Actions;
use crate::apps::udp::Tick;
use crate::engine::event::Event;
use crate::engine::time::SimTime;
use crate::error::SimResult;
use crate::net::packet::{Packet, UDP};
use crate::scenario::apps::{AppCfg, AppKind};
use crate::scenario::Scenario;
use crate::tcp::{cc, recovery, Endpoint, TcpConfig};

use super::{Conn, Sim};

impl<'s> Sim<'s> {
    pub(super) fn start_app(&mut self, app: usize) {
        let now = self.now();
        let a = &self.sc.apps[app];
        let conn = self.apps[app].conn as usize;
        self.apps[app].started = Some(now);
        let mut ctx = self.w.ctx();
        let client = &mut self.conns[conn].ends[0];
        match a.kind {
            AppKind::Udp(_) => {
                // No connection: the source's ticks send datagrams straight to the network.
                ctx.q.schedule(now, Event::AppTick { app: app as u32 });
                return;
            }
            AppKind::Ftp { request_size, .. } => {
                client.app_write(Some(request_size), &mut ctx);
            }
            AppKind::Bulk { size } => {
                client.app_write(size, &mut ctx);
                if size.is_some() {
                    client.app_close(&mut ctx);
                }
            }
            AppKind::Txn(ref cfg) if cfg.per_page() => {
                // Each page opens its own connection when it starts (the first tick).
                ctx.q.schedule(now, Event::AppTick { app: app as u32 });
                return;
            }
            AppKind::Cbr { .. } | AppKind::Txn(_) => {
                ctx.q.schedule(now, Event::AppTick { app: app as u32 });
            }
        }
        client.connect(&mut ctx);
        self.after(conn);
    }

    /// A transactional application starts its next transaction (if it may).
    fn txn_tick(&mut self, app: usize) {
        let AppKind::Txn(cfg) = &self.sc.apps[app].kind else {
            return;
        };
        let now = self.now();
        let rt = &mut self.apps[app];
        let started = rt.started.unwrap_or(SimTime::ZERO);
        let Some(txn) = rt.txn.as_deref_mut() else {
            return;
        };
        let act = txn.tick(cfg, started, now);
        self.apply(app, act);
        self.after(self.apps[app].conn as usize);
    }

    /// A page of application `app` starts on a connection of its own: the application's
    /// set-up connection for its first page, a new one for every later page. It becomes the
    /// application's current connection.
    fn open_page_conn(&mut self, app: usize) {
        let rt = &mut self.apps[app];
        let first = rt.txn.as_ref().is_some_and(|t| t.txns.len() <= 1);
        if first {
            return; // the set-up connection, still unused
        }
        let conn = self.conns.len() as u32;
        // The set-up connection's settings: the application's.
        let cfg = self.conns[rt.conn as usize].ends[0].cfg.clone();
        let ends = endpoints(&self.sc.apps[app], app, conn, &cfg)
            .expect("the same settings built the set-up connection");
        self.conns.push(Conn {
            ends,
            app: app as u32,
        });
        self.quiet_end.push(quiet_end_of(&self.sc.apps[app].kind));
        self.last_rows.push(None);
        rt.conn = conn;
        rt.conns.push(conn);
    }

    /// Carry out what a transactional application decided.
    fn apply(&mut self, app: usize, act: Actions) {
        if act.open_conn {
            self.open_page_conn(app);
        }
        let conn = self.apps[app].conn as usize;
        let mut ctx = self.w.ctx();
        let [client, server] = &mut self.conns[conn].ends;
        for n in act.client_writes {
            client.app_write(Some(n), &mut ctx);
        }
        for n in act.server_writes {
            server.app_write(Some(n), &mut ctx);
        }
        if act.open_conn {
            client.connect(&mut ctx); // the request goes out once the handshake is done
        }
        if act.close_conn {
            client.app_close(&mut ctx); // the page is done: the client hangs up
        }
        if let Some(t) = act.next_tick {
            ctx.q.schedule(t, Event::AppTick { app: app as u32 });
        }
        let rt = &mut self.apps[app];
        if act.close && !rt.client_closed {
            rt.client_closed = true;
            rt.done_at = rt
                .txn
                .as_ref()
                .and_then(|t| t.txns.iter().filter_map(|x| x.done).max());
            if !per_page(&self.sc.apps[app]) {
                client.app_close(&mut ctx); // (per page: each closed when its page was done)
            }
        }
    }

    /// A UDP source's tick: send a datagram (or wait out an off period), and plan the next.
    fn udp_tick(&mut self, app: usize) {
        let AppKind::Udp(cfg) = &self.sc.apps[app].kind else {
            return;
        };
        let now = self.now();
        let rt = &mut self.apps[app];
        let started = rt.started.unwrap_or(SimTime::ZERO);
        let Some(udp) = rt.udp.as_deref_mut() else {
            return;
        };
        let seq = udp.sent;
        let next = match udp.tick(cfg, started, now) {
            Tick::Done => {
                // It stopped at its stop time, even if an off period hid that until now.
                rt.done_at = cfg.stop.map(|d| (started + d).min(now));
                return;
            }
            Tick::Wait(t) => t,
            Tick::Send(t) => {
                let a = &self.sc.apps[app];
                self.w.uid += 1;
                let p = Packet {
                    uid: self.w.uid,
                    conn: rt.conn,
                    to_end: 1,
                    src: a.client as u16,
                    dst: a.server as u16,
                    flags: UDP,
                    seq,
                    len: cfg.packet_size as u32,
                    ts_val: now.0,
                    ..Packet::default()
                };
                let id = self.pool.put(&p);
                self.forward(p.src, id);
                t
            }
        };
        self.w.q.schedule(next, Event::AppTick { app: app as u32 });
    }

    /// A CBR application writes one packet, and schedules the next write.
    pub(super) fn on_app_tick(&mut self, app: usize) {
        match self.sc.apps[app].kind {
            AppKind::Txn(_) => return self.txn_tick(app),
            AppKind::Udp(_) => return self.udp_tick(app),
            _ => {}
        }
        let AppKind::Cbr {
            packet_size,
            interval,
            stop,
        } = self.sc.apps[app].kind
        else {
            return;
        };
        let now = self.now();
        let conn = self.apps[app].conn as usize;
        let started = self.apps[app].started.unwrap_or(SimTime::ZERO);
        let mut ctx = self.w.ctx();
        let client = &mut self.conns[conn].ends[0];
        if stop.is_some_and(|d| now >= started + d) {
            if !self.apps[app].client_closed {
                self.apps[app].client_closed = true;
                client.app_close(&mut ctx);
            }
        } else {
            client.app_write(Some(packet_size), &mut ctx);
            let rt = &mut self.apps[app];
            rt.offered += packet_size;
            rt.max_backlog = rt.max_backlog.max(client.unacked_app_bytes());
            self.w
                .q
                .schedule(now + interval, Event::AppTick { app: app as u32 });
        }
        self.after(conn);
    }

    /// After an endpoint ran: send what it emitted, let the applications react, trace.
    #[inline(never)]
    pub(super) fn after(&mut self, conn: usize) {
        self.flush();
        self.react(conn);
        self.trace_row(conn);
    }

    /// `after` for the per-segment path of `on_deliver`, in line there (the call and its
    /// register saves cost more than the common case does: 2,234 -> 2,205 instructions per data
    /// segment), where `ran`, the end that took the segment, is known: the application is not
    /// looked at when that is its connection's quiet end (`quiet_end_of`).
    #[inline(always)]
    pub(super) fn after_inline(&mut self, conn: usize, ran: usize) {
        self.flush();
        debug_assert!(conn < self.quiet_end.len());
        // SAFETY: `quiet_end` has an entry per connection (pushed with each).
        if ran != usize::from(unsafe { *self.quiet_end.get_unchecked(conn) }) {
            self.react(conn);
        }
        self.trace_row(conn);
    }

    /// What the application of connection `conn` does after one of its endpoints ran: the
    /// server's response, the ends' closes, its completion, a transaction's next step.
    #[inline(always)]
    fn react(&mut self, conn: usize) {
        debug_assert!(conn < self.conns.len());
        // SAFETY: `conn` is one of this simulation's connections (whose endpoint just ran),
        // and connections are never removed.
        let Conn { ends, app } = unsafe { self.conns.get_unchecked_mut(conn) };
        let app = *app as usize;
        let [client, server] = ends;
        let sc: &'s Scenario = self.sc;
        debug_assert!(app < sc.apps.len() && self.apps.len() == sc.apps.len());
        // SAFETY: a connection's application is one of the scenario's, and the simulation
        // has one `AppRt` per scenario application.
        let (a, rt) = unsafe { (sc.apps.get_unchecked(app), self.apps.get_unchecked_mut(app)) };
        // The context is made only where an endpoint is called: most calls change nothing.
        let w = &mut self.w;
        let mut txn_act = None;
        match &a.kind {
            &AppKind::Ftp { size, request_size } => {
                if !rt.responded && server.delivered >= request_size {
                    rt.responded = true;
                    // From now on only the client's segments can change what is checked here
                    // (`quiet_end_of`).
                    if self.quiet_end[conn] == NEITHER {
                        self.quiet_end[conn] = 1;
                    }
                    server.app_write(Some(size), &mut w.ctx());
                    server.app_close(&mut w.ctx());
                }
                if rt.done_at.is_none() && rt.responded && client.delivered >= size {
                    rt.done_at = Some(client.last_delivery);
                }
                if client.peer_fin && !rt.client_closed {
                    rt.client_closed = true;
                    client.app_close(&mut w.ctx());
                }
            }
            AppKind::Cbr { .. } => {
                if server.peer_fin && !rt.responded {
                    rt.responded = true;
                    rt.done_at = Some(server.last_delivery);
                    server.app_close(&mut w.ctx());
                }
            }
            &AppKind::Bulk { size } => {
                if let Some(s) = size {
                    if rt.done_at.is_none() && server.delivered >= s {
                        rt.done_at = Some(server.last_delivery);
                    }
                }
                if server.peer_fin && !rt.client_closed {
                    rt.client_closed = true;
                    server.app_close(&mut w.ctx());
                }
            }
            AppKind::Udp(_) => {} // no connection: its datagrams bypass the endpoints
            AppKind::Txn(cfg) if cfg.per_page() => {
                // A page's connection (this page's or an earlier one finishing its close):
                // the server closes its side when the client's FIN arrives.
                if server.peer_fin && !server.app_closed() {
                    server.app_close(&mut w.ctx());
                }
                if let Some(txn) = rt.txn.as_deref_mut().filter(|_| conn == rt.conn as usize) {
                    let at = client.last_delivery;
                    txn_act = Some(txn.react(cfg, server.delivered, client.delivered, at));
                }
            }
            AppKind::Txn(cfg) => {
                if server.peer_fin && !rt.responded {
                    rt.responded = true; // the server's side of the close
                    server.app_close(&mut w.ctx());
                }
                if let Some(txn) = rt.txn.as_deref_mut() {
                    let at = client.last_delivery;
                    txn_act = Some(txn.react(cfg, server.delivered, client.delivered, at));
                }
            }
        }
        if let Some(act) = txn_act.filter(|a| *a != Actions::default()) {
            self.apply(app, act);
        }
        self.flush();
    }
}

/// The two endpoints of connection `conn` of application `a` (`apps[i]`, for errors): the
/// client's, and the server's, listening. `cfg` is `a.tcp`, shared.
pub(super) fn endpoints(
    a: &AppCfg,
    i: usize,
    conn: u32,
    cfg: &Arc<TcpConfig>,
) -> SimResult<[Endpoint; 2]> {
    let cc_path = format!("apps[{i}].tcp.cc_params");
    let lr_path = format!("apps[{i}].tcp.lr_params");
    let mk = |end: u8, node: usize, peer: usize| -> SimResult<Endpoint> {
        let c = cc::build(&a.tcp.congestion_control, &a.tcp.cc_params, &cc_path)?;
        let r = recovery::build(&a.tcp.loss_recovery, &a.tcp.lr_params, &lr_path)?;
        Ok(Endpoint::new(
            conn,
            end,
            node as u16,
            peer as u16,
            cfg.clone(),
            c,
            r,
        ))
    };
    let mut server = mk(1, a.server, a.client)?;
    server.listen();
    Ok([mk(0, a.client, a.server)?, server])
}

/// `Sim::quiet_end` for a connection whose segments all matter to its application, for now.
pub(super) const NEITHER: u8 = 2;
/// `Sim::quiet_end` inside `tcp::general_paths_only`: every segment takes the general path.
pub(super) const NEVER: u8 = 3;

/// The end of a new connection whose segments cannot change what `react` checks for its
/// application, or `NEITHER`: a bulk or CBR application watches only its server (the receiver)
/// and its own state, so its client's segments (the ACKs) change nothing there. An FTP
/// application watches both ends until the server has the request; then its server's segments
/// (ACKs again) change nothing there (the check on the server's side is done, and the client's
/// is made after each of the client's), and `react` sets its quiet end to 1. `NEVER`
/// inside `tcp::general_paths_only`, which the tests use to compare the shortcuts with the
/// general paths.
pub(super) fn quiet_end_of(kind: &AppKind) -> u8 {
    if !crate::tcp::shortcuts_allowed() {
        return NEVER;
    }
    match kind {
        AppKind::Bulk { .. } | AppKind::Cbr { .. } => 0,
        AppKind::Ftp { .. } | AppKind::Txn(_) | AppKind::Udp(_) => NEITHER,
    }
}

/// Whether application `a` opens a connection per page (`http`, `connection = "per_page"`).
pub(super) fn per_page(a: &AppCfg) -> bool {
    matches!(&a.kind, AppKind::Txn(c) if c.per_page())
}
