//! GPU kernels, each result compared with the CPU reference: on cubecl's
//! wgpu runtime (lavapipe in CI), or with the `cuda` feature on CUDA, where
//! the compress configurations are single-pass (decoupled look-back) and the
//! same checks cover those kernels.
#![cfg(any(feature = "wgpu", feature = "cuda"))]

mod common;
use common::*;
use cube_kernels::format::{self, CodecKind, DType, Header, Layout, CHUNK};
use cube_kernels::{compress, cpu, decompress, CodecError, LaunchConfig};
use cubecl::prelude::*;

#[cfg(feature = "cuda")]
type Rt = cubecl::cuda::CudaRuntime;
#[cfg(not(feature = "cuda"))]
type Rt = cubecl::wgpu::WgpuRuntime;

#[cfg(feature = "cuda")]
fn client() -> ComputeClient<Rt> {
    Rt::client(&cubecl::cuda::CudaDevice::new(0))
}
#[cfg(not(feature = "cuda"))]
fn client() -> ComputeClient<Rt> {
    Rt::client(&cubecl::wgpu::WgpuDevice::default())
}

/// Single-pass compress where it runs (CUDA; ZVC, CSR, RLE).
fn single_pass(codec: CodecKind) -> bool {
    cfg!(feature = "cuda") && LaunchConfig::has_single_pass(codec)
}

fn upload(client: &ComputeClient<Rt>, words: &[u32]) -> cubecl::server::Handle {
    let mut w = words.to_vec();
    if w.is_empty() {
        w.push(0);
    }
    client.create_from_slice(&format::words_to_bytes(&w))
}

/// GPU compress equals the CPU bytes; GPU decompress of it gives the input.
fn check(
    client: &ComputeClient<Rt>,
    codec: CodecKind,
    dtype: DType,
    e: &[u32],
    cfg: LaunchConfig,
    what: &str,
) {
    let len = e.len();
    let words = pack(e, dtype, 0x5a5a);
    let input = upload(client, &words);
    let reference = cpu::compress(codec, dtype, &words, len).unwrap();
    let c = compress(client, codec, &input, dtype, len, cfg).unwrap();
    assert_eq!(
        c.read_size(client).unwrap(),
        reference.len(),
        "{what}: size"
    );
    let host = c.to_host(client).unwrap();
    assert!(
        host == reference,
        "{what}: compressed bytes differ from the CPU reference"
    );
    let header = Header::decode(&host, Some(host.len())).unwrap();
    let d = decompress(client, &c.handle, &header, cfg).unwrap();
    let out = d.to_host(client).unwrap();
    assert_eq!(unpack(&out, dtype, len), e, "{what}: round trip");
}

fn cfg(codec: CodecKind) -> LaunchConfig {
    LaunchConfig {
        single_pass: single_pass(codec),
        ..LaunchConfig::default_for(codec)
    }
}

const LENS: &[usize] = &[0, 1, 33, 4095, 4097, 3 * CHUNK + 1001];

fn sweep(codec: CodecKind) {
    let client = client();
    for dtype in DType::ALL {
        for (pi, &pattern) in PATTERNS.iter().enumerate() {
            for &len in LENS {
                let e = elements(pattern, dtype, len, (pi * 7919 + len) as u64);
                check(
                    &client,
                    codec,
                    dtype,
                    &e,
                    cfg(codec),
                    &format!("{codec:?} {dtype:?} {pattern:?} len {len}"),
                );
            }
        }
    }
}

#[test]
fn zvc_gpu_matches_cpu_reference_on_all_patterns_dtypes_lengths() {
    sweep(CodecKind::Zvc);
}

#[test]
fn csr_gpu_matches_cpu_reference_on_all_patterns_dtypes_lengths() {
    sweep(CodecKind::Csr);
}

#[test]
fn rle_gpu_matches_cpu_reference_on_all_patterns_dtypes_lengths() {
    sweep(CodecKind::Rle);
}

#[test]
fn lz4_gpu_matches_cpu_reference_on_all_patterns_dtypes_lengths() {
    sweep(CodecKind::Lz4);
}

#[test]
fn bitmap_gpu_matches_cpu_reference_on_all_patterns_dtypes_lengths() {
    sweep(CodecKind::Bitmap);
}

#[test]
fn every_block_size_and_small_grids_give_the_same_bytes() {
    // Small grids make every cube loop over many chunks (look-back across
    // iterations); large inputs relative to the grid.
    let client = client();
    let len = 40 * CHUNK + 123;
    for codec in CodecKind::ALL {
        for dtype in [DType::F32, DType::BF16] {
            let e = elements(Pattern::Clustered(0.5), dtype, len, 11);
            for &block in LaunchConfig::blocks(codec) {
                // one LZ4 cube doing all 41 chunks alone runs so long that
                // lavapipe cut it short in testing: start LZ4 at 3 cubes
                let grids: &[u32] = if codec == CodecKind::Lz4 {
                    &[3, 64]
                } else {
                    &[1, 3, 64]
                };
                for &grid in grids {
                    let c = LaunchConfig {
                        block,
                        grid,
                        single_pass: single_pass(codec),
                    };
                    check(
                        &client,
                        codec,
                        dtype,
                        &e,
                        c,
                        &format!("{codec:?} {dtype:?} {c:?}"),
                    );
                }
            }
        }
    }
}

#[test]
fn invalid_launch_configs_are_rejected() {
    let client = client();
    let input = upload(&client, &[1, 2, 3]);
    let mut bad = vec![
        LaunchConfig {
            block: 100,
            grid: 4,
            single_pass: false,
        },
        LaunchConfig {
            block: 256,
            grid: 0,
            single_pass: false,
        },
    ];
    if !cfg!(feature = "cuda") {
        // the single pass runs on CUDA only
        bad.push(LaunchConfig {
            block: 256,
            grid: 4,
            single_pass: true,
        });
    }
    for bad in bad {
        let r = compress(&client, CodecKind::Zvc, &input, DType::F32, 3, bad);
        assert!(matches!(r, Err(CodecError::BadConfig(..))));
    }
    let r = compress(
        &client,
        CodecKind::Zvc,
        &input,
        DType::F32,
        4,
        cfg(CodecKind::Zvc),
    );
    assert!(matches!(r, Err(CodecError::Truncated { .. })));
}

/// Corrupt `host` with `f`, upload, decode on the GPU: must be an error
/// (host header check or device status), never a silent success.
fn gpu_rejects(client: &ComputeClient<Rt>, host: &[u32], f: impl Fn(&mut Vec<u32>)) -> bool {
    let mut b = host.to_vec();
    f(&mut b);
    let header = match Header::decode(&b, Some(b.len())) {
        Ok(h) => h,
        Err(_) => return true,
    };
    let dev = upload(client, &b);
    let codec = header.codec;
    match decompress(client, &dev, &header, cfg(codec)) {
        Err(_) => true,
        Ok(d) => d.check(client).is_err(),
    }
}

#[test]
fn gpu_decoders_reject_corrupt_offsets_indices_masks_and_truncation() {
    let client = client();
    let len = 3 * CHUNK + 77;
    for codec in CodecKind::ALL {
        for dtype in [DType::F32, DType::F16] {
            let e = elements(Pattern::Clustered(0.6), dtype, len, 5);
            let words = pack(&e, dtype, 0);
            let host = cpu::compress(codec, dtype, &words, len).unwrap();
            let layout = Layout::new(codec, len);
            let what = format!("{codec:?} {dtype:?}");
            // truncated: header says more words than uploaded
            assert!(
                gpu_rejects(&client, &host, |b| b.truncate(b.len() - 3)),
                "{what} truncated"
            );
            if codec != CodecKind::Bitmap {
                // a chunk offset moved
                assert!(
                    gpu_rejects(&client, &host, |b| b[layout.offsets + 1] += 4),
                    "{what} offset +"
                );
                assert!(
                    gpu_rejects(&client, &host, |b| b[layout.offsets + 2] = 0xffff_fff0),
                    "{what} offset huge"
                );
            }
            // header size field
            assert!(gpu_rejects(&client, &host, |b| b[4] += 1), "{what} header");
            match codec {
                CodecKind::Zvc => {
                    // a cleared mask (count no longer matches the offsets;
                    // a change within the padding unit is undetectable)
                    let g = (0..len / 32)
                        .find(|&g| host[layout.masks + g].count_ones() >= 2)
                        .unwrap();
                    assert!(
                        gpu_rejects(&client, &host, |b| b[layout.masks + g] = 0),
                        "{what} mask"
                    );
                    // a mask bit past the end of the data
                    let last = layout.masks + len.div_ceil(32) - 1;
                    assert!(
                        gpu_rejects(&client, &host, |b| b[last] |= 1 << 31),
                        "{what} tail mask"
                    );
                }
                CodecKind::Csr | CodecKind::Rle => {
                    // first index of chunk 1 replaced by a huge one
                    let first = layout.payload
                        + cpu_region(
                            codec,
                            dtype,
                            host[layout.offsets + 1] as usize,
                            host[layout.offsets + 2] as usize,
                        );
                    assert!(
                        gpu_rejects(&client, &host, |b| b[first] |= 0x0fff),
                        "{what} index"
                    );
                }
                CodecKind::Lz4 => {
                    // first token of chunk 0 claims a long literal run
                    let first = layout.payload;
                    assert!(
                        gpu_rejects(&client, &host, |b| b[first] = 0xffff_ffff),
                        "{what} token"
                    );
                }
                CodecKind::Bitmap => {
                    // an unknown mode (see `bitmap_gpu_decoder_flags_corruption`)
                    assert!(gpu_rejects(&client, &host, |b| b[8] = 2), "{what} mode");
                }
            }
        }
    }
}

/// Word of the first index entry of the CSR/RLE region starting at entry `a`.
fn cpu_region(_codec: CodecKind, dtype: DType, a: usize, b: usize) -> usize {
    a * dtype.size() / 4 + a / 2 + (b - a) * dtype.size() / 4
}

#[test]
fn gpu_decoder_accepts_cpu_output_and_cpu_accepts_gpu_output() {
    let client = client();
    let len = 2 * CHUNK + 5;
    for codec in CodecKind::ALL {
        let e = elements(Pattern::Scattered(0.7), DType::F16, len, 21);
        let words = pack(&e, DType::F16, 0);
        let host = cpu::compress(codec, DType::F16, &words, len).unwrap();
        let dev = upload(&client, &host);
        let header = Header::decode(&host, Some(host.len())).unwrap();
        let d = decompress(&client, &dev, &header, cfg(codec))
            .unwrap()
            .to_host(&client)
            .unwrap();
        assert_eq!(unpack(&d, DType::F16, len), e);
    }
}

#[test]
fn many_chunks_with_every_cube_looping_round_trip() {
    // 300 chunks over 7 cubes (each cube loops ~43 times), 16-bit data
    let client = client();
    let len = 300 * CHUNK + 9;
    for codec in [CodecKind::Zvc, CodecKind::Csr] {
        let e = elements(Pattern::Scattered(0.5), DType::F16, len, 77);
        let c = LaunchConfig {
            block: 128,
            grid: 7,
            single_pass: single_pass(codec),
        };
        check(
            &client,
            codec,
            DType::F16,
            &e,
            c,
            &format!("{codec:?} many chunks"),
        );
    }
}

/// Compresses queued back to back without a read between them, growing and
/// shrinking, then all checked: each single-pass launch must find the
/// look-back state its predecessor on the stream left zero (on CUDA; the
/// multi-pass kernels elsewhere). Then the same from four threads at once,
/// each on its own stream with its own state.
#[test]
fn queued_compresses_of_changing_sizes_on_several_streams() {
    queued_then_checked(|seed| {
        let lens = [
            300 * CHUNK + 9,
            5,
            40 * CHUNK + 77,
            2 * CHUNK,
            300 * CHUNK + 9,
        ];
        let mut calls = Vec::new();
        for (i, &len) in lens.iter().enumerate() {
            let codec = [CodecKind::Zvc, CodecKind::Csr, CodecKind::Rle][i % 3];
            let dtype = DType::ALL[(i + seed as usize) % DType::ALL.len()];
            let e = elements(Pattern::Scattered(0.5), dtype, len, seed * 31 + i as u64);
            let cfg = LaunchConfig {
                block: 256,
                grid: [3u32, 4096, 17, 1, 64][i],
                single_pass: single_pass(codec),
            };
            calls.push((codec, dtype, e, cfg));
        }
        calls
    });
}

/// One compress call of a queue: codec, dtype, elements, launch.
type QueuedCall = (CodecKind, DType, Vec<u32>, LaunchConfig);

/// The calls `calls` gives for a seed, queued back to back on one stream
/// without a read between them, then each checked against the CPU
/// reference's bytes and decompressed bit-exact; for two seeds on one
/// stream, then four at once from threads of their own (their own streams).
fn queued_then_checked(calls: fn(u64) -> Vec<QueuedCall>) {
    fn queue_and_check(client: &ComputeClient<Rt>, seed: u64, calls: Vec<QueuedCall>) {
        let mut queued = Vec::new();
        for (codec, dtype, e, cfg) in calls {
            let len = e.len();
            let words = pack(&e, dtype, 0x5a5a);
            let input = upload(client, &words);
            let c = compress(client, codec, &input, dtype, len, cfg).unwrap();
            queued.push((c, cpu::compress(codec, dtype, &words, len).unwrap(), e, cfg));
        }
        for (i, (c, reference, e, cfg)) in queued.into_iter().enumerate() {
            let host = c.to_host(client).unwrap();
            assert!(host == reference, "seed {seed} call {i}: bytes differ");
            let header = Header::decode(&host, Some(host.len())).unwrap();
            let d = decompress(client, &c.handle, &header, cfg).unwrap();
            assert_eq!(unpack(&d.to_host(client).unwrap(), c.dtype, c.len), e);
        }
    }
    let client = client();
    queue_and_check(&client, 1, calls(1));
    queue_and_check(&client, 2, calls(2));
    std::thread::scope(|s| {
        for seed in 3..7u64 {
            let client = client.clone();
            s.spawn(move || queue_and_check(&client, seed, calls(seed)));
        }
    });
}

/// ZVC tiles are `32 * cb` words (cb = min(block, 256) units, fewer when
/// the device has little shared memory: 32-128 on lavapipe): lengths around
/// group, chunk and tile boundaries, every block size, grids from one cube
/// looping over every tile to more cubes than tiles, every dtype.
#[test]
fn zvc_tile_boundaries_every_block_and_grid() {
    let client = client();
    let lens = [
        1usize,
        31,
        32,
        33,
        2047,
        2048,
        2049,
        4095,
        4096,
        4097,
        8191,
        8192,
        8193,
        3 * 8192 + 4096 + 33,
    ];
    for dtype in DType::ALL {
        for (i, &len) in lens.iter().enumerate() {
            let pattern = [
                Pattern::Scattered(0.5),
                Pattern::Clustered(0.9),
                Pattern::Special,
                Pattern::Scattered(0.0),
            ][i % 4];
            let e = elements(pattern, dtype, len, 1000 + i as u64);
            for &block in LaunchConfig::blocks(CodecKind::Zvc) {
                for grid in [1u32, 2, 5, 4096] {
                    check_zvc(
                        &client,
                        dtype,
                        &e,
                        block,
                        grid,
                        &format!("Zvc {dtype:?} {pattern:?} len {len}"),
                    );
                }
            }
        }
    }
}

/// A ZVC round trip at `block` x `grid` (multi-pass; single pass on CUDA).
fn check_zvc(
    client: &ComputeClient<Rt>,
    dtype: DType,
    e: &[u32],
    block: u32,
    grid: u32,
    label: &str,
) {
    let c = LaunchConfig {
        block,
        grid,
        single_pass: single_pass(CodecKind::Zvc),
    };
    check(
        client,
        CodecKind::Zvc,
        dtype,
        e,
        c,
        &format!("{label} {c:?}"),
    );
}

/// 16-bit ZVC: kept elements at odd positions (the high half of a word)
/// with sparse data, dense data, single elements per group; lengths around
/// tiles of 64 and 128 units and twice that, odd counts, many tiles per cube.
#[test]
fn zvc_16bit_two_groups_per_unit_odd_positions() {
    let client = client();
    let lens = [
        63usize,
        4095,
        4097,
        8191,
        8193,
        16383,
        16385,
        2 * 16384 + 4096 + 65,
    ];
    let patterns = [
        Pattern::Scattered(0.97),
        Pattern::Scattered(0.5),
        Pattern::Clustered(0.99),
        Pattern::Scattered(0.2),
    ];
    for dtype in [DType::F16, DType::BF16] {
        for (i, &len) in lens.iter().enumerate() {
            for (pi, &pattern) in patterns.iter().enumerate() {
                let e = elements(pattern, dtype, len, 500 + (i * 4 + pi) as u64);
                for (block, grid) in [(64u32, 1u32), (128, 3), (256, 2), (1024, 4096)] {
                    check_zvc(
                        &client,
                        dtype,
                        &e,
                        block,
                        grid,
                        &format!("Zvc {dtype:?} {pattern:?} len {len}"),
                    );
                }
            }
        }
    }
}

/// 16-bit ZVC with one kept element in every group, every second group or
/// every third group.
#[test]
fn zvc_16bit_one_element_per_group() {
    let client = client();
    let len = 3 * 8192 + 33;
    for dtype in [DType::F16, DType::BF16] {
        for every in [32usize, 64, 96] {
            let e: Vec<u32> = (0..len)
                .map(|i| {
                    if i % every == 5 {
                        0x3c00 + (i as u32 & 0xff)
                    } else {
                        0
                    }
                })
                .collect();
            for block in [64u32, 128, 256] {
                check_zvc(
                    &client,
                    dtype,
                    &e,
                    block,
                    5,
                    &format!("Zvc {dtype:?} one in {every}"),
                );
            }
        }
    }
}

/// All zero and no zero at a multi-tile length with an odd 16-bit count
/// (every chunk padded, the last word half junk).
#[test]
fn zvc_all_zero_and_no_zero_multi_tile() {
    let client = client();
    let len = 5 * CHUNK + 2 * 32 + 7;
    for dtype in DType::ALL {
        for sp in [0.0, 1.0] {
            let e = elements(Pattern::Scattered(sp), dtype, len, 3);
            for block in [64u32, 256, 1024] {
                check_zvc(
                    &client,
                    dtype,
                    &e,
                    block,
                    3,
                    &format!("Zvc {dtype:?} sp {sp}"),
                );
            }
        }
    }
}

/// Word (4-byte) access instead of 16-byte vectors, as for an input handle
/// that does not start 16-byte aligned (wgpu cannot bind one, so the test
/// forces it), and an input handle at an aligned offset: same bytes, same
/// round trip.
#[test]
fn zvc_word_access_and_offset_input_handle() {
    let client = client();
    for dtype in [DType::F32, DType::BF16] {
        let len = 3 * CHUNK + 45;
        let e = elements(Pattern::Special, dtype, len, 8);
        let words = pack(&e, dtype, 0x1234);
        // 256 bytes (wgpu's binding alignment) of junk in front
        let mut shifted = vec![0xdead_beefu32; 64];
        shifted.extend_from_slice(&words);
        let input = upload(&client, &shifted).offset_start(256);
        let reference = cpu::compress(CodecKind::Zvc, dtype, &words, len).unwrap();
        for block in [64u32, 512] {
            let c = LaunchConfig {
                block,
                grid: 2,
                single_pass: single_pass(CodecKind::Zvc),
            };
            let got = compress(&client, CodecKind::Zvc, &input, dtype, len, c)
                .unwrap()
                .to_host(&client)
                .unwrap();
            assert!(got == reference, "{dtype:?} block {block} offset handle");
            cube_kernels::zvc_force_word_access(true);
            check(
                &client,
                CodecKind::Zvc,
                dtype,
                &e,
                c,
                &format!("{dtype:?} {c:?} word access"),
            );
            cube_kernels::zvc_force_word_access(false);
        }
    }
}

/// The decoded handle covers exactly the data words (the decoder writes
/// whole 16-byte vectors into a rounded-up buffer).
#[test]
fn zvc_decompressed_handle_is_trimmed_to_the_data() {
    let client = client();
    for (dtype, len) in [
        (DType::F32, 4097usize),
        (DType::F16, 4097),
        (DType::BF16, 3),
    ] {
        let e = elements(Pattern::Scattered(0.3), dtype, len, 4);
        let words = pack(&e, dtype, 0);
        let host = cpu::compress(CodecKind::Zvc, dtype, &words, len).unwrap();
        let header = Header::decode(&host, Some(host.len())).unwrap();
        let d = decompress(
            &client,
            &upload(&client, &host),
            &header,
            cfg(CodecKind::Zvc),
        )
        .unwrap();
        assert_eq!(d.words, dtype.words(len));
        assert_eq!(d.handle.size_in_used() as usize, dtype.words(len) * 4);
        assert_eq!(unpack(&d.to_host(&client).unwrap(), dtype, len), e);
    }
}

/// Corruption in a later tile of a multi-tile buffer is caught by every
/// block size and grid (the decoder checks each tile's chunk offsets against
/// its masks), and the intact buffer still decodes.
#[test]
fn zvc_decoder_rejects_corruption_in_any_tile() {
    let client = client();
    let len = 9 * CHUNK + 100;
    for dtype in [DType::F32, DType::F16] {
        let e = elements(Pattern::Scattered(0.6), dtype, len, 12);
        let host = cpu::compress(CodecKind::Zvc, dtype, &pack(&e, dtype, 0), len).unwrap();
        let layout = Layout::new(CodecKind::Zvc, len);
        let total_masks = len.div_ceil(32);
        for block in [64u32, 256, 1024] {
            for grid in [1u32, 4] {
                let c = LaunchConfig {
                    block,
                    grid,
                    single_pass: single_pass(CodecKind::Zvc),
                };
                let what = format!("{dtype:?} {c:?}");
                let decode = |b: &Vec<u32>| -> Result<Vec<u32>, CodecError> {
                    let header = Header::decode(b, Some(b.len()))?;
                    decompress(&client, &upload(&client, b), &header, c)?.to_host(&client)
                };
                assert_eq!(
                    unpack(&decode(&host).unwrap(), dtype, len),
                    e,
                    "{what} intact"
                );
                let corrupt = |f: &dyn Fn(&mut Vec<u32>)| {
                    let mut b = host.clone();
                    f(&mut b);
                    decode(&b).is_err()
                };
                // offsets of chunk 7 (tile 1 or 3) moved by a whole padding unit
                assert!(corrupt(&|b| b[layout.offsets + 7] += 2), "{what} offset");
                // a mask in chunk 8 loses its bits
                let g = (8 * 64..9 * 64)
                    .find(|&g| host[layout.masks + g].count_ones() >= 2)
                    .unwrap();
                assert!(corrupt(&|b| b[layout.masks + g] = 0), "{what} mask");
                // a bit past the end in the last mask
                assert!(
                    corrupt(&|b| b[layout.masks + total_masks - 1] |= 1 << 31),
                    "{what} tail mask"
                );
                // the device's own status bits, not only the checksum, name
                // both faults (each cube reports its own, the host ORs them)
                let mut b = host.clone();
                b[layout.offsets + 7] += 2;
                b[layout.masks + total_masks - 1] |= 1 << 31;
                match decode(&b) {
                    Err(CodecError::DeviceRejected(bits)) => {
                        assert_eq!(bits, 3, "{what}: offsets (1) and mask (2) bits")
                    }
                    other => panic!("{what}: expected a device rejection, got {other:?}"),
                }
                // the last offset points past the payload
                assert!(
                    corrupt(&|b| b[layout.offsets + 9] = 0x00ff_ffff),
                    "{what} huge offset"
                );
            }
        }
    }
}

/// A flipped bit in a stored value leaves the structure intact: only the
/// checksum can tell, on the GPU as on the CPU. Also a wrong checksum word.
#[test]
fn gpu_decoders_report_a_flipped_value_bit_as_a_checksum_mismatch() {
    let client = client();
    let len = 3 * CHUNK + 77;
    for codec in CodecKind::ALL {
        for dtype in DType::ALL {
            let e = elements(Pattern::Clustered(0.6), dtype, len, 41);
            let host = cpu::compress(codec, dtype, &pack(&e, dtype, 0x77), len).unwrap();
            let what = format!("{codec:?} {dtype:?}");
            let decode = |b: &Vec<u32>| -> Result<(), CodecError> {
                let header = Header::decode(b, Some(b.len()))?;
                decompress(&client, &upload(&client, b), &header, cfg(codec))?.check(&client)
            };
            assert_eq!(decode(&host), Ok(()), "{what} intact");
            for chunk in [0, 3] {
                let (w, bit) = value_word(codec, dtype, &host, len, chunk);
                let mut b = host.clone();
                b[w] ^= bit;
                assert!(
                    checksum_mismatch(&decode(&b)),
                    "{what} chunk {chunk}: {:?}",
                    decode(&b)
                );
                assert!(
                    checksum_mismatch(&cpu::decompress(&b)),
                    "{what} chunk {chunk} (CPU)"
                );
            }
            let mut b = host.clone();
            b[7] = b[7].wrapping_add(1);
            assert!(checksum_mismatch(&decode(&b)), "{what} checksum word");
        }
    }
}

/// Two-valued data (Bitmap's bits mode) and the same with a second value
/// or -0.0 (stored mode) at lengths around bitmap words, tiles and odd
/// 16-bit counts: GPU bytes equal the CPU reference's, round trip exact.
#[test]
fn bitmap_gpu_matches_cpu_reference_on_two_valued_data() {
    let client = client();
    let lens = [
        1usize,
        2,
        31,
        32,
        33,
        63,
        2047,
        2048,
        2049,
        4095,
        4097,
        64 * 32 + 1,
        3 * 8192 + 4096 + 33,
    ];
    let codec = CodecKind::Bitmap;
    for dtype in DType::ALL {
        for (i, &len) in lens.iter().enumerate() {
            for (zi, &sp) in TWO_VALUED_ZEROS.iter().enumerate() {
                let e = two_valued(one(dtype), len, sp, (i * 10 + zi) as u64);
                let what = format!("{dtype:?} len {len} zeros {sp}");
                check(&client, codec, dtype, &e, cfg(codec), &what);
            }
            // any one pattern: -0.0 alone, all bits set
            for v in [0x8000_0000u32, 0xFFFF_FFFF] {
                let v = if dtype == DType::F32 { v } else { v >> 16 };
                let e = two_valued(v, len, 0.5, i as u64);
                check(
                    &client,
                    codec,
                    dtype,
                    &e,
                    cfg(codec),
                    &format!("{dtype:?} len {len} {v:#x}"),
                );
            }
            if len >= 2 {
                // -0.0 and 1.0: stored
                let mut e = two_valued(one(dtype), len, 0.5, i as u64 + 100);
                e[0] = one(dtype);
                e[len / 2] = if dtype == DType::F32 {
                    0x8000_0000
                } else {
                    0x8000
                };
                check(
                    &client,
                    codec,
                    dtype,
                    &e,
                    cfg(codec),
                    &format!("{dtype:?} len {len} -0.0"),
                );
                // a second value in the last element only (its cube alone sees it)
                let mut e = two_valued(one(dtype), len, 0.5, i as u64 + 200);
                e[0] = one(dtype);
                e[len - 1] = one(dtype) - 1;
                check(
                    &client,
                    codec,
                    dtype,
                    &e,
                    cfg(codec),
                    &format!("{dtype:?} len {len} last"),
                );
            }
        }
    }
}

/// Bitmap at every block size and at grids from one cube looping over
/// every tile to more cubes than tiles, both modes.
#[test]
fn bitmap_every_block_and_grid() {
    let client = client();
    let codec = CodecKind::Bitmap;
    for dtype in DType::ALL {
        for (i, &len) in [40 * CHUNK + 123, 9 * 1024 + 7].iter().enumerate() {
            let two = two_valued(one(dtype), len, 0.5, i as u64);
            let mut mixed = two.clone();
            mixed[len - 3] = 5;
            for &block in LaunchConfig::blocks(codec) {
                for grid in [1u32, 3, 64, 4096] {
                    let c = LaunchConfig {
                        block,
                        grid,
                        single_pass: false,
                    };
                    for (e, mode) in [(&two, "bits"), (&mixed, "stored")] {
                        check(
                            &client,
                            codec,
                            dtype,
                            e,
                            c,
                            &format!("{dtype:?} {len} {mode} {c:?}"),
                        );
                    }
                }
            }
        }
    }
    // no single pass for Bitmap
    let input = upload(&client, &[1, 0, 1]);
    let c = LaunchConfig {
        single_pass: true,
        ..cfg(codec)
    };
    assert!(matches!(
        compress(&client, codec, &input, DType::F32, 3, c),
        Err(CodecError::BadConfig(..))
    ));
}

/// A larger two-valued tensor (4M elements) at the default configuration
/// and at one cube: the cubes' atomics meet in one scratch buffer.
#[test]
fn bitmap_large_two_valued_tensor() {
    let client = client();
    let codec = CodecKind::Bitmap;
    let len = (4 << 20) + 17;
    for dtype in [DType::F32, DType::BF16] {
        let e = two_valued(one(dtype), len, 0.1, 5);
        check(
            &client,
            codec,
            dtype,
            &e,
            cfg(codec),
            &format!("{dtype:?} large"),
        );
        let mut e2 = e.clone();
        e2[len / 3] = one(dtype) ^ 1;
        let c = LaunchConfig {
            grid: 1,
            ..cfg(codec)
        };
        check(
            &client,
            codec,
            dtype,
            &e2,
            c,
            &format!("{dtype:?} large stored one cube"),
        );
    }
}

/// The GPU decoder's own checks: a bad mode, a total the mode does not
/// give, a bits-mode value zero with bits set, a bit past the end, a set
/// junk half in stored mode (status bits); a flipped payload bit (the
/// checksum).
#[test]
fn bitmap_gpu_decoder_flags_corruption() {
    let client = client();
    let codec = CodecKind::Bitmap;
    let len = 3 * CHUNK + 77;
    for dtype in DType::ALL {
        let bits = pack(&two_valued(one(dtype), len, 0.5, 1), dtype, 0);
        let bits = cpu::compress(codec, dtype, &bits, len).unwrap();
        assert_eq!(bits[8], format::BITMAP_BITS);
        let mut mixed = two_valued(one(dtype), len, 0.5, 2);
        mixed[9] = 3;
        let stored = cpu::compress(codec, dtype, &pack(&mixed, dtype, 0), len).unwrap();
        assert_eq!(stored[8], format::BITMAP_STORED);
        let what = format!("{dtype:?}");
        // decode on the device only (the host's index check would see most)
        let decode = |c: &[u32], f: &dyn Fn(&mut Vec<u32>)| -> Result<(), CodecError> {
            let mut b = c.to_vec();
            f(&mut b);
            let header = Header::decode(&b, Some(b.len()))?;
            decompress(&client, &upload(&client, &b), &header, cfg(codec))?.check(&client)
        };
        for c in [&bits, &stored] {
            assert_eq!(decode(c, &|_| ()), Ok(()), "{what} intact");
            assert_eq!(
                decode(c, &|b| b[8] = 2),
                Err(CodecError::DeviceRejected(16)),
                "{what} mode"
            );
            assert_eq!(
                decode(c, &|b| b[8] ^= 1),
                Err(CodecError::DeviceRejected(16)),
                "{what} mode swapped"
            );
            assert!(
                checksum_mismatch(&decode(c, &|b| b[12] ^= 1 << 7)),
                "{what} payload bit"
            );
            assert!(
                checksum_mismatch(&decode(c, &|b| b[7] ^= 1)),
                "{what} checksum word"
            );
        }
        assert_eq!(
            decode(&stored, &|b| b[9] = 1),
            Err(CodecError::DeviceRejected(16)),
            "{what} stored value"
        );
        assert_eq!(
            decode(&bits, &|b| b[9] = 0),
            Err(CodecError::DeviceRejected(2)),
            "{what} zero value with bits"
        );
        assert_eq!(
            decode(&bits, &|b| {
                let last = b.len() - 1;
                b[last] |= 1 << 31
            }),
            Err(CodecError::DeviceRejected(2)),
            "{what} bit past the end"
        );
        assert!(
            checksum_mismatch(&decode(&bits, &|b| b[9] ^= 1 << 3)),
            "{what} value bit"
        );
        if dtype.size() == 2 {
            assert_eq!(
                decode(&bits, &|b| b[9] |= 1 << 16),
                Err(CodecError::DeviceRejected(16)),
                "{what} wide value"
            );
            // odd count stored: the last word's upper half is not data
            let e = vec![1u32, 2, 3];
            let c = cpu::compress(codec, dtype, &pack(&e, dtype, 0), 3).unwrap();
            assert_eq!(
                decode(&c, &|b| b[11] |= 1 << 20),
                Err(CodecError::DeviceRejected(2)),
                "{what} junk half"
            );
        }
    }
}

/// Bitmap with word (4-byte) access instead of 16-byte vectors, and from an
/// input handle at an aligned offset: same bytes, same round trip.
#[test]
fn bitmap_word_access_and_offset_input_handle() {
    let client = client();
    let codec = CodecKind::Bitmap;
    for dtype in [DType::F32, DType::BF16] {
        for len in [45usize, 3 * CHUNK + 45] {
            let two = two_valued(one(dtype), len, 0.4, 8);
            let mut mixed = two.clone();
            mixed[len - 1] = 9;
            for e in [&two, &mixed] {
                let words = pack(e, dtype, 0x1234);
                // 256 bytes (wgpu's binding alignment) of junk in front
                let mut shifted = vec![0xdead_beefu32; 64];
                shifted.extend_from_slice(&words);
                let input = upload(&client, &shifted).offset_start(256);
                let reference = cpu::compress(codec, dtype, &words, len).unwrap();
                let got = compress(&client, codec, &input, dtype, len, cfg(codec))
                    .unwrap()
                    .to_host(&client)
                    .unwrap();
                assert!(got == reference, "{dtype:?} {len} offset handle");
                cube_kernels::zvc_force_word_access(true);
                check(
                    &client,
                    codec,
                    dtype,
                    e,
                    cfg(codec),
                    &format!("{dtype:?} {len} words"),
                );
                cube_kernels::zvc_force_word_access(false);
            }
        }
    }
}

/// Bitmap compresses queued back to back without a read between them, of
/// growing and shrinking grids, both modes, between ZVC and CSR
/// compresses on the same stream: each finds its scratch (the stream's
/// single-pass state, which the launch before cleared) zero. Then the same
/// from four threads at once.
#[test]
fn bitmap_queued_compresses_find_their_scratch_zero() {
    queued_then_checked(|seed| {
        let lens = [
            300 * CHUNK + 9,
            5,
            40 * CHUNK + 77,
            2 * CHUNK,
            300 * CHUNK + 9,
            77,
        ];
        let mut calls = Vec::new();
        for (i, &len) in lens.iter().enumerate() {
            for codec in [CodecKind::Bitmap, [CodecKind::Zvc, CodecKind::Csr][i % 2]] {
                let dtype = DType::ALL[(i + seed as usize) % DType::ALL.len()];
                let mut e = two_valued(one(dtype), len, 0.5, seed * 31 + i as u64);
                if i % 3 == 1 {
                    e[len - 1] = 3;
                }
                let cfg = LaunchConfig {
                    block: [256u32, 64, 1024][i % 3],
                    grid: [3u32, 4096, 17, 1, 64, 2][i],
                    single_pass: single_pass(codec),
                };
                calls.push((codec, dtype, e, cfg));
            }
        }
        calls
    });
}

/// The decoded Bitmap handle covers exactly the data words (the decoder
/// writes whole 16-byte vectors into a rounded-up buffer).
#[test]
fn bitmap_decompressed_handle_is_trimmed_to_the_data() {
    let client = client();
    let codec = CodecKind::Bitmap;
    for (dtype, len) in [
        (DType::F32, 4097usize),
        (DType::F16, 4097),
        (DType::BF16, 3),
    ] {
        let two = two_valued(one(dtype), len, 0.3, 4);
        let mut mixed = two.clone();
        mixed[0] = 2;
        for e in [two, mixed] {
            let host = cpu::compress(codec, dtype, &pack(&e, dtype, 0), len).unwrap();
            let header = Header::decode(&host, Some(host.len())).unwrap();
            let d = decompress(&client, &upload(&client, &host), &header, cfg(codec)).unwrap();
            assert_eq!(d.words, dtype.words(len));
            assert_eq!(d.handle.size_in_used() as usize, dtype.words(len) * 4);
            assert_eq!(unpack(&d.to_host(&client).unwrap(), dtype, len), e);
        }
    }
}
