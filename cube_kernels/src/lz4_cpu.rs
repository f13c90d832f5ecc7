// CPU half of the LZ4 codec (included by lz4.rs).

/// Bytes of a chunk's elements (little-endian).
pub(crate) fn chunk_bytes(elems: &[u32], dtype: DType) -> Vec<u8> {
    match dtype {
        DType::F32 => elems.iter().flat_map(|e| e.to_le_bytes()).collect(),
        _ => elems.iter().flat_map(|e| (*e as u16).to_le_bytes()).collect(),
    }
}

/// Elements from decompressed chunk bytes.
pub(crate) fn push_elems(bytes: &[u8], dtype: DType, out: &mut Vec<u32>) {
    match dtype {
        DType::F32 => out.extend(bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()))),
        _ => out.extend(bytes.chunks_exact(2).map(|c| u16::from_le_bytes(c.try_into().unwrap()) as u32)),
    }
}

/// Hash-table slots of the greedy matcher (per chunk).
pub(crate) const HASH_SLOTS: usize = 256;
/// Longest match offset in words (LZ4 offsets are < 65536 bytes).
pub(crate) const MAX_OFFSET_WORDS: usize = 16383;

#[inline]
pub(crate) fn hash(w: u32) -> usize {
    (w.wrapping_mul(2_654_435_761) >> 24) as usize
}

fn push_len(out: &mut Vec<u8>, mut extra: usize) {
    while extra >= 255 {
        out.push(255);
        extra -= 255;
    }
    out.push(extra as u8);
}

fn push_sequence(out: &mut Vec<u8>, literals: &[u8], matched: Option<(usize, usize)>) {
    let lit = literals.len();
    let ml = matched.map_or(0, |(_, len)| len - 4);
    let token = ((lit.min(15) as u8) << 4) | if matched.is_some() { ml.min(15) as u8 } else { 0 };
    out.push(token);
    if lit >= 15 {
        push_len(out, lit - 15);
    }
    out.extend_from_slice(literals);
    if let Some((offset, _)) = matched {
        out.extend_from_slice(&(offset as u16).to_le_bytes());
        if ml >= 15 {
            push_len(out, ml - 15);
        }
    }
}

/// Compress one chunk into an LZ4 block with the GPU's greedy matcher:
/// matches are found on whole 32-bit words (positions, offsets and lengths
/// are multiples of 4 bytes), which keeps the GPU encoder and decoder
/// word-wide; the output is a standard LZ4 block.
pub(crate) fn compress_block(bytes: &[u8]) -> Vec<u8> {
    let l = bytes.len();
    let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let mut table = [0u32; HASH_SLOTS];
    let mut out = Vec::new();
    let mut anchor = 0usize;
    let mut p = 0usize;
    let max_end = l.saturating_sub(5) / 4;
    while 4 * p + 12 <= l {
        let v = words[p];
        let h = hash(v);
        let cand = table[h] as usize;
        table[h] = p as u32 + 1;
        if cand != 0 && words[cand - 1] == v && p - (cand - 1) <= MAX_OFFSET_WORDS {
            let s = cand - 1;
            let mut len = 1;
            while p + len < max_end && words[s + len] == words[p + len] {
                len += 1;
            }
            push_sequence(&mut out, &bytes[4 * anchor..4 * p], Some((4 * (p - s), 4 * len)));
            p += len;
            anchor = p;
        } else {
            p += 1;
        }
    }
    push_sequence(&mut out, &bytes[4 * anchor..], None);
    out
}

/// Decompress one LZ4 block that must produce exactly `expected` bytes. Any
/// standard LZ4 block is accepted; trailing input of fewer than 4 bytes
/// (word padding) is allowed after the last sequence.
pub(crate) fn decompress_block(input: &[u8], expected: usize) -> Result<Vec<u8>, CodecError> {
    let bad = |m| CodecError::Corrupt(m);
    let mut out = Vec::with_capacity(expected);
    let mut i = 0usize;
    let read_len = |i: &mut usize, mut len: usize| -> Result<usize, CodecError> {
        loop {
            let b = *input.get(*i).ok_or(bad("LZ4 length runs past the block"))?;
            *i += 1;
            len += b as usize;
            if len > expected {
                return Err(bad("LZ4 length exceeds the chunk"));
            }
            if b != 255 {
                return Ok(len);
            }
        }
    };
    loop {
        let token = *input.get(i).ok_or(bad("LZ4 block ends before its data"))?;
        i += 1;
        let mut lit = (token >> 4) as usize;
        if lit == 15 {
            lit = read_len(&mut i, lit)?;
        }
        if i + lit > input.len() || out.len() + lit > expected {
            return Err(bad("LZ4 literals run past the block or chunk"));
        }
        out.extend_from_slice(&input[i..i + lit]);
        i += lit;
        if out.len() == expected {
            if input.len() - i >= 4 || token & 15 != 0 {
                return Err(bad("LZ4 data after the last sequence"));
            }
            return Ok(out);
        }
        if i + 2 > input.len() {
            return Err(bad("LZ4 offset runs past the block"));
        }
        let offset = u16::from_le_bytes([input[i], input[i + 1]]) as usize;
        i += 2;
        let mut ml = (token & 15) as usize;
        if ml == 15 {
            ml = read_len(&mut i, ml)?;
        }
        let ml = ml + 4;
        if offset == 0 || offset > out.len() || out.len() + ml > expected {
            return Err(bad("LZ4 match offset or length out of range"));
        }
        let from = out.len() - offset;
        for k in 0..ml {
            out.push(out[from + k]);
        }
    }
}
