//! Declared fields: a settings struct that a scenario fills (`TcpConfig`, `Ns2Rules`) names each
//! of its fields once, in its `Fields::walk`, with the field's kind, its range and its
//! documentation. Everything that needs the list of fields reads that one declaration through a
//! [`Visitor`]:
//!
//! - parsing ([`Parse`]): the scenario's table over the values a profile gave, each value checked
//!   with the same helpers and messages as every other section's fields;
//! - `describe` (`describe.rs`): the resolved values as JSON, in SI units;
//! - `tcplab schema` and the docs (`schema.rs`): one row per field.
//!
//! So a new field is one line in its struct's `walk` (and its value in each profile), never a
//! parser arm, a schema row and a describe entry kept in step by hand.

use serde_json::{Map, Value};

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::scenario::fields::{
    get_bool, get_dur, get_f64, get_rate, get_size, get_str, get_uint, join, keys_ok,
};

/// A size or threshold at or above this is "unlimited" (profiles use `u64::MAX / 4`).
pub const UNLIMITED: u64 = u64::MAX / 8;

/// A settings struct whose fields a scenario sets.
pub trait Fields {
    /// Name every field, in the order the docs list them, with the place it is stored.
    fn walk<V: Visitor>(&mut self, v: &mut V);
}

/// A whole-number field type.
pub trait Int: Copy + TryFrom<u64> + Into<u64> {}
impl Int for u32 {}
impl Int for u64 {}

/// One field's documentation, as `tcplab schema` and the docs print it. The walk's methods
/// return it to be filled in; the kind's own text stands where a field says nothing.
#[derive(Clone, Debug, Default)]
pub struct Doc {
    pub kind: &'static str,
    pub unit: &'static str,
    pub default: &'static str,
    pub allowed: Option<&'static str>,
    /// What the kind allows, when the field does not say it in its own words.
    pub kind_allowed: String,
    pub doc: &'static str,
    pub example: &'static str,
}

impl Doc {
    pub fn new(kind: &'static str, unit: &'static str, kind_allowed: String) -> Doc {
        Doc {
            kind,
            unit,
            default: "profile",
            allowed: None,
            kind_allowed,
            doc: "",
            example: "",
        }
    }

    /// The unit a bare number means.
    pub fn unit(&mut self, unit: &'static str) -> &mut Self {
        self.unit = unit;
        self
    }

    /// The default as a scenario writes it ("profile" unless said: the profile decides).
    pub fn default_value(&mut self, default: &'static str) -> &mut Self {
        self.default = default;
        self
    }

    /// What is allowed, in words, where the kind's own text says too little.
    pub fn allowed(&mut self, allowed: &'static str) -> &mut Self {
        self.allowed = Some(allowed);
        self
    }

    /// What the field does.
    pub fn doc(&mut self, doc: &'static str) -> &mut Self {
        self.doc = doc;
        self
    }

    /// A valid value, as TOML (the docs show it and the tests parse it).
    pub fn example(&mut self, example: &'static str) -> &mut Self {
        self.example = example;
        self
    }

    /// What is allowed, as the schema prints it.
    pub fn allowed_text(&self) -> String {
        self.allowed
            .map_or_else(|| self.kind_allowed.clone(), str::to_string)
    }
}

/// The options of a choice with what each means, for an error: `"a" (..), "b" (..) or "c" (..)`.
pub fn choices_text<T>(options: &[(&'static str, T, &'static str)]) -> String {
    let each: Vec<String> = options
        .iter()
        .map(|(name, _, what)| format!("{name:?} ({what})"))
        .collect();
    match each.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => each.join(""),
    }
}

/// The kinds of field a walk declares. Each method stores nothing itself: it reads or writes
/// `field` as the visitor's purpose needs, and returns the field's documentation to fill in.
pub trait Visitor {
    /// A whole number from `lo` to `hi`.
    fn integer<T: Int>(&mut self, key: &'static str, field: &mut T, lo: u64, hi: u64) -> &mut Doc;
    /// A real number from `lo` to `hi`.
    fn number(&mut self, key: &'static str, field: &mut f64, lo: f64, hi: f64) -> &mut Doc;
    /// true or false.
    fn flag(&mut self, key: &'static str, field: &mut bool) -> &mut Doc;
    /// A size in bytes ("64KB" or a number); at or above [`UNLIMITED`] it is unlimited.
    fn size(&mut self, key: &'static str, field: &mut u64) -> &mut Doc;
    /// A size, or "inf" / "unlimited" (stored as `u64::MAX / 4`).
    fn size_or_inf(&mut self, key: &'static str, field: &mut u64) -> &mut Doc;
    /// A duration with its unit.
    fn duration(&mut self, key: &'static str, field: &mut Dur) -> &mut Doc;
    /// A bit rate, or "inf" / "unlimited" (None); stored in bytes per second.
    fn rate_or_inf(&mut self, key: &'static str, field: &mut Option<f64>) -> &mut Doc;
    /// One of `options`: (name, value, what it means).
    fn choice<T: Copy + PartialEq>(
        &mut self,
        key: &'static str,
        field: &mut T,
        options: &[(&'static str, T, &'static str)],
    ) -> &mut Doc;
    /// A name, checked by the owner once every field is read (a plug-in's name).
    fn name(&mut self, key: &'static str, field: &mut String) -> &mut Doc;
    /// A table of fields of its own (`[tcp.ns2]`).
    fn table<F: Fields>(&mut self, key: &'static str, field: &mut F) -> &mut Doc;
    /// A field its owner reads and reports itself (a profile's name, a plug-in's parameters):
    /// only documented here. `kind` as the schema names it.
    fn other(&mut self, key: &'static str, kind: &'static str) -> &mut Doc;
}

/// Parse a scenario table over the values already in the struct: each field given is read and
/// checked; fields not given keep their value. The first error wins.
pub struct Parse<'a> {
    m: &'a Map<String, Value>,
    path: String,
    error: Option<SimError>,
    doc: Doc,
}

impl<'a> Parse<'a> {
    /// Read `m` (the table at `path`) into `fields`; unknown keys are errors naming the
    /// allowed ones.
    pub fn apply<F: Fields>(
        fields: &mut F,
        m: &'a Map<String, Value>,
        path: &str,
    ) -> SimResult<()> {
        keys_ok(m, path, &keys(fields))?;
        let mut p = Parse {
            m,
            path: path.to_string(),
            error: None,
            doc: Doc::default(),
        };
        fields.walk(&mut p);
        match p.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Run `read` for a given key unless an error was already found.
    fn read<T>(
        &mut self,
        key: &str,
        read: impl FnOnce(&Self) -> SimResult<Option<T>>,
    ) -> Option<T> {
        if self.error.is_some() || !self.m.contains_key(key) {
            return None;
        }
        match read(self) {
            Ok(v) => v,
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }

    fn invalid(&mut self, key: &str, value: impl ToString, allowed: impl Into<String>) {
        self.error = Some(SimError::invalid(join(&self.path, key), value, allowed));
    }

    fn is_inf(&self, key: &str) -> bool {
        matches!(self.m.get(key), Some(Value::String(s)) if s == "inf" || s == "unlimited")
    }
}

impl Visitor for Parse<'_> {
    fn integer<T: Int>(&mut self, key: &'static str, field: &mut T, lo: u64, hi: u64) -> &mut Doc {
        if let Some(n) = self.read(key, |p| get_uint(p.m, &p.path, key, lo, hi)) {
            match T::try_from(n) {
                Ok(v) => *field = v,
                Err(_) => self.invalid(key, n, format!("a whole number from {lo} to {hi}")),
            }
        }
        &mut self.doc
    }

    fn number(&mut self, key: &'static str, field: &mut f64, lo: f64, hi: f64) -> &mut Doc {
        if let Some(x) = self.read(key, |p| get_f64(p.m, &p.path, key, lo, hi)) {
            *field = x;
        }
        &mut self.doc
    }

    fn flag(&mut self, key: &'static str, field: &mut bool) -> &mut Doc {
        if let Some(b) = self.read(key, |p| get_bool(p.m, &p.path, key)) {
            *field = b;
        }
        &mut self.doc
    }

    fn size(&mut self, key: &'static str, field: &mut u64) -> &mut Doc {
        if let Some(n) = self.read(key, |p| get_size(p.m, &p.path, key)) {
            *field = n;
        }
        &mut self.doc
    }

    fn size_or_inf(&mut self, key: &'static str, field: &mut u64) -> &mut Doc {
        if self.is_inf(key) {
            *field = u64::MAX / 4;
        } else if let Some(n) = self.read(key, |p| get_size(p.m, &p.path, key)) {
            *field = n;
        }
        &mut self.doc
    }

    fn duration(&mut self, key: &'static str, field: &mut Dur) -> &mut Doc {
        if let Some(d) = self.read(key, |p| get_dur(p.m, &p.path, key)) {
            *field = d;
        }
        &mut self.doc
    }

    fn rate_or_inf(&mut self, key: &'static str, field: &mut Option<f64>) -> &mut Doc {
        if self.is_inf(key) {
            *field = None;
        } else if let Some(bps) = self.read(key, |p| get_rate(p.m, &p.path, key)) {
            *field = Some(bps as f64 / 8.0);
        }
        &mut self.doc
    }

    fn choice<T: Copy + PartialEq>(
        &mut self,
        key: &'static str,
        field: &mut T,
        options: &[(&'static str, T, &'static str)],
    ) -> &mut Doc {
        if let Some(s) = self.read(key, |p| get_str(p.m, &p.path, key)) {
            match options.iter().find(|o| o.0 == s) {
                Some(o) => *field = o.1,
                None => self.invalid(key, format!("{s:?}"), choices_text(options)),
            }
        }
        &mut self.doc
    }

    fn name(&mut self, key: &'static str, field: &mut String) -> &mut Doc {
        if let Some(s) = self.read(key, |p| get_str(p.m, &p.path, key)) {
            *field = s;
        }
        &mut self.doc
    }

    fn table<F: Fields>(&mut self, key: &'static str, field: &mut F) -> &mut Doc {
        if self.error.is_none() {
            if let Some(v) = self.m.get(key) {
                let path = join(&self.path, key);
                let r = match v.as_object() {
                    Some(t) => Parse::apply(field, t, &path),
                    None => Err(SimError::invalid(&path, v.to_string(), "a table of fields")),
                };
                if let Err(e) = r {
                    self.error = Some(e);
                }
            }
        }
        &mut self.doc
    }

    fn other(&mut self, _key: &'static str, _kind: &'static str) -> &mut Doc {
        &mut self.doc
    }
}

/// The keys a walk declares, in order (for `keys_ok` and the schema's key lists).
pub fn keys<F: Fields>(fields: &mut F) -> Vec<&'static str> {
    struct Keys(Vec<&'static str>, Doc);
    impl Keys {
        fn push(&mut self, key: &'static str) -> &mut Doc {
            self.0.push(key);
            &mut self.1
        }
    }
    impl Visitor for Keys {
        fn integer<T: Int>(&mut self, k: &'static str, _: &mut T, _: u64, _: u64) -> &mut Doc {
            self.push(k)
        }
        fn number(&mut self, k: &'static str, _: &mut f64, _: f64, _: f64) -> &mut Doc {
            self.push(k)
        }
        fn flag(&mut self, k: &'static str, _: &mut bool) -> &mut Doc {
            self.push(k)
        }
        fn size(&mut self, k: &'static str, _: &mut u64) -> &mut Doc {
            self.push(k)
        }
        fn size_or_inf(&mut self, k: &'static str, _: &mut u64) -> &mut Doc {
            self.push(k)
        }
        fn duration(&mut self, k: &'static str, _: &mut Dur) -> &mut Doc {
            self.push(k)
        }
        fn rate_or_inf(&mut self, k: &'static str, _: &mut Option<f64>) -> &mut Doc {
            self.push(k)
        }
        fn choice<T: Copy + PartialEq>(
            &mut self,
            k: &'static str,
            _: &mut T,
            _: &[(&'static str, T, &'static str)],
        ) -> &mut Doc {
            self.push(k)
        }
        fn name(&mut self, k: &'static str, _: &mut String) -> &mut Doc {
            self.push(k)
        }
        fn table<F: Fields>(&mut self, k: &'static str, _: &mut F) -> &mut Doc {
            self.push(k)
        }
        fn other(&mut self, k: &'static str, _: &'static str) -> &mut Doc {
            self.push(k)
        }
    }
    let mut k = Keys(Vec::new(), Doc::default());
    fields.walk(&mut k);
    k.0
}
