//! Helpers shared by the integration tests: scenario builders and table readers.
#![allow(dead_code)]

use serde_json::Value;
use tcplab_sim::{run, Column, Scenario, SimOutput, Table};

/// The paper's chain (server - cloud - client), 10 Mbit/s Ethernet, 20 ms in the cloud hop, with
/// `data_error` on the data direction and `ack_error` on the ACK direction (TOML inline tables).
pub fn paper(size: &str, data_error: &str, ack_error: &str, tcp: &str, output: &str) -> String {
    let tcp = if tcp.contains("profile") {
        tcp.to_string()
    } else {
        format!("profile = \"riverbed\"\n{tcp}")
    };
    format!(
        r#"
[run]
seed = 1
[tcp]
{tcp}
[[nodes]]
name = "server"
[[nodes]]
name = "cloud"
kind = "router"
[[nodes]]
name = "client"
[[links]]
name = "wan"
a = "server"
b = "cloud"
rate = "10Mbps"
delay = "20ms"
queue = "unlimited"
[links.ab]
error = {data_error}
[links.ba]
error = {ack_error}
[[links]]
name = "lan"
a = "cloud"
b = "client"
rate = "10Mbps"
delay = "0ms"
queue = "unlimited"
[[apps]]
name = "ftp"
kind = "ftp"
client = "client"
server = "server"
size = "{size}"
[output]
{output}
"#
    )
}

pub const NONE: &str = r#"{ model = "none" }"#;

pub fn run_toml(toml: &str) -> SimOutput {
    let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("scenario: {e}\n{toml}"));
    run(&sc).unwrap_or_else(|e| panic!("run: {e}"))
}

pub fn run_seed(toml: &str, seed: u64) -> SimOutput {
    let mut sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("scenario: {e}"));
    sc.set_seed(seed);
    run(&sc).unwrap_or_else(|e| panic!("run: {e}"))
}

pub fn get<'a>(v: &'a Value, path: &str) -> &'a Value {
    let mut cur = v;
    for part in path.split('.') {
        cur = match part.parse::<usize>() {
            Ok(i) => &cur[i],
            Err(_) => &cur[part],
        };
    }
    cur
}

pub fn num(v: &Value, path: &str) -> f64 {
    get(v, path)
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number: {}", get(v, path)))
}

pub fn f64s(t: &Table, c: &str) -> Vec<f64> {
    match t.column(c) {
        Some(Column::F64(v)) => v.clone(),
        other => panic!("column {c}: {other:?}"),
    }
}
pub fn u64s(t: &Table, c: &str) -> Vec<u64> {
    match t.column(c) {
        Some(Column::U64(v)) => v.clone(),
        other => panic!("column {c}: {other:?}"),
    }
}
pub fn strs(t: &Table, c: &str) -> Vec<String> {
    match t.column(c) {
        Some(Column::Str(v)) => v.clone(),
        other => panic!("column {c}: {other:?}"),
    }
}

/// One row of the per-packet log.
#[derive(Clone, Debug)]
pub struct Pkt {
    pub time: f64,
    pub event: String,
    pub place: String,
    pub from_end: u64,
    pub flags: u64,
    pub seq: u64,
    pub ack: u64,
    pub len: u64,
    pub tx: u64,
}

pub fn packets(out: &SimOutput) -> Vec<Pkt> {
    let t = out
        .table("packets")
        .expect("packets table (set output.packets = true)");
    let (time, event, place) = (f64s(t, "time_s"), strs(t, "event"), strs(t, "place"));
    let (from, flags, seq) = (u64s(t, "from_end"), u64s(t, "flags"), u64s(t, "seq"));
    let (ack, len, tx) = (u64s(t, "ack"), u64s(t, "len"), u64s(t, "tx_count"));
    (0..time.len())
        .map(|i| Pkt {
            time: time[i],
            event: event[i].clone(),
            place: place[i].clone(),
            from_end: from[i],
            flags: flags[i],
            seq: seq[i],
            ack: ack[i],
            len: len[i],
            tx: tx[i],
        })
        .collect()
}
