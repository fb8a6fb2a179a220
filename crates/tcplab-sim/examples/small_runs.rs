//! Per-run overhead: `small_runs FILE.json N` parses, runs and serialises the summary N times,
//! as `run_many` does for each item. Prints runs/s on one thread.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("read");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let t0 = std::time::Instant::now();
    let mut bytes = 0;
    for i in 0..n {
        let mut sc = tcplab_sim::Scenario::from_json_str(&text).expect("scenario");
        sc.set_seed(i as u64 + 1)
            .expect("the scenario with this seed");
        let out = tcplab_sim::run(&sc).expect("run");
        bytes += out.summary.to_string().len();
    }
    let t = t0.elapsed().as_secs_f64();
    println!(
        "{n} runs in {t:.3} s: {:.0} runs/s, {:.1} us per run ({bytes} summary bytes)",
        n as f64 / t,
        t * 1e6 / n as f64
    );
}
