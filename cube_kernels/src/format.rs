//! The compressed format shared by the GPU kernels and the CPU reference.
//!
//! Every compressed buffer is a sequence of little-endian `u32` words:
//!
//! ```text
//! header (HEADER_WORDS) | codec-specific index | payload
//! ```
//!
//! ZVC, CSR, RLE and LZ4 cut the input into chunks of [`CHUNK`] elements
//! (Bitmap has no chunks, see below); every chunk is encoded
//! independently (which is what lets the GPU decode in parallel) and its
//! position in the payload is recorded in the index, so no decoder needs a
//! scan. Elements are handled as bit patterns: a 32-bit dtype is one word per
//! element, a 16-bit dtype two elements per word (element `2k` in the low
//! half). "Zero" means the all-zero bit pattern, so `-0.0` is non-zero.
//!
//! The header (version 2): magic, codec | dtype << 8 | version << 16, the
//! length in elements (two words), the total size in words, a zero word, a
//! check of those six words, and the [`checksum`] of the uncompressed data
//! (outside the header check: the GPU encoders write it last). Every decoder
//! recomputes the checksum over the words it writes and reports a
//! difference as `CodecError::ChecksumMismatch`, so a corrupted stored
//! value, which no structural check can see, is an error too.
//!
//! | codec | index | payload per chunk |
//! |---|---|---|
//! | ZVC | one mask per 32 elements, then `nchunks + 1` offsets (elements, padded) | the non-zero elements, padded to whole words |
//! | CSR | `nchunks + 1` row pointers (elements, padded to even) | the non-zero elements, then their `u16` column (position in the chunk) |
//! | RLE | `nchunks + 1` run pointers (runs, padded to even) | the value of each run, then its `u16` start in the chunk |
//! | LZ4 | `nchunks + 1` byte offsets (multiples of 4) | one LZ4 block per chunk, padded to whole words |
//! | Bitmap | no chunks: word 8 the mode, word 9 the value (see below) | bits mode: `ceil(len / 32)` words, bit `i % 32` of word `i / 32` set iff element `i` is non-zero; stored mode: the input as it is |
//!
//! Bitmap is for tensors whose elements are all zero or one same bit
//! pattern (dropout masks): a bit per element, a 32nd of f32 data (16th of
//! 16-bit data). Bits mode (word 8 = [`BITMAP_BITS`]) holds the non-zero
//! pattern in word 9 (in its low half for 16-bit dtypes; 0 when every
//! element is zero) and `ceil(len / 32)` payload words, the unused bits of
//! the last one zero. Any other tensor is stored mode (word 8 =
//! [`BITMAP_STORED`], word 9 zero): the `dtype.words(len)` input words as
//! they are (the unused upper half of an odd count of 16-bit elements
//! zero), so a buffer is never more than 10 words larger than its input.

use crate::CodecError;

/// Elements per chunk: the unit each chunk offset / row pointer describes.
pub const CHUNK: usize = 2048;
/// Elements per ZVC mask.
pub const GROUP: usize = 32;
/// Mask words per chunk.
pub const GROUPS_PER_CHUNK: usize = CHUNK / GROUP;
/// Words in the header.
pub const HEADER_WORDS: usize = 8;
/// First header word.
pub const MAGIC: u32 = 0x5057_5343; // "CSWP"
/// Format version (2: header word 7 holds the data checksum, see [`checksum`]).
pub const VERSION: u32 = 2;
/// Column / run-start index marking a padding entry (CSR, RLE).
pub const PAD_INDEX: u32 = 0xFFFF;
/// Largest input accepted, in 32-bit words (look-back values use 30 bits).
pub const MAX_WORDS: usize = (1 << 30) - 1;
/// Words of a Bitmap buffer after the header: the mode and the value.
pub const BITMAP_INDEX_WORDS: usize = 2;
/// Bitmap mode word: a bit per element.
pub const BITMAP_BITS: u32 = 0;
/// Bitmap mode word: the input words as they are.
pub const BITMAP_STORED: u32 = 1;
/// Inputs must have fewer elements than this (element counts use 30 bits,
/// less one chunk group's room for the look-back's rounding).
pub const MAX_ELEMENTS: usize = (1 << 30) - (1 << 19);

/// Whether the codecs take `len` elements of `dtype` in one buffer.
pub fn accepts(dtype: DType, len: usize) -> bool {
    dtype.words(len) <= MAX_WORDS && len < MAX_ELEMENTS
}

/// Element type of the data, handled bitwise.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum DType {
    /// 32-bit float (also any 32-bit word, e.g. `u32` indices).
    F32,
    /// IEEE half.
    F16,
    /// bfloat16.
    BF16,
}

impl DType {
    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            DType::F32 => 4,
            DType::F16 | DType::BF16 => 2,
        }
    }
    /// Elements per 32-bit word.
    pub fn per_word(self) -> usize {
        4 / self.size()
    }
    /// Bits per element.
    pub fn bits(self) -> u32 {
        self.size() as u32 * 8
    }
    /// Words holding `len` elements.
    pub fn words(self, len: usize) -> usize {
        (len * self.size()).div_ceil(4)
    }
    fn code(self) -> u32 {
        match self {
            DType::F32 => 0,
            DType::F16 => 1,
            DType::BF16 => 2,
        }
    }
    fn from_code(code: u32) -> Option<Self> {
        Some(match code {
            0 => DType::F32,
            1 => DType::F16,
            2 => DType::BF16,
            _ => return None,
        })
    }
    /// All supported dtypes.
    pub const ALL: [DType; 3] = [DType::F32, DType::F16, DType::BF16];
}

/// Which codec produced a buffer.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum CodecKind {
    /// Zero-value compression (cDMA): a 32-bit mask per 32 elements, then the non-zeros.
    Zvc,
    /// Run-length encoding of equal bit patterns.
    Rle,
    /// Compressed sparse rows, one row per chunk.
    Csr,
    /// LZ4 block format, one block per chunk.
    Lz4,
    /// A bit per element and the one non-zero bit pattern (stored as it is
    /// when the tensor holds more than one non-zero pattern).
    Bitmap,
}

impl CodecKind {
    /// All codecs.
    pub const ALL: [CodecKind; 5] = [
        CodecKind::Zvc,
        CodecKind::Rle,
        CodecKind::Csr,
        CodecKind::Lz4,
        CodecKind::Bitmap,
    ];
    pub(crate) fn code(self) -> u32 {
        match self {
            CodecKind::Zvc => 1,
            CodecKind::Rle => 2,
            CodecKind::Csr => 3,
            CodecKind::Lz4 => 4,
            CodecKind::Bitmap => 5,
        }
    }
    fn from_code(code: u32) -> Option<Self> {
        Some(match code {
            1 => CodecKind::Zvc,
            2 => CodecKind::Rle,
            3 => CodecKind::Csr,
            4 => CodecKind::Lz4,
            5 => CodecKind::Bitmap,
            _ => return None,
        })
    }
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            CodecKind::Zvc => "zvc",
            CodecKind::Rle => "rle",
            CodecKind::Csr => "csr",
            CodecKind::Lz4 => "lz4",
            CodecKind::Bitmap => "bitmap",
        }
    }
}

/// Number of chunks of `len` elements.
pub fn chunks(len: usize) -> usize {
    len.div_ceil(CHUNK)
}

/// Where the parts of a compressed buffer start, in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// First mask word (ZVC only; equals `offsets` otherwise).
    pub masks: usize,
    /// First offset / row pointer word (`nchunks + 1` of them; none for
    /// Bitmap, where it equals `payload`).
    pub offsets: usize,
    /// First payload word.
    pub payload: usize,
}

impl Layout {
    /// Layout of a buffer of `len` elements compressed by `codec`.
    pub fn new(codec: CodecKind, len: usize) -> Self {
        if codec == CodecKind::Bitmap {
            // no chunk index: the mode and the value, then the payload
            let payload = HEADER_WORDS + BITMAP_INDEX_WORDS;
            return Layout {
                masks: payload,
                offsets: payload,
                payload,
            };
        }
        let masks = HEADER_WORDS;
        let mask_words = if codec == CodecKind::Zvc {
            len.div_ceil(GROUP)
        } else {
            0
        };
        let offsets = masks + mask_words;
        let payload = offsets + chunks(len) + 1;
        Layout {
            masks,
            offsets,
            payload,
        }
    }
}

/// Bitmap's total in words of `len` elements of `dtype` in `mode`
/// ([`BITMAP_BITS`] or [`BITMAP_STORED`]; `None` for another mode).
pub fn bitmap_total_words(dtype: DType, len: usize, mode: u32) -> Option<usize> {
    let payload = match mode {
        BITMAP_BITS => len.div_ceil(GROUP),
        BITMAP_STORED => dtype.words(len),
        _ => return None,
    };
    Some(HEADER_WORDS + BITMAP_INDEX_WORDS + payload)
}

/// Largest compressed size in words of `len` elements of `dtype` (the size of
/// the device buffer the compressor writes into).
pub fn max_compressed_words(codec: CodecKind, dtype: DType, len: usize) -> usize {
    let layout = Layout::new(codec, len);
    let n = chunks(len);
    let per_word = dtype.per_word();
    let payload = match codec {
        // every element non-zero, padded per chunk
        CodecKind::Zvc => dtype.words(len) + n,
        // every element stored with a u16 index, padded to even per chunk
        CodecKind::Csr | CodecKind::Rle => {
            let padded = len + n;
            padded / per_word + padded / 2 + n
        }
        CodecKind::Lz4 => n * lz4_max_chunk_words(dtype),
        // stored mode, never smaller than bits mode's `ceil(len / 32)`
        CodecKind::Bitmap => dtype.words(len),
    };
    layout.payload + payload
}

/// Worst-case LZ4 block for one chunk, in words (all literals).
pub(crate) fn lz4_max_chunk_words(dtype: DType) -> usize {
    let bytes = CHUNK * dtype.size();
    // token + length bytes (1 per 255) + literals, rounded to words
    (1 + bytes / 255 + 1 + bytes).div_ceil(4)
}

/// The header of a compressed buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Codec.
    pub codec: CodecKind,
    /// Element type.
    pub dtype: DType,
    /// Number of elements.
    pub len: usize,
    /// Total size of the compressed buffer in words (header included).
    pub total_words: usize,
    /// [`checksum`] of the uncompressed words (header word 7).
    pub checksum: u32,
}

/// The end-to-end checksum of uncompressed data: `sum_i words[i] * (2i + 1)
/// mod 2^32` over its `u32` words, the unused upper half of the last word of
/// an odd number of 16-bit elements counted as zero (what the decoders
/// write). The weight is odd, so a change to any single word changes the
/// sum. Independent of the codec; the GPU kernels compute the same sum while
/// they read (compress) or write (decompress) the words.
pub fn checksum(words: &[u32]) -> u32 {
    words.iter().enumerate().fold(0u32, |acc, (i, &w)| {
        acc.wrapping_add(w.wrapping_mul((2 * i as u32).wrapping_add(1)))
    })
}

/// [`checksum`] of `len` elements of `dtype` held in `words` (the junk half
/// of a last partial word ignored).
pub fn data_checksum(words: &[u32], dtype: DType, len: usize) -> u32 {
    let n = dtype.words(len);
    let mut sum = checksum(&words[..n]);
    if dtype.size() == 2 && len % 2 == 1 {
        let junk = words[n - 1] & 0xFFFF_0000;
        sum = sum.wrapping_sub(junk.wrapping_mul(2 * (n as u32 - 1) + 1));
    }
    sum
}

pub(crate) fn header_check(words: &[u32; 6]) -> u32 {
    // A cheap mix of the first six words (FNV-1a over words).
    let mut h: u32 = 0x811c_9dc5;
    for w in words {
        h ^= *w;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

impl Header {
    /// Encode to the `HEADER_WORDS` header words.
    pub fn encode(&self) -> [u32; HEADER_WORDS] {
        let six = [
            MAGIC,
            self.codec.code() | (self.dtype.code() << 8) | (VERSION << 16),
            self.len as u32,
            (self.len as u64 >> 32) as u32,
            self.total_words as u32,
            0,
        ];
        let check = header_check(&six);
        // the checksum is outside the header check: the GPU encoders add it
        // last, after the other words are written
        [
            six[0],
            six[1],
            six[2],
            six[3],
            six[4],
            six[5],
            check,
            self.checksum,
        ]
    }

    /// Decode and validate a header read from the first words of a buffer
    /// whose true length is `available_words` (pass `None` when unknown).
    pub fn decode(words: &[u32], available_words: Option<usize>) -> Result<Self, CodecError> {
        if words.len() < HEADER_WORDS {
            return Err(CodecError::Truncated {
                need: HEADER_WORDS * 4,
                have: words.len() * 4,
            });
        }
        if words[0] != MAGIC {
            return Err(CodecError::Corrupt("bad magic"));
        }
        let six: [u32; 6] = words[..6].try_into().unwrap();
        if header_check(&six) != words[6] {
            return Err(CodecError::Corrupt("header checksum mismatch"));
        }
        if words[1] >> 16 != VERSION {
            return Err(CodecError::Corrupt("unknown format version"));
        }
        let codec =
            CodecKind::from_code(words[1] & 0xff).ok_or(CodecError::Corrupt("unknown codec"))?;
        let dtype =
            DType::from_code((words[1] >> 8) & 0xff).ok_or(CodecError::Corrupt("unknown dtype"))?;
        let len = words[2] as usize | ((words[3] as usize) << 32);
        if !accepts(dtype, len) {
            return Err(CodecError::Corrupt("length too large"));
        }
        let total_words = words[4] as usize;
        let layout = Layout::new(codec, len);
        if total_words < layout.payload || total_words > max_compressed_words(codec, dtype, len) {
            return Err(CodecError::Corrupt("total size inconsistent with length"));
        }
        if let Some(avail) = available_words {
            if avail < total_words {
                return Err(CodecError::Truncated {
                    need: total_words * 4,
                    have: avail * 4,
                });
            }
        }
        Ok(Header {
            codec,
            dtype,
            len,
            total_words,
            checksum: words[7],
        })
    }
}

/// Bytes to little-endian words (the length must be a multiple of 4).
pub fn bytes_to_words(bytes: &[u8]) -> Result<Vec<u32>, CodecError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(CodecError::Truncated {
            need: bytes.len().next_multiple_of(4),
            have: bytes.len(),
        });
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// Words to little-endian bytes.
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Element `i` of a word buffer holding elements of `dtype`.
#[inline]
pub(crate) fn elem(words: &[u32], dtype: DType, i: usize) -> u32 {
    match dtype {
        DType::F32 => words[i],
        _ => (words[i / 2] >> ((i % 2) * 16)) & 0xffff,
    }
}

/// Pack elements (one per `u32`, low bits) into words of `dtype`.
pub(crate) fn pack(elems: &[u32], dtype: DType, out: &mut Vec<u32>) {
    match dtype {
        DType::F32 => out.extend_from_slice(elems),
        _ => out.extend(
            elems
                .chunks(2)
                .map(|p| (p[0] & 0xffff) | (p.get(1).copied().unwrap_or(0) << 16)),
        ),
    }
}
