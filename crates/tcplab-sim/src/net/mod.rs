//! The network: packets ([`packet`]) and the pool that holds them while they travel
//! ([`pool`]), full-duplex links modelled per direction ([`link`]) with their error models
//! ([`loss`]) and queue disciplines ([`aqm`], [`codel`]), and the packet filters of forwarding
//! nodes ([`filter`]). The static routes a scenario's nodes and links give are the scenario's
//! (`scenario/routes.rs`).

pub mod aqm;
pub mod codel;
pub mod filter;
pub mod link;
pub mod loss;
pub mod packet;
pub mod pool;
