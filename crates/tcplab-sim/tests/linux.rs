//! The `linux` profile's kernel mechanisms (issue 12), each switchable: cwnd validation
//! (`tcp_is_cwnd_limited`) and ssthresh from cwnd (`tcp_reno_ssthresh`,
//! `cubictcp_recalc_ssthresh`). A download limited by the receiver's 131072-byte window over a
//! 20 Mbit/s, 20 ms path whose bandwidth-delay product and queue exceed that window.

mod common;

use common::*;
use tcplab_sim::SimOutput;

fn bulk(tcp: &str, data_error: &str) -> SimOutput {
    run_toml(&format!(
        r#"
[run]
stop_time = "60s"
[tcp]
profile = "linux"
{tcp}
[[nodes]]
name = "server"
[[nodes]]
name = "client"
[[links]]
a = "server"
b = "client"
rate = "20Mbps"
delay = "20ms"
queue = "100p"
[links.ab]
error = {data_error}
[[apps]]
kind = "ftp"
client = "client"
server = "server"
size = "3MB"
[output]
events = true
"#
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
    let out = bulk("", NONE);
    assert_eq!(server(&out, "max_cwnd") as u64, 2 * MAX_FLIGHT);
    let free = bulk("cwnd_validation = false", NONE);
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
    // under validation), the flight 90 segments of which, at the fast retransmit, 3 are SACKed
    // and 1 is marked lost, so FlightSize in the network (RFC 6675 pipe) is 86 segments.
    let flight = MAX_FLIGHT - 4 * SEG;
    let drop = format!(
        "{{ model = \"list\", segments = [{{ seq = {}, tx = 1 }}] }}",
        1 + 1000 * SEG
    );
    for (tcp, want) in [
        ("congestion_control = \"reno\"", MAX_FLIGHT),
        (
            "congestion_control = \"reno\"\nssthresh_from = \"flight\"",
            flight / 2,
        ),
        // CUBIC: cwnd x 0.7 (Linux: 717/1024) against FlightSize x 0.7 (RFC 9438 4.6).
        ("congestion_control = \"cubic\"", (2 * MAX_FLIGHT) * 7 / 10),
        (
            "congestion_control = \"cubic\"\nssthresh_from = \"flight\"",
            flight * 7 / 10,
        ),
    ] {
        let got = first_ssthresh(&bulk(tcp, &drop));
        assert!(got.abs_diff(want) <= 1, "{tcp}: {got} vs {want}");
    }
}

#[test]
fn bad_ssthresh_from_names_the_field_and_the_choices() {
    let toml = direct("ssthresh_from = \"window\"", "", 1000, NONE, "", "");
    let e = tcplab_sim::Scenario::from_toml_str(&toml)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tcp.ssthresh_from") && e.contains("\"window\"") && e.contains("cwnd"),
        "{e}"
    );
}
