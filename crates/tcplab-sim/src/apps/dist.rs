//! The random distributions an application's sizes and times are drawn from (constant,
//! exponential, uniform, lognormal, Pareto), and how a scenario writes one: a plain value, or a
//! table `{ dist = "...", ... }` of durations, sizes or counts.

use rand_distr::{Distribution, Exp, LogNormal, Pareto};
use serde_json::{json, Map, Value};

use crate::engine::rng::{uniform, Rng};
use crate::error::{SimError, SimResult};
use crate::scenario::fields::{get_str, join, keys_ok, required};
use crate::scenario::schema;
use crate::scenario::units::{parse_duration, parse_size};

/// What a distribution's values are: seconds (written as durations) or bytes (sizes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Seconds,
    Bytes,
    Count,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Dist {
    Constant(f64),
    Exponential {
        mean: f64,
    },
    Uniform {
        min: f64,
        max: f64,
    },
    /// Parametrised by the mean and standard deviation of the variable itself.
    LogNormal {
        mean: f64,
        sd: f64,
    },
    /// Pareto with `shape` > 1 and minimum `scale`; mean = shape scale / (shape - 1).
    Pareto {
        shape: f64,
        scale: f64,
    },
}

impl Dist {
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match *self {
            Dist::Constant(v) => v,
            Dist::Exponential { mean } => Exp::new(1.0 / mean).map_or(0.0, |d| d.sample(rng)),
            Dist::Uniform { min, max } => min + (max - min) * uniform(rng),
            Dist::LogNormal { mean, sd } => {
                let s2 = (1.0 + (sd / mean).powi(2)).ln();
                LogNormal::new(mean.ln() - s2 / 2.0, s2.sqrt()).map_or(mean, |d| d.sample(rng))
            }
            Dist::Pareto { shape, scale } => {
                Pareto::new(scale, shape).map_or(scale, |d| d.sample(rng))
            }
        }
    }

    pub fn mean(&self) -> f64 {
        match *self {
            Dist::Constant(v) => v,
            Dist::Exponential { mean } | Dist::LogNormal { mean, .. } => mean,
            Dist::Uniform { min, max } => (min + max) / 2.0,
            Dist::Pareto { shape, scale } => shape * scale / (shape - 1.0),
        }
    }

    pub fn to_json(&self) -> Value {
        match *self {
            Dist::Constant(v) => json!({"dist": "constant", "value": v}),
            Dist::Exponential { mean } => json!({"dist": "exponential", "mean": mean}),
            Dist::Uniform { min, max } => json!({"dist": "uniform", "min": min, "max": max}),
            Dist::LogNormal { mean, sd } => json!({"dist": "lognormal", "mean": mean, "sd": sd}),
            Dist::Pareto { shape, scale } => {
                json!({"dist": "pareto", "shape": shape, "scale": scale})
            }
        }
    }
}

const DISTS: &str = "constant, exponential, uniform, lognormal, pareto";

fn unit_text(unit: Unit) -> &'static str {
    match unit {
        Unit::Seconds => "a duration such as \"30s\"",
        Unit::Bytes => "a size such as \"10KB\"",
        Unit::Count => "a whole number",
    }
}

/// One number of a distribution: a duration, a size or a count as `unit` says.
pub(crate) fn value(v: &Value, path: &str, unit: Unit) -> SimResult<f64> {
    let x = match (unit, v) {
        (Unit::Seconds, Value::String(s)) => parse_duration(path, s)?.as_secs_f64(),
        (Unit::Bytes, Value::String(s)) => parse_size(path, s)? as f64,
        (Unit::Bytes | Unit::Count, Value::Number(n)) => n
            .as_f64()
            .ok_or_else(|| SimError::invalid(path, v, unit_text(unit)))?,
        _ => return Err(SimError::invalid(path, v, unit_text(unit))),
    };
    if !x.is_finite() || x < 0.0 {
        return Err(SimError::invalid(path, v, unit_text(unit)));
    }
    Ok(x)
}

/// A distribution: a plain value (constant) or `{dist = "...", ...}`.
pub fn dist(v: &Value, path: &str, unit: Unit) -> SimResult<Dist> {
    let Value::Object(m) = v else {
        return value(v, path, unit).map(Dist::Constant);
    };
    let kind = required(get_str(m, path, "dist")?, path, "dist", DISTS)?;
    let when = format!("dist={kind}");
    let known = schema::keys("distribution", Some(&when));
    if !["constant", "exponential", "uniform", "lognormal", "pareto"].contains(&kind.as_str()) {
        return Err(SimError::invalid(
            join(path, "dist"),
            format!("{kind:?}"),
            DISTS,
        ));
    }
    keys_ok(m, path, known)?;
    let num = |key: &str| -> SimResult<f64> {
        let x = m.get(key).ok_or_else(|| SimError::MissingField {
            field: join(path, key),
            allowed: unit_text(unit).into(),
        })?;
        value(x, &join(path, key), unit)
    };
    let positive = |key: &str, x: f64| -> SimResult<f64> {
        if x > 0.0 {
            Ok(x)
        } else {
            Err(SimError::invalid(join(path, key), x, "above 0"))
        }
    };
    Ok(match kind.as_str() {
        "constant" => Dist::Constant(num("value")?),
        "exponential" => Dist::Exponential {
            mean: positive("mean", num("mean")?)?,
        },
        "uniform" => {
            let (min, max) = (num("min")?, num("max")?);
            if max < min {
                return Err(SimError::invalid(
                    join(path, "max"),
                    max,
                    format!("at least min ({min})"),
                ));
            }
            Dist::Uniform { min, max }
        }
        "lognormal" => Dist::LogNormal {
            mean: positive("mean", num("mean")?)?,
            sd: positive("sd", num("sd")?)?,
        },
        _ => {
            let shape = match m.get("shape").map(Value::as_f64) {
                Some(Some(s)) if s > 1.0 && s.is_finite() => s,
                Some(_) => {
                    return Err(SimError::invalid(
                        join(path, "shape"),
                        &m["shape"],
                        "a number above 1 (the mean is infinite at or below 1)",
                    ))
                }
                None => {
                    return Err(SimError::MissingField {
                        field: join(path, "shape"),
                        allowed: "a number above 1".into(),
                    })
                }
            };
            let scale = match (m.get("scale"), m.get("mean")) {
                (Some(_), None) => positive("scale", num("scale")?)?,
                (None, Some(_)) => positive("mean", num("mean")?)? * (shape - 1.0) / shape,
                _ => {
                    return Err(SimError::invalid(
                        join(path, "scale"),
                        "both or neither of scale and mean",
                        "either scale (the minimum) or mean",
                    ))
                }
            };
            Dist::Pareto { shape, scale }
        }
    })
}

/// Field `key` of table `m` as a distribution of `unit`, or `default` when it is absent.
pub(crate) fn get_dist(
    m: &Map<String, Value>,
    path: &str,
    key: &str,
    unit: Unit,
    default: Dist,
) -> SimResult<Dist> {
    m.get(key)
        .map_or(Ok(default), |v| dist(v, &join(path, key), unit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::stream;

    #[test]
    fn distributions_have_the_means_they_are_given() {
        let mut rng = stream(1, "t");
        for d in [
            Dist::Exponential { mean: 3.0 },
            Dist::Uniform { min: 1.0, max: 5.0 },
            Dist::LogNormal { mean: 3.0, sd: 2.0 },
            Dist::Pareto {
                shape: 3.0,
                scale: 2.0,
            },
        ] {
            let n = 200_000;
            let m = (0..n).map(|_| d.sample(&mut rng)).sum::<f64>() / n as f64;
            assert!((m - d.mean()).abs() / d.mean() < 0.02, "{d:?}: {m}");
        }
    }
}
