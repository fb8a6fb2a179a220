//! Packets are structs of header fields, not byte buffers. Sizes are tracked exactly, because
//! serialisation time and the bit-error probability depend on them.

/// TCP flags.
pub const SYN: u8 = 0x02;
pub const FIN: u8 = 0x01;
pub const ACK: u8 = 0x10;
pub const RST: u8 = 0x04;
/// Not a TCP flag: marks a UDP datagram (`seq` numbers the datagrams, `ts_val` carries its
/// send time in nanoseconds).
pub const UDP: u8 = 0x80;
/// UDP header (RFC 768).
pub const UDP_HEADER: u32 = 8;

/// IPv4 header without options (RFC 791).
pub const IP_HEADER: u32 = 20;
/// TCP header without options (RFC 9293).
pub const TCP_HEADER: u32 = 20;
/// Most SACK blocks an option can carry (RFC 2018: 4, or 3 beside timestamps).
pub const MAX_SACK_BLOCKS: usize = 4;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// One IP packet carrying a TCP segment. Sequence numbers are 64-bit internally (no wrap); the
/// pcap export truncates them to 32 bits as on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Unique id in the run (for logs).
    pub uid: u64,
    pub conn: u32,
    /// Endpoint index the packet is addressed to (0 = client, 1 = server).
    pub to_end: u8,
    pub src: u16,
    pub dst: u16,
    pub flags: u8,
    pub seq: u64,
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    /// Window field as sent (already scaled down by the sender's window scale).
    pub wnd: u32,
    /// Which transmission of this sequence number this is (1 = first).
    pub tx_count: u32,
    /// TCP option bytes (padded to 4).
    pub opt_len: u32,
    /// SYN options offered.
    pub syn_mss: u32,
    pub syn_wscale: i8,
    pub syn_sack_ok: bool,
    /// Timestamps option (RFC 7323): values in microseconds of the sender's clock; 0 = absent.
    pub ts_val: u64,
    pub ts_ecr: u64,
    pub has_ts: bool,
    pub n_sack: u8,
    /// SACK blocks as offsets from `ack` (blocks always lie above the cumulative ACK and within
    /// the receive window, under 2^30 bytes): half the size of absolute 64-bit edges, which keeps
    /// the packet small enough to move without a memcpy call on every hop. Write with
    /// `push_sack`, read with `sack_blocks`.
    pub sack_off: [(u32, u32); MAX_SACK_BLOCKS],
}

impl Default for Packet {
    /// An empty segment: no flags, no options (`syn_wscale` -1 means "no window scale option").
    fn default() -> Self {
        Packet {
            uid: 0,
            conn: 0,
            to_end: 0,
            src: 0,
            dst: 0,
            flags: 0,
            seq: 0,
            ack: 0,
            len: 0,
            wnd: 0,
            tx_count: 1,
            opt_len: 0,
            syn_mss: 0,
            syn_wscale: -1,
            syn_sack_ok: false,
            ts_val: 0,
            ts_ecr: 0,
            has_ts: false,
            n_sack: 0,
            sack_off: [(0, 0); MAX_SACK_BLOCKS],
        }
    }
}

impl Packet {
    /// Bytes of the IP packet (IP + TCP headers, options, payload).
    #[inline]
    pub fn ip_bytes(&self) -> u32 {
        if self.flags & UDP != 0 {
            return IP_HEADER + UDP_HEADER + self.len;
        }
        IP_HEADER + TCP_HEADER + self.opt_len + self.len
    }
    #[inline]
    pub fn is(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
    /// Sequence space consumed (payload + SYN + FIN).
    #[inline]
    pub fn seq_len(&self) -> u64 {
        self.len as u64 + u64::from(self.is(SYN)) + u64::from(self.is(FIN))
    }
    /// The SACK blocks carried, in the order they were written.
    pub fn sack_blocks(&self) -> impl Iterator<Item = SackBlock> + '_ {
        self.sack_off[..self.n_sack as usize]
            .iter()
            .map(|&(s, e)| SackBlock {
                start: self.ack + s as u64,
                end: self.ack + e as u64,
            })
    }

    /// Append a SACK block (set `ack` first). Returns false if the option is full or the block
    /// does not lie above `ack` within 2^32 bytes.
    pub fn push_sack(&mut self, b: SackBlock) -> bool {
        let n = self.n_sack as usize;
        if n >= MAX_SACK_BLOCKS || b.start < self.ack || b.end < b.start {
            return false;
        }
        let (Ok(s), Ok(e)) = (
            u32::try_from(b.start - self.ack),
            u32::try_from(b.end - self.ack),
        ) else {
            return false;
        };
        self.sack_off[n] = (s, e);
        self.n_sack += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_blocks_round_trip_as_offsets_from_ack() {
        let mut p = Packet {
            ack: 5_000_000_001,
            ..Packet::default()
        };
        let blocks = [
            (5_000_002_921, 5_000_005_841),
            (5_000_008_761, 5_000_010_221),
        ];
        for (s, e) in blocks {
            assert!(p.push_sack(SackBlock { start: s, end: e }));
        }
        let got: Vec<(u64, u64)> = p.sack_blocks().map(|b| (b.start, b.end)).collect();
        assert_eq!(got, blocks);
    }

    #[test]
    fn sack_refuses_blocks_below_ack_and_a_fifth_block() {
        let mut p = Packet {
            ack: 1000,
            ..Packet::default()
        };
        assert!(!p.push_sack(SackBlock { start: 10, end: 20 }));
        for k in 0..4 {
            assert!(p.push_sack(SackBlock {
                start: 2000 + k * 100,
                end: 2050 + k * 100
            }));
        }
        assert!(!p.push_sack(SackBlock {
            start: 9000,
            end: 9100
        }));
        assert_eq!(p.sack_blocks().count(), MAX_SACK_BLOCKS);
    }
}
