//! The compress kernel of CSR and RLE (ZVC has its own, in `zvc.rs`):
//! per chunk, a predicate
//! per element (non-zero, or starts a run), a mask per 32 elements, a block
//! scan of the mask popcounts, a decoupled look-back across chunks for the
//! chunk's output offset (one read of the input, one write of the output),
//! and a coalesced write of the compacted elements staged in shared memory.

// #[cube] code: the kernel language has no div_ceil / is_multiple_of, and
// keeps its own control-flow shape.
#![allow(
    clippy::manual_div_ceil,
    clippy::manual_is_multiple_of,
    clippy::assign_op_pattern,
    clippy::collapsible_if,
    clippy::collapsible_else_if
)]

use cubecl::prelude::*;

use crate::format::{CHUNK, GROUPS_PER_CHUNK, HEADER_WORDS, MAGIC, PAD_INDEX};

/// Look-back state flags (top two bits of a state word).
pub(crate) const FLAG_AGGREGATE: u32 = 1 << 30;
pub(crate) const FLAG_PREFIX: u32 = 2 << 30;
pub(crate) const VALUE_MASK: u32 = (1 << 30) - 1;

/// Kernel passes: single pass with decoupled look-back, or count then write
/// (with [`scan_offsets`] between).
pub(crate) const PASS_SINGLE: u32 = 0;
pub(crate) const PASS_COUNT: u32 = 1;
pub(crate) const PASS_WRITE: u32 = 2;

/// Exclusive scan of the per-chunk counts (one cube), written as the chunk
/// offsets of the compressed buffer, with the total size and the header.
/// The payload size in words is `end / div + (end / 2 if idx_half)`.
/// `counts[n..n + nparts]` are the compress cubes' partial checksums: their
/// sum is the header's checksum word.
#[cube(launch)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn scan_offsets(
    counts: &Array<u32>,
    out: &mut Array<u32>,
    size: &mut Array<u32>,
    n: u32,
    nparts: u32,
    offs_base: u32,
    payload_base: u32,
    len: u32,
    header_w1: u32,
    #[comptime] div: u32,
    #[comptime] idx_half: bool,
    #[comptime] block: u32,
) {
    let mut sm = SharedMemory::<u32>::new(block as usize);
    let t = UNIT_POS;
    let mut part = 0u32;
    let mut k = t;
    while k < nparts {
        part += counts[(n + k) as usize];
        k += block;
    }
    let csum = cube_sum(part, &mut sm, block, false);
    if t == 0 {
        out[7] = csum;
    }
    sync_cube();
    let seg = (n + block - 1) / block;
    let start = cubecl::prelude::min(t * seg, n);
    let end = cubecl::prelude::min(start + seg, n);
    let mut sum = 0u32;
    for k in start..end {
        sum += counts[k as usize];
    }
    sm[t as usize] = sum;
    sync_cube();
    #[unroll]
    for step in 0..comptime!(block.trailing_zeros()) {
        let s = comptime!(1u32 << step);
        let mut v = sm[t as usize];
        if t >= s {
            v += sm[(t - s) as usize];
        }
        sync_cube();
        sm[t as usize] = v;
        sync_cube();
    }
    let mut running = sm[t as usize] - sum;
    for k in start..end {
        out[(offs_base + k) as usize] = running;
        running += counts[k as usize];
    }
    if t == block - 1 {
        let total = sm[t as usize];
        out[(offs_base + n) as usize] = total;
        let mut total_words = payload_base + total / div;
        if idx_half {
            total_words += total / 2;
        }
        write_header(out, size, header_w1, len, total_words);
    }
}

/// Writes the size word and the header's first seven words of a buffer of
/// `total_words`; word 7, the data checksum, is written by whichever cube
/// has it.
#[cube]
pub(crate) fn write_header(
    out: &mut Array<u32>,
    size: &mut Array<u32>,
    header_w1: u32,
    len: u32,
    total_words: u32,
) {
    size[0] = total_words;
    out[0] = MAGIC;
    out[1] = header_w1;
    out[2] = len;
    out[3] = 0u32;
    out[4] = total_words;
    out[5] = 0u32;
    out[6] = device_header_check(MAGIC, header_w1, len, 0u32, total_words);
}

/// Sum of `v` over the cube's `block` units (a power of two), valid at unit
/// 0; every unit must call it (barriers inside), and `sm` (`block` words)
/// may be reused afterwards only after a barrier. `plane` (devices with
/// plane operations, one plane width that divides `block`): `plane_sum` per
/// plane, then the plane totals from shared memory by the first plane; else
/// a tree in shared memory. `PLANE_DIM` is read at run time (32 on CUDA, 8
/// or others elsewhere).
#[cube]
pub(crate) fn cube_sum(
    v: u32,
    sm: &mut SharedMemory<u32>,
    #[comptime] block: u32,
    #[comptime] plane: bool,
) -> u32 {
    let t = UNIT_POS;
    let mut total = 0u32;
    // the caller may still be reading `sm`
    sync_cube();
    if comptime!(plane) {
        let s = plane_sum(v);
        if UNIT_POS_PLANE == 0 {
            sm[(t / PLANE_DIM) as usize] = s;
        }
        sync_cube();
        if t < PLANE_DIM {
            let nplanes = (block + PLANE_DIM - 1) / PLANE_DIM;
            let mut x = 0u32;
            let mut k = t;
            while k < nplanes {
                x += sm[k as usize];
                k += PLANE_DIM;
            }
            total = plane_sum(x);
        }
    } else {
        sm[t as usize] = v;
        sync_cube();
        #[unroll]
        for step in 0..comptime!(block.trailing_zeros()) {
            let s = comptime!(block >> (step + 1));
            if t < s {
                sm[t as usize] = sm[t as usize] + sm[(t + s) as usize];
            }
            sync_cube();
        }
        total = sm[0];
    }
    total
}

/// A word's term in the data checksum (`format::checksum`): the word times
/// the odd weight `2 * index + 1`, wrapping.
#[cube]
pub(crate) fn checksum_term(word: u32, index: u32) -> u32 {
    word * (2u32 * index + 1u32)
}

/// The end of a single-pass compress, in every cube (every unit calls it;
/// `part`, the cube's checksum part, is read at unit 0).
///
/// One 64-bit atomic add counts the cube done and adds its part:
/// `done[0]` holds (checksum << 32) + cubes done, so the cube that brings
/// the count to `CUBE_COUNT` knows every other cube has finished and holds
/// the whole checksum, which it writes to header word 7. Two 32-bit
/// atomics could not tell it that: CubeCL has no fence to order them.
///
/// Each unit also zeroes one of the `clear_words` words of `clear`: the
/// state the previous launch on this stream used (see `single_pass.rs`).
/// One word a unit, no loop: a loop here costs the 16-bit ZVC kernel
/// registers and occupancy. `D` is `u64`; other passes bind `u32` and skip
/// this.
#[cube]
pub(crate) fn finish_single_pass<D: Int>(
    part: u32,
    done: &mut Array<Atomic<D>>,
    clear: &mut Array<u32>,
    clear_words: u32,
    out: &mut Array<u32>,
    #[comptime] block: u32,
) {
    let i = CUBE_POS as u32 * block + UNIT_POS;
    if i < clear_words {
        clear[i as usize] = 0u32;
    }
    if UNIT_POS == 0 {
        let mine = (D::cast_from(part) << D::new(32)) + D::new(1);
        let all = done[0].fetch_add(mine) + mine;
        // (the cast keeps the low word)
        if u32::cast_from(all) == CUBE_COUNT as u32 {
            out[7] = u32::cast_from(all >> D::new(32));
        }
    }
}

/// The header check of `format::header_check`, on the device.
#[cube]
pub(crate) fn device_header_check(w0: u32, w1: u32, w2: u32, w3: u32, w4: u32) -> u32 {
    let mut h = 0x811c_9dc5u32;
    h = (h ^ w0) * 0x0100_0193u32;
    h = (h ^ w1) * 0x0100_0193u32;
    h = (h ^ w2) * 0x0100_0193u32;
    h = (h ^ w3) * 0x0100_0193u32;
    h = (h ^ w4) * 0x0100_0193u32;
    // sixth word is zero
    h = h * 0x0100_0193u32;
    h
}

/// Inclusive scan of `GROUPS_PER_CHUNK` counts in shared memory (needs a
/// cube of at least that many units; every unit must call it).
#[cube]
pub(crate) fn block_scan_groups(counts: &mut SharedMemory<u32>) {
    let tid = UNIT_POS as usize;
    #[unroll]
    for step in 0..comptime!(GROUPS_PER_CHUNK.trailing_zeros()) {
        let s = comptime!(1usize << step);
        let mut v = 0u32;
        if tid < GROUPS_PER_CHUNK {
            v = counts[tid];
            if tid >= s {
                v += counts[tid - s];
            }
        }
        sync_cube();
        if tid < GROUPS_PER_CHUNK {
            counts[tid] = v;
        }
        sync_cube();
    }
}

/// Compress kernel for CSR and RLE (`rle`).
///
/// One cube per chunk in turn: a cube takes `iters` tickets from `state[0]`
/// (tickets past the last chunk do nothing); `state[1 + c]` is chunk `c`'s
/// look-back word; `state` and `done` are zero at launch. `PASS_SINGLE`
/// binds as `counts` the state to clear ([`finish_single_pass`]).
///
/// Checksum of the input (see `format::checksum`), each unit over the words
/// it loads, once per cube: `PASS_SINGLE` adds it up in `done` (see
/// [`finish_single_pass`]), `PASS_COUNT` stores it in
/// `counts[nchunks + CUBE_POS]` (for [`scan_offsets`]).
#[cube(launch)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn compact_compress<D: Int>(
    input: &Array<u32>,
    out: &mut Array<u32>,
    state: &mut Array<Atomic<u32>>,
    done: &mut Array<Atomic<D>>,
    size: &mut Array<u32>,
    counts: &mut Array<u32>,
    len: u32,
    in_words: u32,
    nchunks: u32,
    iters: u32,
    offs_base: u32,
    payload_base: u32,
    header_w1: u32,
    clear_words: u32,
    #[comptime] rle: bool,
    #[comptime] half: bool,
    #[comptime] block: u32,
    #[comptime] pass: u32,
    #[comptime] plane: bool,
) {
    let epw = comptime!(if half { 2u32 } else { 1u32 });
    let wpc = comptime!(CHUNK as u32 / epw);
    let gpw = comptime!(32u32 / epw);
    let mut csum = 0u32;
    // Values and 16-bit indices are padded to whole words together.
    let pad_unit = 2u32;
    let tid = UNIT_POS;

    // input staging (padded against bank conflicts); CSR/RLE reuse it for
    // the indices, one per element
    let mut sm_in = SharedMemory::<u32>::new(CHUNK + CHUNK / 32);
    let mut sm_vals = SharedMemory::<u32>::new(CHUNK);
    let mut sm_cnt = SharedMemory::<u32>::new(GROUPS_PER_CHUNK);
    let mut sm_mask = SharedMemory::<u32>::new(GROUPS_PER_CHUNK);
    let mut sm_misc = SharedMemory::<u32>::new(2usize);

    for it in 0..iters {
        if pass == PASS_SINGLE {
            if tid == 0 {
                sm_misc[0] = state[0].fetch_add(1u32);
            }
        } else if tid == 0 {
            sm_misc[0] = CUBE_POS as u32 + it * CUBE_COUNT as u32;
        }
        sync_cube();
        let c = sm_misc[0];
        let active = c < nchunks;

        // 1. coalesced load of the chunk into shared memory
        let base = c * wpc;
        #[unroll]
        for i in 0..comptime!(wpc / block) {
            let k = i * block + tid;
            let w = base + k;
            let mut v = 0u32;
            if active && w < in_words {
                v = input[w as usize];
            }
            if comptime!(pass != PASS_WRITE) {
                csum += checksum_term(v, w);
            }
            sm_in[(k + k / 32) as usize] = v;
        }
        if comptime!(half && pass != PASS_WRITE) {
            // odd 16-bit length: the last word's upper half is not data
            if active && c == nchunks - 1 && tid == 0 && len % 2 == 1 {
                let w = in_words - 1;
                csum -= checksum_term(input[w as usize] & 0xFFFF_0000u32, w);
            }
        }
        sync_cube();

        // 2. one mask per 32 elements
        let g = tid;
        let chunk_start = c * CHUNK as u32;
        if tid < GROUPS_PER_CHUNK as u32 {
            let mut mask = 0u32;
            let mut prev = 0u32;
            if g > 0 {
                let k = g * gpw - 1;
                let w = sm_in[(k + k / 32) as usize];
                if half {
                    prev = w >> 16;
                } else {
                    prev = w;
                }
            }
            #[unroll]
            for j in 0..gpw {
                let k = g * gpw + j;
                let w = sm_in[(k + k / 32) as usize];
                #[unroll]
                for h in 0..epw {
                    let bit = j * epw + h;
                    let mut x = w;
                    if half {
                        x = (w >> (h * 16)) & 0xFFFFu32;
                    }
                    let local = g * 32 + bit;
                    let mut keep = x != 0;
                    if rle {
                        keep = local == 0 || x != prev;
                    }
                    if keep && chunk_start + local < len {
                        mask |= 1u32 << bit;
                    }
                    prev = x;
                }
            }
            sm_mask[g as usize] = mask;
            sm_cnt[g as usize] = mask.count_ones();
        }
        sync_cube();
        block_scan_groups(&mut sm_cnt);

        // 3. decoupled look-back for the chunk's offset
        let total = sm_cnt[GROUPS_PER_CHUNK - 1];
        let padded = (total + pad_unit - 1) / pad_unit * pad_unit;
        if pass == PASS_COUNT {
            if tid == 0 && active {
                counts[c as usize] = padded;
            }
        } else if pass == PASS_WRITE {
            if tid == 0 && active {
                sm_misc[1] = out[(offs_base + c) as usize];
            }
        } else if tid == 0 && active {
            let mut excl = 0u32;
            if c == 0 {
                state[1].store(FLAG_PREFIX | padded);
            } else {
                state[(1 + c) as usize].store(FLAG_AGGREGATE | padded);
                let mut j = c - 1;
                loop {
                    let s = state[(1 + j) as usize].load();
                    let flag = s & !VALUE_MASK;
                    if flag != 0 {
                        excl += s & VALUE_MASK;
                        if flag == FLAG_PREFIX {
                            break;
                        }
                        j -= 1;
                    }
                }
                state[(1 + c) as usize].store(FLAG_PREFIX | (excl + padded));
            }
            sm_misc[1] = excl;
            out[(offs_base + c) as usize] = excl;
            if c == nchunks - 1 {
                let end = excl + padded;
                out[(offs_base + nchunks) as usize] = end;
                let total_words = payload_base + end / epw + end / 2;
                write_header(out, size, header_w1, len, total_words);
                // out[7], the checksum: `finish_single_pass` or `scan_offsets`
            }
        }

        // 4. compact the kept elements into shared memory
        let writes = active && pass != PASS_COUNT;
        if tid < GROUPS_PER_CHUNK as u32 && writes {
            let mask = sm_mask[g as usize];
            let mut pos = sm_cnt[g as usize] - mask.count_ones();
            #[unroll]
            for j in 0..gpw {
                let k = g * gpw + j;
                let w = sm_in[(k + k / 32) as usize];
                #[unroll]
                for h in 0..epw {
                    let bit = j * epw + h;
                    let mut x = w;
                    if half {
                        x = (w >> (h * 16)) & 0xFFFFu32;
                    }
                    if (mask >> bit) & 1u32 == 1u32 {
                        sm_vals[pos as usize] = x;
                        pos += 1;
                    }
                }
            }
        }
        if tid == 0 && total < padded {
            sm_vals[total as usize] = 0u32;
        }
        sync_cube();
        // column / run-start indices, into the now free input staging
        if tid < GROUPS_PER_CHUNK as u32 && writes {
            let mask = sm_mask[g as usize];
            let mut pos = sm_cnt[g as usize] - mask.count_ones();
            #[unroll]
            for bit in 0..32u32 {
                if (mask >> bit) & 1u32 == 1u32 {
                    sm_in[pos as usize] = g * 32 + bit;
                    pos += 1;
                }
            }
        }
        if tid == 0 && total < padded {
            sm_in[total as usize] = PAD_INDEX;
        }
        sync_cube();

        // 5. coalesced write of the chunk's payload
        let excl = sm_misc[1];
        if writes {
            let vw = padded / epw;
            let region = payload_base + excl / epw + excl / 2;
            let mut k = tid;
            while k < vw {
                let mut w = sm_vals[k as usize];
                if half {
                    w = (sm_vals[(2 * k) as usize] & 0xFFFFu32)
                        | (sm_vals[(2 * k + 1) as usize] << 16);
                }
                out[(region + k) as usize] = w;
                k += block;
            }
            let iw = padded / 2;
            let mut k = tid;
            while k < iw {
                out[(region + vw + k) as usize] =
                    sm_in[(2 * k) as usize] | (sm_in[(2 * k + 1) as usize] << 16);
                k += block;
            }
        }
        sync_cube();
    }
    if comptime!(pass != PASS_WRITE) {
        let total = cube_sum(csum, &mut sm_vals, block, plane);
        if comptime!(pass == PASS_SINGLE) {
            finish_single_pass::<D>(total, done, counts, clear_words, out, block);
        } else if tid == 0 {
            counts[(nchunks + CUBE_POS as u32) as usize] = total;
        }
    }
}

/// Zero a `u32` buffer (look-back state, status words).
#[cube(launch)]
pub(crate) fn zero_words(buf: &mut Array<u32>, n: u32) {
    let i = ABSOLUTE_POS as u32;
    if i < n {
        buf[i as usize] = 0u32;
    }
}

#[allow(dead_code)]
const _: () = assert!(HEADER_WORDS == 8);
