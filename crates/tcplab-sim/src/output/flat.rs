//! Run summaries as flat columns: one name per scalar of the nested summary, and many runs'
//! summaries assembled column by column, numbers in typed columns. A results table (the sweep
//! store's `runs`) has a column per name; building it here lets a sweep of thousands of small
//! runs flatten them on its worker threads and hand numbers over as whole columns.

use serde_json::Value;

/// The summary as flat columns, in order: the top-level scalars, then `apps.<name>.<key>`,
/// `connections.<name>.<key>` and `connections.<name>.<end>.<key>`, then
/// `links.<name>.<ab|ba>.<key>`, each group in the summary's own order (its tables are sorted
/// by key). A connection's table-valued field (an end's counters) gives `<key>.<field>` names.
/// An entry's name is its `name` text (`None` when it has none, as an unnamed entry is written
/// elsewhere in tcplab). A name given twice keeps its first place and takes the later value.
/// Values are the summary's own, so a flat column is exactly the nested field.
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

/// An entry's name in the flat names (see [`flatten_summary`]): its text, or `None`, `True`,
/// `False` or the JSON text of anything else.
fn name_of(entry: &serde_json::Map<String, Value>) -> String {
    match entry.get("name") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => "None".to_owned(),
        Some(Value::Bool(b)) => if *b { "True" } else { "False" }.to_owned(),
        Some(other) => other.to_string(),
    }
}

/// The column names of one run's flat summary, one after the other in one string (`ends[i]`
/// is where name `i` ends). Runs with the same names share one list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlatNames {
    text: String,
    ends: Vec<u32>,
}

impl FlatNames {
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(a, &b)| &self.text[a as usize..b as usize])
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
    }
}

/// One run's flat summary as [`visit_flat`] gives it, repeats included: its names (shared with
/// the runs before it that have the same) and its values, numbers and nulls as compact cells,
/// anything else kept aside in `others`.
#[derive(Clone, Debug, Default)]
pub struct FlatRun {
    names: std::sync::Arc<FlatNames>,
    cells: Vec<Cell>,
    others: Vec<Value>,
}

/// What one thread keeps from run to run while it flattens runs: the names of the last run
/// (to share when the next has the same) and a buffer to write the next one's into.
#[derive(Debug, Default)]
pub struct FlatScratch {
    last: std::sync::Arc<FlatNames>,
    names: FlatNames,
}

impl FlatRun {
    pub fn of(summary: &Value) -> FlatRun {
        FlatRun::with(summary, &mut FlatScratch::default())
    }

    /// `of`, sharing the names with the run `scratch` saw last when they are the same (a
    /// sweep's runs nearly always have the same names: no copy of them per run).
    pub fn with(summary: &Value, scratch: &mut FlatScratch) -> FlatRun {
        let mut cells = Vec::with_capacity(scratch.last.len());
        let mut others = Vec::new();
        let names = &mut scratch.names;
        names.clear();
        visit_flat(summary, |name, v| {
            names.text.push_str(name);
            names.ends.push(names.text.len() as u32);
            cells.push(match v {
                Value::Null => Cell::Null,
                Value::Number(x) if x.is_i64() => Cell::Int(x.as_i64().unwrap_or(0)),
                Value::Number(x) if x.is_f64() => Cell::Float(x.as_f64().unwrap_or(0.0)),
                _ => {
                    others.push(v.clone());
                    Cell::Other {
                        run: 0,
                        pos: others.len() as u32 - 1,
                    }
                }
            });
        });
        if *scratch.last != scratch.names {
            scratch.last = std::sync::Arc::new(scratch.names.clone());
        }
        FlatRun {
            names: scratch.last.clone(),
            cells,
            others,
        }
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter()
    }

    fn same_names(&self, other: &FlatRun) -> bool {
        std::sync::Arc::ptr_eq(&self.names, &other.names) || self.names == other.names
    }
}

/// A column of [`FlatTable`], one entry per run.
#[derive(Clone, Debug, PartialEq)]
pub enum FlatColumn {
    /// Every value present is an integer of int64. `valid` is the Arrow validity bitmap (bit
    /// `i % 8` of byte `i / 8` set where run `i` has a value), `None` when every run has one;
    /// a missing value is 0 in `data`.
    Int {
        data: Vec<i64>,
        valid: Option<Vec<u8>>,
    },
    /// Every value present is a float (and `valid` as for `Int`).
    Float {
        data: Vec<f64>,
        valid: Option<Vec<u8>>,
    },
    /// No run has a value (or every value is null).
    Null,
    /// Anything else (text, booleans, integers beyond int64, integers beside floats, lists,
    /// tables), `None` where a run has no value.
    Values(Vec<Option<Value>>),
}

/// Many runs' flat summaries as columns. A run that failed has only the column `error`, its
/// message. `new` reads the runs once, run by run (each run's values lie together in memory),
/// into compact cells kept column by column; each column is then typed and built on its own
/// ([`FlatTable::column`]), so that columns can be built in parallel. The names of a run are
/// compared with the run before's and looked up only when they differ.
#[derive(Debug)]
pub struct FlatTable {
    /// Every column of any run, in first-seen order.
    pub names: Vec<String>,
    runs: Vec<Result<FlatRun, String>>,
    /// Per column, per run.
    cells: Vec<Vec<Cell>>,
    /// The column of each name.
    at: std::collections::HashMap<String, usize>,
}

/// One value of a [`FlatTable`], small enough to be copied column by column.
#[derive(Clone, Copy, Debug)]
enum Cell {
    Missing,
    Null,
    Int(i64),
    Float(f64),
    /// Anything else: the value at `others[pos]` of run `run` (or run `run`'s error message).
    Other {
        run: u32,
        pos: u32,
    },
}

impl FlatTable {
    pub fn new(runs: Vec<Result<FlatRun, String>>) -> FlatTable {
        let n = runs.len();
        let mut names: Vec<String> = Vec::new();
        let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut cells: Vec<Vec<Cell>> = Vec::new();
        let mut column = |name: &str, names: &mut Vec<String>, cells: &mut Vec<Vec<Cell>>| {
            *at.entry(name.to_owned()).or_insert_with(|| {
                names.push(name.to_owned());
                cells.push(vec![Cell::Missing; n]);
                names.len() - 1
            })
        };
        // The column of each position of the last successful run's names.
        let mut layout: Vec<usize> = Vec::new();
        let mut last: Option<usize> = None;
        for (i, run) in runs.iter().enumerate() {
            let r = i as u32;
            match run {
                Ok(flat) => {
                    let same =
                        matches!(last.map(|j| &runs[j]), Some(Ok(prev)) if prev.same_names(flat));
                    if !same {
                        layout = flat
                            .names()
                            .map(|nm| column(nm, &mut names, &mut cells))
                            .collect();
                    }
                    last = Some(i);
                    // A repeated name: the later value, in the first place.
                    for (&c, &cell) in layout.iter().zip(&flat.cells) {
                        cells[c][i] = match cell {
                            Cell::Other { pos, .. } => Cell::Other { run: r, pos },
                            cell => cell,
                        };
                    }
                }
                Err(_) => {
                    let c = column("error", &mut names, &mut cells);
                    cells[c][i] = Cell::Other {
                        run: r,
                        pos: u32::MAX,
                    };
                }
            }
        }
        FlatTable {
            names,
            runs,
            cells,
            at,
        }
    }

    pub fn len(&self) -> usize {
        self.runs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    fn value(&self, cell: Cell) -> Option<Value> {
        match cell {
            Cell::Missing => None,
            Cell::Null => Some(Value::Null),
            Cell::Int(i) => Some(Value::from(i)),
            Cell::Float(x) => Some(Value::from(x)),
            Cell::Other { run, pos } => match &self.runs[run as usize] {
                Ok(flat) => flat.others.get(pos as usize).cloned(),
                Err(message) => Some(Value::String(message.clone())),
            },
        }
    }

    /// The distinct name lists of the runs, as indices into `names` in each run's own order
    /// (a repeated name once, in its first place), and for each run the index of its list
    /// (`None` for a failed run, which has only `error`).
    pub fn layouts(&self) -> (Vec<Vec<usize>>, Vec<Option<usize>>) {
        let mut lists: Vec<Vec<usize>> = Vec::new();
        let mut of_run = Vec::with_capacity(self.runs.len());
        let mut last: Option<usize> = None;
        for (i, run) in self.runs.iter().enumerate() {
            let Ok(flat) = run else {
                of_run.push(None);
                continue;
            };
            let same =
                matches!(last.map(|j| &self.runs[j]), Some(Ok(prev)) if prev.same_names(flat));
            if !same {
                let mut seen = std::collections::HashSet::new();
                let list = flat
                    .names()
                    .map(|n| self.at[n])
                    .filter(|c| seen.insert(*c))
                    .collect();
                lists.push(list);
            }
            of_run.push(Some(lists.len() - 1));
            last = Some(i);
        }
        (lists, of_run)
    }

    /// Column `c` (an index into `names`).
    pub fn column(&self, c: usize) -> FlatColumn {
        let cells = &self.cells[c];
        let (mut ints, mut floats, mut present, mut other) = (0, 0, 0, false);
        for cell in cells {
            match *cell {
                Cell::Missing | Cell::Null => continue,
                Cell::Int(_) => ints += 1,
                Cell::Float(_) => floats += 1,
                Cell::Other { .. } => other = true,
            }
            present += 1;
        }
        if present == 0 {
            return FlatColumn::Null;
        }
        if other || (ints > 0 && floats > 0) {
            return FlatColumn::Values(cells.iter().map(|&cell| self.value(cell)).collect());
        }
        let valid = (present < cells.len()).then(|| {
            let mut bits = vec![0u8; cells.len().div_ceil(8)];
            for (i, cell) in cells.iter().enumerate() {
                if matches!(cell, Cell::Int(_) | Cell::Float(_)) {
                    bits[i / 8] |= 1 << (i % 8);
                }
            }
            bits
        });
        if floats > 0 {
            let data = cells.iter().map(|cell| match *cell {
                Cell::Float(x) => x,
                _ => 0.0,
            });
            FlatColumn::Float {
                data: data.collect(),
                valid,
            }
        } else {
            let data = cells.iter().map(|cell| match *cell {
                Cell::Int(i) => i,
                _ => 0,
            });
            FlatColumn::Int {
                data: data.collect(),
                valid,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn runs(summaries: &[Value]) -> Vec<Result<FlatRun, String>> {
        summaries.iter().map(|s| Ok(FlatRun::of(s))).collect()
    }

    #[test]
    fn a_table_types_each_column_and_marks_what_is_missing() {
        let mut rs = runs(&[
            json!({"a": 1, "b": 1.5, "c": "x", "d": null, "apps": [{"name": "f", "t": 2}]}),
            json!({"a": 2, "b": 2.0, "c": "y", "d": null}),
        ]);
        rs.insert(1, Err("InternalError: boom".to_owned()));
        let t = FlatTable::new(rs);
        assert_eq!(t.names, ["a", "b", "c", "d", "apps.f.t", "error"]);
        assert_eq!(
            t.column(0),
            FlatColumn::Int {
                data: vec![1, 0, 2],
                valid: Some(vec![0b101])
            }
        );
        assert_eq!(
            t.column(1),
            FlatColumn::Float {
                data: vec![1.5, 0.0, 2.0],
                valid: Some(vec![0b101])
            }
        );
        assert_eq!(
            t.column(2),
            FlatColumn::Values(vec![Some(json!("x")), None, Some(json!("y"))])
        );
        assert_eq!(t.column(3), FlatColumn::Null);
        assert_eq!(
            t.column(4),
            FlatColumn::Int {
                data: vec![2, 0, 0],
                valid: Some(vec![0b001])
            }
        );
        assert_eq!(
            t.column(5),
            FlatColumn::Values(vec![None, Some(json!("InternalError: boom")), None])
        );
    }

    #[test]
    fn a_table_keeps_the_later_of_a_repeated_name_and_mixed_numbers_as_values() {
        let twice = json!({"apps": [{"name": "a", "x": 1}, {"name": "a", "x": 2}]});
        let t = FlatTable::new(runs(&[twice.clone(), twice]));
        assert_eq!(t.names, ["apps.a.x"]);
        assert_eq!(
            t.column(0),
            FlatColumn::Int {
                data: vec![2, 2],
                valid: None
            }
        );
        let mixed = FlatTable::new(runs(&[json!({"n": 1}), json!({"n": 0.5})]));
        assert_eq!(
            mixed.column(0),
            FlatColumn::Values(vec![Some(json!(1)), Some(json!(0.5))])
        );
        let huge = FlatTable::new(runs(&[json!({"n": u64::MAX})]));
        assert!(matches!(huge.column(0), FlatColumn::Values(_)));
    }

    #[test]
    fn a_table_tells_each_runs_names_in_its_own_order() {
        let mut rs = runs(&[
            json!({"b": 1, "a": {"x": 0}, "apps": [{"name": "f", "t": 2}]}),
            json!({"b": 2, "apps": [{"name": "f", "t": 3}]}),
            json!({"c": 1.0, "apps": [{"name": "g", "t": 1}, {"name": "g", "t": 2}]}),
        ]);
        rs.insert(1, Err("e".to_owned()));
        let t = FlatTable::new(rs);
        assert_eq!(t.names, ["b", "apps.f.t", "error", "c", "apps.g.t"]);
        let (lists, of_run) = t.layouts();
        assert_eq!(lists, [vec![0, 1], vec![3, 4]]);
        assert_eq!(of_run, [Some(0), None, Some(0), Some(1)]);
    }

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
