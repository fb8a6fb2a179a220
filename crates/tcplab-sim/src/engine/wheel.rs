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
/// no order; when the clock reaches a slot, its events go to the run by increasing key
/// (`take_sorted`): up to 8 are copied there in their order by a sorting network (a copy
/// without the dependent loads of the lists below), and a larger slot's vector, or one whose
/// counters are too far apart for the network, becomes the run's (`take` swaps the two, and the
/// slot keeps the run's emptied vector and its capacity) and is sorted in place. (The slots were
/// lists in a shared pool of nodes, which `take` walked and copied into the run: with 100 flows that cost about
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

    /// Move slot `slot`'s entries to `into` (which must be empty) by increasing key, emptying
    /// the slot. A slot holds a few events, often one: up to 8 are copied in their order
    /// (`sort_few_into`), more are handed over in the slot's vector (`take`) and sorted there.
    #[inline]
    pub(super) fn take_sorted(&mut self, slot: usize, into: &mut Vec<Entry>) {
        debug_assert!(into.is_empty());
        let slot = slot & (SLOTS - 1);
        let v = &mut self.slots[slot];
        if v.len() <= 8 && sort_few_into(v, into) {
            v.clear();
            self.emptied(slot, into.len());
        } else {
            self.take(slot, into);
            into.sort_unstable_by_key(|e| e.key());
        }
    }

    /// Hand slot `slot`'s entries (in no particular order) to `into`, which must be empty and
    /// whose allocation the slot keeps, emptying the slot.
    #[inline]
    pub(super) fn take(&mut self, slot: usize, into: &mut Vec<Entry>) {
        debug_assert!(into.is_empty());
        let slot = slot & (SLOTS - 1);
        std::mem::swap(&mut self.slots[slot], into);
        self.emptied(slot, into.len());
    }

    /// The counts and bits of slot `slot` (masked), whose `n` entries have just been taken.
    #[inline(always)]
    fn emptied(&mut self, slot: usize, n: usize) {
        self.len -= n;
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

    /// The entries `pop` has yet to take, in order.
    #[inline(always)]
    pub(super) fn rest(&self) -> &[Entry] {
        self.v.get(self.head..).unwrap_or_default()
    }

    /// Empty it (it must hold no event); a vector with room for more than `RUN_KEEP` entries
    /// is given back to the allocator. The run's vector goes on to the next slot taken whole
    /// (`Wheel::take`: more than 8 events), which keeps it until it fills again, possibly
    /// never: were a burst's room kept, each slot would end up with room for the largest burst it ever passed on (10,000 CBR flows ticking
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

/// The bits of `sort_few_into`'s word for the counter: what the time within the slot and the
/// index (3 bits) leave.
const SEQ_BITS: u32 = 64 - SLOT_SHIFT - 3;

/// Append at most 8 entries of one wheel slot to `into` by increasing key, without a branch on
/// the keys; or return false, appending nothing, when their counters are too far apart for the
/// 64-bit form below.
///
/// A slot's keys come in no order the processor can learn, so a comparison sort's branches go
/// either way at random (at 1,000 flows, with about 6 events a slot, cachegrind's branch
/// simulation put 17 % of the run's mispredictions in the standard sort). Here each key becomes
/// one word, its order the key's: the time within the slot (`SLOT_SHIFT` bits), the counter
/// relative to the first entry's (`SEQ_BITS`, 48: counters from 2^47 below the first entry's to
/// less than 2^47 above it fit), and the entry's index (3 bits). The words go through the
/// smallest known network of compare-exchanges for their number (Knuth, TAOCP vol. 3, 5.3.4),
/// each a minimum and a maximum, and the entries are appended in the order of the indices in
/// the words' low bits.
fn sort_few_into(src: &[Entry], into: &mut Vec<Entry>) -> bool {
    debug_assert!(src.len() <= 8);
    macro_rules! network {
        ($n:literal: $(($i:literal, $j:literal)),*) => {{
            use std::hint::select_unpredictable as pick;
            let e: &[Entry; $n] = src.try_into().expect("the network's number of entries");
            // The counters relative to the first entry's, offset by 2^47 so that those up to
            // 2^47 below it stay positive: in order, and within `SEQ_BITS` unless they spill.
            // (Modulo 2^64, which keeps the order unless the counters lie on both sides of
            // u64::MAX; they grow from 0, one per event scheduled or reserved, nowhere near.)
            let seq0 = e[0].seq().wrapping_sub(1 << (SEQ_BITS - 1));
            if e.iter().fold(0, |acc, x| acc | x.seq().wrapping_sub(seq0)) >> SEQ_BITS != 0 {
                return false;
            }
            // The events of a slot share their time's bits above `SLOT_SHIFT` (the wheel's
            // window holds each slot once): the shift keeps the time within the slot.
            debug_assert!(e.iter().all(|x| slot_of(x.key()) == slot_of(e[0].key())));
            let mut k = [0u64; $n];
            for i in 0..$n {
                k[i] = e[i].time() << (64 - SLOT_SHIFT)
                    | e[i].seq().wrapping_sub(seq0) << 3
                    | i as u64;
            }
            $(
                let swap = k[$j] < k[$i];
                (k[$i], k[$j]) = (pick(swap, k[$j], k[$i]), pick(swap, k[$i], k[$j]));
            )*
            // Written into the room after `into`'s entries in place, its length set once:
            // `push` would test the capacity and store the length for each entry.
            into.reserve($n);
            let len = into.len();
            let room = &mut into.spare_capacity_mut()[..$n];
            for (to, w) in room.iter_mut().zip(k) {
                to.write(e[(w & 7) as usize]);
            }
            debug_assert!(into.capacity() >= len + $n);
            // SAFETY: the `$n` places after the first `len` (the room `reserve` made) have just
            // been written.
            unsafe { into.set_len(len + $n) };
        }};
    }
    match src.len() {
        1 => into.push(src[0]),
        2 => network!(2: (0, 1)),
        3 => network!(3: (0, 2), (0, 1), (1, 2)),
        4 => network!(4: (0, 1), (2, 3), (0, 2), (1, 3), (1, 2)),
        5 => network!(5: (0, 3), (1, 4), (0, 2), (1, 3), (0, 1), (2, 4), (1, 2), (3, 4), (2, 3)),
        6 => network!(6: (0, 5), (1, 3), (2, 4), (1, 2), (3, 4), (0, 3), (2, 5), (0, 1), (2, 3),
            (4, 5), (1, 2), (3, 4)),
        7 => network!(7: (0, 6), (2, 3), (4, 5), (0, 2), (1, 4), (3, 6), (0, 1), (2, 5), (3, 4),
            (1, 2), (4, 6), (2, 3), (4, 5), (1, 2), (3, 4), (5, 6)),
        8 => network!(8: (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7), (0, 1),
            (2, 3), (4, 5), (6, 7), (2, 4), (3, 5), (1, 4), (3, 6), (1, 2), (3, 4), (5, 6)),
        _ => return false,
    }
    true
}

#[inline(always)]
pub(super) fn slot_of(key: u128) -> u64 {
    (key >> (64 + SLOT_SHIFT)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::Event;

    /// Every order of `n` entries of one slot must come out of `sort_few_into` by key.
    fn all_orders(keys: &[(u64, u64)]) {
        let mut want: Vec<(u64, u64)> = keys.to_vec();
        want.sort_unstable();
        let mut idx: Vec<usize> = (0..keys.len()).collect();
        // Heap's algorithm: every permutation of `idx`.
        let mut c = vec![0; idx.len()];
        let check = |idx: &[usize]| {
            let src: Vec<Entry> = idx
                .iter()
                .map(|&i| Entry::new(keys[i].0, keys[i].1, Event::AppTick { app: i as u32 }))
                .collect();
            let mut out = Vec::new();
            assert!(sort_few_into(&src, &mut out));
            let got: Vec<(u64, u64)> = out.iter().map(|e| (e.time(), e.seq())).collect();
            assert_eq!(got, want, "from the order {idx:?}");
            // Each entry travels whole: its event is the one it came with.
            for e in &out {
                let i = keys.iter().position(|&k| k == (e.time(), e.seq())).unwrap();
                assert_eq!(e.ev, Event::AppTick { app: i as u32 });
            }
        };
        check(&idx);
        let mut i = 0;
        while i < idx.len() {
            if c[i] < i {
                let j = if i % 2 == 0 { 0 } else { c[i] };
                idx.swap(j, i);
                check(&idx);
                c[i] += 1;
                i = 0;
            } else {
                c[i] = 0;
                i += 1;
            }
        }
    }

    #[test]
    fn a_few_entries_of_a_slot_come_out_in_key_order_from_every_order() {
        let slot = 77u64 << SLOT_SHIFT;
        let last = slot + (1 << SLOT_SHIFT) - 1;
        for n in 1..=8u64 {
            // Distinct times (the slot's first and last instants among them), counters in the
            // opposite order.
            let spread: Vec<(u64, u64)> = (0..n)
                .map(|i| (slot + i * ((1 << SLOT_SHIFT) - 1) / 7, 1_000 - i))
                .map(|(t, s)| (t.min(last), s))
                .collect();
            all_orders(&spread);
            // One instant: the counters decide, the largest nearly 2^47 above the smallest.
            let same: Vec<(u64, u64)> = (0..n)
                .map(|i| (slot + 5, 9 + i * ((1 << 47) - 10) / 7))
                .collect();
            all_orders(&same);
            // The end of time's slot, its last instant among them.
            let end = (u64::MAX >> SLOT_SHIFT) << SLOT_SHIFT;
            let at_end: Vec<(u64, u64)> = (0..n)
                .map(|i| (end + (i * ((1 << SLOT_SHIFT) - 1) / 7), 500 + i % 3 * 7 - i))
                .collect();
            all_orders(&at_end);
            // Two instants, counters interleaved.
            let two: Vec<(u64, u64)> = (0..n).map(|i| (slot + (i % 2) * 3, 40 - i)).collect();
            all_orders(&two);
        }
    }

    #[test]
    fn counters_fit_from_2_47_below_the_first_to_just_under_2_47_above_it() {
        let slot = 9u64 << SLOT_SHIFT;
        let entry = |t: u64, s: u64| Entry::new(t, s, Event::Sample);
        let first = 1u64 << 50;
        let mut out = Vec::new();
        // The edges that fit: 2^47 below the first entry's counter, and 2^47 - 1 above it.
        let fits = [
            entry(slot + 4, first),
            entry(slot + 4, first - (1 << 47)),
            entry(slot, first + (1 << 47) - 1),
        ];
        assert!(sort_few_into(&fits, &mut out));
        let got: Vec<(u64, u64)> = out.iter().map(|e| (e.time(), e.seq())).collect();
        assert_eq!(
            got,
            vec![
                (slot, first + (1 << 47) - 1),
                (slot + 4, first - (1 << 47)),
                (slot + 4, first)
            ]
        );
        // One past either edge does not fit.
        for far in [first - (1 << 47) - 1, first + (1 << 47)] {
            out.clear();
            assert!(!sort_few_into(
                &[entry(slot, first), entry(slot, far)],
                &mut out
            ));
            assert!(out.is_empty());
        }
    }

    #[test]
    fn counters_too_far_apart_go_to_the_full_sort() {
        let slot = 3u64 << SLOT_SHIFT;
        let src = [
            Entry::new(slot + 1, 1 << 48, Event::AppTick { app: 0 }),
            Entry::new(slot + 1, 0, Event::AppTick { app: 1 }),
            Entry::new(slot, 5, Event::AppTick { app: 2 }),
        ];
        let mut out = Vec::new();
        assert!(!sort_few_into(&src, &mut out));
        assert!(
            out.is_empty(),
            "nothing appended when the form does not fit"
        );
        let mut w = Wheel::default();
        w.start();
        for e in src {
            w.push(3, e);
        }
        w.take_sorted(3, &mut out);
        let got: Vec<(u64, u64)> = out.iter().map(|e| (e.time(), e.seq())).collect();
        assert_eq!(got, vec![(slot, 5), (slot + 1, 0), (slot + 1, 1 << 48)]);
        assert_eq!((w.len, w.next_occupied(0)), (0, None), "the slot is empty");
    }
}
