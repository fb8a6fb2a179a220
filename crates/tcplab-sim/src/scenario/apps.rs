//! The `[[apps]]` section: each application's kind and settings, its client and server hosts,
//! and its TCP settings (the scenario's `[tcp]` with its own `[apps.tcp]` over them). The
//! applications that `[[profiles]]` and repeating `ftp` applications expand to
//! (`crate::apps::profiles`) are read here as if written out.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::apps::dist::{dist, get_dist, Dist, Unit};
use crate::apps::profiles;
use crate::apps::txn::{HttpConn, TxnCfg, TxnKind};
use crate::apps::udp::UdpCfg;
use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::scenario::fields::{
    get_dur, get_size, get_str, get_uint, join, keys_ok, required, table,
};
use crate::scenario::nodes::{NodeKind, Nodes};
use crate::scenario::run::RunCfg;
use crate::scenario::schema;
use crate::scenario::tcp::{merged_tcp, tcp_config};
use crate::scenario::units::parse_rate;
use crate::tcp::TcpConfig;

#[derive(Clone, Debug, PartialEq)]
pub enum AppKind {
    /// The client requests `size` bytes; the server sends them and closes.
    Ftp { size: u64, request_size: u64 },
    /// The client sends `size` bytes (None: forever) to the server.
    Bulk { size: Option<u64> },
    /// Constant bit rate over TCP: the client's application writes `packet_size` bytes every
    /// `interval` from its start until `stop` (or the end of the run). When TCP is slower than
    /// the application, the unsent backlog grows in the sender's buffer (which is unbounded for
    /// the application: writes never block or drop).
    Cbr {
        packet_size: u64,
        interval: Dur,
        stop: Option<Dur>,
    },
    /// Transactions: `database` or `http`, over one persistent connection or (`http` with
    /// `connection = "per_page"`) a connection per page (see [`crate::apps::txn`]).
    Txn(TxnCfg),
    /// UDP datagrams from client to server, constant or on-off (see [`crate::apps::udp`]).
    Udp(UdpCfg),
}

#[derive(Clone, Debug, PartialEq)]
pub struct AppCfg {
    pub name: String,
    pub kind: AppKind,
    pub client: usize,
    pub server: usize,
    pub start: Dur,
    pub tcp: TcpConfig,
    pub profile: String,
    /// The server's port (what packet filters match).
    pub port: u16,
    /// The name the `app_series` table counts this application's responses under.
    pub group: String,
}

/// The server port of an application that names none: the service's well-known port (FTP 21,
/// HTTP 80, PostgreSQL's 5432 for `database`), iperf's 5001 for bulk and UDP traffic, RTP's
/// 5004 for cbr.
fn default_port(kind: &AppKind) -> u16 {
    match kind {
        AppKind::Ftp { .. } => 21,
        AppKind::Txn(t) if t.name() == "http" => 80,
        AppKind::Txn(_) => 5432,
        AppKind::Bulk { .. } | AppKind::Udp(_) => 5001,
        AppKind::Cbr { .. } => 5004,
    }
}

const APP_KINDS: &str = "\"ftp\", \"bulk\", \"cbr\", \"database\", \"http\" or \"udp\"";

/// The `[[apps]]` and the applications `[[profiles]]` expand to, on `nodes`, with the
/// scenario's `[tcp]` table `tcp_base` under their own: at least one, each name used once.
pub(super) fn parse(
    root: &Map<String, Value>,
    run: &RunCfg,
    nodes: &Nodes,
    tcp_base: Option<&Value>,
) -> SimResult<Vec<AppCfg>> {
    let generated = profiles::expand(root, run.seed)?;
    let entries = entries(root, &generated, run)?;
    let mut app_names: HashSet<String> = HashSet::with_capacity(entries.len());
    let mut apps = Vec::with_capacity(entries.len());
    for (i, (p, a)) in entries.into_iter().enumerate() {
        apps.push(app(&a, &p, i, nodes, tcp_base, &mut app_names)?);
    }
    if apps.is_empty() {
        return Err(SimError::invalid("apps", "[]", "at least one application"));
    }
    Ok(apps)
}

/// Every application table to read, with the path its errors name: the `[[apps]]`, then those
/// the profiles expanded to (`generated`), with each repeating ftp application replaced by one
/// application per transfer.
fn entries<'a>(
    root: &'a Map<String, Value>,
    generated: &'a [(String, Value)],
    run: &RunCfg,
) -> SimResult<Vec<(String, Cow<'a, Value>)>> {
    let aarr: &[Value] = match root.get("apps") {
        Some(av) => av
            .as_array()
            .ok_or_else(|| SimError::invalid("apps", av, "a list of [[apps]] tables"))?,
        None if !generated.is_empty() => &[],
        None => {
            return Err(SimError::MissingField {
                field: "apps".into(),
                allowed: format!("a list of [[apps]] (kind = {APP_KINDS}), or [[profiles]]"),
            })
        }
    };
    let listed: Vec<(String, &Value)> = aarr
        .iter()
        .enumerate()
        .map(|(i, a)| (format!("apps[{i}]"), a))
        .chain(generated.iter().map(|(p, a)| (p.clone(), a)))
        .collect();
    // Repeating ftp applications become one application per transfer.
    let mut entries: Vec<(String, Cow<'_, Value>)> = Vec::with_capacity(listed.len());
    for (p, a) in listed {
        let repeated = match a.as_object() {
            Some(m) if m.get("kind").and_then(Value::as_str) == Some("ftp") => {
                profiles::expand_ftp(m, &p, run.seed, run.stop_time.as_secs_f64())?
            }
            _ => None,
        };
        match repeated {
            Some(apps) => entries.extend(apps.into_iter().map(|a| (p.clone(), Cow::Owned(a)))),
            None => entries.push((p, Cow::Borrowed(a))),
        }
    }
    Ok(entries)
}

/// Application `i`, table `a` at path `p`; `names` holds the names of the applications before it.
fn app(
    a: &Value,
    p: &str,
    i: usize,
    nodes: &Nodes,
    tcp_base: Option<&Value>,
    names: &mut HashSet<String>,
) -> SimResult<AppCfg> {
    let m = table(a, p)?;
    keys_ok(m, p, schema::keys("apps[]", None))?;
    let kind_s = required(get_str(m, p, "kind")?, p, "kind", APP_KINDS)?;
    let (client, server) = hosts(m, p, nodes)?;
    let kind = app_kind(m, p, &kind_s)?;
    let over = m.get("tcp");
    if let Some(o) = over {
        table(o, &join(p, "tcp"))?;
    }
    let merged = merged_tcp(tcp_base, over);
    let tpath = if over.is_some() {
        join(p, "tcp")
    } else {
        "tcp".into()
    };
    let (profile, tcp) = tcp_config(&merged, &tpath)?;
    let name = get_str(m, p, "name")?.unwrap_or_else(|| format!("app{i}"));
    if !names.insert(name.clone()) {
        return Err(SimError::invalid(
            join(p, "name"),
            format!("{name:?}"),
            "a name not used by another app",
        ));
    }
    let port = match get_uint(m, p, "port", 1, 65_535)? {
        Some(n) => n as u16,
        None => default_port(&kind),
    };
    let group = match get_str(m, p, "group")? {
        Some(g) if g.trim().is_empty() => {
            return Err(SimError::invalid(
                join(p, "group"),
                format!("{g:?}"),
                "a non-empty name",
            ))
        }
        Some(g) => g,
        None => name.clone(),
    };
    Ok(AppCfg {
        name,
        kind,
        client,
        server,
        start: get_dur(m, p, "start")?.unwrap_or(Dur::ZERO),
        tcp,
        profile,
        port,
        group,
    })
}

/// The client and the server of application table `m` at `p`: two hosts.
fn hosts(m: &Map<String, Value>, p: &str, nodes: &Nodes) -> SimResult<(usize, usize)> {
    let cname = required(
        get_str(m, p, "client")?,
        p,
        "client",
        "the node that opens the connection",
    )?;
    let sname = required(
        get_str(m, p, "server")?,
        p,
        "server",
        "the node that accepts it",
    )?;
    let client = nodes.find(&join(p, "client"), &cname)?;
    let server = nodes.find(&join(p, "server"), &sname)?;
    for (key, idx) in [("client", client), ("server", server)] {
        if nodes.list[idx].kind != NodeKind::Host {
            return Err(SimError::invalid(
                join(p, key),
                format!("{:?}", nodes.list[idx].name),
                "a node of kind \"host\"",
            ));
        }
    }
    if client == server {
        return Err(SimError::invalid(
            join(p, "server"),
            format!("{sname:?}"),
            "a host other than the client",
        ));
    }
    Ok((client, server))
}

/// What application table `m` at `p`, of kind `kind`, does.
fn app_kind(m: &Map<String, Value>, p: &str, kind: &str) -> SimResult<AppKind> {
    Ok(match kind {
        "ftp" => {
            keys_ok(m, p, schema::keys("apps[]", Some("kind=ftp")))?;
            let size = required(
                get_size(m, p, "size")?,
                p,
                "size",
                "the file size, e.g. \"10MB\"",
            )?;
            let request_size = get_size(m, p, "request_size")?.unwrap_or(64);
            if request_size == 0 {
                return Err(SimError::invalid(
                    join(p, "request_size"),
                    0,
                    "at least 1 byte",
                ));
            }
            AppKind::Ftp { size, request_size }
        }
        "bulk" => {
            keys_ok(m, p, schema::keys("apps[]", Some("kind=bulk")))?;
            AppKind::Bulk {
                size: get_size(m, p, "size")?,
            }
        }
        "cbr" => cbr(m, p)?,
        "database" | "http" => AppKind::Txn(txn(m, p, kind)?),
        "udp" => {
            if m.contains_key("tcp") {
                return Err(SimError::invalid(
                    join(p, "tcp"),
                    "a table",
                    "no tcp settings: a udp application has no TCP connection",
                ));
            }
            AppKind::Udp(udp(m, p)?)
        }
        other => {
            return Err(SimError::invalid(
                join(p, "kind"),
                format!("{other:?}"),
                APP_KINDS,
            ))
        }
    })
}

/// `kind = "cbr"`: what the application writes, and how often.
fn cbr(m: &Map<String, Value>, p: &str) -> SimResult<AppKind> {
    keys_ok(m, p, schema::keys("apps[]", Some("kind=cbr")))?;
    let packet_size = required(
        get_size(m, p, "packet_size")?,
        p,
        "packet_size",
        "bytes the application writes each interval, e.g. 1460",
    )?;
    if packet_size == 0 {
        return Err(SimError::invalid(
            join(p, "packet_size"),
            0,
            "at least 1 byte",
        ));
    }
    let interval = required(
        get_dur(m, p, "interval")?,
        p,
        "interval",
        "the time between writes, e.g. \"1168us\"",
    )?;
    if interval.0 == 0 {
        return Err(SimError::invalid(
            join(p, "interval"),
            "0s",
            "a positive duration",
        ));
    }
    Ok(AppKind::Cbr {
        packet_size,
        interval,
        stop: get_dur(m, p, "stop")?,
    })
}

/// `kind = "database"` or `"http"`: the transactions' sizes and times (`m` is the application's
/// table, `kind` its kind).
fn txn(m: &Map<String, Value>, path: &str, kind: &str) -> SimResult<TxnCfg> {
    keys_ok(
        m,
        path,
        schema::keys("apps[]", Some(&format!("kind={kind}"))),
    )?;
    let d = |key: &str, unit: Unit, default: Dist| get_dist(m, path, key, unit, default);
    let kind = if kind == "database" {
        TxnKind::Database {
            request_size: d("request_size", Unit::Bytes, Dist::Constant(512.0))?,
            response_size: d("response_size", Unit::Bytes, Dist::Constant(16_000.0))?,
            interval: d("interval", Unit::Seconds, Dist::Exponential { mean: 1.0 })?,
        }
    } else {
        // OPNET's browsing presets differ in the think time (page interarrival time) only.
        let think = match get_str(m, path, "preset")?.as_deref() {
            None | Some("heavy") => 60.0,
            Some("light") => 720.0,
            Some(other) => {
                return Err(SimError::invalid(
                    join(path, "preset"),
                    format!("{other:?}"),
                    "\"heavy\" (a page every exponential(60 s)) or \"light\" (every \
                     exponential(720 s))",
                ))
            }
        };
        TxnKind::Http {
            request_size: d("request_size", Unit::Bytes, Dist::Constant(350.0))?,
            page_size: d("page_size", Unit::Bytes, Dist::Constant(1000.0))?,
            objects: d("objects", Unit::Count, Dist::Constant(5.0))?,
            object_size: d(
                "object_size",
                Unit::Bytes,
                Dist::Uniform {
                    min: 500.0,
                    max: 2000.0,
                },
            )?,
            think_time: d(
                "think_time",
                Unit::Seconds,
                Dist::Exponential { mean: think },
            )?,
            connection: match get_str(m, path, "connection")?.as_deref() {
                None | Some("persistent") => HttpConn::Persistent,
                Some("per_page") => HttpConn::PerPage,
                Some(other) => {
                    return Err(SimError::invalid(
                        join(path, "connection"),
                        format!("{other:?}"),
                        "\"persistent\" (one connection for every page, HTTP/1.1) or \
                         \"per_page\" (a new connection for each page, HTTP/1.0 style)",
                    ))
                }
            },
        }
    };
    Ok(TxnCfg {
        kind,
        count: get_uint(m, path, "count", 1, u64::MAX / 2)?,
        stop: get_dur(m, path, "stop")?,
    })
}

/// `kind = "udp"`: the rate and size of the datagrams, and the on-off periods if any.
fn udp(m: &Map<String, Value>, path: &str) -> SimResult<UdpCfg> {
    keys_ok(m, path, schema::keys("apps[]", Some("kind=udp")))?;
    let rate_bps = match m.get("rate") {
        Some(Value::String(s)) => parse_rate(&join(path, "rate"), s)?,
        Some(v) => {
            return Err(SimError::invalid(
                join(path, "rate"),
                v,
                "a bit rate such as \"2Mbps\"",
            ))
        }
        None => {
            return Err(SimError::MissingField {
                field: join(path, "rate"),
                allowed: "the sending rate while on, such as \"2Mbps\"".into(),
            })
        }
    };
    if rate_bps == 0 {
        return Err(SimError::invalid(
            join(path, "rate"),
            "0",
            "a positive bit rate",
        ));
    }
    let packet_size = get_size(m, path, "packet_size")?.unwrap_or(1000);
    if !(1..=65_507).contains(&packet_size) {
        return Err(SimError::invalid(
            join(path, "packet_size"),
            packet_size,
            "1 B to 65507 B (a UDP datagram's payload)",
        ));
    }
    let on_off = match (m.get("on_time"), m.get("off_time")) {
        (None, None) => None,
        (Some(on), Some(off)) => Some((
            dist(on, &join(path, "on_time"), Unit::Seconds)?,
            dist(off, &join(path, "off_time"), Unit::Seconds)?,
        )),
        (Some(_), None) | (None, Some(_)) => {
            let missing = if m.contains_key("on_time") {
                "off_time"
            } else {
                "on_time"
            };
            return Err(SimError::MissingField {
                field: join(path, missing),
                allowed: "on_time and off_time together (or neither: always on)".into(),
            });
        }
    };
    Ok(UdpCfg {
        rate_bps,
        packet_size,
        on_off,
        stop: get_dur(m, path, "stop")?,
    })
}
