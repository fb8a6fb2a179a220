//! The forwarder's configuration: a JSON file, parsed with serde and then validated into the
//! runtime types (`LinkParams`, `tcplab_sim::net::loss::ErrorModelConfig`). Every validation error
//! names the field, the value and what is allowed.
//!
//! ```json
//! {
//!   "iface_a": "tlb1a2b3cra", "iface_b": "tlb1a2b3crb", "seed": 1,
//!   "links": {
//!     "a_to_b": {"rate_bps": 10000000, "delay_ns": 20000000, "framing": "ethernet",
//!                "queue": {"limit": 100, "unit": "packets"},
//!                "error": {"model": "per", "p": 0.01}, "stream": "link:testbed:a_to_b"},
//!     "b_to_a": {"error": {"model": "ber", "ber": 1e-6}}
//!   },
//!   "rwnd_clamp_bytes": 8760,
//!   "pcap": {"path": "/tmp/x.pcap", "snaplen": 65535}
//! }
//! ```

use std::path::PathBuf;

use serde::Deserialize;
use tcplab_sim::net::loss::{ErrorModelConfig, Law};

use crate::link::{Framing, LinkParams, QueueLimit};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config is not valid JSON for the forwarder schema: {0}")]
    Parse(#[from] serde_json::Error),
    #[error("config field `{field}` = {value}: {allowed}")]
    Invalid {
        field: String,
        value: String,
        allowed: String,
    },
}

fn invalid(field: impl Into<String>, value: impl ToString, allowed: &str) -> ConfigError {
    ConfigError::Invalid {
        field: field.into(),
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}

/// The file as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Interface facing side A (the client in tcplab's testbed).
    pub iface_a: String,
    /// Interface facing side B (the server).
    pub iface_b: String,
    /// Root seed; each direction's error model draws from `rng::stream(seed, stream id)`.
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub links: LinksFile,
    /// Clamp the TCP receive window advertised in every forwarded segment to this many bytes.
    #[serde(default)]
    pub rwnd_clamp_bytes: Option<u32>,
    #[serde(default)]
    pub pcap: Option<PcapFile>,
    /// At most this many drop events are kept in the log (the counters stay exact).
    #[serde(default = "default_drop_log_limit")]
    pub drop_log_limit: usize,
    /// Spin (instead of sleeping) for the last this-many nanoseconds before a deadline;
    /// null = adaptive (from the observed timer overshoot).
    #[serde(default)]
    pub busy_poll_ns: Option<u64>,
    /// Frames per recvmmsg/sendmmsg call.
    #[serde(default = "default_batch")]
    pub batch: usize,
    /// SO_RCVBUFFORCE/SO_SNDBUFFORCE of the packet sockets.
    #[serde(default = "default_socket_buffer")]
    pub socket_buffer_bytes: usize,
    /// Largest frame accepted (bigger ones are counted as oversize and dropped).
    #[serde(default = "default_frame_buffer")]
    pub frame_buffer_bytes: usize,
    /// Pin the forwarder to this CPU.
    #[serde(default)]
    pub cpu: Option<usize>,
    /// Run under SCHED_FIFO at this priority (1..=99), so the endpoints' CPU use on a small
    /// machine cannot delay departures by a scheduler slice (milliseconds). The spin before a
    /// deadline is bounded, and the kernel's RT throttling keeps the CPU shared.
    #[serde(default)]
    pub realtime_priority: Option<i32>,
}

fn default_drop_log_limit() -> usize {
    1_000_000
}
fn default_batch() -> usize {
    32
}
fn default_socket_buffer() -> usize {
    8 << 20
}
fn default_frame_buffer() -> usize {
    2048
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinksFile {
    #[serde(default)]
    pub a_to_b: LinkFile,
    #[serde(default)]
    pub b_to_a: LinkFile,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkFile {
    /// Bits per second; 0 = unlimited (no serialisation time, no queue).
    #[serde(default)]
    pub rate_bps: f64,
    /// One-way propagation delay in nanoseconds.
    #[serde(default)]
    pub delay_ns: u64,
    #[serde(default = "default_framing")]
    pub framing: FramingName,
    #[serde(default)]
    pub queue: QueueFile,
    #[serde(default)]
    pub error: ErrorFile,
    /// Id of this direction's random stream (default `netem:a_to_b` / `netem:b_to_a`).
    #[serde(default)]
    pub stream: Option<String>,
}

fn default_framing() -> FramingName {
    FramingName::Ethernet
}

/// `"ethernet"`, `"ppp"` or `"none"`: the simulator's `Framing`, by name.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FramingName {
    Ethernet,
    Ppp,
    None,
}

impl From<FramingName> for Framing {
    fn from(f: FramingName) -> Framing {
        match f {
            FramingName::Ethernet => Framing::Ethernet,
            FramingName::Ppp => Framing::Ppp,
            FramingName::None => Framing::None,
        }
    }
}

impl Default for LinkFile {
    fn default() -> Self {
        LinkFile {
            rate_bps: 0.0,
            delay_ns: 0,
            framing: FramingName::Ethernet,
            queue: QueueFile::default(),
            error: ErrorFile::None,
            stream: None,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum QueueUnit {
    Packets,
    Bytes,
}

/// Drop-tail queue: `limit` frames (or wire bytes, framing included) may wait behind the one being transmitted;
/// `limit: null` = unlimited.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueFile {
    #[serde(default = "default_queue_limit")]
    pub limit: Option<u64>,
    #[serde(default = "default_queue_unit")]
    pub unit: QueueUnit,
}

fn default_queue_limit() -> Option<u64> {
    Some(1000)
}
fn default_queue_unit() -> QueueUnit {
    QueueUnit::Packets
}

impl Default for QueueFile {
    fn default() -> Self {
        QueueFile {
            limit: default_queue_limit(),
            unit: QueueUnit::Packets,
        }
    }
}

/// One state's loss law: `{"per": 0.01}` or `{"ber": 1e-6}`.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum LawFile {
    Per(f64),
    Ber(f64),
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ErrorFile {
    #[default]
    None,
    Per {
        p: f64,
    },
    Ber {
        ber: f64,
    },
    GilbertElliott {
        good: LawFile,
        bad: LawFile,
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        #[serde(default)]
        start_bad: bool,
    },
    List {
        #[serde(default)]
        frames: Vec<u64>,
        /// `[[relative TCP sequence number, transmission number (1 = first)], ...]`
        #[serde(default)]
        segments: Vec<(u64, u32)>,
    },
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcapFile {
    pub path: PathBuf,
    #[serde(default = "default_snaplen")]
    pub snaplen: u32,
}

fn default_snaplen() -> u32 {
    65535
}

/// One validated direction.
#[derive(Clone, Debug)]
pub struct DirectionConfig {
    pub params: LinkParams,
    pub error: ErrorModelConfig,
    pub stream: String,
}

/// The validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub iface_a: String,
    pub iface_b: String,
    pub seed: u64,
    pub dirs: [DirectionConfig; 2],
    pub rwnd_clamp_bytes: Option<u32>,
    pub pcap: Option<PcapFile>,
    pub drop_log_limit: usize,
    pub busy_poll_ns: Option<u64>,
    pub batch: usize,
    pub socket_buffer_bytes: usize,
    pub frame_buffer_bytes: usize,
    pub cpu: Option<usize>,
    pub realtime_priority: Option<i32>,
}

/// Names of the two directions, in index order (0 = A to B, 1 = B to A).
pub const DIR_NAMES: [&str; 2] = ["a_to_b", "b_to_a"];

fn check_probability(field: String, p: f64) -> Result<f64, ConfigError> {
    if p.is_finite() && (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(invalid(field, p, "must be a probability in [0, 1]"))
    }
}

fn law(field: String, l: LawFile) -> Result<Law, ConfigError> {
    Ok(match l {
        LawFile::Per(p) => Law::Per(check_probability(format!("{field}.per"), p)?),
        LawFile::Ber(b) => Law::Ber(check_probability(format!("{field}.ber"), b)?),
    })
}

pub fn error_model(field: &str, e: &ErrorFile) -> Result<ErrorModelConfig, ConfigError> {
    Ok(match e {
        ErrorFile::None => ErrorModelConfig::None,
        ErrorFile::Per { p } => {
            ErrorModelConfig::Law(Law::Per(check_probability(format!("{field}.p"), *p)?))
        }
        ErrorFile::Ber { ber } => {
            ErrorModelConfig::Law(Law::Ber(check_probability(format!("{field}.ber"), *ber)?))
        }
        ErrorFile::GilbertElliott {
            good,
            bad,
            p_good_to_bad,
            p_bad_to_good,
            start_bad,
        } => ErrorModelConfig::GilbertElliott {
            good: law(format!("{field}.good"), *good)?,
            bad: law(format!("{field}.bad"), *bad)?,
            p_good_to_bad: check_probability(format!("{field}.p_good_to_bad"), *p_good_to_bad)?,
            p_bad_to_good: check_probability(format!("{field}.p_bad_to_good"), *p_bad_to_good)?,
            start_bad: *start_bad,
        },
        ErrorFile::List { frames, segments } => {
            if let Some((s, k)) = segments.iter().find(|(_, k)| *k == 0) {
                return Err(invalid(
                    format!("{field}.segments"),
                    format!("[{s}, {k}]"),
                    "transmission numbers start at 1 (1 = first transmission)",
                ));
            }
            let mut frames = frames.clone();
            frames.sort_unstable();
            frames.dedup();
            ErrorModelConfig::List {
                frames,
                segments: segments.clone(),
            }
        }
    })
}

fn direction(name: &str, l: &LinkFile) -> Result<DirectionConfig, ConfigError> {
    let f = format!("links.{name}");
    if !(l.rate_bps.is_finite() && l.rate_bps >= 0.0 && l.rate_bps <= 1e13) {
        return Err(invalid(
            format!("{f}.rate_bps"),
            l.rate_bps,
            "must be a number of bits per second in [0, 1e13] (0 = unlimited)",
        ));
    }
    if l.delay_ns > 3_600_000_000_000 {
        return Err(invalid(
            format!("{f}.delay_ns"),
            l.delay_ns,
            "must be at most one hour",
        ));
    }
    let queue = match (l.queue.limit, l.queue.unit) {
        (None, _) => QueueLimit::Unlimited,
        (Some(n), QueueUnit::Packets) => QueueLimit::Packets(n),
        (Some(n), QueueUnit::Bytes) => QueueLimit::Bytes(n),
    };
    Ok(DirectionConfig {
        params: LinkParams {
            rate_bps: l.rate_bps.round() as u64,
            delay_ns: l.delay_ns,
            framing: l.framing.into(),
            queue,
        },
        error: error_model(&format!("{f}.error"), &l.error)?,
        stream: l.stream.clone().unwrap_or_else(|| format!("netem:{name}")),
    })
}

impl ConfigFile {
    pub fn from_json(text: &str) -> Result<ConfigFile, ConfigError> {
        Ok(serde_json::from_str(text)?)
    }

    pub fn validate(self) -> Result<Config, ConfigError> {
        for (field, name) in [("iface_a", &self.iface_a), ("iface_b", &self.iface_b)] {
            // IFNAMSIZ is 16 including the terminating NUL.
            if name.is_empty() || name.len() > 15 || name.contains(['/', ' ', '\0']) {
                return Err(invalid(
                    field,
                    format!("{name:?}"),
                    "must be a Linux interface name of 1 to 15 characters",
                ));
            }
        }
        if self.iface_a == self.iface_b {
            return Err(invalid(
                "iface_b",
                format!("{:?}", self.iface_b),
                "must differ from iface_a",
            ));
        }
        if self.batch == 0 || self.batch > 1024 {
            return Err(invalid("batch", self.batch, "must be in 1..=1024"));
        }
        if self.frame_buffer_bytes < 64 || self.frame_buffer_bytes > 65536 + 18 {
            return Err(invalid(
                "frame_buffer_bytes",
                self.frame_buffer_bytes,
                "must be in 64..=65554",
            ));
        }
        if self.rwnd_clamp_bytes == Some(0) {
            return Err(invalid(
                "rwnd_clamp_bytes",
                0,
                "must be at least 1 byte (null = no clamp)",
            ));
        }
        if let Some(p) = self.realtime_priority {
            if !(1..=99).contains(&p) {
                return Err(invalid(
                    "realtime_priority",
                    p,
                    "must be a SCHED_FIFO priority in 1..=99 (null = normal scheduling)",
                ));
            }
        }
        if let Some(p) = &self.pcap {
            if p.snaplen == 0 {
                return Err(invalid("pcap.snaplen", 0, "must be at least 1"));
            }
        }
        let dirs = [
            direction(DIR_NAMES[0], &self.links.a_to_b)?,
            direction(DIR_NAMES[1], &self.links.b_to_a)?,
        ];
        Ok(Config {
            iface_a: self.iface_a,
            iface_b: self.iface_b,
            seed: self.seed,
            dirs,
            rwnd_clamp_bytes: self.rwnd_clamp_bytes,
            pcap: self.pcap,
            drop_log_limit: self.drop_log_limit,
            busy_poll_ns: self.busy_poll_ns,
            batch: self.batch,
            socket_buffer_bytes: self.socket_buffer_bytes,
            frame_buffer_bytes: self.frame_buffer_bytes,
            cpu: self.cpu,
            realtime_priority: self.realtime_priority,
        })
    }

    pub fn load(path: &std::path::Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        ConfigFile::from_json(&text)?.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Config, ConfigError> {
        ConfigFile::from_json(s)?.validate()
    }

    #[test]
    fn minimal_config_gets_defaults() {
        let c = parse(r#"{"iface_a": "a0", "iface_b": "b0"}"#).unwrap();
        assert_eq!(c.dirs[0].params.rate_bps, 0);
        assert_eq!(c.dirs[0].params.queue, QueueLimit::Packets(1000));
        assert_eq!(c.dirs[1].stream, "netem:b_to_a");
        assert_eq!(c.dirs[1].error, ErrorModelConfig::None);
    }

    #[test]
    fn every_error_model_parses() {
        let c = parse(
            r#"{"iface_a": "a0", "iface_b": "b0", "links": {
                "a_to_b": {"error": {"model": "gilbert-elliott", "good": {"per": 0.0},
                           "bad": {"ber": 1e-4}, "p_good_to_bad": 0.01, "p_bad_to_good": 0.1}},
                "b_to_a": {"error": {"model": "list", "frames": [5, 2, 2],
                           "segments": [[1461, 2]]}, "queue": {"limit": 3000, "unit": "bytes"}}}}"#,
        )
        .unwrap();
        assert!(matches!(
            c.dirs[0].error,
            ErrorModelConfig::GilbertElliott {
                bad: Law::Ber(_),
                ..
            }
        ));
        assert_eq!(
            c.dirs[1].error,
            ErrorModelConfig::List {
                frames: vec![2, 5],
                segments: vec![(1461, 2)]
            }
        );
        assert_eq!(c.dirs[1].params.queue, QueueLimit::Bytes(3000));
    }

    #[test]
    fn bad_probability_names_the_field() {
        let e = parse(
            r#"{"iface_a": "a0", "iface_b": "b0",
                "links": {"b_to_a": {"error": {"model": "per", "p": 1.5}}}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("links.b_to_a.error.p"), "{e}");
        assert!(e.contains("1.5"), "{e}");
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let e = parse(r#"{"iface_a": "a0", "iface_b": "b0", "delay": 5}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("delay"), "{e}");
        let e = parse(
            r#"{"iface_a": "a0", "iface_b": "b0",
                "links": {"a_to_b": {"error": {"model": "per", "q": 0.1}}}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains('q'), "{e}");
    }

    #[test]
    fn zeroth_transmission_is_rejected() {
        let e = parse(
            r#"{"iface_a": "a0", "iface_b": "b0",
                "links": {"a_to_b": {"error": {"model": "list", "segments": [[1, 0]]}}}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("links.a_to_b.error.segments"), "{e}");
    }
}
