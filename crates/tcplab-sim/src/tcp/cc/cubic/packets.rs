//! CUBIC's congestion avoidance in whole packets, as Linux computes it (`net/ipv4/tcp_cubic.c`,
//! `bictcp_update` and `bictcp_recalc_ssthresh`; `tcp_cong_avoid_ai` in `tcp_cong.c`). The
//! `packets` parameter of `cubic` selects it; the `linux` profile turns it on.
//!
//! RFC 9438 describes the window as a real number that follows W_cubic continuously. Linux
//! keeps `snd_cwnd` an integer and turns the curve into a count instead: every update it
//! computes `cnt`, the packets to be acknowledged per one-packet increase, and
//! `tcp_cong_avoid_ai` adds one packet each time `snd_cwnd_cnt` reaches it. What differs, and
//! why it matters on lossy paths where the window stays small:
//! - the congestion event reads the integer window: W_max (`last_max_cwnd`) is a whole number
//!   and fast convergence applies only when the window is strictly below it, so a window that
//!   has climbed back to W_max and sits on the plateau keeps it (a real-valued window a hair
//!   below W_max would shrink it by (1 + beta) / 2 every time);
//! - ssthresh is cwnd x 717 / 1024 (beta in 1/1024ths), rounded down, at least 2;
//! - target = the curve at t + the minimum RTT, truncated to a whole packet;
//!   cnt = cwnd / (target - cwnd), or 100 cwnd at or above the target;
//! - the Reno estimate (`tcp_friendliness`) counts acknowledged packets and adds one to its
//!   window every (cwnd x beta_scale) / 8 of them, beta_scale = 8 (1024 + 717) / 3 / (1024 -
//!   717) = 15 in integers; when it is ahead, cnt <= cwnd / (estimate - cwnd);
//! - cnt is at least 2 (at most 1.5 x per round trip), and at most 20 while no loss has set
//!   W_max (`unknown_max_growth`);
//! - cnt is recomputed only when cwnd changed or 1/32 s has passed since the last time
//!   (`HZ / 32` jiffies), the acknowledged packets still counting towards the Reno estimate;
//! - the increase credit `snd_cwnd_cnt` is cleared at every congestion event.
//!
//! Not modelled: the jiffy granularity of the epoch clock (t is exact here) and the once-per-
//! jiffy short cut of `bictcp_update`; C is the configured `c` (Linux's 410 / 1024 = 0.4004);
//! the curve's time offset is the connection's minimum RTT, where Linux keeps its own
//! `delay_min`, cleared by a timeout and fed no samples in the first second of an epoch
//! (`cubictcp_acked`).

use crate::engine::time::{Dur, SimTime};

/// How often at most `bictcp_update` recomputes cnt while cwnd does not change: HZ / 32
/// jiffies, which is 1/32 s up to the rounding of the jiffy (28 ms at HZ 250, 31 ms at HZ 1000).
const RECOMPUTE: Dur = Dur(31_250_000);

/// A u64 count as u32, saturated.
fn narrow(x: u64) -> u32 {
    x.min(u64::from(u32::MAX)) as u32
}

/// Linux's `struct bictcp` and the sender's `snd_cwnd_cnt`, windows in packets.
#[derive(Clone, Debug, Default)]
pub struct Bictcp {
    /// Packets acknowledged per one-packet increase.
    cnt: u32,
    /// W_max, in packets (0: no loss since the start or the last timeout).
    pub last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: Option<SimTime>,
    origin: u32,
    /// K, seconds.
    k: f64,
    epoch: Option<SimTime>,
    /// Packets acknowledged since the Reno estimate last grew.
    ack_cnt: u32,
    /// The Reno estimate of the window, packets.
    tcp_cwnd: u32,
    /// `snd_cwnd_cnt`: packets acknowledged towards the next increase.
    cwnd_cnt: u32,
    /// Acknowledged bytes short of a whole packet.
    rem: u64,
}

/// What `Bictcp` reads of the configuration.
#[derive(Clone, Copy, Debug)]
pub struct Knobs {
    pub c: f64,
    /// beta in 1/1024ths (717 for 0.7).
    pub beta: u32,
    pub fast_convergence: bool,
    pub reno_friendly: bool,
    pub unknown_max_growth: bool,
}

impl Knobs {
    /// `beta_scale` of `cubictcp_register`, in integers as the kernel computes it.
    fn beta_scale(&self) -> u32 {
        8 * (1024 + self.beta) / 3 / (1024 - self.beta).max(1)
    }
}

impl Bictcp {
    /// Whole packets in `bytes` acknowledged, carrying what is short of a packet to the next ACK.
    pub fn packets(&mut self, bytes: u64, mss: u64) -> u32 {
        let total = self.rem + bytes;
        self.rem = total % mss.max(1);
        (total / mss.max(1)).min(u64::from(u32::MAX)) as u32
    }

    /// `bictcp_recalc_ssthresh` with the window `cwnd` (packets): ends the epoch, records W_max
    /// and returns ssthresh in packets; clears the increase credit (`tcp_init_cwnd_reduction`).
    pub fn congestion_event(&mut self, cwnd: u32, k: &Knobs) -> u32 {
        self.epoch = None;
        // (in u64: the kernel's u32 products cannot overflow at the windows it allows, ours
        // could where the receive window, not cwnd, limits the flight)
        let w = u64::from(cwnd);
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && k.fast_convergence {
            narrow(w * u64::from(1024 + k.beta) / 2048)
        } else {
            cwnd
        };
        self.cwnd_cnt = 0;
        narrow(w * u64::from(k.beta) / 1024).max(2)
    }

    /// `bictcp_reset` on entering the Loss state (a retransmission timeout): everything,
    /// W_max included, starts again.
    pub fn reset(&mut self) {
        *self = Bictcp::default();
    }

    /// One ACK's congestion avoidance: `bictcp_update` then `tcp_cong_avoid_ai`. Returns the
    /// new window in packets.
    pub fn on_ack(
        &mut self,
        cwnd: u32,
        acked: u32,
        now: SimTime,
        min_rtt: Option<Dur>,
        k: &Knobs,
    ) -> u32 {
        self.update(cwnd, acked, now, min_rtt, k);
        self.avoid(cwnd, acked)
    }

    fn update(&mut self, cwnd: u32, acked: u32, now: SimTime, min_rtt: Option<Dur>, k: &Knobs) {
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        let recent = self.last_time.is_some_and(|t| now.since(t) <= RECOMPUTE);
        if self.last_cwnd == cwnd && recent {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = Some(now);
        let epoch = match self.epoch {
            Some(e) => e,
            None => {
                self.epoch = Some(now);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k = 0.0;
                    self.origin = cwnd;
                } else {
                    self.k = (f64::from(self.last_max_cwnd - cwnd) / k.c).cbrt();
                    self.origin = self.last_max_cwnd;
                }
                now
            }
        };
        let t = now.since(epoch).as_secs_f64() + min_rtt.map_or(0.0, |d| d.as_secs_f64());
        let offs = (t - self.k).abs();
        let delta = (k.c * offs * offs * offs).min(f64::from(u32::MAX)) as u32;
        let target = if t < self.k {
            self.origin.saturating_sub(delta)
        } else {
            self.origin.saturating_add(delta)
        };
        self.cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            cwnd.saturating_mul(100)
        };
        if k.unknown_max_growth && self.last_max_cwnd == 0 {
            self.cnt = self.cnt.min(20);
        }
        if k.reno_friendly {
            let per = narrow((u64::from(cwnd) * u64::from(k.beta_scale())) >> 3).max(1);
            while self.ack_cnt > per {
                self.ack_cnt -= per;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                self.cnt = self.cnt.min(cwnd / (self.tcp_cwnd - cwnd));
            }
        }
        self.cnt = self.cnt.max(2);
    }

    /// `tcp_cong_avoid_ai(tp, cnt, acked)`.
    fn avoid(&mut self, cwnd: u32, acked: u32) -> u32 {
        let w = self.cnt.max(1);
        let mut cwnd = cwnd;
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            cwnd += delta;
        }
        cwnd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: Knobs = Knobs {
        c: 0.4,
        beta: 717,
        fast_convergence: true,
        reno_friendly: true,
        unknown_max_growth: true,
    };

    fn ms(n: u64) -> SimTime {
        SimTime(n * 1_000_000)
    }

    #[test]
    fn ssthresh_and_w_max_are_whole_packets_and_the_plateau_keeps_w_max() {
        let mut b = Bictcp::default();
        assert_eq!(b.congestion_event(13, &K), 9); // 13 x 717 / 1024 = 9.1
        assert_eq!(b.last_max_cwnd, 13);
        // back at W_max exactly: no fast convergence
        assert_eq!(b.congestion_event(13, &K), 9);
        assert_eq!(b.last_max_cwnd, 13);
        // one packet short of it: W_max = 12 x 1741 / 2048 = 10
        assert_eq!(b.congestion_event(12, &K), 8);
        assert_eq!(b.last_max_cwnd, 10);
        assert_eq!(b.congestion_event(2, &K), 2);
        assert_eq!(K.beta_scale(), 15);
    }

    #[test]
    fn concave_growth_after_a_loss_is_one_packet_per_cnt_acks() {
        // W_max 13, cwnd 9, min RTT 200 ms: K = cbrt(4 / 0.4) = 2.154 s; at t = 0.2 s the curve
        // is 0.4 x 1.954^3 = 2.98 below W_max, truncated to 2, so the target is 11 and
        // cnt = 9 / (11 - 9) = 4: the fourth acknowledged packet adds one.
        let mut b = Bictcp::default();
        b.congestion_event(13, &K);
        let rtt = Some(Dur::from_millis(200));
        let mut cwnd = 9;
        for i in 0..3 {
            cwnd = b.on_ack(cwnd, 1, ms(i), rtt, &K);
            assert_eq!(cwnd, 9, "ack {i}");
        }
        assert_eq!(b.cnt, 4);
        cwnd = b.on_ack(cwnd, 1, ms(3), rtt, &K);
        assert_eq!(cwnd, 10);
        // at 10 the target is still 11: one per 10 packets
        b.on_ack(cwnd, 1, ms(4), rtt, &K);
        assert_eq!(b.cnt, 10);
    }

    #[test]
    fn the_reno_estimate_caps_cnt_when_it_is_ahead() {
        // cwnd 20 at W_max with a curve too flat to matter (C tiny: cnt = 100 cwnd): only the
        // Reno estimate grows the window, one packet per (20 x 15) >> 3 = 37 acknowledged.
        let k = Knobs { c: 1e-9, ..K };
        let mut b = Bictcp {
            last_max_cwnd: 20,
            ..Bictcp::default()
        };
        let mut cwnd = 20;
        let mut grew_at = Vec::new();
        for i in 0..200u64 {
            let before = cwnd;
            cwnd = b.on_ack(cwnd, 1, ms(40 * i), Some(Dur::from_millis(10)), &k);
            if cwnd > before {
                grew_at.push(i);
            }
        }
        // the estimate passes cwnd with the 38th packet (ack_cnt > 37); cnt drops to 20 / 1
        // and the credit already counted (38 >= 20) pays out at once
        assert_eq!(grew_at[0], 37, "{grew_at:?}");
    }

    #[test]
    fn cnt_is_held_for_a_thirty_second_of_a_second_while_cwnd_is_unchanged() {
        let mut b = Bictcp::default();
        b.congestion_event(40, &K);
        let rtt = Some(Dur::from_millis(100));
        b.on_ack(28, 0, ms(0), rtt, &K);
        let first = b.cnt;
        b.on_ack(28, 0, ms(31), rtt, &K);
        assert_eq!(b.cnt, first, "within 31.25 ms nothing is recomputed");
        b.on_ack(28, 0, ms(1500), rtt, &K);
        assert!(
            b.cnt < first,
            "1.5 s later the curve is steeper: {} vs {first}",
            b.cnt
        );
    }

    #[test]
    fn huge_windows_saturate_instead_of_wrapping() {
        let mut b = Bictcp {
            last_max_cwnd: u32::MAX,
            ..Bictcp::default()
        };
        let big = u32::MAX - 1;
        assert_eq!(
            b.congestion_event(big, &K),
            (u64::from(big) * 717 / 1024) as u32
        );
        assert_eq!(
            b.last_max_cwnd,
            (u64::from(big) * 1741 / 2048) as u32,
            "fast convergence"
        );
        let grown = b.on_ack(big, 10, ms(0), Some(Dur::from_millis(10)), &K);
        assert!(grown >= big);
    }

    #[test]
    fn leftover_bytes_carry_to_the_next_ack() {
        let mut b = Bictcp::default();
        assert_eq!(b.packets(1000, 1448), 0);
        assert_eq!(b.packets(1000, 1448), 1);
        assert_eq!(b.packets(2896, 1448), 2);
    }
}
