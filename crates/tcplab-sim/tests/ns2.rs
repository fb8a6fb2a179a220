//! The `ns2` profile's rules from ns-2.35's agents (issue 15), each a profile field: ssthresh
//! from `window()` = min(cwnd, window_) in whole packets, every timeout halves, the `bug_fix_`
//! guard after every fast retransmit, and Sack1 without RFC 6675's rescue retransmission.
//! One 2 Mbit/s hop with 4 ms, 1000-byte packets, window_ 20, as the shared ns-2 grid.

mod common;

use common::*;
use tcplab_sim::SimOutput;

const PKT: u64 = 1000;

fn grid(tcp: &str, drops: &[u64]) -> SimOutput {
    grid_out(tcp, drops, "events = true\ntrace = true")
}

fn grid_out(tcp: &str, drops: &[u64], output: &str) -> SimOutput {
    let list: Vec<String> = drops
        .iter()
        .map(|&k| format!("{{ seq = {}, tx = 1 }}", 1 + k * PKT))
        .collect();
    let data = format!("{{ model = \"list\", segments = [{}] }}", list.join(", "));
    run_toml(&one_link(
        "30s",
        &format!("profile = \"ns2\"\n{tcp}"),
        "rate = \"2Mbps\"\ndelay = \"4ms\"\nframing = \"none\"\nqueue = \"50p\"",
        &data,
        "400kB",
        output,
    ))
}

fn count(out: &SimOutput, kind: &str) -> usize {
    events(out).iter().filter(|e| e.kind == kind).count()
}

#[test]
fn ssthresh_is_half_the_window_in_whole_packets() {
    // cwnd has grown past window_ = 20 packets (ns-2 does not validate cwnd), so the fast
    // retransmit sets ssthresh_ = (int)(min(cwnd_, 20) / 2) = 10 packets.
    let out = grid(
        "congestion_control = \"reno\"\nloss_recovery = \"dupack\"",
        &[200],
    );
    let fr = events(&out)
        .into_iter()
        .find(|e| e.kind == "fast_retransmit")
        .unwrap();
    assert!(fr.detail.contains("ssthresh 10000 "), "{}", fr.detail);
    // window_ 19: (int)(19 / 2) = 9 packets; in bytes it would be 9.5 packets.
    let odd = |extra: &str| {
        let tcp = format!(
            "congestion_control = \"reno\"\nloss_recovery = \"dupack\"\nrcv_buf = 19000\n{extra}"
        );
        let fr = events(&grid(&tcp, &[200]))
            .into_iter()
            .find(|e| e.kind == "fast_retransmit")
            .unwrap();
        fr.detail
    };
    assert!(odd("").contains("ssthresh 9000 "), "{}", odd(""));
    assert!(odd("cwnd_packets = false").contains("ssthresh 9500 "));
}

#[test]
fn reno_with_bug_fix_waits_for_the_timeout_for_a_second_hole() {
    // Two holes twelve packets apart: after the first fast retransmit the partial ACK ends
    // Reno's recovery; the duplicate ACKs for the second hole do not cover more than recover_,
    // so ns-2's dupack_action sends no second fast retransmit and the timeout repairs it.
    let tcp = "congestion_control = \"reno\"\nloss_recovery = \"dupack\"";
    let ns2 = grid(tcp, &[200, 212]);
    assert_eq!((count(&ns2, "fast_retransmit"), count(&ns2, "rto")), (1, 1));
    assert!(count(&ns2, "dupack_ignored") >= 1);
    let free = grid(&format!("{tcp}\nrecover_guard_all = false"), &[200, 212]);
    assert_eq!(
        (count(&free, "fast_retransmit"), count(&free, "rto")),
        (2, 0)
    );
}

#[test]
fn sack1_has_no_rescue_retransmission() {
    // One loss while the 20-packet window stops new data: RFC 6675 rule 4 resends the highest
    // unSACKed packet once more (a MAY); ns-2's Sack1 resends only the lost one.
    let tcp = "congestion_control = \"newreno\"\nloss_recovery = \"sack\"";
    assert_eq!(server(&grid(tcp, &[200]), "retransmissions"), 1.0);
    let rescue = grid(&format!("{tcp}\nlr_params = {{ rescue = true }}"), &[200]);
    assert_eq!(server(&rescue, "retransmissions"), 2.0);
}

#[test]
fn every_timeout_halves_ssthresh_in_ns2() {
    // Packet 45 of 50 and its first two retransmissions are lost: the first timeout halves
    // min(cwnd, window_), the second (cwnd is 1 then) halves again, to ns-2's floor of 2
    // packets (TcpAgent::timeout on every expiry); RFC 5681 keeps the first timeout's value.
    let ssthresh_after_second_rto = |extra: &str| {
        let s = 1 + 45 * PKT;
        let drops = format!(
            "{{ model = \"list\", segments = [{{ seq = {s}, tx = 1 }}, {{ seq = {s}, tx = 2 }}, \
             {{ seq = {s}, tx = 3 }}] }}"
        );
        let out = reno_dupack_download(
            "profile = \"ns2\"",
            extra,
            50 * PKT,
            &drops,
            "events = true\ntrace = true",
        );
        let rtos: Vec<f64> = events(&out)
            .iter()
            .filter(|e| e.kind == "rto")
            .map(|e| e.time)
            .collect();
        assert!(rtos.len() >= 2, "{rtos:?}");
        let t = out.table("trace").unwrap();
        let (time, ss) = (f64s(t, "time_s"), u64s(t, "ssthresh"));
        (0..time.len())
            .filter(|&i| time[i] >= rtos[1] && ss[i] < 1 << 40)
            .map(|i| ss[i])
            .next()
            .unwrap()
    };
    assert_eq!(ssthresh_after_second_rto(""), 2000);
    assert!(ssthresh_after_second_rto("ssthresh_every_timeout = false") > 2000);
}

#[test]
fn newreno_leaves_recovery_with_cwnd_at_ssthresh_opened_once_in_ns2() {
    // ns-2.35's NewReno sets no window at the full ACK (`exit_recovery_fix_` = 0): what remains
    // is cwnd_ = ssthresh_ from the fast retransmit, RFC 6582's option (2). Option (1), the
    // rfc profile's, clamps it to the data outstanding plus one packet: near the end of the
    // 400-packet transfer (holes at packets 394 and 396) little is outstanding at the exit.
    let cwnd_at_exit = |extra: &str| {
        let tcp = format!("congestion_control = \"newreno\"\nloss_recovery = \"newreno\"\n{extra}");
        let out = grid(&format!("{tcp}\n"), &[394, 396]);
        let exit = events(&out)
            .iter()
            .find(|e| e.kind == "recovery_exit")
            .expect("a recovery")
            .time;
        let t = out.table("trace").unwrap();
        let (time, cwnd, ss) = (f64s(t, "time_s"), u64s(t, "cwnd"), u64s(t, "ssthresh"));
        let i = (0..time.len()).find(|&i| time[i] >= exit).unwrap();
        (cwnd[i], ss[i])
    };
    // ... and the exit ACK opens it once more, by 1/cwnd_ packets (NewRenoTcpAgent::recv
    // calls opencwnd() after newack()): 10 + 1/10 packets.
    let (cwnd, ss) = cwnd_at_exit("");
    assert_eq!(ss, 10 * PKT);
    assert_eq!(cwnd, ss + PKT / 10);
    // Without that rule the congestion control's own exit sets cwnd = ssthresh.
    let (cwnd0, ss0) = cwnd_at_exit("ns2 = { exit_keeps_cwnd = false }");
    assert_eq!((cwnd0, ss0), (10 * PKT, 10 * PKT));
    let (cwnd1, ss1) = cwnd_at_exit(
        "ns2 = { exit_keeps_cwnd = false }\ncc_params = { full_ack = \"flight_plus_mss\" }",
    );
    assert_eq!(ss1, 10 * PKT);
    assert_eq!(
        cwnd1,
        2 * PKT,
        "option (1): max(flight, MSS) + MSS with nothing in flight"
    );
}

/// (flags, ip_bytes, sack blocks text) of every packet the client (the receiver) sent.
fn client_packets(out: &SimOutput) -> Vec<(u64, u64, String)> {
    let t = out.table("packets").expect("packets table");
    let (ev, from, flags) = (strs(t, "event"), u64s(t, "from_end"), u64s(t, "flags"));
    let (ip, sack) = (u64s(t, "ip_bytes"), strs(t, "sack"));
    (0..ev.len())
        .filter(|&i| ev[i] == "send" && from[i] == 0)
        .map(|i| (flags[i], ip[i], sack[i].clone()))
        .collect()
}

#[test]
fn ns2_wire_sizes_have_no_syn_options_and_8_byte_sack_blocks() {
    // Sack1 with holes at packets 200 and 202: the receiver's ACKs carry one or two blocks.
    let run = |extra: &str| {
        let tcp = format!("congestion_control = \"newreno\"\nloss_recovery = \"sack\"\n{extra}");
        let out = grid_out(&tcp, &[200, 202], "packets = true");
        let pk = client_packets(&out);
        let syn = pk.iter().find(|p| p.0 & 0x02 != 0).unwrap().1;
        let blocks = |n: usize| {
            pk.iter()
                .find(|p| p.2.matches('-').count() == n)
                .map(|p| p.1)
                .unwrap_or_else(|| panic!("an ACK with {n} SACK blocks"))
        };
        (syn, blocks(1), blocks(2))
    };
    // ns-2 (sack.cc Sacker::append_ack): 40-byte headers plus 8 bytes per block, no options
    // on the SYN.
    assert_eq!(run(""), (40, 48, 56));
    // RFC 2018 on the wire: kind and length (2 bytes) and padding to 4; MSS and
    // SACK-permitted on the SYN-ACK's peer, the SYN (4 + 2, padded to 8).
    assert_eq!(run("ns2 = { wire = false }"), (48, 52, 60));
}

#[test]
fn ns2_rules_refuse_bad_input_by_name() {
    let bad = |tcp: &str| {
        let toml = one_link(
            "1s",
            tcp,
            "rate = \"2Mbps\"\ndelay = \"4ms\"",
            "{ model = \"none\" }",
            "10kB",
            "",
        );
        match tcplab_sim::Scenario::from_toml_str(&toml) {
            Ok(_) => panic!("accepted: {tcp}"),
            Err(e) => e.to_string(),
        }
    };
    let e = bad("profile = \"ns2\"\nns2 = { sack2 = true }");
    assert!(
        e.contains("tcp.ns2") && e.contains("sack2") && e.contains("sack1"),
        "{e}"
    );
    let e = bad("profile = \"ns2\"\nns2 = { sack1 = \"yes\" }");
    assert!(e.contains("tcp.ns2.sack1") && e.contains("yes"), "{e}");
    // tcpTick_ is 10 ms in the ns2 profile: the phase lies inside one tick.
    let e = bad("profile = \"ns2\"\nns2 = { tick_phase = \"12ms\" }");
    assert!(
        e.contains("tcp.ns2.tick_phase") && e.contains("clock_granularity"),
        "{e}"
    );
    // Ticks need a clock.
    let e = bad("profile = \"ns2\"\nclock_granularity = \"0s\"");
    assert!(
        e.contains("tcp.ns2.rtt_ticks") && e.contains("clock_granularity"),
        "{e}"
    );
    let e = bad("profile = \"ns2\"\nns2 = true");
    assert!(e.contains("tcp.ns2"), "{e}");
}
