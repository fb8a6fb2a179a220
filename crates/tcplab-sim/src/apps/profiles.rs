//! Profiles (OPNET's Profile Configuration): a set of applications that a group of hosts each
//! run, from a start time drawn per host, repeated a number of times.
//!
//! A profile is expanded into ordinary applications when the scenario is read: for each host and
//! repetition, each of its applications becomes one `[[apps]]` entry named
//! `<profile>:<app>:<host>:<repetition>`, with that host as its client, the profile's (or the
//! application's) server, and its start at
//! `start + (host's offset) + (the inter-repetition gaps before it) + (the application's start)`.
//! Offsets and gaps are drawn from the profile's own stream (`profile:<name>`), host by host in
//! the order listed, so the same seed gives the same expansion.
//!
//! A repeating `ftp` application (`inter_request`, `count`, `get_fraction`: OPNET's FTP
//! inter-request time and command mix) is expanded the same way, into one application per
//! transfer (`expand_ftp`).

use serde_json::{json, Map, Value};

use crate::apps::dist::{dist, Dist, Unit};
use crate::engine::rng::{stream, uniform, Rng};
use crate::error::{SimError, SimResult};
use crate::scenario::fields::{get_str, get_uint, join, keys_ok, required, table};
use crate::scenario::schema;

fn hosts(m: &Map<String, Value>, path: &str) -> SimResult<Vec<String>> {
    let p = join(path, "hosts");
    let v = m.get("hosts").ok_or_else(|| SimError::MissingField {
        field: p.clone(),
        allowed: "a list of host names, e.g. [\"node_0\", \"node_1\"]".into(),
    })?;
    let arr = v
        .as_array()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| SimError::invalid(&p, v, "a non-empty list of host names"))?;
    arr.iter()
        .enumerate()
        .map(|(i, h)| {
            h.as_str()
                .map(str::to_string)
                .ok_or_else(|| SimError::invalid(format!("{p}[{i}]"), h, "a host name"))
        })
        .collect()
}

fn secs(d: &Dist, rng: &mut Rng) -> f64 {
    d.sample(rng).max(0.0)
}

/// The applications the scenario's `[[profiles]]` expand to, each with the path its errors
/// should name (`profiles[i].apps[j]`).
pub fn expand(root: &Map<String, Value>, seed: u64) -> SimResult<Vec<(String, Value)>> {
    let Some(pv) = root.get("profiles") else {
        return Ok(Vec::new());
    };
    let parr = pv
        .as_array()
        .ok_or_else(|| SimError::invalid("profiles", pv, "a list of [[profiles]] tables"))?;
    let mut out = Vec::new();
    for (i, pv) in parr.iter().enumerate() {
        let path = format!("profiles[{i}]");
        let m = table(pv, &path)?;
        keys_ok(m, &path, schema::keys("profiles[]", None))?;
        let name = required(
            get_str(m, &path, "name")?,
            &path,
            "name",
            "the profile's name",
        )?;
        let hosts = hosts(m, &path)?;
        let server = get_str(m, &path, "server")?;
        let offset = match m.get("start") {
            Some(v) => dist(v, &join(&path, "start"), Unit::Seconds)?,
            None => Dist::Constant(0.0),
        };
        let reps = get_uint(m, &path, "repetitions", 1, 100_000)?.unwrap_or(1);
        let gap = match m.get("inter_repetition") {
            Some(v) => dist(v, &join(&path, "inter_repetition"), Unit::Seconds)?,
            None if reps > 1 => {
                return Err(SimError::MissingField {
                    field: join(&path, "inter_repetition"),
                    allowed: "the time between the starts of two repetitions, e.g. \"1h\" or \
                              { dist = \"exponential\", mean = \"30min\" }"
                        .into(),
                })
            }
            None => Dist::Constant(0.0),
        };
        let av = m.get("apps").ok_or_else(|| SimError::MissingField {
            field: join(&path, "apps"),
            allowed: "a list of applications, as [[apps]] without client".into(),
        })?;
        let templates = av.as_array().filter(|a| !a.is_empty()).ok_or_else(|| {
            SimError::invalid(join(&path, "apps"), av, "a non-empty list of applications")
        })?;
        for (j, t) in templates.iter().enumerate() {
            let tp = format!("{path}.apps[{j}]");
            let tm = table(t, &tp)?;
            if let Some(c) = tm.get("client") {
                return Err(SimError::invalid(
                    join(&tp, "client"),
                    c,
                    "no client: the profile's hosts are the clients",
                ));
            }
            if server.is_none() && !tm.contains_key("server") {
                return Err(SimError::MissingField {
                    field: join(&tp, "server"),
                    allowed: "a server, here or in the profile".into(),
                });
            }
        }
        let mut rng = stream(seed, &format!("profile:{name}"));
        for host in &hosts {
            let mut at = secs(&offset, &mut rng);
            for rep in 1..=reps {
                if rep > 1 {
                    at += secs(&gap, &mut rng);
                }
                for (j, t) in templates.iter().enumerate() {
                    let tm = t.as_object().expect("checked above");
                    let label = get_str(tm, &format!("{path}.apps[{j}]"), "name")?
                        .unwrap_or_else(|| format!("app{j}"));
                    let mut app = tm.clone();
                    let own = match tm.get("start") {
                        Some(Value::String(s)) => crate::scenario::units::parse_duration(
                            &format!("{path}.apps[{j}].start"),
                            s,
                        )?
                        .as_secs_f64(),
                        Some(v) => {
                            return Err(SimError::invalid(
                                format!("{path}.apps[{j}].start"),
                                v,
                                "a duration such as \"10s\"",
                            ))
                        }
                        None => 0.0,
                    };
                    let ns = ((at + own) * 1e9).round() as u64;
                    app.insert("name".into(), json!(format!("{name}:{label}:{host}:{rep}")));
                    if !tm.contains_key("group") {
                        app.insert("group".into(), json!(format!("{name}:{label}")));
                    }
                    app.insert("client".into(), json!(host));
                    if !tm.contains_key("server") {
                        app.insert("server".into(), json!(server.clone()));
                    }
                    app.insert("start".into(), json!(format!("{ns}ns")));
                    out.push((format!("{path}.apps[{j}]"), Value::Object(app)));
                }
            }
        }
    }
    Ok(out)
}

/// The keys that make one `ftp` application issue many transfers (OPNET's FTP: inter-request
/// time and command mix).
const FTP_REPEAT_KEYS: [&str; 3] = ["inter_request", "count", "get_fraction"];

/// Whether parsing `scenario` draws from its seed: it has profiles (their hosts' applications
/// and start times) or a repeating `ftp` application (its transfers). Otherwise a parsed
/// scenario takes another seed by its seed field alone.
pub fn draws_from_seed(scenario: &Value) -> bool {
    let repeating_ftp = |a: &Value| {
        a.get("kind").and_then(Value::as_str) == Some("ftp") && a.as_object().is_some_and(repeats)
    };
    scenario.get("profiles").is_some()
        || scenario
            .get("apps")
            .and_then(Value::as_array)
            .is_some_and(|apps| apps.iter().any(repeating_ftp))
}

/// Whether an `ftp` table makes a repeating application: it has `inter_request`, or `count`
/// or `get_fraction` other than its one-transfer default (1). Written with those defaults
/// alone it is the plain application it is without them, as the schema documents.
fn repeats(m: &Map<String, Value>) -> bool {
    m.contains_key("inter_request")
        || m.get("count").is_some_and(|v| v.as_u64() != Some(1))
        || m.get("get_fraction")
            .is_some_and(|v| v.as_f64() != Some(1.0))
}

/// The most transfers one repeating `ftp` application may expand to.
pub const FTP_MAX_TRANSFERS: u64 = 100_000;

/// An `ftp` application with `inter_request`, `count` or `get_fraction`, expanded into one
/// application per transfer, each on its own connection as FTP's data connections are:
/// `<name>:<k>` for k = 1, 2, ..., starting `start`, then every `inter_request` (drawn from
/// the application's own stream `ftp:<name>`, so the same seed gives the same transfers; the
/// get/put draws from `ftp:<name>:mix`; an unnamed one is named by its path) while
/// the start is before `stop_time`, or `count` times (one without `inter_request`). Each transfer is a get (the server sends
/// the file, kind `ftp`) with probability `get_fraction`, else a put (the client sends it,
/// kind `bulk`). None: the application does not repeat (`repeats`) and is left as it is.
pub fn expand_ftp(
    m: &Map<String, Value>,
    path: &str,
    seed: u64,
    stop_time_s: f64,
) -> SimResult<Option<Vec<Value>>> {
    if !repeats(m) {
        return Ok(None);
    }
    let mut count = get_uint(m, path, "count", 1, FTP_MAX_TRANSFERS)?;
    let gap = match m.get("inter_request") {
        Some(v) => Some(dist(v, &join(path, "inter_request"), Unit::Seconds)?),
        // without a gap, one transfer (a get or a put by `get_fraction`)
        None if count.is_none() => {
            count = Some(1);
            None
        }
        None if count > Some(1) => {
            return Err(SimError::MissingField {
                field: join(path, "inter_request"),
                allowed: "the time from one transfer's start to the next's, e.g. \"1h\" or \
                          { dist = \"exponential\", mean = \"360s\" } (or count = 1)"
                    .into(),
            })
        }
        None => None,
    };
    let get_fraction = match m.get("get_fraction") {
        None => 1.0,
        Some(v) => match v.as_f64() {
            Some(x) if (0.0..=1.0).contains(&x) => x,
            _ => {
                return Err(SimError::invalid(
                    join(path, "get_fraction"),
                    v,
                    "a number from 0 (every transfer a put) to 1 (every transfer a get)",
                ))
            }
        },
    };
    let name = get_str(m, path, "name")?.unwrap_or_else(|| path.to_string());
    let start = match m.get("start") {
        Some(Value::String(s)) => {
            crate::scenario::units::parse_duration(&join(path, "start"), s)?.as_secs_f64()
        }
        Some(v) => {
            return Err(SimError::invalid(
                join(path, "start"),
                v,
                "a duration such as \"10s\"",
            ))
        }
        None => 0.0,
    };
    // Gaps and the get/put mix from streams of their own: the transfers' times do not move
    // when only the mix changes.
    let mut rng = stream(seed, &format!("ftp:{name}"));
    let mut mix = stream(seed, &format!("ftp:{name}:mix"));
    let mut at = start;
    let mut out = Vec::new();
    for k in 1..=count.unwrap_or(u64::MAX) {
        if k > 1 {
            at += secs(
                gap.as_ref().expect("checked: count > 1 needs a gap"),
                &mut rng,
            );
        }
        // (the first transfer is kept even past the stop time, as an application that starts
        // too late is, so that its fields are still checked)
        if count.is_none() && k > 1 && at >= stop_time_s {
            break;
        }
        if k > FTP_MAX_TRANSFERS {
            return Err(SimError::invalid(
                join(path, "inter_request"),
                m.get("inter_request").expect("no count: a gap is required"),
                format!(
                    "a gap that gives at most {FTP_MAX_TRANSFERS} transfers before the stop \
                     time (or set count)"
                ),
            ));
        }
        let get = get_fraction >= 1.0 || uniform(&mut mix) < get_fraction;
        let mut app = m.clone();
        for key in FTP_REPEAT_KEYS {
            app.remove(key);
        }
        app.insert("name".into(), json!(format!("{name}:{k}")));
        if !m.contains_key("group") {
            app.insert("group".into(), json!(name));
        }
        app.insert(
            "start".into(),
            json!(format!("{}ns", (at * 1e9).round() as u64)),
        );
        if !get {
            app.insert("kind".into(), json!("bulk"));
            app.remove("request_size");
        }
        if !app.contains_key("port") {
            app.insert("port".into(), json!(21)); // a put is still FTP to a filter
        }
        out.push(Value::Object(app));
    }
    Ok(Some(out))
}
