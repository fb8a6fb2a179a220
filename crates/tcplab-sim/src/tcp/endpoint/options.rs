//! TCP options: what the SYNs offer and agree (MSS, RFC 9293 section 3.7.1; SACK-permitted,
//! RFC 2018; window scale, RFC 7323 section 2), the timestamps every segment then carries and
//! TS.Recent (RFC 7323 sections 3 and 4), and the SACK blocks of an ACK (RFC 2018 section 4).
//! On ns-2's wire (`Ns2Rules::wire`) a SACK block is 8 bytes, without kind, length or padding.

use super::Endpoint;
use crate::engine::time::{Dur, SimTime};
use crate::net::packet::{Packet, SackBlock, ACK, SYN};

/// The window scale that lets the 16-bit window field offer a buffer of `buf` bytes (RFC 7323
/// section 2.3: at most 14).
pub(super) fn wscale_for(buf: u64) -> u8 {
    let mut s = 0u8;
    while s < 14 && (65_535u64 << s) < buf {
        s += 1;
    }
    s
}

impl Endpoint {
    /// The timestamp clock: one tick per microsecond, counted from 1, so that an echo of 0 is
    /// no echo (`ts_rtt`).
    fn ts_now(now: SimTime) -> u64 {
        now.0 / 1_000 + 1
    }

    /// What the peer's SYN (or SYN-ACK) agrees to: timestamps and SACK if both sides offered
    /// them, and the window scales. Without scaling the right edge offered is within 64 kB.
    pub(super) fn accept_options(&mut self, p: &Packet) {
        self.ts_ok = self.cfg.timestamps && p.has_ts;
        if self.ts_ok {
            self.ts_recent = p.ts_val;
        }
        self.sack_ok = (self.cfg.sack || self.rec.wants_sack()) && p.syn_sack_ok;
        // RFC 7323 2.2: scaling only if both sides sent the option.
        self.wscale_ok = self.cfg.window_scaling && p.syn_wscale >= 0;
        if self.wscale_ok {
            self.peer_wscale = (p.syn_wscale as u8).min(14);
        } else {
            self.peer_wscale = 0;
            self.own_wscale = 0;
            self.rcv_adv = self.rcv_nxt + self.cfg.rcv_buf.min(65_535);
        }
    }

    /// The options a SYN or SYN-ACK offers (after `segment_options`, whose timestamp it
    /// counts): MSS (4 bytes), SACK-permitted (2), window scale (3), padded to 4 bytes; none on
    /// ns-2's wire.
    pub(super) fn syn_options(&self, p: &mut Packet) {
        // A SYN-ACK offers SACK-permitted and the window scale only if the SYN did (RFC 2018
        // section 2, RFC 7323 section 2.2); `accept_options` settled both.
        let syn_ack = p.is(ACK);
        p.syn_mss = self.cfg.mss;
        p.syn_sack_ok = if syn_ack {
            self.sack_ok
        } else {
            self.cfg.sack || self.rec.wants_sack()
        };
        let mut opt = 4 + if p.has_ts { 10 } else { 0 };
        if p.syn_sack_ok {
            opt += 2;
        }
        if self.cfg.window_scaling && (!syn_ack || self.wscale_ok) {
            p.syn_wscale = self.own_wscale as i8;
            opt += 3;
        }
        p.opt_len = if self.cfg.ns2.wire {
            0
        } else {
            (opt as u32).div_ceil(4) * 4
        };
    }

    /// The options of a segment `base_packet` built: the timestamps (on every segment once
    /// agreed, and on a SYN that offers them) and, on an ACK with data out of order, SACK
    /// blocks. Inlined into `base_packet`, on every segment.
    #[inline(always)]
    pub(super) fn segment_options(&self, p: &mut Packet, flags: u8, now: SimTime) {
        let mut opt = 0;
        // A SYN offers timestamps; a SYN-ACK only echoes an offer (RFC 7323 section 3.2).
        if self.ts_ok || (flags & (SYN | ACK) == SYN && self.cfg.timestamps) {
            p.has_ts = true;
            p.ts_val = Self::ts_now(now);
            p.ts_ecr = self.ts_recent;
            opt += 10;
        }
        let nswire = self.cfg.ns2.wire;
        if self.sack_ok && flags & ACK != 0 && !self.ooo.is_empty() {
            let max = if p.has_ts || nswire { 3 } else { 4 };
            let n = self.fill_sack(p, max);
            // ns-2 Sacker::append_ack: 8 bytes per block, no kind/length, no padding.
            opt += if nswire {
                8 * n as u32
            } else {
                2 + 8 * n as u32
            };
        }
        // Padded to 4 bytes: `opt` is at most 10 + 2 + 8 x 4, so the sum does not overflow
        // (two instructions where `div_ceil(4) * 4` takes five, on every segment). The links
        // rely on the bound: at most 36 bytes beyond what the MSS counts (timestamps and three
        // blocks, or four blocks), so that a frame on a link of MTU up to `PLAIN_MTU_MAX`
        // (net/link.rs) fits the 16-bit size of its `Frame`. Options that could be longer
        // must lower that constant.
        p.opt_len = if nswire { opt } else { (opt + 3) & !3 };
    }

    /// RFC 2018 section 4: the first block reports the most recently received segment's block,
    /// the others repeat the most recent blocks (here: the highest ones first).
    fn fill_sack(&self, p: &mut Packet, max: usize) -> usize {
        p.n_sack = 0;
        let first = self
            .last_ooo
            .and_then(|(s, _)| self.ooo.iter().find(|r| r.0 <= s && s < r.1).copied());
        if let Some((s, e)) = first {
            p.push_sack(SackBlock { start: s, end: e });
        }
        for &(s, e) in self.ooo.iter().rev() {
            if p.n_sack as usize >= max {
                break;
            }
            if Some((s, e)) == first {
                continue;
            }
            p.push_sack(SackBlock { start: s, end: e });
        }
        p.n_sack as usize
    }

    /// RFC 7323 4.3: TS.Recent from the segment that covers Last.ACK.sent. Inlined: on every
    /// segment received.
    #[inline(always)]
    pub(super) fn update_ts_recent(&mut self, p: &Packet) {
        if self.ts_ok && p.has_ts && p.seq <= self.last_ack_sent {
            self.ts_recent = self.ts_recent.max(p.ts_val);
        }
    }

    /// The RTT a timestamp echo measures (RFC 7323 section 4.1), if the connection uses
    /// timestamps and `p` echoes one.
    #[inline(always)]
    pub(super) fn ts_rtt(&self, p: &Packet, now: SimTime) -> Option<Dur> {
        (self.ts_ok && p.has_ts && p.ts_ecr > 0)
            .then(|| Dur(Self::ts_now(now).saturating_sub(p.ts_ecr) * 1_000))
    }
}
