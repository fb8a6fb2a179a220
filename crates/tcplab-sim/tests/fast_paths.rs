//! Property: the endpoints' shortcuts (the plain send loop, the quiet ACK, a receiver's next
//! data segment, a sender's pure ACK of new data) and the simulator's (no look at the
//! application after a segment that cannot concern it) do exactly what the general paths do. Every
//! run is made twice, the second with the shortcuts off (`tcp::general_paths_only`), and the
//! two must agree bit for bit: the summary and every packet sent, received and dropped.

mod common;

use common::*;
use proptest::prelude::*;
use tcplab_sim::tcp::general_paths_only;
use tcplab_sim::{run, Scenario};

const PROFILES: [&str; 3] = ["rfc", "linux", "ns2"];
const CCS: [&str; 6] = ["reno", "newreno", "cubic", "westwood", "vegas", "bbr"];
const RECOVERIES: [&str; 4] = ["rfc5681", "newreno", "sack", "rack-tlp"];
const LOSSES: [f64; 4] = [0.0, 0.002, 0.02, 0.08];
/// Receive buffers and reading rates: a small buffer or a slow reader moves the window the
/// sender is offered (the window update of its pure ACKs).
const BUFFERS: [&str; 2] = ["256kB", "24kB"];
const READERS: [&str; 2] = ["unlimited", "4Mbps"];
/// The applications whose segments the simulator skips differently: an FTP download (the
/// server's ACKs, once it has the request) and a bulk upload of a given size (the client's ACKs).
const APPS: [&str; 2] = ["ftp", "bulk"];

#[allow(clippy::too_many_arguments)]
fn check(
    profile: usize,
    cc: usize,
    lr: usize,
    sack: bool,
    timestamps: bool,
    delayed_ack: bool,
    p_data: usize,
    p_ack: usize,
    size: u64,
    seed: u64,
    buffer: usize,
    reader: usize,
    app: usize,
) -> Result<(), TestCaseError> {
    let per = |p: f64| format!("{{ model = \"per\", p = {p} }}");
    let tcp = format!(
        "profile = \"{}\"\ncongestion_control = \"{}\"\nloss_recovery = \"{}\"\nsack = {sack}\n\
         timestamps = {timestamps}\ndelayed_ack = {delayed_ack}\nwindow_scaling = true\n\
         rcv_buf = \"{}\"\nrcv_read_rate = \"{}\"\nmax_retries = 100",
        PROFILES[profile], CCS[cc], RECOVERIES[lr], BUFFERS[buffer], READERS[reader]
    );
    let toml = direct(
        &tcp,
        "",
        size,
        &per(LOSSES[p_data]),
        &per(LOSSES[p_ack]),
        "packets = true",
    )
    .replace("kind = \"ftp\"", &format!("kind = \"{}\"", APPS[app]));
    let mut sc = Scenario::from_toml_str(&toml).unwrap_or_else(|e| panic!("scenario: {e}"));
    sc.set_seed(seed).expect("a seed");
    let with = run(&sc).expect("run with the shortcuts");
    let without = general_paths_only(|| run(&sc)).expect("run without them");
    prop_assert_eq!(
        &with.summary,
        &without.summary,
        "summaries differ\n{}",
        toml
    );
    prop_assert_eq!(&with.tables, &without.tables, "tables differ\n{}", toml);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn shortcuts_change_nothing(
        profile in 0..PROFILES.len(),
        cc in 0..CCS.len(),
        lr in 0..RECOVERIES.len(),
        sack in any::<bool>(),
        timestamps in any::<bool>(),
        delayed_ack in any::<bool>(),
        p_data in 0..LOSSES.len(),
        p_ack in 0..LOSSES.len(),
        size in 20_000u64..400_000,
        seed in 1u64..1_000,
        buffer in 0..BUFFERS.len(),
        reader in 0..READERS.len(),
        app in 0..APPS.len(),
    ) {
        check(profile, cc, lr, sack, timestamps, delayed_ack, p_data, p_ack, size, seed, buffer, reader, app)?;
    }
}

/// Cases the random search found when a step of `plain_ack` was left out (the reset of the
/// duplicate-ACK count, then of the limited-transmit room): each must keep failing such a
/// mutation, whatever the random search draws.
#[test]
fn cases_that_caught_a_missing_step() {
    for (profile, cc, lr, sack, ts, delack, p_data, p_ack, size, seed) in [
        (0, 1, 0, false, false, false, 3, 0, 210_241, 130),
        (0, 1, 0, false, false, false, 3, 0, 208_780, 130),
        (1, 0, 2, true, true, true, 2, 1, 300_000, 7),
        (2, 1, 1, false, false, true, 3, 2, 150_000, 42),
    ] {
        check(
            profile, cc, lr, sack, ts, delack, p_data, p_ack, size, seed, 0, 0, 0,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
}
