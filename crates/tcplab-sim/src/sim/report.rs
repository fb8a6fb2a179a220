//! What a run reports once it has ended: the summary (per application, connection, link
//! direction and filter, and which tables `output.max_rows` cut short) and the tables the
//! scenario asked for.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::apps::per_page;
use super::{AppRt, Sim};
use crate::apps::app_series;
use crate::engine::time::SimTime;
use crate::net::link::LinkDir;
use crate::output::series::{DelayHistColumns, SeriesColumns};
use crate::output::{Column, SimOutput, Table};
use crate::scenario::apps::AppKind;
use crate::scenario::Scenario;
use crate::tcp::{Endpoint, SSTHRESH_UNLIMITED};

impl Sim<'_> {
    /// The run's summary and tables, once it has ended.
    pub(super) fn finish(mut self) -> SimOutput {
        // What neither the summary nor the tables read goes before they are made, and the
        // endpoints go once read: with 10,000 flows the packets still in the network, the
        // pending events and the endpoints take tens of MB, and the summary's maps take about
        // 170 (a map of 13 numbers is 2.4 kB).
        let events = self.w.q.executed();
        drop(std::mem::take(&mut self.w.q));
        drop(std::mem::take(&mut self.pool));
        let end = if self.stopped_by_time {
            self.stop
        } else {
            self.last_active
        };
        let sim_s = end.as_secs_f64().max(1e-12);
        let apps = self.apps_summary(end);
        let connections = self.connections_summary();
        drop(std::mem::take(&mut self.conns));
        let filters = (!self.filters.is_empty()).then(|| {
            self.filters
                .iter()
                .zip(&self.sc.nodes)
                .filter_map(|(f, n)| f.as_deref().map(|f| f.summary(&n.name)))
                .collect::<Vec<_>>()
        });
        let mut truncated = self.truncated_tables();
        let mut tables = Vec::new();
        if let Some(t) = self.trace {
            tables.push(t.into_table());
        }
        if let Some(e) = self.w.events {
            tables.push(e.into_table());
        }
        if let Some(p) = self.w.packets {
            tables.push(p.into_table());
        }
        if self.sc.output.queues {
            tables.push(queue_table(&self.dirs, end));
        }
        if self.apps.iter().any(|a| a.txn.is_some()) {
            tables.push(transactions_table(self.sc, &self.apps));
        }
        if let Some(every) = self.sc.output.app_series {
            let (groups, responses) = app_responses(self.sc, &self.apps);
            let (t, dropped) =
                app_series::table(&groups, &responses, every, end, self.sc.output.max_rows);
            if dropped > 0 {
                truncated.push(json!({
                    "table": "app_series",
                    "rows_kept": self.sc.output.max_rows,
                    "rows_dropped": dropped,
                }));
            }
            tables.push(t);
        }
        if self.sc.output.link_series.is_some() {
            let mut cols = SeriesColumns::default();
            let mut hist = DelayHistColumns::default();
            for d in &self.dirs {
                if let Some(s) = d.series() {
                    cols.push(&d.name, s, end);
                    hist.push(&d.name, s);
                }
            }
            tables.push(Table {
                name: "link_series".into(),
                columns: cols.into_columns(),
            });
            tables.push(Table {
                name: "queue_delay_hist".into(),
                columns: hist.into_columns(),
            });
        }
        let links = links_summary(self.sc, &self.dirs, sim_s);
        let mut summary = json!({
            "tcplab_version": crate::VERSION,
            "scenario": self.sc.run.name,
            "seed": self.sc.run.seed,
            "sim_time_s": end.as_secs_f64(),
            "stopped_by": if self.stopped_by_time { "stop_time" } else { "idle" },
            "events": events,
        });
        summary["apps"] = Value::Array(apps);
        summary["connections"] = Value::Array(connections);
        summary["links"] = Value::Array(links);
        if let Some(f) = filters {
            summary["filters"] = Value::Array(f);
        }
        if !truncated.is_empty() {
            summary["tables_truncated"] = Value::Array(truncated);
        }
        SimOutput { summary, tables }
    }

    /// The summary's `connections`.
    fn connections_summary(&self) -> Vec<Value> {
        // Application by application; a connection per page is `<app>#<page>`, with its
        // application and its number in the tables' `conn` column.
        self.sc
            .apps
            .iter()
            .zip(&self.apps)
            .filter(|(_, rt)| rt.udp.is_none()) // a udp application has no connection
            .flat_map(|(a, rt)| rt.conns.iter().enumerate().map(move |(k, &i)| (a, k, i)))
            .map(|(a, k, i)| {
                let [c, s] = &self.conns[i as usize].ends;
                let mut v = if per_page(a) {
                    json!({
                        "name": format!("{}#{k}", a.name),
                        "app": a.name,
                        "conn": i,
                        "profile": a.profile,
                        "congestion_control": c.cc_name(),
                        "loss_recovery": c.recovery_name(),
                    })
                } else {
                    json!({
                        "name": a.name,
                        "profile": a.profile,
                        "congestion_control": c.cc_name(),
                        "loss_recovery": c.recovery_name(),
                    })
                };
                // Assigned, not interpolated: json! would serialise each Value into a copy.
                v["client"] = endpoint_json(c);
                v["server"] = endpoint_json(s);
                v
            })
            .collect()
    }

    /// The summary's `apps`, for a run that ended at `end`.
    fn apps_summary(&self, end: SimTime) -> Vec<Value> {
        self
        .sc
        .apps
        .iter()
        .zip(&self.apps)
        .map(|(a, rt)| {
            let (kind, bytes) = match a.kind {
                AppKind::Ftp { size, .. } => ("ftp", Some(size)),
                AppKind::Bulk { size } => ("bulk", size),
                AppKind::Cbr { .. } => ("cbr", None),
                AppKind::Udp(_) => ("udp", None),
                AppKind::Txn(ref c) => (c.name(), None),
            };
            let start = rt.started.map(|t| t.as_secs_f64());
            let resp = match (rt.started, rt.done_at) {
                (Some(s), Some(d)) => Some(d.since(s).as_secs_f64()),
                _ => None,
            };
            // what the receiving end got, over all the application's connections
            let received: u64 = rt
                .conns
                .iter()
                .map(|&c| self.conns[c as usize].ends[1 - rt.sender as usize].delivered)
                .sum();
            if let (AppKind::Udp(cfg), Some(u)) = (&a.kind, rt.udp.as_deref()) {
                let got = u.received * cfg.packet_size;
                let span = rt.started.map(|s| end.since(s).as_secs_f64().max(1e-12));
                return json!({
                    "name": a.name,
                    "kind": "udp",
                    "bytes": null,
                    "bytes_received": got,
                    "start_s": start,
                    "end_s": rt.done_at.map(|t| t.as_secs_f64()),
                    "completed": rt.done_at.is_some(),
                    "response_time_s": null,
                    "throughput_Bps": span.map(|s| got as f64 / s),
                    "offered_bytes": u.sent * cfg.packet_size,
                    "max_backlog_bytes": null,
                    "transactions": null,
                    "datagrams": u.summary(cfg),
                });
            }
            let goodput = match (rt.started, resp) {
                (_, Some(r)) => bytes.map(|b| b as f64 / r),
                (Some(s), None) => {
                    Some(received as f64 / end.since(s).as_secs_f64().max(1e-12))
                }
                _ => None,
            };
            json!({
                "name": a.name,
                "kind": kind,
                "bytes": bytes,
                "bytes_received": received,
                "start_s": start,
                "end_s": rt.done_at.map(|t| t.as_secs_f64()),
                "completed": rt.done_at.is_some(),
                "response_time_s": resp,
                "throughput_Bps": goodput,
                "offered_bytes": matches!(a.kind, AppKind::Cbr { .. }).then_some(rt.offered),
                "max_backlog_bytes": matches!(a.kind, AppKind::Cbr { .. }).then_some(rt.max_backlog),
                "transactions": rt.txn.as_ref().map(|t| t.summary()),
                "datagrams": null,
            })
        })
        .collect()
    }

    /// The summary's `tables_truncated`, but for `app_series` (known when its table is made).
    fn truncated_tables(&self) -> Vec<Value> {
        // Tables that reached output.max_rows: what they left out (absent when none did).
        let mut truncated = Vec::new();
        let caps = [
            ("trace", self.trace.as_ref().map(|t| t.cap)),
            ("events", self.w.events.as_ref().map(|t| t.cap)),
            ("packets", self.w.packets.as_ref().map(|t| t.cap)),
        ];
        for (name, cap) in caps {
            if let Some(c) = cap.filter(|c| c.dropped > 0) {
                truncated.push(json!({
                    "table": name,
                    "rows_kept": c.max,
                    "rows_dropped": c.dropped,
                    "first_dropped_s": c.first_dropped.as_secs_f64(),
                }));
            }
        }
        for d in self.dirs.iter().filter(|d| d.queue_log_dropped() > 0) {
            truncated.push(json!({
                "table": "queues",
                "link": d.name,
                "rows_kept": self.sc.output.max_rows,
                "rows_dropped": d.queue_log_dropped(),
            }));
        }
        for d in &self.dirs {
            if let Some(s) = d.series().filter(|s| s.bins_dropped() > 0) {
                truncated.push(json!({
                    "table": "link_series",
                    "link": d.name,
                    "rows_kept": self.sc.output.max_rows / self.dirs.len().max(1),
                    "rows_dropped": s.bins_dropped(),
                }));
            }
        }
        truncated
    }
}

/// The summary's `links`, over a run of `sim_s` seconds.
fn links_summary(sc: &Scenario, dirs: &[LinkDir], sim_s: f64) -> Vec<Value> {
    sc.links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let mut v = json!({ "name": l.name });
            v["ab"] = dir_json(&dirs[2 * i], sim_s);
            v["ba"] = dir_json(&dirs[2 * i + 1], sim_s);
            v
        })
        .collect()
}

/// One endpoint's entry in the summary's `connections` (`client` or `server`).
fn endpoint_json(e: &Endpoint) -> Value {
    let s = &e.stats;
    let mut v = json!({
        "segments_sent": s.segments_sent,
        "data_segments_sent": s.data_segments_sent,
        "bytes_sent": s.bytes_sent,
        "retransmissions": s.retransmissions,
        "fast_retransmits": s.fast_retransmits,
        "rto_expirations": s.rto_expirations,
        "dupacks_received": s.dupacks_received,
        "acks_sent": s.acks_sent,
        "segments_received": s.segments_received,
        "out_of_order_segments": s.out_of_order_segments,
        "duplicate_segments": s.duplicate_segments,
        "bytes_delivered": s.bytes_delivered,
        "syn_retransmissions": s.syn_retransmissions,
        "rtt_samples": s.rtt_samples,
        "max_cwnd": s.max_cwnd,
        "final_cwnd": e.ccs.cwnd,
        // null: no congestion event set it (the sentinel never leaves the core)
        "final_ssthresh": (e.ccs.ssthresh < SSTHRESH_UNLIMITED).then_some(e.ccs.ssthresh),
        "srtt_s": e.rto.srtt().map(|d| d.as_secs_f64()),
        "rto_s": e.rto.rto().as_secs_f64(),
        "mss": e.eff_mss,
        "state": e.state.name(),
        "aborted": e.aborted,
        "end_reason": e.end_reason(),
    });
    if let Some((window, grown)) = e.autotuned() {
        // Only where the buffer autotunes: the window it reached and how often it grew.
        v["rcv_window_max"] = window.into();
        v["rcv_window_grown"] = grown.into();
    }
    v
}

/// One link direction's entry in the summary's `links` (`ab` or `ba`), over a run of `sim_s`
/// seconds.
fn dir_json(d: &LinkDir, sim_s: f64) -> Value {
    let s = &d.stats;
    // Every frame that went on the wire has its wait in the sum (a CoDel queue's
    // frames still pending at the end have none yet).
    let waited = s.frames_sent;
    json!({
        "frames_offered": s.frames_offered,
        "frames_sent": s.frames_sent,
        "frames_dropped_error": s.frames_dropped_error,
        "frames_dropped_queue": s.frames_dropped_queue,
        "data_frames_dropped_error": s.data_frames_dropped_error,
        "data_frames_dropped_queue": s.data_frames_dropped_queue,
        "frames_dropped_early": s.frames_dropped_early,
        "frames_dropped_forced": s.frames_dropped_forced,
        "bytes_on_wire": s.bytes_on_wire,
        "utilisation": s.busy_ns as f64 / (sim_s * 1e9),
        "mean_queue_delay_s": if waited > 0 { s.queue_delay_ns_sum as f64 / waited as f64 / 1e9 } else { 0.0 },
        "max_queue_delay_s": s.queue_delay_ns_max as f64 / 1e9,
        "max_queue_packets": s.max_queue_packets,
    })
}

/// The `transactions` table: every page or query of the `http` and `database` applications,
/// with its start, end (NaN if unfinished), response time and bytes each way.
fn transactions_table(sc: &Scenario, apps: &[AppRt]) -> Table {
    let (mut app, mut index, mut start, mut end, mut resp, mut req_b, mut resp_b) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for (cfg, rt) in sc.apps.iter().zip(apps) {
        let Some(t) = rt.txn.as_deref() else {
            continue;
        };
        for (i, x) in t.txns.iter().enumerate() {
            app.push(cfg.name.clone());
            index.push(i as u64);
            start.push(x.start.as_secs_f64());
            end.push(x.done.map_or(f64::NAN, |d| d.as_secs_f64()));
            resp.push(x.done.map_or(f64::NAN, |d| d.since(x.start).as_secs_f64()));
            req_b.push(x.request_bytes);
            resp_b.push(x.response_bytes);
        }
    }
    Table {
        name: "transactions".into(),
        columns: vec![
            ("app".into(), Column::Str(app.into())),
            ("index".into(), Column::U64(index)),
            ("start_s".into(), Column::F64(start)),
            ("end_s".into(), Column::F64(end)),
            ("response_time_s".into(), Column::F64(resp)),
            ("request_bytes".into(), Column::U64(req_b)),
            ("response_bytes".into(), Column::U64(resp_b)),
        ],
    }
}

/// Every completed response of the applications that have them (pages and queries, ftp and
/// bulk transfers), and their groups in order of first appearance.
fn app_responses(sc: &Scenario, apps: &[AppRt]) -> (Vec<String>, Vec<app_series::Response>) {
    let mut groups: Vec<String> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::new();
    for (cfg, rt) in sc.apps.iter().zip(apps) {
        let transfer = match cfg.kind {
            AppKind::Ftp { size, .. } => Some(size),
            // an unsized bulk transfer never completes: no response to count
            AppKind::Bulk { size: Some(size) } => Some(size),
            AppKind::Bulk { size: None } => continue,
            AppKind::Txn(_) => None,
            AppKind::Cbr { .. } | AppKind::Udp(_) => continue,
        };
        let g = *index.entry(cfg.group.as_str()).or_insert_with(|| {
            groups.push(cfg.group.clone());
            groups.len() - 1
        });
        let mut push = |start: SimTime, done: SimTime, bytes: u64| {
            out.push(app_series::Response {
                group: g,
                done,
                time: done.since(start),
                bytes,
            })
        };
        match (transfer, rt.txn.as_deref()) {
            (None, Some(t)) => {
                for x in &t.txns {
                    if let Some(done) = x.done {
                        push(x.start, done, x.response_bytes);
                    }
                }
            }
            (Some(bytes), _) => {
                if let (Some(s), Some(d)) = (rt.started, rt.done_at) {
                    push(s, d, bytes);
                }
            }
            (None, None) => {}
        }
    }
    (groups, out)
}

/// The `queues` table: every link direction's waiting queue (frames and wire bytes, the frame
/// being transmitted not counted) after each change, up to the end of the run.
fn queue_table(dirs: &[LinkDir], end: SimTime) -> Table {
    let (mut time, mut link, mut frames, mut bytes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for d in dirs {
        for (t, f, b) in d.queue_series(end) {
            time.push(t.as_secs_f64());
            link.push(d.name.clone());
            frames.push(f);
            bytes.push(b);
        }
    }
    Table {
        name: "queues".into(),
        columns: vec![
            ("time_s".into(), Column::F64(time)),
            ("link".into(), Column::Str(link.into())),
            ("packets".into(), Column::U64(frames)),
            ("bytes".into(), Column::U64(bytes)),
        ],
    }
}
