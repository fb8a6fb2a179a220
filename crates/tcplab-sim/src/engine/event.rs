//! What the event queue holds: the events of a run ([`Event`]), and the lazily cancelled timers
//! of TCP endpoints that schedule them ([`Timer`]).

use crate::engine::time::SimTime;

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
    /// The first packet held by node `node`'s processing delay is due.
    NodeRelease { node: u32 },
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
