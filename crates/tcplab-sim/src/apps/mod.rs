//! The applications: the transactional ones, `database` and `http` ([`txn`]), UDP cross traffic
//! ([`udp`]), the random distributions their sizes and times are drawn from ([`dist`]), the user
//! profiles that expand into applications when a scenario is read ([`profiles`]), and the
//! responses per group over time ([`app_series`]). An `ftp`, `bulk` or `cbr` application keeps
//! no state beyond its connection's: the simulator drives it ([`crate::sim`]). Their settings
//! are read with the rest of the `[[apps]]` section ([`crate::scenario::apps`]).

pub mod app_series;
pub mod dist;
pub mod profiles;
pub mod txn;
pub mod udp;
