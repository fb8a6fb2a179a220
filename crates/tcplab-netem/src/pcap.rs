//! A minimal pcap writer (the classic libpcap file format, nanosecond variant: magic
//! 0xa1b23c4d, version 2.4, link type 1 = Ethernet), in the machine's byte order as readers
//! expect from the magic number.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
const LINKTYPE_ETHERNET: u32 = 1;

pub struct PcapWriter {
    out: BufWriter<File>,
    snaplen: u32,
    pub frames: u64,
}

impl PcapWriter {
    pub fn create(path: &Path, snaplen: u32) -> io::Result<PcapWriter> {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&MAGIC_NANOS.to_ne_bytes());
        h.extend_from_slice(&2u16.to_ne_bytes());
        h.extend_from_slice(&4u16.to_ne_bytes());
        h.extend_from_slice(&0i32.to_ne_bytes()); // thiszone
        h.extend_from_slice(&0u32.to_ne_bytes()); // sigfigs
        h.extend_from_slice(&snaplen.to_ne_bytes());
        h.extend_from_slice(&LINKTYPE_ETHERNET.to_ne_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter {
            out,
            snaplen,
            frames: 0,
        })
    }

    /// Append one frame captured at `unix_ns` nanoseconds since the epoch.
    pub fn write(&mut self, unix_ns: u64, frame: &[u8]) -> io::Result<()> {
        let incl = frame.len().min(self.snaplen as usize);
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&((unix_ns / 1_000_000_000) as u32).to_ne_bytes());
        h[4..8].copy_from_slice(&((unix_ns % 1_000_000_000) as u32).to_ne_bytes());
        h[8..12].copy_from_slice(&(incl as u32).to_ne_bytes());
        h[12..16].copy_from_slice(&(frame.len() as u32).to_ne_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(&frame[..incl])?;
        self.frames += 1;
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_header_and_truncated_records() {
        let path =
            std::env::temp_dir().join(format!("tcplab-netem-pcap-{}.pcap", std::process::id()));
        {
            let mut w = PcapWriter::create(&path, 10).unwrap();
            w.write(1_500_000_000_123_456_789, &[7u8; 60]).unwrap();
            w.flush().unwrap();
        }
        let b = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(b.len(), 24 + 16 + 10);
        assert_eq!(u32::from_ne_bytes(b[0..4].try_into().unwrap()), MAGIC_NANOS);
        assert_eq!(
            u32::from_ne_bytes(b[20..24].try_into().unwrap()),
            LINKTYPE_ETHERNET
        );
        assert_eq!(
            u32::from_ne_bytes(b[24..28].try_into().unwrap()),
            1_500_000_000
        );
        assert_eq!(
            u32::from_ne_bytes(b[28..32].try_into().unwrap()),
            123_456_789
        );
        assert_eq!(u32::from_ne_bytes(b[32..36].try_into().unwrap()), 10);
        assert_eq!(u32::from_ne_bytes(b[36..40].try_into().unwrap()), 60);
    }
}
