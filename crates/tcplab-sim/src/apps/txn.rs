//! Transactional applications: `database` (queries and responses arriving on their own schedule,
//! over one persistent TCP connection) and `http` (pages of objects fetched one after the other,
//! with think time between pages: over one persistent connection, HTTP/1.1 without pipelining,
//! or over a new connection per page, HTTP/1.0 style). Their sizes and times are drawn from
//! distributions ([`crate::apps::dist`]).
//!
//! A transaction is a list of exchanges: the client writes a request, the server answers it with
//! a response once the whole request has arrived, in order. Requests may queue up behind slow
//! responses (a database's open-loop arrivals); the server answers them in turn. A transaction
//! ends when the last byte of its last response reaches the client's application; its response
//! time runs from when its first request was written.
//!
//! Each application draws from its own stream (`app:<name>`), in a fixed order per transaction,
//! so its pattern depends only on the seed and its own settings.

use std::collections::VecDeque;

use serde_json::{json, Value};

use crate::apps::dist::Dist;
use crate::engine::rng::Rng;
use crate::engine::time::{Dur, SimTime};

// ------------------------------------------------------------------------------ configuration

/// How an `http` application uses TCP connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpConn {
    /// One connection for every page, opened at the start and closed after the last page
    /// (HTTP/1.1 keep-alive, no pipelining).
    Persistent,
    /// A new connection for each page (HTTP/1.0 style): handshake, the page and its objects in
    /// turn, then the client closes it; the think time runs, and the next page opens another.
    /// The objects go one after the other on the page's connection, as on the persistent one,
    /// so that the two modes differ only by what a connection costs once per page (handshake,
    /// slow start from the initial window, teardown); a connection per object would pay that
    /// for every object as well.
    PerPage,
}

impl HttpConn {
    pub fn name(self) -> &'static str {
        match self {
            HttpConn::Persistent => "persistent",
            HttpConn::PerPage => "per_page",
        }
    }
}

/// A transactional application's settings.
#[derive(Clone, Debug, PartialEq)]
pub enum TxnKind {
    /// Queries arriving every `interval` (open loop) with a response of `response_size`.
    Database {
        request_size: Dist,
        response_size: Dist,
        interval: Dist,
    },
    /// Pages: a request and a page of `page_size`, then `objects` objects of `object_size`, one
    /// request each, fetched in turn; the next page `think_time` after the last object.
    Http {
        request_size: Dist,
        page_size: Dist,
        objects: Dist,
        object_size: Dist,
        think_time: Dist,
        connection: HttpConn,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct TxnCfg {
    pub kind: TxnKind,
    /// The most transactions (pages or queries) to start; None: until `stop` or the run's end.
    pub count: Option<u64>,
    /// No transaction starts later than this after the application's start.
    pub stop: Option<Dur>,
}

impl TxnCfg {
    pub fn name(&self) -> &'static str {
        match self.kind {
            TxnKind::Database { .. } => "database",
            TxnKind::Http { .. } => "http",
        }
    }

    /// Whether each transaction opens a connection of its own (an `http` application with
    /// `connection = "per_page"`).
    pub fn per_page(&self) -> bool {
        matches!(
            self.kind,
            TxnKind::Http {
                connection: HttpConn::PerPage,
                ..
            }
        )
    }

    pub fn to_json(&self) -> Value {
        let mut v = match &self.kind {
            TxnKind::Database {
                request_size,
                response_size,
                interval,
            } => json!({
                "kind": "database",
                "request_size": request_size.to_json(),
                "response_size": response_size.to_json(),
                "interval": interval.to_json(),
            }),
            TxnKind::Http {
                request_size,
                page_size,
                objects,
                object_size,
                think_time,
                connection,
            } => json!({
                "kind": "http",
                "request_size": request_size.to_json(),
                "page_size": page_size.to_json(),
                "objects": objects.to_json(),
                "object_size": object_size.to_json(),
                "think_time": think_time.to_json(),
                "connection": connection.name(),
            }),
        };
        v["count"] = json!(self.count);
        v["stop_s"] = json!(self.stop.map(|d| d.as_secs_f64()));
        v
    }
}

// ------------------------------------------------------------------------------ runtime

/// One transaction (a page or a query) as it ran.
#[derive(Clone, Debug, Default)]
pub struct Txn {
    pub start: SimTime,
    pub done: Option<SimTime>,
    pub request_bytes: u64,
    pub response_bytes: u64,
    /// Exchanges still to be requested after the current one (HTTP objects).
    objects_left: u64,
}

struct Exchange {
    /// Cumulative request bytes at the end of this request.
    req_end: u64,
    response: u64,
    txn: usize,
}

/// The running state of a transactional application.
pub struct TxnRt {
    rng: Rng,
    pub txns: Vec<Txn>,
    req_written: u64,
    resp_written: u64,
    /// Requests written, waiting for the server to answer (in order).
    to_answer: VecDeque<Exchange>,
    /// Responses written: (cumulative response bytes at their end, transaction).
    to_finish: VecDeque<(u64, usize)>,
    /// No transaction will start any more.
    pub finished_issuing: bool,
}

/// What the simulator must do after the application reacted.
#[derive(Debug, Default, PartialEq)]
pub struct Actions {
    /// Bytes the client writes now (requests), in order.
    pub client_writes: Vec<u64>,
    /// Bytes the server writes now (responses), in order.
    pub server_writes: Vec<u64>,
    /// When to start the next transaction (an application tick).
    pub next_tick: Option<SimTime>,
    /// Every transaction is done and no more will start: close the connection (a persistent
    /// one; per-page connections are closed page by page).
    pub close: bool,
    /// A page starts on a connection of its own (`per_page`): open it, then write
    /// `client_writes` on it.
    pub open_conn: bool,
    /// The page on the current per-page connection is done: the client closes that connection.
    pub close_conn: bool,
}

impl TxnRt {
    pub fn new(rng: Rng) -> Self {
        TxnRt {
            rng,
            txns: Vec::new(),
            req_written: 0,
            resp_written: 0,
            to_answer: VecDeque::new(),
            to_finish: VecDeque::new(),
            finished_issuing: false,
        }
    }

    fn bytes(&mut self, d: &Dist) -> u64 {
        (d.sample(&mut self.rng).round() as u64).max(1)
    }

    fn request(&mut self, cfg: &TxnCfg, txn: usize, act: &mut Actions) {
        let (req, resp) = match &cfg.kind {
            TxnKind::Database {
                request_size,
                response_size,
                ..
            } => (self.bytes(request_size), self.bytes(response_size)),
            TxnKind::Http {
                request_size,
                page_size,
                object_size,
                ..
            } => {
                let first = self.txns[txn].request_bytes == 0;
                let size = if first { page_size } else { object_size };
                (self.bytes(request_size), self.bytes(size))
            }
        };
        self.req_written += req;
        self.txns[txn].request_bytes += req;
        self.to_answer.push_back(Exchange {
            req_end: self.req_written,
            response: resp,
            txn,
        });
        act.client_writes.push(req);
    }

    /// An application tick at `now` (its start, or the time a transaction was due): start a
    /// transaction if the count and stop allow it.
    pub fn tick(&mut self, cfg: &TxnCfg, started: SimTime, now: SimTime) -> Actions {
        let mut act = Actions::default();
        let over_count = cfg.count.is_some_and(|c| self.txns.len() as u64 >= c);
        let over_time = cfg.stop.is_some_and(|s| now > started + s);
        if over_count || over_time {
            self.finished_issuing = true;
            act.close = self.all_done();
            return act;
        }
        let objects = match &cfg.kind {
            TxnKind::Http { objects, .. } => objects.sample(&mut self.rng).round().max(0.0) as u64,
            TxnKind::Database { .. } => 0,
        };
        if cfg.per_page() {
            // A fresh connection: its byte counts start from zero. Pages do not overlap (the
            // next starts only after the last one's think time), so nothing is outstanding.
            debug_assert!(self.to_answer.is_empty() && self.to_finish.is_empty());
            self.req_written = 0;
            self.resp_written = 0;
            act.open_conn = true;
        }
        let txn = self.txns.len();
        self.txns.push(Txn {
            start: now,
            objects_left: objects,
            ..Txn::default()
        });
        self.request(cfg, txn, &mut act);
        if let TxnKind::Database { interval, .. } = &cfg.kind {
            let gap = Dur::from_secs_f64(interval.sample(&mut self.rng));
            act.next_tick = Some(now + gap);
        }
        act
    }

    fn all_done(&self) -> bool {
        self.txns.iter().all(|t| t.done.is_some())
    }

    /// After the endpoints ran: the server answers every request that has fully arrived
    /// (`server_got` bytes delivered to it), and transactions whose last response has fully
    /// arrived (`client_got`, at `client_at`) end.
    pub fn react(
        &mut self,
        cfg: &TxnCfg,
        server_got: u64,
        client_got: u64,
        client_at: SimTime,
    ) -> Actions {
        let mut act = Actions::default();
        loop {
            let mut progressed = false;
            while self
                .to_answer
                .front()
                .is_some_and(|e| e.req_end <= server_got)
            {
                let e = self.to_answer.pop_front().expect("checked");
                self.resp_written += e.response;
                self.txns[e.txn].response_bytes += e.response;
                self.to_finish.push_back((self.resp_written, e.txn));
                act.server_writes.push(e.response);
                progressed = true;
            }
            while self
                .to_finish
                .front()
                .is_some_and(|&(end, _)| end <= client_got)
            {
                let (_, txn) = self.to_finish.pop_front().expect("checked");
                progressed = true;
                if self.txns[txn].objects_left > 0 {
                    self.txns[txn].objects_left -= 1;
                    self.request(cfg, txn, &mut act);
                    continue;
                }
                self.txns[txn].done = Some(client_at);
                act.close_conn = cfg.per_page();
                if let TxnKind::Http { think_time, .. } = &cfg.kind {
                    let gap = Dur::from_secs_f64(think_time.sample(&mut self.rng));
                    act.next_tick = Some(client_at + gap);
                }
            }
            if !progressed {
                break;
            }
        }
        if self.finished_issuing && self.all_done() && !self.txns.is_empty() {
            act.close = true;
        }
        act
    }

    /// The summary's `transactions` entry.
    pub fn summary(&self) -> Value {
        let times: Vec<f64> = self
            .txns
            .iter()
            .filter_map(|t| t.done.map(|d| d.since(t.start).as_secs_f64()))
            .collect();
        let mean = (!times.is_empty()).then(|| times.iter().sum::<f64>() / times.len() as f64);
        let max = times
            .iter()
            .copied()
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
        json!({
            "started": self.txns.len(),
            "completed": times.len(),
            "mean_response_time_s": mean,
            "max_response_time_s": max,
            "request_bytes": self.txns.iter().map(|t| t.request_bytes).sum::<u64>(),
            "response_bytes": self.txns.iter().map(|t| t.response_bytes).sum::<u64>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::stream;

    fn cfg(kind: TxnKind, count: Option<u64>) -> TxnCfg {
        TxnCfg {
            kind,
            count,
            stop: None,
        }
    }

    #[test]
    fn a_database_answers_queued_queries_in_order_and_times_each() {
        let db = cfg(
            TxnKind::Database {
                request_size: Dist::Constant(100.0),
                response_size: Dist::Constant(1000.0),
                interval: Dist::Constant(1.0),
            },
            Some(2),
        );
        let mut rt = TxnRt::new(stream(1, "app:db"));
        let t0 = SimTime::ZERO;
        let a = rt.tick(&db, t0, t0);
        assert_eq!(a.client_writes, vec![100]);
        assert_eq!(a.next_tick, Some(SimTime(1_000_000_000)));
        let b = rt.tick(&db, t0, SimTime(1_000_000_000));
        assert_eq!(b.client_writes, vec![100]);
        // Both queries arrive together: both answered, in order.
        let c = rt.react(&db, 200, 0, SimTime(1_100_000_000));
        assert_eq!(c.server_writes, vec![1000, 1000]);
        // The first response arrives; the second later.
        rt.react(&db, 200, 1000, SimTime(1_200_000_000));
        assert_eq!(rt.txns[0].done, Some(SimTime(1_200_000_000)));
        assert_eq!(rt.txns[1].done, None);
        // The count is reached: the next tick starts nothing, and the last response closes.
        assert!(!rt.tick(&db, t0, SimTime(2_000_000_000)).close);
        let e = rt.react(&db, 200, 2000, SimTime(2_500_000_000));
        assert!(e.close);
        assert_eq!(rt.txns[1].done, Some(SimTime(2_500_000_000)));
    }

    #[test]
    fn a_page_fetches_its_objects_one_after_the_other_then_thinks() {
        let http = cfg(
            TxnKind::Http {
                request_size: Dist::Constant(300.0),
                page_size: Dist::Constant(1000.0),
                objects: Dist::Constant(2.0),
                object_size: Dist::Constant(500.0),
                think_time: Dist::Constant(10.0),
                connection: HttpConn::Persistent,
            },
            None,
        );
        let mut rt = TxnRt::new(stream(1, "app:web"));
        let a = rt.tick(&http, SimTime::ZERO, SimTime::ZERO);
        assert_eq!((a.client_writes, a.next_tick), (vec![300], None));
        assert_eq!(
            rt.react(&http, 300, 0, SimTime(1)).server_writes,
            vec![1000]
        );
        // The page arrives: the first object is requested.
        assert_eq!(
            rt.react(&http, 300, 1000, SimTime(2)).client_writes,
            vec![300]
        );
        assert_eq!(
            rt.react(&http, 600, 1000, SimTime(3)).server_writes,
            vec![500]
        );
        assert_eq!(
            rt.react(&http, 600, 1500, SimTime(4)).client_writes,
            vec![300]
        );
        assert_eq!(
            rt.react(&http, 900, 1500, SimTime(5)).server_writes,
            vec![500]
        );
        let done = rt.react(&http, 900, 2000, SimTime(6));
        assert_eq!(done.next_tick, Some(SimTime(6 + 10_000_000_000)));
        assert_eq!(rt.txns[0].done, Some(SimTime(6)));
        assert_eq!(
            (rt.txns[0].request_bytes, rt.txns[0].response_bytes),
            (900, 2000)
        );
    }

    #[test]
    fn per_page_opens_a_connection_per_page_and_counts_its_bytes_from_zero() {
        let http = cfg(
            TxnKind::Http {
                request_size: Dist::Constant(300.0),
                page_size: Dist::Constant(1000.0),
                objects: Dist::Constant(1.0),
                object_size: Dist::Constant(500.0),
                think_time: Dist::Constant(10.0),
                connection: HttpConn::PerPage,
            },
            Some(2),
        );
        let mut rt = TxnRt::new(stream(1, "app:web"));
        for page in 0..2u64 {
            let t0 = SimTime(page * 20_000_000_000);
            let a = rt.tick(&http, SimTime::ZERO, t0);
            assert!(a.open_conn && !a.close_conn);
            assert_eq!(a.client_writes, vec![300]);
            // The byte counts are those of the page's own connection, from zero.
            assert_eq!(rt.react(&http, 300, 0, t0).server_writes, vec![1000]);
            let obj = rt.react(&http, 300, 1000, t0);
            assert_eq!((obj.client_writes, obj.close_conn), (vec![300], false));
            assert_eq!(rt.react(&http, 600, 1000, t0).server_writes, vec![500]);
            let done = rt.react(&http, 600, 1500, SimTime(t0.0 + 7));
            assert!(done.close_conn && !done.close && !done.open_conn);
            assert_eq!(done.next_tick, Some(SimTime(t0.0 + 7 + 10_000_000_000)));
        }
        // The count is reached: nothing opens, and the application is done.
        let end = rt.tick(&http, SimTime::ZERO, SimTime(40_000_000_000));
        assert!(end.close && !end.open_conn && end.client_writes.is_empty());
        assert!(rt.txns.iter().all(|t| t.response_bytes == 1500));
    }
}
