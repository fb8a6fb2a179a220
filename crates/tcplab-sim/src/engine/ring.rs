//! The first-in first-out queues of a link direction (its frames in flight, its waiting
//! frames): a ring of slots whose number is a power of two, so that a position is masked into
//! place rather than compared with the capacity and wrapped. A new item can be written straight
//! into its slot (`push_slot`), after the ring has grown if it had to. (That mattered when the
//! frames in flight were whole packets: `VecDeque::push_back` built one on the stack and copied
//! it again. Since the packets live in the pool (`crate::net::pool`), an entry is 16 bytes.)

#[derive(Clone, Debug)]
pub struct Ring<T> {
    /// The slots (none, or a power of two of them); those outside the queue hold stale items.
    buf: Vec<T>,
    /// Position of the first item.
    head: usize,
    len: usize,
    /// The number of slots less one (a position is masked with it): kept, not computed from
    /// the slots at every access.
    mask: usize,
}

impl<T: Copy + Default> Default for Ring<T> {
    fn default() -> Self {
        Ring {
            buf: Vec::new(),
            head: 0,
            len: 0,
            mask: 0,
        }
    }
}

impl<T: Copy + Default> Ring<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & self.mask
    }

    /// The element in buffer slot `i`, where `i` is masked (`slot`, `head`) and the ring is not
    /// empty, without a bounds test: the compiler cannot see that `mask` is `buf.len() - 1`.
    #[inline(always)]
    fn at(&self, i: usize) -> &T {
        debug_assert!(i <= self.mask && self.buf.len() == self.mask + 1);
        // SAFETY: a non-empty ring has a buffer of `mask + 1` elements (`grow` sets both), and
        // every index passed here is masked by `mask`.
        unsafe { self.buf.get_unchecked(i) }
    }

    /// The item `i` places behind the first, if there is one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        if i < self.len {
            Some(self.at(self.slot(i)))
        } else {
            None
        }
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        if self.len > 0 {
            Some(self.at(self.head))
        } else {
            None
        }
    }

    /// Append an item and return its slot, to be written by the caller (it holds a stale item).
    #[inline]
    pub fn push_slot(&mut self) -> &mut T {
        if self.len == self.buf.len() {
            self.grow();
        }
        let i = self.slot(self.len);
        self.len += 1;
        debug_assert!(i < self.buf.len());
        // SAFETY: the buffer is not empty (`grow` made it so), and it has `mask + 1` elements:
        // a masked index is in it.
        unsafe { self.buf.get_unchecked_mut(i) }
    }

    #[inline]
    pub fn push_back(&mut self, x: T) {
        *self.push_slot() = x;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let x = *self.at(self.head);
        self.head = (self.head + 1) & self.mask;
        self.len -= 1;
        Some(x)
    }

    /// Remove the first item without reading it (its reader looked at it in place).
    #[inline]
    pub fn drop_front(&mut self) {
        if self.len > 0 {
            self.head = (self.head + 1) & self.mask;
            self.len -= 1;
        }
    }

    /// Double the slots (at least 8), the items moved to the start in order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (2 * self.buf.len()).max(8);
        let mut buf = Vec::with_capacity(cap);
        buf.extend((0..self.len).map(|i| self.buf[self.slot(i)]));
        buf.resize(cap, T::default());
        self.buf = buf;
        self.head = 0;
        self.mask = cap - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_as_a_vecdeque_under_random_pushes_and_pops() {
        // The crate's own generator (rng::stream), seeded for this test.
        let mut rng = crate::engine::rng::stream(1, "ring-test");
        let mut next = || rand::RngCore::next_u64(&mut rng);
        let mut r: Ring<u64> = Ring::default();
        let mut model: VecDeque<u64> = VecDeque::new();
        for k in 0..50_000u64 {
            // Phases that fill the queue and phases that drain it, across several sizes.
            let push_bias = if (k / 2_000) % 2 == 0 { 3 } else { 1 };
            if next() % 4 < push_bias {
                r.push_back(k);
                model.push_back(k);
            } else {
                if k % 3 == 0 {
                    r.drop_front();
                    model.pop_front();
                } else {
                    assert_eq!(r.pop_front(), model.pop_front());
                }
            }
            assert_eq!(r.len(), model.len());
            assert_eq!(r.is_empty(), model.is_empty());
            assert_eq!(r.front(), model.front());
            assert_eq!(r.get(1), model.get(1));
        }
        while let Some(x) = model.pop_front() {
            assert_eq!(r.pop_front(), Some(x));
        }
        assert_eq!(r.pop_front(), None);
    }
}
