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

/// A FIFO whose first element is kept in the structure itself, the others in a ring behind it.
/// A link direction's frames in flight are one: its delivery reads the front in the cache line
/// it reads anyway (`LinkDir`'s first), and each element is read from the ring's buffer once,
/// when it moves up to the front (`advance`, which also gives the delivery the new front's
/// arrival time for its event). With a plain `Ring` the front was read from the buffer again
/// at its own delivery, a line that with 100 flows had left the first-level cache: 2.3 M
/// first-level misses in the 100-pair dumbbell's 4.9 M events, and 3 to 4 % of its time
/// (BENCHMARKS.md, ninth session). 40 bytes: the buffer as a boxed slice, positions in 32 bits.
#[derive(Clone, Debug)]
pub struct HeadRing<T> {
    head: T,
    /// The elements behind `head`, from `start`; a power of two long, or empty.
    buf: Box<[T]>,
    start: u32,
    /// Elements held, `head` included.
    n: u32,
}

impl<T: Copy + Default> Default for HeadRing<T> {
    fn default() -> Self {
        HeadRing {
            head: T::default(),
            buf: Box::new([]),
            start: 0,
            n: 0,
        }
    }
}

impl<T: Copy + Default> HeadRing<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.n as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        (self.n > 0).then_some(&self.head)
    }

    /// The element behind the front (`advance` is what moves it up): for the tests, which
    /// hold it to a `VecDeque`'s; a delivery learns it from `advance`.
    #[cfg(test)]
    pub fn second(&self) -> Option<&T> {
        (self.n > 1).then(|| &self.buf[self.start as usize])
    }

    #[inline]
    pub fn push_slot(&mut self) -> &mut T {
        if self.n == 0 {
            self.n = 1;
            return &mut self.head;
        }
        let behind = self.n as usize - 1;
        if behind == self.buf.len() {
            self.grow();
        }
        let i = (self.start as usize + behind) & self.mask();
        self.n += 1;
        debug_assert!(i < self.buf.len());
        // SAFETY: `mask` keeps the index below the buffer's length, which `grow` made nonzero.
        unsafe { self.buf.get_unchecked_mut(i) }
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.n == 0 {
            return None;
        }
        let x = self.head;
        self.drop_front();
        Some(x)
    }

    /// `drop_front`, and the new front, if any.
    #[inline]
    pub fn advance(&mut self) -> Option<&T> {
        self.drop_front();
        self.front()
    }

    #[inline]
    pub fn drop_front(&mut self) {
        if self.n > 1 {
            let s = self.start as usize;
            debug_assert!(s < self.buf.len());
            // SAFETY: with more than one element the ring holds one at `start`, which is kept
            // below its length.
            self.head = unsafe { *self.buf.get_unchecked(s) };
            self.start = ((s + 1) & self.mask()) as u32;
        }
        self.n = self.n.saturating_sub(1);
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let behind = self.n as usize - 1;
        let cap = (2 * self.buf.len()).max(8);
        let mut v = Vec::with_capacity(cap);
        v.extend((0..behind).map(|i| self.buf[(self.start as usize + i) & self.mask()]));
        v.resize(cap, T::default());
        self.buf = v.into_boxed_slice();
        self.start = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// What the two rings share, for the test below.
    trait Fifo: Default {
        fn push(&mut self, x: u64);
        fn pop(&mut self) -> Option<u64>;
        fn drop_first(&mut self);
        /// Drop the front and give the new one.
        fn advance_first(&mut self) -> Option<u64>;
        fn first(&self) -> Option<u64>;
        fn behind_first(&self) -> Option<u64>;
        fn count(&self) -> usize;
        fn none(&self) -> bool;
    }
    /// `Fifo` for a ring type, given how it pushes and how it reads the element behind the front.
    macro_rules! fifo {
        ($t:ty, $push:expr, $second:expr, $advance:expr) => {
            impl Fifo for $t {
                fn push(&mut self, x: u64) {
                    $push(self, x)
                }
                fn behind_first(&self) -> Option<u64> {
                    $second(self)
                }
                fn advance_first(&mut self) -> Option<u64> {
                    $advance(self)
                }
                fn pop(&mut self) -> Option<u64> {
                    self.pop_front()
                }
                fn drop_first(&mut self) {
                    self.drop_front()
                }
                fn first(&self) -> Option<u64> {
                    self.front().copied()
                }
                fn count(&self) -> usize {
                    self.len()
                }
                fn none(&self) -> bool {
                    self.is_empty()
                }
            }
        };
    }
    fifo!(
        Ring<u64>,
        |r: &mut Ring<u64>, x| r.push_back(x),
        |r: &Ring<u64>| r.get(1).copied(),
        |r: &mut Ring<u64>| {
            r.drop_front();
            r.front().copied()
        }
    );
    fifo!(
        HeadRing<u64>,
        |r: &mut HeadRing<u64>, x| *r.push_slot() = x,
        |r: &HeadRing<u64>| r.second().copied(),
        |r: &mut HeadRing<u64>| r.advance().copied()
    );

    /// Random pushes and pops on `F` and on a `VecDeque` agree at every step.
    fn against_vecdeque<F: Fifo>() {
        // The crate's own generator (rng::stream), seeded for this test.
        let mut rng = crate::engine::rng::stream(1, "ring-test");
        let mut next = || rand::RngCore::next_u64(&mut rng);
        let mut r = F::default();
        let mut model: VecDeque<u64> = VecDeque::new();
        for k in 0..50_000u64 {
            // Phases that fill the queue and phases that drain it, across several sizes.
            let push_bias = if (k / 2_000) % 2 == 0 { 3 } else { 1 };
            if next() % 4 < push_bias {
                r.push(k);
                model.push_back(k);
            } else if k % 6 == 0 {
                r.drop_first();
                model.pop_front();
            } else if k % 3 == 0 {
                model.pop_front();
                assert_eq!(r.advance_first(), model.front().copied());
            } else {
                assert_eq!(r.pop(), model.pop_front());
            }
            assert_eq!(r.count(), model.len());
            assert_eq!(r.none(), model.is_empty());
            assert_eq!(r.first(), model.front().copied());
            assert_eq!(r.behind_first(), model.get(1).copied());
        }
        while let Some(x) = model.pop_front() {
            assert_eq!(r.pop(), Some(x));
        }
        assert_eq!(r.pop(), None);
        assert!(r.none());
    }

    #[test]
    fn behaves_as_a_vecdeque_under_random_pushes_and_pops() {
        against_vecdeque::<Ring<u64>>();
    }

    #[test]
    fn the_ring_with_its_front_inline_behaves_as_a_vecdeque_too() {
        against_vecdeque::<HeadRing<u64>>();
    }

    #[test]
    fn the_ring_with_its_front_inline_keeps_it_out_of_the_buffer() {
        // One element: no buffer at all. Nine: the eight behind the front fill the first
        // buffer exactly, and a tenth doubles it.
        let mut r: HeadRing<u64> = HeadRing::default();
        *r.push_slot() = 1;
        assert_eq!(r.buf.len(), 0);
        for x in 2..=9 {
            *r.push_slot() = x;
        }
        assert_eq!(r.buf.len(), 8);
        *r.push_slot() = 10;
        assert_eq!(r.buf.len(), 16);
        assert_eq!((r.first(), r.behind_first()), (Some(1), Some(2)));
    }
}
