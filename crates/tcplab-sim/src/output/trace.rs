//! Columnar traces: a per-connection state trace, an event log and a per-packet log.
//! Each is a set of parallel vectors, turned into `output::Table`s at the end of a run.

use crate::engine::time::SimTime;
use crate::net::packet::Packet;
use crate::output::{Column, Strs, Table};

/// The row limit of one table (`output.max_rows`): rows past it are counted, not kept, so a
/// long run's memory stays bounded; the summary says what was left out.
#[derive(Clone, Copy, Debug)]
pub struct Cap {
    pub max: usize,
    pub dropped: u64,
    pub first_dropped: SimTime,
}

impl Default for Cap {
    fn default() -> Self {
        Cap {
            max: usize::MAX,
            dropped: 0,
            first_dropped: SimTime::ZERO,
        }
    }
}

impl Cap {
    pub fn new(max: usize) -> Self {
        Cap {
            max,
            ..Cap::default()
        }
    }

    /// True (and the row counted as dropped) when a table of `len` rows is full.
    #[inline]
    fn full(&mut self, len: usize, now: SimTime) -> bool {
        if len < self.max {
            return false;
        }
        if self.dropped == 0 {
            self.first_dropped = now;
        }
        self.dropped += 1;
        true
    }
}

/// Where a row of text is written: `write!` works on it, and `text` and `num` append without
/// the formatting machinery (an integer through `write!` cost about 200 instructions, a large
/// part of a lossy run's event log: 2.8 % of 100 MB at a PER of 0.03).
pub struct Detail<'a>(&'a mut String);

impl<'a> Detail<'a> {
    /// A detail appended to `text` (for tests elsewhere: the log makes its own).
    #[cfg(test)]
    pub fn new(text: &'a mut String) -> Self {
        Detail(text)
    }
    /// `text`, as `fmt::Write::write_str` is called (without the trait in scope).
    #[inline]
    pub fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.text(s);
        Ok(())
    }
    /// What `write!` calls.
    #[inline]
    pub fn write_fmt(&mut self, args: std::fmt::Arguments) -> std::fmt::Result {
        std::fmt::Write::write_fmt(self.0, args)
    }
    #[inline]
    pub fn text(&mut self, s: &str) -> &mut Self {
        self.0.push_str(s);
        self
    }
    /// `n` in decimal, as `Display` writes it.
    #[inline]
    pub fn num(&mut self, n: u64) -> &mut Self {
        self.0.push_str(itoa::Buffer::new().format(n));
        self
    }
}

#[derive(Debug, Default)]
pub struct EventLog {
    pub cap: Cap,
    time: Vec<f64>,
    conn: Vec<u64>,
    end: Vec<u64>,
    kind: Strs,
    seq: Vec<u64>,
    detail: Strs,
}

impl EventLog {
    pub fn with_cap(cap: Cap) -> Self {
        EventLog {
            cap,
            ..EventLog::default()
        }
    }
    pub fn push(&mut self, now: SimTime, conn: u32, end: u8, kind: &str, seq: u64, detail: &str) {
        self.push_with(now, conn, end, kind, seq, |w| w.write_str(detail));
    }
    /// `push`, with the detail written by `detail` straight into the column's text (and not
    /// at all once the log is full).
    pub fn push_with(
        &mut self,
        now: SimTime,
        conn: u32,
        end: u8,
        kind: &str,
        seq: u64,
        detail: impl FnOnce(&mut Detail) -> std::fmt::Result,
    ) {
        if self.cap.full(self.time.len(), now) {
            return;
        }
        self.time.push(now.as_secs_f64());
        self.conn.push(conn as u64);
        self.end.push(end as u64);
        self.kind.push(kind);
        self.seq.push(seq);
        // Writing to a `String` cannot fail; a `Display` that returns an error anyway leaves
        // what it wrote.
        self.detail.push_with(|text| {
            let _ = detail(&mut Detail(text));
        });
    }
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
    pub fn kinds(&self) -> impl Iterator<Item = &str> + '_ {
        self.kind.iter()
    }
    pub fn into_table(self) -> Table {
        Table {
            name: "events".into(),
            columns: vec![
                ("time_s".into(), Column::F64(self.time)),
                ("conn".into(), Column::U64(self.conn)),
                ("end".into(), Column::U64(self.end)),
                ("kind".into(), Column::Str(self.kind)),
                ("seq".into(), Column::U64(self.seq)),
                ("detail".into(), Column::Str(self.detail)),
            ],
        }
    }
}

/// One row of the connection trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceRow {
    /// Whose row it is: the data sender's end (0 client, 1 server) and node index.
    pub end: u8,
    pub node: u16,
    pub cwnd: u64,
    /// Bytes; infinity while no congestion event has set it.
    pub ssthresh: f64,
    pub rwnd: u64,
    pub flight: u64,
    pub srtt_s: f64,
    pub rto_s: f64,
    pub ack: u64,
    pub bytes_received: u64,
    /// The congestion control's bandwidth estimate (bytes/s) and its RTTmin (s); NaN when it
    /// keeps none (`CongestionControl::bandwidth_estimate`).
    pub bwe_bps: f64,
    pub bwe_rtt_min_s: f64,
}

#[derive(Debug, Default)]
pub struct ConnTrace {
    pub cap: Cap,
    time: Vec<f64>,
    conn: Vec<u64>,
    end: Vec<u64>,
    node: Vec<u64>,
    cwnd: Vec<u64>,
    ssthresh: Vec<f64>,
    rwnd: Vec<u64>,
    flight: Vec<u64>,
    srtt: Vec<f64>,
    rto: Vec<f64>,
    ack: Vec<u64>,
    bytes_received: Vec<u64>,
    bwe: Vec<f64>,
    bwe_rtt_min: Vec<f64>,
}

impl ConnTrace {
    pub fn with_cap(cap: Cap) -> Self {
        ConnTrace {
            cap,
            ..ConnTrace::default()
        }
    }
    pub fn push(&mut self, now: SimTime, conn: u32, r: &TraceRow) {
        if self.cap.full(self.time.len(), now) {
            return;
        }
        self.time.push(now.as_secs_f64());
        self.conn.push(conn as u64);
        self.end.push(r.end as u64);
        self.node.push(r.node as u64);
        self.cwnd.push(r.cwnd);
        self.ssthresh.push(r.ssthresh);
        self.rwnd.push(r.rwnd);
        self.flight.push(r.flight);
        self.srtt.push(r.srtt_s);
        self.rto.push(r.rto_s);
        self.ack.push(r.ack);
        self.bytes_received.push(r.bytes_received);
        self.bwe.push(r.bwe_bps);
        self.bwe_rtt_min.push(r.bwe_rtt_min_s);
    }
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
    pub fn into_table(self) -> Table {
        Table {
            name: "trace".into(),
            columns: vec![
                ("time_s".into(), Column::F64(self.time)),
                ("conn".into(), Column::U64(self.conn)),
                ("end".into(), Column::U64(self.end)),
                ("node".into(), Column::U64(self.node)),
                ("cwnd".into(), Column::U64(self.cwnd)),
                ("ssthresh".into(), Column::F64(self.ssthresh)),
                ("rwnd".into(), Column::U64(self.rwnd)),
                ("flight".into(), Column::U64(self.flight)),
                ("srtt_s".into(), Column::F64(self.srtt)),
                ("rto_s".into(), Column::F64(self.rto)),
                ("ack".into(), Column::U64(self.ack)),
                ("bytes_received".into(), Column::U64(self.bytes_received)),
                ("bwe_Bps".into(), Column::F64(self.bwe)),
                ("bwe_rtt_min_s".into(), Column::F64(self.bwe_rtt_min)),
            ],
        }
    }
}

/// Per-packet log: every segment sent and received by an endpoint, and every frame dropped.
#[derive(Debug, Default)]
pub struct PacketLog {
    pub cap: Cap,
    time: Vec<f64>,
    event: Strs,
    place: Strs,
    conn: Vec<u64>,
    from_end: Vec<u64>,
    src: Vec<u64>,
    dst: Vec<u64>,
    flags: Vec<u64>,
    seq: Vec<u64>,
    ack: Vec<u64>,
    len: Vec<u64>,
    wnd: Vec<u64>,
    tx_count: Vec<u64>,
    ip_bytes: Vec<u64>,
    sack: Strs,
    uid: Vec<u64>,
    syn_mss: Vec<u64>,
    wscale: Vec<i64>,
    sack_ok: Vec<u64>,
    ts_val: Vec<i64>,
    ts_ecr: Vec<i64>,
}

impl PacketLog {
    pub fn with_cap(cap: Cap) -> Self {
        PacketLog {
            cap,
            ..PacketLog::default()
        }
    }
    pub fn push(&mut self, now: SimTime, event: &str, place: &str, p: &Packet) {
        if self.cap.full(self.time.len(), now) {
            return;
        }
        self.time.push(now.as_secs_f64());
        self.event.push(event);
        self.place.push(place);
        self.conn.push(p.conn as u64);
        self.from_end.push(1 - p.to_end as u64);
        self.src.push(p.src as u64);
        self.dst.push(p.dst as u64);
        self.flags.push(p.flags as u64);
        self.seq.push(p.seq);
        self.ack.push(p.ack);
        self.len.push(p.len as u64);
        self.wnd.push(p.wnd as u64);
        self.tx_count.push(p.tx_count as u64);
        self.ip_bytes.push(p.ip_bytes() as u64);
        let s: Vec<String> = p
            .sack_blocks()
            .map(|b| format!("{}-{}", b.start, b.end))
            .collect();
        self.sack.push(&s.join(" "));
        self.uid.push(p.uid);
        // The options as sent: MSS, window scale (-1: absent) and SACK-permitted on SYNs,
        // timestamps (-1: absent) on any segment.
        self.syn_mss.push(p.syn_mss as u64);
        self.wscale.push(p.syn_wscale as i64);
        self.sack_ok.push(p.syn_sack_ok as u64);
        self.ts_val
            .push(if p.has_ts { p.ts_val as i64 } else { -1 });
        self.ts_ecr
            .push(if p.has_ts { p.ts_ecr as i64 } else { -1 });
    }
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
    pub fn into_table(self) -> Table {
        Table {
            name: "packets".into(),
            columns: vec![
                ("time_s".into(), Column::F64(self.time)),
                ("event".into(), Column::Str(self.event)),
                ("place".into(), Column::Str(self.place)),
                ("conn".into(), Column::U64(self.conn)),
                ("from_end".into(), Column::U64(self.from_end)),
                ("src".into(), Column::U64(self.src)),
                ("dst".into(), Column::U64(self.dst)),
                ("flags".into(), Column::U64(self.flags)),
                ("seq".into(), Column::U64(self.seq)),
                ("ack".into(), Column::U64(self.ack)),
                ("len".into(), Column::U64(self.len)),
                ("wnd".into(), Column::U64(self.wnd)),
                ("tx_count".into(), Column::U64(self.tx_count)),
                ("ip_bytes".into(), Column::U64(self.ip_bytes)),
                ("sack".into(), Column::Str(self.sack)),
                ("uid".into(), Column::U64(self.uid)),
                ("syn_mss".into(), Column::U64(self.syn_mss)),
                ("wscale".into(), Column::I64(self.wscale)),
                ("sack_ok".into(), Column::U64(self.sack_ok)),
                ("ts_val".into(), Column::I64(self.ts_val)),
                ("ts_ecr".into(), Column::I64(self.ts_ecr)),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_table_counts_what_it_leaves_out() {
        let mut log = EventLog::with_cap(Cap::new(3));
        for i in 0..5u64 {
            log.push(SimTime(i * 1000), 0, 1, "rto", i, "");
        }
        assert_eq!(log.len(), 3);
        assert_eq!(log.cap.dropped, 2);
        assert_eq!(log.cap.first_dropped, SimTime(3000));
        let t = log.into_table();
        match t.column("seq") {
            Some(Column::U64(v)) => assert_eq!(v, &vec![0, 1, 2]), // the first rows are kept
            other => panic!("seq column: {other:?}"),
        }
    }

    #[test]
    fn details_are_written_into_their_rows_and_not_at_all_once_the_log_is_full() {
        let mut log = EventLog::with_cap(Cap::new(3));
        let mut written = 0;
        log.push(SimTime(0), 0, 1, "drop_queue", 7, "bottleneck:ab");
        for i in 1..5u64 {
            log.push_with(SimTime(i), 0, 1, "retransmit", i, |w| {
                written += 1;
                write!(w, "len {} tx {}", 1000 * i, i + 1)
            });
        }
        assert_eq!(
            written, 2,
            "the details of the rows left out are not written"
        );
        let t = log.into_table();
        match t.column("detail") {
            Some(Column::Str(v)) => assert_eq!(
                v.to_vec(),
                vec!["bottleneck:ab", "len 1000 tx 2", "len 2000 tx 3"]
            ),
            other => panic!("detail column: {other:?}"),
        }
    }

    #[test]
    fn a_detail_writes_numbers_as_display_does() {
        let mut rng = crate::engine::rng::stream(3, "detail-test");
        let mut nums: Vec<u64> = vec![0, 1, 9, 10, 99, 100, u64::MAX, u64::MAX - 1];
        for shift in 0..64 {
            nums.push(rand::RngCore::next_u64(&mut rng) >> shift);
        }
        for n in nums {
            let mut text = String::new();
            Detail(&mut text).text("x ").num(n).text(" y");
            assert_eq!(text, format!("x {n} y"));
        }
        let mut text = String::new();
        write!(Detail(&mut text), "{} {:.3}", 7, 0.25).unwrap();
        assert_eq!(text, "7 0.250");
    }
}
