//! Congestion-control and loss-recovery plug-ins end to end: scripted drops of exact segments,
//! regression guards, the classic variants and profiles, and the delivery property for every
//! combination of congestion control and loss recovery.

mod common;

use common::*;
use tcplab_sim::scenario::tcp::{classic_variant, CLASSIC_VARIANTS};
use tcplab_sim::tcp::profile::{self, PROFILES};
use tcplab_sim::tcp::{cc, recovery};
use tcplab_sim::SimOutput;

/// Round-trip propagation of the test path (2 x 20 ms).
const RTT: f64 = 0.040;

/// The [tcp] table for a congestion control and a loss recovery, on the RFC profile, with
/// every segment ACKed (no delayed ACK) so duplicate ACKs can be counted exactly.
fn tcp(cc: &str, lr: &str, extra: &str) -> String {
    tcp_on("rfc", cc, lr, extra)
}

/// For scripted drops: a receive buffer large enough that cwnd, not the receiver's window,
/// limits the sender, so new data can flow during recovery.
const BIG_RWND: &str = "rcv_buf = \"4MB\"\nwindow_scaling = true\n";

fn tcp_on(profile: &str, cc: &str, lr: &str, extra: &str) -> String {
    format!(
        "profile = \"{profile}\"\ncongestion_control = \"{cc}\"\nloss_recovery = \"{lr}\"\n\
         delayed_ack = false\nmax_retries = 100\n{extra}"
    )
}

/// A server -> client FTP download of `size` bytes over one 10 Mbit/s link with 20 ms each
/// way; `data` and `ack` are the error models of the data and ACK directions.
fn scenario(tcp: &str, size: u64, data: &str, ack: &str) -> String {
    direct(tcp, "", size, data, ack, "events = true\npackets = true")
}

fn count(ev: &[Ev], kind: &str) -> usize {
    ev.iter().filter(|e| e.kind == kind).count()
}

/// Send times of the server's transmissions of data segment `k` (all transmissions).
fn sends_of(pk: &[Pkt], k: u64) -> Vec<(f64, u64)> {
    pk.iter()
        .filter(|p| p.event == "send" && p.from_end == 1 && p.seq == seg(k) && p.len > 0)
        .map(|p| (p.time, p.tx))
        .collect()
}

fn completed(out: &SimOutput) -> bool {
    get(&out.summary, "apps.0.completed").as_bool() == Some(true)
}

/// A scripted run: cwnd-limited sender, `data` the data direction's error model.
fn run(cc: &str, lr: &str, extra: &str, size: u64, data: &str) -> SimOutput {
    run_toml(&scenario(
        &tcp(cc, lr, &format!("{BIG_RWND}{extra}")),
        size,
        data,
        NONE,
    ))
}

// ---------------------------------------------------------------------------- two losses

const SIZE: u64 = 200 * MSS;

#[test]
fn two_losses_in_one_window_reno_dupack_needs_a_second_fast_retransmit_or_a_timeout() {
    let out = run("reno", "dupack", "", SIZE, &drops(&[(60, 1), (63, 1)]));
    assert!(completed(&out));
    let ev = events(&out);
    // Reno leaves recovery on the partial ACK for segment 63; that segment is only resent by a
    // second fast retransmit (three more duplicate ACKs) or the timeout.
    assert_eq!(
        ev.iter()
            .find(|e| e.kind == "recovery_exit")
            .map(|e| e.detail.as_str()),
        Some("partial ack")
    );
    let episodes = count(&ev, "fast_retransmit") + count(&ev, "rto");
    assert!(episodes >= 2, "{ev:?}");
    let fr: Vec<&Ev> = ev.iter().filter(|e| e.kind == "fast_retransmit").collect();
    assert_eq!(fr[0].seq, seg(60));
    if fr.len() > 1 {
        assert_eq!(fr[1].seq, seg(63));
    }
    assert_eq!(server(&out, "retransmissions"), 2.0);
}

#[test]
fn two_losses_in_one_window_newreno_recovers_both_in_one_recovery() {
    let out = run("newreno", "newreno", "", SIZE, &drops(&[(60, 1), (63, 1)]));
    assert!(completed(&out));
    let ev = events(&out);
    assert_eq!(count(&ev, "fast_retransmit"), 1);
    assert_eq!(count(&ev, "rto"), 0);
    let exits: Vec<&Ev> = ev.iter().filter(|e| e.kind == "recovery_exit").collect();
    assert_eq!(exits.len(), 1);
    assert_eq!(exits[0].detail, "full ack");
    assert_eq!(server(&out, "retransmissions"), 2.0);
    // The second hole is resent the moment the partial ACK arrives (RFC 6582 step 5), one RTT
    // after the first retransmission.
    let pk = packets(&out);
    let (t1, _) = sends_of(&pk, 60)[1];
    let (t2, _) = sends_of(&pk, 63)[1];
    let partial = pk
        .iter()
        .find(|p| p.event == "recv" && p.from_end == 0 && p.ack == seg(63))
        .expect("partial ACK");
    assert_eq!(t2, partial.time);
    assert!(t2 - t1 > RTT, "{t1} {t2}");
}

#[test]
fn two_losses_in_one_window_sack_retransmits_both_within_one_rtt() {
    let out = run("newreno", "sack", "", SIZE, &drops(&[(60, 1), (63, 1)]));
    assert!(completed(&out));
    let ev = events(&out);
    assert_eq!(count(&ev, "fast_retransmit"), 1);
    assert_eq!(count(&ev, "rto"), 0);
    assert_eq!(server(&out, "retransmissions"), 2.0);
    let pk = packets(&out);
    let (t1, _) = sends_of(&pk, 60)[1];
    let (t2, _) = sends_of(&pk, 63)[1];
    // Both holes are resent before the first retransmission can have been acknowledged.
    let first_acked = pk
        .iter()
        .find(|p| p.event == "recv" && p.from_end == 0 && p.ack > seg(60))
        .expect("ACK of the retransmission")
        .time;
    assert!(t1 < t2 && t2 < first_acked, "{t1} {t2} {first_acked}");
    assert!(t2 - t1 < RTT, "within one RTT: {t1} {t2}");
    // The ACKs carried SACK blocks (RFC 2018), the most recent block first.
    let sacked = pk
        .iter()
        .filter(|p| p.event == "send" && p.from_end == 0 && p.ack == seg(60))
        .count();
    assert!(sacked >= 3);
}

#[test]
fn two_losses_in_one_window_rack_tlp_recovers_both_without_timeout() {
    let out = run("newreno", "rack-tlp", "", SIZE, &drops(&[(60, 1), (63, 1)]));
    assert!(completed(&out));
    let ev = events(&out);
    assert_eq!(count(&ev, "fast_retransmit"), 1);
    assert_eq!(count(&ev, "rto"), 0);
    assert_eq!(server(&out, "retransmissions"), 2.0);
}

#[test]
fn tahoe_slow_starts_and_goes_back_n_after_fast_retransmit() {
    let out = run("tahoe", "dupack", "", SIZE, &drops(&[(60, 1), (63, 1)]));
    assert!(completed(&out));
    let ev = events(&out);
    assert_eq!(count(&ev, "fast_retransmit"), 1);
    // DupAckED's phase ends at the first new ACK; TahoeCC has no fast-recovery window to leave.
    let exits: Vec<&Ev> = ev.iter().filter(|e| e.kind == "recovery_exit").collect();
    assert_eq!(exits.len(), 1);
    assert_eq!(
        (exits[0].seq, exits[0].detail.as_str()),
        (seg(63), "partial ack")
    );
    assert_eq!(count(&ev, "cc_recovery_exit"), 0);
    // cwnd = 1 MSS at the fast retransmit.
    let fr = ev.iter().find(|e| e.kind == "fast_retransmit").unwrap();
    assert!(fr.detail.ends_with(&format!("cwnd {MSS}")), "{}", fr.detail);
    // Go-back-N: after the partial ACK for segment 63, segments after it, which the receiver
    // already holds, are sent again in slow start.
    assert!(server(&out, "retransmissions") > 2.0);
    assert!(num(&out.summary, "connections.0.client.duplicate_segments") > 0.0);
}

// ---------------------------------------------------------------------------- lost retransmission

#[test]
fn a_lost_retransmission_needs_a_timeout_except_with_rack() {
    let lost = drops(&[(60, 1), (60, 2)]);
    for (cc, lr) in [
        ("reno", "dupack"),
        ("newreno", "newreno"),
        ("newreno", "sack"),
    ] {
        let out = run(cc, lr, "", SIZE, &lost);
        assert!(completed(&out), "{lr}");
        assert!(server(&out, "rto_expirations") >= 1.0, "{lr}");
    }
    // RACK sees segments sent after the retransmission delivered while the retransmission is
    // not: lost after RACK.rtt (RFC 8985 section 6), no timeout.
    let out = run("newreno", "rack-tlp", "", SIZE, &lost);
    assert!(completed(&out));
    assert_eq!(server(&out, "rto_expirations"), 0.0);
    let pk = packets(&out);
    let tx: Vec<u64> = sends_of(&pk, 60).iter().map(|s| s.1).collect();
    assert_eq!(tx, [1, 2, 3]);
    let ev = events(&out);
    assert_eq!(count(&ev, "fast_retransmit"), 1);
}

// ---------------------------------------------------------------------------- tail loss

#[test]
fn a_tail_loss_is_repaired_by_a_probe_with_rack_tlp_and_by_the_rto_without() {
    let n = 100;
    let size = n * MSS;
    let tail = drops(&[(n - 1, 1)]);
    let out = run("newreno", "newreno", "", size, &tail);
    assert!(completed(&out));
    assert_eq!(server(&out, "rto_expirations"), 1.0);

    let out = run("newreno", "rack-tlp", "", size, &tail);
    assert!(completed(&out));
    assert_eq!(server(&out, "rto_expirations"), 0.0);
    let ev = events(&out);
    let probes: Vec<&Ev> = ev.iter().filter(|e| e.kind == "tlp").collect();
    assert_eq!(probes.len(), 1, "{ev:?}");
    assert_eq!(probes[0].detail, "probe retransmission");
    // The probe resent the last data segment about two SRTTs after it was first sent, and its
    // ACK counted as a repaired loss (RFC 8985 section 7.4.2).
    let pk = packets(&out);
    let s = sends_of(&pk, n - 1);
    assert_eq!(s.len(), 2);
    let gap = s[1].0 - s[0].0;
    assert!((2.0 * RTT..4.0 * RTT).contains(&gap), "PTO {gap}");
    assert_eq!(count(&ev, "tlp_recovery"), 1);
}

// ---------------------------------------------------------------------------- PRR

/// Duplicate ACKs the server receives between the fast retransmit and its first new segment.
fn dupacks_before_first_new_send(out: &SimOutput) -> usize {
    let pk = packets(out);
    let fr = pk
        .iter()
        .position(|p| p.event == "send" && p.from_end == 1 && p.seq == seg(60) && p.tx == 2)
        .expect("fast retransmit");
    let max_before = pk[..fr]
        .iter()
        .filter(|p| p.event == "send" && p.from_end == 1)
        .map(|p| p.seq)
        .max()
        .unwrap();
    let first_new = pk[fr..]
        .iter()
        .position(|p| p.event == "send" && p.from_end == 1 && p.seq > max_before)
        .expect("new data")
        + fr;
    pk[fr..first_new]
        .iter()
        .filter(|p| p.event == "recv" && p.from_end == 0 && p.ack == seg(60))
        .count()
}

#[test]
fn prr_spreads_the_window_reduction_over_the_recovery() {
    // Without PRR (RFC 6675 alone) the sender waits until pipe has fallen below the halved
    // window, about half a window of ACKs; with PRR it sends one segment per two ACKs at once.
    let one = drops(&[(60, 1)]);
    let plain = run("newreno", "sack", "", SIZE, &one);
    let prr = run("newreno", "sack", "prr = true", SIZE, &one);
    assert!(completed(&plain) && completed(&prr));
    let (a, b) = (
        dupacks_before_first_new_send(&plain),
        dupacks_before_first_new_send(&prr),
    );
    assert!(a >= 10, "without PRR {a}");
    assert!(b <= 4, "with PRR {b}");
    for out in [&plain, &prr] {
        assert_eq!(count(&events(out), "fast_retransmit"), 1);
        assert_eq!(server(out, "rto_expirations"), 0.0);
    }
}

// ---------------------------------------------------------------------------- regression guards

/// Whether any fast retransmit happened after a timeout and before the cumulative ACK passed
/// everything outstanding at that timeout.
fn fast_retransmit_during_rto_recovery(out: &SimOutput) -> bool {
    let ev = events(out);
    let pk = packets(out);
    for rto in ev.iter().filter(|e| e.kind == "rto" && e.seq > 0) {
        let recover = pk
            .iter()
            .filter(|p| p.event == "send" && p.from_end == 1 && p.time <= rto.time)
            .map(|p| p.seq + p.len)
            .max()
            .unwrap_or(0);
        let passed = pk
            .iter()
            .find(|p| {
                p.event == "recv" && p.from_end == 0 && p.time >= rto.time && p.ack >= recover
            })
            .map_or(f64::INFINITY, |p| p.time);
        if ev
            .iter()
            .any(|e| e.kind == "fast_retransmit" && e.time > rto.time && e.time < passed)
        {
            return true;
        }
    }
    false
}

#[test]
fn after_a_timeout_a_single_duplicate_ack_does_not_restart_fast_recovery() {
    // Segment 60 and its fast retransmission are lost, segment 70 three times: after the
    // timeout, the retransmission of 60 is acknowledged up to 70, 70 is resent (and lost) and
    // new data follows; the receiver answers that with ONE duplicate ACK whose SACK blocks cover
    // far more than DupThresh segments. RFC 6675's IsLost would start a fast retransmit on it,
    // but no recovery may start before the ACK passes the timeout's recovery point (RFC 6675
    // section 5.1): the sender logs the ignored trigger and waits for the next timeout.
    let list = drops(&[(60, 1), (60, 2), (70, 1), (70, 2), (70, 3)]);
    let out = run("newreno", "sack", "", SIZE, &list);
    assert!(completed(&out));
    let ev = events(&out);
    assert!(count(&ev, "dupack_ignored") >= 1, "{ev:?}");
    assert_eq!(count(&ev, "fast_retransmit"), 1);
    assert!(!fast_retransmit_during_rto_recovery(&out));
    assert_eq!(server(&out, "rto_expirations"), 2.0);
    // The same losses with every loss recovery: never a fast retransmit in RTO recovery.
    for lr in ["dupack", "newreno", "sack", "rack-tlp"] {
        for cc in ["tahoe", "reno", "newreno", "cubic"] {
            let out = run(cc, lr, "", SIZE, &list);
            assert!(completed(&out), "{cc} {lr}");
            assert!(!fast_retransmit_during_rto_recovery(&out), "{cc} {lr}");
        }
    }
}

#[test]
fn the_retransmission_timer_follows_the_profiles_restart_rule() {
    // The fast retransmission is lost. RFC 6298 5.1 (the rfc profile, `rto_restart = "never"`):
    // the fast retransmit does not restart the running timer, so the timeout fires one RTO (the
    // profile's 1 s minimum) after the last ACK of new data, which restarted it (5.3). With
    // "head" (Linux, ns-2) or "every" (ns-3, Riverbed) it fires one RTO after the fast
    // retransmit.
    for (cc, lr) in [
        ("reno", "dupack"),
        ("newreno", "newreno"),
        ("tahoe", "dupack"),
    ] {
        for rule in ["never", "head", "every"] {
            let extra = format!("rto_restart = \"{rule}\"\n");
            let out = run(cc, lr, &extra, SIZE, &drops(&[(60, 1), (60, 2)]));
            assert!(completed(&out));
            let pk = packets(&out);
            let s = sends_of(&pk, 60);
            let (fr, rto) = (s[1], s[2]);
            assert_eq!((fr.1, rto.1), (2, 3));
            let last_new_ack = pk
                .iter()
                .find(|p| p.event == "recv" && p.from_end == 0 && p.ack == seg(60))
                .expect("the ACK of segment 59")
                .time;
            let from = if rule == "never" { last_new_ack } else { fr.0 };
            assert!(
                ((rto.0 - from) - 1.0).abs() < 1e-9,
                "{cc} {lr} {rule}: {s:?}, last new ACK {last_new_ack}"
            );
        }
    }
}

// ---------------------------------------------------------------------------- names, variants, profiles

#[test]
fn every_registered_name_constructs_and_aliases_work() {
    for (name, desc) in cc::registry() {
        let c = cc::by_name(name).unwrap_or_else(|| panic!("cc {name}"));
        assert_eq!(c.name(), name);
        assert!(!desc.is_empty());
    }
    for (name, _) in recovery::registry() {
        let r = recovery::by_name(name).unwrap_or_else(|| panic!("recovery {name}"));
        assert_eq!(r.name(), name);
    }
    assert_eq!(recovery::by_name("rfc5681").unwrap().name(), "dupack");
    assert!(recovery::by_name("sack").unwrap().wants_sack());
    assert!(recovery::by_name("rack-tlp").unwrap().wants_sack());
    assert!(!recovery::by_name("newreno").unwrap().wants_sack());
}

#[test]
fn classic_variants_resolve_to_their_pairs() {
    let want = [
        ("tahoe", "tahoe", "dupack"),
        ("reno", "reno", "dupack"),
        ("newreno", "newreno", "newreno"),
        ("sack", "newreno", "sack"),
    ];
    assert_eq!(CLASSIC_VARIANTS.len(), want.len());
    for (v, c, l) in want {
        assert_eq!(classic_variant(v), Some((c, l)));
        let out = run_toml(&scenario(
            &format!("profile = \"rfc\"\nvariant = \"{v}\""),
            20 * MSS,
            NONE,
            NONE,
        ));
        assert_eq!(
            get(&out.summary, "connections.0.congestion_control").as_str(),
            Some(c)
        );
        assert_eq!(
            get(&out.summary, "connections.0.loss_recovery").as_str(),
            Some(l)
        );
    }
    let e = tcplab_sim::Scenario::from_toml_str(&scenario("variant = \"vegas\"", 1000, NONE, NONE))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tcp.variant") && e.contains("tahoe, reno, newreno, sack"),
        "{e}"
    );
    // The old name of the duplicate-ACK recovery still parses.
    let out = run("reno", "rfc5681", "", 20 * MSS, NONE);
    assert_eq!(
        get(&out.summary, "connections.0.loss_recovery").as_str(),
        Some("dupack")
    );
}

#[test]
fn linux_and_ns2_profiles() {
    let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
    assert!(names.contains(&"linux") && names.contains(&"ns2"));
    let l = (profile::get("linux").unwrap().tcp)();
    assert_eq!(l.initial_cwnd, 10);
    assert_eq!(l.rto.min.0, 200_000_000);
    assert_eq!(l.rto.initial.0, 1_000_000_000);
    assert_eq!(l.rto.max.0, 120_000_000_000);
    assert_eq!(l.delack_max.0, 40_000_000);
    assert_eq!(l.rcv_buf, 131_072);
    assert!(l.sack && l.timestamps && l.window_scaling && l.prr);
    assert_eq!(
        (l.congestion_control.as_str(), l.loss_recovery.as_str()),
        ("cubic", "rack-tlp")
    );
    let n = (profile::get("ns2").unwrap().tcp)();
    assert_eq!((n.mss, n.rcv_buf, n.initial_cwnd), (1000, 20_000, 2));
    assert_eq!(n.rto.granularity.0, 10_000_000);
    assert_eq!(n.rto.min.0, 200_000_000);
    assert_eq!(n.rto.max.0, 60_000_000_000);
    assert!(!n.delayed_ack && n.limited_transmit);
    assert_eq!(
        (n.congestion_control.as_str(), n.loss_recovery.as_str()),
        ("tahoe", "dupack")
    );
    // Both run a lossy download to completion; Linux's segments carry timestamps.
    for p in ["linux", "ns2"] {
        let out = run_toml(&scenario(
            &format!("profile = \"{p}\""),
            300_000,
            r#"{ model = "per", p = 0.02 }"#,
            NONE,
        ));
        assert!(completed(&out), "{p}");
    }
    let out = run_toml(&scenario("profile = \"linux\"", 100_000, NONE, NONE));
    assert_eq!(num(&out.summary, "connections.0.server.mss"), 1448.0);
    let e = tcplab_sim::Scenario::from_toml_str(&scenario("prr = 1", 1000, NONE, NONE))
        .unwrap_err()
        .to_string();
    assert!(e.contains("tcp.prr"), "{e}");
}

// ---------------------------------------------------------------------------- property

/// Reassemble the client's in-order byte stream from the data segments it received: bytes
/// delivered in order, each once, and whether the FIN came right after the last byte.
fn in_order_bytes(pk: &[Pkt]) -> (u64, bool) {
    let mut next = 1u64;
    let mut waiting: std::collections::BTreeMap<u64, u64> = Default::default();
    let mut fin = None;
    for p in pk
        .iter()
        .filter(|p| p.event == "recv" && p.from_end == 1 && p.flags & 0x02 == 0)
    {
        if p.flags & 0x01 != 0 {
            fin = Some(p.seq + p.len);
        }
        if p.len > 0 {
            let e = waiting.entry(p.seq).or_insert(0);
            *e = (*e).max(p.seq + p.len);
        }
        while let Some((&s, &e)) = waiting.iter().next() {
            if s > next {
                break;
            }
            waiting.remove(&s);
            next = next.max(e);
        }
    }
    (next - 1, fin == Some(next))
}

#[test]
fn every_combination_delivers_every_byte_once_in_order_under_heavy_loss() {
    let ccs: Vec<&str> = cc::registry().iter().map(|r| r.0).collect();
    let lrs: Vec<&str> = recovery::registry().iter().map(|r| r.0).collect();
    // (seed, data PER, ACK PER, size, profile): up to 30 % on both directions; the profiles
    // vary MSS, windows, delayed ACKs, timestamps and window scaling.
    let cases = [
        (11u64, 0.05, 0.0, 150_000u64, "rfc"),
        (12, 0.15, 0.10, 90_000, "linux"),
        (13, 0.30, 0.30, 40_000, "rfc"),
        (14, 0.30, 0.05, 60_000, "linux"),
        (15, 0.10, 0.30, 80_000, "ns2"),
        (16, 0.20, 0.20, 50_000, "riverbed"),
        (17, 0.02, 0.02, 400_000, "linux"),
        (18, 0.25, 0.0, 70_000, "ns2"),
    ];
    let mut runs = 0;
    for (ci, cc) in ccs.iter().enumerate() {
        for (li, lr) in lrs.iter().enumerate() {
            for (k, &(seed, pd, pa, size, profile)) in cases.iter().enumerate() {
                // PRR on for half the runs, in a pattern that covers every pair both ways.
                let prr = (ci + li + k) % 2 == 0;
                let toml = scenario(
                    &format!(
                        "profile = \"{profile}\"\ncongestion_control = \"{cc}\"\n\
                         loss_recovery = \"{lr}\"\nmax_retries = 100\nprr = {prr}"
                    ),
                    size,
                    &format!("{{ model = \"per\", p = {pd} }}"),
                    &format!("{{ model = \"per\", p = {pa} }}"),
                );
                let out = run_seed(&toml, seed);
                let what =
                    format!("{cc} x {lr} prr {prr} {profile} seed {seed} p {pd}/{pa} size {size}");
                assert!(completed(&out), "{what}: did not complete");
                assert_eq!(
                    num(&out.summary, "connections.0.client.bytes_delivered") as u64,
                    size,
                    "{what}"
                );
                let pk = packets(&out);
                let (bytes, fin) = in_order_bytes(&pk);
                assert_eq!(bytes, size, "{what}: reassembled stream");
                assert!(fin, "{what}: FIN after the last byte");
                let dropped = pk
                    .iter()
                    .filter(|p| p.event == "drop_error" && p.from_end == 1 && p.len > 0)
                    .count() as f64;
                assert!(
                    server(&out, "retransmissions") >= dropped,
                    "{what}: {} retransmissions for {dropped} dropped data frames",
                    server(&out, "retransmissions")
                );
                runs += 1;
            }
        }
    }
    assert_eq!(runs, ccs.len() * lrs.len() * cases.len());
}

#[test]
fn pacing_recovery_timers_and_prr_stay_deterministic() {
    let toml = scenario(
        &tcp("bbr", "rack-tlp", "prr = true"),
        200_000,
        r#"{ model = "per", p = 0.05 }"#,
        r#"{ model = "per", p = 0.05 }"#,
    );
    let a = run_seed(&toml, 5);
    let b = run_seed(&toml, 5);
    assert_eq!(a, b);
    assert!(completed(&a));
}

#[test]
fn an_unlimited_bulk_sender_runs_every_combination_to_the_stop_time() {
    for (cc, _) in cc::registry() {
        for (lr, _) in recovery::registry() {
            let toml = format!(
                r#"
[run]
seed = 2
stop_time = "3s"
[tcp]
profile = "linux"
congestion_control = "{cc}"
loss_recovery = "{lr}"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
a = "a"
b = "b"
rate = "20Mbps"
delay = "10ms"
queue = "50p"
[links.ab]
error = {{ model = "per", p = 0.01 }}
[[apps]]
kind = "bulk"
client = "a"
server = "b"
"#
            );
            let out = run_toml(&toml);
            let got = num(&out.summary, "apps.0.bytes_received");
            // At least a sixth of the link's 7.5 MB in 3 s, whatever the algorithm. (One
            // seed's 3 s at 1 % loss is luck: westwood x newreno here gets 1.41 MB with the
            // linux profile's `grow_by_delivered`, 1.51 MB without; over seeds 1-30 both
            // average 2.36 MB, and both have a seed at 0.46 MB.)
            assert!(got > 1.25e6, "{cc} x {lr}: {got}");
        }
    }
}

/// A BBR download of 1 MB over one link of `rate` (20 ms each way) with the receive buffer
/// `rcv_buf`, the packet log on.
fn bbr_one_link(rate: &str, rcv_buf: u64, cc: &str) -> SimOutput {
    run_toml(&one_link(
        "60s",
        &format!("profile = \"linux\"\ncongestion_control = \"{cc}\"\nrcv_buf = {rcv_buf}"),
        &format!("rate = \"{rate}\"\ndelay = \"20ms\""),
        r#"{ model = "none" }"#,
        "1MB",
        "packets = true",
    ))
}

/// How many of the server's data segments after `from` s left at the same instant as another.
fn data_sends_in_pairs(out: &SimOutput, from: f64) -> (usize, usize) {
    let sends: Vec<f64> = packets(out)
        .into_iter()
        .filter(|p| p.event == "send" && p.from_end == 1 && p.len > 0 && p.time > from)
        .map(|p| p.time)
        .collect();
    let shared = (0..sends.len())
        .filter(|&i| (i > 0 && sends[i - 1] == sends[i]) || sends.get(i + 1) == Some(&sends[i]))
        .count();
    (shared, sends.len())
}

#[test]
fn bbr_releases_a_send_quantum_per_pacing_slot() {
    // Above 1.2 Mbit/s of pacing rate a slot releases two segments together (the draft's
    // send quantum, Linux's TSO packet of bbr_min_tso_segs): on a 10 Mbit/s link every data
    // segment after the start leaves paired with another (but the transfer's odd last one).
    let (paired, sent) = data_sends_in_pairs(&bbr_one_link("10Mbps", 2_000_000, "bbr"), 0.2);
    assert!(
        sent > 300 && sent - paired == 1,
        "{paired} of {sent} paired"
    );
    // Below it (a 1 Mbit/s link), one segment a slot: none leaves with another.
    let (paired, sent) = data_sends_in_pairs(&bbr_one_link("1Mbps", 2_000_000, "bbr"), 1.0);
    assert!(sent > 300 && paired == 0, "{paired} of {sent} paired");
    // Limited by a 6-segment receive window, paced pairs keep the window full as Reno's
    // bursts do (segment by segment they left one segment of it unused: 12 % slower than the
    // kernel in the linux-fidelity study).
    let rt = |cc: &str| {
        let out = bbr_one_link("10Mbps", 8760, cc);
        num(&out.summary, "apps.0.response_time_s")
    };
    let (bbr, reno) = (rt("bbr"), rt("reno"));
    assert!(
        (bbr / reno - 1.0).abs() < 1e-3,
        "bbr {bbr} s, reno {reno} s"
    );
}
