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
