//! Loss-recovery (error-detection) plug-ins: when is a segment lost, what is retransmitted, and
//! how many bytes count as in flight during recovery.
//!
//! The sender detects duplicate ACKs, runs the RTO timer and keeps the scoreboard; a plug-in
//! decides from those facts. Any plug-in combines with any congestion control.

pub mod rfc5681;

use super::scoreboard::Scoreboard;

/// Facts about the sender a loss-recovery plug-in may use.
#[derive(Clone, Copy, Debug)]
pub struct SenderView {
    pub snd_una: u64,
    pub snd_max: u64,
    pub mss: u64,
    /// Duplicate ACKs in a row.
    pub dupacks: u32,
    pub dupthresh: u32,
    pub in_recovery: bool,
    /// Duplicate ACKs (and partial-ACK credits) counted since recovery began.
    pub recovery_credits: u64,
}

impl SenderView {
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
}

pub trait LossRecovery: Send {
    fn name(&self) -> &'static str;

    /// Whether the receiver should be asked for SACK (RFC 2018 SACK-permitted).
    fn wants_sack(&self) -> bool {
        false
    }

    /// A duplicate ACK arrived outside recovery. True starts fast retransmit.
    fn triggers_fast_retransmit(&mut self, v: &SenderView, _sb: &Scoreboard) -> bool {
        v.dupacks == v.dupthresh
    }

    /// Fast retransmit: mark what is to be retransmitted (default: the first unacked segment).
    fn on_enter_recovery(&mut self, _v: &SenderView, sb: &mut Scoreboard) {
        sb.mark_lost(0);
    }

    /// A partial ACK (new data acked, recovery point not passed) while in recovery. Returns the
    /// credit (in bytes) to add to the recovery allowance.
    fn on_partial_ack(&mut self, _v: &SenderView, _sb: &mut Scoreboard) -> u64 {
        0
    }

    /// Any ACK during recovery (after the scoreboard was updated with its SACK blocks).
    fn on_ack_in_recovery(&mut self, _v: &SenderView, _sb: &mut Scoreboard) {}

    /// Bytes considered in flight, compared with cwnd to decide whether a segment may be sent.
    ///
    /// Classic (no SACK): the scoreboard's count (segments sent and not marked lost, plus
    /// retransmissions; with nothing SACKed this is FlightSize during fast recovery, and only what
    /// was resent since an RTO, i.e. go-back-N) minus one MSS per duplicate ACK seen in recovery,
    /// which is RFC 5681's window inflation.
    fn pipe(&self, v: &SenderView, sb: &Scoreboard) -> u64 {
        let p = sb.rfc6675_pipe();
        if v.in_recovery {
            p.saturating_sub(v.recovery_credits)
        } else {
            p
        }
    }
}

pub fn by_name(name: &str) -> Option<Box<dyn LossRecovery>> {
    Some(match name {
        "rfc5681" => Box::new(rfc5681::DupAck),
        _ => return None,
    })
}

pub fn registry() -> Vec<(&'static str, &'static str)> {
    vec![(
        "rfc5681",
        "fast retransmit on the duplicate-ACK threshold, one retransmission per recovery (RFC 5681)",
    )]
}
