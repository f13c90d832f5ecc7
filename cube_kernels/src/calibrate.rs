//! The codecs' time model for one device: every codec and element type
//! timed on synthetic tensors made on the device (sizes and sparsities on a
//! grid; for Bitmap, zeros and 1.0, the tensors it is chosen for), fitted
//! with `burn-swap-plan`'s [`CodecTimeModel`], kept in a JSON file and
//! measured again when the device or the kernels change.
//!
//! Each sample times the tuned launch configuration of its size (the one
//! the executor would run), so the first calibration on a device also
//! tunes every size bucket it meets.

use std::path::Path;

use burn_swap_plan::cost::{every_other, Codec, CodecSample, CodecTimeModel, FitError, ModelError};
use cubecl::prelude::*;

use crate::format::{CodecKind, DType};
use crate::gpu::{compress, LaunchConfig};
use crate::tuner::{device_key, time_config, Direction, Round, Tuner, KERNELS_VERSION};
use crate::CodecError;

/// What a calibration measures.
#[derive(Debug, Clone)]
pub struct Calibration {
    /// Tensor sizes in bytes.
    pub sizes: Vec<usize>,
    /// Fractions of zero elements.
    pub zero_fractions: Vec<f64>,
    /// Codecs.
    pub codecs: Vec<CodecKind>,
    /// Element types.
    pub dtypes: Vec<DType>,
    /// Calls per timed batch (see [`time_config`]).
    pub reps: usize,
    /// Time the tuner's configurations (tuning each size bucket first if
    /// its cache has none); else each codec's untuned default
    /// ([`LaunchConfig::default_on`]), which is what burn-swap's transfer
    /// engines launch.
    pub tuned: bool,
    /// How long each timing runs: [`Round::Final`] (the median of five
    /// batches of at least 20 ms) by default, since the model rests on one
    /// timing per sample and short batches let single slow calls through
    /// (a 4 MB compress of 257 us beside neighbours of 30); the tuner's
    /// shorter [`Round::Search`] where a test only needs a model of some kind.
    pub round: Round,
}

impl Default for Calibration {
    /// 1 MB to 2 GB (eight sizes, four to a decade) and 0-95% zeros (ten
    /// fractions), every codec, f32 and f16 (2 GB of f16 is past the
    /// format's element count): 600 tensors.
    fn default() -> Self {
        const MB: usize = 1 << 20;
        Self {
            sizes: [1, 4, 16, 48, 160, 512, 1024, 2047]
                .into_iter()
                .map(|m| m * MB)
                .collect(),
            zero_fractions: vec![0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 0.95],
            codecs: CodecKind::ALL.to_vec(),
            dtypes: vec![DType::F32, DType::F16],
            reps: 3,
            tuned: true,
            round: Round::Final,
        }
    }
}

/// Why a calibration failed.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    /// A codec call failed on the device.
    #[error("calibrating the codecs: {0}")]
    Codec(#[from] CodecError),
    /// The samples did not make a model.
    #[error("fitting the codecs' time model: {0}")]
    Fit(#[from] FitError),
    /// The model file could not be written.
    #[error("saving the codecs' time model to {path}: {err}")]
    Save {
        /// The file.
        path: String,
        /// What went wrong.
        err: std::io::Error,
    },
}

/// The plan crate's name of a codec.
pub fn plan_codec(codec: CodecKind) -> Codec {
    match codec {
        CodecKind::Zvc => Codec::Zvc,
        CodecKind::Rle => Codec::Rle,
        CodecKind::Csr => Codec::Csr,
        CodecKind::Lz4 => Codec::Lz4,
        CodecKind::Bitmap => Codec::Bitmap,
    }
}

/// The kernels' name of a plan's codec.
pub fn codec_kind(codec: Codec) -> CodecKind {
    match codec {
        Codec::Zvc => CodecKind::Zvc,
        Codec::Rle => CodecKind::Rle,
        Codec::Csr => CodecKind::Csr,
        Codec::Lz4 => CodecKind::Lz4,
        Codec::Bitmap => CodecKind::Bitmap,
    }
}

/// The element type as profiles name it.
pub fn dtype_name(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "F32",
        DType::F16 => "F16",
        DType::BF16 => "BF16",
    }
}

/// The element type a profile names (`F32`, `F16`, `BF16`), if the codecs
/// take it.
pub fn dtype_named(name: &str) -> Option<DType> {
    [DType::F32, DType::F16, DType::BF16]
        .into_iter()
        .find(|&d| dtype_name(d) == name)
}

/// The kernels' version a model must have been measured with.
pub fn kernels_version() -> String {
    KERNELS_VERSION.to_string()
}

impl Calibration {
    /// How many tensors [`Self::measure`] times.
    pub fn len(&self) -> usize {
        let sizes: usize = self.dtypes.iter().map(|&d| self.sizes_for(d).count()).sum();
        sizes * self.zero_fractions.len() * self.codecs.len()
    }

    /// Whether it times nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sizes measured for `dtype`: those the codecs take in one buffer
    /// (2 GB of a 16-bit type is past the format's element count).
    fn sizes_for(&self, dtype: DType) -> impl Iterator<Item = &usize> + '_ {
        self.sizes
            .iter()
            .filter(move |&&bytes| crate::format::accepts(dtype, bytes / dtype.size()))
    }

    /// Times every codec, element type, size and sparsity on `client`'s
    /// device; `progress(done, total)` after each tensor.
    pub fn measure<R: Runtime>(
        &self,
        client: &ComputeClient<R>,
        tuner: &mut Tuner,
        progress: impl FnMut(usize, usize),
    ) -> Result<Vec<CodecSample>, CodecError> {
        let mut tensors = Vec::new();
        for &dtype in &self.dtypes {
            for &bytes in self.sizes_for(dtype) {
                tensors.extend(
                    self.zero_fractions
                        .iter()
                        .map(|&zeros| (dtype, bytes, zeros)),
                );
            }
        }
        self.measure_tensors(client, tuner, &tensors, progress)
    }

    /// Times every codec on synthetic tensors of the given element type,
    /// bytes and zero fraction (e.g. a profile's saved tensors; Bitmap on
    /// two-valued ones, see [`synthetic_for`]);
    /// `progress(done, total)` after each sample.
    pub fn measure_tensors<R: Runtime>(
        &self,
        client: &ComputeClient<R>,
        tuner: &mut Tuner,
        tensors: &[(DType, usize, f64)],
        mut progress: impl FnMut(usize, usize),
    ) -> Result<Vec<CodecSample>, CodecError> {
        let total = tensors.len() * self.codecs.len();
        let mut samples = Vec::with_capacity(total);
        for (seed, &(dtype, bytes, zeros)) in tensors.iter().enumerate() {
            let len = bytes / dtype.size();
            // one tensor for the codecs that share their data, made once
            let mut shared = None;
            for &codec in &self.codecs {
                let input = match codec {
                    CodecKind::Bitmap => {
                        synthetic_for(client, codec, dtype, len, zeros, seed as u32)
                    }
                    _ => shared
                        .get_or_insert_with(|| synthetic(client, dtype, len, zeros, seed as u32))
                        .clone(),
                };
                samples.push(self.sample(client, tuner, codec, dtype, len, zeros, &input)?);
                progress(samples.len(), total);
            }
        }
        Ok(samples)
    }

    #[allow(clippy::too_many_arguments)]
    fn sample<R: Runtime>(
        &self,
        client: &ComputeClient<R>,
        tuner: &mut Tuner,
        codec: CodecKind,
        dtype: DType,
        len: usize,
        zeros: f64,
        input: &cubecl::server::Handle,
    ) -> Result<CodecSample, CodecError> {
        let tuned = self.tuned;
        let mut config = |direction| match tuned {
            true => tuner.config(client, codec, dtype, direction, len),
            false => Ok(LaunchConfig::default_on(client, codec)),
        };
        let mut time = |direction| -> Result<f64, CodecError> {
            let cfg = config(direction)?;
            time_config(
                client, codec, dtype, len, input, direction, cfg, self.reps, self.round,
            )
        };
        let compress_s = time(Direction::Compress)?;
        let decompress_s = time(Direction::Decompress)?;
        let cfg = config(Direction::Compress)?;
        let words = compress(client, codec, input, dtype, len, cfg)?.read_size(client)?;
        Ok(CodecSample {
            codec: plan_codec(codec),
            dtype: dtype_name(dtype).into(),
            bytes: (len * dtype.size()) as u64,
            zero_fraction: zeros,
            compress_ns: compress_s * 1e9,
            decompress_ns: decompress_s * 1e9,
            compressed_bytes: words as u64 * 4,
        })
    }

    /// Measures and fits a model for `client`'s device.
    pub fn calibrate<R: Runtime>(
        &self,
        client: &ComputeClient<R>,
        tuner: &mut Tuner,
        progress: impl FnMut(usize, usize),
    ) -> Result<CodecTimeModel, CalibrationError> {
        let samples = self.measure(client, tuner, progress)?;
        Ok(CodecTimeModel::fit(
            device_key(client),
            kernels_version(),
            &samples,
        )?)
    }
}

/// The model saved at `path` if it was measured on `client`'s device with
/// these kernels; otherwise calibrated now with `calibration` and saved
/// there.
pub fn cached_or_calibrate<R: Runtime>(
    client: &ComputeClient<R>,
    path: impl AsRef<Path>,
    calibration: &Calibration,
    tuner: &mut Tuner,
    progress: impl FnMut(usize, usize),
) -> Result<CodecTimeModel, CalibrationError> {
    let path = path.as_ref();
    if let Ok(model) = CodecTimeModel::load(path) {
        if model.is_for(&device_key(client), &kernels_version()) {
            return Ok(model);
        }
    }
    let model = calibration.calibrate(client, tuner, progress)?;
    model.save(path).map_err(|err| CalibrationError::Save {
        path: path.display().to_string(),
        err,
    })?;
    Ok(model)
}

/// Fits a model on every other sample of each codec and element type (in
/// the order measured: sizes, then sparsities) and returns it with its
/// error on the rest, which it did not see.
pub fn held_out_error(
    device: &str,
    samples: &[CodecSample],
) -> Result<(CodecTimeModel, Vec<ModelError>), FitError> {
    let (train, held) = every_other(samples);
    let model = CodecTimeModel::fit(device, kernels_version(), &train)?;
    let errors = model.error_on(&held);
    Ok((model, errors))
}

/// A tensor of `len` elements of `dtype` made on the device, about
/// `zero_fraction` of them zero (each element by a hash of its index and
/// `seed`), the others non-zero bit patterns.
pub fn synthetic<R: Runtime>(
    client: &ComputeClient<R>,
    dtype: DType,
    len: usize,
    zero_fraction: f64,
    seed: u32,
) -> cubecl::server::Handle {
    fill(client, dtype, len, zero_fraction, seed, 0)
}

/// The bit pattern of 1.0 in `dtype` (in the low half for 16-bit types).
pub fn one_bits(dtype: DType) -> u32 {
    match dtype {
        DType::F32 => 0x3F80_0000,
        DType::F16 => 0x3C00,
        DType::BF16 => 0x3F80,
    }
}

/// The tensor `codec` is timed on: [`synthetic`]'s zeros, and its other
/// elements as [`synthetic`] makes them, except for Bitmap, which is
/// chosen for tensors of zeros and one value (dropout masks): there they
/// are all 1.0 ([`one_bits`]), so its model is fitted on bits mode.
pub fn synthetic_for<R: Runtime>(
    client: &ComputeClient<R>,
    codec: CodecKind,
    dtype: DType,
    len: usize,
    zero_fraction: f64,
    seed: u32,
) -> cubecl::server::Handle {
    let value = match codec {
        CodecKind::Bitmap => one_bits(dtype),
        _ => 0,
    };
    fill(client, dtype, len, zero_fraction, seed, value)
}

/// [`synthetic`], with the non-zero elements `value` where it is not zero.
fn fill<R: Runtime>(
    client: &ComputeClient<R>,
    dtype: DType,
    len: usize,
    zero_fraction: f64,
    seed: u32,
    value: u32,
) -> cubecl::server::Handle {
    let words = dtype.words(len).max(1);
    let handle = client.empty(words * 4);
    let threshold = (zero_fraction.clamp(0.0, 1.0) * 65536.0).round() as u32;
    let block = 256u32;
    let cubes = (words as u32).div_ceil(block);
    let (x, y) = if cubes > 65535 {
        (65535, cubes.div_ceil(65535))
    } else {
        (cubes, 1)
    };
    fill_sparse::launch(
        client,
        CubeCount::Static(x, y, 1),
        CubeDim::new_1d(block),
        unsafe { ArrayArg::from_raw_parts(handle.clone(), words) },
        words as u32,
        threshold,
        seed,
        u32::from(dtype.size() == 2),
        value,
    );
    handle
}

/// A hash of `i` and `seed` (a multiply-xorshift mix).
#[cube]
fn mix(i: u32, seed: u32) -> u32 {
    let mut h = i * 2_654_435_761u32 + seed * 40_503u32 + 1u32;
    h ^= h >> 15u32;
    h *= 2_246_822_519u32;
    h ^= h >> 13u32;
    h
}

/// Word `w` of the tensor: each element zero when its hash's low 16 bits
/// fall under `threshold` (of 65536), else `value` if it is not zero, else
/// the hash with its low bit set; `half` packs two 16-bit elements a word.
#[cube(launch)]
fn fill_sparse(out: &mut Array<u32>, words: u32, threshold: u32, seed: u32, half: u32, value: u32) {
    let w = CUBE_POS_Y * CUBE_COUNT_X * CUBE_DIM_X + ABSOLUTE_POS_X;
    if w < words {
        let mut word = 0u32;
        if half == 1u32 {
            let lo = mix(w * 2u32, seed);
            let hi = mix(w * 2u32 + 1u32, seed);
            let mut lo_v = 0u32;
            let mut hi_v = 0u32;
            if (lo & 0xffffu32) >= threshold {
                lo_v = (lo >> 16u32) | 1u32;
                if value != 0u32 {
                    lo_v = value;
                }
            }
            if (hi & 0xffffu32) >= threshold {
                hi_v = (hi >> 16u32) | 1u32;
                if value != 0u32 {
                    hi_v = value;
                }
            }
            word = lo_v | (hi_v << 16u32);
        } else {
            let h = mix(w, seed);
            if (h & 0xffffu32) >= threshold {
                word = h | 1u32;
                if value != 0u32 {
                    word = value;
                }
            }
        }
        out[w as usize] = word;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::max_compressed_words;

    /// The planning core leaves to swap as they are the tensors these
    /// kernels refuse, and only those.
    #[test]
    fn the_planning_core_knows_the_largest_tensor_the_kernels_take() {
        assert_eq!(
            crate::format::MAX_ELEMENTS as u64,
            burn_swap_plan::cost::MAX_CODEC_ELEMENTS
        );
        for codec in Codec::ALL {
            for dtype in [DType::F32, DType::F16, DType::BF16] {
                let edge = crate::format::MAX_ELEMENTS;
                for len in [1, edge - 1, edge, edge + 1, 2047 << 20, 1 << 30] {
                    let bytes = (len * dtype.size()) as u64;
                    assert_eq!(
                        codec.accepts(dtype_name(dtype), bytes),
                        crate::format::accepts(dtype, len),
                        "{codec} {dtype:?} {len}"
                    );
                }
            }
        }
        let calibration = Calibration::default();
        assert!(calibration.sizes_for(DType::F16).count() < calibration.sizes.len());
        let codecs = CodecKind::ALL.len();
        assert_eq!(
            calibration.len(),
            calibration.sizes.len() * 2 * 10 * codecs - 10 * codecs,
            "2 GB of f16 left out"
        );
    }

    /// The planning core sizes a compressed copy coming back by its
    /// tensor's zeros; what the codecs really make must never be more.
    /// Bitmap is offered only for tensors of zeros and one value, so it is
    /// held to its bound on those (where it is exact).
    #[test]
    fn the_planning_cores_packed_size_bounds_the_codecs_output() {
        // Zeros in runs and scattered, at fractions between the extremes;
        // the others distinct, or all 1.0 (`two_valued`).
        let pattern = |len: usize, zeros: f64, scattered: bool, two_valued: bool| -> Vec<f32> {
            (0..len)
                .map(|i| {
                    let u = if scattered {
                        ((i as u64).wrapping_mul(2654435761) % 1000) as f64 / 1000.0
                    } else {
                        (i % 1000) as f64 / 1000.0
                    };
                    if u < zeros {
                        0.0
                    } else if two_valued {
                        1.0
                    } else {
                        1.0 + i as f32
                    }
                })
                .collect()
        };
        for codec in Codec::ALL {
            for len in [1, 2049, 100_003] {
                for zeros in [0.0, 0.13, 0.5, 0.9, 1.0] {
                    for scattered in [false, true] {
                        let two_valued = codec == Codec::Bitmap;
                        let values = pattern(len, zeros, scattered, two_valued);
                        let counted = values.iter().filter(|v| **v == 0.0).count();
                        let fraction = counted as f64 / len as f64;
                        let words: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
                        let out = crate::cpu::compress(codec_kind(codec), DType::F32, &words, len)
                            .unwrap();
                        let bound = codec.packed_bytes("F32", len as u64 * 4, fraction);
                        assert!(
                            out.len() as u64 * 4 <= bound,
                            "{codec} len {len} zeros {fraction}: {} > {bound}",
                            out.len() * 4
                        );
                        if two_valued {
                            assert_eq!(bound, (10 + len.div_ceil(32)) as u64 * 4);
                        }
                    }
                }
            }
        }
    }

    /// The planning core prices a compressed copy's room on the device
    /// without these kernels; it must be what they allocate.
    #[test]
    fn the_planning_cores_capacity_is_the_compressors_buffer() {
        for codec in Codec::ALL {
            for dtype in [DType::F32, DType::F16, DType::BF16] {
                for len in [0, 1, 31, 2047, 2048, 2049, 100_003, 3 << 20] {
                    let bytes = (len * dtype.size()) as u64;
                    let words = max_compressed_words(codec_kind(codec), dtype, len);
                    assert_eq!(
                        codec.capacity_bytes(dtype_name(dtype), bytes),
                        words as u64 * 4,
                        "{codec} {dtype:?} {len}"
                    );
                }
            }
        }
    }
}
