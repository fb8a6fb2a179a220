//! RACK-TLP, RFC 8985: time-based loss detection (RACK) and tail loss probes (TLP). Asks the
//! receiver for SACK (`wants_sack`).
//!
//! RACK (section 6):
//! - per segment: the latest transmission time (`Seg::last_sent`, Segment.xmit_ts);
//! - on each ACK, from the most recently sent segment it delivered (cumulatively or by SACK):
//!   RACK.rtt = now - xmit_ts and RACK.xmit_ts/end_seq advance (step 2), skipping a retransmitted
//!   segment whose ACK may be for an earlier transmission (TSecr < xmit_ts, or now - xmit_ts <
//!   min RTT); a never-retransmitted segment delivered below RACK.fack means reordering (step 3);
//! - reordering window (step 4): 0 while no reordering was seen and either in recovery or
//!   DupThresh segments are SACKed (this makes RACK at least as fast as the duplicate-ACK rule),
//!   else min(reo_wnd_mult x min_RTT / 4, SRTT), reo_wnd_mult = `Config::reo_wnd_mult`;
//! - a segment sent before RACK.xmit_ts is lost once now >= xmit_ts + RACK.rtt + reo_wnd
//!   (step 5); for the others the reordering timer is armed at the latest such deadline;
//! - newly marked losses start fast recovery (the sender, as Linux); lost retransmissions are
//!   detected the same way, without a timeout;
//! - on RTO (section 6.3): the first unacknowledged segment and every segment whose deadline
//!   passed are marked lost (not go-back-N).
//!
//! TLP (section 7):
//! - the probe timeout PTO = 2 SRTT, plus `max_ack_delay` when one segment is in flight, 1 s
//!   without an SRTT, and no later than the RTO would fire; armed after sending new data and on
//!   ACKs that advance SND.UNA, unless in fast or RTO recovery or with SACKed data
//!   outstanding; cancelled while the reordering timer is armed;
//! - at the PTO the sender sends one segment of new data if it may (receiver window; cwnd is
//!   ignored), else retransmits the highest-sequence segment, and re-arms the RTO; one probe per
//!   episode (TLP.end_seq);
//! - when an ACK covers TLP.end_seq after a retransmitted probe, the probe repaired a loss
//!   (section 7.4.2) and the sender has the congestion control react as to a fast recovery.
//!
//! Without SACK (the peer refused it) the duplicate-ACK threshold still triggers fast
//! retransmit.
//!
//! `rule = "linux"` (the `linux` profile) is Linux's RACK (net/ipv4/tcp_recovery.c) where it
//! departs from the RFC:
//! - RACK.rtt comes from the last delivered segment `tcp_rack_advance` handles, in Linux's
//!   order (newly SACKed segments in sequence order, then the cumulatively acknowledged ones),
//!   not from the most recently sent one; it skips a retransmission delivered sooner than the
//!   minimum RTT after it was sent (`Delivery::last`). RACK.xmit_ts still advances to the most
//!   recently sent segment;
//! - the reordering timer is armed `TCP_TIMEOUT_MIN_US` = 2 ms after the latest deadline, in
//!   whole jiffies (1 ms at HZ = 1000; `tcp_rack_mark_lost`: usecs_to_jiffies(remaining +
//!   2000)), and a segment is lost once its deadline is not in the future (`remaining <= 0`).
//!
//! Deviations: no DSACK (the receiver does not send D-SACK blocks), so reo_wnd_mult stays at its
//! configured value (RFC 8985's initial 1 by default) and a probe whose original also arrived is
//! counted as a repaired loss (conservative);
//! `max_ack_delay` defaults to 200 ms (RFC 8985 leaves it to the implementation; Linux adds
//! TCP_RTO_MIN = 200 ms for a single outstanding segment).

use super::{AckInfo, LossRecovery, PhaseEnd, SenderView, Verdict};
use crate::engine::time::{Dur, SimTime};
use crate::tcp::params::{Tunable, Walk};
use crate::tcp::scoreboard::Scoreboard;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// TLP.max_ack_delay, added to the PTO when one segment is in flight.
    pub max_ack_delay: Dur,
    /// Send tail loss probes (false: RACK alone).
    pub tlp: bool,
    /// RACK.reo_wnd_mult (RFC 8985 section 6.2 step 4: starts at 1; grown by DSACKs, which
    /// this simulator does not send, so it stays at this value).
    pub reo_wnd_mult: u64,
    /// RFC 8985 as written, or Linux's tcp_recovery.c (module documentation).
    pub rule: RackRule,
}

/// Which RACK (`Config::rule`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RackRule {
    #[default]
    Rfc8985,
    Linux,
}

/// Linux's TCP_TIMEOUT_MIN_US (include/net/tcp.h), added to the reordering timer.
const LINUX_REO_SLACK: Dur = Dur::from_millis(2);
/// One jiffy at HZ = 1000: Linux's timers count whole jiffies, rounded up.
const LINUX_JIFFY: Dur = Dur::from_millis(1);

impl Default for Config {
    fn default() -> Self {
        Config {
            max_ack_delay: Dur::from_millis(200),
            tlp: true,
            reo_wnd_mult: 1,
            rule: RackRule::Rfc8985,
        }
    }
}

/// `[tcp] lr_params` of rack-tlp: `max_ack_delay` (0 to 10 s), `tlp`, `reo_wnd_mult` (1 to
/// 100), `rule` ("rfc8985" or "linux").
impl Tunable for Config {
    fn walk(&mut self, w: &mut Walk<'_>) {
        w.duration(
            "max_ack_delay",
            &mut self.max_ack_delay,
            Dur::ZERO,
            Dur::from_secs(10),
        );
        w.flag("tlp", &mut self.tlp);
        w.integer("reo_wnd_mult", &mut self.reo_wnd_mult, 1, 100);
        w.choice(
            "rule",
            &mut self.rule,
            &[("rfc8985", RackRule::Rfc8985), ("linux", RackRule::Linux)],
        );
    }
}

#[derive(Clone, Debug, Default)]
pub struct RackTlp {
    pub cfg: Config,
    xmit_ts: Option<SimTime>,
    end_seq: u64,
    rtt: Option<Dur>,
    fack: u64,
    reordering_seen: bool,
    reorder_at: Option<SimTime>,
    tlp_end: Option<u64>,
    tlp_is_retrans: bool,
    pto_at: Option<SimTime>,
}

impl RackTlp {
    pub fn new(cfg: Config) -> Self {
        RackTlp {
            cfg,
            ..RackTlp::default()
        }
    }

    /// RFC 8985 section 6.2 step 4 (reo_wnd_mult stays at its configured value without DSACK).
    pub fn reo_wnd(&self, v: &SenderView, sb: &Scoreboard) -> Dur {
        if !self.reordering_seen
            && (v.in_recovery || v.rto_recovery || sb.sacked_segs() >= v.dupthresh as usize)
        {
            return Dur::ZERO;
        }
        let q = v.min_rtt.map_or(Dur::ZERO, |m| {
            Dur(m.0 / 4).saturating_mul(self.cfg.reo_wnd_mult)
        });
        match v.srtt {
            Some(s) => q.min(s),
            None => q,
        }
    }

    /// RFC 8985 section 6.2 step 5: mark lost what RACK deems lost, arm the reordering timer for
    /// the rest. Returns the bytes newly marked.
    fn detect_loss(&mut self, v: &SenderView, sb: &mut Scoreboard) -> u64 {
        self.reorder_at = None;
        let Some(xt) = self.xmit_ts else {
            return 0;
        };
        let reo = self.reo_wnd(v, sb);
        let rtt = self.rtt.unwrap_or(Dur::ZERO);
        let mut latest: Option<SimTime> = None;
        let mut newly = 0;
        for i in 0..sb.len() {
            let Some(&s) = sb.get(i) else {
                break;
            };
            // Segments are first sent in sequence order: from here on every segment was sent
            // after the one RACK is based on.
            if s.first_sent > xt {
                break;
            }
            if s.sacked || (s.lost && !s.retransmitted) {
                continue;
            }
            // RACK_sent_after(RACK.xmit_ts, RACK.end_seq, Segment.xmit_ts, Segment.end_seq).
            if !(xt > s.last_sent || (xt == s.last_sent && self.end_seq > s.end)) {
                continue;
            }
            let deadline = s.last_sent + rtt + reo;
            if deadline <= v.now {
                sb.mark_lost(i);
                newly += s.len();
            } else {
                latest = Some(latest.map_or(deadline, |l| l.max(deadline)));
            }
        }
        self.reorder_at = match self.cfg.rule {
            RackRule::Rfc8985 => latest,
            RackRule::Linux => latest.map(|t| v.now + linux_reo_timeout(t.since(v.now))),
        };
        newly
    }

    fn may_arm_pto(&self, v: &SenderView, sb: &Scoreboard) -> bool {
        self.cfg.tlp
            && !v.in_recovery
            && !v.rto_recovery
            && sb.sacked_segs() == 0
            && v.snd_max > v.snd_una
    }

    /// RFC 8985 section 7.2, TLP_calc_PTO.
    pub fn calc_pto(&self, v: &SenderView) -> Dur {
        let mut pto = match v.srtt {
            Some(s) => {
                let mut p = Dur(2 * s.0);
                if v.flight() <= v.mss {
                    p = p + self.cfg.max_ack_delay;
                }
                p
            }
            None => Dur::from_secs(1),
        };
        if let Some(rto) = v.rto_deadline {
            if v.now + pto > rto {
                pto = rto.since(v.now);
            }
        }
        pto
    }

    fn arm_pto(&mut self, v: &SenderView, sb: &Scoreboard) {
        self.pto_at = if self.may_arm_pto(v, sb) {
            Some(v.now + self.calc_pto(v))
        } else {
            None
        };
    }
}

/// Linux's reordering timeout for a deadline `remaining` away: `usecs_to_jiffies(remaining +
/// TCP_TIMEOUT_MIN_US)` jiffies (`tcp_rack_mark_lost`).
fn linux_reo_timeout(remaining: Dur) -> Dur {
    let t = remaining + LINUX_REO_SLACK;
    Dur(t.0.div_ceil(LINUX_JIFFY.0) * LINUX_JIFFY.0)
}

impl LossRecovery for RackTlp {
    fn name(&self) -> &'static str {
        "rack-tlp"
    }

    fn phase_end(&self) -> PhaseEnd {
        PhaseEnd::RecoveryPoint
    }

    fn wants_sack(&self) -> bool {
        true
    }

    fn time_based(&self) -> bool {
        true
    }

    fn triggers_fast_retransmit(&mut self, v: &SenderView, _sb: &Scoreboard) -> bool {
        !v.sack_ok && v.dupacks == v.dupthresh
    }

    fn on_enter_recovery(&mut self, v: &SenderView, sb: &mut Scoreboard) {
        self.pto_at = None;
        if !v.sack_ok || sb.next_lost().is_none() {
            sb.mark_lost(0);
        }
    }

    fn on_ack(&mut self, v: &SenderView, sb: &mut Scoreboard, a: &AckInfo) -> Verdict {
        let mut verdict = Verdict::default();
        let d = &a.delivery;
        if let Some(seg) = d.newest {
            // Step 2: skip an ambiguous ACK of a retransmitted segment.
            let ambiguous = seg.ever_retransmitted()
                && (a.ts_echo_us.is_some_and(|e| e < seg.last_sent.0 / 1_000)
                    || v.min_rtt.is_some_and(|m| v.now.since(seg.last_sent) < m));
            if !ambiguous {
                if self.cfg.rule == RackRule::Rfc8985 {
                    self.rtt = Some(v.now.since(seg.last_sent));
                }
                if self.xmit_ts.is_none_or(|t| seg.sent_after(t, self.end_seq)) {
                    self.xmit_ts = Some(seg.last_sent);
                    self.end_seq = seg.end;
                }
            }
            if self.cfg.rule == RackRule::Linux {
                if let Some(last) = d.last {
                    self.rtt = Some(v.now.since(last.last_sent));
                }
            }
            // Step 3: reordering.
            if d.min_orig_end.is_some_and(|m| m < self.fack) {
                self.reordering_seen = true;
            }
            self.fack = self.fack.max(seg.end);
        }
        self.fack = self.fack.max(v.snd_una);
        // Section 7.4: the ACK of a probe.
        if let Some(end) = self.tlp_end {
            if v.snd_una >= end {
                self.tlp_end = None;
                if self.tlp_is_retrans {
                    verdict.repaired_by_probe = true;
                }
            }
        }
        // Steps 4-5.
        if d.newest.is_some() || a.dupack {
            verdict.loss = self.detect_loss(v, sb) > 0;
        }
        // Section 7.2: (re)arm the PTO on an ACK of new data; otherwise keep it only while it
        // may run.
        if a.acked > 0 {
            self.arm_pto(v, sb);
        } else if !self.may_arm_pto(v, sb) {
            self.pto_at = None;
        }
        verdict
    }

    fn on_exit_recovery(&mut self, v: &SenderView, sb: &mut Scoreboard) {
        let v = SenderView {
            in_recovery: false,
            ..*v
        };
        self.arm_pto(&v, sb);
    }

    fn on_rto(&mut self, v: &SenderView, sb: &mut Scoreboard) {
        self.tlp_end = None;
        self.pto_at = None;
        self.reorder_at = None;
        let reo = self.reo_wnd(v, sb);
        let rtt = self.rtt.unwrap_or(Dur::ZERO);
        for i in 0..sb.len() {
            let Some(&s) = sb.get(i) else {
                break;
            };
            if s.sacked {
                continue;
            }
            if i == 0 || s.last_sent + rtt + reo <= v.now {
                sb.mark_lost(i);
            }
        }
    }

    fn pipe(&self, _v: &SenderView, sb: &Scoreboard) -> u64 {
        sb.rfc6675_pipe()
    }

    fn on_transmit(&mut self, v: &SenderView, sb: &Scoreboard, new_data: bool) {
        if new_data {
            self.arm_pto(v, sb);
        }
    }

    fn reorder_deadline(&self) -> Option<SimTime> {
        self.reorder_at
    }

    fn probe_deadline(&self) -> Option<SimTime> {
        if self.reorder_at.is_some() {
            None
        } else {
            self.pto_at
        }
    }

    fn on_reorder_timer(&mut self, v: &SenderView, sb: &mut Scoreboard) -> Verdict {
        Verdict {
            loss: self.detect_loss(v, sb) > 0,
            repaired_by_probe: false,
        }
    }

    fn on_probe_timer(&mut self, v: &SenderView, sb: &Scoreboard) -> bool {
        self.pto_at = None;
        self.tlp_end.is_none() && self.may_arm_pto(v, sb)
    }

    fn on_probe_sent(&mut self, v: &SenderView, retransmission: bool) {
        self.tlp_end = Some(v.snd_max);
        self.tlp_is_retrans = retransmission;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::scoreboard::{Seg, TxStamp};

    fn ms(m: u64) -> SimTime {
        SimTime(m * 1_000_000)
    }

    fn view(now_ms: u64, una: u64, max: u64) -> SenderView {
        SenderView {
            now: ms(now_ms),
            snd_una: una,
            snd_max: max,
            mss: 100,
            dupthresh: 3,
            sack_ok: true,
            srtt: Some(Dur::from_millis(100)),
            min_rtt: Some(Dur::from_millis(100)),
            rto_deadline: Some(ms(now_ms + 1000)),
            ..SenderView::default()
        }
    }

    /// Five 100-byte segments (seq 1, 101, ...) sent at 0, 1, 2, 3 and 4 ms.
    fn five_segments() -> Scoreboard {
        let mut sb = Scoreboard::default();
        for k in 0..5u64 {
            sb.push(Seg::new(
                1 + 100 * k,
                101 + 100 * k,
                false,
                ms(k),
                TxStamp::default(),
            ));
        }
        sb
    }

    #[test]
    fn a_segment_is_lost_one_rtt_plus_reo_wnd_after_it_was_sent() {
        // Segments 0..5 sent at 0, 1, 2, 3, 4 ms; segment 1 lost; 2 SACKed at 102 ms.
        let mut sb = five_segments();
        let mut r = RackTlp::default();
        sb.sack(201, 301);
        let a = AckInfo {
            dupack: true,
            delivery: sb.take_delivery(),
            ..AckInfo::default()
        };
        // 102 ms: RACK.rtt = 100 ms from segment 2 (sent at 2 ms). Segments 0 and 1 were sent
        // before it; with one SACKed segment the reordering window is min_RTT/4 = 25 ms, so they
        // are lost at 0 + 100 + 25 and 1 + 100 + 25 ms: not yet, the timer is armed at 126 ms.
        let v = view(102, 1, 501);
        let verdict = r.on_ack(&v, &mut sb, &a);
        assert!(!verdict.loss);
        assert_eq!(r.reorder_deadline(), Some(ms(126)));
        assert_eq!(
            r.probe_deadline(),
            None,
            "the reordering timer takes precedence"
        );
        // The timer fires: both are lost.
        let v = view(126, 1, 501);
        assert!(r.on_reorder_timer(&v, &mut sb).loss);
        assert!(sb.get(0).unwrap().lost && sb.get(1).unwrap().lost);
        assert!(!sb.get(3).unwrap().lost, "sent after RACK's segment");
        assert_eq!(r.reorder_deadline(), None);
    }

    #[test]
    fn with_dupthresh_sacked_segments_the_window_is_zero() {
        let mut sb = five_segments();
        let mut r = RackTlp::default();
        sb.sack(101, 401);
        let a = AckInfo {
            dupack: true,
            delivery: sb.take_delivery(),
            ..AckInfo::default()
        };
        let v = view(103, 1, 501);
        assert_eq!(r.reo_wnd(&v, &sb), Dur::ZERO);
        assert!(r.on_ack(&v, &mut sb, &a).loss);
        assert!(sb.get(0).unwrap().lost);
    }

    #[test]
    fn pto_is_two_srtt_plus_delayed_ack_for_one_segment_and_capped_by_rto() {
        let r = RackTlp::default();
        let mut v = view(0, 1, 1001);
        assert_eq!(r.calc_pto(&v), Dur::from_millis(200));
        v.snd_max = 101;
        assert_eq!(r.calc_pto(&v), Dur::from_millis(400));
        v.rto_deadline = Some(ms(300));
        assert_eq!(r.calc_pto(&v), Dur::from_millis(300));
        v.srtt = None;
        v.rto_deadline = None;
        assert_eq!(r.calc_pto(&v), Dur::from_secs(1));
    }
}
