//! Receive-buffer autotuning (Linux `net.ipv4.tcp_moderate_rcvbuf`, on by default): the window a
//! receiver may offer starts at `TcpConfig::rcv_buf` (`tcp_rmem[1]`) and grows, once per
//! receiver round trip, to twice what the application consumed in the last round trip with
//! room for a sender that doubles, up to `TcpConfig::rcv_buf_max` (`tcp_rmem[2]`). It never
//! shrinks.
//!
//! As in net/ipv4/tcp_input.c of Linux 6.18 (the receive-side rework of 6.16, "tcp: fix
//! sk_rcvbuf overshoot" and the seven patches after it, and 6.18's "tcp: fix too slow
//! tcp_rcvbuf_grow() action"):
//! - `tcp_init_buffer_space`, when the connection is established: the first measurement
//!   starts, with `space` = min(window, TCP_INIT_CWND x advmss);
//! - the receiver's RTT (`rcv_rtt_est`, `tcp_rcv_rtt_update`): a sample below the estimate
//!   replaces it at once; with timestamps, each data segment of at least one MSS with a new
//!   TSecr gives now - TSecr, and a larger one is smoothed in with gain 1/8 only while nothing
//!   waits unread (`tcp_rcv_rtt_measure_ts`); the time to receive one window's worth of data is
//!   a sample that can only lower it (`tcp_rcv_rtt_measure`);
//! - `tcp_rcv_space_adjust`, whenever data reaches the application: once a receiver RTT has
//!   passed since the measurement started, if more was consumed than `space`,
//!   `tcp_rcvbuf_grow` offers 2 x copied, plus twice that times the growth (copied - space) /
//!   space, plus what waits out of order beyond RCV.NXT, capped at the maximum; `space`
//!   becomes what was consumed, and a new measurement starts. A segment queued out of order
//!   calls `tcp_rcvbuf_grow` too (2 x space plus the out-of-order span);
//! - `rcv_ssthresh` (`tcp_grow_window`), the window's own slow start: it starts at the SYN's
//!   window (whole segments, at most 64 KB: `tcp_select_initial_window`) and each in-order
//!   segment of at least 128 bytes raises it by two segments up to the window allowed. The
//!   window offered is no larger (`__tcp_select_window`). It never limits a sender (it grows
//!   twice as fast as slow start, from above the initial window), but every rise asks for an
//!   immediate ACK (`icsk_ack.quick |= 1`): while its window grows, a Linux receiver ACKs each
//!   segment, and only when it reaches the window allowed does it ACK every second one.
//!
//! Sizes here are windows (payload bytes). The kernel converts between its buffer (which also
//! pays for packet overhead) and the window with `tcp_win_from_space`, a ratio it measures per
//! connection; the simulator's buffers are windows, so that ratio is 1 here.

use crate::engine::time::{Dur, SimTime};

/// TCP_INIT_CWND (include/net/tcp.h): the first measurement's `space` is at most this many MSS.
const INIT_SPACE_SEGMENTS: u64 = 10;
/// `tcp_event_data_recv`: only segments of at least 128 bytes raise `rcv_ssthresh`.
const GROW_MIN_LEN: u64 = 128;

#[derive(Clone, Debug)]
pub struct RcvTune {
    max: u64,
    advmss: u64,
    /// The largest window offered now (Linux's `window_clamp`).
    pub clamp: u64,
    /// `rcvq_space`: what was consumed in the last measured round trip, when it grew.
    space: u64,
    /// Bytes consumed when the current measurement started, and when it started (`None`: the
    /// connection is not established yet).
    seq: u64,
    time: Option<SimTime>,
    /// The receiver's RTT estimate in microseconds, times 8 (`rcv_rtt_est.rtt_us`; 0: none).
    rtt_us8: u64,
    last_tsecr: Option<u64>,
    /// The per-window RTT measurement: its end (rcv_nxt + window) and its start.
    win_seq: u64,
    win_time: Option<SimTime>,
    /// Times the window grew (the summary's `rcv_window_grown`).
    pub grown: u32,
    /// `rcv_ssthresh`: the most this end offers now (below `clamp` while it ramps up).
    pub rcv_ssthresh: u64,
}

impl RcvTune {
    /// `None` unless the buffer may grow (`rcv_buf_max` above `rcv_buf`).
    pub fn new(rcv_buf: u64, rcv_buf_max: u64, advmss: u64) -> Option<Self> {
        (rcv_buf_max > rcv_buf).then_some(RcvTune {
            max: rcv_buf_max,
            advmss: advmss.max(1),
            clamp: rcv_buf,
            space: 0,
            seq: 0,
            time: None,
            rtt_us8: 0,
            last_tsecr: None,
            win_seq: 0,
            win_time: None,
            grown: 0,
            rcv_ssthresh: rcv_buf,
        })
    }

    /// The connection is established (`tcp_init_buffer_space`); `advmss` is the MSS in use.
    pub fn start(&mut self, now: SimTime, consumed: u64, advmss: u64) {
        self.advmss = advmss.max(1);
        self.space = self.clamp.min(INIT_SPACE_SEGMENTS * self.advmss);
        self.seq = consumed;
        self.time = Some(now);
    }

    /// `tcp_rcv_rtt_update`: a sample below the estimate replaces it; a larger one is smoothed
    /// in (gain 1/8) if it came from a timestamp and nothing waits unread (`queue_empty`).
    fn rtt_update(&mut self, sample_us: u64, window_sample: bool, queue_empty: bool) {
        let s8 = sample_us.max(1) << 3;
        if self.rtt_us8 == 0 || s8 < self.rtt_us8 {
            self.rtt_us8 = s8;
        } else if !window_sample && queue_empty {
            // est += sample - est / 8, in units of 1/8 us
            self.rtt_us8 = (self.rtt_us8 - (self.rtt_us8 >> 3)) + sample_us.max(1);
        }
    }

    /// A data segment of `len` bytes arrived carrying TSecr `tsecr_us` (the peer's echo of this
    /// end's clock, in microseconds; `None` without timestamps), with nothing unread before it
    /// (`queue_empty`) or not (`tcp_rcv_rtt_measure_ts`).
    pub fn on_timestamp(
        &mut self,
        now_us: u64,
        tsecr_us: Option<u64>,
        len: u64,
        rcv_mss: u64,
        queue_empty: bool,
    ) {
        let Some(ecr) = tsecr_us else { return };
        if self.last_tsecr == Some(ecr) {
            return;
        }
        self.last_tsecr = Some(ecr);
        if len >= rcv_mss {
            self.rtt_update(now_us.saturating_sub(ecr), false, queue_empty);
        }
    }

    /// In-order data arrived (`tcp_rcv_rtt_measure`, from `tcp_event_data_recv`): a window's
    /// worth received since the measurement began is an RTT sample.
    pub fn on_data(&mut self, now: SimTime, rcv_nxt: u64, window: u64) {
        if let Some(t) = self.win_time {
            if rcv_nxt < self.win_seq {
                return;
            }
            self.rtt_update((now.since(t).0 / 1_000).max(1), true, true);
        }
        self.win_seq = rcv_nxt + window;
        self.win_time = Some(now);
    }

    /// Data reached the application, `consumed` bytes in all, with `ooo` bytes waiting out of
    /// order beyond RCV.NXT (`tcp_rcv_space_adjust`). True when the window grew.
    // Out of line: most runs never or seldom call it, and in line it made the per-segment paths
    // that can larger and slower (BENCHMARKS.md, "Rare paths out of line").
    #[inline(never)]
    pub fn on_consumed(&mut self, now: SimTime, consumed: u64, ooo: u64) -> bool {
        let Some(t) = self.time else { return false };
        if self.rtt_us8 == 0 || now.since(t).0 / 1_000 < self.rtt_us8 >> 3 {
            return false;
        }
        let copied = consumed - self.seq;
        let grew = copied > self.space && self.rcvbuf_grow(copied, ooo);
        self.seq = consumed;
        self.time = Some(now);
        grew
    }

    /// A segment was queued out of order, the queue now reaching `ooo` bytes beyond RCV.NXT
    /// (`tcp_data_queue_ofo` -> `tcp_rcvbuf_grow`). True when the window grew.
    pub fn on_out_of_order(&mut self, ooo: u64) -> bool {
        self.time.is_some() && self.rcvbuf_grow(self.space, ooo)
    }

    /// `tcp_rcvbuf_grow(newval)`: `space` becomes `newval`; the window allowed becomes twice
    /// that, plus twice that times its growth over the old `space`, plus the out-of-order span,
    /// at most the maximum, if that is more than it was.
    fn rcvbuf_grow(&mut self, newval: u64, ooo: u64) -> bool {
        let old = self.space.max(1);
        self.space = newval;
        let mut win = 2 * newval;
        if newval > old {
            let growth = (win as u128 * (newval - old) as u128 / old as u128)
                .min(u64::MAX as u128 / 4) as u64;
            win = win.saturating_add(2 * growth);
        }
        let win = win.saturating_add(ooo).min(self.max);
        if win > self.clamp {
            self.clamp = win;
            self.grown += 1;
            return true;
        }
        false
    }

    /// The handshake settled the MSS (`advmss`): `rcv_ssthresh` starts at the window of the
    /// SYN, whole segments, at most 64 KB (`tcp_select_initial_window`), and no more than the
    /// clamp (`tcp_init_buffer_space`). Returns it: the first window offered.
    pub fn open(&mut self, advmss: u64) -> u64 {
        let advmss = advmss.max(1);
        let first = self.clamp.min(65_535);
        self.rcv_ssthresh = (first / advmss * advmss).max(first.min(advmss));
        self.rcv_ssthresh
    }

    /// In-order data of `len` bytes arrived, with `free` bytes of the window unused
    /// (`tcp_event_data_recv` -> `tcp_grow_window`): `rcv_ssthresh` rises by two segments (at
    /// least twice `len`), up to the clamp and the free space. True when it rose: the receiver
    /// then ACKs at once (`icsk_ack.quick |= 1`).
    // Out of line: most runs never or seldom call it, and in line it made the per-segment paths
    // that can larger and slower (BENCHMARKS.md, "Rare paths out of line").
    #[inline(never)]
    pub fn grow_window(&mut self, len: u64, free: u64) -> bool {
        if len < GROW_MIN_LEN {
            return false;
        }
        let room = self.clamp.min(free).saturating_sub(self.rcv_ssthresh);
        if room == 0 {
            return false;
        }
        self.rcv_ssthresh += room.min((2 * self.advmss).max(2 * len));
        true
    }

    /// The receiver's RTT estimate (for the tests and the trace).
    pub fn rtt(&self) -> Option<Dur> {
        (self.rtt_us8 > 0).then(|| Dur((self.rtt_us8 >> 3) * 1_000))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }

    #[test]
    fn off_unless_the_maximum_is_above_the_start() {
        assert!(RcvTune::new(131_072, 131_072, 1448).is_none());
        assert!(RcvTune::new(131_072, 6_291_456, 1448).is_some());
    }

    #[test]
    fn the_window_follows_tcp_rcv_space_adjust() {
        let mss = 1448;
        let mut t = RcvTune::new(131_072, 6_291_456, mss).unwrap();
        t.start(ms(0), 0, mss);
        assert_eq!(t.space, 10 * mss);
        // No RTT estimate yet: nothing happens.
        assert!(!t.on_consumed(ms(50), 20 * mss, 0));
        t.on_timestamp(40_000, Some(0), mss, mss, true); // a 40 ms sample
        assert_eq!(t.rtt(), Some(Dur::from_millis(40)));
        // Less than one receiver RTT since the start: no new measurement.
        assert!(!t.on_consumed(ms(39), 20 * mss, 0));
        // 30 segments in the first round trip (space 10): 2 x 30 = 60 segments, grown by
        // twice 60 x (30 - 10) / 10 = 240 segments: 300 segments.
        assert!(t.on_consumed(ms(41), 30 * mss, 0));
        assert_eq!(t.clamp, 300 * mss);
        assert_eq!(t.space, 30 * mss);
        // The next round trip consumes no more than the last: no change, but a new measurement.
        assert!(!t.on_consumed(ms(85), 60 * mss, 0));
        assert_eq!(t.clamp, 300 * mss);
        // Out of order: twice the space plus the span waiting beyond RCV.NXT (60 + 250).
        assert!(t.on_out_of_order(250 * mss));
        assert_eq!(t.clamp, 310 * mss);
        assert_eq!(t.space, 30 * mss);
        // Capped at the maximum.
        assert!(t.on_consumed(ms(130), 60 * mss + 3_000_000, 0));
        assert_eq!(t.clamp, 6_291_456);
    }

    #[test]
    fn rtt_estimate_latches_lower_samples_and_smooths_higher_ones() {
        let mut t = RcvTune::new(10_000, 100_000, 1000).unwrap();
        t.on_timestamp(80_000, Some(0), 1000, 1000, true);
        assert_eq!(t.rtt(), Some(Dur::from_millis(80)));
        // The same TSecr again is ignored; a short segment gives no sample.
        t.on_timestamp(200_000, Some(0), 1000, 1000, true);
        t.on_timestamp(200_000, Some(1), 500, 1000, true);
        assert_eq!(t.rtt(), Some(Dur::from_millis(80)));
        // Higher: 7/8 x 80 + 1/8 x 160 = 90 ms, but only with nothing unread.
        t.on_timestamp(160_002, Some(2), 1000, 1000, false);
        assert_eq!(t.rtt(), Some(Dur::from_millis(80)));
        t.on_timestamp(160_003, Some(3), 1000, 1000, true);
        assert_eq!(t.rtt(), Some(Dur::from_millis(90)));
        // Lower: taken at once (6.16's "always seek for minimal rtt").
        t.on_timestamp(300_000, Some(250_000), 1000, 1000, false);
        assert_eq!(t.rtt(), Some(Dur::from_millis(50)));
        // A window's worth after 30 ms lowers it; a longer one does not raise it.
        t.on_data(ms(1000), 0, 5000);
        t.on_data(ms(1030), 5000, 5000);
        assert_eq!(t.rtt(), Some(Dur::from_millis(30)));
        t.on_data(ms(1200), 10_000, 5000);
        assert_eq!(t.rtt(), Some(Dur::from_millis(30)));
    }

    #[test]
    fn rcv_ssthresh_starts_at_the_syn_window_and_rises_two_segments_a_segment() {
        let mss = 1448;
        let mut t = RcvTune::new(131_072, 6_291_456, mss).unwrap();
        // 65,535 in whole segments: 45 x 1448.
        assert_eq!(t.open(mss), 45 * mss);
        assert!(t.grow_window(mss, u64::MAX));
        assert_eq!(t.rcv_ssthresh, 47 * mss);
        // Short segments do not count; the rise stops at the clamp (131,072): 21 more rises of
        // two segments and a last one of 2,200 bytes.
        assert!(!t.grow_window(100, u64::MAX));
        for _ in 0..22 {
            assert!(t.grow_window(mss, u64::MAX));
        }
        assert_eq!(t.rcv_ssthresh, 131_072);
        assert!(!t.grow_window(mss, u64::MAX));
        // Free space bounds it too.
        t.clamp = 200_000;
        assert!(!t.grow_window(mss, 131_072));
    }
}
