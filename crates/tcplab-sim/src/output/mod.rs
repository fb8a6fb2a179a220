//! What a run returns: a nested JSON summary and columnar tables ([`SimOutput`]), and what
//! builds them: the summary as flat columns ([`flat`]), the per-connection traces and the event
//! and packet logs ([`trace`]), link statistics over time ([`series`]), and a scenario's
//! resolved settings ([`describe`]).

use serde_json::Value;

pub mod describe;
pub mod flat;
pub mod series;
pub mod trace;

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    Str(Strs),
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

/// A column of text: every row's bytes in one buffer and where each row ends. A row costs its
/// bytes and 8 more, where a `Vec<String>` costs 24 and an allocation of its own (the events of
/// 10,000 flows: 210 MB of the run's 500).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Strs {
    text: String,
    ends: Vec<usize>,
}

impl Strs {
    pub fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }
    /// A row written by `write` straight into the text (no string of its own on the way).
    pub fn push_with(&mut self, write: impl FnOnce(&mut String)) {
        write(&mut self.text);
        self.ends.push(self.text.len());
    }
    pub fn len(&self) -> usize {
        self.ends.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
    /// Row `i` (None past the end).
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.text[start..end])
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or_default())
    }
    /// The rows as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }
}

impl<S: AsRef<str>> FromIterator<S> for Strs {
    fn from_iter<I: IntoIterator<Item = S>>(rows: I) -> Self {
        let mut out = Strs::default();
        for r in rows {
            out.push(r.as_ref());
        }
        out
    }
}

impl From<Vec<String>> for Strs {
    fn from(rows: Vec<String>) -> Self {
        rows.into_iter().collect()
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

#[cfg(test)]
mod tests {
    use super::Strs;

    #[test]
    fn a_text_column_gives_back_each_row_as_pushed() {
        let rows = ["retransmit", "", "dupacks=3 cwnd=2920", "é-ü", ""];
        let mut s = Strs::default();
        for r in rows {
            s.push(r);
        }
        assert_eq!(s.len(), rows.len());
        assert_eq!(s.iter().collect::<Vec<_>>(), rows);
        assert_eq!(s.get(2), Some("dupacks=3 cwnd=2920"));
        assert_eq!(s.get(5), None);
        let owned: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
        assert_eq!(Strs::from(owned.clone()), s);
        assert_eq!(s.to_vec(), owned);
        assert!(Strs::default().is_empty() && Strs::default().get(0).is_none());
    }
}
