//! What a run returns: a nested JSON summary and columnar tables.

use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub name: String,
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SimOutput {
    pub summary: Value,
    pub tables: Vec<Table>,
}

impl SimOutput {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
}

/// The summary as flat columns, in order: the top-level scalars, then `apps.<name>.<key>`,
/// `connections.<name>.<key>` and `connections.<name>.<end>.<key>`, then
/// `links.<name>.<ab|ba>.<key>`. A results table (the sweep store's `runs`) has one column per
/// name. It is the flattening of `tcplab.frames.flatten_summary`, name for name and in the same
/// order, done here so that a sweep of thousands of runs flattens them on the worker threads.
/// A name given twice keeps its first place and takes the later value. Values are the
/// summary's own, so a flat column is exactly the nested field.
pub fn flatten_summary(summary: &Value) -> Vec<(String, &Value)> {
    let mut cols: Vec<(String, &Value)> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    visit_flat(summary, |name, v| match at.get(name) {
        Some(&i) => cols[i].1 = v,
        None => {
            at.insert(name.to_owned(), cols.len());
            cols.push((name.to_owned(), v));
        }
    });
    cols
}

/// Call `emit(name, value)` for each flat column of `summary` in the order of
/// [`flatten_summary`], without its merging of a repeated name (a caller that keeps the first
/// place and the later value has exactly `flatten_summary`). The name is built in one buffer,
/// reused from column to column.
pub fn visit_flat<'a>(summary: &'a Value, mut emit: impl FnMut(&str, &'a Value)) {
    let Some(top) = summary.as_object() else {
        return;
    };
    let mut name = String::new();
    let mut put = |name: &mut String, pre: usize, parts: &[&str], v: &'a Value| {
        name.truncate(pre);
        for p in parts {
            name.push_str(p);
        }
        emit(name, v);
    };
    for (k, v) in top {
        if !(v.is_object() || v.is_array()) {
            put(&mut name, 0, &[k], v);
        }
    }
    for list in ["apps", "connections", "links"] {
        for entry in entries(top.get(list)) {
            name.clear();
            name.push_str(list);
            name.push('.');
            name.push_str(&name_of(entry));
            name.push('.');
            let pre = name.len();
            match list {
                "apps" => {
                    for (k, v) in entry.iter().filter(|(k, _)| k.as_str() != "name") {
                        put(&mut name, pre, &[k], v);
                    }
                }
                "connections" => {
                    for (k, v) in entry {
                        if let Value::Object(end) = v {
                            for (kk, vv) in end {
                                put(&mut name, pre, &[k, ".", kk], vv);
                            }
                        } else if k != "name" {
                            put(&mut name, pre, &[k], v);
                        }
                    }
                }
                _ => {
                    for dir in ["ab", "ba"] {
                        if let Some(Value::Object(d)) = entry.get(dir) {
                            for (k, v) in d {
                                put(&mut name, pre, &[dir, ".", k], v);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The objects of a list of the summary (apps, connections, links).
fn entries(list: Option<&Value>) -> impl Iterator<Item = &serde_json::Map<String, Value>> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
}

/// An entry's name as Python's `f"{entry.get('name')}"` writes it.
fn name_of(entry: &serde_json::Map<String, Value>) -> String {
    match entry.get("name") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => "None".to_owned(),
        Some(Value::Bool(b)) => if *b { "True" } else { "False" }.to_owned(),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flattens_names_in_order_and_keeps_the_first_place_of_a_repeated_name() {
        let s = json!({
            "seed": 3,
            "sim_time_s": 1.5,
            "note": null,
            "apps": [{"name": "ftp", "response_time_s": 2.0, "bytes": 10}],
            "connections": [{"name": "c0", "client": {"retransmissions": 1}, "rtt_s": 0.1}],
            "links": [{"name": "wan", "ab": {"frames_dropped_error": 4}, "ba": null}],
        });
        let flat = flatten_summary(&s);
        let names: Vec<&str> = flat.iter().map(|(n, _)| n.as_str()).collect();
        // serde_json's maps are sorted by key, as the JSON text Python reads is.
        assert_eq!(
            names,
            [
                "note",
                "seed",
                "sim_time_s",
                "apps.ftp.bytes",
                "apps.ftp.response_time_s",
                "connections.c0.client.retransmissions",
                "connections.c0.rtt_s",
                "links.wan.ab.frames_dropped_error",
            ]
        );
        assert_eq!(flat[1].1, &json!(3));
        assert!(flat[0].1.is_null());

        let twice = json!({"apps": [{"name": "a", "x": 1}, {"name": "a", "x": 2}], "z": 0});
        let flat = flatten_summary(&twice);
        assert_eq!(flat.len(), 2);
        assert_eq!((flat[1].0.as_str(), flat[1].1), ("apps.a.x", &json!(2)));
        let unnamed = json!({"apps": [{"x": 1}]});
        assert_eq!(flatten_summary(&unnamed)[0].0, "apps.None.x");
    }
}
