//! Receive-buffer autotuning (Linux `net.ipv4.tcp_moderate_rcvbuf`, on by default): the window a
//! receiver may offer starts at `TcpConfig::rcv_buf` (`tcp_rmem[1]`) and grows, once per
//! receiver round trip, to what the application consumed in the last round trip with room for
//! a sender that doubles, up to `TcpConfig::rcv_buf_max` (`tcp_rmem[2]`). It never shrinks.
//!
//! As in net/ipv4/tcp_input.c (Linux 6.x):
//! - `tcp_init_buffer_space`, when the connection is established: the first measurement
//!   starts, with `space` = min(window, TCP_INIT_CWND x advmss);
//! - the receiver's RTT (`rcv_rtt_est`): with timestamps, each data segment of at least one MSS
//!   with a new TSecr gives now - TSecr, smoothed with gain 1/8 (`tcp_rcv_rtt_measure_ts`); with
//!   or without them, the time to receive one window's worth of data is a sample too, and only
//!   lowers the estimate (`tcp_rcv_rtt_measure`);
//! - `tcp_rcv_space_adjust`, whenever data reaches the application: once a receiver RTT has
//!   passed since the measurement started, if more was consumed than `space`, the window becomes
//!   2 copied + 16 advmss, plus twice that times the growth (copied - space) / space, capped at
//!   the maximum; `space` becomes what was consumed, and a new measurement starts.
//!
//! Sizes here are windows (payload bytes). The kernel converts between its buffer (which also
//! pays for packet overhead) and the window with `tcp_win_from_space`, a ratio it measures per
//! connection; the simulator's buffers are windows, so that ratio is 1 here. Not modelled: the
//! `rcv_ssthresh` ramp of the first round trips (`tcp_grow_window`), which never limits a sender
//! whose initial window is at most Linux's initial receive window of 10 segments.

use crate::engine::time::{Dur, SimTime};

/// TCP_INIT_CWND (include/net/tcp.h): the first measurement's `space` is at most this many MSS.
const INIT_SPACE_SEGMENTS: u64 = 10;
/// `tcp_rcv_space_adjust`'s cushion: 16 advmss beyond twice what was consumed.
const CUSHION_SEGMENTS: u64 = 16;

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
        })
    }

    /// The connection is established (`tcp_init_buffer_space`); `advmss` is the MSS in use.
    pub fn start(&mut self, now: SimTime, consumed: u64, advmss: u64) {
        self.advmss = advmss.max(1);
        self.space = self.clamp.min(INIT_SPACE_SEGMENTS * self.advmss);
        self.seq = consumed;
        self.time = Some(now);
    }

    /// `tcp_rcv_rtt_update`: a smoothed sample (timestamps) or one that may only lower the
    /// estimate (a window's worth).
    fn rtt_update(&mut self, sample_us: u64, window_sample: bool) {
        let s8 = sample_us.max(1) << 3;
        if self.rtt_us8 == 0 {
            self.rtt_us8 = s8;
        } else if window_sample {
            self.rtt_us8 = self.rtt_us8.min(s8);
        } else {
            // est += sample - est / 8, in units of 1/8 us
            self.rtt_us8 = (self.rtt_us8 - (self.rtt_us8 >> 3)) + sample_us.max(1);
        }
    }

    /// A data segment of `len` bytes arrived carrying TSecr `tsecr_us` (the peer's echo of this
    /// end's clock, in microseconds; `None` without timestamps) (`tcp_rcv_rtt_measure_ts`).
    pub fn on_timestamp(&mut self, now_us: u64, tsecr_us: Option<u64>, len: u64, rcv_mss: u64) {
        let Some(ecr) = tsecr_us else { return };
        if self.last_tsecr == Some(ecr) {
            return;
        }
        self.last_tsecr = Some(ecr);
        if len >= rcv_mss {
            self.rtt_update(now_us.saturating_sub(ecr), false);
        }
    }

    /// In-order data arrived (`tcp_rcv_rtt_measure`, from `tcp_event_data_recv`): a window's
    /// worth received since the measurement began is an RTT sample.
    pub fn on_data(&mut self, now: SimTime, rcv_nxt: u64, window: u64) {
        if let Some(t) = self.win_time {
            if rcv_nxt < self.win_seq {
                return;
            }
            self.rtt_update((now.since(t).0 / 1_000).max(1), true);
        }
        self.win_seq = rcv_nxt + window;
        self.win_time = Some(now);
    }

    /// Data reached the application, `consumed` bytes in all (`tcp_rcv_space_adjust`). True
    /// when the window grew.
    pub fn on_consumed(&mut self, now: SimTime, consumed: u64) -> bool {
        let Some(t) = self.time else { return false };
        if self.rtt_us8 == 0 || now.since(t).0 / 1_000 < self.rtt_us8 >> 3 {
            return false;
        }
        let copied = consumed - self.seq;
        let mut grew = false;
        if copied > self.space {
            let mut win = 2 * copied + CUSHION_SEGMENTS * self.advmss;
            let growth = (win as u128 * (copied - self.space) as u128 / self.space.max(1) as u128)
                .min(u64::MAX as u128 / 4) as u64;
            win = win.saturating_add(2 * growth).min(self.max);
            if win > self.clamp {
                self.clamp = win;
                self.grown += 1;
                grew = true;
            }
            self.space = copied;
        }
        self.seq = consumed;
        self.time = Some(now);
        grew
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
        assert!(!t.on_consumed(ms(50), 20 * mss));
        t.on_timestamp(40_000, Some(0), mss, mss); // a 40 ms sample
        assert_eq!(t.rtt(), Some(Dur::from_millis(40)));
        // Less than one receiver RTT since the start: no new measurement.
        assert!(!t.on_consumed(ms(39), 20 * mss));
        // 20 segments in the first round trip (space 10): 2x20 + 16 = 56 segments, grown by
        // twice 56 x (20 - 10) / 10 = 112 segments: 168 segments.
        assert!(t.on_consumed(ms(41), 20 * mss));
        assert_eq!(t.clamp, 168 * mss);
        assert_eq!(t.space, 20 * mss);
        // The next round trip consumes no more than the last: no change, but a new measurement.
        assert!(!t.on_consumed(ms(85), 40 * mss));
        assert_eq!(t.clamp, 168 * mss);
        // Capped at the maximum.
        assert!(t.on_consumed(ms(130), 40 * mss + 3_000_000));
        assert_eq!(t.clamp, 6_291_456);
    }

    #[test]
    fn rtt_estimate_smooths_timestamps_and_takes_the_window_minimum() {
        let mut t = RcvTune::new(10_000, 100_000, 1000).unwrap();
        t.on_timestamp(80_000, Some(0), 1000, 1000);
        assert_eq!(t.rtt(), Some(Dur::from_millis(80)));
        // The same TSecr again is ignored; a short segment gives no sample.
        t.on_timestamp(200_000, Some(0), 1000, 1000);
        t.on_timestamp(200_000, Some(1), 500, 1000);
        assert_eq!(t.rtt(), Some(Dur::from_millis(80)));
        // 7/8 x 80 + 1/8 x 160 = 90 ms
        t.on_timestamp(160_002, Some(2), 1000, 1000);
        assert_eq!(t.rtt(), Some(Dur::from_millis(90)));
        // A window's worth after 30 ms lowers it; a longer one does not raise it.
        t.on_data(ms(1000), 0, 5000);
        t.on_data(ms(1030), 5000, 5000);
        assert_eq!(t.rtt(), Some(Dur::from_millis(30)));
        t.on_data(ms(1200), 10_000, 5000);
        assert_eq!(t.rtt(), Some(Dur::from_millis(30)));
    }
}
