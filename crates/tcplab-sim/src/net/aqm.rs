//! Active queue management on a link direction's transmit queue: RED.
//!
//! RED (Floyd and Jacobson, "Random Early Detection Gateways for Congestion Avoidance",
//! IEEE/ACM ToN 1(4), 1993) keeps an exponentially weighted average of the queue length, taken
//! at every arrival, and drops arrivals early with a probability that grows with it:
//!
//! - busy queue: `avg <- (1 - w) avg + w q`, with `q` the frames waiting (not the one on the wire);
//! - arrival to an idle transmitter, idle for `t`: the average decays as if `m = t / s` small
//!   packets had left an empty queue, `avg <- (1 - w)^(m + 1) avg`, where `s` is the time to send
//!   one `mean_packet_size` packet (ns-2's `ptc_`, ns-3's `MeanPktSize`);
//! - `avg < min_th`, or at most one frame waiting: accept (ns-2's `red.cc` and ns-3's
//!   `RedQueueDisc` never drop early at a queue that has drained, whatever the average);
//! - `min_th <= avg < max_th`: the first such arrival only starts the count (ns-2's `old` flag);
//!   later ones are dropped with `pb = max_p (avg - min_th) / (max_th - min_th)`, spread out by
//!   the count of arrivals since the last drop (`pa = pb / (1 - count pb)`, or with `wait`
//!   `pa = pb / (2 - count pb)` once `count pb >= 1` and 0 before), the count incremented
//!   before `pa` is computed, as ns-2's `drop_early`;
//! - `avg >= max_th`: drop, unless `gentle` (Floyd 2000), where `pb` rises linearly from `max_p`
//!   at `max_th` to 1 at `2 max_th`. Every drop, the queue limit's included, resets the count.
//!
//! The decision is made on arrival, so it fits the link's analytic FIFO exactly: a dropped frame
//! never occupies the queue or the wire. The hard queue limit still applies after RED. Draws come
//! from the direction's own stream (`aqm:<link>:<dir>`), one per arrival in the random region.

use crate::engine::rng::{uniform, Rng};
use crate::engine::time::{serialization, Dur, SimTime};

/// RED's parameters. Thresholds are in packets (frames waiting), as Floyd and Jacobson's.
#[derive(Clone, Debug, PartialEq)]
pub struct RedCfg {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub weight: f64,
    pub gentle: bool,
    pub wait: bool,
    pub mean_packet_size: u32,
}

impl Default for RedCfg {
    /// ns-3's `RedQueueDisc` defaults: MinTh 5, MaxTh 15, LInterm 50 (max_p 0.02), QW 0.002,
    /// Gentle and Wait true, MeanPktSize 500. (ns-2.35 sets thresh_ and q_weight_ by its
    /// automatic configuration, which is not reproduced: give them explicitly to match it.)
    fn default() -> Self {
        RedCfg {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.02,
            weight: 0.002,
            gentle: true,
            wait: true,
            mean_packet_size: 500,
        }
    }
}

/// The queue discipline of a link direction.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum AqmCfg {
    /// Drop-tail only (the queue limit).
    #[default]
    None,
    Red(RedCfg),
    /// CoDel (RFC 8289), see `crate::net::codel`.
    CoDel(crate::net::codel::CoDelCfg),
}

/// RED's running state on one link direction.
#[derive(Debug)]
pub struct Red {
    cfg: RedCfg,
    /// Time to send one `mean_packet_size` packet at the link's rate.
    small_packet: Dur,
    avg: f64,
    /// Arrivals since the last drop while in the random region.
    count: i64,
    /// The average was already in the drop region at the previous arrival (ns-2's `old`).
    old: bool,
    rng: Rng,
}

/// Why RED dropped a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedDrop {
    /// The random early drop of the region between the thresholds (ns-3's "unforced").
    Early,
    /// The average above the region: every arrival dropped (ns-3's "forced").
    Forced,
}

impl Red {
    pub fn new(cfg: RedCfg, rate_bps: u64, rng: Rng) -> Self {
        let small_packet = serialization(u64::from(cfg.mean_packet_size), rate_bps);
        Red {
            cfg,
            small_packet,
            avg: 0.0,
            count: 0,
            old: false,
            rng,
        }
    }

    /// The queue limit dropped an arrival: the count restarts, as after RED's own drops.
    pub fn on_limit_drop(&mut self) {
        self.count = 0;
    }

    /// The average queue length (packets) as of the last arrival.
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// Decide on an arrival at `now` that finds `waiting` frames queued; `idle_since` is when
    /// the transmitter went idle if it is idle now. `Some` drops the arrival.
    pub fn on_arrival(
        &mut self,
        now: SimTime,
        waiting: usize,
        idle_since: Option<SimTime>,
    ) -> Option<RedDrop> {
        let w = self.cfg.weight;
        match idle_since {
            Some(since) => {
                let idle = now.since(since).0 as f64;
                let m = if self.small_packet.0 > 0 {
                    (idle / self.small_packet.0 as f64).floor()
                } else {
                    0.0
                };
                self.avg *= (1.0 - w).powf(m + 1.0);
            }
            None => self.avg = (1.0 - w) * self.avg + w * waiting as f64,
        }
        let (min, max, max_p) = (self.cfg.min_th, self.cfg.max_th, self.cfg.max_p);
        if self.avg < min || waiting <= 1 {
            self.old = false;
            return None;
        }
        let pb = if self.avg < max {
            max_p * (self.avg - min) / (max - min)
        } else if self.cfg.gentle && self.avg < 2.0 * max {
            max_p + (1.0 - max_p) * (self.avg - max) / max
        } else {
            self.count = 0;
            return Some(RedDrop::Forced);
        };
        if !self.old {
            self.old = true;
            self.count = 1;
            return None;
        }
        self.count += 1;
        let c = self.count as f64 * pb;
        let pa = if self.cfg.wait {
            if c < 1.0 {
                0.0
            } else if c < 2.0 {
                pb / (2.0 - c)
            } else {
                1.0
            }
        } else if c < 1.0 {
            pb / (1.0 - c)
        } else {
            1.0
        };
        if uniform(&mut self.rng) < pa {
            self.count = 0;
            Some(RedDrop::Early)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::stream;

    fn red(cfg: RedCfg) -> Red {
        Red::new(cfg, 10_000_000, stream(1, "aqm:t"))
    }

    #[test]
    fn the_average_follows_the_ewma_of_the_queue() {
        let mut r = red(RedCfg::default());
        for _ in 0..3 {
            assert_eq!(r.on_arrival(SimTime(0), 10, None), None);
        }
        // avg = 10 (1 - 0.998^3)
        let want = 10.0 * (1.0 - 0.998f64.powi(3));
        assert!((r.average() - want).abs() < 1e-12, "{}", r.average());
    }

    #[test]
    fn an_idle_link_decays_the_average_by_the_small_packets_it_could_have_sent() {
        let mut r = red(RedCfg::default());
        r.avg = 8.0;
        // 500 B at 10 Mbit/s = 400 us; 4 ms idle = 10 small packets -> (1 - w)^11.
        assert_eq!(
            r.on_arrival(SimTime(5_000_000), 0, Some(SimTime(1_000_000))),
            None
        );
        let want = 8.0 * 0.998f64.powi(11);
        assert!(
            (r.average() - want).abs() < 1e-12,
            "{} vs {want}",
            r.average()
        );
    }

    #[test]
    fn below_min_accepts_above_twice_max_drops_every_arrival() {
        let mut r = red(RedCfg::default());
        r.avg = 4.0;
        assert_eq!(r.on_arrival(SimTime(0), 4, None), None);
        r.avg = 31.0;
        for _ in 0..50 {
            assert_eq!(r.on_arrival(SimTime(0), 40, None), Some(RedDrop::Forced));
        }
        let mut hard = red(RedCfg {
            gentle: false,
            ..RedCfg::default()
        });
        hard.avg = 15.5;
        assert_eq!(hard.on_arrival(SimTime(0), 16, None), Some(RedDrop::Forced));
    }

    #[test]
    fn a_drained_queue_is_never_dropped_from_whatever_the_average() {
        let mut r = red(RedCfg::default());
        for waiting in [0, 1] {
            r.avg = 100.0;
            assert_eq!(r.on_arrival(SimTime(0), waiting, None), None);
        }
        r.avg = 100.0;
        assert_eq!(r.on_arrival(SimTime(0), 2, None), Some(RedDrop::Forced));
    }

    #[test]
    fn the_first_arrival_in_the_region_only_starts_the_count() {
        // weight 1: avg = the frames waiting; 2 waiting = min_th, so pb = 0 and nothing is
        // dropped, which leaves the count to be watched.
        let mut r = red(RedCfg {
            weight: 1.0,
            min_th: 2.0,
            max_th: 3.0,
            ..RedCfg::default()
        });
        assert_eq!(r.on_arrival(SimTime(0), 2, None), None);
        assert_eq!((r.old, r.count), (true, 1));
        assert_eq!(r.on_arrival(SimTime(0), 2, None), None);
        assert_eq!(r.count, 2);
        // Leaving the region (one waiting) forgets it; entering again starts at 1.
        assert_eq!(r.on_arrival(SimTime(0), 1, None), None);
        assert!(!r.old);
        assert_eq!(r.on_arrival(SimTime(0), 2, None), None);
        assert_eq!(r.count, 1);
        // A queue-limit drop restarts the count.
        r.on_limit_drop();
        assert_eq!(r.count, 0);
    }

    /// The mean number of arrivals from one drop to the next when every arrival's drop
    /// probability is `hazard(count)`, count being 1 for the first arrival after a drop.
    fn mean_gap(hazard: impl Fn(f64) -> f64) -> f64 {
        let (mut survive, mut mean) = (1.0, 0.0);
        for n in 1..10_000 {
            let h = hazard(n as f64).clamp(0.0, 1.0);
            mean += n as f64 * survive * h;
            survive *= 1.0 - h;
        }
        mean
    }

    fn measured_gap(r: &mut Red, q: usize) -> f64 {
        let n = 200_000;
        let drops = (0..n)
            .filter(|_| r.on_arrival(SimTime(0), q, None).is_some())
            .count();
        n as f64 / drops as f64
    }

    #[test]
    fn early_drops_are_spread_by_the_count_since_the_last_one() {
        // As ns-2's drop_early and modify_p: count is incremented before pa is computed. (The
        // first arrival in the region only sets the count; at a constant average that shifts
        // the first drop, not the spacing between drops.) q = 10, weight 1 (avg = q): pb = 0.1 (10 - 5) / 10 = 0.05.
        let pb = 0.05;
        let spread = |c: f64| {
            if c * pb < 1.0 {
                pb / (1.0 - c * pb)
            } else {
                1.0
            }
        };
        let wait = |c: f64| match c * pb {
            x if x < 1.0 => 0.0,
            x if x < 2.0 => pb / (2.0 - x),
            _ => 1.0,
        };
        for (w, want) in [(false, mean_gap(spread)), (true, mean_gap(wait))] {
            let mut r = red(RedCfg {
                weight: 1.0,
                max_p: 0.1,
                wait: w,
                ..RedCfg::default()
            });
            let gap = measured_gap(&mut r, 10);
            assert!(
                (gap - want).abs() / want < 0.02,
                "wait {w}: {gap} vs {want}"
            );
        }
        // With wait, no two drops are closer than 1/pb = 20 arrivals.
        assert!(mean_gap(wait) > 20.0 && mean_gap(spread) < 10.5);
    }

    #[test]
    fn the_gentle_region_rises_to_one_at_twice_max() {
        // q = 22: pb = 0.1 + 0.9 (22 - 15) / 15 = 0.52, so wait's 1/pb spacing is about 2.
        let pb = 0.1 + 0.9 * 7.0 / 15.0;
        let mut r = red(RedCfg {
            weight: 1.0,
            max_p: 0.1,
            ..RedCfg::default()
        });
        let want = mean_gap(|c| match c * pb {
            x if x < 1.0 => 0.0,
            x if x < 2.0 => pb / (2.0 - x),
            _ => 1.0,
        });
        let gap = measured_gap(&mut r, 22);
        assert!((gap - want).abs() / want < 0.02, "{gap} vs {want}");
        assert!(
            gap > 1.5,
            "the gentle region must not drop every arrival: {gap}"
        );
    }
}
