//! Error models: decide, frame by frame, whether a link direction corrupts a frame.
//!
//! Every model draws exactly one uniform number per frame from its own stream, in the order the
//! frames are transmitted (Gilbert-Elliott draws a second one for its state transition). Hence the
//! k-th frame on a link direction always sees the k-th draw: the loss pattern depends only on the
//! seed and on that direction's own frame sequence, never on what other components do.
//!
//! Models:
//! - `none`;
//! - `per`: each frame is lost with probability p;
//! - `ber`: bits flip independently with probability BER, so a frame of L bytes exposed to errors
//!   is lost with PER = 1 - (1 - BER)^(8 L). Computed as `-expm1(8 L ln1p(-BER))` for accuracy
//!   at tiny BER;
//! - `gilbert-elliott`: a two-state Markov chain (good, bad), each state with its own BER or PER;
//!   the state moves after each frame with probabilities p_gb (good -> bad) and p_bg (bad -> good);
//! - `list`: deterministic drops, of given frame indices (0-based, counting frames transmitted on
//!   this direction), or of the frame carrying a TCP segment with a given sequence number on its
//!   k-th transmission (k = 1 for the first).

use crate::engine::rng::{uniform, Rng};

/// The loss law of one state (or of the whole channel for `per`/`ber`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Law {
    Per(f64),
    Ber(f64),
}

impl Law {
    /// Probability that a frame of `bytes` exposed bytes is lost.
    #[inline]
    pub fn frame_loss_probability(self, bytes: u32) -> f64 {
        match self {
            Law::Per(p) => p,
            Law::Ber(b) => ber_to_per(b, bytes),
        }
    }
}

/// PER = 1 - (1 - BER)^(8 L), for L bytes.
#[inline]
pub fn ber_to_per(ber: f64, bytes: u32) -> f64 {
    if ber <= 0.0 {
        return 0.0;
    }
    if ber >= 1.0 {
        return 1.0;
    }
    -((8.0 * bytes as f64) * (-ber).ln_1p()).exp_m1()
}

/// Configuration of an error model (already validated).
#[derive(Clone, Debug, PartialEq)]
pub enum ErrorModelConfig {
    None,
    Law(Law),
    GilbertElliott {
        good: Law,
        bad: Law,
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        start_bad: bool,
    },
    List {
        /// Frame indices to drop, sorted ascending.
        frames: Vec<u64>,
        /// (TCP sequence number, transmission number starting at 1).
        segments: Vec<(u64, u32)>,
    },
}

/// What the error model needs to know about a frame.
#[derive(Clone, Copy, Debug)]
pub struct FrameInfo {
    /// Bytes exposed to bit errors (link header + packet + trailer; not preamble or gap).
    pub exposed_bytes: u32,
    /// For a TCP segment carrying data or SYN/FIN: (sequence number, transmission count).
    pub tcp: Option<(u64, u32)>,
}

/// A running error model for one link direction (`repr(C)`: the frame count, which every
/// frame a lossy model decides updates, first). A lossless model's memory is not touched per
/// frame (`pass_lossless`).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct ErrorModel {
    frame_index: u64,
    /// The model can never corrupt a frame (`none`, or a PER or BER of 0): its draws decide
    /// nothing, so none is taken (the stream serves this model alone).
    lossless: bool,
    bad: bool,
    list_pos: usize,
    /// One-entry cache of (law, bytes) -> probability: data frames of one size dominate.
    cache: Option<(Law, u32, f64)>,
    rng: Rng,
    cfg: ErrorModelConfig,
}

impl ErrorModel {
    pub fn new(cfg: ErrorModelConfig, rng: Rng) -> Self {
        let bad = matches!(
            cfg,
            ErrorModelConfig::GilbertElliott {
                start_bad: true,
                ..
            }
        );
        let lossless = match cfg {
            ErrorModelConfig::None => true,
            ErrorModelConfig::Law(Law::Per(p) | Law::Ber(p)) => p <= 0.0,
            _ => false,
        };
        ErrorModel {
            cfg,
            lossless,
            rng,
            frame_index: 0,
            list_pos: 0,
            bad,
            cache: None,
        }
    }

    pub fn config(&self) -> &ErrorModelConfig {
        &self.cfg
    }

    /// Index the next frame will get: the frames decided so far. A lossless model decides
    /// nothing and counts none (the link counts its frames), so that passing a frame over a
    /// lossless link touches none of the model's memory.
    pub fn frames_seen(&self) -> u64 {
        self.frame_index
    }

    /// Whether the Gilbert-Elliott chain is in its bad state (false for other models).
    pub fn in_bad_state(&self) -> bool {
        self.bad
    }

    /// The frame's loss probability under `law`; `bytes` (its exposed bytes) is asked for
    /// only if the law depends on the size (not a PER).
    #[inline]
    fn prob(&mut self, law: Law, bytes: impl FnOnce() -> u32) -> f64 {
        if let Law::Per(p) = law {
            return p;
        }
        let bytes = bytes();
        match self.cache {
            Some((l, b, p)) if l == law && b == bytes => p,
            _ => {
                let p = law.frame_loss_probability(bytes);
                self.cache = Some((law, bytes, p));
                p
            }
        }
    }

    /// Whether the model can never corrupt a frame.
    pub fn is_lossless(&self) -> bool {
        self.lossless
    }

    /// `corrupts_frame` on a model known to be lossless: the frame is never corrupted, and not
    /// counted (with 1,000 flows, the count's cache line was one more miss per frame: 5.1 M ->
    /// 4.7 M simulated last-level misses over a 1,000-pair dumbbell).
    #[inline]
    pub fn pass_lossless(&self) {
        debug_assert!(self.lossless);
    }

    /// As [`ErrorModel::corrupts`], describing the frame only if the model needs it: it may
    /// corrupt frames and its decision depends on their size or identity (not a PER).
    #[inline(always)]
    pub fn corrupts_frame(&mut self, frame: impl FnOnce() -> FrameInfo) -> bool {
        if self.lossless {
            return false;
        }
        if let ErrorModelConfig::Law(Law::Per(p)) = self.cfg {
            // The common lossy model, in line: `decide`'s draw and comparison for it.
            self.frame_index += 1;
            return uniform(&mut self.rng) < p;
        }
        if let ErrorModelConfig::List { frames, segments } = &self.cfg {
            if segments.is_empty() {
                // A list of frames only (ns-2's loss lists), in line: the frame need not be
                // described.
                let idx = self.frame_index;
                self.frame_index += 1;
                return listed(frames, &mut self.list_pos, idx);
            }
        }
        self.decide(frame)
    }

    /// Decide the fate of the next frame. Returns true if it is corrupted (lost).
    #[inline]
    pub fn corrupts(&mut self, frame: &FrameInfo) -> bool {
        self.corrupts_frame(|| *frame)
    }

    /// `corrupts`, with the frame described by `frame` when (if) the decision needs it.
    #[inline]
    fn decide(&mut self, frame: impl FnOnce() -> FrameInfo) -> bool {
        let idx = self.frame_index;
        self.frame_index += 1;
        match &self.cfg {
            ErrorModelConfig::None => false,
            ErrorModelConfig::Law(law) => {
                let law = *law;
                let u = uniform(&mut self.rng);
                u < self.prob(law, || frame().exposed_bytes)
            }
            ErrorModelConfig::GilbertElliott {
                good,
                bad,
                p_good_to_bad,
                p_bad_to_good,
                ..
            } => {
                let (law, pgb, pbg) = (
                    if self.bad { *bad } else { *good },
                    *p_good_to_bad,
                    *p_bad_to_good,
                );
                let u = uniform(&mut self.rng);
                let lost = u < self.prob(law, || frame().exposed_bytes);
                let v = uniform(&mut self.rng);
                self.bad = if self.bad { v >= pbg } else { v < pgb };
                lost
            }
            ErrorModelConfig::List { frames, segments } => {
                // (a list of frames only is decided in `corrupts_frame`)
                if listed(frames, &mut self.list_pos, idx) {
                    return true;
                }
                match frame().tcp {
                    Some(seg) => segments.contains(&seg),
                    None => false,
                }
            }
        }
    }
}

/// Whether frame `idx` is in the sorted list `frames`, `pos` being where the previous frame's
/// search ended (frame indices only grow).
#[inline(always)]
fn listed(frames: &[u64], pos: &mut usize, idx: u64) -> bool {
    while frames.get(*pos).is_some_and(|&f| f < idx) {
        *pos += 1;
    }
    frames.get(*pos) == Some(&idx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::stream;

    fn frame(bytes: u32) -> FrameInfo {
        FrameInfo {
            exposed_bytes: bytes,
            tcp: None,
        }
    }

    #[test]
    fn ber_to_per_matches_closed_form() {
        // 1500-byte frame at BER 1e-6: 1 - (1 - 1e-6)^12000.
        let exact = 1.0 - (1.0f64 - 1e-6).powi(12000);
        assert!((ber_to_per(1e-6, 1500) - exact).abs() < 1e-12);
        assert_eq!(ber_to_per(0.0, 1500), 0.0);
        assert_eq!(ber_to_per(1.0, 1), 1.0);
        // Tiny BER: PER ~ 8 L BER.
        assert!((ber_to_per(1e-12, 1000) / 8e-9 - 1.0).abs() < 1e-6);
    }

    #[test]
    fn per_loss_rate_is_within_three_sigma() {
        let mut m = ErrorModel::new(ErrorModelConfig::Law(Law::Per(0.1)), stream(1, "t"));
        let n = 100_000;
        let lost = (0..n).filter(|_| m.corrupts(&frame(1500))).count() as f64;
        let sigma = (n as f64 * 0.1 * 0.9).sqrt();
        assert!((lost - 10_000.0).abs() < 3.0 * sigma, "lost {lost}");
    }

    #[test]
    fn ber_loss_depends_on_frame_length() {
        let mut m = ErrorModel::new(ErrorModelConfig::Law(Law::Ber(1e-5)), stream(2, "t"));
        let n = 200_000;
        let short = (0..n).filter(|_| m.corrupts(&frame(128))).count() as f64 / n as f64;
        let long = (0..n).filter(|_| m.corrupts(&frame(1428))).count() as f64 / n as f64;
        let (ps, pl) = (ber_to_per(1e-5, 128), ber_to_per(1e-5, 1428));
        assert!((short - ps).abs() < 4.0 * (ps * (1.0 - ps) / n as f64).sqrt());
        assert!((long - pl).abs() < 4.0 * (pl * (1.0 - pl) / n as f64).sqrt());
    }

    #[test]
    fn same_stream_gives_same_pattern_whatever_the_frame_sizes() {
        // A PER channel's pattern depends only on the frame sequence index.
        let cfg = ErrorModelConfig::Law(Law::Per(0.3));
        let mut a = ErrorModel::new(cfg.clone(), stream(9, "l"));
        let mut b = ErrorModel::new(cfg, stream(9, "l"));
        let pa: Vec<bool> = (0..1000).map(|_| a.corrupts(&frame(1500))).collect();
        let pb: Vec<bool> = (0..1000)
            .map(|i| b.corrupts(&frame(40 + i % 1400)))
            .collect();
        assert_eq!(pa, pb);
    }

    #[test]
    fn list_drops_exact_frames_and_segments() {
        let cfg = ErrorModelConfig::List {
            frames: vec![1, 3],
            segments: vec![(1461, 2)],
        };
        let mut m = ErrorModel::new(cfg, stream(0, "l"));
        let seg = |s, k| FrameInfo {
            exposed_bytes: 100,
            tcp: Some((s, k)),
        };
        assert!(!m.corrupts(&seg(1, 1))); // frame 0
        assert!(m.corrupts(&seg(1461, 1))); // frame 1, listed by index
        assert!(!m.corrupts(&seg(2921, 1))); // frame 2
        assert!(m.corrupts(&seg(4381, 1))); // frame 3
        assert!(m.corrupts(&seg(1461, 2))); // second transmission of 1461
        assert!(!m.corrupts(&seg(1461, 3)));
    }

    #[test]
    fn a_list_of_frames_drops_exactly_those_frames_and_never_reads_one() {
        // ns-2's loss lists: frame indices only. The frame is never described (the closure
        // would panic), and the frames lost are exactly the listed ones, also when listed
        // frames come in a row, and none after the list's end.
        let cfg = ErrorModelConfig::List {
            frames: vec![0, 3, 4, 9],
            segments: vec![],
        };
        let mut m = ErrorModel::new(cfg, stream(0, "l"));
        let lost: Vec<u64> = (0..20u64)
            .filter(|_| m.corrupts_frame(|| unreachable!("a frame-only list reads no frame")))
            .collect();
        assert_eq!(lost, vec![0, 3, 4, 9]);
        let mut empty = ErrorModel::new(
            ErrorModelConfig::List {
                frames: vec![],
                segments: vec![],
            },
            stream(0, "l"),
        );
        assert!((0..5).all(|_| !empty.corrupts_frame(|| unreachable!())));
    }

    #[test]
    fn gilbert_elliott_mean_loss_follows_stationary_distribution() {
        // Good state lossless, bad state PER 0.5; stationary P(bad) = pgb / (pgb + pbg) = 0.2.
        let cfg = ErrorModelConfig::GilbertElliott {
            good: Law::Per(0.0),
            bad: Law::Per(0.5),
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.04,
            start_bad: false,
        };
        let mut m = ErrorModel::new(cfg, stream(3, "ge"));
        let n = 400_000;
        let lost = (0..n).filter(|_| m.corrupts(&frame(1000))).count() as f64 / n as f64;
        assert!((lost - 0.1).abs() < 0.01, "loss {lost}");
    }
}
