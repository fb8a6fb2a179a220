//! Where packets in the network are kept: one slot each, from the moment an endpoint's packet
//! is handed to the network until it is delivered or dropped. Link directions and nodes hold
//! a packet's slot number ([`FrameId`]), not a copy of it, so a frame is written once however
//! many hops it makes, and a link's FIFO entries are small.
//!
//! Freed slots are reused last-freed first: the slot a delivered packet leaves is the next one
//! written, while it is still in the cache. With many flows the packets in the network touch
//! about as many slots as are in flight at once, not a ring of slots per link direction.

use crate::net::packet::Packet;

/// The number of a packet's slot in the [`PacketPool`].
pub type FrameId = u32;

/// No slot: the end of the free list.
const NIL: FrameId = FrameId::MAX;

#[derive(Debug)]
pub struct PacketPool {
    slots: Vec<Packet>,
    /// The last freed slot, or `NIL`. A free slot's `uid` holds the next free one: the free
    /// list takes no memory of its own, and putting or releasing a packet touches only its slot
    /// (a `Vec` of free slots beside it cost about as many instructions, and one more array to
    /// keep in the cache).
    free: FrameId,
    /// Debug builds: which slots are free, so that a slot released twice (which would loop
    /// the free list and give one slot to two packets) fails at once.
    #[cfg(debug_assertions)]
    freed: Vec<bool>,
}

impl Default for PacketPool {
    fn default() -> Self {
        PacketPool {
            slots: Vec::new(),
            free: NIL,
            #[cfg(debug_assertions)]
            freed: Vec::new(),
        }
    }
}

impl PacketPool {
    /// Store `p` and return its slot.
    #[inline]
    pub fn put(&mut self, p: &Packet) -> FrameId {
        let id = self.free;
        // `NIL` is past the end of any pool: one bounds test finds a free slot.
        if let Some(slot) = self.slots.get_mut(id as usize) {
            self.free = slot.uid as FrameId;
            *slot = *p;
            #[cfg(debug_assertions)]
            {
                self.freed[id as usize] = false;
            }
            return id;
        }
        let id = FrameId::try_from(self.slots.len())
            .ok()
            .filter(|&id| id != NIL)
            .expect("fewer than 2^32 - 1 packets in the network at once");
        self.slots.push(*p);
        #[cfg(debug_assertions)]
        self.freed.push(false);
        id
    }

    /// The packet in slot `id` (which must be in use).
    #[inline]
    pub fn get(&self, id: FrameId) -> &Packet {
        &self.slots[id as usize]
    }

    /// `get`, without the bounds test.
    ///
    /// # Safety
    /// `id` must be a slot this pool's `put` returned (slots are never removed).
    #[inline(always)]
    pub(crate) unsafe fn get_unchecked(&self, id: FrameId) -> &Packet {
        debug_assert!((id as usize) < self.slots.len());
        // SAFETY: `put` returns indices of `slots`, which never shrinks (the caller's promise).
        unsafe { self.slots.get_unchecked(id as usize) }
    }

    /// `release`, without the bounds test.
    ///
    /// # Safety
    /// As for `get_unchecked`.
    #[inline(always)]
    pub(crate) unsafe fn release_unchecked(&mut self, id: FrameId) {
        #[cfg(debug_assertions)]
        {
            assert!(!self.freed[id as usize], "slot {id} released twice");
            self.freed[id as usize] = true;
        }
        // SAFETY: as in `get_unchecked`.
        unsafe { self.slots.get_unchecked_mut(id as usize) }.uid = u64::from(self.free);
        self.free = id;
    }

    /// The packet in slot `id` left the network: the slot may be reused.
    #[inline]
    pub fn release(&mut self, id: FrameId) {
        #[cfg(debug_assertions)]
        {
            assert!(!self.freed[id as usize], "slot {id} released twice");
            self.freed[id as usize] = true;
        }
        self.slots[id as usize].uid = u64::from(self.free);
        self.free = id;
    }

    /// The free slots, the next to be reused first.
    fn free_slots(&self) -> impl Iterator<Item = FrameId> + '_ {
        let live = |id: FrameId| (id != NIL).then_some(id);
        std::iter::successors(live(self.free), move |&id| {
            live(self.slots[id as usize].uid as FrameId)
        })
    }

    /// Slots in use.
    ///
    /// # Panics
    /// If the free list holds more entries than there are slots: a slot was released twice
    /// (caught when it happens in debug builds).
    pub fn in_use(&self) -> usize {
        let free = self.free_slots().take(self.slots.len() + 1).count();
        assert!(
            free <= self.slots.len(),
            "the free list loops: a slot was released twice"
        );
        self.slots.len() - free
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(seq: u64) -> Packet {
        Packet {
            seq,
            ..Packet::default()
        }
    }

    #[test]
    fn a_freed_slot_is_reused_last_freed_first_and_holds_the_new_packet() {
        let mut pool = PacketPool::default();
        let a = pool.put(&pkt(1));
        let b = pool.put(&pkt(2));
        let c = pool.put(&pkt(3));
        assert_eq!((a, b, c), (0, 1, 2));
        pool.release(a);
        pool.release(c);
        assert_eq!(pool.in_use(), 1);
        assert_eq!(pool.put(&pkt(4)), c);
        assert_eq!(pool.put(&pkt(5)), a);
        assert_eq!(pool.put(&pkt(6)), 3);
        assert_eq!(
            [a, b, c, 3].map(|i| pool.get(i).seq),
            [5, 2, 4, 6],
            "each slot holds the packet last put there"
        );
        assert_eq!(pool.in_use(), 4);
    }

    #[test]
    #[should_panic(expected = "released twice")]
    fn a_slot_released_twice_is_caught() {
        // In debug builds at the second release; in release builds by `in_use`, which finds
        // the free list looping.
        let mut pool = PacketPool::default();
        let a = pool.put(&pkt(1));
        pool.put(&pkt(2));
        pool.release(a);
        pool.release(a);
        pool.in_use();
    }
}
