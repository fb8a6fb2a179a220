//! TCP Reno congestion control, RFC 5681.
//!
//! - slow start while cwnd < ssthresh: cwnd += min(N, SMSS) per ACK (eq. 2);
//! - congestion avoidance otherwise, by the rule in `CcState::ca_rule`: MSS*MSS/cwnd per ACK
//!   (eq. 3) or byte counting (RFC 3465);
//! - on fast retransmit: ssthresh = max(FlightSize/2, 2 SMSS) (eq. 4), cwnd = ssthresh (the
//!   "+3 MSS" inflation is the loss recovery's pipe estimate, see `cc/mod.rs`);
//! - fast recovery ends on the first ACK of new data (section 3.2 step 6): cwnd = ssthresh;
//! - on RTO: ssthresh per eq. 4, cwnd = loss window = 1 SMSS (section 3.1).
//!
//! Deviations: none known. cwnd keeps growing while the sender is limited by the receiver's
//! window (as Riverbed and ns-2 do; Linux and RFC 7661 do not).

use super::{reno_increase, AckEvent, CcState, CongestionControl, SenderRules};

#[derive(Clone, Debug, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn sender_rules(&self) -> SenderRules {
        SenderRules {
            grows_as_reno: true,
            hears_every_ack: false, // the default, empty on_delivery
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
    use crate::engine::time::SimTime;

    fn st(cwnd: u64, ssthresh: u64, rule: CaRule) -> CcState {
        CcState {
            cwnd,
            ssthresh,
            mss: 1460,
            ca_rule: rule,
            abc_limit: 1,
            ca_bytes: 0,
        }
    }
    fn ack(bytes: u64) -> AckEvent {
        AckEvent {
            now: SimTime::ZERO,
            bytes_acked: bytes,
            ..AckEvent::default()
        }
    }

    #[test]
    fn slow_start_adds_one_mss_per_ack_even_for_delayed_acks() {
        let mut s = st(2920, 100_000, CaRule::PerAck);
        Reno.on_ack(&mut s, &ack(2920));
        assert_eq!(s.cwnd, 4380);
        Reno.on_ack(&mut s, &ack(1460));
        assert_eq!(s.cwnd, 5840);
    }

    #[test]
    fn per_ack_rule_adds_mss_squared_over_cwnd() {
        // Table 9 of Sarkar 2022 starts at 3 MSS: 4380 + 1460^2/4380 = 4866.67 -> 4866 (floor).
        let mut s = st(4380, 4380, CaRule::PerAck);
        Reno.on_ack(&mut s, &ack(1460));
        assert_eq!(s.cwnd, 4380 + 486);
    }

    #[test]
    fn byte_counting_adds_one_mss_per_cwnd_of_bytes() {
        let mut s = st(4380, 4380, CaRule::ByteCounting);
        Reno.on_ack(&mut s, &ack(1460));
        Reno.on_ack(&mut s, &ack(1460));
        assert_eq!(s.cwnd, 4380);
        Reno.on_ack(&mut s, &ack(1460));
        assert_eq!(s.cwnd, 5840);
        assert_eq!(s.ca_bytes, 0);
    }

    #[test]
    fn fast_retransmit_halves_flight_not_cwnd() {
        // The paper's section 5.1: 6 segments in flight, cwnd much larger (receiver-limited).
        let mut s = st(135_000, 100_000, CaRule::PerAck);
        Reno.on_enter_recovery(&mut s, 6 * 1460);
        assert_eq!(s.ssthresh, 3 * 1460);
        assert_eq!(s.cwnd, 3 * 1460);
        Reno.on_exit_recovery(&mut s, 0);
        assert_eq!((s.cwnd, s.ssthresh), (4380, 4380));
    }

    #[test]
    fn ssthresh_never_below_two_mss() {
        let mut s = st(2920, 100_000, CaRule::PerAck);
        Reno.on_enter_recovery(&mut s, 1460);
        assert_eq!(s.ssthresh, 2920);
    }

    #[test]
    fn repeated_rto_holds_ssthresh() {
        let mut s = st(20_000, 100_000, CaRule::PerAck);
        Reno.on_rto(&mut s, 16_000, true);
        assert_eq!((s.cwnd, s.ssthresh), (1460, 8000));
        // A second timeout of the same segment: flight is now one segment, ssthresh stays.
        Reno.on_rto(&mut s, 1460, false);
        assert_eq!((s.cwnd, s.ssthresh), (1460, 8000));
    }
}
