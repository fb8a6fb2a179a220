//! What the step-by-step API (`sim::step`) reads of an endpoint and changes while it runs: a
//! view with the names and units of Linux's `struct tcp_info` (include/uapi/linux/tcp.h, filled
//! by `tcp_get_info` in net/ipv4/tcp.c), the socket options that act on a running connection
//! (TCP_CORK, TCP_NODELAY, SO_SNDBUF) and a reset by the peer.
//!
//! Only what the model keeps is reported; a field it does not keep is absent, never made up.
//! Absent: `tcpi_rcv_mss` (Linux's estimate of the peer's segment size), `tcpi_fackets` (0 since
//! Linux 4.15), `tcpi_pacing_rate`, `tcpi_delivered`, `tcpi_probes`, `tcpi_rcv_ssthresh`,
//! `tcpi_pmtu`, `tcpi_rcv_rtt`, `tcpi_rcv_space`, `tcpi_bytes_retrans`,
//! `tcpi_dsack_dups`, `tcpi_reord_seen` (the `tcpi_last_*` times are the stepper's, `sim::step`,
//! which sees the segments and the clock). Deliberate deviations: `tcpi_ato` is the model's fixed
//! delayed-ACK timeout (`delack_max`), where Linux's adapts from 40 ms; `tcpi_reordering` is
//! the duplicate-ACK threshold in force (`max_reordering` lets it grow as Linux's does); the CWR
//! state (2) never occurs (no ECN, no local congestion).

use super::{Ctx, Endpoint, State};
use crate::engine::event::TimerKind;
use crate::engine::time::Dur;
use crate::tcp::SSTHRESH_UNLIMITED;

/// Linux's `TCP_INFINITE_SSTHRESH` (include/net/tcp.h): what `tcpi_snd_ssthresh` says before
/// the first congestion event.
pub const LINUX_INFINITE_SSTHRESH: u64 = 0x7fff_ffff;

/// Linux's `tcp_ca_state` numbering (include/uapi/linux/tcp.h).
pub const CA_OPEN: u64 = 0;
pub const CA_DISORDER: u64 = 1;
pub const CA_RECOVERY: u64 = 3;
pub const CA_LOSS: u64 = 4;

/// `tcpi_options` bits (include/uapi/linux/tcp.h `TCPI_OPT_*`).
const OPT_TIMESTAMPS: u64 = 1;
const OPT_SACK: u64 = 2;
const OPT_WSCALE: u64 = 4;

impl State {
    /// Linux's number of this state (include/net/tcp_states.h: ESTABLISHED 1 ... CLOSING 11).
    pub fn linux_number(self) -> u64 {
        match self {
            State::Established => 1,
            State::SynSent => 2,
            State::SynRcvd => 3,
            State::FinWait1 => 4,
            State::FinWait2 => 5,
            State::TimeWait => 6,
            State::Closed => 7,
            State::CloseWait => 8,
            State::LastAck => 9,
            State::Listen => 10,
            State::Closing => 11,
        }
    }
}

fn micros(d: Dur) -> u64 {
    d.0 / 1_000
}

impl Endpoint {
    /// The connection's state.
    pub fn state(&self) -> State {
        self.state
    }

    /// Linux's congestion-avoidance state as `tcp_fastretrans_alert` would name it: Loss after
    /// a timeout until the ACK passes the recovery point, Recovery during a fast-recovery phase,
    /// Disorder with duplicate ACKs, SACKed or lost segments outstanding (`tcp_left_out`, in
    /// `tcp_try_to_open`), else Open. Derived when read, where Linux moves it on an ACK: a
    /// loss probe (TLP) leaves it Open, as in Linux.
    pub fn ca_state(&self) -> u64 {
        if self.rto_recovery {
            CA_LOSS
        } else if self.in_recovery {
            CA_RECOVERY
        } else if self.dupacks > 0
            || self.sb.sacked_segs() > 0
            || self.sb.segs().iter().any(|s| s.lost && !s.sacked)
        {
            CA_DISORDER
        } else {
            CA_OPEN
        }
    }

    /// The `struct tcp_info` fields the model keeps, with Linux's names and units (times in
    /// microseconds, windows in segments of `tcpi_snd_mss`), in the struct's order.
    pub fn tcp_info(&self) -> Vec<(&'static str, u64)> {
        let mss = self.eff_mss.max(1);
        let segs = self.sb.segs();
        let (mut lost, mut retrans) = (0u64, 0u64);
        for s in segs {
            lost += u64::from(s.lost && !s.sacked);
            retrans += u64::from(s.retransmitted && !s.sacked);
        }
        let unacked = segs.len() as u64;
        // Without SACK Linux counts duplicate ACKs as SACKed segments (tcp_add_reno_sack),
        // never more than are outstanding.
        let sacked = if self.sack_ok {
            self.sb.sacked_segs() as u64
        } else {
            u64::from(self.dupacks).min(unacked)
        };
        let mut options = 0;
        if self.ts_ok {
            options |= OPT_TIMESTAMPS;
        }
        if self.sack_ok {
            options |= OPT_SACK;
        }
        if self.wscale_ok {
            options |= OPT_WSCALE;
        }
        let ssthresh = if self.ccs.ssthresh >= SSTHRESH_UNLIMITED {
            LINUX_INFINITE_SSTHRESH
        } else {
            self.ccs.ssthresh / mss
        };
        let fin = u64::from(self.fin_sent && self.snd_una > self.snd_max.saturating_sub(1));
        let acked = self.snd_una.saturating_sub(1).saturating_sub(fin);
        let sent_data = self.snd_max.saturating_sub(1);
        let mut out = vec![
            ("tcpi_state", self.state.linux_number()),
            ("tcpi_ca_state", self.ca_state()),
            ("tcpi_retransmits", u64::from(self.retries)),
            ("tcpi_backoff", u64::from(self.rto.backoff())),
            ("tcpi_options", options),
            ("tcpi_snd_wscale", u64::from(self.peer_wscale)),
            ("tcpi_rcv_wscale", u64::from(self.own_wscale)),
            ("tcpi_rto", micros(self.rto.rto())),
            ("tcpi_ato", micros(self.cfg.delack_max)),
            ("tcpi_snd_mss", self.eff_mss),
            ("tcpi_unacked", unacked),
            ("tcpi_sacked", sacked),
            ("tcpi_lost", lost),
            ("tcpi_retrans", retrans),
            (
                "tcpi_advmss",
                u64::from(self.cfg.mss) - if self.ts_ok { 12 } else { 0 },
            ),
        ];
        if let Some(srtt) = self.rto.srtt() {
            out.push(("tcpi_rtt", micros(srtt)));
            out.push(("tcpi_rttvar", micros(self.rto.rttvar())));
        }
        out.extend([
            ("tcpi_snd_ssthresh", ssthresh),
            ("tcpi_snd_cwnd", self.ccs.cwnd / mss),
            ("tcpi_reordering", u64::from(self.reordering)),
            (
                "tcpi_total_retrans",
                self.stats.retransmissions + self.stats.syn_retransmissions,
            ),
            ("tcpi_bytes_acked", acked),
            ("tcpi_bytes_received", self.delivered),
            ("tcpi_segs_out", self.stats.segments_sent),
            ("tcpi_segs_in", self.stats.segments_received),
            (
                "tcpi_notsent_bytes",
                self.app_written.min(u64::MAX - 1).saturating_sub(sent_data),
            ),
        ]);
        if let Some(m) = self.rto.min_rtt {
            out.push(("tcpi_min_rtt", micros(m)));
        }
        out.extend([
            ("tcpi_data_segs_out", self.stats.data_segments_sent),
            ("tcpi_snd_wnd", self.snd_wnd),
        ]);
        out
    }

    /// TCP_CORK: while set, no segment shorter than the MSS leaves (but the last one with the
    /// FIN); clearing it sends what waited (Linux's `tcp_push_pending_frames`).
    pub fn set_cork(&mut self, on: bool, ctx: &mut Ctx) {
        self.cork = on;
        if !on {
            self.try_send(ctx);
        }
    }

    pub fn corked(&self) -> bool {
        self.cork
    }

    /// TCP_NODELAY on a running connection: Nagle off (true) or on. Setting it sends what
    /// waits, even under TCP_CORK: Linux's `__tcp_sock_set_nodelay` sets `TCP_NAGLE_PUSH`,
    /// which `tcp_nagle_test` lets through before it looks at the cork, and `skb_entail` clears
    /// it when the next write queues a new skb; the cork itself stays set. Here the push is
    /// one pass of the send loop with the cork lifted.
    pub fn set_nodelay(&mut self, on: bool, ctx: &mut Ctx) {
        std::sync::Arc::make_mut(&mut self.cfg).nagle = !on;
        if on {
            let cork = std::mem::replace(&mut self.cork, false);
            self.try_send(ctx);
            self.cork = cork;
        }
    }

    /// A write with `MSG_MORE`: Linux's `tcp_push` pushes it with `TCP_NAGLE_CORK` in place of
    /// the socket's Nagle setting, so a segment shorter than the MSS waits (even with
    /// TCP_NODELAY) until something else pushes: an ACK, a later write without the flag,
    /// uncorking or TCP_NODELAY. Full segments go.
    pub fn app_write_more(&mut self, bytes: u64, ctx: &mut Ctx) {
        let cork = std::mem::replace(&mut self.cork, true);
        self.app_write(Some(bytes), ctx);
        self.cork = cork;
    }

    /// What Linux's chronograph (`tcp_chrono_start` / `tcp_chrono_stop`, the source of
    /// `tcpi_busy_time` and `tcpi_rwnd_limited`) would be timing now: 0 nothing (no data
    /// written and unacknowledged), 2 limited by the receiver's window (data waits and the next
    /// segment does not fit: `tcp_write_xmit`'s `is_rwnd_limited`), else 1 busy.
    pub fn chrono(&self) -> u8 {
        let unsent = self
            .app_written
            .min(u64::MAX - 1)
            .saturating_sub(self.snd_max.saturating_sub(1));
        // The SYN is no data: the chronograph starts with the write queue.
        if self.snd_una == 0 || (self.flight() == 0 && (unsent == 0 || self.fin_sent)) {
            return 0;
        }
        let room = (self.snd_una + self.snd_wnd).saturating_sub(self.snd_max);
        if unsent > 0 && !self.fin_sent && room < unsent.min(self.eff_mss) {
            2
        } else {
            1
        }
    }

    /// The oldest unacknowledged sequence number.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// SO_SNDBUF on a running connection: the bytes written and not yet acknowledged that may
    /// be sent.
    pub fn set_snd_buf(&mut self, bytes: u64, ctx: &mut Ctx) {
        std::sync::Arc::make_mut(&mut self.cfg).snd_buf = bytes;
        self.try_send(ctx);
    }

    /// The deadlines of the armed timers, earliest first.
    pub fn next_deadline(&self) -> Option<(crate::engine::time::SimTime, TimerKind)> {
        [
            TimerKind::Rto,
            TimerKind::DelAck,
            TimerKind::Persist,
            TimerKind::Read,
            TimerKind::Reorder,
            TimerKind::Probe,
            TimerKind::Pace,
        ]
        .into_iter()
        .filter_map(|k| self.timers[k as usize].deadline.map(|t| (t, k)))
        .min_by_key(|&(t, k)| (t, k as u8))
    }
}
