//! NewReno loss recovery, RFC 6582 section 3.2 (seed 001's NewRenoED).
//!
//! Fast retransmit and the window inflation of RFC 5681, plus step 5: a partial ACK (one that
//! acknowledges new data but not everything up to `recover`) means the next segment was lost
//! too. The plug-in marks the first unacknowledged segment lost and asks the sender to
//! retransmit it at once; the sender deflates the recovery allowance by the data acknowledged
//! and adds back the credit of one SMSS returned here ("add back SMSS bytes", when the partial
//! ACK acknowledges at least one SMSS). So several losses in one window are repaired in one
//! recovery, one per round trip.
//!
//! The phase lasts until the cumulative ACK covers the recovery point (`PhaseEnd::
//! RecoveryPoint`), whatever the congestion control: with RenoCC, which deflates to ssthresh at
//! the first partial ACK, holes are still resent one per partial ACK but no new data leaves
//! until the phase ends (seed 001's "NewRenoED's long loss recovery phase").
//!
//! Deviations: none known.

use super::{LossRecovery, Partial, PhaseEnd, SenderView};
use crate::tcp::scoreboard::Scoreboard;

#[derive(Clone, Debug, Default)]
pub struct NewRenoRecovery;

impl LossRecovery for NewRenoRecovery {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn phase_end(&self) -> PhaseEnd {
        PhaseEnd::RecoveryPoint
    }

    fn on_partial_ack(&mut self, v: &SenderView, sb: &mut Scoreboard) -> Partial {
        let Some(first) = sb.first().copied() else {
            return Partial::default();
        };
        if first.sacked {
            return Partial::default();
        }
        // "Retransmit the first unacknowledged segment" (even if it was resent before).
        sb.mark_lost(0);
        Partial {
            credit: v.mss,
            retransmit: true,
        }
    }
}
