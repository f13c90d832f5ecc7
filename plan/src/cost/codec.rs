//! How long a codec takes to compress and decompress a tensor, and how
//! small it makes it, learned from timings taken on the device.
//!
//! Least squares (`linfa-linear`) per codec and element type, on terms of
//! the tensor's bytes and its fraction of zero elements:
//!
//! - Piecewise linear in bytes, the slope free to change at knots placed at
//!   the measured sizes (a factor of three or more apart). Small tensors are
//!   launch-bound (below about 16 MB every kernel takes 12-42 us whatever its
//!   size) and large ones bandwidth-bound, with a cost per byte that still
//!   drifts between 48 MB and 2 GB: one line in bytes fits neither end.
//! - Quadratic in the zero fraction within each piece: times and sizes bend
//!   with sparsity (run-length output goes as one minus its square), and
//!   differently at each size (launch-bound pieces hardly at all).
//! - Tensors without zeros get a fit of their own: on the H200, ZVC, RLE and
//!   CSR compress them 1.8 times slower than tensors with 10% zeros, and LZ4
//!   2.6-4 times faster; in the sparse fit those samples would bend the
//!   curve for every other sparsity.
//! - Sparsity bands get fits of their own only where cross-validation shows
//!   the fit over all of them misses a step in sparsity it cannot bend to.
//!
//! Rows are weighted by the inverse of their target, so the fit minimises
//! the relative error: sizes span three orders of magnitude (1 MB to 2 GB),
//! and an absolute fit would serve the largest tensors and miss the small
//! ones' launch overhead.

use std::fmt;
use std::path::Path;

use linfa::traits::Fit;
use linfa::DatasetBase;
use linfa_linear::LinearRegression;
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

use crate::json::{load_json, save_json};

/// The most elements the codecs' format takes in one copy (its element
/// counts have 30 bits, less one chunk group's room for the look-back's
/// rounding); `cube_kernels` refuses more and checks it agrees.
pub const MAX_CODEC_ELEMENTS: u64 = (1 << 30) - (1 << 19);

/// The element size the kernels see for `dtype`: 16-bit types two to a
/// word, anything else as 32-bit words.
fn kernel_element_bytes(dtype: &str) -> u64 {
    if dtype.eq_ignore_ascii_case("F16") || dtype.eq_ignore_ascii_case("BF16") {
        2
    } else {
        4
    }
}

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
    /// A bit per element and the one non-zero bit pattern: for tensors
    /// whose elements are all zero or one same value (burn-nn's dropout
    /// masks, f32 zeros and ones), a 32nd of their f32 bytes. Any other
    /// tensor is stored as it is, so it is offered only for tensors the
    /// profile saw hold two values ([`TensorProfile::two_valued`](crate::profile::TensorProfile::two_valued)).
    Bitmap,
}

impl Codec {
    /// Every codec.
    pub const ALL: [Codec; 5] = [
        Codec::Zvc,
        Codec::Rle,
        Codec::Csr,
        Codec::Lz4,
        Codec::Bitmap,
    ];

    /// Its short name, as in policies' names and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Zvc => "zvc",
            Codec::Rle => "rle",
            Codec::Csr => "csr",
            Codec::Lz4 => "lz4",
            Codec::Bitmap => "bitmap",
        }
    }

    /// The codec called `name`.
    pub fn by_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name.trim())
    }

    /// Whether one compressed copy can hold a tensor of `bytes` of `dtype`:
    /// the format counts elements in 30 bits, less one chunk's room
    /// ([`MAX_CODEC_ELEMENTS`]). Larger tensors are swapped as they are.
    pub fn accepts(self, dtype: &str, bytes: u64) -> bool {
        bytes / kernel_element_bytes(dtype) < MAX_CODEC_ELEMENTS
    }

    /// Whether a swapped copy of `t` may take this codec: one compressed
    /// copy holds it, and it comes out compressed ([`Codec::compresses`]).
    pub fn suits(self, t: &crate::profile::TensorProfile) -> bool {
        self.accepts(&t.dtype, t.bytes) && self.compresses(Some(t))
    }

    /// Whether this codec's output for `t` (as its profile has it, if any)
    /// is the compressed form its time model and [`Codec::packed_bytes`]
    /// price: a bitmap stores a tensor not counted as zeros and one other
    /// value as it is ([`Codec::capacity_bytes`]).
    pub fn compresses(self, t: Option<&crate::profile::TensorProfile>) -> bool {
        self != Codec::Bitmap || t.is_some_and(|t| t.two_valued == Some(true))
    }

    /// The device buffer the compressor writes `bytes` of `dtype` (as
    /// profiles name it) into: the codec's worst case, nothing compressed,
    /// with its header and index. The kernels allocate it before they know
    /// the size, so the device holds this much while a compressed copy
    /// leaves; it mirrors `cube_kernels::format::max_compressed_words`.
    pub fn capacity_bytes(self, dtype: &str, bytes: u64) -> u64 {
        let elem = kernel_element_bytes(dtype);
        self.words_storing(elem, bytes / elem, bytes / elem) * 4
    }

    /// The most bytes a compressed copy of `bytes` of `dtype` with
    /// `zero_fraction` zeros takes. ZVC and CSR store each non-zero value
    /// and nothing for a zero, so their size follows from the count (each
    /// chunk's padding counted); RLE and LZ4 depend on where the zeros are,
    /// and are counted at their worst case. A bitmap is a bit per element
    /// whatever its zeros: the size of a tensor of two values, the only
    /// ones it is chosen for.
    pub fn packed_bytes(self, dtype: &str, bytes: u64, zero_fraction: f64) -> u64 {
        let elem = kernel_element_bytes(dtype);
        let len = bytes / elem;
        if self == Codec::Bitmap {
            return (HEADER_WORDS + BITMAP_INDEX_WORDS + len.div_ceil(GROUP)) * 4;
        }
        let stored = match self {
            Codec::Zvc | Codec::Csr => {
                let nonzero = (1.0 - zero_fraction.clamp(0.0, 1.0)) * len as f64;
                (nonzero.ceil() as u64).min(len)
            }
            Codec::Rle | Codec::Lz4 | Codec::Bitmap => len,
        };
        self.words_storing(elem, len, stored) * 4
    }

    /// The device buffer a compressed copy of `packed` bytes (of at most
    /// `capacity`) comes back into: rounded up to a 32nd of the capacity,
    /// so that a tensor whose zeros change little takes the same size every
    /// iteration (CubeCL's exact allocations reuse a buffer only at its own
    /// size), and never more than the capacity.
    pub fn upload_bytes(capacity: u64, packed: u64) -> u64 {
        packed
            .next_multiple_of(upload_step(capacity))
            .min(capacity)
            .max(packed)
    }

    /// The device bytes a compressed copy of `bytes` of `dtype` comes back
    /// into, as a plan counts them: with the tensor's zeros known, what
    /// [`Codec::upload_bytes`] gives for its [`Codec::packed_bytes`] and
    /// one more step, for zeros that drop a little before it is made again;
    /// else the capacity (also the executor's buffer while the copy's own
    /// download is still running, its size not yet known).
    pub fn coming_back_bytes(self, dtype: &str, bytes: u64, zero_fraction: Option<f64>) -> u64 {
        let capacity = self.capacity_bytes(dtype, bytes);
        match zero_fraction {
            Some(zeros) => {
                let packed = self.packed_bytes(dtype, bytes, zeros);
                Self::upload_bytes(capacity, packed + upload_step(capacity))
            }
            None => capacity,
        }
    }

    /// Words of a compressed copy of `len` elements of `elem` bytes, of
    /// which `stored` are in its payload: the header, the index (ZVC's
    /// masks and the chunks' offsets) and the payload, each chunk padded.
    fn words_storing(self, elem: u64, len: u64, stored: u64) -> u64 {
        let per_word = 4 / elem;
        let chunks = len.div_ceil(CHUNK);
        let masks = if self == Codec::Zvc {
            len.div_ceil(GROUP)
        } else {
            0
        };
        let payload = match self {
            Codec::Zvc => stored.div_ceil(per_word) + chunks,
            Codec::Csr | Codec::Rle => {
                (stored + chunks) / per_word + (stored + chunks) / 2 + chunks
            }
            Codec::Lz4 => chunks * (2 + CHUNK * elem / 255 + CHUNK * elem).div_ceil(4),
            // Its worst case: the elements stored as they are, no index.
            Codec::Bitmap => return HEADER_WORDS + BITMAP_INDEX_WORDS + (len * elem).div_ceil(4),
        };
        HEADER_WORDS + masks + chunks + 1 + payload
    }
}

/// The format's header words, elements per chunk and per ZVC mask word.
const HEADER_WORDS: u64 = 8;
const CHUNK: u64 = 2048;
const GROUP: u64 = 32;
/// A bitmap's words after the header: its mode (bits or stored) and the
/// non-zero bit pattern.
const BITMAP_INDEX_WORDS: u64 = 2;

/// A 32nd of a compressed copy's capacity, in whole 256-byte units: the
/// step the device buffers of compressed copies coming back are sized in.
fn upload_step(capacity: u64) -> u64 {
    (capacity / 32).next_multiple_of(256).max(256)
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

/// Upper edges of the sparsity bands, each with a fit of its own where it
/// pays.
const BANDS: [f64; 4] = [0.25, 0.5, 0.75, f64::INFINITY];

/// A band's fit (and the dense fit) needs this many samples; with fewer the
/// codec's fit over all bands serves it.
const MIN_BAND_SAMPLES: usize = 6;

/// Below this fraction of zero elements a tensor is priced as dense, by the
/// samples without zeros (calibrations measure 0% and then 10% zeros, and
/// the kernels' costs jump between the two).
const DENSE_BELOW: f64 = 1e-3;

/// Knots of the piecewise-linear size terms are at least this factor apart:
/// closer ones would add terms for the timing noise to fill.
const KNOT_SPACING: f64 = 3.0;

/// Powers of the zero fraction a fit on samples of `sparsities` distinct
/// zero fractions takes: 1, z and z² from four of them, 1 and z from two (a
/// curve through exactly as many sparsities as it has terms passes through
/// their noise and swings beyond them), a constant from one.
fn sparsity_powers(sparsities: usize) -> usize {
    match sparsities {
        0 | 1 => 1,
        2 | 3 => 2,
        _ => 3,
    }
}

/// A column whose part not explained by the columns before it is below
/// this share of its norm adds nothing the samples can tell apart.
const DEPENDENT_COLUMN: f64 = 1e-7;

/// Folds of the cross-validation that decides whether a band keeps a fit of
/// its own.
const BAND_FOLDS: usize = 5;

/// A band keeps a fit of its own only where, cross-validated, it makes less
/// than this share of the error the fit over all bands makes on the band's
/// samples: smaller gains are noise that the band's extra terms fitted.
const BAND_GAIN: f64 = 0.5;

/// The form of the fits [`CodecTimeModel::fit`] makes. Models saved in an
/// older form still load and predict as they were fitted, but
/// [`CodecTimeModel::is_for`] has them measured again.
const FIT_FORMAT: u32 = 2;

/// The form of models saved before [`CodecTimeModel::format`] existed: one
/// affine fit in bytes and zero bytes per band.
fn first_format() -> u32 {
    1
}

fn band_of(zero_fraction: f64) -> usize {
    BANDS
        .iter()
        .position(|&edge| zero_fraction < edge)
        .unwrap_or(BANDS.len() - 1)
}

fn is_dense(zero_fraction: f64) -> bool {
    zero_fraction < DENSE_BELOW
}

fn sparsity_count(samples: &[&CodecSample]) -> usize {
    samples
        .iter()
        .map(|s| s.zero_fraction.to_bits())
        .collect::<std::collections::BTreeSet<_>>()
        .len()
}

/// One quantity (a time or the compressed size) as a function of a
/// tensor's bytes and zero fraction: piecewise linear in bytes, its slope
/// free to change at each knot, each coefficient a polynomial in the zero
/// fraction. Linear in its coefficients, which least squares fits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "LinearForm")]
pub struct Linear {
    /// Sizes (bytes) where the slope in bytes may change, ascending.
    pub knots: Vec<u64>,
    /// `coefficients[i][j]` multiplies size term `i` (1, the bytes, then the
    /// bytes past each knot in turn) times the zero fraction to the `j`th
    /// power.
    pub coefficients: Vec<Vec<f64>>,
}

/// [`Linear`] as saved: the current form, or the first one.
#[derive(Deserialize)]
#[serde(untagged)]
enum LinearForm {
    Spline {
        knots: Vec<u64>,
        coefficients: Vec<Vec<f64>>,
    },
    /// `intercept + per_byte * bytes + per_zero_byte * bytes * zero_fraction`.
    Affine {
        intercept: f64,
        per_byte: f64,
        per_zero_byte: f64,
    },
}

impl From<LinearForm> for Linear {
    fn from(form: LinearForm) -> Self {
        match form {
            LinearForm::Spline {
                knots,
                coefficients,
            } => Self {
                knots,
                coefficients,
            },
            LinearForm::Affine {
                intercept,
                per_byte,
                per_zero_byte,
            } => Self {
                knots: Vec::new(),
                coefficients: vec![vec![intercept, 0.0], vec![per_byte, per_zero_byte]],
            },
        }
    }
}

/// The size terms of `bytes` with `knots`: 1, the bytes, then the bytes past
/// each knot.
fn size_terms(knots: &[u64], bytes: f64) -> impl Iterator<Item = f64> + '_ {
    [1.0, bytes]
        .into_iter()
        .chain(knots.iter().map(move |&k| (bytes - k as f64).max(0.0)))
}

/// Knots for `samples` fitted with `powers` powers of the zero fraction: the
/// sizes measured at that many sparsities or more (so each knot's curve in
/// sparsity rests on its own samples), between the smallest and the largest
/// of them, at least [`KNOT_SPACING`] apart.
fn knots_of(samples: &[&CodecSample], powers: usize) -> Vec<u64> {
    let mut sparsities: std::collections::BTreeMap<u64, std::collections::BTreeSet<u64>> =
        Default::default();
    for s in samples {
        sparsities
            .entry(s.bytes)
            .or_default()
            .insert(s.zero_fraction.to_bits());
    }
    let nodes: Vec<u64> = sparsities
        .into_iter()
        .filter(|(_, z)| z.len() >= powers)
        .map(|(bytes, _)| bytes)
        .collect();
    let mut knots = Vec::new();
    if let [first, inner @ .., _] = nodes.as_slice() {
        let mut last = *first;
        for &bytes in inner {
            if bytes as f64 >= last as f64 * KNOT_SPACING {
                knots.push(bytes);
                last = bytes;
            }
        }
    }
    knots
}

/// The columns of `x` (each of norm one or zero) that are not, within
/// [`DEPENDENT_COLUMN`], combinations of the ones kept before them.
fn independent_columns(x: &Array2<f64>) -> Vec<usize> {
    let mut basis: Vec<Array1<f64>> = Vec::new();
    let mut kept = Vec::new();
    for (j, column) in x.columns().into_iter().enumerate() {
        let norm = column.dot(&column).sqrt();
        if norm <= 0.0 {
            continue;
        }
        let mut rest = column.to_owned();
        // Gram-Schmidt twice: once loses orthogonality on near-dependent
        // columns.
        for _ in 0..2 {
            for q in &basis {
                let along = q.dot(&rest);
                rest.scaled_add(-along, q);
            }
        }
        let left = rest.dot(&rest).sqrt();
        if left > DEPENDENT_COLUMN * norm {
            basis.push(rest / left);
            kept.push(j);
        }
    }
    kept
}

impl Linear {
    fn at(&self, bytes: f64, zero_fraction: f64) -> f64 {
        size_terms(&self.knots, bytes)
            .zip(&self.coefficients)
            .map(|(term, per_power)| {
                term * per_power
                    .iter()
                    .rev()
                    .fold(0.0, |acc, c| acc * zero_fraction + c)
            })
            .sum()
    }

    /// The least-squares fit of `target` on `samples` in relative error,
    /// curved in sparsity (1, z, z²) only where cross-validation shows the
    /// curve predicts samples it did not see better than a line: some
    /// quantities bend with sparsity (run-length output, LZ4's decoder),
    /// while for others the curve only follows the timings' noise, and
    /// swings far from it at the smallest sizes (seen on f16).
    fn fit(
        samples: &[&CodecSample],
        target: impl Fn(&CodecSample) -> f64 + Copy,
    ) -> Result<Self, FitError> {
        let most = sparsity_powers(sparsity_count(samples));
        if most < 3 {
            return Self::fit_with(samples, target, most);
        }
        let mut errors = [0.0_f64; 2];
        for fold in 0..BAND_FOLDS {
            let (scored, rest) = split_fold(samples, fold);
            for (error, powers) in errors.iter_mut().zip([2, 3]) {
                let fitted = Self::fit_with(&rest, target, powers)?;
                for s in &scored {
                    *error += relative(
                        fitted.at(s.bytes as f64, s.zero_fraction).max(0.0),
                        target(s),
                    );
                }
            }
        }
        let powers = if errors[1] < errors[0] { 3 } else { 2 };
        Self::fit_with(samples, target, powers)
    }

    /// The least-squares fit with at most `max_powers` powers of the zero
    /// fraction.
    fn fit_with(
        samples: &[&CodecSample],
        target: impl Fn(&CodecSample) -> f64,
        max_powers: usize,
    ) -> Result<Self, FitError> {
        let powers = sparsity_powers(sparsity_count(samples)).min(max_powers);
        let knots = knots_of(samples, powers);
        let size_term_count = 2 + knots.len();
        let mut records = Array2::<f64>::zeros((samples.len(), size_term_count * powers));
        for (row, s) in samples.iter().enumerate() {
            let y = target(s).max(1.0);
            for (i, term) in size_terms(&knots, s.bytes as f64).enumerate() {
                let mut power = 1.0;
                for j in 0..powers {
                    records[[row, i * powers + j]] = term * power / y;
                    power *= s.zero_fraction;
                }
            }
        }
        // Columns of unit norm: bytes and constants differ by nine orders
        // of magnitude.
        let scales: Vec<f64> = records
            .columns()
            .into_iter()
            .map(|c| c.dot(&c).sqrt())
            .collect();
        for (mut column, &scale) in records.columns_mut().into_iter().zip(&scales) {
            if scale > 0.0 {
                column /= scale;
            }
        }
        let kept = independent_columns(&records);
        let mut coefficients = vec![vec![0.0; powers]; size_term_count];
        if !kept.is_empty() {
            let fitted = LinearRegression::new()
                .with_intercept(false)
                .fit(&DatasetBase::new(
                    records.select(ndarray::Axis(1), &kept),
                    Array1::<f64>::ones(samples.len()),
                ))
                .map_err(|err| FitError::Solver(err.to_string()))?;
            for (&column, &p) in kept.iter().zip(fitted.params()) {
                coefficients[column / powers][column % powers] = p / scales[column];
            }
        }
        Ok(Self {
            knots,
            coefficients,
        })
    }
}

/// Every other sample of each codec and element type, in the order given,
/// to fit on, and the rest to score a fit on ([`CodecTimeModel::error_on`]):
/// the split the calibration reports its held-out error with.
pub fn every_other(samples: &[CodecSample]) -> (Vec<CodecSample>, Vec<CodecSample>) {
    let mut seen: std::collections::HashMap<(Codec, String), usize> = Default::default();
    let (mut train, mut held) = (Vec::new(), Vec::new());
    for s in samples {
        let n = seen.entry((s.codec, s.dtype.clone())).or_default();
        if n.is_multiple_of(2) {
            &mut train
        } else {
            &mut held
        }
        .push(s.clone());
        *n += 1;
    }
    (train, held)
}

/// The three fits of one codec, element type and sparsity band.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

    /// Its relative errors on `s`, the three quantities summed.
    fn error_on(&self, s: &CodecSample) -> f64 {
        let p = self.predict(s.bytes, s.zero_fraction);
        relative(p.compress_ns, s.compress_ns)
            + relative(p.decompress_ns, s.decompress_ns)
            + relative(p.compressed_bytes as f64, s.compressed_bytes as f64)
    }
}

/// The fits of one codec and element type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodecFit {
    /// The codec.
    pub codec: Codec,
    /// Element type.
    pub dtype: String,
    /// Over its samples with zeros (all its samples where too few have
    /// zeros or too few have none): for bands without a fit of their own.
    pub all: BandFit,
    /// Per sparsity band (`[0, 0.25)`, `[0.25, 0.5)`, `[0.5, 0.75)`,
    /// `[0.75, 1]`), where the band had enough samples and its own fit,
    /// cross-validated, made less than half the error `all` made on them.
    pub bands: Vec<Option<BandFit>>,
    /// Dense tensors (fewer than one element in a thousand zero), fitted on
    /// the samples without zeros, where enough were measured.
    #[serde(default)]
    pub dense: Option<BandFit>,
}

impl CodecFit {
    /// The fit that prices a tensor with `zero_fraction` zeros.
    fn for_sparsity(&self, zero_fraction: f64) -> &BandFit {
        match &self.dense {
            Some(dense) if is_dense(zero_fraction) => dense,
            _ => self
                .bands
                .get(band_of(zero_fraction))
                .and_then(Option::as_ref)
                .unwrap_or(&self.all),
        }
    }

    fn fit(codec: Codec, dtype: String, samples: &[&CodecSample]) -> Result<Self, FitError> {
        let (dense, sparse): (Vec<&CodecSample>, Vec<&CodecSample>) =
            samples.iter().partition(|s| is_dense(s.zero_fraction));
        let split = dense.len() >= MIN_BAND_SAMPLES && sparse.len() >= MIN_BAND_SAMPLES;
        let (pooled, dense) = match split {
            true => (sparse, Some(BandFit::fit(&dense)?)),
            false => (samples.to_vec(), None),
        };
        let all = BandFit::fit(&pooled)?;
        let candidates: Vec<bool> = (0..BANDS.len())
            .map(|band| fits_alone(&in_band(band, &pooled)))
            .collect();
        let mut bands = vec![None; BANDS.len()];
        if candidates.contains(&true) {
            let errors = cross_validated(&pooled, &candidates)?;
            for (band, (own, overall)) in errors.into_iter().enumerate() {
                if candidates[band] && own < BAND_GAIN * overall {
                    bands[band] = Some(BandFit::fit(&in_band(band, &pooled))?);
                }
            }
        }
        Ok(Self {
            codec,
            dtype,
            all,
            bands,
            dense,
        })
    }
}

/// The samples of `samples` in sparsity band `band`.
fn in_band<'a>(band: usize, samples: &[&'a CodecSample]) -> Vec<&'a CodecSample> {
    samples
        .iter()
        .copied()
        .filter(|s| band_of(s.zero_fraction) == band)
        .collect()
}

/// Whether a band's samples can make a fit of their own: enough of them, and
/// more than one sparsity (one cannot say how costs change with sparsity).
fn fits_alone(samples: &[&CodecSample]) -> bool {
    samples.len() >= MIN_BAND_SAMPLES && sparsity_count(samples) > 1
}

/// Fold `fold` of [`BAND_FOLDS`], by position: the samples it scores, and
/// the rest, to fit on.
fn split_fold<'a>(
    samples: &[&'a CodecSample],
    fold: usize,
) -> (Vec<&'a CodecSample>, Vec<&'a CodecSample>) {
    let (scored, rest): (Vec<_>, Vec<_>) = samples
        .iter()
        .enumerate()
        .partition(|(i, _)| i % BAND_FOLDS == fold);
    let strip = |v: Vec<(usize, &&'a CodecSample)>| v.into_iter().map(|(_, s)| *s).collect();
    (strip(scored), strip(rest))
}

/// Per band, the summed relative errors on its samples of its own fit and of
/// the fit over all bands, each fitted without the samples it is scored on
/// ([`BAND_FOLDS`] folds by position); zero for bands not in `candidates`.
fn cross_validated(
    samples: &[&CodecSample],
    candidates: &[bool],
) -> Result<Vec<(f64, f64)>, FitError> {
    let mut errors = vec![(0.0, 0.0); candidates.len()];
    for fold in 0..BAND_FOLDS {
        let (scored, rest) = split_fold(samples, fold);
        if rest.is_empty() {
            continue;
        }
        let overall = BandFit::fit(&rest)?;
        for (band, _) in candidates.iter().enumerate().filter(|(_, &c)| c) {
            let scored = in_band(band, &scored);
            if scored.is_empty() {
                continue;
            }
            let own_samples = in_band(band, &rest);
            let own = match fits_alone(&own_samples) {
                true => Some(BandFit::fit(&own_samples)?),
                false => None,
            };
            for s in scored {
                errors[band].0 += own.as_ref().unwrap_or(&overall).error_on(s);
                errors[band].1 += overall.error_on(s);
            }
        }
    }
    Ok(errors)
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
    /// The form of its fits (1: saved before this field existed).
    #[serde(default = "first_format")]
    pub format: u32,
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
            fits.push(CodecFit::fit(codec, dtype, &of_group)?);
        }
        Ok(Self {
            device: device.into(),
            kernels_version: kernels_version.into(),
            format: FIT_FORMAT,
            fits,
        })
    }

    /// Whether it was measured on `device` with kernels of `kernels_version`
    /// and fitted in the current form (a model for another device or
    /// kernels, or an older form, must be measured again).
    pub fn is_for(&self, device: &str, kernels_version: &str) -> bool {
        self.format == FIT_FORMAT
            && self.device == device
            && self.kernels_version == kernels_version
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
        Some(
            fit.for_sparsity(zero_fraction)
                .predict(bytes, zero_fraction),
        )
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

    /// Reads a model written by [`Self::save`] (or by an earlier form of
    /// it, which predicts as it was fitted; see [`Self::is_for`]).
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
