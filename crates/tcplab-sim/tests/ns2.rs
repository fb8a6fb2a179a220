//! The `ns2` profile's rules from ns-2.35's agents (issue 15), each a profile field: ssthresh
//! from `window()` = min(cwnd, window_) in whole packets, every timeout halves, the `bug_fix_`
//! guard after every fast retransmit, and Sack1 without RFC 6675's rescue retransmission.
//! One 2 Mbit/s hop with 4 ms, 1000-byte packets, window_ 20, as the shared ns-2 grid.

mod common;

use common::*;
use tcplab_sim::SimOutput;

const PKT: u64 = 1000;

fn grid(tcp: &str, drops: &[u64]) -> SimOutput {
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
        "events = true\ntrace = true",
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
        let tcp = format!(
            "profile = \"ns2\"\ncongestion_control = \"reno\"\nloss_recovery = \"dupack\"\n{extra}"
        );
        let out = run_toml(&direct(
            &tcp,
            "",
            50 * PKT,
            &drops,
            "",
            "events = true\ntrace = true",
        ));
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
fn newreno_leaves_recovery_with_cwnd_at_ssthresh_in_ns2() {
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
    let (cwnd, ss) = cwnd_at_exit("");
    assert_eq!(ss, 10 * PKT);
    assert_eq!(cwnd, ss);
    let (cwnd1, ss1) = cwnd_at_exit("cc_params = { full_ack = \"flight_plus_mss\" }");
    assert_eq!(ss1, 10 * PKT);
    assert_eq!(
        cwnd1,
        2 * PKT,
        "option (1): max(flight, MSS) + MSS with nothing in flight"
    );
}
