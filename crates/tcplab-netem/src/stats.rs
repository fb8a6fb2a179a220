//! Small fixed-memory statistics: a latency histogram with 1 us buckets up to 20 ms, and the
//! drop log.

use serde::Serialize;

const BUCKET_NS: u64 = 1_000;
const BUCKETS: usize = 20_000;

/// How late frames left compared with their scheduled departure.
pub struct Lateness {
    counts: Vec<u64>,
    overflow: u64,
    n: u64,
    sum_ns: u128,
    max_ns: u64,
}

#[derive(Debug, Serialize, PartialEq)]
pub struct LatenessSummary {
    pub frames: u64,
    pub mean_ns: f64,
    /// Percentiles are bucket upper bounds (1 us resolution); `None` past 20 ms.
    pub p50_ns: Option<u64>,
    pub p99_ns: Option<u64>,
    pub p999_ns: Option<u64>,
    pub max_ns: u64,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            counts: vec![0; BUCKETS],
            overflow: 0,
            n: 0,
            sum_ns: 0,
            max_ns: 0,
        }
    }
}

impl Lateness {
    pub fn record(&mut self, late_ns: u64) {
        let b = (late_ns / BUCKET_NS) as usize;
        match self.counts.get_mut(b) {
            Some(c) => *c += 1,
            None => self.overflow += 1,
        }
        self.n += 1;
        self.sum_ns += u128::from(late_ns);
        self.max_ns = self.max_ns.max(late_ns);
    }

    fn quantile(&self, q: f64) -> Option<u64> {
        if self.n == 0 {
            return Some(0);
        }
        let rank = ((q * self.n as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some((i as u64 + 1) * BUCKET_NS);
            }
        }
        None
    }

    pub fn summary(&self) -> LatenessSummary {
        LatenessSummary {
            frames: self.n,
            mean_ns: if self.n == 0 {
                0.0
            } else {
                self.sum_ns as f64 / self.n as f64
            },
            p50_ns: self.quantile(0.5),
            p99_ns: self.quantile(0.99),
            p999_ns: self.quantile(0.999),
            max_ns: self.max_ns,
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DropReason {
    Error,
    Queue,
}

/// One dropped frame.
#[derive(Clone, Debug, Serialize)]
pub struct DropEvent {
    /// Seconds since the forwarder started (transmission start for errors, arrival for queue
    /// drops).
    pub t: f64,
    /// The same instant on CLOCK_MONOTONIC, in nanoseconds (to align with endpoint traces).
    pub t_mono_ns: u64,
    pub dir: &'static str,
    pub reason: DropReason,
    pub proto: u8,
    pub src: String,
    pub dst: String,
    pub sport: Option<u16>,
    pub dport: Option<u16>,
    /// TCP sequence number relative to the SYN (SYN = 0); absolute if no SYN was seen.
    pub seq: Option<u32>,
    pub seq_abs: Option<u32>,
    /// TCP payload bytes.
    pub payload: Option<u32>,
    /// Transmission number of that sequence number, when a `list` model counts them.
    pub transmission: Option<u32>,
    pub ip_len: u32,
    /// Index of the frame among those transmitted on this direction (error drops only).
    pub frame: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_use_bucket_upper_bounds() {
        let mut l = Lateness::default();
        for ns in [100, 200, 1_500, 2_500, 30_000_000] {
            l.record(ns);
        }
        let s = l.summary();
        assert_eq!(s.frames, 5);
        assert_eq!(s.p50_ns, Some(2_000));
        assert_eq!(s.p99_ns, None); // in the overflow
        assert_eq!(s.max_ns, 30_000_000);
        assert_eq!(Lateness::default().summary().p50_ns, Some(0));
    }
}
