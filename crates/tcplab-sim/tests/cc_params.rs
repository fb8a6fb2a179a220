//! `[tcp] cc_params` / `lr_params` end to end: a parameter changes what the simulation does,
//! giving the defaults explicitly changes nothing, and per-application tables apply.

mod common;

use common::*;
use tcplab_sim::output::describe::describe;
use tcplab_sim::{Scenario, SimOutput};

/// A server -> client download of `segs` segments over 10 Mbit/s, 20 ms each way, with the
/// data segments `lost` dropped once; `tcp` goes into [tcp] and `app_tcp` into [apps.tcp].
fn scenario(tcp: &str, app_tcp: &str, segs: u64, lost: &[u64]) -> String {
    let lost: Vec<(u64, u32)> = lost.iter().map(|&k| (k, 1)).collect();
    direct(
        &format!(
            "profile = \"rfc\"\nrcv_buf = \"4MB\"\nwindow_scaling = true\ndelayed_ack = false\n\
             max_retries = 100\n{tcp}"
        ),
        app_tcp,
        segs * MSS,
        &drops(&lost),
        "",
        "events = true\ntrace = true",
    )
}

/// ssthresh / flight at the first fast retransmit (its detail: "flight F ssthresh S cwnd C").
fn cut_ratio(out: &SimOutput) -> f64 {
    let ev = events(out);
    let fr = ev
        .iter()
        .find(|e| e.kind == "fast_retransmit")
        .expect("a fast retransmit");
    let w: Vec<f64> = fr
        .detail
        .split(' ')
        .filter_map(|x| x.parse().ok())
        .collect();
    w[1] / w[0]
}

fn cwnd_trace(out: &SimOutput) -> Vec<u64> {
    u64s(out.table("trace").expect("trace table"), "cwnd")
}

#[test]
fn cubic_beta_sets_the_multiplicative_decrease() {
    let base = "congestion_control = \"cubic\"\nloss_recovery = \"sack\"\n";
    let out = run_toml(&scenario(base, "", 300, &[150]));
    let r = cut_ratio(&out);
    assert!((r - 0.7).abs() < 0.01, "default beta 0.7: {r}");
    let out = run_toml(&scenario(
        &format!("{base}cc_params = {{ beta = 0.5 }}\n"),
        "",
        300,
        &[150],
    ));
    let r = cut_ratio(&out);
    assert!((r - 0.5).abs() < 0.01, "beta 0.5 cuts deeper: {r}");
    // A percentage is a fraction too.
    let pct = run_toml(&scenario(
        &format!("{base}cc_params = {{ beta = \"50%\" }}\n"),
        "",
        300,
        &[150],
    ));
    assert_eq!(pct.summary, out.summary);
}

#[test]
fn explicit_defaults_and_an_empty_table_change_nothing() {
    for (cc, defaults) in [
        (
            "cubic",
            "{ c = 0.4, beta = 0.7, fast_convergence = true, reno_friendly = true }",
        ),
        ("westwood", "{ model = \"paper\", tau = \"1s\", recovery = \"reno\", filter = \"paper\", alpha = 0.9, ack_count = \"paper\", ack_cap = 0, rtt_min = \"samples\", timeout_divisor = \"none\", inflation = true, exit_window = \"ssthresh\", limited_transmit = true, fast_retransmit_guard = true, ns2_window = false, estimate_first = false, syn_timeout = \"profile\", fr_inflation = true, partial_deflation = true, impatient = true }"),
        ("vegas", "{ alpha = 1, beta = 3, gamma = 1 }"),
        ("tahoe", "{ go_back_n = true }"),
        ("bbr", "{ cwnd_gain = 2, bw_filter_rounds = 10, rtprop_filter = \"10s\", probe_rtt_duration = \"200ms\", min_pipe_cwnd = 4, initial_cycle_index = 2, pacing = true }"),
        ("aimd-delay", "{ a = 1, b = 0.5, target = \"5ms\" }"),
    ] {
        let base = format!("congestion_control = \"{cc}\"\nloss_recovery = \"rack-tlp\"\n");
        let plain = run_toml(&scenario(&base, "", 300, &[150, 200]));
        for table in ["{}", defaults] {
            let out = run_toml(&scenario(
                &format!("{base}cc_params = {table}\nlr_params = {{ max_ack_delay = \"200ms\", tlp = true, reo_wnd_mult = 1 }}\n"),
                "",
                300,
                &[150, 200],
            ));
            assert_eq!(out.summary, plain.summary, "{cc} {table}");
            assert_eq!(cwnd_trace(&out), cwnd_trace(&plain), "{cc} {table}");
        }
    }
}

#[test]
fn tahoe_without_go_back_n_resends_only_the_missing_segments() {
    let base = "congestion_control = \"tahoe\"\nloss_recovery = \"dupack\"\n";
    let gbn = run_toml(&scenario(base, "", 200, &[100, 103]));
    let one = run_toml(&scenario(
        base,
        "cc_params = { go_back_n = false }",
        200,
        &[100, 103],
    ));
    let (g, o) = (
        server(&gbn, "retransmissions"),
        server(&one, "retransmissions"),
    );
    // Two holes: go-back-N also resends what the receiver already holds after the first one.
    assert_eq!(o, 2.0, "{o}");
    assert!(g > o, "{g} {o}");
}

#[test]
fn westwood_tau_changes_the_window_after_a_loss() {
    let base = "congestion_control = \"westwood\"\nloss_recovery = \"newreno\"\n";
    let ratios: Vec<f64> = ["10ms", "1s", "20s"]
        .iter()
        .map(|tau| {
            let t = format!("{base}cc_params = {{ tau = \"{tau}\" }}\n");
            cut_ratio(&run_toml(&scenario(&t, "", 400, &[300])))
        })
        .collect();
    // Slow tau: the estimate still lags far behind the rate reached in slow start.
    assert!(ratios[2] < ratios[1], "{ratios:?}");
    assert!(ratios[0] != ratios[1], "{ratios:?}");
}

/// New data the server sent between its first fast retransmit and the end of that recovery.
fn new_data_in_recovery(out: &SimOutput) -> usize {
    let ev = events(out);
    let t0 = ev
        .iter()
        .find(|e| e.kind == "fast_retransmit")
        .expect("a fast retransmit")
        .time;
    let t1 = ev
        .iter()
        .find(|e| e.kind == "recovery_exit" && e.time >= t0)
        .expect("its end")
        .time;
    let sends: Vec<(f64, u64)> = packets(out)
        .iter()
        .filter(|p| p.event == "send" && p.from_end == 1 && p.len > 0)
        .map(|p| (p.time, p.seq + p.len))
        .collect();
    let top = sends
        .iter()
        .filter(|s| s.0 < t0)
        .map(|s| s.1)
        .max()
        .unwrap_or(0);
    sends
        .iter()
        .filter(|s| s.0 >= t0 && s.0 < t1 && s.1 > top)
        .count()
}

#[test]
fn westwood_without_inflation_sends_no_new_data_during_fast_recovery() {
    let run = |params: &str| {
        let tcp = format!(
            "profile = \"rfc\"\nrcv_buf = \"4MB\"\nwindow_scaling = true\ndelayed_ack = false\n\
             congestion_control = \"westwood\"\nloss_recovery = \"dupack\"\ncc_params = {params}\n"
        );
        run_toml(&direct(
            &tcp,
            "",
            2000 * MSS,
            &drops(&[(150, 1)]),
            "",
            "events = true\npackets = true",
        ))
    };
    // Each duplicate ACK past cwnd lets one new segment out (RFC 5681 step 4) ...
    assert!(new_data_in_recovery(&run("{}")) > 0);
    // ... but not without inflation (the ns-2 module), nor in the module's preset.
    assert_eq!(new_data_in_recovery(&run("{ inflation = false }")), 0);
    assert_eq!(new_data_in_recovery(&run("{ model = \"ns2\" }")), 0);
}

#[test]
fn westwood_nr_under_dupack_recovery_is_refused() {
    let tcp = "congestion_control = \"westwood\"\nloss_recovery = \"dupack\"\n\
               cc_params = { recovery = \"newreno\" }\n";
    let e = Scenario::from_toml_str(&direct(tcp, "", 10 * MSS, "{ model = \"none\" }", "", ""))
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("tcp.cc_params.recovery") && e.contains("loss_recovery"),
        "{e}"
    );
    let ok = tcp.replace("\"dupack\"", "\"newreno\"");
    assert!(
        Scenario::from_toml_str(&direct(&ok, "", 10 * MSS, "{ model = \"none\" }", "", "")).is_ok()
    );
}

#[test]
fn rack_tlp_without_probes_repairs_a_tail_loss_by_timeout() {
    let base = "congestion_control = \"newreno\"\nloss_recovery = \"rack-tlp\"\n";
    let probe = run_toml(&scenario(base, "", 100, &[99]));
    assert_eq!(server(&probe, "rto_expirations"), 0.0);
    let rto = run_toml(&scenario(
        &format!("{base}lr_params = {{ tlp = false }}\n"),
        "",
        100,
        &[99],
    ));
    assert_eq!(server(&rto, "rto_expirations"), 1.0);
    assert!(!events(&rto).iter().any(|e| e.kind == "tlp"));
}

#[test]
fn an_application_table_replaces_the_scenario_table_and_describe_lists_every_parameter() {
    let toml = scenario(
        "congestion_control = \"westwood\"\ncc_params = { tau = \"0.5s\" }\n",
        "congestion_control = \"cubic\"\ncc_params = { beta = 0.6 }",
        300,
        &[150],
    );
    let sc = Scenario::from_toml_str(&toml).unwrap();
    let d = describe(&sc).unwrap();
    let t = get(&d, "apps.0.tcp");
    assert_eq!(
        t.get("cc_params").unwrap(),
        &serde_json::json!({
            "c": 0.4,
            "beta": 0.6,
            "fast_convergence": true,
            "reno_friendly": true,
            "hystart": false,
            "alpha_to_one": true,
            "target_min_rtt": false,
            "unknown_max_growth": false,
            "packets": false
        })
    );
    assert_eq!(t.get("lr_params").unwrap(), &serde_json::json!({}));
    assert!((cut_ratio(&tcplab_sim::run(&sc).unwrap()) - 0.6).abs() < 0.01);

    // Inherited westwood parameters do not fit the application's cubic: an error, never ignored.
    let toml = scenario(
        "congestion_control = \"westwood\"\ncc_params = { tau = \"0.5s\" }\n",
        "congestion_control = \"cubic\"",
        300,
        &[150],
    );
    let e = Scenario::from_toml_str(&toml).unwrap_err().to_string();
    assert!(
        e.contains("apps[0].tcp.cc_params.tau") && e.contains("westwood"),
        "{e}"
    );
}
