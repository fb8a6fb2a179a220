//! Quantities written as people write them: "10Mbps", "20ms", "10MB", "1e-6", "1%".
//!
//! Conventions (as in ns-3 and iperf): rates and sizes use decimal SI prefixes (k = 1000,
//! M = 10^6, G = 10^9); binary prefixes are spelled KiB, MiB, GiB. "B" is bytes, "b"/"bps" bits.

use crate::engine::time::Dur;
use crate::error::{SimError, SimResult};

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '_'
                || ((c == 'e' || c == 'E')
                    && s[i + 1..]
                        .starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+'))
                || ((c == '-' || c == '+') && (i == 0 || matches!(&s[i - 1..i], "e" | "E"))))
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let num: String = s[..end].chars().filter(|&c| c != '_').collect();
    let v: f64 = num.parse().ok()?;
    Some((v, s[end..].trim()))
}

fn bad(field: &str, value: &str, allowed: &str) -> SimError {
    SimError::invalid(field, format!("{value:?}"), allowed)
}

/// A bit rate in bits per second. Accepts "10Mbps", "1.5 Mb/s", "100kbps", "1Gbps", "800bps".
pub fn parse_rate(field: &str, s: &str) -> SimResult<u64> {
    const ALLOWED: &str =
        "a positive bit rate such as \"10Mbps\", \"1.5Mbps\", \"100kbps\", \"1Gbps\"";
    let (v, unit) = split_number(s).ok_or_else(|| bad(field, s, ALLOWED))?;
    let mult = match unit {
        "bps" | "b/s" | "bit/s" => 1.0,
        "kbps" | "Kbps" | "kb/s" | "kbit/s" => 1e3,
        "Mbps" | "Mb/s" | "Mbit/s" => 1e6,
        "Gbps" | "Gb/s" | "Gbit/s" => 1e9,
        "Bps" | "B/s" => 8.0,
        "kBps" | "KBps" | "kB/s" => 8e3,
        "MBps" | "MB/s" => 8e6,
        _ => {
            // A case slip ("10 mbps") or a bare prefix ("10M"): say what was probably meant.
            let guess = match unit.to_ascii_lowercase().trim_end_matches("bps") {
                "" if !unit.is_empty() => Some("bps"),
                "k" | "kb/s" => Some("kbps"),
                "m" | "mb/s" => Some("Mbps"),
                "g" | "gb/s" => Some("Gbps"),
                _ => None,
            };
            let num = s[..s.len() - unit.len()].trim();
            return Err(match guess {
                Some(u) => SimError::invalid(
                    field,
                    format!("{s:?}"),
                    format!("{ALLOWED} (did you mean \"{num}{u}\"?)"),
                ),
                None => bad(field, s, ALLOWED),
            });
        }
    };
    let bps = v * mult;
    if !((1.0..=1e13).contains(&bps)) {
        return Err(bad(field, s, ALLOWED));
    }
    Ok(bps.round() as u64)
}

/// A duration. Accepts "20ms", "1.5s", "250us", "100ns", "2min". A bare number is refused: the
/// unit must be explicit.
pub fn parse_duration(field: &str, s: &str) -> SimResult<Dur> {
    const ALLOWED: &str =
        "a non-negative duration with a unit, such as \"20ms\", \"1.5s\", \"250us\"";
    let (v, unit) = split_number(s).ok_or_else(|| bad(field, s, ALLOWED))?;
    let mult = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" | "sec" => 1.0,
        "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(bad(field, s, ALLOWED)),
    };
    let secs = v * mult;
    if !((0.0..1e9).contains(&secs)) {
        return Err(bad(
            field,
            s,
            "a duration below 1e9 s (about 31 years), such as \"20ms\", \"1.5s\", \"2h\"",
        ));
    }
    Ok(Dur::from_secs_f64(secs))
}

/// A size in bytes. Accepts "10MB", "1460B", "64KiB", "1GB", or a bare integer (bytes).
pub fn parse_size(field: &str, s: &str) -> SimResult<u64> {
    const ALLOWED: &str = "a non-negative size up to 1PB (10^15 bytes) such as \"10MB\", \
                           \"64KiB\", \"1TB\", \"1460B\" or a whole number of bytes";
    let (v, unit) = split_number(s).ok_or_else(|| bad(field, s, ALLOWED))?;
    let mult = match unit {
        "" | "B" | "bytes" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1048576.0,
        "GiB" => 1073741824.0,
        "TB" => 1e12,
        "TiB" => 1099511627776.0,
        "PB" => 1e15,
        _ => return Err(bad(field, s, ALLOWED)),
    };
    let b = v * mult;
    if !((0.0..=1e15).contains(&b)) || b.fract() != 0.0 {
        return Err(bad(field, s, ALLOWED));
    }
    Ok(b as u64)
}

/// A probability in [0, 1]. Accepts 0.01, "1e-6", "1%".
pub fn parse_probability(field: &str, s: &str) -> SimResult<f64> {
    const ALLOWED: &str = "a probability between 0 and 1, such as 0.01, \"1e-6\" or \"1%\"";
    let (v, unit) = split_number(s).ok_or_else(|| bad(field, s, ALLOWED))?;
    let p = match unit {
        "" => v,
        "%" => v / 100.0,
        _ => return Err(bad(field, s, ALLOWED)),
    };
    check_probability(field, p)
}

pub fn check_probability(field: &str, p: f64) -> SimResult<f64> {
    if !(0.0..=1.0).contains(&p) || p.is_nan() {
        return Err(SimError::invalid(
            field,
            p,
            "a probability between 0 and 1, such as 0.01, \"1e-6\" or \"1%\"",
        ));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("r", "10Mbps").unwrap(), 10_000_000);
        assert_eq!(parse_rate("r", "1.5 Mbps").unwrap(), 1_500_000);
        assert_eq!(parse_rate("r", "100kbps").unwrap(), 100_000);
        assert!(parse_rate("r", "-10Mbps").is_err());
        assert!(parse_rate("r", "10").is_err());
        assert!(parse_rate("r", "10 parsecs").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("d", "20ms").unwrap(), Dur(20_000_000));
        assert_eq!(parse_duration("d", "1.5s").unwrap(), Dur(1_500_000_000));
        assert_eq!(parse_duration("d", "250us").unwrap(), Dur(250_000));
        assert!(parse_duration("d", "20").is_err());
        assert!(parse_duration("d", "-1s").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("s", "10MB").unwrap(), 10_000_000);
        assert_eq!(parse_size("s", "64KiB").unwrap(), 65_536);
        assert_eq!(parse_size("s", "1460").unwrap(), 1460);
        assert_eq!(parse_size("s", "1e6B").unwrap(), 1_000_000);
        assert!(parse_size("s", "1.5B").is_err());
    }

    #[test]
    fn probabilities() {
        assert_eq!(parse_probability("p", "1%").unwrap(), 0.01);
        assert_eq!(parse_probability("p", "1e-6").unwrap(), 1e-6);
        assert!(parse_probability("p", "1.5").is_err());
        let e = parse_probability("links[0].error.ber", "2").unwrap_err();
        assert!(e.to_string().contains("links[0].error.ber"), "{e}");
    }
}
