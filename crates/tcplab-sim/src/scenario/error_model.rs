//! The `error` table of a link or of one of its directions: which error model corrupts its
//! frames (`crate::net::loss`), and with what probabilities.

use serde_json::{Map, Value};

use crate::error::{SimError, SimResult};
use crate::net::loss::{ErrorModelConfig, Law};
use crate::scenario::fields::{get_prob, get_str, get_uint, join, keys_ok, required, table};
use crate::scenario::schema;

fn law(m: &Map<String, Value>, path: &str, per_key: &str, ber_key: &str) -> SimResult<Law> {
    match (get_prob(m, path, per_key)?, get_prob(m, path, ber_key)?) {
        (Some(p), None) => Ok(Law::Per(p)),
        (None, Some(b)) => Ok(Law::Ber(b)),
        (None, None) => Ok(Law::Per(0.0)),
        (Some(_), Some(_)) => Err(SimError::invalid(
            join(path, per_key),
            "both given",
            format!("either {per_key} or {ber_key}, not both"),
        )),
    }
}

/// The error model of `error` table `v` at `path`.
pub(super) fn error_model(v: &Value, path: &str) -> SimResult<ErrorModelConfig> {
    let m = table(v, path)?;
    let model = required(
        get_str(m, path, "model")?,
        path,
        "model",
        "one of: none, per, ber, gilbert-elliott, list",
    )?;
    match model.as_str() {
        "none" => {
            keys_ok(m, path, schema::keys("error", Some("model=none")))?;
            Ok(ErrorModelConfig::None)
        }
        "per" => {
            keys_ok(m, path, schema::keys("error", Some("model=per")))?;
            let p = required(
                get_prob(m, path, "p")?,
                path,
                "p",
                "the packet error rate, e.g. 0.01",
            )?;
            Ok(ErrorModelConfig::Law(Law::Per(p)))
        }
        "ber" => {
            keys_ok(m, path, schema::keys("error", Some("model=ber")))?;
            let b = required(
                get_prob(m, path, "ber")?,
                path,
                "ber",
                "the bit error rate, e.g. 1e-6",
            )?;
            Ok(ErrorModelConfig::Law(Law::Ber(b)))
        }
        "gilbert-elliott" => gilbert_elliott(m, path),
        "list" => list(m, path),
        other => Err(SimError::invalid(
            join(path, "model"),
            format!("{other:?}"),
            "one of: none, per, ber, gilbert-elliott, list",
        )),
    }
}

/// `model = "gilbert-elliott"`: two states, each with its own law.
fn gilbert_elliott(m: &Map<String, Value>, path: &str) -> SimResult<ErrorModelConfig> {
    keys_ok(
        m,
        path,
        schema::keys("error", Some("model=gilbert-elliott")),
    )?;
    let pgb = required(
        get_prob(m, path, "p_gb")?,
        path,
        "p_gb",
        "probability good -> bad per frame",
    )?;
    let pbg = required(
        get_prob(m, path, "p_bg")?,
        path,
        "p_bg",
        "probability bad -> good per frame",
    )?;
    let good = law(m, path, "good_per", "good_ber")?;
    let bad = match law(m, path, "bad_per", "bad_ber")? {
        Law::Per(p) if p == 0.0 && !m.contains_key("bad_per") => Law::Per(1.0),
        l => l,
    };
    let start_bad = match get_str(m, path, "start")?.as_deref() {
        None | Some("good") => false,
        Some("bad") => true,
        Some(o) => {
            return Err(SimError::invalid(
                join(path, "start"),
                format!("{o:?}"),
                "\"good\" or \"bad\"",
            ))
        }
    };
    Ok(ErrorModelConfig::GilbertElliott {
        good,
        bad,
        p_good_to_bad: pgb,
        p_bad_to_good: pbg,
        start_bad,
    })
}

/// `model = "list"`: the frames, and the segments by sequence number and transmission, to drop.
fn list(m: &Map<String, Value>, path: &str) -> SimResult<ErrorModelConfig> {
    keys_ok(m, path, schema::keys("error", Some("model=list")))?;
    let mut frames = Vec::new();
    if let Some(v) = m.get("frames") {
        let arr = v.as_array().ok_or_else(|| {
            SimError::invalid(join(path, "frames"), v, "a list of frame indices (0-based)")
        })?;
        for (i, x) in arr.iter().enumerate() {
            frames.push(x.as_u64().ok_or_else(|| {
                SimError::invalid(format!("{path}.frames[{i}]"), x, "a whole number >= 0")
            })?);
        }
    }
    frames.sort_unstable();
    frames.dedup();
    let mut segments = Vec::new();
    if let Some(v) = m.get("segments") {
        let arr = v.as_array().ok_or_else(|| {
            SimError::invalid(
                join(path, "segments"),
                v,
                "a list of {seq = N, tx = K} tables",
            )
        })?;
        for (i, x) in arr.iter().enumerate() {
            let p = format!("{path}.segments[{i}]");
            let t = table(x, &p)?;
            keys_ok(t, &p, schema::keys("error.segments[]", None))?;
            let seq = required(
                get_uint(t, &p, "seq", 0, u64::MAX / 2)?,
                &p,
                "seq",
                "the TCP sequence number (data starts at 1)",
            )?;
            let tx = get_uint(t, &p, "tx", 1, 1000)?.unwrap_or(1) as u32;
            segments.push((seq, tx));
        }
    }
    Ok(ErrorModelConfig::List { frames, segments })
}
