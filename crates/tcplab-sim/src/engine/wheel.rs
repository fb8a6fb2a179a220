//! The timing wheel of the event queue, used while the pending events are many: slots of
//! `2^SLOT_SHIFT` ns, each a vector of events, and the sorted events of the slot being run.

use crate::engine::heap::Entry;

/// A wheel slot spans `2^SLOT_SHIFT` ns (8.2 us): with many flows a few events fall in a slot,
/// and few new events fall in the slot being run (dumbbells of 100 and 1,000 pairs: 6 in 10 of
/// them with 65 us slots, 1 in 100 with 8.2 us; a new event's place in the run is a search and a
/// shift, its place in the wheel a push).
pub(super) const SLOT_SHIFT: u32 = 13;
/// Slots in the wheel, a power of two: it spans `SLOTS << SLOT_SHIFT` ns (16.8 ms), so link
/// propagation delays and frame spacings land in it; timers further out wait in a heap of their
/// own.
pub(super) const SLOTS: usize = 2048;
const WORDS: usize = SLOTS / 64;
const _: () = assert!(WORDS <= 64 && SLOTS.is_power_of_two() && SLOTS >= 64);

/// A timing wheel of `SLOTS` slots of `2^SLOT_SHIFT` ns. Each slot is a vector of its events in
/// no order; when the clock reaches a slot, its vector becomes the run's (`take` swaps the two,
/// and the slot keeps the run's emptied vector and its capacity), so an event is written once,
/// by its push, and read in place by the run's sort and pop. (The slots were lists in a shared
/// pool of nodes, which `take` walked and copied into the run: with 100 flows that cost about
/// 25 instructions an event, and the pool's free list and the walk's dependent loads more; the
/// vectors' memory is colder, 2.6 M more last-level misses at 1,000 flows, but the run is 4 to
/// 5 % faster at 100 and 1,000 flows, BENCHMARKS.md, eighth session.) A bitmap (and one summary
/// word over its words) finds the next occupied slot in a few instructions. The slots are made
/// when the wheel first starts: a run that never needs them (a single flow) neither builds nor
/// drops them.
#[derive(Debug)]
pub(super) struct Wheel {
    /// The events of each slot: `SLOTS` of them once the wheel has started, none before.
    slots: Vec<Vec<Entry>>,
    /// A bit per slot, set while the slot holds events.
    bits: [u64; WORDS],
    /// A bit per word of `bits`, set while the word is not 0.
    summary: u64,
    pub(super) len: usize,
}

impl Default for Wheel {
    fn default() -> Self {
        Wheel {
            slots: Vec::new(),
            bits: [0; WORDS],
            summary: 0,
            len: 0,
        }
    }
}

impl Wheel {
    pub(super) fn start(&mut self) {
        if self.slots.is_empty() {
            self.slots = (0..SLOTS).map(|_| Vec::new()).collect();
        }
    }

    #[inline(always)]
    pub(super) fn push(&mut self, slot: usize, e: Entry) {
        let slot = slot & (SLOTS - 1);
        let v = &mut self.slots[slot];
        if v.len() == v.capacity() {
            // A call on the common path would make every push save and restore registers.
            return self.push_growing(slot, e);
        }
        v.push(e);
        self.bits[slot / 64] |= 1 << (slot % 64);
        self.summary |= 1 << (slot / 64);
        self.len += 1;
    }

    /// `push` into a slot whose vector is full.
    #[cold]
    #[inline(never)]
    fn push_growing(&mut self, slot: usize, e: Entry) {
        self.slots[slot].reserve(1);
        self.push(slot, e);
    }

    /// Entries the slots' vectors have room for.
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.slots.iter().map(Vec::capacity).sum()
    }

    /// The first occupied slot at or after `start`, going round: its distance from `start`.
    #[inline]
    pub(super) fn next_occupied(&self, start: usize) -> Option<usize> {
        let (w, b) = (start / 64, start % 64);
        let m = self.bits[w] & (!0u64 << b);
        let idx = if m != 0 {
            w * 64 + m.trailing_zeros() as usize
        } else {
            // Words after `w`, else the lowest occupied word (wrapping round, possibly `w`'s
            // own bits below `b`).
            let after = self.summary & (!0u64).checked_shl(w as u32 + 1).unwrap_or(0);
            let sm = if after != 0 { after } else { self.summary };
            if sm == 0 {
                return None;
            }
            let w2 = sm.trailing_zeros() as usize;
            w2 * 64 + self.bits[w2].trailing_zeros() as usize
        };
        Some(idx.wrapping_sub(start) & (SLOTS - 1))
    }

    /// Hand slot `slot`'s entries (in no particular order) to `into`, which must be empty and
    /// whose allocation the slot keeps, emptying the slot.
    #[inline]
    pub(super) fn take(&mut self, slot: usize, into: &mut Vec<Entry>) {
        debug_assert!(into.is_empty());
        let slot = slot & (SLOTS - 1);
        std::mem::swap(&mut self.slots[slot], into);
        self.len -= into.len();
        self.bits[slot / 64] &= !(1 << (slot % 64));
        if self.bits[slot / 64] == 0 {
            self.summary &= !(1 << (slot / 64));
        }
    }
}

/// The most entries a run's vector keeps room for when it goes on to a slot (`Run::reset`).
const RUN_KEEP: usize = 64;

/// The events of the current wheel slot, by increasing key, taken from the front (`head`): a
/// burst of events at one instant, each later than all before it, is appended, not shifted in
/// (100,000 events scheduled at one instant while the wheel is on took 3.6 s when the run was a
/// vector by decreasing key, shifted whole for each; a `VecDeque` cost the 1,000-pair dumbbell
/// 5 % and the single flow 7 instructions per data segment).
#[derive(Debug, Default)]
pub(super) struct Run {
    pub(super) v: Vec<Entry>,
    head: usize,
}

impl Run {
    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<Entry> {
        let e = *self.v.get(self.head)?;
        self.head += 1;
        Some(e)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.head == self.v.len()
    }

    pub(super) fn len(&self) -> usize {
        self.v.len() - self.head
    }

    /// Empty it (it must hold no event); a vector with room for more than `RUN_KEEP` entries
    /// is given back to the allocator. The run's vector goes on to the slot taken next, which
    /// keeps it until it fills again, possibly never: were a burst's room kept, each slot would
    /// end up with room for the largest burst it ever passed on (10,000 CBR flows ticking
    /// together every 10 ms: 532 MB at the peak, against 260 MB with the pool of nodes the slots
    /// were before). Keeping room for 1,024 entries still doubled the memory of 1,000 flows
    /// ticking every 1 ms, and shrinking to `RUN_KEEP` instead of freeing fragmented the heap
    /// (330 MB in the first case); freed, every case measured takes the pool's memory. A run
    /// whose slots hold more than `RUN_KEEP` events pays a few allocations a slot, against as
    /// many events.
    pub(super) fn reset(&mut self) {
        debug_assert!(self.is_empty());
        if self.v.capacity() > RUN_KEEP {
            self.v = Vec::new();
        }
        self.v.clear();
        self.head = 0;
    }

    /// Insert `e` in its place by key: at the end, moving nothing, for an event at the latest
    /// instant (a burst); a reserved start lands where its counter puts it.
    #[inline]
    pub(super) fn insert(&mut self, e: Entry) {
        let at = self.head + self.v[self.head..].partition_point(|x| x.key() < e.key());
        self.v.insert(at, e);
    }

    pub(super) fn sort(&mut self) {
        self.v[self.head..].sort_unstable_by_key(|e| e.key());
    }
}

#[inline(always)]
pub(super) fn slot_of(key: u128) -> u64 {
    (key >> (64 + SLOT_SHIFT)) as u64
}
