//! TCP NewReno congestion control, RFC 6582 (with RFC 5681's window rules).
//!
//! - slow start and congestion avoidance as Reno (RFC 5681);
//! - fast retransmit: ssthresh = max(FlightSize/2, 2 SMSS), cwnd = ssthresh (the "+3 SMSS"
//!   inflation is the loss recovery's pipe estimate, see `cc/mod.rs`);
//! - fast recovery lasts until an ACK covers `recover` (the highest sequence number sent when it
//!   began): `RecoveryStyle::NewReno`. Partial ACKs keep it going; the sender deflates the window
//!   by the data they acknowledge and adds back the credit the loss-recovery plug-in returns (one
//!   SMSS with the `newreno` plug-in, RFC 6582 section 3.2 step 5);
//! - full ACK (step 3): cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) (option 1, the
//!   default, which avoids a burst when little is in flight) or cwnd = ssthresh (option 2).
//!
//! Deviations: none known.

use super::{reno_increase, AckEvent, CcState, CongestionControl, RecoveryStyle, SenderRules};
use crate::tcp::params::{Tunable, Walk};

/// RFC 6582 section 3.2 step 3: the window after a full acknowledgment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FullAck {
    /// (1) cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
    MinFlightPlusMss,
    /// (2) cwnd = ssthresh.
    Ssthresh,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub full_ack: FullAck,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            full_ack: FullAck::MinFlightPlusMss,
        }
    }
}

/// `[tcp] cc_params` of newreno: `full_ack` = "flight_plus_mss" (option 1) or "ssthresh"
/// (option 2).
impl Tunable for Config {
    fn walk(&mut self, w: &mut Walk<'_>) {
        w.choice(
            "full_ack",
            &mut self.full_ack,
            &[
                ("flight_plus_mss", FullAck::MinFlightPlusMss),
                ("ssthresh", FullAck::Ssthresh),
            ],
        );
    }
}

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    pub cfg: Config,
}

/// RFC 6582 step 3 option (1), shared by algorithms that recover like NewReno.
pub fn full_ack_window(st: &CcState, flight: u64) -> u64 {
    st.ssthresh.min(flight.max(st.mss) + st.mss)
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn sender_rules(&self) -> SenderRules {
        SenderRules {
            grows_as_reno: true,
            hears_every_ack: false, // the default, empty on_delivery
            recovery: RecoveryStyle::NewReno,
            ..SenderRules::DEFAULT
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        reno_increase(st, ev.bytes_acked);
    }

    fn on_exit_recovery(&mut self, st: &mut CcState, flight: u64) {
        st.cwnd = match self.cfg.full_ack {
            FullAck::MinFlightPlusMss => full_ack_window(st, flight),
            FullAck::Ssthresh => st.ssthresh,
        };
        st.ca_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::super::CaRule;
    use super::*;

    fn st(cwnd: u64) -> CcState {
        CcState {
            cwnd,
            ssthresh: u64::MAX / 4,
            mss: 1000,
            ca_rule: CaRule::PerAck,
            abc_limit: 1,
            ca_bytes: 0,
        }
    }

    #[test]
    fn full_ack_window_is_bounded_by_flight_plus_one_mss() {
        let mut s = st(10_000);
        let mut n = NewReno::default();
        n.on_enter_recovery(&mut s, 10_000);
        assert_eq!((s.cwnd, s.ssthresh), (5000, 5000));
        // Little in flight at the full ACK: 2000 + 1000.
        n.on_exit_recovery(&mut s, 2000);
        assert_eq!(s.cwnd, 3000);
        // Much in flight: ssthresh.
        n.on_exit_recovery(&mut s, 9000);
        assert_eq!(s.cwnd, 5000);
        let mut o = NewReno {
            cfg: Config {
                full_ack: FullAck::Ssthresh,
            },
        };
        o.on_exit_recovery(&mut s, 0);
        assert_eq!(s.cwnd, 5000);
        assert_eq!(n.sender_rules().recovery, RecoveryStyle::NewReno);
    }
}
