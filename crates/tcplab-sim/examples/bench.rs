//! Benchmark one scenario: `cargo run --release --example bench -- FILE [--per P] [--repeat N]`.
//!
//! FILE is TOML, or JSON when its name ends in `.json`. Prints one JSON line: the time to parse
//! and validate the file, the set-up time (`Sim::new`: routes, links, endpoints), the run's wall
//! time (median of the repeats, set-up excluded) and its two parts, the events to the end of the
//! run (`events_s`) and the making of its output (`output_s`: the summary and tables, and the
//! simulator's memory given back), events and events/s, data segments sent and segments/s, and
//! the process's peak resident memory (VmHWM) once after parsing and set-up and once at the end.
//! Run one scenario per process so that the peak memory belongs to it alone.
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
            ("--per", Some(v)) => match v.parse::<f64>() {
                Ok(p) if (0.0..=1.0).contains(&p) => per = Some(p),
                _ => {
                    eprintln!("error: --per {v}: a probability between 0 and 1");
                    return ExitCode::from(2);
                }
            },
            ("--repeat", Some(v)) => match v.parse::<usize>() {
                Ok(n) if n >= 1 => repeat = n,
                _ => {
                    eprintln!("error: --repeat {v}: a whole number of at least 1");
                    return ExitCode::from(2);
                }
            },
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
        let before = text.clone();
        text = text.replace(
            "error = { model = \"none\" }",
            &format!("error = {{ model = \"per\", p = {p} }}"),
        );
        text = text.replace("p = \"1%\"", &format!("p = {p}"));
        if text == before {
            eprintln!(
                "error: --per {p}: {path} has no line `error = {{ model = \"none\" }}` or \
                 `p = \"1%\"` to set the loss on; edit the scenario's error model instead"
            );
            return ExitCode::from(2);
        }
    }
    let t0 = Instant::now();
    let parsed = if path.ends_with(".json") {
        tcplab_sim::Scenario::from_json_str(&text)
    } else {
        tcplab_sim::Scenario::from_toml_str(&text)
    };
    let parse_s = t0.elapsed().as_secs_f64();
    drop(text); // the run's peak memory is the scenario's and the simulation's, not the file's
    let sc = match parsed {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut walls = Vec::new();
    let mut setups = Vec::new();
    let mut events_only = Vec::new();
    let mut outputs = Vec::new();
    let mut summary = serde_json::Value::Null;
    let mut setup_peak: Option<f64> = None;
    for _ in 0..repeat {
        drop(std::mem::take(&mut summary)); // not kept through the next run
        let t0 = Instant::now();
        let sim = match tcplab_sim::sim::Sim::new(&sc) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        };
        setups.push(t0.elapsed().as_secs_f64());
        if setup_peak.is_none() {
            setup_peak = peak_rss_mb();
        }
        let t0 = Instant::now();
        let ended = match sim.run_to_end(None) {
            Ok(ended) => ended,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        };
        let t1 = Instant::now();
        summary = ended.output().summary;
        let t2 = Instant::now();
        walls.push((t2 - t0).as_secs_f64());
        events_only.push((t1 - t0).as_secs_f64());
        outputs.push((t2 - t1).as_secs_f64());
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let wall = median(&mut walls);
    let setup = median(&mut setups);
    let events_s = median(&mut events_only);
    let output_s = median(&mut outputs);
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
    let completed = summary["apps"]
        .as_array()
        .map_or(0, |a| a.iter().filter(|x| x["completed"] == true).count());
    let line = serde_json::json!({
        "scenario": path,
        "per": per.unwrap_or(0.0),
        "repeat": repeat,
        "parse_s": parse_s,
        "setup_s": setup,
        "wall_s": wall,
        "events_s": events_s,
        "output_s": output_s,
        "ns_per_data_segment": wall * 1e9 / data.max(1.0),
        "sim_time_s": summary["sim_time_s"],
        "response_time_s": summary["apps"][0]["response_time_s"],
        "apps_completed": completed,
        "events": events,
        "events_per_s": events / wall,
        "data_segments": data,
        "data_segments_per_s": data / wall,
        "setup_peak_rss_mb": setup_peak,
        "peak_rss_mb": peak_rss_mb(),
    });
    println!("{line}");
    ExitCode::SUCCESS
}
