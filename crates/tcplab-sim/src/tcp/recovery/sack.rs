//! SACK-based loss recovery, RFC 6675 (seed 001's SackED). Asks the receiver for SACK
//! (`wants_sack`); the receiver's blocks follow RFC 2018 (`tcp/mod.rs`).
//!
//! - IsLost(seq): DupThresh SACKed segments, or more than (DupThresh - 1) x SMSS SACKed bytes,
//!   above it (section 4); the scoreboard marks such segments lost;
//! - entry (section 5, step 4): on a duplicate ACK when DupAcks >= DupThresh or IsLost(HighACK +
//!   1); RecoveryPoint = HighData (the sender's `recover`), ssthresh and cwnd from the
//!   congestion control, the first unacknowledged segment retransmitted at once;
//! - pipe = the scoreboard's RFC 6675 pipe (not SACKed and not lost, plus retransmitted), with no
//!   duplicate-ACK inflation, in and out of recovery; the sender sends while pipe + SMSS <= cwnd;
//! - NextSeg: (1) the first lost segment not yet retransmitted (below the highest SACK); (2) new
//!   data; (3) the first unSACKed, unretransmitted segment below the highest SACKed one; (4) once
//!   per recovery (RescueRxt), the highest unSACKed segment. Rules 3 and 4 resend without marking
//!   the segment lost, so it counts twice in pipe, as section 4 says;
//! - exit: when the cumulative ACK passes RecoveryPoint (`PhaseEnd::RecoveryPoint`), with any
//!   congestion control (a Reno-style one deflates to ssthresh at the first new ACK and keeps
//!   sending by pipe);
//! - after an RTO (section 5.1): everything not SACKed is marked lost and resent, and no new
//!   recovery starts until the cumulative ACK passes the RecoveryPoint set at the timeout (the
//!   sender's guard).
//!
//! Deviations: HighRxt is kept per segment (the `retransmitted` flag) rather than as one
//! sequence number, which is equivalent for whole-segment retransmissions.

use super::{LossRecovery, Partial, PhaseEnd, SenderView};
use crate::tcp::params::{Tunable, Walk};
use crate::tcp::scoreboard::Scoreboard;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// NextSeg rule 4, the rescue retransmission (RFC 6675 section 4: a MAY). ns-2's Sack1
    /// (scoreboard.cc) and Linux have none.
    pub rescue: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config { rescue: true }
    }
}

/// `[tcp] lr_params` of sack: `rescue`.
impl Tunable for Config {
    fn walk(&mut self, w: &mut Walk<'_>) {
        w.flag("rescue", &mut self.rescue);
    }
}

#[derive(Clone, Debug, Default)]
pub struct Sack {
    pub cfg: Config,
    /// RescueRxt of NextSeg rule 4.
    rescue_rxt: Option<u64>,
    recovery_point: u64,
}

impl Sack {
    pub fn new(cfg: Config) -> Self {
        Sack {
            cfg,
            ..Sack::default()
        }
    }

    fn mark(&self, v: &SenderView, sb: &mut Scoreboard) {
        if v.sack1 {
            // ns-2 Sack1 (ScoreBoardRQ::GetNextRetran): every hole below the highest SACK.
            sb.mark_lost_by_sack(1, v.mss);
        } else {
            sb.mark_lost_by_sack(v.dupthresh, v.mss);
        }
    }
}

impl LossRecovery for Sack {
    fn name(&self) -> &'static str {
        "sack"
    }

    fn phase_end(&self) -> PhaseEnd {
        PhaseEnd::RecoveryPoint
    }

    fn wants_sack(&self) -> bool {
        true
    }

    fn triggers_fast_retransmit(&mut self, v: &SenderView, sb: &Scoreboard) -> bool {
        if v.sack1 {
            // ns-2 Sack1TcpAgent::recv: fast retransmit on the numdupacks_-th counted duplicate
            // ACK only, not on IsLost(HighACK + 1).
            return v.dupacks == v.dupthresh;
        }
        v.dupacks >= v.dupthresh || (v.sack_ok && sb.front_is_lost(v.dupthresh, v.mss))
    }

    fn on_enter_recovery(&mut self, v: &SenderView, sb: &mut Scoreboard) {
        self.rescue_rxt = None;
        self.recovery_point = v.snd_max.saturating_sub(1);
        sb.mark_lost(0);
        self.mark(v, sb);
    }

    fn on_partial_ack(&mut self, v: &SenderView, sb: &mut Scoreboard) -> Partial {
        self.mark(v, sb);
        Partial::default()
    }

    fn on_ack_in_recovery(&mut self, v: &SenderView, sb: &mut Scoreboard) {
        self.mark(v, sb);
    }

    fn pipe(&self, _v: &SenderView, sb: &Scoreboard) -> u64 {
        sb.rfc6675_pipe()
    }

    fn next_seg_fallback(&mut self, v: &SenderView, sb: &Scoreboard) -> Option<usize> {
        if !v.in_recovery {
            return None;
        }
        // Rule 3: the first unSACKed segment below the highest SACKed one, not yet resent.
        if let Some(high) = sb.highest_sacked() {
            let found = sb
                .segs()
                .iter()
                .take_while(|s| s.end <= high)
                .position(|s| !s.sacked && !s.lost && !s.retransmitted);
            if found.is_some() {
                return found;
            }
        }
        // Rule 4: one rescue retransmission per recovery, of the highest unSACKed segment.
        if self.cfg.rescue && self.rescue_rxt.is_none_or(|r| v.snd_una > r) {
            let i = sb.last_unsacked()?;
            if sb.get(i).is_some_and(|s| !s.retransmitted && !s.lost) {
                self.rescue_rxt = Some(self.recovery_point);
                return Some(i);
            }
        }
        None
    }
}
