//! TCP Tahoe: Jacobson, "Congestion Avoidance and Control", SIGCOMM 1988, as shipped in
//! 4.3BSD-Tahoe, with the window rules of RFC 5681 and fast retransmit but no fast recovery.
//!
//! - slow start and congestion avoidance exactly as Reno (RFC 5681 eqs. 2-3, `CcState::ca_rule`);
//! - on the duplicate-ACK threshold: ssthresh = max(FlightSize/2, 2 SMSS) (eq. 4), the missing
//!   segment is retransmitted, cwnd = 1 SMSS and slow start follows (`RecoveryStyle::None`: no
//!   window inflation, no fast-recovery window);
//! - on RTO: as Reno.
//!
//! Go-back-N after fast retransmit (deliberate choice, configurable): ns-2's `Agent/TCP`, the
//! Tahoe of Fall & Floyd 1996 and of seed 001, handles the third duplicate ACK like a timeout
//! (`dupack_action` -> `reset_rtx_timer(0,0)` sets `t_seqno_ = highest_ack_ + 1`): the sender
//! resends everything from the first unacknowledged segment as the slow-start window allows,
//! including segments the receiver already holds. We do the same by default (`go_back_n =
//! true`): the sender marks every unSACKed outstanding segment lost, as after a timeout. With
//! `go_back_n = false` only the missing segment is resent and the rest stays in flight.
//! Like ns-2 (`recover_`, `bug_fix_`: `highest_ack_ > recover_`), the sender then ignores
//! duplicate ACKs until an ACK covers more than the data sent before the fast retransmit (RFC
//! 6582 section 3.2 step 1 and section 4.1): the receiver answers every resent copy of a
//! segment it holds with a duplicate ACK, and without the guard those would start go-back-N
//! after go-back-N.
//!
//! With each error detection (seed 001's TahoeCC; `cc/mod.rs` has the whole table): the
//! loss-recovery plug-in owns the phase, TahoeCC only sets ssthresh and a 1-MSS window and keeps
//! slow-starting through the phase, with no inflation. DupAckED: the phase ends at the first new
//! ACK; go-back-N resends the rest. NewRenoED: every partial ACK also resends its hole at once,
//! whatever cwnd says. SackED: go-back-N skips what the receiver SACKed, so only holes are
//! resent. Seed 001's own modular implementation (its reference \[5\]) is not available to us; the
//! seed ran it in ns-2 and describes TahoeCC as slow start "after every packet loss", so we
//! follow ns-2's Tahoe for what the seed leaves open (go-back-N, the duplicate-ACK guard).
//!
//! Deviations: none known.

use super::{reno_increase, AckEvent, CcState, CongestionControl, RecoveryStyle, SenderRules};
use crate::tcp::params::{Tunable, Walk};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Resend from the first unacknowledged segment after a fast retransmit (ns-2 Tahoe).
    pub go_back_n: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config { go_back_n: true }
    }
}

/// `[tcp] cc_params` of tahoe.
impl Tunable for Config {
    fn walk(&mut self, w: &mut Walk<'_>) {
        w.flag("go_back_n", &mut self.go_back_n);
    }
}

#[derive(Clone, Debug, Default)]
pub struct Tahoe {
    pub cfg: Config,
}

impl CongestionControl for Tahoe {
    fn name(&self) -> &'static str {
        "tahoe"
    }

    fn sender_rules(&self) -> SenderRules {
        SenderRules {
            grows_as_reno: true,
            hears_every_ack: false, // the default, empty on_delivery
            recovery: RecoveryStyle::None,
            go_back_n: self.cfg.go_back_n,
            ..SenderRules::DEFAULT
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        reno_increase(st, ev.bytes_acked);
    }
}

#[cfg(test)]
mod tests {
    use super::super::CaRule;
    use super::*;

    #[test]
    fn fast_retransmit_halves_ssthresh_and_restarts_from_one_segment() {
        let mut s = CcState {
            cwnd: 20 * 1000,
            ssthresh: u64::MAX / 4,
            mss: 1000,
            ca_rule: CaRule::PerAck,
            abc_limit: 1,
            ca_bytes: 0,
        };
        let mut t = Tahoe::default();
        t.on_enter_recovery(&mut s, 16_000);
        assert_eq!((s.cwnd, s.ssthresh), (1000, 8000));
        assert_eq!(t.sender_rules().recovery, RecoveryStyle::None);
        assert!(t.sender_rules().go_back_n);
        // Slow start again: one MSS per ACK.
        t.on_ack(
            &mut s,
            &AckEvent {
                bytes_acked: 1000,
                ..AckEvent::default()
            },
        );
        assert_eq!(s.cwnd, 2000);
    }
}
