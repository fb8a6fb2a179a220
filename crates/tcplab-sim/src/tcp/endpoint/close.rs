//! The end of a connection other than by the FINs: the application's CLOSE before the
//! handshake completed and its ABORT (RFC 9293 sections 3.10.4 and 3.10.5), the peer's RST
//! (section 3.10.7), and a segment that finds the connection closed (section 3.10.7.1).

use super::{Ctx, Endpoint, State};
use crate::net::packet::{Packet, ACK, FIN, RST, SYN};

impl Endpoint {
    /// Stop every timer.
    pub(super) fn stop_timers(&mut self) {
        for t in self.timers.iter_mut() {
            t.cancel();
        }
    }

    /// The peer reset the connection (RFC 9293 section 3.10.7.4, after the segment was found
    /// acceptable): CLOSED, every timer stopped, nothing more sent.
    // Out of line: most runs never or seldom call it, and in line it made the per-segment paths
    // that can larger and slower (BENCHMARKS.md, "Rare paths out of line").
    #[inline(never)]
    pub fn reset_by_peer(&mut self, ctx: &mut Ctx) {
        self.set_state(State::Closed, ctx);
        self.aborted = true;
        self.end_reason = Some("reset by the peer".into());
        self.stop_timers();
    }

    /// Whether a RST with sequence number `seq` and ACK `ack` (if it has one) is acceptable
    /// (RFC 9293 section 3.10.7: in SYN-SENT it must acknowledge the SYN, elsewhere its
    /// sequence number must lie in the receive window).
    pub fn rst_acceptable(&self, seq: u64, ack: Option<u64>) -> bool {
        match self.state {
            State::Closed | State::Listen => false,
            State::SynSent => ack == Some(self.snd_max),
            _ => {
                let wnd = self.last_adv_wnd.max(1);
                seq >= self.rcv_nxt && seq < self.rcv_nxt + wnd
            }
        }
    }

    /// CLOSE in SYN-SENT (RFC 9293 section 3.10.4: the TCB is deleted; Linux's
    /// `tcp_close_state` takes SYN-SENT to CLOSE and sends nothing): CLOSED, every timer
    /// stopped, and a segment that arrives later finds no connection (`closed_segment`).
    pub fn close_unsynchronized(&mut self, ctx: &mut Ctx) {
        self.stop_timers();
        self.app_closed = true;
        self.set_state(State::Closed, ctx);
    }

    /// ABORT (RFC 9293 section 3.10.5) of a synchronized connection: a RST that acknowledges
    /// what arrived, `<SEQ=SND.NXT><ACK=RCV.NXT><CTL=RST,ACK>` with the connection's options
    /// (Linux's `tcp_send_active_reset`, which `tcp_close` sends when received data was left
    /// unread, RFC 2525 section 2.17), then CLOSED with every timer stopped.
    pub fn abort_with_reset(&mut self, ctx: &mut Ctx) {
        if !matches!(self.state, State::Closed | State::Listen | State::SynSent) {
            self.base_packet(RST | ACK, self.snd_max, 0, ctx);
            self.emit(RST | ACK, 0, ctx);
        }
        self.stop_timers();
        self.app_closed = true;
        self.aborted = true;
        self.end_reason = Some("reset by the application (closed with data unread)".into());
        self.set_state(State::Closed, ctx);
    }

    /// The peer's RST (RFC 9293 section 3.10.7): ignored unless acceptable (`rst_acceptable`);
    /// then in CLOSING, LAST-ACK and TIME-WAIT the connection is simply deleted (its data all
    /// went), elsewhere reset (`reset_by_peer`).
    #[cold]
    pub(super) fn rst_segment(&mut self, p: &Packet, ctx: &mut Ctx) {
        if !self.rst_acceptable(p.seq, p.is(ACK).then_some(p.ack)) {
            return;
        }
        if matches!(
            self.state,
            State::Closing | State::LastAck | State::TimeWait
        ) {
            self.stop_timers();
            self.set_state(State::Closed, ctx);
        } else {
            self.reset_by_peer(ctx);
        }
    }

    /// A segment that finds the connection closed (RFC 9293 section 3.10.7.1; Linux's
    /// `tcp_v4_send_reset` for a segment no socket takes): a RST answers anything but a RST,
    /// `<SEQ=SEG.ACK><CTL=RST>` if it carries an ACK, else `<SEQ=0><ACK=SEG.SEQ+SEG.LEN>
    /// <CTL=RST,ACK>` (SEG.LEN counting SYN and FIN); without options, its window zero.
    #[cold]
    pub(super) fn closed_segment(&mut self, p: &Packet, ctx: &mut Ctx) {
        if p.is(RST) {
            return;
        }
        let (flags, seq, ack) = if p.is(ACK) {
            (RST, p.ack, 0)
        } else {
            let len = p.len as u64 + u64::from(p.is(SYN)) + u64::from(p.is(FIN));
            (RST | ACK, 0, p.seq + len)
        };
        *ctx.next_uid += 1;
        ctx.out.push(Packet {
            uid: *ctx.next_uid,
            conn: self.conn,
            to_end: 1 - self.end,
            src: self.node,
            dst: self.peer_node,
            flags,
            seq,
            ack,
            ..Packet::default()
        });
        self.emit(flags, 0, ctx);
    }
}
