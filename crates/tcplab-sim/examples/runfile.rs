//! Run a scenario file and print its summary: `cargo run --release --example runfile -- FILE`.
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: runfile SCENARIO.toml [SEED]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut sc = match tcplab_sim::Scenario::from_toml_str(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(seed) = std::env::args().nth(2).and_then(|s| s.parse().ok()) {
        sc.set_seed(seed).expect("the scenario with this seed");
    }
    let t0 = std::time::Instant::now();
    match tcplab_sim::run(&sc) {
        Ok(out) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&out.summary).unwrap_or_default()
            );
            eprintln!("wall {:.3}s", t0.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
