//! The simulator's machinery: simulated time ([`time`]), seeded random streams ([`rng`]), the
//! event queue ([`queue`]) of events and lazily cancelled timers ([`event`]), and the rings a
//! link direction keeps its frames in ([`ring`]). It is the ground floor: nothing here imports
//! another folder (tests/test_architecture.py keeps it so).

pub mod event;
mod heap;
pub mod queue;
pub mod ring;
pub mod rng;
pub mod time;
mod wheel;

/// Ask the processor to start loading the cache line at `r` (into every level), without waiting
/// for it and without any effect on the program's results: a hint, which may be ignored. A no-op
/// where no such instruction is available to stable Rust.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        const _: () = assert!(cfg!(target_feature = "sse"));
        // SAFETY: the intrinsic needs SSE, which every x86_64 processor has (asserted above at
        // compile time); a prefetch reads nothing the program sees and cannot fault, whatever
        // the address, and this one is a reference's, valid besides.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((r as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}
