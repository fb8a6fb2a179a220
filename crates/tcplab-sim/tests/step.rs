//! The step API (`sim::step`): one endpoint of the `linux` profile played against by hand, as a
//! packetdrill script plays the kernel's peer. Each test states the segments it expects at the
//! times it expects them.

mod common;
use common::info;
use serde_json::{json, Value};
use tcplab_sim::engine::time::SimTime;
use tcplab_sim::error::SimError;
use tcplab_sim::sim::step::{Inbound, Outbound, SockVal, Stepper, TcpOption};

const MS: u64 = 1_000_000;
/// The effective MSS with timestamps: 1460 - 12.
const MSS: u64 = 1448;

fn stepper(tcp: Value) -> Stepper {
    Stepper::new(&tcp).expect("valid [tcp] settings")
}

fn seg(flags: &str, seq: u64, ack: u64, options: Vec<TcpOption>) -> Inbound {
    Inbound {
        flags: flags.into(),
        seq,
        ack,
        win: 1000,
        len: 0,
        options,
    }
}

fn ts(val: u64, ecr: u64) -> TcpOption {
    TcpOption::Timestamp { val, ecr }
}

/// A passive open at 0 with a 10 ms round trip: the peer's SYN (Linux's options), the SYN-ACK
/// back, the peer's ACK at 10 ms. Returns the SYN-ACK.
fn open(s: &mut Stepper) -> Outbound {
    s.listen().unwrap();
    let syn = seg(
        "S",
        0,
        0,
        vec![
            TcpOption::Mss(1460),
            TcpOption::SackOk,
            ts(100, 0),
            TcpOption::Nop,
            TcpOption::WScale(7),
        ],
    );
    s.inject(&syn).unwrap();
    let out = s.take_sent();
    assert_eq!(out.len(), 1);
    s.advance(SimTime(10 * MS)).unwrap();
    let ack = seg(
        ".",
        1,
        1,
        vec![
            TcpOption::Nop,
            TcpOption::Nop,
            ts(110, out[0].packet.ts_val),
        ],
    );
    s.inject(&ack).unwrap();
    s.accept().unwrap();
    assert!(
        s.take_sent().is_empty(),
        "a bare ACK of the SYN-ACK is not answered"
    );
    out[0]
}

/// An ACK from the peer at the current time, echoing `ecr`, with SACK blocks.
fn ack_with(s: &mut Stepper, ack: u64, sack: &[(u64, u64)]) {
    let now_us = s.now().0 / 1_000;
    let mut opts = vec![TcpOption::Nop, TcpOption::Nop, ts(100 + now_us, 1)];
    if !sack.is_empty() {
        opts.extend([
            TcpOption::Nop,
            TcpOption::Nop,
            TcpOption::Sack(sack.to_vec()),
        ]);
    }
    s.inject(&seg(".", 1, ack, opts)).unwrap();
}

#[test]
fn a_syn_in_gets_a_syn_ack_out_with_the_profiles_options() {
    let mut s = stepper(json!({"profile": "linux"}));
    let synack = open(&mut s);
    assert_eq!(synack.flags(), "S.");
    assert_eq!(synack.time, SimTime::ZERO);
    let p = synack.packet;
    assert_eq!((p.seq, p.ack, p.len), (0, 1, 0));
    assert_eq!(p.ts_ecr, 100, "the SYN-ACK echoes the SYN's timestamp");
    // Linux: MSS 1460, SACK-permitted and the timestamps in one word, NOP, window scale 7
    // (the scale that fits tcp_rmem[2], 6 MiB).
    assert_eq!(
        synack.options(),
        vec![
            TcpOption::Mss(1460),
            TcpOption::SackOk,
            ts(p.ts_val, 100),
            TcpOption::Nop,
            TcpOption::WScale(7)
        ]
    );
    assert_eq!(s.state().name(), "ESTABLISHED");
    assert_eq!(info(&s, "tcpi_state"), 1);
    assert_eq!(info(&s, "tcpi_snd_mss"), MSS);
    assert_eq!(info(&s, "tcpi_options"), 1 | 2 | 4);
    assert_eq!(
        info(&s, "tcpi_rtt"),
        10_000,
        "the SYN-ACK's round trip, in us"
    );
    // Linux's RTO: SRTT + max(4 RTTVAR, 200 ms) = 10 + 200 ms.
    assert_eq!(info(&s, "tcpi_rto"), 210_000);
    assert_eq!(info(&s, "tcpi_snd_cwnd"), 10);
    assert_eq!(info(&s, "tcpi_snd_ssthresh"), 0x7fff_ffff);
}

#[test]
fn a_syn_without_options_gets_a_syn_ack_without_them() {
    let mut s = stepper(json!({"profile": "linux"}));
    s.listen().unwrap();
    s.inject(&seg("S", 0, 0, vec![TcpOption::Mss(1000)]))
        .unwrap();
    let out = s.take_sent();
    assert_eq!(out[0].options(), vec![TcpOption::Mss(1460)]);
    s.inject(&seg(".", 1, 1, vec![])).unwrap();
    assert_eq!(info(&s, "tcpi_snd_mss"), 1000);
    assert_eq!(info(&s, "tcpi_options"), 0);
}

#[test]
fn slow_start_grows_cwnd_by_one_segment_per_ack_and_each_ack_releases_two() {
    let mut s = stepper(json!({"profile": "linux", "congestion_control": "reno"}));
    open(&mut s);
    s.write(100 * MSS).unwrap();
    let burst = s.take_sent();
    assert_eq!(burst.len(), 10, "IW10");
    assert!(burst
        .iter()
        .all(|o| o.time == SimTime(10 * MS) && o.packet.len as u64 == MSS));
    for k in 1..=10u64 {
        s.advance(SimTime(20 * MS + k * 100_000)).unwrap();
        ack_with(&mut s, 1 + k * MSS, &[]);
        assert_eq!(info(&s, "tcpi_snd_cwnd"), 10 + k, "after ACK {k}");
        let out = s.take_sent();
        assert_eq!(out.len(), 2, "ACK {k} releases two segments");
        assert!(out.iter().all(|o| o.time == s.now()));
        assert_eq!(info(&s, "tcpi_unacked"), 10 + k);
    }
    assert_eq!(info(&s, "tcpi_bytes_acked"), 10 * MSS);
}

#[test]
fn three_duplicate_acks_start_the_fast_retransmit_at_once_in_recovery() {
    for lr in ["sack", "rack-tlp"] {
        let mut s = stepper(json!({"profile": "linux", "loss_recovery": lr}));
        open(&mut s);
        s.write(10 * MSS).unwrap();
        assert_eq!(s.take_sent().len(), 10);
        // Segment 1 is lost; segments 2, 3, 4 arrive and are SACKed.
        for k in 1..=3u64 {
            s.advance(SimTime(20 * MS + k * 100_000)).unwrap();
            ack_with(&mut s, 1, &[(1 + MSS, 1 + (k + 1) * MSS)]);
            let out = s.take_sent();
            if k < 3 {
                assert_eq!(
                    info(&s, "tcpi_ca_state"),
                    1,
                    "{lr}: Disorder after dup ACK {k}"
                );
                assert!(
                    out.iter().all(|o| o.packet.tx_count == 1),
                    "{lr}: nothing resent yet"
                );
            } else {
                let rtx: Vec<_> = out.iter().filter(|o| o.packet.tx_count > 1).collect();
                assert!(!rtx.is_empty(), "{lr}: the third dup ACK retransmits");
                assert_eq!(
                    rtx[0].packet.seq, 1,
                    "{lr}: the first unacknowledged segment"
                );
                assert_eq!(rtx[0].time, SimTime(20 * MS + 300_000), "{lr}: at that ACK");
            }
        }
        assert_eq!(info(&s, "tcpi_ca_state"), 3, "{lr}: Recovery");
        assert_eq!(info(&s, "tcpi_sacked"), 3);
        assert_eq!(info(&s, "tcpi_total_retrans"), 1);
        assert_eq!(info(&s, "tcpi_retrans"), 1);
    }
}

#[test]
fn the_rto_fires_at_tcpi_rto_and_doubles() {
    let mut s = stepper(json!({"profile": "linux"}));
    open(&mut s);
    s.write(MSS).unwrap();
    assert_eq!(s.take_sent()[0].time, SimTime(10 * MS));
    // RACK-TLP: the tail loss probe first, at 2 SRTT + 200 ms (one segment in flight: the
    // worst-case delayed ACK), capped at the RTO's expiry, 10 ms + 210 ms.
    let probe_at = s.next_timer().unwrap();
    assert_eq!(probe_at, SimTime(220 * MS));
    s.advance(probe_at).unwrap();
    let probe = s.take_sent();
    assert_eq!(
        (probe.len(), probe[0].packet.seq, probe[0].packet.tx_count),
        (1, 1, 2)
    );
    assert_eq!(
        info(&s, "tcpi_ca_state"),
        0,
        "a probe leaves the state Open"
    );
    assert_eq!(info(&s, "tcpi_backoff"), 0);
    let mut last = probe_at;
    let rto0 = info(&s, "tcpi_rto");
    assert_eq!(rto0, 210_000);
    for n in 1..=4u64 {
        let rto = info(&s, "tcpi_rto") * 1_000;
        let at = s.next_timer().unwrap();
        assert_eq!(
            at.0 - last.0,
            rto,
            "timeout {n} fires tcpi_rto after the last send"
        );
        s.advance(at).unwrap();
        let out = s.take_sent();
        assert_eq!((out.len(), out[0].packet.seq, out[0].time), (1, 1, at));
        assert_eq!(info(&s, "tcpi_backoff"), n);
        assert_eq!(info(&s, "tcpi_retransmits"), n);
        assert_eq!(info(&s, "tcpi_ca_state"), 4, "Loss");
        assert_eq!(info(&s, "tcpi_rto"), rto0 << n, "the RTO doubles");
        assert_eq!(info(&s, "tcpi_snd_cwnd"), 1);
        last = at;
    }
    assert_eq!(info(&s, "tcpi_total_retrans"), 5);
}

#[test]
fn close_after_the_data_is_acknowledged_sends_the_fin() {
    let mut s = stepper(json!({"profile": "linux"}));
    open(&mut s);
    s.write(1000).unwrap();
    let out = s.take_sent();
    assert_eq!(
        out[0].flags(),
        "P.",
        "the last segment of a write carries PSH"
    );
    s.advance(SimTime(20 * MS)).unwrap();
    ack_with(&mut s, 1001, &[]);
    s.close().unwrap();
    let fin = s.take_sent();
    assert_eq!(fin.len(), 1);
    assert_eq!(fin[0].flags(), "F.");
    assert_eq!((fin[0].packet.seq, fin[0].time), (1001, SimTime(20 * MS)));
    assert_eq!(s.state().name(), "FIN-WAIT-1");
    s.advance(SimTime(30 * MS)).unwrap();
    ack_with(&mut s, 1002, &[]);
    assert_eq!(s.state().name(), "FIN-WAIT-2");
}

#[test]
fn the_peers_data_and_fin_are_read_then_eof() {
    let mut s = stepper(json!({"profile": "linux"}));
    open(&mut s);
    let mut d = seg("P.", 1, 1, vec![TcpOption::Nop, TcpOption::Nop, ts(120, 1)]);
    d.len = 500;
    s.inject(&d).unwrap();
    let acks = s.take_sent();
    assert_eq!(acks.len(), 1, "quick ACK of the first data");
    assert_eq!(acks[0].packet.ack, 501);
    s.inject(&seg("F.", 501, 1, vec![])).unwrap();
    assert_eq!(s.state().name(), "CLOSE-WAIT");
    assert_eq!(s.read(300).unwrap(), 300);
    assert!(!s.eof());
    assert_eq!(s.read(300).unwrap(), 200);
    assert!(s.eof());
}

#[test]
fn cork_holds_short_segments_until_uncorked_and_nodelay_sends_them() {
    let mut s = stepper(json!({"profile": "linux"}));
    open(&mut s);
    s.setsockopt("TCP_CORK", &SockVal::Int(1)).unwrap();
    s.write(100).unwrap();
    assert!(s.take_sent().is_empty(), "corked: no short segment");
    s.write(2000).unwrap();
    let out = s.take_sent();
    assert_eq!(out.len(), 1, "one full segment");
    assert_eq!(out[0].packet.len as u64, MSS);
    s.setsockopt("TCP_CORK", &SockVal::Int(0)).unwrap();
    let out = s.take_sent();
    assert_eq!(out.len(), 1, "uncorking pushes the rest");
    assert_eq!(out[0].packet.len as u64, 2100 - MSS);
    assert_eq!(s.getsockopt("TCP_CORK").unwrap(), SockVal::Int(0));
    // Nagle holds a short segment while data is in flight; TCP_NODELAY sends it.
    s.write(10).unwrap();
    s.write(10).unwrap();
    assert!(
        s.take_sent().is_empty(),
        "Nagle (Minshall's): a short segment is in flight"
    );
    s.setsockopt("TCP_NODELAY", &SockVal::Int(1)).unwrap();
    assert_eq!(s.getsockopt("TCP_NODELAY").unwrap(), SockVal::Int(1));
    let out = s.take_sent();
    assert_eq!(out.len(), 1, "TCP_NODELAY sends what Nagle held");
    assert_eq!((out[0].packet.len, out[0].flags().as_str()), (20, "P."));
}

#[test]
fn socket_options_before_the_open_build_the_endpoint() {
    let mut s = stepper(json!({"profile": "linux"}));
    s.setsockopt("TCP_MAXSEG", &SockVal::Int(1000)).unwrap();
    s.setsockopt("TCP_CONGESTION", &SockVal::Str("reno".into()))
        .unwrap();
    assert_eq!(
        s.getsockopt("TCP_CONGESTION").unwrap(),
        SockVal::Str("reno".into())
    );
    s.listen().unwrap();
    s.inject(&seg("S", 0, 0, vec![TcpOption::Mss(1460)]))
        .unwrap();
    let out = s.take_sent();
    assert_eq!(out[0].packet.syn_mss, 1000);
    assert_eq!(s.endpoint().unwrap().cc_name(), "reno");
    let e = s.setsockopt("TCP_MAXSEG", &SockVal::Int(500)).unwrap_err();
    assert!(matches!(e, SimError::Step { ref field, .. } if field == "setsockopt.TCP_MAXSEG"));
    let e = Stepper::new(&json!({"profile": "linux"}))
        .unwrap()
        .setsockopt("TCP_CONGESTION", &SockVal::Str("hybla".into()))
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("unknown congestion control \"hybla\""),
        "{e}"
    );
}

#[test]
fn misuse_is_an_error_naming_the_call_never_a_panic() {
    let mut s = stepper(json!({"profile": "linux"}));
    let e = s.inject(&seg("S", 0, 0, vec![])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "inject: no connection: call listen() or connect() first"
    );
    s.listen().unwrap();
    let e = s.inject(&seg("SX", 0, 0, vec![])).unwrap_err();
    assert!(
        e.to_string().starts_with("inject.flags: invalid flag 'X'"),
        "{e}"
    );
    let e = s
        .inject(&seg(".", 0, 5, vec![TcpOption::Sack(vec![(9, 3)])]))
        .unwrap_err();
    assert!(e.to_string().starts_with("inject.options.sack"), "{e}");
    s.advance(SimTime(5 * MS)).unwrap();
    let e = s.advance(SimTime(MS)).unwrap_err();
    assert!(
        e.to_string().starts_with("advance: time going backwards"),
        "{e}"
    );
    let e = s.write(10).unwrap_err();
    assert!(
        e.to_string().contains("not established (state LISTEN)"),
        "{e}"
    );
    assert!(s.accept().is_err());
    assert!(s.listen().is_err());
    assert!(matches!(
        Stepper::new(&json!({"mss": 5})),
        Err(SimError::InvalidValue { ref field, .. }) if field == "tcp.mss"
    ));
}

#[test]
fn a_reset_closes_the_connection() {
    let mut s = stepper(json!({"profile": "linux"}));
    open(&mut s);
    s.write(1000).unwrap();
    s.take_sent();
    s.inject(&seg("R.", 1, 1, vec![])).unwrap();
    assert_eq!(s.state().name(), "CLOSED");
    assert_eq!(s.next_timer(), None);
    // The connection is gone: a later segment meets a RST at its ACK (RFC 9293 3.10.7.1).
    s.inject(&seg(".", 1, 1, vec![])).unwrap();
    let sent = s.take_sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(
        (sent[0].flags(), sent[0].packet.seq, sent[0].options()),
        ("R".to_string(), 1, vec![])
    );
}
