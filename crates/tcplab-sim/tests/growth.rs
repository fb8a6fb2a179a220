//! What the window grows by on an ACK, and when slow start ends, in the `linux` profile: an
//! endpoint driven through the step API with the peer's segments written by hand, the exact
//! cwnd and ssthresh asserted as `tcp_info` reports them (segments).

mod common;
use common::{info, inject_ack};
use serde_json::{json, Value};
use tcplab_sim::engine::time::SimTime;
use tcplab_sim::sim::step::{Inbound, Stepper, TcpOption};

const MS: u64 = 1_000_000;
const MSS: u64 = 1000;
/// tcp_info's ssthresh before any congestion event (TCP_INFINITE_SSTHRESH).
const INFINITE: u64 = 0x7fff_ffff;

fn ack(s: &mut Stepper, at_us: u64, ack: u64, sack: &[(u64, u64)]) {
    s.advance(SimTime(at_us * 1_000)).unwrap();
    inject_ack(s, ack, sack.to_vec());
}

/// A passive open with MSS 1000, no timestamps, SACK if `sack`, and `rtt_ms` to the peer's ACK.
fn open(tcp: Value, sack: bool, rtt_ms: u64) -> Stepper {
    let mut s = Stepper::new(&tcp).expect("valid [tcp] settings");
    s.listen().unwrap();
    let mut options = vec![TcpOption::Mss(MSS as u32)];
    if sack {
        options.push(TcpOption::SackOk);
    }
    options.extend([TcpOption::Nop, TcpOption::WScale(7)]);
    let syn = Inbound {
        flags: "S".into(),
        seq: 0,
        ack: 0,
        win: 65535,
        len: 0,
        options,
    };
    s.inject(&syn).unwrap();
    assert_eq!(s.take_sent().len(), 1, "the SYN-ACK");
    ack(&mut s, rtt_ms * 1_000, 1, &[]);
    s.accept().unwrap();
    s
}

/// Segments sent since the last call: (first sequence number, segments).
fn sent(s: &mut Stepper) -> (u64, u64) {
    let out = s.take_sent();
    let bytes: u64 = out.iter().map(|o| o.packet.len as u64).sum();
    (out.first().map_or(0, |o| o.packet.seq), bytes / MSS)
}

/// Ten segments out at 50 ms; the second and third arrive first and the peer reports them
/// (SACK blocks, or bare duplicate ACKs), then the first: what the cumulative ACK of all three
/// grows cwnd to, and how many new segments it lets out.
fn reordered(tcp: Value, sack: bool) -> (u64, u64) {
    let mut s = open(tcp, sack, 50);
    s.write(20 * MSS).unwrap();
    assert_eq!(sent(&mut s), (1, 10), "IW10");
    for (k, at) in [(2, 100_000), (3, 102_000)] {
        let blocks = if sack {
            vec![(1 + MSS, 1 + k * MSS)]
        } else {
            vec![]
        };
        ack(&mut s, at, 1, &blocks);
        assert_eq!(
            info(&s, "tcpi_snd_cwnd"),
            10,
            "duplicate ACKs do not grow cwnd"
        );
        assert_eq!(sent(&mut s), (1 + (k + 8) * MSS, 1), "limited transmit");
    }
    ack(&mut s, 104_000, 1 + 3 * MSS, &[]);
    let (_, n) = sent(&mut s);
    (info(&s, "tcpi_snd_cwnd"), n)
}

#[test]
fn a_cumulative_ack_of_sacked_segments_grows_cwnd_by_the_one_it_delivers() {
    // tcp_newly_delivered: the SACKs delivered two segments, the ACK one; slow start adds one
    // and, nine in flight, two segments leave. With every controller's growth (CUBIC's
    // `on_ack`, Reno's in line).
    for cc in ["cubic", "reno"] {
        let tcp = json!({"profile": "linux", "congestion_control": cc});
        assert_eq!(reordered(tcp, true), (11, 2), "{cc}");
        // Without the rule the two SACKed segments count a second time: cwnd 13, four out.
        let off = json!({"profile": "linux", "congestion_control": cc, "grow_by_delivered": false});
        assert_eq!(reordered(off.clone(), true), (13, 4), "{cc}");
        assert_eq!(reordered(off, false), (13, 4), "{cc}");
    }
}

#[test]
fn without_sack_the_duplicate_acks_counted_the_segments_the_ack_covers() {
    // tcp_add_reno_sack: each duplicate ACK counted one segment delivered; the ACK of three
    // delivers max(3 - 2, 1) = 1 (tcp_remove_reno_sacks).
    for cc in ["cubic", "reno"] {
        let tcp = json!({"profile": "linux", "congestion_control": cc});
        assert_eq!(reordered(tcp, false), (11, 2), "{cc}");
    }
}

#[test]
fn the_ack_after_a_reordering_grows_by_what_it_delivers_in_full() {
    // After the reordered ACK, an ACK of two segments nobody reported grows cwnd by two.
    let mut s = open(json!({"profile": "linux"}), true, 50);
    s.write(20 * MSS).unwrap();
    sent(&mut s);
    ack(&mut s, 100_000, 1, &[(1 + MSS, 1 + 2 * MSS)]);
    ack(&mut s, 102_000, 1, &[(1 + MSS, 1 + 3 * MSS)]);
    ack(&mut s, 104_000, 1 + 3 * MSS, &[]);
    sent(&mut s);
    ack(&mut s, 106_000, 1 + 5 * MSS, &[]);
    assert_eq!(info(&s, "tcpi_snd_cwnd"), 13);
    assert_eq!(sent(&mut s), (1 + 14 * MSS, 4));
}

/// CUBIC's HyStart over one round: 100 ms round trips, 28 segments written at once and 2 more
/// at 290 ms (90 ms after the second flight left), then ten ACKs of two segments 1 ms apart,
/// the first at `first_ms`. Returns (cwnd, ssthresh) after the ninth ACK and after the tenth.
fn hystart_round(first_ms: u64) -> [(u64, u64); 2] {
    let mut s = open(json!({"profile": "linux"}), true, 100);
    s.write(28 * MSS).unwrap();
    assert_eq!(sent(&mut s), (1, 10));
    ack(&mut s, 200_000, 1 + 10 * MSS, &[]);
    assert_eq!(sent(&mut s), (1 + 10 * MSS, 18));
    s.advance(SimTime(290 * MS)).unwrap();
    s.write(2 * MSS).unwrap();
    assert_eq!(sent(&mut s), (1 + 28 * MSS, 2));
    let mut after = vec![];
    for k in 1..=10u64 {
        ack(
            &mut s,
            (first_ms + k - 1) * 1_000,
            1 + (10 + 2 * k) * MSS,
            &[],
        );
        if k >= 9 {
            after.push((info(&s, "tcpi_snd_cwnd"), info(&s, "tcpi_snd_ssthresh")));
        }
    }
    [after[0], after[1]]
}

#[test]
fn hystart_takes_a_lower_minimum_rtt_into_the_rounds_rtt_and_stays_in_slow_start() {
    // From 300 ms the first nine ACKs sample 100 to 108 ms and the tenth, of the two late
    // segments, 19 ms: the new minimum RTT. The round's RTT is the minimum of all its samples
    // (Linux since 5.8, hystart_update), 19 ms too, so no delay increase: slow start goes on.
    // Counting only the first eight, 100 ms against 19 + 4 would have set ssthresh to 38.
    assert_eq!(hystart_round(300), [(38, INFINITE), (40, INFINITE)]);
}

#[test]
fn hystart_still_ends_slow_start_when_the_rounds_rtt_rises() {
    // From 315 ms the samples are 115 ms and more: above 100 + 12.5 ms (the minimum's eighth,
    // between 4 and 16 ms) once the round has its eight samples, so the ninth ACK sets
    // ssthresh to cwnd, 36.
    let [ninth, tenth] = hystart_round(315);
    assert_eq!(ninth.1, 36);
    assert_eq!(tenth.1, 36);
}
