//! A resolved view of a scenario for the analytic models and reports: every application's TCP
//! settings after profile expansion, and the hop-by-hop data and ACK paths with each link
//! direction's rate, delay, framing and error model. Units are SI (s, bit/s, bytes). The
//! congestion control's and loss recovery's parameters (`cc_params`, `lr_params`) are listed
//! in full, defaults filled in, durations in seconds under the name with `_s` appended.

use serde_json::{json, Map, Value};

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::net::aqm::AqmCfg;
use crate::net::link::{Framing, QueueLimit};
use crate::net::loss::{ErrorModelConfig, Law};
use crate::scenario::apps::AppKind;
use crate::scenario::routes::Routes;
use crate::scenario::walk::{Doc, Fields, Int, Visitor, UNLIMITED};
use crate::scenario::Scenario;
use crate::tcp::cc;
use crate::tcp::{params, recovery, TcpConfig};

fn law(l: &Law) -> Value {
    match l {
        Law::Per(p) => json!({"per": p}),
        Law::Ber(b) => json!({"ber": b}),
    }
}

fn error_json(e: &ErrorModelConfig) -> Value {
    match e {
        ErrorModelConfig::None => json!({"model": "none"}),
        ErrorModelConfig::Law(Law::Per(p)) => json!({"model": "per", "p": p}),
        ErrorModelConfig::Law(Law::Ber(b)) => json!({"model": "ber", "ber": b}),
        ErrorModelConfig::GilbertElliott {
            good,
            bad,
            p_good_to_bad,
            p_bad_to_good,
            start_bad,
        } => json!({
            "model": "gilbert-elliott", "good": law(good), "bad": law(bad),
            "p_gb": p_good_to_bad, "p_bg": p_bad_to_good, "start_bad": start_bad,
        }),
        ErrorModelConfig::List { frames, segments } => json!({
            "model": "list", "frames": frames,
            "segments": segments.iter().map(|(s, k)| json!({"seq": s, "tx": k})).collect::<Vec<_>>(),
        }),
    }
}

fn framing_json(f: Framing) -> Value {
    // Wire overhead of a full-size frame and bytes exposed to errors beyond the IP packet.
    json!({
        "name": f.name(),
        "wire_overhead": f.wire_bytes(1500) - 1500,
        "exposed_overhead": f.exposed_bytes(1500) - 1500,
        "min_wire_bytes": f.wire_bytes(0),
    })
}

/// The resolved scenario as JSON.
pub fn describe(sc: &Scenario) -> SimResult<Value> {
    let mut r = Routes::new(sc);
    let hop = |d: u32| -> Value {
        let l = &sc.links[d as usize / 2];
        let k = d as usize % 2;
        let dc = &l.dirs[k];
        let (from, to) = if k == 0 { (l.a, l.b) } else { (l.b, l.a) };
        let queue = match dc.queue {
            QueueLimit::Packets(n) => json!({"packets": n}),
            QueueLimit::Bytes(b) => json!({"bytes": b}),
            QueueLimit::Unlimited => json!("unlimited"),
        };
        json!({
            "link": l.name,
            "dir": if k == 0 { "ab" } else { "ba" },
            "from": sc.nodes[from].name,
            "to": sc.nodes[to].name,
            "rate_bps": dc.rate_bps,
            "delay_s": dc.delay.as_secs_f64(),
            // What the sending node's processing delay adds before this hop (0 at the source).
            "processing_delay_s": sc.nodes[from].processing_delay.as_secs_f64(),
            "mtu": dc.mtu,
            "framing": framing_json(dc.framing),
            "queue": queue,
            "aqm": aqm_json(&dc.aqm),
            "error": error_json(&dc.error),
        })
    };
    let mut apps = Vec::new();
    for (i, a) in sc.apps.iter().enumerate() {
        let (snd, rcv) = match a.kind {
            AppKind::Ftp { .. } | AppKind::Txn(_) => (a.server, a.client),
            AppKind::Bulk { .. } | AppKind::Cbr { .. } | AppKind::Udp(_) => (a.client, a.server),
        };
        let no_path = || {
            SimError::Topology(format!(
                "apps[{i}] ({}): no path between {} and {}",
                a.name, sc.nodes[a.client].name, sc.nodes[a.server].name
            ))
        };
        let data = r.path(sc, snd, rcv).ok_or_else(no_path)?;
        let ack = r.path(sc, rcv, snd).ok_or_else(no_path)?;
        let kind = match &a.kind {
            AppKind::Ftp { size, request_size } => {
                json!({"kind": "ftp", "size": size, "request_size": request_size})
            }
            AppKind::Bulk { size } => json!({"kind": "bulk", "size": size}),
            AppKind::Cbr {
                packet_size,
                interval,
                stop,
            } => json!({
                "kind": "cbr", "packet_size": packet_size, "interval_s": interval.as_secs_f64(),
                "stop_s": stop.map(|d| d.as_secs_f64()),
            }),
            AppKind::Txn(cfg) => cfg.to_json(),
            AppKind::Udp(cfg) => cfg.to_json(),
        };
        let t = &a.tcp;
        // Every parameter of the two plug-ins, defaults filled in (durations in seconds, `_s`).
        let cc_params = cc::resolved_params(
            &t.congestion_control,
            &t.cc_params,
            &format!("apps[{i}].tcp.cc_params"),
        )?;
        let lr_params = recovery::resolved_params(
            &t.loss_recovery,
            &t.lr_params,
            &format!("apps[{i}].tcp.lr_params"),
        )?;
        apps.push(json!({
            "name": a.name,
            "app": kind,
            "client": sc.nodes[a.client].name,
            "server": sc.nodes[a.server].name,
            "sender": sc.nodes[snd].name,
            "start_s": a.start.as_secs_f64(),
            "group": a.group,
            "tcp": tcp_json(a.profile.as_str(), t, cc_params, lr_params),
            "data_path": data.iter().map(|&d| hop(d)).collect::<Vec<_>>(),
            "ack_path": ack.iter().map(|&d| hop(d)).collect::<Vec<_>>(),
        }));
    }
    Ok(json!({
        "name": sc.run.name,
        "seed": sc.run.seed,
        "stop_time_s": sc.run.stop_time.as_secs_f64(),
        "apps": apps,
    }))
}

/// A queue discipline as `describe` shows it: its kind and every parameter, defaults included.
fn aqm_json(a: &AqmCfg) -> Value {
    match a {
        AqmCfg::None => json!({"kind": "none"}),
        AqmCfg::Red(r) => json!({
            "kind": "red",
            "min_th": r.min_th,
            "max_th": r.max_th,
            "max_p": r.max_p,
            "weight": r.weight,
            "gentle": r.gentle,
            "wait": r.wait,
            "mean_packet_size": r.mean_packet_size,
        }),
        AqmCfg::CoDel(c) => json!({
            "kind": "codel",
            "target": c.target.to_string(),
            "interval": c.interval.to_string(),
            "law": if c.linux { "linux" } else { "rfc" },
        }),
    }
}

/// An application's resolved TCP settings: every field `TcpConfig`'s walk declares, in SI
/// units (durations in seconds under the name with `_s` appended, rates in bytes per second
/// with `_Bps`, an unlimited size as null), the profile's name and the plug-ins' parameters.
fn tcp_json(
    profile: &str,
    t: &TcpConfig,
    cc_params: Vec<params::ParamInfo>,
    lr_params: Vec<params::ParamInfo>,
) -> Value {
    let mut d = Describe(Map::new(), Doc::default());
    t.clone().walk(&mut d);
    let mut m = d.0;
    m.insert("profile".into(), json!(profile));
    m.insert("cc_params".into(), params::describe_json(&cc_params));
    m.insert("lr_params".into(), params::describe_json(&lr_params));
    Value::Object(m)
}

/// The values of a walk's fields as JSON (`tcp_json`).
struct Describe(Map<String, Value>, Doc);

impl Describe {
    fn put(&mut self, key: impl Into<String>, v: Value) -> &mut Doc {
        self.0.insert(key.into(), v);
        &mut self.1
    }
}

impl Visitor for Describe {
    fn integer<T: Int>(&mut self, key: &'static str, field: &mut T, _: u64, _: u64) -> &mut Doc {
        let n: u64 = (*field).into();
        self.put(key, json!(n))
    }
    fn number(&mut self, key: &'static str, field: &mut f64, _: f64, _: f64) -> &mut Doc {
        self.put(key, json!(*field))
    }
    fn flag(&mut self, key: &'static str, field: &mut bool) -> &mut Doc {
        self.put(key, json!(*field))
    }
    fn size(&mut self, key: &'static str, field: &mut u64) -> &mut Doc {
        self.put(key, json!((*field < UNLIMITED).then_some(*field)))
    }
    fn size_or_inf(&mut self, key: &'static str, field: &mut u64) -> &mut Doc {
        self.size(key, field)
    }
    fn duration(&mut self, key: &'static str, field: &mut Dur) -> &mut Doc {
        self.put(format!("{key}_s"), json!(field.as_secs_f64()))
    }
    fn rate_or_inf(&mut self, key: &'static str, field: &mut Option<f64>) -> &mut Doc {
        self.put(format!("{key}_Bps"), json!(*field))
    }
    fn choice<T: Copy + PartialEq>(
        &mut self,
        key: &'static str,
        field: &mut T,
        options: &[(&'static str, T, &'static str)],
    ) -> &mut Doc {
        let name = options.iter().find(|o| o.1 == *field).map(|o| o.0);
        self.put(key, json!(name))
    }
    fn name(&mut self, key: &'static str, field: &mut String) -> &mut Doc {
        self.put(key, json!(field))
    }
    fn table<F: Fields>(&mut self, key: &'static str, field: &mut F) -> &mut Doc {
        let mut inner = Describe(Map::new(), Doc::default());
        field.walk(&mut inner);
        self.put(key, Value::Object(inner.0))
    }
    fn other(&mut self, _key: &'static str, _kind: &'static str) -> &mut Doc {
        &mut self.1
    }
}
