//! Where packets in the network are kept: one slot each, from the moment an endpoint's packet
//! is handed to the network until it is delivered or dropped. Link directions and nodes hold
//! a packet's slot number ([`FrameId`]), not a copy of it, so a frame is written once however
//! many hops it makes, and a link's FIFO entries are small.
//!
//! Freed slots are reused last-freed first: the slot a delivered packet leaves is the next one
//! written, while it is still in the cache. With many flows the packets in the network touch
//! about as many slots as are in flight at once, not a ring of slots per link direction.

use crate::packet::Packet;

/// The number of a packet's slot in the [`PacketPool`].
pub type FrameId = u32;

/// No slot: the end of the free list.
const NIL: FrameId = FrameId::MAX;

#[derive(Debug)]
pub struct PacketPool {
    slots: Vec<Packet>,
    /// The last freed slot, or `NIL`. A free slot's `uid` holds the next free one: the free
    /// list takes no memory of its own, and putting or releasing a packet touches only its slot
    /// (with a `Vec` of free slots beside it, +16 instructions a packet).
    free: FrameId,
}

impl Default for PacketPool {
    fn default() -> Self {
        PacketPool {
            slots: Vec::new(),
            free: NIL,
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
            return id;
        }
        let id = FrameId::try_from(self.slots.len())
            .ok()
            .filter(|&id| id != NIL)
            .expect("fewer than 2^32 - 1 packets in the network at once");
        self.slots.push(*p);
        id
    }

    /// The packet in slot `id` (which must be in use).
    #[inline]
    pub fn get(&self, id: FrameId) -> &Packet {
        &self.slots[id as usize]
    }

    /// The packet in slot `id` left the network: the slot may be reused.
    #[inline]
    pub fn release(&mut self, id: FrameId) {
        debug_assert!(
            !self.free_slots().any(|f| f == id),
            "slot {id} released twice"
        );
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
    pub fn in_use(&self) -> usize {
        self.slots.len() - self.free_slots().count()
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
}
