//! Bitmap: a bit per element and the one non-zero bit pattern (see the
//! format table), for tensors of zeros and one value such as dropout masks.
//!
//! One unit per bitmap word (32 elements: 32 words of f32, 16 words of
//! 16-bit data). Both directions cut the data into tiles of bitmap words:
//! `block` of them for decompress, `cb` for compress (`block`, halved while
//! the staged tile would not fit the device's shared memory, see
//! [`compute_units`]); a cube takes every `CUBE_COUNT`-th tile. The data is
//! loaded and stored as vectors of `nv` words (4 where the device has them
//! and the input is 16-byte aligned, else 1), coalesced.
//!
//! Compress is two launches and no host synchronisation. [`bitmap_scan`]
//! reads the input once, writes the bitmap words as if the tensor were
//! two-valued, and adds to three scratch words the largest non-zero
//! pattern, the largest complement of one (the smallest pattern, as a max:
//! the scratch starts all zero) and the checksum, one atomic each per cube.
//! [`bitmap_finish`] reads the scratch: two-valued (no non-zero element, or
//! the smallest equals the largest) leaves the bitmap as written and writes
//! the header; otherwise it copies the input over the bitmap (stored mode,
//! a second read of the input, on data the codec is not meant for). The
//! scratch is the stream's single-pass state (`single_pass.rs`): zero at
//! launch without a zeroing launch, and `bitmap_finish` zeroes the buffer
//! the stream's previous launch used.
//! Decompress is one launch, [`bitmap_decompress`]: every output vector,
//! each from its bitmap word (a 32nd of the output, read by neighbouring
//! units at once) or its stored words; each cube writes its own pair of
//! status words, so no launch zeroes them first.

// #[cube] code: the kernel language has no div_ceil / is_multiple_of, and
// keeps its own control-flow shape.
#![allow(
    clippy::manual_div_ceil,
    clippy::manual_is_multiple_of,
    clippy::assign_op_pattern,
    clippy::collapsible_if,
    clippy::collapsible_else_if,
    clippy::too_many_arguments
)]

use cubecl::prelude::*;
use cubecl::server::Handle;

use crate::compact::{checksum_term, cube_sum, write_header};
use crate::decode::{STATUS_BAD_BITMAP, STATUS_BAD_MASK};
use crate::format::{DType, BITMAP_BITS, BITMAP_INDEX_WORDS, BITMAP_STORED, GROUP, HEADER_WORDS};
use crate::gpu::{arr, plane_reduce, vec4_access, Decompressed, LaunchConfig};
use crate::{single_pass, Header};

/// First payload word.
const PAYLOAD: u32 = (HEADER_WORDS + BITMAP_INDEX_WORDS) as u32;

/// Data words of one bitmap word's 32 elements.
fn words_per_unit(half: bool) -> u32 {
    if half {
        16
    } else {
        32
    }
}

/// Words of shared memory the compress kernel uses with tiles of `tl`
/// vectors at `block` units: one flags word per vector (padded by a word
/// per 32 against bank conflicts), reused by the cube's final reduction
/// (three words a unit).
fn compress_shared_words(block: u32, tl: u32) -> usize {
    let tl = tl as usize;
    (tl + tl / 32).max(3 * block as usize)
}

/// Shared memory a compress cube of `block` units needs at least (tiles of
/// one vector a unit); decompress needs less.
pub(crate) fn shared_bytes(block: u32) -> usize {
    compress_shared_words(block, block) * 4
}

/// Bitmap words in a compress tile whose bitmap words are `lpb` vectors
/// each: `block`, halved while the kernel would need more shared memory
/// than the device has (e.g. lavapipe's 32 KB), down to one vector a unit.
/// Units past it only load.
fn compute_units<R: Runtime>(client: &ComputeClient<R>, block: u32, lpb: u32) -> u32 {
    let max = client.properties().hardware.max_shared_memory_size;
    let mut cb = block;
    while cb * lpb > block && compress_shared_words(block, cb * lpb) * 4 > max {
        cb /= 2;
    }
    cb
}

/// How a launch covers `len` elements in tiles of `per_tile` bitmap words.
struct Tiling {
    /// Bitmap words (`ceil(len / 32)`).
    nbits: u32,
    /// Tiles.
    ntiles: u32,
    /// Cubes, each taking `iters` tiles.
    grid: u32,
    iters: u32,
}

fn tiling(cfg: LaunchConfig, len: usize, per_tile: u32) -> Tiling {
    let nbits = len.div_ceil(GROUP) as u32;
    let ntiles = nbits.div_ceil(per_tile).max(1);
    let grid = cfg.grid.min(ntiles);
    Tiling {
        nbits,
        ntiles,
        grid,
        iters: ntiles.div_ceil(grid),
    }
}

/// Queue the compress of `len` (> 0) elements of `dtype` in `input` into
/// `out` (`10 + dtype.words(len)` words) and its size into `size`.
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
    w1: u32,
) {
    let half = dtype.size() == 2;
    // 16-byte loads when the input starts 16-byte aligned
    let aligned = input.offset_start.unwrap_or(0).is_multiple_of(16);
    let nv: u32 = if aligned && in_words >= 4 && vec4_access(client) {
        4
    } else {
        1
    };
    let cb = compute_units(client, cfg.block, words_per_unit(half) / nv);
    let t = tiling(cfg, len, cb);
    // the scratch: largest complement of a non-zero pattern, largest
    // non-zero pattern, checksum
    let units = t.grid as usize * cfg.block as usize;
    single_pass::with_state(client, 3, units, |b| {
        launch_compress(
            client, input, out, size, b, &t, cfg, cb, nv, len, in_words, w1, half,
        )
    });
}

/// The two compress launches (see [`compress_gpu`]), with the scratch and
/// the buffer to clear from `b`.
#[allow(clippy::too_many_arguments)]
fn launch_compress<R: Runtime>(
    client: &ComputeClient<R>,
    input: &Handle,
    out: &Handle,
    size: &Handle,
    b: &single_pass::Binding,
    t: &Tiling,
    cfg: LaunchConfig,
    cb: u32,
    nv: u32,
    len: usize,
    in_words: usize,
    w1: u32,
    half: bool,
) {
    let full_lines = in_words / nv as usize;
    let cap = HEADER_WORDS + BITMAP_INDEX_WORDS + in_words;
    // the buffer's first words (zero like the rest; bound from its start,
    // as wgpu binds storage buffers only at aligned offsets)
    let scratch = b.done;
    // Safety: every index the kernels read or write is checked against
    // the lengths bound here (see the kernels).
    unsafe {
        bitmap_scan::launch_unchecked::<R>(
            client,
            CubeCount::Static(t.grid, 1, 1),
            CubeDim::new_1d(cfg.block),
            nv as usize,
            arr(input, full_lines),
            arr(input, in_words),
            arr(out, cap),
            arr(scratch, 3),
            len as u32,
            in_words as u32,
            full_lines as u32,
            t.nbits,
            t.ntiles,
            t.iters,
            half,
            nv,
            cfg.block,
            cb,
        );
        bitmap_finish::launch_unchecked::<R>(
            client,
            CubeCount::Static(t.grid, 1, 1),
            CubeDim::new_1d(cfg.block),
            nv as usize,
            arr(input, full_lines),
            arr(input, in_words),
            arr(out, cap),
            arr(size, 1),
            arr(scratch, 3),
            arr(b.clear, b.clear_words as usize),
            len as u32,
            in_words as u32,
            full_lines as u32,
            t.nbits,
            t.ntiles,
            t.iters,
            w1,
            b.clear_words,
            half,
            nv,
            cfg.block,
            cb,
        );
    }
}

/// Queue the decompress of the buffer `comp` (`header.len` > 0, at least
/// `header.total_words` words). The output is allocated in whole vectors
/// and handed back trimmed to the data.
pub(crate) fn decompress_gpu<R: Runtime>(
    client: &ComputeClient<R>,
    comp: &Handle,
    header: &Header,
    cfg: LaunchConfig,
) -> Decompressed {
    let len = header.len;
    let half = header.dtype.size() == 2;
    let out_words = header.dtype.words(len);
    let nv: u32 = if vec4_access(client) { 4 } else { 1 };
    let out_lines = out_words.div_ceil(nv as usize);
    let t = tiling(cfg, len, cfg.block);
    // a pair of status words per cube, each written by its cube
    let status_words = 2 * t.grid as usize;
    let status = client.empty(status_words * 4);
    let out = client.empty(out_lines * nv as usize * 4);
    // Safety: every index the kernel reads or writes is checked against the
    // lengths bound here (`comp` holds `total_words`, which the kernel
    // checks against the mode before it reads past the mode and value).
    unsafe {
        bitmap_decompress::launch_unchecked::<R>(
            client,
            CubeCount::Static(t.grid, 1, 1),
            CubeDim::new_1d(cfg.block),
            nv as usize,
            arr(comp, header.total_words),
            arr(&out, out_lines),
            arr(&status, status_words),
            len as u32,
            out_words as u32,
            out_lines as u32,
            t.nbits,
            t.ntiles,
            t.iters,
            header.total_words as u32,
            half,
            nv,
            cfg.block,
            plane_reduce(client, cfg.block),
        );
    }
    let handle = out.offset_end(((out_lines * nv as usize - out_words) * 4) as u64);
    Decompressed {
        handle,
        status,
        words: out_words,
        expected_checksum: header.checksum,
    }
}

/// Word `w` of the input as the format counts it: for an odd number of
/// 16-bit elements the upper half of the last word is not data (zero).
#[cube]
fn data_word(x: u32, w: u32, len: u32, #[comptime] half: bool) -> u32 {
    let mut v = x;
    if comptime!(half) {
        if 2u32 * w + 1u32 >= len {
            v = x & 0xFFFFu32;
        }
    }
    v
}

/// Vector `l` of the input: a vector load while whole vectors last, then
/// word by word (zero past the end).
#[cube]
fn load_vector<N: Size>(
    input: &Array<Vector<u32, N>>,
    input_w: &Array<u32>,
    l: u32,
    in_words: u32,
    full_lines: u32,
    #[comptime] nv: u32,
) -> Vector<u32, N> {
    let mut v = Vector::<u32, N>::new(0u32);
    if l < full_lines {
        v = input[l as usize];
    } else {
        #[unroll]
        for j in 0..nv {
            let w = l * nv + j;
            if w < in_words {
                v[j as usize] = input_w[w as usize];
            }
        }
    }
    v
}

/// Compress, first launch: the bitmap words (as if two-valued), and into
/// `scratch` (zero at launch) the largest complement of a non-zero pattern
/// (`scratch[0]`), the largest pattern (`scratch[1]`, zero iff every
/// element is zero) and the checksum (`scratch[2]`, see `format::checksum`).
///
/// `input` is the input as vectors of `nv` words (the first `full_lines`
/// of them), `input_w` the same buffer as words (for the last partial
/// vector). Each tile of `cb` bitmap words is loaded coalesced, a vector a
/// unit per round, into shared memory as each vector's non-zero flags
/// already shifted to their bits (vector `k` of the tile at `k + k / 32`,
/// so the units' reads below hit distinct banks); then each of the first
/// `cb` units ORs the flags of its bitmap word.
#[cube(launch_unchecked)]
pub(crate) fn bitmap_scan<N: Size>(
    input: &Array<Vector<u32, N>>,
    input_w: &Array<u32>,
    out: &mut Array<u32>,
    scratch: &mut Array<Atomic<u32>>,
    len: u32,
    in_words: u32,
    full_lines: u32,
    nbits: u32,
    ntiles: u32,
    iters: u32,
    #[comptime] half: bool,
    #[comptime] nv: u32,
    #[comptime] block: u32,
    #[comptime] cb: u32,
) {
    let epw = comptime!(if half { 2u32 } else { 1u32 });
    // vectors per bitmap word, per tile; each unit's loads per tile (`tl`
    // is a multiple of `block`); bits per vector
    let lpb = comptime!(words_per_unit(half) / nv);
    let tl = comptime!(cb * lpb);
    let rounds = comptime!(tl / block);
    let bpl = comptime!(nv * epw);
    let tid = UNIT_POS;
    let mut sm = SharedMemory::<u32>::new(comptime!(compress_shared_words(block, tl)));
    let mut csum = 0u32;
    let mut hi = 0u32;
    let mut lo_not = 0u32;

    for it in 0..iters {
        let tile = CUBE_POS as u32 + it * CUBE_COUNT as u32;
        let active = tile < ntiles;
        #[unroll]
        for r in 0..rounds {
            let k = r * block + tid;
            let l = tile * tl + k;
            let mut v = Vector::<u32, N>::new(0u32);
            if active {
                v = load_vector::<N>(input, input_w, l, in_words, full_lines, nv);
            }
            let mut flags = 0u32;
            #[unroll]
            for j in 0..nv {
                let w = l * nv + j;
                let x = data_word(v[j as usize], w, len, half);
                csum += checksum_term(x, w);
                #[unroll]
                for h in 0..epw {
                    let mut e = x;
                    if comptime!(half) {
                        e = (x >> comptime!(16 * h)) & 0xFFFFu32;
                    }
                    if e != 0u32 {
                        flags |= comptime!(1u32 << (j * epw + h));
                        hi = cubecl::prelude::max(hi, e);
                        lo_not = cubecl::prelude::max(lo_not, e ^ 0xFFFF_FFFFu32);
                    }
                }
            }
            // (`block` is a multiple of `lpb`: vector k's bits start at
            // (k % lpb) * bpl in its bitmap word)
            sm[(k + k / 32) as usize] = flags << ((tid % lpb) * bpl);
        }
        sync_cube();
        let g = tile * cb + tid;
        if active && tid < cb && g < nbits {
            let mut bits = 0u32;
            #[unroll]
            for j in 0..lpb {
                let k = tid * lpb + j;
                bits |= sm[(k + k / 32) as usize];
            }
            out[(PAYLOAD + g) as usize] = bits;
        }
        sync_cube();
    }

    // the cube's sum and maxima: a tree in shared memory (once per cube)
    sm[tid as usize] = csum;
    sm[(block + tid) as usize] = hi;
    sm[(2 * block + tid) as usize] = lo_not;
    sync_cube();
    #[unroll]
    for step in 0..comptime!(block.trailing_zeros()) {
        let s = comptime!(block >> (step + 1));
        if tid < s {
            sm[tid as usize] = sm[tid as usize] + sm[(tid + s) as usize];
            sm[(block + tid) as usize] =
                cubecl::prelude::max(sm[(block + tid) as usize], sm[(block + tid + s) as usize]);
            sm[(2 * block + tid) as usize] = cubecl::prelude::max(
                sm[(2 * block + tid) as usize],
                sm[(2 * block + tid + s) as usize],
            );
        }
        sync_cube();
    }
    if tid == 0 {
        scratch[2].fetch_add(sm[0]);
        if sm[block as usize] != 0u32 {
            scratch[1].fetch_max(sm[block as usize]);
            scratch[0].fetch_max(sm[(2 * block) as usize]);
        }
    }
}

/// Compress, second launch: the mode from `scratch` (see [`bitmap_scan`]);
/// cube 0's unit 0 writes the header, the mode, the value and `size[0]`;
/// in stored mode every cube copies its tiles' input words over the bitmap
/// (vector loads; word stores, the payload not being 16-byte aligned).
/// Each unit also zeroes one of the `clear_words` words of `clear`, the
/// scratch the stream's previous launch used (see `single_pass.rs`).
#[cube(launch_unchecked)]
pub(crate) fn bitmap_finish<N: Size>(
    input: &Array<Vector<u32, N>>,
    input_w: &Array<u32>,
    out: &mut Array<u32>,
    size: &mut Array<u32>,
    scratch: &Array<u32>,
    clear: &mut Array<u32>,
    len: u32,
    in_words: u32,
    full_lines: u32,
    nbits: u32,
    ntiles: u32,
    iters: u32,
    header_w1: u32,
    clear_words: u32,
    #[comptime] half: bool,
    #[comptime] nv: u32,
    #[comptime] block: u32,
    #[comptime] cb: u32,
) {
    // [`bitmap_scan`]'s tiles
    let tl = comptime!(cb * words_per_unit(half) / nv);
    let rounds = comptime!(tl / block);
    let tid = UNIT_POS;
    let i = CUBE_POS as u32 * block + tid;
    if i < clear_words {
        clear[i as usize] = 0u32;
    }
    let hi = scratch[1];
    let lo = scratch[0] ^ 0xFFFF_FFFFu32;
    let bits = hi == 0u32 || lo == hi;
    if CUBE_POS == 0 && tid == 0 {
        let mut total = PAYLOAD + in_words;
        let mut mode = u32::new(BITMAP_STORED as i64);
        let mut value = 0u32;
        if bits {
            total = PAYLOAD + nbits;
            mode = u32::new(BITMAP_BITS as i64);
            value = hi;
        }
        write_header(out, size, header_w1, len, total);
        out[7] = scratch[2];
        out[8] = mode;
        out[9] = value;
    }
    if !bits {
        for it in 0..iters {
            let tile = CUBE_POS as u32 + it * CUBE_COUNT as u32;
            if tile < ntiles {
                #[unroll]
                for r in 0..rounds {
                    let l = tile * tl + r * block + tid;
                    let v = load_vector::<N>(input, input_w, l, in_words, full_lines, nv);
                    #[unroll]
                    for j in 0..nv {
                        let w = l * nv + j;
                        if w < in_words {
                            out[(PAYLOAD + w) as usize] = data_word(v[j as usize], w, len, half);
                        }
                    }
                }
            }
        }
    }
}

/// Decompress: every output vector of the cube's tiles (coalesced), from
/// its bitmap word or its stored words; `out` holds `out_lines` vectors
/// (the data rounded up to whole vectors, the padding zero). The status
/// pair (zero at launch): `STATUS_BAD_BITMAP` for a mode, total or value
/// the format does not allow (nothing is written), `STATUS_BAD_MASK` for a
/// set bit where none may be (a bit with value zero, past the end, or in
/// the unused half of a stored odd 16-bit count); the checksum of the
/// words written. Each cube writes its own pair, `status[2 * CUBE_POS]`
/// the bits and `status[2 * CUBE_POS + 1]` the checksum of the words it
/// wrote (`Decompressed::check` ORs and adds them).
#[cube(launch_unchecked)]
pub(crate) fn bitmap_decompress<N: Size>(
    comp: &Array<u32>,
    out: &mut Array<Vector<u32, N>>,
    status: &mut Array<u32>,
    len: u32,
    out_words: u32,
    out_lines: u32,
    nbits: u32,
    ntiles: u32,
    iters: u32,
    total_words: u32,
    #[comptime] half: bool,
    #[comptime] nv: u32,
    #[comptime] block: u32,
    #[comptime] plane: bool,
) {
    let epw = comptime!(if half { 2u32 } else { 1u32 });
    // vectors per bitmap word (each unit's per tile), per tile; bits per
    // vector
    let lpb = comptime!(words_per_unit(half) / nv);
    let tl = comptime!(block * lpb);
    let bpl = comptime!(nv * epw);
    let tid = UNIT_POS;
    let mut sm = SharedMemory::<u32>::new(comptime!(block as usize));
    // a set bit where none may be, found by any unit of the cube (each
    // writes the same 1, so no atomics)
    let mut sm_bad = SharedMemory::<u32>::new(1usize);
    if tid == 0 {
        sm_bad[0] = 0u32;
    }
    sync_cube();
    let mut csum = 0u32;
    let mode = comp[HEADER_WORDS];
    let value = comp[HEADER_WORDS + 1];
    let stored = mode == u32::new(BITMAP_STORED as i64);
    let mut expected = PAYLOAD + nbits;
    if stored {
        expected = PAYLOAD + out_words;
    }
    // stored: zero; bits: any f32 pattern, a 16-bit one in the low half
    let mut value_ok = value == 0u32;
    if !stored {
        value_ok = true;
        if comptime!(half) {
            value_ok = value <= 0xFFFFu32;
        }
    }
    let ok =
        (stored || mode == u32::new(BITMAP_BITS as i64)) && total_words == expected && value_ok;
    // bits past the end of the last bitmap word
    let tail = len % 32u32;
    if ok {
        for it in 0..iters {
            let tile = CUBE_POS as u32 + it * CUBE_COUNT as u32;
            #[unroll]
            for r in 0..lpb {
                let l = tile * tl + r * block + tid;
                if tile < ntiles && l < out_lines {
                    let mut v = Vector::<u32, N>::new(0u32);
                    if stored {
                        #[unroll]
                        for j in 0..nv {
                            let w = l * nv + j;
                            if w < out_words {
                                let mut word = comp[(PAYLOAD + w) as usize];
                                if comptime!(half) {
                                    if 2u32 * w + 1u32 >= len && word >> 16u32 != 0u32 {
                                        sm_bad[0] = 1u32;
                                        word = word & 0xFFFFu32;
                                    }
                                }
                                v[j as usize] = word;
                            }
                        }
                    } else {
                        let g = l / lpb;
                        let b = comp[(PAYLOAD + g) as usize];
                        // the first unit of each bitmap word checks it
                        if l % lpb == 0u32 {
                            let mut bad = value == 0u32 && b != 0u32;
                            if g == nbits - 1u32 && tail != 0u32 {
                                bad = bad || (b >> tail) != 0u32;
                            }
                            if bad {
                                sm_bad[0] = 1u32;
                            }
                        }
                        let mine = b >> ((l % lpb) * bpl);
                        #[unroll]
                        for j in 0..nv {
                            let mut word = 0u32;
                            if (mine >> comptime!(j * epw)) & 1u32 == 1u32 {
                                word = value;
                            }
                            if comptime!(half) {
                                if (mine >> comptime!(j * epw + 1)) & 1u32 == 1u32 {
                                    word |= value << 16u32;
                                }
                            }
                            v[j as usize] = word;
                        }
                    }
                    let wt = 2u32 * l * nv + 1u32;
                    #[unroll]
                    for j in 0..nv {
                        csum += v[j as usize] * (wt + comptime!(2 * j));
                    }
                    out[l as usize] = v;
                }
            }
        }
    }
    let total = cube_sum(csum, &mut sm, block, plane);
    if tid == 0 {
        // (the cube sum's barriers make every unit's flag visible)
        let mut bits = 0u32;
        if !ok {
            bits = STATUS_BAD_BITMAP;
        }
        if sm_bad[0] != 0u32 {
            bits |= STATUS_BAD_MASK;
        }
        status[2 * CUBE_POS] = bits;
        status[2 * CUBE_POS + 1] = total;
    }
}
