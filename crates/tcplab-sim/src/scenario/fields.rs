//! The ground floor of the scenario format: reading one field of a table, by its type, with an
//! error that names the field by its path (`links[1].ab.rate`), the value and what is allowed.
//! Every section's parser is built on these, and so are the parsers that sit beside their types
//! (the applications' random distributions, the user profiles, the ns-2 rules), which import
//! nothing else of the scenario but its field list ([`crate::scenario::schema`]).

use serde_json::{Map, Value};

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::scenario::units::{
    check_probability, parse_duration, parse_probability, parse_rate, parse_size,
};

pub(crate) fn keys_ok(map: &Map<String, Value>, path: &str, allowed: &[&str]) -> SimResult<()> {
    for k in map.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(SimError::UnknownField {
                field: join(path, k),
                allowed: allowed.join(", "),
            });
        }
    }
    Ok(())
}

pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

pub(crate) fn table<'a>(v: &'a Value, path: &str) -> SimResult<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| SimError::invalid(path, v, "a table of fields"))
}

pub(crate) fn get_str(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<String>> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(SimError::invalid(join(path, key), v, "a string")),
    }
}

pub(crate) fn get_bool(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<bool>> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(SimError::invalid(join(path, key), v, "true or false")),
    }
}

pub(crate) fn get_uint(
    m: &Map<String, Value>,
    path: &str,
    key: &str,
    min: u64,
    max: u64,
) -> SimResult<Option<u64>> {
    match m.get(key) {
        None => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(SimError::invalid(
                join(path, key),
                v,
                format!("a whole number from {min} to {max}"),
            )),
        },
    }
}

pub(crate) fn get_f64(
    m: &Map<String, Value>,
    path: &str,
    key: &str,
    lo: f64,
    hi: f64,
) -> SimResult<Option<f64>> {
    match m.get(key) {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) if x >= lo && x <= hi => Ok(Some(x)),
            _ => Err(SimError::invalid(
                join(path, key),
                v,
                format!("a number from {lo} to {hi}"),
            )),
        },
    }
}

pub(crate) fn get_dur(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<Dur>> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => parse_duration(&join(path, key), s).map(Some),
        Some(v) => Err(SimError::invalid(
            join(path, key),
            v,
            "a duration with a unit, such as \"20ms\" or \"1.5s\"",
        )),
    }
}

pub(crate) fn get_rate(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<u64>> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => parse_rate(&join(path, key), s).map(Some),
        Some(v) => Err(SimError::invalid(
            join(path, key),
            v,
            "a bit rate with a unit, such as \"10Mbps\"",
        )),
    }
}

pub(crate) fn get_size(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<u64>> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => parse_size(&join(path, key), s).map(Some),
        Some(v) => match v.as_u64() {
            Some(n) => Ok(Some(n)),
            None => Err(SimError::invalid(
                join(path, key),
                v,
                "a size such as \"10MB\" or a whole number of bytes",
            )),
        },
    }
}

pub(crate) fn get_prob(m: &Map<String, Value>, path: &str, key: &str) -> SimResult<Option<f64>> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => parse_probability(&join(path, key), s).map(Some),
        Some(v) => match v.as_f64() {
            Some(x) => check_probability(&join(path, key), x).map(Some),
            None => Err(SimError::invalid(
                join(path, key),
                v,
                "a probability between 0 and 1, such as 0.01, \"1e-6\" or \"1%\"",
            )),
        },
    }
}

pub(crate) fn required<T>(v: Option<T>, path: &str, key: &str, what: &str) -> SimResult<T> {
    v.ok_or_else(|| SimError::MissingField {
        field: join(path, key),
        allowed: what.to_string(),
    })
}
