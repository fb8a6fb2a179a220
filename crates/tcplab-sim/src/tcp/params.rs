//! Plug-in parameters: `[tcp] cc_params = { ... }` and `[tcp] lr_params = { ... }`.
//!
//! Each plug-in's `Config` implements [`Tunable`]: one `walk` that names every parameter with
//! its type and allowed range and points at the `Config` field it sets. The same walk serves
//! every purpose, so a plug-in declares its parameters in one place:
//!
//! - scenario load: the table as written (JSON values: numbers, booleans, strings with units)
//!   is parsed and checked into typed [`Params`] (unknown names and out-of-range values are
//!   errors naming the field, `tcp.cc_params.tau`);
//! - construction (once per connection): the typed `Params` set the fields of a default
//!   `Config`;
//! - reports: the walk lists every parameter with its value (defaults filled in), for
//!   `describe` and `tcplab variants`.
//!
//! Value types: numbers (a fraction in [0, 1] may also be written as a percentage, "70%"),
//! whole numbers, booleans, durations with a unit ("500ms", as everywhere in a scenario) and
//! choices among names.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::scenario::units::{parse_duration, parse_probability};

/// One parsed parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    Number(f64),
    Integer(u64),
    Bool(bool),
    Duration(Dur),
    Choice(String),
}

/// Parsed parameters by name, in name order (what a `TcpConfig` carries).
pub type Params = BTreeMap<String, ParamValue>;

/// A parameter's type and allowed values.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A number in [lo, hi], either end open if its flag says so.
    Number {
        lo: f64,
        hi: f64,
        lo_open: bool,
        hi_open: bool,
    },
    Integer {
        lo: u64,
        hi: u64,
    },
    Bool,
    Duration {
        lo: Dur,
        hi: Dur,
    },
    Choice(Vec<&'static str>),
}

/// Number ranges for [`Walk::number`]: closed, or open at either end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// [lo, hi]
    Closed(f64, f64),
    /// (lo, hi]
    OpenLo(f64, f64),
    /// [lo, hi)
    OpenHi(f64, f64),
    /// (lo, hi)
    Open(f64, f64),
}

impl Kind {
    fn number(r: Range) -> Kind {
        let (lo, hi, lo_open, hi_open) = match r {
            Range::Closed(a, b) => (a, b, false, false),
            Range::OpenLo(a, b) => (a, b, true, false),
            Range::OpenHi(a, b) => (a, b, false, true),
            Range::Open(a, b) => (a, b, true, true),
        };
        Kind::Number {
            lo,
            hi,
            lo_open,
            hi_open,
        }
    }

    /// A short type name ("number", "integer", "bool", "duration", "choice").
    pub fn type_name(&self) -> &'static str {
        match self {
            Kind::Number { .. } => "number",
            Kind::Integer { .. } => "integer",
            Kind::Bool => "bool",
            Kind::Duration { .. } => "duration",
            Kind::Choice(_) => "choice",
        }
    }

    /// Fractions (ranges within [0, 1]) may be written as percentages.
    fn is_fraction(&self) -> bool {
        matches!(self, Kind::Number { lo, hi, .. } if *lo >= 0.0 && *hi <= 1.0)
    }

    /// What is allowed, for error messages and listings.
    pub fn allowed(&self) -> String {
        match self {
            Kind::Number {
                lo,
                hi,
                lo_open,
                hi_open,
            } => {
                let range = format!(
                    "a number in {}{lo}, {hi}{}",
                    if *lo_open { "(" } else { "[" },
                    if *hi_open { ")" } else { "]" }
                );
                if self.is_fraction() {
                    format!("{range}, or a percentage such as \"50%\"")
                } else {
                    range
                }
            }
            Kind::Integer { lo, hi } => format!("a whole number from {lo} to {hi}"),
            Kind::Bool => "true or false".into(),
            Kind::Duration { lo, hi } => format!(
                "a duration with a unit from {} to {}, such as \"500ms\"",
                dur_text(*lo),
                dur_text(*hi)
            ),
            Kind::Choice(names) => format!(
                "one of: {}",
                names
                    .iter()
                    .map(|n| format!("{n:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// Whether a typed value has this kind and lies in its range.
    fn admits(&self, v: &ParamValue) -> bool {
        match (self, v) {
            (
                Kind::Number {
                    lo,
                    hi,
                    lo_open,
                    hi_open,
                },
                ParamValue::Number(x),
            ) => {
                x.is_finite()
                    && if *lo_open { x > lo } else { x >= lo }
                    && if *hi_open { x < hi } else { x <= hi }
            }
            (Kind::Integer { lo, hi }, ParamValue::Integer(n)) => (lo..=hi).contains(&n),
            (Kind::Bool, ParamValue::Bool(_)) => true,
            (Kind::Duration { lo, hi }, ParamValue::Duration(d)) => (lo..=hi).contains(&d),
            (Kind::Choice(names), ParamValue::Choice(s)) => names.contains(&s.as_str()),
            _ => false,
        }
    }

    /// The typed value of a scenario value, if it has the right type (the range is checked
    /// by `admits`).
    fn parse(&self, v: &Value) -> Option<ParamValue> {
        match (self, v) {
            (Kind::Number { .. }, Value::Number(n)) => n.as_f64().map(ParamValue::Number),
            (Kind::Number { .. }, Value::String(s)) if self.is_fraction() => {
                parse_probability("", s).ok().map(ParamValue::Number)
            }
            (Kind::Integer { .. }, Value::Number(n)) => n.as_u64().map(ParamValue::Integer),
            (Kind::Bool, Value::Bool(b)) => Some(ParamValue::Bool(*b)),
            (Kind::Duration { .. }, Value::String(s)) => {
                parse_duration("", s).ok().map(ParamValue::Duration)
            }
            (Kind::Choice(_), Value::String(s)) => Some(ParamValue::Choice(s.clone())),
            _ => None,
        }
    }
}

/// A duration as a scenario writes it ("1s", "500ms", "250us").
pub fn dur_text(d: Dur) -> String {
    let ns = d.0;
    if ns == 0 {
        "0s".into()
    } else if ns.is_multiple_of(1_000_000_000) {
        format!("{}s", ns / 1_000_000_000)
    } else if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1_000) {
        format!("{}us", ns / 1_000)
    } else {
        format!("{ns}ns")
    }
}

impl ParamValue {
    /// The value as a scenario would write it (durations as "500ms").
    pub fn to_scenario_json(&self) -> Value {
        match self {
            ParamValue::Number(x) => json!(x),
            ParamValue::Integer(n) => json!(n),
            ParamValue::Bool(b) => json!(b),
            ParamValue::Duration(d) => json!(dur_text(*d)),
            ParamValue::Choice(s) => json!(s),
        }
    }
}

/// One parameter of a plug-in, with its value (the default, or as resolved for a scenario).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    pub name: &'static str,
    pub kind: Kind,
    pub value: ParamValue,
}

impl ParamInfo {
    /// `{"name", "type", "default", "allowed"}` for `tcplab variants`.
    pub fn listing_json(&self) -> Value {
        json!({
            "name": self.name,
            "type": self.kind.type_name(),
            "default": self.value.to_scenario_json(),
            "allowed": self.kind.allowed(),
        })
    }
}

/// The resolved parameters as `describe` reports them: SI units, durations in seconds under
/// the name with `_s` appended (as the other resolved TCP settings).
pub fn describe_json(list: &[ParamInfo]) -> Value {
    let mut m = Map::new();
    for p in list {
        match &p.value {
            ParamValue::Duration(d) => m.insert(format!("{}_s", p.name), json!(d.as_secs_f64())),
            v => m.insert(p.name.to_string(), v.to_scenario_json()),
        };
    }
    Value::Object(m)
}

/// A plug-in configuration whose fields scenarios may set.
pub trait Tunable: Default {
    /// Name every parameter, in a fixed order, with the field it sets (the `Walk` methods).
    fn walk(&mut self, w: &mut Walk<'_>);

    /// Checks across parameters once every value is set (`Walk::invalid` names the field).
    fn check(&self, _w: &Walk<'_>) -> SimResult<()> {
        Ok(())
    }
}

/// Plug-ins without parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoParams;

impl Tunable for NoParams {
    fn walk(&mut self, _w: &mut Walk<'_>) {}
}

enum Input<'a> {
    /// The scenario's table as written.
    Raw(&'a Map<String, Value>),
    /// Parameters parsed before.
    Typed(&'a Params),
}

/// A walk over one plug-in's parameters: reads the given values into the `Config`, collects
/// the parsed values and the resolved list, and remembers the first error.
pub struct Walk<'a> {
    input: Input<'a>,
    /// The table's path, e.g. `tcp.cc_params`.
    path: &'a str,
    /// The plug-in's name, for messages.
    plugin: &'a str,
    /// What kind of plug-in: "congestion control" or "loss recovery".
    family: &'static str,
    parsed: Params,
    listed: Vec<ParamInfo>,
    error: Option<SimError>,
}

impl<'a> Walk<'a> {
    /// A walk over the table as the scenario writes it.
    pub fn raw(
        table: &'a Map<String, Value>,
        path: &'a str,
        plugin: &'a str,
        family: &'static str,
    ) -> Self {
        Self::new(Input::Raw(table), path, plugin, family)
    }

    /// A walk over parameters parsed before (or none: `&Params::new()` gives the defaults).
    pub fn typed(params: &'a Params, path: &'a str, plugin: &'a str, family: &'static str) -> Self {
        Self::new(Input::Typed(params), path, plugin, family)
    }

    fn new(input: Input<'a>, path: &'a str, plugin: &'a str, family: &'static str) -> Self {
        Walk {
            input,
            path,
            plugin,
            family,
            parsed: Params::new(),
            listed: Vec::new(),
            error: None,
        }
    }

    /// The `Config` with the given parameters set over its defaults, checked.
    pub fn config<C: Tunable>(&mut self) -> SimResult<C> {
        let mut c = C::default();
        c.walk(self);
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let given: Vec<String> = match self.input {
            Input::Raw(m) => m.keys().cloned().collect(),
            Input::Typed(p) => p.keys().cloned().collect(),
        };
        for k in given {
            if !self.listed.iter().any(|p| p.name == k) {
                return Err(self.unknown(&k));
            }
        }
        c.check(self)?;
        Ok(c)
    }

    /// The parameters given, parsed (after `config`).
    pub fn into_parsed(self) -> Params {
        self.parsed
    }

    /// Every parameter with its resolved value (after `config`).
    pub fn into_listed(self) -> Vec<ParamInfo> {
        self.listed
    }

    /// The field path of a parameter.
    pub fn field(&self, name: &str) -> String {
        format!("{}.{name}", self.path)
    }

    /// An invalid-value error for a parameter (for `Tunable::check`).
    pub fn invalid(
        &self,
        name: &str,
        value: impl ToString,
        allowed: impl Into<String>,
    ) -> SimError {
        SimError::invalid(self.field(name), value, allowed)
    }

    fn names(&self) -> String {
        if self.listed.is_empty() {
            format!("none ({} {} has no parameters)", self.family, self.plugin)
        } else {
            format!(
                "{} (the parameters of {} {})",
                self.listed
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", "),
                self.family,
                self.plugin
            )
        }
    }

    fn unknown(&self, name: &str) -> SimError {
        SimError::UnknownField {
            field: self.field(name),
            allowed: self.names(),
        }
    }

    /// Declare one parameter; returns the value given for it, if any and valid.
    fn slot(&mut self, name: &'static str, kind: Kind) -> Option<ParamValue> {
        if self.error.is_some() {
            return None;
        }
        let given = match self.input {
            Input::Raw(m) => m.get(name).map(|v| (kind.parse(v), v.to_string())),
            Input::Typed(p) => p
                .get(name)
                .map(|v| (Some(v.clone()), v.to_scenario_json().to_string())),
        };
        let (value, text) = given?;
        match value {
            Some(v) if kind.admits(&v) => {
                self.parsed.insert(name.to_string(), v.clone());
                Some(v)
            }
            _ => {
                self.error = Some(SimError::invalid(
                    self.field(name),
                    text,
                    format!(
                        "{} ({} of {} {})",
                        kind.allowed(),
                        name,
                        self.family,
                        self.plugin
                    ),
                ));
                None
            }
        }
    }

    fn list(&mut self, name: &'static str, kind: Kind, value: ParamValue) {
        self.listed.push(ParamInfo { name, kind, value });
    }

    /// A real number in `range`.
    pub fn number(&mut self, name: &'static str, field: &mut f64, range: Range) {
        let kind = Kind::number(range);
        if let Some(ParamValue::Number(x)) = self.slot(name, kind.clone()) {
            *field = x;
        }
        self.list(name, kind, ParamValue::Number(*field));
    }

    /// A whole number from `lo` to `hi`.
    pub fn integer(&mut self, name: &'static str, field: &mut u64, lo: u64, hi: u64) {
        let kind = Kind::Integer { lo, hi };
        if let Some(ParamValue::Integer(n)) = self.slot(name, kind.clone()) {
            *field = n;
        }
        self.list(name, kind, ParamValue::Integer(*field));
    }

    /// A boolean.
    pub fn flag(&mut self, name: &'static str, field: &mut bool) {
        if let Some(ParamValue::Bool(b)) = self.slot(name, Kind::Bool) {
            *field = b;
        }
        self.list(name, Kind::Bool, ParamValue::Bool(*field));
    }

    /// A duration from `lo` to `hi`.
    pub fn duration(&mut self, name: &'static str, field: &mut Dur, lo: Dur, hi: Dur) {
        let kind = Kind::Duration { lo, hi };
        if let Some(ParamValue::Duration(d)) = self.slot(name, kind.clone()) {
            *field = d;
        }
        self.list(name, kind, ParamValue::Duration(*field));
    }

    /// One of several named values.
    pub fn choice<T: Copy + PartialEq>(
        &mut self,
        name: &'static str,
        field: &mut T,
        options: &[(&'static str, T)],
    ) {
        let kind = Kind::Choice(options.iter().map(|o| o.0).collect());
        if let Some(ParamValue::Choice(s)) = self.slot(name, kind.clone()) {
            if let Some(o) = options.iter().find(|o| o.0 == s) {
                *field = o.1;
            }
        }
        let current = options.iter().find(|o| o.1 == *field).map_or("?", |o| o.0);
        self.list(name, kind, ParamValue::Choice(current.to_string()));
    }
}

/// One kind of plug-in (congestion control, loss recovery): its name for messages, the
/// default name of its parameter table and the one function that maps a plug-in name to its
/// `Config` and constructor (`dispatch`: the walk reads the parameters into the `Config`; None
/// for an unknown name). Building, parsing and listing parameters all go through `dispatch`.
pub struct Family<P: ?Sized> {
    /// "congestion control" or "loss recovery".
    pub name: &'static str,
    /// The parameter table's path for the defaults ("cc_params", "lr_params").
    pub table: &'static str,
    pub dispatch: fn(&str, &mut Walk<'_>) -> Option<SimResult<Box<P>>>,
}

impl<P: ?Sized> Family<P> {
    fn run(&self, name: &str, w: &mut Walk<'_>) -> SimResult<Box<P>> {
        (self.dispatch)(name, w).unwrap_or_else(|| {
            Err(SimError::Internal(format!(
                "unknown {} {name:?}",
                self.name
            )))
        })
    }

    /// The plug-in `name` with its default parameters; None for an unknown name.
    pub fn by_name(&self, name: &str) -> Option<Box<P>> {
        self.build(name, &Params::new(), self.table).ok()
    }

    /// The plug-in `name` with `params` (parsed by `parse_params`) over its defaults. Once
    /// per connection; `path` names the parameter table in errors.
    pub fn build(&self, name: &str, params: &Params, path: &str) -> SimResult<Box<P>> {
        let mut w = Walk::typed(params, path, name, self.name);
        self.run(name, &mut w)
    }

    /// Parse and check a scenario's parameter table for the plug-in `name`, by constructing
    /// it. Errors name the field (`path.param`), the value and what is allowed.
    pub fn parse_params(
        &self,
        name: &str,
        table: &Map<String, Value>,
        path: &str,
    ) -> SimResult<Params> {
        let mut w = Walk::raw(table, path, name, self.name);
        self.run(name, &mut w)?;
        Ok(w.into_parsed())
    }

    /// Every parameter of `name` with its value under `params` (defaults filled in).
    pub fn resolved_params(
        &self,
        name: &str,
        params: &Params,
        path: &str,
    ) -> SimResult<Vec<ParamInfo>> {
        let mut w = Walk::typed(params, path, name, self.name);
        self.run(name, &mut w)?;
        Ok(w.into_listed())
    }

    /// Every parameter of `name` with its default (empty for an unknown name).
    pub fn default_params(&self, name: &str) -> Vec<ParamInfo> {
        self.resolved_params(name, &Params::new(), self.table)
            .unwrap_or_default()
    }
}

/// The `[tcp] cc_params` / `lr_params` value as a table, or an error naming the field.
pub fn as_table<'v>(v: &'v Value, path: &str) -> SimResult<&'v Map<String, Value>> {
    v.as_object().ok_or_else(|| {
        SimError::invalid(
            path,
            v,
            "a table of parameters, such as { tau = \"500ms\" } (see `tcplab variants --json`)",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    struct Demo {
        beta: f64,
        rounds: u64,
        on: bool,
        tau: Dur,
        mode: u8,
    }

    impl Default for Demo {
        fn default() -> Self {
            Demo {
                beta: 0.7,
                rounds: 10,
                on: true,
                tau: Dur::from_secs(1),
                mode: 1,
            }
        }
    }

    impl Tunable for Demo {
        fn walk(&mut self, w: &mut Walk<'_>) {
            w.number("beta", &mut self.beta, Range::Open(0.0, 1.0));
            w.integer("rounds", &mut self.rounds, 1, 100);
            w.flag("on", &mut self.on);
            w.duration(
                "tau",
                &mut self.tau,
                Dur::from_millis(1),
                Dur::from_secs(100),
            );
            w.choice("mode", &mut self.mode, &[("a", 1), ("b", 2)]);
        }
    }

    fn raw(v: Value) -> SimResult<(Demo, Params)> {
        let m = v.as_object().unwrap().clone();
        let mut w = Walk::raw(&m, "tcp.cc_params", "demo", "congestion control");
        let c = w.config::<Demo>()?;
        Ok((c, w.into_parsed()))
    }

    #[test]
    fn parses_every_kind_and_round_trips_typed() {
        let (c, p) = raw(
            json!({"beta": "50%", "rounds": 3, "on": false, "tau": "500ms",
            "mode": "b"}),
        )
        .unwrap();
        assert_eq!(
            c,
            Demo {
                beta: 0.5,
                rounds: 3,
                on: false,
                tau: Dur::from_millis(500),
                mode: 2
            }
        );
        let mut w = Walk::typed(&p, "tcp.cc_params", "demo", "congestion control");
        assert_eq!(w.config::<Demo>().unwrap(), c);
        let listed = w.into_listed();
        assert_eq!(listed.len(), 5);
        assert_eq!(
            describe_json(&listed),
            json!({"beta": 0.5, "rounds": 3, "on": false, "tau_s": 0.5, "mode": "b"})
        );
    }

    #[test]
    fn defaults_without_parameters() {
        let (c, p) = raw(json!({})).unwrap();
        assert_eq!(c, Demo::default());
        assert!(p.is_empty());
    }

    #[test]
    fn errors_name_field_value_and_allowed() {
        let e = raw(json!({"taux": "1s"})).unwrap_err();
        assert_eq!(e.kind(), "unknown_field");
        let s = e.to_string();
        assert!(
            s.contains("tcp.cc_params.taux") && s.contains("beta, rounds, on, tau, mode"),
            "{s}"
        );
        for (v, want) in [
            (json!({"beta": 1.0}), "(0, 1)"),
            (json!({"beta": "x"}), "percentage"),
            (json!({"rounds": 0}), "from 1 to 100"),
            (json!({"rounds": 2.5}), "whole number"),
            (json!({"on": 1}), "true or false"),
            (json!({"tau": "0.5"}), "from 1ms to 100s"),
            (json!({"tau": "200s"}), "from 1ms to 100s"),
            (json!({"mode": "c"}), "\"a\", \"b\""),
        ] {
            let e = raw(v.clone()).unwrap_err();
            assert_eq!(e.kind(), "invalid_value", "{v}");
            let s = e.to_string();
            let key = v.as_object().unwrap().keys().next().unwrap().clone();
            assert!(
                s.contains(&format!("tcp.cc_params.{key}")) && s.contains(want),
                "{s}"
            );
        }
    }

    #[test]
    fn no_params_refuses_any() {
        let m = json!({"x": 1}).as_object().unwrap().clone();
        let mut w = Walk::raw(&m, "tcp.cc_params", "reno", "congestion control");
        let s = w.config::<NoParams>().unwrap_err().to_string();
        assert!(
            s.contains("tcp.cc_params.x") && s.contains("reno has no parameters"),
            "{s}"
        );
    }
}
