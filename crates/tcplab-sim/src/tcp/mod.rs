//! TCP: endpoints and their plug-ins.
//!
//! An `Endpoint` (`endpoint/`, one file per seam) is one side of a connection, both sender and
//! receiver, built from a `TcpConfig` (`config.rs`, what a stack profile sets) and two plug-ins
//! that combine freely: a congestion control (`cc/`) and a loss recovery (`recovery/`). Beside
//! them: the sender's scoreboard (`scoreboard.rs`), the RTO estimator (`rto.rs`), receive-buffer
//! autotuning (`autotune.rs`), ns-2.35's own rules (`ns2.rs`) and the plug-ins' parameters
//! (`params.rs`).
//!
//! The endpoint follows RFC 9293 for the state machine (three-way handshake, FIN teardown),
//! RFC 5681 for congestion control hooks and duplicate ACKs, RFC 6298 for the retransmission
//! timer, RFC 1122 for delayed ACKs and silly-window avoidance, RFC 7323 for window scaling and
//! timestamps, RFC 2018 for SACK blocks, RFC 3042 for limited transmit and RFC 6582's `recover`
//! after a timeout; each file of `endpoint/` cites the sections it implements.
//!
//! Deliberate simplifications (listed so nobody has to discover them):
//! - sequence numbers are 64-bit and start at 0 (ISS = 0; the SYN takes 0, data starts at 1);
//! - data are virtual: only sequence ranges travel, no bytes;
//! - TIME-WAIT lasts until the run ends (no 2 MSL timer), it still ACKs a retransmitted FIN;
//! - no urgent data, no RST generation for unknown connections, no simultaneous open;
//! - a zero-window probe is one byte of new data sent beyond the window; the RTO timer
//!   retransmits it with back-off, which is the persist timer's behaviour.

pub mod autotune;
pub mod cc;
mod config;
mod endpoint;
pub mod ns2;
pub mod params;
pub mod profile;
pub mod recovery;
pub mod rto;
pub mod scoreboard;

pub use config::{ssthresh_text, LossBase, RtoRestart, SynLoss, TcpConfig, SSTHRESH_UNLIMITED};
pub(crate) use endpoint::shortcuts_allowed;
pub use endpoint::{general_paths_only, Ctx, Endpoint, EndpointStats, State};
