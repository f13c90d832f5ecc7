//! The CPU reference on its own: round trips, sizes, corruption.

mod common;
use common::*;
use cube_kernels::cpu;
use cube_kernels::format::{self, CodecKind, DType, Header, Layout, CHUNK};
use cube_kernels::CodecError;

const LENS: &[usize] = &[
    0,
    1,
    2,
    31,
    32,
    33,
    1000,
    4095,
    4096,
    4097,
    3 * 4096 + 17,
    50_001,
];

#[test]
fn every_codec_round_trips_bit_exact_on_every_pattern_dtype_and_length() {
    for codec in CodecKind::ALL {
        for dtype in DType::ALL {
            for (pi, &pattern) in PATTERNS.iter().enumerate() {
                for &len in LENS {
                    let e = elements(pattern, dtype, len, (pi * 1000 + len) as u64);
                    let words = pack(&e, dtype, 0xabcd);
                    let c = cpu::compress(codec, dtype, &words, len).unwrap();
                    assert!(c.len() <= format::max_compressed_words(codec, dtype, len));
                    let (d, h) = cpu::decompress(&c).unwrap();
                    assert_eq!(
                        h,
                        Header {
                            codec,
                            dtype,
                            len,
                            total_words: c.len(),
                            checksum: format::data_checksum(&words, dtype, len),
                        }
                    );
                    assert_eq!(
                        unpack(&d, dtype, len),
                        e,
                        "{codec:?} {dtype:?} {pattern:?} len {len}"
                    );
                }
            }
        }
    }
}

#[test]
fn zvc_ratio_is_within_two_percent_of_ideal() {
    let len = 1 << 20;
    for sp in [0.2, 0.5, 0.8, 0.95] {
        let e = elements(Pattern::Scattered(sp), DType::F32, len, 7);
        let c = cpu::compress(CodecKind::Zvc, DType::F32, &e, len).unwrap();
        let zeros = e.iter().filter(|&&x| x == 0).count() as f64 / len as f64;
        let ideal = 1.0 / ((1.0 - zeros) + 1.0 / 32.0);
        let ratio = len as f64 / c.len() as f64;
        assert!(
            ratio >= ideal * 0.98,
            "sp {sp}: ratio {ratio} ideal {ideal}"
        );
    }
}

#[test]
fn negative_zero_is_not_zero() {
    let e = vec![0x8000_0000u32, 0, 0x8000_0000];
    let c = cpu::compress(CodecKind::Zvc, DType::F32, &e, 3).unwrap();
    let layout = Layout::new(CodecKind::Zvc, 3);
    assert_eq!(c[layout.masks], 0b101);
}

fn all_compressed() -> Vec<(CodecKind, Vec<u32>)> {
    CodecKind::ALL
        .iter()
        .map(|&codec| {
            let len = 2 * CHUNK + 100;
            let e = elements(Pattern::Clustered(0.6), DType::F32, len, 3);
            (codec, cpu::compress(codec, DType::F32, &e, len).unwrap())
        })
        .collect()
}

#[test]
fn truncated_buffers_are_errors() {
    for (codec, c) in all_compressed() {
        for cut in [0, 4, 7, 8, 9, c.len() / 2, c.len() - 1] {
            let r = cpu::decompress(&c[..cut]);
            assert!(r.is_err(), "{codec:?} cut at {cut} decoded");
        }
        let bytes = format::words_to_bytes(&c);
        assert!(format::bytes_to_words(&bytes[..bytes.len() - 1]).is_err());
    }
}

#[test]
fn corrupted_headers_and_offsets_are_errors() {
    for (codec, c) in all_compressed() {
        let layout = Layout::new(codec, 2 * CHUNK + 100);
        for word in [0, 1, 2, 4, 6] {
            let mut b = c.clone();
            b[word] ^= 0x10;
            assert!(cpu::decompress(&b).is_err(), "{codec:?} header word {word}");
        }
        if codec == CodecKind::Bitmap {
            // no chunk offsets (see the Bitmap tests)
            continue;
        }
        for k in 0..3 {
            let mut b = c.clone();
            b[layout.offsets + k + 1] = b[layout.offsets + k + 1].wrapping_add(2);
            assert!(cpu::decompress(&b).is_err(), "{codec:?} offset {k}");
        }
    }
}

#[test]
fn corrupted_payload_structure_is_an_error_or_same_size_output() {
    // Flipping payload bits may give other valid data (values), but never a
    // panic, and a structural break (indices, masks, LZ4 tokens) is an error.
    let mut errors = 0;
    for (codec, c) in all_compressed() {
        let layout = Layout::new(codec, 2 * CHUNK + 100);
        let mut rng = Rng(99);
        for _ in 0..300 {
            let mut b = c.clone();
            let i = layout.masks + (rng.next() as usize % (c.len() - layout.masks));
            b[i] ^= 1 << (rng.next() % 32);
            match cpu::decompress(&b) {
                Ok((d, _)) => assert_eq!(d.len(), DType::F32.words(2 * CHUNK + 100)),
                Err(_) => errors += 1,
            }
        }
    }
    assert!(errors > 0);
}

#[test]
fn header_rejects_wrong_lengths() {
    let e = vec![1u32; 100];
    let c = cpu::compress(CodecKind::Zvc, DType::F32, &e, 100).unwrap();
    assert!(matches!(
        Header::decode(&c, Some(c.len() - 1)),
        Err(CodecError::Truncated { .. })
    ));
    assert!(Header::decode(&c[..7], None).is_err());
    assert!(Header::decode(&c, Some(c.len())).is_ok());
}

#[test]
fn checksum_is_the_odd_weighted_word_sum_and_ignores_the_junk_half() {
    assert_eq!(format::checksum(&[]), 0);
    assert_eq!(format::checksum(&[5, 7, 1]), 5 + 7 * 3 + 5);
    assert_eq!(format::checksum(&[u32::MAX, 2]), u32::MAX.wrapping_add(6));
    // three 16-bit elements: the upper half of the second word is not data
    assert_eq!(
        format::data_checksum(&[0x0002_0001, 0xabcd_0003], DType::F16, 3),
        format::checksum(&[0x0002_0001, 0x0000_0003])
    );
}

#[test]
fn a_flipped_bit_in_a_stored_value_is_a_checksum_error() {
    let len = 3 * CHUNK + 77;
    for codec in CodecKind::ALL {
        for dtype in DType::ALL {
            let e = elements(Pattern::Clustered(0.6), dtype, len, 41);
            let words = pack(&e, dtype, 0x77);
            let c = cpu::compress(codec, dtype, &words, len).unwrap();
            for chunk in [0, 2] {
                let (w, bit) = value_word(codec, dtype, &c, len, chunk);
                let mut b = c.clone();
                b[w] ^= bit;
                assert!(
                    checksum_mismatch(&cpu::decompress(&b)),
                    "{codec:?} {dtype:?} chunk {chunk}"
                );
            }
            // the checksum word itself
            let mut b = c.clone();
            b[7] ^= 1;
            assert!(checksum_mismatch(&cpu::decompress(&b)));
        }
    }
}

const BITMAP_LENS: &[usize] = &[0, 1, 2, 3, 31, 32, 33, 63, 2047, 2048, 2049, 50_001];

/// Compress with Bitmap, check the mode, value and exact size, and round trip.
fn bitmap_round_trip(dtype: DType, e: &[u32], mode: u32, value: u32, what: &str) -> Vec<u32> {
    let len = e.len();
    let words = pack(e, dtype, 0xabcd);
    let c = cpu::compress(CodecKind::Bitmap, dtype, &words, len).unwrap();
    let payload = if mode == format::BITMAP_BITS {
        len.div_ceil(32)
    } else {
        dtype.words(len)
    };
    assert_eq!(c.len(), 10 + payload, "{what}: size");
    assert!(c.len() <= format::max_compressed_words(CodecKind::Bitmap, dtype, len));
    assert_eq!(c[8], mode, "{what}: mode");
    assert_eq!(c[9], value, "{what}: value");
    assert_eq!(cpu::validate_index(&c).map(|h| h.total_words), Ok(c.len()));
    let (d, h) = cpu::decompress(&c).unwrap();
    assert_eq!(h.checksum, format::data_checksum(&words, dtype, len));
    assert_eq!(unpack(&d, dtype, len), e, "{what}: round trip");
    if dtype.size() == 2 && len % 2 == 1 {
        assert_eq!(d[d.len() - 1] >> 16, 0, "{what}: junk half written as zero");
    }
    c
}

#[test]
fn bitmap_bits_mode_is_a_bit_per_element_and_the_value() {
    for dtype in DType::ALL {
        for &len in BITMAP_LENS {
            for (zi, &sp) in TWO_VALUED_ZEROS.iter().enumerate() {
                let e = two_valued(one(dtype), len, sp, (len * 10 + zi) as u64);
                let value = if e.iter().any(|&x| x != 0) {
                    one(dtype)
                } else {
                    0
                };
                let what = format!("{dtype:?} len {len} zeros {sp}");
                let c = bitmap_round_trip(dtype, &e, format::BITMAP_BITS, value, &what);
                for (i, &x) in e.iter().enumerate() {
                    assert_eq!(
                        c[10 + i / 32] >> (i % 32) & 1,
                        u32::from(x != 0),
                        "{what}: bit {i}"
                    );
                }
                if len % 32 != 0 {
                    assert_eq!(c[c.len() - 1] >> (len % 32), 0, "{what}: unused bits");
                }
            }
        }
    }
    // any one pattern, not only 1.0: NaN payloads, -0.0, all ones
    for (dtype, v) in [
        (DType::F32, 0x8000_0000),
        (DType::F32, 0xFFFF_FFFF),
        (DType::F32, 0x7fc1_2345),
        (DType::F16, 0x8000),
        (DType::BF16, 0xFFFF),
    ] {
        let e = two_valued(v, 2049, 0.5, 3);
        bitmap_round_trip(
            dtype,
            &e,
            format::BITMAP_BITS,
            v,
            &format!("{dtype:?} {v:#x}"),
        );
    }
}

#[test]
fn bitmap_stores_tensors_of_more_than_one_non_zero_pattern() {
    for dtype in DType::ALL {
        // -0.0 and 1.0: -0.0 is not zero
        let neg_zero = if dtype == DType::F32 {
            0x8000_0000
        } else {
            0x8000
        };
        for &len in BITMAP_LENS.iter().filter(|&&l| l >= 2) {
            let mut e = two_valued(one(dtype), len, 0.5, len as u64);
            e[len / 2] = neg_zero;
            e[0] = one(dtype);
            let what = format!("{dtype:?} len {len} -0.0 and 1.0");
            bitmap_round_trip(dtype, &e, format::BITMAP_STORED, 0, &what);
            // a second value as the last element only
            let mut e = two_valued(one(dtype), len, 0.3, len as u64 + 1);
            e[0] = one(dtype);
            e[len - 1] = one(dtype) + 1;
            let what = format!("{dtype:?} len {len} a second value last");
            bitmap_round_trip(dtype, &e, format::BITMAP_STORED, 0, &what);
        }
        for (pi, &pattern) in PATTERNS.iter().enumerate() {
            let e = elements(pattern, dtype, 4097, pi as u64);
            let distinct = e
                .iter()
                .filter(|&&x| x != 0)
                .collect::<std::collections::BTreeSet<_>>();
            let mode = if distinct.len() <= 1 {
                format::BITMAP_BITS
            } else {
                format::BITMAP_STORED
            };
            let value = match (mode, distinct.first()) {
                (format::BITMAP_BITS, Some(&&v)) => v,
                _ => 0,
            };
            bitmap_round_trip(dtype, &e, mode, value, &format!("{dtype:?} {pattern:?}"));
        }
    }
}

#[test]
fn bitmap_stored_mode_writes_the_junk_half_as_zero() {
    for dtype in [DType::F16, DType::BF16] {
        let e = vec![1u32, 2, 3];
        let words = pack(&e, dtype, 0xabcd);
        assert_eq!(words[1] >> 16, 0xabcd);
        let c = cpu::compress(CodecKind::Bitmap, dtype, &words, 3).unwrap();
        assert_eq!(&c[10..], &[0x0002_0001, 0x0000_0003]);
    }
}

#[test]
fn bitmap_sizes_are_the_plans() {
    for dtype in DType::ALL {
        for len in [0usize, 1, 31, 32, 33, 1000, 2049] {
            assert_eq!(
                format::max_compressed_words(CodecKind::Bitmap, dtype, len),
                10 + dtype.words(len)
            );
            assert!(10 + dtype.words(len) >= 10 + len.div_ceil(32));
            let layout = Layout::new(CodecKind::Bitmap, len);
            assert_eq!((layout.masks, layout.offsets, layout.payload), (10, 10, 10));
        }
    }
    assert_eq!(CodecKind::ALL.len(), 5);
    assert_eq!(CodecKind::Bitmap.name(), "bitmap");
}

#[test]
fn bitmap_corruption_is_an_error() {
    let len = 2 * CHUNK + 77;
    for dtype in DType::ALL {
        let bits = pack(&two_valued(one(dtype), len, 0.5, 9), dtype, 0);
        let bits = cpu::compress(CodecKind::Bitmap, dtype, &bits, len).unwrap();
        assert_eq!(bits[8], format::BITMAP_BITS);
        let mut mixed = two_valued(one(dtype), len, 0.5, 10);
        mixed[5] = 7;
        let stored = cpu::compress(CodecKind::Bitmap, dtype, &pack(&mixed, dtype, 0), len).unwrap();
        assert_eq!(stored[8], format::BITMAP_STORED);
        let what = format!("{dtype:?}");
        let corrupt = |c: &[u32], f: &dyn Fn(&mut Vec<u32>)| {
            let mut b = c.to_vec();
            f(&mut b);
            (
                cpu::validate_index(&b).map(|_| ()),
                cpu::decompress(&b).map(|_| ()),
            )
        };
        let structural = |r: &(Result<(), CodecError>, Result<(), CodecError>)| {
            matches!(
                r,
                (Err(CodecError::Corrupt(_)), Err(CodecError::Corrupt(_)))
            )
        };
        for c in [&bits, &stored] {
            // an unknown mode
            for mode in [2, 0xFFFF_FFFF] {
                assert!(
                    structural(&corrupt(c, &|b| b[8] = mode)),
                    "{what} mode {mode}"
                );
            }
            // the other mode than the total says
            assert!(
                structural(&corrupt(c, &|b| b[8] ^= 1)),
                "{what} mode swapped"
            );
            // the checksum word
            assert!(
                checksum_mismatch(&corrupt(c, &|b| b[7] ^= 1).1),
                "{what} checksum"
            );
            // the header's total (its check fails)
            assert!(corrupt(c, &|b| b[4] -= 1).0.is_err(), "{what} total");
        }
        // a stored buffer with a value
        assert!(
            structural(&corrupt(&stored, &|b| b[9] = 1)),
            "{what} stored value"
        );
        if dtype.size() == 2 {
            // a 16-bit value past the low half
            assert!(
                structural(&corrupt(&bits, &|b| b[9] |= 1 << 16)),
                "{what} wide value"
            );
        }
        // value zero with bits set: the index is fine, the decoder is not
        let r = corrupt(&bits, &|b| b[9] = 0);
        assert!(
            r.0.is_ok() && matches!(r.1, Err(CodecError::Corrupt(_))),
            "{what} zero value"
        );
        // a bit past the end
        let r = corrupt(&bits, &|b| {
            let last = b.len() - 1;
            b[last] |= 1 << 31
        });
        assert!(
            matches!(r.1, Err(CodecError::Corrupt(_))),
            "{what} bit past the end"
        );
        // a flipped bit of the payload or of the value: only the checksum sees it
        assert!(
            checksum_mismatch(&corrupt(&bits, &|b| b[12] ^= 1 << 5).1),
            "{what} bit"
        );
        assert!(
            checksum_mismatch(&corrupt(&bits, &|b| b[9] ^= 1 << 3).1),
            "{what} value bit"
        );
        assert!(
            checksum_mismatch(&corrupt(&stored, &|b| b[12] ^= 1 << 5).1),
            "{what} stored"
        );
        // truncated
        assert!(cpu::decompress(&bits[..bits.len() - 1]).is_err());
        assert!(cpu::decompress(&stored[..stored.len() - 1]).is_err());
    }
    // the junk half of a stored odd 16-bit count
    let e = vec![1u32, 2, 3];
    let c = cpu::compress(CodecKind::Bitmap, DType::F16, &pack(&e, DType::F16, 0), 3).unwrap();
    assert_eq!(c[8], format::BITMAP_STORED);
    let mut b = c.clone();
    b[11] |= 1 << 20;
    assert!(matches!(cpu::decompress(&b), Err(CodecError::Corrupt(_))));
    // an all-zero tensor: bits mode, value zero, no bit set
    let z = cpu::compress(CodecKind::Bitmap, DType::F32, &[0; 40], 40).unwrap();
    assert_eq!((z[8], z[9], z.len()), (format::BITMAP_BITS, 0, 12));
}
