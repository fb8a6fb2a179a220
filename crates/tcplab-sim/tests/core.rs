//! Behaviour of the simulator core: exact segment-level scripts, timing, the paper's clean
//! channel, determinism, shared bottlenecks and bad input.

mod common;

use common::*;
use tcplab_sim::{run, Scenario};

#[test]
fn clean_channel_sends_6850_data_segments_in_the_window_limited_time() {
    let out = run_toml(&paper("10000000B", NONE, NONE, "", ""));
    let s = &out.summary;
    // Section 4.1: n = ceil(10,000,000 / 1460) = 6850.
    assert_eq!(num(s, "connections.0.server.data_segments_sent"), 6850.0);
    assert_eq!(num(s, "connections.0.server.retransmissions"), 0.0);
    // The server's frames: SYN-ACK + 6850 data + FIN + the ACK of the client's FIN.
    assert_eq!(num(s, "links.0.ab.frames_sent"), 6853.0);

    // Derivation of the window-limited time. rwnd = 8760 B = 6 segments; the receiver ACKs
    // every second segment, so the sender sends pairs, and 3 pairs are in flight. A pair sent at
    // t leaves the server at t + 2 x 1.2304 ms (1538 wire bytes at 10 Mb/s each), crosses the
    // 20 ms cloud hop, is forwarded on the 0 ms LAN hop (1.2304 ms, no wait: the first segment of
    // the pair clears it just in time), and the ACK (84 wire bytes, 0.0672 ms per hop) returns
    // through 20 ms. So a pair slot recurs every
    //   T = 3 x 1.2304 + 20 + 2 x 0.0672 + 20 = 43.8256 ms,
    // and 6 segments go per T: 6850 / 6 x T = 50.036 s, plus the handshake (about one RTT) and
    // slow start from IW 2 (a few RTTs at less than the full window).
    let ser_data = 1538.0 * 8.0 / 10e6;
    let ser_ack = 84.0 * 8.0 / 10e6;
    let t = 3.0 * ser_data + 0.020 + 2.0 * ser_ack + 0.020;
    let expected = 6850.0 / 6.0 * t;
    let got = num(s, "apps.0.response_time_s");
    assert!(
        (got - expected).abs() / expected < 0.02,
        "response time {got} vs window-limited {expected}"
    );
    // And the paper's testbed measured 50.25 s (Table 8).
    assert!((got - 50.25).abs() / 50.25 < 0.02, "{got}");
}

/// Section 5.1 of the paper: a 6-segment window, one drop; three duplicate ACKs trigger fast
/// retransmit about one RTT after the lost segment was sent, and after recovery
/// cwnd = ssthresh = 3 MSS.
#[test]
fn single_drop_fast_retransmit_after_three_dupacks_then_cwnd_is_three_mss() {
    let lost = seg(200);
    let err = format!(r#"{{ model = "list", segments = [{{ seq = {lost}, tx = 1 }}] }}"#);
    let out = run_toml(&paper(
        "1MB",
        &err,
        NONE,
        "",
        "packets = true\ntrace = true",
    ));
    let pk = packets(&out);
    let sent = pk
        .iter()
        .find(|p| p.event == "send" && p.from_end == 1 && p.seq == lost && p.tx == 1)
        .expect("original send");
    let retx = pk
        .iter()
        .find(|p| p.event == "send" && p.from_end == 1 && p.seq == lost && p.tx == 2)
        .expect("retransmission");
    // ACKs for `lost` reaching the server before the retransmission: the first one acknowledges
    // new data, the next three are duplicates.
    let acks: Vec<&Pkt> = pk
        .iter()
        .filter(|p| p.event == "recv" && p.from_end == 0 && p.ack == lost && p.time <= retx.time)
        .collect();
    assert_eq!(acks.len(), 4, "one new ACK and three duplicates");
    // The retransmission goes the moment the third duplicate arrives.
    assert_eq!(acks[3].time, retx.time);
    let delay = retx.time - sent.time;
    assert!(
        (0.040..0.050).contains(&delay),
        "fast retransmit {delay} s after the original, about one RTT"
    );
    let s = &out.summary;
    assert_eq!(num(s, "connections.0.server.fast_retransmits"), 1.0);
    assert_eq!(num(s, "connections.0.server.retransmissions"), 1.0);
    assert_eq!(num(s, "connections.0.server.rto_expirations"), 0.0);
    // After recovery: the first trace row after the retransmission is acknowledged.
    let tr = out.table("trace").unwrap();
    let (time, cwnd, ssth, ack) = (
        f64s(tr, "time_s"),
        u64s(tr, "cwnd"),
        u64s(tr, "ssthresh"),
        u64s(tr, "ack"),
    );
    let i = (0..time.len())
        .find(|&i| time[i] > retx.time && ssth[i] < 100_000 && ack[i] > lost)
        .expect("row after recovery");
    assert_eq!((cwnd[i], ssth[i]), (3 * MSS, 3 * MSS));
}

/// A segment, its fast retransmission and two timeout retransmissions are all lost: the timer,
/// restarted on each retransmission, expires after exactly 1 s, then 2 s, then 4 s
/// (RFC 6298 5.5 back-off, Riverbed's 1 s minimum RTO), and ssthresh is not reduced again.
#[test]
fn rto_backoff_sequence_is_exact() {
    let lost = seg(300);
    let err = format!(
        r#"{{ model = "list", segments = [{{ seq = {lost}, tx = 1 }}, {{ seq = {lost}, tx = 2 }}, {{ seq = {lost}, tx = 3 }}, {{ seq = {lost}, tx = 4 }}] }}"#
    );
    let out = run_toml(&paper("1MB", &err, NONE, "", "packets = true"));
    let pk = packets(&out);
    let times: Vec<f64> = (1..=5)
        .map(|k| {
            pk.iter()
                .find(|p| p.event == "send" && p.from_end == 1 && p.seq == lost && p.tx == k)
                .unwrap_or_else(|| panic!("transmission {k}"))
                .time
        })
        .collect();
    let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        (0.040..0.100).contains(&gaps[0]),
        "fast retransmit {gaps:?}"
    );
    for (g, want) in gaps[1..].iter().zip([1.0, 2.0, 4.0]) {
        assert!((g - want).abs() < 1e-9, "gaps {gaps:?}");
    }
    let s = &out.summary;
    assert_eq!(num(s, "connections.0.server.rto_expirations"), 3.0);
    assert_eq!(get(s, "apps.0.completed").as_bool(), Some(true));
}

#[test]
fn karn_no_rtt_sample_from_retransmitted_segment_and_backoff_held() {
    // Only one segment is lost, twice (its fast retransmission too): one RTO.
    let lost = seg(50);
    let err = format!(
        r#"{{ model = "list", segments = [{{ seq = {lost}, tx = 1 }}, {{ seq = {lost}, tx = 2 }}] }}"#
    );
    let out = run_toml(&paper("200KB", &err, NONE, "", "trace = true"));
    let s = &out.summary;
    assert_eq!(num(s, "connections.0.server.rto_expirations"), 1.0);
    // The trace's rto column shows the back-off (2 s) right after the timeout, and a return to
    // the 1 s minimum only after a fresh sample from a segment sent once.
    let tr = out.table("trace").unwrap();
    let rto = f64s(tr, "rto_s");
    assert!(rto.contains(&2.0), "backed-off RTO visible");
    let first2 = rto.iter().position(|&r| r == 2.0).unwrap();
    assert!(rto[first2..].contains(&1.0), "reset after a valid sample");
}

#[test]
fn same_seed_gives_identical_output_and_other_seed_differs() {
    let toml = paper(
        "2MB",
        r#"{ model = "per", p = 0.03 }"#,
        r#"{ model = "per", p = 0.01 }"#,
        "",
        "trace = true\npackets = true",
    );
    let a = run_seed(&toml, 7);
    let b = run_seed(&toml, 7);
    assert_eq!(a.summary.to_string(), b.summary.to_string());
    assert_eq!(a.tables.len(), 3);
    for (ta, tb) in a.tables.iter().zip(&b.tables) {
        assert_eq!(ta.name, tb.name);
        assert!(ta.rows() > 0);
        // Bit-identical, floats included (the trace holds NaN before the first RTT sample).
        for ((na, ca), (nb, cb)) in ta.columns.iter().zip(&tb.columns) {
            assert_eq!(na, nb);
            let same = match (ca, cb) {
                (tcplab_sim::Column::F64(x), tcplab_sim::Column::F64(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
                }
                _ => ca == cb,
            };
            assert!(same, "{}.{na} differs between two runs of seed 7", ta.name);
        }
    }
    let c = run_seed(&toml, 8);
    assert_ne!(a.summary.to_string(), c.summary.to_string());
}

#[test]
fn channel_pattern_is_shared_by_variants_on_the_same_seed() {
    // Common random numbers: the k-th frame on a link sees the same draw whatever TCP does, so
    // the first dropped frame index is the same for two different TCP configurations.
    let first_drop = |tcp: &str| {
        let toml = paper(
            "1MB",
            r#"{ model = "per", p = 0.02 }"#,
            NONE,
            tcp,
            "packets = true",
        );
        let out = run_seed(&toml, 11);
        let pk = packets(&out);
        let sent: Vec<&Pkt> = pk
            .iter()
            .filter(|p| p.event == "send" && p.from_end == 1)
            .collect();
        let dropped = pk
            .iter()
            .find(|p| p.event == "drop_error")
            .expect("a drop")
            .clone();
        sent.iter()
            .position(|p| p.seq == dropped.seq && p.tx == dropped.tx && p.len == dropped.len)
            .unwrap()
    };
    assert_eq!(
        first_drop(""),
        first_drop("rcv_buf = \"64KiB\"\ninitial_cwnd = 4")
    );
}

#[test]
fn two_downloads_share_a_bottleneck_queue() {
    let toml = r#"
[run]
seed = 5
[tcp]
profile = "rfc"
rcv_buf = "64KB"
[[nodes]]
name = "s1"
[[nodes]]
name = "s2"
[[nodes]]
name = "r1"
kind = "router"
[[nodes]]
name = "r2"
kind = "router"
[[nodes]]
name = "c1"
[[nodes]]
name = "c2"
[[links]]
name = "s1r1"
a = "s1"
b = "r1"
rate = "100Mbps"
delay = "1ms"
[[links]]
name = "s2r1"
a = "s2"
b = "r1"
rate = "100Mbps"
delay = "1ms"
[[links]]
name = "bottleneck"
a = "r1"
b = "r2"
rate = "2Mbps"
delay = "20ms"
queue = "20p"
[[links]]
name = "r2c1"
a = "r2"
b = "c1"
rate = "100Mbps"
delay = "1ms"
[[links]]
name = "r2c2"
a = "r2"
b = "c2"
rate = "100Mbps"
delay = "1ms"
[[apps]]
name = "one"
kind = "ftp"
client = "c1"
server = "s1"
size = "2MB"
[[apps]]
name = "two"
kind = "ftp"
client = "c2"
server = "s2"
size = "2MB"
start = "100ms"
"#;
    let out = run_toml(toml);
    let s = &out.summary;
    for i in 0..2 {
        assert_eq!(get(s, &format!("apps.{i}.completed")).as_bool(), Some(true));
        assert_eq!(num(s, &format!("apps.{i}.bytes_received")), 2e6);
    }
    let b = get(s, "links.2.ab");
    // Both flows' data crossed the bottleneck: at least 2 x 1370 data frames.
    assert!(num(b, "frames_sent") >= 2.0 * 1370.0);
    // The queue filled and dropped, and never held more than its limit.
    assert!(num(b, "frames_dropped_queue") > 0.0);
    assert!(num(b, "max_queue_packets") <= 20.0);
    // Losses were queue losses, so each connection retransmitted at least its own drops.
    let retx: f64 = (0..2)
        .map(|i| num(s, &format!("connections.{i}.server.retransmissions")))
        .sum();
    assert!(retx >= num(b, "data_frames_dropped_queue"));
    // The bottleneck was busy: 4 MB in total over 2 Mb/s needs at least 16 s.
    let end = num(s, "apps.0.end_s").max(num(s, "apps.1.end_s"));
    assert!(end > 16.0, "{end}");
    // Neither flow starved: throughputs within a factor of 3.
    let (t0, t1) = (
        num(s, "apps.0.throughput_Bps"),
        num(s, "apps.1.throughput_Bps"),
    );
    assert!(t0 / t1 < 3.0 && t1 / t0 < 3.0, "{t0} {t1}");
}

#[test]
fn pdrop_one_percent_retransmissions_match_drops_over_20_seeds() {
    let toml = paper(
        "10000000B",
        r#"{ model = "per", p = 0.01 }"#,
        NONE,
        "",
        "events = false",
    );
    let mut retx = Vec::new();
    let mut drops = Vec::new();
    for seed in 1..=20 {
        let out = run_seed(&toml, seed);
        let s = &out.summary;
        let r = num(s, "connections.0.server.retransmissions");
        let d = num(s, "links.0.ab.data_frames_dropped_error");
        assert!(r >= d, "seed {seed}: {r} retransmissions < {d} data drops");
        assert_eq!(get(s, "apps.0.completed").as_bool(), Some(true));
        retx.push(r);
        drops.push(d);
    }
    let n = retx.len() as f64;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / n;
    let (mr, md) = (mean(&retx), mean(&drops));
    let var = retx.iter().map(|x| (x - mr).powi(2)).sum::<f64>() / (n - 1.0);
    let se = (var / n).sqrt();
    assert!(
        (mr - md).abs() < 3.0 * se,
        "mean retx {mr} vs drops {md}, se {se}"
    );
    // And the drops themselves follow n x p: 6850 x 1 % = 68.5 (plus drops of retransmissions).
    assert!((md - 68.5).abs() < 10.0, "{md}");
}

#[test]
fn receiver_read_rate_closes_the_window() {
    // A slow reader (40 kB/s) behind an 8760-byte buffer: the advertised window falls below
    // the full buffer, and the transfer is paced by the reader.
    let out = run_toml(&paper(
        "400KB",
        NONE,
        NONE,
        "rcv_read_rate = \"320kbps\"",
        "trace = true",
    ));
    let tr = out.table("trace").unwrap();
    let rwnd = u64s(tr, "rwnd");
    assert!(rwnd.iter().any(|&w| w < 8760 && w > 0) || rwnd.contains(&0));
    let t = num(&out.summary, "apps.0.response_time_s");
    // 400 kB at 40 kB/s cannot take less than 10 s - 8760 B of buffer.
    assert!(t > (400_000.0 - 8760.0) / 40_000.0, "{t}");
    assert!(t < 12.0, "{t}");
}

#[test]
fn bad_input_gives_clear_errors() {
    let base = paper("1MB", NONE, NONE, "", "");
    let cases = [
        (
            base.replace("10Mbps", "-10Mbps"),
            "links[0].rate",
            "invalid_value",
        ),
        (
            paper("1MB", r#"{ model = "ber", ber = 2.0 }"#, NONE, "", ""),
            "links[0].ab.error.ber",
            "invalid_value",
        ),
        (
            base.replace("[tcp]", "[tcp]\nwarp = 9"),
            "tcp.warp",
            "unknown_field",
        ),
        (
            base.replace("size = \"1MB\"", "size = \"lots\""),
            "apps[0].size",
            "invalid_value",
        ),
        (
            base.replace("delay = \"20ms\"", "delay = 20"),
            "links[0].delay",
            "invalid_value",
        ),
        (
            base.replace("client = \"client\"", "client = \"nobody\""),
            "apps[0].client",
            "invalid_value",
        ),
        (
            base.replace(
                "[[nodes]]\nname = \"server\"",
                "[[nodes]]\nname = \"server\"\ncolour = 1",
            ),
            "nodes[0].colour",
            "unknown_field",
        ),
        ("[run\nseed = 1".to_string(), "", "parse"),
    ];
    for (toml, field, kind) in cases {
        let e = Scenario::from_toml_str(&toml).expect_err(field);
        assert_eq!(e.kind(), kind, "{e}");
        assert!(e.to_string().contains(field), "{e} should name {field}");
    }
    // A host cannot forward: a chain through a host has no route.
    let through_host = base.replace("kind = \"router\"", "kind = \"host\"");
    let sc = Scenario::from_toml_str(&through_host).unwrap();
    let e = run(&sc).unwrap_err();
    assert_eq!(e.kind(), "topology");
}

/// CBR over TCP (seed 002's setup): the application offers 10 Mbit/s (1460 B every 1168 us),
/// TCP is held to rwnd / RTT by a 65535-byte window, and the unsent backlog grows.
#[test]
fn cbr_over_tcp_is_window_limited_and_its_backlog_grows() {
    let toml = r#"
[run]
stop_time = "60s"
[tcp]
profile = "rfc"
rcv_buf = 65535
delayed_ack = false
[[nodes]]
name = "a"
[[nodes]]
name = "r1"
kind = "router"
[[nodes]]
name = "r2"
kind = "router"
[[nodes]]
name = "b"
[[links]]
a = "a"
b = "r1"
rate = "10Mbps"
delay = "0.1ms"
[[links]]
a = "r1"
b = "r2"
rate = "10Mbps"
delay = "50ms"
[[links]]
a = "r2"
b = "b"
rate = "10Mbps"
delay = "0.1ms"
[[apps]]
kind = "cbr"
client = "a"
server = "b"
packet_size = 1460
interval = "1168us"
"#;
    let out = run_toml(toml);
    let s = &out.summary;
    // Writes at 0, 1168 us, ... up to the 60 s stop: 51370 writes of 1460 bytes.
    let writes = (60.0f64 / 1168e-6).floor() + 1.0;
    assert_eq!(num(s, "apps.0.offered_bytes"), writes * 1460.0);
    // RTT: 2 x 50.2 ms of propagation, a 1538-byte frame serialised on 3 hops (1.2304 ms each)
    // and a 78-byte ACK frame on 3 hops (0.0672 ms each).
    let rtt = 2.0 * 0.0502 + 3.0 * 1538.0 * 8.0 / 10e6 + 3.0 * 84.0 * 8.0 / 10e6;
    let limit = 65535.0 / rtt;
    let got = num(s, "apps.0.throughput_Bps");
    assert!(
        (got / limit - 1.0).abs() < 0.05,
        "throughput {got} vs rwnd/RTT {limit}"
    );
    // The application offered 1.25 MB/s; TCP carried about half, the rest waits.
    assert!(
        num(s, "apps.0.max_backlog_bytes") > 30e6,
        "{}",
        get(s, "apps.0.max_backlog_bytes")
    );
    assert_eq!(num(s, "connections.0.client.retransmissions"), 0.0);
}
