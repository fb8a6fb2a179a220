//! The `[run]` section: the run's name, its seed and when it stops.

use serde_json::{Map, Value};

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};
use crate::scenario::fields::{get_dur, get_str, get_uint, keys_ok, table};
use crate::scenario::schema;

#[derive(Clone, Debug, PartialEq)]
pub struct RunCfg {
    pub name: String,
    pub seed: u64,
    pub stop_time: Dur,
}

/// The `[run]` table; every field has a default, and so has the table.
pub(super) fn parse(root: &Map<String, Value>) -> SimResult<RunCfg> {
    let empty = Value::Object(Map::new());
    let runv = root.get("run").unwrap_or(&empty);
    let rm = table(runv, "run")?;
    keys_ok(rm, "run", schema::keys("run", None))?;
    let run = RunCfg {
        name: get_str(rm, "run", "name")?.unwrap_or_else(|| "scenario".into()),
        seed: get_uint(rm, "run", "seed", 0, u64::MAX)?.unwrap_or(1),
        stop_time: get_dur(rm, "run", "stop_time")?.unwrap_or(Dur::from_secs(100_000)),
    };
    if run.stop_time.0 == 0 {
        return Err(SimError::invalid(
            "run.stop_time",
            "0s",
            "a positive duration",
        ));
    }
    Ok(run)
}
