//! The endpoint's timers: arming one (a re-arm that only moves the deadline later keeps the
//! queue entry, `engine::Timer`) and what each does when it fires: the retransmission timeout
//! (RFC 6298 section 5, with RFC 5681 section 3.1's reaction and RFC 6582's `recover`; a
//! zero-window probe is retransmitted with back-off, which is the persist timer's behaviour),
//! RACK's reordering timer and TLP's probe timeout (RFC 8985 sections 6.2 and 7.3), the
//! delayed ACK (RFC 1122 4.2.3.2), the window update for a slowly reading application
//! (RFC 1122 4.2.3.3) and pacing. After `max_retries` retransmissions without progress the
//! endpoint gives up and says why (`end_reason`).

use super::{Ctx, Endpoint, State};
use crate::engine::event::{Event, TimerKind};
use crate::engine::time::{Dur, SimTime};
use crate::net::packet::ACK;
use crate::tcp::recovery::prr::{PrrAck, PrrRule};

impl Endpoint {
    /// Inlined: most re-arms only move the deadline (a timer's queue entry is kept while it
    /// is due no later), and the queue is reached, out of line, only when one is needed.
    #[inline(always)]
    pub(super) fn arm(&mut self, kind: TimerKind, at: SimTime, ctx: &mut Ctx) {
        if let Some(t) = self.timers[kind as usize].arm(at) {
            self.schedule_timer(kind, t, ctx);
        }
    }

    #[inline(never)]
    fn schedule_timer(&self, kind: TimerKind, t: SimTime, ctx: &mut Ctx) {
        ctx.q.schedule(
            t,
            Event::Timer {
                conn: self.conn,
                end: self.end,
                kind,
            },
        );
    }

    /// (Re)start the retransmission timer: due one RTO from now.
    #[inline(always)]
    pub(super) fn restart_rto(&mut self, ctx: &mut Ctx) {
        let at = ctx.now + self.rto.rto();
        self.arm(TimerKind::Rto, at, ctx);
    }

    /// Arm Linux's persist timer (`tcp_check_probe_timer`) unless it runs: due
    /// max(RTO, 200 ms) from now, doubled for each probe that found the window still shut
    /// (`tcp_probe0_when`, at most 120 s).
    pub(super) fn arm_probe0(&mut self, ctx: &mut Ctx) {
        if self.timers[TimerKind::Persist as usize].is_armed() {
            return;
        }
        let base = self.rto.rto().max(Dur::from_millis(200));
        let at = ctx.now
            + Dur(base.0.saturating_mul(1 << self.probe0_backoff.min(20))).min(Dur::from_secs(120));
        self.arm(TimerKind::Persist, at, ctx);
    }

    /// The persist timer fired (Linux's `tcp_send_probe0` and `tcp_write_wakeup`): with data
    /// waiting and nothing in flight, send what fits in the window (at most an MSS, Nagle and
    /// the cork notwithstanding), or in a zero window a bare ACK with sequence snd_una - 1,
    /// which the peer answers with its window; then wait again, twice as long. Data in
    /// flight or nothing waiting ends the probing.
    fn on_probe0(&mut self, ctx: &mut Ctx) {
        let end = self.data_end();
        if self.flight() > 0 || self.snd_max >= end || self.fin_sent || !self.can_send_data() {
            self.probe0_backoff = 0;
            return;
        }
        let room = (self.snd_una + self.snd_wnd).saturating_sub(self.snd_max);
        if room > 0 {
            let len = room.min(self.eff_mss).min(end - self.snd_max);
            if len == end - self.snd_max && self.fin_rides(end) {
                self.send_fin(len, ctx);
            } else {
                self.send_new(len, false, ctx);
            }
            self.probe0_backoff = 0;
            if self.flight() > 0 && !self.timers[TimerKind::Rto as usize].is_armed() {
                self.restart_rto(ctx);
            }
            return;
        }
        self.base_packet(ACK, self.snd_una - 1, 0, ctx);
        self.emit(ACK, 0, ctx);
        self.probe0_backoff = (self.probe0_backoff + 1).min(15);
        self.arm_probe0(ctx);
    }

    /// A timer event fired. Returns false if it was stale (cancelled or re-armed later).
    pub fn on_timer(&mut self, kind: TimerKind, ctx: &mut Ctx) -> bool {
        let (fire, again) = self.timers[kind as usize].on_fire(ctx.now);
        if let Some(t) = again {
            ctx.q.schedule(
                t,
                Event::Timer {
                    conn: self.conn,
                    end: self.end,
                    kind,
                },
            );
        }
        if !fire || self.aborted {
            return false;
        }
        match kind {
            TimerKind::Rto => {
                // A loss probe due now takes the timeout's place (RFC 8985 section 7.2 caps the
                // PTO at the RTO's expiry): send the probe, which re-arms the RTO.
                if self.timers[TimerKind::Probe as usize]
                    .deadline
                    .is_some_and(|t| t <= ctx.now)
                {
                    self.timers[TimerKind::Probe as usize].cancel();
                    if !self.on_probe(ctx) {
                        self.on_rto(ctx);
                    }
                } else {
                    self.on_rto(ctx);
                }
            }
            TimerKind::Reorder => self.on_reorder_timer(ctx),
            TimerKind::Probe => {
                self.on_probe(ctx);
            }
            TimerKind::Pace => self.try_send(ctx),
            TimerKind::DelAck => {
                if self.rcv_nxt > self.last_ack_sent || self.delack_count > 0 {
                    self.send_ack(ctx);
                }
            }
            TimerKind::Persist if self.cfg.probe0 => self.on_probe0(ctx),
            TimerKind::Persist => self.try_send(ctx),
            TimerKind::Read => self.on_read_timer(ctx),
        }
        self.sync_rec_timers(ctx);
        true
    }

    /// Make the engine's reordering and probe timers follow the loss-recovery plug-in's.
    /// Inlined, the work out of line: it is called after every send pass, and most plug-ins
    /// have no timers.
    #[inline(always)]
    pub(super) fn sync_rec_timers(&mut self, ctx: &mut Ctx) {
        if self.aborted || !self.rec_timers {
            return;
        }
        self.follow_rec_timers(ctx);
    }

    #[inline(never)]
    fn follow_rec_timers(&mut self, ctx: &mut Ctx) {
        for (kind, want) in [
            (TimerKind::Reorder, self.rec.reorder_deadline()),
            (TimerKind::Probe, self.rec.probe_deadline()),
        ] {
            if self.timers[kind as usize].deadline != want {
                match want {
                    Some(t) => self.arm(kind, t.max(ctx.now), ctx),
                    None => self.timers[kind as usize].cancel(),
                }
            }
        }
    }

    /// The retransmission timer expired (RFC 6298 5.4-5.6): a SYN is sent again; with data in
    /// flight the congestion control reacts (RFC 5681 section 3.1), any recovery phase ends,
    /// `recover` is set, the plug-in marks what is lost and the first segment is sent again
    /// whatever cwnd says.
    fn on_rto(&mut self, ctx: &mut Ctx) {
        match self.state {
            State::SynSent | State::SynRcvd => {
                self.stats.rto_expirations += 1;
                self.stats.syn_retransmissions += 1;
                self.retries += 1;
                if self.retries > self.cfg.max_retries {
                    return self.abort(ctx);
                }
                self.syn_retransmitted = true;
                self.rto.on_timeout();
                ctx.log(self.conn, self.end, "rto", 0, |w| w.write_str("SYN"));
                self.send_syn(true, ctx);
                return;
            }
            State::Closed | State::Listen | State::TimeWait => return,
            _ => {}
        }
        if self.snd_max == self.snd_una {
            return;
        }
        self.stats.rto_expirations += 1;
        self.retries += 1;
        if self.retries > self.cfg.max_retries {
            return self.abort(ctx);
        }
        self.reordering_at_timeout();
        let flight = self.loss_base();
        let first = (self.retries == 1 || self.cfg.ssthresh_every_timeout)
            && !(self.cfg.rto_keeps_recovery_ssthresh && self.in_recovery);
        self.cc.on_rto(&mut self.ccs, flight, first);
        self.whole_segments();
        self.rto.on_timeout();
        self.in_recovery = false;
        self.ns2_state.sack1_pipe = None;
        self.cc_fast_recovery = false;
        if self.ns2.sack1 {
            self.ns2_state.sack1_timeout = true;
        }
        if !self.ns2.tahoe_keeps_dupacks {
            // (ns-2's TcpAgent::timeout keeps dupacks_; Reno's and Sack1's clear it)
            self.dupacks = 0;
        }
        self.recovery_credits = 0;
        self.limited_transmit_room = 0;
        // RFC 6582 section 3.2 step 4 (and RFC 5681's advice): remember the highest sequence
        // sent, so that duplicate ACKs for data sent before the timeout do not start a fast
        // retransmit.
        self.recover = Some(self.snd_max - 1);
        self.rto_recovery = true;
        if self.cfg.recover_guard_all {
            self.fr_guard = Some(self.snd_max);
        }
        self.prr = None;
        self.rtt_timing = None;
        // The plug-in marks what is lost (all but SACKed data, unless it knows better: RACK).
        let v = self.view(ctx.now);
        if self.ns2.sack1 {
            self.sb.forget_sacks();
        }
        self.rec.on_rto(&v, &mut self.sb);
        let rto = self.rto.rto();
        ctx.log(self.conn, self.end, "rto", self.snd_una, |w| {
            write!(
                w,
                "backoff {} next rto {:.3}s",
                self.rto.backoff(),
                rto.as_secs_f64()
            )
        });
        // Retransmit the first segment whatever cwnd says (RFC 5681 section 3.1).
        self.retransmit_next(ctx);
        self.try_send(ctx);
    }

    /// RACK's reordering timer fired (RFC 8985 section 6.2 step 5): detect losses again.
    fn on_reorder_timer(&mut self, ctx: &mut Ctx) {
        if !self.can_send_data() || self.flight() == 0 {
            return;
        }
        let lost_before = self.sb.lost_marked_total();
        let v = self.view(ctx.now);
        let verdict = self.rec.on_reorder_timer(&v, &mut self.sb);
        if verdict.loss && !self.in_recovery && self.try_enter_recovery(ctx) {
            // Linux's tcp_rack_reo_timeout reduces the window as for an ACK that delivered
            // one segment (tcp_cwnd_reduction(sk, 1, newly lost, 0)).
            if self.prr.is_some_and(|p| p.rule == PrrRule::Linux) {
                let ack = PrrAck {
                    una_advanced: false,
                    newly_lost: self.sb.lost_marked_total() > lost_before,
                };
                self.prr_window(self.eff_mss, ack, ctx.now);
            }
        }
        self.try_send(ctx);
    }

    /// TLP's probe timeout fired (RFC 8985 section 7.3): send one segment of new data if the
    /// receiver's window allows (cwnd is not consulted), else the highest-sequence segment
    /// again; then re-arm the RTO. Returns whether a probe was sent.
    fn on_probe(&mut self, ctx: &mut Ctx) -> bool {
        if !self.can_send_data() || self.flight() == 0 {
            return false;
        }
        let v = self.view(ctx.now);
        if !self.rec.on_probe_timer(&v, &self.sb) {
            self.sync_rec_timers(ctx);
            return false;
        }
        let end = self.data_end();
        let room = (self.snd_una + self.snd_wnd).saturating_sub(self.snd_max);
        let retransmission = if self.snd_max < end && !self.fin_sent && room > 0 {
            let len = (end - self.snd_max).min(self.eff_mss).min(room);
            self.send_new(len, true, ctx);
            false
        } else {
            // The highest-sequence segment (`tlp_probes_fin`: even a FIN of its own, as
            // Linux's tcp_send_loss_probe resends the retransmission queue's tail). Without the
            // rule, the last one carrying data (the receiver keeps an out-of-order FIN's
            // sequence number), as a stack that piggybacks the FIN on its last segment would.
            let n = self.sb.len();
            let Some(last) = n.checked_sub(1) else {
                return false;
            };
            let i = if self.cfg.tlp_probes_fin {
                last
            } else {
                (0..n)
                    .rev()
                    .take(2)
                    .find(|&i| self.sb.get(i).is_some_and(|s| s.data_len() > 0))
                    .unwrap_or(last)
            };
            self.retransmit_index(i, true, ctx);
            true
        };
        ctx.log(self.conn, self.end, "tlp", self.snd_una, |w| {
            write!(
                w,
                "probe {}",
                if retransmission {
                    "retransmission"
                } else {
                    "new data"
                }
            )
        });
        let v = self.view(ctx.now);
        self.rec.on_probe_sent(&v, retransmission);
        self.restart_rto(ctx);
        self.sync_rec_timers(ctx);
        true
    }

    fn on_read_timer(&mut self, ctx: &mut Ctx) {
        let before = self.last_adv_wnd;
        let buf = self.rcv_window_max();
        let free = (buf as f64 - self.unread_now(ctx.now)).max(0.0) as u64;
        let threshold = (2 * self.eff_mss).min(buf / 2);
        if free >= before + threshold {
            // RFC 1122 4.2.3.3 / BSD: a window update once it opens by two segments.
            self.send_ack(ctx);
        }
        self.arm_read_timer(ctx);
    }

    // Out of line: most runs never or seldom call it, and in line it made the per-segment paths
    // that can larger and slower (BENCHMARKS.md, "Rare paths out of line").
    #[inline(never)]
    pub(super) fn arm_read_timer(&mut self, ctx: &mut Ctx) {
        if let Some(r) = self.cfg.rcv_read_rate {
            if self.unread_now(ctx.now) > 0.0 && !self.timers[TimerKind::Read as usize].is_armed() {
                let step = (2 * self.eff_mss).min(self.rcv_window_max() / 2).max(1) as f64;
                let at = ctx.now + Dur::from_secs_f64(step / r).max(Dur(1));
                self.arm(TimerKind::Read, at, ctx);
            }
        }
    }

    /// Give up (a timeout after `max_retries` retransmissions without progress): the timers stop,
    /// the reason is kept for `end_reason`, and the state is CLOSED.
    fn abort(&mut self, ctx: &mut Ctx) {
        self.aborted = true;
        self.stop_timers();
        let handshake = matches!(self.state, State::SynSent | State::SynRcvd);
        let (n, max) = (self.retries - 1, self.cfg.max_retries);
        self.end_reason = Some(if handshake {
            format!(
                "handshake failed: the {} timed out {} times (max_retries = {max})",
                if self.state == State::SynSent {
                    "SYN"
                } else {
                    "SYN-ACK"
                },
                n + 1
            )
        } else {
            format!(
                "gave up: the segment at {} timed out {} times without an ACK (max_retries = \
                 {max}, as Linux's tcp_retries2)",
                self.snd_una,
                n + 1
            )
        });
        ctx.log(self.conn, self.end, "abort", self.snd_una, |w| {
            write!(w, "{} retransmissions without progress", self.retries)
        });
        self.set_state(State::Closed, ctx);
    }

    /// Why this end stopped: the reason it gave up, else "closed" or "open" (the run stopped
    /// first).
    pub fn end_reason(&self) -> String {
        match (&self.end_reason, self.state) {
            (Some(r), _) => r.clone(),
            (None, State::Closed | State::TimeWait) => "closed".into(),
            (None, State::Listen | State::SynSent) if self.snd_max == 0 => "never connected".into(),
            (None, s) => format!("open ({}) when the run stopped", s.name()),
        }
    }
}
