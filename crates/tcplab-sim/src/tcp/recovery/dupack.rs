//! Fast retransmit / fast recovery as in RFC 5681 section 3.2 (Reno's error detection; seed 001
//! calls it DupAckED). Registered as `dupack`, with `rfc5681` as an alias.
//!
//! - the third duplicate ACK (the threshold is configurable) retransmits the first unacked
//!   segment;
//! - during recovery, every duplicate ACK lets one more segment out (pipe = FlightSize - dupacks
//!   * MSS, the inflation of steps 3-4);
//! - one retransmission per recovery: the phase ends at the first ACK of new data
//!   (`PhaseEnd::FirstNewAck`, the trait's default), so a partial ACK retransmits nothing;
//!   further losses in the window need another three duplicate ACKs or the RTO.
//!
//! Deviations: none known.

use super::LossRecovery;

#[derive(Clone, Debug, Default)]
pub struct DupAck;

impl LossRecovery for DupAck {
    fn name(&self) -> &'static str {
        "dupack"
    }
}
