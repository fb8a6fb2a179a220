//! The `[[links]]` section: each link's ends and name, and the settings of its two directions
//! (rate, delay, MTU, framing, transmit queue, queue discipline, error model), given for the
//! link and overridden per direction in its `ab` and `ba` tables.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::net::aqm::{AqmCfg, RedCfg};
use crate::net::codel::CoDelCfg;
use crate::net::link::{Framing, QueueLimit};
use crate::net::loss::ErrorModelConfig;
use crate::scenario::error_model::error_model;
use crate::scenario::fields::{
    get_bool, get_dur, get_f64, get_prob, get_rate, get_size, get_str, get_uint, join, keys_ok,
    required, table,
};
use crate::scenario::nodes::Nodes;
use crate::scenario::schema;
use crate::scenario::units::parse_size;

#[derive(Clone, Debug, PartialEq)]
pub struct DirCfg {
    pub rate_bps: u64,
    pub delay: Dur,
    pub mtu: u32,
    pub framing: Framing,
    pub queue: QueueLimit,
    pub aqm: AqmCfg,
    pub error: ErrorModelConfig,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkCfg {
    pub name: String,
    pub a: usize,
    pub b: usize,
    /// [a -> b, b -> a]
    pub dirs: [DirCfg; 2],
}

/// The `[[links]]` between `nodes`: one after another, each name used once.
pub(super) fn parse(root: &Map<String, Value>, nodes: &Nodes) -> SimResult<Vec<LinkCfg>> {
    let lv = root.get("links").ok_or_else(|| SimError::MissingField {
        field: "links".into(),
        allowed: "a list of [[links]] joining nodes a and b".into(),
    })?;
    let larr = lv
        .as_array()
        .ok_or_else(|| SimError::invalid("links", lv, "a list of [[links]] tables"))?;
    let mut link_names: HashSet<String> = HashSet::with_capacity(larr.len());
    let mut links = Vec::with_capacity(larr.len());
    for (i, l) in larr.iter().enumerate() {
        links.push(link(l, &format!("links[{i}]"), nodes, &mut link_names)?);
    }
    Ok(links)
}

/// Link table `l` at path `p`; `names` holds the names of the links before it.
fn link(l: &Value, p: &str, nodes: &Nodes, names: &mut HashSet<String>) -> SimResult<LinkCfg> {
    let m = table(l, p)?;
    let mut allowed = schema::keys("links[]", None).to_vec();
    allowed.extend(schema::keys("direction", None));
    keys_ok(m, p, &allowed)?;
    let a_name = required(get_str(m, p, "a")?, p, "a", "the node at one end")?;
    let b_name = required(get_str(m, p, "b")?, p, "b", "the node at the other end")?;
    let a = nodes.find(&join(p, "a"), &a_name)?;
    let b = nodes.find(&join(p, "b"), &b_name)?;
    if a == b {
        return Err(SimError::invalid(
            join(p, "b"),
            format!("{b_name:?}"),
            "a node other than a",
        ));
    }
    let name = get_str(m, p, "name")?.unwrap_or_else(|| format!("{a_name}-{b_name}"));
    if !names.insert(name.clone()) {
        return Err(SimError::invalid(
            join(p, "name"),
            format!("{name:?}"),
            "a name not used by another link",
        ));
    }
    let dirs = directions(m, p)?;
    Ok(LinkCfg { name, a, b, dirs })
}

/// The two directions of link table `m` at `p`: the link's settings, then each direction's own
/// (`ab`, `ba`) over them.
fn directions(m: &Map<String, Value>, p: &str) -> SimResult<[DirCfg; 2]> {
    let mut base = DirCfg {
        rate_bps: 0,
        delay: Dur::ZERO,
        mtu: 1500,
        framing: Framing::Ethernet,
        queue: QueueLimit::Packets(100),
        aqm: AqmCfg::None,
        error: ErrorModelConfig::None,
    };
    apply_dir(m, p, &mut base)?;
    let mut dirs = [base.clone(), base];
    for (k, key) in ["ab", "ba"].iter().enumerate() {
        if let Some(dv) = m.get(*key) {
            let dp = join(p, key);
            let dm = table(dv, &dp)?;
            keys_ok(dm, &dp, schema::keys("direction", None))?;
            apply_dir(dm, &dp, &mut dirs[k])?;
        }
        if dirs[k].rate_bps == 0 {
            return Err(SimError::MissingField {
                field: join(p, "rate"),
                allowed: "a bit rate such as \"10Mbps\" (for the link, or per direction in ab/ba)"
                    .into(),
            });
        }
        // RED that can never act: its average cannot reach min_th below the limit.
        if let (AqmCfg::Red(r), QueueLimit::Packets(n)) = (&dirs[k].aqm, dirs[k].queue) {
            if r.min_th >= n as f64 {
                let own = m.get(*key).and_then(Value::as_object);
                let at = if own.is_some_and(|d| d.contains_key("aqm")) {
                    join(p, key)
                } else {
                    p.to_string()
                };
                return Err(SimError::invalid(
                    format!("{at}.aqm.min_th"),
                    r.min_th,
                    format!("below the queue limit ({n} packets), or RED never drops"),
                ));
            }
        }
    }
    Ok(dirs)
}

fn parse_queue(v: &Value, path: &str) -> SimResult<QueueLimit> {
    const ALLOWED: &str =
        "\"unlimited\", a packet count such as \"100p\" or 100, or a byte size such as \"64KB\"";
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(k) if k >= 1 => Ok(QueueLimit::Packets(k)),
            _ => Err(SimError::invalid(path, v, ALLOWED)),
        },
        Value::String(s) if s == "unlimited" => Ok(QueueLimit::Unlimited),
        Value::String(s) => {
            if let Some(num) = s.strip_suffix('p') {
                match num.trim().parse::<u64>() {
                    Ok(k) if k >= 1 => Ok(QueueLimit::Packets(k)),
                    _ => Err(SimError::invalid(path, v, ALLOWED)),
                }
            } else {
                let b = parse_size(path, s).map_err(|_| SimError::invalid(path, v, ALLOWED))?;
                if b == 0 {
                    return Err(SimError::invalid(path, v, ALLOWED));
                }
                Ok(QueueLimit::Bytes(b))
            }
        }
        _ => Err(SimError::invalid(path, v, ALLOWED)),
    }
}

fn apply_dir(m: &Map<String, Value>, path: &str, d: &mut DirCfg) -> SimResult<()> {
    if let Some(r) = get_rate(m, path, "rate")? {
        d.rate_bps = r;
    }
    if let Some(x) = get_dur(m, path, "delay")? {
        d.delay = x;
    }
    if let Some(x) = get_uint(m, path, "mtu", 68, 65_535)? {
        d.mtu = x as u32;
    }
    if let Some(f) = get_str(m, path, "framing")? {
        d.framing = match f.as_str() {
            "ethernet" => Framing::Ethernet,
            "ppp" => Framing::Ppp,
            "none" => Framing::None,
            _ => {
                return Err(SimError::invalid(
                    join(path, "framing"),
                    format!("{f:?}"),
                    "one of: ethernet (38 B a frame), ppp (8 B), none",
                ))
            }
        };
    }
    if let Some(q) = m.get("queue") {
        d.queue = parse_queue(q, &join(path, "queue"))?;
    }
    if let Some(a) = m.get("aqm") {
        d.aqm = aqm(a, &join(path, "aqm"))?;
    }
    if let Some(e) = m.get("error") {
        d.error = error_model(e, &join(path, "error"))?;
    }
    Ok(())
}

/// A RED threshold: packets, as a number or "5p".
fn threshold(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<f64>> {
    const ALLOWED: &str = "a number of packets from 0 to 1000000, such as 5 or \"5p\"";
    let bad = |v: &Value| SimError::invalid(join(path, key), v, ALLOWED);
    let x = match m.get(key) {
        None => return Ok(None),
        Some(v @ Value::Number(n)) => n.as_f64().ok_or_else(|| bad(v))?,
        Some(v @ Value::String(s)) => s
            .strip_suffix('p')
            .and_then(|n| n.trim().parse::<f64>().ok())
            .ok_or_else(|| bad(v))?,
        Some(v) => return Err(bad(v)),
    };
    if !(0.0..=1e6).contains(&x) {
        return Err(bad(&m[key]));
    }
    Ok(Some(x))
}

fn aqm(v: &Value, path: &str) -> SimResult<AqmCfg> {
    const KINDS: &str = "one of: none (drop-tail), red, codel";
    let m = table(v, path)?;
    let kind = required(get_str(m, path, "kind")?, path, "kind", KINDS)?;
    match kind.as_str() {
        "none" => {
            keys_ok(m, path, schema::keys("aqm", Some("kind=none")))?;
            Ok(AqmCfg::None)
        }
        "red" => red(m, path),
        "codel" => codel(m, path),
        other => Err(SimError::invalid(
            join(path, "kind"),
            format!("{other:?}"),
            KINDS,
        )),
    }
}

/// `kind = "red"`: RED's thresholds and probability, each checked against the others.
fn red(m: &Map<String, Value>, path: &str) -> SimResult<AqmCfg> {
    keys_ok(m, path, schema::keys("aqm", Some("kind=red")))?;
    let d = RedCfg::default();
    let min_th = threshold(m, path, "min_th")?.unwrap_or(d.min_th);
    let max_th = threshold(m, path, "max_th")?.unwrap_or(d.max_th);
    if max_th <= min_th {
        let (key, given) = if m.contains_key("max_th") {
            ("max_th", format!("{max_th}"))
        } else {
            ("min_th", format!("{min_th}"))
        };
        return Err(SimError::invalid(
            join(path, key),
            given,
            format!(
                "max_th{} above min_th ({min_th} packets): set max_th too, or a lower min_th",
                if m.contains_key("max_th") {
                    ""
                } else {
                    " (default 15)"
                }
            ),
        ));
    }
    let max_p = get_prob(m, path, "max_p")?.unwrap_or(d.max_p);
    if max_p <= 0.0 {
        return Err(SimError::invalid(
            join(path, "max_p"),
            max_p,
            "a probability above 0 and at most 1",
        ));
    }
    Ok(AqmCfg::Red(RedCfg {
        min_th,
        max_th,
        max_p,
        weight: get_f64(m, path, "weight", 1e-9, 1.0)?.unwrap_or(d.weight),
        gentle: get_bool(m, path, "gentle")?.unwrap_or(d.gentle),
        wait: get_bool(m, path, "wait")?.unwrap_or(d.wait),
        mean_packet_size: match get_size(m, path, "mean_packet_size")? {
            None => d.mean_packet_size,
            Some(b) if (1..=65_535).contains(&b) => b as u32,
            Some(b) => {
                return Err(SimError::invalid(
                    join(path, "mean_packet_size"),
                    b,
                    "a size from 1 B to 65535 B",
                ))
            }
        },
    }))
}

/// `kind = "codel"`: CoDel's target and interval, and which control law.
fn codel(m: &Map<String, Value>, path: &str) -> SimResult<AqmCfg> {
    keys_ok(m, path, schema::keys("aqm", Some("kind=codel")))?;
    let d = CoDelCfg::default();
    let in_range = |key: &str, lo: Dur, hi: Dur, what: &str| -> SimResult<Option<Dur>> {
        match get_dur(m, path, key)? {
            Some(x) if x < lo || x > hi => {
                Err(SimError::invalid(join(path, key), format!("{x}"), what))
            }
            x => Ok(x),
        }
    };
    let target = in_range(
        "target",
        Dur::from_micros(1),
        Dur::from_secs(10),
        "1 us to 10 s",
    )?
    .unwrap_or(d.target);
    let interval = in_range(
        "interval",
        Dur::from_micros(1),
        Dur::from_secs(100),
        "1 us to 100 s",
    )?
    .unwrap_or(d.interval);
    if interval <= target {
        return Err(SimError::invalid(
            join(
                path,
                if m.contains_key("interval") {
                    "interval"
                } else {
                    "target"
                },
            ),
            format!("{interval} with target {target}"),
            "an interval longer than the target (RFC 8289: 100 ms and 5 ms)",
        ));
    }
    let linux = match get_str(m, path, "law")?.as_deref() {
        None | Some("rfc") => false,
        Some("linux") => true,
        Some(o) => {
            return Err(SimError::invalid(
                join(path, "law"),
                format!("{o:?}"),
                "\"rfc\" (RFC 8289's pseudocode) or \"linux\" (Linux's and ns-3's \
                 fixed-point law)",
            ))
        }
    };
    Ok(AqmCfg::CoDel(CoDelCfg {
        target,
        interval,
        linux,
    }))
}
