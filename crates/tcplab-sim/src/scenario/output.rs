//! The `[output]` section: which traces and tables a run keeps, and how many rows each may hold.

use serde_json::{Map, Value};

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::scenario::fields::{get_bool, get_dur, get_uint, keys_ok, table};
use crate::scenario::schema;

#[derive(Clone, Debug, PartialEq)]
pub struct OutputCfg {
    pub trace: bool,
    pub trace_interval: Option<Dur>,
    pub events: bool,
    pub packets: bool,
    /// The length of every link direction's queue over time (the `queues` table).
    pub queues: bool,
    /// Statistics of every link direction per this interval (the `link_series` table).
    pub link_series: Option<Dur>,
    /// Response times per application group per this interval (the `app_series` table).
    pub app_series: Option<Dur>,
    /// The most rows any one table keeps in memory (later rows are counted, not kept).
    pub max_rows: usize,
}

/// `output.max_rows` when a scenario does not set it: about 200 MB for a trace table.
pub const DEFAULT_MAX_ROWS: usize = 2_000_000;

/// The `[output]` table; every field has a default, and so has the table.
pub(super) fn parse(root: &Map<String, Value>) -> SimResult<OutputCfg> {
    let empty = Value::Object(Map::new());
    let ov = root.get("output").unwrap_or(&empty);
    let om = table(ov, "output")?;
    keys_ok(om, "output", schema::keys("output", None))?;
    let output = OutputCfg {
        trace: get_bool(om, "output", "trace")?.unwrap_or(false),
        trace_interval: get_dur(om, "output", "trace_interval")?,
        events: get_bool(om, "output", "events")?.unwrap_or(true),
        packets: get_bool(om, "output", "packets")?.unwrap_or(false),
        queues: get_bool(om, "output", "queues")?.unwrap_or(false),
        link_series: get_dur(om, "output", "link_series")?,
        app_series: get_dur(om, "output", "app_series")?,
        max_rows: get_uint(om, "output", "max_rows", 1, 1_000_000_000)?
            .unwrap_or(DEFAULT_MAX_ROWS as u64) as usize,
    };
    if output.link_series == Some(Dur::ZERO) {
        return Err(SimError::invalid(
            "output.link_series",
            "0s",
            "a positive duration such as \"1s\", or leave it out for no link series",
        ));
    }
    if output.app_series == Some(Dur::ZERO) {
        return Err(SimError::invalid(
            "output.app_series",
            "0s",
            "a positive duration such as \"10s\", or leave it out for no application series",
        ));
    }
    if output.trace_interval == Some(Dur::ZERO) {
        return Err(SimError::invalid(
            "output.trace_interval",
            "0s",
            "a positive duration, or leave it out to sample on change",
        ));
    }
    Ok(output)
}
