//! The sender's record of every segment sent and not yet cumulatively acknowledged.
//!
//! One entry per segment (data, or the FIN), in sequence order, with whether the receiver has
//! SACKed it, whether loss recovery has marked it lost, and whether it was retransmitted since.
//! Loss-recovery plug-ins read and mark it; the sender retransmits what is marked lost.

use std::collections::VecDeque;

use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seg {
    pub start: u64,
    /// One past the last sequence number (includes the FIN's).
    pub end: u64,
    pub fin: bool,
    pub sacked: bool,
    pub lost: bool,
    /// Retransmitted since it was last marked lost.
    pub retransmitted: bool,
    /// Transmissions so far (1 = sent once).
    pub tx_count: u32,
    pub last_sent: SimTime,
}

impl Seg {
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
    /// Payload bytes (the FIN occupies a sequence number but carries none).
    pub fn data_len(&self) -> u64 {
        self.len() - u64::from(self.fin)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<Seg>,
    /// RFC 6675 pipe, kept up to date on every change (the send loop reads it per segment).
    pipe: u64,
    /// Segments marked lost, not SACKed and not yet retransmitted.
    lost_pending: usize,
}

#[inline]
fn contribution(s: &Seg) -> u64 {
    if s.sacked {
        return 0;
    }
    let mut n = 0;
    if !s.lost {
        n += s.len();
    }
    if s.retransmitted {
        n += s.len();
    }
    n
}

#[inline]
fn pending(s: &Seg) -> bool {
    s.lost && !s.retransmitted && !s.sacked
}

impl Scoreboard {
    pub fn segs(&self) -> &VecDeque<Seg> {
        &self.segs
    }
    pub fn len(&self) -> usize {
        self.segs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn get(&self, i: usize) -> Option<&Seg> {
        self.segs.get(i)
    }

    /// Apply `f` to segment `i`, keeping the counters right.
    #[inline]
    fn update(&mut self, i: usize, f: impl FnOnce(&mut Seg)) {
        let Some(s) = self.segs.get_mut(i) else {
            return;
        };
        self.pipe -= contribution(s);
        self.lost_pending -= usize::from(pending(s));
        f(s);
        self.pipe += contribution(s);
        self.lost_pending += usize::from(pending(s));
    }

    pub fn push(&mut self, seg: Seg) {
        self.pipe += contribution(&seg);
        self.lost_pending += usize::from(pending(&seg));
        self.segs.push_back(seg);
    }

    /// Drop every segment fully covered by the cumulative ACK `ack`; trim one partly covered.
    pub fn ack_to(&mut self, ack: u64) {
        while let Some(f) = self.segs.front() {
            if f.end <= ack {
                self.pipe -= contribution(f);
                self.lost_pending -= usize::from(pending(f));
                self.segs.pop_front();
            } else {
                if f.start < ack {
                    self.update(0, |s| s.start = ack);
                }
                break;
            }
        }
    }

    /// Mark segments wholly inside a SACK block. Returns the bytes newly SACKed.
    pub fn sack(&mut self, start: u64, end: u64) -> u64 {
        let mut newly = 0;
        // Segments are sorted; find the first that may be covered.
        let first = self.segs.partition_point(|s| s.end <= start);
        for i in first..self.segs.len() {
            let s = self.segs[i];
            if s.start >= end {
                break;
            }
            if s.start >= start && s.end <= end && !s.sacked {
                newly += s.len();
                self.update(i, |s| s.sacked = true);
            }
        }
        newly
    }

    /// The first segment marked lost and not yet retransmitted.
    #[inline]
    pub fn next_lost(&self) -> Option<usize> {
        if self.lost_pending == 0 {
            return None;
        }
        self.segs.iter().position(pending)
    }

    pub fn mark_lost(&mut self, i: usize) {
        self.update(i, |s| {
            if !s.sacked {
                s.lost = true;
                s.retransmitted = false;
            }
        });
    }

    /// Mark every unSACKed segment lost (after a retransmission timeout).
    pub fn mark_all_lost(&mut self) {
        for i in 0..self.segs.len() {
            self.mark_lost(i);
        }
    }

    /// Record a retransmission of segment `i` at `now`.
    pub fn retransmitted(&mut self, i: usize, now: SimTime) {
        self.update(i, |s| {
            s.retransmitted = true;
            s.tx_count += 1;
            s.last_sent = now;
        });
    }

    pub fn first(&self) -> Option<&Seg> {
        self.segs.front()
    }

    pub fn highest_sacked(&self) -> Option<u64> {
        self.segs.iter().rev().find(|s| s.sacked).map(|s| s.end)
    }

    /// RFC 6675 pipe: octets not SACKed and not lost, plus octets retransmitted.
    #[inline]
    pub fn rfc6675_pipe(&self) -> u64 {
        self.pipe
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.segs.iter().filter(|s| s.sacked).map(|s| s.len()).sum()
    }

    /// Recompute the counters from scratch (tests use it to check the incremental ones).
    pub fn recount(&self) -> (u64, usize) {
        (
            self.segs.iter().map(contribution).sum(),
            self.segs.iter().filter(|s| pending(s)).count(),
        )
    }
}
