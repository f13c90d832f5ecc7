//! How long a codec takes to compress and decompress a tensor, and how
//! small it makes it, learned from timings taken on the device.
//!
//! One least-squares fit (`linfa-linear`) per codec, element type and band
//! of sparsity, on two features: the tensor's bytes and its zero bytes
//! (bytes times the fraction of zero elements). ZVC writes one word per
//! non-zero value and a bit per value, so its time and its output are close
//! to linear in both; the run-length and dictionary codecs are linear only
//! within a band of sparsity, hence the bands. Rows are weighted by the
//! inverse of their target, so the fit minimises the relative error: sizes
//! span three orders of magnitude (1 MB to 2 GB), and an absolute fit would
//! serve the largest tensors and miss the small ones' launch overhead.

use std::fmt;
use std::path::Path;

use linfa::traits::Fit;
use linfa::DatasetBase;
use linfa_linear::LinearRegression;
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

use crate::json::{load_json, save_json};

/// A lossless codec of burn-swap's GPU kernels (`cube_kernels`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Codec {
    /// Zero-value compression: a bit mask and the non-zero values.
    Zvc,
    /// Run-length encoding of zero runs.
    Rle,
    /// Compressed sparse row: indices and values of the non-zeros.
    Csr,
    /// LZ4 block compression.
    Lz4,
}

impl Codec {
    /// Every codec.
    pub const ALL: [Codec; 4] = [Codec::Zvc, Codec::Rle, Codec::Csr, Codec::Lz4];

    /// Its short name, as in policies' names and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Zvc => "zvc",
            Codec::Rle => "rle",
            Codec::Csr => "csr",
            Codec::Lz4 => "lz4",
        }
    }

    /// The codec called `name`.
    pub fn by_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name.trim())
    }

    /// The device buffer the compressor writes `bytes` of `dtype` (as
    /// profiles name it) into: the codec's worst case, nothing compressed,
    /// with its header and index. The kernels allocate it before they know
    /// the size, so the device holds this much while a compressed copy
    /// leaves; it mirrors `cube_kernels::format::max_compressed_words`.
    pub fn capacity_bytes(self, dtype: &str, bytes: u64) -> u64 {
        const HEADER_WORDS: u64 = 8;
        const CHUNK: u64 = 2048;
        const GROUP: u64 = 32;
        // The kernels see 16-bit types two to a word and anything else as
        // 32-bit words.
        let half = dtype.eq_ignore_ascii_case("F16") || dtype.eq_ignore_ascii_case("BF16");
        let (elem, per_word) = if half { (2, 2) } else { (4, 1) };
        let len = bytes / elem;
        let chunks = len.div_ceil(CHUNK);
        let masks = if self == Codec::Zvc {
            len.div_ceil(GROUP)
        } else {
            0
        };
        let index = HEADER_WORDS + masks + chunks + 1;
        let payload = match self {
            Codec::Zvc => len.div_ceil(per_word) + chunks,
            Codec::Csr | Codec::Rle => (len + chunks) / per_word + (len + chunks) / 2 + chunks,
            Codec::Lz4 => chunks * (2 + CHUNK * elem / 255 + CHUNK * elem).div_ceil(4),
        };
        (index + payload) * 4
    }
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One timed round trip of a codec over one tensor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodecSample {
    /// The codec.
    pub codec: Codec,
    /// Element type, as profiles name it (`F32`, `F16`, `BF16`).
    pub dtype: String,
    /// Uncompressed bytes.
    pub bytes: u64,
    /// Fraction of the elements that are zero.
    pub zero_fraction: f64,
    /// Time to compress on the device.
    pub compress_ns: f64,
    /// Time to decompress on the device.
    pub decompress_ns: f64,
    /// Bytes of the compressed buffer (what crosses the link).
    pub compressed_bytes: u64,
}

/// What one codec is predicted to cost on one tensor.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CodecCost {
    /// Time to compress on the device.
    pub compress_ns: f64,
    /// Time to decompress on the device.
    pub decompress_ns: f64,
    /// Bytes that cross the link each way.
    pub compressed_bytes: u64,
}

/// Upper edges of the sparsity bands, each with a fit of its own.
const BANDS: [f64; 4] = [0.25, 0.5, 0.75, f64::INFINITY];

/// A band's fit needs this many samples; with fewer it uses the codec's
/// fit over all bands.
const MIN_BAND_SAMPLES: usize = 6;

fn band_of(zero_fraction: f64) -> usize {
    BANDS
        .iter()
        .position(|&edge| zero_fraction < edge)
        .unwrap_or(BANDS.len() - 1)
}

/// `intercept + per_byte * bytes + per_zero_byte * zero bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Linear {
    /// Fixed part (launches, headers).
    pub intercept: f64,
    /// Per byte of the tensor.
    pub per_byte: f64,
    /// Per zero byte of the tensor.
    pub per_zero_byte: f64,
}

impl Linear {
    fn at(&self, bytes: f64, zero_fraction: f64) -> f64 {
        self.intercept + self.per_byte * bytes + self.per_zero_byte * bytes * zero_fraction
    }

    /// The least-squares fit of `target` on `samples` in relative error.
    fn fit(
        samples: &[&CodecSample],
        target: impl Fn(&CodecSample) -> f64,
    ) -> Result<Self, FitError> {
        // Samples of one sparsity (a band that saw one) cannot tell the
        // zero bytes' term from the others': it is left out (zero).
        let (lo, hi) = samples.iter().fold((f64::MAX, f64::MIN), |(lo, hi), s| {
            (lo.min(s.zero_fraction), hi.max(s.zero_fraction))
        });
        let columns = if hi - lo > 1e-9 { 3 } else { 2 };
        let mut records = Array2::<f64>::zeros((samples.len(), columns));
        let ones = Array1::<f64>::ones(samples.len());
        for (row, s) in samples.iter().enumerate() {
            let y = target(s).max(1.0);
            let bytes = s.bytes as f64;
            records[[row, 0]] = 1.0 / y;
            records[[row, 1]] = bytes / y;
            if columns == 3 {
                records[[row, 2]] = bytes * s.zero_fraction / y;
            }
        }
        let fitted = LinearRegression::new()
            .with_intercept(false)
            .fit(&DatasetBase::new(records, ones))
            .map_err(|err| FitError::Solver(err.to_string()))?;
        let p = fitted.params();
        let p = [p[0], p[1], if columns == 3 { p[2] } else { 0.0 }];
        Ok(Self {
            intercept: p[0],
            per_byte: p[1],
            per_zero_byte: p[2],
        })
    }
}

/// The three fits of one codec, element type and sparsity band.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BandFit {
    /// Compression time (ns).
    pub compress: Linear,
    /// Decompression time (ns).
    pub decompress: Linear,
    /// Compressed bytes.
    pub compressed: Linear,
    /// Samples it was fitted on.
    pub samples: usize,
}

impl BandFit {
    fn fit(samples: &[&CodecSample]) -> Result<Self, FitError> {
        Ok(Self {
            compress: Linear::fit(samples, |s| s.compress_ns)?,
            decompress: Linear::fit(samples, |s| s.decompress_ns)?,
            compressed: Linear::fit(samples, |s| s.compressed_bytes as f64)?,
            samples: samples.len(),
        })
    }

    fn predict(&self, bytes: u64, zero_fraction: f64) -> CodecCost {
        let b = bytes as f64;
        CodecCost {
            compress_ns: self.compress.at(b, zero_fraction).max(0.0),
            decompress_ns: self.decompress.at(b, zero_fraction).max(0.0),
            compressed_bytes: self.compressed.at(b, zero_fraction).max(0.0).round() as u64,
        }
    }
}

/// The fits of one codec and element type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodecFit {
    /// The codec.
    pub codec: Codec,
    /// Element type.
    pub dtype: String,
    /// Over all its samples: for bands with too few samples of their own.
    pub all: BandFit,
    /// Per sparsity band (`[0, 0.25)`, `[0.25, 0.5)`, `[0.5, 0.75)`,
    /// `[0.75, 1]`), where the band had enough samples.
    pub bands: Vec<Option<BandFit>>,
}

/// Why a time model could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// A codec and element type had too few samples for a fit.
    #[error("{codec} on {dtype}: {have} samples, a fit needs at least {need}")]
    TooFewSamples {
        /// The codec.
        codec: Codec,
        /// Element type.
        dtype: String,
        /// Samples given.
        have: usize,
        /// Samples needed.
        need: usize,
    },
    /// The least-squares solver failed.
    #[error("least squares failed: {0}")]
    Solver(String),
}

/// Predicted (de)compression time and compressed size per codec and element
/// type on one device, for one version of the kernels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodecTimeModel {
    /// The device it was measured on (as the kernels' tuner names it).
    pub device: String,
    /// The kernels' version it was measured with.
    pub kernels_version: String,
    /// One per codec and element type measured.
    pub fits: Vec<CodecFit>,
}

impl CodecTimeModel {
    /// Fits a model to `samples` taken on `device` with kernels of
    /// `kernels_version`.
    pub fn fit(
        device: impl Into<String>,
        kernels_version: impl Into<String>,
        samples: &[CodecSample],
    ) -> Result<Self, FitError> {
        let mut groups: Vec<(Codec, String)> = samples
            .iter()
            .map(|s| (s.codec, s.dtype.to_uppercase()))
            .collect();
        groups.sort();
        groups.dedup();
        let mut fits = Vec::with_capacity(groups.len());
        for (codec, dtype) in groups {
            let of_group: Vec<&CodecSample> = samples
                .iter()
                .filter(|s| s.codec == codec && s.dtype.eq_ignore_ascii_case(&dtype))
                .collect();
            if of_group.len() < MIN_BAND_SAMPLES {
                return Err(FitError::TooFewSamples {
                    codec,
                    dtype,
                    have: of_group.len(),
                    need: MIN_BAND_SAMPLES,
                });
            }
            let all = BandFit::fit(&of_group)?;
            let mut bands = Vec::with_capacity(BANDS.len());
            for band in 0..BANDS.len() {
                let in_band: Vec<&CodecSample> = of_group
                    .iter()
                    .copied()
                    .filter(|s| band_of(s.zero_fraction) == band)
                    .collect();
                // A band that saw one sparsity cannot say how its costs
                // change with sparsity: the fit over all samples serves it.
                let sparsities = in_band
                    .iter()
                    .map(|s| s.zero_fraction.to_bits())
                    .collect::<std::collections::BTreeSet<_>>()
                    .len();
                bands.push(if in_band.len() >= MIN_BAND_SAMPLES && sparsities > 1 {
                    Some(BandFit::fit(&in_band)?)
                } else {
                    None
                });
            }
            fits.push(CodecFit {
                codec,
                dtype,
                all,
                bands,
            });
        }
        Ok(Self {
            device: device.into(),
            kernels_version: kernels_version.into(),
            fits,
        })
    }

    /// Whether it was measured on `device` with kernels of `kernels_version`
    /// (a model for another device or kernels must be measured again).
    pub fn is_for(&self, device: &str, kernels_version: &str) -> bool {
        self.device == device && self.kernels_version == kernels_version
    }

    /// What `codec` costs on a tensor of `bytes` of `dtype` with
    /// `zero_fraction` of its elements zero, if the model covers them.
    pub fn predict(
        &self,
        codec: Codec,
        dtype: &str,
        bytes: u64,
        zero_fraction: f64,
    ) -> Option<CodecCost> {
        let fit = self
            .fits
            .iter()
            .find(|f| f.codec == codec && f.dtype.eq_ignore_ascii_case(dtype))?;
        let band = fit.bands[band_of(zero_fraction)]
            .as_ref()
            .unwrap_or(&fit.all);
        Some(band.predict(bytes, zero_fraction))
    }

    /// The model's relative absolute error on `held_out` samples (not used
    /// to fit it), per codec and element type.
    pub fn error_on(&self, held_out: &[CodecSample]) -> Vec<ModelError> {
        let mut rows: Vec<ModelError> = Vec::new();
        for s in held_out {
            let Some(p) = self.predict(s.codec, &s.dtype, s.bytes, s.zero_fraction) else {
                continue;
            };
            let dtype = s.dtype.to_uppercase();
            let row = match rows
                .iter_mut()
                .position(|r| r.codec == s.codec && r.dtype == dtype)
            {
                Some(i) => &mut rows[i],
                None => {
                    rows.push(ModelError::new(s.codec, dtype));
                    rows.last_mut().expect("just pushed")
                }
            };
            row.add(
                relative(p.compress_ns, s.compress_ns),
                relative(p.decompress_ns, s.decompress_ns),
                relative(p.compressed_bytes as f64, s.compressed_bytes as f64),
            );
        }
        rows
    }

    /// Reads a model written by [`Self::save`].
    pub fn load(path: impl AsRef<Path>) -> std::io::Result<Self> {
        load_json(path.as_ref())
    }

    /// Writes the model as JSON.
    pub fn save(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        save_json(path.as_ref(), self)
    }
}

fn relative(predicted: f64, measured: f64) -> f64 {
    (predicted - measured).abs() / measured.abs().max(1.0)
}

/// Relative absolute error of a time model on held-out samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelError {
    /// The codec.
    pub codec: Codec,
    /// Element type.
    pub dtype: String,
    /// Held-out samples.
    pub samples: usize,
    /// Mean relative error of the compression time.
    pub compress_mean: f64,
    /// Largest relative error of the compression time.
    pub compress_max: f64,
    /// Mean relative error of the decompression time.
    pub decompress_mean: f64,
    /// Largest relative error of the decompression time.
    pub decompress_max: f64,
    /// Mean relative error of the compressed size.
    pub size_mean: f64,
    /// Largest relative error of the compressed size.
    pub size_max: f64,
}

impl ModelError {
    fn new(codec: Codec, dtype: String) -> Self {
        Self {
            codec,
            dtype,
            samples: 0,
            compress_mean: 0.0,
            compress_max: 0.0,
            decompress_mean: 0.0,
            decompress_max: 0.0,
            size_mean: 0.0,
            size_max: 0.0,
        }
    }

    fn add(&mut self, compress: f64, decompress: f64, size: f64) {
        let n = self.samples as f64;
        let mean = |old: f64, x: f64| (old * n + x) / (n + 1.0);
        self.compress_mean = mean(self.compress_mean, compress);
        self.decompress_mean = mean(self.decompress_mean, decompress);
        self.size_mean = mean(self.size_mean, size);
        self.compress_max = self.compress_max.max(compress);
        self.decompress_max = self.decompress_max.max(decompress);
        self.size_max = self.size_max.max(size);
        self.samples += 1;
    }
}
