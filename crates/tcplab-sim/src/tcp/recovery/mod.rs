//! Loss-recovery (error-detection) plug-ins: when is a segment lost, what is retransmitted, when
//! a recovery phase begins and ends, and how many bytes count as in flight during it.
//!
//! The sender detects duplicate ACKs, runs the RTO timer and keeps the scoreboard; a plug-in
//! decides from those facts. Any plug-in combines with any congestion control: the plug-in owns
//! the recovery *phase* (entry, retransmissions, exit: `PhaseEnd`), the congestion control owns
//! the *window* at entry, during the phase, at its end and after a timeout (`cc/mod.rs` has the
//! table of every pair's semantics, seed 001's modular TCP).
//!
//! - `dupack` (alias `rfc5681`): RFC 5681 fast retransmit / fast recovery;
//! - `newreno`: RFC 6582 partial-ACK retransmissions;
//! - `sack`: RFC 6675 SACK scoreboard recovery;
//! - `rack-tlp`: RFC 8985 time-based loss detection and tail-loss probes.
//!
//! Parameters (`[tcp] lr_params`, see `params.rs`): `rack-tlp` (`rack_tlp::Config`) and `sack`
//! (`sack::Config`: the rescue retransmission).
//!
//! PRR (RFC 6937) is not a plug-in but a sending rule the sender applies during any plug-in's
//! fast recovery when `TcpConfig::prr` is set (see `prr.rs`).
//!
//! A plug-in with timers (RACK's reordering timer, TLP's probe timeout) exposes their deadlines;
//! the sender arms the engine's `TimerKind::Reorder` / `TimerKind::Probe` to match after every
//! event and calls back when they fire.

pub mod dupack;
pub mod newreno;
pub mod prr;
pub mod rack_tlp;
pub mod sack;

use serde_json::{Map, Value};

use super::params::{Family, NoParams, ParamInfo, Params, Tunable, Walk};
use super::scoreboard::{Delivery, Scoreboard};
use crate::engine::time::{Dur, SimTime};
use crate::error::SimResult;

/// Facts about the sender a loss-recovery plug-in may use.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderView {
    pub now: SimTime,
    pub snd_una: u64,
    pub snd_max: u64,
    pub mss: u64,
    /// Duplicate ACKs in a row.
    pub dupacks: u32,
    pub dupthresh: u32,
    pub in_recovery: bool,
    /// Duplicate ACKs (and partial-ACK credits) counted since recovery began.
    pub recovery_credits: u64,
    /// The recovery point: the highest sequence number outstanding when the current (or last)
    /// fast recovery or timeout began.
    pub recover: Option<u64>,
    /// A timeout happened and the cumulative ACK has not yet passed `recover` (RTO recovery).
    pub rto_recovery: bool,
    /// SACK was negotiated.
    pub sack_ok: bool,
    pub srtt: Option<Dur>,
    pub min_rtt: Option<Dur>,
    /// When the retransmission timer expires, if it is armed.
    pub rto_deadline: Option<SimTime>,
    /// The `sack` recovery follows ns-2's Sack1 (`Ns2Rules::sack1`).
    pub sack1: bool,
}

impl SenderView {
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
}

/// What an ACK told the sender, for `LossRecovery::on_ack`.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckInfo {
    /// Bytes cumulatively acknowledged by this ACK.
    pub acked: u64,
    pub dupack: bool,
    /// What the ACK delivered (cumulatively or by SACK).
    pub delivery: Delivery,
    /// The timestamp echoed (TSecr), in microseconds of the sender's clock, if timestamps are on.
    pub ts_echo_us: Option<u64>,
}

/// What a plug-in concluded from an ACK or a timer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Segments were newly marked lost: start fast recovery if not already in it.
    pub loss: bool,
    /// A loss probe repaired a loss (RFC 8985 section 7.4.2): the congestion control must react
    /// as to a fast-recovery episode.
    pub repaired_by_probe: bool,
}

/// When a recovery phase ends (seed 001: "the error detection decides when a recovery phase
/// begins and ends").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhaseEnd {
    /// At the first ACK of new data: the retransmission was acknowledged (RFC 5681 section 3.2
    /// step 6; Tahoe's and Reno's fast retransmit, seed 001's DupAckED).
    FirstNewAck,
    /// When the cumulative ACK covers the recovery point, the highest sequence number sent when
    /// the phase began (RFC 6582 section 3.2 step 3, RFC 6675 section 5, Linux's `high_seq`).
    /// ACKs below it are partial ACKs inside the phase.
    RecoveryPoint,
}

/// What a partial ACK asks of the sender (RFC 6582 section 3.2 step 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Partial {
    /// Bytes to add back to the recovery allowance after deflating it by the data acknowledged.
    pub credit: u64,
    /// Retransmit the first segment marked lost at once, whatever the window says.
    pub retransmit: bool,
}

pub trait LossRecovery: Send {
    fn name(&self) -> &'static str;

    /// Whether the receiver should be asked for SACK (RFC 2018 SACK-permitted).
    fn wants_sack(&self) -> bool {
        false
    }

    /// When this plug-in's recovery phase ends. Default: RFC 5681's fast retransmit, which ends
    /// at the first ACK of new data.
    fn phase_end(&self) -> PhaseEnd {
        PhaseEnd::FirstNewAck
    }

    /// A duplicate ACK arrived outside recovery. True starts fast retransmit.
    fn triggers_fast_retransmit(&mut self, v: &SenderView, _sb: &Scoreboard) -> bool {
        v.dupacks == v.dupthresh
    }

    /// Fast retransmit: mark what is to be retransmitted (default: the first unacked segment).
    fn on_enter_recovery(&mut self, _v: &SenderView, sb: &mut Scoreboard) {
        sb.mark_lost(0);
    }

    /// A partial ACK (new data acked, recovery point not passed) inside a phase that ends at the
    /// recovery point.
    fn on_partial_ack(&mut self, _v: &SenderView, _sb: &mut Scoreboard) -> Partial {
        Partial::default()
    }

    /// Any ACK during recovery (after the scoreboard was updated with its SACK blocks).
    fn on_ack_in_recovery(&mut self, _v: &SenderView, _sb: &mut Scoreboard) {}

    /// Recovery ended.
    fn on_exit_recovery(&mut self, _v: &SenderView, _sb: &mut Scoreboard) {}

    /// Every ACK, after the sender handled it (cumulative ACK, duplicate ACK counting, recovery
    /// entry and exit): time-based loss detection and probe timers live here.
    fn on_ack(&mut self, _v: &SenderView, _sb: &mut Scoreboard, _a: &AckInfo) -> Verdict {
        Verdict::default()
    }

    /// The retransmission timer expired: mark what is lost. Default: everything not SACKed, so
    /// that the sender resends from SND.UNA (go-back-N, skipping SACKed data).
    fn on_rto(&mut self, _v: &SenderView, sb: &mut Scoreboard) {
        sb.mark_all_lost();
    }

    /// Bytes considered in flight, compared with cwnd to decide whether a segment may be sent.
    ///
    /// Classic (no SACK): the scoreboard's count (segments sent and not marked lost, plus
    /// retransmissions; with nothing SACKed this is FlightSize during fast recovery, and only what
    /// was resent since an RTO, i.e. go-back-N) minus one MSS per duplicate ACK seen in recovery,
    /// which is RFC 5681's window inflation. When SACK was negotiated (because `[tcp] sack` is
    /// set), the segments those duplicate ACKs report are already out of the scoreboard's count,
    /// so the inflation is not subtracted a second time.
    ///
    /// Outside a recovery phase (`v.in_recovery` false) this must be `sb.rfc6675_pipe()`: the
    /// sender reads the scoreboard directly then, without calling this.
    fn pipe(&self, v: &SenderView, sb: &Scoreboard) -> u64 {
        let p = sb.rfc6675_pipe();
        if v.in_recovery && !v.sack_ok {
            p.saturating_sub(v.recovery_credits)
        } else {
            p
        }
    }

    /// In recovery, with room in the window but nothing marked lost and no new data that may be
    /// sent: a segment to retransmit without marking it lost (RFC 6675 NextSeg rules 3 and 4).
    fn next_seg_fallback(&mut self, _v: &SenderView, _sb: &Scoreboard) -> Option<usize> {
        None
    }

    /// Whether the plug-in detects losses by time: only then does the sender call `on_ack`,
    /// `on_transmit` and the timer hooks (a saving on every ACK for the others).
    fn time_based(&self) -> bool {
        false
    }

    /// A segment was sent: new data (`new_data`) or a retransmission; not called for probes.
    fn on_transmit(&mut self, _v: &SenderView, _sb: &Scoreboard, _new_data: bool) {}

    /// Deadline of the plug-in's reordering timer (RACK), if armed.
    fn reorder_deadline(&self) -> Option<SimTime> {
        None
    }

    /// Deadline of the plug-in's probe timer (TLP's PTO), if armed.
    fn probe_deadline(&self) -> Option<SimTime> {
        None
    }

    /// The reordering timer fired: detect losses again.
    fn on_reorder_timer(&mut self, _v: &SenderView, _sb: &mut Scoreboard) -> Verdict {
        Verdict::default()
    }

    /// The probe timer fired. True: the sender sends a probe (new data if it may, else the
    /// highest-sequence segment again) and reports it with `on_probe_sent`.
    fn on_probe_timer(&mut self, _v: &SenderView, _sb: &Scoreboard) -> bool {
        false
    }

    /// A probe went out (`retransmission`: it resent old data); `v.snd_max` is after it.
    fn on_probe_sent(&mut self, _v: &SenderView, _retransmission: bool) {}
}

const FAMILY: Family<dyn LossRecovery> = Family {
    name: "loss recovery",
    table: "lr_params",
    dispatch,
};

/// The one place that maps a name to its plug-in and `Config` (`params.rs`). None for an
/// unknown name.
fn dispatch(name: &str, w: &mut Walk<'_>) -> Option<SimResult<Box<dyn LossRecovery>>> {
    fn mk<C: Tunable, T: LossRecovery + 'static>(
        w: &mut Walk<'_>,
        f: impl FnOnce(C) -> T,
    ) -> SimResult<Box<dyn LossRecovery>> {
        Ok(Box::new(f(w.config::<C>()?)))
    }
    Some(match name {
        "dupack" | "rfc5681" => mk(w, |_: NoParams| dupack::DupAck),
        "newreno" => mk(w, |_: NoParams| newreno::NewRenoRecovery),
        "sack" => mk(w, sack::Sack::new),
        "rack-tlp" | "rack" => mk(w, rack_tlp::RackTlp::new),
        _ => return None,
    })
}

/// A constructor for each loss-recovery name, with its default parameters. `rfc5681` is an
/// alias of `dupack`.
pub fn by_name(name: &str) -> Option<Box<dyn LossRecovery>> {
    FAMILY.by_name(name)
}

/// The plug-in `name` with `params` (parsed by `parse_params`) over its defaults. Once per
/// connection; `path` names the parameter table in errors.
pub fn build(name: &str, params: &Params, path: &str) -> SimResult<Box<dyn LossRecovery>> {
    FAMILY.build(name, params, path)
}

/// Parse and check a scenario's `lr_params` table for the plug-in `name`, by constructing it.
pub fn parse_params(name: &str, table: &Map<String, Value>, path: &str) -> SimResult<Params> {
    FAMILY.parse_params(name, table, path)
}

/// Every parameter of `name` with its value under `params` (defaults filled in).
pub fn resolved_params(name: &str, params: &Params, path: &str) -> SimResult<Vec<ParamInfo>> {
    FAMILY.resolved_params(name, params, path)
}

/// Every parameter of `name` with its default (empty for an unknown name).
pub fn default_params(name: &str) -> Vec<ParamInfo> {
    FAMILY.default_params(name)
}

/// Every registered name with a one-line description (aliases are not listed).
pub fn registry() -> Vec<(&'static str, &'static str)> {
    vec![
        ("dupack", "duplicate-ACK fast retransmit, one retransmission per recovery (RFC 5681; alias rfc5681)"),
        ("newreno", "NewReno partial ACKs: each retransmits the next hole and credits one MSS (RFC 6582)"),
        ("sack", "SACK scoreboard: IsLost, pipe and NextSeg rules 1-4 (RFC 6675)"),
        ("rack-tlp", "RACK time-based loss detection with reordering window, and tail-loss probes (RFC 8985)"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::scoreboard::{Seg, TxStamp};

    /// `LossRecovery::pipe`'s contract, on which the sender's shortcut rests: outside a
    /// recovery phase every plug-in counts the scoreboard's RFC 6675 pipe.
    #[test]
    fn pipe_outside_recovery_is_the_scoreboards() {
        let mut sb = Scoreboard::default();
        for k in 0..8u64 {
            let s = 1 + 100 * k;
            sb.push(Seg::new(s, s + 100, false, SimTime(k), TxStamp::default()));
        }
        sb.sack(401, 601);
        sb.mark_lost(0);
        for name in ["dupack", "rfc5681", "newreno", "sack", "rack-tlp", "rack"] {
            let rec = by_name(name).expect("known plug-in");
            for (sack_ok, credits) in [(false, 0), (false, 300), (true, 0), (true, 300)] {
                let v = SenderView {
                    mss: 100,
                    dupthresh: 3,
                    sack_ok,
                    recovery_credits: credits,
                    in_recovery: false,
                    ..SenderView::default()
                };
                assert_eq!(rec.pipe(&v, &sb), sb.rfc6675_pipe(), "{name}");
            }
        }
    }
}
