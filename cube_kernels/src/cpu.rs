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
    }
}

/// Validate the index of a compressed buffer (offsets monotone, each chunk's
/// region inside the payload, the last offset matching the payload size).
/// Returns the header. Cost: one pass over the `nchunks + 1` offsets.
pub fn validate_index(words: &[u32]) -> Result<Header, CodecError> {
    let h = Header::decode(words, Some(words.len()))?;
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
        };
        let unit = match h.codec {
            CodecKind::Zvc => h.dtype.per_word(),
            CodecKind::Csr | CodecKind::Rle => 2,
            CodecKind::Lz4 => 4,
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
        }
    }
    let mut out = Vec::with_capacity(dtype.words(h.len));
    pack(&elems, dtype, &mut out);
    let found = checksum(&out);
    if found != h.checksum {
        return Err(CodecError::ChecksumMismatch {
            expected: h.checksum,
            found,
        });
    }
    Ok((out, h))
}
