#![allow(dead_code, clippy::should_implement_trait)]
//! Test data shared by the test files.

use cube_kernels::format::{self, CodecKind, DType, Layout};
use cube_kernels::CodecError;

pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// How the zeros are placed.
#[derive(Clone, Copy, Debug)]
pub enum Pattern {
    /// Each element zero with probability `sp`.
    Scattered(f64),
    /// Runs of zeros and non-zeros with mean length 40, `sp` of them zero.
    Clustered(f64),
    /// NaN (with payloads), +-Inf, -0.0, denormals, and zeros.
    Special,
    /// Few distinct values (runs and repeats for RLE / LZ4).
    Repetitive,
}

fn nonzero_bits(rng: &mut Rng, dtype: DType) -> u32 {
    loop {
        let v = match dtype {
            DType::F32 => (rng.next() as u32) & 0x7fff_ffff | 0x3000_0000,
            _ => (rng.next() as u32) & 0x7fff | 0x3000,
        };
        if v != 0 {
            return v;
        }
    }
}

/// `len` element bit patterns (one per u32, low bits for 16-bit dtypes).
pub fn elements(pattern: Pattern, dtype: DType, len: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    match pattern {
        Pattern::Scattered(sp) => (0..len)
            .map(|_| {
                if rng.unit() < sp {
                    0
                } else {
                    nonzero_bits(&mut rng, dtype)
                }
            })
            .collect(),
        Pattern::Clustered(sp) => {
            let mut v = Vec::with_capacity(len);
            let mut zero = rng.unit() < sp;
            while v.len() < len {
                let mean = if zero { 80.0 * sp } else { 80.0 * (1.0 - sp) };
                let run = (rng.unit() * 2.0 * mean) as usize + usize::from(mean > 0.0);
                for _ in 0..run.min(len - v.len()) {
                    v.push(if zero {
                        0
                    } else {
                        nonzero_bits(&mut rng, dtype)
                    });
                }
                zero = !zero;
            }
            v
        }
        Pattern::Special => {
            let specials: &[u32] = match dtype {
                DType::F32 => &[
                    0,
                    0x8000_0000,
                    0x7fc0_0000,
                    0x7fc1_2345,
                    0xffc0_0001,
                    0x7f80_0001,
                    0x7f80_0000,
                    0xff80_0000,
                    1,
                    0x8000_0001,
                    0x007f_ffff,
                ],
                DType::F16 => &[
                    0, 0x8000, 0x7e00, 0x7e55, 0xfe01, 0x7c01, 0x7c00, 0xfc00, 1, 0x8001, 0x03ff,
                ],
                DType::BF16 => &[
                    0, 0x8000, 0x7fc0, 0x7fc5, 0xffc1, 0x7f81, 0x7f80, 0xff80, 1, 0x8001, 0x007f,
                ],
            };
            (0..len)
                .map(|_| specials[(rng.next() % specials.len() as u64) as usize])
                .collect()
        }
        Pattern::Repetitive => {
            let mut v = Vec::with_capacity(len);
            while v.len() < len {
                let x = if rng.unit() < 0.3 {
                    0
                } else {
                    nonzero_bits(&mut rng, dtype) & 0xff0f
                };
                let run = 1 + (rng.next() % 20) as usize;
                for _ in 0..run.min(len - v.len()) {
                    v.push(x);
                }
            }
            v
        }
    }
}

/// Pack elements into words; for an odd number of 16-bit elements the
/// unused upper half of the last word is filled with `junk` (the codecs must
/// ignore it).
pub fn pack(elems: &[u32], dtype: DType, junk: u32) -> Vec<u32> {
    match dtype {
        DType::F32 => elems.to_vec(),
        _ => elems
            .chunks(2)
            .map(|p| (p[0] & 0xffff) | (p.get(1).copied().unwrap_or(junk & 0xffff) << 16))
            .collect(),
    }
}

/// Elements of packed words.
pub fn unpack(words: &[u32], dtype: DType, len: usize) -> Vec<u32> {
    match dtype {
        DType::F32 => words[..len].to_vec(),
        _ => (0..len)
            .map(|i| (words[i / 2] >> ((i % 2) * 16)) & 0xffff)
            .collect(),
    }
}

pub const PATTERNS: &[Pattern] = &[
    Pattern::Scattered(0.0),
    Pattern::Scattered(0.2),
    Pattern::Scattered(0.5),
    Pattern::Scattered(0.8),
    Pattern::Scattered(0.95),
    Pattern::Scattered(1.0),
    Pattern::Clustered(0.5),
    Pattern::Clustered(0.9),
    Pattern::Special,
    Pattern::Repetitive,
];

/// The word of a stored value (not a mask, offset, index or LZ4 token) of
/// chunk `c`, and the bit to flip in it. Bitmap: in stored mode the chunk's
/// first word, in bits mode the value word.
pub fn value_word(
    codec: CodecKind,
    dtype: DType,
    c: &[u32],
    len: usize,
    chunk: usize,
) -> (usize, u32) {
    let layout = Layout::new(codec, len);
    if codec == CodecKind::Bitmap {
        return match c[format::HEADER_WORDS] {
            format::BITMAP_STORED => (
                layout.payload + chunk * format::CHUNK * dtype.size() / 4,
                1 << 3,
            ),
            _ => (format::HEADER_WORDS + 1, 1 << 3),
        };
    }
    let a = c[layout.offsets + chunk] as usize;
    match codec {
        // the chunk's first kept element (low half for 16-bit)
        CodecKind::Zvc => (layout.payload + a * dtype.size() / 4, 1 << 3),
        // the chunk's first value (the values come before the indices)
        CodecKind::Csr | CodecKind::Rle => (layout.payload + a * dtype.size() / 4 + a / 2, 1 << 3),
        CodecKind::Lz4 => {
            // the first literal byte of the chunk's block: after the token
            // and its literal-length bytes
            let bytes = format::words_to_bytes(&c[layout.payload + a / 4..]);
            let mut i = 1;
            if bytes[0] >> 4 == 15 {
                while bytes[i] == 255 {
                    i += 1;
                }
                i += 1;
            }
            assert!(bytes[0] >> 4 > 0, "block starts with literals");
            (layout.payload + a / 4 + i / 4, 1 << (8 * (i % 4) + 3))
        }
        CodecKind::Bitmap => unreachable!("handled above"),
    }
}

/// A decode that failed on the data checksum.
pub fn checksum_mismatch<T>(result: &Result<T, CodecError>) -> bool {
    matches!(result, Err(CodecError::ChecksumMismatch { .. }))
}

/// The bit pattern of 1.0 in `dtype` (low bits for 16-bit dtypes).
pub fn one(dtype: DType) -> u32 {
    match dtype {
        DType::F32 => 0x3F80_0000,
        DType::F16 => 0x3C00,
        DType::BF16 => 0x3F80,
    }
}

/// `len` elements, each zero with probability `sp`, else `value` (a
/// dropout mask's zeros and ones).
pub fn two_valued(value: u32, len: usize, sp: f64, seed: u64) -> Vec<u32> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    (0..len)
        .map(|_| if rng.unit() < sp { 0 } else { value })
        .collect()
}

/// Zero fractions of two-valued test data (all ones to all zeros).
pub const TWO_VALUED_ZEROS: &[f64] = &[0.0, 0.1, 0.5, 0.9, 1.0];
