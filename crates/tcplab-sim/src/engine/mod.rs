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
