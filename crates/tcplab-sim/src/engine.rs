//! The event queue: a binary heap keyed by `(time, seq)`.
//!
//! `seq` is a counter taken when an event is scheduled, so events at the same instant run in the
//! order they were scheduled, and every run is deterministic. Time never goes backwards: popping
//! asserts it (a violation is a bug and is reported as an internal error by the caller).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::SimTime;

/// What happens when an event fires. Small and `Copy`: packets in flight live in their link's
/// FIFO, not in the heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head frame of link direction `dir` reaches the far end.
    LinkDeliver { dir: u32 },
    /// A timer of one TCP endpoint (`end` 0 = client, 1 = server).
    Timer { conn: u32, end: u8, kind: TimerKind },
    /// An application starts.
    AppStart { app: u32 },
    /// An application's periodic action (CBR packets, bulk refills).
    AppTick { app: u32 },
    /// Fixed-interval trace sampling.
    Sample,
    /// The run's stop time.
    Stop,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimerKind {
    Rto = 0,
    DelAck = 1,
    Persist = 2,
    Read = 3,
    /// The loss-recovery plug-in's reordering timer (RACK, RFC 8985 section 6.2 step 5).
    Reorder = 4,
    /// The loss-recovery plug-in's probe timer (TLP's PTO, RFC 8985 section 7.2).
    Probe = 5,
    /// The pacing release time of the next segment (congestion controls that pace, e.g. BBR).
    Pace = 6,
}
pub const N_TIMERS: usize = 7;

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap, we want the earliest (time, seq) first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then(o.seq.cmp(&self.seq))
    }
}

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    now: SimTime,
    popped: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Events executed so far.
    pub fn executed(&self) -> u64 {
        self.popped
    }

    /// Schedule `ev` at `time` (which must not be in the past).
    #[inline]
    pub fn schedule(&mut self, time: SimTime, ev: Event) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let time = time.max(self.now);
        self.seq += 1;
        self.heap.push(Entry {
            time,
            seq: self.seq,
            ev,
        });
    }

    /// Take the next event, advancing the clock. `None` when the queue is empty.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let e = self.heap.pop()?;
        // Invariant: time never goes backwards (guaranteed by `schedule`).
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.ev))
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// A lazily cancelled timer. Re-arming or cancelling never removes heap entries; a stale entry is
/// recognised when it fires. The invariant: whenever `deadline` is set, some heap entry for this
/// timer exists at or before it (`queued`, the earliest one we scheduled and still track).
#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    pub deadline: Option<SimTime>,
    queued: Option<SimTime>,
}

impl Timer {
    /// Arm (or re-arm) the timer for `at`. Returns the time at which a heap entry must be
    /// scheduled, if one is needed.
    #[inline]
    #[must_use]
    pub fn arm(&mut self, at: SimTime) -> Option<SimTime> {
        self.deadline = Some(at);
        match self.queued {
            Some(q) if q <= at => None,
            _ => {
                self.queued = Some(at);
                Some(at)
            }
        }
    }

    #[inline]
    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// A heap entry for this timer fired at `now`. Returns (fire?, reschedule-at).
    #[inline]
    #[must_use]
    pub fn on_fire(&mut self, now: SimTime) -> (bool, Option<SimTime>) {
        if self.queued == Some(now) {
            self.queued = None;
        }
        match self.deadline {
            Some(d) if d <= now => {
                self.deadline = None;
                (true, None)
            }
            Some(d) if self.queued.is_none() => {
                self.queued = Some(d);
                (false, Some(d))
            }
            _ => (false, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_time_events_run_in_scheduling_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), Event::AppStart { app: 1 });
        q.schedule(SimTime(5), Event::AppStart { app: 0 });
        q.schedule(SimTime(10), Event::AppStart { app: 2 });
        q.schedule(SimTime(10), Event::Sample);
        let order: Vec<Event> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            vec![
                Event::AppStart { app: 0 },
                Event::AppStart { app: 1 },
                Event::AppStart { app: 2 },
                Event::Sample
            ]
        );
    }

    #[test]
    fn lazy_timer_fires_once_at_latest_deadline() {
        let mut t = Timer::default();
        let mut heap = vec![];
        heap.extend(t.arm(SimTime(100)));
        // Re-arm later: no new entry needed now.
        assert_eq!(t.arm(SimTime(300)), None);
        // The entry at 100 fires: stale, so it reschedules at 300.
        let (fire, re) = t.on_fire(SimTime(100));
        assert!(!fire);
        assert_eq!(re, Some(SimTime(300)));
        // Re-arm earlier than the queued entry: a new entry is needed.
        assert_eq!(t.arm(SimTime(200)), Some(SimTime(200)));
        assert_eq!(t.on_fire(SimTime(200)), (true, None));
        // The untracked entry at 300 is now stale and does nothing.
        assert_eq!(t.on_fire(SimTime(300)), (false, None));
        // Cancelled timers never fire.
        heap.extend(t.arm(SimTime(400)));
        t.cancel();
        assert_eq!(t.on_fire(SimTime(400)), (false, None));
    }
}
