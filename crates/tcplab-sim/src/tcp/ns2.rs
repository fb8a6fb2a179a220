//! ns-2.35's TCP agents, rule by rule (`[tcp.ns2]`).
//!
//! The `ns2` profile switches every rule on; every other profile leaves them off. Each rule names
//! the ns-2.35 source it follows (tcp/tcp.cc, tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc,
//! scoreboard.cc, tcp-sink.cc, sack.cc), so a user can switch one off to see what it is worth.
//! The conformance suite (`tcplab conformance ns2`) measures them against ns-2 itself; the
//! table in `conformance/ns2/README.md` gives each rule's effect on the shared grid.

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2Rules {
    /// `cwnd_` is a double counted in packets (tcp.h). `TcpAgent::opencwnd` adds one packet per
    /// ACK in slow start and never carries the rest of an ACK into congestion avoidance
    /// (windowOption_ 1: `cwnd_ += increase_num_ / cwnd_`, fraction kept);
    /// `slowdown(CLOSE_CWND_HALF)` sets `cwnd_ = windowd() / 2` at a fast retransmit, not
    /// rounded to whole packets. Only with tahoe, reno and newreno (ns-2's own agents); other
    /// congestion controls keep their arithmetic.
    pub cwnd_double: bool,
    /// The ACK that ends fast recovery leaves `cwnd_` where the halving put it, and Reno and
    /// NewReno open it once on that ACK (`RenoTcpAgent::recv`, `NewRenoTcpAgent::recv`:
    /// `dupacks_ = 0` then `opencwnd()`; Sack1's `recv` does not open it). Only with tahoe,
    /// reno and newreno; it replaces their exit rule (`cc_params.full_ack`).
    pub exit_keeps_cwnd: bool,
    /// NewReno's partial ACKs (tcp-newreno.cc, newreno_changes_ 0, newreno_changes1_ 1,
    /// partial_window_deflation_ 1): `partialnewack` deflates `cwnd_` by what the inflation
    /// cannot absorb, sends at most 2 packets per ACK (`send_much(0, 0, maxburst_ 2)` in
    /// fast recovery), restarts the timer on the first partial ACK only ("impatient"), and an
    /// ACK that covers the timed packet stops the timing and the back-off without an RTT
    /// sample.
    pub newreno_partial: bool,
    /// Tahoe's timeout keeps the duplicate-ACK count (`TcpAgent::timeout` never clears
    /// `dupacks_`; Reno's and Sack1's timeouts do).
    pub tahoe_keeps_dupacks: bool,
    /// RTT samples in `tcpTick_` ticks with a one-tick floor, measured from the tick boundary
    /// before the send time (`TcpAgent::rtt_update`: `t_rtt_ = int((tao + tickoff) / tcpTick_)`
    /// with integer `t_srtt_` << 3 and `t_rttvar_` << 2, `rtt_timeout`, and `rtt_backoff`,
    /// which doubles up to 64 and, past 8, folds SRTT into RTTVAR); RFC 6298 5.7 does not
    /// apply after a lost SYN.
    pub rtt_ticks: bool,
    /// Where the tick boundaries fall: ns-2's `boot_time_`, drawn uniform in [0, tcpTick_)
    /// from its default RNG when the agent is reset (`TcpAgent::reset`).
    pub tick_phase: Dur,
    /// The timed packet (`rtt_active_`) is abandoned only by `reset_rtx_timer`, at a fast
    /// retransmit or a timeout (tcp.cc), not by every retransmission.
    pub rtt_active: bool,
    /// A fast retransmit restarts the retransmission timer (`dupack_action` ->
    /// `reset_rtx_timer(1, 0)`); other retransmissions only start a stopped timer (`output`
    /// -> `set_rtx_timer` when `!rtx_timer_.status() == TIMER_PENDING`).
    pub fast_retransmit_restarts_rto: bool,
    /// Limited transmit sends one packet per duplicate ACK beyond the window (`send_one`,
    /// singledup_ 1), not the room RFC 3042 gives.
    pub send_one: bool,
    /// The `sack` loss recovery is Agent/TCP/Sack1 (tcp-sack1.cc, scoreboard.cc): fast
    /// retransmit on the numdupacks_-th duplicate ACK that reports new SACKed data and only on
    /// it; `pipe_ = maxseq_ - highest_ack_ - numdupacks_` at the fast retransmit, -1 per ACK and
    /// once more per partial ACK, +1 per packet sent; every hole below the highest SACKed
    /// packet is a retransmission candidate; outside fast recovery a new ACK clears the
    /// scoreboard and the window counts SACKed packets (`t_seqno_ <= last_ack_ + window()`);
    /// the end of fast recovery clears the scoreboard and `recover_`; a timeout clears the
    /// scoreboard and ignores duplicate ACKs (`timeout_`) until a new ACK; partial ACKs give no
    /// RTT sample.
    pub sack1: bool,
    /// The connection opens with two packets, as ns-2's one-way agents do (`syn_` true: the
    /// SYN, then the sink's ACK): the first data segment acknowledges the SYN-ACK, with no pure
    /// ACK before it (a pure ACK only when there is nothing to send); a repeated SYN-ACK is
    /// not answered once data went out (ns-2's sink never repeats its ACK of the SYN; the data's
    /// own retransmission completes the opening).
    pub two_way_handshake: bool,
    /// Header sizes as ns-2's: no options on the SYN, SACK blocks of 8 bytes with no kind,
    /// length or padding (`Sacker::append_ack`, at most 3 blocks).
    pub wire: bool,
}

impl Ns2Rules {
    /// Every rule, as the `ns2` profile uses them.
    pub fn all() -> Self {
        Ns2Rules {
            cwnd_double: true,
            exit_keeps_cwnd: true,
            newreno_partial: true,
            tahoe_keeps_dupacks: true,
            rtt_ticks: true,
            tick_phase: Dur::ZERO,
            rtt_active: true,
            fast_retransmit_restarts_rto: true,
            send_one: true,
            sack1: true,
            two_way_handshake: true,
            wire: true,
        }
    }

    /// `tick_phase` must fall inside one tick, and ticks need a clock.
    pub fn check(&self, tick: Dur, path: &str) -> SimResult<()> {
        if self.rtt_ticks && tick == Dur::ZERO {
            return Err(SimError::invalid(
                format!("{path}.rtt_ticks"),
                "true",
                "false, or a clock_granularity above 0 (the tick RTT samples are counted in)",
            ));
        }
        if self.tick_phase >= tick && self.tick_phase > Dur::ZERO {
            return Err(SimError::invalid(
                format!("{path}.tick_phase"),
                self.tick_phase.to_string(),
                format!("a duration below clock_granularity ({tick})"),
            ));
        }
        Ok(())
    }
}

/// The rules that apply to one endpoint's pair of plug-ins, resolved once.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ns2Active {
    /// `sack1` with the `sack` loss recovery.
    pub sack1: bool,
    /// `newreno_partial` with the `newreno` loss recovery.
    pub newreno: bool,
    /// `tahoe_keeps_dupacks` with the `tahoe` congestion control.
    pub tahoe_keeps_dupacks: bool,
    /// `cwnd_double` with one of ns-2's own window rules (tahoe, reno, newreno); other
    /// congestion controls keep their own arithmetic.
    pub cwnd_double: bool,
    /// `exit_keeps_cwnd` with tahoe, reno or newreno (others keep their own exit rule).
    pub exit_keeps_cwnd: bool,
    /// A rule that changes the sender's pipe or window is on (`sack1`, `send_one`).
    pub window_rules: bool,
}

impl Ns2Active {
    pub fn new(r: &Ns2Rules, cc: &str, recovery: &str) -> Self {
        let classic = matches!(cc, "tahoe" | "reno" | "newreno");
        let sack1 = r.sack1 && recovery == "sack";
        Ns2Active {
            sack1,
            newreno: r.newreno_partial && recovery == "newreno",
            tahoe_keeps_dupacks: r.tahoe_keeps_dupacks && cc == "tahoe",
            cwnd_double: r.cwnd_double && classic,
            exit_keeps_cwnd: r.exit_keeps_cwnd && classic,
            window_rules: sack1 || r.send_one,
        }
    }
}
