//! Packets are structs of header fields, not byte buffers. Sizes are tracked exactly, because
//! serialisation time and the bit-error probability depend on them.

/// TCP flags.
pub const SYN: u8 = 0x02;
pub const FIN: u8 = 0x01;
pub const ACK: u8 = 0x10;
pub const RST: u8 = 0x04;

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
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
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
            sack: [SackBlock::default(); MAX_SACK_BLOCKS],
        }
    }
}

impl Packet {
    /// Bytes of the IP packet (IP + TCP headers, options, payload).
    #[inline]
    pub fn ip_bytes(&self) -> u32 {
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
    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.n_sack as usize]
    }
}
