//! The agent around the ns-2 TCP Westwood module's estimator (`tcp-westwood.cc`,
//! `tcp-westwood-nr.cc`; see `mod.rs` for the module and its estimator): where
//! Agent/TCP/Westwood and Agent/TCP/WestwoodNR handle ACKs, duplicate ACKs and timeouts
//! differently from tcplab's sender. Each difference is a `cc_params` parameter of westwood,
//! declared here (`AgentRules`), which `model = "ns2"` sets to the module's way and
//! `model = "paper"` leaves to the profile; the controller hands them to the sender once, in
//! its `SenderRules`, and the sender follows them for this connection:
//!
//! - `inflation = false` (Agent/TCP/Westwood's `recv` only counts duplicate ACKs, so
//!   `dupwnd_` stays 0): no window inflation during fast recovery, and `exit_window = "keep"`:
//!   the ACK that ends it leaves cwnd where the fast retransmit put it and opens it as any new
//!   ACK (`recv_newack_helper`), rather than setting cwnd = ssthresh;
//! - `limited_transmit = false` (`WestwoodTcpAgent::recv` only counts duplicate ACKs and never
//!   calls `send_one`): no RFC 3042 limited transmit whatever the profile;
//! - `fast_retransmit_guard = false` (the same `recv` calls `dupack_action` on every third
//!   duplicate ACK, with no `recover_` check, also after a timeout): no fast-retransmit guard;
//! - `ns2_window = true` (the module is a `TcpAgent` subclass): under `[tcp.ns2] cwnd_double`
//!   cwnd is ns-2's double (`opencwnd`); under `cwnd_packets` ssthresh is a whole number of
//!   packets whatever its size (`ssthresh_` is an int, and BWE x RTTmin may exceed the
//!   initial ssthresh), and the fast retransmit lowers cwnd to ssthresh only if above, its
//!   fraction kept otherwise (`dupack_action`: `if (cwnd_ > ssthresh_) cwnd_ = ssthresh_`);
//! - `estimate_first = true` (`recv` runs the estimator before `dupack_action`): the third
//!   duplicate ACK's sample is in the ssthresh it sets;
//! - `syn_timeout = "initial_window"` (`WestwoodTcpAgent::timeout` lacks `TcpAgent`'s
//!   `bugfix_ss_` branch): under `syn_loss = "timeout"` a lost SYN leaves the initial window
//!   (the SYN's ACK sets `cwnd_ = initial_window()`) and ssthresh 2 packets;
//! - Agent/TCP/WestwoodNR's OTcl parent is Agent/TCP, not Agent/TCP/Newreno, so it runs with
//!   Agent/TCP's defaults `partial_window_deflation_` 0 (`partial_deflation = false`: a
//!   partial ACK clears the inflation and leaves cwnd) and `newreno_changes1_` 0 (`impatient
//!   = false`: every partial ACK restarts the timer under `[tcp.ns2] newreno_partial`), and its
//!   `dupack_action` never sets `dupwnd_ = numdupacks_` (`fr_inflation = false`: the inflation
//!   starts at 0, not at dupthresh packets). With `recovery = "newreno"`, `model = "ns2"` turns
//!   `limited_transmit` and `fast_retransmit_guard` back on (NewReno's `recv` sends one packet
//!   per early duplicate ACK and calls `dupack_action` only past `recover_`).
//!
//! The estimator's side of the module (its filters, its count of ACKed packets, RTTmin from the
//! counted samples, the `fr_a_` divisor) is in `mod.rs`.

use super::{Model, TimeoutDivisor, Westwood};
use crate::tcp::cc::{CcState, SenderRules};
use crate::tcp::params::Walk;

/// cwnd at the end of Westwood's fast recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitWindow {
    /// cwnd = ssthresh (RFC 5681 step 6).
    Ssthresh,
    /// cwnd stays; the ending ACK opens it as any new ACK (the ns-2 module).
    Keep,
}

/// The window after this end's SYN timed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynTimeout {
    /// The profile's rule (`[tcp] syn_loss`).
    Profile,
    /// Under `syn_loss = "timeout"`: the initial window, ssthresh 2 packets (the module's
    /// `timeout` lacks `TcpAgent`'s `bugfix_ss_` branch, so the SYN's ACK sets `cwnd_ =
    /// initial_window()`; its `slowdown(CLOSE_FASTER)` sets ssthresh from a zero estimate).
    InitialWindow,
}

/// The rules of the agent around the estimator, each a parameter (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentRules {
    /// Window inflation by duplicate ACKs during fast recovery (RFC 5681 steps 3-4;
    /// `SenderRules::inflates`).
    pub inflation: bool,
    /// cwnd at the end of fast recovery (`SenderRules::exit_keeps_cwnd` for `Keep`).
    pub exit_window: ExitWindow,
    /// RFC 3042 limited transmit as the profile says; false: none (`SenderRules::
    /// limited_transmit`).
    pub limited_transmit: bool,
    /// No fast retransmit below the recovery point of a timeout or an earlier fast retransmit,
    /// as the profile says; false: every dupthresh-th duplicate ACK retransmits
    /// (`SenderRules::guards_fast_retransmit`).
    pub fast_retransmit_guard: bool,
    /// The window as an ns-2 `TcpAgent` holds it (`SenderRules::ns2_agent`).
    pub ns2_window: bool,
    /// The estimate hears a duplicate ACK before the fast-retransmit decision
    /// (`SenderRules::dupack_first`).
    pub estimate_first: bool,
    /// The window after this end's SYN timed out (`CongestionControl::syn_timeout_window`).
    pub syn_timeout: SynTimeout,
    /// The fast retransmit's window counts the dupthresh duplicate ACKs already received
    /// (`SenderRules::inflates_at_fast_retransmit`).
    pub fr_inflation: bool,
    /// A partial ACK deflates the inflated window by the data it acknowledges
    /// (`SenderRules::partial_deflation`).
    pub partial_deflation: bool,
    /// Under `[tcp.ns2] newreno_partial`, only the first partial ACK restarts the timer
    /// (`SenderRules::impatient_timer`).
    pub impatient: bool,
}

impl AgentRules {
    /// The defaults of `model`: the profile's sender for the paper's Westwood,
    /// Agent/TCP/Westwood's for the module's.
    pub fn preset(model: Model) -> Self {
        let ns2 = model == Model::Ns2;
        AgentRules {
            inflation: !ns2,
            exit_window: if ns2 {
                ExitWindow::Keep
            } else {
                ExitWindow::Ssthresh
            },
            limited_transmit: !ns2,
            fast_retransmit_guard: !ns2,
            ns2_window: ns2,
            estimate_first: ns2,
            syn_timeout: if ns2 {
                SynTimeout::InitialWindow
            } else {
                SynTimeout::Profile
            },
            fr_inflation: !ns2,
            partial_deflation: !ns2,
            impatient: !ns2,
        }
    }

    /// Agent/TCP/WestwoodNR (`model = "ns2"` with `recovery = "newreno"`): NewRenoTcpAgent's
    /// recv inflates the window (dupwnd_), sends one packet for each of the first duplicate ACKs
    /// (send_one) and calls the module's dupack_action only above recover_ (its bug_fix_
    /// check).
    pub fn westwood_nr(&mut self) {
        self.inflation = true;
        self.limited_transmit = true;
        self.fast_retransmit_guard = true;
    }

    /// The parameters, in the order `tcplab variants` lists them (after `timeout_divisor`).
    pub fn walk(&mut self, w: &mut Walk<'_>) {
        w.flag("inflation", &mut self.inflation);
        w.choice(
            "exit_window",
            &mut self.exit_window,
            &[
                ("ssthresh", ExitWindow::Ssthresh),
                ("keep", ExitWindow::Keep),
            ],
        );
        w.flag("limited_transmit", &mut self.limited_transmit);
        w.flag("fast_retransmit_guard", &mut self.fast_retransmit_guard);
        w.flag("ns2_window", &mut self.ns2_window);
        w.flag("estimate_first", &mut self.estimate_first);
        w.choice(
            "syn_timeout",
            &mut self.syn_timeout,
            &[
                ("profile", SynTimeout::Profile),
                ("initial_window", SynTimeout::InitialWindow),
            ],
        );
        w.flag("fr_inflation", &mut self.fr_inflation);
        w.flag("partial_deflation", &mut self.partial_deflation);
        w.flag("impatient", &mut self.impatient);
    }

    /// `rules` (the estimator's: its hooks and window rule in recovery) with the sender rules
    /// this agent sets.
    pub fn sender_rules(&self, rules: SenderRules) -> SenderRules {
        SenderRules {
            inflates: self.inflation,
            inflates_at_fast_retransmit: self.fr_inflation,
            partial_deflation: self.partial_deflation,
            exit_keeps_cwnd: self.exit_window == ExitWindow::Keep,
            limited_transmit: self.limited_transmit,
            guards_fast_retransmit: self.fast_retransmit_guard,
            ns2_agent: self.ns2_window,
            dupack_first: self.estimate_first,
            impatient_timer: self.impatient,
            ..rules
        }
    }
}

impl Westwood {
    /// `CongestionControl::syn_timeout_window` under `syn_timeout = "initial_window"`.
    pub(super) fn syn_timeout_window_ns2(
        &mut self,
        st: &mut CcState,
        initial: u64,
        timeouts: u64,
    ) -> bool {
        if self.cfg.agent.syn_timeout != SynTimeout::InitialWindow {
            return false;
        }
        // Each SYN timeout is `slowdown(CLOSE_FASTER)` with no estimate yet: the first, in
        // slow start, sets fr_a_ to 1, the others (ssthresh_ 0 below cwnd_) keep it at 1;
        // ssthresh_ = 0, kept at 2 packets as after every timeout (`whole_segments`). No
        // `bugfix_ss_` line lowers the initial window, which the SYN's ACK restores.
        if timeouts > 0 && self.cfg.timeout_divisor == TimeoutDivisor::Ns2 {
            self.fr_a = 1.0;
        }
        st.ssthresh = 2 * st.mss;
        st.cwnd = initial;
        st.ca_bytes = 0;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{ns2, state};
    use super::super::{Config, Westwood};
    use super::*;
    use crate::engine::time::Dur;
    use crate::tcp::cc::{CongestionControl, RecoveryStyle};

    #[test]
    fn ns2_agent_rules_are_the_modules_and_westwood_nr_keeps_newrenos_recv() {
        let rules = |w: &Westwood| {
            let r = w.sender_rules();
            (
                r.limited_transmit,
                r.guards_fast_retransmit,
                r.ns2_agent,
                r.dupack_first,
                r.inflates_at_fast_retransmit,
                r.partial_deflation,
                r.impatient_timer,
            )
        };
        // The paper's Westwood leaves the sender's rules alone.
        let p = Westwood::default();
        assert_eq!(rules(&p), (true, true, false, false, true, true, true));
        // Agent/TCP/Westwood: no send_one, no recover_ check, TcpAgent's window, estimate
        // first.
        assert_eq!(
            rules(&ns2()),
            (false, false, true, true, false, false, false)
        );
        // Agent/TCP/WestwoodNR: NewReno's recv sends one packet per early duplicate ACK and
        // checks recover_ (as `Tunable::walk` sets them for recovery = "newreno").
        let nr = Westwood::new(Config {
            recovery: RecoveryStyle::NewReno,
            agent: AgentRules {
                inflation: true,
                limited_transmit: true,
                fast_retransmit_guard: true,
                ..AgentRules::preset(Model::Ns2)
            },
            ..Config::preset(Model::Ns2)
        });
        assert_eq!(rules(&nr), (true, true, true, true, false, false, false));
    }

    #[test]
    fn ns2_syn_timeout_leaves_the_initial_window_and_ssthresh_2() {
        // Two SYN timeouts, initial window 4 packets: cwnd 4 packets, ssthresh 2, fr_a_ 1.
        let mut w = ns2();
        let mut s = state(1000, u64::MAX / 4);
        assert!(w.syn_timeout_window(&mut s, 4000, 2));
        assert_eq!((s.cwnd, s.ssthresh, w.fr_a()), (4000, 2000, 1.0));
        // The paper's leaves it to the profile.
        let mut p = Westwood::default();
        let mut s = state(1000, u64::MAX / 4);
        assert!(!p.syn_timeout_window(&mut s, 4000, 2));
        assert_eq!((s.cwnd, s.ssthresh), (1000, u64::MAX / 4));
    }

    #[test]
    fn ns2_recovery_neither_inflates_nor_sets_cwnd_to_ssthresh_at_its_end() {
        let w = ns2();
        assert!(!w.sender_rules().inflates && w.sender_rules().exit_keeps_cwnd);
        let mut w = ns2();
        w.bwe = 125_000.0;
        w.on_counted_rtt(Dur::from_millis(100));
        // cwnd below BWE x RTTmin at the fast retransmit stays there at the end.
        let mut s = state(8000, 20_000);
        w.on_enter_recovery(&mut s, 8000);
        assert_eq!((s.ssthresh, s.cwnd), (12_500, 8000));
        w.on_exit_recovery(&mut s, 8000);
        assert_eq!(s.cwnd, 8000);
        let p = Westwood::default();
        assert!(p.sender_rules().inflates && !p.sender_rules().exit_keeps_cwnd);
    }
}
