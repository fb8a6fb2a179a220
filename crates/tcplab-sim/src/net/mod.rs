//! The network: packets ([`packet`]), full-duplex links modelled per direction ([`link`]) with
//! their error models ([`loss`]) and queue disciplines ([`aqm`], [`codel`]), static routes
//! ([`topology`]) and the packet filters of forwarding nodes ([`filter`]).

pub mod aqm;
pub mod codel;
pub mod filter;
pub mod link;
pub mod loss;
pub mod packet;
pub mod topology;
