//! `tcplab._core.Stepper`: the step-by-step API of the core (`tcplab_sim::sim::step`), for
//! `tcplab.step.Connection`. Plain data crosses: times in integer nanoseconds, a segment in as
//! JSON text (`{"flags", "seq", "ack", "win", "length", "options": [[kind, args...], ...]}`),
//! the segments sent out as JSON text. Every call runs under `guarded`: a panic in the core is
//! an `InternalError`, a misuse a `StepError`.

use pyo3::prelude::*;
use pyo3::types::PyString;
use serde_json::{json, Value};
use tcplab_sim::engine::time::SimTime;
use tcplab_sim::error::SimError;
use tcplab_sim::sim::step::{Inbound, Outbound, SockVal, Stepper as Core, TcpOption};

use super::{guarded, guarded_py, sim_error_to_py};

fn bad(field: &str, message: impl Into<String>) -> SimError {
    SimError::step(field, message)
}

fn uint(v: &Value, field: &str) -> Result<u64, SimError> {
    v.as_u64()
        .ok_or_else(|| bad(field, format!("invalid value {v}: a non-negative integer")))
}

/// One option `[kind, args...]` of an injected segment.
fn option_of(v: &Value) -> Result<TcpOption, SimError> {
    let field = "inject.options";
    let items = v.as_array().filter(|a| !a.is_empty()).ok_or_else(|| {
        bad(
            field,
            format!("invalid option {v}: a tuple such as (\"mss\", 1460)"),
        )
    })?;
    let kind = items[0].as_str().unwrap_or_default();
    let args = &items[1..];
    let arity = |n: usize| -> Result<(), SimError> {
        if args.len() == n {
            Ok(())
        } else {
            Err(bad(
                &format!("{field}.{kind}"),
                format!("{} arguments given: {n} expected", args.len()),
            ))
        }
    };
    let small = |x: &Value, what: &str, max: u64| -> Result<u64, SimError> {
        let n = uint(x, &format!("{field}.{kind}"))?;
        if n > max {
            return Err(bad(
                &format!("{field}.{kind}"),
                format!("invalid {what} {n}: at most {max}"),
            ));
        }
        Ok(n)
    };
    Ok(match kind {
        "mss" => {
            arity(1)?;
            TcpOption::Mss(small(&args[0], "MSS", 65_535)? as u32)
        }
        "wscale" => {
            arity(1)?;
            TcpOption::WScale(small(&args[0], "window scale", 255)? as u8)
        }
        "sackOK" => {
            arity(0)?;
            TcpOption::SackOk
        }
        "TS" => {
            arity(2)?;
            TcpOption::Timestamp {
                val: uint(&args[0], "inject.options.TS")?,
                ecr: uint(&args[1], "inject.options.TS")?,
            }
        }
        "sack" => {
            arity(1)?;
            let blocks = args[0]
                .as_array()
                .ok_or_else(|| bad("inject.options.sack", "a list of (start, end) blocks"))?;
            let mut out = Vec::new();
            for b in blocks {
                match b.as_array().map(Vec::as_slice) {
                    Some([s, e]) => out.push((
                        uint(s, "inject.options.sack")?,
                        uint(e, "inject.options.sack")?,
                    )),
                    _ => {
                        return Err(bad(
                            "inject.options.sack",
                            format!("invalid block {b}: (start, end)"),
                        ))
                    }
                }
            }
            TcpOption::Sack(out)
        }
        "nop" => {
            arity(0)?;
            TcpOption::Nop
        }
        "eol" => {
            arity(0)?;
            TcpOption::Eol
        }
        _ => {
            return Err(bad(
                field,
                format!(
                    "unknown option {}: mss, wscale, sackOK, TS, sack, nop, eol",
                    items[0]
                ),
            ))
        }
    })
}

fn inbound_of(text: &str) -> Result<Inbound, SimError> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| SimError::Internal(format!("segment JSON: {e}")))?;
    let get = |k: &str| v.get(k).cloned().unwrap_or(json!(0));
    let field = |k: &str| format!("inject.{k}");
    let u32_of = |k: &str| -> Result<u32, SimError> {
        let n = uint(&get(k), &field(k))?;
        u32::try_from(n).map_err(|_| {
            bad(
                &field(k),
                format!("invalid value {n}: at most {}", u32::MAX),
            )
        })
    };
    let flags = v
        .get("flags")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("inject.flags", "a string of letters from S F R P . E W"))?
        .to_owned();
    let options = match v.get("options") {
        Some(Value::Array(a)) => a.iter().map(option_of).collect::<Result<_, _>>()?,
        None | Some(Value::Null) => Vec::new(),
        Some(o) => {
            return Err(bad(
                "inject.options",
                format!("invalid value {o}: a list of tuples"),
            ))
        }
    };
    Ok(Inbound {
        flags,
        seq: uint(&get("seq"), "inject.seq")?,
        ack: uint(&get("ack"), "inject.ack")?,
        win: u32_of("win")?,
        len: u32_of("length")?,
        options,
    })
}

fn option_json(o: &TcpOption) -> Value {
    match o {
        TcpOption::Mss(m) => json!(["mss", m]),
        TcpOption::WScale(w) => json!(["wscale", w]),
        TcpOption::SackOk => json!(["sackOK"]),
        TcpOption::Timestamp { val, ecr } => json!(["TS", val, ecr]),
        TcpOption::Sack(b) => json!(["sack", b]),
        TcpOption::Nop => json!(["nop"]),
        TcpOption::Eol => json!(["eol"]),
    }
}

fn outbound_json(o: &Outbound) -> Value {
    let p = &o.packet;
    json!({
        "time_ns": o.time.0,
        "flags": o.flags(),
        "seq": p.seq,
        "ack": if p.flags & tcplab_sim::net::packet::ACK != 0 { p.ack } else { 0 },
        "win": p.wnd,
        "length": p.len,
        "end": p.seq + p.seq_len(),
        "mss": (p.flags & tcplab_sim::net::packet::SYN != 0 && p.syn_mss > 0).then_some(p.syn_mss),
        "wscale": (p.flags & tcplab_sim::net::packet::SYN != 0 && p.syn_wscale >= 0).then_some(p.syn_wscale),
        "sack_ok": p.flags & tcplab_sim::net::packet::SYN != 0 && p.syn_sack_ok,
        "ts_val": p.has_ts.then_some(p.ts_val),
        "ts_ecr": p.has_ts.then_some(p.ts_ecr),
        "sack": p.sack_blocks().map(|b| [b.start, b.end]).collect::<Vec<_>>(),
        "tx_count": p.tx_count,
        "ip_bytes": p.ip_bytes(),
        "options": o.options().iter().map(option_json).collect::<Vec<_>>(),
    })
}

/// One simulated endpoint whose peer is the caller (`tcplab.step.Connection` wraps it).
#[pyclass(module = "tcplab._core", unsendable)]
pub struct Stepper {
    inner: Core,
}

impl Stepper {
    fn call<T>(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut Core) -> Result<T, SimError>,
    ) -> PyResult<T> {
        guarded_py(py, || {
            guarded(|| f(&mut self.inner)).map_err(|e| sim_error_to_py(py, &e))
        })
    }
}

#[pymethods]
impl Stepper {
    /// A stepper whose endpoint has the `[tcp]` settings given as JSON text.
    #[new]
    fn new(py: Python<'_>, tcp_json: &str) -> PyResult<Self> {
        guarded_py(py, || {
            guarded(|| {
                let v: Value = serde_json::from_str(tcp_json)
                    .map_err(|e| SimError::Internal(format!("tcp JSON: {e}")))?;
                Ok(Stepper {
                    inner: Core::new(&v)?,
                })
            })
            .map_err(|e| sim_error_to_py(py, &e))
        })
    }

    fn now_ns(&self) -> u64 {
        self.inner.now().0
    }

    fn next_timer_ns(&self) -> Option<u64> {
        self.inner.next_timer().map(|t| t.0)
    }

    fn state(&self) -> &'static str {
        self.inner.state().name()
    }

    fn advance_ns(&mut self, py: Python<'_>, t: u64) -> PyResult<()> {
        self.call(py, |c| c.advance(SimTime(t)))
    }

    fn inject(&mut self, py: Python<'_>, segment_json: &str) -> PyResult<()> {
        self.call(py, |c| c.inject(&inbound_of(segment_json)?))
    }

    /// The segments sent since the last call, as JSON text (a list of objects).
    fn take_sent(&mut self, py: Python<'_>) -> PyResult<String> {
        self.call(py, |c| {
            let v: Vec<Value> = c.take_sent().iter().map(outbound_json).collect();
            Ok(Value::Array(v).to_string())
        })
    }

    fn listen(&mut self, py: Python<'_>) -> PyResult<()> {
        self.call(py, Core::listen)
    }

    fn connect(&mut self, py: Python<'_>) -> PyResult<()> {
        self.call(py, Core::connect)
    }

    fn accept(&mut self, py: Python<'_>) -> PyResult<()> {
        self.call(py, Core::accept)
    }

    fn write(&mut self, py: Python<'_>, n: u64) -> PyResult<u64> {
        self.call(py, |c| c.write(n))
    }

    fn send(&mut self, py: Python<'_>, n: u64, more: bool) -> PyResult<u64> {
        self.call(py, |c| c.send(n, more))
    }

    fn read(&mut self, py: Python<'_>, n: u64) -> PyResult<u64> {
        self.call(py, |c| c.read(n))
    }

    fn readable(&self) -> u64 {
        self.inner.readable()
    }

    fn eof(&self) -> bool {
        self.inner.eof()
    }

    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        self.call(py, Core::close)
    }

    fn shutdown(&mut self, py: Python<'_>, how: u8) -> PyResult<()> {
        self.call(py, |c| c.shutdown(how))
    }

    /// `value`: an int (or bool) or a str (TCP_CONGESTION).
    fn setsockopt(&mut self, py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = if let Ok(s) = value.downcast::<PyString>() {
            SockVal::Str(s.to_str()?.to_owned())
        } else if let Ok(i) = value.extract::<i64>() {
            SockVal::Int(i)
        } else {
            let shown = value.repr().map(|r| r.to_string()).unwrap_or_default();
            return Err(sim_error_to_py(
                py,
                &bad(
                    &format!("setsockopt.{name}"),
                    format!("invalid value {shown}: an int or a str"),
                ),
            ));
        };
        self.call(py, |c| c.setsockopt(name, &v))
    }

    fn set_min_tso_segs(&mut self, py: Python<'_>, n: u64) -> PyResult<()> {
        self.call(py, |c| c.set_min_tso_segs(n))
    }

    fn getsockopt(&mut self, py: Python<'_>, name: &str) -> PyResult<PyObject> {
        let v = self.call(py, |c| c.getsockopt(name))?;
        Ok(match v {
            SockVal::Int(i) => i.into_py(py),
            SockVal::Str(s) => s.into_py(py),
        })
    }

    fn tcp_info(&mut self, py: Python<'_>) -> PyResult<Vec<(&'static str, u64)>> {
        self.call(py, |c| c.tcp_info())
    }
}
