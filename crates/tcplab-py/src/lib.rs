//! `tcplab._core`: the thin Python binding of the simulator core (`tcplab-sim`).
//!
//! Everything crosses the boundary as plain data:
//! - scenarios go in as JSON text (the Python side owns TOML reading and dotted overrides);
//! - a summary comes out as JSON text (the Python side calls `json.loads`);
//! - or, from `run_many_flat` (sweeps), many runs' summaries flattened into columns, the
//!   numeric ones as little-endian buffers (see there);
//! - tables come out as `{table: {column: (dtype, payload)}}`, where a numeric column is
//!   `("<f8" | "<u8" | "<i8", bytes)` — little-endian raw values, ready for `numpy.frombuffer`
//!   without one Python object per element — and a text column is `("str", list[str])`.
//!
//! Errors: each `SimError` variant maps to its own exception class (one exhaustive `match`, no
//! catch-all). The classes live in `tcplab.errors`:
//!
//! ```text
//! TcplabError(Exception)
//! ├── ScenarioError(TcplabError, ValueError)
//! │   ├── ParseError          (SimError::Parse)
//! │   ├── InvalidValueError   (SimError::InvalidValue)
//! │   ├── UnknownFieldError   (SimError::UnknownField)
//! │   ├── MissingFieldError   (SimError::MissingField)
//! │   └── TopologyError       (SimError::Topology)
//! ├── StepError(TcplabError, ValueError)   (SimError::Step: a misuse of the step API)
//! └── InternalError(TcplabError)   (SimError::Internal, and any Rust panic)
//! ```
//!
//! `create_exception!` allows a single base class only, and `ScenarioError` needs two
//! (`TcplabError` and `ValueError`), so the classes are made once per interpreter by calling
//! `type(name, bases, namespace)` and kept in a `GILOnceCell`. Every instance has the attributes
//! `kind`, `field`, `value`, `allowed` (`None` where a variant has no such part) and `format`
//! (`ParseError` only; `None` elsewhere).
//!
//! Every entry point runs under `catch_unwind`, so a panic in the core surfaces as `InternalError`
//! (never a `PanicException` or an abort). Simulation runs release the GIL.

// pyo3 0.22's #[pyfunction] expansion converts PyErr into PyErr, which newer clippy flags.
#![allow(clippy::useless_conversion)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};
use rayon::prelude::*;
use tcplab_sim::error::SimError;
use tcplab_sim::output::{Column, SimOutput, Table};
use tcplab_sim::scenario::Scenario;

mod step;

// ------------------------------------------------------------------------------------------------
// Exceptions

/// The exception classes, created once per interpreter.
struct Exceptions {
    tcplab: Py<PyType>,
    scenario: Py<PyType>,
    parse: Py<PyType>,
    invalid_value: Py<PyType>,
    unknown_field: Py<PyType>,
    missing_field: Py<PyType>,
    topology: Py<PyType>,
    internal: Py<PyType>,
    step: Py<PyType>,
}

static EXCEPTIONS: GILOnceCell<Exceptions> = GILOnceCell::new();

/// `type(name, bases, {"__module__": "tcplab.errors", "__doc__": doc, **defaults})`.
fn new_class(
    py: Python<'_>,
    name: &str,
    doc: &str,
    bases: &[&Py<PyType>],
    defaults: &[&str],
) -> PyResult<Py<PyType>> {
    let ns = PyDict::new_bound(py);
    ns.set_item("__module__", "tcplab.errors")?;
    ns.set_item("__doc__", doc)?;
    for attr in defaults {
        ns.set_item(*attr, py.None())?;
    }
    let bases = PyTuple::new_bound(py, bases.iter().map(|b| b.clone_ref(py)));
    let class = py.get_type_bound::<PyType>().call1((name, bases, ns))?;
    Ok(class.downcast_into::<PyType>()?.unbind())
}

fn exceptions(py: Python<'_>) -> PyResult<&Exceptions> {
    EXCEPTIONS.get_or_try_init(py, || {
        let exception: Py<PyType> = py
            .get_type_bound::<pyo3::exceptions::PyException>()
            .unbind();
        let value_error: Py<PyType> = py.get_type_bound::<PyValueError>().unbind();
        let attrs = ["kind", "field", "value", "allowed", "format"];
        let tcplab = new_class(
            py,
            "TcplabError",
            "Base class of every error raised by tcplab.",
            &[&exception],
            &attrs,
        )?;
        let scenario = new_class(
            py,
            "ScenarioError",
            "The scenario is wrong; the message names the field, the value and what is allowed.\n\
             Also a ValueError.",
            &[&tcplab, &value_error],
            &[],
        )?;
        let sub = |name: &str, doc: &str| new_class(py, name, doc, &[&scenario], &[]);
        Ok(Exceptions {
            parse: sub("ParseError", "The scenario text is not valid TOML or JSON.")?,
            invalid_value: sub(
                "InvalidValueError",
                "A field has a value outside what is allowed (see .field, .value, .allowed).",
            )?,
            unknown_field: sub(
                "UnknownFieldError",
                "A field the scenario format does not know (see .field, .allowed).",
            )?,
            missing_field: sub(
                "MissingFieldError",
                "A required field is absent (see .field, .allowed).",
            )?,
            topology: sub(
                "TopologyError",
                "The topology does not connect what it must (unknown node, no route, ...).",
            )?,
            step: new_class(
                py,
                "StepError",
                "A call of the step API (tcplab.step) the endpoint cannot do: a segment before the \
                 connection exists, a bad option, time going backwards (see .field).\n\
                 Also a ValueError.",
                &[&tcplab, &value_error],
                &[],
            )?,
            internal: new_class(
                py,
                "InternalError",
                "A bug in tcplab (a broken invariant or a panic in the core); please report it.",
                &[&tcplab],
                &[],
            )?,
            tcplab,
            scenario,
        })
    })
}

/// The exception for `err`; the one place where `SimError` meets Python. If making the exception
/// itself fails (e.g. MemoryError), that error is raised instead.
fn sim_error_to_py(py: Python<'_>, err: &SimError) -> PyErr {
    build_exception(py, err).unwrap_or_else(|e| e)
}

fn build_exception(py: Python<'_>, err: &SimError) -> PyResult<PyErr> {
    let exc = exceptions(py)?;
    let none = || py.None();
    let s = |v: &str| PyString::new_bound(py, v).into_any().unbind();
    // (class, field, value, allowed, format)
    let (class, field, value, allowed, format) = match err {
        SimError::Parse { format, .. } => (&exc.parse, none(), none(), none(), s(format)),
        SimError::InvalidValue {
            field,
            value,
            allowed,
        } => (&exc.invalid_value, s(field), s(value), s(allowed), none()),
        SimError::UnknownField { field, allowed } => {
            (&exc.unknown_field, s(field), none(), s(allowed), none())
        }
        SimError::MissingField { field, allowed } => {
            (&exc.missing_field, s(field), none(), s(allowed), none())
        }
        SimError::Topology(_) => (&exc.topology, none(), none(), none(), none()),
        SimError::Internal(_) | SimError::Cancelled => {
            (&exc.internal, none(), none(), none(), none())
        }
        SimError::Step { field, .. } => (&exc.step, s(field), none(), none(), none()),
    };
    let instance = class.bind(py).call1((err.to_string(),))?;
    instance.setattr("kind", err.kind())?;
    instance.setattr("field", field)?;
    instance.setattr("value", value)?;
    instance.setattr("allowed", allowed)?;
    instance.setattr("format", format)?;
    Ok(PyErr::from_value_bound(instance))
}

// ------------------------------------------------------------------------------------------------
// Panics

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_owned()
    }
}

/// Run `f`, turning a panic into `SimError::Internal`.
fn guarded<T>(f: impl FnOnce() -> Result<T, SimError>) -> Result<T, SimError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        Err(SimError::Internal(format!(
            "panic in the simulator core: {}",
            panic_message(payload.as_ref())
        )))
    })
}

/// Run a Python-facing body, turning a panic (in our own conversion code) into `InternalError`.
fn guarded_py<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        Err(sim_error_to_py(
            py,
            &SimError::Internal(format!(
                "panic in the Python binding: {}",
                panic_message(payload.as_ref())
            )),
        ))
    })
}

// ------------------------------------------------------------------------------------------------
// Output conversion

/// Little-endian raw bytes of a numeric column, written straight into a new `bytes` object.
fn le_bytes<'py, const N: usize, T: Copy>(
    py: Python<'py>,
    values: &[T],
    to_le: impl Fn(T) -> [u8; N],
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_bound_with(py, values.len() * N, |buf| {
        for (chunk, v) in buf.chunks_exact_mut(N).zip(values) {
            chunk.copy_from_slice(&to_le(*v));
        }
        Ok(())
    })
}

fn column_to_py<'py>(py: Python<'py>, column: &Column) -> PyResult<Bound<'py, PyTuple>> {
    let (dtype, payload): (&str, Bound<'py, PyAny>) = match column {
        Column::F64(v) => ("<f8", le_bytes(py, v, f64::to_le_bytes)?.into_any()),
        Column::U64(v) => ("<u8", le_bytes(py, v, u64::to_le_bytes)?.into_any()),
        Column::I64(v) => ("<i8", le_bytes(py, v, i64::to_le_bytes)?.into_any()),
        Column::Str(v) => ("str", PyList::new_bound(py, v.iter()).into_any()),
    };
    Ok(PyTuple::new_bound(
        py,
        [PyString::new_bound(py, dtype).into_any(), payload],
    ))
}

fn tables_to_py<'py>(py: Python<'py>, tables: &[Table]) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new_bound(py);
    for table in tables {
        let columns = PyDict::new_bound(py);
        for (name, column) in &table.columns {
            columns.set_item(name, column_to_py(py, column)?)?;
        }
        out.set_item(&table.name, columns)?;
    }
    Ok(out)
}

/// A finished run as the Python side receives it: the summary already as JSON text (made on
/// the worker thread, so that `run_many` does it in parallel) and the tables.
struct Finished {
    summary: String,
    tables: Vec<Table>,
}

fn finish(output: SimOutput) -> Result<Finished, SimError> {
    let summary = serde_json::to_string(&output.summary)
        .map_err(|e| SimError::Internal(format!("summary is not JSON: {e}")))?;
    Ok(Finished {
        summary,
        tables: output.tables,
    })
}

/// `(summary_json, tables)`.
fn output_to_py<'py>(py: Python<'py>, output: &Finished) -> PyResult<Bound<'py, PyTuple>> {
    let summary = &output.summary;
    let tables = tables_to_py(py, &output.tables)?;
    Ok(PyTuple::new_bound(
        py,
        [
            PyString::new_bound(py, summary).into_any(),
            tables.into_any(),
        ],
    ))
}

// ------------------------------------------------------------------------------------------------
// Entry points

fn run_one(scenario_json: &str, cancel: &AtomicBool) -> Result<Finished, SimError> {
    run_one_with(|| Scenario::from_json_str(scenario_json), cancel, finish)
}

/// Make a scenario, run it and turn its output into a `T` (on the calling thread), a panic
/// anywhere in that turned into an internal error.
fn run_one_with<T>(
    scenario: impl FnOnce() -> Result<Scenario, SimError>,
    cancel: &AtomicBool,
    finish: impl FnOnce(SimOutput) -> Result<T, SimError>,
) -> Result<T, SimError> {
    if cancel.load(Ordering::Relaxed) {
        return Err(SimError::Cancelled);
    }
    guarded(|| finish(tcplab_sim::run_cancellable(&scenario()?, cancel)?))
}

/// How often a waiting call looks at Python's signal handlers.
const SIGNAL_POLL: Duration = Duration::from_millis(25);

/// Run `work` on its own thread with the GIL released, looking at Python's signal handlers
/// every 25 ms meanwhile. When a handler raises (Ctrl-C gives `KeyboardInterrupt`), set `cancel`
/// so that the runs in flight give up within about 1,024 events and the queued ones do not
/// start, wait for the work to return, and raise that exception: Ctrl-C stops a long run or a
/// large `run_many` at once instead of after it.
fn interruptible<T: Send>(
    py: Python<'_>,
    cancel: &AtomicBool,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    std::thread::scope(|scope| {
        let caller = std::thread::current();
        let worker = std::thread::Builder::new()
            .name("tcplab-call".into())
            .spawn_scoped(scope, move || {
                let out = work();
                caller.unpark();
                out
            })
            .map_err(|e| sim_error_to_py(py, &SimError::Internal(format!("thread: {e}"))))?;
        let mut raised: Option<PyErr> = None;
        while !worker.is_finished() {
            py.allow_threads(|| std::thread::park_timeout(SIGNAL_POLL));
            if raised.is_none() && !worker.is_finished() {
                if let Err(e) = py.check_signals() {
                    cancel.store(true, Ordering::Relaxed);
                    raised = Some(e);
                }
            }
        }
        let out = py.allow_threads(|| worker.join()).map_err(|payload| {
            sim_error_to_py(
                py,
                &SimError::Internal(format!(
                    "panic in the simulator call: {}",
                    panic_message(payload.as_ref())
                )),
            )
        })?;
        match raised {
            Some(e) => Err(e),
            None => Ok(out),
        }
    })
}

/// The scenario as the core normalised it, with `run.seed` always present (the core's default
/// seed when the scenario gives none), so the Python side never guesses a default.
fn normalised(mut scenario: Scenario) -> Result<String, SimError> {
    let seed = scenario.seed();
    scenario.set_seed(seed)?; // its own seed: nothing is drawn again
    Ok(scenario.to_json())
}

/// Validate a scenario (JSON text, the same structure as the TOML file) and return it normalised
/// (as `Scenario::to_json` gives it, with `run.seed` set) as JSON text. Raises a `ScenarioError` subclass naming the field.
#[pyfunction]
fn validate(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    guarded_py(py, || {
        let owned = scenario_json.to_owned();
        py.allow_threads(|| guarded(|| normalised(Scenario::from_json_str(&owned)?)))
            .map_err(|e| sim_error_to_py(py, &e))
    })
}

/// Validate a scenario given as TOML text and return it normalised as JSON text.
#[pyfunction]
fn validate_toml(py: Python<'_>, scenario_toml: &str) -> PyResult<String> {
    guarded_py(py, || {
        let owned = scenario_toml.to_owned();
        py.allow_threads(|| guarded(|| normalised(Scenario::from_toml_str(&owned)?)))
            .map_err(|e| sim_error_to_py(py, &e))
    })
}

/// Check that a scenario (JSON text) can run: parsed, and its simulation set up (every
/// application's paths, its MSS against each link's MTU, its plug-ins' parameters) without
/// running it. What `validate` cannot see (a path through a host) is an error here.
#[pyfunction]
fn check_setup(py: Python<'_>, scenario_json: &str) -> PyResult<()> {
    guarded_py(py, || {
        let owned = scenario_json.to_owned();
        py.allow_threads(|| {
            guarded(|| {
                let sc = Scenario::from_json_str(&owned)?;
                tcplab_sim::sim::Sim::new(&sc).map(drop)
            })
        })
        .map_err(|e| sim_error_to_py(py, &e))
    })
}

/// The resolved scenario (profile defaults applied, data and ACK paths hop by hop) as JSON text.
#[pyfunction]
fn describe(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    guarded_py(py, || {
        let owned = scenario_json.to_owned();
        py.allow_threads(|| {
            guarded(|| {
                let sc = Scenario::from_json_str(&owned)?;
                Ok(tcplab_sim::output::describe::describe(&sc)?.to_string())
            })
        })
        .map_err(|e| sim_error_to_py(py, &e))
    })
}

/// Run one scenario (JSON text) with the GIL released. Returns `(summary_json, tables)`.
#[pyfunction]
fn run<'py>(py: Python<'py>, scenario_json: &str) -> PyResult<Bound<'py, PyTuple>> {
    guarded_py(py, || {
        let owned = scenario_json.to_owned();
        let cancel = AtomicBool::new(false);
        let output = interruptible(py, &cancel, || run_one(&owned, &cancel))?
            .map_err(|e| sim_error_to_py(py, &e))?;
        output_to_py(py, &output)
    })
}

/// Run `scenario_jsons` in parallel on `threads` worker threads (default: one per CPU) with the
/// GIL released, each finished run turned into a `T` by `finish` on its worker thread, with a
/// state `init` made for each share of the work. In input order; one failing scenario never
/// stops the others.
fn run_all<I: Sync, T: Send, S>(
    py: Python<'_>,
    items: &[I],
    threads: Option<usize>,
    scenario_of: impl Fn(&I) -> Result<Scenario, SimError> + Sync + Send,
    init: impl Fn() -> S + Sync + Send,
    finish: impl Fn(&mut S, SimOutput) -> Result<T, SimError> + Sync + Send,
) -> PyResult<Vec<Result<T, SimError>>> {
    let pool = match threads {
        Some(0) => return Err(PyValueError::new_err("threads must be at least 1")),
        Some(n) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("tcplab-run-{i}"))
                .build()
                .map_err(|e| {
                    sim_error_to_py(py, &SimError::Internal(format!("thread pool: {e}")))
                })?,
        ),
        None => None,
    };
    let cancel = AtomicBool::new(false);
    interruptible(py, &cancel, || {
        let work = || {
            items
                .par_iter()
                .map_init(&init, |state, item| {
                    run_one_with(|| scenario_of(item), &cancel, |out| finish(state, out))
                })
                .collect()
        };
        match &pool {
            Some(pool) => pool.install(work),
            None => work(),
        }
    })
}

/// Run many scenarios in parallel on `threads` worker threads (default: one per CPU), with the
/// GIL released. Returns a list in input order; each item is either `(summary_json, tables)` or,
/// for a scenario that failed, the exception instance (a `TcplabError` subclass, not raised). One
/// failing scenario never stops the others.
#[pyfunction]
#[pyo3(signature = (scenario_jsons, threads=None))]
fn run_many<'py>(
    py: Python<'py>,
    scenario_jsons: Vec<String>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    guarded_py(py, || {
        let outputs = run_all(
            py,
            &scenario_jsons,
            threads,
            |s| Scenario::from_json_str(s),
            || (),
            |_, out| finish(out),
        )?;
        let items = PyList::empty_bound(py);
        for output in outputs {
            match output {
                Ok(out) => items.append(output_to_py(py, &out)?)?,
                Err(e) => items.append(sim_error_to_py(py, &e).into_value(py))?,
            }
        }
        Ok(items)
    })
}

/// Run many scenarios like `run_many`, and return their summaries as columns (see
/// `tcplab_sim::output::flat`): `(names, columns, layouts, run_layouts)`. `names` lists every flat
/// summary column of any run, in first-seen order; `columns[i]` holds column `names[i]` for each
/// run, in input order, missing where a run has no such column. A run that failed has only the
/// column `error`: `"<ExceptionClass>: <message>"`. `layouts` are the distinct lists of column
/// indices the runs have, each in the run's own order, and `run_layouts[r]` is run r's (-1 for
/// a failed run). A column is one of
/// - `("i8", data, valid)` or `("f8", data, valid)`: every value present an int64 or a float,
///   little-endian in `bytes`, with `valid` the Arrow validity bitmap (`bytes`, bit i of byte
///   i/8 set where run i has a value) or `None` when every run has one;
/// - `("null",)`: no run has a value;
/// - `("list", values)`: anything else (text, booleans, integers beside floats), one Python
///   object per run, `None` where missing.
///
/// A sweep of thousands of small runs spends its time here, not in one `json.loads`, one
/// flattening and one dict per run in Python: the flattening is done on the worker threads and
/// numbers cross as buffers, ready for `pyarrow.Array.from_buffers`.
#[pyfunction]
#[pyo3(signature = (scenario_jsons, threads=None))]
fn run_many_flat<'py>(
    py: Python<'py>,
    scenario_jsons: Vec<String>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    use tcplab_sim::{FlatRun, FlatScratch};
    guarded_py(py, || {
        let outputs = run_all(
            py,
            &scenario_jsons,
            threads,
            |s| Scenario::from_json_str(s),
            FlatScratch::default,
            |scratch, out| Ok(FlatRun::with(&out.summary, scratch)),
        )?;
        flat_to_py(py, outputs)
    })
}

/// Like `run_many_flat`, for the runs of a sweep: `points` are scenarios (JSON text) and
/// `runs[i] = (p, seed)` runs `points[p]` with its `run.seed` set to `seed`, exactly as if its
/// text said so. Each point is parsed once, not once per seed (parsing is about a third of a
/// short run), and a run takes its seed with `Scenario::set_seed`, unless parsing draws from the
/// seed (profiles, a repeating ftp application): then each run parses the point with its seed
/// (`Scenario::from_value_with_seed`).
#[pyfunction]
#[pyo3(signature = (points, runs, threads=None))]
fn run_points_flat<'py>(
    py: Python<'py>,
    points: Vec<String>,
    runs: Vec<(usize, u64)>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    use std::sync::OnceLock;
    use tcplab_sim::{FlatRun, FlatScratch};
    /// A point's text, parsed by the first of its runs to start (on the pool's threads, under
    /// its cancel flag): as a scenario, or as JSON when parsing draws from the seed.
    struct Point<'a> {
        text: &'a str,
        parsed: OnceLock<Result<Parsed, SimError>>,
    }
    enum Parsed {
        Once(Scenario),
        Drawing(serde_json::Value),
    }
    guarded_py(py, || {
        let points: Vec<Point> = points
            .iter()
            .map(|text| Point {
                text,
                parsed: OnceLock::new(),
            })
            .collect();
        let outputs = run_all(
            py,
            &runs,
            threads,
            |&(p, seed)| {
                let point = points.get(p).ok_or_else(|| {
                    SimError::Internal(format!("run of point {p}: {} points", points.len()))
                })?;
                let parsed = point.parsed.get_or_init(|| {
                    let value: serde_json::Value =
                        serde_json::from_str(point.text).map_err(|e| SimError::Parse {
                            format: "JSON",
                            message: e.to_string(),
                        })?;
                    Ok(if tcplab_sim::apps::profiles::draws_from_seed(&value) {
                        Parsed::Drawing(value)
                    } else {
                        Parsed::Once(Scenario::from_value(value)?)
                    })
                });
                match parsed.as_ref().map_err(Clone::clone)? {
                    Parsed::Drawing(value) => Scenario::from_value_with_seed(value.clone(), seed),
                    Parsed::Once(sc) => {
                        let mut sc = sc.clone();
                        sc.set_seed(seed)?;
                        Ok(sc)
                    }
                }
            },
            FlatScratch::default,
            |scratch, out| Ok(FlatRun::with(&out.summary, scratch)),
        )?;
        flat_to_py(py, outputs)
    })
}

/// Finished runs' flat summaries as `run_many_flat` returns them.
fn flat_to_py<'py>(
    py: Python<'py>,
    outputs: Vec<Result<tcplab_sim::FlatRun, SimError>>,
) -> PyResult<Bound<'py, PyTuple>> {
    use tcplab_sim::{FlatColumn, FlatTable};
    let mut runs = Vec::with_capacity(outputs.len());
    for output in outputs {
        runs.push(match output {
            Ok(flat) => Ok(flat),
            Err(e) => {
                let err = sim_error_to_py(py, &e);
                let kind = err.get_type_bound(py).name()?.to_string();
                Err(format!("{kind}: {}", err.value_bound(py)))
            }
        });
    }
    // The columns are built on the worker threads too: only the copy into Python objects
    // (one `bytes` per numeric column) holds the GIL.
    let table = FlatTable::new(runs);
    let built: Vec<FlatColumn> = py.allow_threads(|| {
        (0..table.names.len())
            .into_par_iter()
            .map(|c| table.column(c))
            .collect()
    });
    let bitmap = |valid: &Option<Vec<u8>>| match valid {
        Some(bits) => PyBytes::new_bound(py, bits).into_any(),
        None => py.None().into_bound(py),
    };
    let tag = |t: &str| PyString::new_bound(py, t).into_any();
    let columns = PyList::empty_bound(py);
    for column in &built {
        let item = match column {
            FlatColumn::Int { data, valid } => PyTuple::new_bound(
                py,
                [
                    tag("i8"),
                    le_bytes(py, data, i64::to_le_bytes)?.into_any(),
                    bitmap(valid),
                ],
            ),
            FlatColumn::Float { data, valid } => PyTuple::new_bound(
                py,
                [
                    tag("f8"),
                    le_bytes(py, data, f64::to_le_bytes)?.into_any(),
                    bitmap(valid),
                ],
            ),
            FlatColumn::Null => PyTuple::new_bound(py, [tag("null")]),
            FlatColumn::Values(values) => {
                let list = PyList::empty_bound(py);
                for v in values {
                    list.append(match v {
                        Some(v) => json_to_py(py, v)?,
                        None => py.None(),
                    })?;
                }
                PyTuple::new_bound(py, [tag("list"), list.into_any()])
            }
        };
        columns.append(item)?;
    }
    let (lists, of_run) = table.layouts();
    let lists = PyList::new_bound(py, lists.iter().map(|l| PyList::new_bound(py, l)));
    let of_run = PyList::new_bound(py, of_run.iter().map(|l| l.map_or(-1, |l| l as i64)));
    Ok(PyTuple::new_bound(
        py,
        [
            PyList::new_bound(py, &table.names).into_any(),
            columns.into_any(),
            lists.into_any(),
            of_run.into_any(),
        ],
    ))
}

/// A JSON value as the Python object `json.loads` would give.
fn json_to_py(py: Python<'_>, v: &serde_json::Value) -> PyResult<PyObject> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_py(py),
        Value::Number(x) => {
            if let Some(i) = x.as_i64() {
                i.into_py(py)
            } else if let Some(u) = x.as_u64() {
                u.into_py(py)
            } else {
                x.as_f64().unwrap_or(f64::NAN).into_py(py)
            }
        }
        Value::String(s) => s.into_py(py),
        Value::Array(items) => {
            let list = PyList::empty_bound(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(map) => {
            let dict = PyDict::new_bound(py);
            for (k, item) in map {
                dict.set_item(k, json_to_py(py, item)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// The registered congestion controls and loss recoveries (name and one-line description, from
/// the core's registries, with their parameters) and the classic variant names with the pair
/// each resolves to, as JSON text: `{"congestion_controls": [{"name", "description", "params":
/// [{"name", "type", "default", "allowed"}]}], "loss_recoveries": [...], "classic": [{"name",
/// "congestion_control", "loss_recovery"}]}`.
#[pyfunction]
fn variants(py: Python<'_>) -> PyResult<String> {
    use serde_json::json;
    use tcplab_sim::scenario::tcp::{classic_variant, CLASSIC_VARIANTS};
    use tcplab_sim::tcp::{cc, recovery};

    guarded_py(py, || {
        // Each name with its description and parameters (cc_params / lr_params: name, type,
        // default as a scenario writes it, what is allowed).
        let listed = |reg: Vec<(&str, &str)>,
                      params: fn(&str) -> Vec<tcplab_sim::tcp::params::ParamInfo>|
         -> Vec<serde_json::Value> {
            reg.into_iter()
                .map(|(name, description)| {
                    let ps: Vec<_> = params(name).iter().map(|p| p.listing_json()).collect();
                    json!({"name": name, "description": description, "params": ps})
                })
                .collect()
        };
        let mut classic = Vec::with_capacity(CLASSIC_VARIANTS.len());
        for name in CLASSIC_VARIANTS {
            let (cc_name, lr_name) = classic_variant(name).ok_or_else(|| {
                sim_error_to_py(
                    py,
                    &SimError::Internal(format!("classic variant {name:?} does not resolve")),
                )
            })?;
            classic.push(json!({
                "name": name,
                "congestion_control": cc_name,
                "loss_recovery": lr_name,
            }));
        }
        let out = json!({
            "congestion_controls": listed(cc::registry(), cc::default_params),
            "loss_recoveries": listed(recovery::registry(), recovery::default_params),
            "classic": classic,
        });
        Ok(out.to_string())
    })
}

/// Every field of the scenario format (section, key, variant, type, unit, default, allowed,
/// description, example) as JSON text: the list the parser takes its allowed keys from.
#[pyfunction]
fn schema(py: Python<'_>) -> PyResult<String> {
    guarded_py(py, || {
        Ok(tcplab_sim::scenario::schema::to_json().to_string())
    })
}

/// Test hook: panic inside the core-call guard (on a rayon worker when `in_pool`), to check
/// that a panic surfaces as `InternalError`. Not part of the API.
#[pyfunction]
#[pyo3(signature = (in_pool=false))]
fn _panic_for_test(py: Python<'_>, in_pool: bool) -> PyResult<()> {
    guarded_py(py, || {
        let outcome: Result<(), SimError> = py.allow_threads(|| {
            let boom = || guarded(|| panic!("deliberate panic for a test"));
            if in_pool {
                rayon::join(boom, || ()).0
            } else {
                boom()
            }
        });
        outcome.map_err(|e| sim_error_to_py(py, &e))
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let exc = exceptions(py)?;
    for class in [
        &exc.tcplab,
        &exc.scenario,
        &exc.parse,
        &exc.invalid_value,
        &exc.unknown_field,
        &exc.missing_field,
        &exc.topology,
        &exc.internal,
        &exc.step,
    ] {
        let class = class.bind(py);
        m.add(class.name()?, class)?;
    }
    m.add("__version__", tcplab_sim::VERSION)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(validate_toml, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(check_setup, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_many, m)?)?;
    m.add_function(wrap_pyfunction!(run_many_flat, m)?)?;
    m.add_function(wrap_pyfunction!(run_points_flat, m)?)?;
    m.add_function(wrap_pyfunction!(variants, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add_class::<step::Stepper>()?;
    Ok(())
}
