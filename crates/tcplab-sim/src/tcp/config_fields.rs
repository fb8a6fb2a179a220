//! `[tcp]`, field by field: the one declaration parsing, `describe`, `tcplab schema` and the
//! docs read (`scenario/walk.rs`). Each field's value in each stack profile is in `profile.rs`.

use super::cc::CaRule;
use super::ns2::Ns2Rules;
use super::{LossBase, RtoRestart, SynLoss, TcpConfig};
use crate::scenario::walk::{Fields, Visitor};

impl Fields for TcpConfig {
    fn walk<V: Visitor>(&mut self, v: &mut V) {
        v.other("profile", "choice")
            .default_value("\"rfc\"")
            .allowed("riverbed, rfc, linux, ns2")
            .doc("The defaults every other tcp field starts from (tcplab variants and the README list them).")
            .example("\"linux\"");
        v.integer("mss", &mut self.mss, 64, 65_495)
            .unit("bytes")
            .doc("Maximum segment size (payload bytes).")
            .example("1000");
        v.size("rcv_buf", &mut self.rcv_buf)
            .doc("Receive buffer: the largest window the receiver advertises (scaled when window_scaling is on).")
            .example("\"64KB\"");
        v.size("rcv_buf_max", &mut self.rcv_buf_max)
            .allowed("a size of at least rcv_buf")
            .doc("Receive-buffer autotuning (Linux tcp_rcv_space_adjust): the window grows from rcv_buf up to this, once per receiver round trip. Setting rcv_buf alone fixes the buffer (as SO_RCVBUF does).")
            .example("\"6MB\"");
        v.size("snd_buf", &mut self.snd_buf)
            .default_value("profile (unlimited)")
            .doc("Send buffer: how much unacknowledged data the sender holds.")
            .example("\"1MB\"");
        v.integer("initial_cwnd", &mut self.initial_cwnd, 1, 1000)
            .unit("segments")
            .doc("Initial congestion window.")
            .example("4");
        v.size_or_inf("initial_ssthresh", &mut self.initial_ssthresh)
            .default_value("\"inf\"")
            .allowed("a size of at least 2 MSS, or \"inf\"")
            .doc("Initial slow-start threshold.")
            .example("\"64KB\"");
        v.choice(
            "ca_rule",
            &mut self.ca_rule,
            &[
                ("per_ack", CaRule::PerAck, "cwnd += MSS*MSS/cwnd per ACK"),
                ("byte_counting", CaRule::ByteCounting, "RFC 3465"),
            ],
        )
        .doc("Congestion-avoidance growth: MSS*MSS/cwnd per ACK, or RFC 3465 byte counting.")
        .example("\"byte_counting\"");
        v.integer("abc_limit", &mut self.abc_limit, 1, 64)
            .unit("segments")
            .doc("RFC 3465 L: at most this many MSS of growth per ACK in slow start.")
            .example("2");
        v.flag("delayed_ack", &mut self.delayed_ack)
            .doc("Delayed ACKs (RFC 1122 4.2.3.2).")
            .example("false");
        v.duration("delack_max", &mut self.delack_max)
            .allowed("at most 500ms")
            .doc("The delayed-ACK timer.")
            .example("\"40ms\"");
        v.integer("delack_segments", &mut self.delack_segments, 1, 64)
            .unit("segments")
            .doc("Full segments that force an ACK.")
            .example("2");
        v.integer("dupthresh", &mut self.dupthresh, 1, 1000)
            .unit("ACKs")
            .doc("Duplicate ACKs that trigger fast retransmit.")
            .example("3");
        v.flag("limited_transmit", &mut self.limited_transmit)
            .doc("RFC 3042 limited transmit.")
            .example("true");
        v.duration("rto_initial", &mut self.rto.initial)
            .doc("RTO before the first RTT sample (RFC 6298 2.1).")
            .example("\"1s\"");
        v.duration("rto_min", &mut self.rto.min)
            .allowed("a duration, at most rto_max")
            .doc("Lower bound of the RTO.")
            .example("\"200ms\"");
        v.duration("rto_max", &mut self.rto.max)
            .allowed("a duration, at least rto_min")
            .doc("Upper bound of the RTO (and of its back-off).")
            .example("\"60s\"");
        v.duration("clock_granularity", &mut self.rto.granularity)
            .doc("G of RFC 6298: RTO = SRTT + max(G, K*RTTVAR), and RTT samples are counted in ticks of it.")
            .example("\"10ms\"");
        v.number("rtt_alpha", &mut self.rto.alpha, 0.0, 1.0)
            .default_value("0.125")
            .doc("SRTT gain (RFC 6298).")
            .example("0.125");
        v.number("rtt_beta", &mut self.rto.beta, 0.0, 1.0)
            .default_value("0.25")
            .doc("RTTVAR gain (RFC 6298).")
            .example("0.25");
        v.number("rto_k", &mut self.rto.k, 0.0, 100.0)
            .default_value("4")
            .doc("K of RFC 6298.")
            .example("4");
        v.integer("max_retries", &mut self.max_retries, 1, 100)
            .unit("timeouts")
            .doc("Timeouts of one segment before the connection gives up (Linux tcp_retries2).")
            .example("15");
        v.flag("nagle", &mut self.nagle)
            .doc("Nagle's algorithm (RFC 896).")
            .example("false");
        v.flag("nagle_minshall", &mut self.nagle_minshall)
            .doc("Minshall's variant of Nagle (Linux).")
            .example("true");
        v.flag("window_scaling", &mut self.window_scaling)
            .doc("RFC 7323 window scale option.")
            .example("true");
        v.flag("timestamps", &mut self.timestamps)
            .doc("RFC 7323 timestamps.")
            .example("true");
        v.flag("sack", &mut self.sack)
            .doc("SACK (RFC 2018) offered and used.")
            .example("true");
        v.other("variant", "choice")
            .default_value("")
            .allowed("tahoe, reno, newreno, sack")
            .doc("A classic pair of congestion control and loss recovery (not together with them).")
            .example("\"newreno\"");
        v.name("congestion_control", &mut self.congestion_control)
            .allowed("a name from tcplab variants: reno, newreno, cubic, bic, westwood, vegas, ...")
            .doc("The congestion-control plug-in.")
            .example("\"cubic\"");
        v.name("loss_recovery", &mut self.loss_recovery)
            .allowed("a name from tcplab variants: dupack, newreno, sack, rack, ...")
            .doc("The loss-recovery plug-in (it owns the recovery phase).")
            .example("\"sack\"");
        v.other("cc_params", "table")
            .default_value("{}")
            .allowed("the chosen congestion control's parameters (tcplab variants lists them)")
            .doc("Parameters of the congestion control.")
            .example("{}");
        v.other("lr_params", "table")
            .default_value("{}")
            .allowed("the chosen loss recovery's parameters (tcplab variants lists them)")
            .doc("Parameters of the loss recovery.")
            .example("{}");
        v.flag("prr", &mut self.prr)
            .doc("Proportional rate reduction (RFC 6937) during recovery.")
            .example("true");
        v.rate_or_inf("rcv_read_rate", &mut self.rcv_read_rate)
            .default_value("\"inf\"")
            .doc("How fast the receiving application reads; a slow reader shrinks the window.")
            .example("\"5Mbps\"");
        v.flag("cwnd_validation", &mut self.cwnd_validation)
            .doc("Congestion window validation (RFC 7661) when application-limited.")
            .example("true");
        v.choice(
            "ssthresh_from",
            &mut self.ssthresh_from,
            &[
                ("flight", LossBase::Flight, "RFC 5681 FlightSize"),
                ("cwnd", LossBase::Cwnd, "Linux"),
                ("window", LossBase::Window, "ns-2: min(cwnd, the receiver's window)"),
            ],
        )
        .doc("What ssthresh halves on a loss: FlightSize (RFC 5681), cwnd (Linux) or min(cwnd, rwnd) (ns-2).")
        .example("\"cwnd\"");
        v.integer("quick_acks", &mut self.quick_acks, 0, 1_000)
            .unit("ACKs")
            .doc("ACKs sent at once (no delay) at the start and after a gap (Linux quickack).")
            .example("8");
        v.flag("cwnd_packets", &mut self.cwnd_packets)
            .doc("Count cwnd and ssthresh in whole packets (ns-2).")
            .example("true");
        v.flag("ssthresh_every_timeout", &mut self.ssthresh_every_timeout)
            .doc("Halve ssthresh on every timeout, not only the first of a series (ns-2).")
            .example("true");
        v.flag("recover_guard_all", &mut self.recover_guard_all)
            .doc("ns-2's bug_fix_: no new fast retransmit until the ACK passes the highest sequence sent.")
            .example("true");
        v.choice(
            "rto_restart",
            &mut self.rto_restart,
            &[
                (
                    "every",
                    RtoRestart::Every,
                    "every retransmission restarts the timer",
                ),
                (
                    "head",
                    RtoRestart::Head,
                    "a retransmission of the first unacknowledged segment does",
                ),
                ("never", RtoRestart::Never, "RFC 6298 5.1"),
            ],
        )
        .doc("Which retransmissions restart the RTO timer.")
        .example("\"head\"");
        v.choice(
            "syn_loss",
            &mut self.syn_loss,
            &[
                ("keep", SynLoss::Keep, "the initial window"),
                ("one", SynLoss::One, "RFC 5681 3.1"),
                ("one_after_two", SynLoss::OneAfterTwo, "Linux"),
                ("timeout", SynLoss::Timeout, "ns-2"),
            ],
        )
        .doc("The window after a lost SYN: kept, 1 MSS (RFC 5681 3.1), 1 after two losses (Linux), or a timeout's (ns-2).")
        .example("\"one\"");
        v.flag(
            "rto_keeps_recovery_ssthresh",
            &mut self.rto_keeps_recovery_ssthresh,
        )
        .doc("A timeout during recovery keeps the ssthresh recovery set (Linux).")
        .example("true");
        v.table("ns2", &mut self.ns2)
            .allowed("a table of the tcp.ns2 rules")
            .doc("ns-2.35's own TCP rules, each switchable (all on in the ns2 profile, off elsewhere).")
            .example("{ sack1 = false }");
    }
}

impl Fields for Ns2Rules {
    fn walk<V: Visitor>(&mut self, v: &mut V) {
        v.flag("cwnd_double", &mut self.cwnd_double)
            .doc("cwnd as ns-2's double of packets: +1 per ACK in slow start with no carry, +1/cwnd kept fractional, halved unrounded at a fast retransmit (tcp.cc opencwnd, slowdown).")
            .example("false");
        v.flag("exit_keeps_cwnd", &mut self.exit_keeps_cwnd)
            .doc("The ACK ending fast recovery keeps cwnd and Reno/NewReno open it once (tcp-reno.cc, tcp-newreno.cc recv).")
            .example("false");
        v.flag("newreno_partial", &mut self.newreno_partial)
            .doc("NewReno partial ACKs as tcp-newreno.cc: deflation from cwnd, at most 2 packets per ACK, timer restarted on the first only, no RTT sample.")
            .example("false");
        v.flag("tahoe_keeps_dupacks", &mut self.tahoe_keeps_dupacks)
            .doc("Tahoe's timeout keeps the duplicate-ACK count (tcp.cc timeout).")
            .example("false");
        v.flag("rtt_ticks", &mut self.rtt_ticks)
            .doc("RTT samples in whole clock_granularity ticks with a one-tick floor and ns-2's integer estimator and back-off (tcp.cc rtt_update, rtt_timeout, rtt_backoff).")
            .example("false");
        v.duration("tick_phase", &mut self.tick_phase)
            .default_value("\"0s\"")
            .allowed("a duration below clock_granularity")
            .doc("Where tick boundaries fall (ns-2's boot_time_, uniform in one tick).")
            .example("\"0.5ms\"");
        v.flag("rtt_active", &mut self.rtt_active)
            .doc("Only a fast retransmit or a timeout abandons the timed packet (tcp.cc reset_rtx_timer), not every retransmission.")
            .example("false");
        v.flag(
            "fast_retransmit_restarts_rto",
            &mut self.fast_retransmit_restarts_rto,
        )
        .doc("A fast retransmit restarts the retransmission timer (tcp.cc dupack_action).")
        .example("false");
        v.flag("send_one", &mut self.send_one)
            .doc("Limited transmit sends one packet per duplicate ACK beyond the window (tcp.cc send_one).")
            .example("false");
        v.flag("sack1", &mut self.sack1)
            .doc("The sack recovery is ns-2's Sack1: its fast-retransmit trigger, pipe_, retransmission order and scoreboard clearing (tcp-sack1.cc, scoreboard.cc).")
            .example("false");
        v.flag("two_way_handshake", &mut self.two_way_handshake)
            .doc("The connection opens with the SYN and its ACK only, as ns-2's one-way agents: the first data segment acknowledges the SYN-ACK.")
            .example("false");
        v.flag("wire", &mut self.wire)
            .doc("ns-2's header sizes: no SYN options, SACK blocks of 8 bytes without kind, length or padding (sack.cc).")
            .example("false");
    }
}
