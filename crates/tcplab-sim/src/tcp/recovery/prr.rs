//! Proportional Rate Reduction, RFC 6937, as a sending rule during fast recovery.
//!
//! Enabled by `prr = true` in a scenario's `[tcp]` (`TcpConfig::prr`); it combines with any
//! loss-recovery plug-in and any congestion control that does not set its own recovery window
//! (`SenderRules::prr`; BBR does not). Semantics:
//!
//! - at the start of fast recovery (after the congestion control set ssthresh):
//!   prr_delivered = prr_out = 0, RecoverFS = the bytes in flight by the scoreboard. The RFC
//!   writes SND.NXT - SND.UNA, which is the same without SACK; with SACK the data the receiver
//!   already holds is not in flight (Linux likewise divides by the cwnd before recovery);
//! - on every ACK during recovery: DeliveredData = bytes newly acknowledged cumulatively or by
//!   SACK; without SACK, each duplicate ACK counts one SMSS and a cumulative ACK counts what the
//!   duplicate ACKs before it had not (section 3 of the RFC); prr_delivered += DeliveredData;
//!   with pipe the loss-recovery plug-in's estimate:
//!   - pipe > ssthresh: sndcnt = CEIL(prr_delivered x ssthresh / RecoverFS) - prr_out;
//!   - otherwise (PRR-SSRB, the RFC's recommended bound):
//!     sndcnt = MIN(ssthresh - pipe, MAX(prr_delivered - prr_out, DeliveredData) + SMSS);
//!   - cwnd = pipe + sndcnt, so the usual rule "send while pipe + segment <= cwnd" sends sndcnt;
//! - every data segment sent during recovery (retransmission, new data, the fast retransmit
//!   itself) adds to prr_out;
//! - at the end of recovery the congestion control sets cwnd as usual (ssthresh for Reno).
//!
//! With PRR the RFC 6582 "add back one SMSS" credit of partial ACKs is not used (PRR's sndcnt
//! replaces window inflation).
//!
//! `PrrRule::Linux` (`TcpConfig::prr_rule`) is Linux's `tcp_cwnd_reduction`
//! (net/ipv4/tcp_input.c), which departs from the RFC in four places:
//!
//! - RecoverFS is the cwnd before the reduction (`prior_cwnd`), and the proportional target
//!   is counted in whole segments, rounded up;
//! - below ssthresh the bound is MAX(prr_delivered - prr_out, DeliveredData), one SMSS more
//!   only when the ACK advances SND.UNA and marks no new loss (the RFC adds it on every ACK);
//! - the fast retransmit is the entry ACK's own allowance: sndcnt is at least one segment while
//!   prr_out is 0, and the retransmission counts against it (Linux sends it after setting cwnd,
//!   the endpoint before, so the entry ACK's computation leaves it out of pipe and prr_out);
//! - an ACK that delivers nothing leaves cwnd as it is.
//!
//! With 4 of 10 segments lost (3 SACKed, 4 marked lost: pipe 3, ssthresh 7) the RFC sends the
//! fast retransmit and two more retransmissions on the third duplicate ACK; Linux sends the
//! fast retransmit alone, then one retransmission per further duplicate ACK.

/// Which PRR (`TcpConfig::prr_rule`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrrRule {
    /// RFC 6937 with PRR-SSRB.
    #[default]
    Rfc6937,
    /// Linux's `tcp_cwnd_reduction`.
    Linux,
}

/// The PRR state of one recovery episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    pub recover_fs: u64,
    pub prr_delivered: u64,
    pub prr_out: u64,
    pub rule: PrrRule,
    /// `PrrRule::Linux`: no ACK has set the window yet, and what was sent (the fast
    /// retransmit) belongs to the first one's allowance.
    entry: bool,
}

/// What one ACK in recovery tells PRR besides the data it delivered and the pipe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrrAck {
    /// The ACK advanced SND.UNA.
    pub una_advanced: bool,
    /// It (or the loss detection it ran) marked segments lost that were not before.
    pub newly_lost: bool,
}

impl Prr {
    /// A recovery episode's PRR: `recover_fs` is RecoverFS (the flight at its start for the
    /// RFC, the cwnd before the reduction for Linux).
    pub fn start(recover_fs: u64, rule: PrrRule) -> Prr {
        Prr {
            recover_fs: recover_fs.max(1),
            prr_delivered: 0,
            prr_out: 0,
            rule,
            entry: true,
        }
    }

    /// One ACK in recovery: the new cwnd, or None to leave it as it is.
    pub fn window(
        &mut self,
        delivered: u64,
        pipe: u64,
        ssthresh: u64,
        mss: u64,
        ack: PrrAck,
    ) -> Option<u64> {
        match self.rule {
            PrrRule::Rfc6937 => Some(pipe + self.on_ack(delivered, pipe, ssthresh, mss)),
            PrrRule::Linux => self.linux(delivered, pipe, ssthresh, mss, ack),
        }
    }

    /// `tcp_cwnd_reduction`, in bytes: cwnd = pipe + sndcnt.
    fn linux(
        &mut self,
        delivered: u64,
        pipe: u64,
        ssthresh: u64,
        mss: u64,
        ack: PrrAck,
    ) -> Option<u64> {
        if delivered == 0 && !self.entry {
            return None;
        }
        // At the first ACK, what was already sent (the fast retransmit) is what this ACK's
        // sndcnt lets out: leave it out of the pipe and prr_out as Linux has not sent it yet.
        let (pipe, prr_out) = if std::mem::take(&mut self.entry) {
            (pipe.saturating_sub(self.prr_out), 0)
        } else {
            (pipe, self.prr_out)
        };
        self.prr_delivered += delivered;
        let mss = mss.max(1);
        let sndcnt: i128 = if pipe > ssthresh {
            // ceil(ssthresh x prr_delivered / prior_cwnd) in whole segments, - prr_out.
            let target = (ssthresh as u128 * self.prr_delivered as u128)
                .div_ceil(self.recover_fs as u128 * mss as u128)
                * mss as u128;
            target as i128 - prr_out as i128
        } else {
            let mut n = self.prr_delivered.saturating_sub(prr_out).max(delivered);
            if ack.una_advanced && !ack.newly_lost {
                n += mss;
            }
            n.min(ssthresh - pipe) as i128
        };
        // Force a fast retransmit at the start of recovery.
        let sndcnt = if prr_out == 0 {
            sndcnt.max(mss as i128)
        } else {
            sndcnt
        };
        Some((pipe as i128 + sndcnt).max(mss as i128) as u64)
    }

    /// One ACK in recovery under RFC 6937: returns sndcnt, the bytes that may be sent now.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64) -> u64 {
        self.prr_delivered += delivered;
        if pipe > ssthresh {
            let target = (self.prr_delivered as u128 * ssthresh as u128)
                .div_ceil(self.recover_fs as u128) as u64;
            target.saturating_sub(self.prr_out)
        } else {
            let limit = self
                .prr_delivered
                .saturating_sub(self.prr_out)
                .max(delivered)
                + mss;
            (ssthresh - pipe).min(limit)
        }
    }

    pub fn on_sent(&mut self, bytes: u64) {
        self.prr_out += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_sends_one_segment_for_every_two_delivered_then_holds_pipe_at_ssthresh() {
        // RecoverFS 20 segments, ssthresh 10 (Reno halving), whole segments sent. Each ACK
        // delivers one segment; pipe is taken after the ACK. The fast retransmit is prr_out's
        // first segment, so the first new segment waits for the fourth ACK; then one segment
        // per two ACKs while pipe > ssthresh (ceil(prr_delivered / 2) - prr_out), and one per
        // ACK once pipe is down to ssthresh (the slow-start reduction bound).
        let mss = 1000;
        let mut p = Prr::start(20 * mss, PrrRule::Rfc6937);
        p.on_sent(mss);
        let mut pipe = 20 * mss;
        let mut sends = vec![];
        for _ in 0..19 {
            pipe -= mss;
            let n = p.on_ack(mss, pipe, 10 * mss, mss) / mss;
            p.on_sent(n * mss);
            pipe += n * mss;
            sends.push(n);
        }
        assert_eq!(
            sends,
            [0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1]
        );
        assert_eq!(pipe, 10 * mss);
        assert_eq!(p.prr_out, 10 * mss);
    }

    #[test]
    fn linux_sends_the_fast_retransmit_alone_then_one_segment_per_segment_delivered() {
        // 10 segments out, 4 lost, 3 SACKed at the third duplicate ACK; cwnd 10 -> ssthresh 7
        // (CUBIC). The endpoint sent the fast retransmit before the entry ACK's computation:
        // pipe 3 + 1.
        let mss = 1000;
        let dup = PrrAck::default();
        let mut p = Prr::start(10 * mss, PrrRule::Linux);
        p.on_sent(mss);
        // Entry: sndcnt = max(1 - 0, 1) = 1, the fast retransmit itself: cwnd = pipe.
        assert_eq!(p.window(mss, 4 * mss, 7 * mss, mss, dup), Some(4 * mss));
        // Each further duplicate ACK SACKs one: pipe 3, sndcnt = max(2 - 1, 1) = 1.
        assert_eq!(p.window(mss, 3 * mss, 7 * mss, mss, dup), Some(4 * mss));
        p.on_sent(mss);
        assert_eq!(p.window(mss, 3 * mss, 7 * mss, mss, dup), Some(4 * mss));
        // An ACK that delivers nothing leaves cwnd alone.
        assert_eq!(p.window(0, 3 * mss, 7 * mss, mss, dup), None);
        // The RFC on the same entry: sndcnt = min(7 - 3, max(1 - 1, 1) + 1) = 2 more.
        let mut r = Prr::start(7 * mss, PrrRule::Rfc6937);
        r.on_sent(mss);
        assert_eq!(r.window(mss, 4 * mss, 7 * mss, mss, dup), Some(6 * mss));
    }

    #[test]
    fn linux_adds_a_segment_only_when_snd_una_advances_without_new_loss() {
        let mss = 1000;
        let run = |ack: PrrAck| {
            let mut p = Prr::start(10 * mss, PrrRule::Linux);
            p.on_sent(mss);
            p.window(mss, 4 * mss, 7 * mss, mss, PrrAck::default());
            p.window(mss, 3 * mss, 7 * mss, mss, ack).unwrap() / mss
        };
        let advanced = PrrAck {
            una_advanced: true,
            newly_lost: false,
        };
        let lost = PrrAck {
            una_advanced: true,
            newly_lost: true,
        };
        assert_eq!(
            (run(PrrAck::default()), run(advanced), run(lost)),
            (4, 5, 4)
        );
    }

    #[test]
    fn linux_reduces_in_proportion_to_the_cwnd_before_recovery_in_whole_segments() {
        // prior cwnd 10, ssthresh 7, pipe above ssthresh: ceil(7 x delivered / 10) - prr_out.
        let mss = 1000;
        let mut p = Prr::start(10 * mss, PrrRule::Linux);
        p.on_sent(mss);
        let dup = PrrAck::default();
        // Entry: ceil(0.7) = 1 - 0: the fast retransmit (pipe 8 before it).
        assert_eq!(p.window(mss, 9 * mss, 7 * mss, mss, dup), Some(9 * mss));
        // ceil(1.4) = 2 - 1 = 1.
        assert_eq!(p.window(mss, 8 * mss, 7 * mss, mss, dup), Some(9 * mss));
        p.on_sent(mss);
        // ceil(2.1) = 3 - 2 = 1; ceil(2.8) = 3 - 3 = 0.
        assert_eq!(p.window(mss, 8 * mss, 7 * mss, mss, dup), Some(9 * mss));
        p.on_sent(mss);
        assert_eq!(p.window(mss, 8 * mss, 7 * mss, mss, dup), Some(8 * mss));
    }
}
