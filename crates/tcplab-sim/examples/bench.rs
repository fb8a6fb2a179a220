//! Benchmark one scenario: `cargo run --release --example bench -- FILE [--set-per P] [--repeat N]`.
//!
//! Prints one JSON line: wall time (median of the repeats), events and events/s, data segments
//! sent and segments/s, and the process's peak resident memory (VmHWM). Run one scenario per
//! process so that the peak memory belongs to it alone.
use std::process::ExitCode;
use std::time::Instant;

fn peak_rss_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: bench FILE [--per P] [--repeat N]");
        return ExitCode::from(2);
    };
    let mut per: Option<f64> = None;
    let mut repeat = 1usize;
    let mut i = 2;
    while i < args.len() {
        match (args[i].as_str(), args.get(i + 1)) {
            ("--per", Some(v)) => per = v.parse().ok(),
            ("--repeat", Some(v)) => repeat = v.parse().unwrap_or(1).max(1),
            (a, _) => {
                eprintln!("error: unknown argument {a}");
                return ExitCode::from(2);
            }
        }
        i += 2;
    }
    let mut text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(p) = per {
        // The benchmark scenarios put the data direction's error model on one line.
        text = text.replace(
            "error = { model = \"none\" }",
            &format!("error = {{ model = \"per\", p = {p} }}"),
        );
        text = text.replace("p = \"1%\"", &format!("p = {p}"));
    }
    let sc = match tcplab_sim::Scenario::from_toml_str(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut walls = Vec::new();
    let mut summary = serde_json::Value::Null;
    for _ in 0..repeat {
        let t0 = Instant::now();
        match tcplab_sim::run(&sc) {
            Ok(out) => summary = out.summary,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
        walls.push(t0.elapsed().as_secs_f64());
    }
    walls.sort_by(f64::total_cmp);
    let wall = walls[walls.len() / 2];
    let events = summary["events"].as_f64().unwrap_or(0.0);
    let data: f64 = summary["connections"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    c["server"]["data_segments_sent"].as_f64().unwrap_or(0.0)
                        + c["client"]["data_segments_sent"].as_f64().unwrap_or(0.0)
                })
                .sum()
        })
        .unwrap_or(0.0);
    let line = serde_json::json!({
        "scenario": path,
        "per": per.unwrap_or(0.0),
        "repeat": repeat,
        "wall_s": wall,
        "sim_time_s": summary["sim_time_s"],
        "response_time_s": summary["apps"][0]["response_time_s"],
        "events": events,
        "events_per_s": events / wall,
        "data_segments": data,
        "data_segments_per_s": data / wall,
        "peak_rss_mb": peak_rss_mb(),
    });
    println!("{line}");
    ExitCode::SUCCESS
}
