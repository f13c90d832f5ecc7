//! LZ4: one independent LZ4 block per chunk. The GPU gives each unit a whole
//! chunk (LZ4 is sequential within a block): a greedy matcher on 32-bit
//! words with a 256-slot hash table per unit in shared memory, into a
//! worst-case-sized slot per chunk; then a scan of the block sizes and a copy
//! that packs the blocks. The GPU decoder handles the word-aligned blocks its
//! encoder (and the CPU reference encoder) write, and rejects others; the CPU
//! decoder accepts any LZ4 block.

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
use cubecl::server::Handle;

use crate::compact::{checksum_term, cube_sum, scan_offsets};
use crate::decode::{STATUS_BAD_LZ4, STATUS_BAD_OFFSETS};
use crate::format::*;
use crate::gpu::{arr, plane_reduce, LaunchConfig};
use crate::CodecError;

include!("lz4_cpu.rs");

#[derive(CubeType)]
struct ByteWriter {
    acc: u32,
    nacc: u32,
    pos: u32,
}

#[cube]
impl ByteWriter {
    fn push_byte(&mut self, out: &mut Array<u32>, b: u32) {
        self.acc |= b << (8 * self.nacc);
        self.nacc += 1;
        if self.nacc == 4 {
            out[self.pos as usize] = self.acc;
            self.pos += 1;
            self.acc = 0u32;
            self.nacc = 0u32;
        }
    }
    fn push_word(&mut self, out: &mut Array<u32>, w: u32) {
        if self.nacc == 0 {
            out[self.pos as usize] = w;
        } else {
            out[self.pos as usize] = self.acc | (w << (8 * self.nacc));
            self.acc = w >> (32 - 8 * self.nacc);
        }
        self.pos += 1;
    }
    fn push_len(&mut self, out: &mut Array<u32>, extra: u32) {
        let mut e = extra;
        while e >= 255 {
            self.push_byte(out, 255u32);
            e -= 255;
        }
        self.push_byte(out, e);
    }
    fn flush(&mut self, out: &mut Array<u32>) {
        if self.nacc > 0 {
            out[self.pos as usize] = self.acc;
            self.pos += 1;
            self.acc = 0u32;
            self.nacc = 0u32;
        }
    }
}

#[cube]
fn lz4_hash(w: u32) -> u32 {
    (w * 2_654_435_761u32) >> 24
}

/// Token, literal length, literals (whole words from `input`), and when
/// `ml > 0` the offset and match length of one sequence.
#[cube]
#[allow(clippy::too_many_arguments)]
fn emit_sequence(
    wr: &mut ByteWriter,
    out: &mut Array<u32>,
    input: &Array<u32>,
    lit_word: u32,
    lit_bytes: u32,
    offset: u32,
    ml_code: u32,
    tail_bytes: u32,
    #[comptime] has_match: bool,
) {
    let lit = lit_bytes + tail_bytes;
    let mut token = cubecl::prelude::min(lit, 15u32) << 4;
    if has_match {
        token |= cubecl::prelude::min(ml_code, 15u32);
    }
    wr.push_byte(out, token);
    if lit >= 15 {
        wr.push_len(out, lit - 15);
    }
    for k in 0..lit_bytes / 4 {
        wr.push_word(out, input[(lit_word + k) as usize]);
    }
    if tail_bytes > 0 {
        let w = input[(lit_word + lit_bytes / 4) as usize];
        for b in 0..tail_bytes {
            wr.push_byte(out, (w >> (8 * b)) & 0xFFu32);
        }
    }
    if has_match {
        wr.push_byte(out, offset & 0xFFu32);
        wr.push_byte(out, offset >> 8);
        if ml_code >= 15 {
            wr.push_len(out, ml_code - 15);
        }
    }
}

/// One unit per chunk: the chunk's block into its slot of `scratch`, its
/// size into `sizes[c]`. The checksum of the input (see `format::checksum`)
/// is summed over the words the matcher reads, each counted once (the
/// matcher reads words in order, except that it reads the word where a
/// match ends twice: `counted` is the prefix of the chunk already summed),
/// and stored once per cube in `sizes[nchunks + CUBE_POS]`.
#[cube(launch)]
#[allow(clippy::too_many_arguments)]
fn lz4_compress(
    input: &Array<u32>,
    scratch: &mut Array<u32>,
    sizes: &mut Array<u32>,
    len: u32,
    nchunks: u32,
    iters: u32,
    slot_words: u32,
    #[comptime] half: bool,
    #[comptime] block: u32,
    #[comptime] plane: bool,
) {
    let esize = comptime!(if half { 2u32 } else { 4u32 });
    let wpc = comptime!(CHUNK as u32 * esize / 4);
    let mut table = SharedMemory::<u32>::new(comptime!((block * HASH_SLOTS as u32) as usize));
    let t = UNIT_POS;
    let mut csum = 0u32;
    for it in 0..iters {
        let c = (CUBE_POS as u32 + it * CUBE_COUNT as u32) * block + t;
        if c < nchunks {
            for s in 0..HASH_SLOTS as u32 {
                table[(t * HASH_SLOTS as u32 + s) as usize] = 0u32;
            }
            let chunk_len = cubecl::prelude::min(len - c * CHUNK as u32, CHUNK as u32);
            let l = chunk_len * esize;
            let base = c * wpc;
            let mut wr = ByteWriter {
                acc: 0u32,
                nacc: 0u32,
                pos: c * slot_words,
            };
            let mut anchor = 0u32;
            let mut p = 0u32;
            let mut counted = 0u32;
            let mut max_end = 0u32;
            if l >= 5 {
                max_end = (l - 5) / 4;
            }
            while 4 * p + 12 <= l {
                let v = input[(base + p) as usize];
                if p == counted {
                    csum += checksum_term(v, base + p);
                    counted += 1;
                }
                let h = lz4_hash(v);
                let slot = (t * HASH_SLOTS as u32 + h) as usize;
                let cand = table[slot];
                table[slot] = p + 1;
                let mut matched = false;
                if cand != 0 {
                    let s = cand - 1;
                    if p - s <= MAX_OFFSET_WORDS as u32 && input[(base + s) as usize] == v {
                        matched = true;
                        let mut n = 1u32;
                        let mut more = true;
                        while more {
                            more = false;
                            if p + n < max_end {
                                let x = input[(base + p + n) as usize];
                                if p + n == counted {
                                    csum += checksum_term(x, base + p + n);
                                    counted += 1;
                                }
                                if input[(base + s + n) as usize] == x {
                                    n += 1;
                                    more = true;
                                }
                            }
                        }
                        emit_sequence(
                            &mut wr,
                            scratch,
                            input,
                            base + anchor,
                            4 * (p - anchor),
                            4 * (p - s),
                            4 * n - 4,
                            0u32,
                            true,
                        );
                        p += n;
                        anchor = p;
                    }
                }
                if !matched {
                    p += 1;
                }
            }
            // the words the matcher did not reach (the last one, of an odd
            // 16-bit length, without its upper half)
            let nwords = (l + 3) / 4;
            for k in counted..nwords {
                let mut x = input[(base + k) as usize];
                if k == nwords - 1 && l % 4 != 0 {
                    x &= 0xFFFFu32;
                }
                csum += checksum_term(x, base + k);
            }
            let rest = l - 4 * anchor;
            emit_sequence(
                &mut wr,
                scratch,
                input,
                base + anchor,
                rest / 4 * 4,
                0u32,
                0u32,
                rest % 4,
                false,
            );
            wr.flush(scratch);
            sizes[c as usize] = (wr.pos - c * slot_words) * 4;
        }
    }
    let total = cube_sum(csum, &mut table, block, plane);
    if t == 0 {
        sizes[(nchunks + CUBE_POS as u32) as usize] = total;
    }
}

/// Pack each chunk's block from its slot to its offset.
#[cube(launch)]
fn lz4_pack(
    scratch: &Array<u32>,
    sizes: &Array<u32>,
    out: &mut Array<u32>,
    nchunks: u32,
    slot_words: u32,
    offs_base: u32,
    payload_base: u32,
) {
    let mut c = CUBE_POS as u32;
    while c < nchunks {
        let words = sizes[c as usize] / 4;
        let dst = payload_base + out[(offs_base + c) as usize] / 4;
        let src = c * slot_words;
        let mut k = UNIT_POS;
        while k < words {
            out[(dst + k) as usize] = scratch[(src + k) as usize];
            k += CUBE_DIM;
        }
        c += CUBE_COUNT as u32;
    }
}

#[cube]
fn read_byte(comp: &Array<u32>, base: u32, x: u32) -> u32 {
    (comp[(base + x / 4) as usize] >> (8 * (x % 4))) & 0xFFu32
}

#[cube(launch)]
#[allow(clippy::too_many_arguments)]
fn lz4_decompress(
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
    max_chunk_bytes: u32,
    #[comptime] half: bool,
    #[comptime] block: u32,
    #[comptime] plane: bool,
) {
    let esize = comptime!(if half { 2u32 } else { 4u32 });
    let wpc = comptime!(CHUNK as u32 * esize / 4);
    // checksum of the words written (see `format::checksum`)
    let mut csum = 0u32;
    let mut sm = SharedMemory::<u32>::new(comptime!(block as usize));
    for it in 0..iters {
        let c = (CUBE_POS as u32 + it * CUBE_COUNT as u32) * block + UNIT_POS;
        if c < nchunks {
            let a = comp[(offs_base + c) as usize];
            let b = comp[(offs_base + c + 1) as usize];
            if b < a
                || a % 4 != 0
                || b % 4 != 0
                || b - a > max_chunk_bytes
                || payload_base + b / 4 > total_words
            {
                status[0].fetch_or(STATUS_BAD_OFFSETS);
            } else {
                let in_base = payload_base + a / 4;
                let in_len = b - a;
                let chunk_len = cubecl::prelude::min(len - c * CHUNK as u32, CHUNK as u32);
                let l = chunk_len * esize;
                let ob = c * wpc;
                let mut q = 0u32; // output words written
                let mut i = 0u32; // input byte
                let mut bad = false;
                let mut done = false;
                while !bad && !done {
                    if i >= in_len {
                        bad = true;
                    } else {
                        let token = read_byte(comp, in_base, i);
                        i += 1;
                        let mut lit = token >> 4;
                        if lit == 15 {
                            let mut more = true;
                            while more && !bad {
                                if i >= in_len {
                                    bad = true;
                                } else {
                                    let x = read_byte(comp, in_base, i);
                                    i += 1;
                                    lit += x;
                                    more = x == 255;
                                    if lit > l {
                                        bad = true;
                                    }
                                }
                            }
                        }
                        if !bad {
                            if i + lit > in_len || 4 * q + lit > l {
                                bad = true;
                            }
                        }
                        let last = 4 * q + lit == l;
                        if !bad && !last && lit % 4 != 0 {
                            bad = true;
                        }
                        if !bad {
                            for k in 0..lit / 4 {
                                let x = i + 4 * k;
                                let s = x % 4;
                                let mut w = comp[(in_base + x / 4) as usize];
                                if s != 0 {
                                    w = (w >> (8 * s))
                                        | (comp[(in_base + x / 4 + 1) as usize] << (32 - 8 * s));
                                }
                                out[(ob + q) as usize] = w;
                                csum += checksum_term(w, ob + q);
                                q += 1;
                            }
                            if lit % 4 != 0 {
                                let mut w = 0u32;
                                for k in 0..lit % 4 {
                                    w |= read_byte(comp, in_base, i + lit / 4 * 4 + k) << (8 * k);
                                }
                                out[(ob + q) as usize] = w;
                                csum += checksum_term(w, ob + q);
                                q += 1;
                            }
                            i += lit;
                            if last {
                                done = true;
                                if in_len - i >= 4 || token % 16 != 0 {
                                    bad = true;
                                }
                            }
                        }
                        if !bad && !done {
                            if i + 2 > in_len {
                                bad = true;
                            } else {
                                let off = read_byte(comp, in_base, i)
                                    | (read_byte(comp, in_base, i + 1) << 8);
                                i += 2;
                                let mut ml = token % 16;
                                if ml == 15 {
                                    let mut more = true;
                                    while more && !bad {
                                        if i >= in_len {
                                            bad = true;
                                        } else {
                                            let x = read_byte(comp, in_base, i);
                                            i += 1;
                                            ml += x;
                                            more = x == 255;
                                            if ml > l {
                                                bad = true;
                                            }
                                        }
                                    }
                                }
                                ml += 4;
                                if !bad {
                                    if off == 0
                                        || off % 4 != 0
                                        || off > 4 * q
                                        || ml % 4 != 0
                                        || 4 * q + ml > l
                                    {
                                        bad = true;
                                    } else {
                                        let back = off / 4;
                                        for _k in 0..ml / 4 {
                                            let w = out[(ob + q - back) as usize];
                                            out[(ob + q) as usize] = w;
                                            csum += checksum_term(w, ob + q);
                                            q += 1;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                if bad {
                    status[0].fetch_or(STATUS_BAD_LZ4);
                }
            }
        }
    }
    let total = cube_sum(csum, &mut sm, block, plane);
    if UNIT_POS == 0 {
        status[1].fetch_add(total);
    }
    let _ = out_words;
}

fn lz4_grid(cfg: LaunchConfig, nchunks: usize) -> (u32, u32) {
    let cubes_needed = (nchunks as u32).div_ceil(cfg.block);
    let grid = cfg.grid.min(cubes_needed).max(1);
    (grid, cubes_needed.div_ceil(grid))
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn compress_gpu<R: Runtime>(
    client: &ComputeClient<R>,
    input: &Handle,
    in_words: usize,
    out: &Handle,
    size: &Handle,
    dtype: DType,
    len: usize,
    cfg: LaunchConfig,
    layout: &Layout,
    w1: u32,
) -> Result<(), CodecError> {
    let nchunks = chunks(len);
    let slot = lz4_max_chunk_words(dtype);
    let scratch = client.empty(nchunks * slot * 4);
    let (grid, iters) = lz4_grid(cfg, nchunks);
    // block sizes, then one partial checksum per cube
    let sizes = client.empty((nchunks + grid as usize) * 4);
    let half = dtype.size() == 2;
    let plane = plane_reduce(client, cfg.block);
    lz4_compress::launch(
        client,
        CubeCount::Static(grid, 1, 1),
        CubeDim::new_1d(cfg.block),
        arr(input, in_words),
        arr(&scratch, nchunks * slot),
        arr(&sizes, nchunks + grid as usize),
        len as u32,
        nchunks as u32,
        iters,
        slot as u32,
        half,
        cfg.block,
        plane,
    );
    let cap = max_compressed_words(CodecKind::Lz4, dtype, len);
    scan_offsets::launch(
        client,
        CubeCount::Static(1, 1, 1),
        CubeDim::new_1d(256),
        arr(&sizes, nchunks + grid as usize),
        arr(out, cap),
        arr(size, 1),
        nchunks as u32,
        grid,
        layout.offsets as u32,
        layout.payload as u32,
        len as u32,
        w1,
        4u32,
        false,
        256u32,
    );
    lz4_pack::launch(
        client,
        CubeCount::Static((nchunks as u32).min(4096), 1, 1),
        CubeDim::new_1d(128),
        arr(&scratch, nchunks * slot),
        arr(&sizes, nchunks),
        arr(out, cap),
        nchunks as u32,
        slot as u32,
        layout.offsets as u32,
        layout.payload as u32,
    );
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn decompress_gpu<R: Runtime>(
    client: &ComputeClient<R>,
    comp: &Handle,
    total: usize,
    out: &Handle,
    out_words: usize,
    status: &Handle,
    dtype: DType,
    len: usize,
    cfg: LaunchConfig,
    layout: &Layout,
) -> Result<(), CodecError> {
    let nchunks = chunks(len);
    let (grid, iters) = lz4_grid(cfg, nchunks);
    lz4_decompress::launch(
        client,
        CubeCount::Static(grid, 1, 1),
        CubeDim::new_1d(cfg.block),
        arr(comp, total),
        arr(out, out_words),
        arr(status, 2),
        len as u32,
        out_words as u32,
        nchunks as u32,
        iters,
        layout.offsets as u32,
        layout.payload as u32,
        total as u32,
        (lz4_max_chunk_words(dtype) * 4) as u32,
        dtype.size() == 2,
        cfg.block,
        plane_reduce(client, cfg.block),
    );
    Ok(())
}
