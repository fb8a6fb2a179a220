//! tcplab-sim: the discrete-event simulator core of tcplab.
//!
//! Pure Rust, no Python. Time is integer nanoseconds ([`engine::time::SimTime`]); the event
//! queue is ordered by `(time, seq)` ([`engine::queue`]); every random component has its own
//! seeded stream ([`engine::rng`]). A [`scenario::Scenario`] is parsed from TOML or JSON and run
//! with [`run`], which returns a JSON summary and columnar tables ([`output::SimOutput`]).
//!
//! The folders: [`engine`] (time, random streams, the event queue, where frames are kept),
//! [`net`] (packets, links, error models, queue disciplines, routes, filters), [`tcp`] (the
//! endpoint, its congestion controls and loss recoveries), [`apps`] (what runs over the
//! connections), [`scenario`] (the file format, section by section), [`output`] (what a run
//! returns) and [`sim`] (the world that runs a scenario, and its report).

// output/describe.rs builds the resolved TCP settings in one json! literal.
#![recursion_limit = "256"]

pub mod apps;
pub mod engine;
pub mod error;
pub mod net;
pub mod output;
pub mod scenario;
pub mod sim;
pub mod tcp;

pub use error::{SimError, SimResult};
pub use output::flat::{
    flatten_summary, visit_flat, FlatColumn, FlatNames, FlatRun, FlatScratch, FlatTable,
};
pub use output::{Column, SimOutput, Table};
pub use scenario::Scenario;
pub use sim::{run, run_cancellable};

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
