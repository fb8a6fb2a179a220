//! Congestion control plug-ins.
//!
//! A congestion controller owns only the window policy: cwnd and ssthresh. It never sees the
//! socket. Loss *detection* and what to retransmit belong to the sender and its loss-recovery
//! plug-in; the controller only hears about ACKs and congestion events (the decomposition of
//! seed 001, and of ns-3's TcpCongestionOps / TcpRecoveryOps).
//!
//! Window inflation during fast recovery is not done here: the loss-recovery plug-in reports the
//! bytes it considers in flight (`pipe`), and the sender may send while `pipe < cwnd`. For the
//! classic duplicate-ACK recovery, pipe = flight - dupacks * MSS, which is exactly RFC 5681's
//! "cwnd = ssthresh + 3 MSS, + 1 MSS per further duplicate ACK" written the other way round.

pub mod reno;

use crate::time::{Dur, SimTime};

/// How congestion avoidance grows cwnd (the two rules of Sarkar 2022 section 5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaRule {
    /// cwnd += MSS * MSS / cwnd for every ACK of new data (RFC 5681 eq. 3).
    PerAck,
    /// Appropriate byte counting (RFC 3465): cwnd += MSS once a full cwnd of bytes is acked.
    ByteCounting,
}

/// The small state block shared by the sender and its congestion control.
#[derive(Clone, Debug)]
pub struct CcState {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    pub ca_rule: CaRule,
    /// Slow-start increase limit per ACK, in MSS (RFC 3465's L; RFC 5681 uses 1).
    pub abc_limit: u64,
    /// Bytes acked since the last congestion-avoidance increase (byte counting).
    pub ca_bytes: u64,
}

/// What the sender tells the controller about an ACK of new data.
#[derive(Clone, Copy, Debug)]
pub struct AckEvent {
    pub now: SimTime,
    pub bytes_acked: u64,
    /// Bytes in flight before this ACK.
    pub prior_flight: u64,
    pub rtt: Option<Dur>,
    pub srtt: Option<Dur>,
    pub min_rtt: Option<Dur>,
}

/// What a controller does after fast retransmit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryStyle {
    /// No fast recovery: after fast retransmit, cwnd = 1 MSS and slow start (Tahoe).
    None,
    /// Fast recovery that ends on the first ACK of new data (Reno, RFC 5681).
    Reno,
    /// Fast recovery that ends only when the recovery point is passed (NewReno, RFC 6582).
    NewReno,
}

pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;

    /// ACK of new data outside recovery: grow the window.
    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent);

    /// The slow-start threshold after a congestion event (ns-3's GetSsThresh: returns it).
    /// RFC 5681 eq. 4: max(FlightSize / 2, 2 * SMSS).
    fn ssthresh(&self, st: &CcState, flight: u64) -> u64 {
        (flight / 2).max(2 * st.mss)
    }

    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::Reno
    }

    /// Fast retransmit happened: set ssthresh and cwnd for the recovery phase.
    fn on_enter_recovery(&mut self, st: &mut CcState, flight: u64) {
        st.ssthresh = self.ssthresh(st, flight);
        st.cwnd = match self.recovery_style() {
            RecoveryStyle::None => st.mss,
            _ => st.ssthresh,
        };
        st.ca_bytes = 0;
    }

    /// Recovery ended (full ACK, or any new ACK for Reno): RFC 5681 step 6, cwnd = ssthresh.
    fn on_exit_recovery(&mut self, st: &mut CcState) {
        st.cwnd = st.ssthresh;
        st.ca_bytes = 0;
    }

    /// Retransmission timeout: RFC 5681 eq. 4 and the loss window of one segment.
    fn on_rto(&mut self, st: &mut CcState, flight: u64, first_timeout: bool) {
        // RFC 5681 section 3.1: ssthresh is not reduced again on repeated timeouts of the same
        // segment (only the first timeout uses FlightSize).
        if first_timeout {
            st.ssthresh = self.ssthresh(st, flight);
        }
        st.cwnd = st.mss;
        st.ca_bytes = 0;
    }

    /// An RTT measurement (for delay-based controllers).
    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, _rtt: Dur) {}

    /// A segment was sent (for pacing or rate-based controllers).
    fn on_sent(&mut self, _st: &mut CcState, _now: SimTime, _bytes: u64) {}
}

/// Slow start (RFC 5681 eq. 2, with RFC 3465's limit L): cwnd += min(N, L * SMSS).
/// Returns the bytes not used because cwnd reached ssthresh.
pub fn slow_start(st: &mut CcState, acked: u64) -> u64 {
    let inc = acked.min(st.abc_limit * st.mss);
    let room = st.ssthresh.saturating_sub(st.cwnd);
    let used = inc.min(room.max(1));
    st.cwnd += used;
    acked.saturating_sub(used)
}

/// Congestion avoidance, additive increase of one MSS per RTT by the configured rule.
pub fn congestion_avoidance(st: &mut CcState, acked: u64) {
    match st.ca_rule {
        CaRule::PerAck => {
            // RFC 5681 eq. 3; "if the above formula yields 0, the result SHOULD be rounded up
            // to 1 byte".
            let inc = (st.mss * st.mss / st.cwnd.max(1)).max(1);
            st.cwnd += inc;
        }
        CaRule::ByteCounting => {
            st.ca_bytes += acked;
            if st.ca_bytes >= st.cwnd {
                st.ca_bytes -= st.cwnd;
                st.cwnd += st.mss;
            }
        }
    }
}

/// A constructor for each congestion control name.
pub fn by_name(name: &str) -> Option<Box<dyn CongestionControl>> {
    Some(match name {
        "reno" => Box::new(reno::Reno),
        _ => return None,
    })
}

/// Every registered name with a one-line description.
pub fn registry() -> Vec<(&'static str, &'static str)> {
    vec![(
        "reno",
        "Reno (RFC 5681): slow start, additive increase, halving, fast recovery",
    )]
}
