//! Losses and the recovery phase: duplicate ACKs (RFC 5681 section 3.2, RFC 3042 limited
//! transmit), the loss-recovery plug-in's verdicts (RFC 8985), the fast retransmit that begins
//! a phase (none after a timeout until the ACK passes `recover`, RFC 6582 section 3.2), the new
//! ACKs inside the phase and its end (the congestion control's window inflated and deflated,
//! RFC 5681 section 3.2 and RFC 6582 section 3.2 step 5), and the window a congestion event
//! reduces (`TcpConfig::ssthresh_from`, whole segments with `TcpConfig::cwnd_packets`).
//! ns-2's agents differ in places; each such rule names the ns-2 function it follows.

use super::{Ctx, Endpoint};
use crate::engine::time::{Dur, SimTime};
use crate::tcp::cc::{AckEvent, RecoveryStyle};
use crate::tcp::config::push_ssthresh;
use crate::tcp::recovery::prr::{Prr, PrrRule};
use crate::tcp::recovery::{PhaseEnd, Verdict};
use crate::tcp::LossBase;

impl Endpoint {
    /// A duplicate ACK (RFC 5681 section 2): outside recovery the plug-in may start a fast
    /// retransmit, else limited transmit may release a new segment; inside, it lets one more
    /// segment out while the congestion control's window is inflated.
    pub(super) fn on_dupack(&mut self, ctx: &mut Ctx) {
        self.dupacks += 1;
        self.stats.dupacks_received += 1;
        if self.cc_rules.dupack_first {
            self.hear_dupack(ctx.now);
        }
        if self.in_recovery {
            // RFC 5681 step 4: each further duplicate ACK lets one segment out, while the
            // congestion control's fast-recovery window is in force.
            if self.cc_fast_recovery && self.cc_rules.inflates {
                self.recovery_credits += self.eff_mss;
            }
            let v = self.view(ctx.now);
            self.rec.on_ack_in_recovery(&v, &mut self.sb);
            return;
        }
        let v = self.view(ctx.now);
        if self.rec.triggers_fast_retransmit(&v, &self.sb) {
            self.try_enter_recovery(ctx);
        } else if self.cfg.limited_transmit
            && self.cc_rules.limited_transmit
            && self.dupacks < self.reordering
        {
            // RFC 3042: each of the first two duplicate ACKs may release one new segment. By
            // the pipe (`limited_transmit_by_pipe`, Linux): the SACKed segments have left it
            // already; without SACK each duplicate ACK counts one segment out of it.
            self.limited_transmit_room = if self.cfg.limited_transmit_by_pipe && self.sack_ok {
                0
            } else {
                self.dupacks as u64 * self.eff_mss
            };
            self.ns2_state.send_one_budget = 1;
        }
    }

    /// The congestion control hears a duplicate ACK before the fast-retransmit decision
    /// (`SenderRules::dupack_first`), with what is known of it then (no pipe, lost bytes or
    /// rate sample); `after_ack` does not repeat it.
    #[inline(never)]
    fn hear_dupack(&mut self, now: SimTime) {
        let d = self.sb.delivery();
        let ev = AckEvent {
            now,
            prior_flight: self.flight(),
            rtt: self.ack_rtt,
            srtt: self.rto.srtt(),
            min_rtt: self.rto.min_rtt,
            ack: self.snd_una,
            snd_max: self.snd_max,
            delivered: d.bytes,
            total_delivered: self.rs.delivered + d.bytes,
            dupack: true,
            in_recovery: self.in_recovery,
            sample_rtt: Self::sample_rtt(d, now),
            ..AckEvent::default()
        };
        self.cc.on_delivery(&mut self.ccs, &ev);
        self.cc_heard = true;
    }

    /// Act on a loss-recovery plug-in's conclusion.
    pub(super) fn handle_verdict(&mut self, verdict: Verdict, ctx: &mut Ctx) {
        if verdict.loss && !self.in_recovery {
            self.try_enter_recovery(ctx);
        }
        if verdict.repaired_by_probe && !self.in_recovery {
            // RFC 8985 section 7.4.2: a probe repaired a loss; the congestion control reacts as
            // to a fast-recovery episode (Linux: enter and end CWR at once).
            let flight = self.loss_base();
            self.cc.on_enter_recovery(&mut self.ccs, flight);
            self.cc.on_exit_recovery(&mut self.ccs, flight);
            self.whole_segments();
            ctx.log(self.conn, self.end, "tlp_recovery", self.snd_una, |w| {
                push_ssthresh(w.text("ssthresh "), self.ccs.ssthresh)
                    .text(" cwnd ")
                    .num(self.ccs.cwnd);
                Ok(())
            });
        }
    }

    /// Start fast recovery, unless the cumulative ACK has not yet passed the recovery point of
    /// a timeout: RFC 6582 section 3.2 step 2 (and RFC 5681 section 4.2's caution, RFC 6675
    /// section 5.1) allow no fast retransmit for duplicate ACKs that may be caused by data sent
    /// before the timeout.
    pub(super) fn try_enter_recovery(&mut self, ctx: &mut Ctx) -> bool {
        if (self.rto_recovery || self.fr_guard.is_some()) && self.cc_rules.guards_fast_retransmit {
            ctx.log(self.conn, self.end, "dupack_ignored", self.snd_una, |w| {
                w.write_str("below recover after timeout")
            });
            return false;
        }
        self.enter_recovery(ctx);
        true
    }

    /// Begin a recovery phase with its fast retransmit (RFC 5681 section 3.2 steps 2-3, RFC 6582,
    /// RFC 6675 section 5): the congestion control's reduction, the recovery point, the
    /// fast-recovery window and PRR, then the first segment marked lost sent again at once.
    fn enter_recovery(&mut self, ctx: &mut Ctx) {
        let flight = self.flight_in_network();
        let prior_cwnd = self.ccs.cwnd;
        let base = self.loss_base();
        self.cc.on_enter_recovery(&mut self.ccs, base);
        self.whole_segments();
        self.stats.fast_retransmits += 1;
        let style = self.cc_rules.recovery;
        if self.ns2.cwnd_double && style != RecoveryStyle::None {
            // ns-2 slowdown(CLOSE_CWND_HALF): cwnd_ = windowd()/2, not rounded.
            self.ccs.cwnd = (base / 2).max(1);
        }
        // The plug-in's phase begins, whatever the congestion control.
        self.in_recovery = true;
        self.recover = Some(self.snd_max - 1);
        if self.cfg.recover_guard_all {
            self.fr_guard = Some(self.snd_max);
        }
        if style != RecoveryStyle::None {
            self.cc_fast_recovery = true;
            self.recovery_credits =
                if self.cc_rules.inflates && self.cc_rules.inflates_at_fast_retransmit {
                    self.dupacks as u64 * self.eff_mss
                } else {
                    0
                };
            if self.cfg.prr && self.cc_rules.prr {
                // RecoverFS: the flight (RFC 6937), or the cwnd before the reduction (Linux's
                // prior_cwnd, tcp_init_cwnd_reduction).
                let rule = self.cfg.prr_rule;
                let fs = if rule == PrrRule::Linux {
                    prior_cwnd
                } else {
                    flight
                };
                self.prr = Some(Prr::start(fs, rule));
                // The duplicate ACKs before this one were delivered segments too.
                self.prr_dup = u64::from(self.dupacks.saturating_sub(1)) * self.eff_mss;
            }
        }
        self.limited_transmit_room = 0;
        if self.ns2.sack1 {
            // ns-2 Sack1 dupack_action: pipe_ = maxseq_ - highest_ack_ - numdupacks_.
            let m = self.eff_mss.max(1);
            // (minus one: the fast retransmission below adds one, ns-2's does not)
            self.ns2_state.sack1_pipe =
                Some(((self.snd_max - self.snd_una) / m) as i64 - i64::from(self.reordering) - 1);
        }
        let v = self.view(ctx.now);
        self.rec.on_enter_recovery(&v, &mut self.sb);
        if style == RecoveryStyle::None {
            // No fast recovery (Tahoe): as ns-2, ignore duplicate ACKs for data sent before this
            // fast retransmit, and, with go-back-N, resend everything from SND.UNA as after a
            // timeout.
            self.recover = Some(self.snd_max - 1);
            self.rto_recovery = true;
            self.fr_guard = Some(self.snd_max);
            if self.cc_rules.go_back_n {
                self.sb.mark_all_lost();
            }
        }
        ctx.log(self.conn, self.end, "fast_retransmit", self.snd_una, |w| {
            push_ssthresh(
                w.text("flight ").num(flight).text(" ssthresh "),
                self.ccs.ssthresh,
            )
            .text(" cwnd ")
            .num(self.ccs.cwnd);
            Ok(())
        });
        // RFC 5681 step 2: retransmit the lost segment at once, whatever the window says.
        self.ns2_state.partial_acks = 0;
        if self.cfg.ns2.rtt_active {
            // ns-2 reset_rtx_timer (fast retransmit, timeout) clears rtt_active_; other
            // retransmissions do not stop the timing of a new packet.
            self.rtt_timing = None;
        }
        self.retransmit_next(ctx);
        if self.cfg.ns2.fast_retransmit_restarts_rto {
            // ns-2 dupack_action: reset_rtx_timer() restarts the timer at a fast retransmit;
            // output() of a retransmission only starts a stopped one.
            self.restart_rto(ctx);
        }
    }

    /// An ACK of new data inside a recovery phase. The loss-recovery plug-in owns the phase: it
    /// ends at the first new ACK or at the recovery point (`PhaseEnd`), and a partial ACK inside
    /// it is the plug-in's to act on (NewReno: retransmit the next hole at once). The congestion
    /// control owns the window: while its fast-recovery window is in force a partial ACK deflates
    /// it (RFC 6582 step 5) or, for Reno, ends it (RFC 5681 step 6: cwnd = ssthresh, after which
    /// only cwnd counts against the whole flight, so no new data leaves while the phase lasts).
    /// The window does not grow inside the phase (RFC 5681 section 3.2, RFC 6675 section 5,
    /// Linux's Recovery state), except Tahoe's, which has no fast recovery and slow-starts from
    /// one segment as after a timeout.
    pub(super) fn recovery_ack(
        &mut self,
        ack: u64,
        grow: (u64, u64, u64, Option<Dur>),
        ctx: &mut Ctx,
    ) {
        let data_acked = grow.0;
        let full = self.recover.is_none_or(|r| ack > r);
        if full || self.rec.phase_end() == PhaseEnd::FirstNewAck {
            self.in_recovery = false;
            self.ns2_state.sack1_pipe = None;
            self.recovery_credits = 0;
            self.prr = None;
            if std::mem::take(&mut self.cc_fast_recovery) {
                if self.ns2.exit_keeps_cwnd {
                    // ns-2: cwnd_ stays; Reno/NewReno open it once on this ACK, Sack1 does not.
                    if !self.ns2.sack1 {
                        self.grow_window(grow, ctx.now);
                    }
                } else {
                    let flight = self.flight();
                    self.cc.on_exit_recovery(&mut self.ccs, flight);
                }
            } else if self.cc_rules.recovery == RecoveryStyle::None {
                self.grow_window(grow, ctx.now);
            }
            if full && self.ns2.sack1 {
                // ns-2 Sack1TcpAgent::recv: recover_ = 0 when fast recovery ends, and
                // ClearScoreBoard(): holes learnt in recovery are forgotten.
                self.fr_guard = None;
                self.sb.forget_sacks();
                self.sb.unmark_pending_lost();
            }
            let v = self.view(ctx.now);
            self.rec.on_exit_recovery(&v, &mut self.sb);
            ctx.log(self.conn, self.end, "recovery_exit", ack, |w| {
                w.write_str(if full { "full ack" } else { "partial ack" })
            });
            return;
        }
        // A partial ACK inside the phase: the plug-in decides what it means.
        let v = self.view(ctx.now);
        let partial = self.rec.on_partial_ack(&v, &mut self.sb);
        if self.cc_fast_recovery
            && self.prr.is_none()
            && self.cc_rules.recovery == RecoveryStyle::Reno
        {
            // Reno's fast recovery ends on the first new ACK: deflate to ssthresh.
            self.cc_fast_recovery = false;
            self.recovery_credits = 0;
            let flight = self.flight();
            self.cc.on_exit_recovery(&mut self.ccs, flight);
            ctx.log(self.conn, self.end, "cc_recovery_exit", ack, |w| {
                w.text("partial ack; cwnd ").num(self.ccs.cwnd);
                Ok(())
            });
        } else if self.cc_fast_recovery {
            // RFC 6582 step 5: deflate the inflation by the data acked and add back the
            // plug-in's credit (not with PRR, whose sndcnt replaces inflation).
            let credit = if self.prr.is_some() || !self.cc_rules.inflates {
                0
            } else {
                partial.credit
            };
            if !self.cc_rules.partial_deflation {
                // ns-2 partial_window_deflation_ 0: the inflation goes, cwnd_ stays.
                self.recovery_credits = 0;
            } else if self.ns2.newreno && data_acked > self.recovery_credits {
                // ns-2 partialnewack: what the inflation cannot absorb comes out of cwnd_.
                let excess = data_acked - self.recovery_credits;
                self.ccs.cwnd = self.ccs.cwnd.saturating_sub(excess).max(self.eff_mss);
                self.recovery_credits = credit;
            } else {
                self.recovery_credits = self.recovery_credits.saturating_sub(data_acked) + credit;
            }
        } else if self.cc_rules.recovery == RecoveryStyle::None {
            // Tahoe has no fast recovery: it slow-starts from one segment as after a timeout.
            self.grow_window(grow, ctx.now);
        }
        let v = self.view(ctx.now);
        self.rec.on_ack_in_recovery(&v, &mut self.sb);
        if partial.retransmit {
            self.retransmit_next(ctx);
        }
    }

    /// After a congestion control's congestion-event hook: whole segments when
    /// `TcpConfig::cwnd_packets` (ssthresh at least 2, cwnd at least 1), else unchanged.
    // Out of line: most runs never or seldom call it, and in line it made the per-segment paths
    // that can larger and slower (BENCHMARKS.md, "Rare paths out of line").
    #[inline(never)]
    pub(super) fn whole_segments(&mut self) {
        if !self.cfg.cwnd_packets {
            return;
        }
        let m = self.eff_mss.max(1);
        if self.ccs.ssthresh < self.cfg.initial_ssthresh || self.cc_rules.ns2_agent {
            self.ccs.ssthresh = (self.ccs.ssthresh / m).max(2) * m;
        }
        self.ccs.cwnd = if self.cc_rules.ns2_agent {
            // ns-2's double cwnd_ is lowered to the int ssthresh_, not rounded.
            self.ccs.cwnd.min(self.ccs.ssthresh).max(m)
        } else {
            (self.ccs.cwnd / m).max(1) * m
        };
    }

    /// The window a congestion event reduces (`TcpConfig::ssthresh_from`): the bytes in the
    /// network by the scoreboard, or cwnd.
    pub(super) fn loss_base(&self) -> u64 {
        match self.cfg.ssthresh_from {
            LossBase::Flight => self.flight_in_network(),
            LossBase::Cwnd => self.ccs.cwnd,
            LossBase::Window => self.ccs.cwnd.min(self.snd_wnd),
        }
    }

    /// The FlightSize given to the congestion control at a congestion event: the bytes in the
    /// network by the scoreboard (not SACKed, not marked lost, plus retransmissions). Without
    /// SACK this is SND.NXT - SND.UNA as in RFC 5681 eq. 4; with SACK, data the receiver holds
    /// above a hole is not in flight, and counting it would let ssthresh grow with every
    /// further fast retransmit while SND.UNA is stuck.
    fn flight_in_network(&self) -> u64 {
        self.sb.rfc6675_pipe()
    }
}
