//! Statistics over time of one link direction, in fixed intervals of simulated time (OPNET's
//! "time average" collection, ns-3's FlowMonitor-style periodic sampling).
//!
//! Each interval `[k T, (k + 1) T)` gathers:
//! - frames offered (by arrival time) and dropped at the queue (by arrival time);
//! - frames sent and their wire bytes, by the start of their transmission, and frames lost to
//!   the error model among them;
//! - busy time (the part of each transmission inside the interval), so utilisation is exact;
//! - the queuing delay of the frames whose transmission started in it (mean and maximum: the
//!   delay is known when a frame leaves the queue, as OPNET records it);
//! - the time-average number of frames waiting (each frame counted from its arrival to the
//!   start of its transmission, the frame on the wire not counted, as the `queues` table).
//!
//! The link's transmitter is analytic (a frame's start is known when it is queued), so every
//! figure is exact, not sampled. Intervals are kept up to `max_bins`; later ones are counted in
//! `bins_dropped` (reported in the summary's `tables_truncated`).
//!
//! Beside the intervals, the distribution of every frame's queuing delay over the whole run
//! (the `queue_delay_hist` table): frames that did not wait, and log-spaced bins of ten per
//! decade from 1 us to 1000 s, compared as whole nanoseconds so that a frame's bin does not
//! depend on floating-point rounding.

use crate::engine::time::SimTime;
use crate::output::Column;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bin {
    pub frames_offered: u64,
    pub frames_sent: u64,
    pub bytes_on_wire: u64,
    pub frames_dropped_queue: u64,
    pub frames_dropped_error: u64,
    pub busy_ns: u64,
    pub queue_delay_ns_sum: u64,
    pub queue_delay_ns_max: u64,
    /// Frames waiting x nanoseconds.
    pub queue_frame_ns: u64,
}

#[derive(Debug)]
pub struct LinkSeries {
    interval_ns: u64,
    max_bins: usize,
    bins: Vec<Bin>,
    bins_dropped: u64,
    /// Frames per queuing-delay bin (see [`delay_bin`]).
    delay_hist: Vec<u64>,
}

/// Decades of the queuing-delay histogram (1 us to 1000 s) and bins per decade.
const DELAY_DECADES: usize = 9;
const DELAY_PER_DECADE: usize = 10;

/// The histogram's bin edges in ns: 1 us x 10^(k/10) for k = 0..=90, rounded to whole ns.
fn delay_edges() -> &'static [u64] {
    static EDGES: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    EDGES.get_or_init(|| {
        (0..=DELAY_DECADES * DELAY_PER_DECADE)
            .map(|k| (1e3 * 10f64.powf(k as f64 / DELAY_PER_DECADE as f64)).round() as u64)
            .collect()
    })
}

/// The histogram bin of a wait of `ns`: 0 for no wait, 1 for less than 1 us, k + 1 for
/// [edge k - 1, edge k), and the last bin for 1000 s or more.
fn delay_bin(ns: u64) -> usize {
    if ns == 0 {
        return 0;
    }
    1 + delay_edges().partition_point(|&e| e <= ns)
}

/// The bounds (s) of histogram bin `i`: [lo, hi), hi infinite for the last.
fn delay_bounds(i: usize) -> (f64, f64) {
    let e = delay_edges();
    match i {
        0 => (0.0, 0.0),
        1 => (0.0, e[0] as f64 / 1e9),
        i if i - 1 < e.len() => (e[i - 2] as f64 / 1e9, e[i - 1] as f64 / 1e9),
        _ => (e[e.len() - 1] as f64 / 1e9, f64::INFINITY),
    }
}

impl LinkSeries {
    pub fn new(interval_ns: u64, max_bins: usize) -> Self {
        assert!(
            interval_ns > 0,
            "the scenario parser refuses a zero interval"
        );
        LinkSeries {
            interval_ns,
            max_bins,
            bins: Vec::new(),
            bins_dropped: 0,
            delay_hist: vec![0; delay_edges().len() + 2],
        }
    }

    /// Intervals past `max_bins` that were not kept.
    pub fn bins_dropped(&self) -> u64 {
        self.bins_dropped
    }

    fn bin(&mut self, t: SimTime) -> Option<&mut Bin> {
        let i = (t.0 / self.interval_ns) as usize;
        if i >= self.max_bins {
            self.bins_dropped = self.bins_dropped.max((i + 1 - self.max_bins) as u64);
            return None;
        }
        if i >= self.bins.len() {
            self.bins.resize(i + 1, Bin::default());
        }
        Some(&mut self.bins[i])
    }

    /// Add the overlap (ns) of `[t0, t1)` with each interval to `field` of that interval,
    /// times `weight`.
    fn spread(&mut self, t0: SimTime, t1: SimTime, weight: u64, field: fn(&mut Bin) -> &mut u64) {
        let mut t = t0.0;
        while t < t1.0 {
            let end = ((t / self.interval_ns) + 1) * self.interval_ns;
            let stop = end.min(t1.0);
            let Some(b) = self.bin(SimTime(t)) else {
                return;
            };
            *field(b) += (stop - t) * weight;
            t = stop;
        }
    }

    /// A frame offered at `now` and dropped by the queue.
    #[cold]
    pub fn queue_drop(&mut self, now: SimTime) {
        if let Some(b) = self.bin(now) {
            b.frames_offered += 1;
            b.frames_dropped_queue += 1;
        }
    }

    /// A frame offered at `arrival` that waited until `t` and was dropped there (by CoDel,
    /// at dequeue): counted as a queue drop of its arrival's interval, its wait in the queue.
    #[cold]
    pub fn dropped_after_wait(&mut self, arrival: SimTime, t: SimTime) {
        self.queue_drop(arrival);
        if t > arrival {
            self.spread(arrival, t, 1, |b| &mut b.queue_frame_ns);
        }
    }

    /// A frame offered at `now`, transmitted from `start` for `tx_ns`.
    pub fn sent(&mut self, now: SimTime, start: SimTime, tx_ns: u64, wire: u32, corrupted: bool) {
        if let Some(b) = self.bin(now) {
            b.frames_offered += 1;
        }
        let wait = start.0 - now.0;
        self.delay_hist[delay_bin(wait)] += 1;
        if let Some(b) = self.bin(start) {
            b.frames_sent += 1;
            b.bytes_on_wire += u64::from(wire);
            b.frames_dropped_error += u64::from(corrupted);
            b.queue_delay_ns_sum += wait;
            b.queue_delay_ns_max = b.queue_delay_ns_max.max(wait);
        }
        self.spread(start, SimTime(start.0 + tx_ns), 1, |b| &mut b.busy_ns);
        if wait > 0 {
            self.spread(now, start, 1, |b| &mut b.queue_frame_ns);
        }
    }

    /// The rows of the intervals that start before `end` (the run's end; at least one), every
    /// interval included, empty or not: `(start, bin)`.
    pub fn rows(&self, end: SimTime) -> impl Iterator<Item = (SimTime, Bin)> + '_ {
        let n = (end.0.div_ceil(self.interval_ns).max(1) as usize).min(self.max_bins);
        (0..n).map(move |i| {
            let b = self.bins.get(i).copied().unwrap_or_default();
            (SimTime(i as u64 * self.interval_ns), b)
        })
    }

    pub fn interval_s(&self) -> f64 {
        self.interval_ns as f64 / 1e9
    }

    /// The queuing-delay histogram's non-empty bins: (lo s, hi s, frames).
    pub fn delay_histogram(&self) -> impl Iterator<Item = (f64, f64, u64)> + '_ {
        self.delay_hist
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(i, &n)| {
                let (lo, hi) = delay_bounds(i);
                (lo, hi, n)
            })
    }
}

/// The columns of the `queue_delay_hist` table: per link direction, each non-empty bin of its
/// frames' queuing delays with the fraction of its frames at or below the bin's upper edge.
#[derive(Default)]
pub struct DelayHistColumns {
    link: Vec<String>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    frames: Vec<u64>,
    cdf: Vec<f64>,
}

impl DelayHistColumns {
    pub fn push(&mut self, link: &str, s: &LinkSeries) {
        let total: u64 = s.delay_hist.iter().sum();
        let mut seen = 0;
        for (lo, hi, n) in s.delay_histogram() {
            seen += n;
            self.link.push(link.to_string());
            self.lo.push(lo);
            self.hi.push(hi);
            self.frames.push(n);
            self.cdf.push(seen as f64 / total as f64);
        }
    }

    pub fn into_columns(self) -> Vec<(String, Column)> {
        vec![
            ("link".into(), Column::Str(self.link.into())),
            ("delay_lo_s".into(), Column::F64(self.lo)),
            ("delay_hi_s".into(), Column::F64(self.hi)),
            ("frames".into(), Column::U64(self.frames)),
            ("cumulative_fraction".into(), Column::F64(self.cdf)),
        ]
    }
}

/// The columns of the `link_series` table, filled by [`SeriesColumns::push`].
#[derive(Default)]
pub struct SeriesColumns {
    time: Vec<f64>,
    link: Vec<String>,
    offered: Vec<u64>,
    sent: Vec<u64>,
    bytes: Vec<u64>,
    pps: Vec<f64>,
    bps: Vec<f64>,
    util: Vec<f64>,
    qd_mean: Vec<f64>,
    qd_max: Vec<f64>,
    q_mean: Vec<f64>,
    drop_q: Vec<u64>,
    drop_e: Vec<u64>,
}

impl SeriesColumns {
    /// One row per interval of `s` before `end`, for link direction `link`. The last interval
    /// is cut at `end`, and its rates are per the time it covers.
    pub fn push(&mut self, link: &str, s: &LinkSeries, end: SimTime) {
        let t = s.interval_s();
        for (start, b) in s.rows(end) {
            let span = ((end.0.saturating_sub(start.0)) as f64 / 1e9).min(t);
            let per = |x: f64| if span > 0.0 { x / span } else { 0.0 };
            self.time.push(start.as_secs_f64());
            self.link.push(link.to_string());
            self.offered.push(b.frames_offered);
            self.sent.push(b.frames_sent);
            self.bytes.push(b.bytes_on_wire);
            self.pps.push(per(b.frames_sent as f64));
            self.bps.push(per(8.0 * b.bytes_on_wire as f64));
            self.util.push(per(b.busy_ns as f64 / 1e9).min(1.0));
            self.qd_mean.push(if b.frames_sent > 0 {
                b.queue_delay_ns_sum as f64 / b.frames_sent as f64 / 1e9
            } else {
                0.0
            });
            self.qd_max.push(b.queue_delay_ns_max as f64 / 1e9);
            self.q_mean.push(per(b.queue_frame_ns as f64 / 1e9));
            self.drop_q.push(b.frames_dropped_queue);
            self.drop_e.push(b.frames_dropped_error);
        }
    }

    pub fn into_columns(self) -> Vec<(String, Column)> {
        vec![
            ("time_s".into(), Column::F64(self.time)),
            ("link".into(), Column::Str(self.link.into())),
            ("frames_offered".into(), Column::U64(self.offered)),
            ("frames_sent".into(), Column::U64(self.sent)),
            ("bytes_on_wire".into(), Column::U64(self.bytes)),
            ("packets_per_s".into(), Column::F64(self.pps)),
            ("bits_per_s".into(), Column::F64(self.bps)),
            ("utilisation".into(), Column::F64(self.util)),
            ("mean_queue_delay_s".into(), Column::F64(self.qd_mean)),
            ("max_queue_delay_s".into(), Column::F64(self.qd_max)),
            ("mean_queue_packets".into(), Column::F64(self.q_mean)),
            ("frames_dropped_queue".into(), Column::U64(self.drop_q)),
            ("frames_dropped_error".into(), Column::U64(self.drop_e)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transmission_across_a_boundary_is_split_between_intervals() {
        let mut s = LinkSeries::new(1_000_000, 100); // 1 ms
                                                     // Offered at 0.5 ms, waits until 0.8 ms, on the wire 0.8 .. 1.3 ms.
        s.sent(SimTime(500_000), SimTime(800_000), 500_000, 1000, false);
        let rows: Vec<_> = s.rows(SimTime(2_500_000)).collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].1.busy_ns, 200_000);
        assert_eq!(rows[1].1.busy_ns, 300_000);
        assert_eq!(rows[0].1.frames_sent, 1);
        assert_eq!(rows[0].1.queue_delay_ns_sum, 300_000);
        assert_eq!(rows[0].1.queue_frame_ns, 300_000);
        assert_eq!(rows[2].1, Bin::default());
    }

    #[test]
    fn a_long_wait_counts_in_every_interval_it_covers() {
        let mut s = LinkSeries::new(1_000_000, 100);
        s.sent(SimTime(0), SimTime(3_500_000), 10_000, 100, true);
        let rows: Vec<_> = s.rows(SimTime(4_200_000)).collect();
        let waits: Vec<u64> = rows.iter().map(|r| r.1.queue_frame_ns).collect();
        assert_eq!(waits, vec![1_000_000, 1_000_000, 1_000_000, 500_000, 0]);
        // Sent (and lost to an error) in the interval where its transmission starts.
        assert_eq!(rows[3].1.frames_sent, 1);
        assert_eq!(rows[3].1.frames_dropped_error, 1);
        assert_eq!(rows[0].1.frames_offered, 1);
    }

    #[test]
    fn queuing_delays_fall_in_log_bins_of_whole_nanoseconds() {
        let e = delay_edges();
        assert_eq!(e.len(), 91);
        assert_eq!(
            (e[0], e[10], e[20], e[90]),
            (1_000, 10_000, 100_000, 1_000_000_000_000)
        );
        assert_eq!(e[1], 1_259); // 1 us x 10^0.1 = 1.2589 us
        assert_eq!(delay_bin(0), 0);
        assert_eq!(delay_bin(1), 1);
        assert_eq!(delay_bin(999), 1);
        assert_eq!(delay_bin(1_000), 2); // [1 us, 1.259 us)
        assert_eq!(delay_bin(1_258), 2);
        assert_eq!(delay_bin(1_259), 3);
        assert_eq!(delay_bin(120_000), 22); // [100 us, 125.9 us)
        assert_eq!(delay_bounds(22), (100e-6, 125.893e-6));
        assert_eq!(delay_bin(5_000_000_000_000), 92);
        assert_eq!(delay_bounds(92).1, f64::INFINITY);
        let mut s = LinkSeries::new(1_000_000_000, 10);
        for (arrive, start) in [(0, 0), (10, 10), (20, 120_020), (30, 120_030), (40, 1_040)] {
            s.sent(SimTime(arrive), SimTime(start), 1000, 100, false);
        }
        let mut cols = DelayHistColumns::default();
        cols.push("l:ab", &s);
        let c = cols.into_columns();
        assert_eq!(c[3].1, Column::U64(vec![2, 1, 2]));
        assert_eq!(c[4].1, Column::F64(vec![0.4, 0.6, 1.0]));
    }

    #[test]
    fn intervals_past_the_cap_are_counted_not_kept() {
        let mut s = LinkSeries::new(1_000, 3);
        s.queue_drop(SimTime(10_500));
        assert_eq!(s.bins_dropped(), 8);
        assert_eq!(s.rows(SimTime(100_000)).count(), 3);
        let mut cols = SeriesColumns::default();
        s.queue_drop(SimTime(1_500));
        cols.push("l:ab", &s, SimTime(2_500));
        let c = cols.into_columns();
        assert_eq!(c[11].1, Column::U64(vec![0, 1, 0]));
        // The last interval covers 0.5 us of the run: its rates are per that half.
        assert_eq!(c[0].1, Column::F64(vec![0.0, 1e-6, 2e-6]));
    }
}
