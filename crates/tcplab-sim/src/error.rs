//! Typed errors of the simulator core. Every variant carries enough to name the field, the value
//! and what is allowed; the Python binding maps each variant to its own exception class.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum SimError {
    /// The scenario text is not valid TOML/JSON.
    #[error("scenario is not valid {format}: {message}")]
    Parse {
        format: &'static str,
        message: String,
    },
    /// A field has a value outside what is allowed.
    #[error("{field}: invalid value {value}: {allowed}")]
    InvalidValue {
        field: String,
        value: String,
        allowed: String,
    },
    /// A field the scenario format does not know.
    #[error("{field}: unknown field; allowed fields here: {allowed}")]
    UnknownField { field: String, allowed: String },
    /// A required field is absent.
    #[error("{field}: missing; {allowed}")]
    MissingField { field: String, allowed: String },
    /// The topology does not connect what it must.
    #[error("topology: {0}")]
    Topology(String),
    /// An internal invariant broke; a bug in tcplab, reported instead of a panic.
    #[error("internal error (please report): {0}")]
    Internal(String),
    /// The caller asked the run to stop (its cancel flag was set) before it finished.
    #[error("run cancelled before it finished")]
    Cancelled,
    /// A call of the step-by-step API (`sim::step`) that the endpoint cannot do: a segment
    /// before the connection exists, a bad option, time going backwards. `field` names the call
    /// or its argument (`inject.flags`, `advance`).
    #[error("{field}: {message}")]
    Step { field: String, message: String },
}

impl SimError {
    pub fn invalid(
        field: impl Into<String>,
        value: impl ToString,
        allowed: impl Into<String>,
    ) -> Self {
        SimError::InvalidValue {
            field: field.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }
    /// A misuse of the step API: `field` the call or argument, `message` what is wrong and what
    /// is allowed.
    pub fn step(field: impl Into<String>, message: impl Into<String>) -> Self {
        SimError::Step {
            field: field.into(),
            message: message.into(),
        }
    }
    /// A short machine-readable kind, used by the Python exception mapping.
    pub fn kind(&self) -> &'static str {
        match self {
            SimError::Parse { .. } => "parse",
            SimError::InvalidValue { .. } => "invalid_value",
            SimError::UnknownField { .. } => "unknown_field",
            SimError::MissingField { .. } => "missing_field",
            SimError::Topology(_) => "topology",
            SimError::Internal(_) => "internal",
            SimError::Cancelled => "cancelled",
            SimError::Step { .. } => "step",
        }
    }
}

pub type SimResult<T> = Result<T, SimError>;
