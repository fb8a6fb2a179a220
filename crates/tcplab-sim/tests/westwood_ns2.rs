//! The ns-2 TCP Westwood module's agent rules (`cc_params = { model = "ns2" }` in the `ns2`
//! profile), one test each, against the same scenario with the rule's knob set back: limited
//! transmit, the fast-retransmit guard, ssthresh and cwnd as `TcpAgent`'s int and double,
//! the estimate's order, the window after a lost SYN-ACK, and WestwoodNR's NewReno defaults.
//! One 2 Mbit/s hop, 1000-byte packets, as the shared ns-2 grid (`ns2.rs`).

mod common;

use common::*;
use tcplab_sim::SimOutput;

const PKT: u64 = 1000;

/// A 400 kB download in the ns2 profile over 2 Mbit/s with `delay` each way; `drops` are
/// (packet index, transmission) pairs lost on the data direction.
fn run(delay: &str, tcp: &str, drops: &[(u64, u32)]) -> SimOutput {
    let list: Vec<String> = drops
        .iter()
        .map(|&(k, tx)| format!("{{ seq = {}, tx = {tx} }}", 1 + k * PKT))
        .collect();
    let data = format!("{{ model = \"list\", segments = [{}] }}", list.join(", "));
    run_toml(&one_link(
        "30s",
        &format!("profile = \"ns2\"\ncongestion_control = \"westwood\"\n{tcp}"),
        &format!("rate = \"2Mbps\"\ndelay = \"{delay}\"\nframing = \"none\"\nqueue = \"50p\""),
        &data,
        "400kB",
        "events = true\npackets = true\ntrace = true",
    ))
}

/// Westwood (Reno's recovery) with `cc_params` = the module plus `knobs`.
fn westwood(knobs: &str) -> String {
    format!("loss_recovery = \"dupack\"\ncc_params = {{ model = \"ns2\"{knobs} }}")
}

/// WestwoodNR with `knobs`, and a 100-packet receive window (the window never binds).
fn westwood_nr(knobs: &str) -> String {
    format!(
        "loss_recovery = \"newreno\"\nrcv_buf = 100000\n\
         cc_params = {{ model = \"ns2\", recovery = \"newreno\"{knobs} }}"
    )
}

fn kinds(out: &SimOutput, of: &[&str]) -> Vec<(String, u64, String)> {
    events(out)
        .into_iter()
        .filter(|e| of.contains(&e.kind.as_str()))
        .map(|e| (e.kind, e.seq, e.detail))
        .collect()
}

/// The first fast retransmit's "flight F ssthresh S cwnd C", as numbers.
fn first_fr(out: &SimOutput) -> (f64, [u64; 3]) {
    let e = events(out)
        .into_iter()
        .find(|e| e.kind == "fast_retransmit")
        .expect("a fast retransmit");
    let w: Vec<u64> = e.detail.split(' ').filter_map(|x| x.parse().ok()).collect();
    (e.time, [w[0], w[1], w[2]])
}

#[test]
fn no_packet_leaves_on_the_first_duplicate_acks() {
    // Packet 30 lost in slow start with a 100-packet receive window (cwnd limits): the module's
    // recv only counts the first two duplicate ACKs; ns-2's send_one (limited transmit) sends
    // one new packet on each.
    let new_before_fr = |knobs: &str| {
        let out = run(
            "4ms",
            &format!("{}\nrcv_buf = 100000", westwood(knobs)),
            &[(30, 1)],
        );
        let (t_fr, _) = first_fr(&out);
        let pk = packets(&out);
        // The first duplicate ACK: the second ACK of packet 30 the server receives.
        let t_dup = pk
            .iter()
            .filter(|p| p.event == "recv" && p.from_end == 0 && p.ack == 1 + 30 * PKT)
            .nth(1)
            .expect("duplicate ACKs")
            .time;
        pk.iter()
            .filter(|p| p.event == "send" && p.from_end == 1 && p.len > 0 && p.tx == 1)
            .filter(|p| p.time >= t_dup && p.time <= t_fr)
            .count()
    };
    assert_eq!(new_before_fr(""), 0);
    assert_eq!(new_before_fr(", limited_transmit = true"), 2);
}

#[test]
fn a_fast_retransmit_after_a_timeout_is_not_ignored() {
    // 49 ms: BWE x RTTmin is about 22 packets. Packet 200 and its fast retransmission are lost:
    // the timeout resends from 200 (cwnd 1). Holes at 204, 208 and 216 make the slow start
    // after it resend packets the receiver holds: cwnd 2 sends 204-205, cwnd 3 208-210, cwnd
    // 4 216-219, whose last three answer the ACK of 220 three times while 220 is not above
    // the recovery point (219). The module's recv calls dupack_action on the third (cwnd 5 by
    // then: one packet per new ACK of 204, 208, 216 and 220); the guard ignores them.
    let drops = [(200, 1), (200, 2), (204, 1), (208, 1), (216, 1)];
    let of = ["fast_retransmit", "rto", "dupack_ignored"];
    let module = kinds(&run("49ms", &westwood(""), &drops), &of);
    let fr220 = (
        "fast_retransmit".to_string(),
        1 + 220 * PKT,
        "flight 5000 ssthresh 17000 cwnd 5000".to_string(),
    );
    assert_eq!(module.len(), 3, "{module:?}");
    assert_eq!((module[0].1, module[1].0.as_str()), (1 + 200 * PKT, "rto"));
    assert_eq!(module[2], fr220);
    let guarded = kinds(
        &run("49ms", &westwood(", fast_retransmit_guard = true"), &drops),
        &of,
    );
    assert_eq!(guarded.len(), 3, "{guarded:?}");
    assert_eq!(
        (guarded[2].0.as_str(), guarded[2].1),
        ("dupack_ignored", 1 + 220 * PKT)
    );
}

#[test]
fn ssthresh_above_the_initial_ssthresh_is_whole_packets() {
    // 49 ms, packet 200 lost: BWE x RTTmin = 223397.69 B/s x 0.1 s = 22339 bytes, above the
    // profile's initial ssthresh (window_ 20 packets). The module's ssthresh_ is an int: 22
    // packets; cwnd (above it) comes down to it.
    let (_, ns2) = first_fr(&run("49ms", &westwood(""), &[(200, 1)]));
    assert_eq!(ns2, [20_000, 22_000, 22_000]);
    let (_, bytes) = first_fr(&run("49ms", &westwood(", ns2_window = false"), &[(200, 1)]));
    assert_eq!(bytes, [20_000, 22_339, 22_000]);
}

#[test]
fn cwnd_is_a_double_and_a_fast_retransmit_below_ssthresh_keeps_its_fraction() {
    // 10 % loss at 49 ms: congestion avoidance opens cwnd by 1/cwnd packets with the fraction
    // kept (opencwnd), and a fast retransmit lowers it to ssthresh only if above, so some fast
    // retransmits leave a cwnd of a fraction of packets, always below ssthresh; ssthresh is
    // always whole packets. Without the agent's window both are whole packets.
    let lossy = |knobs: &str| {
        let toml = one_link(
            "60s",
            &format!(
                "profile = \"ns2\"\ncongestion_control = \"westwood\"\n{}",
                westwood(knobs)
            ),
            "rate = \"2Mbps\"\ndelay = \"49ms\"\nframing = \"none\"\nqueue = \"50p\"",
            "{ model = \"per\", p = 0.1 }",
            "10MB",
            "events = true",
        );
        let out = run_seed(&toml, 3);
        events(&out)
            .into_iter()
            .filter(|e| e.kind == "fast_retransmit")
            .map(|e| {
                let w: Vec<u64> = e.detail.split(' ').filter_map(|x| x.parse().ok()).collect();
                (w[1], w[2])
            })
            .collect::<Vec<_>>()
    };
    let ns2 = lossy("");
    assert!(ns2.len() > 20, "{}", ns2.len());
    assert!(ns2.iter().all(|&(s, _)| s % PKT == 0), "{ns2:?}");
    let frac: Vec<_> = ns2.iter().filter(|&&(_, c)| c % PKT != 0).collect();
    assert!(!frac.is_empty(), "{ns2:?}");
    assert!(frac.iter().all(|&&(s, c)| c < s), "{frac:?}");
    let whole = lossy(", ns2_window = false");
    assert!(whole.iter().all(|&(_, c)| c % PKT == 0), "{whole:?}");
}

#[test]
fn the_third_duplicate_acks_sample_is_in_the_ssthresh_it_sets() {
    // In bytes (ns2_window off) to see the estimate's effect: the module's recv updates the
    // estimate before dupack_action, so ssthresh = BWE x RTTmin with the BWE the trace shows
    // after that ACK; after the sender's decision it is the estimate one sample earlier. Both
    // orders hear the same samples (the same BWE after the ACK).
    let at_fr = |knobs: &str| {
        let out = run(
            "49ms",
            &westwood(&format!(", ns2_window = false{knobs}")),
            &[(200, 1)],
        );
        let (t, [_, ssthresh, _]) = first_fr(&out);
        let tr = out.table("trace").unwrap();
        let (time, end) = (f64s(tr, "time_s"), u64s(tr, "end"));
        let (bwe, rtt_min) = (f64s(tr, "bwe_Bps"), f64s(tr, "bwe_rtt_min_s"));
        let i = (0..time.len())
            .rfind(|&i| end[i] == 1 && time[i] <= t)
            .unwrap();
        (ssthresh, (bwe[i] * rtt_min[i]) as u64, bwe[i])
    };
    let (first, w, bwe) = at_fr("");
    assert_eq!(first, w);
    assert_eq!(first, 22_339);
    let (after, w2, bwe2) = at_fr(", estimate_first = false");
    assert_eq!((w2, bwe2), (w, bwe));
    assert!(after < first, "{after} {first}");
}

#[test]
fn a_lost_syn_ack_leaves_the_initial_window_and_ssthresh_2() {
    // The server's SYN-ACK (frame 0 of the data direction) is lost once. ns-2's TcpAgent
    // timeout sets wnd_init_ = 1 for a first packet lost (bugfix_ss_): cwnd 1. The module's
    // timeout lacks that line: the SYN's ACK sets cwnd_ = initial_window() = 2, and ssthresh_
    // comes from a zero estimate, kept at 2 packets.
    let out = |knobs: &str| {
        run_toml(&one_link(
            "30s",
            &format!(
                "profile = \"ns2\"\ncongestion_control = \"westwood\"\n{}",
                westwood(knobs)
            ),
            "rate = \"2Mbps\"\ndelay = \"4ms\"\nframing = \"none\"",
            "{ model = \"list\", frames = [0] }",
            "100kB",
            "events = true\npackets = true",
        ))
    };
    let window = |o: &SimOutput| -> (Vec<String>, usize) {
        let rule: Vec<String> = events(o)
            .into_iter()
            .filter(|e| e.kind == "syn_loss_window")
            .map(|e| e.detail)
            .collect();
        let sends: Vec<f64> = packets(o)
            .iter()
            .filter(|p| p.event == "send" && p.from_end == 1 && p.len > 0)
            .map(|p| p.time)
            .collect();
        // The first flight: what leaves within 4 ms of the first data packet (RTT 8 ms).
        (
            rule,
            sends.iter().filter(|&&t| t < sends[0] + 0.004).count(),
        )
    };
    let module = out("");
    assert_eq!(server(&module, "syn_retransmissions"), 1.0);
    assert_eq!(window(&module), (vec!["cwnd 2000 ssthresh 2000".into()], 2));
    assert_eq!(
        window(&out(", syn_timeout = \"profile\"")),
        (vec!["cwnd 1000 ssthresh 2000".into()], 1)
    );
}

/// New data packets sent between the first fast retransmit and the end of its recovery.
fn new_in_recovery(out: &SimOutput) -> usize {
    let (t0, _) = first_fr(out);
    let t1 = events(out)
        .into_iter()
        .find(|e| e.time > t0 && (e.kind == "recovery_exit" || e.kind == "rto"))
        .expect("its end")
        .time;
    let sends: Vec<(f64, u64)> = packets(out)
        .iter()
        .filter(|p| p.event == "send" && p.from_end == 1 && p.len > 0)
        .map(|p| (p.time, p.seq))
        .collect();
    let top = sends
        .iter()
        .filter(|s| s.0 < t0)
        .map(|s| s.1)
        .max()
        .unwrap();
    sends
        .iter()
        .filter(|s| s.0 >= t0 && s.0 < t1 && s.1 > top)
        .count()
}

#[test]
fn westwood_nr_inflation_starts_at_zero() {
    // Packet 40 lost with 44 in flight: 43 duplicate ACKs, cwnd 21 after the fast retransmit.
    // New packets leave while 44 < 21 + inflation: with dupwnd_ = numdupacks_ = 3 at the fast
    // retransmit the inflation ends at 43 (20 new packets); the module's dupack_action never
    // sets it, so it ends at 40 (17).
    let one = |knobs: &str| {
        let out = run("49ms", &westwood_nr(knobs), &[(40, 1)]);
        assert_eq!(first_fr(&out).1, [44_000, 21_000, 21_000]);
        new_in_recovery(&out)
    };
    assert_eq!(one(""), 17);
    assert_eq!(one(", fr_inflation = true"), 20);
}

#[test]
fn westwood_nr_partial_acks_neither_deflate_nor_keep_the_inflation() {
    // Packets 40 and 44 lost: 42 duplicate ACKs, the last 39 inflate (16 new packets, as above
    // less the one hole). The partial ACK of 44 (4 packets) with partial_window_deflation_ 0
    // clears the inflation and leaves cwnd 21 against 56 in flight: nothing new until the
    // recovery ends. NewReno's deflation keeps 39 - 4 + 1 and sends on.
    let drops = [(40, 1), (44, 1)];
    assert_eq!(new_in_recovery(&run("49ms", &westwood_nr(""), &drops)), 16);
    let deflating = run("49ms", &westwood_nr(", partial_deflation = true"), &drops);
    assert!(new_in_recovery(&deflating) > 16);
}

#[test]
fn westwood_nr_restarts_the_timer_on_every_partial_ack() {
    // Six holes four packets apart: NewReno repairs one per round trip (~0.11 s), 0.68 s in
    // all, longer than the 0.2 s timeout. newreno_changes1_ 0 (the module's default) restarts
    // the timer on every partial ACK: no timeout; 1 (impatient) only on the first: a timeout.
    let drops = [(40, 1), (44, 1), (48, 1), (52, 1), (56, 1), (60, 1)];
    let of = ["fast_retransmit", "recovery_exit", "rto"];
    let steady = kinds(&run("49ms", &westwood_nr(""), &drops), &of);
    assert_eq!(
        steady.iter().map(|k| k.0.as_str()).collect::<Vec<_>>()[..2],
        ["fast_retransmit", "recovery_exit"]
    );
    assert_eq!(steady[1].2, "full ack");
    let impatient = kinds(
        &run("49ms", &westwood_nr(", impatient = true"), &drops),
        &of,
    );
    assert_eq!(impatient[1].0, "rto");
}
