//! Helpers shared by the integration tests: scenario builders and table readers.
#![allow(dead_code)]

use serde_json::Value;
use tcplab_sim::sim::step::{Inbound, Stepper, TcpOption};
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

pub const MSS: u64 = 1460;

/// Sequence number of the k-th data segment (0-based): data start at 1.
pub fn seg(k: u64) -> u64 {
    1 + k * MSS
}

/// A `list` error model dropping the given (segment index, transmission) pairs.
pub fn drops(list: &[(u64, u32)]) -> String {
    let items: Vec<String> = list
        .iter()
        .map(|&(k, tx)| format!("{{ seq = {}, tx = {tx} }}", seg(k)))
        .collect();
    format!("{{ model = \"list\", segments = [{}] }}", items.join(", "))
}

/// `direct`'s download with Reno and classic duplicate-ACK recovery under `profile`'s TCP
/// lines (`extra` after them), `data` the data direction's error model, `output` [output].
pub fn reno_dupack_download(
    profile: &str,
    extra: &str,
    size: u64,
    data: &str,
    output: &str,
) -> SimOutput {
    let tcp =
        format!("{profile}\ncongestion_control = \"reno\"\nloss_recovery = \"dupack\"\n{extra}");
    run_toml(&direct(&tcp, "", size, data, "", output))
}

/// A server -> client FTP download of `size` bytes over one 10 Mbit/s link with 20 ms each
/// way; `data` and `ack` are the error models of the data and ACK directions (`ack` empty:
/// none given), `app_tcp` goes into [apps.tcp] (empty: no such table) and `output` into
/// [output].
pub fn direct(tcp: &str, app_tcp: &str, size: u64, data: &str, ack: &str, output: &str) -> String {
    let ack = if ack.is_empty() {
        String::new()
    } else {
        format!("[links.ba]\nerror = {ack}\n")
    };
    let app_tcp = if app_tcp.is_empty() {
        String::new()
    } else {
        format!("[apps.tcp]\n{app_tcp}\n")
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
name = "client"
[[links]]
a = "server"
b = "client"
rate = "10Mbps"
delay = "20ms"
queue = "unlimited"
[links.ab]
error = {data}
{ack}[[apps]]
kind = "ftp"
client = "client"
server = "server"
size = "{size}B"
{app_tcp}[output]
{output}
"#
    )
}

pub fn run_toml(toml: &str) -> SimOutput {
    let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("scenario: {e}\n{toml}"));
    run(&sc).unwrap_or_else(|e| panic!("run: {e}"))
}

pub fn run_seed(toml: &str, seed: u64) -> SimOutput {
    let mut sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("scenario: {e}"));
    sc.set_seed(seed)
        .unwrap_or_else(|e| panic!("scenario with seed {seed}: {e}"));
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

/// A number of the first connection's server (data sender) in the summary.
pub fn server(out: &SimOutput, key: &str) -> f64 {
    num(&out.summary, &format!("connections.0.server.{key}"))
}

pub fn f64s(t: &Table, c: &str) -> Vec<f64> {
    match t.column(c) {
        Some(Column::F64(v)) => v.clone(),
        other => panic!("column {c}: {other:?}"),
    }
}
/// A column as integers; a float column (ssthresh, with infinity while it is unset) is
/// converted, infinity to u64::MAX.
pub fn u64s(t: &Table, c: &str) -> Vec<u64> {
    match t.column(c) {
        Some(Column::U64(v)) => v.clone(),
        Some(Column::F64(v)) => v
            .iter()
            .map(|&x| if x.is_finite() { x as u64 } else { u64::MAX })
            .collect(),
        other => panic!("column {c}: {other:?}"),
    }
}
pub fn strs(t: &Table, c: &str) -> Vec<String> {
    match t.column(c) {
        Some(Column::Str(v)) => v.to_vec(),
        other => panic!("column {c}: {other:?}"),
    }
}

/// One row of the event log.
#[derive(Clone, Debug)]
pub struct Ev {
    pub time: f64,
    pub end: u64,
    pub kind: String,
    pub seq: u64,
    pub detail: String,
}

/// The server's (data sender's) events.
pub fn events(out: &SimOutput) -> Vec<Ev> {
    let t = out.table("events").expect("events table");
    let (time, end, kind) = (f64s(t, "time_s"), u64s(t, "end"), strs(t, "kind"));
    let (seq, detail) = (u64s(t, "seq"), strs(t, "detail"));
    (0..time.len())
        .map(|i| Ev {
            time: time[i],
            end: end[i],
            kind: kind[i].clone(),
            seq: seq[i],
            detail: detail[i].clone(),
        })
        .filter(|e| e.end == 1)
        .collect()
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

/// A server -> client FTP download of `size` over one link, stopped at `stop`: `tcp` lines go
/// into [tcp], `link` lines (rate, delay, queue, framing) into the [[links]] table, `data` is
/// the data direction's error model and `output` lines go into [output].
pub fn one_link(stop: &str, tcp: &str, link: &str, data: &str, size: &str, output: &str) -> String {
    format!(
        r#"
[run]
stop_time = "{stop}"
[tcp]
{tcp}
[[nodes]]
name = "server"
[[nodes]]
name = "client"
[[links]]
a = "server"
b = "client"
{link}
[links.ab]
error = {data}
[[apps]]
kind = "ftp"
client = "client"
server = "server"
size = "{size}"
[output]
{output}
"#
    )
}

/// One `tcp_info` field of a stepped endpoint (panics when it is absent: a test's mistake).
pub fn info(s: &Stepper, k: &str) -> u64 {
    s.tcp_info()
        .expect("open")
        .into_iter()
        .find(|(n, _)| *n == k)
        .unwrap_or_else(|| panic!("{k} absent"))
        .1
}

/// A pure ACK from the peer (seq 1, window 1000, no timestamps) at the stepper's current time,
/// with SACK blocks `sack` in sequence numbers (none: no option).
pub fn inject_ack(s: &mut Stepper, ack: u64, sack: Vec<(u64, u64)>) {
    let options = if sack.is_empty() {
        vec![]
    } else {
        vec![TcpOption::Nop, TcpOption::Nop, TcpOption::Sack(sack)]
    };
    let seg = Inbound {
        flags: ".".into(),
        seq: 1,
        ack,
        win: 1000,
        len: 0,
        options,
    };
    s.inject(&seg).unwrap();
}
