//! CPU reference of every codec, in the same format as the GPU kernels.
//!
//! Used by the tests (every GPU result is compared with it) and as the host
//! fallback. The encoders are deterministic and make the same choices as the
//! GPU encoders, so the compressed bytes are identical too.

use crate::format::*;
use crate::{lz4, CodecError};

/// Compress `len` elements of `dtype` stored in `words` (little-endian, two
/// 16-bit elements per word). Returns the whole compressed buffer.
pub fn compress(
    codec: CodecKind,
    dtype: DType,
    words: &[u32],
    len: usize,
) -> Result<Vec<u32>, CodecError> {
    if words.len() < dtype.words(len) {
        return Err(CodecError::Truncated {
            need: dtype.words(len) * 4,
            have: words.len() * 4,
        });
    }
    if !crate::format::accepts(dtype, len) {
        return Err(CodecError::TooLarge {
            elements: len,
            max: crate::format::MAX_ELEMENTS - 1,
        });
    }
    if codec == CodecKind::Bitmap {
        return Ok(compress_bitmap(dtype, words, len));
    }
    let layout = Layout::new(codec, len);
    let n = chunks(len);
    let mut out = vec![0u32; layout.payload];
    let mut payload = Vec::new();
    let mut offset = 0usize;
    let mut chunk = Vec::with_capacity(CHUNK);
    for c in 0..n {
        let start = c * CHUNK;
        let end = (start + CHUNK).min(len);
        chunk.clear();
        chunk.extend((start..end).map(|i| elem(words, dtype, i)));
        let count = match codec {
            CodecKind::Zvc => {
                let mut vals = Vec::new();
                for (g, group) in chunk.chunks(GROUP).enumerate() {
                    let mut mask = 0u32;
                    for (j, &v) in group.iter().enumerate() {
                        if v != 0 {
                            mask |= 1 << j;
                            vals.push(v);
                        }
                    }
                    out[layout.masks + c * GROUPS_PER_CHUNK + g] = mask;
                }
                vals.resize(vals.len().next_multiple_of(dtype.per_word()), 0);
                pack(&vals, dtype, &mut payload);
                vals.len()
            }
            CodecKind::Csr | CodecKind::Rle => {
                let mut vals = Vec::new();
                let mut idx = Vec::new();
                for (j, &v) in chunk.iter().enumerate() {
                    let keep = match codec {
                        CodecKind::Csr => v != 0,
                        _ => j == 0 || v != chunk[j - 1],
                    };
                    if keep {
                        vals.push(v);
                        idx.push(j as u32);
                    }
                }
                if vals.len() % 2 == 1 {
                    vals.push(0);
                    idx.push(PAD_INDEX);
                }
                pack(&vals, dtype, &mut payload);
                pack(&idx, DType::F16, &mut payload);
                vals.len()
            }
            CodecKind::Lz4 => {
                let bytes = lz4::chunk_bytes(&chunk, dtype);
                let block = lz4::compress_block(&bytes);
                let nbytes = block.len().next_multiple_of(4);
                let mut padded = block;
                padded.resize(nbytes, 0);
                payload.extend(
                    padded
                        .chunks_exact(4)
                        .map(|c| u32::from_le_bytes(c.try_into().unwrap())),
                );
                nbytes
            }
            CodecKind::Bitmap => unreachable!("Bitmap has no chunks"),
        };
        out[layout.offsets + c] = offset as u32;
        offset += count;
    }
    out[layout.offsets + n] = offset as u32;
    out.extend_from_slice(&payload);
    let header = Header {
        codec,
        dtype,
        len,
        total_words: out.len(),
        checksum: data_checksum(words, dtype, len),
    };
    out[..HEADER_WORDS].copy_from_slice(&header.encode());
    Ok(out)
}

/// Words of the payload region of chunk `c` that start at element / entry
/// offset `e` (see the format table).
pub(crate) fn region_word(codec: CodecKind, dtype: DType, e: usize) -> usize {
    match codec {
        CodecKind::Zvc => e * dtype.size() / 4,
        CodecKind::Csr | CodecKind::Rle => e * dtype.size() / 4 + e / 2,
        CodecKind::Lz4 => e / 4,
        CodecKind::Bitmap => unreachable!("Bitmap has no chunks"),
    }
}

/// Bitmap compress: bits mode when every non-zero element has one bit
/// pattern, else stored mode (see the format table).
fn compress_bitmap(dtype: DType, words: &[u32], len: usize) -> Vec<u32> {
    let mut value = 0u32;
    let mut two_valued = true;
    for i in 0..len {
        let e = elem(words, dtype, i);
        if e != 0 {
            if value == 0 {
                value = e;
            } else if e != value {
                two_valued = false;
                break;
            }
        }
    }
    let (mode, value) = if two_valued {
        (BITMAP_BITS, value)
    } else {
        (BITMAP_STORED, 0)
    };
    let total = bitmap_total_words(dtype, len, mode).expect("a Bitmap mode");
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&[0; HEADER_WORDS]);
    out.extend_from_slice(&[mode, value]);
    if two_valued {
        let mut bits = vec![0u32; len.div_ceil(GROUP)];
        for i in 0..len {
            if elem(words, dtype, i) != 0 {
                bits[i / GROUP] |= 1 << (i % GROUP);
            }
        }
        out.extend_from_slice(&bits);
    } else {
        let n = dtype.words(len);
        out.extend_from_slice(&words[..n]);
        if dtype.size() == 2 && len % 2 == 1 {
            // the junk upper half of the last word
            out[total - 1] &= 0xFFFF;
        }
    }
    let header = Header {
        codec: CodecKind::Bitmap,
        dtype,
        len,
        total_words: total,
        checksum: data_checksum(words, dtype, len),
    };
    out[..HEADER_WORDS].copy_from_slice(&header.encode());
    out
}

/// Bitmap's index check: a known mode, the total it implies, a value that
/// fits the dtype (zero in stored mode).
fn validate_bitmap(words: &[u32], h: &Header) -> Result<(), CodecError> {
    let (mode, value) = (words[HEADER_WORDS], words[HEADER_WORDS + 1]);
    let total = bitmap_total_words(h.dtype, h.len, mode)
        .ok_or(CodecError::Corrupt("unknown bitmap mode"))?;
    if total != h.total_words {
        return Err(CodecError::Corrupt(
            "total size does not match the bitmap mode",
        ));
    }
    let fits = match mode {
        BITMAP_BITS => h.dtype.size() == 4 || value <= 0xFFFF,
        _ => value == 0,
    };
    if !fits {
        return Err(CodecError::Corrupt("bitmap value does not fit the mode"));
    }
    Ok(())
}

/// Bitmap decompress of a buffer [`validate_bitmap`] accepted: the words,
/// before the checksum check.
fn decompress_bitmap(words: &[u32], h: &Header) -> Result<Vec<u32>, CodecError> {
    let (mode, value) = (words[HEADER_WORDS], words[HEADER_WORDS + 1]);
    let payload = &words[HEADER_WORDS + BITMAP_INDEX_WORDS..h.total_words];
    let dtype = h.dtype;
    let mut out = Vec::with_capacity(dtype.words(h.len));
    if mode == BITMAP_STORED {
        out.extend_from_slice(payload);
        if dtype.size() == 2 && h.len % 2 == 1 {
            if let Some(last) = out.last_mut() {
                if *last >> 16 != 0 {
                    return Err(CodecError::Corrupt("stored bitmap padding is not zero"));
                }
            }
        }
        return Ok(out);
    }
    if value == 0 && payload.iter().any(|&w| w != 0) {
        return Err(CodecError::Corrupt("bitmap bit set with a zero value"));
    }
    let tail = h.len % GROUP;
    if tail != 0 && payload[payload.len() - 1] >> tail != 0 {
        return Err(CodecError::Corrupt("bitmap bit past the end"));
    }
    let elems: Vec<u32> = (0..h.len)
        .map(|i| {
            if payload[i / GROUP] >> (i % GROUP) & 1 == 1 {
                value
            } else {
                0
            }
        })
        .collect();
    pack(&elems, dtype, &mut out);
    Ok(out)
}

/// Validate the index of a compressed buffer (offsets monotone, each chunk's
/// region inside the payload, the last offset matching the payload size;
/// Bitmap: a known mode, the total it implies, a value that fits).
/// Returns the header. Cost: one pass over the `nchunks + 1` offsets.
pub fn validate_index(words: &[u32]) -> Result<Header, CodecError> {
    let h = Header::decode(words, Some(words.len()))?;
    if h.codec == CodecKind::Bitmap {
        validate_bitmap(words, &h)?;
        return Ok(h);
    }
    let layout = Layout::new(h.codec, h.len);
    let n = chunks(h.len);
    let offs = &words[layout.offsets..layout.offsets + n + 1];
    if offs[0] != 0 {
        return Err(CodecError::Corrupt("first chunk offset is not zero"));
    }
    for c in 0..n {
        let (a, b) = (offs[c] as usize, offs[c + 1] as usize);
        let chunk_len = (h.len - c * CHUNK).min(CHUNK);
        let max = match h.codec {
            CodecKind::Zvc => chunk_len.next_multiple_of(h.dtype.per_word()),
            CodecKind::Csr | CodecKind::Rle => chunk_len.next_multiple_of(2),
            CodecKind::Lz4 => lz4_max_chunk_words(h.dtype) * 4,
            CodecKind::Bitmap => unreachable!("Bitmap has no chunks"),
        };
        let unit = match h.codec {
            CodecKind::Zvc => h.dtype.per_word(),
            CodecKind::Csr | CodecKind::Rle => 2,
            CodecKind::Lz4 => 4,
            CodecKind::Bitmap => unreachable!("Bitmap has no chunks"),
        };
        if b < a || b - a > max || b % unit != 0 {
            return Err(CodecError::Corrupt(
                "chunk offsets out of order or too far apart",
            ));
        }
    }
    let payload = region_word(h.codec, h.dtype, offs[n] as usize);
    if layout.payload + payload != h.total_words {
        return Err(CodecError::Corrupt(
            "payload size does not match the chunk offsets",
        ));
    }
    Ok(h)
}

/// Decompress a whole compressed buffer. Returns the element words (the
/// last word zero-padded for an odd number of 16-bit elements) and the header.
pub fn decompress(words: &[u32]) -> Result<(Vec<u32>, Header), CodecError> {
    let h = validate_index(words)?;
    if h.codec == CodecKind::Bitmap {
        // `validate_index` checked its mode, total and value
        let out = decompress_bitmap(words, &h)?;
        return check_sum(out, h);
    }
    let layout = Layout::new(h.codec, h.len);
    let n = chunks(h.len);
    let offs = &words[layout.offsets..layout.offsets + n + 1];
    let payload = &words[layout.payload..h.total_words];
    let dtype = h.dtype;
    let mut elems: Vec<u32> = Vec::with_capacity(h.len);
    for c in 0..n {
        let chunk_len = (h.len - c * CHUNK).min(CHUNK);
        let (a, b) = (offs[c] as usize, offs[c + 1] as usize);
        let base = region_word(h.codec, dtype, a);
        let region = &payload[base..region_word(h.codec, dtype, b)];
        let count = b - a;
        match h.codec {
            CodecKind::Zvc => {
                let masks =
                    &words[layout.masks + c * GROUPS_PER_CHUNK..][..chunk_len.div_ceil(GROUP)];
                let total: usize = masks.iter().map(|m| m.count_ones() as usize).sum();
                if total.next_multiple_of(dtype.per_word()) != count {
                    return Err(CodecError::Corrupt("ZVC masks disagree with chunk offsets"));
                }
                let mut k = 0;
                for (g, &m) in masks.iter().enumerate() {
                    let glen = (chunk_len - g * GROUP).min(GROUP);
                    if glen < 32 && m >> glen != 0 {
                        return Err(CodecError::Corrupt("ZVC mask bit past the end"));
                    }
                    for j in 0..glen {
                        if m >> j & 1 == 1 {
                            elems.push(elem(region, dtype, k));
                            k += 1;
                        } else {
                            elems.push(0);
                        }
                    }
                }
            }
            CodecKind::Csr | CodecKind::Rle => {
                let vwords = count * dtype.size() / 4;
                let (vals, idx) = region.split_at(vwords);
                let mut prev: Option<usize> = None;
                let mut entries = Vec::with_capacity(count);
                for k in 0..count {
                    let i = elem(idx, DType::F16, k);
                    let v = elem(vals, dtype, k);
                    if i == PAD_INDEX {
                        if k + 1 != count {
                            return Err(CodecError::Corrupt("padding entry not last"));
                        }
                        continue;
                    }
                    let i = i as usize;
                    if i >= chunk_len || prev.is_some_and(|p| i <= p) {
                        return Err(CodecError::Corrupt("index out of order or past the chunk"));
                    }
                    prev = Some(i);
                    entries.push((i, v));
                }
                let start = elems.len();
                if h.codec == CodecKind::Csr {
                    elems.resize(start + chunk_len, 0);
                    for (i, v) in entries {
                        elems[start + i] = v;
                    }
                } else {
                    if entries.first().map(|e| e.0) != Some(0) {
                        return Err(CodecError::Corrupt("RLE chunk does not start with a run"));
                    }
                    for (r, &(i, v)) in entries.iter().enumerate() {
                        let end = entries.get(r + 1).map_or(chunk_len, |e| e.0);
                        elems.extend(std::iter::repeat_n(v, end - i));
                    }
                }
            }
            CodecKind::Lz4 => {
                let bytes = words_to_bytes(region);
                let out = lz4::decompress_block(&bytes, chunk_len * dtype.size())?;
                lz4::push_elems(&out, dtype, &mut elems);
            }
            CodecKind::Bitmap => unreachable!("Bitmap has no chunks"),
        }
    }
    let mut out = Vec::with_capacity(dtype.words(h.len));
    pack(&elems, dtype, &mut out);
    check_sum(out, h)
}

/// The decoded words if their checksum is the header's.
fn check_sum(out: Vec<u32>, h: Header) -> Result<(Vec<u32>, Header), CodecError> {
    let found = checksum(&out);
    if found != h.checksum {
        return Err(CodecError::ChecksumMismatch {
            expected: h.checksum,
            found,
        });
    }
    Ok((out, h))
}
