//! The simulator's machinery: simulated time ([`time`]), seeded random streams ([`rng`]), the
//! event queue ([`queue`]) of events and lazily cancelled timers ([`event`]), and where frames
//! in the network are kept: the packet pool ([`pool`]) and the rings of a link direction
//! ([`ring`]). It is the ground floor: nothing here imports another folder, but for the pool,
//! whose slots hold `crate::net::packet`'s packets.

pub mod event;
mod heap;
pub mod pool;
pub mod queue;
pub mod ring;
pub mod rng;
pub mod time;
mod wheel;
