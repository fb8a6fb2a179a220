//! An ACK's way through the sender: the send window update (RFC 9293 section 3.10.7.4), the
//! RTT sample (RFC 7323 section 4.1 timestamps, or the one timed segment under Karn's rule,
//! RFC 6298), the cumulative ACK of new data and the window growth it brings (RFC 5681;
//! Linux's cwnd validation), and after it the delivery-rate sample
//! (draft-cheng-iccrg-delivery-rate-estimation section 3.3), the loss-recovery plug-in's
//! detection, PRR's allowance (RFC 6937) and the congestion control's per-ACK hook.
//! Duplicate ACKs and the ACKs inside a recovery phase continue in `loss.rs`.
//!
//! A bulk sender's ACK of new data takes a path of its own (`plain_ack`), which does what the
//! general path does in its case without the tests for what its options rule out.

use super::{Ctx, Endpoint, State};
use crate::engine::event::TimerKind;
use crate::engine::time::{Dur, SimTime};
use crate::net::packet::{Packet, FIN, SYN};
use crate::tcp::cc::{self, AckEvent, RateSample};
use crate::tcp::recovery::prr::PrrAck;
use crate::tcp::recovery::AckInfo;
use crate::tcp::scoreboard::Delivery;

impl Endpoint {
    /// The ACK field of a segment in a synchronized state (RFC 9293 section 3.10.7.4), one
    /// that acknowledges nothing beyond what was sent (`general_segment` drops the others): an
    /// old one is ignored; then the window update, the SACK blocks, the new data acknowledged
    /// or the duplicate ACK, and `after_ack`.
    pub(super) fn process_ack(&mut self, p: &Packet, ctx: &mut Ctx) {
        let ack = p.ack;
        debug_assert!(ack <= self.snd_max);
        if ack < self.snd_una {
            // Old; its SACK blocks may still tell news (`old_ack_sack`, reorder.rs).
            if self.cfg.old_ack_sack {
                self.old_ack_sacks(p, ctx);
            }
            return;
        }
        if let Some(pp) = self.ns2_state.sack1_pipe.as_mut() {
            // ns-2 Sack1TcpAgent::recv in fast recovery: --pipe_ per ACK, and once more for a
            // partial ACK (partial_ack_ false).
            *pp -= 1;
            if ack > self.snd_una && self.recover.is_some_and(|r| ack <= r) {
                *pp -= 1;
            }
        }
        let old_wnd = self.snd_wnd;
        self.update_window(p);
        if self.snd_wnd != old_wnd
            && self.cfg.slow_start_after_idle
            && self.snd_max < self.data_end()
        {
            // tcp_ack_update_window: a new window with data waiting checks for idleness.
            self.restart_after_idle(ctx.now);
        }
        if ack == self.snd_una
            && ack == self.snd_max
            && p.n_sack == 0
            && !self.in_recovery
            && self.quiet_acks
        {
            // Nothing in flight and nothing reported (the ACK field of a receiver's data
            // segments): what the general path below does then, without its bookkeeping. No
            // SACK block, no new data acknowledged and no duplicate ACK (nothing in flight),
            // so the delivery record stays empty; no plug-in timer, no recovery, and a
            // congestion control that does not hear every ACK: `after_ack` updates max_cwnd.
            // (`ack_rtt` is not read before the next ACK that needs it sets it.)
            self.stats.max_cwnd = self.stats.max_cwnd.max(self.ccs.cwnd);
            return;
        }
        // What this ACK delivers is recorded from here on (SACK blocks, then the cumulative ACK).
        // The record is empty here: only `sack` and `ack_to` fill it, both below, and every
        // ACK that reaches this point ends in `after_ack`, which takes it.
        debug_assert_eq!(*self.sb.delivery(), Delivery::default());
        self.ack_rtt = None;
        let lost_before = self.sb.lost_marked_total();
        let prior_flight = self.flight();
        let mut newly_sacked = 0;
        // ns-2 Sack1TcpAgent::recv: a new ACK outside fast recovery clears the scoreboard (its
        // own blocks included), and while timeout_ is set (until the first new ACK after a
        // timeout) duplicate ACKs do not update it.
        let new_outside = ack > self.snd_una && !self.in_recovery;
        if self.ns2.sack1 && new_outside {
            self.sb.forget_sacks();
        }
        let ignore_sack = self.ns2.sack1
            && (new_outside || (self.ns2_state.sack1_timeout && ack == self.snd_una));
        if self.rec_timers {
            // Linux's RACK takes no RTT from a retransmission acknowledged within the minimum
            // RTT of it (`Delivery::last`).
            let now = ctx.now;
            self.sb
                .set_rack_cutoff(self.rto.min_rtt.map(|m| SimTime(now.0.saturating_sub(m.0))));
        }
        let prior_fack = self.fack();
        if self.sack_ok && !ignore_sack {
            for b in p.sack_blocks() {
                if b.end > self.snd_una && b.end <= self.snd_max {
                    newly_sacked += self.sb.sack(b.start, b.end);
                }
            }
            self.reordering_after_sacks(prior_fack);
        }
        let acked = ack - self.snd_una;
        let mut dupack = false;
        if ack > self.snd_una {
            let low = self.reordering_low_of_ack(ack, prior_fack);
            self.on_new_ack(p, ack, ctx);
            self.reordering_after_ack(low);
        } else if p.len == 0
            && !p.is(SYN)
            && !p.is(FIN)
            && (self.snd_wnd == old_wnd
                || (self.cfg.sack_dupack_any_window && self.sack_ok && newly_sacked > 0))
            && self.snd_max > self.snd_una
        {
            dupack = true;
            // ns-2 Sack1 (ScoreBoard CheckUpdate) and RFC 6675 section 2: with SACK, a duplicate
            // ACK counts only if its SACK blocks report new data.
            let stale = self.ns2.sack1 && self.sack_ok && newly_sacked == 0;
            if !self.ns2_state.sack1_timeout && !stale {
                self.on_dupack(ctx);
            }
        }
        self.after_ack(p, acked, dupack, prior_flight, lost_before, ctx);
    }

    /// `general_segment` for a pure ACK of new data (no SACK block) to a `plain_acks` sender
    /// outside recovery, after RTO recovery and the fast-retransmit guard, the FIN unsent: what
    /// `process_ack`, `on_new_ack` and `after_ack` do then, without their tests.
    #[inline(always)]
    pub(super) fn plain_ack(&mut self, p: &Packet, ctx: &mut Ctx) {
        self.update_ts_recent(p);
        let ack = p.ack;
        self.update_window(p);
        debug_assert_eq!(*self.sb.delivery(), Delivery::default());
        let acked = ack - self.snd_una;
        // `on_new_ack`, outside recovery (no partial ACK).
        let mut rtt = None;
        if let Some(r) = self.ts_rtt(p, ctx.now) {
            rtt = Some(r);
        } else if let Some((seq_end, t0)) = self.rtt_timing {
            if ack >= seq_end {
                rtt = Some(ctx.now.since(t0));
                self.rtt_timing = None;
            }
        }
        if let Some(r) = rtt {
            self.take_rtt_sample(r, ctx.now);
        }
        // (`ack_rtt` is for the general path's events, which set it first; `sack1_timeout` is
        // ns-2 Sack1's, never set here.)
        self.snd_una = ack;
        self.sb.ack_to(ack);
        self.retries = 0;
        self.limited_transmit_room = 0;
        // (`grow_window` with Reno's growth and no cwnd validation; all the data acknowledged
        // is data, the FIN being unsent.)
        cc::reno_increase(&mut self.ccs, acked);
        self.dupacks = 0;
        self.stats.max_cwnd = self.stats.max_cwnd.max(self.ccs.cwnd);
        if self.snd_max > self.snd_una {
            self.restart_rto(ctx);
        } else {
            self.timers[TimerKind::Rto as usize].cancel();
        }
        // `after_ack` without a rate sample, plug-in or per-ACK hook (max_cwnd as above): the
        // record of what this ACK delivered is cleared. (The delivery-rate state is not kept:
        // neither a rate sample, a per-ACK event nor the event of a window growth other than
        // Reno's reads C.delivered.)
        self.sb.take_delivery();
        // `try_send`: with data in flight, `send_pass` with the plain loop (`plain_sends`,
        // outside recovery, no ns-2 Sack1 pipe; no PRR, which a timeout or the end of
        // recovery clears) and no plug-in timers to follow.
        if self.snd_max != self.snd_una && self.prr.is_none() {
            self.plain_send_pass(ctx);
        } else {
            self.try_send(ctx);
        }
    }

    /// Window update (RFC 9293 3.10.7.4, SND.WL1/WL2 rule).
    #[inline(always)]
    pub(super) fn update_window(&mut self, p: &Packet) {
        if self.snd_wl1 < p.seq || (self.snd_wl1 == p.seq && self.snd_wl2 <= p.ack) {
            self.snd_wnd = (p.wnd as u64) << self.peer_wscale;
            self.max_snd_wnd = self.max_snd_wnd.max(self.snd_wnd);
            self.snd_wl1 = p.seq;
            self.snd_wl2 = p.ack;
        }
    }

    /// An RTT sample for the estimator and the congestion control.
    #[inline(never)]
    fn take_rtt_sample(&mut self, r: Dur, now: SimTime) {
        self.rto.sample_at(now, r);
        self.stats.rtt_samples += 1;
        self.cc.on_rtt_sample(&mut self.ccs, now, r);
        if let Some(c) = self.rto.latest_counted {
            self.cc.on_counted_rtt(c);
        }
    }

    /// The RTT of the most recently sent segment an ACK delivered, if it was sent only once.
    pub(super) fn sample_rtt(d: &Delivery, now: SimTime) -> Option<Dur> {
        d.newest
            .filter(|s| !s.ever_retransmitted())
            .map(|s| now.since(s.last_sent))
    }

    /// An ACK of new data: the RTT sample, SND.UNA and the scoreboard moved on, the end of RTO
    /// recovery, the window growth (inside a recovery phase `recovery_ack`), the FIN's
    /// acknowledgement, and the retransmission timer (RFC 6298 5.2/5.3).
    fn on_new_ack(&mut self, p: &Packet, ack: u64, ctx: &mut Ctx) {
        let prior_flight = self.flight();
        let acked = ack - self.snd_una;
        // RTT measurement: timestamps (RFC 7323 4.1) or the one timed segment (Karn).
        let mut rtt = None;
        if let Some(r) = self.ts_rtt(p, ctx.now) {
            rtt = Some(r);
        } else if let Some((seq_end, t0)) = self.rtt_timing {
            let partial = self.in_recovery && self.recover.is_some_and(|r| ack <= r);
            if ack >= seq_end && partial && self.ns2.newreno {
                // ns-2 NewRenoTcpAgent::partialnewack: the timed packet is acked, timing stops and
                // the backoff ends, but no RTT sample is taken.
                self.rtt_timing = None;
                self.rto.reset_backoff();
            } else if partial && self.ns2.sack1 {
                // ns-2 Sack1: partial ACKs do not go through newack(); the timed packet is
                // measured at the ACK that ends fast recovery.
            } else if ack >= seq_end {
                rtt = Some(ctx.now.since(t0));
                self.rtt_timing = None;
            }
        }
        if let Some(r) = rtt {
            self.take_rtt_sample(r, ctx.now);
        }
        self.ack_rtt = rtt;
        self.ns2_state.sack1_timeout = false;
        self.snd_una = ack;
        self.sb.ack_to(ack);
        self.retries = 0;
        self.limited_transmit_room = 0;
        let fin_acked = self.fin_sent && ack == self.snd_max;
        let data_acked = acked - u64::from(fin_acked);
        if self.rto_recovery && self.recover.is_none_or(|r| ack > r) {
            // The data outstanding at the timeout is all acknowledged: RTO recovery is over.
            self.rto_recovery = false;
            self.cc.on_rto_recovered(&mut self.ccs);
        }
        if self.fr_guard.is_some_and(|g| ack > g) {
            self.fr_guard = None;
        }
        let grown_by = if self.cfg.grow_by_delivered {
            self.newly_delivered(data_acked, prior_flight, fin_acked)
        } else {
            data_acked
        };
        let grow = (data_acked, grown_by, prior_flight, rtt);
        if self.in_recovery {
            self.recovery_ack(ack, grow, ctx);
        } else {
            self.grow_window(grow, ctx.now);
        }
        self.dupacks = 0;
        self.stats.max_cwnd = self.stats.max_cwnd.max(self.ccs.cwnd);
        if fin_acked {
            match self.state {
                State::FinWait1 => self.set_state(State::FinWait2, ctx),
                State::Closing => self.set_state(State::TimeWait, ctx),
                State::LastAck => self.set_state(State::Closed, ctx),
                _ => {}
            }
        }
        // RFC 6298 5.2/5.3: stop the timer when all is acked, else restart it.
        let impatient_skip =
            self.ns2.newreno && self.cc_rules.impatient_timer && self.in_recovery && {
                self.ns2_state.partial_acks += 1;
                self.ns2_state.partial_acks > 1
            };
        if impatient_skip {
            // ns-2 NewReno (newreno_changes1_ 1): only the first partial ACK restarts the timer.
            if !self.timers[TimerKind::Rto as usize].is_armed() {
                self.restart_rto(ctx);
            }
        } else if self.snd_max > self.snd_una {
            self.restart_rto(ctx);
        } else {
            self.timers[TimerKind::Rto as usize].cancel();
        }
    }

    /// What an ACK of new data grows the window by under `TcpConfig::grow_by_delivered`
    /// (Linux's `tcp_newly_delivered`), given the data it acknowledged, the flight before it
    /// and whether it acknowledged the FIN. With SACK: the delivery record, which holds the
    /// segments this ACK SACKed and those it acknowledged that no SACK had reported, less the
    /// FIN's sequence number. Without SACK, Linux counts each duplicate ACK as one segment
    /// SACKed (`tcp_add_reno_sack`), at most all but one of those in flight
    /// (`tcp_limit_reno_sacked`), and the cumulative ACK delivers the rest, at least one
    /// segment (`tcp_remove_reno_sacks`).
    fn newly_delivered(&self, data_acked: u64, prior_flight: u64, fin_acked: bool) -> u64 {
        if self.sack_ok {
            return self
                .sb
                .delivery()
                .bytes
                .saturating_sub(u64::from(fin_acked));
        }
        let mss = self.eff_mss;
        let dup = (u64::from(self.dupacks) * mss).min(prior_flight.saturating_sub(mss));
        data_acked.saturating_sub(dup).max(data_acked.min(mss))
    }

    /// The congestion control's window growth on an ACK of new data (`on_ack`), given the data
    /// it acknowledged, what the window grows by (the same, or with
    /// `TcpConfig::grow_by_delivered` what it newly delivered), the flight before it and its
    /// RTT sample. Inlined into its one caller (2,188 -> 2,184 instructions per data segment).
    #[inline(always)]
    pub(super) fn grow_window(
        &mut self,
        (_, grown_by, prior_flight, rtt): (u64, u64, u64, Option<Dur>),
        now: SimTime,
    ) {
        // (Under `grow_by_delivered` an ACK of data only SACKed before delivers nothing new:
        // Linux's cong_avoid then adds nothing either.)
        if grown_by == 0 || (self.cfg.cwnd_validation && !self.cwnd_limited()) {
            return;
        }
        if self.cc_rules.grows_as_reno {
            // What the controller's `on_ack` would do, without the event and the call through
            // the vtable (100 MB bulk: 1,839 -> 1,814 instructions per data segment).
            cc::reno_increase(&mut self.ccs, grown_by);
            return;
        }
        let d = self.sb.delivery();
        let ev = AckEvent {
            now,
            bytes_acked: grown_by,
            prior_flight,
            rtt,
            srtt: self.rto.srtt(),
            min_rtt: self.rto.min_rtt,
            ack: self.snd_una,
            snd_max: self.snd_max,
            delivered: d.bytes,
            total_delivered: self.rs.delivered + d.bytes,
            sample_rtt: Self::sample_rtt(d, now),
            ..AckEvent::default()
        };
        self.cc.on_ack(&mut self.ccs, &ev);
    }

    /// Linux's `tcp_is_cwnd_limited`: the flight reached cwnd in the current window, or, in slow
    /// start, cwnd is below twice the largest flight of the current window.
    fn cwnd_limited(&self) -> bool {
        self.cwnd_use.is_cwnd_limited
            || (self.ccs.cwnd < self.ccs.ssthresh && self.ccs.cwnd < 2 * self.cwnd_use.max_flight)
    }

    /// Linux's `tcp_cwnd_validate` after a sending pass: remember whether the flight reached
    /// cwnd in this window (a window ends when SND.UNA passes the SND.NXT it began with), and
    /// the largest flight while it did not.
    pub(super) fn validate_cwnd(&mut self, pipe: u64) {
        // Linux counts packets (in_flight >= cwnd); in bytes, the window stops the next full
        // segment.
        let limited = pipe + self.eff_mss > self.ccs.cwnd;
        if self.snd_una >= self.cwnd_use.cwnd_usage_seq
            || limited
            || (!self.cwnd_use.is_cwnd_limited && self.flight() > self.cwnd_use.max_flight)
        {
            self.cwnd_use.is_cwnd_limited = limited;
            self.cwnd_use.max_flight = self.flight();
            self.cwnd_use.cwnd_usage_seq = self.snd_max;
        }
    }

    /// After the cumulative-ACK and duplicate-ACK processing of one ACK: the delivery-rate
    /// sample, the loss-recovery plug-in's detection, PRR, and the congestion control's
    /// per-ACK hook.
    fn after_ack(
        &mut self,
        p: &Packet,
        acked: u64,
        dupack: bool,
        prior_flight: u64,
        lost_before: u64,
        ctx: &mut Ctx,
    ) {
        let now = ctx.now;
        let d = self.sb.take_delivery();
        // Delivery rate (draft-cheng-iccrg-delivery-rate-estimation section 3.3).
        let mut rate = None;
        if d.bytes > 0 {
            self.rs.delivered += d.bytes;
            self.rs.delivered_time = now;
            if let Some(seg) = d.newest.filter(|_| self.cc_rules.rate_samples) {
                let send_elapsed = seg.last_sent.since(seg.tx().first_sent_time);
                let ack_elapsed = now.since(seg.tx().delivered_time);
                self.rs.first_sent_time = seg.last_sent;
                let interval = send_elapsed.max(ack_elapsed);
                let delivered = self.rs.delivered - seg.tx().delivered;
                // An interval shorter than the minimum RTT gives no reliable sample.
                let valid = interval.0 > 0 && self.rto.min_rtt.is_none_or(|m| interval >= m);
                rate = Some(RateSample {
                    delivered,
                    interval,
                    delivery_rate: if valid {
                        delivered as f64 / interval.as_secs_f64()
                    } else {
                        0.0
                    },
                    prior_delivered: seg.tx().delivered,
                    is_app_limited: seg.tx().app_limited,
                });
            }
            if self.rs.app_limited != 0 && self.rs.delivered > self.rs.app_limited {
                self.rs.app_limited = 0;
            }
        }
        // Loss detection by the plug-in (RACK, TLP).
        if self.rec_timers {
            let info = AckInfo {
                acked,
                dupack,
                delivery: d,
                ts_echo_us: (self.ts_ok && p.has_ts && p.ts_ecr > 0).then(|| p.ts_ecr - 1),
            };
            let v = self.view(now);
            let verdict = self.rec.on_ack(&v, &mut self.sb, &info);
            self.handle_verdict(verdict, ctx);
        }
        // RFC 6937 PRR: this ACK's sending allowance.
        if self.in_recovery {
            let mss = self.eff_mss;
            let delivered_data = if self.sack_ok {
                d.bytes
            } else if dupack {
                self.prr_dup += mss;
                mss
            } else {
                let counted = acked.min(self.prr_dup);
                self.prr_dup -= counted;
                acked - counted
            };
            let ack = PrrAck {
                una_advanced: acked > 0,
                newly_lost: self.sb.lost_marked_total() > lost_before,
            };
            self.prr_window(delivered_data, ack, now);
        }
        // The congestion control hears about every ACK (if it listens, and did not already).
        if !self.cc_rules.hears_every_ack || std::mem::take(&mut self.cc_heard) {
            self.stats.max_cwnd = self.stats.max_cwnd.max(self.ccs.cwnd);
            return;
        }
        let ev = AckEvent {
            now,
            bytes_acked: acked,
            prior_flight,
            rtt: self.ack_rtt,
            srtt: self.rto.srtt(),
            min_rtt: self.rto.min_rtt,
            ack: self.snd_una,
            snd_max: self.snd_max,
            delivered: d.bytes,
            total_delivered: self.rs.delivered,
            lost: self.sb.lost_marked_total() - lost_before,
            pipe: self.pipe(now),
            dupack,
            in_recovery: self.in_recovery,
            sample_rtt: Self::sample_rtt(&d, now),
            rate,
        };
        self.cc.on_delivery(&mut self.ccs, &ev);
        self.stats.max_cwnd = self.stats.max_cwnd.max(self.ccs.cwnd);
    }

    /// PRR's window for an ACK (or a RACK reordering timeout) in recovery that delivered
    /// `delivered` bytes (`recovery/prr.rs`).
    pub(super) fn prr_window(&mut self, delivered: u64, ack: PrrAck, now: SimTime) {
        if self.prr.is_none() {
            return;
        }
        let pipe = self.pipe(now);
        let (ssthresh, mss) = (self.ccs.ssthresh, self.eff_mss);
        if let Some(cwnd) = self
            .prr
            .as_mut()
            .and_then(|prr| prr.window(delivered, pipe, ssthresh, mss, ack))
        {
            self.ccs.cwnd = cwnd;
        }
    }
}
