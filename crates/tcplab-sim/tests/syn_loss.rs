//! The window after a lost SYN-ACK, per profile (issue 15): RFC 5681 3.1 one segment (rfc),
//! Linux one segment only after two SYN retransmissions, ns-2's timeout rule (cwnd 1,
//! ssthresh 2 segments), and the initial window kept (riverbed).

mod common;

use common::*;
use tcplab_sim::SimOutput;

const PKT: u64 = 1000;

/// A 100-packet download; the server's first `lost` SYN-ACKs are lost.
fn download(profile: &str, lost: usize, extra: &str) -> SimOutput {
    let frames: Vec<String> = (0..lost).map(|i| i.to_string()).collect();
    let data = format!("{{ model = \"list\", frames = [{}] }}", frames.join(", "));
    run_toml(&one_link(
        "120s",
        &format!("profile = \"{profile}\"\nmss = {PKT}\ninitial_cwnd = 4\n{extra}"),
        "rate = \"10Mbps\"\ndelay = \"10ms\"\nframing = \"none\"",
        &data,
        "100kB",
        "events = true\npackets = true",
    ))
}

/// Data segments in the server's first burst: those it sent (end 1 of the connection) within
/// 5 ms of its first data segment, a quarter of the 20 ms round trip.
fn first_flight(out: &SimOutput) -> usize {
    let sends: Vec<f64> = packets(out)
        .iter()
        .filter(|p| p.event == "send" && p.from_end == 1 && p.len > 0)
        .map(|p| p.time)
        .collect();
    sends.iter().filter(|&&t| t < sends[0] + 0.005).count()
}

fn syn_retransmissions(out: &SimOutput) -> f64 {
    server(out, "syn_retransmissions")
}

fn rule_events(out: &SimOutput) -> Vec<String> {
    events(out)
        .iter()
        .filter(|e| e.kind == "syn_loss_window")
        .map(|e| e.detail.clone())
        .collect()
}

#[test]
fn a_lost_syn_ack_leaves_each_profile_its_own_window() {
    let big = "rcv_buf = 100000";
    let keep = |profile: &str, lost: usize| {
        download(profile, lost, &format!("{big}\nsyn_loss = \"keep\""))
    };
    // No loss: no rule applies and every profile sends its initial window of 4.
    for profile in ["rfc", "linux", "ns2", "riverbed"] {
        let out = download(profile, 0, big);
        assert_eq!(syn_retransmissions(&out), 0.0);
        assert_eq!(first_flight(&out), 4, "{profile}");
        assert!(rule_events(&out).is_empty());
    }
    // rfc: one segment after a SYN-ACK timeout (RFC 5681 3.1); ssthresh untouched.
    let out = download("rfc", 1, big);
    assert_eq!(syn_retransmissions(&out), 1.0);
    let ev = rule_events(&out);
    assert_eq!(ev.len(), 1);
    assert!(ev[0].starts_with("cwnd 1000 "), "{ev:?}");
    assert_eq!(first_flight(&out), 2);
    // The same loss with the rule switched off: the initial window (and the one segment the
    // ACK of the repeated SYN-ACK's duplicate opens).
    assert!(rule_events(&keep("rfc", 1)).is_empty());
    assert_eq!(first_flight(&keep("rfc", 1)), 5);
    // riverbed: the initial window.
    assert_eq!(first_flight(&download("riverbed", 1, big)), 4);
    // linux: the initial window after one SYN-ACK retransmission, one segment (of 988 bytes,
    // with timestamps) after two. The duplicate ACK of the repeated SYN-ACK SACKs nothing, so
    // it takes nothing out of Linux's pipe and opens no segment (`limited_transmit_by_pipe`;
    // with RFC 3042's room it would).
    let once = download("linux", 1, big);
    assert!(rule_events(&once).is_empty());
    assert_eq!(first_flight(&once), 4);
    let rfc3042 = download(
        "linux",
        1,
        &format!("{big}\nlimited_transmit_by_pipe = false"),
    );
    assert_eq!(first_flight(&rfc3042), 5);
    let twice = download("linux", 3, big);
    assert_eq!(syn_retransmissions(&twice), 2.0);
    assert!(rule_events(&twice)[0].starts_with("cwnd 988 "));
    assert_eq!(first_flight(&twice), 1);
    // ns2: the timeout rule on every expiry: cwnd 1, ssthresh = max(min(4, window) / 2, 2)
    // = 2 segments, and after more expiries the floor of 2 segments. One segment goes first:
    // the client's request carried the ACK of the SYN-ACK (ns-2's two-packet opening), so no
    // duplicate ACK of a repeated SYN-ACK opens a second one, as it does with the rule off.
    for lost in [1, 3, 5] {
        let out = download("ns2", lost, big);
        assert_eq!(rule_events(&out), vec!["cwnd 1000 ssthresh 2000"], "{lost}");
        assert_eq!(first_flight(&out), 1);
    }
    let three_way = download(
        "ns2",
        1,
        &format!("{big}\nns2 = {{ two_way_handshake = false }}"),
    );
    assert_eq!(first_flight(&three_way), 2);
}
