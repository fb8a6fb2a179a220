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

/// The PRR state of one recovery episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    pub recover_fs: u64,
    pub prr_delivered: u64,
    pub prr_out: u64,
}

impl Prr {
    pub fn start(recover_fs: u64) -> Prr {
        Prr {
            recover_fs: recover_fs.max(1),
            prr_delivered: 0,
            prr_out: 0,
        }
    }

    /// One ACK in recovery: returns sndcnt, the bytes that may be sent now.
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
        let mut p = Prr::start(20 * mss);
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
}
