//! Decompress kernels for CSR and RLE (ZVC's is in `zvc.rs`, Bitmap's in
//! `bitmap.rs`). Chunks are independent (their
//! offsets are in the index), so cubes stride over chunks with no
//! inter-cube communication. Every index read from the compressed buffer is
//! checked before use; a chunk that fails a check is not written and sets a
//! bit in `status[0]`. Every decoder also adds the checksum of the words it
//! writes (see `format::checksum`) to `status[1]`, one atomic add per cube;
//! `Decompressed::check` compares it with the header's.

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

use crate::compact::{checksum_term, cube_sum};
use crate::format::{CHUNK, PAD_INDEX};

/// Status bits set by the decoders.
pub(crate) const STATUS_BAD_OFFSETS: u32 = 1;
pub(crate) const STATUS_BAD_MASK: u32 = 2;
pub(crate) const STATUS_BAD_INDEX: u32 = 4;
pub(crate) const STATUS_BAD_LZ4: u32 = 8;
/// A Bitmap mode, total size or value the format does not allow.
pub(crate) const STATUS_BAD_BITMAP: u32 = 16;

/// CSR (`rle = false`) and RLE (`rle = true`) decompression: each output
/// element binary-searches the chunk's sorted indices in shared memory.
#[cube(launch)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sparse_decompress(
    comp: &Array<u32>,
    out: &mut Array<u32>,
    status: &mut Array<Atomic<u32>>,
    len: u32,
    out_words: u32,
    nchunks: u32,
    iters: u32,
    offs_base: u32,
    payload_base: u32,
    total_words: u32,
    #[comptime] rle: bool,
    #[comptime] half: bool,
    #[comptime] block: u32,
    #[comptime] plane: bool,
) {
    let epw = comptime!(if half { 2u32 } else { 1u32 });
    let wpc = comptime!(CHUNK as u32 / epw);
    let tid = UNIT_POS;
    let mut csum = 0u32;

    let mut sm_vals = SharedMemory::<u32>::new(CHUNK);
    let mut sm_idx = SharedMemory::<u32>::new(CHUNK);
    let mut sm_bad = SharedMemory::<u32>::new(1usize);

    for it in 0..iters {
        let c = CUBE_POS as u32 + it * CUBE_COUNT as u32;
        let active = c < nchunks;
        let mut chunk_len = 0u32;
        let mut a = 0u32;
        let mut b = 0u32;
        if active {
            chunk_len = cubecl::prelude::min(len - c * CHUNK as u32, CHUNK as u32);
            a = comp[(offs_base + c) as usize];
            b = comp[(offs_base + c + 1) as usize];
        }
        let cnt = b - a;
        let region = payload_base + a / epw + a / 2;
        let ok = active
            && b >= a
            && a % 2 == 0
            && cnt % 2 == 0
            && cnt <= (chunk_len + 1) / 2 * 2
            && region + cnt / epw + cnt / 2 <= total_words;
        if tid == 0 {
            sm_bad[0] = 0u32;
            if active && !ok {
                status[0].fetch_or(STATUS_BAD_OFFSETS);
            }
        }
        let vw = cnt / epw;
        if ok {
            let mut k = tid;
            while k < cnt {
                let mut x = comp[(region + k / epw) as usize];
                if half {
                    x = (x >> ((k % 2) * 16)) & 0xFFFFu32;
                }
                let i = (comp[(region + vw + k / 2) as usize] >> ((k % 2) * 16)) & 0xFFFFu32;
                sm_vals[k as usize] = x;
                sm_idx[k as usize] = i;
                k += block;
            }
        }
        sync_cube();
        // validate: indices strictly increasing and inside the chunk, the pad last
        if ok {
            let mut k = tid;
            while k < cnt {
                let i = sm_idx[k as usize];
                let mut bad = i >= chunk_len;
                if i == PAD_INDEX {
                    bad = k + 1 != cnt;
                } else if k > 0 {
                    bad = bad || sm_idx[(k - 1) as usize] >= i;
                }
                if rle && k == 0 {
                    bad = bad || i != 0;
                }
                if bad {
                    sm_bad[0] = 1u32;
                }
                k += block;
            }
            if rle && cnt == 0 && tid == 0 {
                sm_bad[0] = 1u32;
            }
        }
        sync_cube();
        let good = ok && sm_bad[0] == 0;
        if ok && !good && tid == 0 {
            status[0].fetch_or(STATUS_BAD_INDEX);
        }
        if good {
            let mut n = cnt;
            if cnt > 0 && sm_idx[(cnt - 1) as usize] == PAD_INDEX {
                n = cnt - 1;
            }
            #[unroll]
            for i in 0..comptime!(wpc / block) {
                let k = i * block + tid;
                let w = c * wpc + k;
                if w < out_words {
                    let mut word = 0u32;
                    #[unroll]
                    for h in 0..epw {
                        let e = k * epw + h;
                        // lo = number of entries with index <= e
                        let mut lo = 0u32;
                        let mut span = n;
                        #[unroll]
                        for _s in 0..comptime!(CHUNK.trailing_zeros() + 1) {
                            if span > 0 {
                                let half_span = span / 2;
                                if sm_idx[(lo + half_span) as usize] <= e {
                                    lo = lo + half_span + 1;
                                    span = span - half_span - 1;
                                } else {
                                    span = half_span;
                                }
                            }
                        }
                        let mut x = 0u32;
                        if lo > 0 {
                            if rle || sm_idx[(lo - 1) as usize] == e {
                                x = sm_vals[(lo - 1) as usize];
                            }
                        }
                        if e < chunk_len {
                            word |= x << (h * 16);
                        }
                    }
                    out[w as usize] = word;
                    csum += checksum_term(word, w);
                }
            }
        }
        sync_cube();
    }
    let total = cube_sum(csum, &mut sm_vals, block, plane);
    if tid == 0 {
        status[1].fetch_add(total);
    }
}
