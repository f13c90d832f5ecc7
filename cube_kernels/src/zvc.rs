//! ZVC compress: one unit per 32 words (one group of 32 f32 elements, two
//! groups of 16-bit ones, see [`groups_per_unit`]), tiles of `32 * cb` words
//! (`cb = min(block, 256)` units compute, whole chunks per tile).
//!
//! Per tile: vectorized coalesced loads of the input into shared memory;
//! each unit builds its groups' masks from shared memory and writes them;
//! a block scan of the per-unit counts (with the 16-bit padding of every
//! chunk) gives each unit's position in the tile, and the tile's total is
//! published for the look-back at once; the units compact their kept
//! elements into shared memory; the tile's place in the payload comes from a
//! decoupled look-back
//! (`PASS_SINGLE`, one plane inspects a window of `PLANE_DIM` predecessors at
//! a time) or from the scanned tile counts (`PASS_WRITE`); then a coalesced
//! write of the tile's payload and its chunk offsets.
//!
//! Single pass: the input is read once, the output written once, no
//! inter-cube atomics except one ticket and two state words per tile.
//! Three passes (portable): `PASS_COUNT` (read the input, write the masks and
//! one count per tile), [`zvc_scan_tiles`] (one cube), `PASS_WRITE` (read the
//! input again, write the payload and the offsets).

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

use crate::compact::{
    checksum_term, cube_sum, finish_single_pass, write_header, FLAG_AGGREGATE, FLAG_PREFIX,
    PASS_COUNT, PASS_SINGLE, PASS_WRITE, VALUE_MASK,
};
use crate::decode::{STATUS_BAD_MASK, STATUS_BAD_OFFSETS};
use crate::format::{CHUNK, GROUP};

/// Groups per chunk (f32: units per chunk).
const UNITS_PER_CHUNK: u32 = (CHUNK / GROUP) as u32;
/// Most units that compute in a tile; a tile is `32 * cb` words.
pub(crate) const MAX_CB: u32 = 256;
/// Fewest: one chunk per tile.
pub(crate) fn min_cb(half: bool) -> u32 {
    UNITS_PER_CHUNK / groups_per_unit(half)
}
/// Most input vectors a compress unit loads before it stores them: the
/// registers of a round bound how many cubes an SM keeps resident, so f32,
/// which holds its words in registers, loads in small rounds. The 16-bit
/// kernel holds no words in registers and is bound by shared memory, where
/// larger rounds are at least as fast.
fn round_lines(half: bool) -> u32 {
    if half {
        4
    } else {
        2
    }
}

/// Groups of 32 elements a unit handles (compress and decompress): one for
/// f32, two for 16-bit dtypes, so a unit has 32 words and a tile `32 * cb`
/// words (the same bytes) for every dtype, and the per-tile cost (scan,
/// look-back, offsets, barriers) is spread over as many bytes for 16-bit
/// data as for f32.
pub(crate) fn groups_per_unit(half: bool) -> u32 {
    if half {
        2
    } else {
        1
    }
}

/// Words of shared memory the compress kernel uses at most (16-bit: a word
/// per kept element, as where the device has no 16-bit type; half that
/// with `u16` staging).
pub(crate) fn compress_shared_words(half: bool, block: u32, cb: u32) -> usize {
    let tw = 32 * cb as usize;
    tw + tw / 32 + if half { 2 * tw } else { 0 } + 2 * block as usize + 4
}

/// Inclusive scan of one value per unit over a cube of `n` units (`n` a
/// power of two) in `sm` (`2 * n` words): one barrier per step. Every unit
/// must call it (it has barriers). Afterwards the scan is in
/// `sm[scan_final(n) + t]`.
#[cube]
pub(crate) fn block_scan_incl(v: u32, sm: &mut SharedMemory<u32>, #[comptime] n: u32) -> u32 {
    let t = UNIT_POS;
    sm[t as usize] = v;
    sync_cube();
    let mut acc = v;
    #[unroll]
    for step in 0..comptime!(n.trailing_zeros()) {
        let s = comptime!(1u32 << step);
        let src = comptime!((step % 2) * n);
        let dst = comptime!(((step + 1) % 2) * n);
        if t >= s {
            acc += sm[(src + t - s) as usize];
        }
        sm[(dst + t) as usize] = acc;
        sync_cube();
    }
    acc
}

/// Where [`block_scan_incl`] leaves its result.
pub(crate) fn scan_final(n: u32) -> u32 {
    (n.trailing_zeros() % 2) * n
}

/// Whether vector `l` of a tile of `tl` vectors exists (a unit takes every
/// `block`-th; the last round may run past the tile).
#[cube]
fn line_in_tile(l: u32, #[comptime] tl: u32, #[comptime] block: u32) -> bool {
    let mut ok = true;
    if comptime!(tl % block != 0) {
        ok = l < tl;
    }
    ok
}

/// Decoupled look-back of `tile` (> 0) by one whole plane: the sum of the
/// totals of the tiles before it, back to the nearest one that has published
/// its inclusive prefix. Lane `l` of a window reads tile `hi - 1 - l` (below
/// tile 0 reads as a zero prefix). Each lane keeps its own sum over the
/// windows and the plane adds them once at the end; the nearest prefix of a
/// window is found by a ballot (`ballot`) or a plane min. A tile may walk
/// back many windows, so the per-window work is kept to one ballot (or min):
/// the plane's shuffle sum runs once per tile, not once per window. Each
/// lane reads one predecessor a window: every read of a look-back word is an
/// atomic, and more reads per lane cost more than the windows they save.
#[cube]
fn look_back(state: &mut Array<Atomic<u32>>, tile: u32, #[comptime] ballot: bool) -> u32 {
    let lane = UNIT_POS_PLANE;
    let mut part = 0u32;
    let mut hi = tile;
    let mut done = false;
    while !done {
        let mut s = u32::new(FLAG_PREFIX as i64);
        if hi > lane {
            s = state[(hi - lane) as usize].load();
        }
        while !plane_all(s >= FLAG_AGGREGATE) {
            if s < FLAG_AGGREGATE {
                s = state[(hi - lane) as usize].load();
            }
        }
        let first = nearest_prefix_lane(s >= FLAG_PREFIX, ballot);
        if lane <= first {
            part += s & VALUE_MASK;
        }
        if first != 0xFFFF_FFFFu32 {
            done = true;
        } else {
            hi -= PLANE_DIM;
        }
    }
    plane_sum(part)
}

/// The lowest lane of the plane whose `prefix` is true, `u32::MAX` if none:
/// by a ballot or by a plane min.
#[cube]
fn nearest_prefix_lane(prefix: bool, #[comptime] ballot: bool) -> u32 {
    let mut first = 0xFFFF_FFFFu32;
    if prefix {
        first = UNIT_POS_PLANE;
    }
    if comptime!(ballot) {
        first = first_lane(plane_ballot(prefix));
    } else {
        first = plane_min(first);
    }
    first
}

/// The lowest lane set in a plane ballot, `u32::MAX` if none.
#[cube]
fn first_lane(ballot: Vector<u32, Const<4>>) -> u32 {
    let mut first = 0xFFFF_FFFFu32;
    #[unroll]
    for k in 0..4u32 {
        let w = ballot[k as usize];
        if first == 0xFFFF_FFFFu32 && w != 0u32 {
            first = k * 32u32 + w.find_first_set() - 1u32;
        }
    }
    first
}

/// ZVC compress, one tile of `32 * cb` words per cube at a time.
///
/// `S` holds one compacted 16-bit element in shared memory: `u16` where the
/// device has it (half the shared memory), else `u32`.
///
/// `input` is the input as vectors of `nv` words (the first `full_lines`
/// of them), `input_w` the same buffer as words (for the last partial
/// vector). `state[0]` is the ticket counter, `state[1 + t]` tile `t`'s
/// look-back word, `done[0]` the cubes finished and their checksum (all
/// zero at launch; `PASS_SINGLE` only, see `finish_single_pass`). `tiles`
/// holds one count per tile (`PASS_COUNT` writes them, [`zvc_scan_tiles`]
/// turns them into exclusive offsets, `PASS_WRITE` reads those), then the
/// checksum at `tiles[ntiles]`, then one partial checksum per cube;
/// `PASS_SINGLE` binds there the state to clear (`clear_words` of it).
///
/// Checksum of the input (see `format::checksum`), each unit over the words
/// it loads, once per cube: `PASS_SINGLE` adds it up in `done` (the last
/// cube puts it in the header), `PASS_COUNT` stores it in
/// `tiles[ntiles + 1 + CUBE_POS]` ([`zvc_scan_tiles`] adds those up into
/// `tiles[ntiles]`, which `PASS_WRITE` puts in the header).
#[cube(launch_unchecked)]
pub(crate) fn zvc_compress<N: Size, S: Int, D: Int>(
    input: &Array<Vector<u32, N>>,
    input_w: &Array<u32>,
    out: &mut Array<u32>,
    state: &mut Array<Atomic<u32>>,
    done: &mut Array<Atomic<D>>,
    size: &mut Array<u32>,
    tiles: &mut Array<u32>,
    len: u32,
    in_words: u32,
    full_lines: u32,
    nchunks: u32,
    ntiles: u32,
    iters: u32,
    masks_base: u32,
    offs_base: u32,
    payload_base: u32,
    header_w1: u32,
    clear_words: u32,
    #[comptime] half: bool,
    #[comptime] nv: u32,
    #[comptime] block: u32,
    #[comptime] cb: u32,
    #[comptime] pass: u32,
    #[comptime] plane: bool,
) {
    let epw = comptime!(if half { 2u32 } else { 1u32 });
    let sums = comptime!(pass != PASS_WRITE);
    let mut csum = 0u32;
    // groups per unit, words per group, units per chunk, words per tile;
    // vectors per tile and per unit; words per unit (last tile, payload)
    let gpu = comptime!(groups_per_unit(half));
    let wpg = comptime!(32u32 / epw);
    let upc = comptime!(UNITS_PER_CHUNK / gpu);
    let tw = comptime!(32u32 * cb);
    let tl = comptime!(tw / nv);
    let lpu = comptime!((tl + block - 1) / block);
    let wpu = comptime!((tw + block - 1) / block);
    let cpt = comptime!(cb / upc);
    let fin = comptime!(scan_final(block));
    let tid = UNIT_POS;
    let ngroups = (len + 31) / 32;

    // the staged input (padded); f32 kept words are compacted in place,
    // 16-bit kept elements into `sm_half`, one slot each (the input stays
    // in `sm_in`, so the units re-read their words instead of holding them in
    // registers: fewer registers, more cubes resident)
    let mut sm_in = SharedMemory::<u32>::new(comptime!((tw + tw / 32) as usize));
    let mut sm_half = SharedMemory::<S>::new(comptime!((if half { 2 * tw } else { 1 }) as usize));
    let mut sm_scan = SharedMemory::<u32>::new(comptime!((2 * block) as usize));
    let mut sm_misc = SharedMemory::<u32>::new(4usize);

    for it in 0..iters {
        if tid == 0 {
            if comptime!(pass == PASS_SINGLE) {
                sm_misc[0] = state[0].fetch_add(1u32);
            } else {
                sm_misc[0] = CUBE_POS as u32 + it * CUBE_COUNT as u32;
            }
        }
        sync_cube();
        let tile = sm_misc[0];
        let active = tile < ntiles;

        // 1. the tile's input into shared memory (padded: word k at k + k/32)
        let line0 = tile * tl;
        if active {
            if line0 + tl <= full_lines {
                // whole tile in full vectors: loads in rounds of at most
                // `round` vectors per unit, each round's loads first, then its
                // stores (all loads of a round in flight; the registers they
                // hold bound the cubes an SM can keep resident)
                let round = comptime!(lpu.min(round_lines(half)));
                #[unroll]
                for r in 0..comptime!((lpu + round - 1) / round) {
                    let mut regs = Array::<Vector<u32, N>>::new(comptime!(round as usize));
                    #[unroll]
                    for q in 0..round {
                        let i = comptime!(r * round + q);
                        let l = i * block + tid;
                        if comptime!(i < lpu) && line_in_tile(l, tl, block) {
                            regs[q as usize] = input[(line0 + l) as usize];
                        }
                    }
                    #[unroll]
                    for q in 0..round {
                        let i = comptime!(r * round + q);
                        let l = i * block + tid;
                        if comptime!(i < lpu) && line_in_tile(l, tl, block) {
                            let v = regs[q as usize];
                            // weight 2 * (global word) + 1
                            let wt = 2u32 * (line0 + l) * nv + 1u32;
                            #[unroll]
                            for j in 0..nv {
                                let k = l * nv + j;
                                sm_in[(k + k / 32) as usize] = v[j as usize];
                                if comptime!(sums) {
                                    csum += v[j as usize] * (wt + comptime!(2 * j));
                                }
                            }
                        }
                    }
                }
            } else {
                // last tile: word by word, zero past the end
                #[unroll]
                for i in 0..wpu {
                    let k = i * block + tid;
                    let mut ok = true;
                    if comptime!(tw % block != 0) {
                        ok = k < tw;
                    }
                    if ok {
                        let w = line0 * nv + k;
                        let mut x = 0u32;
                        if w < in_words {
                            x = input_w[w as usize];
                        }
                        sm_in[(k + k / 32) as usize] = x;
                        if comptime!(sums) {
                            csum += checksum_term(x, w);
                        }
                    }
                }
            }
            if comptime!(half && sums) {
                // odd 16-bit length: the last word's upper half is not data
                if tile == ntiles - 1 && tid == 0 && len % 2 == 1 {
                    let w = in_words - 1;
                    csum -= checksum_term(input_w[w as usize] & 0xFFFF_0000u32, w);
                }
            }
        }
        sync_cube();

        // 2. each unit: its groups' masks (written out) and its count; f32
        // keeps its words in registers for the in-place compaction
        let unit = tile * cb + tid;
        // (the masks in two scalars, not a local array, which slows the f32
        // kernel)
        let mut mask0 = 0u32;
        let mut mask1 = 0u32;
        let mut vals = Array::<u32>::new(comptime!((if half { 1 } else { wpg }) as usize));
        if active && tid < cb {
            #[unroll]
            for q in 0..gpu {
                let g = unit * gpu + q;
                let mut mask = 0u32;
                #[unroll]
                for j in 0..wpg {
                    let k = tid * 32u32 + comptime!(q * wpg + j);
                    let w = sm_in[(k + k / 32) as usize];
                    if comptime!(half) {
                        if (w & 0xFFFFu32) != 0u32 {
                            mask |= comptime!(1u32 << (2 * j));
                        }
                        if (w >> 16u32) != 0u32 {
                            mask |= comptime!(1u32 << (2 * j + 1));
                        }
                    } else {
                        vals[j as usize] = w;
                        if w != 0u32 {
                            mask |= comptime!(1u32 << j);
                        }
                    }
                }
                if g >= ngroups {
                    mask = 0u32;
                } else {
                    let valid = len - g * 32;
                    if valid < 32 {
                        mask &= (1u32 << valid) - 1u32;
                    }
                }
                if comptime!(pass != PASS_WRITE) && g < ngroups {
                    out[(masks_base + g) as usize] = mask;
                }
                if comptime!(q == 0) {
                    mask0 = mask;
                } else {
                    mask1 = mask;
                }
            }
        }
        let cnt = mask0.count_ones() + mask1.count_ones();

        // 3. positions in the tile (barriers inside; also orders the reads
        // of sm_in above before the in-place writes below)
        let incl = block_scan_incl(cnt, &mut sm_scan, block);
        let mut pos = incl - cnt;
        let mut total = sm_scan[(fin + cb - 1) as usize];
        if comptime!(half) {
            // every chunk's count is padded to even: one pad after each odd chunk
            let my_chunk = tid / upc;
            let mut pads = 0u32;
            let mut before = 0u32;
            #[unroll]
            for k in 0..cpt {
                let hi = sm_scan[(fin + k * upc + upc - 1) as usize];
                let mut lo = 0u32;
                if comptime!(k > 0) {
                    lo = sm_scan[(fin + k * upc - 1) as usize];
                }
                let odd = (hi - lo) & 1u32;
                if k < my_chunk {
                    before += odd;
                }
                pads += odd;
            }
            pos += before;
            total += pads;
        }
        if comptime!(pass == PASS_SINGLE) {
            // the tile's total for the look-back of its successors, as early
            // as it is known (their wait is the chain's latency; tile 0
            // publishes its prefix below)
            if active && tid == 0 && tile > 0 {
                state[(1 + tile) as usize].store(FLAG_AGGREGATE | total);
            }
        }

        if comptime!(pass == PASS_COUNT) {
            if active && tid == 0 {
                tiles[tile as usize] = total;
            }
        } else {
            // 4. compact the kept elements into shared memory (f32: in place
            // in sm_in; 16-bit: element p to sm_half[p])
            if active && tid < cb {
                let mut p = pos;
                #[unroll]
                for q in 0..gpu {
                    let mut mask = mask0;
                    if comptime!(q == 1) {
                        mask = mask1;
                    }
                    #[unroll]
                    for j in 0..wpg {
                        if comptime!(half) {
                            let k = tid * 32u32 + comptime!(q * wpg + j);
                            let w = sm_in[(k + k / 32) as usize];
                            #[unroll]
                            for h in 0..2u32 {
                                if (mask >> comptime!(2 * j + h)) & 1u32 == 1u32 {
                                    sm_half[p as usize] =
                                        S::cast_from((w >> comptime!(16 * h)) & 0xFFFFu32);
                                    p += 1;
                                }
                            }
                        } else if (mask >> j) & 1u32 == 1u32 {
                            sm_in[p as usize] = vals[j as usize];
                            p += 1;
                        }
                    }
                }
                if comptime!(half) {
                    // the last unit of a chunk writes the chunk's pad
                    if tid % upc == upc - 1 && p % 2 == 1 {
                        sm_half[p as usize] = S::cast_from(0u32);
                    }
                }
            }

            // 5. the tile's offset in the payload
            if comptime!(pass == PASS_WRITE) {
                if active && tid == 0 {
                    sm_misc[1] = tiles[tile as usize];
                }
            } else if active && tid < PLANE_DIM {
                // decoupled look-back by the first plane
                if tile == 0 {
                    if UNIT_POS_PLANE == 0 {
                        state[1].store(FLAG_PREFIX | total);
                        sm_misc[1] = 0u32;
                    }
                } else {
                    // the nearest prefix by ballot for 16-bit; f32 keeps a
                    // plane min (there the ballot's registers cost a resident
                    // cube an SM, more than it saves)
                    let excl = look_back(state, tile, half);
                    if UNIT_POS_PLANE == 0 {
                        state[(1 + tile) as usize].store(FLAG_PREFIX | (excl + total));
                        sm_misc[1] = excl;
                    }
                }
            }
        }
        sync_cube();

        if comptime!(pass != PASS_COUNT) && active {
            let excl = sm_misc[1];
            // 6. chunk offsets, and the header after the last tile
            if tid < cb && tid % upc == 0 {
                let c = tile * cpt + tid / upc;
                if c < nchunks {
                    out[(offs_base + c) as usize] = excl + pos;
                }
            }
            if tile == ntiles - 1 && tid == 0 {
                let end = excl + total;
                out[(offs_base + nchunks) as usize] = end;
                let total_words = payload_base + end / epw;
                write_header(out, size, header_w1, len, total_words);
                if comptime!(pass == PASS_WRITE) {
                    out[7] = tiles[ntiles as usize];
                }
                // PASS_SINGLE: the last cube to finish writes out[7]
            }
            // 7. coalesced write of the payload
            let region = payload_base + excl / epw;
            let words = total / epw;
            #[unroll]
            for i in 0..wpu {
                let k = i * block + tid;
                if k < words {
                    if comptime!(half) {
                        out[(region + k) as usize] = u32::cast_from(sm_half[(2 * k) as usize])
                            | (u32::cast_from(sm_half[(2 * k + 1) as usize]) << 16u32);
                    } else {
                        out[(region + k) as usize] = sm_in[k as usize];
                    }
                }
            }
        }
        sync_cube();
    }
    if comptime!(sums) {
        let total = cube_sum(csum, &mut sm_scan, block, plane);
        if comptime!(pass == PASS_SINGLE) {
            finish_single_pass::<D>(total, done, tiles, clear_words, out, block);
        } else if tid == 0 {
            tiles[(ntiles + 1 + CUBE_POS as u32) as usize] = total;
        }
    }
}

/// Exclusive scan of the `n` per-tile counts in place (one cube of `block`
/// units, `per` counts per unit per round), and the checksum: the sum of
/// the `nparts` partial checksums at `tiles[n + 1..]`, into `tiles[n]`.
#[cube(launch_unchecked)]
pub(crate) fn zvc_scan_tiles(
    tiles: &mut Array<u32>,
    n: u32,
    nparts: u32,
    #[comptime] block: u32,
    #[comptime] per: u32,
) {
    let mut sm = SharedMemory::<u32>::new(comptime!((2 * block) as usize));
    let fin = comptime!(scan_final(block));
    let tid = UNIT_POS;
    let mut part = 0u32;
    let mut k = tid;
    while k < nparts {
        part += tiles[(n + 1 + k) as usize];
        k += block;
    }
    let csum = cube_sum(part, &mut sm, block, false);
    if tid == 0 {
        tiles[n as usize] = csum;
    }
    sync_cube();
    let seg = comptime!(block * per);
    let rounds = (n + seg - 1) / seg;
    let mut carry = 0u32;
    for r in 0..rounds {
        let base = r * seg + tid * per;
        let mut vals = Array::<u32>::new(comptime!(per as usize));
        let mut sum = 0u32;
        #[unroll]
        for j in 0..per {
            let i = base + j;
            let mut x = 0u32;
            if i < n {
                x = tiles[i as usize];
            }
            vals[j as usize] = x;
            sum += x;
        }
        let incl = block_scan_incl(sum, &mut sm, block);
        let total = sm[(fin + block - 1) as usize];
        let mut run = carry + incl - sum;
        #[unroll]
        for j in 0..per {
            let i = base + j;
            if i < n {
                tiles[i as usize] = run;
            }
            run += vals[j as usize];
        }
        carry += total;
        sync_cube();
    }
}

/// Words of shared memory the decompress kernel uses.
pub(crate) fn decompress_shared_words(half: bool, block: u32, cb: u32) -> usize {
    let gpt = (cb * groups_per_unit(half)) as usize;
    let tw = 32 * cb as usize;
    tw + 2 * gpt + 2 * block as usize + gpt / UNITS_PER_CHUNK as usize + 1 + 2 + 2
}

/// ZVC decompress, one tile of `32 * cb` words (whole chunks; `32 * cb`
/// elements for f32, twice that for 16-bit) per cube at a time: each unit
/// reads one mask (two for 16-bit, see [`groups_per_unit`];
/// coalesced), a block scan gives each group's position in the tile's payload, the chunk offsets are checked
/// against the masks, the tile's payload is staged in shared memory
/// (coalesced, all loads in flight at once), then every unit expands whole
/// vectors of `nv` output words and stores them (coalesced, 16 bytes per
/// unit). `out` holds `out_lines` vectors (the data rounded up to whole
/// vectors, the padding zero). A tile that fails a check is not written.
///
/// Status, with `per_cube` (16-bit): every cube writes its own pair of
/// words, `status[2 * CUBE_POS]` the bits of the checks it failed and
/// `status[2 * CUBE_POS + 1]` the checksum of the words it wrote (see
/// `format::checksum`; the padding is zero), so the status needs no zeroing
/// launch. Without (f32): two zeroed words, the bits set by atomic OR and
/// the checksums added, one atomic add per cube: a per-cube status raises
/// the f32 kernel's registers enough to make it slower than the zeroing
/// launch it saves. `Decompressed::check` reads either layout.
#[cube(launch_unchecked)]
pub(crate) fn zvc_decompress<N: Size>(
    comp: &Array<u32>,
    out: &mut Array<Vector<u32, N>>,
    status: &mut Array<Atomic<u32>>,
    len: u32,
    out_lines: u32,
    nchunks: u32,
    ntiles: u32,
    iters: u32,
    masks_base: u32,
    offs_base: u32,
    payload_base: u32,
    total_words: u32,
    #[comptime] half: bool,
    #[comptime] nv: u32,
    #[comptime] block: u32,
    #[comptime] cb: u32,
    #[comptime] plane: bool,
    #[comptime] per_cube: bool,
) {
    let epw = comptime!(if half { 2u32 } else { 1u32 });
    // groups per unit, per tile; units per chunk
    let gpu = comptime!(groups_per_unit(half));
    let gpt = comptime!(cb * gpu);
    let upc = comptime!(UNITS_PER_CHUNK / gpu);
    let tw = comptime!(32u32 * gpt / epw);
    let mut csum = 0u32;
    let tl = comptime!(tw / nv);
    let lpu = comptime!((tl + block - 1) / block);
    let wpu = comptime!((tw + block - 1) / block);
    let cpt = comptime!(gpt / UNITS_PER_CHUNK);
    // elements per output vector (all in one group: nv * epw divides 32)
    let epl = comptime!(nv * epw);
    let fin = comptime!(scan_final(block));
    let tid = UNIT_POS;
    let ngroups = (len + 31) / 32;

    let mut sm_v = SharedMemory::<u32>::new(comptime!(tw as usize));
    let mut sm_mask = SharedMemory::<u32>::new(comptime!(gpt as usize));
    let mut sm_pos = SharedMemory::<u32>::new(comptime!(gpt as usize));
    let mut sm_scan = SharedMemory::<u32>::new(comptime!((2 * block) as usize));
    let mut sm_off = SharedMemory::<u32>::new(comptime!((cpt + 1) as usize));
    let mut sm_misc = SharedMemory::<u32>::new(2usize);
    // per_cube: the cube's failed checks, one word per status bit; a unit
    // that finds one writes 1 (the same value, so no atomics)
    let mut sm_bad = SharedMemory::<u32>::new(2usize);
    if comptime!(per_cube) {
        if tid < 2 {
            sm_bad[tid as usize] = 0u32;
        }
        sync_cube();
    }

    for it in 0..iters {
        let tile = CUBE_POS as u32 + it * CUBE_COUNT as u32;
        let active = tile < ntiles;
        let c0 = tile * cpt;
        // chunks of this tile that exist
        let mut nch = 0u32;
        if active {
            nch = cubecl::prelude::min(nchunks - c0, cpt);
        }

        // 1. masks (gpu consecutive ones per unit) and the tile's chunk offsets
        let mut ms = Array::<u32>::new(comptime!(gpu as usize));
        let mut cnt = 0u32;
        #[unroll]
        for q in 0..gpu {
            let g = (tile * cb + tid) * gpu + q;
            let mut m = 0u32;
            if active && tid < cb && g < ngroups {
                m = comp[(masks_base + g) as usize];
                let valid = len - g * 32;
                if valid < 32 {
                    if m >> valid != 0u32 {
                        if comptime!(per_cube) {
                            sm_bad[1] = 1u32;
                        } else {
                            status[0].fetch_or(STATUS_BAD_MASK);
                        }
                    }
                    m &= (1u32 << valid) - 1u32;
                }
            }
            ms[q as usize] = m;
            cnt += m.count_ones();
        }
        if active && tid <= nch {
            sm_off[tid as usize] = comp[(offs_base + c0 + tid) as usize];
        }
        if tid == 0 {
            sm_misc[0] = 0u32;
        }
        let incl = block_scan_incl(cnt, &mut sm_scan, block);

        // 2. positions (16-bit: each chunk padded to even) and the checks
        let mut pos = incl - cnt;
        if comptime!(half) {
            let my_chunk = tid / upc;
            #[unroll]
            for k in 0..cpt {
                let hi = sm_scan[(fin + k * upc + upc - 1) as usize];
                let mut lo = 0u32;
                if comptime!(k > 0) {
                    lo = sm_scan[(fin + k * upc - 1) as usize];
                }
                if k < my_chunk {
                    pos += (hi - lo) & 1u32;
                }
            }
        }
        if active && tid < cb {
            #[unroll]
            for q in 0..gpu {
                let m = ms[q as usize];
                sm_mask[(tid * gpu + q) as usize] = m;
                sm_pos[(tid * gpu + q) as usize] = pos;
                pos += m.count_ones();
            }
        }
        if active && tid < nch {
            // chunk tid: its padded count must be the distance of its offsets
            let hi = sm_scan[(fin + tid * upc + upc - 1) as usize];
            let mut lo = 0u32;
            if tid > 0 {
                lo = sm_scan[(fin + tid * upc - 1) as usize];
            }
            let padded = (hi - lo + epw - 1) / epw * epw;
            let a = sm_off[tid as usize];
            let b = sm_off[(tid + 1) as usize];
            let ok =
                b >= a && b - a == padded && a % epw == 0 && b / epw <= total_words - payload_base;
            if !ok {
                sm_misc[0] = 1u32;
            }
        }
        sync_cube();
        let good = active && sm_misc[0] == 0u32;
        if active && !good && tid == 0 {
            if comptime!(per_cube) {
                sm_bad[0] = 1u32;
            } else {
                status[0].fetch_or(STATUS_BAD_OFFSETS);
            }
        }

        // 3. the tile's payload into shared memory
        if good {
            let src = payload_base + sm_off[0] / epw;
            let words = (sm_off[nch as usize] - sm_off[0]) / epw;
            #[unroll]
            for i in 0..wpu {
                let k = i * block + tid;
                if k < words {
                    sm_v[k as usize] = comp[(src + k) as usize];
                }
            }
        }
        sync_cube();

        // 4. expand whole vectors and store them
        if good {
            #[unroll]
            for i in 0..lpu {
                let l = i * block + tid;
                let gl = tile * tl + l;
                let mut ok = gl < out_lines;
                if comptime!(tl % block != 0) {
                    ok = ok && l < tl;
                }
                if ok {
                    let e0 = l * epl;
                    let gg = e0 / 32;
                    let gm = sm_mask[gg as usize];
                    let gp = sm_pos[gg as usize];
                    let b0 = e0 % 32;
                    let mut v = Vector::<u32, N>::new(0u32);
                    let wt = 2u32 * gl * nv + 1u32;
                    // position of the vector's first kept element, then a
                    // running count (one popcount per vector, not per element)
                    let mut p = gp + (gm & ((1u32 << b0) - 1u32)).count_ones();
                    let mv = gm >> b0;
                    #[unroll]
                    for j in 0..nv {
                        let mut word = 0u32;
                        if comptime!(half) {
                            // a word at a time: halves p and p + 1 of the
                            // payload (two loads, clamped inside the tile),
                            // then its two keep bits pick them with selects:
                            // branches on the keep bits and the parity of p
                            // diverge
                            let k = (mv >> comptime!(2 * j)) & 3u32;
                            let q = cubecl::prelude::min(p / 2u32, tw - 1);
                            let w0 = sm_v[q as usize];
                            let w1 = sm_v[cubecl::prelude::min(q + 1u32, tw - 1) as usize];
                            let two = select(p % 2u32 == 1u32, (w0 >> 16u32) | (w1 << 16u32), w0);
                            let lo = two & 0xFFFFu32;
                            let high = select(
                                k == 3u32,
                                two & 0xFFFF_0000u32,
                                select(k == 2u32, lo << 16u32, 0u32),
                            );
                            word = select(k & 1u32 == 1u32, lo, 0u32) | high;
                            // popcount of two bits
                            p += (k + 1u32) / 2u32;
                        } else {
                            let keep = (mv >> comptime!(j)) & 1u32;
                            if keep == 1u32 {
                                word = sm_v[p as usize];
                            }
                            p += keep;
                        }
                        v[j as usize] = word;
                        csum += word * (wt + comptime!(2 * j));
                    }
                    out[gl as usize] = v;
                }
            }
        }
        sync_cube();
    }
    let total = cube_sum(csum, &mut sm_scan, block, plane);
    if tid == 0 {
        if comptime!(per_cube) {
            // (the cube sum's barriers make every unit's flags visible)
            let mut bits = 0u32;
            if sm_bad[0] != 0u32 {
                bits |= STATUS_BAD_OFFSETS;
            }
            if sm_bad[1] != 0u32 {
                bits |= STATUS_BAD_MASK;
            }
            status[2 * CUBE_POS].store(bits);
            status[2 * CUBE_POS + 1].store(total);
        } else {
            status[1].fetch_add(total);
        }
    }
}
