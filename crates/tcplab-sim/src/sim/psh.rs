//! Where Linux puts PSH on the segments it sends, for the step API (the core has no PSH bit:
//! no receiver in the model waits for one).
//!
//! Linux sets PSH in two places (net/ipv4/tcp.c, tcp_output.c):
//! - `tcp_push` at the end of a send call marks the write queue's tail, so the segment that
//!   ends where a `write` ended carries PSH;
//! - `__tcp_transmit_skb` forces PSH on every TSO/GSO packet of more than one segment (kernel
//!   commit 051ba67447de, a hint to the receiver's GRO). GSO puts it on the packet's last
//!   segment, which is what packetdrill sees.
//!
//! So the marker needs where Linux cuts a burst into TSO packets. `tcp_write_xmit` sends at
//! most `tcp_tso_segs` segments per packet, and never more than half the congestion window
//! nor more than the window has room for (`tcp_cwnd_test`), so a window of 2 or 3 sends
//! single segments without PSH. `tcp_tso_autosize` gives one millisecond's worth
//! at the pacing rate (`sk_pacing_rate >> sk_pacing_shift`, shift 10), plus
//! `gso_max_size >> (min_rtt_us >> tcp_tso_rtt_log)` on short paths (log 9), at most
//! `gso_max_size` bytes and at least `tcp_min_tso_segs` (2) segments; the pacing rate is
//! `tcp_update_pacing_rate`'s: mss * max(cwnd, packets_out) / srtt, times 200 % while cwnd is
//! below half of ssthresh and 120 % after. A retransmission resends the packets as they were
//! cut when first sent (`tcp_retransmit_skb` sends one skb of the retransmit queue, cut
//! shorter when the window is smaller, and the cut stays).
//!
//! Not modelled: TSO deferral (`tcp_tso_should_defer`), the write queue's skb size goal
//! (half the peer's largest window, which cuts bursts of more than 64 KB), and a write
//! appended to an skb that an earlier write's `tcp_push` had marked.

use std::collections::BTreeSet;

use crate::net::packet::Packet;

/// `sysctl net.ipv4.tcp_min_tso_segs`, Linux's default.
pub(crate) const MIN_TSO_SEGS: u64 = 2;
/// The device's `gso_max_size` (GSO_LEGACY_MAX_SIZE).
const GSO_MAX_SIZE: u64 = 65_536;
/// `sk_pacing_shift`: a TSO packet holds about 2^-10 s (one millisecond) of the pacing rate.
const PACING_SHIFT: u32 = 10;
/// `sysctl net.ipv4.tcp_tso_rtt_log`.
const TSO_RTT_LOG: u32 = 9;
/// `sysctl net.ipv4.tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio`, in per cent.
const PACING_SS_RATIO: u64 = 200;
const PACING_CA_RATIO: u64 = 120;

/// What the sender's state says about the pacing rate, in Linux's units.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pace {
    /// `mss_cache`, bytes.
    pub mss: u64,
    /// Segments.
    pub cwnd: u64,
    /// Segments (`u64::MAX` while unset).
    pub ssthresh: u64,
    /// Segments sent and not acknowledged, before this burst (`packets_out`).
    pub packets_out: u64,
    /// Segments in flight before this burst (`tcp_packets_in_flight`: not acknowledged, not
    /// SACKed, not lost, plus retransmissions).
    pub in_flight: u64,
    pub srtt_us: Option<u64>,
    pub min_rtt_us: Option<u64>,
    /// The peer's window, bytes.
    pub snd_wnd: u64,
    /// `sysctl net.ipv4.tcp_min_tso_segs`.
    pub min_tso_segs: u64,
}

impl Pace {
    /// `tcp_update_pacing_rate`, in bytes per second.
    fn pacing_rate(&self) -> u64 {
        let ratio = if self.cwnd < self.ssthresh / 2 {
            PACING_SS_RATIO
        } else {
            PACING_CA_RATIO
        };
        let per_rtt = self
            .mss
            .saturating_mul(ratio)
            .saturating_mul(self.cwnd.max(self.packets_out));
        match self.srtt_us {
            // mss * cwnd per srtt, as bytes per second (10^6 us, the ratio in per cent).
            Some(srtt) if srtt > 0 => per_rtt.saturating_mul(10_000) / srtt,
            // Before an RTT sample Linux divides by nothing: as fast as the device allows.
            _ => u64::MAX,
        }
    }

    /// The write queue's skb size (`tcp_xmit_size_goal`): the device's GSO size bounded by
    /// half the peer's largest window (`tcp_bound_to_half_wnd`), in whole segments.
    pub fn size_goal(&self, max_window: u64) -> u64 {
        let mss = self.mss.max(1);
        let mut goal = GSO_MAX_SIZE;
        if max_window > 0 {
            // tcp_bound_to_half_wnd
            let cutoff = if max_window > 536 {
                max_window / 2
            } else {
                max_window
            };
            goal = goal.min(cutoff.max(68));
        }
        (goal / mss * mss).max(mss)
    }

    /// `tcp_tso_segs`: the most segments one TSO packet carries.
    pub fn tso_segs(&self) -> u64 {
        let mut bytes = self.pacing_rate() >> PACING_SHIFT;
        if let Some(r) = self.min_rtt_us.map(|m| m >> TSO_RTT_LOG) {
            if r < 32 {
                bytes = bytes.saturating_add(GSO_MAX_SIZE >> r);
            }
        }
        let bytes = bytes.min(GSO_MAX_SIZE);
        (bytes / self.mss.max(1)).max(self.min_tso_segs)
    }
}

/// The PSH marks of one connection's segments.
#[derive(Clone, Debug, Default)]
pub(crate) struct PshMarker {
    /// Where the write queue's skbs end: a TSO packet never spans two.
    skb_ends: BTreeSet<u64>,
    /// The ends of the skbs `tcp_mark_push` flagged (the end of a write, a forced push).
    push_ends: BTreeSet<u64>,
    /// The ends of packets as first sent (or cut on resending).
    sent_ends: BTreeSet<u64>,
    /// The first sequence number of the last skb queued.
    tail_start: u64,
    /// Sequence numbers: the next byte written, the last push mark, the next byte to send.
    write_seq: u64,
    pushed_seq: u64,
    snd_nxt: u64,
    /// The largest window the peer offered (`max_window`), bytes.
    max_window: u64,
}

impl PshMarker {
    pub fn new() -> PshMarker {
        PshMarker {
            write_seq: 1,
            pushed_seq: 1,
            snd_nxt: 1,
            tail_start: 1,
            ..PshMarker::default()
        }
    }

    /// The peer's window (bytes) as the sender sees it now.
    pub fn window(&mut self, bytes: u64) {
        self.max_window = self.max_window.max(bytes);
    }

    /// `forced_push`: more than half the largest window written since the last push mark.
    fn forced_push(&self) -> bool {
        self.write_seq > self.pushed_seq + self.max_window / 2
    }

    fn mark_push(&mut self) {
        self.push_ends.insert(self.write_seq);
        self.pushed_seq = self.write_seq;
    }

    /// A write of `n` bytes, queued as `tcp_sendmsg` does: appended to the unsent tail skb
    /// (which loses its PSH mark) up to the size goal, then in new skbs of the goal; a full
    /// skb with more to come is marked when `forced_push`; the tail is marked at the end
    /// (`tcp_push`, unless `more`, MSG_MORE).
    pub fn write(&mut self, n: u64, more: bool, pace: &Pace) {
        let goal = pace.size_goal(self.max_window);
        let mut left = n;
        let tail = self.tail_start.max(self.snd_nxt);
        if self.write_seq > tail && self.write_seq - tail < goal && left > 0 {
            self.skb_ends.remove(&self.write_seq);
            self.push_ends.remove(&self.write_seq);
            let copy = (goal - (self.write_seq - tail)).min(left);
            self.write_seq += copy;
            left -= copy;
            self.skb_ends.insert(self.write_seq);
            if left > 0 && self.forced_push() {
                self.mark_push();
            }
        }
        while left > 0 {
            self.tail_start = self.write_seq;
            let copy = goal.min(left);
            self.write_seq += copy;
            left -= copy;
            self.skb_ends.insert(self.write_seq);
            if left > 0 && self.forced_push() {
                self.mark_push();
            }
        }
        if n > 0 && (!more || self.forced_push()) {
            self.mark_push();
        }
    }

    /// The PSH bit of each segment of `sent` (one call's output, in order): consecutive
    /// contiguous data segments of the same kind (new data or retransmission) went out in one
    /// `tcp_write_xmit` or `tcp_xmit_retransmit_queue` pass.
    pub fn mark(&mut self, sent: &[Packet], pace: &Pace) -> Vec<bool> {
        let mut psh = vec![false; sent.len()];
        let new_segs = sent.iter().filter(|p| p.len > 0 && p.tx_count <= 1).count() as u64;
        let pace = Pace {
            packets_out: pace.packets_out.saturating_sub(new_segs),
            in_flight: pace.in_flight.saturating_sub(new_segs),
            ..*pace
        };
        let tso = pace.tso_segs();
        let half_cwnd = (pace.cwnd / 2).max(1);
        let mut in_flight = pace.in_flight;
        let mut i = 0;
        while i < sent.len() {
            if sent[i].len == 0 {
                i += 1;
                continue;
            }
            let resent = sent[i].tx_count > 1;
            let mut j = i + 1;
            while j < sent.len()
                && sent[j].len > 0
                && (sent[j].tx_count > 1) == resent
                && sent[j].seq == sent[j - 1].seq + u64::from(sent[j - 1].len)
            {
                j += 1;
            }
            if resent {
                self.mark_resent(&sent[i..j], &mut psh[i..j]);
            } else {
                let mut k = i;
                while k < j {
                    // tcp_cwnd_test's quota, as the loop in tcp_write_xmit reads it, within
                    // one skb.
                    let room = pace.cwnd.saturating_sub(in_flight).max(1);
                    let most = tso.min(half_cwnd).min(room);
                    let most = usize::try_from(most).unwrap_or(usize::MAX).min(j - k);
                    let mut n = 1;
                    while n < most && !self.skb_ends.contains(&end(&sent[k + n - 1])) {
                        n += 1;
                    }
                    self.mark_packet(&sent[k..k + n], &mut psh[k..k + n]);
                    in_flight += n as u64;
                    k += n;
                }
            }
            self.snd_nxt = self.snd_nxt.max(end(&sent[j - 1]));
            i = j;
        }
        psh
    }

    /// New data sent as one TSO packet: PSH forced on more than one segment, or the skb's
    /// mark when the packet ends where a marked skb ends.
    fn mark_packet(&mut self, packet: &[Packet], psh: &mut [bool]) {
        let n = packet.len();
        let last = end(&packet[n - 1]);
        let on = n > 1 || self.push_ends.contains(&last);
        psh[n - 1] = on;
        self.sent_ends.insert(last);
    }

    /// Retransmissions: the packets as first sent, PSH where one of more than one segment is
    /// resent or where the packet had it (a packet resent in part is cut there, and the mark
    /// stays with its rest).
    fn mark_resent(&mut self, run: &[Packet], psh: &mut [bool]) {
        let mut start = 0;
        for (k, p) in run.iter().enumerate() {
            let e = end(p);
            if self.sent_ends.contains(&e) || k + 1 == run.len() {
                psh[k] = k > start || self.push_ends.contains(&e);
                self.sent_ends.insert(e);
                start = k + 1;
            }
        }
    }
}

fn end(p: &Packet) -> u64 {
    p.seq + u64::from(p.len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(seq: u64, len: u32, tx_count: u32) -> Packet {
        Packet {
            seq,
            len,
            tx_count,
            ..Packet::default()
        }
    }

    fn pace(cwnd: u64, srtt_us: u64) -> Pace {
        Pace {
            mss: 1000,
            cwnd,
            ssthresh: u64::MAX,
            packets_out: 0,
            in_flight: 0,
            srtt_us: Some(srtt_us),
            min_rtt_us: Some(srtt_us),
            snd_wnd: 32_896,
            min_tso_segs: MIN_TSO_SEGS,
        }
    }

    #[test]
    fn a_100_ms_path_in_slow_start_sends_two_segment_packets() {
        // 2 * 10 * 1000 B / 0.1 s = 200 kB/s: 195 bytes a millisecond, so tcp_min_tso_segs.
        assert_eq!(pace(10, 100_000).tso_segs(), 2);
        // 2 * 100 * 1000 B / 0.01 s = 20 MB/s: 19,531 bytes a millisecond, 19 segments.
        assert_eq!(pace(100, 10_000).tso_segs(), 19);
        // Congestion avoidance paces at 120 %: 11 segments.
        let ca = Pace {
            ssthresh: 100,
            ..pace(100, 10_000)
        };
        assert_eq!(ca.tso_segs(), 11);
    }

    #[test]
    fn tcp_min_tso_segs_raises_the_floor() {
        let ten = Pace {
            min_tso_segs: 10,
            ..pace(10, 100_000)
        };
        assert_eq!(ten.tso_segs(), 10);
    }

    #[test]
    fn a_sub_millisecond_path_sends_whole_gso_packets() {
        // min_rtt 300 us >> 9 = 0: 64 KB more, capped at 64 KB: 65 segments of 1000.
        assert_eq!(pace(10, 300).tso_segs(), 65);
        // Before any RTT sample the rate is unbounded.
        let first = Pace {
            srtt_us: None,
            min_rtt_us: None,
            ..pace(10, 1)
        };
        assert_eq!(first.tso_segs(), 65);
    }

    #[test]
    fn each_packet_of_a_burst_ends_with_psh_and_a_lone_segment_does_not() {
        let mut m = PshMarker::new();
        m.write(6000, false, &pace(10, 100_000));
        let burst: Vec<Packet> = (0..5).map(|k| seg(1 + 1000 * k, 1000, 1)).collect();
        assert_eq!(
            m.mark(&burst, &pace(10, 100_000)),
            [false, true, false, true, false]
        );
        // The write's end carries PSH.
        assert_eq!(m.mark(&[seg(5001, 1000, 1)], &pace(10, 100_000)), [true]);
    }

    #[test]
    fn a_window_of_three_sends_single_segments() {
        // tcp_cwnd_test: at most half the window per packet.
        let mut m = PshMarker::new();
        m.write(40_000, false, &pace(10, 100_000));
        let burst: Vec<Packet> = (0..2).map(|k| seg(1 + 1000 * k, 1000, 1)).collect();
        let p = Pace {
            in_flight: 3,
            packets_out: 3,
            ..pace(3, 100_000)
        };
        assert_eq!(m.mark(&burst[..1], &p), [false]);
        // A window of 4 with 2 in flight: one packet of 2.
        let p = Pace {
            in_flight: 4,
            packets_out: 4,
            ..pace(4, 100_000)
        };
        assert_eq!(m.mark(&burst, &p), [false, true]);
    }

    #[test]
    fn a_long_write_is_pushed_every_half_window() {
        // 16-segment skbs (half the 32,896-byte window, in segments); the first full skb past
        // half the window (16,448 bytes after the last mark at 1) ends at 32,001 and is
        // marked, so its lone last segment carries PSH.
        let mut m = PshMarker::new();
        m.window(32_896);
        let p = Pace {
            ssthresh: 7,
            ..pace(2, 100_000)
        };
        m.write(200_000, false, &p);
        let one = |m: &mut PshMarker, seq| m.mark(&[seg(seq, 1000, 1)], &p)[0];
        assert!(!one(&mut m, 15_001));
        assert!(!one(&mut m, 16_001));
        assert!(one(&mut m, 31_001));
        assert!(!one(&mut m, 32_001));
    }

    #[test]
    fn a_retransmission_resends_the_packets_as_first_cut() {
        let mut m = PshMarker::new();
        m.write(40_000, false, &pace(10, 100_000));
        let burst: Vec<Packet> = (0..4).map(|k| seg(1 + 1000 * k, 1000, 1)).collect();
        m.mark(&burst, &pace(10, 100_000));
        // One segment (cwnd 1 after a timeout): no PSH; the packet 1..2001 is cut at 1001.
        assert_eq!(m.mark(&[seg(1, 1000, 2)], &pace(1, 100_000)), [false]);
        // Then 1001..2001 alone, without the PSH its first sending forced (it was set on the
        // clone that went out, not on the queued skb), and 2001..4001 whole.
        let rest: Vec<Packet> = (1..4).map(|k| seg(1 + 1000 * k, 1000, 2)).collect();
        assert_eq!(m.mark(&rest, &pace(3, 100_000)), [false, false, true]);
    }
}
