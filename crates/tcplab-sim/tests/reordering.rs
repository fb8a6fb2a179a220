//! Linux's loss-recovery rules around reordering, each stated as the exact event the `linux`
//! profile's endpoint produces, played by hand through the step API (without timestamps, MSS
//! 1000): the duplicate-ACK threshold measured from SACKs and cumulative ACKs
//! (`max_reordering`, `tcp_check_sack_reordering`), RACK's reordering timer and RTT as
//! tcp_recovery.c has them (`lr_params.rule`), and the SACK blocks of an ACK below SND.UNA
//! (`old_ack_sack`). Each is checked against the same run with its rule switched off.

mod common;
use common::{info, inject_ack};
use serde_json::{json, Value};
use tcplab_sim::engine::time::SimTime;
use tcplab_sim::sim::step::{Inbound, Stepper, TcpOption};

const US: u64 = 1_000;
const MS: u64 = 1_000_000;
const MSS: u64 = 1000;

fn stepper(extra: Value) -> Stepper {
    let mut tcp = json!({"profile": "linux", "timestamps": false});
    if let (Value::Object(t), Value::Object(e)) = (&mut tcp, extra) {
        t.extend(e);
    }
    Stepper::new(&tcp).expect("valid [tcp] settings")
}

/// An ACK from the peer at the current time with SACK blocks `sack` (in segments: block
/// (a, b) covers segments a..b, segment k being bytes k*MSS+1 .. (k+1)*MSS+1).
fn ack(s: &mut Stepper, ack: u64, sack: &[(u64, u64)]) {
    let blocks = sack
        .iter()
        .map(|&(a, b)| (a * MSS + 1, b * MSS + 1))
        .collect();
    inject_ack(s, ack, blocks);
}

/// A passive open with a round trip of `rtt_ms` (the SYN at 0, the peer's ACK at `rtt_ms`),
/// then a write of `segments` full segments, all sent at once.
fn open_and_send(s: &mut Stepper, rtt_ms: u64, segments: u64) {
    s.listen().unwrap();
    let syn = Inbound {
        flags: "S".into(),
        seq: 0,
        ack: 0,
        win: 65535,
        len: 0,
        options: vec![
            TcpOption::Mss(MSS as u32),
            TcpOption::SackOk,
            TcpOption::Nop,
            TcpOption::WScale(7),
        ],
    };
    s.inject(&syn).unwrap();
    s.advance(SimTime(rtt_ms * MS)).unwrap();
    ack(s, 1, &[]);
    s.accept().unwrap();
    s.take_sent();
    assert_eq!(s.write(segments * MSS).unwrap(), segments * MSS);
    assert_eq!(s.take_sent().len() as u64, segments);
}

/// (time in µs, first sequence number, length) of each data segment sent since the last call.
fn sent(s: &mut Stepper) -> Vec<(u64, u64, u64)> {
    s.take_sent()
        .into_iter()
        .filter(|o| o.packet.len > 0)
        .map(|o| (o.time.0 / US, o.packet.seq, o.packet.len as u64))
        .collect()
}

#[test]
fn reordering_grows_to_the_distance_below_the_highest_sack_and_stops_at_the_cap() {
    // 10 segments; segment 6 SACKed, then segment 3 (4 below the highest SACKed end, 7001),
    // then everything cumulatively: 1:1001 arrives 10 segments below SND.UNA.
    for (extra, after_sack, after_ack) in [
        (json!({}), 4, 10),
        (json!({"max_reordering": 6}), 4, 6),
        (json!({"max_reordering": 0}), 3, 3),
    ] {
        let mut s = stepper(extra.clone());
        open_and_send(&mut s, 50, 10);
        s.advance(SimTime(100 * MS)).unwrap();
        ack(&mut s, 1, &[(6, 7)]);
        assert_eq!(info(&s, "tcpi_reordering"), 3, "{extra}");
        s.advance(SimTime(102 * MS)).unwrap();
        ack(&mut s, 1, &[(3, 4), (6, 7)]);
        assert_eq!(info(&s, "tcpi_reordering"), after_sack, "{extra}");
        s.advance(SimTime(104 * MS)).unwrap();
        ack(&mut s, 10 * MSS + 1, &[]);
        assert_eq!(info(&s, "tcpi_reordering"), after_ack, "{extra}");
    }
}

#[test]
fn a_timeout_in_disorder_with_dupthresh_segments_sacked_restores_dupthresh() {
    // RFC 6675's loss recovery reads the measured threshold: segments 6, then 2 (5 below
    // 7001), then 7 SACKed are 3 < 5, so nothing is lost until the RTO (SRTT 50 ms + 200 ms
    // from the last send), which finds 3 segments SACKed outside recovery.
    let mut s = stepper(json!({"loss_recovery": "sack"}));
    open_and_send(&mut s, 50, 10);
    s.advance(SimTime(100 * MS)).unwrap();
    ack(&mut s, 1, &[(6, 7)]);
    ack(&mut s, 1, &[(2, 3), (6, 7)]);
    ack(&mut s, 1, &[(2, 3), (6, 8)]);
    assert_eq!(info(&s, "tcpi_reordering"), 5);
    assert_eq!(info(&s, "tcpi_ca_state"), 1, "Disorder");
    assert!(sent(&mut s).is_empty());
    let rto = s.next_timer().expect("the RTO is armed");
    s.advance(rto).unwrap();
    assert_eq!(sent(&mut s), vec![(rto.0 / US, 1, MSS)]);
    assert_eq!(info(&s, "tcpi_ca_state"), 4, "Loss");
    assert_eq!(info(&s, "tcpi_reordering"), 3);
}

#[test]
fn rack_reordering_timer_is_armed_two_ms_late_in_whole_milliseconds() {
    // RTT 50 ms: a SACK of segment 4 at 100 ms gives RACK.rtt 50 ms and a window of
    // min RTT / 4 = 12.5 ms, so segments 0..4 are due at 112.5 ms. Linux arms its timer
    // usecs_to_jiffies(12.5 ms + 2 ms) = 15 jiffies later: 115 ms; RFC 8985 at the deadline.
    for (rule, deadline_us) in [("linux", 115_000), ("rfc8985", 112_500)] {
        let mut s = stepper(json!({"lr_params": {"rule": rule}}));
        open_and_send(&mut s, 50, 6);
        s.advance(SimTime(100 * MS)).unwrap();
        ack(&mut s, 1, &[(4, 5)]);
        assert!(sent(&mut s).is_empty());
        let t = s.next_timer().expect("the reordering timer is armed");
        assert_eq!(t.0 / US, deadline_us, "{rule}");
        s.advance(t).unwrap();
        assert_eq!(sent(&mut s), vec![(deadline_us, 1, MSS)], "{rule}");
        assert_eq!(info(&s, "tcpi_lost"), 4, "{rule}");
    }
}

/// RTT 20 ms, 10 segments at 20 ms; at 40 ms three SACKs (segments 2, 2-3, then 8): RACK
/// marks 0-1 and 4-7 lost and the fast retransmit resends segment 0. At 65 ms the ACK of
/// 4001 (segments 0 to 3) SACKs 8 again.
fn recovery(extra: Value) -> Stepper {
    let mut s = stepper(extra);
    open_and_send(&mut s, 20, 10);
    s.advance(SimTime(40 * MS)).unwrap();
    ack(&mut s, 1, &[(2, 3)]);
    ack(&mut s, 1, &[(2, 4)]);
    ack(&mut s, 1, &[(2, 4), (8, 9)]);
    assert_eq!(sent(&mut s), vec![(40_000, 1, MSS)]);
    s.advance(SimTime(65 * MS)).unwrap();
    ack(&mut s, 4 * MSS + 1, &[(8, 9)]);
    s
}

#[test]
fn rack_takes_its_rtt_from_the_last_segment_an_ack_delivers() {
    // The ACK delivers the retransmitted segment 0 (sent at 40 ms: 25 ms) and then the
    // original segment 1 (sent at 20 ms: 45 ms). With Linux's RTT, 45 ms, segment 9 (sent at
    // 20 ms) is due at 20 + 45 + 5 ms (min RTT / 4, reordering now seen): not lost, so PRR
    // adds its segment for an ACK that advanced SND.UNA without new loss: 3 retransmissions.
    // With RFC 8985's RTT of the most recently sent segment, 25 ms, segment 9 is lost: 2.
    let mut s = recovery(json!({}));
    let at = 65_000;
    let want: Vec<_> = (4..7).map(|k| (at, k * MSS + 1, MSS)).collect();
    assert_eq!(sent(&mut s), want);
    assert_eq!(info(&s, "tcpi_lost"), 4);
    // The reordering timer for segment 9: 20 + 45 + 5 + 2 ms.
    assert_eq!(s.next_timer(), Some(SimTime(72 * MS)));
    let mut s = recovery(json!({"lr_params": {"rule": "rfc8985"}}));
    let want: Vec<_> = (4..6).map(|k| (at, k * MSS + 1, MSS)).collect();
    assert_eq!(sent(&mut s), want);
    assert_eq!(info(&s, "tcpi_lost"), 5);
}

#[test]
fn an_ack_below_snd_una_still_sacks_and_lets_segments_out() {
    // After `recovery`, a late ACK of 3001 (below SND.UNA, 4001) SACKs segments 5-6, two of
    // the retransmissions: they leave the flight, and the window lets out the lost segment 7
    // and then new data, at once, cwnd unchanged. Ignored, nothing leaves until the
    // reordering timer for segment 9 at 72 ms.
    for (old_ack_sack, want) in [
        (true, vec![(67_000, 7001, MSS), (67_000, 10_001, MSS)]),
        (false, vec![]),
    ] {
        let mut s = recovery(json!({"old_ack_sack": old_ack_sack}));
        sent(&mut s);
        assert_eq!(s.write(5 * MSS).unwrap(), 5 * MSS);
        assert!(sent(&mut s).is_empty(), "the window is full");
        let cwnd = info(&s, "tcpi_snd_cwnd");
        s.advance(SimTime(67 * MS)).unwrap();
        ack(&mut s, 3 * MSS + 1, &[(5, 7)]);
        assert_eq!(sent(&mut s), want, "old_ack_sack = {old_ack_sack}");
        assert_eq!(info(&s, "tcpi_snd_cwnd"), cwnd);
        assert_eq!(info(&s, "tcpi_sacked"), if old_ack_sack { 3 } else { 1 });
    }
}
