//! The `app_series` table (`output.app_series`): each application group's responses per
//! interval of simulated time, as OPNET's application statistics (page response time, database
//! query response time, download response time) are collected per bucket over every user
//! running the application.
//!
//! A response is a page or query of an `http` or `database` application, or a whole `ftp` or
//! `bulk` transfer; it counts in the interval in which it completed. Intervals are
//! [k I, (k + 1) I) up to the end of the run, as in `link_series`; the last one also takes a
//! response that completes at the very end. Every group gets a row per interval, with NaN
//! response times where none completed, so that the series plot without gaps in time.

use crate::engine::time::{Dur, SimTime};
use crate::output::{Column, Table};

/// One completed response of an application in group `group` (an index into the groups).
#[derive(Clone, Copy, Debug)]
pub struct Response {
    pub group: usize,
    pub done: SimTime,
    pub time: Dur,
    pub bytes: u64,
}

#[derive(Clone, Copy, Default)]
struct Bin {
    n: u64,
    sum_ns: u128,
    max_ns: u64,
    bytes: u64,
}

/// The table for `groups` (in order) over [0, `end`) in intervals of `every`, keeping at most
/// `max_rows` rows. Returns the table and the rows it dropped.
pub fn table(
    groups: &[String],
    responses: &[Response],
    every: Dur,
    end: SimTime,
    max_rows: usize,
) -> (Table, u64) {
    let every_ns = every.0.max(1);
    let n = end.0.div_ceil(every_ns).max(1);
    // Only the rows kept are held (a tiny interval over a long run must not exhaust memory).
    let total = (groups.len() as u64).saturating_mul(n);
    let rows = total.min(max_rows as u64) as usize;
    let dropped = total - rows as u64;
    let mut bins = vec![Bin::default(); rows];
    for r in responses {
        let k = (r.done.0 / every_ns).min(n - 1);
        let Some(b) = bins.get_mut((r.group as u64 * n + k) as usize) else {
            continue;
        };
        b.n += 1;
        b.sum_ns += u128::from(r.time.0);
        b.max_ns = b.max_ns.max(r.time.0);
        b.bytes += r.bytes;
    }
    let (mut time, mut app) = (Vec::with_capacity(rows), Vec::with_capacity(rows));
    let (mut count, mut mean) = (Vec::with_capacity(rows), Vec::with_capacity(rows));
    let (mut max, mut bytes) = (Vec::with_capacity(rows), Vec::with_capacity(rows));
    for (i, b) in bins.iter().enumerate() {
        let (g, k) = (i as u64 / n, i as u64 % n);
        time.push((k * every_ns) as f64 / 1e9);
        app.push(groups[g as usize].clone());
        count.push(b.n);
        mean.push(if b.n > 0 {
            b.sum_ns as f64 / b.n as f64 / 1e9
        } else {
            f64::NAN
        });
        max.push(if b.n > 0 {
            b.max_ns as f64 / 1e9
        } else {
            f64::NAN
        });
        bytes.push(b.bytes);
    }
    let table = Table {
        name: "app_series".into(),
        columns: vec![
            ("time_s".into(), Column::F64(time)),
            ("app".into(), Column::Str(app.into())),
            ("completed".into(), Column::U64(count)),
            ("mean_response_time_s".into(), Column::F64(mean)),
            ("max_response_time_s".into(), Column::F64(max)),
            ("response_bytes".into(), Column::U64(bytes)),
        ],
    };
    (table, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64s(t: &Table, c: &str) -> Vec<f64> {
        match t.column(c) {
            Some(Column::F64(v)) => v.clone(),
            other => panic!("{c}: {other:?}"),
        }
    }

    fn u64s(t: &Table, c: &str) -> Vec<u64> {
        match t.column(c) {
            Some(Column::U64(v)) => v.clone(),
            other => panic!("{c}: {other:?}"),
        }
    }

    #[test]
    fn responses_fall_in_the_interval_they_complete_in() {
        let s = |x: f64| SimTime(Dur::from_secs_f64(x).0);
        let r = |group, done: f64, time: f64, bytes| Response {
            group,
            done: s(done),
            time: Dur::from_secs_f64(time),
            bytes,
        };
        let groups = ["web".to_string(), "db".to_string()];
        let responses = [
            r(0, 0.5, 0.2, 1000),
            r(0, 9.999, 0.4, 3000),
            r(0, 10.0, 1.0, 500),     // on the boundary: the second interval
            r(1, 25.0, 0.05, 32_000), // the run's end: the last interval
        ];
        let (t, dropped) = table(&groups, &responses, Dur::from_secs(10), s(25.0), 100);
        assert_eq!(dropped, 0);
        assert_eq!(f64s(&t, "time_s"), [0.0, 10.0, 20.0, 0.0, 10.0, 20.0]);
        assert_eq!(u64s(&t, "completed"), [2, 1, 0, 0, 0, 1]);
        let mean = f64s(&t, "mean_response_time_s");
        assert!((mean[0] - 0.3).abs() < 1e-12 && (mean[1] - 1.0).abs() < 1e-12);
        assert!(mean[2].is_nan() && mean[3].is_nan());
        assert!((mean[5] - 0.05).abs() < 1e-12);
        let max = f64s(&t, "max_response_time_s");
        assert!((max[0] - 0.4).abs() < 1e-12);
        assert_eq!(u64s(&t, "response_bytes"), [4000, 500, 0, 0, 0, 32_000]);
        let (t, dropped) = table(&groups, &responses, Dur::from_secs(10), s(25.0), 4);
        assert_eq!((dropped, u64s(&t, "completed").len()), (2, 4));
        // a nanosecond interval over 25 s: 5e10 rows, of which only the first 4 are held
        let (t, dropped) = table(&groups, &responses, Dur(1), s(25.0), 4);
        assert_eq!(
            (dropped, u64s(&t, "completed").len()),
            (5 * 10u64.pow(10) - 4, 4)
        );
    }
}
