//! Two of Linux's ACK rules that read the SACK scoreboard beyond RFC 6675:
//!
//! - adaptive reordering (`TcpConfig::max_reordering`, Linux's `tcp_check_sack_reordering` in
//!   net/ipv4/tcp_input.c): a never-retransmitted segment delivered below the highest SACKed
//!   sequence number (FACK) arrived out of order; the distance from it to FACK, in whole
//!   segments, becomes the duplicate-ACK threshold if it is larger (up to `max_reordering`).
//!   Both of Linux's checks are modelled: the newly SACKed segments (`tcp_sacktag_write_queue`,
//!   against the FACK before the ACK), then the cumulatively acknowledged ones
//!   (`tcp_clean_rtx_queue`, likewise), each measuring up to the FACK once the SACK blocks (and,
//!   for the second, the cumulative ACK) are applied: the end of the highest SACKed segment
//!   still outstanding, or SND.UNA when none is (`tcp_highest_sack_seq`). A timeout outside
//!   recovery with at least `dupthresh` segments SACKed brings it back to `dupthresh`
//!   (`tcp_enter_loss`);
//! - SACK blocks on an ACK below SND.UNA (`TcpConfig::old_ack_sack`, `tcp_ack`'s `old_ack`
//!   path): applied, and loss detection run, without a window change; the send pass that
//!   follows every segment sends what the window now allows.
//!
//! Not modelled: Linux also lets cwnd grow on ACKs that only SACK new data while the
//! threshold is above `dupthresh` (`tcp_may_raise_cwnd`), and remembers it per destination
//! (`tcp_metrics`); without SACK, `tcp_check_reno_reordering` raises it when more duplicate
//! ACKs arrive than segments are outstanding.

use super::{Ctx, Endpoint};
use crate::engine::time::SimTime;
use crate::net::packet::Packet;
use crate::tcp::recovery::AckInfo;

impl Endpoint {
    /// Linux's FACK (`tcp_highest_sack_seq`): the end of the highest SACKed segment, or SND.UNA
    /// when nothing outstanding is SACKed.
    pub(super) fn fack(&self) -> u64 {
        if self.sb.sacked_segs() > 0 {
            self.sb.highest_sacked().unwrap_or(self.snd_una)
        } else {
            self.snd_una
        }
    }

    /// `tcp_check_sack_reordering`: `low`, the start of a never-retransmitted segment just
    /// delivered, lies below FACK: grow the threshold to the distance, in segments rounded up.
    // Out of line: most runs never or seldom call it, and in line it made the per-segment paths
    // that can larger and slower (BENCHMARKS.md, "Rare paths out of line").
    #[inline(never)]
    fn check_reordering(&mut self, low: u64) {
        let fack = self.fack();
        if low >= fack {
            return;
        }
        let mss = self.eff_mss.max(1);
        let metric = fack - low;
        if metric > u64::from(self.reordering) * mss {
            let segs = metric.div_ceil(mss).min(u64::from(self.cfg.max_reordering));
            self.reordering = segs as u32;
        }
    }

    /// After the SACK blocks of an ACK were applied (its cumulative part not yet): the lowest
    /// newly SACKed original transmission below `prior_fack` (`tcp_sacktag_one`'s
    /// `state->reord`).
    // Out of line: most runs never or seldom call it, and in line it made the per-segment paths
    // that can larger and slower (BENCHMARKS.md, "Rare paths out of line").
    #[inline(never)]
    pub(super) fn reordering_after_sacks(&mut self, prior_fack: u64) {
        if self.cfg.max_reordering == 0 {
            return;
        }
        let low = self
            .sb
            .delivery()
            .min_orig_end
            .and_then(|end| self.sb.start_of_seg_ending_at(end));
        if let Some(low) = low.filter(|&l| l < prior_fack) {
            self.check_reordering(low);
        }
    }

    /// Before the cumulative ACK `ack` is applied: the lowest original transmission it will
    /// deliver, if below `prior_fack` (`tcp_clean_rtx_queue`'s `reord`). Checked with
    /// `reordering_after_ack` once it is applied.
    pub(super) fn reordering_low_of_ack(&self, ack: u64, prior_fack: u64) -> Option<u64> {
        if self.cfg.max_reordering == 0 || prior_fack <= self.snd_una {
            return None;
        }
        self.sb
            .first_orig_unsacked_below(ack)
            .filter(|&l| l < prior_fack)
    }

    pub(super) fn reordering_after_ack(&mut self, low: Option<u64>) {
        if let Some(low) = low {
            self.check_reordering(low);
        }
    }

    /// `tcp_enter_loss`: a timeout outside recovery with at least `dupthresh` segments SACKed
    /// says the reordering was overestimated.
    pub(super) fn reordering_at_timeout(&mut self) {
        if !self.in_recovery
            && !self.rto_recovery
            && self.sb.sacked_segs() >= self.cfg.dupthresh as usize
        {
            self.reordering = self.reordering.min(self.cfg.dupthresh);
        }
    }

    /// An ACK below SND.UNA with SACK blocks (`old_ack_sack`): apply them, measure reordering
    /// and run the loss-recovery plug-in's detection; the window is left as it is. Linux
    /// ignores an ACK more than the largest window it was offered below SND.UNA.
    pub(super) fn old_ack_sacks(&mut self, p: &Packet, ctx: &mut Ctx) {
        if !self.sack_ok || p.n_sack == 0 || p.ack + self.max_snd_wnd < self.snd_una {
            return;
        }
        let now = ctx.now;
        self.sb
            .set_rack_cutoff(self.rto.min_rtt.map(|m| SimTime(now.0.saturating_sub(m.0))));
        let prior_fack = self.fack();
        for b in p.sack_blocks() {
            if b.end > self.snd_una && b.end <= self.snd_max {
                self.sb.sack(b.start, b.end);
            }
        }
        self.reordering_after_sacks(prior_fack);
        let d = self.sb.take_delivery();
        if d.bytes > 0 {
            self.rs.delivered += d.bytes;
            self.rs.delivered_time = now;
        }
        if self.rec_timers {
            let info = AckInfo {
                acked: 0,
                dupack: false,
                delivery: d,
                ts_echo_us: (self.ts_ok && p.has_ts && p.ts_ecr > 0).then(|| p.ts_ecr - 1),
            };
            let v = self.view(now);
            let verdict = self.rec.on_ack(&v, &mut self.sb, &info);
            self.handle_verdict(verdict, ctx);
        }
    }
}
