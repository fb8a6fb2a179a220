//! CoDel, Controlled Delay (RFC 8289): an active queue manager that drops at dequeue when the
//! queue's sojourn time has stayed above `target` for at least `interval`.
//!
//! The state machine of RFC 8289 section 5 (its reference pseudocode, which Linux's
//! `codel_dequeue` follows):
//!
//! - each dequeued packet's sojourn time is compared with `target`; a packet that waited less,
//!   or that leaves at most one MTU-sized packet's bytes behind it, clears `first_above_time`;
//!   otherwise the first such packet sets `first_above_time = now + interval`, and once `now`
//!   passes it, the packet is `ok_to_drop`;
//! - outside the dropping state, an `ok_to_drop` packet is dropped, the next one dequeued, and
//!   the dropping state entered; `count` restarts at the drops of the previous dropping episode
//!   less those before it (`count - lastcount`) if that was recent (within 16 intervals), else 1;
//!   the next drop is due `interval / sqrt(count)` later (the control law);
//! - in the dropping state, every packet dequeued at or after `drop_next` is dropped while the
//!   packets stay `ok_to_drop`, `count` is incremented and `drop_next` advanced by the control
//!   law; the first packet that is not `ok_to_drop`, or an empty queue, ends the state.
//!
//! This module holds the queue, the state and the decisions; the link direction
//! (`crate::net::link`) dequeues when its transmitter becomes free. It does so lazily, when the
//! next arrival or delivery event comes: a drop is logged then, with the time it happened, so on a
//! CoDel link the `events` and `packets` tables can hold a drop a little out of time order.
//! The backlog test compares with the largest frame seen in wire bytes (RFC 8289's
//! `maxpacket`); Linux compares with the device MTU and ns-3 with `MinBytes`.

use std::collections::VecDeque;

use crate::engine::time::{Dur, SimTime};
use crate::net::pool::FrameId;

/// CoDel's parameters (RFC 8289 section 4.3 and 4.4: 5 ms and 100 ms).
#[derive(Clone, Debug, PartialEq)]
pub struct CoDelCfg {
    pub target: Dur,
    pub interval: Dur,
    /// As Linux's `codel_impl.h` and ns-3's `CoDelQueueDisc` rather than RFC 8289's
    /// pseudocode: a packet may be dropped only after `first_above_time`, not at it, and
    /// 1/sqrt(count) is a 16-bit fixed-point value refined by one Newton step per change of
    /// count (from 1.0 at count 1, so count 2 gives 0.5, not 0.707).
    pub linux: bool,
}

impl Default for CoDelCfg {
    fn default() -> Self {
        CoDelCfg {
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            linux: false,
        }
    }
}

/// One Newton step of the 16-bit reciprocal square root of `count` from `rec` (Q0.16):
/// x <- x (3 - count x^2) / 2, computed in 32-bit fixed point as the kernel does.
fn newton_step(count: u32, rec: u16) -> u16 {
    let x = u64::from(rec) << 16; // Q0.32
    let x2 = (x * x) >> 32;
    let mut val = (3u64 << 32).wrapping_sub(u64::from(count) * x2);
    val >>= 2; // room for the multiply below
    val = (val * x) >> (32 - 2 + 1);
    (val >> 16) as u16
}

/// A frame in a CoDel queue: when it arrived, its wire bytes, and the bytes enqueued up to and
/// including it (so that the backlog at any instant is a subtraction).
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    pub arrival: SimTime,
    pub wire: u32,
    /// The frame's slot in the simulator's packet pool.
    pub pkt: FrameId,
    /// Whether it carries payload (counted apart when dropped).
    pub data: bool,
    /// Whether the queue log (`output.queues`) holds its arrival.
    pub logged: bool,
    cum_bytes: u64,
}

/// A link direction's CoDel-managed queue: the frames waiting, and CoDel's state.
#[derive(Debug)]
pub struct CoDelQueue {
    cfg: CoDelCfg,
    pending: VecDeque<Pending>,
    enqueued_bytes: u64,
    dequeued_bytes: u64,
    /// The largest frame enqueued (RFC 8289's `maxpacket`, Linux's `maxpacket`).
    max_packet: u64,
    first_above_time: Option<SimTime>,
    drop_next: SimTime,
    count: u32,
    lastcount: u32,
    dropping: bool,
    /// 1/sqrt(count) in Q0.16 (the `linux` law only).
    rec_inv_sqrt: u16,
}

impl CoDelQueue {
    pub fn new(cfg: CoDelCfg) -> Self {
        CoDelQueue {
            cfg,
            pending: VecDeque::new(),
            enqueued_bytes: 0,
            dequeued_bytes: 0,
            max_packet: 0,
            first_above_time: None,
            drop_next: SimTime::ZERO,
            count: 0,
            lastcount: 0,
            dropping: false,
            rec_inv_sqrt: u16::MAX,
        }
    }

    /// Frames and wire bytes waiting (those that arrived by the last dequeue and after).
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.enqueued_bytes - self.dequeued_bytes
    }

    pub fn head_arrival(&self) -> Option<SimTime> {
        self.pending.front().map(|p| p.arrival)
    }

    pub fn push(&mut self, arrival: SimTime, wire: u32, pkt: FrameId, data: bool, logged: bool) {
        self.enqueued_bytes += u64::from(wire);
        self.max_packet = self.max_packet.max(u64::from(wire));
        self.pending.push_back(Pending {
            arrival,
            wire,
            pkt,
            data,
            logged,
            cum_bytes: self.enqueued_bytes,
        });
    }

    /// Bytes queued at `t`: the frames that had arrived by then.
    fn backlog_at(&self, t: SimTime) -> u64 {
        match self.pending.partition_point(|p| p.arrival <= t) {
            0 => 0,
            n => self.pending[n - 1].cum_bytes - self.dequeued_bytes,
        }
    }

    /// `t + interval / sqrt(count)`.
    fn control_law(&self, t: SimTime, count: u32) -> SimTime {
        if self.cfg.linux {
            let scale = u128::from(self.rec_inv_sqrt) << 16;
            return SimTime(t.0 + ((u128::from(self.cfg.interval.0) * scale) >> 32) as u64);
        }
        let step = self.cfg.interval.0 as f64 / f64::from(count.max(1)).sqrt();
        SimTime(t.0 + step as u64)
    }

    /// `count` changed: refresh 1/sqrt(count) for the `linux` law (1.0 for a count of 1).
    fn count_changed(&mut self) {
        if self.cfg.linux {
            self.rec_inv_sqrt = if self.count == 1 {
                u16::MAX
            } else {
                newton_step(self.count, self.rec_inv_sqrt)
            };
        }
    }

    /// RFC 8289's `do_dequeue` at `now`: the head frame if it had arrived, and whether it is
    /// `ok_to_drop`; an empty queue clears `first_above_time`.
    fn do_dequeue(&mut self, now: SimTime) -> (Option<Pending>, bool) {
        let Some(p) = self.pending.front().copied().filter(|p| p.arrival <= now) else {
            self.first_above_time = None;
            return (None, false);
        };
        self.pending.pop_front();
        self.dequeued_bytes += u64::from(p.wire);
        let sojourn = now.since(p.arrival);
        let ok = if sojourn < self.cfg.target || self.backlog_at(now) <= self.max_packet {
            self.first_above_time = None;
            false
        } else {
            match self.first_above_time {
                None => {
                    self.first_above_time = Some(now + self.cfg.interval);
                    false
                }
                Some(t) if self.cfg.linux => now > t,
                Some(t) => now >= t,
            }
        };
        (Some(p), ok)
    }

    /// RFC 8289's `dequeue` when the transmitter is free at `now`: the frame to send, if any;
    /// the frames dropped on the way are appended to `dropped`.
    pub fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Pending>) -> Option<Pending> {
        let (mut p, mut ok) = self.do_dequeue(now);
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                dropped.extend(p);
                self.count += 1;
                self.count_changed();
                (p, ok) = self.do_dequeue(now);
                if ok {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok {
            dropped.extend(p);
            (p, _) = self.do_dequeue(now);
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            let recent = now < self.drop_next + Dur(16 * self.cfg.interval.0);
            self.count = if delta > 1 && delta < u32::MAX / 2 && recent {
                delta
            } else {
                1
            };
            self.count_changed();
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    /// A queue of `n` 1000-byte frames that all arrived at 0.
    fn standing(n: usize) -> CoDelQueue {
        let mut q = CoDelQueue::new(CoDelCfg::default());
        for _ in 0..n {
            q.push(SimTime::ZERO, 1000, 0, false, false);
        }
        q
    }

    #[test]
    fn a_standing_queue_is_dropped_after_an_interval_then_faster() {
        let mut q = standing(100);
        let mut dropped = Vec::new();
        // Dequeued every 10 ms: sojourn 10 ms > 5 ms from the start. First above at 10 ms,
        // so ok_to_drop from 110 ms: the frame dequeued at 110 ms is dropped and the next one
        // sent; then a drop every 100 / sqrt(count) ms.
        let mut drops_at = Vec::new();
        for k in 1..=40 {
            let before = dropped.len();
            assert!(q.dequeue(ms(10 * k), &mut dropped).is_some());
            if dropped.len() > before {
                drops_at.push(10 * k);
            }
        }
        // 110 ms; then drop_next = 210 ms (count 1) -> 210; count 2: +70.7 -> 280.7 -> at 290;
        // count 3: +57.7 -> 338.4 -> at 340; count 4: +50 -> 388.4 -> at 390
        assert_eq!(drops_at, vec![110, 210, 290, 340, 390]);
        assert!(q.dropping);
    }

    #[test]
    fn a_short_queue_or_one_packet_behind_is_never_dropped() {
        let mut q = CoDelQueue::new(CoDelCfg::default());
        let mut dropped = Vec::new();
        // one frame at a time, each waiting 50 ms with nothing behind it
        for k in 0..20 {
            q.push(ms(100 * k), 1000, 0, false, false);
            assert!(q.dequeue(ms(100 * k + 50), &mut dropped).is_some());
        }
        assert!(dropped.is_empty());
        // an empty queue ends a dropping state
        q.dropping = true;
        assert!(q.dequeue(ms(5000), &mut dropped).is_none());
        assert!(!q.dropping);
    }

    #[test]
    fn the_kernels_newton_step_approximates_one_over_sqrt_count() {
        assert_eq!(newton_step(2, u16::MAX), 0x8001); // 0.50002 from a start of 1.0
        let mut x = u16::MAX;
        for n in 2..=50u32 {
            x = newton_step(n, x);
        }
        // after many steps it has converged near 1/sqrt(50) = 0.1414
        assert!((f64::from(x) / 65536.0 - 50f64.sqrt().recip()).abs() < 0.002);
    }

    #[test]
    fn the_backlog_counts_only_the_frames_that_have_arrived() {
        let mut q = CoDelQueue::new(CoDelCfg::default());
        q.push(ms(0), 1500, 0, false, false);
        q.push(ms(5), 1500, 0, false, false);
        q.push(ms(9), 1500, 0, false, false);
        assert_eq!(q.backlog_at(ms(4)), 1500);
        assert_eq!(q.backlog_at(ms(5)), 3000);
        assert_eq!(q.backlog_at(ms(100)), 4500);
        let mut d = Vec::new();
        q.dequeue(ms(6), &mut d);
        assert_eq!(q.backlog_at(ms(6)), 1500);
        assert_eq!(q.bytes(), 3000);
    }
}
