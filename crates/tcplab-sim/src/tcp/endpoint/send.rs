//! Sending: the application's writes and close, the send pass (retransmissions first, then new
//! data, then the FIN; in recovery the plug-in's RFC 6675 NextSeg rules 3-4), sender-side
//! silly-window avoidance and Nagle (RFC 1122 4.2.3.4, with Minshall's variant), the one-byte
//! zero-window probe, ns-2's window rules, retransmission (RFC 6298 5.1 for the timer), pacing
//! at the congestion control's rate, and each segment built in place with the receive side's
//! ACK and window.
//!
//! The send loop is compiled twice (`send_loop_as`): a plain copy, without the tests that a bulk
//! sender's options make needless (`plain_sends`), and the general one.

use super::{Ctx, Endpoint, State};
use crate::engine::event::TimerKind;
use crate::engine::time::{Dur, SimTime};
use crate::net::packet::{Packet, ACK, FIN, SYN};
use crate::tcp::scoreboard::{Seg, TxStamp};
use crate::tcp::RtoRestart;

impl Endpoint {
    /// The application will write `bytes` more (None: an unlimited stream).
    pub fn app_write(&mut self, bytes: Option<u64>, ctx: &mut Ctx) {
        match (bytes, self.app_total) {
            (None, _) | (_, None) => self.app_total = None,
            (Some(b), Some(t)) => self.app_total = Some(t + b),
        }
        self.app_written = self.app_total.unwrap_or(u64::MAX);
        self.restart_after_idle(ctx.now);
        self.try_send(ctx);
    }

    /// `slow_start_after_idle`: with nothing in flight and no data sent for longer than the
    /// RTO, restart the window (Linux's `tcp_slow_start_after_idle_check`, on a write and on a
    /// window update with data waiting, and `tcp_cwnd_restart`): ssthresh rises to 3/4 of cwnd
    /// outside recovery, cwnd halves once per RTO of the idle time while above the restart
    /// window, min(initial window, cwnd). BBR, which sets its own window, is left alone (Linux
    /// skips a congestion control with `cong_control`).
    pub(super) fn restart_after_idle(&mut self, now: SimTime) {
        if !self.cfg.slow_start_after_idle
            || self.snd_max > self.snd_una
            || !matches!(self.state, State::Established | State::CloseWait)
            || self.cc.name() == "bbr"
        {
            return;
        }
        let rto = self.rto.rto();
        let mut idle = now.since(self.last_data_tx).0;
        let rto = rto.0;
        if idle <= rto {
            return;
        }
        let mss = self.eff_mss.max(1);
        let cwnd = self.ccs.cwnd / mss;
        if !self.in_recovery {
            // tcp_current_ssthresh: max(ssthresh, 3/4 cwnd), in segments.
            let three_quarters = ((cwnd >> 1) + (cwnd >> 2)) * mss;
            self.ccs.ssthresh = self.ccs.ssthresh.max(three_quarters);
        }
        let restart = (self.cfg.initial_cwnd as u64).min(cwnd);
        let mut c = cwnd;
        while idle > rto && c > restart {
            idle = idle.saturating_sub(rto);
            c >>= 1;
        }
        self.ccs.cwnd = c.max(restart) * mss;
    }

    /// The application closes its sending side: a FIN follows the data.
    pub fn app_close(&mut self, ctx: &mut Ctx) {
        self.app_closed = true;
        self.try_send(ctx);
    }

    /// End of the data the application has made available (sequence number).
    pub(super) fn data_end(&self) -> u64 {
        let acked_data = self.snd_una.saturating_sub(1);
        let limit = acked_data.saturating_add(self.cfg.snd_buf);
        1 + self.app_written.min(limit)
    }

    /// Send what the windows allow: retransmissions first, then new data, then the FIN; then
    /// align the loss-recovery plug-in's timers.
    #[inline]
    pub fn try_send(&mut self, ctx: &mut Ctx) {
        if !self.idle_pass() {
            self.send_pass(ctx);
        }
    }

    /// `send_pass` of a `plain_acks` sender outside recovery, without PRR. Such a sender may
    /// have ns-2's `send_one` (`plain_sends` is then off): its edge (`ns2_window`) needs
    /// limited-transmit room, which an ACK of new data has just cleared, so the plain loop
    /// leaves out nothing that would act.
    #[inline(never)]
    pub(super) fn plain_send_pass(&mut self, ctx: &mut Ctx) {
        debug_assert!(!self.in_recovery && self.ns2_state.sack1_pipe.is_none());
        debug_assert!(self.plain_sends || (self.plain_acks && self.limited_transmit_room == 0));
        debug_assert!(self.prr.is_none() && !self.rec_timers);
        self.send_loop_as::<true>(ctx);
    }

    #[inline(never)]
    fn send_pass(&mut self, ctx: &mut Ctx) {
        self.send_loop(ctx);
        self.sync_rec_timers(ctx);
    }

    /// A send pass with nothing in flight, no plug-in timers and no cwnd validation, done in
    /// line where it finds nothing to send (the receiving end of a transfer, after every
    /// segment): the same effect as `send_pass` (only the application-limited mark), without
    /// the call. False when the full pass must run.
    #[inline(always)]
    fn idle_pass(&mut self) -> bool {
        if self.snd_max != self.snd_una || self.rec_timers || self.cfg.cwnd_validation {
            return false;
        }
        if !self.can_send_data() || self.aborted {
            return true; // `send_loop` returns at once and `sync_rec_timers` has nothing to do
        }
        // Everything written was sent and acknowledged, and the application's side is open (a
        // receiver, on every segment): the data end is the end of what was written, there is
        // no new data and no FIN due, and `nothing_to_send` needs not compute the data end
        // (100 MB bulk: 1,755 -> 1,732 instructions per data segment).
        let all_acked = self.snd_max > self.app_written && !self.app_closed;
        let nothing = if all_acked {
            !self.in_recovery && !self.ns2.sack1 && self.sb.next_lost().is_none()
        } else {
            self.nothing_to_send()
        };
        if !nothing {
            return false;
        }
        let pipe = self.sb.rfc6675_pipe();
        let cwnd = self.ccs.cwnd + self.limited_transmit_room;
        if self.cc_rules.rate_samples
            && (all_acked || self.data_end() == self.app_written.saturating_add(1))
            && pipe < cwnd
        {
            self.rs.app_limited = (self.rs.delivered + pipe).max(1);
        }
        true
    }

    fn send_loop(&mut self, ctx: &mut Ctx) {
        // Tested once per pass: nothing in the loop enters or leaves recovery.
        if self.plain_sends
            && !self.in_recovery
            && self.prr.is_none()
            && self.ns2_state.sack1_pipe.is_none()
        {
            self.send_loop_as::<true>(ctx)
        } else {
            self.send_loop_as::<false>(ctx)
        }
    }

    /// The send loop, compiled twice: with `PLAIN` (`plain_sends`, outside recovery, no PRR
    /// and no ns-2 Sack1 pipe) without the tests for recovery, ns-2's window rules and burst
    /// limit, pacing, the per-send hooks and the plug-in's timers, each of which would be
    /// made for every segment sent.
    #[inline(always)]
    fn send_loop_as<const PLAIN: bool>(&mut self, ctx: &mut Ctx) {
        if !self.can_send_data() || self.aborted {
            return;
        }
        let sent_before = self.stats.segments_sent;
        if !PLAIN && self.nothing_to_send() {
            // What the loop below does when there is nothing to send (the receiving end of a
            // transfer, after every segment): only the application-limited mark. Not tested
            // in the plain loop, whose first pass finds the same at about the same cost, and
            // where most passes are a sender's with new data, which this test would only delay
            // (100 MB bulk: 1,715 -> 1,708 instructions per data segment).
            let pipe = self.sb.rfc6675_pipe();
            let cwnd = self.ccs.cwnd + self.limited_transmit_room;
            if self.cc_rules.rate_samples
                && self.data_end() == self.app_written.saturating_add(1)
                && pipe < cwnd
            {
                self.rs.app_limited = (self.rs.delivered + pipe).max(1);
            }
            return self.end_pass(sent_before, ctx);
        }
        let nr_burst = !PLAIN && self.ns2.newreno && self.in_recovery;
        // The end of the data available and the right edge of the peer's window move only with
        // an ACK or a write, never inside a pass: computed once per pass, not per segment
        // (100 MB bulk: 1,777 -> 1,755 instructions per data segment).
        let end = self.data_end();
        let wnd_edge = self.snd_una + self.snd_wnd;
        loop {
            if nr_burst && self.stats.segments_sent >= sent_before + 2 {
                // ns-2 NewRenoTcpAgent::recv: send_much(0, 0, 2) while dupacks_ >= numdupacks_.
                break;
            }
            let mut pipe = if PLAIN {
                self.sb.rfc6675_pipe() // `pipe` outside recovery
            } else {
                self.pipe(ctx.now)
            };
            let mut cwnd = self.ccs.cwnd + self.limited_transmit_room;
            // ns-2's window rules (one branch when they are off).
            let mut send_one_edge = None;
            if !PLAIN && self.ns2.window_rules {
                (pipe, cwnd, send_one_edge) = self.ns2_window(pipe, cwnd);
            }
            if let Some(i) = self.sb.next_lost() {
                let len = self.sb.get(i).map_or(0, |s| s.len());
                if pipe + len > cwnd || self.paced(ctx) {
                    break;
                }
                if send_one_edge.is_some_and(|e| pipe + len > e) && !self.take_send_one() {
                    break;
                }
                self.retransmit_next(ctx);
                continue;
            }
            if self.snd_max < end && !self.fin_sent {
                let avail = end - self.snd_max;
                let room = wnd_edge.saturating_sub(self.snd_max);
                let mut len = avail.min(self.eff_mss);
                if room == 0 {
                    if self.flight() == 0 {
                        if self.cfg.probe0 {
                            self.arm_probe0(ctx);
                        } else {
                            // Zero window and nothing in flight: probe with one byte (persist).
                            self.send_new(1, false, ctx);
                        }
                    } else if self.next_seg(pipe, cwnd, ctx) {
                        continue;
                    }
                    break;
                }
                if len > room && self.cfg.probe0 && self.flight() == 0 {
                    // Linux's tcp_snd_wnd_test: a segment that does not fit waits for the
                    // persist timer, which sends what fits.
                    self.arm_probe0(ctx);
                    break;
                }
                if len > room {
                    // Sender-side silly-window avoidance (RFC 1122 4.2.3.4): send a partial
                    // segment only if it is at least half the largest window seen, or if
                    // nothing is in flight.
                    if room * 2 < self.max_snd_wnd && self.flight() > 0 {
                        if self.next_seg(pipe, cwnd, ctx) {
                            continue;
                        }
                        break;
                    }
                    len = room;
                }
                // The last data with the FIN on it is not held back (Linux's tcp_nagle_test).
                let with_fin = len == avail && self.fin_rides(end);
                // TCP_CORK holds any segment shorter than the MSS (Linux's tcp_nagle_test with
                // TCP_NAGLE_CORK), Nagle one while data is in flight.
                if len < self.eff_mss
                    && !with_fin
                    && (self.cork || (self.cfg.nagle && self.flight() > 0 && self.nagle_holds()))
                {
                    if self.cfg.probe0 && self.flight() == 0 {
                        // tcp_check_probe_timer: corked data with nothing in flight leaves when
                        // the persist timer fires (TCP_CORK's ceiling of about 200 ms).
                        self.arm_probe0(ctx);
                    }
                    break;
                }
                if pipe + len > cwnd || (!PLAIN && self.paced(ctx)) {
                    break;
                }
                if send_one_edge.is_some_and(|e| pipe + len > e) && !self.take_send_one() {
                    break;
                }
                if with_fin {
                    self.send_fin(len, ctx);
                } else {
                    self.send_new_as::<PLAIN>(len, false, ctx);
                }
                continue;
            }
            if self.app_closed
                && !self.fin_sent
                && self.app_total.is_some()
                && self.snd_max == end
                && end == 1 + self.app_written
            {
                self.send_fin(0, ctx);
                continue;
            }
            if !PLAIN && self.next_seg(pipe, cwnd, ctx) {
                continue;
            }
            // Nothing left to send although the window has room: the application limits us
            // (draft-cheng-iccrg-delivery-rate-estimation section 3.4; kept for rate samples).
            if self.cc_rules.rate_samples
                && end == self.app_written.saturating_add(1)
                && pipe < cwnd
            {
                self.rs.app_limited = (self.rs.delivered + pipe).max(1);
            }
            break;
        }
        self.end_pass(sent_before, ctx);
    }

    /// After a pass of the send loop (`sent_before`: segments sent before it): cwnd
    /// validation, and the retransmission timer when data is in flight.
    #[inline(always)]
    fn end_pass(&mut self, sent_before: u64, ctx: &mut Ctx) {
        if self.cfg.cwnd_validation {
            // tcp_write_xmit: validate after a pass that sent or was stopped by cwnd.
            let pipe = self.pipe(ctx.now);
            if self.stats.segments_sent > sent_before || pipe + self.eff_mss > self.ccs.cwnd {
                self.validate_cwnd(pipe);
            }
        }
        // Track where the receiver's window blocks us with nothing in flight.
        if self.flight() > 0 && !self.timers[TimerKind::Rto as usize].is_armed() {
            self.restart_rto(ctx);
        }
    }

    /// Whether a pass of the send loop would find nothing to send: outside recovery and
    /// ns-2's window rules, nothing marked lost, no new data (or the FIN sent) and no FIN due.
    #[inline]
    fn nothing_to_send(&self) -> bool {
        let end = self.data_end();
        !self.in_recovery
            && !self.ns2.sack1
            && (self.snd_max >= end || self.fin_sent)
            && !(self.app_closed
                && !self.fin_sent
                && self.app_total.is_some()
                && self.snd_max == end
                && end == 1 + self.app_written)
            && self.sb.next_lost().is_none()
    }

    /// In recovery, with room in the window and nothing else to send: the plug-in's extra
    /// retransmission (RFC 6675 NextSeg rules 3 and 4). True if one was sent.
    fn next_seg(&mut self, pipe: u64, cwnd: u64, ctx: &mut Ctx) -> bool {
        if !self.in_recovery || pipe + self.eff_mss > cwnd {
            return false;
        }
        let v = self.view(ctx.now);
        let Some(i) = self.rec.next_seg_fallback(&v, &self.sb) else {
            return false;
        };
        if self.paced(ctx) {
            return false;
        }
        self.retransmit_index(i, false, ctx);
        true
    }

    /// Whether Nagle holds back a short segment while data is in flight: always (RFC 1122), or
    /// with Minshall's variant only while an earlier short segment is unacknowledged.
    fn nagle_holds(&self) -> bool {
        !self.cfg.nagle_minshall || self.snd_sml > self.snd_una
    }

    /// The pipe and window under ns-2's rules, and the window beyond which `send_one` meters
    /// packets: Sack1 outside fast recovery counts SACKed packets (`t_seqno_ <= last_ack_ +
    /// window()`), inside it uses its own `pipe_`; `send_one` applies beyond cwnd.
    #[inline(never)]
    fn ns2_window(&self, mut pipe: u64, cwnd: u64) -> (u64, u64, Option<u64>) {
        if self.ns2.sack1 && !self.in_recovery {
            pipe += self.sb.sacked_bytes();
        }
        let edge =
            (self.cfg.ns2.send_one && self.limited_transmit_room > 0).then_some(self.ccs.cwnd);
        match self.ns2_state.sack1_pipe {
            Some(pp) => {
                let m = self.eff_mss;
                let (used, spare) = ((pp.max(0) as u64) * m, ((-pp).max(0) as u64) * m);
                (used, cwnd + spare, edge)
            }
            None => (pipe, cwnd, edge),
        }
    }

    /// ns-2's `send_one` (`Ns2Rules::send_one`): limited transmit sends one packet per
    /// duplicate ACK beyond the window. Whether one more may go now.
    fn take_send_one(&mut self) -> bool {
        let ok = self.ns2_state.send_one_budget > 0;
        self.ns2_state.send_one_budget = self.ns2_state.send_one_budget.saturating_sub(1);
        ok
    }

    /// Send `len` bytes of new data (`probe`: a TLP loss probe, which does not re-arm the PTO).
    /// Inlined into the send loop (2,287 -> 2,260 instructions per data segment).
    #[inline(always)]
    pub(super) fn send_new(&mut self, len: u64, probe: bool, ctx: &mut Ctx) {
        self.send_new_as::<false>(len, probe, ctx);
    }

    /// `send_new`; with `PLAIN` (`send_loop_as`) without the tests for the ns-2 Sack1 pipe,
    /// the per-send hooks and the plug-in's timers.
    #[inline(always)]
    fn send_new_as<const PLAIN: bool>(&mut self, len: u64, probe: bool, ctx: &mut Ctx) {
        let start = self.snd_max;
        let end = start + len;
        let tx = self.tx_stamp(ctx.now);
        self.sb.push(Seg::new(start, end, false, ctx.now, tx));
        self.snd_max = end;
        if len < self.eff_mss {
            self.snd_sml = end;
        }
        if let Some(pp) = self.ns2_state.sack1_pipe.as_mut().filter(|_| !PLAIN) {
            *pp += 1;
        }
        if self.rtt_timing.is_none() && !self.ts_ok {
            self.rtt_timing = Some((end, ctx.now));
        }
        self.send_segment_as::<PLAIN>(start, end, false, 1, ctx);
        // RFC 6298 5.1: start the timer if it is not running.
        if !self.timers[TimerKind::Rto as usize].is_armed() {
            self.restart_rto(ctx);
        }
        if !PLAIN && !probe && self.rec_timers {
            let v = self.view(ctx.now);
            self.rec.on_transmit(&v, &self.sb, true);
        }
    }

    /// Whether the FIN rides on the data segment ending at `end`: the profile's
    /// `fin_with_data`, the application closed, and `end` is the end of all it wrote.
    #[inline]
    pub(super) fn fin_rides(&self, end: u64) -> bool {
        self.cfg.fin_with_data
            && self.app_closed
            && self.app_total.is_some()
            && end == 1 + self.app_written
    }

    /// Send the FIN and move to FIN-WAIT-1 or LAST-ACK: a segment of its own after the last
    /// data (`data` = 0), or on the last `data` bytes (`fin_with_data`: Linux's tcp_send_fin
    /// sets FIN on the write queue's tail while it is unsent).
    #[cold]
    pub(super) fn send_fin(&mut self, data: u64, ctx: &mut Ctx) {
        let start = self.snd_max;
        let end = start + data + 1;
        let tx = self.tx_stamp(ctx.now);
        self.sb.push(Seg::new(start, end, true, ctx.now, tx));
        self.snd_max = end;
        self.fin_sent = true;
        if data > 0 {
            // What `send_new` does for a data segment.
            if data < self.eff_mss {
                self.snd_sml = end;
            }
            if let Some(pp) = self.ns2_state.sack1_pipe.as_mut() {
                *pp += 1;
            }
            if self.rtt_timing.is_none() && !self.ts_ok {
                self.rtt_timing = Some((end, ctx.now));
            }
        }
        self.send_segment(start, end, true, 1, ctx);
        match self.state {
            State::Established => self.set_state(State::FinWait1, ctx),
            State::CloseWait => self.set_state(State::LastAck, ctx),
            _ => {}
        }
        if !self.timers[TimerKind::Rto as usize].is_armed() {
            self.restart_rto(ctx);
        }
        if self.rec_timers {
            let v = self.view(ctx.now);
            self.rec.on_transmit(&v, &self.sb, true);
        }
    }

    /// Retransmit the first segment marked lost. Returns false if there is none.
    pub(super) fn retransmit_next(&mut self, ctx: &mut Ctx) -> bool {
        let Some(i) = self.sb.next_lost() else {
            return false;
        };
        self.retransmit_index(i, false, ctx);
        true
    }

    /// Resend segment `i`: one marked lost, one chosen by RFC 6675 NextSeg rules 3-4, or a loss
    /// probe (`probe`).
    pub(super) fn retransmit_index(&mut self, i: usize, probe: bool, ctx: &mut Ctx) {
        let tx = self.tx_stamp(ctx.now);
        self.sb.retransmitted(i, ctx.now, tx);
        let Some(&s) = self.sb.get(i) else {
            return;
        };
        self.stats.retransmissions += 1;
        if let Some(pp) = self.ns2_state.sack1_pipe.as_mut() {
            *pp += 1;
        }
        // Karn: a retransmission spoils the running measurement.
        if !self.cfg.ns2.rtt_active {
            self.rtt_timing = None;
        }
        self.send_segment(s.start, s.end, s.fin, u32::from(s.tx_count), ctx);
        ctx.log(self.conn, self.end, "retransmit", s.start, |w| {
            w.text("len ")
                .num(s.data_len())
                .text(" tx ")
                .num(u64::from(s.tx_count));
            Ok(())
        });
        let restart = match self.cfg.rto_restart {
            RtoRestart::Every => true,
            RtoRestart::Head => s.start <= self.snd_una,
            RtoRestart::Never => false,
        };
        // RFC 6298 5.1: a transmission starts the timer if it is not running.
        if restart || !self.timers[TimerKind::Rto as usize].is_armed() {
            self.restart_rto(ctx);
        }
        if !probe && self.rec_timers {
            let v = self.view(ctx.now);
            self.rec.on_transmit(&v, &self.sb, false);
        }
    }

    /// Send a pure ACK now.
    pub(super) fn send_ack(&mut self, ctx: &mut Ctx) {
        self.send_ack_inline(ctx);
    }

    /// `send_ack`, inlined into the receiver's plain path: its delayed ACK, sent every other
    /// segment of a bulk transfer (100 MB bulk: 1,672 -> 1,663 instructions per data segment),
    /// and the ACK of every segment without delayed ACK (ns-2's chain: 2,023 -> 2,000).
    #[inline(always)]
    pub(super) fn send_ack_inline(&mut self, ctx: &mut Ctx) {
        self.base_packet(ACK, self.snd_max, 0, ctx);
        self.emit(ACK, 0, ctx);
    }

    /// Send one segment of `[start, end)` (`fin`: the FIN is its last sequence number). Inlined
    /// into `send_new`, its caller once per data segment (2,351 -> 2,325 instructions per
    /// data segment).
    #[inline(always)]
    fn send_segment(&mut self, start: u64, end: u64, fin: bool, tx_count: u32, ctx: &mut Ctx) {
        self.send_segment_as::<false>(start, end, fin, tx_count, ctx);
    }

    /// `send_segment`; with `PLAIN` (`send_loop_as`) without the tests for the congestion
    /// control's per-send hook, PRR and pacing.
    #[inline(always)]
    fn send_segment_as<const PLAIN: bool>(
        &mut self,
        start: u64,
        end: u64,
        fin: bool,
        tx_count: u32,
        ctx: &mut Ctx,
    ) {
        let len = (end - start - u64::from(fin)) as u32;
        self.last_data_tx = ctx.now;
        let flags = ACK | if fin { FIN } else { 0 };
        self.base_packet(flags, start, len, ctx).tx_count = tx_count;
        self.emit(flags, len, ctx);
        if PLAIN {
            return;
        }
        if self.cc_rules.hears_sends {
            self.cc.on_sent(&mut self.ccs, ctx.now, len as u64);
        }
        if let Some(prr) = self.prr.as_mut() {
            prr.on_sent(end - start);
        }
        if !self.cc_rules.paces {
            return;
        }
        if let Some(rate) = self.cc.pacing_rate(&self.ccs) {
            // A slot opens when the pacing time has come: its send quantum leaves now, one
            // segment after another, and the next slot waits their size (payload and 40 bytes
            // of headers each) at the pacing rate.
            if ctx.now >= self.next_send_at {
                let segs = self.cc.send_quantum(&self.ccs) / self.ccs.mss.max(1);
                self.pace_slot = (ctx.now, segs.clamp(1, u64::from(u32::MAX)) as u32 - 1);
            } else if self.pace_slot.0 == ctx.now {
                self.pace_slot.1 = self.pace_slot.1.saturating_sub(1);
            }
            let gap = Dur::from_secs_f64((len as f64 + 40.0) / rate.max(1.0));
            self.next_send_at = self.next_send_at.max(ctx.now) + gap;
        }
    }

    /// With a pacing congestion control, whether the next segment must wait; if so the pacing
    /// timer is armed for its release time.
    // Out of line: most runs never or seldom call it, and in line it made the per-segment paths
    // that can larger and slower (BENCHMARKS.md, "Rare paths out of line").
    #[inline(never)]
    fn paced(&mut self, ctx: &mut Ctx) -> bool {
        if ctx.now >= self.next_send_at
            || !self.cc_rules.paces
            || self.cc.pacing_rate(&self.ccs).is_none()
            || (self.pace_slot.0 == ctx.now && self.pace_slot.1 > 0)
        {
            return false;
        }
        let at = self.next_send_at;
        if self.timers[TimerKind::Pace as usize].deadline != Some(at) {
            self.arm(TimerKind::Pace, at, ctx);
        }
        true
    }

    /// Delivery-rate state recorded with a (re)transmission now (draft-cheng section 3.2).
    /// Only a rate sample reads it (`after_ack`, for a congestion control that takes them,
    /// `SenderRules::rate_samples`): without one, neither it nor C.first_sent_time and
    /// C.app_limited are kept.
    #[inline(always)]
    fn tx_stamp(&mut self, now: SimTime) -> TxStamp {
        if !self.cc_rules.rate_samples {
            return TxStamp::default();
        }
        if self.sb.rfc6675_pipe() == 0 {
            self.rs.first_sent_time = now;
            self.rs.delivered_time = now;
        }
        TxStamp {
            delivered: self.rs.delivered,
            delivered_time: self.rs.delivered_time,
            first_sent_time: self.rs.first_sent_time,
            app_limited: self.rs.app_limited != 0,
        }
    }

    /// Append a segment with this connection's headers to the output, for the caller to finish
    /// and `emit`. Built in place: a packet is not copied on its way out. Inlined into its
    /// callers (a call and its register saves cost more than most of its branches, which are
    /// decided by the caller's flags: 2,325 -> 2,287 instructions per data segment).
    #[inline(always)]
    pub(super) fn base_packet<'c>(
        &mut self,
        flags: u8,
        seq: u64,
        len: u32,
        ctx: &'c mut Ctx,
    ) -> &'c mut Packet {
        *ctx.next_uid += 1;
        let now = ctx.now;
        ctx.out.push(Packet {
            uid: *ctx.next_uid,
            conn: self.conn,
            to_end: 1 - self.end,
            src: self.node,
            dst: self.peer_node,
            flags,
            seq,
            len,
            ..Packet::default()
        });
        let p = ctx.out.last_mut().expect("just pushed");
        if flags & ACK != 0 {
            p.ack = self.rcv_nxt;
            if flags & SYN == 0 && self.adv.memo.0 == self.rcv_nxt {
                // `advertise_window` gives the same for the same RCV.NXT (it only moves the
                // right edge when RCV.NXT moves), and `last_adv_wnd` holds it already.
                p.wnd = self.adv.memo.1;
            } else if let Some((buf, _, field)) = self
                .adv
                .full
                .filter(|&(_, lag, _)| flags & SYN == 0 && self.rcv_nxt + lag >= self.rcv_adv)
            {
                // The right edge slides to RCV.NXT + buffer: the whole buffer is offered.
                self.rcv_adv = self.rcv_nxt + buf;
                p.wnd = field;
                self.last_adv_wnd = (field as u64) << self.own_wscale;
                self.adv.memo = (self.rcv_nxt, field);
            } else {
                let wnd = self.advertise_window(now);
                let shift = if flags & SYN != 0 { 0 } else { self.own_wscale };
                p.wnd = (wnd >> shift).min(65_535) as u32;
                self.last_adv_wnd = (p.wnd as u64) << shift;
                let fixed = self.cfg.rcv_read_rate.is_none() && self.tune.is_none();
                self.adv.memo = if flags & SYN == 0 && fixed {
                    (self.rcv_nxt, p.wnd)
                } else {
                    (u64::MAX, 0)
                };
            }
            self.last_ack_sent = self.rcv_nxt;
            self.delack_count = 0;
            self.timers[TimerKind::DelAck as usize].cancel();
        } else if flags & SYN != 0 {
            // A SYN advertises the receive window too (never scaled in a SYN, RFC 7323 2.2).
            p.wnd = self.cfg.rcv_buf.min(65_535) as u32;
        }
        self.segment_options(p, flags, now);
        p
    }

    /// Count and log the packet `base_packet` appended last.
    /// (`flags` and `len` are the packet's, given by the caller, which knows them: the
    /// counts need not read the packet back.)
    #[inline(always)]
    pub(super) fn emit(&mut self, flags: u8, len: u32, ctx: &mut Ctx) {
        self.stats.segments_sent += 1;
        if len > 0 {
            self.stats.data_segments_sent += 1;
            self.stats.bytes_sent += len as u64;
        }
        if flags == ACK && len == 0 {
            self.stats.acks_sent += 1;
        }
        if let Some(pl) = ctx.packets.as_deref_mut() {
            let p = ctx.out.last().expect("base_packet appended it");
            debug_assert_eq!((p.flags, p.len), (flags, len));
            pl.push(ctx.now, "send", "", p);
        }
    }
}
