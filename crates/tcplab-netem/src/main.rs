//! tcplab-netem: applies tcplab's link model (rate with framing overhead, drop-tail queue,
//! propagation delay, per/ber/gilbert-elliott/list errors, per direction) to real Ethernet
//! frames, bridging two interfaces with AF_PACKET sockets. Run it in a network namespace
//! whose kernel forwarding is off, with TSO/GSO/GRO and checksum offload off on the veths.
//!
//! Usage: `tcplab-netem --config CONFIG.json [--output REPORT.json] [--check]`
//!
//! Prints `READY` on stdout once both ports are open; on SIGTERM or SIGINT it stops, writes the
//! report (counters per direction, drop log, kernel socket statistics) as JSON to `--output`
//! (or stdout) and exits 0. Exit status 2: bad configuration; 1: runtime failure.

mod config;
mod flows;
mod fwd;
mod link;
mod packet;
mod pcap;
mod stats;
mod sys;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use clap::Parser;

use crate::config::ConfigFile;
use crate::fwd::Forwarder;

#[derive(Parser, Debug)]
#[command(
    name = "tcplab-netem",
    version,
    about = "tcplab's impairment forwarder"
)]
struct Cli {
    /// JSON configuration file (schema: see the crate's config.rs).
    #[arg(long, short)]
    config: PathBuf,
    /// Where to write the report at exit (default: stdout).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Validate the configuration and exit.
    #[arg(long)]
    check: bool,
}

fn write_report(path: Option<&PathBuf>, report: &serde_json::Value) -> std::io::Result<()> {
    let text = serde_json::to_string(report)?;
    match path {
        Some(p) => {
            // Write then rename, so a reader never sees half a report.
            let tmp = p.with_extension("partial");
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, p)
        }
        None => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{text}")?;
            out.flush()
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let cfg = match ConfigFile::load(&cli.config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tcplab-netem: {e}");
            return ExitCode::from(2);
        }
    };
    if cli.check {
        println!("configuration OK");
        return ExitCode::SUCCESS;
    }
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        if let Err(e) = signal_hook::flag::register(sig, Arc::clone(&stop)) {
            eprintln!("tcplab-netem: cannot install signal handler: {e}");
            return ExitCode::from(1);
        }
    }
    if let Err(e) = sys::set_timer_slack_ns(1) {
        eprintln!("tcplab-netem: warning: timer slack unchanged: {e}");
    }
    if let Some(prio) = cfg.realtime_priority {
        if let Err(e) = sys::set_realtime(prio) {
            eprintln!("tcplab-netem: warning: SCHED_FIFO {prio} refused: {e}");
        }
    }
    if let Some(cpu) = cfg.cpu {
        if let Err(e) = sys::pin_to_cpu(cpu) {
            eprintln!("tcplab-netem: warning: cannot pin to CPU {cpu}: {e}");
        }
    }
    let mut fwd = match Forwarder::new(cfg) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("tcplab-netem: {e}");
            return ExitCode::from(1);
        }
    };
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "READY");
        let _ = out.flush();
    }
    let result = fwd.run(&stop);
    let report = fwd.report();
    if let Err(e) = write_report(cli.output.as_ref(), &report) {
        eprintln!("tcplab-netem: cannot write the report: {e}");
        return ExitCode::from(1);
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tcplab-netem: {e}");
            ExitCode::from(1)
        }
    }
}
