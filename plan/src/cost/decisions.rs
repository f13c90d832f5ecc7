//! How often the codecs' time model makes the choice the measured times
//! would: compress a tensor or not, and with which codec.
//!
//! Each tensor is priced alone, as CSWAP prices it before it looks at what
//! the copies hide behind: swapped as it is, its two copies (T'); compressed,
//! the compression, the two copies of the compressed bytes and the
//! decompression (T). The choice is the cheapest of T' and each codec's T.
//! The link is the same on both sides, so only the time model's error can
//! change a choice.

use serde::{Deserialize, Serialize};

use super::{Codec, CodecCost, CodecSample, CostModel, LinkModel};

/// A tensor's isolated swap time with `cost` (compressed) or as it is.
pub fn isolated_swap_ns(link: &LinkModel, bytes: u64, cost: Option<&CodecCost>) -> f64 {
    match cost {
        None => link.to_host_ns(bytes, false) + link.to_device_ns(bytes, false),
        Some(c) => {
            c.compress_ns
                + link.to_host_ns(c.compressed_bytes, false)
                + link.to_device_ns(c.compressed_bytes, false)
                + c.decompress_ns
        }
    }
}

/// The cheapest way to swap a tensor of `bytes` alone: `None` (as it is) or
/// a codec, among `options`.
pub fn isolated_choice(
    link: &LinkModel,
    bytes: u64,
    options: &[(Codec, CodecCost)],
) -> Option<Codec> {
    let plain = isolated_swap_ns(link, bytes, None);
    options
        .iter()
        .map(|(codec, cost)| (*codec, isolated_swap_ns(link, bytes, Some(cost))))
        .filter(|&(_, ns)| ns < plain)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(codec, _)| codec)
}

/// One tensor's choice, measured and predicted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Element type.
    pub dtype: String,
    /// Uncompressed bytes.
    pub bytes: u64,
    /// Fraction of zero elements.
    pub zero_fraction: f64,
    /// The cheapest by the measured times (`None`: as it is).
    pub measured: Option<Codec>,
    /// The cheapest by the time model.
    pub predicted: Option<Codec>,
    /// Measured time of the predicted choice over the measured best's
    /// (1.0 where they agree).
    pub regret: f64,
}

/// How the time model's choices compare with the measured ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionAccuracy {
    /// Per tensor.
    pub decisions: Vec<Decision>,
    /// Share whose compress-or-not choice agrees.
    pub compress_or_not: f64,
    /// Share whose choice agrees to the codec.
    pub codec: f64,
    /// Largest measured slowdown of a predicted choice against the best.
    pub worst_regret: f64,
}

/// Compares, per tensor, the choice the measured `samples` make with the one
/// `costs` predicts. `samples` holds each codec's measurement of each tensor
/// (same element type, bytes and zero fraction); a tensor the model cannot
/// price is priced as it is.
pub fn decision_accuracy(costs: &CostModel, samples: &[CodecSample]) -> Option<DecisionAccuracy> {
    let mut tensors: Vec<(&str, u64, f64)> = Vec::new();
    for s in samples {
        let key = (s.dtype.as_str(), s.bytes, s.zero_fraction);
        if !tensors.contains(&key) {
            tensors.push(key);
        }
    }
    let link = &costs.link;
    let decisions: Vec<Decision> = tensors
        .into_iter()
        .map(|(dtype, bytes, zeros)| {
            let measured: Vec<(Codec, CodecCost)> = samples
                .iter()
                .filter(|s| (s.dtype.as_str(), s.bytes, s.zero_fraction) == (dtype, bytes, zeros))
                .map(|s| {
                    let cost = CodecCost {
                        compress_ns: s.compress_ns,
                        decompress_ns: s.decompress_ns,
                        compressed_bytes: s.compressed_bytes,
                    };
                    (s.codec, cost)
                })
                .collect();
            let predicted: Vec<(Codec, CodecCost)> = measured
                .iter()
                .filter_map(|(codec, _)| {
                    Some((*codec, costs.codec_cost(*codec, dtype, bytes, zeros)?))
                })
                .collect();
            let best = isolated_choice(link, bytes, &measured);
            let chosen = isolated_choice(link, bytes, &predicted);
            let measured_ns = |choice: Option<Codec>| {
                let cost = choice.and_then(|c| measured.iter().find(|(m, _)| *m == c));
                isolated_swap_ns(link, bytes, cost.map(|(_, cost)| cost))
            };
            Decision {
                dtype: dtype.to_string(),
                bytes,
                zero_fraction: zeros,
                measured: best,
                predicted: chosen,
                regret: measured_ns(chosen) / measured_ns(best),
            }
        })
        .collect();
    if decisions.is_empty() {
        return None;
    }
    let share = |agree: &dyn Fn(&Decision) -> bool| {
        decisions.iter().filter(|d| agree(d)).count() as f64 / decisions.len() as f64
    };
    Some(DecisionAccuracy {
        compress_or_not: share(&|d| d.measured.is_some() == d.predicted.is_some()),
        codec: share(&|d| d.measured == d.predicted),
        worst_regret: decisions.iter().map(|d| d.regret).fold(1.0, f64::max),
        decisions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::CodecTimeModel;

    /// 1 GB/s each way, no latency: a byte costs 1 ns a direction.
    fn link() -> LinkModel {
        LinkModel::symmetric(1e9, 1e9, 0.0)
    }

    fn cost(compress_ns: f64, compressed_bytes: u64) -> CodecCost {
        CodecCost {
            compress_ns,
            decompress_ns: compress_ns,
            compressed_bytes,
        }
    }

    #[test]
    fn a_codec_is_chosen_only_where_it_beats_the_plain_copies() {
        // 1000 bytes as they are: 2000 ns. ZVC to 400 bytes for 2 x 300 ns:
        // 1400 ns; LZ4 to 100 bytes for 2 x 800 ns: 1800 ns.
        let options = [
            (Codec::Zvc, cost(300.0, 400)),
            (Codec::Lz4, cost(800.0, 100)),
        ];
        assert_eq!(isolated_choice(&link(), 1000, &options), Some(Codec::Zvc));
        // Kernels slower than the bytes they save: as it is.
        let slow = [(Codec::Zvc, cost(900.0, 400))];
        assert_eq!(isolated_choice(&link(), 1000, &slow), None);
        assert_eq!(isolated_choice(&link(), 1000, &[]), None);
    }

    fn sample(codec: Codec, zeros: f64, compress_ns: f64, compressed_bytes: u64) -> CodecSample {
        CodecSample {
            codec,
            dtype: "F32".into(),
            bytes: 1 << 20,
            zero_fraction: zeros,
            compress_ns,
            decompress_ns: compress_ns,
            compressed_bytes,
        }
    }

    #[test]
    fn choices_are_compared_per_tensor_with_the_measured_cost_of_a_wrong_one() {
        // One codec, two tensors of 1 MiB: half zeros (compresses to a
        // quarter in 100 us each way: pays) and no zeros (the whole size
        // back in 100 us each way: does not). The model has no codecs, so
        // it prices nothing and never compresses.
        let mib = 1u64 << 20;
        let samples = [
            sample(Codec::Zvc, 0.5, 100_000.0, mib / 4),
            sample(Codec::Zvc, 0.0, 100_000.0, mib),
        ];
        let costs = CostModel {
            link: link(),
            codecs: None,
        };
        let accuracy = decision_accuracy(&costs, &samples).expect("two tensors");
        assert_eq!(accuracy.decisions.len(), 2);
        assert_eq!(accuracy.decisions[0].measured, Some(Codec::Zvc));
        assert_eq!(accuracy.decisions[0].predicted, None);
        assert_eq!(accuracy.decisions[1].measured, None);
        assert_eq!(accuracy.decisions[1].predicted, None);
        assert_eq!(accuracy.compress_or_not, 0.5);
        assert_eq!(accuracy.codec, 0.5);
        // As it is: 2 MiB of copies; compressed: 200 us + 0.5 MiB.
        let plain = 2.0 * mib as f64;
        let best = 200_000.0 + 0.5 * mib as f64;
        assert!((accuracy.worst_regret - plain / best).abs() < 1e-9);
        assert_eq!(accuracy.decisions[1].regret, 1.0);
    }

    #[test]
    fn a_model_fitted_to_the_samples_chooses_as_they_do() {
        // Many sizes and sparsities, times linear in bytes: a fitted model
        // predicts them, so every choice agrees.
        let mut samples = Vec::new();
        for mb in [1u64, 4, 16, 64, 256] {
            for zeros in [0.0, 0.25, 0.5, 0.75, 0.9] {
                let bytes = mb << 20;
                let ns = 0.05 * bytes as f64;
                let kept = ((1.0 - zeros) * bytes as f64) as u64 + bytes / 32;
                samples.push(CodecSample {
                    bytes,
                    ..sample(Codec::Zvc, zeros, ns, kept)
                });
            }
        }
        let model = CodecTimeModel::fit("test", "1", &samples).expect("fit");
        let costs = CostModel {
            link: link(),
            codecs: Some(model),
        };
        let accuracy = decision_accuracy(&costs, &samples).expect("tensors");
        assert_eq!(accuracy.decisions.len(), 25);
        assert_eq!(accuracy.compress_or_not, 1.0, "{:?}", accuracy.decisions);
        assert!(accuracy.worst_regret < 1.01);
    }
}
