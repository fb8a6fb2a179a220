//! UDP cross traffic: datagrams of `packet_size` bytes at a constant `rate`, either all the time
//! or in on-off bursts (on and off durations drawn from distributions, as ns-3's
//! OnOffApplication and OPNET's video/voice-like sources). No congestion control, no
//! retransmission: what the network drops is lost, which is what makes it a realistic
//! competitor for TCP on a shared link.
//!
//! The receiver counts datagrams, bytes and one-way delay (each datagram carries its send time).
//! On/off periods are drawn from the application's own stream (`app:<name>`).

use serde_json::{json, Value};

use crate::apps::dist::Dist;
use crate::engine::rng::Rng;
use crate::engine::time::{serialization, Dur, SimTime};

#[derive(Clone, Debug, PartialEq)]
pub struct UdpCfg {
    pub rate_bps: u64,
    pub packet_size: u64,
    /// On-off periods; None: always on.
    pub on_off: Option<(Dist, Dist)>,
    /// How long after its start the source sends.
    pub stop: Option<Dur>,
}

impl UdpCfg {
    /// Time between two datagrams while on: the payload at the rate (as ns-3's OnOff, whose
    /// DataRate counts the packet it sends).
    pub fn gap(&self) -> Dur {
        serialization(self.packet_size, self.rate_bps).max(Dur(1))
    }

    pub fn to_json(&self) -> Value {
        json!({
            "kind": "udp",
            "rate_bps": self.rate_bps,
            "packet_size": self.packet_size,
            "on_time": self.on_off.as_ref().map(|(on, _)| on.to_json()),
            "off_time": self.on_off.as_ref().map(|(_, off)| off.to_json()),
            "stop_s": self.stop.map(|d| d.as_secs_f64()),
        })
    }
}

/// The running state of a UDP source and its sink.
pub struct UdpRt {
    rng: Rng,
    /// End of the current on period (None: always on).
    on_until: Option<SimTime>,
    pub sent: u64,
    pub received: u64,
    pub delay_ns_sum: u64,
    pub delay_ns_max: u64,
}

/// What a tick decided.
#[derive(Debug, PartialEq, Eq)]
pub enum Tick {
    /// Send one datagram now; the next tick is at the time given.
    Send(SimTime),
    /// An off period: nothing now, the next tick at the time given.
    Wait(SimTime),
    /// The stop time has come: no more ticks.
    Done,
}

impl UdpRt {
    pub fn new(rng: Rng) -> Self {
        UdpRt {
            rng,
            on_until: None,
            sent: 0,
            received: 0,
            delay_ns_sum: 0,
            delay_ns_max: 0,
        }
    }

    fn draw(&mut self, d: &Dist) -> Dur {
        Dur::from_secs_f64(d.sample(&mut self.rng))
    }

    /// A tick at `now` of a source that started at `started`.
    pub fn tick(&mut self, cfg: &UdpCfg, started: SimTime, now: SimTime) -> Tick {
        if cfg.stop.is_some_and(|s| now >= started + s) {
            return Tick::Done;
        }
        if let Some((on, off)) = &cfg.on_off {
            let until = match self.on_until {
                Some(t) => t,
                None => {
                    let t = now + self.draw(on);
                    self.on_until = Some(t);
                    t
                }
            };
            if now >= until {
                // The on period is over: stay off, then start the next on period.
                let resume = now + self.draw(off);
                self.on_until = Some(resume + self.draw(on));
                return Tick::Wait(resume);
            }
        }
        self.sent += 1;
        Tick::Send(now + cfg.gap())
    }

    /// A datagram sent at `sent_at` arrived at `now`.
    pub fn arrived(&mut self, sent_at: SimTime, now: SimTime) {
        self.received += 1;
        let d = now.0 - sent_at.0;
        self.delay_ns_sum += d;
        self.delay_ns_max = self.delay_ns_max.max(d);
    }

    /// The summary's `datagrams` entry.
    pub fn summary(&self, cfg: &UdpCfg) -> Value {
        json!({
            "sent": self.sent,
            "received": self.received,
            "lost": self.sent - self.received,
            "bytes_sent": self.sent * cfg.packet_size,
            "mean_delay_s": (self.received > 0)
                .then(|| self.delay_ns_sum as f64 / self.received as f64 / 1e9),
            "max_delay_s": (self.received > 0).then(|| self.delay_ns_max as f64 / 1e9),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::stream;

    fn cfg(on_off: Option<(Dist, Dist)>) -> UdpCfg {
        UdpCfg {
            rate_bps: 8_000_000,
            packet_size: 1000,
            on_off,
            stop: Some(Dur::from_secs_f64(1.0)),
        }
    }

    #[test]
    fn a_constant_source_sends_at_its_rate_until_stop() {
        let c = cfg(None);
        let mut rt = UdpRt::new(stream(1, "u"));
        let (mut t, mut n) = (SimTime::ZERO, 0);
        while let Tick::Send(next) = rt.tick(&c, SimTime::ZERO, t) {
            n += 1;
            t = next;
        }
        // 1000 B at 8 Mbit/s = 1 ms apart: 1000 datagrams in one second.
        assert_eq!((n, rt.sent), (1000, 1000));
    }

    #[test]
    fn on_off_sends_only_while_on() {
        let c = cfg(Some((Dist::Constant(0.1), Dist::Constant(0.4))));
        let mut rt = UdpRt::new(stream(1, "u"));
        let mut t = SimTime::ZERO;
        let mut sends = vec![];
        loop {
            match rt.tick(&c, SimTime::ZERO, t) {
                Tick::Send(next) => {
                    sends.push(t);
                    t = next;
                }
                Tick::Wait(next) => t = next,
                Tick::Done => break,
            }
        }
        // On 0-0.1 s and 0.5-0.6 s: 100 datagrams each.
        assert_eq!(sends.len(), 200);
        assert!(sends
            .iter()
            .all(|s| s.0 < 100_000_000 || (500_000_000..600_000_000).contains(&s.0)));
    }
}
