//! Just enough Ethernet/IPv4/TCP/UDP parsing for the forwarder: the IP length (for framing and
//! BER), the 5-tuple and TCP sequence number (for the drop log and the `list` model), and the
//! TCP window field with an incremental checksum update (RFC 1624) for the receive-window clamp.
//!
//! Frames that are not IPv4 (ARP, IPv6, ...) parse as `None` and are passed through unimpaired;
//! the testbed turns IPv6 off and installs static neighbours so none are expected.

/// EtherType of IPv4 (IEEE 802 numbers).
pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

pub const TCP_FIN: u8 = 0x01;
pub const TCP_SYN: u8 = 0x02;
/// TCP option kinds (RFC 9293 section 3.2; window scale: RFC 7323 section 2.2).
const OPT_END: u8 = 0;
const OPT_NOP: u8 = 1;
const OPT_WSCALE: u8 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tcp {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub flags: u8,
    pub window: u16,
    /// Payload bytes (excluding the TCP header and options).
    pub payload: u32,
    /// Offset of the TCP header in the frame.
    pub offset: usize,
    /// Window-scale option (RFC 7323), only looked for in SYN segments.
    pub wscale: Option<u8>,
}

impl Tcp {
    pub fn syn(&self) -> bool {
        self.flags & TCP_SYN != 0
    }
    /// Whether the segment occupies sequence space (data, SYN or FIN).
    pub fn occupies_sequence_space(&self) -> bool {
        self.payload > 0 || self.flags & (TCP_SYN | TCP_FIN) != 0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L4 {
    Tcp(Tcp),
    Udp {
        sport: u16,
        dport: u16,
    },
    /// Another protocol, or a non-first fragment.
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4 {
    /// IP total length (bounded by the bytes actually present).
    pub len: u32,
    pub proto: u8,
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub l4: L4,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Parse an Ethernet II frame carrying IPv4.
pub fn parse(frame: &[u8]) -> Option<Ipv4> {
    if frame.len() < 14 + 20 || be16(frame, 12) != ETHERTYPE_IPV4 {
        return None;
    }
    let ip = &frame[14..];
    if ip[0] >> 4 != 4 {
        return None;
    }
    let ihl = usize::from(ip[0] & 0x0f) * 4;
    if ihl < 20 || ip.len() < ihl {
        return None;
    }
    let total = usize::from(be16(ip, 2)).clamp(ihl, ip.len());
    let proto = ip[9];
    let frag_offset = be16(ip, 6) & 0x1fff;
    let src = [ip[12], ip[13], ip[14], ip[15]];
    let dst = [ip[16], ip[17], ip[18], ip[19]];
    let l4 = &ip[ihl..total];
    let l4 = if frag_offset != 0 {
        L4::Other
    } else if proto == PROTO_TCP && l4.len() >= 20 {
        let doff = usize::from(l4[12] >> 4) * 4;
        if doff < 20 || doff > l4.len() {
            L4::Other
        } else {
            let flags = l4[13];
            let wscale = if flags & TCP_SYN != 0 {
                find_wscale(&l4[20..doff])
            } else {
                None
            };
            L4::Tcp(Tcp {
                sport: be16(l4, 0),
                dport: be16(l4, 2),
                seq: be32(l4, 4),
                flags,
                window: be16(l4, 14),
                payload: (l4.len() - doff) as u32,
                offset: 14 + ihl,
                wscale,
            })
        }
    } else if proto == PROTO_UDP && l4.len() >= 8 {
        L4::Udp {
            sport: be16(l4, 0),
            dport: be16(l4, 2),
        }
    } else {
        L4::Other
    };
    Some(Ipv4 {
        len: total as u32,
        proto,
        src,
        dst,
        l4,
    })
}

fn find_wscale(mut opts: &[u8]) -> Option<u8> {
    while let Some(&kind) = opts.first() {
        match kind {
            OPT_END => return None,
            OPT_NOP => opts = &opts[1..],
            _ => {
                let len = usize::from(*opts.get(1)?);
                if len < 2 || len > opts.len() {
                    return None;
                }
                if kind == OPT_WSCALE && len == 3 {
                    // RFC 7323 section 2.3: a shift above 14 is used as 14.
                    return Some(opts[2].min(14));
                }
                opts = &opts[len..];
            }
        }
    }
    None
}

/// RFC 1624 equation 3: update a ones'-complement checksum `hc` when a 16-bit field changes
/// from `old` to `new`: HC' = ~(~HC + ~m + m').
pub fn checksum_adjust(hc: u16, old: u16, new: u16) -> u16 {
    let mut sum = u32::from(!hc) + u32::from(!old) + u32::from(new);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    !(sum as u16)
}

/// Rewrite the TCP window field of the segment whose header starts at `tcp_offset`, keeping
/// the checksum valid.
pub fn set_tcp_window(frame: &mut [u8], tcp_offset: usize, window: u16) {
    let w = tcp_offset + 14;
    let c = tcp_offset + 16;
    let old = be16(frame, w);
    if old == window {
        return;
    }
    let sum = be16(frame, c);
    frame[w..w + 2].copy_from_slice(&window.to_be_bytes());
    frame[c..c + 2].copy_from_slice(&checksum_adjust(sum, old, window).to_be_bytes());
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// Ones'-complement sum over `data` (RFC 1071), folded.
    fn ones_sum(mut acc: u32, data: &[u8]) -> u32 {
        for chunk in data.chunks(2) {
            let word = if chunk.len() == 2 {
                u16::from_be_bytes([chunk[0], chunk[1]])
            } else {
                u16::from_be_bytes([chunk[0], 0])
            };
            acc += u32::from(word);
        }
        while acc > 0xffff {
            acc = (acc & 0xffff) + (acc >> 16);
        }
        acc
    }

    /// TCP checksum over the pseudo-header and segment (checksum field taken as is).
    pub fn tcp_checksum_ok(frame: &[u8]) -> bool {
        let ip = &frame[14..];
        let ihl = usize::from(ip[0] & 0xf) * 4;
        let total = usize::from(be16(ip, 2));
        let seg = &ip[ihl..total];
        let mut pseudo = Vec::new();
        pseudo.extend_from_slice(&ip[12..20]);
        pseudo.extend_from_slice(&[0, PROTO_TCP]);
        pseudo.extend_from_slice(&(seg.len() as u16).to_be_bytes());
        ones_sum(ones_sum(0, &pseudo), seg) == 0xffff
    }

    /// A TCP/IPv4 frame with a correct checksum.
    pub fn tcp_frame(seq: u32, flags: u8, window: u16, options: &[u8], payload: usize) -> Vec<u8> {
        let doff = 20 + options.len();
        assert_eq!(doff % 4, 0);
        let total = 20 + doff + payload;
        let mut f = vec![0u8; 14 + total];
        f[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        let ip = &mut f[14..];
        ip[0] = 0x45;
        ip[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        ip[8] = 64;
        ip[9] = PROTO_TCP;
        ip[12..16].copy_from_slice(&[198, 18, 0, 2]);
        ip[16..20].copy_from_slice(&[198, 18, 0, 1]);
        let t = &mut ip[20..];
        t[0..2].copy_from_slice(&5001u16.to_be_bytes());
        t[2..4].copy_from_slice(&40000u16.to_be_bytes());
        t[4..8].copy_from_slice(&seq.to_be_bytes());
        t[12] = ((doff / 4) as u8) << 4;
        t[13] = flags;
        t[14..16].copy_from_slice(&window.to_be_bytes());
        t[20..doff].copy_from_slice(options);
        for (i, b) in t[doff..].iter_mut().enumerate() {
            *b = (i * 7 + 3) as u8;
        }
        // Fill in the checksum: complement of the sum with the field at zero.
        let ihl = 20;
        let seg = f[14 + ihl..].to_vec();
        let mut pseudo = Vec::new();
        pseudo.extend_from_slice(&f[14 + 12..14 + 20]);
        pseudo.extend_from_slice(&[0, PROTO_TCP]);
        pseudo.extend_from_slice(&(seg.len() as u16).to_be_bytes());
        let sum = !(ones_sum(ones_sum(0, &pseudo), &seg) as u16);
        f[14 + ihl + 16..14 + ihl + 18].copy_from_slice(&sum.to_be_bytes());
        assert!(tcp_checksum_ok(&f));
        f
    }

    #[test]
    fn parses_a_syn_with_window_scale() {
        // MSS 1460, NOP, window scale 7.
        let f = tcp_frame(1000, TCP_SYN, 64240, &[2, 4, 5, 180, 1, 3, 3, 7], 0);
        let ip = parse(&f).unwrap();
        assert_eq!(ip.len, 48);
        let L4::Tcp(t) = ip.l4 else { panic!() };
        assert_eq!(
            (t.sport, t.dport, t.seq, t.window),
            (5001, 40000, 1000, 64240)
        );
        assert_eq!(t.wscale, Some(7));
        assert!(t.syn() && t.occupies_sequence_space());
        assert_eq!(t.offset, 34);
    }

    #[test]
    fn data_segment_payload_is_counted() {
        let f = tcp_frame(5, 0x10, 100, &[], 1460);
        let L4::Tcp(t) = parse(&f).unwrap().l4 else {
            panic!()
        };
        assert_eq!(t.payload, 1460);
        assert_eq!(t.wscale, None);
    }

    #[test]
    fn non_ipv4_is_not_parsed() {
        let mut f = tcp_frame(5, 0x10, 100, &[], 0);
        f[12..14].copy_from_slice(&0x0806u16.to_be_bytes()); // ARP
        assert!(parse(&f).is_none());
        assert!(parse(&f[..20]).is_none());
    }

    #[test]
    fn incremental_checksum_matches_recomputation() {
        for (win, new) in [(64240u16, 8760u16), (0xffff, 0), (1, 0xfffe), (8760, 8760)] {
            for payload in [0, 1, 513, 1448] {
                let mut f = tcp_frame(
                    77,
                    0x10,
                    win,
                    &[1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2],
                    payload,
                );
                set_tcp_window(&mut f, 34, new);
                assert!(tcp_checksum_ok(&f), "win {win} -> {new}, payload {payload}");
                let L4::Tcp(t) = parse(&f).unwrap().l4 else {
                    panic!()
                };
                assert_eq!(t.window, new);
            }
        }
    }

    #[test]
    fn checksum_adjust_handles_the_rfc1624_corner_case() {
        // RFC 1624 section 3: a field changing so that the sum is 0xffff must not yield -0.
        assert_eq!(checksum_adjust(0xdd2f, 0x5555, 0x3285), 0x0000);
    }
}
