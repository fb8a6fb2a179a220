//! The three-way handshake (RFC 9293 section 3.5): the passive and the active open, the SYN
//! and the SYN-ACK and what each side takes from the other's (the options are `options.rs`'s),
//! the first RTT sample (RFC 6298 section 2; Karn's rule: none from a retransmitted SYN) and
//! the window after a SYN or SYN-ACK timed out (`SynLoss`, RFC 5681 section 3.1). No
//! simultaneous open.

use super::{Ctx, Endpoint, State};
use crate::engine::event::TimerKind;
use crate::net::packet::{Packet, ACK, RST, SYN};
use crate::tcp::{ssthresh_text, SynLoss};

impl Endpoint {
    /// Passive open (RFC 9293 LISTEN).
    pub fn listen(&mut self) {
        self.state = State::Listen;
    }

    /// Active open: send the SYN.
    pub fn connect(&mut self, ctx: &mut Ctx) {
        self.set_state(State::SynSent, ctx);
        self.snd_una = 0;
        self.snd_max = 1;
        self.send_syn(false, ctx);
    }

    /// A segment in LISTEN, SYN-SENT or SYN-RECEIVED (RFC 9293 section 3.10.7): a SYN opens
    /// the passive side, the SYN-ACK completes the active one, and the ACK of the SYN-ACK
    /// (perhaps with data) the passive one.
    pub(super) fn handshake_segment(&mut self, p: &Packet, ctx: &mut Ctx) {
        if p.is(RST) {
            return self.rst_segment(p, ctx);
        }
        match self.state {
            State::Listen if p.is(SYN) && !p.is(ACK) => {
                self.accept_syn(p);
                self.set_state(State::SynRcvd, ctx);
                self.snd_una = 0;
                self.snd_max = 1;
                self.send_syn(false, ctx);
            }
            State::SynSent if p.is(SYN) && p.is(ACK) && p.ack == 1 => {
                self.accept_syn(p);
                self.snd_una = 1;
                self.snd_wl1 = p.seq;
                self.snd_wl2 = p.ack;
                self.on_handshake_rtt(ctx);
                self.set_state(State::Established, ctx);
                self.timers[TimerKind::Rto as usize].cancel();
                if self.cfg.ns2.two_way_handshake {
                    // The first data segment acknowledges the SYN-ACK; a pure ACK only if
                    // there is nothing to send.
                    let sent = self.stats.segments_sent;
                    self.try_send(ctx);
                    if self.stats.segments_sent == sent {
                        self.send_ack(ctx);
                    }
                } else {
                    self.send_ack(ctx);
                    self.try_send(ctx);
                }
            }
            State::SynRcvd if p.is(SYN) && !p.is(ACK) => {
                // Our SYN-ACK was lost: the peer repeats its SYN.
                self.send_syn(true, ctx);
            }
            State::SynRcvd if p.is(ACK) && p.ack >= 1 => {
                self.snd_una = 1;
                self.snd_wnd = (p.wnd as u64) << self.peer_wscale;
                self.max_snd_wnd = self.snd_wnd;
                self.snd_wl1 = p.seq;
                self.snd_wl2 = p.ack;
                self.on_handshake_rtt(ctx);
                self.set_state(State::Established, ctx);
                self.timers[TimerKind::Rto as usize].cancel();
                self.established_segment(p, ctx);
            }
            // Any other segment is ignored (`on_segment` sends only these three states here).
            _ => {}
        }
    }

    /// What the peer's SYN or SYN-ACK says: RCV.NXT, the window it offers (never scaled in a SYN,
    /// RFC 7323 2.2), the options agreed (`accept_options`), the effective MSS and the initial
    /// window in it.
    fn accept_syn(&mut self, p: &Packet) {
        self.adv.memo = (u64::MAX, 0); // the window scale and the MSS are settled here
        self.rcv_nxt = p.seq + 1;
        self.last_ack_sent = self.rcv_nxt;
        self.rcv_adv = self.rcv_nxt + self.cfg.rcv_buf.min(65_535 << self.own_wscale);
        let peer_mss = if p.syn_mss > 0 { p.syn_mss } else { 536 };
        self.accept_options(p);
        // RFC 9293 3.7.1: the effective send MSS excludes TCP options; with timestamps every
        // segment carries 12 bytes of them (Linux: 1448 on a 1500-byte MTU).
        let mss = self.cfg.mss.min(peer_mss) as u64;
        self.eff_mss = mss - if self.ts_ok { 12 } else { 0 };
        self.ccs.mss = self.eff_mss;
        self.ccs.cwnd = self.cfg.initial_cwnd as u64 * self.eff_mss;
        if let Some(t) = self.tune.as_deref_mut() {
            // Autotuned: the window offered starts at rcv_ssthresh and ramps up from there.
            let first = t.open(self.eff_mss);
            self.rcv_adv = self.rcv_adv.min(self.rcv_nxt + first);
        }
        self.snd_wnd = (p.wnd as u64).min(65_535);
        self.max_snd_wnd = self.snd_wnd;
        let buf = self.cfg.rcv_buf;
        self.adv.full = (self.cfg.rcv_read_rate.is_none() && self.tune.is_none() && buf < 1 << 53)
            .then(|| {
                let step = (buf / 2).min(self.eff_mss.max(1));
                let max = 65_535u64 << self.own_wscale;
                let field = (buf.min(max) >> self.own_wscale).min(65_535) as u32;
                (buf, buf - step, field)
            });
    }

    /// Send the SYN, or in SYN-RECEIVED the SYN-ACK (`retransmission`: again), and arm the
    /// retransmission timer.
    pub(super) fn send_syn(&mut self, retransmission: bool, ctx: &mut Ctx) {
        let flags = if self.state == State::SynRcvd {
            SYN | ACK
        } else {
            SYN
        };
        let p = self.base_packet(flags, 0, 0, ctx);
        self.syn_options(p);
        if retransmission {
            p.tx_count = 1 + self.stats.syn_retransmissions as u32;
        }
        self.emit(flags, 0, ctx);
        self.syn_sent_at = ctx.now;
        let at = ctx.now + self.rto.rto();
        self.arm(TimerKind::Rto, at, ctx);
    }

    /// The handshake is complete: the SYN exchange is the first RTT sample, unless the SYN was
    /// retransmitted (then the RTO starts over, RFC 6298 5.7, and the window is the profile's
    /// `SynLoss`).
    fn on_handshake_rtt(&mut self, ctx: &mut Ctx) {
        if self.syn_retransmitted {
            self.rto.reset_after_syn_timeout();
            self.window_after_syn_loss(ctx);
        } else {
            // RFC 6298 allows the SYN exchange as the first RTT sample (Karn: only if the SYN
            // was not retransmitted).
            let r = ctx.now.since(self.syn_sent_at);
            self.rto.sample_at(ctx.now, r);
            self.stats.rtt_samples += 1;
            self.cc.on_rtt_sample(&mut self.ccs, ctx.now, r);
            if let Some(c) = self.rto.latest_counted {
                self.cc.on_counted_rtt(c);
            }
        }
        self.retries = 0;
    }

    /// The profile's window after this end's SYN or SYN-ACK timed out (`SynLoss`).
    fn window_after_syn_loss(&mut self, ctx: &mut Ctx) {
        let mss = self.eff_mss;
        match self.cfg.syn_loss {
            SynLoss::Keep => return,
            SynLoss::One => self.ccs.cwnd = mss,
            SynLoss::OneAfterTwo if self.stats.syn_retransmissions > 1 => self.ccs.cwnd = mss,
            SynLoss::OneAfterTwo => return,
            SynLoss::Timeout => {
                let (initial, n) = (
                    self.cfg.initial_cwnd as u64 * mss,
                    self.stats.syn_retransmissions,
                );
                // A controller with its own timeout may set the window itself.
                if !self.cc.syn_timeout_window(&mut self.ccs, initial, n) {
                    // Each expiry halves min(cwnd, window); cwnd is one segment after the first.
                    let wnd = self.snd_wnd.max(mss);
                    let mut cwnd = self.ccs.cwnd;
                    for _ in 0..n {
                        let half = (cwnd.min(wnd) / 2) / mss * mss;
                        self.ccs.ssthresh = half.max(2 * mss);
                        cwnd = mss;
                    }
                    self.ccs.cwnd = mss;
                }
            }
        }
        let (cwnd, ssthresh) = (self.ccs.cwnd, ssthresh_text(self.ccs.ssthresh));
        ctx.log(self.conn, self.end, "syn_loss_window", 0, |w| {
            write!(w, "cwnd {cwnd} ssthresh {ssthresh}")
        });
    }
}
