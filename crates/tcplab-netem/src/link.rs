//! One direction of an impaired link, as the simulator models it: a drop-tail transmit queue, a
//! transmitter that serialises each frame at the link rate (framing overhead included), a channel
//! that may corrupt the frame (tcplab-sim's `ErrorModel`), then the propagation delay.
//!
//! The model is pure: every call takes `now` (nanoseconds on any monotonic clock) and returns
//! when the frame must leave the far end. The forwarder holds the frames; this file only keeps
//! the transmitter's state and the counters. Because the queue is FIFO, the rate and the delay
//! constant per direction, departure times never decrease, so the forwarder's delay line is a
//! plain FIFO as well.
//!
//! Semantics (tell the simulator if they change):
//! - a frame arriving at `now` starts transmission at `max(now, busy_until)`; it ends `ser` later,
//!   where `ser` = wire bytes x 8 / rate, rounded up to the nanosecond; it leaves the far end at
//!   transmission end + delay;
//! - the queue holds the frames waiting for the transmitter, not the one being transmitted; a
//!   frame that would push the waiting count (packets) or waiting wire bytes (bytes, framing
//!   included) above the limit is dropped on arrival (drop-tail) and never reaches the channel;
//! - every transmitted frame draws from the error model in transmission order, so frame indices
//!   in the `list` model count transmitted frames only; a corrupted frame still occupies the
//!   transmitter and counts in `frames_sent` and `bytes_on_wire`;
//! - rate 0 = unlimited: no serialisation time, no queue.

use std::collections::VecDeque;

use serde::Serialize;
use tcplab_sim::engine::time::serialization;
use tcplab_sim::net::loss::{ErrorModel, FrameInfo};

/// Framing is the simulator's own (wire bytes and bytes exposed to errors).
pub use tcplab_sim::net::link::Framing;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
    Unlimited,
}

#[derive(Clone, Copy, Debug)]
pub struct LinkParams {
    /// Bits per second; 0 = unlimited.
    pub rate_bps: u64,
    pub delay_ns: u64,
    pub framing: Framing,
    pub queue: QueueLimit,
}

/// Serialisation time of `bytes` at `rate_bps` (the simulator's rounding: up to the next
/// nanosecond); 0 for an unlimited link.
pub fn serialization_ns(bytes: u32, rate_bps: u64) -> u64 {
    if rate_bps == 0 {
        return 0;
    }
    serialization(u64::from(bytes), rate_bps).0
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Counters {
    /// Frames offered to this direction (IPv4 frames read from the ingress port).
    pub frames_in: u64,
    /// Frames transmitted (including those the channel then corrupted).
    pub frames_sent: u64,
    pub frames_dropped_error: u64,
    pub frames_dropped_queue: u64,
    /// Frames written to the egress port.
    pub frames_delivered: u64,
    /// Transmitter bytes of all transmitted frames, framing overhead included.
    pub bytes_on_wire: u64,
    /// IP bytes of delivered frames.
    pub ip_bytes_delivered: u64,
    pub max_queue_packets: u64,
    pub max_queue_bytes: u64,
}

/// What happens to an offered frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Leave the far end at `deliver_at`.
    Forward { deliver_at: u64 },
    /// Dropped on arrival: the queue was full.
    DropQueue,
    /// Transmitted from `tx_start` as the direction's `frame_index`-th frame, then corrupted.
    DropError { tx_start: u64, frame_index: u64 },
}

pub struct Link {
    params: LinkParams,
    errors: ErrorModel,
    /// When the transmitter finishes the last admitted frame.
    busy_until: u64,
    /// Admitted frames that have not started transmission: (start time, wire bytes).
    waiting: VecDeque<(u64, u32)>,
    waiting_bytes: u64,
    pub counters: Counters,
}

impl Link {
    pub fn new(params: LinkParams, errors: ErrorModel) -> Link {
        Link {
            params,
            errors,
            busy_until: 0,
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            counters: Counters::default(),
        }
    }

    pub fn params(&self) -> &LinkParams {
        &self.params
    }

    /// Frames waiting (not yet transmitting) at `now`.
    fn settle(&mut self, now: u64) {
        while let Some(&(start, bytes)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.waiting.pop_front();
            self.waiting_bytes -= u64::from(bytes);
        }
    }

    fn queue_full(&self, wire: u32) -> bool {
        match self.params.queue {
            QueueLimit::Unlimited => false,
            QueueLimit::Packets(n) => self.waiting.len() as u64 >= n,
            QueueLimit::Bytes(n) => self.waiting_bytes + u64::from(wire) > n,
        }
    }

    /// Offer an IP packet of `ip_len` bytes arriving at `now`; `tcp` as in `FrameInfo`.
    pub fn offer(&mut self, now: u64, ip_len: u32, tcp: Option<(u64, u32)>) -> Verdict {
        self.counters.frames_in += 1;
        let p = self.params;
        let wire = p.framing.wire_bytes(ip_len);
        let start = now.max(self.busy_until);
        if p.rate_bps > 0 {
            self.settle(now);
            // The transmitter is idle (start == now) or busy: the frame waits only when busy.
            if start > now {
                if self.queue_full(wire) {
                    self.counters.frames_dropped_queue += 1;
                    return Verdict::DropQueue;
                }
                self.waiting.push_back((start, wire));
                self.waiting_bytes += u64::from(wire);
                let c = &mut self.counters;
                c.max_queue_packets = c.max_queue_packets.max(self.waiting.len() as u64);
                c.max_queue_bytes = c.max_queue_bytes.max(self.waiting_bytes);
            }
        }
        let end = start + serialization_ns(wire, p.rate_bps);
        self.busy_until = end;
        self.counters.frames_sent += 1;
        self.counters.bytes_on_wire += u64::from(wire);
        let frame_index = self.errors.frames_seen();
        let info = FrameInfo {
            exposed_bytes: p.framing.exposed_bytes(ip_len),
            tcp,
        };
        if self.errors.corrupts(&info) {
            self.counters.frames_dropped_error += 1;
            return Verdict::DropError {
                tx_start: start,
                frame_index,
            };
        }
        Verdict::Forward {
            deliver_at: end + p.delay_ns,
        }
    }

    /// Record a frame handed to the egress port.
    pub fn delivered(&mut self, ip_len: u32) {
        self.counters.frames_delivered += 1;
        self.counters.ip_bytes_delivered += u64::from(ip_len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_sim::engine::rng::stream;
    use tcplab_sim::net::loss::{ErrorModelConfig, Law};

    fn link(rate_bps: u64, delay_ns: u64, framing: Framing, queue: QueueLimit) -> Link {
        let params = LinkParams {
            rate_bps,
            delay_ns,
            framing,
            queue,
        };
        Link::new(
            params,
            ErrorModel::new(ErrorModelConfig::None, stream(0, "t")),
        )
    }

    #[test]
    fn ethernet_adds_38_bytes_and_pads_to_64() {
        assert_eq!(Framing::Ethernet.wire_bytes(1500), 1538);
        assert_eq!(Framing::Ethernet.exposed_bytes(1500), 1518);
        // A 40-byte pure ACK is padded to the 64-byte minimum frame, plus preamble and gap.
        assert_eq!(Framing::Ethernet.wire_bytes(40), 84);
        assert_eq!(Framing::Ethernet.exposed_bytes(40), 64);
        assert_eq!(Framing::Ppp.wire_bytes(1500), 1508);
        assert_eq!(Framing::None.wire_bytes(1500), 1500);
    }

    #[test]
    fn serialization_rounds_up() {
        // 1538 bytes at 10 Mbit/s = 1230.4 us.
        assert_eq!(serialization_ns(1538, 10_000_000), 1_230_400);
        assert_eq!(serialization_ns(1, 3), 2_666_666_667);
        assert_eq!(serialization_ns(1500, 0), 0);
    }

    #[test]
    fn back_to_back_frames_leave_one_serialisation_apart() {
        let mut l = link(
            10_000_000,
            20_000_000,
            Framing::Ethernet,
            QueueLimit::Unlimited,
        );
        let a = l.offer(1_000, 1500, None);
        let b = l.offer(1_000, 1500, None);
        assert_eq!(
            a,
            Verdict::Forward {
                deliver_at: 1_000 + 1_230_400 + 20_000_000
            }
        );
        assert_eq!(
            b,
            Verdict::Forward {
                deliver_at: 1_000 + 2 * 1_230_400 + 20_000_000
            }
        );
        // After the link drained, a new frame starts at once.
        let c = l.offer(100_000_000, 40, None);
        assert_eq!(
            c,
            Verdict::Forward {
                deliver_at: 100_000_000 + serialization_ns(84, 10_000_000) + 20_000_000
            }
        );
        assert_eq!(l.counters.bytes_on_wire, 1538 * 2 + 84);
    }

    #[test]
    fn packet_queue_holds_limit_frames_behind_the_transmitter() {
        let mut l = link(1_000_000, 0, Framing::None, QueueLimit::Packets(2));
        // First frame transmits, two wait, the fourth is dropped.
        let v: Vec<Verdict> = (0..4).map(|_| l.offer(0, 1000, None)).collect();
        assert!(matches!(v[2], Verdict::Forward { .. }));
        assert_eq!(v[3], Verdict::DropQueue);
        assert_eq!(l.counters.frames_dropped_queue, 1);
        assert_eq!(l.counters.max_queue_packets, 2);
        // Once the first frame is done (8 ms at 1 Mbit/s) one slot is free again.
        assert!(matches!(
            l.offer(8_000_000, 1000, None),
            Verdict::Forward { .. }
        ));
        assert_eq!(l.offer(8_000_000, 1000, None), Verdict::DropQueue);
    }

    #[test]
    fn byte_queue_counts_wire_bytes() {
        // Ethernet: a 1000-byte packet is 1038 wire bytes.
        let mut l = link(1_000_000, 0, Framing::Ethernet, QueueLimit::Bytes(2100));
        assert!(matches!(l.offer(0, 1000, None), Verdict::Forward { .. })); // transmitting
        assert!(matches!(l.offer(0, 1000, None), Verdict::Forward { .. })); // 1038 waiting
        assert!(matches!(l.offer(0, 1000, None), Verdict::Forward { .. })); // 2076 waiting
        assert_eq!(l.offer(0, 1000, None), Verdict::DropQueue); // 3114 > 2100
        assert_eq!(l.offer(0, 30, None), Verdict::DropQueue); // 64 + 20 wire bytes: 2160
        assert_eq!(l.counters.max_queue_bytes, 2076);
    }

    #[test]
    fn corrupted_frames_occupy_the_transmitter() {
        let params = LinkParams {
            rate_bps: 8_000_000,
            delay_ns: 0,
            framing: Framing::None,
            queue: QueueLimit::Unlimited,
        };
        let cfg = ErrorModelConfig::List {
            frames: vec![0],
            segments: vec![],
        };
        let mut l = Link::new(params, ErrorModel::new(cfg, stream(0, "t")));
        assert_eq!(
            l.offer(0, 1000, None),
            Verdict::DropError {
                tx_start: 0,
                frame_index: 0
            }
        );
        // 1000 bytes at 8 Mbit/s = 1 ms; the next frame waits for the corrupted one.
        assert_eq!(
            l.offer(0, 1000, None),
            Verdict::Forward {
                deliver_at: 2_000_000
            }
        );
        assert_eq!(l.counters.frames_sent, 2);
        assert_eq!(l.counters.frames_dropped_error, 1);
    }

    #[test]
    fn queue_drops_do_not_consume_frame_indices() {
        let params = LinkParams {
            rate_bps: 1_000_000,
            delay_ns: 0,
            framing: Framing::None,
            queue: QueueLimit::Packets(0),
        };
        let cfg = ErrorModelConfig::List {
            frames: vec![1],
            segments: vec![],
        };
        let mut l = Link::new(params, ErrorModel::new(cfg, stream(0, "t")));
        assert!(matches!(l.offer(0, 1000, None), Verdict::Forward { .. })); // frame 0
        assert_eq!(l.offer(0, 1000, None), Verdict::DropQueue);
        assert!(matches!(
            l.offer(10_000_000, 1000, None),
            Verdict::DropError { frame_index: 1, .. }
        ));
    }

    #[test]
    fn ber_uses_exposed_bytes() {
        // BER 1 corrupts everything; BER 0 nothing: checks the wiring of Law::Ber.
        let mk = |ber| {
            let params = LinkParams {
                rate_bps: 0,
                delay_ns: 0,
                framing: Framing::Ethernet,
                queue: QueueLimit::Unlimited,
            };
            Link::new(
                params,
                ErrorModel::new(ErrorModelConfig::Law(Law::Ber(ber)), stream(1, "t")),
            )
        };
        assert!(matches!(
            mk(1.0).offer(0, 40, None),
            Verdict::DropError { .. }
        ));
        assert!(matches!(
            mk(0.0).offer(0, 40, None),
            Verdict::Forward { .. }
        ));
    }
}
