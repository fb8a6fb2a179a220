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
//! With a congestion control whose recovery ends on the first new ACK (Reno), the partial ACK
//! still marks the next hole, which is resent when the window allows.
//!
//! Deviations: none known.

use super::{LossRecovery, Partial, SenderView};
use crate::tcp::scoreboard::Scoreboard;

#[derive(Clone, Debug, Default)]
pub struct NewRenoRecovery;

impl LossRecovery for NewRenoRecovery {
    fn name(&self) -> &'static str {
        "newreno"
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
