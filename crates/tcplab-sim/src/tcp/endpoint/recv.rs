//! Segments in: the dispatch by state, the receiver's path for a bulk transfer's next data
//! segment (`plain_data`, doing what the general path does in its case), data in order and out
//! of order (RFC 9293 section 3.10.7.4), the peer's FIN, delivery to the application (with a
//! read rate, and autotuning, `autotune.rs`), the ACK policy (delayed ACKs, RFC 1122 4.2.3.2
//! and RFC 5681 section 4.2; Linux's quick ACKs) and the window advertised (receiver-side
//! silly-window avoidance, RFC 1122 4.2.3.3).

use super::{Ctx, Endpoint, State};
use crate::engine::event::TimerKind;
use crate::engine::time::SimTime;
use crate::net::packet::{Packet, ACK, FIN, RST, SYN};

impl Endpoint {
    /// Inlined into the simulator's delivery of a segment, its one call per segment
    /// (2,260 -> 2,234 instructions per data segment).
    #[inline(always)]
    pub fn on_segment(&mut self, p: &Packet, ctx: &mut Ctx) {
        self.stats.segments_received += 1;
        if let Some(pl) = ctx.packets.as_deref_mut() {
            pl.push(ctx.now, "recv", "", p);
        }
        match self.state {
            // (Where an endpoint that gave up or was reset is too.)
            State::Closed => {
                if self.cfg.rst_when_closed {
                    self.closed_segment(p, ctx);
                }
            }
            State::Listen | State::SynSent | State::SynRcvd => self.handshake_segment(p, ctx),
            _ => self.established_segment(p, ctx),
        }
    }

    /// A segment in a synchronized state. The two segments of a bulk transfer, a receiver's
    /// next data segment and a sender's ACK of new data, each take a path of their own where
    /// the endpoint's options allow (`plain_data`, `plain_ack`); the others the general one.
    pub(super) fn established_segment(&mut self, p: &Packet, ctx: &mut Ctx) {
        if p.flags == ACK && p.n_sack == 0 && !self.in_recovery {
            if p.len > 0 {
                if self.plain_rx
                    && p.seq == self.rcv_nxt
                    && p.seq + p.len as u64 <= self.rcv_adv
                    && p.ack == self.snd_una
                    && p.ack == self.snd_max
                    && self.ooo.is_empty()
                    && self.peer_fin_seq.is_none()
                    && self.quick_acks_started
                    && self.quick_acks_left == 0
                {
                    return self.plain_data(p, ctx);
                }
            } else if self.plain_acks
                && p.ack > self.snd_una
                && p.ack <= self.snd_max
                && !self.rto_recovery
                && self.fr_guard.is_none()
                && !self.fin_sent
            {
                return self.plain_ack(p, ctx);
            }
        }
        self.general_segment(p, ctx)
    }

    /// `general_segment` for the next data segment in order, inside the window offered, of a
    /// `plain_rx` receiver with nothing in flight, nothing out of order, no FIN seen and no
    /// quick ACKs left, outside recovery; the segment, with no SACK block, acknowledges
    /// nothing new. What the general path does then, without its tests.
    #[inline(always)]
    fn plain_data(&mut self, p: &Packet, ctx: &mut Ctx) {
        self.update_ts_recent(p);
        // `process_ack`: the window update, then its path for an ACK field that acknowledges
        // nothing with nothing in flight.
        self.update_window(p);
        self.stats.max_cwnd = self.stats.max_cwnd.max(self.ccs.cwnd);
        // `process_data`: in order, no gap filled, no FIN, no quick ACK.
        self.rcv_nxt = p.seq + p.len as u64;
        // `deliver`, to an application that reads at once, without autotuning.
        debug_assert!(self.cfg.rcv_read_rate.is_none() && self.tune.is_none());
        self.delivered += p.len as u64;
        self.stats.bytes_delivered += p.len as u64;
        self.last_delivery = ctx.now;
        // The ACK: delayed, or at once without delayed ACK (ns-2's TCPSink).
        if self.cfg.delayed_ack {
            self.delay_ack(ctx);
        } else {
            self.send_ack_inline(ctx);
        }
        // `try_send`, whose `idle_pass` finds nothing in flight, no plug-in timers, no cwnd
        // validation, recovery or ns-2 Sack1 pipe, and the endpoint not aborted: with the
        // application's side open and everything written acknowledged, nothing to send and
        // no mark to make without rate samples.
        debug_assert!(self.snd_max == self.snd_una && !self.aborted && !self.in_recovery);
        if !self.can_send_data()
            || (self.snd_max > self.app_written
                && !self.app_closed
                && self.sb.next_lost().is_none()
                && !self.cc_rules.rate_samples)
        {
            return;
        }
        self.try_send(ctx);
    }

    /// A segment in a synchronized state by the general path: a repeated SYN-ACK, TS.Recent, the
    /// ACK field, the data and the FIN, then a send pass.
    #[inline(never)]
    fn general_segment(&mut self, p: &Packet, ctx: &mut Ctx) {
        if p.is(RST) {
            return self.rst_segment(p, ctx);
        }
        if p.is(SYN) {
            // A repeated SYN-ACK: our ACK of it was lost. When data went in place of that ACK
            // (ns-2's two-packet opening), the data's retransmission answers it: ns-2's sink
            // never repeats its ACK of the SYN, so its sender sends nothing for it.
            if !(self.cfg.ns2.two_way_handshake && self.snd_max > 1) {
                self.send_ack(ctx);
            }
            return;
        }
        if p.is(ACK) && p.ack > self.snd_max {
            // RFC 9293 3.10.7.4: an ACK of something not yet sent. The segment is dropped
            // whole (its TS.Recent, data and FIN unused) and answered with an ACK, except in
            // ESTABLISHED under `unsent_ack_silent` (Linux's tcp_rcv_established discards it;
            // tcp_rcv_state_process answers in the other states with a challenge ACK).
            if !(self.cfg.unsent_ack_silent && self.state == State::Established) {
                self.send_ack(ctx);
            }
            return;
        }
        self.update_ts_recent(p);
        if p.is(ACK) {
            self.process_ack(p, ctx);
            if self.aborted {
                return;
            }
        }
        if p.len > 0 || p.is(FIN) {
            self.process_data(p, ctx);
        }
        self.try_send(ctx);
    }

    /// The data and FIN of a segment: taken in order or kept out of order, delivered, the peer's
    /// FIN and the state it leads to, then the ACK (at once, or delayed).
    fn process_data(&mut self, p: &Packet, ctx: &mut Ctx) {
        let end = p.seq + p.len as u64;
        let (had_gap, new) = if p.seq == self.rcv_nxt
            && !p.is(FIN)
            && end <= self.rcv_adv
            && self.ooo.is_empty()
            && self.tune.is_none()
        {
            // The next segment in order (with data, being no FIN), inside the window offered,
            // nothing waiting behind a hole and no autotuning: what `take_data` does then
            // (100 MB bulk: 1,732 -> 1,715 instructions per data segment).
            self.rcv_nxt = end;
            (false, p.len as u64)
        } else {
            match self.take_data(p, ctx) {
                Some(taken) => taken,
                None => return,
            }
        };
        if new > 0 {
            if self.tune.is_some() {
                // tcp_event_data_recv -> tcp_rcv_rtt_measure: a window's worth is a sample.
                let wnd = self.rcv_adv.saturating_sub(self.rcv_nxt);
                if let Some(t) = self.tune.as_deref_mut() {
                    t.on_data(ctx.now, self.rcv_nxt, wnd);
                }
            }
            self.deliver(new, ctx);
        }
        let mut fin_now = false;
        if self.peer_fin_seq == Some(self.rcv_nxt) && !self.peer_fin {
            self.rcv_nxt += 1;
            self.peer_fin = true;
            fin_now = true;
            match self.state {
                State::Established => self.set_state(State::CloseWait, ctx),
                State::FinWait1 => {
                    if self.snd_una == self.snd_max {
                        self.set_state(State::TimeWait, ctx)
                    } else {
                        self.set_state(State::Closing, ctx)
                    }
                }
                State::FinWait2 => self.set_state(State::TimeWait, ctx),
                _ => {}
            }
        }
        if !self.quick_acks_started {
            // tcp_event_data_recv, the first data: tcp_incr_quickack, rcv_wnd / (2 rcv_mss)
            // ACKs (at least 2), at most TCP_MAX_QUICKACKS.
            self.quick_acks_started = true;
            let by_window = (self.cfg.rcv_buf.min(65_535 << self.own_wscale)
                / (2 * self.eff_mss.max(1))) as u32;
            self.quick_acks_left = by_window.max(2).min(self.cfg.quick_acks);
        }
        if new > 0 && self.tune.is_some() {
            // tcp_event_data_recv -> tcp_grow_window: a rise of rcv_ssthresh asks for an
            // immediate ACK (icsk_ack.quick |= 1).
            let free = self.rcv_free(ctx.now);
            if self
                .tune
                .as_deref_mut()
                .is_some_and(|t| t.grow_window(p.len as u64, free))
            {
                self.quick_acks_left |= 1;
            }
        }
        // ACK policy: at once when a gap was filled, for a FIN, in quick-ACK mode or without
        // delayed ACK; otherwise every `delack_segments` segments or after `delack_max` (RFC
        // 1122, 5681).
        if self.quick_acks_left > 0 {
            // tcp_dec_quickack_mode: one fewer per ACK sent.
            self.quick_acks_left -= 1;
            self.send_ack(ctx);
        } else if had_gap || fin_now || !self.cfg.delayed_ack || !self.ooo.is_empty() {
            self.send_ack(ctx);
        } else {
            self.delay_ack(ctx);
        }
    }

    /// A segment to acknowledge with a delayed ACK: the ACK now if it is the
    /// `delack_segments`th, else the delayed-ACK timer, if it is not running.
    #[inline(always)]
    fn delay_ack(&mut self, ctx: &mut Ctx) {
        self.delack_count += 1;
        if self.delack_count >= self.cfg.delack_segments {
            self.send_ack_inline(ctx);
        } else {
            let at = ctx.now + self.cfg.delack_max;
            if !self.timers[TimerKind::DelAck as usize].is_armed() {
                self.arm(TimerKind::DelAck, at, ctx);
            }
        }
    }

    /// The sequence space of data segment `p` (or a FIN) that the receiver takes: RCV.NXT
    /// advanced over it and over what waited behind a hole it filled. Returns whether there
    /// was a hole and the payload bytes now in order, or None when the segment was answered
    /// at once (a duplicate, beyond the window, out of order).
    #[inline(always)]
    fn take_data(&mut self, p: &Packet, ctx: &mut Ctx) -> Option<(bool, u64)> {
        let mut start = p.seq;
        let mut end = p.seq + p.len as u64;
        let fin_seq = if p.is(FIN) { Some(end) } else { None };
        if let Some(f) = fin_seq {
            self.peer_fin_seq = Some(f);
        }
        // Entirely old: a duplicate. ACK at once (RFC 9293 3.10.7.4, RFC 5681 4.2).
        if end <= self.rcv_nxt && fin_seq.is_none_or(|f| f < self.rcv_nxt) {
            self.stats.duplicate_segments += 1;
            self.send_ack(ctx);
            return None;
        }
        // Beyond the window offered: trim (a zero-window probe lands here).
        let right = self.rcv_adv.max(self.rcv_nxt);
        if start >= right && p.len > 0 {
            self.send_ack(ctx);
            return None;
        }
        end = end.min(right);
        let queue_empty = self.tune.is_some() && self.unread_now(ctx.now) == 0.0;
        if let Some(t) = self.tune.as_deref_mut() {
            // tcp_rcv_rtt_measure_ts: an RTT sample from the echoed timestamp.
            let ecr = (self.ts_ok && p.has_ts && p.ts_ecr > 0).then(|| p.ts_ecr - 1);
            t.on_timestamp(
                ctx.now.0 / 1_000,
                ecr,
                p.len as u64,
                self.eff_mss,
                queue_empty,
            );
        }
        if start < self.rcv_nxt {
            start = self.rcv_nxt;
        }
        if start > self.rcv_nxt {
            // Out of order: keep it, ACK at once with SACK blocks.
            self.stats.out_of_order_segments += 1;
            if end > start {
                self.insert_ooo(start, end);
                self.last_ooo = Some((start, end));
                if self.tune.is_some() {
                    // tcp_data_queue_ofo: with SACK, rcv_ssthresh grows on out-of-order data
                    // too (tcp_grow_window; the ACK goes out at once anyway), and
                    // tcp_rcvbuf_grow makes room for what waits.
                    let (span, free, sack) =
                        (self.ooo_span(), self.rcv_free(ctx.now), self.sack_ok);
                    if let Some(t) = self.tune.as_deref_mut() {
                        if sack {
                            t.grow_window(p.len as u64, free);
                        }
                        t.on_out_of_order(span);
                    }
                }
            }
            self.send_ack(ctx);
            return None;
        }
        let had_gap = !self.ooo.is_empty();
        let mut new = end.saturating_sub(self.rcv_nxt);
        self.rcv_nxt = self.rcv_nxt.max(end);
        // Pull in what was waiting behind the hole.
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            if e > self.rcv_nxt {
                new += e - self.rcv_nxt;
                self.rcv_nxt = e;
            }
            self.ooo.remove(0);
        }
        Some((had_gap, new))
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        insert_range(&mut self.ooo, start, end);
    }

    /// In line, with the reading application's and autotuning's share out of line: a bulk
    /// receiver has neither.
    #[inline(always)]
    fn deliver(&mut self, bytes: u64, ctx: &mut Ctx) {
        self.delivered += bytes;
        self.stats.bytes_delivered += bytes;
        self.last_delivery = ctx.now;
        if self.cfg.rcv_read_rate.is_some() || self.tune.is_some() {
            self.deliver_to_app(bytes, ctx);
        }
    }

    #[inline(never)]
    fn deliver_to_app(&mut self, bytes: u64, ctx: &mut Ctx) {
        if self.cfg.rcv_read_rate.is_some() {
            self.unread = self.unread_now(ctx.now) + bytes as f64;
            self.unread_at = ctx.now;
            self.arm_read_timer(ctx);
        }
        if self.tune.is_some() {
            // tcp_recvmsg -> tcp_rcv_space_adjust, as the application takes the data.
            let (consumed, ooo) = (self.consumed(ctx.now), self.ooo_span());
            if let Some(t) = self.tune.as_deref_mut() {
                t.on_consumed(ctx.now, consumed, ooo);
            }
        }
    }

    /// In-order payload bytes the application has consumed (read).
    pub(super) fn consumed(&self, now: SimTime) -> u64 {
        match self.cfg.rcv_read_rate {
            None => self.delivered,
            Some(_) => self.delivered - self.unread_now(now).ceil() as u64,
        }
    }

    pub(super) fn unread_now(&self, now: SimTime) -> f64 {
        match self.cfg.rcv_read_rate {
            None => 0.0,
            Some(r) => (self.unread - r * now.since(self.unread_at).as_secs_f64()).max(0.0),
        }
    }

    /// The largest window this end may offer now: the buffer, or what autotuning grew it to.
    pub(super) fn rcv_window_max(&self) -> u64 {
        self.tune.as_deref().map_or(self.cfg.rcv_buf, |t| t.clamp)
    }

    /// The receive buffer not taken by unread data (Linux's `tcp_space`).
    // Out of line: most runs never or seldom call it, and in line it made the per-segment paths
    // that can larger and slower (BENCHMARKS.md, "Rare paths out of line").
    #[inline(never)]
    fn rcv_free(&self, now: SimTime) -> u64 {
        let buf = self.rcv_window_max();
        match self.cfg.rcv_read_rate {
            // The application reads at once: nothing unread, the whole buffer is free (the
            // float expression below gives exactly this for every buffer below 2^53).
            None if buf < 1 << 53 => buf,
            _ => (buf as f64 - self.unread_now(now)).max(0.0) as u64,
        }
    }

    /// What waits out of order beyond RCV.NXT (to the end of the last range; 0 if nothing).
    fn ooo_span(&self) -> u64 {
        self.ooo
            .last()
            .map_or(0, |r| r.1.saturating_sub(self.rcv_nxt))
    }

    /// The window to advertise: free receive buffer (when autotuned, no more than
    /// `rcv_ssthresh`), with receiver-side silly-window avoidance (RFC 1122 4.2.3.3: the right
    /// edge only moves by at least min(buffer/2, MSS)) and never shrinking the right edge
    /// already offered.
    pub(super) fn advertise_window(&mut self, now: SimTime) -> u64 {
        let buf = self.rcv_window_max();
        let mut free = self.rcv_free(now);
        if let Some(t) = self.tune.as_deref() {
            // __tcp_select_window: no more than rcv_ssthresh.
            free = free.min(t.rcv_ssthresh);
        }
        let edge = self.rcv_nxt + free;
        let step = (buf / 2).min(self.eff_mss.max(1));
        if edge >= self.rcv_adv + step || self.rcv_adv < self.rcv_nxt {
            self.rcv_adv = edge.max(self.rcv_nxt);
        }
        let max = 65_535u64 << self.own_wscale;
        (self.rcv_adv - self.rcv_nxt).min(max)
    }
}

/// Add `[start, end)` to `ranges`: sorted, and disjoint with a gap between any two, before and
/// after. As they were so before, only the new range's neighbours can join it: the range before
/// it, if it reaches `start`, and those after it that start within it. Merged in place (a new
/// vector for each out-of-order segment was a third of the allocations of a run with losses).
fn insert_range(ranges: &mut Vec<(u64, u64)>, start: u64, end: u64) {
    let i = ranges.partition_point(|r| r.0 < start);
    let at = match i.checked_sub(1) {
        Some(prev) if ranges[prev].1 >= start => prev,
        _ => {
            ranges.insert(i, (start, end));
            i
        }
    };
    let mut reach = ranges[at].1.max(end);
    let mut next = at + 1;
    while let Some(&(_, e)) = ranges.get(next).filter(|r| r.0 <= reach) {
        reach = reach.max(e);
        next += 1;
    }
    ranges[at].1 = reach;
    ranges.drain(at + 1..next);
}

#[cfg(test)]
mod tests {
    use super::insert_range;
    use proptest::prelude::*;

    /// The rule written plainly: insert in order, then merge every range that reaches the next.
    fn merged(ranges: &[(u64, u64)], start: u64, end: u64) -> Vec<(u64, u64)> {
        let mut all = ranges.to_vec();
        let i = all.partition_point(|r| r.0 < start);
        all.insert(i, (start, end));
        let mut out: Vec<(u64, u64)> = Vec::new();
        for (s, e) in all {
            match out.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => out.push((s, e)),
            }
        }
        out
    }

    #[test]
    fn a_range_joins_the_one_before_it_and_those_it_reaches() {
        let mut r = vec![(10, 20), (30, 40), (50, 60), (70, 80)];
        insert_range(&mut r, 20, 55);
        assert_eq!(r, vec![(10, 60), (70, 80)]);
        insert_range(&mut r, 65, 66);
        assert_eq!(r, vec![(10, 60), (65, 66), (70, 80)]);
        insert_range(&mut r, 12, 15);
        assert_eq!(r, vec![(10, 60), (65, 66), (70, 80)]);
        insert_range(&mut r, 0, 5);
        assert_eq!(r, vec![(0, 5), (10, 60), (65, 66), (70, 80)]);
        insert_range(&mut r, 66, 70);
        assert_eq!(r, vec![(0, 5), (10, 60), (65, 80)]);
    }

    proptest! {
        #[test]
        fn in_place_merge_matches_the_plain_rule(
            segs in prop::collection::vec((0u64..400, 1u64..40), 1..40)
        ) {
            let mut r: Vec<(u64, u64)> = Vec::new();
            for (s, len) in segs {
                let want = merged(&r, s, s + len);
                insert_range(&mut r, s, s + len);
                prop_assert_eq!(&r, &want);
            }
        }
    }
}
