//! Seed 001's modular TCP: the loss-recovery plug-in (error detection) owns the recovery phase,
//! the congestion control owns the window. Scripted drops for every TahoeCC/RenoCC/NewRenoCC x
//! DupAckED/NewRenoED/SackED pair (issue 11): a 10 Mbit/s link with 100 ms each way, the `rfc`
//! profile, a 1 MB receive window and a 2 MB download whose segments at sequence numbers 58401,
//! 62781 and 67161 are lost on their first transmission (three holes, three segments apart, in
//! one window).

mod common;

use common::*;
use tcplab_sim::SimOutput;

/// The three dropped segments (indices 40, 43 and 46: sequence numbers 58401, 62781, 67161).
const HOLES: [u64; 3] = [40, 43, 46];

fn three_drops(cc: &str, lr: &str) -> SimOutput {
    let drops: Vec<String> = HOLES
        .iter()
        .map(|&k| format!("{{ seq = {}, tx = 1 }}", seg(k)))
        .collect();
    run_toml(&format!(
        r#"
[run]
stop_time = "100s"
[tcp]
profile = "rfc"
rcv_buf = "1MB"
snd_buf = "4MB"
window_scaling = true
congestion_control = "{cc}"
loss_recovery = "{lr}"
[[nodes]]
name = "server"
[[nodes]]
name = "client"
[[links]]
name = "wan"
a = "server"
b = "client"
rate = "10Mbps"
delay = "100ms"
queue = "unlimited"
[links.ab]
error = {{ model = "list", segments = [{}] }}
[[apps]]
name = "ftp"
kind = "ftp"
client = "client"
server = "server"
size = "2MB"
[output]
events = true
packets = true
"#,
        drops.join(", ")
    ))
}

fn count(ev: &[Ev], kind: &str) -> usize {
    ev.iter().filter(|e| e.kind == kind).count()
}

fn response_time(out: &SimOutput) -> f64 {
    num(&out.summary, "apps.0.response_time_s")
}

/// Data segments the server sent: (time, seq, end, tx).
fn data_sends(pk: &[Pkt]) -> Vec<(f64, u64, u64, u64)> {
    pk.iter()
        .filter(|p| p.event == "send" && p.from_end == 1 && p.len > 0)
        .map(|p| (p.time, p.seq, p.seq + p.len, p.tx))
        .collect()
}

/// ACKs the server received: (time, ack).
fn acks_in(pk: &[Pkt]) -> Vec<(f64, u64)> {
    pk.iter()
        .filter(|p| p.event == "recv" && p.from_end == 0)
        .map(|p| (p.time, p.ack))
        .collect()
}

/// The recovery phase: (time of the fast retransmit, recovery point = one past the highest
/// byte sent before it, time of the ACK that covers the recovery point).
fn phase(out: &SimOutput) -> (f64, u64, f64) {
    let ev = events(out);
    let fr = ev
        .iter()
        .find(|e| e.kind == "fast_retransmit")
        .expect("a fast retransmit")
        .time;
    let pk = packets(out);
    let point = data_sends(&pk)
        .iter()
        .filter(|s| s.0 < fr)
        .map(|s| s.2)
        .max()
        .unwrap();
    let covered = acks_in(&pk)
        .iter()
        .find(|a| a.0 > fr && a.1 >= point)
        .expect("an ACK covering the recovery point")
        .0;
    (fr, point, covered)
}

/// New data segments sent inside the recovery phase: (from the fast retransmit to the first
/// partial ACK, from the first partial ACK to the ACK that covers the recovery point).
fn new_data_in_phase(out: &SimOutput) -> (usize, usize) {
    let (fr, point, covered) = phase(out);
    let pk = packets(out);
    let first_partial = acks_in(&pk)
        .iter()
        .find(|a| a.0 > fr && a.1 > seg(HOLES[0]))
        .expect("a partial ACK")
        .0;
    let sends = data_sends(&pk);
    let new_at = |from: f64, to: f64| {
        sends
            .iter()
            .filter(|s| s.0 >= from && s.0 < to && s.1 >= point)
            .count()
    };
    (new_at(fr, first_partial), new_at(first_partial, covered))
}

#[test]
fn every_pair_on_three_drops_in_one_window() {
    // (cc, lr): RTOs, retransmissions, fast retransmits.
    let table = [
        // TahoeCC: cwnd 1 MSS and go-back-N (ns-2's Tahoe); DupAckED resends holes 2 and 3 with
        // the segments after them in slow start, NewRenoED resends each hole on its partial ACK
        // and SackED only the holes.
        ("tahoe", "dupack", 0, 7, 1),
        ("tahoe", "newreno", 0, 6, 1),
        ("tahoe", "sack", 0, 3, 1),
        // DupAckED's phase ends at the first (partial) ACK: holes 2 and 3 wait for the timeout
        // with either window rule, which then resends both.
        ("reno", "dupack", 1, 3, 2),
        ("newreno", "dupack", 1, 3, 2),
        // NewRenoED and SackED repair all three holes in one phase, with any window rule.
        ("reno", "newreno", 0, 3, 1),
        ("newreno", "newreno", 0, 3, 1),
        ("reno", "sack", 0, 3, 1),
        ("newreno", "sack", 0, 3, 1),
    ];
    for (cc, lr, rto, rtx, fr) in table {
        let out = three_drops(cc, lr);
        assert_eq!(get(&out.summary, "apps.0.completed").as_bool(), Some(true));
        let got = (
            server(&out, "rto_expirations") as u64,
            server(&out, "retransmissions") as u64,
            server(&out, "fast_retransmits") as u64,
        );
        assert_eq!(got, (rto, rtx, fr), "{cc}+{lr}");
    }
}

#[test]
fn renocc_with_newrenoed_retransmits_on_each_partial_ack_and_sends_no_new_data_in_the_phase() {
    let out = three_drops("reno", "newreno");
    let (fr, _, covered) = phase(&out);
    let pk = packets(&out);
    let sends = data_sends(&pk);
    let acks = acks_in(&pk);
    // One retransmission per partial ACK: holes 2 and 3 leave the moment the ACK naming them
    // arrives.
    for &k in &HOLES[1..] {
        let partial = acks
            .iter()
            .find(|a| a.0 > fr && a.1 == seg(k))
            .expect("partial ACK")
            .0;
        let resent: Vec<f64> = sends
            .iter()
            .filter(|s| s.1 == seg(k) && s.3 == 2)
            .map(|s| s.0)
            .collect();
        assert_eq!(resent, vec![partial], "hole {k}");
    }
    // Until the first partial ACK, Reno's fast recovery inflates the window by one segment per
    // duplicate ACK (RFC 5681 step 4): 22 duplicate ACKs on a flight of 26 segments with
    // ssthresh 13 let 22 + 13 - 26 = 9 new segments out. At the first partial ACK RenoCC
    // deflates to ssthresh and counts the whole flight against it: from then on no new data
    // leaves until the recovery point is covered, two more round trips later.
    assert_eq!(new_data_in_phase(&out), (9, 0));
    let first_partial = acks
        .iter()
        .find(|a| a.0 > fr && a.1 > seg(HOLES[0]))
        .unwrap()
        .0;
    assert!(covered - first_partial > 2.0 * 0.2);
    let ev = events(&out);
    assert_eq!(count(&ev, "cc_recovery_exit"), 1);
    let exits: Vec<&Ev> = ev.iter().filter(|e| e.kind == "recovery_exit").collect();
    assert_eq!(exits.len(), 1);
    assert_eq!(exits[0].detail, "full ack");
    assert_eq!(exits[0].time, covered);
    // The stall costs time: TCP NewReno (NewRenoCC + NewRenoED) finishes first.
    let newreno = three_drops("newreno", "newreno");
    assert!(
        response_time(&out) > response_time(&newreno),
        "{} vs {}",
        response_time(&out),
        response_time(&newreno)
    );
}

#[test]
fn newrenocc_with_newrenoed_sends_new_data_during_the_phase() {
    let out = three_drops("newreno", "newreno");
    // The same 9 segments as RenoCC before the first partial ACK; after it NewRenoCC keeps the
    // inflated window (deflated by the data acknowledged, one SMSS added back: RFC 6582 step 5),
    // so the duplicate ACKs those segments cause let more new data out inside the phase.
    let (before, after) = new_data_in_phase(&out);
    assert_eq!(before, 9);
    assert!(after > 0, "{after}");
    assert_eq!(count(&events(&out), "cc_recovery_exit"), 0);
}

#[test]
fn sacked_with_every_cc_resends_every_hole_once_before_the_phase_ends() {
    for cc in ["tahoe", "reno", "newreno"] {
        let out = three_drops(cc, "sack");
        let (_, _, covered) = phase(&out);
        let sends = data_sends(&packets(&out));
        for &k in &HOLES {
            let resent: Vec<f64> = sends
                .iter()
                .filter(|s| s.1 == seg(k) && s.3 > 1)
                .map(|s| s.0)
                .collect();
            assert_eq!(resent.len(), 1, "{cc}: hole {k}: {resent:?}");
            assert!(resent[0] < covered, "{cc}: hole {k}");
        }
        let ev = events(&out);
        let exit = ev.iter().find(|e| e.kind == "recovery_exit").unwrap();
        assert_eq!(
            (exit.detail.as_str(), exit.time),
            ("full ack", covered),
            "{cc}"
        );
    }
}

#[test]
fn dupacked_phase_ends_at_the_first_new_ack_whatever_the_window_rule() {
    for cc in ["tahoe", "reno", "newreno"] {
        let ev = events(&three_drops(cc, "dupack"));
        let exit = ev.iter().find(|e| e.kind == "recovery_exit").unwrap();
        assert_eq!(
            (exit.seq, exit.detail.as_str()),
            (seg(HOLES[1]), "partial ack"),
            "{cc}"
        );
    }
}

#[test]
fn tahoe_go_back_n_does_not_fast_retransmit_on_duplicates_of_its_own_resends() {
    // The receiver answers each resent copy of a segment it already holds with a duplicate ACK
    // of exactly the recovery point; those must not start another go-back-N (RFC 6582 section
    // 3.2 step 1, ns-2's bug_fix_). Without the rule this run made 219 fast retransmits and
    // 1093 retransmissions.
    let out = three_drops("tahoe", "dupack");
    assert_eq!(server(&out, "fast_retransmits"), 1.0);
    assert!(num(&out.summary, "connections.0.client.duplicate_segments") >= 3.0);
    assert!(response_time(&out) < 12.0, "{}", response_time(&out));
}
