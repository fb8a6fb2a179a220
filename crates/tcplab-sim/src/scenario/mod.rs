//! Scenario files: TOML (or the same structure as JSON), validated field by field.
//!
//! Every error names the field by its path (`links[1].ab.error.ber`), the value, and what is
//! allowed. Unknown fields are errors, never ignored. A stack profile fills the TCP defaults; any
//! field given overrides it, at scenario level (`[tcp]`) or per application (`[apps.tcp]`).
//!
//! One module per section of the file: [`run`], [`nodes`], [`links`] (with each direction's
//! [`error_model`]), [`tcp`], [`apps`] and [`output`]. Each reads its section with the field
//! helpers of `fields`, the unit parsers of [`units`] and the allowed keys of [`schema`] (the
//! format's field list, which `tcplab schema` and the docs print); [`Scenario::from_value`]
//! reads the sections in turn.

pub mod apps;
pub mod error_model;
pub(crate) mod fields;
pub mod links;
pub mod nodes;
pub mod output;
pub mod routes;
pub mod run;
pub mod schema;
pub mod tcp;
pub mod units;
pub(crate) mod walk;

use std::sync::Arc;

use serde_json::{json, Value};

use crate::apps::profiles;
use crate::error::{SimError, SimResult};
use crate::scenario::apps::AppCfg;
use crate::scenario::fields::{keys_ok, table};
use crate::scenario::links::LinkCfg;
use crate::scenario::nodes::NodeCfg;
use crate::scenario::output::OutputCfg;
use crate::scenario::run::RunCfg;

#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub run: RunCfg,
    pub nodes: Vec<NodeCfg>,
    pub links: Vec<LinkCfg>,
    pub apps: Vec<AppCfg>,
    pub output: OutputCfg,
    /// The scenario as given but for its seed, as compact JSON text, kept for `to_json` (which
    /// writes the seed as set into it) and for parsing again with another seed. Text, not the parsed value: a
    /// value of 10,000 flows takes 32 MB where its text takes 5, and a clone (one per run of a
    /// sweep's point) shares the text instead of copying every map of the value.
    raw: Arc<str>,
    /// Whether parsing the text drew from the seed (see `profiles::draws_from_seed`).
    draws: bool,
}

impl Scenario {
    pub fn from_toml_str(s: &str) -> SimResult<Scenario> {
        let v: toml::Value = toml::from_str(s).map_err(|e| SimError::Parse {
            format: "TOML",
            message: e.to_string().trim().to_string(),
        })?;
        let j = serde_json::to_value(v).map_err(|e| SimError::Parse {
            format: "TOML",
            message: e.to_string(),
        })?;
        Self::from_value(j)
    }

    pub fn from_json_str(s: &str) -> SimResult<Scenario> {
        let j: Value = serde_json::from_str(s).map_err(|e| SimError::Parse {
            format: "JSON",
            message: e.to_string(),
        })?;
        Self::from_value(j)
    }

    /// The scenario as given, with its seed as set, as pretty JSON (same structure as the TOML
    /// file).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.given()).unwrap_or_default()
    }

    /// The scenario as given, with `run.seed` as set.
    fn given(&self) -> Value {
        // The text was written from a value by serde_json: it reads back.
        let mut v: Value = serde_json::from_str(&self.raw).unwrap_or(Value::Null);
        with_seed(&mut v, self.run.seed);
        v
    }

    pub fn seed(&self) -> u64 {
        self.run.seed
    }

    /// Give the scenario another seed: the same as parsing its text with that seed. What parsing
    /// drew from the seed (profiles' hosts and start times, the transfers of a repeating ftp
    /// application) is drawn again by parsing the text again, which can fail with the new draws
    /// (more transfers than allowed, a transfer's name taken): the error is returned and the
    /// scenario is left as it was. Anything else needs only the seed field.
    pub fn set_seed(&mut self, seed: u64) -> SimResult<()> {
        if seed != self.run.seed && self.draws {
            *self = Scenario::from_value_with_seed(self.given(), seed)?;
        } else {
            self.run.seed = seed;
        }
        Ok(())
    }

    /// Parse `v` with its `run.seed` set to `seed` (a `run` table made if there is none).
    pub fn from_value_with_seed(mut v: Value, seed: u64) -> SimResult<Scenario> {
        with_seed(&mut v, seed);
        Scenario::from_value(v)
    }

    /// Read a scenario section by section, each after those it names: the links join nodes, the
    /// applications run on nodes with the `[tcp]` settings under their own, and a filter rule
    /// may name an application.
    pub fn from_value(mut v: Value) -> SimResult<Scenario> {
        let root = table(&v, "scenario")?;
        keys_ok(root, "", schema::keys("", None))?;
        let run = run::parse(root)?;
        let mut nodes = nodes::parse(root)?;
        let links = links::parse(root, &nodes)?;
        let tcp_base = tcp::parse(root)?;
        let apps = apps::parse(root, &run, &nodes, tcp_base)?;
        let app_names: Vec<&str> = apps.iter().map(|a| a.name.as_str()).collect();
        nodes.resolve_rules(&app_names)?;
        let output = output::parse(root)?;
        let draws = profiles::draws_from_seed(&v);
        // The seed is `run.seed`'s: two scenarios that differ by their seed alone keep the same
        // text (and compare equal once given the same seed).
        if let Some(run) = v.get_mut("run").and_then(Value::as_object_mut) {
            run.remove("seed");
        }
        Ok(Scenario {
            run,
            nodes: nodes.list,
            links,
            apps,
            output,
            raw: serde_json::to_string(&v).unwrap_or_default().into(),
            draws,
        })
    }
}

/// Set `run.seed` in a scenario's value (a `run` table made if there is none).
fn with_seed(v: &mut Value, seed: u64) {
    if let Some(root) = v.as_object_mut() {
        let run = root.entry("run").or_insert_with(|| json!({}));
        if let Some(run) = run.as_object_mut() {
            run.insert("seed".into(), json!(seed));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_whose_draws_do_not_parse_is_refused_and_changes_nothing() {
        // Seed 1 draws three transfers (f:1 to f:3); seed 2 draws a fourth, whose name another
        // application has.
        let text = |seed: u64| {
            serde_json::json!({
                "run": {"seed": seed, "stop_time": "30s"},
                "nodes": [{"name": "c"}, {"name": "s"}],
                "links": [{"name": "l", "a": "c", "b": "s", "rate": "10Mbps"}],
                "apps": [{"name": "f", "kind": "ftp", "client": "c", "server": "s",
                          "size": "20kB",
                          "inter_request": {"dist": "exponential", "mean": "10s"}},
                         {"name": "f:4", "kind": "bulk", "client": "c", "server": "s",
                          "size": "1kB"}],
            })
            .to_string()
        };
        let one = Scenario::from_json_str(&text(1)).unwrap();
        let err = Scenario::from_json_str(&text(2)).unwrap_err();
        let mut sc = one.clone();
        assert_eq!(sc.set_seed(2).unwrap_err(), err);
        assert_eq!(sc, one);
        // Without a run table, the seed is put in one.
        let mut v: Value = serde_json::from_str(&text(1)).unwrap();
        v.as_object_mut().unwrap().remove("run");
        v["apps"].as_array_mut().unwrap().truncate(1);
        let sc = Scenario::from_value_with_seed(v, 3).unwrap();
        assert_eq!(sc.seed(), 3);
    }

    #[test]
    fn a_new_seed_draws_again_what_parsing_drew_from_the_seed() {
        // A repeating ftp application is expanded into transfers at times drawn from the seed:
        // setting the seed after parsing gives what parsing with that seed gives.
        let text = |seed: u64| {
            serde_json::json!({
                "run": {"seed": seed, "stop_time": "600s"},
                "nodes": [{"name": "c"}, {"name": "s"}],
                "links": [{"name": "l", "a": "c", "b": "s", "rate": "10Mbps"}],
                "apps": [{"name": "f", "kind": "ftp", "client": "c", "server": "s",
                          "size": "10kB", "count": 4,
                          "inter_request": {"dist": "exponential", "mean": "30s"}}],
            })
            .to_string()
        };
        let mut sc = Scenario::from_json_str(&text(1)).unwrap();
        let direct = Scenario::from_json_str(&text(2)).unwrap();
        assert_ne!(format!("{:?}", sc.apps), format!("{:?}", direct.apps));
        sc.set_seed(2).unwrap();
        assert_eq!(sc, direct);
        // Without draws at parse time, the seed field alone: the same scenario all the same.
        let plain = |seed: u64| {
            text(seed).replace(r#""count":4,"#, "").replace(
                r#","inter_request":{"dist":"exponential","mean":"30s"}"#,
                "",
            )
        };
        assert!(!plain(1).contains("inter_request"), "{}", plain(1));
        let mut sc = Scenario::from_json_str(&plain(1)).unwrap();
        sc.set_seed(2).unwrap();
        assert_eq!(sc, Scenario::from_json_str(&plain(2)).unwrap());
    }

    pub(super) const BASE: &str = r#"
[run]
seed = 3
[[nodes]]
name = "c"
[[nodes]]
name = "s"
[[links]]
a = "c"
b = "s"
rate = "10Mbps"
delay = "10ms"
[[apps]]
kind = "ftp"
client = "c"
server = "s"
size = "1MB"
"#;

    pub(super) fn err(extra: &str) -> String {
        Scenario::from_toml_str(&format!("{BASE}{extra}"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn minimal_scenario_parses_with_rfc_defaults() {
        let s = Scenario::from_toml_str(BASE).unwrap();
        assert_eq!(s.run.seed, 3);
        assert_eq!(s.links[0].dirs[0].rate_bps, 10_000_000);
        assert_eq!(s.apps[0].profile, "rfc");
        assert_eq!(s.apps[0].tcp.initial_cwnd, 3);
        assert_eq!(s.apps[0].tcp.congestion_control, "reno");
    }

    #[test]
    fn errors_name_field_value_and_allowed() {
        let e = Scenario::from_toml_str(&BASE.replace("10Mbps", "-10Mbps"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("links[0].rate") && e.contains("-10Mbps") && e.contains("bit rate"),
            "{e}"
        );
        let e = err("[links.ab]\nerror = { model = \"ber\", ber = 2.0 }\n");
        // [links.ab] after [[apps]] attaches to... TOML puts it on the last links entry.
        assert!(e.contains("ber") && e.contains("between 0 and 1"), "{e}");
        let e = err("[tcp]\nmsss = 1460\n");
        assert!(
            e.contains("tcp.msss") && e.contains("unknown field") && e.contains("mss"),
            "{e}"
        );
        let e = Scenario::from_toml_str("[run\nseed=1").unwrap_err();
        assert_eq!(e.kind(), "parse");
        let e = err("[tcp]\ncongestion_control = \"warp\"\n");
        assert!(
            e.contains("tcp.congestion_control") && e.contains("\"warp\"") && e.contains("reno"),
            "{e}"
        );
    }

    #[test]
    fn json_round_trip_is_identical() {
        let s = Scenario::from_toml_str(BASE).unwrap();
        let t = Scenario::from_json_str(&s.to_json()).unwrap();
        assert_eq!(s, t);
    }
}
