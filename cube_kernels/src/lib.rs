//! GPU compression codecs for burn-swap: ZVC, RLE, CSR, LZ4 and Bitmap (a
//! bit per element, for tensors of zeros and one value such as dropout
//! masks) as CubeCL kernels, a CPU reference of each in the same format,
//! and a tuner that picks each kernel's launch configuration per device,
//! codec, dtype and size bucket.
//!
//! The data is handled as bit patterns (`u32` words; two 16-bit elements per
//! word), so every round trip is bit-exact, `-0.0`, NaN payloads and
//! denormals included. See [`format`] for the compressed layout.
//!
//! ```ignore
//! let cfg = tuner.config(&client, CodecKind::Zvc, DType::F16, len);
//! let c = compress(&client, CodecKind::Zvc, &input, DType::F16, len, cfg)?;
//! let words = c.read_size(&client)?;      // 4-byte read, compressed size
//! // ... copy `words * 4` bytes of c.handle to the host and back ...
//! let header = Header::decode(&host_words, Some(host_words.len()))?;
//! let d = decompress(&client, &uploaded, &header, cfg)?;
//! d.check(&client)?;                       // 8-byte read: device-side errors, checksum
//! ```
#![warn(missing_docs)]

mod bitmap;
pub mod calibrate;
mod compact;
pub mod cpu;
mod decode;
pub mod format;
mod gpu;
mod lz4;
mod single_pass;
pub mod tuner;
mod zvc;

pub use format::{CodecKind, DType, Header, CHUNK};
#[doc(hidden)]
pub use gpu::zvc_force_word_access;
pub use gpu::{
    compress, decompress, shared_bytes, supports_single_pass, Bitmap, Codec, Compressed, Csr,
    DecodeStatus, Decompressed, LaunchConfig, Lz4, Rle, Zvc,
};
pub use tuner::Tuner;

/// Why a codec call failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CodecError {
    /// The buffer is shorter than its header or index says.
    #[error("compressed buffer truncated: need {need} bytes, have {have}")]
    Truncated {
        /// Bytes needed.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// A structural check failed (header, offsets, masks, indices).
    #[error("compressed buffer corrupt: {0}")]
    Corrupt(&'static str),
    /// The device decoder flagged the buffer (status bits, see `decode.rs`).
    #[error("device decoder rejected the buffer (status {0:#x})")]
    DeviceRejected(u32),
    /// The decoded data's checksum differs from the one the encoder stored
    /// (header word 7, see [`format::checksum`]): a stored value was
    /// corrupted.
    #[error("checksum mismatch: header says {expected:#010x}, decoded data gives {found:#010x}")]
    ChecksumMismatch {
        /// Checksum in the header.
        expected: u32,
        /// Checksum of the decoded words.
        found: u32,
    },
    /// Input larger than the format allows.
    #[error("input of {elements} elements exceeds the format's limit of {max}")]
    TooLarge {
        /// Elements of input.
        elements: usize,
        /// Largest accepted.
        max: usize,
    },
    /// A launch configuration the kernels cannot run.
    #[error("invalid launch configuration {0:?}: {1}")]
    BadConfig(LaunchConfig, &'static str),
    /// The runtime failed (read, launch).
    #[error("runtime error: {0}")]
    Runtime(String),
}
