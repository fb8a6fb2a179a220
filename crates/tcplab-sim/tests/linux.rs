//! The `linux` profile's kernel mechanisms (issue 12), each switchable: cwnd validation
//! (`tcp_is_cwnd_limited`), ssthresh from cwnd (`tcp_reno_ssthresh`, `cubictcp_recalc_ssthresh`)
//! in whole packets, CUBIC's HyStart, quick ACKs, Minshall's Nagle and receive-buffer
//! autotuning. A download limited by the receiver's 131072-byte window (fixed, as SO_RCVBUF
//! fixes it) over a 20 Mbit/s, 20 ms path whose bandwidth-delay product (69 segments) and
//! 100-packet queue exceed that window.

mod common;

use common::*;
use tcplab_sim::SimOutput;

fn bulk(tcp: &str, data_error: &str) -> SimOutput {
    run_toml(&one_link(
        "60s",
        &format!("profile = \"linux\"\nrcv_buf = 131072\n{tcp}"),
        "rate = \"20Mbps\"\ndelay = \"20ms\"\nqueue = \"100p\"",
        data_error,
        "3MB",
        "events = true",
    ))
}

/// Payload bytes per segment with timestamps (1460 - 12).
const SEG: u64 = 1448;
/// The largest flight the 131072-byte window admits: 90 whole segments.
const MAX_FLIGHT: u64 = 90 * SEG;

#[test]
fn cwnd_validation_stops_growth_at_twice_the_flight_when_the_window_limits() {
    // Slow start may reach twice the largest flight of the window (tcp_is_cwnd_limited), and
    // congestion avoidance is never entered; without validation cwnd grows on every ACK.
    let out = bulk("congestion_control = \"reno\"", NONE);
    assert_eq!(server(&out, "max_cwnd") as u64, 2 * MAX_FLIGHT);
    let free = bulk(
        "congestion_control = \"reno\"\ncwnd_validation = false",
        NONE,
    );
    assert!(server(&free, "max_cwnd") as u64 > 10 * MAX_FLIGHT);
    // Lossless, the window alone sets the pace: the same transfer time either way.
    assert_eq!(
        num(&out.summary, "apps.0.response_time_s"),
        num(&free.summary, "apps.0.response_time_s")
    );
}

/// ssthresh set at the first fast retransmit, read from the event's detail.
fn first_ssthresh(out: &SimOutput) -> u64 {
    let ev = events(out);
    let fr = ev
        .iter()
        .find(|e| e.kind == "fast_retransmit")
        .expect("a fast retransmit");
    let words: Vec<&str> = fr.detail.split_whitespace().collect();
    let i = words.iter().position(|w| *w == "ssthresh").unwrap();
    words[i + 1].parse().unwrap()
}

#[test]
fn ssthresh_halves_cwnd_in_linux_and_the_flight_in_rfc_5681() {
    // One segment lost in the window-limited steady state: cwnd is 2 x 90 segments (slow start
    // under validation, HyStart off), the flight 90 segments of which, at the fast retransmit,
    // 3 are SACKed and 1 is marked lost, so FlightSize in the network (RFC 6675 pipe) is 86
    // segments. Results are whole segments (cwnd_packets): 86 x 0.7 = 60.2 -> 60.
    let flight = 86;
    let drop = format!(
        "{{ model = \"list\", segments = [{{ seq = {}, tx = 1 }}] }}",
        1 + 1000 * SEG
    );
    let cubic = "congestion_control = \"cubic\"\ncc_params = { hystart = false }";
    for (tcp, want) in [
        ("congestion_control = \"reno\"".to_string(), MAX_FLIGHT),
        (
            "congestion_control = \"reno\"\nssthresh_from = \"flight\"".into(),
            flight / 2 * SEG,
        ),
        // CUBIC: cwnd x 0.7 (Linux: 717/1024) against FlightSize x 0.7 (RFC 9438 4.6).
        (cubic.into(), 126 * SEG),
        (format!("{cubic}\nssthresh_from = \"flight\""), 60 * SEG),
        // In bytes, as RFC 5681 and 9438 count: 86 x 1448 x 0.7.
        (
            format!("{cubic}\nssthresh_from = \"flight\"\ncwnd_packets = false"),
            flight * SEG * 7 / 10,
        ),
    ] {
        let got = first_ssthresh(&bulk(&tcp, &drop));
        assert!(got.abs_diff(want) <= 1, "{tcp}: {got} vs {want}");
    }
}

#[test]
fn bad_ssthresh_from_names_the_field_and_the_choices() {
    let toml = direct("ssthresh_from = \"half\"", "", 1000, NONE, "", "");
    let e = tcplab_sim::Scenario::from_toml_str(&toml)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tcp.ssthresh_from") && e.contains("\"half\"") && e.contains("window"),
        "{e}"
    );
}

#[test]
fn hystart_leaves_slow_start_near_the_path_not_at_twice_the_window() {
    // Without HyStart cwnd reaches twice the flight (180 segments) before anything stops it;
    // with it the ACK train and the RTT rise stop slow start once the queue builds, between the
    // path's 69 segments and the window's 90 (+ a round's growth). On this path the kernel's
    // CUBIC peaked at 79-96 segments (testbed, 5 seeds, TCP_INFO).
    let on = server(&bulk("", NONE), "max_cwnd") / SEG as f64;
    let off = server(&bulk("cc_params = { hystart = false }", NONE), "max_cwnd") / SEG as f64;
    assert_eq!(off, 180.0);
    assert!((69.0..=100.0).contains(&on), "{on}");
}

/// Pure ACKs the client sent before the server's data passed `upto` bytes.
fn early_acks(out: &SimOutput, upto: u64) -> usize {
    packets(out)
        .iter()
        .filter(|p| p.event == "send" && p.from_end == 0 && p.len == 0 && p.ack > 1)
        .filter(|p| p.ack <= 1 + upto)
        .count()
}

/// The linux profile without timestamps: 1460-byte segments, as `drops` counts them.
const LINUX_NO_TS: &str = "profile = \"linux\"\ntimestamps = false";

fn linux_download(tcp: &str, size: u64, output: &str) -> SimOutput {
    let tcp = format!("profile = \"linux\"\n{tcp}");
    run_toml(&direct(&tcp, "", size, NONE, "", output))
}

#[test]
fn quick_acks_acknowledge_each_of_the_first_segments() {
    // The first 16 data segments: 16 ACKs in quick-ACK mode (tcp_incr_quickack), 8 with an
    // ACK every second segment. Without quick-ACK mode an autotuned receiver still ACKs each:
    // every segment raises its rcv_ssthresh, from the SYN's 45 segments towards the buffer's
    // 90, and each rise asks for an ACK at once (tcp_grow_window); a fixed buffer does not.
    let quick = linux_download("", 100_000, "packets = true");
    let ramp = linux_download("quick_acks = 0", 100_000, "packets = true");
    let delayed = linux_download(
        "quick_acks = 0\nrcv_buf_max = 131072",
        100_000,
        "packets = true",
    );
    assert_eq!(early_acks(&quick, 16 * SEG), 16);
    assert_eq!(early_acks(&ramp, 16 * SEG), 16);
    assert_eq!(early_acks(&delayed, 16 * SEG), 8);
}

#[test]
fn minshall_sends_the_short_tail_at_once_where_rfc_nagle_waits_a_round_trip() {
    // 20 segments and 100 bytes: the short last piece waits, under RFC 1122's Nagle, until all
    // earlier data are acknowledged (one round trip plus the delayed ACK); under Minshall's
    // variant no earlier short segment is outstanding, so it leaves with the others.
    let time = |tcp: &str| {
        let out = linux_download(tcp, 20 * SEG + 100, "");
        num(&out.summary, "apps.0.response_time_s")
    };
    // The server closes right after its write: with the linux profile's `fin_with_data` the
    // FIN rides on the short tail, and Linux never holds a FIN back (tcp_nagle_test), so
    // Nagle's variants differ only without it.
    let minshall = time("fin_with_data = false");
    let rfc = time("fin_with_data = false\nnagle_minshall = false");
    assert!(rfc - minshall > 0.040, "{rfc} vs {minshall}");
    assert_eq!(time("fin_with_data = false\nnagle = false"), minshall);
    assert_eq!(time("nagle_minshall = false"), time("nagle = false"));
}

#[test]
fn a_timeout_inside_fast_recovery_keeps_the_fast_retransmits_ssthresh() {
    // Segment 100 and its fast retransmission are lost: the timeout fires inside the recovery
    // phase. Linux (tcp_enter_loss in the Recovery state) keeps the ssthresh the fast
    // retransmit set; RFC 5681 (the switch off) computes it again at the timeout, from cwnd
    // here (ssthresh_from = "cwnd"), which recovery has left at the halved value.
    let ssthresh_after = |extra: &str| {
        let data = drops(&[(100, 1), (100, 2)]);
        let out = reno_dupack_download(
            LINUX_NO_TS,
            extra,
            400 * MSS,
            &data,
            "events = true\ntrace = true",
        );
        let ev = events(&out);
        let fr = ev
            .iter()
            .find(|e| e.kind == "fast_retransmit")
            .expect("FR")
            .time;
        let rto = ev.iter().find(|e| e.kind == "rto").expect("RTO").time;
        let t = out.table("trace").unwrap();
        let (time, ss) = (f64s(t, "time_s"), u64s(t, "ssthresh"));
        let after = |x: f64| ss[(0..time.len()).find(|&i| time[i] > x).expect("a row")];
        (after(fr), after(rto))
    };
    let (fr, rto) = ssthresh_after("");
    assert_eq!(rto, fr, "kept");
    let (fr_off, rto_off) = ssthresh_after("rto_keeps_recovery_ssthresh = false");
    assert_eq!(fr_off, fr);
    assert!(rto_off < fr, "computed again: {rto_off} vs {fr}");
    assert_eq!(rto_off % MSS, 0, "whole segments");
}

/// The client's (receiver's) summary entry.
fn client(out: &SimOutput, key: &str) -> f64 {
    num(&out.summary, &format!("connections.0.client.{key}"))
}

#[test]
fn the_receive_buffer_autotunes_unless_it_is_set() {
    // 20 Mbit/s, 100 ms each way: the path holds 345 segments, far beyond 131072 bytes.
    let run = |tcp: &str| {
        run_toml(&one_link(
            "60s",
            &format!("profile = \"linux\"\ncongestion_control = \"reno\"\n{tcp}"),
            "rate = \"20Mbps\"\ndelay = \"100ms\"\nqueue = \"1000p\"",
            NONE,
            "5MB",
            "",
        ))
    };
    let auto = run("");
    let fixed = run("rcv_buf = 131072");
    let wide = run("rcv_buf = \"6MB\"");
    // Fixed: no autotuning entries, and the sender never sees more than the buffer.
    assert!(fixed.summary["connections"][0]["client"]
        .get("rcv_window_max")
        .is_none());
    // Autotuned: the window grew (several times, once per receiver round trip at most) past
    // the path's bandwidth-delay product, staying within tcp_rmem[2].
    let grown = client(&auto, "rcv_window_grown");
    let window = client(&auto, "rcv_window_max");
    assert!((2.0..=40.0).contains(&grown), "{grown}");
    assert!(
        window > 345.0 * SEG as f64 && window <= 6_291_456.0,
        "{window}"
    );
    // So the download runs close to one with a 6 MB buffer from the start, and far faster than
    // with 131072 bytes (about 2.5 s of 5 MB at 20 Mbit/s against 128 KiB per 200 ms).
    let t = |o: &SimOutput| num(&o.summary, "apps.0.response_time_s");
    assert!(t(&fixed) > 7.5, "{}", t(&fixed));
    assert!(t(&auto) < 0.5 * t(&fixed), "{} vs {}", t(&auto), t(&fixed));
    assert!(t(&auto) < 1.1 * t(&wide), "{} vs {}", t(&auto), t(&wide));
    // rcv_buf_max below rcv_buf is refused, naming the field and the bound.
    let toml = direct(
        "rcv_buf = 100000\nrcv_buf_max = 50000",
        "",
        1000,
        NONE,
        "",
        "",
    );
    let e = tcplab_sim::Scenario::from_toml_str(&toml)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tcp.rcv_buf_max") && e.contains("50000") && e.contains("100000"),
        "{e}"
    );
}

#[test]
fn hystart_ends_slow_start_whatever_the_loss_recovery() {
    // HyStart reads each ACK's RTT sample; the sender must keep it for CUBIC even when the loss
    // recovery (here SACK or NewReno rather than RACK) does not need it.
    for lr in ["rack-tlp", "sack", "newreno"] {
        let out = bulk(
            &format!("congestion_control = \"cubic\"\nloss_recovery = \"{lr}\""),
            NONE,
        );
        let peak = server(&out, "max_cwnd") / SEG as f64;
        assert!((69.0..=100.0).contains(&peak), "{lr}: {peak}");
    }
}

#[test]
fn cubic_counts_whole_packets_unless_told_otherwise() {
    // 1 % random loss keeps CUBIC in congestion avoidance. Linux's snd_cwnd is an integer
    // (cc/cubic/packets.rs): every window the sender traces outside recovery (where PRR sets it)
    // is whole segments. RFC 9438's real window (packets = false) is not.
    let run = |cc: &str| {
        let out = run_toml(&one_link(
            "60s",
            &format!("profile = \"linux\"\ncongestion_control = \"cubic\"\n{cc}"),
            "rate = \"20Mbps\"\ndelay = \"100ms\"\nqueue = \"100p\"",
            "{ model = \"per\", p = 0.01 }",
            "2MB",
            "trace = true\nevents = true",
        ));
        // Recovery episodes: from a fast retransmit or timeout to the next recovery exit.
        let mut episodes: Vec<(f64, f64)> = Vec::new();
        for e in events(&out) {
            match e.kind.as_str() {
                "fast_retransmit" | "rto" => episodes.push((e.time, f64::INFINITY)),
                "recovery_exit" => {
                    if let Some(last) = episodes.last_mut() {
                        last.1 = last.1.min(e.time);
                    }
                }
                _ => {}
            }
        }
        assert!(episodes.len() >= 3, "{episodes:?}");
        let t = out.table("trace").expect("trace table");
        let (time, end, cwnd) = (f64s(t, "time_s"), u64s(t, "end"), u64s(t, "cwnd"));
        let outside: Vec<u64> = (0..end.len())
            .filter(|&i| end[i] == 1 && time[i] > 0.0)
            .filter(|&i| !episodes.iter().any(|&(a, b)| a <= time[i] && time[i] <= b))
            .map(|i| cwnd[i])
            .collect();
        assert!(outside.len() > 100, "{}", outside.len());
        outside.iter().filter(|&&w| w % SEG != 0).count()
    };
    assert_eq!(run(""), 0);
    assert!(run("cc_params = { packets = false }") > 10);
    // Windows in bytes take CUBIC's real arithmetic with them.
    assert!(run("cwnd_packets = false") > 10);
}

/// The server's segments that carry a FIN, and its data segments, of a 100 kB download over
/// the linux profile (`tcp` lines added), with the list error model `data`.
fn fin_segments(tcp: &str, data: &str) -> (Vec<Pkt>, Vec<Pkt>) {
    let out = run_toml(&one_link(
        "60s",
        &format!("profile = \"linux\"\n{tcp}"),
        "rate = \"10Mbps\"\ndelay = \"10ms\"",
        data,
        "100kB",
        "packets = true",
    ));
    assert_eq!(num(&out.summary, "apps.0.bytes_received"), 100_000.0);
    let sent: Vec<Pkt> = packets(&out)
        .into_iter()
        .filter(|p| p.event == "send" && p.from_end == 1)
        .collect();
    let fins = sent
        .iter()
        .filter(|p| p.flags & 0x01 != 0)
        .cloned()
        .collect();
    let data = sent.into_iter().filter(|p| p.len > 0).collect();
    (fins, data)
}

#[test]
fn the_fin_rides_on_the_last_data_segment_in_linux_and_stands_alone_without_the_rule() {
    // 100 kB is 70 segments of 1448 bytes: the server closes after its write while most of
    // them wait for the window, so Linux's FIN marks the last one (tcp_send_fin).
    let (fins, data) = fin_segments("", NONE);
    assert_eq!(fins.len(), 1, "{fins:?}");
    let last = data.iter().max_by_key(|p| p.seq).unwrap();
    assert_eq!(
        (fins[0].seq, fins[0].len),
        (last.seq, 100_000 - (last.seq - 1))
    );
    assert_eq!(fins[0].len, 100_000 % SEG);
    // Without the rule: the same data, then a FIN of its own one past it.
    let (fins, data) = fin_segments("fin_with_data = false", NONE);
    assert_eq!(fins.len(), 1, "{fins:?}");
    assert_eq!((fins[0].seq, fins[0].len), (100_001, 0));
    assert!(data.iter().all(|p| p.flags & 0x01 == 0));
}

#[test]
fn a_lost_last_segment_is_resent_with_its_fin() {
    // The tail (88 bytes and the FIN, seq 99,913) is dropped once: its retransmission
    // carries both.
    let tail = 1 + 69 * SEG;
    let drop = format!("{{ model = \"list\", segments = [{{ seq = {tail}, tx = 1 }}] }}");
    let (fins, _) = fin_segments("", &drop);
    let txs: Vec<(u64, u64, u64)> = fins.iter().map(|p| (p.seq, p.len, p.tx)).collect();
    assert_eq!(txs.len(), 2, "{txs:?}");
    assert!(txs.iter().all(|&(s, l, _)| s == tail && l == 100_000 % SEG));
    assert_eq!((txs[0].2, txs[1].2), (1, 2));
}

/// What the server sent in answer to each ACK from the client after its first data, in order:
/// the ACK's acknowledgement number and the (seq, transmission) of each data segment sent at
/// that instant.
type Answer = (u64, Vec<(u64, u64)>);

fn answers(out: &SimOutput) -> Vec<Answer> {
    let mut rows: Vec<Answer> = Vec::new();
    let mut sending = false;
    for p in packets(out) {
        if sending && p.place.is_empty() && p.event == "recv" && p.from_end == 0 {
            rows.push((p.ack, Vec::new()));
        } else if p.event == "send" && p.from_end == 1 && p.len > 0 {
            sending = true;
            if let Some(last) = rows.last_mut() {
                last.1.push((p.seq, p.tx));
            }
        }
    }
    rows
}

/// A download of `size` bytes with `profile` (`tcp` lines added) on a 100 Mbit/s path of 10 ms
/// each way whose data direction drops the first transmission of the segments `lost` (indices
/// from 0): the server's answer to each ACK.
fn recovery_steps(profile: &str, tcp: &str, lost: &[u64], size: u64) -> Vec<Answer> {
    let seg = if profile == "linux" { SEG } else { 1460 };
    let items: Vec<String> = lost
        .iter()
        .map(|k| format!("{{ seq = {}, tx = 1 }}", 1 + k * seg))
        .collect();
    let out = run_toml(&one_link(
        "10s",
        &format!("profile = \"{profile}\"\n{tcp}"),
        "rate = \"100Mbps\"\ndelay = \"10ms\"",
        &format!("{{ model = \"list\", segments = [{}] }}", items.join(", ")),
        &format!("{size}B"),
        "packets = true",
    ));
    assert_eq!(num(&out.summary, "apps.0.bytes_received"), size as f64);
    answers(&out)
}

/// The data segments, as (segment index, transmission), sent in answer to each of the first
/// `n` ACKs of segment `una` (the ACKs that acknowledge the segments before it) after the first
/// `skip`.
fn on_acks_of(steps: &[Answer], una: u64, skip: usize, n: usize, seg: u64) -> Vec<Vec<(u64, u64)>> {
    steps
        .iter()
        .filter(|a| a.0 == 1 + una * seg)
        .skip(skip)
        .take(n)
        .map(|a| a.1.iter().map(|&(s, tx)| ((s - 1) / seg, tx)).collect())
        .collect()
}

#[test]
fn limited_transmit_sends_one_new_segment_per_duplicate_ack_in_linux_as_rfc_3042_does() {
    // 30,000 bytes, 21 segments; segment 1 of the initial window of 10 is lost. The first ACK
    // (skipped) acknowledges segment 0
    // and slow start sends segments 10 and 11 for it; each of the first two duplicate ACKs
    // SACKs one segment, which leaves the pipe, and Linux sends one new segment for it
    // (limited-transmit-sack.pkt's steps); the third starts recovery with the fast
    // retransmit.
    let steps = recovery_steps("linux", "", &[1], 30_000);
    assert_eq!(
        on_acks_of(&steps, 1, 1, 3, SEG),
        [vec![(12, 1)], vec![(13, 1)], vec![(1, 2)]]
    );
    // Without SACK the duplicate ACKs count the segments out of the pipe instead
    // (tcp_add_reno_sack): the same steps (limited-transmit-no-sack.pkt).
    let steps = recovery_steps(
        "linux",
        "sack = false\nloss_recovery = \"newreno\"",
        &[1],
        30_000,
    );
    assert_eq!(
        on_acks_of(&steps, 1, 1, 3, SEG),
        [vec![(12, 1)], vec![(13, 1)], vec![(1, 2)]]
    );
    // Without the rule, RFC 3042's room comes on top of the SACKed segment: two new segments
    // on each (the double count of issue 31).
    let steps = recovery_steps("linux", "limited_transmit_by_pipe = false", &[1], 30_000);
    assert_eq!(
        on_acks_of(&steps, 1, 1, 2, SEG),
        [vec![(12, 1), (13, 1)], vec![(14, 1), (15, 1)]]
    );
    // The rfc profile with the same initial window (no SACK, 1460-byte segments): RFC 3042,
    // one new segment on each of the first two duplicate ACKs, however
    // `limited_transmit_by_pipe` is set.
    for tcp in ["", "limited_transmit_by_pipe = true"] {
        let steps = recovery_steps("rfc", &format!("initial_cwnd = 10\n{tcp}"), &[1], 30_000);
        assert_eq!(
            on_acks_of(&steps, 1, 1, 3, 1460),
            [vec![(12, 1)], vec![(13, 1)], vec![(1, 2)]],
            "{tcp}"
        );
    }
}

#[test]
fn prr_sends_the_fast_retransmit_alone_at_recovery_entry_in_linux_three_segments_in_rfc_6937() {
    // Ten segments, the initial window, of which the first four are lost: the duplicate ACKs
    // SACK segments 4 to 9 in turn, and the third starts recovery with 3 segments SACKed and
    // the 4 below marked lost (pipe 3, cwnd 10 -> ssthresh 7). Linux (tcp_cwnd_reduction,
    // prr-ss-30pkt-lost1_4.pkt): the fast retransmit alone, then one retransmission per
    // further duplicate ACK.
    let steps = recovery_steps("linux", "", &[0, 1, 2, 3], 10 * SEG);
    assert_eq!(
        on_acks_of(&steps, 0, 0, 6, SEG),
        [
            vec![],
            vec![],
            vec![(0, 2)],
            vec![(1, 2)],
            vec![(2, 2)],
            vec![(3, 2)]
        ]
    );
    // RFC 6937's PRR-SSRB on the same ACKs: sndcnt = min(7 - 3, max(1 - 1, 1) + 1) = 2 on top
    // of the fast retransmit, then one per ACK.
    let steps = recovery_steps("linux", "prr_rule = \"rfc6937\"", &[0, 1, 2, 3], 10 * SEG);
    assert_eq!(
        on_acks_of(&steps, 0, 0, 6, SEG),
        [
            vec![],
            vec![],
            vec![(0, 2), (1, 2), (2, 2)],
            vec![(3, 2)],
            vec![],
            vec![]
        ]
    );
}

#[test]
fn a_sacked_segment_is_a_duplicate_ack_whatever_window_the_linux_receiver_offers() {
    // Segment 100 is lost. Each later segment reaches the autotuned receiver out of order and
    // raises its rcv_ssthresh (tcp_grow_window, SACK flows), so every ACK that SACKs it offers
    // a larger window. Linux counts the SACKed segments (tcp_dupack_heuristics): the third
    // starts a fast retransmit. RFC 5681's definition wants the same window: no duplicate ACK
    // ever counts, and only the timeout repairs the loss.
    let run = |extra: &str| {
        let out = reno_dupack_download(
            LINUX_NO_TS,
            extra,
            400 * MSS,
            &drops(&[(100, 1)]),
            "events = true",
        );
        let ev = events(&out);
        let count = |k: &str| ev.iter().filter(|e| e.kind == k).count();
        (count("fast_retransmit"), count("rto"))
    };
    assert_eq!(run(""), (1, 0));
    assert_eq!(run("sack_dupack_any_window = false"), (0, 1));
    // With a fixed receive buffer the window stays put and both definitions agree.
    assert_eq!(
        run("rcv_buf_max = 131072\nsack_dupack_any_window = false"),
        (1, 0)
    );
}
