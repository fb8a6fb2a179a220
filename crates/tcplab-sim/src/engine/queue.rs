//! The event queue, keyed by `(time, seq)`: with few pending events a 4-ary heap and two places
//! beside it, with many a timing wheel of short slots and a heap for the events beyond its span
//! (see [`EventQueue`]).
//!
//! `seq` is a counter taken when an event is scheduled (or reserved earlier, for an event
//! scheduled later in the place it would have had: [`EventQueue::reserve`]), so events at the
//! same instant run in the order they were scheduled, and every run is deterministic. Time never
//! goes backwards: an event scheduled in the past is a caller's bug, caught by a debug assertion
//! (a release build runs it at the current time).

use crate::engine::event::Event;
use crate::engine::heap::{Entry, Heap};
use crate::engine::time::SimTime;
use crate::engine::wheel::{slot_of, Run, Wheel, SLOTS, SLOT_SHIFT};

/// How many events wait beside the heap (see [`EventQueue`]). Two: a run that keeps more
/// events pending than there are places walks most new events to their place and moves the
/// latest to the heap, and one that keeps fewer shifts the places for nothing at every pop. On
/// the 1-flow ns-2 dumbbell (three hops each way, about seven events pending) two places against
/// three took 5.1 % fewer instructions and 4 to 6 % less time; on ns-2's chain and on a bulk
/// transfer (fewer events pending) 0.9 to 2.2 % more instructions and the same time within 1 %
/// (BENCHMARKS.md, seventh session).
const NEAR: usize = 2;

/// The wheel is used only while the events are many: from when the heap reaches `WHEEL_ON`
/// entries until the wheel and the far heap hold `WHEEL_OFF` or fewer. With few events (a single
/// flow) the heap and the events beside it are cheaper than the wheel's pushes and slot changes.
const WHEEL_ON: usize = 256;
/// The wheel stops at a change of slot that finds between 1 and `WHEEL_OFF` events left in the
/// wheel and the far heap (with none left it stays on, empty, until the next event).
const WHEEL_OFF: usize = 32;

/// The event queue: the events due soon in a heap and beside it, and, while the events are many,
/// the later ones in a timing wheel and those beyond its span in a second heap.
///
/// Most events schedule the next ones themselves, and the events due soon are few: in a single
/// flow the earliest wait beside the heap, where taking the earliest is a comparison with the heap's
/// top and a shift of at most one entry, instead of a sift-down (and a sift-up when it was
/// pushed). A new event goes beside the heap when there is room there (in its place by key), or
/// when it is earlier than the last one there (which then moves to the heap); else it goes to the
/// heap. A pop takes whichever of the first one beside the heap and the heap's top has the
/// smaller key.
///
/// With many flows the pending events are many (a head frame per busy link direction, armed
/// timers, most of them far off) and a heap of them all costs a sift-down of several levels per
/// pop. So once the heap is large the wheel starts, and the heap and the places beside it stay
/// empty while it runs: the events of the current slot are in `run`, sorted; an event in one of
/// the next `SLOTS` slots goes into its wheel slot, one further off into the far heap, and one in
/// the current slot (rare: slots are short) into its place in `run`. When `run` is empty, the
/// next occupied slot (or the far heap's first, when that is earlier) becomes the current one:
/// its events are sorted into `run` and `base` moves past it. Every event in the run is earlier
/// than every event in the wheel or the far heap, and keys are unique, so the order of events is
/// exactly that of one heap holding them all. (Keys are unique because each counter is taken
/// once: by `schedule`, or by `reserve` for one `schedule_reserved`, which debug builds check.)
#[derive(Debug)]
pub struct EventQueue {
    heap: Heap,
    /// The smallest key of the heap (`u128::MAX` when it is empty), read at every pop while the
    /// wheel is off.
    heap_min: u128,
    /// `near[..n_near]`: events outside the heap, by increasing key.
    near: [Entry; NEAR],
    n_near: usize,
    /// The events of the current wheel slot.
    run: Run,
    /// The first wheel slot (time >> SLOT_SHIFT) not yet taken into `run`; `u64::MAX` while the
    /// wheel is off (every event goes beside the heap or into it).
    base: u64,
    /// An event before this time goes beside the heap or into it: `u64::MAX` while the wheel is
    /// off, 0 while it is on (every event then goes to `insert_later`, a test never
    /// mispredicted; with the test on the slot's start, cachegrind's branch simulation found
    /// it mispredicted four times in ten).
    limit: u64,
    wheel: Wheel,
    /// Events at slot `base + SLOTS` or later when they were scheduled.
    far: Heap,
    seq: u64,
    now: SimTime,
    popped: u64,
    /// The key of the last event popped (debug builds: `schedule_reserved` checks that a
    /// reserved event comes after it).
    #[cfg(debug_assertions)]
    last_key: u128,
    /// The counters `reserve` gave and not yet used (debug builds: each is used once).
    #[cfg(debug_assertions)]
    reserved: std::collections::BTreeSet<u64>,
}

/// The events after the one being taken in the wheel's current slot, in their order as the
/// slot stands (an event the one being taken schedules into the slot joins them later):
/// `EventQueue::pop_then`.
#[derive(Clone, Copy, Debug)]
pub struct Upcoming<'a>(&'a [Entry]);

impl Upcoming<'_> {
    /// The `k`-th of them (0: the next event), if the slot has it.
    #[inline(always)]
    pub fn event(&self, k: usize) -> Option<Event> {
        self.0.get(k).map(|e| e.ev)
    }
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            heap: Heap::default(),
            heap_min: u128::MAX,
            near: [Entry::new(0, 0, Event::Stop); NEAR],
            n_near: 0,
            run: Run::default(),
            base: u64::MAX,
            limit: u64::MAX,
            wheel: Wheel::default(),
            far: Heap::default(),
            seq: 0,
            now: SimTime::ZERO,
            popped: 0,
            #[cfg(debug_assertions)]
            last_key: 0,
            #[cfg(debug_assertions)]
            reserved: std::collections::BTreeSet::new(),
        }
    }
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

    /// Take the next `n` scheduling counters for events to be scheduled later with
    /// [`schedule_reserved`](Self::schedule_reserved): the first of them. Events scheduled so
    /// get the places they would have had if scheduled now, without waiting in the queue.
    pub fn reserve(&mut self, n: u64) -> u64 {
        let first = self.seq + 1;
        self.seq += n;
        #[cfg(debug_assertions)]
        self.reserved.extend(first..first + n);
        first
    }

    /// Schedule `ev` at `time` with the counter `seq`, one that [`reserve`](Self::reserve)
    /// gave and not used yet. Its key must be above that of the event being run (the last one
    /// popped), as it would have been had it waited in the queue since its reservation.
    pub fn schedule_reserved(&mut self, time: SimTime, seq: u64, ev: Event) {
        #[cfg(debug_assertions)]
        {
            let key = (u128::from(time.0) << 64) | u128::from(seq);
            assert!(
                self.reserved.remove(&seq),
                "counter {seq} not reserved, or used twice"
            );
            assert!(
                key > self.last_key,
                "a reserved event before the event being run"
            );
        }
        let time = time.max(self.now);
        let e = Entry::new(time.0, seq, ev);
        if time.0 < self.limit {
            self.insert_current(e);
        } else {
            self.insert_later(e);
        }
    }

    /// Schedule `ev` at `time` (which must not be in the past).
    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, ev: Event) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let time = time.max(self.now);
        self.seq += 1;
        let e = Entry::new(time.0, self.seq, ev);
        if time.0 < self.limit {
            self.insert_current(e);
        } else {
            self.insert_later(e);
        }
    }

    /// While the wheel is on: an event in the current slot goes into its place in the run, one in
    /// the wheel's span into its slot, a later one into the far heap. (While it is off, only an
    /// event at the end of time comes here, and goes beside the heap or into it.) Out of
    /// line: in line at every `schedule`, it made the callers big enough to change what the
    /// compiler inlines into them (+50 instructions per data segment on a single bulk flow,
    /// which never gets here). Marked cold for the same flow's sake, although with many flows
    /// every event comes here (a call costs the same either way; measured on the earlier wheel,
    /// per data segment, 1 pair 3,108 -> 3,104, 1,000 pairs 3,388 -> 3,383).
    #[cold]
    #[inline(never)]
    fn insert_later(&mut self, e: Entry) {
        let slot = slot_of(e.key());
        // While the wheel is off only an event at the end of time comes here (see `limit`),
        // and `base` is `u64::MAX`: the test fails for it (its slot is `u64::MAX >> SLOT_SHIFT`,
        // and the difference wraps to that plus one, far above `SLOTS`), as it does for an
        // event in the slot being run (the difference wraps) or beyond the wheel's span.
        debug_assert!(self.base != u64::MAX || e.time() == u64::MAX);
        if slot.wrapping_sub(self.base) < SLOTS as u64 {
            self.wheel.push(slot as usize, e);
        } else {
            self.insert_elsewhere(e, slot);
        }
    }

    /// The rest of `insert_later`, out of its line so that its common case (a push into the
    /// wheel) saves and restores few registers: the wheel is off (the event is at the end of
    /// time), or the event is in the slot being run, or beyond the wheel's span.
    #[cold]
    #[inline(never)]
    fn insert_elsewhere(&mut self, e: Entry, slot: u64) {
        if self.base == u64::MAX {
            self.insert_current(e);
        } else if slot < self.base {
            self.run.insert(e);
        } else {
            self.far.push(e);
        }
    }

    /// While the wheel is off: the event goes beside the heap or into it.
    #[inline(always)]
    fn insert_current(&mut self, e: Entry) {
        let n = self.n_near;
        if n < NEAR {
            // Not full, and usually the latest: appended, with no copy of the last entry.
            if n == 0 || self.near[n - 1].key() < e.key() {
                self.near[n] = e;
                self.n_near = n + 1;
                return;
            }
        } else if e.key() > self.near[NEAR - 1].key() {
            self.heap_push(e);
            return;
        }
        // Insertion into the sorted entries (a new event is usually the latest: no shift); when
        // they are full, the last one moves to the heap, after the insertion, so that the heap
        // push (which may start the wheel, moving them all) sees them complete.
        let displaced = self.near[NEAR - 1];
        let mut i = n.min(NEAR - 1);
        while i > 0 && self.near[i - 1].key() > e.key() {
            self.near[i] = self.near[i - 1];
            i -= 1;
        }
        self.near[i] = e;
        if n == NEAR {
            self.heap_push(displaced);
        } else {
            self.n_near = n + 1;
        }
    }

    #[inline(always)]
    fn heap_push(&mut self, e: Entry) {
        self.heap_min = self.heap_min.min(e.key());
        if self.heap.v.len() < WHEEL_ON - 1 {
            self.heap.push(e);
        } else {
            self.heap_push_slow(e);
        }
    }

    /// The heap is about to reach `WHEEL_ON` entries: start the wheel. (While it is on, events
    /// go neither beside the heap nor into it.)
    #[cold]
    #[inline(never)]
    fn heap_push_slow(&mut self, e: Entry) {
        debug_assert_eq!(
            self.base,
            u64::MAX,
            "the heap is not used while the wheel is on"
        );
        self.heap.push(e);
        self.wheel_on();
    }

    /// Take the next event, advancing the clock. `None` when the queue is empty.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_then(|_| {})
    }

    /// `pop`, which, when it takes the event from the wheel's current slot, first shows
    /// `ahead` the events that follow it there: what the caller will run next, whose state it
    /// may start loading. (Only on the wheel's path: a single flow's events, taken beside the
    /// heap or from it, are not shown; the caller's closure still costs its loop a couple of
    /// instructions an event.)
    #[inline(always)]
    pub fn pop_then(&mut self, ahead: impl FnOnce(Upcoming<'_>)) -> Option<(SimTime, Event)> {
        loop {
            let n = self.n_near;
            // The single flow's case first: while the wheel is on nothing is beside the heap.
            let e = if n > 0 && self.near[0].key() < self.heap_min {
                let e = self.near[0];
                // Shift them all, whatever their number: fixed moves, no loop and no bounds
                // tests (the entries past `n_near` are never read).
                self.near.copy_within(1.., 0);
                self.n_near = n - 1;
                e
            } else if self.base != u64::MAX {
                // The wheel is on: the heap is empty too, the run has the next event.
                debug_assert!(n == 0 && self.heap.is_empty());
                match self.run.pop() {
                    Some(e) => {
                        ahead(Upcoming(self.run.rest()));
                        e
                    }
                    None => {
                        if !self.next_slot() {
                            return None;
                        }
                        continue;
                    }
                }
            } else if let Some(e) = self.heap.pop() {
                self.heap_min = self.heap.min_key();
                e
            } else {
                // The wheel is off, so the wheel and the far heap are empty too.
                debug_assert!(self.wheel.len == 0 && self.far.is_empty());
                return None;
            };
            // Invariant: time never goes backwards (`schedule` and `schedule_reserved` clamp a time
            // in the past to `now`).
            let time = SimTime(e.time());
            self.now = time;
            self.popped += 1;
            #[cfg(debug_assertions)]
            {
                debug_assert!(e.key() > self.last_key, "events popped out of order");
                self.last_key = e.key();
            }
            return Some((time, e.ev));
        }
    }

    #[inline]
    fn set_base(&mut self, base: u64) {
        self.base = base;
        self.limit = if base == u64::MAX { u64::MAX } else { 0 };
    }

    /// Start using the wheel: the events after the current slot leave the heap (and the places
    /// beside it) for the wheel or the far heap.
    #[cold]
    #[inline(never)]
    fn wheel_on(&mut self) {
        self.wheel.start();
        self.set_base((self.now.0 >> SLOT_SHIFT) + 1);
        let mut all = std::mem::take(&mut self.heap.v);
        all.extend_from_slice(&self.near[..self.n_near]);
        self.n_near = 0;
        self.run.reset();
        for e in all.drain(..) {
            if slot_of(e.key()) < self.base {
                self.run.v.push(e);
            } else {
                self.insert_later(e);
            }
        }
        self.run.sort();
        self.heap_min = u128::MAX;
        // The heap stays empty while the wheel is on; keep its allocation for later.
        self.heap.v = all;
    }

    /// Stop using the wheel: its events and the far heap's go into the heap (which is empty, as
    /// are the run and the places beside it).
    #[cold]
    #[inline(never)]
    fn wheel_off(&mut self) {
        // The run is empty: its allocation holds each slot's events on their way to the heap.
        self.run.reset();
        while let Some(d) = self.wheel.next_occupied(self.base as usize & (SLOTS - 1)) {
            self.wheel
                .take((self.base + d as u64) as usize, &mut self.run.v);
            for e in self.run.v.drain(..) {
                self.heap.push(e);
            }
        }
        while let Some(e) = self.far.pop() {
            self.heap.push(e);
        }
        self.heap_min = self.heap.min_key();
        self.set_base(u64::MAX);
    }

    /// Sort the events of the next occupied slot into the run, and move `base` past the slot.
    /// Called while the wheel is on, when the run is empty. True when the run has events, or when
    /// the wheel went off (1 to `WHEEL_OFF` events left, now in the heap); false when no event is
    /// left.
    #[cold]
    #[inline(never)]
    fn next_slot(&mut self) -> bool {
        debug_assert!(self.base != u64::MAX && self.run.is_empty());
        let pending = self.wheel.len + self.far.v.len();
        if pending <= WHEEL_OFF {
            if pending == 0 {
                return false;
            }
            self.wheel_off();
            return true;
        }
        let in_wheel = self
            .wheel
            .next_occupied(self.base as usize & (SLOTS - 1))
            .map_or(u64::MAX, |d| self.base + d as u64);
        let far = self.far.min_key();
        let in_far = if far == u128::MAX {
            u64::MAX
        } else {
            slot_of(far)
        };
        let slot = in_wheel.min(in_far);
        // The wheel's window now starts at `slot`: the far events that fall in it join their
        // slots (the wheel holds nothing before `slot`, so no two of its slots collide). Compared
        // as slots: as a key, the window's end overflows in the last span before the end of time.
        let end = slot + SLOTS as u64;
        while slot_of(self.far.min_key()) < end {
            let Some(e) = self.far.pop() else { break };
            self.wheel.push(slot_of(e.key()) as usize, e);
        }
        self.set_base(slot + 1);
        self.run.reset();
        self.wheel.take_sorted(slot as usize, &mut self.run.v);
        debug_assert!(!self.run.is_empty(), "the next slot holds an event");
        true
    }

    pub fn is_empty(&self) -> bool {
        self.n_near == 0
            && self.heap.is_empty()
            && self.run.is_empty()
            && self.wheel.len == 0
            && self.far.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::Dur;

    #[test]
    fn pops_in_time_then_scheduling_order_under_random_interleaving() {
        // Interleaved pushes and pops, times drawn around `now`: every pop must return the
        // smallest (time, seq) pushed and not yet popped.
        // The crate's own generator (rng::stream), seeded for this test.
        let mut rng = crate::engine::rng::stream(1, "engine-test");
        let mut next = || rand::RngCore::next_u64(&mut rng);
        let mut q = EventQueue::new();
        let mut model: Vec<(u64, u64)> = Vec::new();
        let mut seq = 0;
        for _ in 0..20_000 {
            if next() % 3 != 0 || model.is_empty() {
                let t = q.now().0 + next() % 50;
                seq += 1;
                q.schedule(SimTime(t), Event::AppTick { app: seq as u32 });
                model.push((t, seq));
            } else {
                let want = *model.iter().min().unwrap();
                let i = model.iter().position(|&w| w == want).unwrap();
                model.swap_remove(i);
                let (t, ev) = q.pop().unwrap();
                assert_eq!((t.0, ev), (want.0, Event::AppTick { app: want.1 as u32 }));
            }
        }
        while let Some((t, ev)) = q.pop() {
            let want = *model.iter().min().unwrap();
            model.retain(|&w| w != want);
            assert_eq!((t.0, ev), (want.0, Event::AppTick { app: want.1 as u32 }));
        }
        assert!(model.is_empty());
    }

    /// Drive `q` and a model (a plain list searched for its minimum) with the same interleaved
    /// schedules and pops, times drawn by `delay`; every pop must agree.
    fn against_model(seed: u64, ops: usize, push_bias: u64, delay: impl Fn(u64) -> u64) {
        let mut rng = crate::engine::rng::stream(seed, "engine-test");
        let mut next = || rand::RngCore::next_u64(&mut rng);
        let mut q = EventQueue::new();
        let mut model: Vec<(u64, u64)> = Vec::new();
        let mut seq = 0;
        let check = |q: &mut EventQueue, model: &mut Vec<(u64, u64)>| {
            let want = *model.iter().min().unwrap();
            let i = model.iter().position(|&w| w == want).unwrap();
            model.swap_remove(i);
            let (t, ev) = q.pop().unwrap();
            assert_eq!((t.0, ev), (want.0, Event::AppTick { app: want.1 as u32 }));
        };
        for _ in 0..ops {
            if next() % 100 < push_bias || model.is_empty() {
                let t = q.now().0.saturating_add(delay(next()));
                seq += 1;
                q.schedule(SimTime(t), Event::AppTick { app: seq as u32 });
                model.push((t, seq));
            } else {
                check(&mut q, &mut model);
            }
            assert_eq!(q.is_empty(), model.is_empty());
        }
        while !model.is_empty() {
            check(&mut q, &mut model);
        }
        assert!(q.is_empty());
        assert!(q.pop().is_none());
    }

    #[test]
    fn pop_then_shows_the_rest_of_the_wheel_slot_and_only_from_the_wheel() {
        // A few events: the wheel stays off, and nothing is shown.
        let mut q = EventQueue::new();
        for i in 0..10u32 {
            q.schedule(SimTime(u64::from(i % 3) * 1_000), Event::AppTick { app: i });
        }
        while q.pop_then(|_| panic!("shown with the wheel off")).is_some() {}
        // Many events, several in a slot, and more scheduled while they run (never into the
        // slot being run): each pop from the wheel shows exactly the events the next pops take
        // from the same slot, in their order.
        let mut rng = crate::engine::rng::stream(7, "engine-test");
        let mut next = || rand::RngCore::next_u64(&mut rng);
        let mut q = EventQueue::new();
        let mut app = 0u32;
        for _ in 0..2_000 {
            app += 1;
            q.schedule(SimTime(next() % 2_000_000), Event::AppTick { app });
        }
        let mut pops: Vec<(u64, Event, Option<Vec<Event>>)> = Vec::new();
        loop {
            let mut shown = None;
            let Some((t, ev)) = q.pop_then(|up| {
                shown = Some((0..).map_while(|k| up.event(k)).collect::<Vec<_>>());
            }) else {
                break;
            };
            pops.push((t.0, ev, shown));
            if pops.len().is_multiple_of(4) && pops.len() < 3_000 {
                app += 1;
                let t = q.now().0 + (2 << SLOT_SHIFT) + next() % 1_000_000;
                q.schedule(SimTime(t), Event::AppTick { app });
            }
        }
        let slot = |t: u64| t >> SLOT_SHIFT;
        let (mut shown, mut longest) = (0, 0);
        for (i, (t, _, list)) in pops.iter().enumerate() {
            let Some(list) = list else { continue };
            shown += 1;
            longest = longest.max(list.len());
            let after: Vec<Event> = pops[i + 1..]
                .iter()
                .take_while(|(u, _, _)| slot(*u) == slot(*t))
                .map(|&(_, e, _)| e)
                .collect();
            assert_eq!(list, &after, "pop {i}");
        }
        assert!(shown > pops.len() / 2 && longest >= 3, "{shown} {longest}");
    }

    #[test]
    fn wheel_pops_in_time_then_scheduling_order_at_every_time_scale() {
        // Delays from 0 (events at `now`) through a slot, the wheel's span and far beyond it,
        // with the queue growing (the wheel starts), then draining (it stops), then again.
        let span = (SLOTS as u64) << SLOT_SHIFT;
        let delay = |r: u64| match r % 8 {
            0 => 0,
            1 => r % 50,
            2 => r % (1 << SLOT_SHIFT),
            3 => r % (4 << SLOT_SHIFT),
            4 => r % span,
            5 => span - 1 + r % 3,
            6 => r % (10 * span),
            _ => (1 << SLOT_SHIFT) * (r % 5),
        };
        for seed in 1..4 {
            against_model(seed, 30_000, 60, delay);
            against_model(seed, 30_000, 50, delay);
        }
        // Only far-off events: the wheel's window jumps to the far heap's first.
        against_model(7, 20_000, 60, |r| 3 * span + r % (50 * span));
        // Only same-slot events while the wheel is on: the run takes them all.
        against_model(8, 20_000, 60, |r| r % 7);
    }

    #[test]
    fn the_end_of_time_while_the_wheel_is_off() {
        // Only an event at the end of time takes `insert_later` while the wheel is off; it
        // must go beside the heap (or into it), never into the wheel.
        let mut q = EventQueue::new();
        q.schedule(SimTime(5), Event::AppStart { app: 0 });
        q.schedule(SimTime::MAX, Event::Stop);
        q.schedule(SimTime(7), Event::AppStart { app: 1 });
        q.schedule(SimTime::MAX, Event::Sample);
        q.schedule(SimTime(6), Event::AppStart { app: 2 });
        assert_eq!(q.base, u64::MAX, "the wheel is off");
        assert_eq!(q.wheel.len, 0);
        let popped: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            popped,
            vec![
                (SimTime(5), Event::AppStart { app: 0 }),
                (SimTime(6), Event::AppStart { app: 2 }),
                (SimTime(7), Event::AppStart { app: 1 }),
                (SimTime::MAX, Event::Stop),
                (SimTime::MAX, Event::Sample),
            ]
        );
    }

    #[test]
    fn wheel_corner_cases() {
        let mut q = EventQueue::new();
        assert!(q.is_empty());
        assert!(q.pop().is_none());
        // Enough far-off events to start the wheel, then same-time events and events at `now`.
        let span = (SLOTS as u64) << SLOT_SHIFT;
        for i in 0..WHEEL_ON as u32 * 2 {
            q.schedule(SimTime(5 * span + u64::from(i)), Event::AppTick { app: i });
        }
        assert_ne!(q.base, u64::MAX, "the wheel is on");
        q.schedule(SimTime(10), Event::AppStart { app: 0 });
        q.schedule(SimTime(10), Event::AppStart { app: 1 });
        assert_eq!(q.pop(), Some((SimTime(10), Event::AppStart { app: 0 })));
        q.schedule(SimTime(10), Event::AppStart { app: 2 });
        q.schedule(SimTime(5 * span), Event::AppStart { app: 3 });
        // The end of time: a slot the wheel's window can never reach past.
        q.schedule(SimTime::MAX, Event::Stop);
        q.schedule(SimTime(u64::MAX - 1), Event::Sample);
        assert_eq!(q.pop(), Some((SimTime(10), Event::AppStart { app: 1 })));
        assert_eq!(q.pop(), Some((SimTime(10), Event::AppStart { app: 2 })));
        assert_eq!(
            q.pop(),
            Some((SimTime(5 * span), Event::AppTick { app: 0 }))
        );
        assert_eq!(
            q.pop(),
            Some((SimTime(5 * span), Event::AppStart { app: 3 }))
        );
        for i in 1..WHEEL_ON as u32 * 2 {
            assert_eq!(
                q.pop(),
                Some((SimTime(5 * span + u64::from(i)), Event::AppTick { app: i }))
            );
            // An event at `now` runs next.
            if i % 100 == 0 {
                q.schedule(q.now(), Event::AppStart { app: i });
                assert_eq!(q.pop(), Some((q.now(), Event::AppStart { app: i })));
            }
        }
        assert_eq!(q.pop(), Some((SimTime(u64::MAX - 1), Event::Sample)));
        assert_eq!(q.pop(), Some((SimTime::MAX, Event::Stop)));
        assert!(q.pop().is_none());
        assert!(q.is_empty());
        // Emptied, the queue takes new events (at `now` and later) in order again.
        q.schedule(SimTime::MAX, Event::AppStart { app: 9 });
        assert_eq!(q.pop(), Some((SimTime::MAX, Event::AppStart { app: 9 })));
        assert!(q.pop().is_none());
    }

    #[test]
    fn many_events_at_the_end_of_time_pop_in_order() {
        // More than `WHEEL_OFF` of them, so the wheel stays on while the far heap holds them
        // all: the window's end, computed as a key, overflowed there and `pop` never returned.
        let mut q = EventQueue::new();
        for i in 0..300 {
            q.schedule(
                SimTime(u64::MAX - 300 + i),
                Event::AppTick { app: i as u32 },
            );
            q.schedule(SimTime::MAX, Event::AppStart { app: i as u32 });
        }
        assert_ne!(q.base, u64::MAX, "the wheel is on");
        for i in 0..300 {
            let t = SimTime(u64::MAX - 300 + i);
            assert_eq!(q.pop(), Some((t, Event::AppTick { app: i as u32 })));
        }
        for i in 0..300 {
            assert_eq!(q.pop(), Some((SimTime::MAX, Event::AppStart { app: i })));
        }
        assert!(q.is_empty() && q.pop().is_none());
    }

    #[test]
    fn a_burst_at_one_instant_while_the_wheel_is_on_keeps_its_order() {
        // Many events at `now` while the wheel is on (many applications starting at 0) join the
        // run at its end, in the order they were scheduled.
        let mut q = EventQueue::new();
        for i in 0..1000u32 {
            q.schedule(SimTime(0), Event::AppStart { app: i });
        }
        assert_ne!(q.base, u64::MAX, "the wheel is on");
        q.schedule(SimTime(5), Event::Sample);
        for i in 0..1000u32 {
            assert_eq!(q.pop(), Some((SimTime(0), Event::AppStart { app: i })));
            if i % 100 == 0 {
                q.schedule(SimTime(0), Event::AppTick { app: i });
            }
        }
        for i in (0..1000u32).step_by(100) {
            assert_eq!(q.pop(), Some((SimTime(0), Event::AppTick { app: i })));
        }
        assert_eq!(q.pop(), Some((SimTime(5), Event::Sample)));
        assert!(q.pop().is_none());
    }

    #[test]
    fn bursts_leave_no_large_vectors_in_the_wheel() {
        // Six bursts of 20,000 events, each at one instant and in another part of the wheel,
        // among 400 events that keep the wheel on, each scheduling the next 400 slots on: after
        // the run, the slots' vectors have room for a few entries each, not for the bursts
        // (a burst's vector would stay in the slot after its own, which stays empty).
        let span = (SLOTS as u64) << SLOT_SHIFT;
        let step = 1u64 << SLOT_SHIFT;
        let mut q = EventQueue::new();
        let mut scheduled = 0u64;
        for i in 0..400u64 {
            q.schedule(SimTime(i * step), Event::Sample);
            scheduled += 1;
        }
        let (mut burst_at, mut bursts) = (50 * step, 0);
        let (mut popped, mut last) = (0u64, SimTime::ZERO);
        while let Some((t, ev)) = q.pop() {
            assert!(t >= last);
            (last, popped) = (t, popped + 1);
            if ev != Event::Sample || t.0 >= 4 * span {
                continue;
            }
            q.schedule(t + Dur(400 * step), Event::Sample);
            scheduled += 1;
            if t.0 >= burst_at && bursts < 6 {
                assert_ne!(q.base, u64::MAX, "the wheel is on");
                for app in 0..20_000u32 {
                    q.schedule(t + Dur(7 * step + 1), Event::AppTick { app });
                }
                scheduled += 20_000;
                bursts += 1;
                burst_at += span / 5 + 3 * step;
            }
        }
        assert_eq!((bursts, popped), (6, scheduled));
        let room = q.wheel.capacity() + q.run.v.capacity();
        assert!(room <= 8 * SLOTS, "room for {room} entries kept");
    }

    #[test]
    fn reserved_and_ordinary_events_pop_in_key_order_with_the_wheel_on_and_off() {
        // Blocks of counters reserved, then used in random order at random later times, among
        // ordinary events whose delays cross slots, the wheel's span and far beyond, in phases
        // that grow the queue past `WHEEL_ON` and drain it: every pop is the model's smallest.
        let span = (SLOTS as u64) << SLOT_SHIFT;
        for seed in 1..6 {
            let mut rng = crate::engine::rng::stream(seed, "engine-reserved");
            let mut next = || rand::RngCore::next_u64(&mut rng);
            let mut q = EventQueue::new();
            let mut model = std::collections::BTreeSet::new();
            let mut unused: Vec<u64> = Vec::new();
            let mut last = (0u64, 0u64);
            let mut seq_model = 0u64;
            let (mut on, mut reserved_on) = (0, 0);
            for op in 0..60_000u64 {
                let grow = (op / 3_000) % 2 == 0;
                let r = next();
                if r % 97 == 0 {
                    let n = 1 + next() % 40;
                    let first = q.reserve(n);
                    assert_eq!(first, seq_model + 1);
                    seq_model += n;
                    unused.extend(first..first + n);
                } else if r % 100 < if grow { 65 } else { 20 } || model.is_empty() {
                    let now = q.now().0;
                    let delay = match next() % 6 {
                        0 => 0,
                        1 => next() % (1 << SLOT_SHIFT),
                        2 => next() % (4 << SLOT_SHIFT),
                        3 => next() % span,
                        4 => span - 2 + next() % 5,
                        _ => next() % (20 * span),
                    };
                    let t = now + delay;
                    if !unused.is_empty() && next() % 3 == 0 {
                        let i = (next() % unused.len() as u64) as usize;
                        let s = unused[i];
                        // its key must come after the last event popped
                        if (t, s) > last {
                            reserved_on += usize::from(q.base != u64::MAX);
                            unused.swap_remove(i);
                            q.schedule_reserved(SimTime(t), s, Event::AppTick { app: s as u32 });
                            model.insert((t, s));
                        }
                    } else {
                        seq_model += 1;
                        q.schedule(
                            SimTime(t),
                            Event::AppTick {
                                app: seq_model as u32,
                            },
                        );
                        model.insert((t, seq_model));
                    }
                } else {
                    let want = model.pop_first().unwrap();
                    let got = q.pop().unwrap();
                    assert_eq!(
                        got,
                        (SimTime(want.0), Event::AppTick { app: want.1 as u32 })
                    );
                    last = want;
                }
                assert_eq!(q.is_empty(), model.is_empty());
                on += usize::from(q.base != u64::MAX);
            }
            assert!(
                on > 10_000 && on < 50_000,
                "the wheel on for {on} of 60,000 operations"
            );
            assert!(
                reserved_on > 1_000,
                "{reserved_on} reserved events while the wheel was on"
            );
            while let Some(want) = model.pop_first() {
                assert_eq!(
                    q.pop(),
                    Some((SimTime(want.0), Event::AppTick { app: want.1 as u32 }))
                );
            }
            assert!(q.pop().is_none());
        }
    }

    #[test]
    fn reserved_events_run_where_they_would_have_run_scheduled_at_once() {
        // Starts at times (with ties) scheduled all at once, against the same starts chained
        // (each scheduled with its reserved counter when the one before runs), with other
        // events scheduled meanwhile: the same order, tie-breaks included.
        let starts = [30u64, 10, 10, 50, 0, 30, 70000, 10];
        let mut order: Vec<usize> = (0..starts.len()).collect();
        order.sort_by_key(|&i| (starts[i], i));
        let drive = |chained: bool| {
            let mut q = EventQueue::new();
            let first = if chained {
                let first = q.reserve(starts.len() as u64);
                let i = order[0];
                q.schedule_reserved(
                    SimTime(starts[i]),
                    first + i as u64,
                    Event::AppStart { app: i as u32 },
                );
                first
            } else {
                for (i, &t) in starts.iter().enumerate() {
                    q.schedule(SimTime(t), Event::AppStart { app: i as u32 });
                }
                0
            };
            q.schedule(SimTime(10), Event::Sample);
            let (mut seen, mut k) = (Vec::new(), 0);
            while let Some((t, ev)) = q.pop() {
                seen.push((t, ev));
                if let Event::AppStart { app } = ev {
                    // each start schedules an event at its own time and one later
                    q.schedule(t, Event::AppTick { app });
                    q.schedule(SimTime(t.0 + 10), Event::AppTick { app: app + 100 });
                    k += 1;
                    if chained && k < order.len() {
                        let i = order[k];
                        q.schedule_reserved(
                            SimTime(starts[i]),
                            first + i as u64,
                            Event::AppStart { app: i as u32 },
                        );
                    }
                }
            }
            seen
        };
        let (at_once, chained) = (drive(false), drive(true));
        assert_eq!(at_once.len(), 1 + 3 * starts.len());
        assert_eq!(at_once, chained);
    }

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
}
