//! The `http` application's two ways of using TCP: one persistent connection for every page,
//! or a connection per page (`connection = "per_page"`), which the simulator opens while the
//! run goes on.

mod common;

use common::*;
use tcplab_sim::{Column, SimOutput};

/// A browser on an idle 10 Mbit/s link, 20 ms each way, rfc profile: four 1000-byte pages
/// without objects, 2 s apart; then, once the pages are done, a database (application 1, so
/// connection 1).
fn browse(connection: &str) -> SimOutput {
    run_toml(&format!(
        r#"
[run]
stop_time = "60s"
[tcp]
profile = "rfc"
[[nodes]]
name = "c"
[[nodes]]
name = "s"
[[links]]
name = "l"
a = "c"
b = "s"
rate = "10Mbps"
delay = "20ms"
[[apps]]
name = "web"
kind = "http"
client = "c"
server = "s"
connection = "{connection}"
page_size = "1000B"
objects = 0
think_time = "2s"
count = 4
[[apps]]
name = "db"
kind = "database"
client = "c"
server = "s"
start = "30s"
interval = "1s"
count = 3
[output]
events = true
"#
    ))
}

fn strs(out: &SimOutput, table: &str, col: &str) -> Vec<String> {
    match out.table(table).and_then(|t| t.column(col)) {
        Some(Column::Str(v)) => v.to_vec(),
        other => panic!("{table}.{col}: {other:?}"),
    }
}

#[test]
fn per_page_opens_a_connection_for_each_page_after_the_applications_own() {
    let out = browse("per_page");
    let s = &out.summary;
    let conns = s["connections"].as_array().unwrap();
    let names: Vec<&str> = conns.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["web#0", "web#1", "web#2", "web#3", "db"]);
    // The first page uses the application's own connection (0); the database keeps 1; later
    // pages are numbered as they open.
    let ids: Vec<u64> = conns[..4]
        .iter()
        .map(|c| c["conn"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [0, 2, 3, 4]);
    assert!(conns[4].get("conn").is_none() && conns[4].get("app").is_none());
    for c in &conns[..4] {
        assert_eq!(c["app"], "web");
        assert_eq!(c["client"]["end_reason"], "closed");
        assert_eq!(c["server"]["end_reason"], "closed");
        assert_eq!(c["client"]["bytes_delivered"], 1000);
    }
    assert_eq!(num(s, "apps.0.bytes_received"), 4000.0);
    // Each connection's events carry its own number: every one went through the handshake
    // and the close, and the database's connection was not disturbed.
    let ev = out.table("events").unwrap();
    let conn = u64s(ev, "conn");
    let (kind, detail) = (strs(&out, "events", "kind"), strs(&out, "events", "detail"));
    for id in [0, 2, 3, 4, 1] {
        let states: Vec<&str> = (0..conn.len())
            .filter(|&i| conn[i] == id && kind[i] == "state")
            .map(|i| detail[i].as_str())
            .collect();
        assert!(
            states.contains(&"SYN-SENT -> ESTABLISHED"),
            "{id}: {states:?}"
        );
        assert!(states.contains(&"LAST-ACK -> CLOSED"), "{id}: {states:?}");
    }
    assert_eq!(num(s, "apps.1.transactions.completed"), 3.0);
}

#[test]
fn a_page_on_its_own_connection_costs_the_handshake_more() {
    let (per, pers) = (browse("per_page"), browse("persistent"));
    let times = |o: &SimOutput| f64s(o.table("transactions").unwrap(), "response_time_s");
    // (the browser's pages are the table's first four rows, the database's queries follow)
    let (tp, tk) = (&times(&per)[..4], &times(&pers)[..4]);
    // Ethernet: 38 B of framing, IP packets padded to 46 B; the rfc SYN carries 4 B of options.
    let wire = |ip: f64| (ip.max(46.0) + 38.0) * 8.0 / 10e6;
    let exchange = 0.040 + wire(390.0) + wire(1040.0);
    let handshake = 0.040 + 2.0 * wire(44.0) + wire(40.0);
    for (k, (&p, &q)) in tp.iter().zip(tk).enumerate() {
        assert!((p - (handshake + exchange)).abs() < 1e-9, "page {k}: {p}");
        let want = if k == 0 {
            handshake + exchange
        } else {
            exchange
        };
        assert!((q - want).abs() < 1e-9, "persistent page {k}: {q}");
    }
    assert_eq!(per.summary["connections"].as_array().unwrap().len(), 5);
    assert_eq!(pers.summary["connections"].as_array().unwrap().len(), 2);
}

#[test]
fn per_page_runs_are_deterministic() {
    let (a, b) = (browse("per_page"), browse("per_page"));
    assert_eq!(a.summary, b.summary);
    assert_eq!(
        f64s(a.table("events").unwrap(), "time_s"),
        f64s(b.table("events").unwrap(), "time_s")
    );
}
