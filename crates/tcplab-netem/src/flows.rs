//! Per-flow TCP state the forwarder needs: the initial sequence number of each half-connection
//! (so the drop log and the `list` model use relative sequence numbers, SYN = 0, first data
//! byte = 1, like the simulator and like Wireshark), the window-scale shift each side announced
//! (for the receive-window clamp) and, when a `list` model names segments, how many times each
//! sequence number has been sent.
//!
//! A hash map is fine here: nothing iterates over it, so its order never shows in any output.

use std::collections::HashMap;

use crate::packet::Tcp;

/// One half-connection: packets from `src:sport` to `dst:dport`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowKey {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub sport: u16,
    pub dport: u16,
}

impl FlowKey {
    pub fn reverse(self) -> FlowKey {
        FlowKey {
            src: self.dst,
            dst: self.src,
            sport: self.dport,
            dport: self.sport,
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Half {
    isn: Option<u32>,
    /// The shift this side announced in its SYN (None: no option, or no SYN seen).
    wscale: Option<u8>,
    saw_syn: bool,
}

/// What the forwarder learns about one segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentView {
    /// Sequence number relative to the half-connection's ISN (absolute if no SYN was seen).
    pub rel_seq: u32,
    /// Transmission number of this sequence number (1 = first), when counted.
    pub transmission: Option<u32>,
    /// Shift applying to this segment's window field (0 for SYNs and when scaling is off).
    pub window_shift: u8,
}

#[derive(Default)]
pub struct Flows {
    halves: HashMap<FlowKey, Half>,
    transmissions: HashMap<(FlowKey, u32), u32>,
}

impl Flows {
    /// Look at a segment arriving from the sender; `count` = track transmission numbers.
    pub fn observe(&mut self, key: FlowKey, tcp: &Tcp, count: bool) -> SegmentView {
        let half = self.halves.entry(key).or_default();
        if tcp.syn() {
            // A new SYN (a new connection reusing the 4-tuple) restarts the half.
            if half.isn != Some(tcp.seq) {
                *half = Half {
                    isn: Some(tcp.seq),
                    wscale: tcp.wscale,
                    saw_syn: true,
                };
            }
        }
        let h = *half;
        let rel_seq = tcp.seq.wrapping_sub(h.isn.unwrap_or(0));
        // RFC 7323 section 2.2: scaling is in effect only if both SYNs carried the option, and
        // the window field of a SYN is never scaled.
        let window_shift = if tcp.syn() {
            0
        } else {
            match (h.saw_syn, h.wscale, self.halves.get(&key.reverse())) {
                (true, Some(s), Some(r)) if r.saw_syn && r.wscale.is_some() => s,
                _ => 0,
            }
        };
        let transmission = (count && tcp.occupies_sequence_space()).then(|| {
            let n = self.transmissions.entry((key, rel_seq)).or_insert(0);
            *n += 1;
            *n
        });
        SegmentView {
            rel_seq,
            transmission,
            window_shift,
        }
    }
}

/// The window field to write so that the advertised window (field << shift) does not exceed
/// `clamp` bytes. When `clamp` is below one scaled unit the field is kept at 1 (never close
/// the window): the effective clamp is then 2^shift.
pub fn clamped_window(window: u16, shift: u8, clamp: u32) -> u16 {
    let max_field = (clamp >> shift).clamp(1, 0xffff) as u16;
    window.min(max_field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{TCP_FIN, TCP_SYN};

    fn key() -> FlowKey {
        FlowKey {
            src: [198, 18, 0, 2],
            dst: [198, 18, 0, 1],
            sport: 5001,
            dport: 40000,
        }
    }

    fn seg(seq: u32, flags: u8, payload: u32, wscale: Option<u8>) -> Tcp {
        Tcp {
            sport: 5001,
            dport: 40000,
            seq,
            flags,
            window: 1000,
            payload,
            offset: 34,
            wscale,
        }
    }

    #[test]
    fn sequence_numbers_are_relative_to_the_syn() {
        let mut f = Flows::default();
        let isn = 0xffff_fff0;
        let v = f.observe(key(), &seg(isn, TCP_SYN, 0, None), true);
        assert_eq!(v.rel_seq, 0);
        assert_eq!(v.transmission, Some(1));
        let v = f.observe(key(), &seg(isn.wrapping_add(1461), 0x10, 1460, None), true);
        assert_eq!(v.rel_seq, 1461);
        let v = f.observe(key(), &seg(isn.wrapping_add(1461), 0x10, 1460, None), true);
        assert_eq!(v.transmission, Some(2));
        // Pure ACKs take no sequence space and are not counted.
        let v = f.observe(key(), &seg(isn.wrapping_add(2921), 0x10, 0, None), true);
        assert_eq!(v.transmission, None);
        let v = f.observe(
            key(),
            &seg(isn.wrapping_add(2921), TCP_FIN | 0x10, 0, None),
            true,
        );
        assert_eq!(v.transmission, Some(1));
    }

    #[test]
    fn window_scale_needs_both_syns() {
        let mut f = Flows::default();
        f.observe(key(), &seg(1, TCP_SYN, 0, Some(7)), false);
        let v = f.observe(key(), &seg(2, 0x10, 0, None), false);
        assert_eq!(v.window_shift, 0, "peer has not announced scaling yet");
        f.observe(key().reverse(), &seg(9, TCP_SYN | 0x10, 0, Some(9)), false);
        let v = f.observe(key(), &seg(2, 0x10, 0, None), false);
        assert_eq!(v.window_shift, 7);
        let v = f.observe(key().reverse(), &seg(10, 0x10, 0, None), false);
        assert_eq!(v.window_shift, 9);
    }

    #[test]
    fn peer_without_window_scale_disables_it() {
        let mut f = Flows::default();
        f.observe(key(), &seg(1, TCP_SYN, 0, Some(7)), false);
        f.observe(key().reverse(), &seg(9, TCP_SYN | 0x10, 0, None), false);
        assert_eq!(
            f.observe(key(), &seg(2, 0x10, 0, None), false).window_shift,
            0
        );
    }

    #[test]
    fn clamp_respects_the_scale() {
        assert_eq!(clamped_window(64240, 0, 8760), 8760);
        assert_eq!(clamped_window(5000, 0, 8760), 5000);
        // Shift 7 (units of 128 bytes): 8760 / 128 = 68 units = 8704 bytes.
        assert_eq!(clamped_window(500, 7, 8760), 68);
        // Below one unit the window stays open at one unit.
        assert_eq!(clamped_window(500, 14, 8760), 1);
        assert_eq!(clamped_window(0, 0, 8760), 0);
        assert_eq!(clamped_window(65535, 0, 1 << 20), 65535);
    }
}
